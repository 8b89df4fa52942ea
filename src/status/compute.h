/*
 * compute.h - the status KAI v0.17's podgroup and queue controllers write, computed
 *
 * Pure: documents in, resource lists and merge patches out; the controller
 * (controller.h) feeds it the cache and sends the patches.
 *
 * PodGroup status.resourcesStatus (KAI's podgroupcontroller), over the pods
 * of the PodGroup's namespace annotated pod-group-name=<its name>, whoever
 * schedules them:
 *  - requested: pods Pending or Running: their containers' requests (not the
 *    init containers', not the overhead), plus for a shared-GPU pod
 *    nvidia.com/gpu = gpu-fraction x gpu-fraction-num-devices and
 *    run.ai/gpu.memory = gpu-memory x gpu-fraction-num-devices;
 *  - allocated: pods Running, or Pending with PodScheduled=True: their
 *    containers' requests, plus for a pod whose received-resource-type
 *    annotation is "Fraction" nvidia.com/gpu = its gpu-fraction (or its
 *    gpu-memory over the node's nvidia.com/gpu.memory label);
 *  - allocatedNonPreemptible: the allocated list when the PodGroup is not
 *    preemptible (spec.preemptibility, else its priority < 100: the
 *    PriorityClass spec.priorityClassName names, else the global default
 *    one, else 50); left as it is for a preemptible one, as KAI leaves it.
 *  Succeeded and Failed pods count for nothing.
 *
 * Queue status (KAI's queuecontroller):
 *  - allocated, allocatedNonPreemptible, requested: the sums of the child
 *    queues' and of the resourcesStatus of the PodGroups whose spec.queue
 *    names the queue (all node pools);
 *  - childQueues: the queues whose spec.parentQueue names it (sorted).
 *  Child queues' sums are taken as computed here, not as last written, so
 *  a tree settles in one pass instead of one pass per level (the values
 *  KAI's controller reaches are the same).
 *
 * A patch lists only what changes: a resource that went away is set to
 * null, an emptied list is null (as controller-runtime's MergeFrom makes
 * KAI's patches), and values compare by quantity, not by text, so a status
 * KAI wrote in another format is not rewritten.
 */
#ifndef GT_STATUS_COMPUTE_H
#define GT_STATUS_COMPUTE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/doc.h"
#include "status/resources.h"

/* KAI's DefaultPodGroupPriority: no PriorityClass and no global default. */
#define GT_STATUS_DEFAULT_PRIORITY 50

struct gt_pg_status {
	struct gt_rlist requested, allocated;
	bool preemptible;
};

void gt_pg_status_release(struct gt_pg_status *st);

/*
 * Add @pod's share to @st. @node is the pod's node object (NULL when
 * unknown), read for a gpu-memory pod's fraction. 0, or -1 with a message
 * in @why naming the pod's field when KAI's controller would fail the
 * PodGroup over this pod (a bad annotation, a node without GPU memory).
 */
int gt_status_add_pod(struct gt_pg_status *st, const struct gt_doc *pod, const struct gt_doc *node, char *why,
		      size_t why_cap);

/* Is @pg preemptible, its PriorityClass's value being @priority? */
bool gt_status_preemptible(const struct gt_doc *pg, int32_t priority);

/* The merge patch of @pg's status for @st, or NULL when it already says so. */
json_t *gt_status_pg_patch(const struct gt_doc *pg, const struct gt_pg_status *st);

struct gt_queue_status {
	const char *name;	/* borrowed from the queue's document */
	struct gt_rlist allocated, nonpreemptible, requested;
	const char **children;	/* borrowed names, sorted */
	size_t n_children;
};

/*
 * The status of each of the @n_queues @queues (out[i] for queues[i]) from
 * the @n_pgs PodGroups' resourcesStatus. Release with gt_queue_status_release().
 */
void gt_status_queues(const struct gt_doc *const *queues, size_t n_queues, const struct gt_doc *const *pgs,
		      size_t n_pgs, struct gt_queue_status *out);
void gt_queue_status_release(struct gt_queue_status *st);

/* The merge patch of @q's status for @st, or NULL when it already says so. */
json_t *gt_status_queue_patch(const struct gt_doc *q, const struct gt_queue_status *st);

#endif /* GT_STATUS_COMPUTE_H */
