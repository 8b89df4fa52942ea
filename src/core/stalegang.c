/*
 * stalegang.c - a gang that lost members is cleaned up
 *
 * A job is stale when it has no succeeded pod, holds at least one pod, and
 * some podset has fewer active pods than its minimum (a member crashed or
 * was deleted). The first cycle that sees it stale records the time (the
 * kai.scheduler/stale-podgroup-timestamp annotation); once it has been stale
 * for the grace period (the PodGroup's spec.stalenessGracePeriod, else the
 * shard's default), every pod it still runs is evicted so the whole gang
 * can start again. A negative grace period never evicts. Evictions here are
 * direct: there is nothing to roll back.
 */
#include "core/actions.h"
#include "core/order.h"

static bool job_is_stale(const struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	struct gt_podset_count cnt[GT_MAX_PODSETS];
	gt_job_count(s, job, cnt);
	int32_t active = 0;
	for (uint32_t i = 0; i < j->n_pods; i++)
		if (s->pods[j->pods[i]].status == GT_SUCCEEDED)
			return false;
	for (uint32_t i = 0; i < j->n_podsets; i++)
		active += cnt[i].active_used;
	return active > 0 && !gt_gang_met_counts(j, cnt, GT_COUNT(active_used));
}

void gt_action_stalegang(struct gt_session *s)
{
	for (uint32_t job = 0; job < s->c->n_jobs; job++) {
		struct gt_job_state *js = &s->jobs[job];
		const struct gt_job *j = &s->c->jobs[job];
		int64_t grace = j->has_staleness_grace ? j->staleness_grace_s : s->c->config.staleness_grace_s;
		if (!job_is_stale(s, (int32_t)job)) {
			js->stale_since = 0;
			continue;
		}
		if (!js->stale_since)
			js->stale_since = s->now;
		if (grace < 0 || s->now - js->stale_since < grace)
			continue;
		for (uint32_t i = 0; i < j->n_pods; i++)
			if (gt_status_active_allocated(s->pods[j->pods[i]].status))
				gt_session_evict_now(s, j->pods[i]);
		js->stale_evicted = true;
	}
}
