/*
 * controller.h - the BindRequest controller: KAI's binder on Gantry's parts
 *
 * A scheduler in BindRequest mode (KAI's, or `gantry scheduler
 * --bind-requests`) does not bind: it writes a BindRequest
 * (scheduling.run.ai/v1alpha2) per pod. This controller carries them out as
 * KAI v0.17's binder does (pkg/binder/controllers/bindrequest_controller.go):
 *
 *  - a BindRequest being deleted, or Succeeded, is left alone;
 *  - its pod (spec.podName in its namespace) already on a node: Succeeded;
 *  - else the pod is bound to spec.selectedNode: with GPU groups
 *    (spec.selectedGPUGroups) through the shared-GPU flow of
 *    scheduler/binder.h (reservation pod, labels, ConfigMaps, bind, rolled
 *    back on failure), without them through the pods/binding subresource;
 *  - the outcome goes into status (the status subresource): phase
 *    Succeeded, or phase Failed with reason and, when
 *    spec.backoffLimit > status.failedAttempts, failedAttempts + 1 and
 *    another attempt 2^(old failedAttempts) seconds later (1 s, 2 s, 4 s,
 *    ...): 1 + backoffLimit attempts in all, as KAI's requeue makes them;
 *    a BindRequest without backoffLimit gets one attempt. One that failed
 *    for good (failedAttempts >= backoffLimit) is the scheduler's to delete
 *    (KAI's and Gantry's both do) and its pod is scheduled afresh, so with a
 *    scheduler running the last retry may not come. Unlike KAI, every
 *    failure's failedAttempts and reason are written (KAI patches the status
 *    only when the phase changes, so its failedAttempts stays at 1);
 *  - the pod gets condition PodBound (True, reason Bound; or False, reason
 *    BindingError) and a Normal Bound or Warning BindingError event with
 *    KAI's messages.
 *
 * Succeeded BindRequests are not deleted by the binder, as in KAI: each is
 * owned by its pod (ownerReferences), so the garbage collector removes it
 * with the pod.
 *
 * With reservation_gc (gantry binder; KAI v0.17's binder's pod watch and
 * resource-reservation sync), the same thread also deletes the GPU
 * reservation pods whose group has no fractional pod left and no bind on
 * the way (binder/reservations.h): at start, once the caches are listed (as
 * KAI's Sync), and after every change of pods or BindRequests, at most once
 * a second. In `gantry scheduler --binder` it is on with --bind-requests
 * only: binding directly, the scheduler's plan deletes idle reservation
 * pods every cycle (scheduler/writes.h), and in BindRequest mode the plan
 * leaves them to the binder (one cleanup, not two racing).
 *
 * One thread sleeps on the cache (BindRequests, pods, nodes) and at the
 * earliest retry; attempts run on a pool of --max-concurrent-reconciles
 * workers (shared-GPU binds on the reservation flow's own pool), so a bind
 * waiting for a reservation pod holds up no other. Only while @active (the
 * Lease) is true.
 */
#ifndef GT_BINDER_CONTROLLER_H
#define GT_BINDER_CONTROLLER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "kube/cache.h"
#include "kube/http.h"
#include "scheduler/binder.h"

/* What the controller watches: its caches must be synced before it acts. */
#define GT_BRCTL_KRES (GT_KRES_BIT(GT_KRES_BINDREQUESTS) | GT_KRES_BIT(GT_KRES_PODS) | GT_KRES_BIT(GT_KRES_NODES))

struct gt_brctl_opts {
	struct gt_binder_opts reservation;	/* the shared-GPU flow (scheduler/binder.h) */
	int workers;				/* concurrent binds; <= 0: 10 (KAI's max-concurrent-reconciles) */
	double max_delay_s;			/* the longest wait before a retry; <= 0: 60 */
	const char *component;			/* events' source; NULL: binder */
	const char *instance;			/* events' reporting instance */
	atomic_bool *active;			/* NULL: always */
	bool reservation_gc;			/* delete idle reservation pods (gantry binder) */
};

struct gt_brctl_stats {
	atomic_ulong succeeded, failed, retries, status_errors;
	struct gt_histogram bind_ms;	/* each attempt's requests, ms */
	atomic_ulong binds, bind_errors, events, event_errors;	/* the shared-GPU flow's counters */
	atomic_ulong resv_syncs, resv_deleted, resv_delete_errors;	/* reservation_gc */
};

struct gt_brctl;

struct gt_brctl *gt_brctl_start(struct gt_kube_client *cl, struct gt_cache *cache, const struct gt_brctl_opts *o);
const struct gt_brctl_stats *gt_brctl_stats(const struct gt_brctl *c);
/* The controller's series for /metrics, names prefixed with @prefix. */
void gt_brctl_write_metrics(struct gt_brctl *c, FILE *f, const char *prefix);
/* Stop: attempts in progress finish, those waiting for a reservation pod are given up. Frees @c. */
void gt_brctl_stop(struct gt_brctl *c);

#endif /* GT_BINDER_CONTROLLER_H */
