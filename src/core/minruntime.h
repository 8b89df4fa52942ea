/*
 * minruntime.h - a job that just started is not taken down at once
 *
 * A victim job is protected while now < its last start + the minimum
 * runtime that applies to it. Preempt: the first preemptMinRuntime walking
 * from the victim's queue to the root, else the shard default. Reclaim
 * (KAI's "lca" method): below the lowest common ancestor of the two queues,
 * one level down towards the victim, the first reclaimMinRuntime walking up
 * from there, else the shard default. A protected job that is not elastic
 * is no victim at all; an elastic one may only lose pods above its minimum.
 */
#ifndef GT_MINRUNTIME_H
#define GT_MINRUNTIME_H

#include "core/session.h"

int64_t gt_preempt_min_runtime(const struct gt_session *s, int32_t victim_job);
int64_t gt_reclaim_min_runtime(const struct gt_session *s, int32_t reclaimer_job,
			       int32_t victim_job);
bool gt_job_is_elastic(const struct gt_session *s, int32_t job);
bool gt_job_protected(const struct gt_session *s, int32_t job, int64_t min_runtime_s);
/*
 * Do the protected elastic victims among @victims (evicted pods) keep their
 * minimum? @reclaimer is the job taking the resources; @reclaim selects the
 * reclaim runtime, else preempt.
 */
bool gt_min_runtime_valid(const struct gt_session *s, int32_t reclaimer, bool reclaim,
			  const int32_t *victims, uint32_t n);

#endif /* GT_MINRUNTIME_H */
