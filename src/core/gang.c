/*
 * gang.c - the sub-group tree's minimum (gang.h)
 *
 * The tree is small (at most GT_MAX_PODSETS podsets and as many inner
 * groups), so each question walks it from the set asked about; no state is
 * kept between calls.
 */
#include <string.h>

#include "core/gang.h"

static int32_t set_min(const struct gt_job *j, int32_t g)
{
	return g == GT_NONE ? j->min_subgroup : j->groups[g].min_subgroup;
}

static bool podset_met(const struct gt_job *j, const int32_t *n, uint32_t ps)
{
	return n[ps] >= j->podsets[ps].min_member;
}

static bool set_met(const struct gt_job *j, const int32_t *n, int32_t g)
{
	int32_t members = 0, met = 0;
	for (uint32_t ps = 0; ps < j->n_podsets; ps++)
		if (j->podsets[ps].group == g) {
			members++;
			met += podset_met(j, n, ps);
		}
	for (uint32_t c = 0; c < j->n_groups; c++)
		if (j->groups[c].parent == g) {
			members++;
			met += set_met(j, n, (int32_t)c);
		}
	int32_t want = set_min(j, g) > 0 ? set_min(j, g) : members;
	return met >= want;
}

bool gt_gang_met(const struct gt_job *j, const int32_t *n)
{
	return set_met(j, n, GT_NONE);
}

static void set_need(const struct gt_job *j, const int32_t *n, const uint32_t *podset_order, int32_t g,
		     int32_t *need)
{
	int32_t members = 0, met = 0;
	for (uint32_t ps = 0; ps < j->n_podsets; ps++)
		if (j->podsets[ps].group == g) {
			members++;
			met += podset_met(j, n, ps);
		}
	for (uint32_t c = 0; c < j->n_groups; c++)
		if (j->groups[c].parent == g) {
			members++;
			met += set_met(j, n, (int32_t)c);
		}
	int32_t want = (set_min(j, g) > 0 ? set_min(j, g) : members) - met;
	for (uint32_t c = 0; c < j->n_groups && want > 0; c++)
		if (j->groups[c].parent == g && !set_met(j, n, (int32_t)c)) {
			set_need(j, n, podset_order, (int32_t)c, need);
			want--;
		}
	for (uint32_t k = 0; k < j->n_podsets && want > 0; k++) {
		uint32_t ps = podset_order[k];
		if (j->podsets[ps].group == g && !podset_met(j, n, ps)) {
			need[ps] = j->podsets[ps].min_member - n[ps];
			want--;
		}
	}
}

void gt_gang_need(const struct gt_job *j, const int32_t *n, const uint32_t *podset_order, int32_t *need)
{
	memset(need, 0, j->n_podsets * sizeof(*need));
	set_need(j, n, podset_order, GT_NONE, need);
}
