#include "sim/simulate.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "api/decode.h"
#include "api/doc.h"
#include "core/actions.h"
#include "podgrouper/podgrouper.h"
#include "sim/output.h"
#include "util/clock.h"
#include "util/mem.h"

struct sim_opts {
	const char **files;
	size_t n_files, cap_files;
	int cycles;
	unsigned actions;
	int64_t now;
	bool json;
	bool show_cycles;	/* log every cycle's binds, pipelines and evictions to stderr */
};

static void usage(FILE *f)
{
	fputs("usage: gantry simulate -f FILE [-f FILE ...] [--cycles N] [--actions LIST]\n"
	      "                       [--now RFC3339] [-o json|table]\n"
	      "  -f FILE      Kubernetes objects (YAML or JSON, multi-document, v1 List); - for stdin;\n"
	      "               a directory: every .yaml, .yml and .json file in it\n"
	      "  --cycles N   scheduling cycles to run (default 1)\n"
	      "  --actions L  comma-separated subset of allocate,consolidation,reclaim,preempt,\n"
	      "               stalegangeviction (default: all five)\n"
	      "  --now T      the virtual clock's start (default: the current time)\n"
	      "  -o FORMAT    json or table (default table)\n"
	      "  --show-cycles  log each cycle's binds, pipelines and evictions, with why\n", f);
}

static int parse_actions(const char *list, unsigned *mask)
{
	char bad[64];
	if (!gt_actions_parse(list, mask, bad, sizeof(bad)))
		return 0;
	fprintf(stderr, "gantry simulate: --actions: unknown action '%s'\n", bad);
	return 2;
}

static int parse_args(int argc, char **argv, struct sim_opts *o)
{
	o->cycles = 1;
	o->actions = GT_ACTIONS_ALL;
	o->now = (int64_t)time(NULL);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		}
		if (!strcmp(a, "--show-cycles")) {
			o->show_cycles = true;
			continue;
		}
		if (!v) {
			fprintf(stderr, "gantry simulate: %s needs a value\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "-f") || !strcmp(a, "--filename")) {
			GT_PUSH(o->files, o->n_files, o->cap_files, v);
		} else if (!strcmp(a, "--cycles")) {
			char *end;
			long n = strtol(v, &end, 10);
			if (*end || n < 1 || n > 100000) {
				fprintf(stderr, "gantry simulate: --cycles must be a number from 1 to 100000, not '%s'\n", v);
				return 2;
			}
			o->cycles = (int)n;
		} else if (!strcmp(a, "--actions")) {
			if (parse_actions(v, &o->actions))
				return 2;
		} else if (!strcmp(a, "--now")) {
			if (gt_parse_time(v, &o->now)) {
				fprintf(stderr, "gantry simulate: --now must be an RFC 3339 time, not '%s'\n", v);
				return 2;
			}
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (strcmp(v, "json") && strcmp(v, "table")) {
				fprintf(stderr, "gantry simulate: -o must be json or table, not '%s'\n", v);
				return 2;
			}
			o->json = !strcmp(v, "json");
		} else {
			fprintf(stderr, "gantry simulate: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (!o->n_files) {
		fprintf(stderr, "gantry simulate: no input: give at least one -f FILE\n");
		usage(stderr);
		return 2;
	}
	return 0;
}

static int load_file(const char *name, struct gt_doc_list *docs)
{
	bool is_stdin = !strcmp(name, "-");
	FILE *f = is_stdin ? stdin : fopen(name, "r");
	if (!f) {
		fprintf(stderr, "gantry simulate: cannot open '%s'\n", name);
		return 2;
	}
	struct gt_err err = { 0 };
	int rc = gt_doc_parse_file(f, is_stdin ? "<stdin>" : name, docs, &err);
	if (!is_stdin)
		fclose(f);
	if (rc) {
		fprintf(stderr, "gantry simulate: %s\n", err.msg);
		return 2;
	}
	return 0;
}

static bool manifest_name(const char *n)
{
	size_t len = strlen(n);
	return n[0] != '.' && ((len > 5 && !strcmp(n + len - 5, ".yaml")) ||
			       (len > 4 && !strcmp(n + len - 4, ".yml")) ||
			       (len > 5 && !strcmp(n + len - 5, ".json")));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -f DIR, as kubectl: every .yaml, .yml and .json file in it, in name order. */
static int load_dir(const char *dir, struct gt_doc_list *docs)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "gantry simulate: cannot open '%s'\n", dir);
		return 2;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	for (struct dirent *e; (e = readdir(d));)
		if (manifest_name(e->d_name))
			GT_PUSH(names, n, cap, gt_xstrdup(e->d_name));
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!rc)
			rc = load_file(path, docs);
		free(names[i]);
	}
	free(names);
	return rc;
}

static int load_files(const struct sim_opts *o, struct gt_doc_list *docs)
{
	for (size_t i = 0; i < o->n_files; i++) {
		struct stat st;
		bool dir = strcmp(o->files[i], "-") && !stat(o->files[i], &st) && S_ISDIR(st.st_mode);
		int rc = dir ? load_dir(o->files[i], docs) : load_file(o->files[i], docs);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Groups a session opened have ids past the string table as it was when the
 * session opened; name them "<node>-gpu<k>" (the first k not taken) and
 * intern the name, so the next cycle sees an ordinary group label. The
 * names live in the session, so output and the next cycle agree.
 */
const char *gt_sim_group_name(struct gt_cluster *c, const struct gt_session *s, uint32_t id,
			      int32_t node)
{
	if (id < s->n_base_names)
		return gt_strtab_str(c->names, id);
	struct gt_session *ms = (struct gt_session *)s;	/* the name map is memo, not state */
	size_t k = id - s->n_base_names;
	if (k >= ms->n_group_names) {
		size_t n = k + 16;
		ms->group_names = gt_xrealloc(ms->group_names, n * sizeof(*ms->group_names));
		memset(ms->group_names + ms->n_group_names, 0,
		       (n - ms->n_group_names) * sizeof(*ms->group_names));
		ms->n_group_names = n;
	}
	if (!ms->group_names[k]) {
		char buf[300];
		const char *nn = node >= 0 ? gt_strtab_str(c->names, c->nodes[node].name) : "gpu";
		for (unsigned i = 0;; i++) {
			snprintf(buf, sizeof(buf), "%s-gpu%u", nn, i);
			if (gt_strtab_find(c->names, buf) < 0)
				break;
		}
		ms->group_names[k] = gt_strtab_intern(c->names, buf) + 1;
	}
	return gt_strtab_str(c->names, ms->group_names[k] - 1);
}

static uint32_t group_id_for_cluster(struct gt_cluster *c, const struct gt_session *s,
				     uint32_t id, int32_t node)
{
	if (id < s->n_base_names)
		return id;
	const char *name = gt_sim_group_name(c, s, id, node);
	return (uint32_t)gt_strtab_find(c->names, name);
}

void gt_sim_advance(struct gt_cluster *c, const struct gt_session *s)
{
	for (uint32_t i = 0; i < c->n_pods; i++) {
		struct gt_pod *p = &c->pods[i];
		const struct gt_pod_state *st = &s->pods[i];
		switch (st->status) {
		case GT_BINDING:
		case GT_ALLOCATED:
			p->status = GT_RUNNING;
			p->node = st->node;
			p->n_groups = st->n_groups;
			for (uint8_t g = 0; g < st->n_groups; g++)
				p->groups[g] = group_id_for_cluster(c, s, st->groups[g], st->node);
			break;
		case GT_RELEASING:
			if (p->status == GT_RELEASING)
				break;	/* terminating in the input: still going */
			if (p->job != GT_NONE && c->jobs[p->job].deleting)
				break;
			p->status = GT_PENDING;	/* its controller recreated it */
			p->node = GT_NONE;
			p->n_groups = 0;
			break;
		case GT_PIPELINED:
			p->status = GT_PENDING;
			p->node = GT_NONE;
			p->n_groups = 0;
			break;
		default:
			break;
		}
	}
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		c->jobs[j].last_start = s->jobs[j].last_start;
		c->jobs[j].stale_since = s->jobs[j].stale_since;
	}
}

int gt_simulate_main(int argc, char **argv)
{
	struct sim_opts o = { 0 };
	int rc = parse_args(argc, argv, &o);
	if (rc) {
		free(o.files);
		return rc < 0 ? 0 : rc;
	}
	struct gt_doc_list docs = { 0 };
	struct gt_strtab names;
	struct gt_cluster c;
	struct gt_decoder dec;
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	gt_decoder_init(&dec);
	dec.claims_listed = true;	/* the input is the whole cluster: a claim it lacks is missing */
	rc = load_files(&o, &docs);
	/*
	 * Pods that arrive without a PodGroup but with their owners in the input
	 * (kubectl get pytorchjob,pods -o yaml) are grouped as the podgrouper
	 * would group them in a cluster.
	 */
	struct gt_pg_config pg_cfg;
	struct gt_pg_batch pg = { 0 };
	gt_pg_config_init(&pg_cfg);
	if (!rc) {
		struct gt_err err = { 0 };
		if (gt_pg_group_all(&pg_cfg, docs.docs, docs.n, &pg, &err)) {
			fprintf(stderr, "gantry simulate: %s\n", err.msg);
			rc = 2;
		}
		gt_pg_batch_apply(&pg);
		for (size_t i = 0; i < pg.n_warnings; i++)
			fprintf(stderr, "gantry simulate: warning: %s\n", pg.warnings[i]);
	}
	if (!rc) {
		for (size_t i = 0; i < pg.n_podgroups; i++)
			gt_decoder_add(&dec, pg.podgroups[i]);
		for (size_t i = 0; i < docs.n; i++)
			gt_decoder_add(&dec, docs.docs[i]);
		struct gt_err err = { 0 };
		if (gt_decoder_build(&dec, &c, &err)) {
			fprintf(stderr, "gantry simulate: %s\n", err.msg);
			rc = 2;
		}
		for (size_t i = 0; i < dec.n_warnings; i++)
			fprintf(stderr, "gantry simulate: warning: %s\n", dec.warnings[i]);
		c.config.clock_ms = gt_mono_ms_clock;	/* the victim search's time budgets */
	}
	if (!rc) {
		struct gt_session s;
		for (int cycle = 1; cycle <= o.cycles; cycle++) {
			gt_cycle_run(&s, &c, o.now, o.actions);
			if (o.show_cycles)	/* with JSON on stdout, the log goes to stderr */
				gt_output_cycle_log(o.json ? stderr : stdout, &c, &s, cycle);
			if (cycle == o.cycles)
				break;
			gt_sim_advance(&c, &s);
			gt_session_release(&s);
			o.now += 1;	/* KAI's cycle period: one second */
		}
		if (o.json) {
			gt_output_json(stdout, &c, &s, o.cycles);
		} else {
			if (o.show_cycles)
				fputc('\n', stdout);
			gt_output_table(stdout, &c, &s, o.cycles);
		}
		gt_session_release(&s);
	}
	gt_decoder_release(&dec);
	gt_pg_batch_release(&pg);
	gt_pg_config_release(&pg_cfg);
	gt_doc_list_release(&docs);
	gt_cluster_release(&c);
	gt_strtab_release(&names);
	free(o.files);
	return rc;
}
