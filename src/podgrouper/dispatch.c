/*
 * dispatch.c - choosing the rule by the kind of the pod's top owner
 *
 * As in KAI's plugin hub, the rule is looked up by the top owner's
 * group/version/kind, an exact version first and then any version; a kind
 * with no row gets the default rule. Rules from configuration come before
 * the table, so a site can also change how a known kind is grouped.
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

static const struct kind_row *find_row(const char *group, const char *version, const char *kind)
{
	const struct kind_row *any = NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct kind_row *r = &kinds[i];
		if (strcmp(r->kind, kind) || strcmp(r->group, group))
			continue;
		if (r->version && !strcmp(r->version, version))
			return r;
		if (!r->version)
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
	const struct kind_row *row = find_row(group, version, kind);
	if (!row)
		row = &default_row;
	pg->rule = row->rule;
	return row->fn(x, pg);
}

/*
 * KAI's skip-top-owner grouper, for wrappers whose child is the real
 * workload (an Argo Workflow's pods, a TrainJob's JobSet, a Dynamo graph's
 * PodCliqueSet): the owner below the top owner (or the pod itself) becomes
 * the top owner, keeps its own labels and annotations and inherits the
 * skipped owner's where it has none, and its own rule decides.
 */
static int rule_skip(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	struct gt_pg_obj skipped = x->top;
	if (skipped.n_extra + 1 > GT_PG_MAX_EXTRA)
		return gt_pg_fail(x, "%s: more than %d nested wrapper owners to skip",
				  gt_pg_id(skipped.doc).s, GT_PG_MAX_EXTRA);
	struct gt_pg_obj next;
	if (x->n_chain >= 2) {
		next = x->chain[x->n_chain - 2];
		x->n_chain--;
	} else {
		next = gt_pg_obj_of(x->pod);	/* the chain keeps its one slot */
	}
	next.extra[next.n_extra++] = skipped.doc;
	for (int i = 0; i < skipped.n_extra && next.n_extra < GT_PG_MAX_EXTRA; i++)
		next.extra[next.n_extra++] = skipped.extra[i];
	x->chain[x->n_chain - 1] = next;
	x->top = next;
	return gt_pg_dispatch(x, pg);
}

static void add_node_pool_label(const struct gt_pg_config *cfg, const struct gt_doc *pod,
				struct gt_podgroup *pg)
{
	if (!*cfg->node_pool_label || gt_pg_kvs_get(&pg->labels, cfg->node_pool_label))
		return;
	const char *pool = gt_pg_doc_label(pod, cfg->node_pool_label);
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
	if (rc) {
		gt_podgroup_release(out);
		return rc;
	}
	add_node_pool_label(cfg, req->pod, out);
	return 0;
}
