/*
 * preempt.c - inside one queue, higher priority displaces lower
 *
 * Victims are preemptible jobs of the same queue with strictly lower
 * priority (min-runtime protections apply). Fair share plays no part; a
 * non-preemptible preemptor must still fit within its queue's quota.
 */
#include <stdlib.h>

#include "core/actions.h"
#include "core/minruntime.h"
#include "core/order.h"
#include "core/solver.h"
#include "util/mem.h"

static bool preempt_victim(struct gt_solver *sv, int32_t job)
{
	const struct gt_session *s = sv->s;
	const struct gt_job *v = &s->c->jobs[job], *p = &s->c->jobs[sv->job];
	if (v->queue != p->queue || v->priority >= p->priority)
		return false;
	return gt_job_is_elastic(s, job) ||
	       !gt_job_protected(s, job, gt_preempt_min_runtime(s, job));
}

static bool preempt_valid(struct gt_solver *sv, const int32_t *victims, uint32_t n,
			  const int32_t *tasks, uint32_t n_tasks)
{
	(void)tasks;
	(void)n_tasks;
	return gt_min_runtime_valid(sv->s, sv->job, false, victims, n);
}

/* A non-preemptible preemptor must fit within quota, on every level. */
static bool within_quota(const struct gt_session *s, int32_t job, const int64_t req[GT_NQRES])
{
	const struct gt_cluster *c = s->c;
	if (c->jobs[job].preemptible)
		return true;
	for (int32_t q = c->jobs[job].queue; q != GT_NONE; q = c->queues[q].parent)
		for (int r = 0; r < GT_NQRES; r++)
			if (req[r] > 0 && c->queues[q].deserved[r] >= 0 &&
			    s->queues[q].allocated_np[r] + req[r] > c->queues[q].deserved[r])
				return false;
	return true;
}

/* Victims come from the preemptor's own queue only. */
static bool preempt_victim_queue(struct gt_solver *sv, int32_t q)
{
	return sv->s->c->jobs[sv->job].queue == q;
}

/*
 * No job of the preemptor's queue has a lower priority: no victim in any
 * scenario (a queue of one priority, as every job of a trace often is).
 */
static bool no_lower_priority(const struct gt_solver *sv, int32_t job)
{
	const int32_t *lowest = sv->ctx;	/* per queue: the lowest priority of its jobs */
	const struct gt_job *j = &sv->s->c->jobs[job];
	return j->queue != GT_NONE && lowest[j->queue] >= j->priority;
}

void gt_action_preempt(struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	int32_t *lowest = gt_xmalloc((c->n_queues + 1) * sizeof(*lowest));
	for (uint32_t q = 0; q < c->n_queues; q++)
		lowest[q] = INT32_MAX;
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		int32_t q = c->jobs[j].queue;
		if (q != GT_NONE && c->jobs[j].priority < lowest[q])
			lowest[q] = c->jobs[j].priority;
	}
	struct gt_solver tmpl = { .is_victim = preempt_victim, .validate = preempt_valid,
				  .victim_queue = preempt_victim_queue, .lower_priority_only = true,
				  .max_victim_jobs = -1, .ctx = lowest, .no_victim = no_lower_priority };
	gt_solve_each(s, &tmpl, NULL, within_quota);
	free(lowest);
}
