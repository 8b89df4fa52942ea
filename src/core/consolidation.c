/*
 * consolidation.c - make room for a pending job by moving running pods
 *
 * A pending preemptible job that fits nowhere may move other preemptible
 * pods to other nodes (or other shared GPUs), but only if every moved pod
 * finds a new place: nobody loses their allocation. It cannot create
 * capacity, so the cluster's free and freeing GPUs must already cover the
 * job. At most max-consolidation-preemptees victim jobs are considered per
 * attempt. Off when a placement strategy is spread (as KAI's operator
 * configures it): spreading and defragmenting pull in opposite directions.
 */
#include <stdlib.h>

#include "core/actions.h"
#include "core/order.h"
#include "core/solver.h"
#include "util/mem.h"

static bool consolidation_victim(struct gt_solver *sv, int32_t job)
{
	(void)sv;
	(void)job;
	return true;	/* any preemptible job with active pods, in any queue */
}

static bool everyone_moved(struct gt_solver *sv, const int32_t *victims, uint32_t n,
			   const int32_t *tasks, uint32_t n_tasks)
{
	(void)sv;
	(void)victims;
	(void)tasks;
	(void)n_tasks;
	return n == 0;	/* no victim may be left evicted without a new place */
}

static bool enough_gpus(const struct gt_session *s, int32_t job, const int64_t req[GT_NQRES])
{
	(void)req;
	int32_t *tasks = gt_xmalloc((s->c->jobs[job].n_pods + 1) * sizeof(*tasks));
	uint32_t n = gt_tasks_to_allocate(s, job, tasks);
	int64_t want = 0;
	for (uint32_t i = 0; i < n; i++)
		want += gt_pod_requested_gpu_milli(s->c, tasks[i]) +
			(s->c->pods[tasks[i]].gpu_mem_mib ? 1 : 0);
	free(tasks);
	int64_t free_milli = 0;
	for (uint32_t node = 0; node < s->c->n_nodes; node++) {
		free_milli += 1000LL * (gt_node_idle_gpus(s, (int32_t)node) +
					gt_node_releasing_gpus(s, (int32_t)node));
		for (uint32_t g = 0; g < s->nodes[node].n_groups; g++) {
			const struct gt_gpu_group *gg = &s->nodes[node].groups[g];
			free_milli += 1000 - gg->used_milli + gg->releasing_milli;
		}
	}
	return free_milli >= want;
}

static bool preemptible_job(const struct gt_session *s, int32_t job)
{
	return s->c->jobs[job].preemptible;
}

void gt_action_consolidation(struct gt_session *s)
{
	const struct gt_config *cfg = &s->c->config;
	if (cfg->max_consolidation_preemptees == 0 || cfg->gpu_spread || cfg->cpu_spread)
		return;
	struct gt_solver tmpl = { .is_victim = consolidation_victim, .validate = everyone_moved,
				  .max_victim_jobs = cfg->max_consolidation_preemptees };
	gt_solve_each(s, &tmpl, preemptible_job, enough_gpus);
}
