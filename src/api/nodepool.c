#include "api/nodepool.h"

#include <string.h>

#include "api/object.h"

bool gt_node_pool_has(const char *key, const char *value, const struct gt_doc *o)
{
	if (!value)
		return true;
	const char *v = gt_obj_label(o, key ? key : GT_NODE_POOL_LABEL);
	return *value ? v && !strcmp(v, value) : !v || !*v;
}

const char *gt_shard_partition(const struct gt_doc *shard)
{
	const struct gt_doc *v = gt_doc_path(shard, "spec.partitionLabelValue");
	return gt_doc_is_null(v) || v->kind != GT_DOC_SCALAR ? "" : v->scalar;
}
