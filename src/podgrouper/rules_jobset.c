/*
 * rules_jobset.c - JobSet, as KAI v0.16+ groups it (plugins/jobset)
 *
 * One PodGroup per JobSet, pg-<jobset>-<uid>, with two levels of sub-groups:
 * a parent per replicated job, which needs all its replicas
 * (minSubGroup = replicas), and under it a leaf per replica,
 * <replicated job>-replica-<index>, of the replica Job's parallelism pods
 * (or the template's kai.scheduler/batch-min-member). The PodGroup itself
 * asks for minSubGroup replicated jobs: all of them with startupPolicyOrder
 * AnyOrder (the default), one with InOrder, since the JobSet controller then
 * creates the replicated jobs one after the other and the first (the
 * coordinator) must be placeable on its own; the JobSet's
 * kai.scheduler/batch-min-member overrides it (capped at the number of
 * replicated jobs). A pod joins the leaf its labels jobset.sigs.k8s.io/
 * replicatedjob-name and job-index name.
 *
 * Legacy shape (legacy_grouper.go): while a PodGroup of the old shape (no
 * sub-groups) exists for the JobSet, its pods keep being grouped the old
 * way, so that workloads running across the upgrade are not moved: one
 * PodGroup per replicated job with InOrder, pg-<jobset>-<uid>-<replicated
 * job>, else pg-<jobset>-<uid>, of minMember 1 or batch-min-member.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"

#define RJ_LABEL "jobset.sigs.k8s.io/replicatedjob-name"
#define JOB_INDEX_LABEL "jobset.sigs.k8s.io/job-index"

/* spec.replicatedJobs[i].@path, a non-negative count (@dflt when absent). */
static int rj_count(struct gt_pg_ctx *x, const struct gt_doc *rj, size_t i, const char *path,
		    int64_t dflt, int64_t *out)
{
	*out = dflt;
	int rc = gt_pg_int(gt_doc_path(rj, path), out);
	if (rc == GT_ENOTFOUND)
		return 0;
	if (rc || *out < 0 || *out > GT_PG_MAX_SEGMENTS)
		return gt_pg_fail(x, "%s: spec.replicatedJobs[%zu].%s must be a count from 0 to %d",
				  gt_pg_id(x->top.doc).s, i, path, GT_PG_MAX_SEGMENTS);
	return 0;
}

static const char *template_annotation(const struct gt_doc *rj, const char *key)
{
	return gt_doc_str(gt_doc_path(rj, "template.metadata.annotations"), key);
}

/* A replica's gang: its parallelism, or the template's batch-min-member. */
static int leaf_min(struct gt_pg_ctx *x, const struct gt_doc *rj, size_t i, int64_t *min)
{
	int rc = rj_count(x, rj, i, "template.spec.parallelism", 1, min);
	const char *v = template_annotation(rj, GT_PG_BATCH_MIN_MEMBER);
	int32_t n;
	if (rc || !v)
		return rc;
	if (gt_pg_parse_count(v, &n))
		return gt_pg_fail(x, "%s: spec.replicatedJobs[%zu].template annotation %s is '%s'; "
				  "it must be a gang size of at least 1", gt_pg_id(x->top.doc).s, i,
				  GT_PG_BATCH_MIN_MEMBER, v);
	*min = n;
	return 0;
}

/* The replica leaves' topology, from the replicated job template's annotations. */
static void leaf_topology(const struct gt_doc *rj, struct gt_pg_topology *t)
{
	const char *topo = template_annotation(rj, GT_PG_TOPOLOGY);
	const char *req = template_annotation(rj, GT_PG_TOPOLOGY_REQUIRED);
	const char *pref = template_annotation(rj, GT_PG_TOPOLOGY_PREFERRED);
	if (topo && *topo && ((req && *req) || (pref && *pref)))
		gt_pg_set_topology(t, topo, req, pref);
}

static int podgroup_min_subgroup(struct gt_pg_ctx *x, size_t n_rjs, int32_t *out)
{
	const char *v = gt_pg_annotation(&x->top, GT_PG_BATCH_MIN_MEMBER);
	if (v) {
		int32_t n;
		if (gt_pg_parse_count(v, &n))
			return gt_pg_fail(x, "%s: annotation %s is '%s'; it must be at least 1",
					  gt_pg_id(x->top.doc).s, GT_PG_BATCH_MIN_MEMBER, v);
		*out = (size_t)n < n_rjs ? n : (int32_t)n_rjs;
		return 0;
	}
	const char *order = gt_doc_str(gt_doc_path(x->top.doc, "spec.startupPolicy"),
				       "startupPolicyOrder");
	*out = order && !strcmp(order, "InOrder") ? 1 : (int32_t)n_rjs;
	return 0;
}

static int build_subgroups(struct gt_pg_ctx *x, const struct gt_doc *rjs, struct gt_podgroup *pg)
{
	for (size_t i = 0; i < rjs->n; i++) {
		const struct gt_doc *rj = rjs->items[i];
		const char *name = gt_doc_str(rj, "name");
		int64_t replicas, min;
		if (!name || !*name)
			return gt_pg_fail(x, "%s: spec.replicatedJobs[%zu] has no name",
					  gt_pg_id(x->top.doc).s, i);
		int rc = rj_count(x, rj, i, "replicas", 1, &replicas);
		rc = rc ? rc : leaf_min(x, rj, i, &min);
		if (rc)
			return rc;
		if (pg->n_subgroups + (size_t)replicas > GT_PG_MAX_SEGMENTS)
			return gt_pg_fail(x, "%s has more than %d replicas in its replicated jobs",
					  gt_pg_id(x->top.doc).s, GT_PG_MAX_SEGMENTS);
		gt_pg_set_min_subgroup(gt_pg_add_subgroup(pg, name, 0, NULL), replicas);
		for (int64_t r = 0; r < replicas; r++) {
			char leaf[300];
			snprintf(leaf, sizeof(leaf), "%s-replica-%lld", name, (long long)r);
			leaf_topology(rj, &gt_pg_add_subgroup(pg, leaf, min, name)->topology);
		}
	}
	return 0;
}

/* The leaf of the pod's replicated job and Job index. */
static int assign_pod(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	const char *rj = gt_obj_label(x->pod, RJ_LABEL);
	const char *idx = gt_obj_label(x->pod, JOB_INDEX_LABEL);
	if (!rj || !*rj || !idx || !*idx)
		return gt_pg_fail(x, "%s of %s has no label %s", gt_pg_id(x->pod).s,
				  gt_pg_id(x->top.doc).s, !rj || !*rj ? RJ_LABEL : JOB_INDEX_LABEL);
	char leaf[300];
	snprintf(leaf, sizeof(leaf), "%s-replica-%s", rj, idx);
	for (size_t i = 0; i < pg->n_subgroups; i++) {
		if (!strcmp(pg->subgroups[i].name, leaf)) {
			gt_pg_set(&pg->pod_subgroup, leaf);
			return 0;
		}
	}
	return gt_pg_fail(x, "%s (labels %s=%s, %s=%s) is in no replica of %s's "
			  "spec.replicatedJobs", gt_pg_id(x->pod).s, RJ_LABEL, rj, JOB_INDEX_LABEL,
			  idx, gt_pg_id(x->top.doc).s);
}

static bool flat_podgroup(const struct gt_pg_ctx *x, const char *name)
{
	const struct gt_doc *d = gt_pg_find(x, "PodGroup", gt_pg_ns(x->top.doc), name);
	const struct gt_doc *subs = gt_doc_path(d, "spec.subGroups");
	return d && (!subs || subs->kind != GT_DOC_SEQ || !subs->n);
}

/*
 * Does a PodGroup of the old, flat shape exist for this JobSet: @prefix
 * (AnyOrder) or @prefix-<replicated job> (InOrder)? KAI lists the namespace's
 * PodGroups and takes any @prefix-*; looking up the names the old shape
 * gives costs a few index lookups per pod instead of a pass over every
 * PodGroup, and finds the same ones (the JobSet's replicated jobs cannot
 * change).
 */
static bool legacy_podgroup_exists(const struct gt_pg_ctx *x, const char *prefix,
				   const struct gt_doc *rjs)
{
	if (flat_podgroup(x, prefix))
		return true;
	for (size_t i = 0; i < rjs->n; i++) {
		const char *rj = gt_doc_str(rjs->items[i], "name");
		char name[600];
		if (rj && snprintf(name, sizeof(name), "%s-%s", prefix, rj) < (int)sizeof(name) &&
		    flat_podgroup(x, name))
			return true;
	}
	return false;
}

static int legacy_shape(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	const char *rj = gt_obj_label(x->pod, RJ_LABEL);
	if (!rj || !*rj)
		return gt_pg_fail(x, "%s of %s has no label %s", gt_pg_id(x->pod).s,
				  gt_pg_id(x->top.doc).s, RJ_LABEL);
	const char *order = gt_doc_str(gt_doc_path(x->top.doc, "spec.startupPolicy"),
				       "startupPolicyOrder");
	if (order && !strcmp(order, "InOrder")) {
		char *base = pg->name;
		pg->name = NULL;
		gt_pg_setf(&pg->name, "%s-%s", base, rj);
		free(base);
	}
	const char *v = gt_pg_annotation(&x->top, GT_PG_BATCH_MIN_MEMBER);
	if (v && gt_pg_parse_count(v, &pg->min_member))
		return gt_pg_fail(x, "%s: annotation %s is '%s'; it must be a gang size of at least 1",
				  gt_pg_id(x->top.doc).s, GT_PG_BATCH_MIN_MEMBER, v);
	pg->rule = "jobset-legacy";
	return 0;
}

int gt_pg_rule_jobset(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	const struct gt_doc *rjs = gt_doc_path(x->top.doc, "spec.replicatedJobs");
	if (!rjs || rjs->kind != GT_DOC_SEQ || !rjs->n)
		return gt_pg_fail(x, "%s has no spec.replicatedJobs", gt_pg_id(x->top.doc).s);
	gt_pg_default_top(x, &x->top, "train", pg);
	if (legacy_podgroup_exists(x, pg->name, rjs))
		return legacy_shape(x, pg);
	int32_t min_subgroup = 0;
	int rc = podgroup_min_subgroup(x, rjs->n, &min_subgroup);
	rc = rc ? rc : build_subgroups(x, rjs, pg);
	rc = rc ? rc : assign_pod(x, pg);
	if (rc)
		return rc;
	pg->has_min_subgroup = true;
	pg->min_subgroup = min_subgroup;
	pg->min_member = 0;
	return 0;
}
