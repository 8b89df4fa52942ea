#include "core/minruntime.h"

#include <string.h>

#include "core/order.h"

int64_t gt_preempt_min_runtime(const struct gt_session *s, int32_t victim_job)
{
	const struct gt_cluster *c = s->c;
	for (int32_t q = c->jobs[victim_job].queue; q != GT_NONE; q = c->queues[q].parent)
		if (c->queues[q].preempt_min_runtime_s >= 0)
			return c->queues[q].preempt_min_runtime_s;
	return c->config.preempt_min_runtime_s;
}

int64_t gt_reclaim_min_runtime(const struct gt_session *s, int32_t reclaimer_job,
			       int32_t victim_job)
{
	const struct gt_cluster *c = s->c;
	int32_t a[64], b[64];
	uint32_t na = gt_queue_path(c, c->jobs[reclaimer_job].queue, a);
	uint32_t nb = gt_queue_path(c, c->jobs[victim_job].queue, b);
	uint32_t i = 0;
	while (i < na && i < nb && a[i] == b[i])
		i++;
	/* one level below the common ancestor, on the victim's side */
	int32_t start = i < nb ? b[i] : (nb ? b[nb - 1] : GT_NONE);
	for (int32_t q = start; q != GT_NONE; q = c->queues[q].parent)
		if (c->queues[q].reclaim_min_runtime_s >= 0)
			return c->queues[q].reclaim_min_runtime_s;
	return c->config.reclaim_min_runtime_s;
}

bool gt_job_is_elastic(const struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	int32_t n[GT_MAX_PODSETS];
	memset(n, 0, j->n_podsets * sizeof(*n));
	for (uint32_t i = 0; i < j->n_pods; i++)
		n[s->c->pods[j->pods[i]].podset]++;
	for (uint32_t i = 0; i < j->n_podsets; i++)
		if (n[i] > j->podsets[i].min_member)
			return true;
	return false;
}

bool gt_job_protected(const struct gt_session *s, int32_t job, int64_t min_runtime_s)
{
	int64_t start = s->jobs[job].last_start;
	return start > 0 && min_runtime_s > 0 && s->now < start + min_runtime_s;
}

bool gt_min_runtime_valid(const struct gt_session *s, int32_t reclaimer, bool reclaim,
			  const int32_t *victims, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		int32_t job = s->c->pods[victims[i]].job;
		int64_t rt = reclaim ? gt_reclaim_min_runtime(s, reclaimer, job)
				     : gt_preempt_min_runtime(s, job);
		if (!gt_job_protected(s, job, rt))
			continue;
		const struct gt_job *j = &s->c->jobs[job];
		struct gt_podset_count cnt[GT_MAX_PODSETS];
		gt_job_count(s, job, cnt);
		for (uint32_t k = 0; k < j->n_podsets; k++)
			if (cnt[k].active_allocated < j->podsets[k].min_member)
				return false;
	}
	return true;
}
