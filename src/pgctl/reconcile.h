/*
 * reconcile.h - one pod: its owners, its PodGroup, its annotation
 *
 * The steps of KAI's pod reconciler (KAI-SPEC 8.1) for one cached pod, as
 * the controller (controller.c) hands it over with the world of its scan.
 */
#ifndef GT_PGCTL_RECONCILE_H
#define GT_PGCTL_RECONCILE_H

#include <stdbool.h>

#include "kube/cache.h"
#include "kube/http.h"
#include "kube/owners.h"
#include "pgctl/pgctl.h"
#include "pgctl/world.h"

/* What reconciling one pod uses besides the pod. */
struct gt_pgctl_env {
	struct gt_kube_client *cl;
	struct gt_cache *cache;
	struct gt_owners *owners;
	struct gt_pgctl_stats *stats;
	const char *component;	/* events' source */
	const char *instance;	/* events' reporting instance */
};

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

#endif /* GT_PGCTL_RECONCILE_H */
