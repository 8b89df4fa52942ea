/*
 * rules_lws.c - LeaderWorkerSet: one gang per replica group
 *
 * Each replica of a LeaderWorkerSet is a leader and size-1 workers that only
 * work together, so each group gets its own PodGroup (<base>-group-<index>)
 * of spec.leaderWorkerTemplate.size pods, with sub-groups "leader" and
 * "workers". With startupPolicy LeaderReady the operator creates the workers
 * only once the leader runs, so until the leader is placed its gang is the
 * leader alone.
 *
 * With a segment size (subGroupPolicy.subGroupSize, or kai.scheduler/
 * segment-size on the LeaderWorkerSet or its worker template) the group is
 * cut into segments placed whole, segment-0..n-1; the leader either shares
 * the first segment (subGroupPolicyType LeaderWorker, the default: segment-0
 * is then a parent of "leader" and "workers" that needs both, minSubGroup 2)
 * or stands apart (LeaderExcluded). (plugins/leaderworkerset/lws_grouper.go)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"

#define LWS_SIZE_ANNOTATION "leaderworkerset.sigs.k8s.io/size"
#define LWS_GROUP_INDEX "leaderworkerset.sigs.k8s.io/group-index"
#define LWS_WORKER_INDEX "leaderworkerset.sigs.k8s.io/worker-index"

struct lws {
	int64_t size;		/* pods in the group the PodGroup waits for */
	int64_t segment;	/* segment size; 0: no segments */
	bool leader_excluded;
	int64_t worker_index;	/* the pod's; 0 is the leader, -1 unknown */
};

static int group_size(struct gt_pg_ctx *x, int64_t *size)
{
	const char *field = "spec.leaderWorkerTemplate.size";
	int rc = gt_pg_int(gt_doc_path(x->top.doc, field), size);
	if (rc == GT_ENOTFOUND)
		return gt_pg_fail(x, "%s has no %s", gt_pg_id(x->top.doc).s, field);
	if (rc || *size < 1 || *size > INT32_MAX)
		return gt_pg_fail(x, "%s: %s must be an integer of at least 1",
				  gt_pg_id(x->top.doc).s, field);
	return 0;
}

static int worker_index(struct gt_pg_ctx *x, int64_t *index)
{
	*index = -1;
	const char *v = gt_obj_label(x->pod, LWS_WORKER_INDEX);
	if (v && (gt_parse_int(v, index) || *index < 0))
		return gt_pg_fail(x, "%s: label %s is '%s', not a worker index", gt_pg_id(x->pod).s,
				  LWS_WORKER_INDEX, v);
	return 0;
}

/*
 * LeaderReady: the leader, while it has no node, waits alone; once placed
 * (and for its workers) the gang is the whole group, whose size the pod's
 * own size annotation may restate.
 */
static int64_t leader_ready_size(const struct gt_pg_ctx *x, const struct lws *l)
{
	int64_t size = l->size, v;
	const char *s = gt_obj_annotation(x->pod, LWS_SIZE_ANNOTATION);
	if (s && !gt_parse_int(s, &v) && v >= 1 && v <= INT32_MAX)
		size = v;
	bool scheduled = gt_doc_str(gt_doc_get(x->pod, "spec"), "nodeName") != NULL;
	return l->worker_index == 0 && !scheduled ? 1 : size;
}

static const char *worker_template_annotation(const struct gt_pg_ctx *x, const char *key)
{
	const char *v = gt_doc_str(gt_doc_path(x->top.doc,
					       "spec.leaderWorkerTemplate.workerTemplate.metadata."
					       "annotations"), key);
	return v && *v ? v : NULL;
}

static int segment_size(struct gt_pg_ctx *x, struct lws *l)
{
	const struct gt_doc *policy = gt_doc_path(x->top.doc, "spec.leaderWorkerTemplate.subGroupPolicy");
	const char *where = "spec.leaderWorkerTemplate.subGroupPolicy.subGroupSize";
	int rc = gt_pg_int(gt_doc_get(policy, "subGroupSize"), &l->segment);
	if (rc == GT_ENOTFOUND) {
		const char *v = gt_pg_annotation(&x->top, GT_PG_SEGMENT_SIZE);
		where = "annotation " GT_PG_SEGMENT_SIZE;
		if (!v)
			v = worker_template_annotation(x, GT_PG_SEGMENT_SIZE);
		if (!v)
			return 0;
		rc = gt_parse_int(v, &l->segment);
	}
	if (rc || l->segment < 2)
		return gt_pg_fail(x, "%s: %s must be an integer of at least 2",
				  gt_pg_id(x->top.doc).s, where);
	if (l->segment > l->size)
		return gt_pg_fail(x, "%s: segment size %lld (%s) is larger than the group's %lld pods",
				  gt_pg_id(x->top.doc).s, (long long)l->segment, where,
				  (long long)l->size);
	const char *type = gt_doc_str(policy, "subGroupPolicyType");
	if (type && strcmp(type, "LeaderWorker") && strcmp(type, "LeaderExcluded"))
		return gt_pg_fail(x, "%s: spec.leaderWorkerTemplate.subGroupPolicy.subGroupPolicyType "
				  "is '%s'; expected LeaderWorker or LeaderExcluded",
				  gt_pg_id(x->top.doc).s, type);
	l->leader_excluded = type && !strcmp(type, "LeaderExcluded");
	return 0;
}

/*
 * The segment of worker index @w: the leader is in segment 0; when the
 * workers divide evenly into segments the leader is an extra member of the
 * first, otherwise it takes a worker's place there.
 */
static int64_t segment_of(const struct lws *l, int64_t w)
{
	if (w == 0)
		return 0;
	return (l->size - 1) % l->segment == 0 ? (w - 1) / l->segment : w / l->segment;
}

/* Pods of segment @s: leader included under LeaderWorker, workers only otherwise. */
static int64_t segment_members(const struct lws *l, int64_t s)
{
	int64_t n = 0;
	for (int64_t w = l->leader_excluded ? 1 : 0; w < l->size; w++)
		n += segment_of(l, w) == s;
	return n;
}

static void segment_topology(const struct gt_pg_ctx *x, struct gt_pg_subgroup *sg)
{
	const char *topo = gt_obj_annotation(x->pod, GT_PG_TOPOLOGY);
	if (!topo || !*topo)
		topo = worker_template_annotation(x, GT_PG_TOPOLOGY);
	if (!topo)
		topo = gt_pg_annotation(&x->top, GT_PG_TOPOLOGY);
	const char *req = gt_obj_annotation(x->pod, GT_PG_SEGMENT_REQUIRED);
	const char *pref = gt_obj_annotation(x->pod, GT_PG_SEGMENT_PREFERRED);
	if (!req || !*req)
		req = worker_template_annotation(x, GT_PG_SEGMENT_REQUIRED);
	if (!pref || !*pref)
		pref = worker_template_annotation(x, GT_PG_SEGMENT_PREFERRED);
	if (topo && *topo && (req || pref))
		gt_pg_set_topology(&sg->topology, topo, req, pref);
}

static int segments(struct gt_pg_ctx *x, const struct lws *l, struct gt_podgroup *pg)
{
	if (l->worker_index < 0)
		return gt_pg_fail(x, "%s has no label %s, needed to place it in a segment of %s",
				  gt_pg_id(x->pod).s, LWS_WORKER_INDEX, gt_pg_id(x->top.doc).s);
	if (l->worker_index >= l->size)
		return gt_pg_fail(x, "%s: worker index %lld is beyond the group size %lld of %s",
				  gt_pg_id(x->pod).s, (long long)l->worker_index, (long long)l->size,
				  gt_pg_id(x->top.doc).s);
	if (l->leader_excluded && (l->size - 1) % l->segment)
		return gt_pg_fail(x, "%s: with subGroupPolicyType LeaderExcluded the %lld workers "
				  "must divide into segments of %lld", gt_pg_id(x->top.doc).s,
				  (long long)(l->size - 1), (long long)l->segment);
	int64_t n = segment_of(l, l->size - 1) + 1;
	if (n > GT_PG_MAX_SEGMENTS)
		return gt_pg_fail(x, "%s: more than %d segments", gt_pg_id(x->top.doc).s,
				  GT_PG_MAX_SEGMENTS);
	if (l->leader_excluded)
		gt_pg_add_subgroup(pg, "leader", 1, NULL);
	for (int64_t s = 0; s < n; s++) {
		char name[32];
		snprintf(name, sizeof(name), "segment-%lld", (long long)s);
		segment_topology(x, gt_pg_add_subgroup(pg, name, segment_members(l, s), NULL));
	}
	if (!l->leader_excluded) {
		/* segment-0 becomes a parent: it needs both its leader and its workers */
		gt_pg_set_min_subgroup(&pg->subgroups[0], 2);
		gt_pg_add_subgroup(pg, "leader", 1, "segment-0");
		gt_pg_add_subgroup(pg, "workers", segment_members(l, 0) - 1, "segment-0");
	}
	int64_t s = segment_of(l, l->worker_index);
	char name[32];
	snprintf(name, sizeof(name), "segment-%lld", (long long)s);
	gt_pg_set(&pg->pod_subgroup, l->worker_index == 0 ? "leader" :
				     !l->leader_excluded && s == 0 ? "workers" : name);
	return 0;
}

static void leader_and_workers(const struct lws *l, struct gt_podgroup *pg)
{
	gt_pg_add_subgroup(pg, "leader", 1, NULL);
	if (l->size > 1)
		gt_pg_add_subgroup(pg, "workers", l->size - 1, NULL);
	bool leader = l->worker_index == 0;
	if (leader || l->size > 1)
		gt_pg_set(&pg->pod_subgroup, leader ? "leader" : "workers");
}

int gt_pg_rule_lws(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	struct lws l = { 0 };
	int rc = group_size(x, &l.size);
	rc = rc ? rc : worker_index(x, &l.worker_index);
	if (rc)
		return rc;
	const char *policy = gt_doc_str(gt_doc_get(x->top.doc, "spec"), "startupPolicy");
	if (policy && !strcmp(policy, "LeaderReady"))
		l.size = leader_ready_size(x, &l);
	else if (policy && strcmp(policy, "LeaderCreated"))
		return gt_pg_fail(x, "%s: spec.startupPolicy is '%s'; expected LeaderCreated or "
				  "LeaderReady", gt_pg_id(x->top.doc).s, policy);
	/* a leader waiting alone has no segments to cut */
	rc = l.size > 1 ? segment_size(x, &l) : 0;
	if (rc)
		return rc;
	gt_pg_default_top(x, &x->top, "train", pg);
	pg->min_member = (int32_t)l.size;
	const char *group = gt_obj_label(x->pod, LWS_GROUP_INDEX);
	int64_t g;
	if (group && !gt_parse_int(group, &g)) {
		char *base = pg->name;
		pg->name = NULL;
		gt_pg_setf(&pg->name, "%s-group-%lld", base, (long long)g);
		free(base);
	}
	if (l.segment)
		return segments(x, &l, pg);
	leader_and_workers(&l, pg);
	return 0;
}
