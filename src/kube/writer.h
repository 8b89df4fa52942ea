/*
 * writer.h - carry out a cycle's plan against the API server
 *
 * A fixed pool of worker threads (--write-workers) runs the plan's writes
 * concurrently; every request passes the client's QPS/burst limiter. The
 * cycle waits for the whole plan before the next snapshot, as KAI waits for
 * its status workers, so the next cycle sees the outcome.
 *
 * Binding: the GPU group labels first (a merge patch), then the pod's
 * binding subresource with the pod's UID as precondition. A retried bind
 * that meets 409 "already assigned" reads the pod: bound to our node means
 * an earlier attempt succeeded. On success the cache assumes the pod bound
 * (spec.nodeName, labels) until its watch event arrives, so the next cycle
 * cannot bind it again. A restarted scheduler needs none of this memory:
 * pods already bound are Bound in its first snapshot.
 *
 * Eviction: the Eviction API (policy/v1), which honours PodDisruptionBudgets;
 * its 429 leaves the pod alone for this cycle (the next cycle decides
 * again). Or, with --evict-by-delete, DELETE with the grace period.
 *
 * Transport errors and 5xx are retried twice with backoff; writes are
 * idempotent (merge patches; events with a name derived from their
 * content; binds checked as above).
 */
#ifndef GT_KUBE_WRITER_H
#define GT_KUBE_WRITER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/session.h"
#include "kube/cache.h"
#include "kube/http.h"
#include "kube/plan.h"

struct gt_writer_opts {
	int workers;		/* concurrent writes; default 16 */
	bool evict_by_delete;	/* DELETE instead of the Eviction API */
	int64_t grace_period_s;	/* < 0: the pod's own */
	const char *component;	/* events' source: the scheduler name */
	const char *instance;	/* events' reporting instance */
};

struct gt_writer_stats {
	atomic_ulong binds, bind_errors;
	atomic_ulong evictions[GT_N_ACTIONS];
	atomic_ulong evictions_refused, eviction_errors;
	atomic_ulong patches, patch_errors;
	atomic_ulong events, event_errors;
};

struct gt_writer;

struct gt_writer *gt_writer_new(struct gt_kube_client *cl, struct gt_cache *cache,
				const struct gt_writer_opts *o);
/* Run every write of @plan; returns when all are done (or given up). */
void gt_writer_run(struct gt_writer *w, const struct gt_kplan *plan);
const struct gt_writer_stats *gt_writer_stats(const struct gt_writer *w);
/* Stop the workers and free; call between runs. */
void gt_writer_free(struct gt_writer *w);

#endif /* GT_KUBE_WRITER_H */
