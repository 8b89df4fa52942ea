/*
 * fairshare.h - KAI's proportion division of cluster resources over queues
 *
 * For every resource independently, top-level queues divide the cluster
 * total and each queue's children divide their parent's fair share:
 *   1. deserved phase: each queue gets min(quota, requestable);
 *   2. over-quota phase: what is left goes to unsatisfied queues by
 *      descending queue priority, and within one priority by over-quota
 *      weight in rounds of water-filling, in whole units (1 GPU, 1 mCPU,
 *      1 byte) - a queue never gets more than it requests or its limit;
 *   3. leftovers: queues whose portion was rounded down get one more unit
 *      each, largest remainder first, then the older queue.
 * KAI-SPEC 6.3 is the reference, with its worked example in
 * tests/unit/test_fairshare.c.
 */
#ifndef GT_FAIRSHARE_H
#define GT_FAIRSHARE_H

#include "core/session.h"

/* Fill s->queues[*].fair_share from requests, quotas and s->total. */
void gt_fairshare_compute(struct gt_session *s);

/* max(deserved, fair share) capped by the limit; the limit (or -1) if deserved is -1. */
int64_t gt_queue_allocatable_share(const struct gt_session *s, int32_t q, int r);

#endif /* GT_FAIRSHARE_H */
