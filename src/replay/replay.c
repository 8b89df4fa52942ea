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
#include "snapshot/kaisnap.h"
#include "util/flags.h"
#include "util/clock.h"
#include "util/mem.h"
#include "util/stop.h"
#include "util/time.h"

struct cli {
	const char *trace;	/* FORMAT:FILE */
	struct gt_strings files;
	bool recursive;
	uint32_t nodes;
	int64_t gpus_per_node;
	const char *openb_nodes;
	const char *vc_sizes;
	int queues;		/* 0 tenant, 1 single */
	int placement;		/* enum gt_placement */
	bool placement_given;	/* else from the cluster's shard, or binpack */
	int cpu_placement;	/* 0 binpack, 1 spread */
	bool cpu_given;		/* else from the shard (binpack) */
	int64_t gang_split;
	int64_t min_runtime;
	bool min_runtime_given;	/* else as the cluster's shard says (0) */
	double scale_arrivals, load, inflate;
	int64_t limit;
	int output;		/* enum gt_output */
	const char *report;
	const char *jobs_csv;
	bool compare;
	struct gt_strings positional;
	bool quiet;
	bool actions_given;
	const char *scheduler_conf;	/* --scheduler-conf: KAI's configuration file over the shard */
	struct gt_kai_conf conf;
	struct gt_replay_opts o;
	/* time-based fair share: on with --time-based-fairshare or a shard's usageDBConfig */
	bool usage;
	int64_t usage_window, usage_half_life;
	bool window_given, half_life_given;
	double k_value;
	bool k_given;
	/* reservations and backfill, per-job aging (docs/reservations.md) */
	struct gt_reserve_params reserve;
	int64_t reserve_max;
	double aging;
};

static const char *const queue_modes[] = { "tenant", "single", NULL };
static const char *const cpu_modes[] = { "binpack", "spread", NULL };

/* "--nodes N" (with --gpus-per-node) or "--nodes NxG". */
static int parse_nodes(const char *v, void *dest, char *why, size_t why_len)
{
	struct cli *o = dest;
	int64_t n, g = 0;
	const char *x = strchr(v, 'x');
	char *count = x ? gt_xstrndup(v, (size_t)(x - v)) : gt_xstrdup(v);
	bool ok = !gt_parse_int(count, &n) && n >= 1 && n <= 1000000 &&
		  (!x || (!gt_parse_int(x + 1, &g) && g >= 1 && g <= GT_MAX_DEVICES * 4));
	free(count);
	if (!ok) {
		snprintf(why, why_len, "needs N or NxG: N nodes from 1 to 1000000, G GPUs from 1 to %d",
			 GT_MAX_DEVICES * 4);
		return -1;
	}
	o->nodes = (uint32_t)n;
	if (x)
		o->gpus_per_node = g;
	return 0;
}

static int parse_placement(const char *v, void *dest, char *why, size_t why_len)
{
	enum gt_placement p = gt_placement_from_name(v);
	if (p == GT_N_PLACEMENTS) {
		snprintf(why, why_len, "must be binpack, spread or gpupack");
		return -1;
	}
	*(int *)dest = (int)p;
	return 0;
}

/* "--runtime-estimate exact|xF|none": what the scheduler is told of run times. */
static int parse_reserve_backfill(const char *v, void *dest, char *why, size_t why_len)
{
	bool *preemptible = dest;
	if (strcmp(v, "run-time") && strcmp(v, "preemptible")) {
		snprintf(why, why_len, "must be run-time or preemptible");
		return -1;
	}
	*preemptible = !strcmp(v, "preemptible");
	return 0;
}

static int parse_runtime_estimate(const char *v, void *dest, char *why, size_t why_len)
{
	double *factor = dest, f;
	if (!strcmp(v, "none")) {
		*factor = 0;
		return 0;
	}
	if (!strcmp(v, "exact")) {
		*factor = 1;
		return 0;
	}
	if (v[0] == 'x' && !gt_parse_number(v + 1, &f) && f > 0 && f <= 1000) {
		*factor = f;
		return 0;
	}
	snprintf(why, why_len, "must be exact, none or xF (the trace's durations times F, 0 < F <= 1000)");
	return -1;
}

#define CLUSTER_FLAGS(o)                                                                             \
	{ .type = GT_FLAG_SECTION, .help = "Trace and cluster (sources add up)" },                    \
	{ .type = GT_FLAG_STRING, .name = "trace", .dest = &(o)->trace, .arg = "FORMAT:FILE",          \
	  .help = "philly, openb, itp or crux (docs/replay.md)" },                                     \
	{ .type = GT_FLAG_STRINGS, .name = "filename", .short_name = 'f', .dest = &(o)->files,          \
	  .arg = "FILE", .help = "Nodes, Queues, SchedulingShard as Kubernetes YAML/JSON (repeatable)" }, \
	{ .type = GT_FLAG_BOOL, .name = "recursive", .short_name = 'R', .dest = &(o)->recursive,        \
	  .help = "read directories given to -f recursively" },                                       \
	{ .type = GT_FLAG_STRING, .name = "scheduler-conf", .dest = &(o)->scheduler_conf, .arg = "FILE", \
	  .min = 1, .help = "KAI's scheduler configuration file: it takes the place of the shard's" },  \
	{ .type = GT_FLAG_FUNC, .name = "nodes", .dest = (o), .arg = "N|NxG", .parse = parse_nodes,     \
	  .help = "N identical nodes (of --gpus-per-node GPUs, or G)" },                              \
	{ .type = GT_FLAG_INT, .name = "gpus-per-node", .dest = &(o)->gpus_per_node, .arg = "G",        \
	  .min = 0, .max = GT_MAX_DEVICES * 4, .help = "GPUs of each of --nodes" },                   \
	{ .type = GT_FLAG_STRING, .name = "openb-nodes", .dest = &(o)->openb_nodes, .arg = "FILE",      \
	  .help = "an openb_node_list_*.csv" },                                                       \
	{ .type = GT_FLAG_STRING, .name = "vc-sizes", .dest = &(o)->vc_sizes, .arg = "FILE",            \
	  .help = "Philly: a quota per VC proportional to its nodes" },                               \
	{ .type = GT_FLAG_CHOICE, .name = "queues", .dest = &(o)->queues, .arg = "MODE",                \
	  .choices = queue_modes, .help = "tenant: one queue per tenant (default); single: one for all" }

#define POLICY_FLAGS(o)                                                                              \
	{ .type = GT_FLAG_SECTION, .help = "Policy" },                                                \
	{ .type = GT_FLAG_FUNC, .name = "actions", .dest = &(o)->o.actions, .arg = "LIST",             \
	  .parse = gt_actions_flag, .seen = &(o)->actions_given,                                      \
	  .help = "subset of allocate,consolidation,reclaim,preempt,stalegangeviction\n"              \
		  "(default: all five, as KAI)" },                                                    \
	{ .type = GT_FLAG_FUNC, .name = "placement", .dest = &(o)->placement, .arg = "P",               \
	  .parse = parse_placement, .seen = &(o)->placement_given,                                    \
	  .help = "binpack (default), spread or gpupack" },                                           \
	{ .type = GT_FLAG_CHOICE, .name = "cpu-placement", .dest = &(o)->cpu_placement, .arg = "P",     \
	  .choices = cpu_modes, .seen = &(o)->cpu_given,                                              \
	  .help = "binpack (default) or spread: where CPU-only pods go" },                            \
	{ .type = GT_FLAG_BOOL, .name = "fifo", .dest = &(o)->o.fifo,                                  \
	  .help = "strict FIFO: one queue, no job passes the oldest waiting one" },                   \
	{ .type = GT_FLAG_SECONDS, .name = "min-runtime", .dest = &(o)->min_runtime, .arg = "S",        \
	  .seen = &(o)->min_runtime_given,                                                            \
	  .help = "reclaim and preempt spare jobs that ran less (KAI's minruntime)" },                \
	{ .type = GT_FLAG_BOOL, .name = "qos-priority", .dest = &(o)->o.qos_priority,                  \
	  .help = "openb: qos as priority (LS 125, Guaranteed 100, Burstable 75, BE 50)" },           \
	{ .type = GT_FLAG_BOOL, .name = "time-based-fairshare", .dest = &(o)->usage,                   \
	  .help = "KAI's time-based fair share on the virtual clock (a shard's\n"                     \
		  "usageDBConfig turns it on too; docs/fairshare.md)" },                              \
	{ .type = GT_FLAG_SECONDS, .name = "usage-window", .dest = &(o)->usage_window, .arg = "D",      \
	  .min = 1, .max = 100LL * 365 * 86400, .seen = &(o)->window_given,                          \
	  .help = "its sliding window (default: the shard's windowSize, else 168h)" },                \
	{ .type = GT_FLAG_SECONDS, .name = "usage-half-life", .dest = &(o)->usage_half_life,            \
	  .arg = "D", .max = 100LL * 365 * 86400, .seen = &(o)->half_life_given,                     \
	  .help = "its half-life (default: the shard's halfLifePeriod, else none)" },                 \
	{ .type = GT_FLAG_DOUBLE, .name = "k-value", .dest = &(o)->k_value, .arg = "K",                \
	  .seen = &(o)->k_given, .help = "proportion's kValue (default: the shard's, else 1)" },        \
	{ .type = GT_FLAG_BOOL, .name = "reserve", .dest = &(o)->reserve.on,                           \
	  .help = "reservations and backfill for gangs that cannot be placed\n"                       \
		  "(docs/reservations.md)" },                                                         \
	{ .type = GT_FLAG_INT, .name = "reserve-max", .dest = &(o)->reserve_max, .arg = "N",           \
	  .min = 1, .max = 1000, .help = "reservations held at once (default 4)" },                    \
	{ .type = GT_FLAG_DOUBLE, .name = "reserve-share", .dest = &(o)->reserve.share, .arg = "F",    \
	  .help = "most of the cluster's GPUs reservations hold (default 0.5)" },                    \
	{ .type = GT_FLAG_SECONDS, .name = "reserve-wait", .dest = &(o)->reserve.wait_s, .arg = "D",   \
	  .max = 100LL * 365 * 86400,                                                                 \
	  .help = "a gang not first in its queue waits this long for one (default 1h)" },            \
	{ .type = GT_FLAG_SECONDS, .name = "reserve-hold", .dest = &(o)->reserve.hold_s, .arg = "D",   \
	  .min = 1, .max = 100LL * 365 * 86400,                                                       \
	  .help = "longest a reservation holds GPUs, then as long without (default 6h)" },          \
	{ .type = GT_FLAG_SECONDS, .name = "reserve-horizon", .dest = &(o)->reserve.horizon_s,          \
	  .arg = "D", .max = 100LL * 365 * 86400,                                                     \
	  .help = "hold GPUs only once the expected start is this near (default 0: at once)" },     \
	{ .type = GT_FLAG_BOOL, .name = "reserve-beyond-fair-share",                                 \
	  .dest = &(o)->reserve.beyond_fair_share,                                                    \
	  .help = "also reserve for a gang past its queue's fair share (it then holds\n"             \
		  "nothing from queues within theirs)" },                                             \
	{ .type = GT_FLAG_FUNC, .name = "runtime-estimate", .dest = &(o)->o.runtime_factor,            \
	  .arg = "exact|xF|none", .parse = parse_runtime_estimate,                                    \
	  .help = "what the scheduler is told of run times: the trace's, F times them,\n"            \
		  "or nothing (default none)" },                                                      \
	{ .type = GT_FLAG_FUNC, .name = "reserve-backfill", .dest = &(o)->reserve.backfill_preemptible, \
	  .arg = "run-time|preemptible", .parse = parse_reserve_backfill,                              \
	  .help = "who may use reserved GPUs: jobs whose maximum run time ends before\n"              \
		  "the start, or also preemptible jobs, evicted at the start (default run-time)" },        \
	{ .type = GT_FLAG_BOOL, .name = "enforce-max-runtime", .dest = &(o)->o.enforce_max_runtime,    \
	  .help = "evict jobs past their maximum run time (--runtime-estimate's): they end" },        \
	{ .type = GT_FLAG_DOUBLE, .name = "aging", .dest = &(o)->aging, .arg = "W",                    \
	  .help = "per-job aging: priority points per hour pending (default 0, off)" }

#define TIME_FLAGS(o)                                                                                \
	{ .type = GT_FLAG_SECTION, .help = "Time" },                                                  \
	{ .type = GT_FLAG_SECONDS, .name = "period", .dest = &(o)->o.period, .arg = "S", .min = 1,      \
	  .help = "seconds between cycles (default 1)" },                                             \
	{ .type = GT_FLAG_SECONDS, .name = "bind-latency", .dest = &(o)->o.bind_latency, .arg = "S",    \
	  .help = "bind to running (default 0)" },                                                    \
	{ .type = GT_FLAG_SECONDS, .name = "evict-grace", .dest = &(o)->o.evict_grace, .arg = "S",      \
	  .help = "eviction to pod gone (default 0)" },                                               \
	{ .type = GT_FLAG_BOOL, .name = "resume", .dest = &(o)->o.resume,                              \
	  .help = "evicted jobs keep their progress (default: restart from scratch)" },               \
	{ .type = GT_FLAG_DOUBLE, .name = "scale-arrivals", .dest = &(o)->o.scale_arrivals, .arg = "F", \
	  .dmin = 1e-6, .help = "F times as many arrivals per unit of time" },                       \
	{ .type = GT_FLAG_DOUBLE, .name = "load", .dest = &(o)->o.load, .arg = "X", .dmin = 1e-6,       \
	  .help = "scale the arrivals to an offered load of X" },                                    \
	{ .type = GT_FLAG_INT, .name = "limit", .dest = &(o)->limit, .arg = "N", .min = 1,              \
	  .max = UINT32_MAX, .help = "the first N jobs only" },                                       \
	{ .type = GT_FLAG_INT, .name = "gang-split", .dest = &(o)->gang_split, .arg = "G", .min = 1,    \
	  .max = 1024, .help = "GPUs per gang pod for multi-GPU jobs (default 8)" },                  \
	{ .type = GT_FLAG_BOOL, .name = "no-departures", .dest = &(o)->o.no_departures,                \
	  .help = "pods never leave (the FGD packing experiment)" },                                  \
	{ .type = GT_FLAG_DOUBLE, .name = "inflate", .dest = &(o)->o.inflate, .arg = "F", .dmin = 1e-6, \
	  .help = "with --no-departures: repeat the trace until F x its GPU request" }

#define OUTPUT_FLAGS(o)                                                                              \
	{ .type = GT_FLAG_SECTION, .help = "Output" },                                                \
	GT_OUTPUT_FLAG(&(o)->output),                                                                 \
	{ .type = GT_FLAG_STRING, .name = "report", .dest = &(o)->report, .arg = "FILE.html",          \
	  .help = "a self-contained report with charts" },                                            \
	{ .type = GT_FLAG_STRING, .name = "jobs-csv", .dest = &(o)->jobs_csv, .arg = "FILE.csv",       \
	  .help = "every job's submit, GPUs, queue, start, end and wait" },                          \
	{ .type = GT_FLAG_SECONDS, .name = "starvation", .dest = &(o)->o.starvation_s, .arg = "S",      \
	  .help = "count jobs that waited longer (default 86400)" },                                  \
	{ .type = GT_FLAG_BOOL, .name = "exact", .dest = &(o)->o.exact,                                \
	  .help = "run every cycle, no shortcut (slower; same results)" },                            \
	{ .type = GT_FLAG_BOOL, .name = "quiet", .dest = &(o)->quiet,                                  \
	  .help = "no progress line on a terminal" },                                                 \
	{ .type = GT_FLAG_BOOL, .name = "compare", .dest = &(o)->compare,                              \
	  .help = "compare two results written with -o json: gantry replay --compare A.json B.json" }

/* The options that need others, and what a packing run means. 0 or 2 (said). */
static int check_args(struct cli *o)
{
	if (o->compare) {
		if (o->positional.n == 2)
			return 0;
		fprintf(stderr, "gantry replay: --compare needs two result files\n");
		return 2;
	}
	if (o->positional.n) {
		fprintf(stderr, "gantry replay: unexpected argument '%s' (the trace is --trace FORMAT:FILE)\n",
			o->positional.v[0]);
		return 2;
	}
	o->o.limit = (uint32_t)o->limit;
	/* pods that never leave: nothing to reclaim, preempt or consolidate for */
	if (o->o.no_departures && !o->actions_given)
		o->o.actions = 1u << GT_ACT_ALLOCATE;
	if (!o->trace) {
		fprintf(stderr, "gantry replay: no trace: give --trace FORMAT:FILE\n");
		fprintf(stderr, "run 'gantry replay --help' for the flags it takes\n");
		return 2;
	}
	if (!o->files.n && !o->nodes && !o->openb_nodes) {
		fprintf(stderr, "gantry replay: no cluster: give -f FILE, --nodes N --gpus-per-node G or --openb-nodes FILE\n");
		return 2;
	}
	if (o->nodes && !o->gpus_per_node) {
		fprintf(stderr, "gantry replay: --nodes needs --gpus-per-node G (or --nodes NxG)\n");
		return 2;
	}
	if (o->scheduler_conf && gt_kai_conf_load("gantry replay", o->scheduler_conf, &o->conf, stderr))
		return 2;
	if (o->conf.spec)	/* the file's actions, within --actions when both are given */
		o->o.actions = o->actions_given ? o->o.actions & o->conf.actions : o->conf.actions;
	return 0;
}

/* 0: go on; 1: --help printed; 2: a bad argument (said). */
static int parse_args(int argc, char **argv, struct cli *o)
{
	gt_replay_opts_defaults(&o->o);
	struct gt_config defaults;
	gt_config_defaults(&defaults);
	o->reserve = defaults.reserve;
	o->reserve_max = defaults.reserve.max;
	const struct gt_flag flags[] = { CLUSTER_FLAGS(o), POLICY_FLAGS(o), TIME_FLAGS(o), OUTPUT_FLAGS(o) };
	const struct gt_command cmd = {
		.name = "replay", .synopsis = "--trace FORMAT:FILE CLUSTER [flags]\n"
					      "       gantry replay --compare A.json B.json",
		.about = "Play a real GPU-cluster job trace through the scheduling core, with a report\n"
			 "(docs/replay.md).",
		.flags = flags, .n_flags = GT_FLAGS_N(flags), .positional = &o->positional,
	};
	int rc = gt_flags_parse(&cmd, argc, argv);
	return rc ? rc : check_args(o);
}

/* ---------------------------------------------------------------- running */

struct progress {
	bool on;		/* a progress line on the terminal */
	int64_t origin;
	double wall0, last_ms;
	unsigned actions;
	bool noted;		/* the note on slow runs was given */
};

static void eta_text(const struct progress *p, const struct gt_replay_progress *g, double now_ms, char *buf,
		     size_t len)
{
	double elapsed = (now_ms - p->wall0) / 1000;
	buf[0] = '\0';
	if (g->arrived >= g->jobs) {
		snprintf(buf, len, ", the last jobs running");
	} else if (elapsed >= 2 && g->arrived * 1000ULL >= g->jobs) {	/* from 0.1% arrived: a rough guess early */
		char eta[32];
		gt_format_duration(elapsed * (double)(g->jobs - g->arrived) / g->arrived, eta, sizeof(eta));
		snprintf(buf, len, ", ETA %s", eta);
	}
}

/*
 * A run that will take long says why once: with evictions, KAI's default
 * actions restart jobs from scratch on traces like Philly's.
 */
static void note_slow(struct progress *p, const struct gt_replay_progress *g, double now_ms)
{
	double elapsed = (now_ms - p->wall0) / 1000;
	if (p->noted || elapsed < 20 || !g->arrived || p->actions == (1u << GT_ACT_ALLOCATE))
		return;
	double eta = elapsed * (double)(g->jobs - g->arrived) / g->arrived;
	if (eta < 300)
		return;
	p->noted = true;
	fprintf(stderr, "\rgantry replay: note: slow: %.1f ms a cycle and %llu job evictions so far; evicted jobs "
		"restart from scratch and every cycle searches victims. --actions allocate, --resume or "
		"--min-runtime change that (docs/replay.md)\n", g->cycle_ms_mean, (unsigned long long)g->job_evictions);
}

/* The progress line, four times a second at most; false (stop) once Ctrl-C was pressed. */
static bool show_progress(void *arg, const struct gt_replay_progress *g)
{
	struct progress *p = arg;
	if (gt_stop_requested())
		return false;
	if (!p->on)
		return true;
	double now_ms = gt_mono_ms();
	if (!g->done && now_ms - p->last_ms < 250)
		return true;
	p->last_ms = now_ms;
	note_slow(p, g, now_ms);
	int width = 30, fill = g->jobs ? (int)((uint64_t)g->arrived * (uint64_t)width / g->jobs) : width;
	char eta[64];
	eta_text(p, g, now_ms, eta, sizeof(eta));
	fprintf(stderr, "\rreplay [%.*s%*s] %3u%% arrived, day %.1f, %.1f ms/cycle, %llu evictions%s ", fill,
		"##############################", width - fill, "",
		g->jobs ? (unsigned)((uint64_t)g->arrived * 100 / g->jobs) : 100,
		(double)(g->now - p->origin) / 86400.0, g->cycle_ms_mean, (unsigned long long)g->job_evictions, eta);
	fflush(stderr);
	return true;
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
	struct gt_trace_opts to = { .gang_split = (int32_t)o->gang_split };
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
	if ((o->files.n || o->conf.spec) &&
	    gt_replay_load_cluster(c, o->files.v, o->files.n, o->recursive, o->conf.spec, &skipped, stderr, &err)) {
		fprintf(stderr, "gantry replay: %s\n", err.msg);
		return 2;
	}
	if (skipped)
		fprintf(stderr, "gantry replay: warning: %u objects that are not Nodes, Queues, PriorityClasses, Topologies, SchedulingShards, DeviceClasses or ResourceSlices were ignored\n",
			skipped);
	if (o->nodes)
		gt_replay_gen_nodes(c, o->nodes, (int32_t)o->gpus_per_node);
	if (o->openb_nodes && gt_openb_nodes_load(o->openb_nodes, c, &err)) {
		fprintf(stderr, "gantry replay: %s\n", err.msg);
		return 2;
	}
	if (o->placement_given)
		gt_placement_apply(&c->config, (enum gt_placement)o->placement);
	if (o->cpu_given)
		c->config.cpu_spread = o->cpu_placement == 1;
	if (o->min_runtime_given)
		c->config.preempt_min_runtime_s = c->config.reclaim_min_runtime_s = o->min_runtime;
	c->config.reserve = o->reserve;
	c->config.reserve.max = (uint32_t)o->reserve_max;
	c->config.aging_weight = o->aging;
	struct gt_usage_params *u = &c->config.usage;
	if (o->usage && !u->on)
		*u = (struct gt_usage_params){ .on = true, .window = GT_WINDOW_SLIDING, .window_s = 7 * 86400,
					       .fetch_interval_s = 60 };
	if ((o->window_given || o->half_life_given) && !u->on) {
		fprintf(stderr, "gantry replay: --usage-window and --usage-half-life go with --time-based-fairshare\n");
		return 2;
	}
	if (o->window_given)
		*u = (struct gt_usage_params){ .on = true, .window = GT_WINDOW_SLIDING, .window_s = o->usage_window,
					       .half_life_s = u->half_life_s, .fetch_interval_s = 60 };
	if (o->half_life_given)
		u->half_life_s = o->usage_half_life;
	if (o->k_given)
		c->config.k_value = o->k_value;
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
	struct gt_queue_setup qs = { .single = o->queues == 1 || o->o.fifo, .vcs = vcs,
				     .n_vcs = n_vcs };
	int rc = gt_replay_make_queues(c, t, &qs, tq, dq, &err);
	gt_vc_sizes_free(vcs, n_vcs);
	if (rc)
		fprintf(stderr, "gantry replay: %s\n", err.msg);
	return rc ? 2 : 0;
}

/* --jobs-csv: 0, or 1 when the file cannot be written (said). */
static int write_jobs_csv(const char *path, const struct gt_replay *r)
{
	FILE *f = fopen(path, "w");
	int rc = !f || gt_replay_write_jobs(r, f);
	if ((f && fclose(f)) || rc) {
		fprintf(stderr, "gantry replay: %s: cannot write\n", path);
		return 1;
	}
	return 0;
}

/* Opened before the run, so that a path that cannot be written fails at once, not after hours. */
static int open_report(const struct cli *o, FILE **f)
{
	*f = NULL;
	if (!o->report)
		return 0;
	*f = fopen(o->report, "w");
	if (*f)
		return 0;
	fprintf(stderr, "gantry replay: --report %s: cannot write: %s\n", o->report, strerror(errno));
	return 2;
}

static int output(const struct cli *o, const struct gt_replay_stats *st, FILE *report)
{
	if (st->interrupted)
		fprintf(stderr, "gantry replay: interrupted at day %.1f: the results cover what was gathered until then\n",
			(double)(st->end - st->first_submit) / 86400.0);
	if (o->output == GT_OUT_JSON || o->output == GT_OUT_YAML)
		gt_replay_print_json(stdout, st, o->output == GT_OUT_YAML);
	else
		gt_replay_print_table(stdout, st);
	if (!report)
		return 0;
	struct gt_err err = { 0 };
	if (gt_replay_write_report_to(report, o->report, st, &err)) {
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
	FILE *report = NULL;
	gt_trace_init(&t);
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	int rc = open_report(o, &report);
	if (!rc)
		rc = load_trace(o, &t);
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
		struct progress p = { .on = !o->quiet && isatty(STDERR_FILENO), .origin = t.jobs[0].submit,
				      .wall0 = gt_mono_ms(), .actions = o->o.actions };
		gt_replay_run(r, show_progress, &p);
		if (p.on)
			fprintf(stderr, "\r%*s\r", 110, "");	/* the results replace the progress line */
		rc = output(o, gt_replay_stats(r), report);
		if (!rc && o->jobs_csv)
			rc = write_jobs_csv(o->jobs_csv, r);
		if (!rc && gt_replay_stats(r)->interrupted)
			rc = 130;	/* as a shell says SIGINT; what was gathered is written */
	}
	if (report && fclose(report) && !rc) {
		fprintf(stderr, "gantry replay: %s: write failed\n", o->report);
		rc = 1;
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
	if (rc == 1)
		rc = 0;	/* --help */
	else if (!rc && o.compare) {
		struct gt_err err = { 0 };
		rc = gt_replay_compare(stdout, o.positional.v[0], o.positional.v[1], &err);
		if (rc) {
			fprintf(stderr, "gantry replay: %s\n", err.msg);
			rc = 2;
		}
	} else if (!rc) {
		gt_stop_start();	/* Ctrl-C ends the run and writes what was gathered */
		gt_mem_keep_freed();
		rc = run(&o);
		gt_stop_end();
	}
	gt_kai_conf_release(&o.conf);
	free(o.files.v);
	free(o.positional.v);
	return rc;
}
