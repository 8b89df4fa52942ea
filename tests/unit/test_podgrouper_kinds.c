/*
 * test_podgrouper_kinds.c - the operators' kinds: Kubeflow training jobs and
 * notebooks, KubeRay, Knative, LeaderWorkerSet, JobSet and Grove/Dynamo;
 * every minMember rule and every error
 */
#include "test_podgrouper.h"

const char *gt_suite = "podgrouper_kinds";

/* A training job of @kind with @specs and one pod with @labels; grouped. */
static void training_job(struct pgt *t, const char *kind, const char *spec, const char *labels)
{
	char body[512], owner[64];
	snprintf(body, sizeof(body), "spec: {%s}", spec);
	snprintf(owner, sizeof(owner), "%s llm", kind);
	pgt_obj(t, &(struct pgt_obj){ .kind = kind, .name = "llm", .body = body,
				      .labels = "kai.scheduler/queue: research" });
	pgt_pod(t, &(struct pgt_pod){ .name = "llm-pod", .owner = owner, .labels = labels });
}

/* ---------------------------------------------------------------- Kubeflow */

TEST(kubeflow_gang_is_the_sum_of_replicas)
{
	static const struct {
		const char *kind, *spec;
		int min;
	} cases[] = {
		{ "TFJob", "tfReplicaSpecs: {Chief: {replicas: 1}, PS: {replicas: 2}, Worker: {replicas: 4}}", 7 },
		{ "TFJob", "tfReplicaSpecs: {Worker: {replicas: 4}}, runPolicy: {schedulingPolicy: {minAvailable: 2}}", 2 },
		{ "XGBoostJob", "xgbReplicaSpecs: {Master: {replicas: 1}, Worker: {replicas: 3}}", 4 },
		{ "JAXJob", "jaxReplicaSpecs: {Worker: {replicas: 8}}", 8 },
		{ "MPIJob", "mpiReplicaSpecs: {Launcher: {replicas: 1}, Worker: {replicas: 4}}", 5 },
		{ "MPIJob", "launcherCreationPolicy: AtStartup, mpiReplicaSpecs: {Launcher: {replicas: 1}, Worker: {replicas: 4}}", 5 },
		/* minAvailable skips the replica checks, as in KAI */
		{ "XGBoostJob", "runPolicy: {schedulingPolicy: {minAvailable: 3}}", 3 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		training_job(&t, cases[i].kind, cases[i].spec, NULL);
		PGT_OK(&t, "llm-pod");
		ASSERT_EQ(cases[i].min, t.pg.min_member);
		ASSERT_STR("pg-llm-u-llm", t.pg.name);
		ASSERT_STR("research", t.pg.queue);
		ASSERT_STR("train", t.pg.priority_class);
		ASSERT_STR(cases[i].kind, t.pg.owner.kind);
		ASSERT_EQ(0, t.pg.n_subgroups);
		pgt_free(&t);
	}
}

TEST(kubeflow_replica_errors)
{
	static const struct {
		const char *kind, *spec, *want;
	} cases[] = {
		{ "PyTorchJob", "pytorchReplicaSpecs: {Master: {replicas: 1}, Worker: {replicas: 0}}",
		  "PyTorchJob team-a/llm has a Worker replica spec with 0 replicas "
		  "(spec.pytorchReplicaSpecs.Worker.replicas)" },
		{ "TFJob", "tfReplicaSpecs: {Worker: {template: {}}}",
		  "has a Worker replica spec without replicas (spec.tfReplicaSpecs.Worker.replicas)" },
		{ "TFJob", "tfReplicaSpecs: {Worker: {replicas: four}}", "whose replicas is not an integer" },
		{ "TFJob", "tfReplicaSpecs: {PS: {replicas: -1}}", "a PS replica spec with -1 replicas" },
		{ "TFJob", "runPolicy: {}", "TFJob team-a/llm has no spec.tfReplicaSpecs" },
		{ "TFJob", "tfReplicaSpecs: {}", "has no replica specs in spec.tfReplicaSpecs" },
		{ "XGBoostJob", "xgbReplicaSpecs: {Worker: {replicas: 2}}",
		  "has no Master replica spec (spec.xgbReplicaSpecs.Master), which it requires" },
		{ "JAXJob", "jaxReplicaSpecs: {Chief: {replicas: 1}}", "has no Worker replica spec" },
		{ "MPIJob", "mpiReplicaSpecs: {Worker: {replicas: 2}}", "has no Launcher replica spec" },
		{ "PyTorchJob", "runPolicy: {schedulingPolicy: {minAvailable: 0}}, pytorchReplicaSpecs: {Worker: {replicas: 1}}",
		  "spec.runPolicy.schedulingPolicy.minAvailable must be an integer of at least 1" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		training_job(&t, cases[i].kind, cases[i].spec, NULL);
		PGT_FAILS(&t, "llm-pod", cases[i].want);
		pgt_free(&t);
	}
}

TEST(mpijob_waiting_for_workers_leaves_the_launcher_out)
{
	const char *spec = "launcherCreationPolicy: WaitForWorkersReady, mpiReplicaSpecs: "
			   "{Launcher: {replicas: 1}, Worker: {replicas: 4}}";
	struct pgt t;
	pgt_init(&t);
	training_job(&t, "MPIJob", spec, "training.kubeflow.org/job-role: worker");
	PGT_OK(&t, "llm-pod");
	ASSERT_EQ(4, t.pg.min_member);
	pgt_free(&t);

	/* once the launcher pod exists it counts again */
	pgt_init(&t);
	training_job(&t, "MPIJob", spec, "training.kubeflow.org/job-role: worker");
	pgt_pod(&t, &(struct pgt_pod){ .name = "llm-launcher", .owner = "MPIJob llm",
				      .labels = "training.kubeflow.org/job-name: llm, "
						"training.kubeflow.org/job-role: launcher" });
	PGT_OK(&t, "llm-pod");
	ASSERT_EQ(5, t.pg.min_member);
	pgt_free(&t);

	/* a launcher being deleted does not count */
	pgt_init(&t);
	training_job(&t, "MPIJob", spec, "training.kubeflow.org/job-role: worker");
	pgt_yaml(&t, "---\n{apiVersion: v1, kind: Pod, metadata: {name: old-launcher, namespace: "
		     "team-a, deletionTimestamp: '2026-01-01T00:00:00Z', labels: "
		     "{training.kubeflow.org/job-name: llm, training.kubeflow.org/job-role: launcher}}}\n");
	PGT_OK(&t, "llm-pod");
	ASSERT_EQ(4, t.pg.min_member);
	pgt_free(&t);
}

TEST(mpijob_waiting_for_workers_with_min_available)
{
	struct pgt t;
	pgt_init(&t);
	training_job(&t, "MPIJob", "launcherCreationPolicy: WaitForWorkersReady, runPolicy: "
				   "{schedulingPolicy: {minAvailable: 3}}, mpiReplicaSpecs: "
				   "{Launcher: {replicas: 1}, Worker: {replicas: 4}}", NULL);
	PGT_OK(&t, "llm-pod");
	ASSERT_EQ(2, t.pg.min_member);
	pgt_free(&t);

	pgt_init(&t);
	training_job(&t, "MPIJob", "launcherCreationPolicy: WaitForWorkersReady, runPolicy: "
				   "{schedulingPolicy: {minAvailable: 3}}, mpiReplicaSpecs: "
				   "{Worker: {replicas: 4}}", NULL);
	PGT_FAILS(&t, "llm-pod", "MPIJob team-a/llm has no Launcher replica spec");
	pgt_free(&t);
}

TEST(notebook_is_build_priority)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Notebook", .name = "nb" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "StatefulSet", .name = "nb", .owner = "Notebook nb" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "nb-0", .owner = "StatefulSet nb" });
	PGT_OK(&t, "nb-0");
	ASSERT_STR("pg-nb-u-nb", t.pg.name);
	ASSERT_STR("build", t.pg.priority_class);
	ASSERT_STR("Notebook", t.pg.owner.kind);
	ASSERT_EQ(1, t.pg.min_member);
	pgt_free(&t);
}

/* ---------------------------------------------------------------- PyTorchJob */

TEST(pytorchjob_master_and_worker_subgroups)
{
	struct pgt t;
	pgt_init(&t);
	training_job(&t, "PyTorchJob", "pytorchReplicaSpecs: {Master: {replicas: 1}, "
				       "Worker: {replicas: 3}}",
		     "training.kubeflow.org/replica-type: worker, "
		     "training.kubeflow.org/replica-index: '2'");
	pgt_pod(&t, &(struct pgt_pod){ .name = "llm-master-0", .owner = "PyTorchJob llm",
				      .labels = "training.kubeflow.org/replica-type: master" });
	PGT_OK(&t, "llm-pod");
	ASSERT_EQ(4, t.pg.min_member);
	ASSERT_EQ(2, t.pg.n_subgroups);
	ASSERT_EQ(1, pgt_sub_min(&t.pg, "master"));
	ASSERT_EQ(3, pgt_sub_min(&t.pg, "worker"));
	ASSERT_STR("worker", t.pg.pod_subgroup);
	PGT_OK(&t, "llm-master-0");
	ASSERT_STR("master", t.pg.pod_subgroup);
	pgt_free(&t);
}

TEST(pytorchjob_minimum_rules)
{
	static const struct {
		const char *spec;
		int min, master, worker;
	} cases[] = {
		{ "pytorchReplicaSpecs: {Worker: {replicas: 4}}", 4, -1, 4 },
		/* elastic: minReplicas overrides the sum */
		{ "elasticPolicy: {minReplicas: 2, maxReplicas: 8}, pytorchReplicaSpecs: "
		  "{Worker: {replicas: 8}}", 2, -1, 2 },
		/* an explicit minAvailable overrides minReplicas */
		{ "elasticPolicy: {minReplicas: 2}, runPolicy: {schedulingPolicy: {minAvailable: 5}}, "
		  "pytorchReplicaSpecs: {Master: {replicas: 1}, Worker: {replicas: 8}}", 5, 1, 4 },
		/* the worker sub-group takes what the master leaves, never below 0 */
		{ "elasticPolicy: {minReplicas: 1}, pytorchReplicaSpecs: {Master: {replicas: 1}, "
		  "Worker: {replicas: 3}}", 1, 1, 0 },
		{ "pytorchReplicaSpecs: {Master: {replicas: 1}}", 1, 1, -1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		training_job(&t, "PyTorchJob", cases[i].spec, NULL);
		PGT_OK(&t, "llm-pod");
		ASSERT_EQ(cases[i].min, t.pg.min_member);
		ASSERT_EQ(cases[i].master, pgt_sub_min(&t.pg, "master"));
		ASSERT_EQ(cases[i].worker, pgt_sub_min(&t.pg, "worker"));
		ASSERT_TRUE(!t.pg.pod_subgroup);
		pgt_free(&t);
	}
}

TEST(pytorchjob_worker_segments)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PyTorchJob", .name = "llm",
				       .annotations = "kai.scheduler/topology: dc",
				       .body = "spec: {pytorchReplicaSpecs: {Master: {replicas: 1}, "
					       "Worker: {replicas: 10, template: {metadata: {annotations: "
					       "{kai.scheduler/segment-size: '4', "
					       "kai.scheduler/segment-topology-required-placement: rack}}}}}}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "llm-worker-9", .owner = "PyTorchJob llm",
				      .labels = "training.kubeflow.org/replica-type: worker, "
						"training.kubeflow.org/replica-index: '9'" });
	PGT_OK(&t, "llm-worker-9");
	ASSERT_EQ(11, t.pg.min_member);
	ASSERT_EQ(5, t.pg.n_subgroups);	/* master, worker, worker-0..2 */
	/* KAI v0.17: the worker parent needs all its segments (minSubGroup), not 10 pods */
	ASSERT_EQ(3, pgt_sub_min_subgroup(&t.pg, "worker"));
	ASSERT_EQ(4, pgt_sub_min(&t.pg, "worker-0"));
	ASSERT_EQ(4, pgt_sub_min(&t.pg, "worker-1"));
	ASSERT_EQ(2, pgt_sub_min(&t.pg, "worker-2"));
	ASSERT_STR("worker", pgt_sub_parent(&t.pg, "worker-2"));
	ASSERT_STR("(root)", pgt_sub_parent(&t.pg, "worker"));
	ASSERT_STR("dc", pgt_sub(&t.pg, "worker-1")->topology.topology);
	ASSERT_STR("rack", pgt_sub(&t.pg, "worker-1")->topology.required);
	ASSERT_TRUE(!pgt_sub(&t.pg, "worker")->topology.topology);
	ASSERT_STR("worker-2", t.pg.pod_subgroup);
	pgt_free(&t);
}

TEST(pytorchjob_segments_beyond_the_elastic_minimum_are_optional)
{
	/* 10 workers in segments of 4, elastic minimum 5 (1 master + 4 workers): only worker-0 is needed */
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PyTorchJob", .name = "llm",
				       .body = "spec: {elasticPolicy: {minReplicas: 5}, "
					       "pytorchReplicaSpecs: {Master: {replicas: 1}, "
					       "Worker: {replicas: 10, template: {metadata: {annotations: "
					       "{kai.scheduler/segment-size: '4'}}}}}}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "llm-worker-5", .owner = "PyTorchJob llm",
				      .labels = "training.kubeflow.org/replica-type: worker, "
						"training.kubeflow.org/replica-index: '5'" });
	PGT_OK(&t, "llm-worker-5");
	ASSERT_EQ(5, t.pg.min_member);
	ASSERT_EQ(3, pgt_sub_min_subgroup(&t.pg, "worker"));
	ASSERT_EQ(4, pgt_sub_min(&t.pg, "worker-0"));
	ASSERT_EQ(0, pgt_sub_min(&t.pg, "worker-1"));
	ASSERT_EQ(0, pgt_sub_min(&t.pg, "worker-2"));
	ASSERT_STR("worker-1", t.pg.pod_subgroup);
	pgt_free(&t);

	/* a minimum of 3 workers: the one (short) segment is needed whole */
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PyTorchJob", .name = "llm",
				       .body = "spec: {runPolicy: {schedulingPolicy: {minAvailable: 3}}, "
					       "pytorchReplicaSpecs: {Worker: {replicas: 3, template: "
					       "{metadata: {annotations: {kai.scheduler/segment-size: '4'}}}}}}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "w0", .owner = "PyTorchJob llm",
				      .labels = "training.kubeflow.org/replica-type: worker, "
						"training.kubeflow.org/replica-index: '0'" });
	PGT_OK(&t, "w0");
	ASSERT_EQ(1, pgt_sub_min_subgroup(&t.pg, "worker"));
	ASSERT_EQ(3, pgt_sub_min(&t.pg, "worker-0"));
	pgt_free(&t);
}

TEST(pytorchjob_segment_size_on_the_pod_wins)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PyTorchJob", .name = "llm",
				       .body = "spec: {pytorchReplicaSpecs: {Worker: {replicas: 4, template: "
					       "{metadata: {annotations: {kai.scheduler/segment-size: '4'}}}}}}" });
	/* the template says 4, the pod 2 */
	pgt_pod(&t, &(struct pgt_pod){ .name = "w3", .owner = "PyTorchJob llm",
				      .annotations = "kai.scheduler/segment-size: '2', "
						     "kai.scheduler/topology: pod-topo, "
						     "kai.scheduler/segment-topology-preferred-placement: host",
				      .labels = "training.kubeflow.org/replica-type: worker, "
						"training.kubeflow.org/replica-index: '3'" });
	PGT_OK(&t, "w3");
	ASSERT_EQ(2, pgt_sub_min(&t.pg, "worker-1"));
	ASSERT_EQ(-1, pgt_sub_min(&t.pg, "worker-2"));
	ASSERT_STR("worker-1", t.pg.pod_subgroup);
	ASSERT_STR("pod-topo", pgt_sub(&t.pg, "worker-0")->topology.topology);
	ASSERT_STR("host", pgt_sub(&t.pg, "worker-0")->topology.preferred);
	pgt_free(&t);
}

TEST(pytorchjob_segment_errors)
{
	static const struct {
		const char *annotations, *labels, *want;
	} cases[] = {
		{ "kai.scheduler/segment-size: 'x'", "training.kubeflow.org/replica-type: worker",
		  "annotation kai.scheduler/segment-size is 'x'" },
		{ "kai.scheduler/segment-size: '0'", "training.kubeflow.org/replica-type: worker",
		  "must be a positive integer" },
		{ "kai.scheduler/segment-size: '2'", "training.kubeflow.org/replica-type: worker",
		  "Pod team-a/llm-pod has no label training.kubeflow.org/replica-index" },
		{ "kai.scheduler/segment-size: '2'", "training.kubeflow.org/replica-type: worker, "
		  "training.kubeflow.org/replica-index: '-1'", "is '-1', not a replica index" },
		{ "kai.scheduler/segment-size: '2'", "training.kubeflow.org/replica-type: worker, "
		  "training.kubeflow.org/replica-index: '4'", "replica index 4 is beyond the 4 workers" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		pgt_obj(&t, &(struct pgt_obj){ .kind = "PyTorchJob", .name = "llm",
					       .body = "spec: {pytorchReplicaSpecs: {Worker: {replicas: 4}}}" });
		pgt_pod(&t, &(struct pgt_pod){ .name = "llm-pod", .owner = "PyTorchJob llm",
					      .annotations = cases[i].annotations,
					      .labels = cases[i].labels });
		PGT_FAILS(&t, "llm-pod", cases[i].want);
		pgt_free(&t);
	}
	struct pgt t;
	pgt_init(&t);
	training_job(&t, "PyTorchJob", "pytorchReplicaSpecs: {Worker: {replicas: 20001, template: "
				       "{metadata: {annotations: {kai.scheduler/segment-size: '2'}}}}}",
		     NULL);
	PGT_FAILS(&t, "llm-pod", "more than 10000 segments");
	pgt_free(&t);
}

/* ---------------------------------------------------------------- KubeRay */

static const char ray_spec[] =
	"spec: {headGroupSpec: {rayStartParams: {}, template: {spec: {}}}, workerGroupSpecs: ["
	"{groupName: gpu, replicas: 4, minReplicas: 2, maxReplicas: 8, template: {spec: {}}}, "
	"{groupName: tpu, replicas: 2, numOfHosts: 4, template: {metadata: {annotations: "
	"{kai.scheduler/topology: dc, kai.scheduler/topology-required-placement: rack}}}}, "
	"{replicas: 3}, "
	"{groupName: idle, replicas: 0, minReplicas: 0}, "
	"{groupName: parked, replicas: 5, suspended: true}]}";

TEST(raycluster_gang_is_head_and_worker_group_minimums)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "RayCluster", .name = "rc", .body = ray_spec,
				       .labels = "ray.io/priority-class-name: inference" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "rc-head", .owner = "RayCluster rc",
				      .labels = "ray.io/node-type: head, ray.io/group: headgroup" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "rc-tpu-worker-1", .owner = "RayCluster rc",
				      .labels = "ray.io/node-type: worker, ray.io/group: tpu" });
	PGT_OK(&t, "rc-head");
	/* 1 head + 2 (minReplicas) + 2x4 hosts + 3 (unnamed group) */
	ASSERT_EQ(14, t.pg.min_member);
	ASSERT_EQ(4, t.pg.n_subgroups);
	ASSERT_EQ(1, pgt_sub_min(&t.pg, "headgroup"));
	ASSERT_EQ(2, pgt_sub_min(&t.pg, "gpu"));
	ASSERT_EQ(8, pgt_sub_min(&t.pg, "tpu"));
	ASSERT_EQ(3, pgt_sub_min(&t.pg, "worker-group-2"));
	ASSERT_EQ(-1, pgt_sub_min(&t.pg, "idle"));
	ASSERT_EQ(-1, pgt_sub_min(&t.pg, "parked"));
	ASSERT_STR("rack", pgt_sub(&t.pg, "tpu")->topology.required);
	ASSERT_STR("headgroup", t.pg.pod_subgroup);
	ASSERT_STR("inference", t.pg.priority_class);	/* Ray's own label */
	ASSERT_STR("pg-rc-u-rc", t.pg.name);
	PGT_OK(&t, "rc-tpu-worker-1");
	ASSERT_STR("tpu", t.pg.pod_subgroup);
	pgt_free(&t);
}

TEST(rayjob_and_rayservice_group_under_their_own_name)
{
	static const struct {
		const char *kind, *status;
	} cases[] = {
		{ "RayJob", "status: {rayClusterName: run-cluster}" },
		{ "RayService", "status: {activeServiceStatus: {rayClusterName: run-cluster}}" },
		{ "RayService", "status: {pendingServiceStatus: {rayClusterName: run-cluster}}" },
		/* written by hand, without status: the owner chain has the cluster */
		{ "RayJob", NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		char owner[64];
		snprintf(owner, sizeof(owner), "%s run", cases[i].kind);
		pgt_obj(&t, &(struct pgt_obj){ .kind = cases[i].kind, .name = "run",
					       .body = cases[i].status,
					       .labels = "kai.scheduler/queue: ray" });
		pgt_obj(&t, &(struct pgt_obj){ .kind = "RayCluster", .name = "run-cluster",
					       .owner = owner,
					       .body = "spec: {workerGroupSpecs: [{groupName: w, replicas: 2}]}" });
		pgt_pod(&t, &(struct pgt_pod){ .name = "run-cluster-w-x", .owner = "RayCluster run-cluster",
					      .labels = "ray.io/group: w" });
		PGT_OK(&t, "run-cluster-w-x");
		ASSERT_STR("pg-run-u-run", t.pg.name);
		ASSERT_STR(cases[i].kind, t.pg.owner.kind);
		ASSERT_EQ(3, t.pg.min_member);
		ASSERT_STR("w", t.pg.pod_subgroup);
		ASSERT_STR("ray", t.pg.queue);
		pgt_free(&t);
	}
}

TEST(ray_errors)
{
	static const struct {
		const char *cluster_spec, *rayjob_status, *want;
	} cases[] = {
		{ "spec: {workerGroupSpecs: [{groupName: g, replicas: 2, minReplicas: 4}]}", NULL,
		  "RayCluster team-a/rc: spec.workerGroupSpecs[0] has minReplicas 4 above replicas 2" },
		{ "spec: {workerGroupSpecs: [{groupName: g, replicas: lots}]}", NULL,
		  "spec.workerGroupSpecs[0].replicas is not a non-negative integer" },
		{ "spec: {headGroupSpec: {template: {metadata: {annotations: "
		  "{kai.scheduler/topology-preferred-placement: rack}}}}}", NULL,
		  "spec.headGroupSpec.template sets a topology placement without annotation "
		  "kai.scheduler/topology" },
		{ "spec: {}", "status: {rayClusterName: elsewhere}",
		  "RayCluster team-a/elsewhere (status.rayClusterName of RayJob team-a/job) is not known" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		if (cases[i].rayjob_status) {
			pgt_obj(&t, &(struct pgt_obj){ .kind = "RayJob", .name = "job",
						       .body = cases[i].rayjob_status });
			pgt_obj(&t, &(struct pgt_obj){ .kind = "RayCluster", .name = "rc",
						       .owner = "RayJob job",
						       .body = cases[i].cluster_spec });
		} else {
			pgt_obj(&t, &(struct pgt_obj){ .kind = "RayCluster", .name = "rc",
						       .body = cases[i].cluster_spec });
		}
		pgt_pod(&t, &(struct pgt_pod){ .name = "rc-pod", .owner = "RayCluster rc" });
		PGT_FAILS(&t, "rc-pod", cases[i].want);
		pgt_free(&t);
	}
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "RayJob", .name = "job" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "submitter", .owner = "RayJob job" });
	PGT_FAILS(&t, "submitter", "RayJob team-a/job has no status.rayClusterName and no "
				   "RayCluster owns Pod team-a/submitter");
	pgt_free(&t);
}

TEST(ray_legacy_podgroup_without_subgroups_keeps_none)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "RayCluster", .name = "rc", .body = ray_spec });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PodGroup", .name = "pg-rc-u-rc",
				       .body = "spec: {minMember: 14, queue: q}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "rc-head", .owner = "RayCluster rc",
				      .labels = "ray.io/group: headgroup" });
	PGT_OK(&t, "rc-head");
	ASSERT_EQ(14, t.pg.min_member);
	ASSERT_EQ(0, t.pg.n_subgroups);
	ASSERT_TRUE(!t.pg.pod_subgroup);
	pgt_free(&t);
}

/* ---------------------------------------------------------------- Knative */

static void knative(struct pgt *t, const char *rev_annotations)
{
	pgt_obj(t, &(struct pgt_obj){ .kind = "Service", .name = "chat",
				      .labels = "kai.scheduler/queue: serving" });
	pgt_obj(t, &(struct pgt_obj){ .kind = "Configuration", .name = "chat", .owner = "Service chat" });
	pgt_obj(t, &(struct pgt_obj){ .kind = "Revision", .name = "chat-00001",
				      .owner = "Configuration chat", .annotations = rev_annotations,
				      .labels = "kai.scheduler/queue: serving" });
	pgt_obj(t, &(struct pgt_obj){ .kind = "Deployment", .name = "chat-00001-deployment",
				      .owner = "Revision chat-00001" });
	pgt_obj(t, &(struct pgt_obj){ .kind = "ReplicaSet", .name = "chat-00001-deployment-7c9",
				      .owner = "Deployment chat-00001-deployment" });
}

static void knative_pod(struct pgt *t, const char *name, const char *pg)
{
	char ann[96];
	snprintf(ann, sizeof(ann), "pod-group-name: %s", pg ? pg : "");
	pgt_pod(t, &(struct pgt_pod){ .name = name, .owner = "ReplicaSet chat-00001-deployment-7c9",
				     .labels = "serving.knative.dev/revision: chat-00001",
				     .annotations = pg ? ann : NULL });
}

TEST(knative_revision_is_one_gang_of_min_scale)
{
	static const struct {
		const char *annotations;
		int min;
	} cases[] = {
		{ "autoscaling.knative.dev/min-scale: '3'", 3 },
		{ NULL, 1 },
		{ "autoscaling.knative.dev/min-scale: 'x'", 1 },
		{ "autoscaling.knative.dev/min-scale: '0'", 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		knative(&t, cases[i].annotations);
		knative_pod(&t, "chat-a", NULL);
		PGT_OK(&t, "chat-a");
		ASSERT_STR("pg-chat-00001-u-chat-00001", t.pg.name);
		ASSERT_STR("Revision", t.pg.owner.kind);
		ASSERT_EQ(cases[i].min, t.pg.min_member);
		ASSERT_STR("inference", t.pg.priority_class);
		ASSERT_STR("serving", t.pg.queue);
		ASSERT_STR("knative", t.pg.rule);
		pgt_free(&t);
	}
}

TEST(knative_per_pod_when_gang_scheduling_is_off_or_was_off)
{
	struct pgt t;
	pgt_init(&t);
	t.cfg.knative_gang = false;
	knative(&t, "autoscaling.knative.dev/min-scale: '3'");
	knative_pod(&t, "chat-a", NULL);
	PGT_OK(&t, "chat-a");
	ASSERT_STR("pg-chat-a-u-chat-a", t.pg.name);
	ASSERT_STR("Pod", t.pg.owner.kind);
	ASSERT_EQ(1, t.pg.min_member);
	ASSERT_STR("knative-per-pod", t.pg.rule);
	pgt_free(&t);

	/* earlier pods of the revision each have their own PodGroup: keep per-pod */
	pgt_init(&t);
	knative(&t, "autoscaling.knative.dev/min-scale: '3'");
	knative_pod(&t, "chat-old-1", "pg-chat-old-1-x");
	knative_pod(&t, "chat-old-2", "pg-chat-old-2-x");
	knative_pod(&t, "chat-new", NULL);
	PGT_OK(&t, "chat-new");
	ASSERT_STR("pg-chat-new-u-chat-new", t.pg.name);
	pgt_free(&t);

	/* one earlier PodGroup owned by a pod: per-pod too */
	pgt_init(&t);
	knative(&t, NULL);
	knative_pod(&t, "chat-old", "pg-old");
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PodGroup", .name = "pg-old", .owner = "Pod chat-old" });
	knative_pod(&t, "chat-new", NULL);
	PGT_OK(&t, "chat-new");
	ASSERT_STR("pg-chat-new-u-chat-new", t.pg.name);
	pgt_free(&t);
}

TEST(knative_stays_a_gang_when_earlier_pods_share_one)
{
	static const char *const existing[] = { "Revision chat-00001", NULL };
	for (size_t i = 0; i < 2; i++) {
		struct pgt t;
		pgt_init(&t);
		knative(&t, "autoscaling.knative.dev/min-scale: '2'");
		knative_pod(&t, "chat-1", "pg-chat-00001-u-chat-00001");
		if (existing[i])
			pgt_obj(&t, &(struct pgt_obj){ .kind = "PodGroup",
						       .name = "pg-chat-00001-u-chat-00001",
						       .owner = existing[i] });
		else
			knative_pod(&t, "chat-2", "pg-chat-00001-u-chat-00001");
		knative_pod(&t, "chat-3", NULL);
		PGT_OK(&t, "chat-3");
		ASSERT_STR("pg-chat-00001-u-chat-00001", t.pg.name);
		ASSERT_EQ(2, t.pg.min_member);
		pgt_free(&t);
	}
}

TEST(knative_earlier_podgroups_decide_as_kai_reads_them)
{
	/* x, y, x: a PodGroup shared by two pods makes it a gang, whatever else */
	struct pgt t;
	pgt_init(&t);
	knative(&t, "autoscaling.knative.dev/min-scale: '2'");
	knative_pod(&t, "chat-1", "x");
	knative_pod(&t, "chat-2", "y");
	knative_pod(&t, "chat-3", "x");
	knative_pod(&t, "chat-new", NULL);
	PGT_OK(&t, "chat-new");
	ASSERT_STR("pg-chat-00001-u-chat-00001", t.pg.name);
	pgt_free(&t);

	/* one earlier pod whose PodGroup is gone: a gang */
	pgt_init(&t);
	knative(&t, NULL);
	knative_pod(&t, "chat-1", "vanished");
	knative_pod(&t, "chat-new", NULL);
	PGT_OK(&t, "chat-new");
	ASSERT_STR("knative", t.pg.rule);
	pgt_free(&t);
}

TEST(knative_errors)
{
	struct pgt t;
	pgt_init(&t);
	knative(&t, NULL);
	pgt_pod(&t, &(struct pgt_pod){ .name = "nolabel", .owner = "ReplicaSet chat-00001-deployment-7c9" });
	PGT_FAILS(&t, "nolabel", "Pod team-a/nolabel of Service team-a/chat has no label "
				 "serving.knative.dev/revision");
	pgt_free(&t);

	pgt_init(&t);
	knative(&t, NULL);
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = "ReplicaSet chat-00001-deployment-7c9",
				      .labels = "serving.knative.dev/revision: chat-00009" });
	PGT_FAILS(&t, "p", "Revision team-a/chat-00009", "is not known");
	pgt_free(&t);

	pgt_init(&t);
	knative(&t, NULL);
	knative_pod(&t, "chat-old", "pg-odd");
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PodGroup", .name = "pg-odd", .owner = "Job x" });
	knative_pod(&t, "chat-new", NULL);
	PGT_FAILS(&t, "chat-new", "PodGroup team-a/pg-odd", "is owned by a Job");
	pgt_free(&t);

	pgt_init(&t);
	knative(&t, NULL);
	knative_pod(&t, "chat-old", "pg-orphan");
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PodGroup", .name = "pg-orphan" });
	knative_pod(&t, "chat-new", NULL);
	PGT_FAILS(&t, "chat-new", "PodGroup team-a/pg-orphan", "has no owner reference");
	pgt_free(&t);
}

/* ---------------------------------------------------------------- LeaderWorkerSet */

static void lws(struct pgt *t, const char *spec, const char *annotations)
{
	char body[512];
	snprintf(body, sizeof(body), "spec: {%s}", spec);
	pgt_obj(t, &(struct pgt_obj){ .kind = "LeaderWorkerSet", .name = "vllm", .body = body,
				      .annotations = annotations });
	pgt_obj(t, &(struct pgt_obj){ .kind = "StatefulSet", .name = "vllm",
				      .owner = "LeaderWorkerSet vllm" });
	pgt_pod(t, &(struct pgt_pod){ .name = "vllm-1", .owner = "StatefulSet vllm",
				     .labels = "leaderworkerset.sigs.k8s.io/group-index: '1', "
					       "leaderworkerset.sigs.k8s.io/worker-index: '0'" });
	pgt_obj(t, &(struct pgt_obj){ .kind = "StatefulSet", .name = "vllm-1", .owner = "Pod vllm-1" });
	for (int w = 1; w <= 8; w++) {
		char name[32], labels[160];
		snprintf(name, sizeof(name), "vllm-1-%d", w);
		snprintf(labels, sizeof(labels), "leaderworkerset.sigs.k8s.io/group-index: '1', "
			 "leaderworkerset.sigs.k8s.io/worker-index: '%d'", w);
		pgt_pod(t, &(struct pgt_pod){ .name = name, .owner = "StatefulSet vllm-1",
					     .labels = labels,
					     .annotations = "leaderworkerset.sigs.k8s.io/size: '9'" });
	}
}

TEST(lws_one_gang_per_replica_group)
{
	struct pgt t;
	pgt_init(&t);
	lws(&t, "replicas: 2, leaderWorkerTemplate: {size: 4}", NULL);
	PGT_OK(&t, "vllm-1");
	ASSERT_STR("pg-vllm-u-vllm-group-1", t.pg.name);
	ASSERT_EQ(4, t.pg.min_member);
	ASSERT_EQ(1, pgt_sub_min(&t.pg, "leader"));
	ASSERT_EQ(3, pgt_sub_min(&t.pg, "workers"));
	ASSERT_STR("leader", t.pg.pod_subgroup);
	ASSERT_STR("LeaderWorkerSet", t.pg.owner.kind);
	PGT_OK(&t, "vllm-1-3");	/* a worker: owned by the leader's StatefulSet */
	ASSERT_STR("pg-vllm-u-vllm-group-1", t.pg.name);
	ASSERT_STR("workers", t.pg.pod_subgroup);
	pgt_free(&t);

	pgt_init(&t);
	lws(&t, "leaderWorkerTemplate: {size: 1}", NULL);
	PGT_OK(&t, "vllm-1");
	ASSERT_EQ(1, t.pg.n_subgroups);
	ASSERT_EQ(1, t.pg.min_member);
	pgt_free(&t);
}

TEST(lws_leader_ready_waits_for_the_leader_alone)
{
	struct pgt t;
	pgt_init(&t);
	lws(&t, "startupPolicy: LeaderReady, leaderWorkerTemplate: {size: 4}", NULL);
	PGT_OK(&t, "vllm-1");	/* the leader, not yet on a node */
	ASSERT_EQ(1, t.pg.min_member);
	ASSERT_EQ(1, t.pg.n_subgroups);
	ASSERT_STR("leader", t.pg.pod_subgroup);
	PGT_OK(&t, "vllm-1-2");	/* a worker: the pod's size annotation (9) wins */
	ASSERT_EQ(9, t.pg.min_member);
	ASSERT_EQ(8, pgt_sub_min(&t.pg, "workers"));
	pgt_free(&t);

	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "LeaderWorkerSet", .name = "vllm",
				       .body = "spec: {startupPolicy: LeaderReady, "
					       "leaderWorkerTemplate: {size: 4}}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "vllm-0", .owner = "LeaderWorkerSet vllm",
				      .spec = "nodeName: n1",
				      .labels = "leaderworkerset.sigs.k8s.io/worker-index: '0'" });
	PGT_OK(&t, "vllm-0");	/* the leader, placed */
	ASSERT_EQ(4, t.pg.min_member);
	pgt_free(&t);
}

TEST(lws_segments_with_the_leader_in_the_first)
{
	struct pgt t;
	pgt_init(&t);
	/* 9 pods: the 8 workers divide into segments of 4, the leader joins segment-0 */
	lws(&t, "leaderWorkerTemplate: {size: 9, subGroupPolicy: {subGroupSize: 4}}",
	    "kai.scheduler/topology: dc");
	PGT_OK(&t, "vllm-1");
	ASSERT_EQ(9, t.pg.min_member);
	/* KAI v0.17: segment-0 is a parent that needs both its leader and its workers */
	ASSERT_EQ(2, pgt_sub_min_subgroup(&t.pg, "segment-0"));
	ASSERT_EQ(4, pgt_sub_min(&t.pg, "segment-1"));
	ASSERT_EQ(1, pgt_sub_min(&t.pg, "leader"));
	ASSERT_EQ(4, pgt_sub_min(&t.pg, "workers"));
	ASSERT_STR("segment-0", pgt_sub_parent(&t.pg, "leader"));
	ASSERT_STR("segment-0", pgt_sub_parent(&t.pg, "workers"));
	ASSERT_STR("leader", t.pg.pod_subgroup);
	PGT_OK(&t, "vllm-1-4");
	ASSERT_STR("workers", t.pg.pod_subgroup);
	PGT_OK(&t, "vllm-1-5");
	ASSERT_STR("segment-1", t.pg.pod_subgroup);
	pgt_free(&t);

	/* 8 pods in segments of 3: the leader takes a worker's place */
	pgt_init(&t);
	lws(&t, "leaderWorkerTemplate: {size: 8}", "kai.scheduler/segment-size: '3'");
	PGT_OK(&t, "vllm-1-2");
	ASSERT_EQ(2, pgt_sub_min_subgroup(&t.pg, "segment-0"));
	ASSERT_EQ(3, pgt_sub_min(&t.pg, "segment-1"));
	ASSERT_EQ(2, pgt_sub_min(&t.pg, "segment-2"));
	ASSERT_EQ(2, pgt_sub_min(&t.pg, "workers"));
	ASSERT_STR("workers", t.pg.pod_subgroup);
	PGT_OK(&t, "vllm-1-7");
	ASSERT_STR("segment-2", t.pg.pod_subgroup);
	pgt_free(&t);

	/* one segment holding everything: the leader is counted once */
	pgt_init(&t);
	lws(&t, "leaderWorkerTemplate: {size: 5, subGroupPolicy: {subGroupSize: 4}}", NULL);
	PGT_OK(&t, "vllm-1-1");
	ASSERT_EQ(2, pgt_sub_min_subgroup(&t.pg, "segment-0"));
	ASSERT_EQ(4, pgt_sub_min(&t.pg, "workers"));
	pgt_free(&t);
}

TEST(lws_segments_with_the_leader_apart)
{
	struct pgt t;
	pgt_init(&t);
	lws(&t, "leaderWorkerTemplate: {size: 9, subGroupPolicy: {subGroupSize: 4, "
		"subGroupPolicyType: LeaderExcluded}, workerTemplate: {metadata: {annotations: "
		"{kai.scheduler/topology: dc, kai.scheduler/segment-topology-required-placement: "
		"rack}}}}", NULL);
	PGT_OK(&t, "vllm-1");
	ASSERT_EQ(3, t.pg.n_subgroups);
	ASSERT_EQ(1, pgt_sub_min(&t.pg, "leader"));
	ASSERT_STR("(root)", pgt_sub_parent(&t.pg, "leader"));
	ASSERT_EQ(4, pgt_sub_min(&t.pg, "segment-0"));
	ASSERT_EQ(-1, pgt_sub_min_subgroup(&t.pg, "segment-0"));
	ASSERT_EQ(4, pgt_sub_min(&t.pg, "segment-1"));
	ASSERT_STR("rack", pgt_sub(&t.pg, "segment-1")->topology.required);
	ASSERT_STR("leader", t.pg.pod_subgroup);
	PGT_OK(&t, "vllm-1-4");
	ASSERT_STR("segment-0", t.pg.pod_subgroup);
	PGT_OK(&t, "vllm-1-5");
	ASSERT_STR("segment-1", t.pg.pod_subgroup);
	pgt_free(&t);
}

TEST(lws_errors)
{
	static const struct {
		const char *spec, *annotations, *pod, *want;
	} cases[] = {
		{ "replicas: 2", NULL, "vllm-1", "LeaderWorkerSet team-a/vllm has no "
						 "spec.leaderWorkerTemplate.size" },
		{ "leaderWorkerTemplate: {size: 0}", NULL, "vllm-1", "size must be an integer of at least 1" },
		{ "startupPolicy: Whenever, leaderWorkerTemplate: {size: 2}", NULL, "vllm-1",
		  "spec.startupPolicy is 'Whenever'" },
		{ "leaderWorkerTemplate: {size: 9}", "kai.scheduler/segment-size: '1'", "vllm-1",
		  "annotation kai.scheduler/segment-size must be an integer of at least 2" },
		{ "leaderWorkerTemplate: {size: 4, subGroupPolicy: {subGroupSize: 8}}", NULL, "vllm-1",
		  "segment size 8" },
		{ "leaderWorkerTemplate: {size: 8, subGroupPolicy: {subGroupSize: 3, "
		  "subGroupPolicyType: LeaderExcluded}}", NULL, "vllm-1",
		  "the 7 workers must divide into segments of 3" },
		{ "leaderWorkerTemplate: {size: 9, subGroupPolicy: {subGroupSize: 3, "
		  "subGroupPolicyType: Other}}", NULL, "vllm-1", "subGroupPolicyType is 'Other'" },
		{ "leaderWorkerTemplate: {size: 4, subGroupPolicy: {subGroupSize: 2}}", NULL,
		  "vllm-1-7", "worker index 7 is beyond the group size 4" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		lws(&t, cases[i].spec, cases[i].annotations);
		PGT_FAILS(&t, cases[i].pod, cases[i].want);
		pgt_free(&t);
	}
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "LeaderWorkerSet", .name = "vllm",
				       .body = "spec: {leaderWorkerTemplate: {size: 4}}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = "LeaderWorkerSet vllm",
				      .labels = "leaderworkerset.sigs.k8s.io/worker-index: x" });
	PGT_FAILS(&t, "p", "label leaderworkerset.sigs.k8s.io/worker-index is 'x'");
	pgt_free(&t);

	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "LeaderWorkerSet", .name = "vllm",
				       .body = "spec: {leaderWorkerTemplate: {size: 4, "
					       "subGroupPolicy: {subGroupSize: 2}}}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = "LeaderWorkerSet vllm" });
	PGT_FAILS(&t, "p", "has no label leaderworkerset.sigs.k8s.io/worker-index");
	pgt_free(&t);
}

/* ---------------------------------------------------------------- JobSet */

static const char jobset_rjs[] =
	"replicatedJobs: [{name: driver, replicas: 1, template: {spec: {parallelism: 1}}}, "
	"{name: workers, replicas: 2, template: {spec: {parallelism: 4, completions: 3}}}, "
	"{name: eval, template: {spec: {completions: 0}}}]";

static void jobset_with(struct pgt *t, const char *rjs, const char *extra, const char *annotations)
{
	char body[1024];
	snprintf(body, sizeof(body), "spec: {%s%s}", rjs, extra ? extra : "");
	pgt_obj(t, &(struct pgt_obj){ .kind = "JobSet", .name = "js", .body = body,
				      .annotations = annotations });
	pgt_obj(t, &(struct pgt_obj){ .kind = "Job", .name = "js-workers-1", .owner = "JobSet js" });
	pgt_pod(t, &(struct pgt_pod){ .name = "js-workers-1-0", .owner = "Job js-workers-1",
				     .labels = "jobset.sigs.k8s.io/replicatedjob-name: workers, "
					       "jobset.sigs.k8s.io/job-index: '1'" });
	pgt_obj(t, &(struct pgt_obj){ .kind = "Job", .name = "js-driver-0", .owner = "JobSet js" });
	pgt_pod(t, &(struct pgt_pod){ .name = "js-driver-0-0", .owner = "Job js-driver-0",
				     .labels = "jobset.sigs.k8s.io/replicatedjob-name: driver, "
					       "jobset.sigs.k8s.io/job-index: '0'" });
	pgt_pod(t, &(struct pgt_pod){ .name = "stray", .owner = "Job js-driver-0" });
}

static void jobset(struct pgt *t, const char *extra)
{
	jobset_with(t, jobset_rjs, extra, NULL);
}

TEST(jobset_is_one_podgroup_with_a_leaf_per_replica)
{
	/* KAI v0.16+ (plugins/jobset): AnyOrder, the default, needs every replicated job */
	static const char *const extra[] = { NULL, ", startupPolicy: {startupPolicyOrder: AnyOrder}" };
	for (size_t i = 0; i < 2; i++) {
		struct pgt t;
		pgt_init(&t);
		jobset(&t, extra[i]);
		PGT_OK(&t, "js-workers-1-0");
		ASSERT_STR("pg-js-u-js", t.pg.name);
		ASSERT_STR("JobSet", t.pg.owner.kind);
		ASSERT_TRUE(t.pg.has_min_subgroup);
		ASSERT_EQ(3, t.pg.min_subgroup);
		ASSERT_EQ(7, t.pg.n_subgroups);
		ASSERT_EQ(1, pgt_sub_min_subgroup(&t.pg, "driver"));
		ASSERT_EQ(2, pgt_sub_min_subgroup(&t.pg, "workers"));
		ASSERT_EQ(1, pgt_sub_min_subgroup(&t.pg, "eval"));
		ASSERT_STR("(root)", pgt_sub_parent(&t.pg, "workers"));
		/* a replica's gang is its Job's parallelism */
		ASSERT_EQ(4, pgt_sub_min(&t.pg, "workers-replica-0"));
		ASSERT_EQ(4, pgt_sub_min(&t.pg, "workers-replica-1"));
		ASSERT_STR("workers", pgt_sub_parent(&t.pg, "workers-replica-1"));
		ASSERT_EQ(1, pgt_sub_min(&t.pg, "eval-replica-0"));
		ASSERT_STR("workers-replica-1", t.pg.pod_subgroup);
		PGT_OK(&t, "js-driver-0-0");
		ASSERT_STR("pg-js-u-js", t.pg.name);
		ASSERT_STR("driver-replica-0", t.pg.pod_subgroup);
		/* the PodGroup document: minSubGroup, and no minMember, at each parent */
		struct gt_doc *d = gt_podgroup_to_doc(&t.pg);
		ASSERT_STR("3", gt_doc_str(gt_doc_get(d, "spec"), "minSubGroup"));
		ASSERT_TRUE(!gt_doc_get(gt_doc_get(d, "spec"), "minMember"));
		const struct gt_doc *subs = gt_doc_path(d, "spec.subGroups");
		ASSERT_STR("2", gt_doc_str(subs->items[2], "minSubGroup"));
		ASSERT_TRUE(!gt_doc_get(subs->items[2], "minMember"));
		ASSERT_STR("4", gt_doc_str(subs->items[3], "minMember"));
		gt_doc_free(d);
		pgt_free(&t);
	}
}

TEST(jobset_in_order_can_place_the_first_replicated_job_alone)
{
	/* the JobSet controller creates the coordinator first: one replicated job must be enough */
	struct pgt t;
	pgt_init(&t);
	jobset(&t, ", startupPolicy: {startupPolicyOrder: InOrder}");
	PGT_OK(&t, "js-driver-0-0");
	ASSERT_STR("pg-js-u-js", t.pg.name);
	ASSERT_EQ(1, t.pg.min_subgroup);
	ASSERT_EQ(1, pgt_sub_min_subgroup(&t.pg, "driver"));
	ASSERT_EQ(1, pgt_sub_min(&t.pg, "driver-replica-0"));
	ASSERT_STR("driver-replica-0", t.pg.pod_subgroup);
	PGT_OK(&t, "js-workers-1-0");
	ASSERT_STR("pg-js-u-js", t.pg.name);	/* the workers join the same PodGroup later */
	pgt_free(&t);
}

TEST(jobset_batch_min_member_and_template_annotations)
{
	static const struct {
		const char *annotation;
		int min_subgroup;
	} cases[] = { { "kai.scheduler/batch-min-member: '2'", 2 },
		      { "kai.scheduler/batch-min-member: '9'", 3 } };	/* at most the replicated jobs */
	for (size_t i = 0; i < 2; i++) {
		struct pgt t;
		pgt_init(&t);
		jobset_with(&t, jobset_rjs, ", startupPolicy: {startupPolicyOrder: InOrder}",
			    cases[i].annotation);
		PGT_OK(&t, "js-workers-1-0");
		ASSERT_EQ(cases[i].min_subgroup, t.pg.min_subgroup);
		pgt_free(&t);
	}
	struct pgt t;
	pgt_init(&t);
	jobset_with(&t, "replicatedJobs: [{name: driver, template: {spec: {parallelism: 1}}}, "
			"{name: workers, replicas: 2, template: {metadata: {annotations: "
			"{kai.scheduler/batch-min-member: '3', kai.scheduler/topology: dc, "
			"kai.scheduler/topology-required-placement: rack}}, spec: {parallelism: 4}}}]",
		    NULL, NULL);
	PGT_OK(&t, "js-workers-1-0");
	ASSERT_EQ(3, pgt_sub_min(&t.pg, "workers-replica-0"));
	ASSERT_EQ(3, pgt_sub_min(&t.pg, "workers-replica-1"));
	ASSERT_STR("dc", pgt_sub(&t.pg, "workers-replica-1")->topology.topology);
	ASSERT_STR("rack", pgt_sub(&t.pg, "workers-replica-1")->topology.required);
	ASSERT_TRUE(!pgt_sub(&t.pg, "workers")->topology.topology);
	ASSERT_TRUE(!pgt_sub(&t.pg, "driver-replica-0")->topology.topology);
	pgt_free(&t);
}

TEST(jobset_keeps_a_legacy_flat_podgroup)
{
	/* in-flight workloads keep the old shape while its PodGroup (no sub-groups) exists */
	struct pgt t;
	pgt_init(&t);
	jobset(&t, ", startupPolicy: {startupPolicyOrder: InOrder}");
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PodGroup", .name = "pg-js-u-js-driver",
				       .body = "spec: {minMember: 1, queue: q}" });
	PGT_OK(&t, "js-workers-1-0");
	ASSERT_STR("pg-js-u-js-workers", t.pg.name);
	ASSERT_EQ(1, t.pg.min_member);
	ASSERT_TRUE(!t.pg.has_min_subgroup);
	ASSERT_EQ(0, t.pg.n_subgroups);
	ASSERT_TRUE(!t.pg.pod_subgroup);
	ASSERT_STR("jobset-legacy", t.pg.rule);
	pgt_free(&t);

	pgt_init(&t);
	jobset_with(&t, jobset_rjs, NULL, "kai.scheduler/batch-min-member: '5'");
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PodGroup", .name = "pg-js-u-js",
				       .body = "spec: {minMember: 5, queue: q}" });
	PGT_OK(&t, "js-driver-0-0");
	ASSERT_STR("pg-js-u-js", t.pg.name);
	ASSERT_EQ(5, t.pg.min_member);
	ASSERT_EQ(0, t.pg.n_subgroups);
	pgt_free(&t);

	/* a PodGroup of the new shape, another JobSet's, or another namespace's: not legacy */
	static const char *const others[] = {
		"{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: pg-js-u-js, "
		"namespace: team-a}, spec: {minSubGroup: 1, subGroups: [{name: a, minMember: 1}]}}",
		"{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: pg-js-u-jsx, "
		"namespace: team-a}, spec: {minMember: 1}}",
		"{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: pg-js-u-js, "
		"namespace: team-b}, spec: {minMember: 1}}",
	};
	for (size_t i = 0; i < 3; i++) {
		pgt_init(&t);
		jobset(&t, NULL);
		pgt_yaml(&t, "---\n%s\n", others[i]);
		PGT_OK(&t, "js-driver-0-0");
		ASSERT_STR("jobset", t.pg.rule);
		ASSERT_TRUE(t.pg.has_min_subgroup);
		pgt_free(&t);
	}
}

TEST(jobset_errors)
{
	struct pgt t;
	pgt_init(&t);
	jobset(&t, NULL);
	PGT_FAILS(&t, "stray", "Pod team-a/stray of JobSet team-a/js has no label "
			       "jobset.sigs.k8s.io/replicatedjob-name");
	pgt_free(&t);

	static const struct {
		const char *rjs, *labels, *want;
	} cases[] = {
		{ "replicatedJobs: [{name: w, replicas: x}]", "replicatedjob-name: w, "
		  "jobset.sigs.k8s.io/job-index: '0'", "spec.replicatedJobs[0].replicas must be a count" },
		{ "replicatedJobs: [{name: w, replicas: 100000}]", "replicatedjob-name: w, "
		  "jobset.sigs.k8s.io/job-index: '0'", "spec.replicatedJobs[0].replicas must be a count" },
		{ "replicatedJobs: [{name: w, replicas: 6000}, {name: v, replicas: 6000}]",
		  "replicatedjob-name: w, jobset.sigs.k8s.io/job-index: '0'", "more than 10000 replicas" },
		{ "replicatedJobs: [{name: w, replicas: 2}]", "replicatedjob-name: w",
		  "has no label jobset.sigs.k8s.io/job-index" },
		{ "replicatedJobs: [{name: w, replicas: 2}]", "replicatedjob-name: w, "
		  "jobset.sigs.k8s.io/job-index: '2'", "is in no replica of JobSet team-a/js" },
		{ "replicatedJobs: [{replicas: 2}]", "replicatedjob-name: w, "
		  "jobset.sigs.k8s.io/job-index: '0'", "spec.replicatedJobs[0] has no name" },
		{ "replicatedJobs: []", "replicatedjob-name: w", "JobSet team-a/js has no spec.replicatedJobs" },
		{ "replicatedJobs: [{name: w, template: {metadata: {annotations: "
		  "{kai.scheduler/batch-min-member: '0'}}}}]", "replicatedjob-name: w, "
		  "jobset.sigs.k8s.io/job-index: '0'", "template annotation kai.scheduler/batch-min-member is '0'" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char body[256], labels[256];
		snprintf(body, sizeof(body), "spec: {%s}", cases[i].rjs);
		snprintf(labels, sizeof(labels), "jobset.sigs.k8s.io/%s", cases[i].labels);
		pgt_init(&t);
		pgt_obj(&t, &(struct pgt_obj){ .kind = "JobSet", .name = "js", .body = body });
		pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = "JobSet js", .labels = labels });
		PGT_FAILS(&t, "p", cases[i].want);
		pgt_free(&t);
	}
}

/* ---------------------------------------------------------------- Grove / Dynamo */

static const char podgang_body[] =
	"spec: {priorityClassName: inference, "
	"topologyConstraint: {packConstraint: {required: zone}}, "
	"topologyConstraintGroupConfigs: [{name: prefill-group, podGroupNames: [dis-0-pleader, "
	"dis-0-pworker], topologyConstraint: {packConstraint: {preferred: rack}}}, "
	"{name: empty}], "
	"podgroups: [{name: dis-0-frontend, minReplicas: 1, podReferences: [{namespace: team-a, "
	"name: dis-0-frontend-a}]}, "
	"{name: dis-0-pleader, minReplicas: 1, podReferences: [{namespace: team-a, name: "
	"dis-0-pleader-a}]}, "
	"{name: dis-0-pworker, minReplicas: 2, topologyConstraint: {packConstraint: {required: "
	"host}}, podReferences: [{namespace: team-a, name: dis-0-pworker-a}, {namespace: team-a, "
	"name: dis-0-pworker-b}]}]}";

static void grove(struct pgt *t, const char *gang_body, const char *top)
{
	if (top)
		pgt_obj(t, &(struct pgt_obj){ .kind = "DynamoGraphDeployment", .name = "dis",
					      .labels = "kai.scheduler/queue: dynamo, "
							"priorityClassName: build" });
	pgt_obj(t, &(struct pgt_obj){ .kind = "PodCliqueSet", .name = "dis", .owner = top,
				      .labels = "team: serving",
				      .annotations = "kai.scheduler/topology-preferred-placement: rack" });
	pgt_obj(t, &(struct pgt_obj){ .kind = "PodGang", .name = "dis-0", .owner = "PodCliqueSet dis",
				      .labels = "kai.scheduler/queue: grove",
				      .annotations = "grove.io/topology-name: dc",
				      .body = gang_body });
	pgt_obj(t, &(struct pgt_obj){ .kind = "PodClique", .name = "dis-0-pworker",
				      .owner = "PodCliqueSet dis" });
	pgt_pod(t, &(struct pgt_pod){ .name = "dis-0-pworker-b", .owner = "PodClique dis-0-pworker",
				     .labels = "grove.io/podgang: dis-0" });
}

TEST(grove_mirrors_the_podgang)
{
	struct pgt t;
	pgt_init(&t);
	grove(&t, podgang_body, NULL);
	PGT_OK(&t, "dis-0-pworker-b");
	ASSERT_STR("pg-dis-0-u-dis-0", t.pg.name);
	ASSERT_STR("PodGang", t.pg.owner.kind);
	ASSERT_EQ(4, t.pg.min_member);
	ASSERT_EQ(4, t.pg.n_subgroups);	/* one parent, three cliques */
	/* KAI v0.17: a parent needs each PodClique it lists */
	ASSERT_EQ(2, pgt_sub_min_subgroup(&t.pg, "prefill-group"));
	ASSERT_STR("rack", pgt_sub(&t.pg, "prefill-group")->topology.preferred);
	ASSERT_STR("prefill-group", pgt_sub_parent(&t.pg, "dis-0-pworker"));
	ASSERT_STR("(root)", pgt_sub_parent(&t.pg, "dis-0-frontend"));
	ASSERT_EQ(2, pgt_sub_min(&t.pg, "dis-0-pworker"));
	ASSERT_STR("host", pgt_sub(&t.pg, "dis-0-pworker")->topology.required);
	ASSERT_STR("dis-0-pworker", t.pg.pod_subgroup);
	ASSERT_STR("inference", t.pg.priority_class);
	ASSERT_STR("grove", t.pg.queue);
	ASSERT_STR("dc", t.pg.topology.topology);
	ASSERT_STR("zone", t.pg.topology.required);
	/* the PodCliqueSet's annotation fills what the PodGang left empty */
	ASSERT_STR("rack", t.pg.topology.preferred);
	ASSERT_STR("serving", gt_pg_kvs_get(&t.pg.labels, "team"));
	pgt_free(&t);
}

TEST(dynamo_graph_is_skipped_for_its_podcliqueset)
{
	struct pgt t;
	pgt_init(&t);
	grove(&t, podgang_body, "DynamoGraphDeployment dis");
	PGT_OK(&t, "dis-0-pworker-b");
	ASSERT_STR("grove", t.pg.rule);
	ASSERT_STR("pg-dis-0-u-dis-0", t.pg.name);
	/* the graph's labels reach the PodGroup; its priority label wins */
	ASSERT_STR("build", t.pg.priority_class);
	/* the PodGang's own queue label was there first */
	ASSERT_STR("grove", t.pg.queue);
	ASSERT_STR("grove", gt_pg_kvs_get(&t.pg.labels, "kai.scheduler/queue"));
	pgt_free(&t);
}

TEST(grove_errors)
{
	static const struct {
		const char *body, *want;
	} cases[] = {
		{ "spec: {podgroups: [{name: a, podReferences: []}]}",
		  "spec.podgroups[0] (a) needs a minReplicas of at least 1" },
		{ "spec: {podgroups: [{name: a, minReplicas: 1}]}", "spec.podgroups[0] (a) has no podReferences" },
		{ "spec: {podgroups: [{minReplicas: 1}]}", "spec.podgroups[0] has no name" },
		{ "spec: {podgroups: [{name: a, minReplicas: 1, podReferences: [{namespace: other, "
		  "name: x}]}]}", "references pod other/x in another namespace" },
		{ "spec: {podgroups: [{name: a, minReplicas: 1, podReferences: [{name: x}]}]}",
		  "has a podReference without namespace and name" },
		{ "spec: {topologyConstraintGroupConfigs: [{podGroupNames: [a]}]}",
		  "spec.topologyConstraintGroupConfigs[0] has no name" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		grove(&t, cases[i].body, NULL);
		PGT_FAILS(&t, "dis-0-pworker-b", "PodGang team-a/dis-0", cases[i].want);
		pgt_free(&t);
	}

	/* a pack constraint with no topology name anywhere */
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PodCliqueSet", .name = "g" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PodGang", .name = "g-0",
				       .body = "spec: {topologyConstraint: {packConstraint: {required: zone}}}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "g-0-a", .owner = "PodCliqueSet g",
				      .labels = "grove.io/podgang: g-0" });
	PGT_FAILS(&t, "g-0-a", "spec.topologyConstraint.packConstraint is set but the PodGang "
			       "names no topology");
	pgt_free(&t);

	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PodCliqueSet", .name = "g",
				       .labels = "kai.scheduler/preemptibility: often" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PodGang", .name = "g-0", .body = "spec: {}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "g-0-a", .owner = "PodCliqueSet g",
				      .labels = "grove.io/podgang: g-0" });
	PGT_FAILS(&t, "g-0-a", "PodCliqueSet team-a/g: label kai.scheduler/preemptibility is 'often'");
	pgt_free(&t);

	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PodCliqueSet", .name = "g" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "a", .owner = "PodCliqueSet g" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "b", .owner = "PodCliqueSet g",
				      .labels = "grove.io/podgang: g-9" });
	PGT_FAILS(&t, "a", "Pod team-a/a of PodCliqueSet team-a/g has no label grove.io/podgang");
	PGT_FAILS(&t, "b", "PodGang team-a/g-9 (label grove.io/podgang of Pod team-a/b) is not known");
	pgt_free(&t);
}

const struct gt_test gt_tests[] = {
	T(kubeflow_gang_is_the_sum_of_replicas),
	T(kubeflow_replica_errors),
	T(mpijob_waiting_for_workers_leaves_the_launcher_out),
	T(mpijob_waiting_for_workers_with_min_available),
	T(notebook_is_build_priority),
	T(pytorchjob_master_and_worker_subgroups),
	T(pytorchjob_minimum_rules),
	T(pytorchjob_worker_segments),
	T(pytorchjob_segments_beyond_the_elastic_minimum_are_optional),
	T(pytorchjob_segment_size_on_the_pod_wins),
	T(pytorchjob_segment_errors),
	T(raycluster_gang_is_head_and_worker_group_minimums),
	T(rayjob_and_rayservice_group_under_their_own_name),
	T(ray_errors),
	T(ray_legacy_podgroup_without_subgroups_keeps_none),
	T(knative_revision_is_one_gang_of_min_scale),
	T(knative_per_pod_when_gang_scheduling_is_off_or_was_off),
	T(knative_stays_a_gang_when_earlier_pods_share_one),
	T(knative_earlier_podgroups_decide_as_kai_reads_them),
	T(knative_errors),
	T(lws_one_gang_per_replica_group),
	T(lws_leader_ready_waits_for_the_leader_alone),
	T(lws_segments_with_the_leader_in_the_first),
	T(lws_segments_with_the_leader_apart),
	T(lws_errors),
	T(jobset_is_one_podgroup_with_a_leaf_per_replica),
	T(jobset_in_order_can_place_the_first_replicated_job_alone),
	T(jobset_batch_min_member_and_template_annotations),
	T(jobset_keeps_a_legacy_flat_podgroup),
	T(jobset_errors),
	T(grove_mirrors_the_podgang),
	T(dynamo_graph_is_skipped_for_its_podcliqueset),
	T(grove_errors),
	{ 0 }
};
