/*
 * bind.h - the writes both the plan's writer and the binder make
 *
 * An event, the Binding of a pod, the GPU-group labels of a shared pod.
 * Each goes through gt_kube_call() (retried on transport errors and 5xx)
 * and is idempotent: events are named after their content, a Binding that
 * meets 409 reads the pod and counts as done when an earlier attempt put it
 * on our node.
 */
#ifndef GT_BIND_H
#define GT_BIND_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "kube/cache.h"
#include "kube/http.h"
#include "scheduler/writes.h"

/* Who writes: the client, and the events' source. */
struct gt_kw {
	struct gt_kube_client *cl;
	const char *component;	/* the scheduler name */
	const char *instance;	/* this replica */
};

/* Post an event; failures are logged, never fatal. True when the server took it. */
bool gt_kw_event(const struct gt_kw *k, enum gt_kres res, const char *ns, const char *name, const char *uid,
		 const char *reason, const char *msg, bool warning);

/*
 * The pods/binding subresource for @op (the pod's UID as precondition).
 * True when the pod is bound to op->node now, by this call or an earlier
 * attempt; false with the reason logged.
 */
bool gt_kw_bind(const struct gt_kw *k, const struct gt_kop *op);
/* The same, with the reason of a failure in @why (when not NULL). */
bool gt_kw_bind_why(const struct gt_kw *k, const struct gt_kop *op, char *why, size_t why_len);

/*
 * A shared pod bound without a reservation pod: its GPU-group labels, then
 * the bind; the labels go again if the bind fails. The pod is a bind in
 * flight in @cache meanwhile (writer.h), and stays one when bound. False
 * with the reason in @why (when not NULL).
 */
bool gt_kw_bind_labelled(const struct gt_kw *k, struct gt_cache *cache, const struct gt_kop *op, char *why,
			 size_t why_len);

/* The label key of group @g of @op: runai-gpu-group, or runai-gpu-group/<group> for several devices. */
void gt_kw_group_label(const struct gt_kop *op, unsigned g, char *buf, size_t len);

/*
 * A merge patch of the pod's metadata: its GPU-group labels and
 * received-resource-type=Fraction (@remove: null for each, to roll back).
 */
char *gt_kw_group_patch(const struct gt_kop *op, bool remove);

/*
 * Apply gt_kw_group_patch() to the pod (@remove: roll it back; a pod gone
 * is rolled back already). False with the reason logged.
 */
bool gt_kw_patch_groups(const struct gt_kw *k, const struct gt_kop *op, bool remove);

/* The cache's copy of the pod, assumed bound to op->node with op's groups (plan.h's op->rv). */
void gt_kw_assume_bound(struct gt_cache *cache, const struct gt_kop *op);

#endif /* GT_BIND_H */
