/*
 * test_podgrouper.c - the podgrouper's default rule (queue, priority,
 * preemptibility, labels, annotations, topology), Kubernetes' own kinds, the
 * opt-in gang, wrappers that are skipped, configuration and custom rules
 */
#include "test_podgrouper.h"

const char *gt_suite = "podgrouper";

/* ---------------------------------------------------------------- bare pods */

TEST(bare_pod_is_its_own_podgroup)
{
	struct pgt t;
	pgt_init(&t);
	pgt_pod(&t, &(struct pgt_pod){ .name = "solo", .annotations = "gpu-fraction: '0.5'" });
	PGT_OK(&t, "solo");
	ASSERT_STR("pg-solo-u-solo", t.pg.name);
	ASSERT_STR(PGT_NS, t.pg.namespace);
	ASSERT_EQ(1, t.pg.min_member);
	ASSERT_STR("default-queue", t.pg.queue);
	ASSERT_STR("train", t.pg.priority_class);
	ASSERT_TRUE(!t.pg.preemptibility);
	ASSERT_EQ(0, t.pg.n_subgroups);
	ASSERT_TRUE(!t.pg.pod_subgroup);
	ASSERT_STR("Pod", t.pg.owner.kind);
	ASSERT_STR("v1", t.pg.owner.api_version);
	ASSERT_STR("solo", t.pg.owner.name);
	ASSERT_STR("u-solo", t.pg.owner.uid);
	ASSERT_STR("pod", t.pg.rule);
	/* KAI copies the top owner's annotations, and records who it is */
	ASSERT_STR("0.5", gt_pg_kvs_get(&t.pg.annotations, "gpu-fraction"));
	ASSERT_STR("name: solo\nuid: u-solo\ngroup: \"\"\nversion: v1\nkind: Pod\n",
		   gt_pg_kvs_get(&t.pg.annotations, "kai.scheduler/top-owner-metadata"));
	pgt_free(&t);
}

TEST(pod_without_uid_gets_a_name_without_trailing_dash)
{
	struct pgt t;
	pgt_init(&t);
	pgt_pod(&t, &(struct pgt_pod){ .name = "handmade", .no_uid = true });
	PGT_OK(&t, "handmade");
	ASSERT_STR("pg-handmade", t.pg.name);
	ASSERT_TRUE(!t.pg.owner.uid);
	pgt_free(&t);
}

TEST(spark_driver_and_executors_share_the_application_podgroup)
{
	struct pgt t;
	pgt_init(&t);
	const char *labels = "spark-app-name: etl, spark-app-selector: spark-7f3a, spark-role: %s";
	char drv[128], exe[128];
	snprintf(drv, sizeof(drv), labels, "driver");
	snprintf(exe, sizeof(exe), labels, "executor");
	pgt_pod(&t, &(struct pgt_pod){ .name = "etl-driver", .labels = drv });
	pgt_pod(&t, &(struct pgt_pod){ .name = "etl-exec-1", .labels = exe,
				      .owner = "Pod etl-driver" });
	PGT_OK(&t, "etl-driver");
	ASSERT_STR("spark-7f3a", t.pg.name);
	ASSERT_STR("spark", t.pg.rule);
	PGT_OK(&t, "etl-exec-1");
	ASSERT_STR("spark-7f3a", t.pg.name);
	ASSERT_STR("etl-driver", t.pg.owner.name);	/* the driver is the top owner */
	ASSERT_EQ(1, t.pg.min_member);
	pgt_free(&t);
}

TEST(pod_with_only_one_spark_label_is_not_spark)
{
	struct pgt t;
	pgt_init(&t);
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .labels = "spark-app-selector: s-1" });
	PGT_OK(&t, "p");
	ASSERT_STR("pg-p-u-p", t.pg.name);
	pgt_free(&t);
}

TEST(pod_that_is_not_an_object_is_an_error)
{
	struct gt_pg_config cfg;
	gt_pg_config_init(&cfg);
	struct gt_doc scalar = { .kind = GT_DOC_SCALAR, .scalar = (char *)"x" };
	struct gt_pg_request req = { .pod = &scalar };
	struct gt_podgroup pg;
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EINVAL, gt_pg_group_pod(&cfg, &req, &pg, &err));
	ASSERT_CONTAINS(err.msg, "not an object");
	gt_pg_config_release(&cfg);
}

/* ---------------------------------------------------------------- queue */

TEST(queue_from_top_owner_before_pod)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "ReplicaSet", .name = "rs",
				       .labels = "kai.scheduler/queue: team-a-train" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = "ReplicaSet rs",
				      .labels = "kai.scheduler/queue: other" });
	PGT_OK(&t, "p");
	ASSERT_STR("team-a-train", t.pg.queue);
	ASSERT_STR("team-a-train", gt_pg_kvs_get(&t.pg.labels, "kai.scheduler/queue"));
	pgt_free(&t);
}

TEST(queue_from_pod_when_owner_has_none)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "ReplicaSet", .name = "rs" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = "ReplicaSet rs",
				      .labels = "kai.scheduler/queue: from-pod" });
	PGT_OK(&t, "p");
	ASSERT_STR("from-pod", t.pg.queue);
	pgt_free(&t);
}

TEST(queue_label_key_is_configurable)
{
	struct pgt t;
	pgt_init(&t);
	free(t.cfg.queue_label);
	t.cfg.queue_label = strdup("runai/queue");
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .labels = "runai/queue: legacy, "
								 "kai.scheduler/queue: ignored" });
	PGT_OK(&t, "p");
	ASSERT_STR("legacy", t.pg.queue);
	pgt_free(&t);
}

TEST(queue_from_project_label_with_and_without_node_pool)
{
	static const struct {
		const char *owner_labels, *pod_labels, *queue;
	} cases[] = {
		{ "project: vision", "", "vision" },
		{ "project: vision", "kai.scheduler/node-pool: a100", "vision-a100" },
		{ "", "project: nlp", "nlp" },
		{ "project: vision", "project: nlp", "vision" },
		{ "", "", "default-queue" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		pgt_obj(&t, &(struct pgt_obj){ .kind = "ReplicaSet", .name = "rs",
					       .labels = cases[i].owner_labels });
		pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = "ReplicaSet rs",
					      .labels = cases[i].pod_labels });
		PGT_OK(&t, "p");
		ASSERT_STR(cases[i].queue, t.pg.queue);
		pgt_free(&t);
	}
}

TEST(node_pool_label_is_copied_from_pod)
{
	struct pgt t;
	pgt_init(&t);
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .labels = "kai.scheduler/node-pool: h100" });
	PGT_OK(&t, "p");
	ASSERT_STR("h100", gt_pg_kvs_get(&t.pg.labels, "kai.scheduler/node-pool"));
	pgt_free(&t);
}

/* ---------------------------------------------------------------- priority */

TEST(priority_from_owner_label_pod_label_or_spec)
{
	static const struct {
		const char *owner_labels, *pod_labels, *pod_spec, *want;
	} cases[] = {
		{ "priorityClassName: inference", "priorityClassName: build", NULL, "inference" },
		{ "", "priorityClassName: build", "priorityClassName: inference", "build" },
		{ "", "", "priorityClassName: build-preemptible", "build-preemptible" },
		/* a class that does not exist is skipped for the next candidate */
		{ "priorityClassName: nope", "priorityClassName: build", NULL, "train" },
		{ "", "priorityClassName: nope", NULL, "train" },
		{ "", "", NULL, "train" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		pgt_obj(&t, &(struct pgt_obj){ .kind = "ReplicaSet", .name = "rs",
					       .labels = cases[i].owner_labels });
		pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = "ReplicaSet rs",
					      .labels = cases[i].pod_labels,
					      .spec = cases[i].pod_spec });
		PGT_OK(&t, "p");
		ASSERT_STR(cases[i].want, t.pg.priority_class);
		pgt_free(&t);
	}
}

TEST(priority_search_goes_up_the_owner_chain)
{
	struct pgt t;
	pgt_init(&t);
	/* Tekton: PipelineRun -> TaskRun -> pod; the TaskRun is searched first */
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PipelineRun", .name = "build-42",
				       .labels = "priorityClassName: build" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "TaskRun", .name = "build-42-compile",
				       .owner = "PipelineRun build-42",
				       .labels = "priorityClassName: missing" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "build-42-compile-pod",
				      .owner = "TaskRun build-42-compile" });
	PGT_OK(&t, "build-42-compile-pod");
	ASSERT_STR("build", t.pg.priority_class);
	ASSERT_STR("pg-build-42-u-build-42", t.pg.name);
	ASSERT_STR("PipelineRun", t.pg.owner.kind);
	pgt_free(&t);
}

TEST(priority_classes_from_configuration_exist)
{
	struct pgt t;
	pgt_init(&t);
	gt_pg_config_add_priority_class(&t.cfg, "critical");
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .labels = "priorityClassName: critical" });
	PGT_OK(&t, "p");
	ASSERT_STR("critical", t.pg.priority_class);
	pgt_free(&t);
}

TEST(without_shipped_classes_only_listed_ones_exist)
{
	struct pgt t;
	pgt_init(&t);
	t.cfg.shipped_priority_classes = false;
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .labels = "priorityClassName: build" });
	PGT_OK(&t, "p");
	ASSERT_STR("train", t.pg.priority_class);	/* the fallback is not checked */
	pgt_free(&t);
}

/* A defaults ConfigMap as KAI's operator writes it. */
static int set_defaults(struct pgt *t, const char *types)
{
	char yaml[1024];
	snprintf(yaml, sizeof(yaml), "{apiVersion: v1, kind: ConfigMap, metadata: {name: d, "
		 "namespace: kai-scheduler}, data: {types: '%s'}}", types);
	struct gt_doc_list l = { 0 };
	int rc = gt_doc_parse_string(yaml, strlen(yaml), "cm", &l, &t->err);
	if (!rc)
		rc = gt_pg_config_set_defaults(&t->cfg, l.docs[0], &t->err);
	gt_doc_list_release(&l);
	return rc;
}

TEST(per_kind_defaults_from_configmap)
{
	struct pgt t;
	pgt_init(&t);
	ASSERT_EQ(0, set_defaults(&t, "[{\"typeName\": \"StatefulSet\", \"group\": \"apps\", "
				      "\"priorityName\": \"inference\", \"preemptibility\": "
				      "\"Non-Preemptible\"}, {\"typeName\": \"TFJob\", "
				      "\"priorityName\": \"build\"}]"));
	ASSERT_EQ(2, t.cfg.n_defaults);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "StatefulSet", .name = "db" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "db-0", .owner = "StatefulSet db" });
	PGT_OK(&t, "db-0");
	ASSERT_STR("inference", t.pg.priority_class);
	ASSERT_STR("non-preemptible", pgt_s(t.pg.preemptibility));
	pgt_free(&t);
}

TEST(per_kind_default_without_group_matches_any_group)
{
	struct pgt t;
	pgt_init(&t);
	ASSERT_EQ(0, set_defaults(&t, "[{\"typeName\": \"TFJob\", \"priorityName\": \"build\", "
				      "\"preemptibility\": \"preemptible\"}]"));
	pgt_obj(&t, &(struct pgt_obj){ .kind = "TFJob", .name = "tf",
				       .body = "spec: {tfReplicaSpecs: {Worker: {replicas: 2}}}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "tf-worker-0", .owner = "TFJob tf" });
	PGT_OK(&t, "tf-worker-0");
	ASSERT_STR("build", t.pg.priority_class);
	ASSERT_STR("preemptible", pgt_s(t.pg.preemptibility));
	pgt_free(&t);
}

TEST(explicit_labels_win_over_per_kind_defaults)
{
	struct pgt t;
	pgt_init(&t);
	ASSERT_EQ(0, set_defaults(&t, "[{\"typeName\": \"Pod\", \"priorityName\": \"inference\","
				      " \"preemptibility\": \"non-preemptible\"}]"));
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .labels = "priorityClassName: build, "
								 "kai.scheduler/preemptibility: preemptible" });
	PGT_OK(&t, "p");
	ASSERT_STR("build", t.pg.priority_class);
	ASSERT_STR("preemptible", pgt_s(t.pg.preemptibility));
	pgt_free(&t);
}

TEST(per_kind_default_of_a_missing_class_is_skipped)
{
	struct pgt t;
	pgt_init(&t);
	ASSERT_EQ(0, set_defaults(&t, "[{\"typeName\": \"Pod\", \"priorityName\": \"gone\"}]"));
	pgt_pod(&t, &(struct pgt_pod){ .name = "p" });
	PGT_OK(&t, "p");
	ASSERT_STR("train", t.pg.priority_class);
	pgt_free(&t);
}

TEST(malformed_defaults_configmap_is_an_error)
{
	static const struct {
		const char *types, *want;
	} cases[] = {
		{ "{\"typeName\": \"Pod\"}", "not a JSON list" },
		{ "[{\"group\": \"apps\"}]", "data.types[0] has no typeName" },
		{ "[{\"typeName\": ", "not JSON" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		ASSERT_EQ(GT_EINVAL, set_defaults(&t, cases[i].types));
		ASSERT_CONTAINS(t.err.msg, "ConfigMap kai-scheduler/d");
		ASSERT_CONTAINS(t.err.msg, cases[i].want);
		ASSERT_EQ(0, t.cfg.n_defaults);
		pgt_free(&t);
	}
	struct pgt t;
	pgt_init(&t);
	struct gt_doc_list l = { 0 };
	const char *cm = "{kind: ConfigMap, metadata: {name: d, namespace: x}, data: {}}";
	ASSERT_EQ(0, gt_doc_parse_string(cm, strlen(cm), "cm", &l, &t.err));
	ASSERT_EQ(GT_EINVAL, gt_pg_config_set_defaults(&t.cfg, l.docs[0], &t.err));
	ASSERT_CONTAINS(t.err.msg, "data.types is missing");
	gt_doc_list_release(&l);
	pgt_free(&t);
}

/* ---------------------------------------------------------------- preemptibility */

TEST(preemptibility_from_owners_then_pod)
{
	static const struct {
		const char *owner_labels, *pod_labels, *want;
	} cases[] = {
		{ "kai.scheduler/preemptibility: non-preemptible",
		  "kai.scheduler/preemptibility: preemptible", "non-preemptible" },
		{ "", "kai.scheduler/preemptibility: preemptible", "preemptible" },
		/* an invalid value is ignored, not an error */
		{ "kai.scheduler/preemptibility: sometimes",
		  "kai.scheduler/preemptibility: non-preemptible", "non-preemptible" },
		{ "", "", "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		pgt_obj(&t, &(struct pgt_obj){ .kind = "StatefulSet", .name = "s",
					       .labels = cases[i].owner_labels });
		pgt_pod(&t, &(struct pgt_pod){ .name = "s-0", .owner = "StatefulSet s",
					      .labels = cases[i].pod_labels });
		PGT_OK(&t, "s-0");
		ASSERT_STR(cases[i].want, pgt_s(t.pg.preemptibility));
		pgt_free(&t);
	}
}

/* ---------------------------------------------------------------- metadata */

TEST(labels_annotations_and_user_come_from_top_owner_and_pod)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "StatefulSet", .name = "s",
				       .labels = "app: db, tier: data",
				       .annotations = "owner-note: keep, user: from-owner" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "s-0", .owner = "StatefulSet s",
				      .labels = "user: alice, app: ignored",
				      .annotations = "user: bob" });
	PGT_OK(&t, "s-0");
	ASSERT_STR("db", gt_pg_kvs_get(&t.pg.labels, "app"));
	ASSERT_STR("data", gt_pg_kvs_get(&t.pg.labels, "tier"));
	ASSERT_STR("alice", gt_pg_kvs_get(&t.pg.labels, "user"));
	ASSERT_STR("keep", gt_pg_kvs_get(&t.pg.annotations, "owner-note"));
	/* the top owner's annotations override the pod's user annotation */
	ASSERT_STR("from-owner", gt_pg_kvs_get(&t.pg.annotations, "user"));
	ASSERT_STR("name: s\nuid: u-s\ngroup: apps\nversion: v1\nkind: StatefulSet\n",
		   gt_pg_kvs_get(&t.pg.annotations, "kai.scheduler/top-owner-metadata"));
	pgt_free(&t);
}

TEST(topology_annotations_on_top_owner)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "StatefulSet", .name = "s",
				       .annotations = "kai.scheduler/topology: dc, "
						      "kai.scheduler/topology-required-placement: zone, "
						      "kai.scheduler/topology-preferred-placement: rack" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "s-0", .owner = "StatefulSet s" });
	PGT_OK(&t, "s-0");
	ASSERT_STR("dc", t.pg.topology.topology);
	ASSERT_STR("zone", t.pg.topology.required);
	ASSERT_STR("rack", t.pg.topology.preferred);
	pgt_free(&t);
}

/* ---------------------------------------------------------------- apps/v1 */

TEST(deployment_gets_one_podgroup_per_pod)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Deployment", .name = "web",
				       .labels = "kai.scheduler/queue: serving",
				       .body = "spec: {replicas: 3}" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "ReplicaSet", .name = "web-5d8f",
				       .owner = "Deployment web" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "web-5d8f-abcde", .owner = "ReplicaSet web-5d8f" });
	PGT_OK(&t, "web-5d8f-abcde");
	ASSERT_STR("pg-web-5d8f-abcde-u-web-5d8f-abcde", t.pg.name);
	ASSERT_EQ(1, t.pg.min_member);
	ASSERT_STR("Pod", t.pg.owner.kind);
	ASSERT_STR("web-5d8f-abcde", t.pg.owner.name);
	ASSERT_STR("inference", t.pg.priority_class);
	ASSERT_STR("serving", t.pg.queue);
	ASSERT_STR("deployment", t.pg.rule);
	pgt_free(&t);
}

/* The opt-in gang on each apps/v1 kind, one row each. */
TEST(opt_in_gang_is_minmember_replicas)
{
	static const struct {
		const char *kind, *annotation, *spec;
		int min;
		const char *name, *rule;
	} cases[] = {
		{ "Deployment", "'true'", "replicas: 3", 3, "pg-web-u-web", "deployment-gang" },
		{ "Deployment", "'2'", "replicas: 3", 2, "pg-web-u-web", "deployment-gang" },
		{ "Deployment", "'false'", "replicas: 3", 1, "pg-p-u-p", "deployment" },
		{ "Deployment", "'true'", "replicas: 0", 1, "pg-web-u-web", "deployment-gang" },
		{ "ReplicaSet", "'true'", "replicas: 4", 4, "pg-web-u-web", "replicaset-gang" },
		{ "ReplicaSet", "'true'", "selector: {}", 1, "pg-web-u-web", "replicaset-gang" },
		{ "StatefulSet", "'true'", "replicas: 5, podManagementPolicy: Parallel", 5,
		  "pg-web-u-web", "statefulset-gang" },
		{ "StatefulSet", "'false'", "replicas: 5", 1, "pg-web-u-web", "statefulset" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		char ann[64], body[128];
		snprintf(ann, sizeof(ann), "kai.scheduler/gang-replicas: %s", cases[i].annotation);
		snprintf(body, sizeof(body), "spec: {%s}", cases[i].spec);
		pgt_obj(&t, &(struct pgt_obj){ .kind = cases[i].kind, .name = "web",
					       .annotations = ann, .body = body });
		char owner[64];
		snprintf(owner, sizeof(owner), "%s web", cases[i].kind);
		pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = owner });
		PGT_OK(&t, "p");
		ASSERT_EQ(cases[i].min, t.pg.min_member);
		ASSERT_STR(cases[i].name, t.pg.name);
		ASSERT_STR(cases[i].rule, t.pg.rule);
		pgt_free(&t);
	}
}

TEST(opt_in_gang_deployment_is_owned_by_the_deployment)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Deployment", .name = "web",
				       .annotations = "kai.scheduler/gang-replicas: 'true'",
				       .body = "spec: {replicas: 3}" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "ReplicaSet", .name = "web-1",
				       .owner = "Deployment web" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "web-1-a", .owner = "ReplicaSet web-1" });
	PGT_OK(&t, "web-1-a");
	ASSERT_STR("Deployment", t.pg.owner.kind);
	ASSERT_STR("inference", t.pg.priority_class);
	pgt_free(&t);
}

TEST(gang_annotation_name_is_configurable)
{
	struct pgt t;
	pgt_init(&t);
	free(t.cfg.gang_annotation);
	t.cfg.gang_annotation = strdup("example.com/gang");
	pgt_obj(&t, &(struct pgt_obj){ .kind = "ReplicaSet", .name = "rs",
				       .annotations = "example.com/gang: 'true', "
						      "kai.scheduler/gang-replicas: '9'",
				       .body = "spec: {replicas: 2}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = "ReplicaSet rs" });
	PGT_OK(&t, "p");
	ASSERT_EQ(2, t.pg.min_member);
	pgt_free(&t);
}

TEST(opt_in_gang_errors)
{
	static const struct {
		const char *kind, *annotation, *spec, *want;
	} cases[] = {
		{ "Deployment", "'yes'", "replicas: 3", "annotation kai.scheduler/gang-replicas is 'yes'" },
		{ "ReplicaSet", "'0'", "replicas: 3", "a gang size of at least 1" },
		{ "ReplicaSet", "'true'", "replicas: many", "spec.replicas is not an integer" },
		{ "StatefulSet", "'true'", "replicas: 4", "OrderedReady (the default)" },
		{ "StatefulSet", "'true'", "replicas: 4, podManagementPolicy: OrderedReady",
		  "spec.podManagementPolicy is OrderedReady" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		char ann[64], body[128], owner[64];
		snprintf(ann, sizeof(ann), "kai.scheduler/gang-replicas: %s", cases[i].annotation);
		snprintf(body, sizeof(body), "spec: {%s}", cases[i].spec);
		snprintf(owner, sizeof(owner), "%s web", cases[i].kind);
		pgt_obj(&t, &(struct pgt_obj){ .kind = cases[i].kind, .name = "web",
					       .annotations = ann, .body = body });
		pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = owner });
		PGT_FAILS(&t, "p", cases[i].kind, "team-a/web", cases[i].want);
		pgt_free(&t);
	}
}

TEST(statefulset_and_replicaset_are_one_podgroup_min_one)
{
	static const char *const kinds[] = { "StatefulSet", "ReplicaSet" };
	for (size_t i = 0; i < 2; i++) {
		struct pgt t;
		pgt_init(&t);
		char owner[64];
		snprintf(owner, sizeof(owner), "%s db", kinds[i]);
		pgt_obj(&t, &(struct pgt_obj){ .kind = kinds[i], .name = "db",
					       .body = "spec: {replicas: 3}" });
		pgt_pod(&t, &(struct pgt_pod){ .name = "db-0", .owner = owner });
		pgt_pod(&t, &(struct pgt_pod){ .name = "db-1", .owner = owner });
		PGT_OK(&t, "db-0");
		ASSERT_STR("pg-db-u-db", t.pg.name);
		ASSERT_EQ(1, t.pg.min_member);
		PGT_OK(&t, "db-1");
		ASSERT_STR("pg-db-u-db", t.pg.name);
		ASSERT_STR(kinds[i], t.pg.owner.kind);
		pgt_free(&t);
	}
}

/* ---------------------------------------------------------------- batch/v1 */

TEST(job_gets_one_podgroup_per_job)
{
	/* KAI v0.17 (plugins/job): all of a Job's pods in pg-<job>-<uid>, minMember 1 */
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Job", .name = "sweep",
				       .body = "spec: {parallelism: 4, completions: 8}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "sweep-abcde", .owner = "Job sweep" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "sweep-fghij", .owner = "Job sweep" });
	PGT_OK(&t, "sweep-abcde");
	ASSERT_STR("pg-sweep-u-sweep", t.pg.name);
	ASSERT_EQ(1, t.pg.min_member);
	ASSERT_STR("Job", t.pg.owner.kind);
	ASSERT_STR("sweep", t.pg.owner.name);
	ASSERT_STR("train", t.pg.priority_class);
	ASSERT_STR("job", t.pg.rule);
	PGT_OK(&t, "sweep-fghij");
	ASSERT_STR("pg-sweep-u-sweep", t.pg.name);
	pgt_free(&t);
}

TEST(job_batch_min_member_sets_the_gang)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Job", .name = "pair",
				       .annotations = "kai.scheduler/batch-min-member: '2'",
				       .body = "spec: {parallelism: 2, completions: 2}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "pair-a", .owner = "Job pair" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "pair-b", .owner = "Job pair" });
	PGT_OK(&t, "pair-a");
	ASSERT_STR("pg-pair-u-pair", t.pg.name);
	ASSERT_EQ(2, t.pg.min_member);
	PGT_OK(&t, "pair-b");
	ASSERT_STR("pg-pair-u-pair", t.pg.name);
	ASSERT_EQ(2, t.pg.min_member);
	pgt_free(&t);
	const char *bad[] = { "two", "0", "-1", "99999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char ann[80];
		snprintf(ann, sizeof(ann), "kai.scheduler/batch-min-member: '%s'", bad[i]);
		pgt_init(&t);
		pgt_obj(&t, &(struct pgt_obj){ .kind = "Job", .name = "j", .annotations = ann });
		pgt_pod(&t, &(struct pgt_pod){ .name = "j-a", .owner = "Job j" });
		PGT_FAILS(&t, "j-a", "Job team-a/j", "kai.scheduler/batch-min-member", bad[i]);
		pgt_free(&t);
	}
}

TEST(job_keeps_a_legacy_per_pod_podgroup)
{
	/* with --search-legacy-pg, a PodGroup an older podgrouper made per pod stays, of minMember 1 */
	for (int search = 0; search <= 1; search++) {
		struct pgt t;
		pgt_init(&t);
		t.cfg.search_legacy_pg = search;
		pgt_obj(&t, &(struct pgt_obj){ .kind = "Job", .name = "once",
					       .annotations = "kai.scheduler/batch-min-member: '3'",
					       .body = "spec: {parallelism: 3}" });
		pgt_obj(&t, &(struct pgt_obj){ .kind = "PodGroup", .name = "pg-once-xyz-u-once",
					       .body = "spec: {minMember: 1, queue: q}" });
		pgt_pod(&t, &(struct pgt_pod){ .name = "once-xyz", .owner = "Job once" });
		pgt_pod(&t, &(struct pgt_pod){ .name = "once-new", .owner = "Job once" });
		PGT_OK(&t, "once-xyz");
		ASSERT_STR(search ? "pg-once-xyz-u-once" : "pg-once-u-once", t.pg.name);
		ASSERT_EQ(search ? 1 : 3, t.pg.min_member);
		ASSERT_STR(search ? "job-legacy" : "job", t.pg.rule);
		PGT_OK(&t, "once-new");	/* no legacy PodGroup of its own: the Job's */
		ASSERT_STR("pg-once-u-once", t.pg.name);
		ASSERT_EQ(3, t.pg.min_member);
		pgt_free(&t);
	}
}

TEST(cronjob_groups_per_job_run)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "CronJob", .name = "nightly",
				       .labels = "kai.scheduler/queue: ignored" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Job", .name = "nightly-2901",
				       .owner = "CronJob nightly",
				       .labels = "kai.scheduler/queue: batch" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "nightly-2901-a", .owner = "Job nightly-2901" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "nightly-2901-b", .owner = "Job nightly-2901" });
	PGT_OK(&t, "nightly-2901-a");
	ASSERT_STR("pg-nightly-2901-u-nightly-2901", t.pg.name);
	ASSERT_STR("Job", t.pg.owner.kind);
	ASSERT_STR("batch", t.pg.queue);
	ASSERT_STR("cronjob", t.pg.rule);
	PGT_OK(&t, "nightly-2901-b");
	ASSERT_STR("pg-nightly-2901-u-nightly-2901", t.pg.name);
	pgt_free(&t);
}

TEST(cronjob_pod_without_job_owner_is_an_error)
{
	struct pgt t;
	pgt_init(&t);
	/* a pod owned directly by the CronJob (no Job in between) */
	pgt_obj(&t, &(struct pgt_obj){ .kind = "CronJob", .name = "nightly" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "odd", .owner = "CronJob nightly" });
	PGT_FAILS(&t, "odd", "Pod team-a/odd", "CronJob team-a/nightly",
		  "no owner reference of kind Job");
	pgt_free(&t);
}

TEST(cronjob_whose_job_is_missing_is_an_error)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "CronJob", .name = "nightly" });
	/* the fixtures follow the first reference: the CronJob; the Job is gone */
	pgt_yaml(&t, "---\n{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: team-a, "
		     "ownerReferences: [{apiVersion: batch/v1, kind: CronJob, name: nightly}, "
		     "{apiVersion: batch/v1, kind: Job, name: gone}]}, spec: {}}\n");
	PGT_FAILS(&t, "p", "Job team-a/gone", "is not known");
	pgt_free(&t);
}

/* ---------------------------------------------------------------- vendor kinds */

TEST(runaijob_is_per_pod_without_the_pod_suffix)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "RunaiJob", .name = "exp" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "exp-0-7xk2p", .owner = "RunaiJob exp" });
	PGT_OK(&t, "exp-0-7xk2p");
	ASSERT_STR("pg-exp-0-u-exp", t.pg.name);
	pgt_free(&t);
}

TEST(amljob_gang_is_the_node_count)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "AmlJob", .name = "aml",
				       .body = "spec: {job: {options: {envs: {AZUREML_NODE_COUNT: 4}}}}" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "AmlJob", .name = "bad", .body = "spec: {job: {}}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "aml-0", .owner = "AmlJob aml" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "bad-0", .owner = "AmlJob bad" });
	PGT_OK(&t, "aml-0");
	ASSERT_EQ(4, t.pg.min_member);
	PGT_FAILS(&t, "bad-0", "AmlJob team-a/bad", "spec.job.options.envs.AZUREML_NODE_COUNT");
	pgt_free(&t);
}

TEST(default_rule_kinds)
{
	static const struct {
		const char *kind, *prio;
	} cases[] = {
		{ "SeldonDeployment", "train" }, { "VirtualMachineInstance", "train" },
		{ "DevWorkspace", "train" },	 { "ScheduledWorkflow", "train" },
		{ "SPOTRequest", "inference" },	 { "SomethingNew", "train" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		char owner[64];
		snprintf(owner, sizeof(owner), "%s w", cases[i].kind);
		pgt_obj(&t, &(struct pgt_obj){ .kind = cases[i].kind, .name = "w" });
		pgt_pod(&t, &(struct pgt_pod){ .name = "w-pod", .owner = owner });
		PGT_OK(&t, "w-pod");
		ASSERT_STR("pg-w-u-w", t.pg.name);
		ASSERT_EQ(1, t.pg.min_member);
		ASSERT_STR(cases[i].kind, t.pg.owner.kind);
		ASSERT_STR(cases[i].prio, t.pg.priority_class);
		pgt_free(&t);
	}
}

TEST(kubevirt_vm_groups_by_the_virtual_machine)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "VirtualMachine", .name = "vm1",
				       .labels = "kai.scheduler/queue: vms" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "VirtualMachineInstance", .name = "vm1",
				       .owner = "VirtualMachine vm1" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "virt-launcher-vm1-abc",
				      .owner = "VirtualMachineInstance vm1" });
	PGT_OK(&t, "virt-launcher-vm1-abc");
	ASSERT_STR("pg-vm1-u-vm1", t.pg.name);
	ASSERT_STR("VirtualMachine", t.pg.owner.kind);
	ASSERT_STR("vms", t.pg.queue);
	pgt_free(&t);
}

/* ---------------------------------------------------------------- skipped owners */

TEST(argo_workflow_pods_are_grouped_one_by_one_with_its_labels)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Workflow", .name = "etl",
				       .labels = "kai.scheduler/queue: pipelines, team: data, "
						 "priorityClassName: build",
				       .annotations = "kai.scheduler/topology: dc" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "etl-step-1", .owner = "Workflow etl",
				      .labels = "team: step" });
	PGT_OK(&t, "etl-step-1");
	ASSERT_STR("pg-etl-step-1-u-etl-step-1", t.pg.name);
	ASSERT_STR("Pod", t.pg.owner.kind);
	ASSERT_STR("pipelines", t.pg.queue);
	ASSERT_STR("build", t.pg.priority_class);
	ASSERT_STR("step", gt_pg_kvs_get(&t.pg.labels, "team"));	/* the pod's own wins */
	ASSERT_STR("dc", t.pg.topology.topology);
	ASSERT_EQ(1, t.pg.min_member);
	ASSERT_STR("pod", t.pg.rule);
	pgt_free(&t);
}

TEST(trainjob_is_grouped_as_its_jobset)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "TrainJob", .name = "ft",
				       .labels = "kai.scheduler/queue: research" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "JobSet", .name = "ft", .owner = "TrainJob ft",
				       .body = "spec: {replicatedJobs: [{name: node, replicas: 1, "
					       "template: {spec: {parallelism: 4, completions: 4}}}]}" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Job", .name = "ft-node-0", .owner = "JobSet ft" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "ft-node-0-0-abc", .owner = "Job ft-node-0",
				      .labels = "jobset.sigs.k8s.io/replicatedjob-name: node, "
						"jobset.sigs.k8s.io/job-index: '0'" });
	PGT_OK(&t, "ft-node-0-0-abc");
	ASSERT_STR("pg-ft-u-ft", t.pg.name);
	ASSERT_TRUE(t.pg.has_min_subgroup);
	ASSERT_EQ(1, t.pg.min_subgroup);
	ASSERT_EQ(4, pgt_sub_min(&t.pg, "node-replica-0"));
	ASSERT_STR("node-replica-0", t.pg.pod_subgroup);
	ASSERT_STR("JobSet", t.pg.owner.kind);
	ASSERT_STR("research", t.pg.queue);
	ASSERT_STR("jobset", t.pg.rule);
	pgt_free(&t);
}

/* ---------------------------------------------------------------- configuration */

static int load_config(struct pgt *t, const char *yaml)
{
	struct gt_doc_list l = { 0 };
	int rc = gt_doc_parse_string(yaml, strlen(yaml), "config", &l, &t->err);
	if (!rc)
		rc = gt_pg_config_load(&t->cfg, l.n ? l.docs[0] : NULL, &t->err);
	gt_doc_list_release(&l);
	return rc;
}

TEST(configuration_is_read_from_yaml)
{
	struct pgt t;
	pgt_init(&t);
	ASSERT_EQ(0, load_config(&t, "apiVersion: gantry/v1\n"
				     "kind: PodGrouperConfig\n"
				     "schedulerName: gpu-sched\n"
				     "queueLabelKey: runai/queue\n"
				     "nodePoolLabelKey: ''\n"
				     "gangAnnotation: example.com/gang\n"
				     "knativeGangSchedule: false\n"
				     "searchLegacyPodGroups: false\n"
				     "priorityClasses: [critical, low]\n"
				     "defaultPrioritiesConfigMap: {namespace: kai, name: defaults}\n"
				     "customResources:\n"
				     "- apiVersion: example.com/*\n"
				     "  kind: TrainingRun\n"
				     "  replicas: spec.roles\n"
				     "  roleLabel: example.com/role\n"
				     "- apiVersion: wrap.io/v1\n"
				     "  kind: Wrapper\n"
				     "  skipTopOwner: true\n"));
	ASSERT_STR("gpu-sched", t.cfg.scheduler_name);
	ASSERT_STR("runai/queue", t.cfg.queue_label);
	ASSERT_STR("", t.cfg.node_pool_label);
	ASSERT_STR("example.com/gang", t.cfg.gang_annotation);
	ASSERT_TRUE(!t.cfg.knative_gang && !t.cfg.search_legacy_pg);
	ASSERT_EQ(2, t.cfg.n_priority_classes);
	ASSERT_STR("low", t.cfg.priority_classes[1]);
	ASSERT_STR("kai", t.cfg.defaults_cm_namespace);
	ASSERT_STR("defaults", t.cfg.defaults_cm_name);
	ASSERT_EQ(2, t.cfg.n_rules);
	ASSERT_STR("example.com", t.cfg.rules[0].group);
	ASSERT_STR("*", t.cfg.rules[0].version);
	ASSERT_STR("replicas", t.cfg.rules[0].replicas_field);
	ASSERT_STR("name", t.cfg.rules[0].role_name_field);
	ASSERT_STR("train", t.cfg.rules[0].priority);
	ASSERT_TRUE(t.cfg.rules[1].skip);
	pgt_free(&t);
}

TEST(configuration_errors_name_the_key)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
		{ "schedulerNmae: x\n", "unknown key 'schedulerNmae' (line 1)" },
		{ "knativeGangSchedule: maybe\n", "knativeGangSchedule must be true or false" },
		{ "schedulerName: [a]\n", "schedulerName must be a string" },
		{ "schedulerName: ''\n", "cannot be empty" },
		{ "priorityClasses: x\n", "priorityClasses must be a list" },
		{ "defaultPrioritiesConfigMap: {name: x}\n", "needs namespace and name" },
		{ "customResources: {}\n", "customResources must be a list" },
		{ "customResources: [x]\n", "customResources[0] is not a map" },
		{ "customResources: [{kind: A}]\n", "needs apiVersion and kind" },
		{ "customResources: [{apiVersion: v1, kind: A}]\n", "must be group/version" },
		{ "customResources: [{apiVersion: a/v1, kind: A, replica: x}]\n",
		  "customResources[0]: unknown key 'replica'" },
		{ "- a\n", "expected a map" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		ASSERT_EQ(GT_EINVAL, load_config(&t, cases[i].yaml));
		ASSERT_CONTAINS(t.err.msg, "podgrouper configuration");
		ASSERT_CONTAINS(t.err.msg, cases[i].want);
		pgt_free(&t);
	}
}

/* ---------------------------------------------------------------- custom resources */

static void training_run(struct pgt *t, const char *spec, const char *role)
{
	char body[256], labels[64];
	snprintf(body, sizeof(body), "spec: {%s}", spec);
	pgt_obj(t, &(struct pgt_obj){ .api = "example.com/v1", .kind = "TrainingRun",
				      .name = "run", .body = body });
	snprintf(labels, sizeof(labels), "example.com/role: %s", role);
	pgt_pod(t, &(struct pgt_pod){ .name = "run-pod", .owner = "TrainingRun run",
				     .labels = role ? labels : NULL });
}

static const char custom_config[] = "customResources:\n"
				    "- apiVersion: example.com/*\n"
				    "  kind: TrainingRun\n"
				    "  replicas: spec.roles\n"
				    "  roleLabel: example.com/role\n"
				    "  minMember: spec.minAvailable\n"
				    "  priorityClassName: build\n";

TEST(custom_rule_with_a_map_of_roles)
{
	struct pgt t;
	pgt_init(&t);
	ASSERT_EQ(0, load_config(&t, custom_config));
	training_run(&t, "roles: {Leader: {replicas: 1}, Worker: {replicas: 6}, Spare: {replicas: 0}}",
		     "worker");
	PGT_OK(&t, "run-pod");
	ASSERT_STR("pg-run-u-run", t.pg.name);
	ASSERT_EQ(7, t.pg.min_member);
	ASSERT_EQ(2, t.pg.n_subgroups);
	ASSERT_EQ(1, pgt_sub_min(&t.pg, "leader"));
	ASSERT_EQ(6, pgt_sub_min(&t.pg, "worker"));
	ASSERT_STR("worker", t.pg.pod_subgroup);
	ASSERT_STR("build", t.pg.priority_class);
	ASSERT_STR("custom", t.pg.rule);
	pgt_free(&t);
}

TEST(custom_rule_with_a_list_of_roles_and_bare_counts)
{
	struct pgt t;
	pgt_init(&t);
	ASSERT_EQ(0, load_config(&t, "customResources:\n"
				     "- apiVersion: example.com/v1\n"
				     "  kind: TrainingRun\n"
				     "  replicas: spec.groups\n"
				     "  replicasField: size.count\n"
				     "  roleNameField: role\n"
				     "  roleLabel: example.com/role\n"));
	training_run(&t, "groups: [{role: ps, size: {count: 2}}, {role: worker, size: {count: 8}}]",
		     "ps");
	PGT_OK(&t, "run-pod");
	ASSERT_EQ(10, t.pg.min_member);
	ASSERT_EQ(2, pgt_sub_min(&t.pg, "ps"));
	ASSERT_STR("ps", t.pg.pod_subgroup);
	pgt_free(&t);

	pgt_init(&t);
	ASSERT_EQ(0, load_config(&t, custom_config));
	training_run(&t, "roles: {chief: 1, worker: 3}", "Chief");
	PGT_OK(&t, "run-pod");
	ASSERT_EQ(4, t.pg.min_member);
	ASSERT_STR("chief", t.pg.pod_subgroup);
	pgt_free(&t);
}

TEST(custom_rule_with_a_single_count_and_override)
{
	struct pgt t;
	pgt_init(&t);
	ASSERT_EQ(0, load_config(&t, "customResources:\n"
				     "- apiVersion: example.com/v1\n"
				     "  kind: TrainingRun\n"
				     "  replicas: spec.workers\n"
				     "  minMember: spec.minAvailable\n"));
	training_run(&t, "workers: 8", NULL);
	PGT_OK(&t, "run-pod");
	ASSERT_EQ(8, t.pg.min_member);
	ASSERT_EQ(0, t.pg.n_subgroups);
	pgt_free(&t);

	pgt_init(&t);
	ASSERT_EQ(0, load_config(&t, "customResources:\n"
				     "- apiVersion: example.com/v1\n"
				     "  kind: TrainingRun\n"
				     "  replicas: spec.workers\n"
				     "  minMember: spec.minAvailable\n"));
	training_run(&t, "workers: 8, minAvailable: 6", NULL);
	PGT_OK(&t, "run-pod");
	ASSERT_EQ(6, t.pg.min_member);
	pgt_free(&t);
}

TEST(custom_rule_overrides_a_built_in_kind)
{
	struct pgt t;
	pgt_init(&t);
	ASSERT_EQ(0, load_config(&t, "customResources:\n"
				     "- apiVersion: apps/v1\n"
				     "  kind: StatefulSet\n"
				     "  replicas: spec.replicas\n"));
	pgt_obj(&t, &(struct pgt_obj){ .kind = "StatefulSet", .name = "etcd",
				       .body = "spec: {replicas: 3}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "etcd-0", .owner = "StatefulSet etcd" });
	PGT_OK(&t, "etcd-0");
	ASSERT_EQ(3, t.pg.min_member);
	ASSERT_STR("custom", t.pg.rule);
	pgt_free(&t);
}

TEST(custom_skip_rule_lets_the_owner_below_decide)
{
	struct pgt t;
	pgt_init(&t);
	ASSERT_EQ(0, load_config(&t, "customResources:\n"
				     "- apiVersion: wrap.io/v1\n"
				     "  kind: Wrapper\n"
				     "  skipTopOwner: true\n"));
	pgt_obj(&t, &(struct pgt_obj){ .api = "wrap.io/v1", .kind = "Wrapper", .name = "w",
				       .labels = "kai.scheduler/queue: wrapped" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PyTorchJob", .name = "inner", .owner = "Wrapper w",
				       .body = "spec: {pytorchReplicaSpecs: {Worker: {replicas: 2}}}" });
	/* pgt_owner_ref looks the API up by kind; the Wrapper's is wrap.io/v1 */
	pgt_pod(&t, &(struct pgt_pod){ .name = "inner-worker-0", .owner = "PyTorchJob inner" });
	PGT_OK(&t, "inner-worker-0");
	ASSERT_STR("pg-inner-u-inner", t.pg.name);
	ASSERT_EQ(2, t.pg.min_member);
	ASSERT_STR("wrapped", t.pg.queue);
	ASSERT_STR("pytorch", t.pg.rule);
	pgt_free(&t);
}

TEST(custom_rule_errors)
{
	static const struct {
		const char *spec, *role, *want;
	} cases[] = {
		{ "other: 1", "worker", "has no spec.roles" },
		{ "roles: {worker: {count: 2}}", "worker", "spec.roles.worker has no replicas" },
		{ "roles: {worker: {replicas: -1}}", "worker", "spec.roles.worker.replicas is not a "
							       "replica count" },
		{ "roles: {worker: {replicas: 0}}", "worker", "has 0 replicas in spec.roles" },
		{ "roles: {worker: {replicas: 2}}", "chief", "label example.com/role 'chief' names "
							     "none of the roles" },
		{ "roles: {worker: {replicas: 2}}", NULL, "label example.com/role (missing)" },
		{ "roles: [{replicas: 2}]", "worker", "spec.roles[0] has no name" },
		{ "roles: {worker: 2}, minAvailable: x", "worker", "spec.minAvailable must be an "
								   "integer" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		ASSERT_EQ(0, load_config(&t, custom_config));
		training_run(&t, cases[i].spec, cases[i].role);
		PGT_FAILS(&t, "run-pod", "team-a/run", cases[i].want);
		pgt_free(&t);
	}
}

/* ---------------------------------------------------------------- the index */

TEST(index_finds_every_object_of_a_key)
{
	const char *yaml = "---\n{kind: ReplicaSet, apiVersion: apps/v1, metadata: {name: a, namespace: n}}\n"
			   "---\n{kind: ReplicaSet, apiVersion: example.com/v1, metadata: {name: a, namespace: n}}\n"
			   "---\n{kind: ReplicaSet, metadata: {name: a, namespace: m}}\n"
			   "---\n{kind: Pod, metadata: {name: a}}\n";
	struct gt_doc_list l = { 0 };
	struct gt_err err;
	ASSERT_EQ(0, gt_doc_parse_string(yaml, strlen(yaml), "ix", &l, &err));
	struct gt_pg_index ix;
	gt_pg_index_build(&ix, (const struct gt_doc *const *)l.docs, l.n);
	int32_t cur;
	ASSERT_TRUE(gt_pg_index_find(&ix, "ReplicaSet", "n", "a", &cur) == l.docs[0]);
	ASSERT_TRUE(gt_pg_index_next(&ix, &cur) == l.docs[1]);
	ASSERT_TRUE(gt_pg_index_next(&ix, &cur) == NULL);
	ASSERT_TRUE(gt_pg_index_next(&ix, &cur) == NULL);
	ASSERT_TRUE(gt_pg_index_find(&ix, "ReplicaSet", "m", "a", &cur) == l.docs[2]);
	ASSERT_TRUE(gt_pg_index_find(&ix, "Pod", "default", "a", &cur) == l.docs[3]);
	ASSERT_TRUE(gt_pg_index_find(&ix, "Pod", "n", "a", &cur) == NULL);
	gt_pg_index_release(&ix);
	gt_doc_list_release(&l);
}

const struct gt_test gt_tests[] = {
	T(bare_pod_is_its_own_podgroup),
	T(pod_without_uid_gets_a_name_without_trailing_dash),
	T(spark_driver_and_executors_share_the_application_podgroup),
	T(pod_with_only_one_spark_label_is_not_spark),
	T(pod_that_is_not_an_object_is_an_error),
	T(queue_from_top_owner_before_pod),
	T(queue_from_pod_when_owner_has_none),
	T(queue_label_key_is_configurable),
	T(queue_from_project_label_with_and_without_node_pool),
	T(node_pool_label_is_copied_from_pod),
	T(priority_from_owner_label_pod_label_or_spec),
	T(priority_search_goes_up_the_owner_chain),
	T(priority_classes_from_configuration_exist),
	T(without_shipped_classes_only_listed_ones_exist),
	T(per_kind_defaults_from_configmap),
	T(per_kind_default_without_group_matches_any_group),
	T(explicit_labels_win_over_per_kind_defaults),
	T(per_kind_default_of_a_missing_class_is_skipped),
	T(malformed_defaults_configmap_is_an_error),
	T(preemptibility_from_owners_then_pod),
	T(labels_annotations_and_user_come_from_top_owner_and_pod),
	T(topology_annotations_on_top_owner),
	T(deployment_gets_one_podgroup_per_pod),
	T(opt_in_gang_is_minmember_replicas),
	T(opt_in_gang_deployment_is_owned_by_the_deployment),
	T(gang_annotation_name_is_configurable),
	T(opt_in_gang_errors),
	T(statefulset_and_replicaset_are_one_podgroup_min_one),
	T(job_gets_one_podgroup_per_job),
	T(job_batch_min_member_sets_the_gang),
	T(job_keeps_a_legacy_per_pod_podgroup),
	T(cronjob_groups_per_job_run),
	T(cronjob_pod_without_job_owner_is_an_error),
	T(cronjob_whose_job_is_missing_is_an_error),
	T(runaijob_is_per_pod_without_the_pod_suffix),
	T(amljob_gang_is_the_node_count),
	T(default_rule_kinds),
	T(kubevirt_vm_groups_by_the_virtual_machine),
	T(argo_workflow_pods_are_grouped_one_by_one_with_its_labels),
	T(trainjob_is_grouped_as_its_jobset),
	T(configuration_is_read_from_yaml),
	T(configuration_errors_name_the_key),
	T(custom_rule_with_a_map_of_roles),
	T(custom_rule_with_a_list_of_roles_and_bare_counts),
	T(custom_rule_with_a_single_count_and_override),
	T(custom_rule_overrides_a_built_in_kind),
	T(custom_skip_rule_lets_the_owner_below_decide),
	T(custom_rule_errors),
	T(index_finds_every_object_of_a_key),
	{ 0 }
};
