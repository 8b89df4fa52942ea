/*
 * rules_ray.c - KubeRay: RayCluster, RayJob and RayService
 *
 * A Ray cluster is one gang: its head and every worker group at its minimum
 * (minReplicas when set, else replicas, times numOfHosts), with a sub-group
 * per group so that each is placed whole. This is how KubeRay sizes the
 * gangs it asks of Volcano. A RayJob or RayService is grouped by the
 * RayCluster it runs on (status.rayClusterName), under its own name.
 */
#include <stdio.h>
#include <string.h>

#include "podgrouper/internal.h"

#define RAY_GROUP_LABEL "ray.io/group"
#define RAY_HEAD_GROUP "headgroup"
#define RAY_PRIORITY_LABEL "ray.io/priority-class-name"

/* The RayCluster named @name, or the one that owns the pod when @name is NULL. */
static int cluster_by_name(struct gt_pg_ctx *x, const char *name, const char *field,
			   const struct gt_doc **out)
{
	if (name) {
		*out = gt_pg_find(x, "RayCluster", gt_pg_ns(x->top.doc), name);
		if (!*out)
			return gt_pg_fail(x, "RayCluster %s/%s (%s of %s) is not known",
					  gt_pg_ns(x->top.doc), name, field, gt_pg_id(x->top.doc).s);
		return 0;
	}
	/* objects written by hand lack status; the owner chain still knows */
	for (size_t i = 0; i < x->req->n_owners; i++) {
		if (!strcmp(gt_pg_kind(x->req->owners[i]), "RayCluster")) {
			*out = x->req->owners[i];
			return 0;
		}
	}
	return gt_pg_fail(x, "%s has no %s and no RayCluster owns %s; is the KubeRay operator "
			  "running?", gt_pg_id(x->top.doc).s, field, gt_pg_id(x->pod).s);
}

static int find_cluster(struct gt_pg_ctx *x, const struct gt_doc **out)
{
	const char *kind = gt_pg_kind(x->top.doc);
	const struct gt_doc *status = gt_doc_get(x->top.doc, "status");
	if (!strcmp(kind, "RayJob"))
		return cluster_by_name(x, gt_doc_str(status, "rayClusterName"),
				       "status.rayClusterName", out);
	if (!strcmp(kind, "RayService")) {
		const char *name = gt_doc_str(gt_doc_get(status, "activeServiceStatus"),
					      "rayClusterName");
		if (!name)
			name = gt_doc_str(gt_doc_get(status, "pendingServiceStatus"), "rayClusterName");
		return cluster_by_name(x, name, "status.activeServiceStatus.rayClusterName", out);
	}
	*out = x->top.doc;
	return 0;
}

/* A group's topology from its pod template's annotations. */
static int template_topology(struct gt_pg_ctx *x, const struct gt_doc *cluster,
			     const struct gt_doc *group, const char *field,
			     struct gt_pg_subgroup *sg)
{
	const struct gt_doc *a = gt_doc_path(group, "template.metadata.annotations");
	const char *topo = gt_doc_str(a, GT_PG_TOPOLOGY);
	const char *req = gt_doc_str(a, GT_PG_TOPOLOGY_REQUIRED);
	const char *pref = gt_doc_str(a, GT_PG_TOPOLOGY_PREFERRED);
	if ((!req || !*req) && (!pref || !*pref))
		return 0;	/* a topology name alone constrains nothing */
	if (!topo || !*topo)
		return gt_pg_fail(x, "%s: %s.template sets a topology placement without annotation %s",
				  gt_pg_id(cluster).s, field, GT_PG_TOPOLOGY);
	gt_pg_set_topology(&sg->topology, topo, req, pref);
	return 0;
}

static int group_count(struct gt_pg_ctx *x, const struct gt_doc *cluster, const struct gt_doc *g,
		       const char *key, const char *field, int64_t dflt, int64_t *out)
{
	*out = dflt;
	int rc = gt_pg_int(gt_doc_get(g, key), out);
	if (rc == GT_EINVAL || *out < 0)
		return gt_pg_fail(x, "%s: %s.%s is not a non-negative integer", gt_pg_id(cluster).s,
				  field, key);
	return 0;
}

/* One worker group: its sub-group and its share of the gang (0: skipped). */
static int worker_group(struct gt_pg_ctx *x, const struct gt_doc *cluster, const struct gt_doc *g,
			size_t i, struct gt_podgroup *pg, int64_t *members)
{
	char field[64], name[48];
	snprintf(field, sizeof(field), "spec.workerGroupSpecs[%zu]", i);
	*members = 0;
	const char *suspended = gt_doc_str(g, "suspended");
	if (suspended && !strcmp(suspended, "true"))
		return 0;
	int64_t replicas, min, hosts;
	int rc = group_count(x, cluster, g, "replicas", field, 0, &replicas);
	rc = rc ? rc : group_count(x, cluster, g, "minReplicas", field, 0, &min);
	rc = rc ? rc : group_count(x, cluster, g, "numOfHosts", field, 1, &hosts);
	if (rc)
		return rc;
	if (min > replicas)
		return gt_pg_fail(x, "%s: %s has minReplicas %lld above replicas %lld",
				  gt_pg_id(cluster).s, field, (long long)min, (long long)replicas);
	if (!replicas)
		return 0;
	*members = (min > 0 ? min : replicas) * hosts;
	const char *group_name = gt_doc_str(g, "groupName");
	if (!group_name || !*group_name) {
		snprintf(name, sizeof(name), "worker-group-%zu", i);
		group_name = name;
	}
	return template_topology(x, cluster, g, field, gt_pg_add_subgroup(pg, group_name,
									 *members, NULL));
}

static int cluster_gang(struct gt_pg_ctx *x, const struct gt_doc *cluster, struct gt_podgroup *pg)
{
	const struct gt_doc *spec = gt_doc_get(cluster, "spec");
	struct gt_pg_subgroup *head = gt_pg_add_subgroup(pg, RAY_HEAD_GROUP, 1, NULL);
	int rc = template_topology(x, cluster, gt_doc_get(spec, "headGroupSpec"),
				   "spec.headGroupSpec", head);
	int64_t total = 1;
	const struct gt_doc *groups = gt_doc_get(spec, "workerGroupSpecs");
	for (size_t i = 0; !rc && groups && groups->kind == GT_DOC_SEQ && i < groups->n; i++) {
		int64_t members;
		rc = worker_group(x, cluster, groups->items[i], i, pg, &members);
		total += members;
		if (!rc && total > INT32_MAX)
			rc = gt_pg_fail(x, "%s asks for more than %d pods", gt_pg_id(cluster).s,
					INT32_MAX);
	}
	pg->min_member = (int32_t)total;
	return rc;
}

/* A PodGroup made before KAI had Ray sub-groups keeps having none. */
static bool legacy_without_subgroups(const struct gt_pg_ctx *x, const struct gt_podgroup *pg)
{
	const struct gt_doc *old = gt_pg_find(x, "PodGroup", pg->namespace, pg->name);
	const struct gt_doc *subs = gt_doc_path(old, "spec.subGroups");
	return old && (!subs || subs->kind != GT_DOC_SEQ || subs->n == 0);
}

int gt_pg_rule_ray(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	const struct gt_doc *cluster;
	int rc = find_cluster(x, &cluster);
	if (rc)
		return rc;
	gt_pg_default_top(x, &x->top, "train", pg);
	rc = cluster_gang(x, cluster, pg);
	if (rc)
		return rc;
	const char *prio = gt_pg_label(&x->top, RAY_PRIORITY_LABEL);
	if (prio)
		gt_pg_set(&pg->priority_class, prio);	/* Ray's own label, taken as is */
	if (legacy_without_subgroups(x, pg)) {
		gt_pg_clear_subgroups(pg);
		return 0;
	}
	/* a pod outside the groups (a RayJob's submitter) joins no sub-group */
	const char *group = gt_obj_label(x->pod, RAY_GROUP_LABEL);
	for (size_t i = 0; group && i < pg->n_subgroups; i++)
		if (!strcmp(pg->subgroups[i].name, group))
			gt_pg_set(&pg->pod_subgroup, group);
	return 0;
}
