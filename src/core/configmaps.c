/*
 * configmaps.c - KAI's ConfigMap predicate: a pod waits for the ConfigMaps it
 * cannot start without
 *
 * A pod that mounts a ConfigMap or reads one into its environment (not
 * optionally) would sit in ContainerCreating on any node until the ConfigMap
 * exists, holding resources others could use. KAI leaves such a pod
 * unscheduled with "Missing required configmaps: [...]"; so does Gantry, when
 * it knows the cluster's ConfigMaps (cluster.h configmaps_known).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/actions.h"
#include "core/session.h"
#include "util/mem.h"

struct named {
	const char *text;
	uint32_t id;
};

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->text, ((const struct named *)b)->text);
}

void gt_cluster_sort_configmaps(struct gt_cluster *c)
{
	struct named *v = gt_xmalloc((c->n_configmaps + 1) * sizeof(*v));
	for (uint32_t i = 0; i < c->n_configmaps; i++)
		v[i] = (struct named){ gt_strtab_str(c->names, c->configmaps[i]), c->configmaps[i] };
	qsort(v, c->n_configmaps, sizeof(*v), by_text);
	for (uint32_t i = 0; i < c->n_configmaps; i++)
		c->configmaps[i] = v[i].id;
	free(v);
}

static bool configmap_exists(const struct gt_cluster *c, const char *key)
{
	size_t lo = 0, hi = c->n_configmaps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(key, gt_strtab_str(c->names, c->configmaps[mid]));
		if (!cmp)
			return true;
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

bool gt_job_misses_configmaps(const struct gt_session *s, int32_t job, char *msg, size_t cap)
{
	const struct gt_job *j = &s->c->jobs[job];
	if (!s->c->configmaps_known)
		return false;
	for (uint32_t i = 0; i < j->n_pods; i++)
		if (s->pods[j->pods[i]].status == GT_PENDING && s->c->pods[j->pods[i]].ours &&
		    gt_pod_configmaps_missing(s->c, j->pods[i], msg, cap))
			return true;
	return false;
}

bool gt_pod_configmaps_missing(const struct gt_cluster *c, int32_t pod, char *msg, size_t cap)
{
	const struct gt_pod *p = &c->pods[pod];
	if (!c->configmaps_known || !p->n_configmaps)
		return false;
	size_t off = 0;
	bool any = false;
	for (uint32_t i = 0; i < p->n_configmaps; i++) {
		char key[600];
		const char *name = gt_strtab_str(c->names, p->configmaps[i]);
		snprintf(key, sizeof(key), "%s/%s", gt_strtab_str(c->names, p->ns), name);
		if (configmap_exists(c, key))
			continue;
		/* Go's %v of the []string: "[a b]" */
		off += (size_t)snprintf(msg + off, off < cap ? cap - off : 0, "%s%s", any ? " " : "Missing required configmaps: [",
					name);
		any = true;
	}
	if (any)
		snprintf(msg + off, off < cap ? cap - off : 0, "]");
	return any;
}
