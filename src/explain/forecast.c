#include "explain/forecast.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/actions.h"
#include "core/plan.h"
#include "sim/simulate.h"
#include "util/mem.h"

#define DEFAULT_MAX_CYCLES 5000
#define DEFAULT_HORIZON_S (400 * 86400LL)
#define EVICT_GRACE_S 30	/* a victim leaves after Kubernetes' default grace period */

static const char *const source_names[GT_N_END_SOURCES] = {
	[GT_END_UNKNOWN] = "unknown",
	[GT_END_ANNOTATION] = "gantry.dev/expected-runtime",
	[GT_END_POD_DEADLINE] = "the pod's activeDeadlineSeconds",
	[GT_END_JOB_DEADLINE] = "its Job's activeDeadlineSeconds",
	[GT_END_RELEASING] = "its termination grace period",
	[GT_END_MAX_RUNTIME] = "gantry.dev/max-runtime",
};

const char *gt_end_source_name(enum gt_end_source s)
{
	return (unsigned)s < GT_N_END_SOURCES ? source_names[s] : "";
}

void gt_ends_init(struct gt_ends *e, const struct gt_cluster *c)
{
	e->end = gt_xcalloc(c->n_pods + 1, sizeof(*e->end));
	e->end_source = gt_xcalloc(c->n_pods + 1, sizeof(*e->end_source));
	e->runtime = gt_xcalloc(c->n_jobs + 1, sizeof(*e->runtime));
	e->runtime_source = gt_xcalloc(c->n_jobs + 1, sizeof(*e->runtime_source));
	e->deadline = gt_xcalloc(c->n_jobs + 1, sizeof(*e->deadline));
}

void gt_ends_release(struct gt_ends *e)
{
	free(e->end);
	free(e->end_source);
	free(e->runtime);
	free(e->runtime_source);
	free(e->deadline);
}

static bool is_deadline(enum gt_end_source s)
{
	return s == GT_END_POD_DEADLINE || s == GT_END_JOB_DEADLINE || s == GT_END_MAX_RUNTIME;
}

/* Pods the cycle bound end after their job's run time, or at its deadline. */
static void start_bound(const struct gt_cluster *c, struct gt_ends *ends, const struct gt_plan *plan,
			int64_t t)
{
	for (uint32_t i = 0; i < plan->n_binds; i++) {
		int32_t pod = plan->binds[i].pod, job = c->pods[pod].job;
		ends->end[pod] = 0;
		ends->end_source[pod] = GT_END_UNKNOWN;
		if (job == GT_NONE)
			continue;
		if (ends->runtime[job] > 0) {
			ends->end[pod] = t + ends->runtime[job];
			ends->end_source[pod] = ends->runtime_source[job];
		}
		int64_t dl = ends->deadline[job];
		if (dl > 0 && (!ends->end[pod] || dl < ends->end[pod])) {
			ends->end[pod] = dl > t ? dl : t + 1;
			ends->end_source[pod] = GT_END_JOB_DEADLINE;
		}
	}
}

/*
 * The cycle's victims leave after a grace period, then their controllers
 * recreate them pending (gt_sim_advance recreates them at once: undone here).
 */
static void evict(struct gt_cluster *c, struct gt_ends *ends, bool *recreate, const struct gt_plan *plan,
		  const struct gt_pod *before, int64_t t)
{
	for (uint32_t i = 0; i < plan->n_evictions; i++) {
		int32_t pod = plan->evictions[i].pod;
		c->pods[pod] = before[i];
		c->pods[pod].status = GT_RELEASING;
		ends->end[pod] = t + EVICT_GRACE_S;
		ends->end_source[pod] = GT_END_RELEASING;
		recreate[pod] = true;
	}
}

static bool holds_room(enum gt_status st)
{
	return gt_status_active_used(st);
}

/* The earliest expected end after @t of a pod that holds room; 0: none. Counts the others. */
static int64_t next_end(const struct gt_cluster *c, const struct gt_ends *ends, int64_t t,
			uint32_t *unknown)
{
	int64_t next = 0;
	*unknown = 0;
	for (uint32_t p = 0; p < c->n_pods; p++) {
		if (!holds_room(c->pods[p].status))
			continue;
		int64_t e = ends->end[p];
		if (!e) {
			(*unknown)++;
			continue;
		}
		if (e <= t)
			e = t + 1;
		if (!next || e < next)
			next = e;
	}
	/* a job's preemption delay ends: from then it may evict to make room */
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		int64_t d = gt_job_preemption_delay_end(&c->jobs[j]);
		if (d > t && (!next || d < next))
			next = d;
	}
	return next;
}

/*
 * Pods whose end has come leave (a victim comes back pending); the last to
 * leave is remembered as the one that made room.
 */
static void leave(struct gt_cluster *c, struct gt_ends *ends, bool *recreate, int64_t t, struct gt_forecast *out)
{
	for (uint32_t p = 0; p < c->n_pods; p++) {
		struct gt_pod *pod = &c->pods[p];
		if (!holds_room(pod->status) || !ends->end[p] || ends->end[p] > t)
			continue;
		pod->status = recreate[p] ? GT_PENDING : GT_SUCCEEDED;
		pod->node = GT_NONE;
		pod->n_groups = 0;
		ends->end[p] = 0;
		recreate[p] = false;
		out->ended++;
		out->last_pod = (int32_t)p;
		out->last_source = ends->end_source[p];
		out->upper_bound |= is_deadline(ends->end_source[p]);
		snprintf(out->last_pod_name, sizeof(out->last_pod_name), "%s/%s",
			 gt_strtab_str(c->names, pod->ns), gt_strtab_str(c->names, pod->name));
	}
}

/* Is the whole gang of @job placed to run now (bound, not waiting pipelined)? */
static bool placed_whole(const struct gt_cluster *c, const struct gt_plan *plan, int32_t job)
{
	if (!plan->jobs[job].scheduled)
		return false;
	for (uint32_t i = 0; i < plan->n_pipelines; i++)
		if (c->pods[plan->pipelines[i].pod].job == job)
			return false;
	return true;
}

/* One cycle at @t: true when @job was placed whole; @moved when anything was bound or evicted. */
static bool cycle(struct gt_cluster *c, struct gt_ends *ends, bool *recreate, int32_t job, int64_t t,
		  unsigned actions, bool *moved)
{
	struct gt_session s;
	struct gt_plan plan;
	gt_cycle_run(&s, c, t, actions);
	gt_plan_build(&plan, &s, NULL);
	bool started = placed_whole(c, &plan, job);
	*moved = plan.n_binds || plan.n_evictions;
	if (!started) {
		struct gt_pod *before = gt_xmalloc((plan.n_evictions + 1) * sizeof(*before));
		for (uint32_t i = 0; i < plan.n_evictions; i++)
			before[i] = c->pods[plan.evictions[i].pod];
		start_bound(c, ends, &plan, t);
		gt_sim_advance(c, &plan);
		evict(c, ends, recreate, &plan, before, t);
		free(before);
	}
	gt_plan_release(&plan);
	gt_session_release(&s);
	return started;
}

void gt_forecast_run(struct gt_cluster *c, struct gt_ends *ends, int32_t job,
		     const struct gt_forecast_opts *o, struct gt_forecast *out)
{
	*out = (struct gt_forecast){ .last_pod = GT_NONE, .last_source = GT_END_UNKNOWN };
	uint32_t max_cycles = o->max_cycles ? o->max_cycles : DEFAULT_MAX_CYCLES;
	int64_t horizon = o->now + (o->horizon_s ? o->horizon_s : DEFAULT_HORIZON_S);
	bool *recreate = gt_xcalloc(c->n_pods + 1, sizeof(*recreate));
	for (int64_t t = o->now; out->cycles < max_cycles; out->cycles++) {
		bool moved;
		if (cycle(c, ends, recreate, job, t, o->actions, &moved)) {
			out->estimated = true;
			out->start = t;
			free(recreate);
			return;
		}
		int64_t next = moved ? t + 1 : next_end(c, ends, t, &out->unknown_pods);
		if (!next) {
			if (out->unknown_pods)
				snprintf(out->why_not, sizeof(out->why_not),
					 "it still waits once every pod with a known end has left, and %u pod(s) "
					 "hold room with no known end", out->unknown_pods);
			else
				snprintf(out->why_not, sizeof(out->why_not),
					 "it still waits with nothing left to end: it cannot start in this cluster as it is");
			free(recreate);
			return;
		}
		if (next > horizon) {
			snprintf(out->why_not, sizeof(out->why_not),
				 "it still waits %lld days ahead, the forecast's horizon",
				 (long long)((horizon - o->now) / 86400));
			free(recreate);
			return;
		}
		t = next;
		leave(c, ends, recreate, t, out);
	}
	free(recreate);
	snprintf(out->why_not, sizeof(out->why_not),
		 "the cluster did not settle within %u cycles (evictions going round?)", max_cycles);
}
