/*
 * bindrequest.h - what a BindRequest (scheduling.run.ai/v1alpha2) says
 *
 * KAI's scheduler does not bind: it writes a BindRequest naming the pod,
 * the node and the GPU groups, and its binder carries it out. Gantry binds
 * itself, but it meets BindRequests left by KAI (a switch from KAI while
 * binds were pending) and must count their pods as being bound, as KAI's
 * scheduler does, and delete the ones that are stale.
 */
#ifndef GT_BINDREQUEST_H
#define GT_BINDREQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "api/doc.h"

enum gt_br_state {
	GT_BR_LIVE,	/* pending or still retrying: its pod is being bound */
	GT_BR_STALE,	/* failed for good, or its pod is gone, re-created or bound elsewhere: delete it */
	GT_BR_DONE,	/* its pod is bound where it said, or it names no node: nothing to do */
};

/* The pod a BindRequest is for (spec.podName, else its own name). */
const char *gt_br_pod_name(const struct gt_doc *br);
/* spec.selectedNode, or NULL. */
const char *gt_br_node(const struct gt_doc *br);
/* spec.selectedGPUGroups into @out (at most @cap); how many. */
size_t gt_br_groups(const struct gt_doc *br, const char **out, size_t cap);
/* Where @br stands, given its pod @pod (NULL when the pod does not exist) and the pod's @pod_uid. */
enum gt_br_state gt_br_state(const struct gt_doc *br, const struct gt_doc *pod, const char *pod_uid);

#endif /* GT_BINDREQUEST_H */
