/*
 * gang.h - when a job's gang minimum is met: KAI v0.17's sub-group tree
 *
 * A job's pods sit in podsets (leaf sub-groups, each with its minMember);
 * podsets and inner sub-groups nest under the job's root set. A set is
 * satisfied when enough of its direct members are: minSubGroup of them when
 * the set says so (an elastic tree: two of three replicas will do), else all
 * of them. A podset is satisfied with min_member pods. Without minSubGroup
 * anywhere this is "every podset at its minimum", as before v0.17.
 */
#ifndef GT_GANG_H
#define GT_GANG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"

/* Is @j's gang minimum met with @n[ps] pods counted in each podset? */
bool gt_gang_met(const struct gt_job *j, const int32_t *n);

/* How many more pods each podset needs (@need[ps], 0 if none) to meet the
 * gang minimum from @n, taking the unsatisfied members of each set in order
 * (sub-groups as declared, podsets in @podset_order, best first) until
 * enough are chosen. All zero when the minimum is met. */
void gt_gang_need(const struct gt_job *j, const int32_t *n, const uint32_t *podset_order, int32_t *need);

/* Is podset @ps inside sub-group @group of @j (GT_NONE: the job's root holds all)? */
bool gt_gang_podset_under(const struct gt_job *j, int32_t ps, int32_t group);

#endif /* GT_GANG_H */
