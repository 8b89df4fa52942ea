/*
 * pgctl.h - `gantry podgrouper`: PodGroups for pods, on a cluster
 *
 * The controller that puts the grouping rules of src/podgrouper to work on a
 * live cluster, as KAI's podgrouper does (KAI-SPEC section 8.1):
 *
 *  1. it watches the pods (the cache the reflectors fill) and picks those
 *     whose spec.schedulerName is ours, not finished and not being deleted,
 *     that are new or changed since it last looked at them;
 *  2. it follows each pod's owner references up to the top owner through the
 *     API (owners.h: cached, so a 1,000-pod job costs a handful of reads);
 *  3. it asks the pure module (gt_pg_group_pod) for the PodGroup;
 *  4. it creates the PodGroup, or patches it when it differs, keeping what
 *     the user set by hand: the queue, markUnschedulable, schedulingBackoff
 *     and the node-pool label of an existing PodGroup;
 *  5. it annotates the pod with pod-group-name (and runai-job-id, the top
 *     owner's uid, as KAI does) and labels it kai.scheduler/subgroup-name
 *     when the pod joins a sub-group.
 *
 * A pod that cannot be grouped (a PyTorchJob with 0 workers, an owner the
 * API server does not serve) gets a Warning event PodGrouperWarning naming
 * the object and the field, once per message (the event's name derives from
 * it), and is tried again with backoff (1 s doubling to 1 min, as KAI's
 * rate limiter): the retry reads the owners afresh, so fixing the owner is
 * enough. A pod that carries pod-group-name and has no owner is the user's
 * own and is left alone.
 *
 * Everything written is compared with what the object already says first, so
 * a steady state, or a restart, writes nothing. Work runs on a bounded pool
 * of workers; a pod is never worked on by two at once. The controller sleeps
 * on the cache and reacts at once to a pod's change, to a retry falling due
 * and to a PodGroup deleted under its pods; an idle cluster costs nothing.
 */
#ifndef GT_PGCTL_H
#define GT_PGCTL_H

#include <stdatomic.h>
#include <stdbool.h>

#include "kube/cache.h"
#include "kube/http.h"
#include "podgrouper/podgrouper.h"

struct gt_pgctl_opts {
	const struct gt_pg_config *cfg;	/* borrowed: outlives the controller */
	int workers;			/* concurrent pods; default 8 */
	double owner_ttl_s;		/* how long an owner read is trusted; default 30 */
	const char *component;		/* events' source; default "pod-grouper", as KAI's */
	/*
	 * Work only while *@active (this replica leads: the scheduler's
	 * leadership flag); NULL: always. Whoever changes it calls
	 * gt_cache_wake() on the cache, which the controller sleeps on.
	 */
	const atomic_bool *active;
};

struct gt_pgctl_stats {
	atomic_ulong reconciles;	/* pods looked at */
	atomic_ulong grouped;		/* pods annotated or labelled */
	atomic_ulong created, patched;	/* PodGroups */
	atomic_ulong warnings;		/* PodGrouperWarning events created */
	atomic_ulong failures;		/* attempts that will be retried */
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
