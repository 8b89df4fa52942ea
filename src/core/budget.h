/*
 * budget.h - time budgets of the victim search (KAI's ActionSearchBudget)
 *
 * KAI v0.17 bounds its scenario search by wall-clock deadlines, nested:
 * an action (maxActionSearchDuration, 5 min), each pending job within it
 * (maxJobSearchDuration, 4 min; minJobSearchDuration, a best-effort floor
 * when the action's budget is nearly spent) and each generator attempt
 * within the job (maxGeneratorSearchDuration, 2 min; 30 s for
 * NodeLocalGreedy). A limit of 0 is no limit. Deadlines are checked between
 * scenarios, never inside a simulation.
 *
 * The core is pure: it reads no clock. Time comes from the front end's
 * gt_config.clock_ms; without one every budget is unlimited, which keeps
 * simulations and replays deterministic. Gantry's search is bounded by its
 * design as well (solver.c's cost model): the budgets are a guard for the
 * shapes nobody measured, as in KAI.
 */
#ifndef GT_BUDGET_H
#define GT_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "core/session.h"

struct gt_deadline {
	bool unlimited;
	int64_t at_ms;		/* on the front end's clock */
};

struct gt_action_budget {
	const struct gt_config *cfg;
	struct gt_deadline deadline;
	bool exhausted_once;	/* counted for kai_scenario_search_action_budget_exhausted_total */
};

struct gt_job_budget {
	const struct gt_config *cfg;
	struct gt_deadline deadline;
	bool reduced;		/* the action had less left than a job's limit */
};

/* Start @action's budget now. */
void gt_budget_action_begin(struct gt_action_budget *b, const struct gt_config *cfg,
			    enum gt_action action);
/* A job's budget: what is left of the action, at most its limit, at least its floor. */
void gt_budget_job_begin(struct gt_job_budget *j, const struct gt_action_budget *a);
/* A generator attempt's deadline within the job. */
struct gt_deadline gt_budget_generator_begin(const struct gt_job_budget *j, enum gt_generator g);
bool gt_deadline_passed(const struct gt_config *cfg, const struct gt_deadline *d);

#endif /* GT_BUDGET_H */
