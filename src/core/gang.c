/*
 * gang.c - the sub-group tree's minimum (gang.h)
 *
 * Job order compares jobs' gang states on every heap step, so a question
 * about the tree costs one pass over it, O(podsets + groups): inner groups
 * are stored parents before children (cluster.h), so walking them backwards
 * settles every child before its parent. At most GT_MAX_PODSETS podsets and
 * as many inner groups (the decoder refuses more); no state is kept between
 * calls.
 */
#include <string.h>

#include "core/gang.h"

/* Per set (inner groups 0..n_groups-1, the root at n_groups): members and members met. */
struct tally {
	int32_t members[GT_MAX_PODSETS + 1], met[GT_MAX_PODSETS + 1];
	bool set_met[GT_MAX_PODSETS + 1];
};

static uint32_t slot(const struct gt_job *j, int32_t g)
{
	return g == GT_NONE ? j->n_groups : (uint32_t)g;
}

static int32_t set_min(const struct gt_job *j, uint32_t s)
{
	return s == j->n_groups ? j->min_subgroup : j->groups[s].min_subgroup;
}

static bool podset_met(const struct gt_job *j, const int32_t *n, uint32_t ps)
{
	return n[ps] >= j->podsets[ps].min_member;
}

/* Every set's tally, children before parents; the root's verdict last. */
static void count(const struct gt_job *j, const int32_t *n, struct tally *t)
{
	uint32_t n_sets = j->n_groups + 1;
	memset(t->members, 0, n_sets * sizeof(*t->members));
	memset(t->met, 0, n_sets * sizeof(*t->met));
	for (uint32_t ps = 0; ps < j->n_podsets; ps++) {
		uint32_t s = slot(j, j->podsets[ps].group);
		t->members[s]++;
		t->met[s] += podset_met(j, n, ps);
	}
	/* inner groups from the last (children come after their parents), the root at the end */
	for (uint32_t k = 0; k < n_sets; k++) {
		uint32_t s = k < j->n_groups ? j->n_groups - 1 - k : j->n_groups;
		int32_t want = set_min(j, s) > 0 ? set_min(j, s) : t->members[s];
		t->set_met[s] = t->met[s] >= want;
		if (s < j->n_groups) {	/* an inner group counts in its parent */
			uint32_t p = slot(j, j->groups[s].parent);
			t->members[p]++;
			t->met[p] += t->set_met[s];
		}
	}
}

bool gt_gang_met(const struct gt_job *j, const int32_t *n)
{
	if (j->n_groups == 0) {	/* podsets only, the common case: the root's count alone */
		int32_t met = 0;
		for (uint32_t ps = 0; ps < j->n_podsets; ps++)
			met += podset_met(j, n, ps);
		return met >= (j->min_subgroup > 0 ? j->min_subgroup : (int32_t)j->n_podsets);
	}
	struct tally t;
	count(j, n, &t);
	return t.set_met[j->n_groups];
}

/* Choose, in set @s, unmet members until its minimum would be met, and descend into groups. */
static void set_need(const struct gt_job *j, const int32_t *n, const uint32_t *podset_order,
		     const struct tally *t, uint32_t s, int32_t *need)
{
	if (t->set_met[s])
		return;
	int32_t want = (set_min(j, s) > 0 ? set_min(j, s) : t->members[s]) - t->met[s];
	for (uint32_t c = 0; c < j->n_groups && want > 0; c++)
		if (slot(j, j->groups[c].parent) == s && !t->set_met[c]) {
			set_need(j, n, podset_order, t, c, need);
			want--;
		}
	for (uint32_t k = 0; k < j->n_podsets && want > 0; k++) {
		uint32_t ps = podset_order[k];
		if (slot(j, j->podsets[ps].group) == s && !podset_met(j, n, ps)) {
			need[ps] = j->podsets[ps].min_member - n[ps];
			want--;
		}
	}
}

void gt_gang_need(const struct gt_job *j, const int32_t *n, const uint32_t *podset_order, int32_t *need)
{
	memset(need, 0, j->n_podsets * sizeof(*need));
	struct tally t;
	count(j, n, &t);
	set_need(j, n, podset_order, &t, j->n_groups, need);
}

bool gt_gang_podset_under(const struct gt_job *j, int32_t ps, int32_t group)
{
	for (int32_t g = j->podsets[ps].group; group != GT_NONE; g = j->groups[g].parent) {
		if (g == group)
			return true;
		if (g == GT_NONE)
			return false;
	}
	return true;
}
