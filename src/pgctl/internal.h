/*
 * internal.h - what the podgrouper controller's files share; not an API
 *
 * podgrouper_ctl.c runs the machinery (which pods need work, the queue, the
 * workers, the world they read); podgrouper_sync.c does one pod (owners,
 * grouping, the PodGroup, the pod, the warning); podgrouper_cmd.c is the
 * `gantry podgrouper` command.
 */
#ifndef GT_PGCTL_INTERNAL_H
#define GT_PGCTL_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "kube/cache.h"
#include "kube/http.h"
#include "kube/owners.h"
#include "pgctl/pgctl.h"
#include "podgrouper/podgrouper.h"

/* What reconciling one pod uses besides the pod. */
struct gt_pgctl_env {
	struct gt_kube_client *cl;
	struct gt_cache *cache;
	struct gt_owners *owners;
	struct gt_pgctl_stats *stats;
	const char *component;	/* events' source */
	const char *instance;	/* events' reporting instance */
};

/*
 * What the rules may consult besides the owners, as of one scan: the pods
 * and PodGroups (sorted by namespace, so a namespace is a slice), indexed,
 * and the configuration with the cluster's PriorityClasses and the per-kind
 * defaults ConfigMap. Immutable and reference-counted: a worker keeps the
 * one it started with while a newer one replaces it.
 */
struct gt_pgctl_world {
	atomic_int refs;
	struct gt_pg_config cfg;	/* the base, shallow, with the two arrays below */
	struct gt_pg_config extra;	/* owns the PriorityClasses and defaults cfg uses */
	struct gt_kobj **objs;		/* referenced */
	const struct gt_doc **docs;	/* objs[i]->doc */
	size_t n;
	struct gt_pg_index index;	/* of docs */
	double built;			/* monotonic seconds */
};

/* The objects of namespace @ns: docs[*lo .. *lo + *n). */
void gt_pgctl_world_slice(const struct gt_pgctl_world *w, const char *ns, size_t *lo, size_t *n);

enum gt_pgctl_result {
	GT_PGR_OK,		/* grouped, or nothing to do */
	GT_PGR_SOON,		/* a write conflicted: try again in a moment */
	GT_PGR_FAIL,		/* try again with backoff */
};

struct gt_pgctl_outcome {
	enum gt_pgctl_result result;
	char rv_written[64];	/* the pod's resourceVersion after our patch, or "" */
	char pg[256];		/* the PodGroup the pod is in, or "" */
};

/*
 * Group @pod (a cached object) and write what it needs. Owners read before
 * @read_after (gt_mono_s(); 0: whenever) are read again: a retry after a
 * failure sees what the user fixed meanwhile.
 */
void gt_pgctl_reconcile(const struct gt_pgctl_env *env, const struct gt_pgctl_world *w,
			const struct gt_kobj *pod, double read_after, struct gt_pgctl_outcome *out);

#endif /* GT_PGCTL_INTERNAL_H */
