/*
 * reconcile.h - one pod: its owners, its PodGroup, its annotation
 *
 * The steps of KAI's pod reconciler (KAI-SPEC 8.1) for one cached pod, as
 * the controller (controller.c) hands it over with the world of its scan.
 */
#ifndef GT_PGCTL_RECONCILE_H
#define GT_PGCTL_RECONCILE_H

#include <pthread.h>
#include <stdbool.h>

#include "kube/cache.h"
#include "kube/http.h"
#include "kube/owners.h"
#include "pgctl/pgctl.h"
#include "pgctl/world.h"
#include "util/smap.h"

/*
 * PodGroups this controller is creating, or created (or found on a 409) a
 * moment ago, until the cache has them: the other pods of a gang arriving
 * together wait for the one worker creating it and compare with its copy,
 * instead of each creating the PodGroup again, meeting 409 and reading it.
 */
struct gt_pgctl_recent {
	pthread_mutex_t mu;
	pthread_cond_t made;	/* a creation ended */
	struct gt_smap pgs;	/* "namespace/name" -> struct recent (reconcile.c) */
};

void gt_pgctl_recent_init(struct gt_pgctl_recent *r);
void gt_pgctl_recent_release(struct gt_pgctl_recent *r);

/* What reconciling one pod uses besides the pod. */
struct gt_pgctl_env {
	struct gt_kube_client *cl;
	struct gt_cache *cache;
	struct gt_owners *owners;
	struct gt_pgctl_stats *stats;
	const struct gt_pgctl_selector *namespaces;	/* --namespace-label-selector, or NULL */
	struct gt_pgctl_recent *recent;
	const char *component;	/* events' source */
	const char *instance;	/* events' reporting instance */
};

enum gt_pgctl_result {
	GT_PGR_OK,		/* grouped, or nothing to do */
	GT_PGR_SOON,		/* a write conflicted: try again in a moment */
	GT_PGR_FAIL,		/* try again with backoff */
};

/* The objects a pod's grouping may read besides the pod: owners, related objects, its namespace. */
#define GT_PGCTL_MAX_READ 24

struct gt_pgctl_outcome {
	enum gt_pgctl_result result;
	enum gt_pgctl_skip skip;	/* left alone, and why */
	char why[512];		/* the reason in words, naming the object that has it */
	char rv_written[64];	/* the pod's resourceVersion after our patch, or "" */
	char pg[256];		/* the PodGroup the pod is in, or "" */
	/* the uids of the watched objects read: a change to one brings the pod back */
	char read[GT_PGCTL_MAX_READ][64];
	size_t n_read;
};

/*
 * Group @pod (a cached object) and write what it needs. Owners read before
 * @read_after (gt_mono_s(); 0: whenever) are read again: a retry after a
 * failure sees what the user fixed meanwhile.
 */
void gt_pgctl_reconcile(const struct gt_pgctl_env *env, const struct gt_pgctl_world *w,
			const struct gt_kobj *pod, double read_after, struct gt_pgctl_outcome *out);

#endif /* GT_PGCTL_RECONCILE_H */
