/*
 * dispatch.c - choosing the rule by the kind of the pod's top owner
 *
 * As in KAI's plugin hub (pkg/podgrouper/podgrouper/hub/hub.go), the rule is
 * looked up by the top owner's group/version/kind, an exact version first
 * and then any version; a kind with no row is grouped by the Karta that
 * describes it (plugins/karta, --generic-karta-fallback), else by the
 * default rule. Rules from configuration come before the table, so a site
 * can also change how a known kind is grouped.
 */
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"
#include "util/mem.h"

struct kind_row {
	const char *group;
	const char *version;	/* NULL: every version */
	const char *kind;
	const char *rule;	/* reported in gt_podgroup.rule and docs/podgrouper.md */
	gt_pg_rule_fn fn;
};

static int rule_skip(struct gt_pg_ctx *x, struct gt_podgroup *pg);

/* KAI-SPEC 8.3, one row per kind (pkg/podgrouper/podgrouper/hub/hub.go). */
static const struct kind_row kinds[] = {
	{ "", "v1", "Pod", "pod", gt_pg_rule_pod },
	{ "apps", "v1", "Deployment", "deployment", gt_pg_rule_deployment },
	{ "apps", "v1", "ReplicaSet", "replicaset", gt_pg_rule_replicaset },
	{ "apps", "v1", "StatefulSet", "statefulset", gt_pg_rule_statefulset },
	{ "batch", "v1", "Job", "job", gt_pg_rule_job },
	{ "batch", "v1", "CronJob", "cronjob", gt_pg_rule_cronjob },
	{ "kubeflow.org", "v1", "TFJob", "tensorflow", gt_pg_rule_tfjob },
	{ "kubeflow.org", "v1", "PyTorchJob", "pytorch", gt_pg_rule_pytorchjob },
	{ "kubeflow.org", "v1", "XGBoostJob", "xgboost", gt_pg_rule_xgboostjob },
	{ "kubeflow.org", "v1", "JAXJob", "jax", gt_pg_rule_jaxjob },
	{ "kubeflow.org", "v1", "MPIJob", "mpi", gt_pg_rule_mpijob },
	{ "kubeflow.org", "v2beta1", "MPIJob", "mpi", gt_pg_rule_mpijob },
	{ "kubeflow.org", "v1beta1", "Notebook", "notebook", gt_pg_rule_notebook },
	/* KAI lists v1alpha1; Kubeflow Pipelines serves v1beta1: same rule */
	{ "kubeflow.org", NULL, "ScheduledWorkflow", "default", gt_pg_rule_default },
	{ "ray.io", "v1", "RayCluster", "ray", gt_pg_rule_ray },
	{ "ray.io", "v1alpha1", "RayCluster", "ray", gt_pg_rule_ray },
	{ "ray.io", "v1", "RayJob", "ray", gt_pg_rule_ray },
	{ "ray.io", "v1alpha1", "RayJob", "ray", gt_pg_rule_ray },
	{ "ray.io", "v1", "RayService", "ray", gt_pg_rule_ray },
	{ "ray.io", "v1alpha1", "RayService", "ray", gt_pg_rule_ray },
	{ "serving.knative.dev", "v1", "Service", "knative", gt_pg_rule_knative },
	{ "leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet", "lws", gt_pg_rule_lws },
	{ "jobset.x-k8s.io", "v1alpha2", "JobSet", "jobset", gt_pg_rule_jobset },
	{ "grove.io", "v1alpha1", "PodCliqueSet", "grove", gt_pg_rule_grove },
	{ "grove.io", "v1alpha1", "PodGangSet", "grove", gt_pg_rule_grove },
	{ "amlarc.azureml.com", "v1alpha1", "AmlJob", "aml", gt_pg_rule_aml },
	{ "egx.nvidia.io", "v1", "SPOTRequest", "spotrequest", gt_pg_rule_inference },
	{ "run.ai", "v1", "RunaiJob", "runaijob", gt_pg_rule_runaijob },
	{ "machinelearning.seldon.io", "v1", "SeldonDeployment", "default", gt_pg_rule_default },
	{ "machinelearning.seldon.io", "v1alpha2", "SeldonDeployment", "default", gt_pg_rule_default },
	{ "kubevirt.io", "v1", "VirtualMachineInstance", "default", gt_pg_rule_default },
	{ "workspace.devfile.io", "v1alpha2", "DevWorkspace", "default", gt_pg_rule_default },
	{ "tekton.dev", "v1", "PipelineRun", "default", gt_pg_rule_default },
	{ "tekton.dev", "v1", "TaskRun", "default", gt_pg_rule_default },
	/* wrappers: the owner below the top owner decides */
	{ "argoproj.io", "v1alpha1", "Workflow", "skip-top-owner", rule_skip },
	{ "trainer.kubeflow.org", "v1alpha1", "TrainJob", "skip-top-owner", rule_skip },
	{ "nvidia.com", NULL, "DynamoGraphDeployment", "skip-top-owner", rule_skip },
	{ "run.ai", NULL, "TrainingWorkload", "skip-top-owner", rule_skip },
	{ "run.ai", NULL, "InteractiveWorkload", "skip-top-owner", rule_skip },
	{ "run.ai", NULL, "DistributedWorkload", "skip-top-owner", rule_skip },
	{ "run.ai", NULL, "InferenceWorkload", "skip-top-owner", rule_skip },
	{ "run.ai", NULL, "DistributedInferenceWorkload", "skip-top-owner", rule_skip },
};

static const struct kind_row default_row = { "", NULL, "", "default", gt_pg_rule_default };

/*
 * The row of @group/@version/@kind: its exact version, else (unless @exact)
 * a row for every version. KAI's skip-top-owner grouper looks the owner below
 * up by its exact version only (skiptopowner.go, getSupportedTypePGMetadata).
 */
static const struct kind_row *find_row(const char *group, const char *version, const char *kind,
				       bool exact)
{
	const struct kind_row *any = NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct kind_row *r = &kinds[i];
		if (strcmp(r->kind, kind) || strcmp(r->group, group))
			continue;
		if (r->version && !strcmp(r->version, version))
			return r;
		if (!r->version && !exact)
			any = r;
	}
	return any;
}

static const struct gt_pg_custom_rule *find_custom(const struct gt_pg_config *cfg,
						   const char *group, const char *version,
						   const char *kind)
{
	const struct gt_pg_custom_rule *any = NULL;
	for (size_t i = 0; i < cfg->n_rules; i++) {
		const struct gt_pg_custom_rule *r = &cfg->rules[i];
		if (strcmp(r->kind, kind) || strcmp(r->group, group))
			continue;
		if (!strcmp(r->version, version))
			return r;
		if (!strcmp(r->version, "*"))
			any = r;
	}
	return any;
}

int gt_pg_dispatch(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	char group[128];
	const char *version, *kind = gt_pg_kind(x->top.doc);
	gt_pg_group_version(x->top.doc, group, sizeof(group), &version);
	const struct gt_pg_custom_rule *custom = find_custom(x->cfg, group, version, kind);
	if (custom && custom->skip) {
		pg->rule = "skip-top-owner";
		return rule_skip(x, pg);
	}
	if (custom) {
		pg->rule = "custom";
		return gt_pg_rule_custom(x, custom, pg);
	}
	const struct kind_row *row = find_row(group, version, kind, x->after_skip);
	if (!row && !x->after_skip && x->cfg->karta_fallback) {
		int rc = gt_pg_rule_karta(x, pg);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	if (!row)
		row = &default_row;
	pg->rule = row->rule;
	return row->fn(x, pg);
}

struct gt_doc *gt_pg_keep(struct gt_pg_ctx *x, struct gt_doc *d)
{
	GT_PUSH(x->synth, x->n_synth, x->cap_synth, d);
	return d;
}

/*
 * The labels KAI gives the owner below a skipped wrapper from the
 * wrapper's kind defaults (applyDefaultsFromSkippedOwner): priorityClassName
 * (when that PriorityClass exists) and kai.scheduler/preemptibility, each
 * only where the owner has none. NULL when the kind has no defaults.
 */
static const struct gt_doc *skipped_kind_defaults(struct gt_pg_ctx *x, const struct gt_doc *skipped)
{
	char group[128];
	const char *version, *priority, *preemptibility;
	gt_pg_group_version(skipped, group, sizeof(group), &version);
	gt_pg_kind_defaults(x->cfg, group, gt_pg_kind(skipped), &priority, &preemptibility);
	if (!priority && !preemptibility)
		return NULL;
	struct gt_doc *d = gt_pg_keep(x, gt_pg_doc_new_map());
	struct gt_doc *labels = gt_pg_doc_child_map(gt_pg_doc_child_map(d, "metadata"), "labels");
	if (priority)
		gt_pg_doc_put(labels, GT_PG_PRIORITY_LABEL, gt_pg_doc_new_str(priority));
	if (preemptibility)
		gt_pg_doc_put(labels, GT_PG_PREEMPTIBILITY_LABEL, gt_pg_doc_new_str(preemptibility));
	return d;
}

/*
 * KAI's skip-top-owner grouper (plugins/skiptopowner), for wrappers whose
 * child is the real workload (an Argo Workflow's pods, a TrainJob's JobSet,
 * a Dynamo graph's PodCliqueSet): the owner below the top owner (or the pod
 * itself) becomes the top owner. It keeps its own labels and annotations,
 * takes the wrapper's kind defaults where it has none, then the wrapper's
 * labels and annotations where it still has none, and its own rule
 * decides. In the chain of owners (where the default rule looks for the
 * priority) it carries only its own labels and the kind defaults, as KAI
 * passes it on; a pod directly under the wrapper has no chain and is seen
 * whole.
 */
static int rule_skip(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	struct gt_pg_obj skipped = x->top;
	if (skipped.n_extra + 2 > GT_PG_MAX_EXTRA)
		return gt_pg_fail(x, "%s: more than %d nested wrapper owners to skip",
				  gt_pg_id(skipped.doc).s, GT_PG_MAX_EXTRA / 2);
	bool below_is_pod = x->n_chain < 2;
	struct gt_pg_obj next = below_is_pod ? gt_pg_obj_of(x->pod) : x->chain[x->n_chain - 2];
	const struct gt_doc *defaults = skipped_kind_defaults(x, skipped.doc);
	if (defaults && next.n_extra < GT_PG_MAX_EXTRA)
		next.extra[next.n_extra++] = defaults;
	struct gt_pg_obj in_chain = next;
	next.extra[next.n_extra++] = skipped.doc;
	for (int i = 0; i < skipped.n_extra && next.n_extra < GT_PG_MAX_EXTRA; i++)
		next.extra[next.n_extra++] = skipped.extra[i];
	if (below_is_pod) {
		x->chain[0] = next;	/* the chain keeps its one slot */
	} else {
		x->n_chain--;
		x->chain[x->n_chain - 1] = in_chain;
	}
	x->top = next;
	x->after_skip = true;
	return gt_pg_dispatch(x, pg);
}

enum gt_pg_skip gt_pg_skip_reason(const struct gt_pg_request *req, const struct gt_doc **by)
{
	const struct gt_doc *dummy;
	by = by ? by : &dummy;
	*by = req->pod;
	const char *skip = gt_obj_annotation(req->pod, GT_PG_SKIP_ANNOTATION);
	if (skip && !strcmp(skip, "true"))
		return GT_PG_SKIP_ANNOTATED;
	if (gt_obj_annotation(req->pod, GT_PG_POD_ANNOTATION) && !gt_pg_owner_ref(req->pod))
		return GT_PG_SKIP_OWN_PODGROUP;
	for (size_t i = 0; i < req->n_owners; i++) {
		skip = gt_obj_annotation(req->owners[i], GT_PG_SKIP_ANNOTATION);
		if (skip && !strcmp(skip, "true")) {
			*by = req->owners[i];
			return GT_PG_SKIP_ANNOTATED;
		}
	}
	return GT_PG_GROUP;
}

static void add_node_pool_label(const struct gt_pg_config *cfg, const struct gt_doc *pod,
				struct gt_podgroup *pg)
{
	if (!*cfg->node_pool_label || gt_pg_kvs_get(&pg->labels, cfg->node_pool_label))
		return;
	const char *pool = gt_obj_label(pod, cfg->node_pool_label);
	if (pool)
		gt_pg_kvs_set(&pg->labels, cfg->node_pool_label, pool);
}

int gt_pg_group_pod(const struct gt_pg_config *cfg, const struct gt_pg_request *req,
		    struct gt_podgroup *out, struct gt_err *err)
{
	memset(out, 0, sizeof(*out));
	if (!req->pod || req->pod->kind != GT_DOC_MAP)
		return gt_errf(err, GT_EINVAL, "podgrouper: the pod is not an object");
	struct gt_pg_ctx x = { .cfg = cfg, .req = req, .pod = req->pod, .err = err };
	size_t n = req->n_owners;
	x.chain = gt_xcalloc(n ? n : 1, sizeof(*x.chain));
	for (size_t i = 0; i < n; i++)
		x.chain[i] = gt_pg_obj_of(req->owners[i]);
	if (!n)
		x.chain[0] = gt_pg_obj_of(req->pod);	/* a bare pod is its own top owner */
	x.n_chain = n ? n : 1;
	x.top = x.chain[x.n_chain - 1];
	int rc = gt_pg_dispatch(&x, out);
	free(x.chain);
	for (size_t i = 0; i < x.n_synth; i++)
		gt_doc_free(x.synth[i]);
	free(x.synth);
	if (rc) {
		gt_podgroup_release(out);
		return rc;
	}
	add_node_pool_label(cfg, req->pod, out);
	return 0;
}
