/*
 * status.h - the scheduling conditions Gantry writes back, as they read
 *
 * KAI marks a PodGroup that cannot be scheduled with a condition of type
 * UnschedulableOnNodePool per node pool (status.schedulingConditions, each
 * with a transitionID that only grows), and each waiting pod with
 * PodScheduled=False. The scheduler writes them only when they differ from
 * what the object says, so it asks here what the object says.
 */
#ifndef GT_STATUS_H
#define GT_STATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/doc.h"

#define GT_POOL_CONDITION "UnschedulableOnNodePool"

/*
 * The PodGroup's scheduling conditions other than @pool's, as JSON to write
 * back beside a new one (a new reference); *@ours gets @pool's, or NULL.
 */
json_t *gt_pg_other_conditions(const struct gt_doc *pg, const char *pool, const struct gt_doc **ours);
/* The transitionID a new condition takes: one past the largest (an id that is no integer counts as none). */
int64_t gt_pg_next_transition(const struct gt_doc *pg);
/* spec.markUnschedulable is not false: its pods are to be marked. */
bool gt_pg_marks_pods(const struct gt_doc *pg);
/* The pod already says PodScheduled=False with message @msg. */
bool gt_pod_unschedulable_says(const struct gt_doc *pod, const char *msg);

#endif /* GT_STATUS_H */
