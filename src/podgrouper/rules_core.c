/*
 * rules_core.c - Kubernetes' own workloads: bare pods (and Spark), Deployments,
 * ReplicaSets, StatefulSets, Jobs and CronJobs, plus the small vendor kinds
 * that only tweak the default (AmlJob, SPOTRequest, RunaiJob)
 */
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"

int gt_pg_rule_default(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	gt_pg_default(x, &x->top, x->chain, x->n_chain, "train", pg);
	return 0;
}

/*
 * A pod without owner is a job of its own, except Spark's: spark-submit
 * labels the driver and the executors (which the driver owns) with the
 * application's id, and they are grouped by it.
 */
int gt_pg_rule_pod(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	gt_pg_default_top(x, &x->top, "train", pg);
	const char *app = gt_obj_label(x->pod, "spark-app-name");
	const char *selector = gt_obj_label(x->pod, "spark-app-selector");
	if (app && selector) {
		gt_pg_set(&pg->name, selector);
		pg->rule = "spark";
	}
	return 0;
}

/* ---------------------------------------------------------------- opt-in gang */

/*
 * Beyond KAI: a StatefulSet, ReplicaSet or Deployment whose owner carries the
 * gang annotation (kai.scheduler/gang-replicas) is one gang. "true" asks for
 * all spec.replicas, a positive number for that many, "false" for none.
 * Returns 0 (no gang), 1 with *min set, or GT_EINVAL.
 */
static int gang_size(struct gt_pg_ctx *x, const struct gt_pg_obj *owner, int64_t *min)
{
	const char *key = x->cfg->gang_annotation;
	const char *v = key && *key ? gt_pg_annotation(owner, key) : NULL;
	if (!v || !strcmp(v, "false"))
		return 0;
	if (!strcmp(v, "true")) {
		int64_t replicas = 1;	/* the API server's default */
		const struct gt_doc *r = gt_doc_path(owner->doc, "spec.replicas");
		int rc = gt_pg_int(r, &replicas);
		if (rc == GT_EINVAL)
			return gt_pg_fail(x, "%s: spec.replicas is not an integer",
					  gt_pg_id(owner->doc).s);
		/* scaled to zero while its last pods go: keep a valid gang size */
		*min = replicas > 0 ? replicas : 1;
		return 1;
	}
	if (gt_parse_int(v, min) || *min < 1 || *min > INT32_MAX)
		return gt_pg_fail(x, "%s: annotation %s is '%s'; expected \"true\", \"false\" "
				  "or a gang size of at least 1", gt_pg_id(owner->doc).s, key, v);
	return 1;
}

int gt_pg_rule_deployment(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	int64_t min;
	int gang = gang_size(x, &x->top, &min);
	if (gang < 0)
		return gang;
	gt_pg_default_top(x, &x->top, "inference", pg);
	if (gang) {
		pg->min_member = (int32_t)min;
		pg->rule = "deployment-gang";
		return 0;
	}
	/* KAI: replicas of a service are independent; one PodGroup per pod */
	gt_pg_default_name(&pg->name, x->pod);
	gt_pg_set_owner(&pg->owner, x->pod);
	return 0;
}

int gt_pg_rule_replicaset(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	int64_t min;
	int gang = gang_size(x, &x->top, &min);
	if (gang < 0)
		return gang;
	gt_pg_default(x, &x->top, x->chain, x->n_chain, "train", pg);
	if (gang) {
		pg->min_member = (int32_t)min;
		pg->rule = "replicaset-gang";
	}
	return 0;
}

int gt_pg_rule_statefulset(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	int64_t min;
	int gang = gang_size(x, &x->top, &min);
	if (gang < 0)
		return gang;
	if (gang) {
		/* OrderedReady waits for pod N to be Ready before creating N+1 */
		const char *policy = gt_doc_str(gt_doc_get(x->top.doc, "spec"), "podManagementPolicy");
		if (!policy || strcmp(policy, "Parallel"))
			return gt_pg_fail(x, "%s asks for a gang of %lld (annotation %s) but its "
					  "spec.podManagementPolicy is %s: it creates one pod at a "
					  "time, so the gang could never start; set it to Parallel",
					  gt_pg_id(x->top.doc).s, (long long)min, x->cfg->gang_annotation,
					  policy ? policy : "OrderedReady (the default)");
	}
	gt_pg_default(x, &x->top, x->chain, x->n_chain, "train", pg);
	if (gang) {
		pg->min_member = (int32_t)min;
		pg->rule = "statefulset-gang";
	}
	return 0;
}

/* ---------------------------------------------------------------- jobs */

static bool podgroup_exists(const struct gt_pg_ctx *x, const char *name)
{
	return gt_pg_find(x, "PodGroup", gt_pg_ns(x->pod), name) != NULL;
}

/*
 * KAI v0.17 (plugins/job/job_grouper.go): one PodGroup per Job,
 * pg-<job>-<uid>, of minMember 1 or the Job's kai.scheduler/batch-min-member.
 * Earlier releases made one PodGroup per pod, pg-<pod>-<job uid>; with
 * --search-legacy-pg such a PodGroup, when it exists, is kept (minMember 1),
 * so the running pods of a Job are not moved during an upgrade.
 */
int gt_pg_rule_job(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	gt_pg_default_top(x, &x->top, "train", pg);
	if (x->cfg->search_legacy_pg) {
		char *legacy = NULL;
		gt_pg_name_uid(&legacy, gt_pg_name(x->pod), gt_pg_uid(x->top.doc));
		bool found = strcmp(legacy, pg->name) && podgroup_exists(x, legacy);
		if (found) {
			free(pg->name);
			pg->name = legacy;
			pg->rule = "job-legacy";
			return 0;
		}
		free(legacy);
	}
	const char *v = gt_pg_annotation(&x->top, GT_PG_BATCH_MIN_MEMBER);
	if (v && gt_pg_parse_count(v, &pg->min_member))
		return gt_pg_fail(x, "%s: annotation %s is '%s'; it must be a gang size of at least 1",
				  gt_pg_id(x->top.doc).s, GT_PG_BATCH_MIN_MEMBER, v);
	return 0;
}

/* A CronJob's pods are grouped per Job run, as the default rule groups a Job. */
int gt_pg_rule_cronjob(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	const struct gt_doc *refs = gt_doc_path(x->pod, "metadata.ownerReferences");
	const char *job_name = NULL;
	for (size_t i = 0; refs && refs->kind == GT_DOC_SEQ && i < refs->n && !job_name; i++) {
		const char *kind = gt_doc_str(refs->items[i], "kind");
		if (kind && !strcmp(kind, "Job"))
			job_name = gt_doc_str(refs->items[i], "name");
	}
	if (!job_name)
		return gt_pg_fail(x, "%s of %s has no owner reference of kind Job "
				  "(metadata.ownerReferences)", gt_pg_id(x->pod).s,
				  gt_pg_id(x->top.doc).s);
	const struct gt_doc *job = gt_pg_find(x, "Job", gt_pg_ns(x->pod), job_name);
	if (!job)
		return gt_pg_fail(x, "Job %s/%s, owner of %s, is not known", gt_pg_ns(x->pod),
				  job_name, gt_pg_id(x->pod).s);
	struct gt_pg_obj j = gt_pg_obj_of(job);
	gt_pg_default_top(x, &j, "train", pg);
	return 0;
}

/*
 * Run:ai's RunaiJob (plugins/runaijob): one PodGroup per pod, named without
 * the pod's suffix. With --search-legacy-pg a PodGroup an older podgrouper
 * made is kept: pg-<job>-<uid>, or pg-<pod>-<uid> when the job runs pods in
 * parallel.
 */
int gt_pg_rule_runaijob(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	gt_pg_default_top(x, &x->top, "train", pg);
	if (x->cfg->search_legacy_pg) {
		int64_t parallelism = 0;
		gt_pg_int(gt_doc_path(x->top.doc, "spec.parallelism"), &parallelism);
		char *legacy = NULL;
		gt_pg_name_uid(&legacy, parallelism > 1 ? gt_pg_name(x->pod) : gt_pg_name(x->top.doc),
			       gt_pg_uid(x->top.doc));
		if (podgroup_exists(x, legacy)) {
			free(pg->name);
			pg->name = legacy;
			pg->rule = "runaijob-legacy";
			return 0;
		}
		free(legacy);
	}
	char *base = NULL;
	gt_pg_set(&base, gt_pg_name(x->pod));
	char *dash = strrchr(base, '-');
	if (dash)
		*dash = '\0';
	gt_pg_name_uid(&pg->name, base, gt_pg_uid(x->top.doc));
	free(base);
	return 0;
}

/* Azure ML: the node count the job asks for is the gang. */
int gt_pg_rule_aml(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	int64_t n;
	const char *field = "spec.job.options.envs.AZUREML_NODE_COUNT";
	const struct gt_doc *envs = gt_doc_path(x->top.doc, "spec.job.options.envs");
	int rc = gt_pg_int(gt_doc_get(envs, "AZUREML_NODE_COUNT"), &n);
	if (rc == GT_ENOTFOUND)
		return gt_pg_fail(x, "%s has no %s", gt_pg_id(x->top.doc).s, field);
	if (rc || n < 1 || n > INT32_MAX)
		return gt_pg_fail(x, "%s: %s must be a node count of at least 1",
				  gt_pg_id(x->top.doc).s, field);
	gt_pg_default_top(x, &x->top, "train", pg);
	pg->min_member = (int32_t)n;
	return 0;
}

/* Serving kinds whose only difference is the inference fallback priority. */
int gt_pg_rule_inference(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	gt_pg_default_top(x, &x->top, "inference", pg);
	return 0;
}
