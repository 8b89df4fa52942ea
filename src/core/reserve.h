/*
 * reserve.h - reservations and backfill for gangs that cannot be placed
 *
 * docs/reservations.md says why; in short: when a pending gang at the head
 * of its queue (or waiting past a threshold) cannot be placed, the planner
 * finds where and when it would fit, from the running pods' expected ends
 * (a drain when nothing is known), by asking the core's own placement with
 * those pods evicted in a statement that is rolled back. The GPUs the gang
 * needs there, less those expected to free before its start, are held:
 * placement (fit_node) offers them only to the gang, to a job that will have
 * ended before the start (backfill), and to a job whose queue stays within
 * its deserved quota.
 *
 * Pure and stateless between cycles but for one time per job
 * (gt_job.reserved_since, reported by the plan and given back by the front
 * end): each cycle the reservations are planned again, before allocate
 * places anything. Bounded: at most config.reserve.max at once, holding at
 * most config.reserve.share of the cluster's GPUs, each for at most
 * config.reserve.hold_s from when it first holds GPUs (then none for as
 * long). A reservation whose start is further off than
 * config.reserve.horizon_s holds nothing and has not begun: its
 * reserved_since stays 0, so its hold counts from the expected start less
 * the horizon, not from when the gang was first planned.
 */
#ifndef GT_RESERVE_H
#define GT_RESERVE_H

#include "core/session.h"

#define GT_RESERVE_NO_START INT64_MAX	/* a drain: no run time is known */

/* One reservation of the cycle. */
struct gt_reservation {
	int32_t job;
	int64_t start;		/* expected start, GT_RESERVE_NO_START for a drain */
	int32_t gpus;		/* GPUs the gang needs on its nodes */
	int32_t held;		/* of those, held now (not expected to free before the start) */
	int32_t *nodes;		/* the nodes the gang would land on, ascending */
	uint32_t n_nodes;
	bool beyond;		/* takes its queue past fair share (reserve.beyond_fair_share) */
};

/* The cycle's reservations and holds (in the session's arena). */
struct gt_reserve_book {
	struct gt_reservation *v;
	uint32_t n, cap;
	int32_t *hold;		/* per node: GPUs held there */
	int32_t *hold_by;	/* per node: index into v, GT_NONE */
	int64_t *since;		/* per job: reserved_since after the cycle */
	bool *queue_tried;	/* per queue: allocate has popped one of its jobs */
	int64_t total_gpus;	/* whole GPUs of the cluster */
	int64_t held_gpus;	/* GPUs the reservations need, summed */
};

/* Open the book and plan again the reservations jobs held (allocate, before it places anything). */
void gt_reserve_begin(struct gt_session *s);
/* Allocate popped @job: remember its queue has a head now. Returns whether it was the head. */
bool gt_reserve_popped(struct gt_session *s, int32_t job);
/* Allocate could not place @job (@head: first of its queue): reserve for it if it qualifies. */
void gt_reserve_failed(struct gt_session *s, int32_t job, bool head);
/* @job was placed: its reservation ends. */
void gt_reserve_placed(struct gt_session *s, int32_t job);

/*
 * Shrink the @idle and @releasing whole GPUs of @node by what is held there
 * from @pod (placement's fit). Held GPUs come out of idle first. O(1) when
 * nothing is held on the node.
 */
void gt_reserve_shrink(struct gt_session *s, int32_t pod, int32_t node, int32_t *idle,
		       int32_t *releasing);

/* Does any reservation hold GPUs this cycle? */
static inline bool gt_reserve_holding(const struct gt_session *s)
{
	return s->reserve && s->reserve->n > 0;
}

/* After allocate: add each reservation to its job's message ("...; reserved 64 GPUs on 8 nodes, ..."). */
void gt_reserve_end(struct gt_session *s);

/* @job's reservation this cycle, or NULL. */
const struct gt_reservation *gt_reserve_of(const struct gt_session *s, int32_t job);
/* reserved_since for the plan: the book's when reservations are on, else the snapshot's. */
int64_t gt_reserve_since(const struct gt_session *s, int32_t job);

/* "reserved 64 GPUs on 8 nodes, expected start 14:05" (UTC, or "when running pods end"). */
void gt_reserve_describe(const struct gt_reservation *r, char *buf, size_t cap);

/*
 * Evictions that are no action of KAI's: the pod state's evicted_by and the
 * plan's action past the actions (gt_action_name names them).
 */
#define GT_EVICT_MAX_RUNTIME ((enum gt_action)GT_N_ACTIONS)	/* ran past its maximum run time */
#define GT_EVICT_BACKFILL ((enum gt_action)(GT_N_ACTIONS + 1))	/* backfilled a reservation that starts */

/*
 * Evict every pod of each job that has run past its maximum run time
 * (from its last start) in a queue that enforces it (gantry.dev/enforce-max-runtime
 * on the queue or an ancestor). Before the actions; nothing when no queue enforces.
 */
void gt_max_runtime_evict(struct gt_session *s);
/* Was @job evicted for its run time this cycle? */
bool gt_max_runtime_evicted(const struct gt_session *s, int32_t job);

/* KAI-style words for an eviction of ours (GT_EVICT_*), "" for others. */
void gt_reserve_eviction_message(const struct gt_session *s, int32_t pod, char *buf, size_t len);

/*
 * GPUs of running pods on reservations' nodes that backfill them: pods of
 * jobs other than the holder that started after the reservation began.
 */
int64_t gt_reserve_backfilled_gpus(const struct gt_session *s);

#endif /* GT_RESERVE_H */
