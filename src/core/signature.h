/*
 * signature.h - KAI's scheduling signatures: skip jobs no easier than one that failed
 *
 * KAI v0.17's preempt, reclaim and consolidation keep, per action (and per
 * queue for preempt and reclaim), the smallest job that failed for each
 * scheduling-constraints signature, and skip a later job with the same
 * signature that is not easier to schedule than it (KAI's
 * MinimalJobRepresentatives, on by default in KAI's scheduler binary:
 * --use-scheduling-signatures; off in KAI's unit-test harness).
 *
 * A signature covers what constrains where a job's pods may go, not how
 * much they ask for: each pod's node selector, required node affinity, pod
 * (anti-)affinity, tolerations, priority and a missing claim; each podset's
 * topology constraints up to the job's; the podsets' pods that are not yet
 * active. Pods of the same job are a multiset: their order does not count.
 * KAI hashes with SHA-256; this is a 64-bit mix (a collision between two
 * different constraint sets in one cycle is the only way to differ).
 */
#ifndef GT_SIGNATURE_H
#define GT_SIGNATURE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/session.h"

uint64_t gt_job_signature(const struct gt_session *s, int32_t job);
/* One pod's part of it: its node selector, affinities, tolerations, priority, missing claim. */
uint64_t gt_pod_signature(const struct gt_cluster *c, int32_t pod);

/* The smallest failed job per (queue, signature); queue GT_NONE for all queues. */
struct gt_failed_jobs {
	struct gt_failed_slot *slots;
	uint32_t mask;		/* capacity - 1, a power of two minus one */
	uint32_t n;
};

/* Room for up to @max_jobs representatives, from @a. */
void gt_failed_jobs_init(struct gt_failed_jobs *f, struct gt_arena *a, uint32_t max_jobs);
/*
 * KAI's IsEasierToSchedule: true when no job of @job's queue and signature
 * failed, or @job is easier than the one that did (fewer pending pods, or
 * at the first differing pod in sorted order, a request no larger).
 * O(p log p) for p pending pods of the two jobs.
 */
bool gt_failed_jobs_easier(const struct gt_failed_jobs *f, struct gt_session *s,
			   int32_t queue, uint64_t sig, int32_t job);
/* KAI's UpdateRepresentative: @job failed; keep it if its footprint is smaller. */
void gt_failed_jobs_update(struct gt_failed_jobs *f, struct gt_session *s,
			   int32_t queue, uint64_t sig, int32_t job);

#endif /* GT_SIGNATURE_H */
