/*
 * usage.h - the queues' usage history, for KAI's time-based fair share
 *
 * KAI v0.17 weighs each queue's over-quota share by its past usage
 * (proportion's resource_division.go, calcShareWeights):
 *
 *	weight_q = max(0, w_q + k * (w_q - u_q))
 *
 * where w_q is the queue's over-quota weight over the total weight of its
 * unsatisfied siblings, k the shard's kValue and u_q the queue's usage: its
 * allocation summed over the usage window, each moment weighed by
 * 0.5^(age / halfLife) when a half-life is set, over the cluster's capacity
 * summed the same way (KAI's Prometheus client, usagedb/prometheus):
 *
 *	u_q = sum_t alloc_q(t) * 0.5^((now - t) / hl)
 *	      -----------------------------------------
 *	      sum_t capacity(t) * 0.5^((now - t) / hl)
 *
 * KAI reads both sums from Prometheus. Gantry keeps them itself, from its
 * own allocations: after each cycle the front end sets every queue's
 * allocation (gt_usage_set_rates), and before the next it integrates those
 * rates up to its clock (gt_usage_advance): the wall clock in `gantry
 * scheduler`, the virtual one in simulate, replay and `fairshare
 * --over-time`. The integrals go into time buckets of width bucket_s (a
 * ring of n_slots), so memory does not grow with time; the bucket width is
 * one second for windows of up to 512 s (KAI's time-based simulator: one
 * sample per second, the same numbers) and window/512 above, the horizon
 * cut to 20 half-lives when a half-life is set (older usage weighs under a
 * millionth). A bucket's decay is taken at its start.
 *
 * Windows (usageParams.windowType): sliding, the last windowSize; tumbling,
 * since the latest tumblingWindowStartTime + n * windowSize strictly before
 * now; cron, since the schedule's latest firing strictly before now.
 *
 * Pure: no clock, no I/O. Persisting a history (the scheduler keeps it in a
 * ConfigMap) is the front end's business; the fields below are its format.
 */
#ifndef GT_USAGE_H
#define GT_USAGE_H

#include "core/session.h"
#include "util/smap.h"

struct gt_usage_queue {
	char *name;
	double rate[GT_NQRES];	/* allocation now: milli-GPU, milli-CPU, bytes */
	double *sum;		/* [n_slots][GT_NQRES]: allocation x seconds per bucket */
};

struct gt_usage_history {
	int64_t bucket_s;	/* bucket width, seconds */
	uint32_t n_slots;	/* ring size */
	int64_t newest;		/* bucket number (time / bucket_s) of the newest bucket */
	int64_t until;		/* integrated up to this time; 0: nothing recorded yet */
	double cap_rate[GT_NQRES];	/* the cluster's capacity now */
	double *cap;		/* [n_slots][GT_NQRES]: capacity x seconds per bucket */
	struct gt_usage_queue *queues;
	uint32_t n_queues, cap_queues;
	struct gt_smap by_name;	/* name -> index + 1 */
};

/* An empty history whose buckets suit @p (at @now, for a cron schedule's period). */
void gt_usage_init(struct gt_usage_history *h, const struct gt_usage_params *p, int64_t now);
void gt_usage_release(struct gt_usage_history *h);
/*
 * Make @h's buckets suit @p (after the shard changed): a history whose
 * bucket width differs is re-bucketed, each old bucket's sums going to the
 * new bucket its start falls in.
 */
void gt_usage_configure(struct gt_usage_history *h, const struct gt_usage_params *p, int64_t now);
/* The queue named @name (added, rates 0, when new). */
struct gt_usage_queue *gt_usage_queue(struct gt_usage_history *h, const char *name);
/*
 * Integrate the current rates from h->until up to @now (the first call
 * only starts the clock). A clock that goes back is ignored.
 */
void gt_usage_advance(struct gt_usage_history *h, int64_t now);
/*
 * The rates from now on: every queue's allocation in @s as its actions
 * left it - its pods Allocated, Binding, Bound or Running, parents
 * summing their children (KAI's queue status); a pipelined pod uses
 * nothing yet and an evicted one is going - and the capacity of @s's
 * cluster (every node's allocatable). Queues not in the cluster any more
 * go to 0.
 */
void gt_usage_set_rates(struct gt_usage_history *h, const struct gt_session *s);
/* Every queue's usage at @now (c->queues[q].usage): 0 for a queue the history does not know. */
void gt_usage_apply(const struct gt_usage_history *h, const struct gt_usage_params *p,
		    struct gt_cluster *c, int64_t now);
/* The window's start at @now under @p (what gt_usage_apply sums from). */
int64_t gt_usage_window_start(const struct gt_usage_history *h, const struct gt_usage_params *p,
			      int64_t now);

#endif /* GT_USAGE_H */
