#include "api/object.h"

#include <string.h>

const char *gt_obj_kind(const struct gt_doc *o)
{
	const char *k = gt_doc_str(o, "kind");
	return k ? k : "";
}

const char *gt_obj_name(const struct gt_doc *o)
{
	const char *n = gt_doc_str(gt_doc_get(o, "metadata"), "name");
	return n ? n : "";
}

const char *gt_obj_ns(const struct gt_doc *o)
{
	const char *n = gt_doc_str(gt_doc_get(o, "metadata"), "namespace");
	return n ? n : "default";
}

bool gt_obj_is_deleting(const struct gt_doc *o)
{
	return gt_doc_str(gt_doc_get(o, "metadata"), "deletionTimestamp") != NULL;
}

bool gt_pod_is_ours(const struct gt_doc *pod, const char *scheduler)
{
	const char *s = gt_doc_str(gt_doc_get(pod, "spec"), "schedulerName");
	return s && !strcmp(s, scheduler);
}

bool gt_pod_is_finished(const struct gt_doc *pod)
{
	const char *phase = gt_doc_str(gt_doc_get(pod, "status"), "phase");
	return phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"));
}

bool gt_pod_is_live_ours(const struct gt_doc *pod, const char *scheduler)
{
	return gt_pod_is_ours(pod, scheduler) && !gt_pod_is_finished(pod) && !gt_obj_is_deleting(pod);
}

const char *gt_pod_node(const struct gt_doc *pod)
{
	const char *n = gt_doc_str(gt_doc_get(pod, "spec"), "nodeName");
	return n && *n ? n : NULL;
}

const char *gt_pod_group_name(const struct gt_doc *pod)
{
	return gt_obj_annotation(pod, GT_POD_GROUP_ANNOTATION);
}
