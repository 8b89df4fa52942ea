/*
 * object.h - what the fields of a Kubernetes object mean, asked one way
 *
 * Every part of Gantry that looks at an object's metadata or at a pod's
 * lifecycle (the decoder, the scheduler's snapshot and writes, the
 * podgrouper controller) asks here, so "is this pod ours", "has it
 * finished", "which PodGroup does it name" have one answer each. Objects
 * are document trees (doc.h) as kubectl prints them or the API server sends
 * them (json.h).
 */
#ifndef GT_OBJECT_H
#define GT_OBJECT_H

#include <stdbool.h>

#include "api/doc.h"

/* The annotation a pod names its PodGroup with. */
#define GT_POD_GROUP_ANNOTATION "pod-group-name"

/* kind, or "" */
const char *gt_obj_kind(const struct gt_doc *o);
/* metadata.name, or "" */
const char *gt_obj_name(const struct gt_doc *o);
/* metadata.namespace, or "default" (what the API server fills in) */
const char *gt_obj_ns(const struct gt_doc *o);
/* A label or annotation value, or NULL (inline: a key written in the code is packed when compiling). */
__attribute__((always_inline)) static inline const char *gt_obj_label(const struct gt_doc *o,
								       const char *key)
{
	return gt_doc_str(gt_doc_path(o, "metadata.labels"), key);
}
__attribute__((always_inline)) static inline const char *gt_obj_annotation(const struct gt_doc *o,
									    const char *key)
{
	return gt_doc_str(gt_doc_path(o, "metadata.annotations"), key);
}
/* metadata.deletionTimestamp is set. */
bool gt_obj_is_deleting(const struct gt_doc *o);

/* spec.schedulerName is @scheduler. */
bool gt_pod_is_ours(const struct gt_doc *pod, const char *scheduler);
/* status.phase is Succeeded or Failed: it holds nothing any more. */
bool gt_pod_is_finished(const struct gt_doc *pod);
/* Ours, not finished, not being deleted: a pod the podgrouper works on. */
bool gt_pod_is_live_ours(const struct gt_doc *pod, const char *scheduler);
/* spec.nodeName when set and not empty, else NULL. */
const char *gt_pod_node(const struct gt_doc *pod);
/* The PodGroup the pod names (annotation pod-group-name), or NULL. */
const char *gt_pod_group_name(const struct gt_doc *pod);

#endif /* GT_OBJECT_H */
