/*
 * binder.h - GPU sharing on real nodes, as KAI's binder does it
 *
 * A fractional or GPU-memory pod requests no nvidia.com/gpu: the scheduler
 * places it in a "GPU group" (one physical GPU shared by such pods), and the
 * device itself is held by a reservation pod of the group, which learns the
 * GPU's UUID on the node and publishes it. Before binding a shared pod the
 * binder (KAI-SPEC 1.4, 1.8, 7.4), for each of the pod's groups:
 *
 *  1. finds the group's reservation pod in the reservation namespace (label
 *     runai-gpu-group=<group>), or creates one: gpu-reservation-<16 hex>
 *     (gt_binder_reservation_name(): one name per node and group, as KAI
 *     v0.17), nodeName preset, nvidia.com/gpu: 1, the shared pod's
 *     tolerations, labels app=kai-resource-reservation and
 *     runai-gpu-group=<group>, annotation karpenter.sh/do-not-disrupt:
 *     "true", no runtimeClassName unless one is given (KAI v0.17's
 *     --runtime-class-name defaults to none);
 *  2. waits (bounded: timeout_s, KAI's 40 s) for its annotation
 *     run.ai/reserve_for_gpu_index=<GPU UUID>; a pod it created that never
 *     reports is deleted;
 *
 * then labels the pod with its groups (runai-gpu-group, or
 * runai-gpu-group/<group> per device) and received-resource-type=Fraction,
 * creates the ConfigMaps the admission webhook pointed the container at
 * (NVIDIA_VISIBLE_DEVICES = the UUIDs, GPU_PORTION and RUNAI_NUM_OF_GPUS =
 * the portion), and binds. A failure after the labels rolls back the labels
 * and the ConfigMaps it created: nothing is left half-applied, and the pod
 * is Pending again for the next cycle.
 *
 * None of this blocks the cycle or other binds: gt_binder_submit() returns
 * at once; the pod counts as Binding (cache.h's binds in flight) until the
 * bind is done or rolled back. A worker pool (util/pool.h) does the
 * requests; a bind waiting for its reservation pod holds no worker: one
 * waiter thread sleeps on the cache (gt_cache_wait) and looks at the
 * waiting binds when a pod's watch event arrives, or at the earliest
 * deadline.
 *
 * Garbage collection of reservation pods whose group has no more pods is
 * the plan's (writes.h), every cycle, when the scheduler binds directly;
 * in BindRequest mode it is the binder's (binder/reservations.h,
 * gt_binder_delete_idle()).
 */
#ifndef GT_BINDER_H
#define GT_BINDER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "kube/cache.h"
#include "scheduler/bind.h"
#include "scheduler/writes.h"
#include "util/histogram.h"

/*
 * AUTO (the zero value): reservation pods when the reservation namespace
 * exists (KAI's installation creates it), looked for at most once a
 * minute; without it, shared pods are labelled and bound as before, and a
 * warning says their containers get no device.
 */
enum gt_reserve_mode { GT_RESERVE_AUTO, GT_RESERVE_ON, GT_RESERVE_OFF };

struct gt_binder_opts {
	enum gt_reserve_mode mode;
	const char *ns;			/* NULL: kai-resource-reservation */
	const char *image;		/* NULL: KAI's resource-reservation image */
	const char *service_account;	/* NULL: kai-resource-reservation; "": none */
	const char *runtime_class;	/* NULL or "": none (KAI v0.17's default) */
	double timeout_s;		/* <= 0: 40 */
	int workers;			/* <= 0: 4 */
};

/* Counters the binder adds to (the writer's). */
struct gt_binder_counters {
	atomic_ulong *binds, *errors;
	atomic_ulong *events, *event_errors;
	struct gt_histogram *bind_ms;	/* the binding steps (labels, ConfigMaps, bind), ms; NULL: none */
};

struct gt_binder;

struct gt_binder *gt_binder_new(const struct gt_kw *kw, struct gt_cache *cache,
				struct gt_binder_counters counters, const struct gt_binder_opts *o);
/* Are shared pods to get reservation pods? (AUTO: asks the server now and then) */
bool gt_binder_active(struct gt_binder *b);
/* Start a shared-GPU bind (@op is copied); returns at once. */
void gt_binder_submit(struct gt_binder *b, const struct gt_kop *op);
/*
 * The outcome of a bind, called once on a worker when it is done: @bound,
 * else @why (valid during the call). The BindRequest controller writes it
 * into the BindRequest's status.
 */
typedef void (*gt_binder_done_fn)(void *arg, bool bound, const char *why);
/* gt_binder_submit(), then @done(@arg, ...) with the outcome. */
void gt_binder_submit_then(struct gt_binder *b, const struct gt_kop *op, gt_binder_done_fn done, void *arg);

/*
 * Delete reservation pod @pod (uid @uid, a precondition: a pod re-made
 * under its name stays) of GPU group @group, which the caller found idle
 * (binder/reservations.h), with grace period 0 as KAI does. Ordered
 * against this binder's binds as KAI's per-group mutex orders its sync and
 * its reservations: when a bind of this binder has the group now, nothing
 * is done; otherwise a bind that comes for the group meanwhile waits
 * before it looks for the group's reservation pod, so it finds the pod
 * gone (and makes another) rather than one being deleted.
 * GT_RESV_DELETED, GT_RESV_BUSY (a bind has the group), GT_RESV_GONE
 * (already gone, or re-made), GT_RESV_ERROR (logged).
 */
enum gt_resv_delete { GT_RESV_DELETED, GT_RESV_BUSY, GT_RESV_GONE, GT_RESV_ERROR };
enum gt_resv_delete gt_binder_delete_idle(struct gt_binder *b, const char *group, const char *pod, const char *uid);

/* "gpu-reservation-" and 16 hex digits: the reservation pod of GPU group @group on @node. */
#define GT_RESERVATION_NAME_LEN 40
void gt_binder_reservation_name(const char *node, const char *group, char out[GT_RESERVATION_NAME_LEN]);
/* Binds submitted and not yet done. */
size_t gt_binder_pending(struct gt_binder *b);
/* Wait until no bind is in the binder's hands, or a stop (util/stop.h; gt_binder_wake() on it). */
void gt_binder_wait_idle(struct gt_binder *b);
void gt_binder_wake(struct gt_binder *b);
/*
 * Stop: a step in progress finishes; binds still waiting for their
 * reservation pod are given up (the reservation pods they created and no
 * bound pod uses are deleted; nothing was applied to their pods). Frees @b.
 */
void gt_binder_free(struct gt_binder *b);

#endif /* GT_BINDER_H */
