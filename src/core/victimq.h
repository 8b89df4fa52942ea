/*
 * victimq.h - KAI's victim queue: who gives up resources first
 *
 * The queue tree in victim mode (KAI's JobsOrderByQueues with VictimQueue):
 * at every level the child queue that allocation would serve last gives
 * first, judged after the victims already taken from it; in a leaf, the
 * job that allocation would take last (lowest priority, above its minimum,
 * newest) gives first. An entry is a job, or what is left of one after an
 * elastic pod was taken from it.
 *
 * KAI builds the queue afresh for every search step from a candidate list.
 * Here the order of every leaf's candidates is kept for the whole action in
 * an index (struct gt_victim_index, in the session): built once, and after
 * each committed solution only the jobs it touched are put back in order.
 * A search step's queue (struct gt_victimq) walks the index with a cursor
 * per leaf, skipping jobs that cannot be victims of this preemptor, so a
 * step costs what it pops and skips, not the number of jobs in the
 * cluster. Jobs at the front of a leaf that can never be victims again in
 * this action (no pod active, none that could become active) are dropped
 * from the index for good.
 */
#ifndef GT_VICTIMQ_H
#define GT_VICTIMQ_H

#include "core/session.h"
#include "util/arena.h"

/* The order key of an entry (KAI's job order over the entry's own pods). */
struct gt_victim_key {
	int32_t priority;
	int8_t elastic;		/* 0 below its minimum, 1 at it, 2 above */
	int64_t created;
	int32_t job;
};

struct gt_victim_entry {
	struct gt_victim_key key;
	int32_t *pods;		/* its active pods (arena) */
	uint32_t n;
	int64_t allocated[GT_NQRES];
};

/* Admit @job as a candidate of this preemptor? (the action's victim filter) */
typedef bool (*gt_victim_pred)(void *ctx, int32_t job);
/* Can any job of leaf queue @q be a candidate? (lets a step skip whole queues) */
typedef bool (*gt_victim_queue_pred)(void *ctx, int32_t q);

/* One search step's queue. */
struct gt_victimq {
	struct gt_session *s;
	struct gt_arena *a;
	int32_t preemptor;
	gt_victim_pred admit;
	void *admit_ctx;
	int32_t below_priority;	/* only jobs of lower priority are candidates (INT32_MAX: any) */
	int32_t max_jobs;	/* < 0: no cap; else at most max_jobs + 1 fresh jobs */
	int32_t admitted;
	uint32_t *cursor;	/* per queue: next index position */
	struct gt_victim_entry *head;	/* per queue: the cursor's next candidate */
	bool *has_head;
	struct gt_victim_entry **heap;	/* per queue: entries pushed back, a max-heap */
	uint32_t *n_heap, *cap_heap;
	int64_t (*popped)[GT_NQRES];	/* per queue: what the entries popped hold */
	struct gt_queue_key_memo *keys;	/* per queue: its victim order key (core/order.h) */
	int32_t *roots;
	uint32_t n_roots;
};

/* Build the index for this action if needed (O(J log J) once per action). */
void gt_victim_index_prepare(struct gt_session *s);
/* Forget the index (at the end of an action: allocate changes everything). */
void gt_victim_index_reset(struct gt_session *s);
/* Most GPU milli-units one preemptible job under queue @q holds (a bound). O(queues under q). */
int64_t gt_victim_max_job_gpu(struct gt_session *s, int32_t q);
/* Put @job back in order after a committed change of its pods. O(jobs of its queue). */
void gt_victim_index_update(struct gt_session *s, int32_t job);

/* A fresh queue over the index, all from @a. */
/*
 * Who may be a victim: @admit per job; @admit_queue (NULL: every leaf) per
 * leaf queue; only jobs of priority below @below_priority (a leaf's jobs are
 * in priority order, so its walk stops at the first that is not).
 */
struct gt_victim_filter {
	gt_victim_pred admit;
	gt_victim_queue_pred admit_queue;
	void *ctx;
	int32_t below_priority;
	int32_t max_jobs;	/* < 0: no cap; else at most max_jobs + 1 fresh jobs */
};

void gt_victimq_init(struct gt_victimq *vq, struct gt_session *s, struct gt_arena *a,
		     int32_t preemptor, const struct gt_victim_filter *f);
/* The next entry to give up resources; false when none is left. */
bool gt_victimq_pop(struct gt_victimq *vq, struct gt_victim_entry *out);
/* Put back what is left of an entry (its @n pods), as KAI pushes a reduced clone. */
void gt_victimq_push(struct gt_victimq *vq, int32_t job, const int32_t *pods, uint32_t n);

/*
 * KAI's GetTasksToEvict over an entry: one pod (the last in task order) if
 * some podset is above its minimum, else every pod. Returns the count in
 * @out; *more says pods of the entry stay behind.
 */
uint32_t gt_victim_tasks_to_evict(const struct gt_session *s, const struct gt_victim_entry *e,
				  int32_t *out, bool *more);

#endif /* GT_VICTIMQ_H */
