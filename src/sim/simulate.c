#include "sim/simulate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/decode.h"
#include "api/doc.h"
#include "api/manifest.h"
#include "core/actions.h"
#include "podgrouper/podgrouper.h"
#include "sim/output.h"
#include "util/flags.h"
#include "util/mem.h"
#include "util/time.h"

struct sim_opts {
	struct gt_strings files;	/* -f, and the positional arguments */
	bool recursive;
	int64_t cycles;
	unsigned actions;
	int64_t now;
	int output;		/* enum gt_output */
	bool show_cycles;	/* log every cycle's binds, pipelines and evictions */
};

static int parse_now(const char *v, void *dest, char *why, size_t why_len)
{
	if (!gt_time_parse(v, dest))
		return 0;
	snprintf(why, why_len, "must be an RFC 3339 time such as 2026-01-01T09:00:00Z");
	return -1;
}

/* 0: go on; 1: --help was printed; 2: a bad argument (said). */
static int parse_args(int argc, char **argv, struct sim_opts *o)
{
	*o = (struct sim_opts){ .cycles = 1, .actions = GT_ACTIONS_ALL, .now = (int64_t)time(NULL) };
	const struct gt_flag flags[] = {
		{ .type = GT_FLAG_SECTION, .help = "Input" },
		{ .type = GT_FLAG_STRINGS, .name = "filename", .short_name = 'f', .dest = &o->files, .arg = "FILE",
		  .help = "Kubernetes objects (YAML or JSON, multi-document, v1 List); - for stdin;\n"
			  "a directory: its .yaml, .yml and .json files (repeatable; FILE alone works too)" },
		{ .type = GT_FLAG_BOOL, .name = "recursive", .short_name = 'R', .dest = &o->recursive,
		  .help = "read directories given to -f recursively" },
		{ .type = GT_FLAG_SECTION, .help = "Scheduling" },
		{ .type = GT_FLAG_INT, .name = "cycles", .dest = &o->cycles, .arg = "N", .min = 1, .max = 100000,
		  .help = "scheduling cycles to run (default 1)" },
		{ .type = GT_FLAG_FUNC, .name = "actions", .dest = &o->actions, .arg = "LIST", .parse = gt_actions_flag,
		  .help = "comma-separated subset of allocate,consolidation,reclaim,preempt,\n"
			  "stalegangeviction (default: all five)" },
		{ .type = GT_FLAG_FUNC, .name = "now", .dest = &o->now, .arg = "TIME", .parse = parse_now,
		  .help = "the virtual clock's start, RFC 3339 (default: the current time)" },
		{ .type = GT_FLAG_SECTION, .help = "Output" },
		GT_OUTPUT_FLAG(&o->output),
		{ .type = GT_FLAG_BOOL, .name = "show-cycles", .dest = &o->show_cycles,
		  .help = "log each cycle's binds, pipelines and evictions, with why\n"
			  "(on stderr when the output is json or yaml)" },
	};
	const struct gt_command cmd = {
		.name = "simulate", .synopsis = "[-f] FILE... [flags]",
		.about = "Run the scheduler's core on a virtual cluster given as Kubernetes objects and print\n"
			 "what it would do (docs/simulate.md).",
		.flags = flags, .n_flags = GT_FLAGS_N(flags), .positional = &o->files,
	};
	int rc = gt_flags_parse(&cmd, argc, argv);
	if (rc)
		return rc;
	if (!o->files.n) {
		fprintf(stderr, "gantry simulate: no input: give a FILE or -f FILE\n");
		fprintf(stderr, "run 'gantry simulate --help' for the flags it takes\n");
		return 2;
	}
	return 0;
}

static int load_files(const struct sim_opts *o, struct gt_doc_list *docs)
{
	struct gt_err err = { 0 };
	if (!gt_manifests_load(o->files.v, o->files.n, o->recursive, docs, stderr, "gantry simulate", &err))
		return 0;
	fprintf(stderr, "gantry simulate: %s\n", err.msg);
	return 2;
}

void gt_sim_advance(struct gt_cluster *c, struct gt_plan *plan)
{
	for (uint32_t i = 0; i < plan->n_binds; i++) {
		const struct gt_plan_place *b = &plan->binds[i];
		struct gt_pod *p = &c->pods[b->pod];
		p->status = GT_RUNNING;
		p->node = b->node;
		p->n_groups = b->n_groups;
		for (uint8_t g = 0; g < b->n_groups; g++)
			p->groups[g] = gt_plan_group_name(plan, b->groups[g], b->node);
	}
	for (uint32_t i = 0; i < plan->n_evictions; i++) {
		struct gt_pod *p = &c->pods[plan->evictions[i].pod];
		if (p->job != GT_NONE && c->jobs[p->job].deleting)
			continue;	/* its PodGroup is going: nobody recreates it */
		p->status = GT_PENDING;	/* its controller recreated it */
		p->node = GT_NONE;
		p->n_groups = 0;
	}
	for (uint32_t i = 0; i < plan->n_pipelines; i++) {
		struct gt_pod *p = &c->pods[plan->pipelines[i].pod];
		p->status = GT_PENDING;	/* bound by a later cycle, once its room is free */
		p->node = GT_NONE;
		p->n_groups = 0;
	}
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		c->jobs[j].last_start = plan->jobs[j].last_start;
		c->jobs[j].stale_since = plan->jobs[j].stale_since;
		c->jobs[j].last_eviction = plan->jobs[j].last_eviction;
	}
}

/*
 * Pods that arrive without a PodGroup but with their owners in the input
 * (kubectl get pytorchjob,pods -o yaml) are grouped as the podgrouper would
 * group them in a cluster: the PodGroups it makes join the objects.
 */
static int group_pods(struct gt_doc_list *docs, struct gt_pg_batch *pg)
{
	struct gt_pg_config cfg;
	struct gt_err err = { 0 };
	gt_pg_config_init(&cfg);
	int rc = gt_pg_group_all(&cfg, docs->docs, docs->n, pg, &err);
	if (rc)
		fprintf(stderr, "gantry simulate: %s\n", err.msg);
	gt_pg_batch_apply(pg);
	for (size_t i = 0; i < pg->n_warnings; i++)
		fprintf(stderr, "gantry simulate: warning: %s\n", pg->warnings[i]);
	gt_pg_config_release(&cfg);
	return rc ? 2 : 0;
}

/* The objects into @c; every bad one is said (and makes this fail: 2), all at once. */
static int decode(const struct gt_doc_list *docs, const struct gt_pg_batch *pg, struct gt_cluster *c)
{
	struct gt_decoder dec;
	struct gt_err err = { 0 };
	gt_decoder_init(&dec);
	for (size_t i = 0; i < pg->n_podgroups; i++)
		gt_decoder_add(&dec, pg->podgroups[i]);
	for (size_t i = 0; i < docs->n; i++)
		gt_decoder_add(&dec, docs->docs[i]);
	gt_decoder_build(&dec, c, &err);
	int rc = gt_decoder_report(&dec, stderr, "gantry simulate") ? 2 : 0;
	gt_decoder_release(&dec);
	return rc;
}

/*
 * The cycles: each runs the core, lists its plan (logged with
 * --show-cycles) and moves the virtual cluster on; the last one's state is
 * printed.
 */
static void run_cycles(struct sim_opts *o, struct gt_cluster *c)
{
	struct gt_session s;
	struct gt_plan plan;
	bool machine = o->output == GT_OUT_JSON || o->output == GT_OUT_YAML;
	for (int cycle = 1; cycle <= o->cycles; cycle++) {
		gt_cycle_run(&s, c, o->now, o->actions);
		gt_plan_build(&plan, &s, NULL);
		if (o->show_cycles)	/* with JSON or YAML on stdout, the log goes to stderr */
			gt_output_cycle_log(machine ? stderr : stdout, c, &plan, cycle);
		if (cycle == o->cycles)
			break;
		gt_sim_advance(c, &plan);
		gt_plan_release(&plan);
		gt_session_release(&s);
		o->now += 1;	/* KAI's cycle period: one second */
	}
	if (machine) {
		gt_output_json(stdout, c, &s, &plan, (int)o->cycles, o->output == GT_OUT_YAML);
	} else {
		if (o->show_cycles)
			fputc('\n', stdout);
		gt_output_table(stdout, c, &s, &plan, (int)o->cycles);
	}
	gt_plan_release(&plan);
	gt_session_release(&s);
}

int gt_simulate_main(int argc, char **argv)
{
	struct sim_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc) {
		free(o.files.v);
		return rc == 1 ? 0 : rc;
	}
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch pg = { 0 };
	struct gt_strtab names;
	struct gt_cluster c;
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	rc = load_files(&o, &docs);
	rc = rc ? rc : group_pods(&docs, &pg);
	rc = rc ? rc : decode(&docs, &pg, &c);
	if (!rc)
		run_cycles(&o, &c);
	gt_pg_batch_release(&pg);
	gt_doc_list_release(&docs);
	gt_cluster_release(&c);
	gt_strtab_release(&names);
	free(o.files.v);
	return rc;
}
