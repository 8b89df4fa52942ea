/*
 * rules_kubeflow.c - Kubeflow training jobs (TFJob, PyTorchJob, XGBoostJob,
 * JAXJob, MPIJob) and Notebooks
 *
 * A distributed training job is one gang of all its replicas: the sum of
 * spec.<kind>ReplicaSpecs.*.replicas, unless
 * spec.runPolicy.schedulingPolicy.minAvailable says otherwise. Every replica
 * spec must ask for at least one pod and some kinds require certain specs;
 * a job that breaks this is an error, not a PodGroup.
 */
#include <stdio.h>
#include <string.h>

#include "podgrouper/internal.h"

#define REPLICA_TYPE_LABEL "training.kubeflow.org/replica-type"
#define REPLICA_INDEX_LABEL "training.kubeflow.org/replica-index"
#define JOB_NAME_LABEL "training.kubeflow.org/job-name"
#define JOB_ROLE_LABEL "training.kubeflow.org/job-role"

/* spec.runPolicy.schedulingPolicy.minAvailable: 0 and *min, GT_ENOTFOUND, or an error. */
static int scheduling_min(struct gt_pg_ctx *x, int64_t *min)
{
	const char *field = "spec.runPolicy.schedulingPolicy.minAvailable";
	int rc = gt_pg_int(gt_doc_path(x->top.doc, field), min);
	if (rc == GT_ENOTFOUND)
		return rc;
	if (rc || *min < 1 || *min > INT32_MAX)
		return gt_pg_fail(x, "%s: %s must be an integer of at least 1",
				  gt_pg_id(x->top.doc).s, field);
	return 0;
}

/* replicas of replica spec @name (a member of spec.@field) into *n. */
static int spec_replicas(struct gt_pg_ctx *x, const char *field, const char *name,
			 const struct gt_doc *spec, int64_t *n)
{
	int rc = gt_pg_int(gt_doc_get(spec, "replicas"), n);
	const char *what = gt_pg_id(x->top.doc).s;
	if (rc == GT_ENOTFOUND)
		return gt_pg_fail(x, "%s has a %s replica spec without replicas (spec.%s.%s.replicas)",
				  what, name, field, name);
	if (rc)
		return gt_pg_fail(x, "%s has a %s replica spec whose replicas is not an integer "
				  "(spec.%s.%s.replicas)", what, name, field, name);
	if (*n < 1)
		return gt_pg_fail(x, "%s has a %s replica spec with %lld replicas (spec.%s.%s.replicas)",
				  what, name, (long long)*n, field, name);
	return 0;
}

static int sum_replicas(struct gt_pg_ctx *x, const char *field, const char *const *mandatory,
			int64_t *sum)
{
	const char *what = gt_pg_id(x->top.doc).s;
	const struct gt_doc *specs = gt_doc_get(gt_doc_get(x->top.doc, "spec"), field);
	if (!specs || specs->kind != GT_DOC_MAP)
		return gt_pg_fail(x, "%s has no spec.%s", what, field);
	for (const char *const *m = mandatory; *m; m++)
		if (!gt_doc_get(specs, *m))
			return gt_pg_fail(x, "%s has no %s replica spec (spec.%s.%s), which it requires",
					  what, *m, field, *m);
	*sum = 0;
	for (size_t i = 0; i < specs->n; i++) {
		int64_t n;
		int rc = spec_replicas(x, field, specs->keys[i], specs->items[i], &n);
		if (rc)
			return rc;
		*sum += n;
		if (*sum > INT32_MAX)
			return gt_pg_fail(x, "%s asks for more than %d pods in spec.%s", what,
					  INT32_MAX, field);
	}
	if (*sum == 0)
		return gt_pg_fail(x, "%s has no replica specs in spec.%s", what, field);
	return 0;
}

/* KAI's Kubeflow distributed grouper: the default, with the gang size. */
static int distributed(struct gt_pg_ctx *x, const char *field, const char *const *mandatory,
		       struct gt_podgroup *pg)
{
	int64_t min;
	int rc = scheduling_min(x, &min);
	if (rc == GT_ENOTFOUND)
		rc = sum_replicas(x, field, mandatory, &min);
	if (rc)
		return rc;
	gt_pg_default_top(x, &x->top, "train", pg);
	pg->min_member = (int32_t)min;
	return 0;
}

int gt_pg_rule_tfjob(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	static const char *const mandatory[] = { NULL };
	return distributed(x, "tfReplicaSpecs", mandatory, pg);
}

int gt_pg_rule_xgboostjob(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	static const char *const mandatory[] = { "Master", "Worker", NULL };
	return distributed(x, "xgbReplicaSpecs", mandatory, pg);
}

int gt_pg_rule_jaxjob(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	static const char *const mandatory[] = { "Worker", NULL };
	return distributed(x, "jaxReplicaSpecs", mandatory, pg);
}

int gt_pg_rule_notebook(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	gt_pg_default_top(x, &x->top, "build", pg);
	return 0;
}

/* ---------------------------------------------------------------- MPIJob */

static bool launcher_pod(const struct gt_doc *d, const char *ns, const char *job)
{
	const char *name = gt_obj_label(d, JOB_NAME_LABEL);
	const char *role = gt_obj_label(d, JOB_ROLE_LABEL);
	return !strcmp(gt_pg_kind(d), "Pod") && !strcmp(gt_pg_ns(d), ns) && name &&
	       !strcmp(name, job) && role && !strcmp(role, "launcher") &&
	       !gt_doc_str(gt_doc_get(d, "metadata"), "deletionTimestamp");
}

static bool launcher_exists(const struct gt_pg_ctx *x)
{
	const char *ns = gt_pg_ns(x->top.doc), *job = gt_pg_name(x->top.doc);
	if (launcher_pod(x->pod, ns, job))
		return true;
	for (size_t i = 0; i < x->req->n_related; i++)
		if (launcher_pod(x->req->related[i], ns, job))
			return true;
	return false;
}

/*
 * With launcherCreationPolicy WaitForWorkersReady the MPI operator creates
 * the launcher only once the workers run, so until then the gang is the
 * workers alone.
 */
int gt_pg_rule_mpijob(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	static const char *const mandatory[] = { "Launcher", "Worker", NULL };
	int rc = distributed(x, "mpiReplicaSpecs", mandatory, pg);
	const char *policy = gt_doc_str(gt_doc_get(x->top.doc, "spec"), "launcherCreationPolicy");
	if (rc || !policy || strcmp(policy, "WaitForWorkersReady") || launcher_exists(x))
		return rc;
	int64_t launchers;
	const struct gt_doc *spec = gt_doc_path(x->top.doc, "spec.mpiReplicaSpecs.Launcher");
	rc = spec ? spec_replicas(x, "mpiReplicaSpecs", "Launcher", spec, &launchers)
		  : gt_pg_fail(x, "%s has no Launcher replica spec (spec.mpiReplicaSpecs.Launcher), "
			       "which it requires", gt_pg_id(x->top.doc).s);
	if (rc)
		return rc;
	pg->min_member = pg->min_member > launchers ? (int32_t)(pg->min_member - launchers) : 1;
	return 0;
}

/* ---------------------------------------------------------------- PyTorchJob */

static const char *annotation_in(const struct gt_doc *annotations, const char *key)
{
	const char *v = gt_doc_str(annotations, key);
	return v && *v ? v : NULL;
}

/* A pod annotation, else the Worker template's (KAI reads the pod's first). */
static const char *worker_annotation(const struct gt_pg_ctx *x, const struct gt_doc *worker,
				     const char *key)
{
	const char *v = annotation_in(gt_doc_path(x->pod, "metadata.annotations"), key);
	return v ? v : annotation_in(gt_doc_path(worker, "template.metadata.annotations"), key);
}

/* kai.scheduler/segment-size: 0 when unset. */
static int segment_size(struct gt_pg_ctx *x, const struct gt_doc *worker, int64_t *size)
{
	*size = 0;
	const char *v = worker_annotation(x, worker, GT_PG_SEGMENT_SIZE);
	if (!v)
		return 0;
	if (gt_parse_int(v, size) || *size < 1 || *size > INT32_MAX)
		return gt_pg_fail(x, "%s: annotation %s is '%s'; it must be a positive integer "
				  "(on the pod or spec.pytorchReplicaSpecs.Worker.template)",
				  gt_pg_id(x->top.doc).s, GT_PG_SEGMENT_SIZE, v);
	return 0;
}

/* The pod's worker segment from its replica index. */
static int pod_segment(struct gt_pg_ctx *x, int64_t size, int64_t *segment)
{
	const char *idx = gt_obj_label(x->pod, REPLICA_INDEX_LABEL);
	int64_t i;
	if (!idx)
		return gt_pg_fail(x, "%s has no label %s, needed to place it in a segment of %s",
				  gt_pg_id(x->pod).s, REPLICA_INDEX_LABEL, gt_pg_id(x->top.doc).s);
	if (gt_parse_int(idx, &i) || i < 0)
		return gt_pg_fail(x, "%s: label %s is '%s', not a replica index",
				  gt_pg_id(x->pod).s, REPLICA_INDEX_LABEL, idx);
	*segment = i / size;
	return 0;
}

static void segment_topology(const struct gt_pg_ctx *x, const struct gt_doc *worker,
			     struct gt_pg_subgroup *sg)
{
	const char *topo = worker_annotation(x, worker, GT_PG_TOPOLOGY);
	if (!topo)
		topo = gt_pg_annotation(&x->top, GT_PG_TOPOLOGY);
	const char *req = worker_annotation(x, worker, GT_PG_SEGMENT_REQUIRED);
	const char *pref = worker_annotation(x, worker, GT_PG_SEGMENT_PREFERRED);
	if (topo && *topo && (req || pref))
		gt_pg_set_topology(&sg->topology, topo, req, pref);
}

/*
 * worker, a leaf of the workers' share of the gang; with a segment size a
 * parent of worker-0..n-1 instead, which needs all n (minSubGroup). The
 * segments that hold the workers' share are mandatory (of the segment size,
 * the last one of what is left); those beyond it are elastic (minMember 0)
 * and do not hold the gang back.
 */
static int worker_subgroups(struct gt_pg_ctx *x, const struct gt_doc *worker, int64_t min,
			    struct gt_podgroup *pg)
{
	int64_t workers = 1, size, segment = -1;
	gt_pg_int(gt_doc_get(worker, "replicas"), &workers);
	struct gt_pg_subgroup *parent = gt_pg_add_subgroup(pg, "worker", min, NULL);
	int rc = segment_size(x, worker, &size);
	int64_t n = size ? (workers + size - 1) / size : 0;
	if (rc || n <= 0)
		return rc;
	if (n > GT_PG_MAX_SEGMENTS)
		return gt_pg_fail(x, "%s: %lld workers in segments of %lld make more than %d "
				  "segments", gt_pg_id(x->top.doc).s, (long long)workers,
				  (long long)size, GT_PG_MAX_SEGMENTS);
	gt_pg_set_min_subgroup(parent, n);
	const char *type = gt_obj_label(x->pod, REPLICA_TYPE_LABEL);
	if (type && !strcmp(type, "worker") && (rc = pod_segment(x, size, &segment)))
		return rc;
	if (segment >= n)
		return gt_pg_fail(x, "%s: replica index %s is beyond the %lld workers of %s",
				  gt_pg_id(x->pod).s, gt_obj_label(x->pod, REPLICA_INDEX_LABEL),
				  (long long)workers, gt_pg_id(x->top.doc).s);
	int64_t mandatory = (min + size - 1) / size;
	for (int64_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "worker-%lld", (long long)i);
		int64_t members = i >= mandatory ? 0 : i == n - 1 && workers % size ? workers % size
										 : size;
		segment_topology(x, worker, gt_pg_add_subgroup(pg, name, members, "worker"));
		if (i == segment)
			gt_pg_set(&pg->pod_subgroup, name);
	}
	return 0;
}

/*
 * PyTorch: the gang is overridden by spec.elasticPolicy.minReplicas, and
 * that by an explicit minAvailable. Sub-groups: master (its replicas) and
 * worker (the rest of the gang).
 */
int gt_pg_rule_pytorchjob(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	static const char *const mandatory[] = { NULL };
	int rc = distributed(x, "pytorchReplicaSpecs", mandatory, pg);
	if (rc)
		return rc;
	int64_t v;
	if (!gt_pg_int(gt_doc_path(x->top.doc, "spec.elasticPolicy.minReplicas"), &v) && v >= 1 &&
	    v <= INT32_MAX)
		pg->min_member = (int32_t)v;
	if (!scheduling_min(x, &v))
		pg->min_member = (int32_t)v;
	const struct gt_doc *specs = gt_doc_path(x->top.doc, "spec.pytorchReplicaSpecs");
	const struct gt_doc *master = gt_doc_get(specs, "Master");
	const struct gt_doc *worker = gt_doc_get(specs, "Worker");
	int64_t masters = 0;
	gt_pg_int(gt_doc_get(master, "replicas"), &masters);
	const char *type = gt_obj_label(x->pod, REPLICA_TYPE_LABEL);
	if (master && masters > 0) {
		gt_pg_add_subgroup(pg, "master", masters, NULL);
		if (type && !strcmp(type, "master"))
			gt_pg_set(&pg->pod_subgroup, "master");
	}
	if (!worker)
		return 0;
	int64_t rest = pg->min_member - masters;
	if (type && !strcmp(type, "worker"))
		gt_pg_set(&pg->pod_subgroup, "worker");
	return worker_subgroups(x, worker, rest > 0 ? rest : 0, pg);
}
