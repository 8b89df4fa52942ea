/*
 * rules_jobset.c - JobSet
 *
 * A replicated job's gang is replicas x min(parallelism, completions). With
 * startupPolicyOrder InOrder (KAI's default when unset) the JobSet controller
 * starts the replicated jobs one after the other, so one gang spanning them
 * all could never start: each replicated job gets its own PodGroup,
 * pg-<jobset>-<uid>-<replicated job>. With AnyOrder the JobSet is one gang of
 * all of them.
 */
#include <string.h>

#include "podgrouper/internal.h"

#define RJ_LABEL "jobset.sigs.k8s.io/replicatedjob-name"

/* A count of replicated job @rj: *out is @dflt when absent or below 1, as KAI reads it. */
static int rj_count(struct gt_pg_ctx *x, const struct gt_doc *rj, const char *path,
		    int64_t dflt, int64_t *out)
{
	*out = dflt;
	int64_t v;
	int rc = gt_pg_int(gt_doc_path(rj, path), &v);
	if (rc == GT_EINVAL)
		return gt_pg_fail(x, "%s: spec.replicatedJobs[%s].%s is not an integer",
				  gt_pg_id(x->top.doc).s, gt_doc_str(rj, "name"), path);
	if (!rc && v > 0)
		*out = v;
	return rc == GT_ENOTFOUND ? 0 : rc;
}

static int rj_gang(struct gt_pg_ctx *x, const struct gt_doc *rj, int64_t *gang)
{
	int64_t replicas, parallelism, completions;
	int rc = rj_count(x, rj, "replicas", 1, &replicas);
	rc = rc ? rc : rj_count(x, rj, "template.spec.parallelism", 1, &parallelism);
	rc = rc ? rc : rj_count(x, rj, "template.spec.completions", 0, &completions);
	if (rc)
		return rc;
	if (completions > 0 && completions < parallelism)
		parallelism = completions;
	if (replicas > INT32_MAX / parallelism)
		return gt_pg_fail(x, "%s: spec.replicatedJobs[%s] asks for more than %d pods",
				  gt_pg_id(x->top.doc).s, gt_doc_str(rj, "name"), INT32_MAX);
	*gang = replicas * parallelism;
	return 0;
}

int gt_pg_rule_jobset(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	const char *mine = gt_pg_doc_label(x->pod, RJ_LABEL);
	if (!mine)
		return gt_pg_fail(x, "%s of %s has no label %s", gt_pg_id(x->pod).s,
				  gt_pg_id(x->top.doc).s, RJ_LABEL);
	const char *order = gt_doc_str(gt_doc_path(x->top.doc, "spec.startupPolicy"),
				       "startupPolicyOrder");
	bool in_order = !order || !strcmp(order, "InOrder");
	const struct gt_doc *rjs = gt_doc_path(x->top.doc, "spec.replicatedJobs");
	int64_t total = 0;
	for (size_t i = 0; rjs && rjs->kind == GT_DOC_SEQ && i < rjs->n; i++) {
		const char *name = gt_doc_str(rjs->items[i], "name");
		if (!name || (in_order && strcmp(name, mine)))
			continue;
		int64_t gang = 0;
		int rc = rj_gang(x, rjs->items[i], &gang);
		if (rc)
			return rc;
		total += gang;
		if (total > INT32_MAX)
			return gt_pg_fail(x, "%s asks for more than %d pods", gt_pg_id(x->top.doc).s,
					  INT32_MAX);
	}
	gt_pg_default_top(x, &x->top, "train", pg);
	pg->min_member = total > 0 ? (int32_t)total : 1;
	if (in_order) {
		const char *uid = gt_pg_uid(x->top.doc);
		gt_pg_setf(&pg->name, "pg-%s%s%s-%s", gt_pg_name(x->top.doc), uid ? "-" : "",
			   uid ? uid : "", mine);
	}
	return 0;
}
