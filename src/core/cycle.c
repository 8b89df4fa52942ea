#include <stdio.h>
#include <string.h>

#include "core/actions.h"
#include "core/fairshare.h"
#include "core/reserve.h"
#include "util/strtab.h"

static const char *const action_names[GT_N_ACTIONS] = {
	[GT_ACT_NONE] = "",
	[GT_ACT_ALLOCATE] = "allocate",
	[GT_ACT_CONSOLIDATION] = "consolidation",
	[GT_ACT_RECLAIM] = "reclaim",
	[GT_ACT_PREEMPT] = "preempt",
	[GT_ACT_STALEGANG] = "stalegangeviction",
};

const char *gt_action_name(enum gt_action a)
{
	if (a == GT_EVICT_MAX_RUNTIME)	/* Gantry's own evictions (core/reserve.h), no KAI action */
		return "maxruntime";
	if (a == GT_EVICT_BACKFILL)
		return "backfill";
	return (unsigned)a < GT_N_ACTIONS ? action_names[a] : "";
}

enum gt_action gt_action_from_name(const char *name)
{
	int a = gt_name_index(action_names, GT_N_ACTIONS, name);
	return a < 0 ? GT_ACT_NONE : (enum gt_action)a;
}

int gt_actions_parse(const char *list, unsigned *mask, char *bad, size_t cap)
{
	*mask = 0;
	for (const char *p = list; *p;) {
		p += strspn(p, ", ");
		size_t n = strcspn(p, ", ");
		if (!n)
			break;
		char name[32];
		enum gt_action a = GT_ACT_NONE;
		if (n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			a = gt_action_from_name(name);
		}
		if (a == GT_ACT_NONE) {
			if (cap) {
				size_t k = n < cap - 1 ? n : cap - 1;
				memcpy(bad, p, k);
				bad[k] = '\0';
			}
			return -1;
		}
		*mask |= 1u << a;
		p += n;
	}
	return 0;
}

int gt_actions_flag(const char *list, void *mask, char *why, size_t why_len)
{
	char bad[64];
	if (gt_actions_parse(list, mask, bad, sizeof(bad))) {
		snprintf(why, why_len, "unknown action '%s'", bad);
		return -1;
	}
	if (!*(unsigned *)mask) {
		snprintf(why, why_len, "needs at least one of allocate, consolidation, reclaim, preempt, "
			 "stalegangeviction");
		return -1;
	}
	return 0;
}

void gt_action_run(struct gt_session *s, enum gt_action a)
{
	static void (*const run[GT_N_ACTIONS])(struct gt_session *) = {
		[GT_ACT_ALLOCATE] = gt_action_allocate,
		[GT_ACT_CONSOLIDATION] = gt_action_consolidation,
		[GT_ACT_RECLAIM] = gt_action_reclaim,
		[GT_ACT_PREEMPT] = gt_action_preempt,
		[GT_ACT_STALEGANG] = gt_action_stalegang,
	};
	s->action = a;
	run[a](s);
	s->action = GT_ACT_NONE;
}

void gt_cycle_run(struct gt_session *s, const struct gt_cluster *c, int64_t now, unsigned mask)
{
	gt_session_open(s, c, now);
	gt_fairshare_compute(s);
	gt_max_runtime_evict(s);	/* queues that enforce maximum run times (docs/reservations.md) */
	mask &= ~c->config.actions_off;	/* the shard's spec.actions */
	for (int a = 1; a < GT_N_ACTIONS; a++)
		if (mask & (1u << a))
			gt_action_run(s, (enum gt_action)a);
}
