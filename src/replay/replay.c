#include "replay/replay.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/decode.h"
#include "replay/engine.h"
#include "replay/output.h"
#include "replay/setup.h"
#include "util/mem.h"
#include "util/time.h"

struct cli {
	const char *trace;	/* FORMAT:FILE */
	const char **files;
	size_t n_files, cap_files;
	uint32_t nodes;
	int32_t gpus_per_node;
	const char *openb_nodes;
	const char *vc_sizes;
	bool single_queue;
	int placement;		/* enum gt_placement, -1: from the cluster's shard or binpack */
	int cpu_spread;		/* -1: from the shard (binpack); 0 binpack; 1 spread */
	int32_t gang_split;
	int64_t min_runtime;	/* -1: as the cluster's shard says (0) */
	bool json;
	const char *report;
	const char *compare[2];
	bool quiet;
	bool actions_given;
	struct gt_replay_opts o;
};

static void usage(FILE *f)
{
	fputs("usage: gantry replay --trace FORMAT:FILE CLUSTER [options] [-o json|table] [--report FILE.html]\n"
	      "       gantry replay --compare A.json B.json\n"
	      "  --trace FORMAT:FILE   philly, openb, itp or crux (see docs/replay.md)\n"
	      "cluster (sources add up):\n"
	      "  -f FILE               Nodes, Queues, SchedulingShard as Kubernetes YAML/JSON (repeatable)\n"
	      "  --nodes N --gpus-per-node G   N identical nodes (also --nodes NxG)\n"
	      "  --openb-nodes FILE    an openb_node_list_*.csv\n"
	      "queues:\n"
	      "  --vc-sizes FILE       Philly: a quota per VC proportional to its nodes\n"
	      "  --queues tenant|single   one queue per tenant (default) or one for all\n"
	      "policy:\n"
	      "  --actions LIST        subset of allocate,consolidation,reclaim,preempt,stalegangeviction\n"
	      "                        (default: all five, as KAI)\n"
	      "  --placement P         binpack (default), spread or gpupack\n"
	      "  --cpu-placement P     binpack (default) or spread: where CPU-only pods go\n"
	      "  --fifo                strict FIFO: one queue, no job passes the oldest waiting one\n"
	      "  --min-runtime S       reclaim and preempt spare jobs that ran less (KAI's minruntime)\n"
	      "  --qos-priority        openb: qos as priority (LS 125, Guaranteed 100, Burstable 75, BE 50)\n"
	      "time:\n"
	      "  --period S            seconds between cycles (default 1)\n"
	      "  --bind-latency S      bind to running (default 0)\n"
	      "  --evict-grace S       eviction to pod gone (default 0)\n"
	      "  --resume              evicted jobs keep their progress (default: restart from scratch)\n"
	      "  --scale-arrivals F    F times as many arrivals per unit of time\n"
	      "  --load X              scale the arrivals to an offered load of X\n"
	      "  --limit N             the first N jobs only\n"
	      "  --gang-split G        GPUs per gang pod for multi-GPU jobs (default 8)\n"
	      "  --no-departures       pods never leave (the FGD packing experiment)\n"
	      "  --inflate F           with --no-departures: repeat the trace until F x its GPU request\n"
	      "output:\n"
	      "  -o json|table         (default table)\n"
	      "  --report FILE.html    a self-contained report with charts\n"
	      "  --starvation S        count jobs that waited longer (default 86400)\n"
	      "  --exact               run every cycle, no shortcut (slower; same results)\n"
	      "  --quiet               no progress line on a terminal\n", f);
}

static int bad(const char *flag, const char *v, const char *what)
{
	fprintf(stderr, "gantry replay: %s: %s, not '%s'\n", flag, what, v);
	return 2;
}

static int parse_double(const char *flag, const char *v, double min, double *out)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (!*v || *end || errno || !isfinite(d) || d < min) {
		char what[64];
		snprintf(what, sizeof(what), "needs a number of at least %g", min);
		return bad(flag, v, what);
	}
	*out = d;
	return 0;
}

static int parse_uint(const char *flag, const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (!*v || *v == '-' || *end || errno || n < min || n > max) {
		char what[96];
		snprintf(what, sizeof(what), "needs a whole number from %llu to %llu",
			 (unsigned long long)min, (unsigned long long)max);
		return bad(flag, v, what);
	}
	*out = n;
	return 0;
}

/* Seconds as a number ("90") or a Go duration ("1m30s"). */
static int parse_seconds(const char *flag, const char *v, int64_t *out)
{
	uint64_t n;
	char *end;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (*v && *v != '-' && !*end && !errno && n < (UINT64_C(1) << 40)) {
		*out = (int64_t)n;
		return 0;
	}
	if (gt_duration_parse_whole(v, out) || *out < 0)
		return bad(flag, v, "needs seconds or a duration such as 90s or 1h");
	return 0;
}

static int parse_actions(const char *list, unsigned *mask)
{
	char *copy = gt_xstrdup(list);
	int rc = 0;
	*mask = 0;
	for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		enum gt_action a = gt_action_from_name(tok);
		if (a == GT_ACT_NONE)
			rc = bad("--actions", tok, "unknown action");
		*mask |= 1u << a;
	}
	free(copy);
	if (!rc && !*mask)
		rc = bad("--actions", list, "needs at least one action");
	return rc;
}

/* "--nodes N" (with --gpus-per-node) or "--nodes NxG". */
static int parse_nodes(struct cli *o, const char *v)
{
	uint64_t n, g;
	const char *x = strchr(v, 'x');
	char *count = x ? gt_xstrndup(v, (size_t)(x - v)) : gt_xstrdup(v);
	int rc = parse_uint("--nodes", count, 1, 1000000, &n);
	free(count);
	if (!rc && x)
		rc = parse_uint("--nodes", x + 1, 1, GT_MAX_DEVICES * 4, &g);
	if (rc)
		return 2;
	o->nodes = (uint32_t)n;
	if (x)
		o->gpus_per_node = (int32_t)g;
	return 0;
}

/* Flags that take no value. 1 when @a was one. */
static int parse_switch(struct cli *o, const char *a)
{
	if (!strcmp(a, "--fifo"))
		o->o.fifo = true;
	else if (!strcmp(a, "--resume"))
		o->o.resume = true;
	else if (!strcmp(a, "--no-departures"))
		o->o.no_departures = true;
	else if (!strcmp(a, "--qos-priority"))
		o->o.qos_priority = true;
	else if (!strcmp(a, "--exact"))
		o->o.exact = true;
	else if (!strcmp(a, "--quiet"))
		o->quiet = true;
	else
		return 0;
	return 1;
}

static int parse_value(struct cli *o, const char *a, const char *v)
{
	uint64_t n;
	double d;
	if (!strcmp(a, "--trace"))
		o->trace = v;
	else if (!strcmp(a, "-f") || !strcmp(a, "--filename"))
		GT_PUSH(o->files, o->n_files, o->cap_files, v);
	else if (!strcmp(a, "--nodes"))
		return parse_nodes(o, v);
	else if (!strcmp(a, "--gpus-per-node")) {
		if (parse_uint(a, v, 0, GT_MAX_DEVICES * 4, &n))
			return 2;
		o->gpus_per_node = (int32_t)n;
	} else if (!strcmp(a, "--openb-nodes"))
		o->openb_nodes = v;
	else if (!strcmp(a, "--vc-sizes"))
		o->vc_sizes = v;
	else if (!strcmp(a, "--queues")) {
		if (strcmp(v, "tenant") && strcmp(v, "single"))
			return bad(a, v, "must be tenant or single");
		o->single_queue = !strcmp(v, "single");
	} else if (!strcmp(a, "--actions")) {
		o->actions_given = true;
		return parse_actions(v, &o->o.actions);
	}
	else if (!strcmp(a, "--placement")) {
		o->placement = (int)gt_placement_from_name(v);
		if (o->placement == GT_N_PLACEMENTS)
			return bad(a, v, "must be binpack, spread or gpupack");
	} else if (!strcmp(a, "--cpu-placement")) {
		if (strcmp(v, "binpack") && strcmp(v, "spread"))
			return bad(a, v, "must be binpack or spread");
		o->cpu_spread = !strcmp(v, "spread");
	} else if (!strcmp(a, "--period")) {
		if (parse_seconds(a, v, &o->o.period))
			return 2;
		if (o->o.period < 1)
			return bad(a, v, "must be 1 s or more");
	} else if (!strcmp(a, "--bind-latency"))
		return parse_seconds(a, v, &o->o.bind_latency);
	else if (!strcmp(a, "--evict-grace"))
		return parse_seconds(a, v, &o->o.evict_grace);
	else if (!strcmp(a, "--min-runtime"))
		return parse_seconds(a, v, &o->min_runtime);
	else if (!strcmp(a, "--starvation"))
		return parse_seconds(a, v, &o->o.starvation_s);
	else if (!strcmp(a, "--scale-arrivals")) {
		if (parse_double(a, v, 1e-6, &d))
			return 2;
		o->o.scale_arrivals = d;
	} else if (!strcmp(a, "--load")) {
		if (parse_double(a, v, 1e-6, &d))
			return 2;
		o->o.load = d;
	} else if (!strcmp(a, "--inflate")) {
		if (parse_double(a, v, 1e-6, &d))
			return 2;
		o->o.inflate = d;
	} else if (!strcmp(a, "--limit")) {
		if (parse_uint(a, v, 1, UINT32_MAX, &n))
			return 2;
		o->o.limit = (uint32_t)n;
	} else if (!strcmp(a, "--gang-split")) {
		if (parse_uint(a, v, 1, 1024, &n))
			return 2;
		o->gang_split = (int32_t)n;
	} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
		if (strcmp(v, "json") && strcmp(v, "table"))
			return bad(a, v, "must be json or table");
		o->json = !strcmp(v, "json");
	} else if (!strcmp(a, "--report"))
		o->report = v;
	else {
		fprintf(stderr, "gantry replay: unknown option '%s'\n", a);
		usage(stderr);
		return 2;
	}
	return 0;
}

/* 0: go on; -1: done (help, compare); > 0: exit status. */
static int parse_args(int argc, char **argv, struct cli *o)
{
	gt_replay_opts_defaults(&o->o);
	o->placement = -1;
	o->min_runtime = -1;
	o->cpu_spread = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		}
		if (parse_switch(o, a))
			continue;
		if (!strcmp(a, "--compare")) {
			if (i + 2 >= argc) {
				fprintf(stderr, "gantry replay: --compare needs two result files\n");
				return 2;
			}
			o->compare[0] = argv[++i];
			o->compare[1] = argv[++i];
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "gantry replay: %s needs a value\n", a);
			return 2;
		}
		int rc = parse_value(o, a, argv[++i]);
		if (rc)
			return rc;
	}
	if (o->compare[0])
		return 0;
	/* pods that never leave: nothing to reclaim, preempt or consolidate for */
	if (o->o.no_departures && !o->actions_given)
		o->o.actions = 1u << GT_ACT_ALLOCATE;
	if (!o->trace) {
		fprintf(stderr, "gantry replay: no trace: give --trace FORMAT:FILE\n");
		usage(stderr);
		return 2;
	}
	if (!o->n_files && !o->nodes && !o->openb_nodes) {
		fprintf(stderr, "gantry replay: no cluster: give -f FILE, --nodes N --gpus-per-node G or --openb-nodes FILE\n");
		return 2;
	}
	if (o->nodes && !o->gpus_per_node) {
		fprintf(stderr, "gantry replay: --nodes needs --gpus-per-node G (or --nodes NxG)\n");
		return 2;
	}
	return 0;
}

/* ---------------------------------------------------------------- running */

struct progress {
	bool on;
	int64_t origin;
};

static void show_progress(void *arg, uint32_t done, uint32_t total, int64_t now)
{
	struct progress *p = arg;
	if (!p->on)
		return;
	int width = 30, fill = total ? (int)((uint64_t)done * (uint64_t)width / total) : width;
	fprintf(stderr, "\rreplay [%.*s%*s] %3u%% arrived, day %.1f ", fill,
		"##############################", width - fill, "",
		total ? (unsigned)((uint64_t)done * 100 / total) : 100,
		(double)(now - p->origin) / 86400.0);
	fflush(stderr);
}

static int load_trace(const struct cli *o, struct gt_trace *t)
{
	const char *colon = strchr(o->trace, ':');
	char *fmt = colon ? gt_xstrndup(o->trace, (size_t)(colon - o->trace)) : gt_xstrdup("");
	enum gt_trace_format f = gt_trace_format_from_name(fmt);
	free(fmt);
	if (!colon || f == GT_N_TRACE_FORMATS) {
		fprintf(stderr, "gantry replay: --trace must be FORMAT:FILE with FORMAT philly, openb, itp or crux, not '%s'\n",
			o->trace);
		return 2;
	}
	struct gt_trace_opts to = { .gang_split = o->gang_split };
	struct gt_err err = { 0 };
	if (gt_trace_load(t, f, colon + 1, &to, &err)) {
		fprintf(stderr, "gantry replay: %s\n", err.msg);
		return 2;
	}
	if (t->duplicates)
		fprintf(stderr, "gantry replay: %s: rows repeating an earlier row exactly: %u (each job is replayed once)\n",
			colon + 1, t->duplicates);
	return 0;
}

static int build_cluster(const struct cli *o, struct gt_cluster *c)
{
	struct gt_err err = { 0 };
	uint32_t skipped = 0;
	if (o->n_files && gt_replay_load_cluster(c, o->files, o->n_files, &skipped, stderr, &err)) {
		fprintf(stderr, "gantry replay: %s\n", err.msg);
		return 2;
	}
	if (skipped)
		fprintf(stderr, "gantry replay: warning: %u objects that are not Nodes, Queues, PriorityClasses, Topologies or SchedulingShards were ignored\n",
			skipped);
	if (o->nodes)
		gt_replay_gen_nodes(c, o->nodes, o->gpus_per_node);
	if (o->openb_nodes && gt_openb_nodes_load(o->openb_nodes, c, &err)) {
		fprintf(stderr, "gantry replay: %s\n", err.msg);
		return 2;
	}
	if (o->placement >= 0)
		gt_placement_apply(&c->config, (enum gt_placement)o->placement);
	if (o->cpu_spread >= 0)
		c->config.cpu_spread = o->cpu_spread;
	if (o->min_runtime >= 0)
		c->config.preempt_min_runtime_s = c->config.reclaim_min_runtime_s = o->min_runtime;
	return 0;
}

static int make_queues(const struct cli *o, struct gt_cluster *c, const struct gt_trace *t,
		       int32_t *tq, int32_t *dq)
{
	struct gt_err err = { 0 };
	struct gt_vc_size *vcs = NULL;
	uint32_t n_vcs = 0;
	if (o->vc_sizes && gt_vc_sizes_load(o->vc_sizes, &vcs, &n_vcs, &err)) {
		fprintf(stderr, "gantry replay: %s\n", err.msg);
		return 2;
	}
	struct gt_queue_setup qs = { .single = o->single_queue || o->o.fifo, .vcs = vcs,
				     .n_vcs = n_vcs };
	int rc = gt_replay_make_queues(c, t, &qs, tq, dq, &err);
	gt_vc_sizes_free(vcs, n_vcs);
	if (rc)
		fprintf(stderr, "gantry replay: %s\n", err.msg);
	return rc ? 2 : 0;
}

static int output(const struct cli *o, const struct gt_replay_stats *st)
{
	if (o->json)
		gt_replay_print_json(stdout, st);
	else
		gt_replay_print_table(stdout, st);
	if (!o->report)
		return 0;
	struct gt_err err = { 0 };
	if (gt_replay_write_report(o->report, st, &err)) {
		fprintf(stderr, "gantry replay: %s\n", err.msg);
		return 1;
	}
	return 0;
}

static int run(struct cli *o)
{
	struct gt_trace t;
	struct gt_strtab names;
	struct gt_cluster c;
	struct gt_replay *r = NULL;
	int32_t *tq = NULL, dq = GT_NONE;
	gt_trace_init(&t);
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	int rc = load_trace(o, &t);
	if (!rc)
		rc = build_cluster(o, &c);
	if (!rc) {
		tq = gt_xcalloc(t.tenants.n_strs + 1, sizeof(*tq));
		rc = make_queues(o, &c, &t, tq, &dq);
	}
	if (!rc) {
		struct gt_err err = { 0 };
		if (gt_replay_new(&r, &c, &t, tq, dq, &o->o, &err)) {
			fprintf(stderr, "gantry replay: %s\n", err.msg);
			rc = 2;
		}
	}
	if (!rc) {
		struct progress p = { .on = !o->quiet && isatty(STDERR_FILENO), .origin = 0 };
		p.origin = t.jobs[0].submit;
		gt_replay_run(r, show_progress, &p);
		if (p.on)
			fprintf(stderr, "\r%*s\r", 70, "");	/* the results replace the progress line */
		rc = output(o, gt_replay_stats(r));
	}
	gt_replay_free(r);
	gt_cluster_release(&c);
	gt_strtab_release(&names);
	gt_trace_release(&t);
	free(tq);
	return rc;
}

int gt_replay_main(int argc, char **argv)
{
	struct cli o;
	memset(&o, 0, sizeof(o));
	int rc = parse_args(argc, argv, &o);
	if (!rc && o.compare[0]) {
		struct gt_err err = { 0 };
		rc = gt_replay_compare(stdout, o.compare[0], o.compare[1], &err);
		if (rc) {
			fprintf(stderr, "gantry replay: %s\n", err.msg);
			rc = 2;
		}
	} else if (!rc) {
		rc = run(&o);
	}
	free(o.files);
	return rc < 0 ? 0 : rc;
}
