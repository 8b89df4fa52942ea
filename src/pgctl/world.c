/*
 * world.c - the podgrouper's view of the cluster as of one scan
 */
#include "pgctl/world.h"

#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"

struct gt_pgctl_world *gt_pgctl_world_ref(struct gt_pgctl_world *w)
{
	if (w)
		atomic_fetch_add(&w->refs, 1);
	return w;
}

void gt_pgctl_world_unref(struct gt_pgctl_world *w)
{
	if (!w || atomic_fetch_sub(&w->refs, 1) != 1)
		return;
	gt_pg_index_release(&w->index);
	for (size_t i = 0; i < w->n; i++)
		gt_kobj_unref(w->objs[i]);
	free(w->objs);
	free(w->docs);
	gt_pg_config_release(&w->extra);
	free(w);
}

static int by_namespace(const void *a, const void *b)
{
	const struct gt_kobj *x = *(struct gt_kobj *const *)a, *y = *(struct gt_kobj *const *)b;
	int c = strcmp(x->ns, y->ns);
	return c ? c : strcmp(x->name, y->name);
}

void gt_pgctl_world_slice(const struct gt_pgctl_world *w, const char *ns, size_t *lo, size_t *n)
{
	size_t a = 0, b = w->n;
	while (a < b) {		/* the first object of @ns or after it */
		size_t mid = a + (b - a) / 2;
		if (strcmp(w->objs[mid]->ns, ns) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	size_t end = a;
	while (end < w->n && !strcmp(w->objs[end]->ns, ns))
		end++;
	*lo = a;
	*n = end - a;
}

/* The PriorityClasses that exist and the per-kind defaults, over the base configuration. */
static void world_config(struct gt_cache *cache, const struct gt_pg_config *base, struct gt_owners *owners,
			 struct gt_pgctl_world *w)
{
	w->cfg = *base;
	memset(&w->extra, 0, sizeof(w->extra));
	for (size_t i = 0; i < base->n_priority_classes; i++)
		gt_pg_config_add_priority_class(&w->extra, base->priority_classes[i]);
	size_t n;
	struct gt_kobj **pcs = gt_cache_list(cache, GT_KRES_PRIORITYCLASSES, &n);
	for (size_t i = 0; i < n; i++) {
		gt_pg_config_add_priority_class(&w->extra, pcs[i]->name);
		gt_kobj_unref(pcs[i]);
	}
	free(pcs);
	w->cfg.priority_classes = w->extra.priority_classes;
	w->cfg.n_priority_classes = w->extra.n_priority_classes;
	if (!base->defaults_cm_name || !base->defaults_cm_namespace)
		return;
	/* one object of a namespace, read by name: at most once per --owner-cache-ttl */
	struct gt_kobj *cm;
	struct gt_err err = { 0 };
	struct gt_owner_ref ref = { "v1", "ConfigMap", base->defaults_cm_namespace, base->defaults_cm_name, NULL };
	int rc = gt_owners_get(owners, &ref, 0, GT_OWNERS_BY_NAME, &cm, &err);
	if (rc) {
		if (rc != GT_ENOTFOUND)
			gt_log(GT_LOG_WARN, "podgrouper", "per-kind defaults: %s", err.msg);
		return;
	}
	if (gt_pg_config_set_defaults(&w->extra, cm->doc, &err))
		gt_log(GT_LOG_WARN, "podgrouper", "per-kind defaults ignored: %s", err.msg);
	else {
		w->cfg.defaults = w->extra.defaults;
		w->cfg.n_defaults = w->extra.n_defaults;
	}
	gt_kobj_unref(cm);
}

struct gt_pgctl_world *gt_pgctl_world_build(struct gt_cache *cache, const struct gt_pg_config *base,
					    struct gt_owners *owners)
{
	struct gt_pgctl_world *w = gt_xcalloc(1, sizeof(*w));
	atomic_init(&w->refs, 1);
	size_t np, ng, nk;
	struct gt_kobj **pods = gt_cache_list(cache, GT_KRES_PODS, &np);
	struct gt_kobj **pgs = gt_cache_list(cache, GT_KRES_PODGROUPS, &ng);
	/* cluster-scoped: their namespace is "", the first slice */
	struct gt_kobj **kartas = gt_owners_list(owners, GT_PGCTL_KARTA_API, "Karta", &nk);
	w->n = np + ng + nk;
	w->objs = gt_xmalloc((w->n + 1) * sizeof(*w->objs));
	memcpy(w->objs, pods, np * sizeof(*pods));
	memcpy(w->objs + np, pgs, ng * sizeof(*pgs));
	memcpy(w->objs + np + ng, kartas, nk * sizeof(*kartas));
	free(pods);
	free(pgs);
	free(kartas);
	qsort(w->objs, w->n, sizeof(*w->objs), by_namespace);
	w->docs = gt_xmalloc((w->n + 1) * sizeof(*w->docs));
	for (size_t i = 0; i < w->n; i++)
		w->docs[i] = w->objs[i]->doc;
	gt_pg_index_build(&w->index, w->docs, w->n);
	world_config(cache, base, owners, w);
	w->built = gt_mono_s();
	return w;
}
