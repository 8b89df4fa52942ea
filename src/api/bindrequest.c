#include "api/bindrequest.h"

#include <stdbool.h>
#include <string.h>

#include "api/object.h"

const char *gt_br_pod_name(const struct gt_doc *br)
{
	const char *p = gt_doc_str(gt_doc_get(br, "spec"), "podName");
	return p ? p : gt_obj_name(br);
}

const char *gt_br_node(const struct gt_doc *br)
{
	return gt_doc_str(gt_doc_get(br, "spec"), "selectedNode");
}

size_t gt_br_groups(const struct gt_doc *br, const char **out, size_t cap)
{
	const struct gt_doc *groups = gt_doc_path(br, "spec.selectedGPUGroups");
	size_t n = 0;
	for (size_t g = 0; groups && groups->kind == GT_DOC_SEQ && g < groups->n && n < cap; g++)
		if (groups->items[g]->kind == GT_DOC_SCALAR)
			out[n++] = groups->items[g]->scalar;
	return n;
}

/* The uid of the pod that owns @br, or NULL. */
static const char *owner_pod_uid(const struct gt_doc *br)
{
	const struct gt_doc *refs = gt_doc_path(br, "metadata.ownerReferences");
	for (size_t i = 0; refs && refs->kind == GT_DOC_SEQ && i < refs->n; i++) {
		const char *kind = gt_doc_str(refs->items[i], "kind");
		if (kind && !strcmp(kind, "Pod"))
			return gt_doc_str(refs->items[i], "uid");
	}
	return NULL;
}

/* KAI's IsFailed: Failed with no attempts left (no backoffLimit: one attempt). */
static bool failed_for_good(const struct gt_doc *br)
{
	const char *phase = gt_doc_str(gt_doc_get(br, "status"), "phase");
	if (!phase || strcmp(phase, "Failed"))
		return false;
	const struct gt_doc *limit = gt_doc_path(br, "spec.backoffLimit");
	const char *tries = gt_doc_str(gt_doc_get(br, "status"), "failedAttempts");
	int64_t lim, n = 0;
	if (gt_doc_is_null(limit) || limit->kind != GT_DOC_SCALAR || gt_parse_int(limit->scalar, &lim))
		return true;
	if (tries && gt_parse_int(tries, &n))
		return true;	/* a count that is no count: it cannot say retries are left */
	return n >= lim;
}

enum gt_br_state gt_br_state(const struct gt_doc *br, const struct gt_doc *pod, const char *pod_uid)
{
	const char *uid = owner_pod_uid(br);
	if (!pod || (uid && strcmp(uid, pod_uid)))
		return GT_BR_STALE;	/* orphaned: the pod is gone or was re-created */
	if (failed_for_good(br))
		return GT_BR_STALE;
	const char *sel = gt_br_node(br);
	const char *node = gt_pod_node(pod);
	if (node)
		return sel && !strcmp(sel, node) ? GT_BR_DONE : GT_BR_STALE;
	return sel && *sel ? GT_BR_LIVE : GT_BR_DONE;
}
