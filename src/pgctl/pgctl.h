/*
 * pgctl.h - `gantry podgrouper`: PodGroups for pods, on a cluster
 *
 * The controller that puts the grouping rules of src/podgrouper to work on a
 * live cluster, as KAI's podgrouper does (pkg/podgrouper/pod_controller.go):
 *
 *  1. it watches the pods (the cache the reflectors fill) and picks those
 *     whose spec.schedulerName is ours, not finished and not being deleted,
 *     that match --pod-label-selector, and that are new or changed since it
 *     last looked at them, or whose owners changed;
 *  2. it leaves alone a pod of a namespace --namespace-label-selector does
 *     not select, a pod annotated kai.scheduler/skip-podgrouper (or one of
 *     whose owners is), and a pod without owner that names its PodGroup;
 *  3. it follows each pod's owner references up to the top owner
 *     (owners.h: each owner kind is watched from its first use, so a
 *     1,000-pod job costs one LIST of each kind, and a changed owner, a new
 *     replica count say, brings its pods back at once);
 *  4. it asks the pure module (gt_pg_group_pod) for the PodGroup, with the
 *     pods and PodGroups of the pod's namespace and the cluster's Kartas
 *     (watched from the start, for --generic-karta-fallback);
 *  5. it creates the PodGroup, or updates it as KAI's handler.go does
 *     (gt_pg_podgroup_update: what people and other controllers set stays);
 *  6. it annotates the pod with pod-group-name (and runai-job-id, the top
 *     owner's uid, as KAI does) and labels it kai.scheduler/subgroup-name
 *     when the pod joins a sub-group.
 *
 * A pod that cannot be grouped (a PyTorchJob with 0 workers, an owner the
 * API server does not serve) gets a Warning event PodGrouperWarning naming
 * the object and the field, once per message (the event's name derives from
 * it), and is tried again with backoff (1 s doubling to 1 min, as KAI's
 * rate limiter): the retry reads the owners afresh, so fixing the owner is
 * enough. A grouping that succeeded with a warning (a Karta passed over) is
 * reported the same way.
 *
 * Everything written is compared with what the object already says first, so
 * a steady state, or a restart, writes nothing. Work runs on a bounded pool
 * of workers; a pod is never worked on by two at once. The controller sleeps
 * on the cache and reacts at once to a pod's change, to an owner's, to a
 * retry falling due and to a PodGroup deleted under its pods; an idle
 * cluster costs nothing.
 */
#ifndef GT_PGCTL_H
#define GT_PGCTL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "kube/cache.h"
#include "kube/http.h"
#include "podgrouper/podgrouper.h"

/* One key=value of a label selector. */
struct gt_pgctl_label {
	char *key, *value;
};

/* KAI's label selector: every label must be there with its value; empty: everything. */
struct gt_pgctl_selector {
	struct gt_pgctl_label *labels;
	size_t n, cap;
};

/*
 * Parse KAI's "key=value,key=value" (options.go): a pair without "=" is
 * dropped with a warning naming --@flag, as KAI drops it.
 */
void gt_pgctl_selector_parse(const char *flag, const char *text, struct gt_pgctl_selector *sel);
/* Does object @obj carry every label of @sel (NULL or empty: yes)? */
bool gt_pgctl_selector_match(const struct gt_pgctl_selector *sel, const struct gt_doc *obj);
void gt_pgctl_selector_release(struct gt_pgctl_selector *sel);

struct gt_pgctl_opts {
	const struct gt_pg_config *cfg;	/* borrowed: outlives the controller */
	int workers;			/* concurrent pods; default 10, KAI's */
	double owner_ttl_s;		/* how long an owner read by name is trusted; default 30 */
	bool owners_by_name;		/* read every owner by name: no watches */
	int page_size, watch_timeout_s;	/* the owner watches' LIST page and timeout */
	const struct gt_pgctl_selector *pods;		/* --pod-label-selector, or NULL */
	const struct gt_pgctl_selector *namespaces;	/* --namespace-label-selector, or NULL */
	const char *component;		/* events' source; default "pod-grouper", as KAI's */
	/*
	 * Work only while *@active (this replica leads: the scheduler's
	 * leadership flag); NULL: always. Whoever changes it calls
	 * gt_cache_wake() on the cache, which the controller sleeps on.
	 */
	const atomic_bool *active;
};

/*
 * Why a pod of ours is left without a PodGroup: the metric's reason label
 * (gt_pgctl_skip_names) and the log line said once per pod.
 */
enum gt_pgctl_skip {
	GT_PGCTL_NOT_SKIPPED,
	GT_PGCTL_SKIP_ANNOTATED,	/* the pod: kai.scheduler/skip-podgrouper "true" */
	GT_PGCTL_SKIP_OWNER_ANNOTATED,	/* one of its owners */
	GT_PGCTL_SKIP_OWN_PODGROUP,	/* no owner, and it names its PodGroup already */
	GT_PGCTL_SKIP_NAMESPACE,	/* --namespace-label-selector does not select its namespace */
	GT_PGCTL_SKIP_N
};
extern const char *const gt_pgctl_skip_names[GT_PGCTL_SKIP_N];

/* Reconcile latencies: controller-runtime's buckets, in seconds. */
#define GT_PGCTL_N_BUCKETS 40

struct gt_pgctl_stats {
	atomic_ulong reconciles;	/* pods looked at */
	atomic_ulong grouped;		/* pods annotated or labelled */
	atomic_ulong created, patched;	/* PodGroups */
	atomic_ulong warnings;		/* PodGrouperWarning events created */
	atomic_ulong failures;		/* attempts that will be retried with backoff */
	atomic_ulong requeues;		/* attempts that met a conflict: again in a moment */
	atomic_ulong skipped[GT_PGCTL_SKIP_N];	/* pods left alone, by reason (each pod once per reason) */
	atomic_ulong adds;		/* pods queued */
	atomic_ulong retries;		/* of which retries after a failure or a conflict */
	atomic_ulong owner_changes;	/* owner changes that brought pods back */
	atomic_ulong buckets[GT_PGCTL_N_BUCKETS + 1];	/* reconciles by latency, the last +Inf */
	atomic_ulong sum_us;		/* and their total, microseconds */
};

struct gt_pgctl;

/*
 * Start the controller on @cache, which reflectors keep filled with (at
 * least) pods, PodGroups and PriorityClasses; it waits for them to sync.
 */
struct gt_pgctl *gt_pgctl_start(struct gt_kube_client *cl, struct gt_cache *cache,
				const struct gt_pgctl_opts *o);
/*
 * Look at every cached pod now and wait until each that needed work has had
 * an attempt. False when @timeout_s passed first or the controller stops.
 */
bool gt_pgctl_settle(struct gt_pgctl *c, double timeout_s);
const struct gt_pgctl_stats *gt_pgctl_stats(const struct gt_pgctl *c);
/* Owner reads and cache hits, for the log. */
void gt_pgctl_owner_counts(const struct gt_pgctl *c, unsigned long *reads, unsigned long *hits);
/* Are the caches it needs (pods, PodGroups, PriorityClasses, Kartas) listed? For /readyz. */
bool gt_pgctl_ready(const struct gt_pgctl *c);
/*
 * The controller's Prometheus series (docs/podgrouper.md): controller-
 * runtime's reconcile and work-queue metrics for controller "pod-grouper",
 * and Gantry's own (PodGroups, owners, watches).
 */
void gt_pgctl_metrics_write(const struct gt_pgctl *c, FILE *out);
/*
 * Stop and free. Call it after gt_kube_client_stop(), so that requests in
 * flight return at once, and before the reflectors are joined.
 */
void gt_pgctl_stop(struct gt_pgctl *c);

/*
 * The podgrouper's configuration: KAI's defaults (gt_pg_config_init), then
 * the YAML file @path when not NULL (docs/podgrouper.md). 0, or an error
 * naming the file and the key; @cfg is initialised either way.
 */
int gt_pgctl_load_config(const char *path, struct gt_pg_config *cfg, struct gt_err *err);

/* Run `gantry podgrouper ARGS` (argv[0] = "podgrouper"); the process exit status. */
int gt_podgrouper_main(int argc, char **argv);

#endif /* GT_PGCTL_H */
