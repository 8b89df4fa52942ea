/*
 * test_podgrouper.h - fixtures for the podgrouper tests
 *
 * A test writes the objects a cluster would hold (the workload, its
 * intermediate owners, the pods as the operator creates them) as one-line
 * YAML flow mappings, then groups one pod through the pure module:
 *
 *	struct pgt t;
 *	pgt_init(&t);
 *	pgt_obj(&t, &(struct pgt_obj){ .api = "kubeflow.org/v1", .kind = "PyTorchJob",
 *		.name = "llm", .body = "spec: {pytorchReplicaSpecs: {...}}" });
 *	pgt_pod(&t, &(struct pgt_pod){ .name = "llm-worker-0", .owner = "PyTorchJob llm" });
 *	ASSERT_EQ(0, pgt_run(&t, "llm-worker-0"));
 *	ASSERT_EQ(4, t.pg.min_member);
 *	pgt_free(&t);
 *
 * Objects get uid "u-<name>" and namespace team-a unless told otherwise. The
 * pod's owner chain is found by following ownerReferences among the objects;
 * every object is also passed as "related". Everything is static inline:
 * the Makefile links only harness.c with each test.
 */
#ifndef GT_TEST_PODGROUPER_H
#define GT_TEST_PODGROUPER_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/doc.h"
#include "harness.h"
#include "podgrouper/podgrouper.h"

#define PGT_NS "team-a"
#define PGT_MAX_OWNERS 16

struct pgt {
	char *yaml;
	size_t n_yaml, cap_yaml;
	struct gt_doc_list docs;
	bool parsed;
	struct gt_pg_config cfg;
	struct gt_podgroup pg;
	struct gt_err err;
};

static inline void pgt_init(struct pgt *t)
{
	memset(t, 0, sizeof(*t));
	gt_pg_config_init(&t->cfg);
}

static inline void pgt_free(struct pgt *t)
{
	gt_podgroup_release(&t->pg);
	gt_doc_list_release(&t->docs);
	gt_pg_config_release(&t->cfg);
	free(t->yaml);
	memset(t, 0, sizeof(*t));
}

static inline __attribute__((format(printf, 2, 3))) void pgt_yaml(struct pgt *t, const char *fmt,
								  ...)
{
	va_list ap;
	va_start(ap, fmt);
	gt_test_vappendf(&t->yaml, &t->n_yaml, &t->cap_yaml, fmt, ap);
	va_end(ap);
}

/* "Kind name" of an owner; the API version is looked up in pgt_api_of(). */
static inline const char *pgt_api_of(const char *kind)
{
	static const struct {
		const char *kind, *api;
	} apis[] = {
		{ "Pod", "v1" },
		{ "Deployment", "apps/v1" },
		{ "ReplicaSet", "apps/v1" },
		{ "StatefulSet", "apps/v1" },
		{ "Job", "batch/v1" },
		{ "CronJob", "batch/v1" },
		{ "TFJob", "kubeflow.org/v1" },
		{ "PyTorchJob", "kubeflow.org/v1" },
		{ "XGBoostJob", "kubeflow.org/v1" },
		{ "JAXJob", "kubeflow.org/v1" },
		{ "MPIJob", "kubeflow.org/v2beta1" },
		{ "Notebook", "kubeflow.org/v1beta1" },
		{ "ScheduledWorkflow", "kubeflow.org/v1beta1" },
		{ "RayCluster", "ray.io/v1" },
		{ "RayJob", "ray.io/v1" },
		{ "RayService", "ray.io/v1" },
		{ "Service", "serving.knative.dev/v1" },
		{ "Configuration", "serving.knative.dev/v1" },
		{ "Revision", "serving.knative.dev/v1" },
		{ "LeaderWorkerSet", "leaderworkerset.x-k8s.io/v1" },
		{ "JobSet", "jobset.x-k8s.io/v1alpha2" },
		{ "PodCliqueSet", "grove.io/v1alpha1" },
		{ "PodClique", "grove.io/v1alpha1" },
		{ "PodGang", "scheduler.grove.io/v1alpha1" },
		{ "Workflow", "argoproj.io/v1alpha1" },
		{ "TrainJob", "trainer.kubeflow.org/v1alpha1" },
		{ "DynamoGraphDeployment", "nvidia.com/v1alpha1" },
		{ "PipelineRun", "tekton.dev/v1" },
		{ "TaskRun", "tekton.dev/v1" },
		{ "VirtualMachine", "kubevirt.io/v1" },
		{ "VirtualMachineInstance", "kubevirt.io/v1" },
		{ "SeldonDeployment", "machinelearning.seldon.io/v1" },
		{ "AmlJob", "amlarc.azureml.com/v1alpha1" },
		{ "SPOTRequest", "egx.nvidia.io/v1" },
		{ "RunaiJob", "run.ai/v1" },
		{ "DevWorkspace", "workspace.devfile.io/v1alpha2" },
		{ "PodGroup", "scheduling.run.ai/v2alpha2" },
		{ "ConfigMap", "v1" },
		{ "PriorityClass", "scheduling.k8s.io/v1" },
		{ "Karta", "run.ai/v1alpha1" },
		{ "CustomJob", "e2e.example.com/v1" },	/* kinds only a Karta describes */
		{ "Other", "e2e.example.com/v1" },
	};
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++)
		if (!strcmp(apis[i].kind, kind))
			return apis[i].api;
	return "example.com/v1";
}

/* "ownerReferences: [...]" for owner "Kind name" (empty for NULL). */
static inline void pgt_owner_ref(struct pgt *t, const char *owner)
{
	char kind[64], name[128];
	if (!owner || sscanf(owner, "%63s %127s", kind, name) != 2)
		return;
	pgt_yaml(t, ", ownerReferences: [{apiVersion: %s, kind: %s, name: %s, uid: u-%s, "
		    "controller: true}]", pgt_api_of(kind), kind, name, name);
}

struct pgt_obj {
	const char *api;	/* default: pgt_api_of(kind) */
	const char *kind;
	const char *name;
	const char *ns;		/* default team-a */
	const char *labels;	/* flow-map bodies */
	const char *annotations;
	const char *owner;	/* "Kind name" */
	const char *body;	/* what follows metadata: "spec: {...}, status: {...}" */
	bool no_uid;
};

static inline void pgt_obj(struct pgt *t, const struct pgt_obj *o)
{
	pgt_yaml(t, "---\n{apiVersion: %s, kind: %s, metadata: {name: %s, namespace: %s",
		 o->api ? o->api : pgt_api_of(o->kind), o->kind, o->name, o->ns ? o->ns : PGT_NS);
	if (!o->no_uid)
		pgt_yaml(t, ", uid: u-%s", o->name);
	if (o->labels)
		pgt_yaml(t, ", labels: {%s}", o->labels);
	if (o->annotations)
		pgt_yaml(t, ", annotations: {%s}", o->annotations);
	pgt_owner_ref(t, o->owner);
	pgt_yaml(t, "}%s%s}\n", o->body ? ", " : "", o->body ? o->body : "");
}

struct pgt_pod {
	const char *name;
	const char *ns;
	const char *labels;
	const char *annotations;
	const char *owner;	/* "Kind name" */
	const char *spec;	/* more spec, flow-map body */
	bool no_uid;
};

static inline void pgt_pod(struct pgt *t, const struct pgt_pod *p)
{
	char spec[512];
	snprintf(spec, sizeof(spec), "spec: {schedulerName: kai-scheduler%s%s, containers: "
		 "[{name: main, image: busybox}]}", p->spec ? ", " : "", p->spec ? p->spec : "");
	pgt_obj(t, &(struct pgt_obj){ .kind = "Pod", .name = p->name, .ns = p->ns,
				      .labels = p->labels, .annotations = p->annotations,
				      .owner = p->owner, .body = spec, .no_uid = p->no_uid });
}

static inline const struct gt_doc *pgt_find(const struct pgt *t, const char *kind,
					    const char *name)
{
	for (size_t i = 0; i < t->docs.n; i++) {
		const struct gt_doc *d = t->docs.docs[i];
		const char *k = gt_doc_str(d, "kind");
		const char *n = gt_doc_str(gt_doc_get(d, "metadata"), "name");
		if (k && n && !strcmp(k, kind) && !strcmp(n, name))
			return d;
	}
	return NULL;
}

/* Follow the first ownerReference of each object among the documents. */
static inline size_t pgt_owners(const struct pgt *t, const struct gt_doc *pod,
				const struct gt_doc **chain)
{
	size_t n = 0;
	const struct gt_doc *cur = pod;
	while (n < PGT_MAX_OWNERS) {
		const struct gt_doc *refs = gt_doc_path(cur, "metadata.ownerReferences");
		if (!refs || refs->kind != GT_DOC_SEQ || !refs->n)
			break;
		const char *kind = gt_doc_str(refs->items[0], "kind");
		const char *name = gt_doc_str(refs->items[0], "name");
		const struct gt_doc *o = kind && name ? pgt_find(t, kind, name) : NULL;
		if (!o)
			break;
		chain[n++] = cur = o;
	}
	return n;
}

/*
 * Group pod @name: 0, or the error code with the message in t->err.msg.
 * Parses the fixtures on first use; may be called again for another pod.
 */
static inline int pgt_run(struct pgt *t, const char *name)
{
	if (!t->parsed) {
		const char *y = t->yaml ? t->yaml : "";
		if (gt_doc_parse_string(y, strlen(y), "fixture", &t->docs, &t->err)) {
			fprintf(stderr, "fixture: %s\n%s", t->err.msg, y);
			return -100;
		}
		t->parsed = true;
	}
	gt_podgroup_release(&t->pg);
	const struct gt_doc *pod = pgt_find(t, "Pod", name);
	if (!pod) {
		fprintf(stderr, "fixture has no pod %s\n", name);
		return -101;
	}
	const struct gt_doc *chain[PGT_MAX_OWNERS];
	struct gt_pg_request req = {
		.pod = pod, .owners = chain, .n_owners = pgt_owners(t, pod, chain),
		.related = (const struct gt_doc *const *)t->docs.docs, .n_related = t->docs.n,
	};
	memset(&t->err, 0, sizeof(t->err));
	return gt_pg_group_pod(&t->cfg, &req, &t->pg, &t->err);
}

/* Run, and fail the test (freeing @t) unless grouping succeeds. */
#define PGT_OK(t, pod)                                                                   \
	do {                                                                             \
		int rc_ = pgt_run(t, pod);                                               \
		if (rc_) {                                                               \
			fprintf(stderr, "%s:%d: grouping %s failed (%d): %s\n", __FILE__,   \
				__LINE__, pod, rc_, (t)->err.msg);                       \
			pgt_free(t);                                                     \
			gt_test_failures++;                                              \
			return;                                                          \
		}                                                                        \
	} while (0)

/* Run, and fail the test unless grouping fails with every string of the list. */
#define PGT_FAILS(t, pod, ...)                                                           \
	do {                                                                             \
		const char *const want_[] = { __VA_ARGS__, NULL };                      \
		int rc_ = pgt_run(t, pod);                                               \
		bool ok_ = rc_ == GT_EINVAL;                                             \
		for (const char *const *w_ = want_; ok_ && *w_; w_++)                    \
			ok_ = strstr((t)->err.msg, *w_) != NULL;                         \
		if (!ok_) {                                                              \
			fprintf(stderr, "%s:%d: grouping %s: rc %d, \"%s\"; expected:",     \
				__FILE__, __LINE__, pod, rc_, (t)->err.msg);             \
			for (const char *const *w_ = want_; *w_; w_++)                   \
				fprintf(stderr, " \"%s\"", *w_);                         \
			fprintf(stderr, "\n");                                           \
			pgt_free(t);                                                     \
			gt_test_failures++;                                              \
			return;                                                          \
		}                                                                        \
	} while (0)

static inline const struct gt_pg_subgroup *pgt_sub(const struct gt_podgroup *pg,
						   const char *name)
{
	for (size_t i = 0; i < pg->n_subgroups; i++)
		if (!strcmp(pg->subgroups[i].name, name))
			return &pg->subgroups[i];
	return NULL;
}

/* Min of sub-group @name, or -1 when there is none. */
static inline int pgt_sub_min(const struct gt_podgroup *pg, const char *name)
{
	const struct gt_pg_subgroup *s = pgt_sub(pg, name);
	return s ? s->min_member : -1;
}

/* minSubGroup of parent sub-group @name, or -1 when there is none or it is a leaf. */
static inline int pgt_sub_min_subgroup(const struct gt_podgroup *pg, const char *name)
{
	const struct gt_pg_subgroup *s = pgt_sub(pg, name);
	return s && s->has_min_subgroup ? s->min_subgroup : -1;
}

static inline const char *pgt_sub_parent(const struct gt_podgroup *pg, const char *name)
{
	const struct gt_pg_subgroup *s = pgt_sub(pg, name);
	return s && s->parent ? s->parent : "(root)";
}

/* "" when NULL, so that ASSERT_STR can compare unset fields. */
static inline const char *pgt_s(const char *s)
{
	return s ? s : "";
}

#endif /* GT_TEST_PODGROUPER_H */
