/*
 * topology.h - topology-aware placement (Topology CRs, KAI-SPEC 5.1)
 *
 * A Topology names node labels from the widest domain to the narrowest
 * (zone, spine, rack, ...). A PodGroup, or one of its sub-groups, may
 * require all its pods in one domain of a level, and may prefer a narrower
 * one. For a set of tasks and a set of nodes, gt_topology_subsets() returns
 * the node sets worth trying, in order: domains of the relevant levels that
 * can hold the tasks, narrowest level first, and within a level the fullest
 * domain that still fits first (best fit). Allocation tries them one by one
 * with checkpoint and rollback. With a preferred level, nodes of preferred
 * domains get a bonus in node order so the pods stay together when they can.
 */
#ifndef GT_TOPOLOGY_H
#define GT_TOPOLOGY_H

#include "core/placement.h"
#include "core/session.h"

struct gt_nodeset {
	int32_t *nodes;
	uint32_t n;
};

/*
 * Node sets for @tc over @nodes (@n_nodes) for @tasks of @job. Returns the
 * count; *out is an array the caller frees with gt_nodesets_free(). With no
 * constraint: one set, the input. When nothing fits, 0 and a message in
 * @err naming the topology and the level. A preferred level sets
 * @ctx's node_bonus for its domains (freed by gt_topology_clear_bonus()).
 */
uint32_t gt_topology_subsets(struct gt_session *s, struct gt_place_ctx *ctx, int32_t job,
			     const struct gt_topology_constraint *tc, const int32_t *tasks,
			     uint32_t n_tasks, const int32_t *nodes, uint32_t n_nodes,
			     struct gt_nodeset **out, char *err, size_t err_len);
void gt_nodesets_free(struct gt_nodeset *sets, uint32_t n);
void gt_topology_clear_bonus(struct gt_place_ctx *ctx);

#endif /* GT_TOPOLOGY_H */
