/*
 * order.h - who goes first: queues, jobs, podsets, tasks
 *
 * Job order inside a leaf queue (KAI's priority + elastic plugins): higher
 * priority, then jobs with a podset below its minimum, then jobs exactly at
 * their minimum, then older, then name. Podset order: below minimum first,
 * then the lower allocated/minimum ratio, then name. Task order: kubeflow
 * master/launcher and ray head first, then kai.scheduler/task-priority
 * (higher first, labelled before unlabelled), then older, then name.
 *
 * Queue order (KAI-SPEC 6.5) compares sibling queues with the head job of
 * each; the job queue below walks the queue tree from the roots, picking the
 * best child at every level, as KAI's PopNextJob does.
 */
#ifndef GT_ORDER_H
#define GT_ORDER_H

#include "core/session.h"

/* Counts per podset of a job, from the session's current state. */
struct gt_podset_count {
	int32_t active_allocated;	/* Allocated..Running */
	int32_t pending;		/* Pending pods of ours */
	int32_t pipelined;
	int32_t alive_not_gated;
	int32_t active_used;		/* Allocated..Releasing */
};

void gt_job_count(const struct gt_session *s, int32_t job, struct gt_podset_count *out);

/*
 * What a job's pod states alone decide, cached per job while its
 * session->job_stamp is the one they were made at (each stamp field holds
 * job_stamp + 1, so 0 is never valid): every action asks for the same
 * jobs' counts and signatures again, and most jobs did not change since.
 */
struct gt_job_memo {
	uint64_t cnt_stamp;	/* cnt: the counts of a job of one podset */
	struct gt_podset_count cnt;
	uint64_t sig_stamp;	/* sig: gt_job_signature() */
	uint64_t sig;
	uint64_t tasks_stamp;	/* tasks: gt_tasks_to_allocate() outside simulations */
	int32_t *tasks;		/* room for the job's pods, from the session arena */
	uint32_t n_tasks;
	uint64_t reqs_stamp;	/* reqs: signature.c's sorted requests of the pending pods */
	void *reqs;		/* room for the job's pods, from the session arena */
	uint32_t n_reqs;
	uint64_t ready_stamp;	/* ready: gt_job_is_ready() */
	uint64_t elastic_stamp;	/* elastic: gt_job_elastic_state() */
	bool ready;
	int8_t elastic;
};
/* Is @stamp (a memo's) the one for @job's state now? */
static inline bool gt_job_memo_valid(const struct gt_session *s, int32_t job, uint64_t stamp)
{
	return stamp == s->job_stamp[job] + 1;
}
/* Is @j's gang minimum (core/gang.h) met by one count of @cnt, the field at
 * @field (GT_COUNT(active_used), ...)? */
bool gt_gang_met_counts(const struct gt_job *j, const struct gt_podset_count *cnt, size_t field);
#define GT_COUNT(f) offsetof(struct gt_podset_count, f)

/*
 * Set up the caches of name ranks and of each job's pods in task order,
 * filled on first use, so comparators and tasks-to-allocate do not compare
 * strings or sort on every call. O(jobs + strings) to set up.
 */
void gt_order_prepare(struct gt_session *s);

/* Is every podset's alive, ungated pod count at least its minimum? */
bool gt_job_is_ready(const struct gt_session *s, int32_t job);
/* KAI's elastic order of @job's active pods: 0 some podset below its minimum, 1 all at it, 2 above. */
int gt_job_elastic_state(const struct gt_session *s, int32_t job);

/* <0 when job @a goes before @b. */
int gt_job_cmp(const struct gt_session *s, int32_t a, int32_t b);
int gt_task_cmp(const struct gt_session *s, int32_t a, int32_t b);
/*
 * The part of task order that is the pods' own fields (role, task priority,
 * creation, UID, name), without a session: for the decoder, which must
 * know which of a shared claim's consumers KAI places first.
 */
int gt_task_static_cmp(const struct gt_cluster *c, int32_t a, int32_t b);

/* Pending (or, in a simulation, evicted this session) and ours to place. */
bool gt_task_wants_placement(const struct gt_session *s, int32_t pod);

/*
 * The tasks allocate tries next for @job, in order: for every podset below
 * its minimum the best (minimum - active) pending tasks; if every podset is
 * satisfied, one more task (elastic growth). Returns the count; @out must
 * hold the job's pod count.
 */
uint32_t gt_tasks_to_allocate(const struct gt_session *s, int32_t job, int32_t *out);

/* The first of @tasks mounting a PersistentVolumeClaim that does not exist, or whose resource
 * claims it cannot have whatever the node (gt_dra_problem), or GT_NONE. */
int32_t gt_tasks_claim_missing(const struct gt_session *s, const int32_t *tasks, uint32_t n);

/* Queue-tree resources of the tasks (pending semantics: not yet placed). */
void gt_tasks_queue_res(const struct gt_session *s, const int32_t *tasks, uint32_t n,
			int64_t out[GT_NQRES]);

/* <0 when queue @lq (head job @lj) goes before sibling @rq (head @rj). */
int gt_queue_cmp(const struct gt_session *s, int32_t lq, int32_t rq, int32_t lj, int32_t rj);

/*
 * Each queue's victim order key, kept from one call of gt_queue_gives_first
 * to the next while the queue's allocation and what it gave up are the
 * values it was computed from: a victim queue asks for the same siblings'
 * keys at every pop, and only the popped one's changed. One per queue,
 * for one cycle at most (the fair shares they read are computed once per
 * cycle). The job queue keeps its keys the same way.
 */
struct gt_queue_key_memo;
struct gt_queue_key_memo *gt_queue_key_memos_in(struct gt_arena *a, uint32_t n_queues);

/*
 * Of sibling queues @qs[0..n) (n > 0), having given up @subs[i] to victims
 * so far, the index of the one whose victims go first (the victim queue
 * reverses queue order): a scan that keeps the one queue order puts last,
 * each queue's order key from @memo (gt_queue_key_memos_in) or computed.
 */
uint32_t gt_queue_gives_first(const struct gt_session *s, const int32_t *qs,
			      const int64_t (*subs)[GT_NQRES], uint32_t n, struct gt_queue_key_memo *memo);

/* Podset indices of @job in podset order given the counts @cnt. */
void gt_sort_podsets(const struct gt_session *s, int32_t job, const struct gt_podset_count *cnt,
		     uint32_t *order);

/* A priority queue of jobs per leaf queue, popped in queue-tree order. */
struct gt_jobq {
	const struct gt_session *s;
	struct gt_arena *arena;	/* where its memory comes from; NULL: malloc */
	/*
	 * Per queue its jobs, v[first[q]..n_heap[q]): sorted best first while
	 * every push came in job order (jobs are pushed in index order, which is
	 * mostly job order: a pop is then O(1)); a binary heap from the first
	 * push out of order (first 0) until the queue is empty again. A sorted
	 * array is a heap already, and a heap pops the least job like the list,
	 * so the order is the same either way.
	 */
	int32_t **heaps;
	uint32_t *n_heap, *cap_heap, *first;
	bool *as_heap;
	/*
	 * Per job, its elastic state when pushed: a job waiting in the queue
	 * does not change, so the heap compares this instead of recounting.
	 */
	int8_t *elastic;
	struct gt_queue_key_memo *keys;	/* per queue: its order key, kept (order.c) */
	int32_t depth;		/* jobs a leaf queue keeps (queueDepthPerAction), -1: all */
	/*
	 * The queue tree's order, kept between pops (order.c): per interior
	 * queue, and the roots as one more (index n_queues), a winner tree
	 * over its children; per queue the leaf whose head job goes first
	 * under it. Brought up to date at each pop: every key whose inputs
	 * changed is recomputed and only its path in its parent's tree
	 * replayed; while the session's state is the one of the last pop, only
	 * the leaves pushed or popped since (the dirty ones) are looked at.
	 */
	int32_t *win;		/* per queue and the roots: the leaf that goes first, GT_NONE: none */
	int32_t *tree;		/* every winner tree, 2 x children slots each */
	uint32_t *tree_at;	/* per interior queue and the roots: where its tree starts */
	uint32_t *slot;		/* per queue: its place among its parent's children (or the roots) */
	int32_t *roots;
	uint32_t n_roots;
	bool *empty;		/* per queue: no job under it, as its parent's tree last saw it */
	int32_t *dirty;		/* leaves pushed or popped since the last pop */
	uint32_t n_dirty;
	bool *is_dirty;
	bool tree_ready;	/* the trees were built, in the state below */
	bool tree_sim;
	uint32_t tree_req_gen;
	uint64_t tree_epoch;
};

void gt_jobq_init(struct gt_jobq *jq, const struct gt_session *s);
/* The same with its memory from @a: O(queues) to start, nothing to release. */
void gt_jobq_init_in(struct gt_jobq *jq, const struct gt_session *s, struct gt_arena *a);
void gt_jobq_release(struct gt_jobq *jq);
/*
 * Keep at most @depth jobs per leaf queue from now on (-1: all), as KAI's
 * queueDepthPerAction caps an action's per-queue job heap: a push past the
 * cap drops the queue's last job in job order. (KAI drops the job at heap
 * position @depth, one of the heap's leaves, not always the last in order.)
 */
void gt_jobq_limit_depth(struct gt_jobq *jq, int32_t depth);
/* The running action's queueDepthPerAction (gt_config), -1 when it has none. */
int32_t gt_action_queue_depth(const struct gt_session *s);
void gt_jobq_push(struct gt_jobq *jq, int32_t job);
/* The next job in queue-tree order, or GT_NONE when empty. */
int32_t gt_jobq_pop(struct gt_jobq *jq);
/* The next job of leaf @q in job order, or GT_NONE: O(log jobs), no queue compared. */
int32_t gt_jobq_pop_leaf(struct gt_jobq *jq, int32_t q);
bool gt_jobq_empty(const struct gt_jobq *jq);
/* The jobs still waiting in leaf queue @q, in no particular order; returns how many. */
uint32_t gt_jobq_leaf_jobs(const struct gt_jobq *jq, int32_t q, const int32_t **jobs);
/*
 * Would leaf @q's jobs, were they all popped one day without changing
 * anything, leave the order of every other job as it is if they were
 * dropped now? Yes when no other leaf under @q's top-level queue has jobs:
 * the queues above compare a leaf by its head job, so only there does a
 * job that does nothing still steer the order (by when its queue's turn
 * comes). Relies on the queue order being a total order (queue_key_cmp).
 */
bool gt_jobq_leaf_alone(const struct gt_jobq *jq, int32_t q);
/* Forget every job of leaf @q. */
void gt_jobq_drop_leaf(struct gt_jobq *jq, int32_t q);

#endif /* GT_ORDER_H */
