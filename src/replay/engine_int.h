/*
 * engine_int.h - the replay engine's state, shared by its three files
 *
 * engine.c runs the clock and keeps the virtual cluster, engine_setup.c
 * builds a replay from a trace and a cluster, engine_stats.c turns the run
 * into struct gt_replay_stats. Nothing outside src/replay/engine*.c
 * includes this header: the rest of Gantry sees engine.h only.
 */
#ifndef GT_REPLAY_ENGINE_INT_H
#define GT_REPLAY_ENGINE_INT_H

#include "core/usage.h"
#include "replay/engine.h"

enum job_state { JS_FUTURE, JS_PENDING, JS_RUNNING, JS_RELEASING, JS_DONE };
/* At equal times: departures and releases first, then wake-ups. */
enum ev_kind { EV_END, EV_RELEASE, EV_WAKE, EV_MAX_RUNTIME };

struct rp_job {
	int32_t queue;
	int32_t priority;
	bool preemptible;
	uint8_t state;		/* enum job_state */
	bool gated;		/* its pods are Gated: hidden from the core (engine.h) */
	int32_t slot;		/* index in c.jobs while it has pods there */
	uint32_t pod0;		/* its first pod in r->last_node / r->last_group */
	int64_t first_start;	/* first time it ran (after bind latency), -1 */
	int64_t run_start;	/* bind time of the current run */
	int64_t done_work;	/* seconds of progress kept across evictions */
	int64_t end;		/* finish time, -1 */
	int64_t release_at;	/* evicted pods gone at */
	uint32_t gen;		/* invalidates stale events */
	int32_t evictions;
	bool overdue;		/* past its maximum run time, its queue enforcing it: a cycle must run */
};

struct rp_event {
	int64_t t;
	uint32_t job;
	uint32_t gen;
	uint8_t kind;		/* enum ev_kind */
};

struct rp_group {
	uint32_t id;
	int64_t used_milli;
	int32_t n_pods;
};

/* What the pods on one node hold, for metrics and the hopeless test. */
struct rp_node {
	int32_t whole;		/* devices held by whole-GPU pods */
	int64_t cpu_milli, mem_bytes;
	int32_t pods;
	struct rp_group *groups;
	uint32_t n_groups, cap_groups;
};

/* Per class of pods (any GPU model, or one gpu_spec): room left in the cluster. */
struct rp_room {
	int64_t *fit;		/* [g]: pods of g whole GPUs that fit, summed over nodes */
	int64_t max_share;	/* most milli-GPU one shared pod can get on a node */
	int64_t max_cpu, max_mem;
};

struct gt_replay {
	struct gt_cluster c;
	struct gt_replay_opts o;
	struct gt_strtab *names;
	/* the jobs: the trace after --limit, scaling and inflation */
	struct gt_rjob *tj;
	struct rp_job *jobs;
	uint32_t n_jobs;
	int32_t *last_node;	/* per pod (jobs[i].pod0 + k): last node, -1 */
	uint32_t *last_group;	/* per pod: last shared-GPU group + 1, 0 none */
	uint32_t n_pods;
	uint32_t *slot_id;	/* c.jobs slot -> job id */
	uint32_t cap_slot_id;
	int32_t *tenant_queue;
	uint32_t n_tenants;
	int32_t default_queue;
	bool single_queue;
	uint32_t ns, podset_name;
	/* shared-GPU groups: every device of every node has a name */
	uint32_t *dev_names;	/* node n, device k: dev_names[dev0[n] + k] */
	uint32_t *dev0;
	/* gpu_spec node selectors */
	struct gt_selector *spec_sel;
	uint8_t *spec_ok;	/* [spec * n_nodes + node] */
	uint32_t n_specs;
	struct rp_room *rooms;	/* [0]: any model, [1 + spec] */
	int32_t max_node_gpus;
	/* min-runtime protections a running job passes (distinct, > 0) */
	int64_t *wake_after;
	uint32_t n_wake_after;
	/* time */
	int64_t now, origin;
	uint32_t next_arrival;
	struct rp_event *heap;
	uint32_t n_heap, cap_heap;
	bool dirty;
	uint32_t n_overdue;	/* running jobs past an enforced maximum run time */
	bool need_compact;
	uint32_t n_releasing_pods;
	/* the cluster as the metrics see it */
	struct rp_node *nodes;
	int64_t alloc_milli, stranded_milli, idle_devices, partial_nodes;
	int64_t *q_alloc_milli, *q_fair_milli;
	int64_t held_gpus;	/* GPUs reservations hold after the last cycle */
	int64_t backfilled_gpus;	/* GPUs of jobs backfilling them after the last cycle */
	uint32_t n_pending, n_running;
	/* accumulators */
	double alloc_gpu_s, useful_gpu_s, lost_gpu_s;
	double frag_s, idle_s, partial_s;
	double *q_alloc_s, *q_fair_s;
	double *cycle_ms;
	uint64_t n_cycle_ms, cap_cycle_ms;
	double arrived_milli;
	struct gt_replay_stats st;
	/* time-based fair share (c.config.usage.on): the queues' usage on the virtual clock */
	struct gt_usage_history usage;
	bool usage_started;
};

/* A job's GPUs as a number: whole GPUs, or its pods' fractions added up. */
static inline double gt_rp_job_gpus(const struct gt_rjob *j)
{
	return j->frac_milli ? (double)j->frac_milli * j->n_pods / 1000.0 : (double)j->gpus;
}

/* engine.c */
void gt_rp_node_contrib(struct gt_replay *r, int32_t n, int sign);
void gt_rp_set_signals(struct gt_replay *r);

/* engine_stats.c */
void gt_rp_finish_stats(struct gt_replay *r);

#endif /* GT_REPLAY_ENGINE_INT_H */
