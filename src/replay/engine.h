/*
 * engine.h - time in the simulator: a trace replayed through the real core
 *
 * The virtual cluster is a struct gt_cluster kept between cycles: nodes and
 * queues are fixed, the pods and jobs arrays hold the jobs that have arrived
 * and not finished, in arrival order (the order a rebuild would give, so
 * the snapshot the core sees does not depend on history). Every scheduling
 * decision comes from gt_cycle_run(); the engine only plays the part of the
 * controllers and kubelets:
 *
 *   - a job arrives at its submit time: its pods appear Pending;
 *   - a cycle runs every --period seconds while anything may change
 *     (an arrival, a departure, an eviction or the last cycle's own
 *     decisions); between such events the clock jumps, so idle stretches
 *     of a trace cost nothing;
 *   - pods the cycle binds run on their node; when every pod of the job is
 *     bound the job starts (after --bind-latency) and finishes once it has
 *     run its recorded duration;
 *   - pods the cycle evicts are gone after --evict-grace seconds and the
 *     job's controller recreates the whole gang Pending; it restarts from
 *     scratch (lost GPU time is counted) or, with --resume, keeps its
 *     progress;
 *   - pipelined pods stay Pending: the preemptor is bound by a later cycle,
 *     once its victims are gone.
 *
 * Exact and deterministic: integer seconds, no randomness, ties broken by
 * trace order. Two shortcuts skip work whose outcome is known without the
 * core (both off with .exact; test_replay checks they change nothing):
 *   - a cycle over a snapshot identical to the last one, which decided
 *     nothing, would decide nothing again: it is not run;
 *   - with allocate as the only action, a job none of whose gang fits the
 *     free resources of any node cannot be placed this cycle: if every
 *     pending job is in that state the cycle is not run, and when all jobs
 *     share one queue (where fair share cannot reorder anything) such jobs
 *     are hidden from the snapshot (gated) until resources are freed.
 */
#ifndef GT_REPLAY_ENGINE_H
#define GT_REPLAY_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/actions.h"
#include "core/cluster.h"
#include "replay/metrics.h"
#include "replay/trace.h"

enum gt_placement { GT_PLACE_BINPACK, GT_PLACE_SPREAD, GT_PLACE_GPUPACK, GT_N_PLACEMENTS };

const char *gt_placement_name(enum gt_placement p);
/* GT_N_PLACEMENTS when unknown. */
enum gt_placement gt_placement_from_name(const char *name);
/* Set the scoring switches of @cfg for @p (see docs/replay.md). */
void gt_placement_apply(struct gt_config *cfg, enum gt_placement p);

struct gt_replay_opts {
	unsigned actions;	/* core actions per cycle: 1u << GT_ACT_* */
	int64_t period;		/* seconds between cycles (1, as KAI) */
	int64_t bind_latency;	/* seconds from bind to running */
	int64_t evict_grace;	/* seconds an evicted pod takes to go */
	bool resume;		/* evicted jobs keep their progress */
	bool fifo;		/* strict FIFO: one queue, nobody passes the head */
	bool no_departures;	/* pods never leave (the packing experiment) */
	double inflate;		/* with no_departures: arrived request / trace request */
	double scale_arrivals;	/* arrival-rate multiplier; 0 or 1: as recorded */
	double load;		/* target offered load; 0: as recorded */
	bool qos_priority;	/* openb qos as priority class */
	int64_t starvation_s;	/* "waited over" threshold (86400) */
	uint32_t limit;		/* replay only the first N jobs; 0: all */
	bool exact;		/* run every cycle, no shortcut */
	/* run times the scheduler is told (max and expected): the trace's times this; 0: none */
	double runtime_factor;
	bool enforce_max_runtime;	/* every queue evicts jobs past their maximum run time */
};

void gt_replay_opts_defaults(struct gt_replay_opts *o);

/* How far a run has got, for a progress line. */
struct gt_replay_progress {
	uint32_t arrived, jobs;		/* arrivals so far, of all */
	int64_t now;			/* the virtual clock */
	uint64_t cycles;		/* core cycles run */
	double cycle_ms_mean;		/* their mean wall time */
	uint64_t job_evictions;
	bool done;			/* the run is over: the last call */
};

/*
 * Called after every tick of the virtual clock (cheap: throttle output in
 * it). Return false to stop the run there: the results then cover what
 * was gathered until then (gt_replay_stats(): interrupted).
 */
typedef bool (*gt_replay_progress_fn)(void *arg, const struct gt_replay_progress *p);

struct gt_replay;

/*
 * Prepare a replay of @t on @c (nodes and queues filled, linked, names
 * interned in c->names; the engine takes @c over and releases it).
 * @tenant_queue maps each trace tenant id to a queue index (copied);
 * @default_queue takes jobs without a tenant. 0, or GT_EINVAL with @err.
 */
int gt_replay_new(struct gt_replay **out, struct gt_cluster *c, const struct gt_trace *t,
		  const int32_t *tenant_queue, int32_t default_queue,
		  const struct gt_replay_opts *o, struct gt_err *err);
/* Run to the end (every job finished, or nothing can change any more), or until @fn says stop. */
void gt_replay_run(struct gt_replay *r, gt_replay_progress_fn fn, void *arg);
/* The results; valid until gt_replay_free(). */
const struct gt_replay_stats *gt_replay_stats(const struct gt_replay *r);
void gt_replay_free(struct gt_replay *r);

/* ---- introspection for tests (by trace job index, after the run) */

/* Time job @i first started running, or -1. */
int64_t gt_replay_job_start(const struct gt_replay *r, uint32_t i);
/* Time job @i finished, or -1. */
int64_t gt_replay_job_end(const struct gt_replay *r, uint32_t i);
/* Times job @i was evicted. */
int32_t gt_replay_job_evictions(const struct gt_replay *r, uint32_t i);
/* Node (index) pod @k of job @i last ran on, or -1. */
int32_t gt_replay_pod_node(const struct gt_replay *r, uint32_t i, int32_t k);
/*
 * Every job as a CSV row (--jobs-csv): job (its index), submit, gpus, queue,
 * start, end (Unix seconds; empty when it never started / ended) and wait
 * (seconds from submit to first start). Returns fprintf's error, if any.
 */
int gt_replay_write_jobs(const struct gt_replay *r, FILE *f);
/* Shared-GPU group name pod @k of job @i last ran in, or NULL. */
const char *gt_replay_pod_group(const struct gt_replay *r, uint32_t i, int32_t k);

#endif /* GT_REPLAY_ENGINE_H */
