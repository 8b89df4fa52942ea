/*
 * nodepool.h - which objects belong to a node pool (KAI's partition)
 *
 * A SchedulingShard serves the nodes, queues and PodGroups whose node-pool
 * label (kai.scheduler/node-pool unless configured) has its
 * partitionLabelValue; the empty value serves the objects without the label.
 */
#ifndef GT_NODEPOOL_H
#define GT_NODEPOOL_H

#include <stdbool.h>

#include "api/doc.h"

#define GT_NODE_POOL_LABEL "kai.scheduler/node-pool"

struct gt_node_pool {
	/*
	 * The node-pool label's value; "" serves objects without the label.
	 * NULL: our SchedulingShard's spec.partitionLabelValue when that
	 * object exists, else the whole cluster.
	 */
	const char *value;
	const char *key;		/* NULL: GT_NODE_POOL_LABEL */
};

/* Is @o labelled for the pool @value under @key ("": unlabelled)? @value NULL: every object is. */
bool gt_node_pool_has(const char *key, const char *value, const struct gt_doc *o);
/* The partition a SchedulingShard serves: spec.partitionLabelValue, "" when unset or null. */
const char *gt_shard_partition(const struct gt_doc *shard);

#endif /* GT_NODEPOOL_H */
