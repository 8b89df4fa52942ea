/*
 * solver.h - KAI's job solver, shared by reclaim, preempt and consolidation
 *
 * Finds victims for a pending job (the preemptor) and a placement for it
 * over the resources they free, entirely inside the session's statement:
 *
 *   for k = 1..n (the job's tasks to allocate):            incremental
 *     solve the partial job of its first k tasks, starting from the victims
 *     recorded for k-1 and adding victim jobs one at a time from the victim
 *     queue (most over-served queue, lowest priority, newest job first; an
 *     elastic victim above its minimum gives one pod at a time);
 *     a scenario is tried node by node of its newest victim: evict, then
 *     simulate - victims and preemptor are placed again in queue order,
 *     pipeline only; a victim that fits back where it was is un-evicted, one
 *     that fits elsewhere moves, the rest are the real victims;
 *     the action's validator judges the scenario (fair share for reclaim,
 *     min-runtime, "everyone moved" for consolidation).
 *
 * On success the statement holds the evictions and the preemptor's
 * pipelined placement; the action commits it. The preemptor is never bound
 * in the cycle its victims are evicted.
 */
#ifndef GT_SOLVER_H
#define GT_SOLVER_H

#include "core/session.h"

struct gt_solver;

/* May @job give up resources to the preemptor? */
typedef bool (*gt_victim_filter)(struct gt_solver *sv, int32_t job);
/* Is the scenario now in the session acceptable? @victims are the evicted pods. */
typedef bool (*gt_scenario_validator)(struct gt_solver *sv, const int32_t *victims, uint32_t n,
				      const int32_t *tasks, uint32_t n_tasks);

struct gt_solver {
	struct gt_session *s;
	int32_t job;			/* the preemptor */
	gt_victim_filter is_victim;
	gt_scenario_validator validate;	/* NULL: every simulated scenario is fine */
	int32_t max_victim_jobs;	/* < 0: no cap (consolidation caps it) */
	void *ctx;			/* the action's own state for its callbacks */
	/* queue state as the solution started (reclaim judges against it) */
	struct gt_queue_state *queues_at_start;
};

/*
 * Solve for sv->job. Returns true with the solution left in the statement
 * after the checkpoint taken on entry; false with nothing changed.
 */
bool gt_solve(struct gt_solver *sv);

/*
 * The victim-based actions' loop: every pending, ready job (that passes
 * @candidate, if given) in queue-tree order, whose tasks' request passes
 * @gate (if given), is solved with a copy of @tmpl; solutions are committed.
 */
void gt_solve_each(struct gt_session *s, const struct gt_solver *tmpl,
		   bool (*candidate)(const struct gt_session *s, int32_t job),
		   bool (*gate)(const struct gt_session *s, int32_t job, const int64_t req[GT_NQRES]));

/* Place @tasks of @job; in a simulation pipeline-only on @nodes (shared with allocate). */
bool gt_place_tasks(struct gt_session *s, int32_t job, const int32_t *tasks, uint32_t n,
		    bool pipeline_only, const int32_t *nodes, uint32_t n_nodes);
/* The limit and non-preemptible-quota guards; @record sets the job's message. */
bool gt_queue_guards_pass(struct gt_session *s, int32_t job, const int64_t req[GT_NQRES],
			  bool record);

#endif /* GT_SOLVER_H */
