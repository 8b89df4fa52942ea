#include "core/budget.h"

static const struct gt_deadline unlimited = { .unlimited = true };

static int64_t now_ms(const struct gt_config *cfg)
{
	return cfg->clock_ms(cfg->clock_ctx);
}

/* A deadline @ms from now; 0 is no limit. */
static struct gt_deadline deadline_in(const struct gt_config *cfg, int64_t ms)
{
	if (!cfg->clock_ms || ms <= 0)
		return unlimited;
	return (struct gt_deadline){ .at_ms = now_ms(cfg) + ms };
}

static int64_t remaining_ms(const struct gt_config *cfg, const struct gt_deadline *d)
{
	if (d->unlimited)
		return INT64_MAX;
	int64_t left = d->at_ms - now_ms(cfg);
	return left > 0 ? left : 0;
}

bool gt_deadline_passed(const struct gt_config *cfg, const struct gt_deadline *d)
{
	return !d->unlimited && remaining_ms(cfg, d) <= 0;
}

void gt_budget_action_begin(struct gt_action_budget *b, const struct gt_config *cfg,
			    enum gt_action action)
{
	int64_t ms = action == GT_ACT_RECLAIM ? cfg->search.reclaim_ms
		     : action == GT_ACT_PREEMPT ? cfg->search.preempt_ms
						  : cfg->search.consolidation_ms;
	*b = (struct gt_action_budget){ .cfg = cfg, .deadline = deadline_in(cfg, ms) };
}

void gt_budget_job_begin(struct gt_job_budget *j, const struct gt_action_budget *a)
{
	const struct gt_config *cfg = a->cfg;
	int64_t action_left = remaining_ms(cfg, &a->deadline);
	int64_t limit = cfg->search.job_ms > 0 ? cfg->search.job_ms : INT64_MAX;
	int64_t left = action_left < limit ? action_left : limit;
	if (cfg->search.min_job_ms > left)
		left = cfg->search.min_job_ms;
	*j = (struct gt_job_budget){
		.cfg = cfg,
		.deadline = left == INT64_MAX ? unlimited : deadline_in(cfg, left),
		.reduced = cfg->search.job_ms > 0 && action_left < cfg->search.job_ms,
	};
	if (cfg->clock_ms && left == 0)
		j->deadline = (struct gt_deadline){ .at_ms = now_ms(cfg) };
}

struct gt_deadline gt_budget_generator_begin(const struct gt_job_budget *j, enum gt_generator g)
{
	const struct gt_config *cfg = j->cfg;
	int64_t job_left = remaining_ms(cfg, &j->deadline);
	int64_t limit = cfg->search.generator_ms[g] > 0 ? cfg->search.generator_ms[g] : INT64_MAX;
	int64_t left = job_left < limit ? job_left : limit;
	if (left == INT64_MAX)
		return unlimited;
	if (left == 0)
		return (struct gt_deadline){ .at_ms = now_ms(cfg) };
	return deadline_in(cfg, left);
}
