/*
 * solver.h - victims and a placement for one pending job (KAI v0.17's job solver)
 *
 * Shared by reclaim, preempt and consolidation. For a pending job (the
 * preemptor) and its tasks to allocate t1..tn, the solver looks for victims
 * whose eviction lets the job be placed, entirely inside the session's
 * statement:
 *
 *   for each generator (NodeLocalGreedy, then MultiNodeGang; scenario.h):
 *     probe k = 1, 2, 4, ... (doubling) until a probe fails or k = n, then
 *     binary search between the last success and the first failure; each
 *     probe solves the partial job t1..tk starting from the victims the last
 *     successful probe recorded, and is rolled back;
 *     then solve the full job t1..tn from the largest solved probe's victims,
 *     and keep it if it works;
 *   a probe asks its generator for scenarios, skips any it already saw fail
 *   (same tasks, recorded and potential victims), and simulates the rest:
 *   evict, then place preemptor and victims again in queue order, pipeline
 *   only - a victim that fits back where it was is un-evicted, one that fits
 *   elsewhere moves, the rest are the real victims - and the action's
 *   validator judges the result (fair share for reclaim, min-runtime,
 *   "everyone moved" for consolidation).
 *
 * Time budgets per action, job and generator (budget.h) stop a search
 * between scenarios. On success the statement holds the evictions and the
 * preemptor's pipelined placement; the action commits it. The preemptor is
 * never bound in the cycle its victims are evicted.
 */
#ifndef GT_SOLVER_H
#define GT_SOLVER_H

#include "core/budget.h"
#include "core/placement.h"
#include "core/session.h"

struct gt_solver;

/* May @job give up resources to the preemptor? */
typedef bool (*gt_victim_job_filter)(struct gt_solver *sv, int32_t job);
/* May any job of leaf queue @q? (optional: lets the search skip whole queues) */
typedef bool (*gt_victim_queue_filter)(struct gt_solver *sv, int32_t q);
/* Is the scenario now in the session acceptable? @victims are the evicted pods. */
typedef bool (*gt_scenario_validator)(struct gt_solver *sv, const int32_t *victims, uint32_t n,
				      const int32_t *tasks, uint32_t n_tasks);

/*
 * The most GPU milli-units the action's validator could ever let a preemptor
 * take from victims when its tasks ask for @req (INT64_MAX: no bound known).
 * Every GPU the preemptor uses was free, freeing, or held by a victim that
 * ends evicted (a moved victim frees what it takes), so a probe asking for
 * more than this plus every free and freeing GPU cannot be valid: it is not
 * searched. Sound, not complete: when it says nothing, the search runs.
 */
typedef int64_t (*gt_victim_gpu_bound)(struct gt_solver *sv, const int64_t req[GT_NQRES]);

struct gt_solver {
	struct gt_session *s;
	int32_t job;			/* the preemptor */
	int64_t req[GT_NQRES];		/* its tasks to allocate, in queue units (set by gt_solve_each) */
	gt_victim_job_filter is_victim;
	gt_victim_queue_filter victim_queue;	/* NULL: any leaf */
	bool lower_priority_only;	/* victims have lower priority than the preemptor (preempt) */
	gt_scenario_validator validate;	/* NULL: every simulated scenario is fine */
	int32_t max_victim_jobs;	/* < 0: no cap (consolidation caps it) */
	gt_victim_gpu_bound victim_gpu_bound;	/* NULL: none */
	void *ctx;			/* the action's own state for its callbacks */
	/*
	 * Optional: true when no job can be @job's victim in this action, in
	 * any scenario (its search would end exhausted before simulating one).
	 * gt_solve_each does not search such jobs when that cannot change the
	 * others' order, and counts them as searched.
	 */
	bool (*no_victim)(const struct gt_solver *sv, int32_t job);
	/* queue state as the solution started (reclaim judges against it) */
	struct gt_queue_state *queues_at_start;
	const struct gt_action_budget *budget;	/* the action's; NULL: unlimited */
	enum gt_search_result result;	/* out: why the search stopped */
};

/*
 * Solve for sv->job. Returns true with the solution left in the statement
 * after the checkpoint taken on entry; false with nothing changed and the
 * reason in sv->result.
 */
bool gt_solve(struct gt_solver *sv);

/*
 * The victim-based actions' loop: every pending, ready job (that passes
 * @candidate, if given) in queue-tree order, whose tasks' request passes
 * @gate (if given), is solved with a copy of @tmpl; solutions are committed.
 * A search that runs out of the action's time stops the action, as in KAI.
 */
void gt_solve_each(struct gt_session *s, const struct gt_solver *tmpl,
		   bool (*candidate)(const struct gt_session *s, int32_t job),
		   bool (*gate)(const struct gt_session *s, int32_t job, const int64_t req[GT_NQRES]));

/*
 * Place @tasks of @job on the nodes @ctx allows; in a simulation pipeline-only
 * on @nodes (shared with allocate). @ctx carries no bonus: the job's topology
 * sets its own.
 */
bool gt_place_tasks(struct gt_session *s, const struct gt_place_ctx *ctx, int32_t job,
		    const int32_t *tasks, uint32_t n, bool pipeline_only, const int32_t *nodes,
		    uint32_t n_nodes);
/* The limit and non-preemptible-quota guards; @record sets the job's message. */
bool gt_queue_guards_pass(struct gt_session *s, int32_t job, const int64_t req[GT_NQRES],
			  bool record);

#endif /* GT_SOLVER_H */
