/*
 * actions.h - the scheduling actions and the cycle that runs them
 *
 * A cycle opens a session over the snapshot, computes fair shares, runs the
 * enabled actions in KAI's order (allocate, consolidation, reclaim, preempt,
 * stalegangeviction) and leaves the outcome in the session: pod states
 * (Binding, Pipelined, Releasing), job messages, last-start and staleness
 * times, queue fair shares.
 */
#ifndef GT_ACTIONS_H
#define GT_ACTIONS_H

#include "core/session.h"

#define GT_ACTIONS_ALL ((1u << GT_ACT_ALLOCATE) | (1u << GT_ACT_CONSOLIDATION) | \
			(1u << GT_ACT_RECLAIM) | (1u << GT_ACT_PREEMPT) | (1u << GT_ACT_STALEGANG))

const char *gt_action_name(enum gt_action a);
/* GT_ACT_NONE if @name is not an action. */
enum gt_action gt_action_from_name(const char *name);
/*
 * A list of action names separated by commas and/or spaces ("allocate,
 * reclaim") as a mask. -1 on a name that is none, copied into @bad (@cap
 * bytes at most) for the caller's message.
 */
int gt_actions_parse(const char *list, unsigned *mask, char *bad, size_t cap);
/* The same for a command-line flag (util/flags.h GT_FLAG_FUNC, @mask an unsigned): an empty list is refused. */
int gt_actions_flag(const char *list, void *mask, char *why, size_t why_len);

void gt_action_allocate(struct gt_session *s);
void gt_action_consolidation(struct gt_session *s);
void gt_action_reclaim(struct gt_session *s);
void gt_action_preempt(struct gt_session *s);
void gt_action_stalegang(struct gt_session *s);

/* Has a pending pod of ours, a leaf queue that exists, and enough pods for its gang. */
bool gt_job_pending_ready(const struct gt_session *s, int32_t job);

/* The end of @j's preemption delay (spec.preemptionDelay after the later of its
 * creation and last eviction), or 0 when it has none. */
int64_t gt_job_preemption_delay_end(const struct gt_job *j);
/* May @job evict others now (preempt, reclaim, consolidation)? Not within its
 * preemption delay (its message says until when: KAI's PreemptionDelayNotElapsed),
 * nor while it misses a ConfigMap. */
bool gt_job_may_trigger_evictions(struct gt_session *s, int32_t job);

/*
 * Job @job waits for a claim of its pod @pod (a PersistentVolumeClaim's
 * problem, or a DRA claim's): the reason and KAI's message on the job.
 * @prefilter: allocate's VolumeBinding wording, else the victim search's.
 */
void gt_job_claim_blocked(struct gt_session *s, int32_t job, int32_t pod, bool prefilter);
/* Does a pending pod of @job need a ConfigMap that does not exist (KAI's ConfigMap
 * predicate)? @msg then says which. Such a job is neither placed nor evicts. */
bool gt_job_misses_configmaps(const struct gt_session *s, int32_t job, char *msg, size_t cap);

/* Run action @a on @s, open and with fair shares computed (what gt_cycle_run does in between). */
void gt_action_run(struct gt_session *s, enum gt_action a);

/* Open @s over @c and run the actions in @mask. Release with gt_session_release(). */
void gt_cycle_run(struct gt_session *s, const struct gt_cluster *c, int64_t now, unsigned mask);

#endif /* GT_ACTIONS_H */
