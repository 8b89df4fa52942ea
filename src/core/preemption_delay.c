/*
 * preemption_delay.c - a workload waits before it may evict others
 *
 * KAI v0.17's PodGroup spec.preemptionDelay: for that long after the later of
 * its creation and its last eviction (the kai.scheduler/last-eviction-timestamp
 * annotation the scheduler writes), a job may be placed on free capacity by
 * allocate but may not trigger evictions through preempt, reclaim or
 * consolidation. Re-arming on eviction keeps a workload that was just evicted
 * from immediately evicting someone else in return.
 */
#include <stdio.h>
#include <string.h>

#include "core/actions.h"
#include "core/session.h"
#include "util/time.h"

int64_t gt_job_preemption_delay_end(const struct gt_job *j)
{
	if (!j->has_preemption_delay || j->preemption_delay_s <= 0)
		return 0;
	int64_t anchor = j->last_eviction > j->created ? j->last_eviction : j->created;
	return anchor + j->preemption_delay_s;
}

bool gt_job_may_trigger_evictions(struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	char missing[512];
	if (gt_job_misses_configmaps(s, job, missing, sizeof(missing)))
		return false;	/* it could not start where room is made: allocate said why */
	int64_t end = gt_job_preemption_delay_end(j);
	if (!end || s->now >= end)
		return true;
	/* KAI's PreemptionDelayNotElapsed fit error, said once however many actions ask */
	const char *had = s->jobs[job].message;
	if (had && strstr(had, "preemption delay window"))
		return false;
	char until[GT_TIME_LEN], delay[GT_DURATION_GO_MAX], msg[1024];
	gt_time_format(end, until, sizeof(until));
	gt_duration_format_go(j->preemption_delay_s * 1000000000, delay);
	snprintf(msg, sizeof(msg), "%s%sWorkload is within its preemption delay window (%s) and may not "
		 "trigger evictions before %s",
		 had ? had : "", had ? "; " : "", delay, until);
	gt_job_set_message(s, job, msg);
	return false;
}
