/*
 * reservations.h - which GPU reservation pods are idle, as KAI v0.17's
 * binder's resource-reservation sync judges them
 *
 * A shared GPU is held by one reservation pod per GPU group, in the
 * reservation namespace (label runai-gpu-group=<group>). KAI's binder
 * (pkg/binder/binding/resourcereservation, SyncForGpuGroup) deletes it,
 * with grace period 0, once the group has no fractional pod left: no pod
 * outside that namespace labelled with the group (runai-gpu-group, or
 * runai-gpu-group/<group> for a multi-device fraction) whose phase is
 * Pending or Running, and no BindRequest for the group still to be carried
 * out. Gantry judges in the same way, on the binder's cache, and counts a
 * group as still in use while:
 *
 *  - a pod labelled with it is not finished (phase neither Succeeded nor
 *    Failed; a terminating pod still runs on the GPU);
 *  - a BindRequest naming it in spec.selectedGPUGroups is live by the rule
 *    the scheduler's snapshot uses (api/bindrequest.h: its pod exists, is
 *    not on a node yet and the request has not failed for good), so a pod
 *    whose bind succeeded but whose labelled version the cache has not
 *    seen yet keeps its GPU, and so does a failed bind with a retry to
 *    come (KAI counts only Pending BindRequests);
 *  - a bind of this process is in flight for it (kube/cache.h's binds in
 *    flight, from before the reservation pod is made until the pod's watch
 *    event shows it bound).
 *
 * The judgement is pure (the caller hands the cached objects in), so it is
 * tested without a server; controller.h acts on it.
 */
#ifndef GT_BINDER_RESERVATIONS_H
#define GT_BINDER_RESERVATIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "kube/cache.h"

/* What the judgement looks at (borrowed). */
struct gt_resv_view {
	const char *ns;				/* the reservation namespace; NULL: kai-resource-reservation */
	struct gt_kobj *const *pods;
	size_t n_pods;
	struct gt_kobj *const *brs;		/* BindRequests */
	size_t n_brs;
	const struct gt_inflight *inflight;
	size_t n_inflight;
};

/* A reservation pod to delete, and its group. */
struct gt_resv_idle {
	const struct gt_kobj *pod;	/* borrowed from the view */
	const char *group;
};

struct gt_resv_verdict {
	struct gt_resv_idle *idle;	/* reservation pods whose group is not in use */
	size_t n_idle;
	size_t n_reservations;		/* reservation pods looked at (not being deleted) */
	size_t n_kept_binding;		/* kept only for a BindRequest or a bind in flight */
	bool *inflight_done;		/* per binds-in-flight entry: its pod is bound, gone or re-created */
};

void gt_resv_judge(const struct gt_resv_view *v, struct gt_resv_verdict *out);
void gt_resv_verdict_release(struct gt_resv_verdict *r);

#endif /* GT_BINDER_RESERVATIONS_H */
