#include "api/status.h"

#include <string.h>

#include "api/json.h"

json_t *gt_pg_other_conditions(const struct gt_doc *pg, const char *pool, const struct gt_doc **ours)
{
	json_t *keep = json_array();
	*ours = NULL;
	const struct gt_doc *conds = gt_doc_path(pg, "status.schedulingConditions");
	for (size_t i = 0; conds && conds->kind == GT_DOC_SEQ && i < conds->n; i++) {
		const struct gt_doc *cd = conds->items[i];
		const char *np = gt_doc_str(cd, "nodePool");
		const char *type = gt_doc_str(cd, "type");
		if (type && !strcmp(type, GT_POOL_CONDITION) && np && !strcmp(np, pool))
			*ours = cd;
		else
			json_array_append_new(keep, gt_doc_to_json(cd));
	}
	return keep;
}

int64_t gt_pg_next_transition(const struct gt_doc *pg)
{
	int64_t max = -1, v;
	const struct gt_doc *conds = gt_doc_path(pg, "status.schedulingConditions");
	for (size_t i = 0; conds && conds->kind == GT_DOC_SEQ && i < conds->n; i++) {
		const char *t = gt_doc_str(conds->items[i], "transitionID");
		if (t && !gt_parse_int(t, &v) && v > max)
			max = v;
	}
	return max + 1;
}

bool gt_pg_marks_pods(const struct gt_doc *pg)
{
	const char *mark = gt_doc_str(gt_doc_get(pg, "spec"), "markUnschedulable");
	return !mark || strcmp(mark, "false");
}

bool gt_pod_unschedulable_says(const struct gt_doc *pod, const char *msg)
{
	const struct gt_doc *conds = gt_doc_path(pod, "status.conditions");
	bool same = false;
	for (size_t i = 0; conds && conds->kind == GT_DOC_SEQ && i < conds->n; i++) {
		const char *type = gt_doc_str(conds->items[i], "type");
		const char *st = gt_doc_str(conds->items[i], "status");
		const char *m = gt_doc_str(conds->items[i], "message");
		if (type && !strcmp(type, "PodScheduled"))
			same = st && !strcmp(st, "False") && m && !strcmp(m, msg);
	}
	return same;
}
