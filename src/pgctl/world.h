/*
 * world.h - what the podgrouper's rules consult besides a pod's owners
 *
 * One scan's view of the cluster, made by the controller (controller.c)
 * and read by the reconcile of each pod (reconcile.c), which includes
 * nothing of the controller: the controller builds worlds and runs
 * reconciles, a reconcile reads a world.
 */
#ifndef GT_PGCTL_WORLD_H
#define GT_PGCTL_WORLD_H

#include <stdatomic.h>
#include <stddef.h>

#include "kube/cache.h"
#include "kube/owners.h"
#include "podgrouper/podgrouper.h"

/* Where KAI's Kartas are served (kartas, cluster-scoped). */
#define GT_PGCTL_KARTA_API "run.ai/v1alpha1"

/*
 * What the rules may consult besides the owners, as of one scan: the pods
 * and PodGroups, and the cluster's Kartas (the watched ones of @owners),
 * sorted by namespace, so a namespace is a slice (the Kartas' is ""), indexed,
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


/*
 * A world from @cache's pods, PodGroups and PriorityClasses and the Kartas
 * @owners watches, over the base configuration @base, with the per-kind
 * defaults ConfigMap read by name through @owners (at most once per its
 * ttl). One reference.
 */
struct gt_pgctl_world *gt_pgctl_world_build(struct gt_cache *cache, const struct gt_pg_config *base,
					    struct gt_owners *owners);
struct gt_pgctl_world *gt_pgctl_world_ref(struct gt_pgctl_world *w);
void gt_pgctl_world_unref(struct gt_pgctl_world *w);
/* The objects of namespace @ns: docs[*lo .. *lo + *n). */
void gt_pgctl_world_slice(const struct gt_pgctl_world *w, const char *ns, size_t *lo, size_t *n);

#endif /* GT_PGCTL_WORLD_H */
