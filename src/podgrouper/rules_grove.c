/*
 * rules_grove.c - NVIDIA Grove (PodCliqueSet, formerly PodGangSet; also
 * reached from Dynamo's DynamoGraphDeployment)
 *
 * Grove already decides what must start together: it writes a PodGang
 * (scheduler.grove.io) naming each PodClique's pods and its minReplicas. The
 * PodGroup mirrors the PodGang the pod's grove.io/podgang label names: one
 * sub-group per PodClique, parents from the PodGang's topology group
 * configs, topology from its pack constraints; minMember is the sum of the
 * cliques' minimums.
 */
#include <string.h>

#include "podgrouper/internal.h"

#define PODGANG_LABEL "grove.io/podgang"

struct gang {
	const struct gt_doc *doc;	/* the PodGang */
	const char *topology;		/* its topology name, or NULL */
};

/*
 * A pack constraint (@where.topologyConstraint.packConstraint) into @t;
 * levels without a topology name are an error.
 */
static int pack(struct gt_pg_ctx *x, const struct gang *g, const struct gt_doc *where,
		const char *field, struct gt_pg_topology *t)
{
	const struct gt_doc *c = gt_doc_path(where, "topologyConstraint.packConstraint");
	const char *req = gt_doc_str(c, "required"), *pref = gt_doc_str(c, "preferred");
	if (!req && !pref)
		return 0;
	if (!g->topology)
		return gt_pg_fail(x, "%s: %s.topologyConstraint.packConstraint is set but the "
				  "PodGang names no topology (annotation grove.io/topology-name)",
				  gt_pg_id(g->doc).s, field);
	gt_pg_set_topology(t, g->topology, req, pref);
	return 0;
}

/* Parents: topology group configs, each over some of the PodGang's groups. */
static int parents(struct gt_pg_ctx *x, const struct gang *g, struct gt_podgroup *pg)
{
	const struct gt_doc *cfgs = gt_doc_path(g->doc, "spec.topologyConstraintGroupConfigs");
	for (size_t i = 0; cfgs && cfgs->kind == GT_DOC_SEQ && i < cfgs->n; i++) {
		const struct gt_doc *c = cfgs->items[i];
		const char *name = gt_doc_str(c, "name");
		const struct gt_doc *members = gt_doc_get(c, "podGroupNames");
		if (!name)
			return gt_pg_fail(x, "%s: spec.topologyConstraintGroupConfigs[%zu] has no name",
					  gt_pg_id(g->doc).s, i);
		if (!members || members->kind != GT_DOC_SEQ || !members->n)
			continue;
		/* a parent needs every PodClique it lists (minSubGroup) */
		struct gt_pg_subgroup *sg = gt_pg_add_subgroup(pg, name, 0, NULL);
		gt_pg_set_min_subgroup(sg, (int64_t)members->n);
		int rc = pack(x, g, c, "spec.topologyConstraintGroupConfigs[]", &sg->topology);
		if (rc)
			return rc;
	}
	return 0;
}

/* The topology group config that lists PodGang group @name, or NULL. */
static const char *parent_of(const struct gang *g, const char *name)
{
	const struct gt_doc *cfgs = gt_doc_path(g->doc, "spec.topologyConstraintGroupConfigs");
	const char *parent = NULL;	/* the last one wins, as in KAI's map */
	for (size_t i = 0; cfgs && cfgs->kind == GT_DOC_SEQ && i < cfgs->n; i++) {
		const struct gt_doc *m = gt_doc_get(cfgs->items[i], "podGroupNames");
		for (size_t k = 0; m && m->kind == GT_DOC_SEQ && k < m->n; k++)
			if (m->items[k]->kind == GT_DOC_SCALAR && !strcmp(m->items[k]->scalar, name))
				parent = gt_doc_str(cfgs->items[i], "name");
	}
	return parent;
}

/* Does @refs (podReferences) name the pod? Cross-namespace references are errors. */
static int references_pod(struct gt_pg_ctx *x, const struct gang *g, const struct gt_doc *refs,
			  const char *group)
{
	int found = 0;
	for (size_t i = 0; i < refs->n; i++) {
		const char *ns = gt_doc_str(refs->items[i], "namespace");
		const char *name = gt_doc_str(refs->items[i], "name");
		if (!ns || !name)
			return gt_pg_fail(x, "%s: group %s has a podReference without namespace and "
					  "name", gt_pg_id(g->doc).s, group);
		if (strcmp(ns, gt_pg_ns(g->doc)))
			return gt_pg_fail(x, "%s: group %s references pod %s/%s in another namespace",
					  gt_pg_id(g->doc).s, group, ns, name);
		found |= !strcmp(ns, gt_pg_ns(x->pod)) && !strcmp(name, gt_pg_name(x->pod));
	}
	return found;
}

/* One PodClique's group: a sub-group of its minReplicas. */
static int child(struct gt_pg_ctx *x, const struct gang *g, const struct gt_doc *c, size_t i,
		 struct gt_podgroup *pg)
{
	const char *id = gt_pg_id(g->doc).s, *name = gt_doc_str(c, "name");
	const struct gt_doc *refs = gt_doc_get(c, "podReferences");
	int64_t min;
	if (!name)
		return gt_pg_fail(x, "%s: spec.podgroups[%zu] has no name", id, i);
	if (gt_pg_int(gt_doc_get(c, "minReplicas"), &min) || min < 1 || min > INT32_MAX)
		return gt_pg_fail(x, "%s: spec.podgroups[%zu] (%s) needs a minReplicas of at least 1",
				  id, i, name);
	if (!refs || refs->kind != GT_DOC_SEQ)
		return gt_pg_fail(x, "%s: spec.podgroups[%zu] (%s) has no podReferences", id, i, name);
	int mine = references_pod(x, g, refs, name);
	if (mine < 0)
		return mine;
	struct gt_pg_subgroup *sg = gt_pg_add_subgroup(pg, name, min, parent_of(g, name));
	if (mine)
		gt_pg_set(&pg->pod_subgroup, name);
	if ((int64_t)pg->min_member + min > INT32_MAX)
		return gt_pg_fail(x, "%s asks for more than %d pods", id, INT32_MAX);
	pg->min_member += (int32_t)min;
	return pack(x, g, c, "spec.podgroups[]", &sg->topology);
}

static int children(struct gt_pg_ctx *x, const struct gang *g, struct gt_podgroup *pg)
{
	const struct gt_doc *groups = gt_doc_path(g->doc, "spec.podgroups");
	pg->min_member = 0;
	for (size_t i = 0; groups && groups->kind == GT_DOC_SEQ && i < groups->n; i++) {
		int rc = child(x, g, groups->items[i], i, pg);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Grove does not copy the PodCliqueSet's (or Dynamo graph's) metadata to the
 * PodGang, so KAI adds the top owner's labels and annotations, and takes
 * priority, preemptibility, the preemption delay and topology annotations
 * from them (plugins/grove, parseMetadataFromTopOwner).
 */
static int top_owner_metadata(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	gt_pg_merge_meta(&pg->labels, &x->top, "labels", false);
	gt_pg_merge_meta(&pg->annotations, &x->top, "annotations", false);
	const char *prio = gt_pg_kvs_get(&pg->labels, GT_PG_PRIORITY_LABEL);
	if (prio)
		gt_pg_set(&pg->priority_class, prio);
	const char *pre = gt_pg_kvs_get(&pg->labels, GT_PG_PREEMPTIBILITY_LABEL);
	if (pre && !gt_pg_preemptibility_value(pre))
		return gt_pg_fail(x, "%s: label %s is '%s'; expected preemptible or non-preemptible",
				  gt_pg_id(x->top.doc).s, GT_PG_PREEMPTIBILITY_LABEL, pre);
	if (pre)
		gt_pg_set(&pg->preemptibility, pre);
	/* the top owner's preemption delay, when valid, replaces the PodGang's */
	gt_pg_duration_of(gt_pg_kvs_get(&pg->annotations, GT_PG_PREEMPTION_DELAY), true,
			  &pg->preemption_delay);
	struct gt_pg_topology *t = &pg->topology;
	const struct gt_pg_kvs *a = &pg->annotations;
	gt_pg_set_topology(t, t->topology ? t->topology : gt_pg_kvs_get(a, GT_PG_TOPOLOGY),
			   t->required ? t->required : gt_pg_kvs_get(a, GT_PG_TOPOLOGY_REQUIRED),
			   t->preferred ? t->preferred : gt_pg_kvs_get(a, GT_PG_TOPOLOGY_PREFERRED));
	return 0;
}

int gt_pg_rule_grove(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	const char *name = gt_obj_label(x->pod, PODGANG_LABEL);
	if (!name)
		return gt_pg_fail(x, "%s of %s has no label %s", gt_pg_id(x->pod).s,
				  gt_pg_id(x->top.doc).s, PODGANG_LABEL);
	struct gang g = { gt_pg_find(x, "PodGang", gt_pg_ns(x->pod), name), NULL };
	if (!g.doc)
		return gt_pg_fail(x, "PodGang %s/%s (label %s of %s) is not known", gt_pg_ns(x->pod),
				  name, PODGANG_LABEL, gt_pg_id(x->pod).s);
	g.topology = gt_obj_annotation(g.doc, "grove.io/topology-name");
	if (!g.topology)
		g.topology = gt_obj_annotation(g.doc, GT_PG_TOPOLOGY);
	struct gt_pg_obj gang = gt_pg_obj_of(g.doc);
	gt_pg_default_top(x, &gang, "train", pg);
	/* a pack constraint replaces what the PodGang's annotations said */
	int rc = pack(x, &g, gt_doc_get(g.doc, "spec"), "spec", &pg->topology);
	if (rc)
		return rc;
	const char *prio = gt_doc_str(gt_doc_get(g.doc, "spec"), "priorityClassName");
	if (prio)
		gt_pg_set(&pg->priority_class, prio);
	rc = top_owner_metadata(x, pg);
	rc = rc ? rc : parents(x, &g, pg);
	return rc ? rc : children(x, &g, pg);
}
