/*
 * writer.h - carry out a cycle's plan against the API server
 *
 * A fixed pool of worker threads (--write-workers, util/pool.h) runs the plan's writes
 * concurrently; every request passes the client's QPS/burst limiter. The
 * cycle waits for the whole plan before the next snapshot, as KAI waits for
 * its status workers, so the next cycle sees the outcome.
 *
 * BindRequest mode (gt_writer_opts.bind_requests): instead of binding, a
 * BindRequest (scheduling.run.ai/v1alpha2) named after the pod, owned by it
 * (the garbage collector deletes it with the pod, as KAI's), labelled
 * selected-node and with the node pool's label, whose spec says the node,
 * the GPU groups and the share of each device; a binder (`gantry binder`,
 * or KAI's) carries it out. The created object goes into the cache at once,
 * so that the next snapshot sees the pod Binding before the watch event.
 *
 * Binding: the pod's binding subresource with the pod's UID as
 * precondition. A retried bind that meets 409 "already assigned" reads the
 * pod: bound to our node means an earlier attempt succeeded. On success the
 * cache assumes the pod bound (spec.nodeName) until its watch event
 * arrives, so the next cycle cannot bind it again. A restarted scheduler
 * needs none of this memory: pods already bound are Bound in its first
 * snapshot.
 *
 * A shared-GPU pod goes to the binder (binder.h): reservation pod, labels,
 * ConfigMaps, then the bind, without holding up the plan. Where there are
 * no reservation pods (binder.h's AUTO mode without the namespace) its
 * GPU-group labels and received-resource-type are set here before the bind
 * and removed again if the bind fails. Either way the pod is a bind in
 * flight (cache.h) until its watch event shows it bound: the labels change
 * its resourceVersion, so an assumed copy could be overwritten by the label
 * event and show it unbound.
 *
 * Deletes: stale BindRequests and unused reservation pods (plan.h).
 *
 * Eviction: the Eviction API (policy/v1), which honours PodDisruptionBudgets;
 * its 429 leaves the pod alone for this cycle (the next cycle decides
 * again). Or, with --evict-by-delete, DELETE with the grace period.
 *
 * Transport errors and 5xx are retried twice with backoff; writes are
 * idempotent (merge patches; events with a name derived from their
 * content; binds checked as above).
 */
#ifndef GT_WRITER_H
#define GT_WRITER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/session.h"
#include "kube/cache.h"
#include "kube/http.h"
#include "scheduler/binder.h"
#include "scheduler/writes.h"
#include "util/histogram.h"

struct gt_writer_opts {
	int workers;		/* concurrent writes; default 16 */
	bool evict_by_delete;	/* DELETE instead of the Eviction API */
	int64_t grace_period_s;	/* < 0: the pod's own */
	const char *component;	/* events' source: the scheduler name */
	const char *instance;	/* events' reporting instance */
	struct gt_binder_opts reservation;	/* GPU sharing (zero: KAI's defaults, AUTO) */
	/* BindRequest mode (--bind-requests): write a BindRequest per bind, as KAI's scheduler */
	bool bind_requests;
	const char *pool_key, *pool_value;	/* the node pool's label, copied onto BindRequests; NULL: none */
};

struct gt_writer_stats {
	atomic_ulong binds, bind_errors;
	atomic_ulong bind_requests;	/* BindRequests created (BindRequest mode; each also counts in binds) */
	atomic_ulong evictions[GT_N_ACTIONS];
	atomic_ulong evictions_refused, eviction_errors;
	atomic_ulong patches, patch_errors;
	atomic_ulong events, event_errors;
	atomic_ulong deletes, delete_errors;
	struct gt_histogram bind_ms;	/* binds' requests (the binder's too), ms (KAI's task_bind_latency) */
};

struct gt_writer;

struct gt_writer *gt_writer_new(struct gt_kube_client *cl, struct gt_cache *cache,
				const struct gt_writer_opts *o);
/*
 * Run every write of @plan; returns when all are done (or given up), except
 * shared-GPU binds handed to the binder, which go on in the background.
 */
void gt_writer_run(struct gt_writer *w, const struct gt_writes *plan);
/* Shared-GPU binds still in the binder's hands. */
size_t gt_writer_binds_in_flight(struct gt_writer *w);
/* Wait for them (or a stop); a stop hook: gt_writer_wake(). */
void gt_writer_wait_binds(struct gt_writer *w);
void gt_writer_wake(void *w);
const struct gt_writer_stats *gt_writer_stats(const struct gt_writer *w);
/* Stop the workers and the binder (binds waiting for a reservation pod are given up) and free; call between runs. */
void gt_writer_free(struct gt_writer *w);

#endif /* GT_WRITER_H */
