/*
 * session.h - one scheduling cycle: mutable state over a const snapshot
 *
 * gt_session_open() derives from the snapshot everything the actions need:
 * per-node free and releasing resources (whole GPUs and shared-GPU groups),
 * per-queue allocation, request and fair share. Actions change the state only
 * through a statement (gt_stmt_*), an undo log with checkpoint and rollback,
 * so a gang that does not fit leaves no trace. Every change of a pod's state
 * goes through one function (set_pod_state in session.c) that removes the
 * pod's old contribution to its node and queues and adds the new one; undo
 * is the same call with the old state, which keeps the books exact.
 *
 * After the actions, core/plan.h lists what the session decided (binds,
 * pipelines, evictions, per-job messages) for the front ends.
 */
#ifndef GT_SESSION_H
#define GT_SESSION_H

#include <stddef.h>

#include "core/cluster.h"
#include "core/reason.h"
#include "util/arena.h"

/* room for every placement reject reason (core/placement.h checks) */
#define GT_MAX_REJECTS 24

struct gt_pod_state {
	enum gt_status status;
	int32_t node;
	uint32_t groups[GT_MAX_DEVICES];
	uint8_t n_groups;
	uint8_t evicted_by;	/* enum gt_action of the eviction, 0 if none */
	bool virtual_evict;	/* evicted in this session: simulations may re-place it */
	bool ghost;		/* evicted while only pipelined: it holds nothing at node */
	enum gt_status before_evict;	/* status to restore when un-evicted */
	int32_t evictor_job;	/* job that took the resources, or GT_NONE */
	/*
	 * The eviction fields as they were before the last eviction, restored
	 * with the status when it is taken back: a victim moved elsewhere, evicted
	 * again and put back where it was moved to is still evicted from its
	 * first node.
	 */
	uint8_t before_evicted_by;
	bool before_virtual;
	int32_t before_evictor;
	/*
	 * A victim moved elsewhere (pipelined on another node or GPU) still
	 * holds its old place until its pod is gone: that place counts as
	 * releasing on rel_node.
	 */
	int32_t rel_node;
	uint32_t rel_groups[GT_MAX_DEVICES];
	uint8_t n_rel_groups;
	uint32_t numa_place;	/* its NUMA zones: 1 + a placement of s->numa (core/numa.h); 0: none */
};

/* One physical GPU shared by fractional pods. */
struct gt_gpu_group {
	uint32_t id;		/* interned group name */
	int64_t used_milli;	/* portions of every active pod in it */
	int64_t releasing_milli;	/* portions of its releasing pods */
	int64_t pipelined_milli;	/* portions of its pipelined pods */
	int32_t n_pods;
};

struct gt_node_state {
	/* non-GPU resources held by active pods (pipelined ones excluded) */
	int64_t used_cpu_milli, used_mem_bytes, used_pods;
	int64_t used_ext[GT_MAX_EXT];
	/* held by releasing pods, minus what pipelined pods already claimed */
	int64_t rel_cpu_milli, rel_mem_bytes, rel_pods;
	int64_t rel_ext[GT_MAX_EXT];
	int32_t whole_used;	/* devices held by whole-GPU pods (releasing included) */
	int32_t whole_releasing;
	int32_t whole_pipelined;
	struct gt_gpu_group *groups;
	uint32_t n_groups, cap_groups;
	/* derived from the above by refresh_node() after every change */
	int32_t idle_gpus;	/* whole devices free now */
	int32_t rel_gpus;	/* whole devices being freed */
	int64_t max_room;	/* most milli-GPU a shared group here can still take */
};

/*
 * Nodes indexed by free whole GPUs (idle + releasing), as bitmaps in name
 * order, so that placing a GPU pod looks only at nodes that could hold it:
 * on a full cluster of 5,000 nodes most are skipped without a look.
 */
struct gt_node_index {
	uint32_t n_words;	/* 64-bit words per bitmap */
	int32_t max_free;	/* largest GPU count of a node */
	uint64_t **by_free;	/* [0..max_free]: nodes with that many free GPUs */
	uint64_t **by_idle;	/* [0..max_free]: nodes with that many idle GPUs */
	int32_t *idle_bucket;	/* node -> its by_idle bucket */
	uint64_t *roomy;	/* nodes with a shared GPU that has room */
	uint64_t *drawing;	/* nodes with a shared GPU in use, not all leaving (gt_node_draws_pods) */
	int32_t *node_at_rank;	/* name rank -> node */
	int32_t *bucket;	/* node -> its by_free bucket */
};

struct gt_queue_state {
	int64_t allocated[GT_NQRES];
	int64_t allocated_np[GT_NQRES];	/* of non-preemptible jobs */
	int64_t request[GT_NQRES];
	int64_t fair_share[GT_NQRES];
};

enum gt_action { GT_ACT_NONE, GT_ACT_ALLOCATE, GT_ACT_CONSOLIDATION, GT_ACT_RECLAIM,
		 GT_ACT_PREEMPT, GT_ACT_STALEGANG, GT_N_ACTIONS };

struct gt_job_state {
	char *message;		/* why it is not scheduled; NULL when none */
	struct gt_job_why *why;	/* the same for programs (core/reason.h); NULL with the message */
	int64_t last_start;
	int64_t stale_since;
	bool attempted;
	bool stale_evicted;
};

enum gt_op_kind { GT_OP_ALLOCATE, GT_OP_PIPELINE, GT_OP_EVICT, GT_OP_UNEVICT };

struct gt_op {
	enum gt_op_kind kind;
	int32_t pod;
	struct gt_pod_state before;
	uint64_t epoch_before;	/* the state's id before this op: rollback restores it */
};

#define GT_NO_FIT_SLOTS 8

/* Why a job's victim search stopped (KAI's scenario search results). */
#define GT_SEARCH_RESULT_MAP(X)                                  \
	X(SOLVED, "solved")                                      \
	X(DEADLINE, "deadline_exhausted")                        \
	X(EXHAUSTED, "generators_exhausted")                     \
	X(NO_GENERATOR, "no_generator")                          \
	X(NOT_ATTEMPTED, "not_attempted")

enum gt_search_result {
#define GT_SEARCH_RESULT_ENUM(name, text) GT_SEARCH_##name,
	GT_SEARCH_RESULT_MAP(GT_SEARCH_RESULT_ENUM)
#undef GT_SEARCH_RESULT_ENUM
	GT_N_SEARCH_RESULTS
};

const char *gt_search_result_name(enum gt_search_result r);

/* The states a scenario is counted in (KAI's kai_scenario_search_scenarios_total{state}). */
#define GT_SCENARIO_STATE_MAP(X)                \
	X(EMITTED, "emitted")                   \
	X(SIMULATED, "simulated")               \
	X(DUPLICATE, "duplicate")               \
	X(REJECTED, "validator_rejected")

enum gt_scenario_state {
#define GT_SCENARIO_STATE_ENUM(name, text) GT_SCENARIO_##name,
	GT_SCENARIO_STATE_MAP(GT_SCENARIO_STATE_ENUM)
#undef GT_SCENARIO_STATE_ENUM
	GT_N_SCENARIO_STATES
};

const char *gt_scenario_state_name(enum gt_scenario_state st);

/* One generator attempt of a job's search: how it ended and how long it took (session arena). */
struct gt_search_timing {
	struct gt_search_timing *next;
	enum gt_generator gen;
	enum gt_search_result result;
	int64_t ms;
};

/* What the victim search did in one action (KAI's kai_scenario_search_* metrics). */
struct gt_search_stats {
	uint32_t jobs[GT_N_SEARCH_RESULTS];	/* jobs by result */
	uint32_t reduced_budget;		/* jobs that got less than a job's limit */
	uint64_t emitted, simulated, duplicate, validator_rejected;	/* scenarios */
	uint32_t pruned;	/* probes no victim set could make valid: not searched */
	uint32_t action_budget_exhausted;
	uint32_t signature_skipped;	/* jobs no easier than a failed one: not tried */
	/* per KAI metric (scheduler/metrics.c): */
	uint32_t acted_on;	/* jobs the action tried to solve (podgroups_acted_on_by_action) */
	uint64_t filtered;	/* accumulations KAI's accumulated filters rejected (scenarios_filtered_by_action) */
	uint32_t jobs_reduced[GT_N_SEARCH_RESULTS];	/* jobs by result whose budget was reduced */
	/* scenarios per generator: emitted, simulated, duplicate, validator_rejected */
	uint64_t gen_scenarios[GT_N_GENERATORS][GT_N_SCENARIO_STATES];
	/* generator attempts timed on the front end's clock (none without one), newest first */
	struct gt_search_timing *timings;
};

struct gt_victim_key;
struct gt_volume_books;
struct gt_search_scratch;

/* Per action: every preemptible job of a leaf queue in victim order (victimq.h). */
struct gt_victim_index {
	bool built;
	int32_t **order;	/* per queue: jobs, the first to give up first */
	uint32_t *n_order;
	uint32_t *start;	/* per queue: jobs before it are gone for this action */
	struct gt_victim_key *key;	/* per job: the key it is ordered by */
	uint32_t *pos;		/* per job: its place in order[queue] */
	int64_t *max_job_gpu;	/* per queue: most GPU milli-units one of its jobs holds */
};

struct gt_session {
	const struct gt_cluster *c;
	int64_t now;
	/*
	 * The cycle's memory: the books below and the search's scratch come
	 * from @arena and die with the session; a job's search takes its
	 * memory from @solve_arena and each search step from @step_arena,
	 * each given back whole when done.
	 */
	struct gt_arena arena, solve_arena, step_arena;
	struct gt_pod_state *pods;
	struct gt_node_state *nodes;
	struct gt_queue_state *queues;
	struct gt_job_state *jobs;
	int64_t total[GT_NQRES];	/* cluster capacity the queues divide */
	uint32_t next_group;	/* ids >= n_names are groups this session made */
	uint32_t n_base_names;
	/* the statement: an undo log */
	struct gt_op *ops;
	size_t n_ops, cap_ops;
	/* counters for the plan */
	uint32_t n_binds, n_evictions, n_pipelines;
	enum gt_action action;	/* the action now running */
	/*
	 * Inside a solver simulation: evicted pods may be placed again
	 * (pipeline only), and a pod placed back where it was evicted from is
	 * simply un-evicted. Unlike where a placement may look (struct
	 * gt_place_ctx, core/placement.h), this is the books' own state: the
	 * statement (un-evicting) and order.c's job counts and their cache read
	 * it, well below any placement call, so it stays on the session.
	 */
	bool simulating;
	struct gt_node_index index;
	/* per job: its pods in an allocated state (gt_status_active_allocated) */
	uint32_t *job_active;
	/* per job: its pending pods of ours */
	uint32_t *job_pending;
	/*
	 * Tasks-to-allocate resources per job, valid while job_req_gen[job] is
	 * req_gen: a change of one of its pods clears its generation, and
	 * gt_session_invalidate_requests() starts a new one for every job.
	 */
	int64_t (*job_req)[GT_NQRES];
	uint32_t *job_req_gen;
	uint32_t req_gen;
	uint32_t req_gen_seq;	/* the last generation handed out (a simulation's are never reused) */
	uint32_t req_gen_wraps;	/* times req_gen_seq wrapped and every generation was cleared */
	/*
	 * Per job: the epoch of the last change to one of its pods (0: none
	 * since the session opened). Caches of what a job's pod states alone
	 * decide (order.c's counts, signature.c's signature) are valid while
	 * it is the stamp they were made at.
	 */
	uint64_t *job_stamp;
	/*
	 * Per queue: the epoch of the last change to its allocation (epochs are
	 * never reused, so a rollback leaves a new stamp): what the job queue
	 * looks at to find the queues whose order key may have changed. Not
	 * part of the books: a rollback restores those exactly.
	 */
	uint64_t *queue_stamp;
	struct gt_job_memo *job_memo;	/* order.c's and signature.c's per-job caches */
	/* scratch for node ordering, sized for every node */
	void *scratch;
	uint64_t *fast_scratch;	/* one bitmap of nodes, for the fast path */
	/*
	 * An id of the session's state: a new one after every change of a
	 * pod's state (from epoch_seq, never reused), the old one back after a
	 * rollback, since the state is then exactly what it was.
	 */
	uint64_t epoch, epoch_seq;
	/*
	 * Recent placements that found no node for a pod without constraints:
	 * the same request fails the same way, with the same reasons, while
	 * the state is the same (a full cluster turns away a backlog of pods
	 * without scoring every node for each).
	 */
	struct gt_no_fit {
		bool valid;
		uint64_t epoch;
		int32_t gpus, frac_milli, num_devices;
		int64_t gpu_mem_mib, cpu_milli, mem_bytes;
		int64_t ext[GT_MAX_EXT];
		uint32_t rejects[GT_MAX_REJECTS];
	} no_fit[GT_NO_FIT_SLOTS];
	uint32_t no_fit_next;
	/* order.c's caches, filled on first use: name ranks (string id -> rank among
	 * job, podset and queue names; 0: not ranked), each job's pods in task order */
	uint32_t *name_rank;
	uint32_t n_ranked;
	bool names_ranked;
	uint32_t name_strcmps;	/* names compared as strings before ranking them all */
	int32_t **task_order;	/* per job, NULL until needed */
	uint32_t *task_pos;	/* per pod: its place in its job's task order */
	/* the victim search */
	struct gt_victim_index victims;
	struct gt_search_scratch *search_scratch;
	struct gt_search_stats search[GT_N_ACTIONS];
	struct gt_numa_books *numa;	/* NUMA zones' books (core/numa.h); NULL: NUMA is off */
	/* the volume decisions of the placements (core/volumes.h); NULL without claims */
	struct gt_volume_books *volumes;
	/* reservations and holds (core/reserve.h); NULL when off or before allocate */
	struct gt_reserve_book *reserve;
};

void gt_session_open(struct gt_session *s, const struct gt_cluster *c, int64_t now);
void gt_session_release(struct gt_session *s);
/*
 * For assert() and tests only: the incremental books (nodes, shared GPUs,
 * the node index, queues, jobs' counts) equal a recount from the pods'
 * states. O(P + N + Q).
 */
bool gt_session_check(const struct gt_session *s);

/* The statement. A checkpoint is the op count; rollback undoes past it. */
static inline size_t gt_stmt_checkpoint(const struct gt_session *s)
{
	return s->n_ops;
}
void gt_stmt_rollback(struct gt_session *s, size_t checkpoint);
/* Forget the undo log from @checkpoint on: the changes stand. */
void gt_stmt_commit(struct gt_session *s, size_t checkpoint);
void gt_stmt_allocate(struct gt_session *s, int32_t pod, int32_t node,
		      const uint32_t *groups, uint8_t n_groups);
void gt_stmt_pipeline(struct gt_session *s, int32_t pod, int32_t node,
		      const uint32_t *groups, uint8_t n_groups);
void gt_stmt_evict(struct gt_session *s, int32_t pod, int32_t evictor_job);

/* Count toward queue allocation in a session: allocated or pipelined. */
static inline bool gt_status_queue_counted(enum gt_status s)
{
	return gt_status_allocated(s) || s == GT_PIPELINED;
}

/* Evict directly, outside any statement (stale gangs): it cannot be undone. */
void gt_session_evict_now(struct gt_session *s, int32_t pod);

/* A group id no pod has used yet in this session. */
uint32_t gt_session_new_group(struct gt_session *s);

/* Resources of a pod as the queue tree counts them (accepted GPU on @node). */
void gt_pod_queue_res(const struct gt_session *s, int32_t pod, int32_t node,
		      int64_t out[GT_NQRES]);
/* GPU milli-units the pod is given on @node (fraction, memory share or whole). */
int64_t gt_pod_accepted_gpu_milli(const struct gt_cluster *c, int32_t pod, int32_t node);
/* GPU milli-units the pod asks for (a fraction counts, GPU memory does not). */
int64_t gt_pod_requested_gpu_milli(const struct gt_cluster *c, int32_t pod);

/* Whole devices of @node free now / held by pods being released. O(1). */
/*
 * A shared GPU of the node is in use and not all of it is leaving: KAI's
 * gpusharingorder then favours the node for every pod that is not
 * fractional (it asks no GPU memory of the shared GPU, so it "fits").
 */
static inline bool gt_node_draws_pods(const struct gt_node_state *ns)
{
	for (uint32_t i = 0; i < ns->n_groups; i++) {
		const struct gt_gpu_group *g = &ns->groups[i];
		if (g->used_milli && g->used_milli - g->pipelined_milli != g->releasing_milli)
			return true;
	}
	return false;
}

static inline int32_t gt_node_idle_gpus(const struct gt_session *s, int32_t node)
{
	return s->nodes[node].idle_gpus;
}
static inline int32_t gt_node_releasing_gpus(const struct gt_session *s, int32_t node)
{
	return s->nodes[node].rel_gpus;
}
/* Forget cached tasks-to-allocate requests (when what counts as a task changes). */
void gt_session_invalidate_requests(struct gt_session *s);
/*
 * A solver simulation counts victims as tasks: its requests get a
 * generation of their own (begin), and the ones from before it are valid
 * again after it (end, with what begin returned): a job whose pods the
 * simulation changed had its entry cleared by the change.
 */
uint64_t gt_session_requests_begin_sim(struct gt_session *s);
void gt_session_requests_end_sim(struct gt_session *s, uint64_t saved);

/* Set the job's "why not scheduled" message (copied); its why is PodSchedulingErrors. */
void gt_job_set_message(struct gt_session *s, int32_t job, const char *msg);
/*
 * Set the message and the facts behind it (both copied; @why NULL: a
 * POD_ERROR with no facts); a NULL @msg clears both. (messages.c)
 */
void gt_job_set_why(struct gt_session *s, int32_t job, const struct gt_job_why *why, const char *msg);

#endif /* GT_SESSION_H */
