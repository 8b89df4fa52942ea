#include "sim/simulate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/decode.h"
#include "api/doc.h"
#include "api/manifest.h"
#include "core/actions.h"
#include "core/numa.h"
#include "core/usage.h"
#include "podgrouper/podgrouper.h"
#include "sim/output.h"
#include "snapshot/kaisnap.h"
#include "util/clock.h"
#include "util/file.h"
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
	const char *snapshot;	/* --snapshot: KAI's snapshot.zip or snapshot.json */
	bool actions_given;	/* --actions was given (else a snapshot's own actions) */
	bool verbose;		/* -v: how long decoding and each cycle took */
	const char *scheduler_conf;	/* --scheduler-conf: KAI's configuration file over the shard */
	struct gt_kai_conf conf;
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
		{ .type = GT_FLAG_STRING, .name = "snapshot", .dest = &o->snapshot, .arg = "FILE", .min = 1,
		  .help = "a KAI scheduler snapshot (its /get-snapshot ZIP, or the snapshot.json\n"
			  "in it): its objects, actions and plugin configuration (docs/snapshots.md)" },
		{ .type = GT_FLAG_STRING, .name = "scheduler-conf", .dest = &o->scheduler_conf, .arg = "FILE", .min = 1,
		  .help = "KAI's scheduler configuration file (actions, tiers, plugin arguments):\n"
			  "it takes the place of the SchedulingShard's, as for gantry scheduler" },
		{ .type = GT_FLAG_SECTION, .help = "Scheduling" },
		{ .type = GT_FLAG_INT, .name = "cycles", .dest = &o->cycles, .arg = "N", .min = 1, .max = 100000,
		  .help = "scheduling cycles to run (default 1)" },
		{ .type = GT_FLAG_FUNC, .name = "actions", .dest = &o->actions, .arg = "LIST", .parse = gt_actions_flag,
		  .seen = &o->actions_given,
		  .help = "comma-separated subset of allocate,consolidation,reclaim,preempt,\n"
			  "stalegangeviction (default: all five, or a snapshot's own)" },
		{ .type = GT_FLAG_FUNC, .name = "now", .dest = &o->now, .arg = "TIME", .parse = parse_now,
		  .help = "the virtual clock's start, RFC 3339 (default: the current time)" },
		{ .type = GT_FLAG_SECTION, .help = "Output" },
		GT_OUTPUT_FLAG(&o->output),
		{ .type = GT_FLAG_BOOL, .name = "verbose", .short_name = 'v', .dest = &o->verbose,
		  .help = "say on stderr how long reading and decoding took, and each cycle" },
		{ .type = GT_FLAG_BOOL, .name = "show-cycles", .dest = &o->show_cycles,
		  .help = "log each cycle's binds, pipelines and evictions, with why\n"
			  "(on stderr when the output is json or yaml)" },
	};
	const struct gt_command cmd = {
		.name = "simulate", .synopsis = "[-f] FILE... [flags]\n       gantry simulate --snapshot snapshot.zip [flags]",
		.about = "Run the scheduler's core on a virtual cluster given as Kubernetes objects and print\n"
			 "what it would do (docs/simulate.md).",
		.flags = flags, .n_flags = GT_FLAGS_N(flags), .positional = &o->files,
	};
	int rc = gt_flags_parse(&cmd, argc, argv);
	if (rc)
		return rc;
	if (o->snapshot && o->files.n) {
		fprintf(stderr, "gantry simulate: --snapshot holds the whole cluster: give it without -f FILE\n");
		return 2;
	}
	if (o->snapshot && o->scheduler_conf) {
		fprintf(stderr, "gantry simulate: --snapshot carries KAI's configuration: give it without --scheduler-conf\n");
		return 2;
	}
	if (!o->files.n && !o->snapshot) {
		fprintf(stderr, "gantry simulate: no input: give a FILE, -f FILE or --snapshot FILE\n");
		fprintf(stderr, "run 'gantry simulate --help' for the flags it takes\n");
		return 2;
	}
	if (o->scheduler_conf && gt_kai_conf_load("gantry simulate", o->scheduler_conf, &o->conf, stderr))
		return 2;
	if (o->conf.spec)	/* the file's actions, within --actions when both are given */
		o->actions = o->actions_given ? o->actions & o->conf.actions : o->conf.actions;
	return 0;
}

/*
 * Every document of the inputs; what cannot be read is said and left out
 * (*@bad set: the exit status will be 2). 2 when an input cannot be opened.
 */
static int load_files(const struct sim_opts *o, struct gt_doc_list *docs, bool *bad)
{
	struct gt_err err = { 0 };
	int rc = gt_manifests_load(o->files.v, o->files.n, o->recursive, docs, stderr, "gantry simulate", &err);
	if (!rc)
		return 0;
	fprintf(stderr, "gantry simulate: %s\n", err.msg);
	*bad = true;
	return rc == GT_EPARSE ? 0 : 2;
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
		gt_numa_pod_record(p, b->numa, b->n_numa);	/* the binder's predicted placement */
	}
	for (uint32_t i = 0; i < plan->n_evictions; i++) {
		struct gt_pod *p = &c->pods[plan->evictions[i].pod];
		if (p->job != GT_NONE && c->jobs[p->job].deleting)
			continue;	/* its PodGroup is going: nobody recreates it */
		p->status = GT_PENDING;	/* its controller recreated it */
		p->node = GT_NONE;
		p->n_groups = 0;
		gt_numa_pod_record(p, NULL, 0);
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
		c->jobs[j].reserved_since = plan->jobs[j].reserved_since;
	}
	gt_dra_advance(c, plan);
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

/*
 * The objects into @c; every bad one is said, all at once, and left out
 * (*@bad set); the rest is simulated. Pods the podgrouper did not group
 * (their owner is missing, or not the one they name) get no PodGroup, as
 * in a cluster: the podgrouper said why.
 */
static void decode(const struct gt_doc_list *docs, const struct gt_pg_batch *pg, const json_t *conf_spec,
		   struct gt_cluster *c, bool *bad)
{
	struct gt_decoder dec;
	struct gt_err err = { 0 };
	gt_decoder_init(&dec);
	dec.conf_spec = conf_spec;
	dec.claims_listed = true;
	dec.dra_make_claims = true;	/* no resourceclaim controller: template claims are made here */	/* the input is the whole cluster: a claim it lacks is missing */
	dec.no_implicit_jobs = true;
	for (size_t i = 0; i < pg->n_podgroups; i++)
		gt_decoder_add(&dec, pg->podgroups[i]);
	for (size_t i = 0; i < docs->n; i++)
		gt_decoder_add(&dec, docs->docs[i]);
	gt_decoder_build(&dec, c, &err);
	if (gt_decoder_report(&dec, stderr, "gantry simulate"))
		*bad = true;
	gt_decoder_release(&dec);
}

/* Time-based fair share on the virtual clock: the usage the cycles so far left, before each cycle. */
static void usage_before(struct gt_usage_history *h, struct gt_cluster *c, int64_t now)
{
	if (!c->config.usage.on)
		return;
	gt_usage_advance(h, now);
	gt_usage_apply(h, &c->config.usage, c, now);
}

/*
 * The cycles: each runs the core, lists its plan (logged with
 * --show-cycles) and moves the virtual cluster on; the last one's state is
 * printed. With a shard's usageDBConfig, each cycle's allocations feed the
 * next ones' fair shares (core/usage.h).
 */
static void run_cycles(struct sim_opts *o, struct gt_cluster *c)
{
	struct gt_session s;
	struct gt_plan plan;
	struct gt_usage_history usage;
	gt_usage_init(&usage, &c->config.usage, o->now);
	bool machine = o->output == GT_OUT_JSON || o->output == GT_OUT_YAML;
	struct gt_sim_run run = { .cycles = (int)o->cycles, .wide = o->output == GT_OUT_WIDE };
	for (int cycle = 1; cycle <= o->cycles; cycle++) {
		double t0 = gt_mono_ms();
		usage_before(&usage, c, o->now);
		gt_cycle_run(&s, c, o->now, o->actions);
		gt_plan_build(&plan, &s, NULL);
		if (o->verbose)
			fprintf(stderr, "gantry simulate: cycle %d: %.1f ms (%u binds, %u pipelined, %u evictions)\n", cycle,
				gt_mono_ms() - t0, plan.n_binds, plan.n_pipelines, plan.n_evictions);
		if (c->config.usage.on)
			gt_usage_set_rates(&usage, &s);
		run.binds += plan.n_binds;
		run.pipelines += plan.n_pipelines;
		run.evictions += plan.n_evictions;
		if (o->show_cycles)	/* with JSON or YAML on stdout, the log goes to stderr */
			gt_output_cycle_log(machine ? stderr : stdout, c, &plan, cycle);
		if (cycle == o->cycles)
			break;
		gt_sim_advance(c, &plan);
		gt_plan_release(&plan);
		gt_session_release(&s);
		o->now += 1;	/* KAI's cycle period: one second */
	}
	gt_usage_release(&usage);
	if (machine) {
		gt_output_json(stdout, c, &s, &plan, &run, o->output == GT_OUT_YAML);
	} else {
		if (o->show_cycles)
			fputc('\n', stdout);
		gt_output_table(stdout, c, &s, &plan, &run);
	}
	gt_plan_release(&plan);
	gt_session_release(&s);
}

/*
 * A KAI snapshot into @c: its objects as KAI's cache held them (pods being
 * bound Binding), its shard made from the configuration, its actions unless
 * --actions says otherwise. Warnings are said; a bad object is said and
 * left out (*@bad); an unreadable snapshot is an error (2).
 */
static int decode_snapshot(struct sim_opts *o, struct gt_kai_snapshot *snap, struct gt_cluster *c, bool *bad)
{
	double t0 = gt_mono_ms();
	char *data = NULL;
	size_t len;
	struct gt_err err = { 0 };
	if (gt_file_read(o->snapshot, &data, &len, &err) ||
	    gt_kai_snapshot_read(data, len, o->snapshot, snap, &err)) {
		fprintf(stderr, "gantry simulate: %s\n", err.msg);
		free(data);
		return 2;
	}
	free(data);
	double t1 = gt_mono_ms();
	for (size_t i = 0; i < snap->n_warnings; i++)
		fprintf(stderr, "gantry simulate: warning: %s: %s\n", o->snapshot, snap->warnings[i]);
	struct gt_decoder dec;
	gt_decoder_init(&dec);
	dec.scheduler_name = snap->scheduler_name;
	/* KAI's snapshot lists every ConfigMap its cache held: a missing one is missing */
	dec.configmaps_complete = snap->configmaps_listed;
	dec.claims_listed = snap->claims_listed;
	dec.storage_listed = snap->storage_listed;
	for (size_t i = 0; i < snap->docs.n; i++)
		gt_decoder_add(&dec, snap->docs.docs[i]);
	for (size_t i = 0; i < snap->n_bindings; i++)
		gt_decoder_bind(&dec, &snap->bindings[i]);
	gt_decoder_build(&dec, c, &err);
	/* an object the decoder refuses is named with the snapshot it came from */
	char prefix[1100];
	snprintf(prefix, sizeof(prefix), "gantry simulate: %s", o->snapshot);
	if (gt_decoder_report(&dec, stderr, prefix))
		*bad = true;	/* said, left out; the rest is simulated */
	gt_decoder_release(&dec);
	gt_kai_snapshot_apply(snap, c);
	if (!o->actions_given)
		o->actions = snap->actions;
	if (o->verbose) {
		size_t n = 0;
		for (int l = 0; l < GT_KAISNAP_N_LISTS; l++)
			n += snap->n_objects[l];
		fprintf(stderr, "gantry simulate: %s: read in %.1f ms, decoded in %.1f ms: %zu objects; %u nodes, %u pods, "
			"%u PodGroups, %u queues%s%s\n", o->snapshot, t1 - t0, gt_mono_ms() - t1, n, c->n_nodes, c->n_pods,
			c->n_jobs, c->n_queues, snap->server_version ? "; Kubernetes " : "",
			snap->server_version ? snap->server_version : "");
	}
	return 0;
}

int gt_simulate_main(int argc, char **argv)
{
	struct sim_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc) {
		free(o.files.v);
		return rc == 1 ? 0 : rc;
	}
	gt_mem_keep_freed();
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch pg = { 0 };
	struct gt_strtab names;
	struct gt_cluster c;
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	bool bad = false;	/* something was left out: exit 2 after the simulation of the rest */
	struct gt_kai_snapshot snap = { 0 };
	if (o.snapshot) {
		rc = decode_snapshot(&o, &snap, &c, &bad);
	} else {
		double t0 = gt_mono_ms();
		rc = load_files(&o, &docs, &bad);
		double t1 = gt_mono_ms();
		rc = rc ? rc : group_pods(&docs, &pg);
		double t2 = gt_mono_ms();
		if (!rc) {
			decode(&docs, &pg, o.conf.spec, &c, &bad);
			double t3 = gt_mono_ms();
			if (o.verbose)
				fprintf(stderr, "gantry simulate: read and decoded in %.1f ms (read %.1f, podgrouper %.1f, "
					"decoded %.1f): %zu documents\n", t3 - t0, t1 - t0, t2 - t1, t3 - t2, docs.n);
		}
		/*
		 * the cluster holds what it needs of the documents: their memory goes
		 * back before the cycles, whose books are then made in it (and not in
		 * fresh memory, which costs more to fault in than the cycle's work)
		 */
		gt_pg_batch_release(&pg);
		gt_doc_list_release(&docs);
	}
	if (!rc) {
		c.config.clock_ms = gt_mono_ms_clock;	/* the victim search's time budgets */
		run_cycles(&o, &c);
		rc = bad ? 2 : 0;
	}
	gt_kai_snapshot_release(&snap);
	gt_kai_conf_release(&o.conf);
	gt_cluster_release(&c);
	gt_strtab_release(&names);
	free(o.files.v);
	return rc;
}
