/*
 * test_podgrouper_examples.c - every manifest in examples/workloads grouped as
 * the documentation promises, and gt_pg_group_all() as the simulator uses it:
 * the PodGroups it adds decode, and the whole directory schedules
 *
 * The tests read the files relative to the repository root, where `make unit`
 * runs them.
 */
#include <dirent.h>

#include "api/decode.h"
#include "core/actions.h"
#include "core/session.h"
#include "test_podgrouper.h"
#include "util/strtab.h"

const char *gt_suite = "podgrouper_examples";

#define EXAMPLES "examples/workloads"
#define MAX_FILES 64

/* What each pod of each example is grouped into (docs/podgrouper.md). */
static const struct expect {
	const char *file, *ns, *pod, *podgroup;
	int min;		/* spec.minMember, unless min_subgroup says otherwise */
	const char *subgroup;
	int min_subgroup;	/* spec.minSubGroup (then there is no minMember), or 0 */
} expected[] = {
	{ "01-pod.yaml", "team-a", "debug-shell", "pg-debug-shell-1e9351bd-c617-485c-8a16-ec704629d802", 1, NULL, 0 },
	{ "02-spark.yaml", "data", "nightly-etl-driver", "spark-5e1f0c2a9b7d4c31", 1, NULL, 0 },
	{ "02-spark.yaml", "data", "nightly-etl-exec-1", "spark-5e1f0c2a9b7d4c31", 1, NULL, 0 },
	{ "02-spark.yaml", "data", "nightly-etl-exec-2", "spark-5e1f0c2a9b7d4c31", 1, NULL, 0 },
	{ "03-deployment.yaml", "team-b", "chat-api-6c9f7b8d4-h2kq7", "pg-chat-api-6c9f7b8d4-h2kq7-0c04264b-30d0-47de-a477-b68f93b7e8e2", 1, NULL, 0 },
	{ "03-deployment.yaml", "team-b", "chat-api-6c9f7b8d4-m8x4z", "pg-chat-api-6c9f7b8d4-m8x4z-a89e9586-a41b-4c8b-abe5-f807eac33243", 1, NULL, 0 },
	{ "03-deployment.yaml", "team-b", "chat-api-6c9f7b8d4-w5rtp", "pg-chat-api-6c9f7b8d4-w5rtp-a737c4c7-0428-47f6-861c-0216765fe634", 1, NULL, 0 },
	{ "04-deployment-gang.yaml", "team-b", "embedder-7d5b9c-4tq8k", "pg-embedder-90bc9304-656c-499e-80a7-9a1fbc813d5e", 3, NULL, 0 },
	{ "04-deployment-gang.yaml", "team-b", "embedder-7d5b9c-c7nvd", "pg-embedder-90bc9304-656c-499e-80a7-9a1fbc813d5e", 3, NULL, 0 },
	{ "04-deployment-gang.yaml", "team-b", "embedder-7d5b9c-zp2lm", "pg-embedder-90bc9304-656c-499e-80a7-9a1fbc813d5e", 3, NULL, 0 },
	{ "05-replicaset.yaml", "team-a", "feature-server-8sk2d", "pg-feature-server-8017d656-7a3d-401e-81e2-53a483b6bff1", 1, NULL, 0 },
	{ "05-replicaset.yaml", "team-a", "feature-server-qv7xw", "pg-feature-server-8017d656-7a3d-401e-81e2-53a483b6bff1", 1, NULL, 0 },
	{ "06-statefulset-gang.yaml", "team-a", "kv-shards-0", "pg-kv-shards-a8c148d2-7ef3-4dfa-8d3a-204ba4b77135", 2, NULL, 0 },
	{ "06-statefulset-gang.yaml", "team-a", "kv-shards-1", "pg-kv-shards-a8c148d2-7ef3-4dfa-8d3a-204ba4b77135", 2, NULL, 0 },
	{ "07-job.yaml", "data", "hparam-sweep-0-v9k2x", "pg-hparam-sweep-e140c4c5-a4b0-437f-aaee-9a4ce30c7180", 2, NULL, 0 },
	{ "07-job.yaml", "data", "hparam-sweep-1-f3m8q", "pg-hparam-sweep-e140c4c5-a4b0-437f-aaee-9a4ce30c7180", 2, NULL, 0 },
	{ "08-cronjob.yaml", "data", "feature-backfill-29478840-g7d2k", "pg-feature-backfill-29478840-0a038437-4648-43b0-8270-ffe4bf3459a2", 1, NULL, 0 },
	{ "10-tfjob.yaml", "team-a", "resnet50-chief-0", "pg-resnet50-3bbe3c09-975a-406d-83f5-dbeb24f859f1", 4, NULL, 0 },
	{ "10-tfjob.yaml", "team-a", "resnet50-ps-0", "pg-resnet50-3bbe3c09-975a-406d-83f5-dbeb24f859f1", 4, NULL, 0 },
	{ "10-tfjob.yaml", "team-a", "resnet50-worker-0", "pg-resnet50-3bbe3c09-975a-406d-83f5-dbeb24f859f1", 4, NULL, 0 },
	{ "10-tfjob.yaml", "team-a", "resnet50-worker-1", "pg-resnet50-3bbe3c09-975a-406d-83f5-dbeb24f859f1", 4, NULL, 0 },
	{ "11-pytorchjob.yaml", "team-a", "llm-pretrain-master-0", "pg-llm-pretrain-f80df5f1-2826-4590-a847-787ae55effd6", 4, "master", 0 },
	{ "11-pytorchjob.yaml", "team-a", "llm-pretrain-worker-0", "pg-llm-pretrain-f80df5f1-2826-4590-a847-787ae55effd6", 4, "worker", 0 },
	{ "11-pytorchjob.yaml", "team-a", "llm-pretrain-worker-1", "pg-llm-pretrain-f80df5f1-2826-4590-a847-787ae55effd6", 4, "worker", 0 },
	{ "11-pytorchjob.yaml", "team-a", "llm-pretrain-worker-2", "pg-llm-pretrain-f80df5f1-2826-4590-a847-787ae55effd6", 4, "worker", 0 },
	{ "12-pytorchjob-segments.yaml", "team-a", "moe-finetune-master-0", "pg-moe-finetune-f6a6526e-c717-4e9d-9611-7011c8da8165", 5, "master", 0 },
	{ "12-pytorchjob-segments.yaml", "team-a", "moe-finetune-worker-0", "pg-moe-finetune-f6a6526e-c717-4e9d-9611-7011c8da8165", 5, "worker-0", 0 },
	{ "12-pytorchjob-segments.yaml", "team-a", "moe-finetune-worker-1", "pg-moe-finetune-f6a6526e-c717-4e9d-9611-7011c8da8165", 5, "worker-0", 0 },
	{ "12-pytorchjob-segments.yaml", "team-a", "moe-finetune-worker-2", "pg-moe-finetune-f6a6526e-c717-4e9d-9611-7011c8da8165", 5, "worker-1", 0 },
	{ "12-pytorchjob-segments.yaml", "team-a", "moe-finetune-worker-3", "pg-moe-finetune-f6a6526e-c717-4e9d-9611-7011c8da8165", 5, "worker-1", 0 },
	{ "13-xgboostjob.yaml", "data", "churn-model-master-0", "pg-churn-model-b5ababc9-700c-4b0d-b123-688a12be852b", 3, NULL, 0 },
	{ "13-xgboostjob.yaml", "data", "churn-model-worker-0", "pg-churn-model-b5ababc9-700c-4b0d-b123-688a12be852b", 3, NULL, 0 },
	{ "13-xgboostjob.yaml", "data", "churn-model-worker-1", "pg-churn-model-b5ababc9-700c-4b0d-b123-688a12be852b", 3, NULL, 0 },
	{ "14-jaxjob.yaml", "team-a", "diffusion-worker-0", "pg-diffusion-4d66c115-bb27-430c-9d1d-3c0960a9b80c", 2, NULL, 0 },
	{ "14-jaxjob.yaml", "team-a", "diffusion-worker-1", "pg-diffusion-4d66c115-bb27-430c-9d1d-3c0960a9b80c", 2, NULL, 0 },
	{ "15-mpijob.yaml", "team-a", "allreduce-bench-launcher-x8r2v", "pg-allreduce-bench-13f4feac-cbcb-46a9-89da-c36d6f0881ba", 3, NULL, 0 },
	{ "15-mpijob.yaml", "team-a", "allreduce-bench-worker-0", "pg-allreduce-bench-13f4feac-cbcb-46a9-89da-c36d6f0881ba", 3, NULL, 0 },
	{ "15-mpijob.yaml", "team-a", "allreduce-bench-worker-1", "pg-allreduce-bench-13f4feac-cbcb-46a9-89da-c36d6f0881ba", 3, NULL, 0 },
	{ "16-mpijob-v1.yaml", "team-a", "horovod-mnist-launcher", "pg-horovod-mnist-3e3071cb-6268-4536-ad8f-4a3e28745ee7", 3, NULL, 0 },
	{ "16-mpijob-v1.yaml", "team-a", "horovod-mnist-worker-0", "pg-horovod-mnist-3e3071cb-6268-4536-ad8f-4a3e28745ee7", 3, NULL, 0 },
	{ "16-mpijob-v1.yaml", "team-a", "horovod-mnist-worker-1", "pg-horovod-mnist-3e3071cb-6268-4536-ad8f-4a3e28745ee7", 3, NULL, 0 },
	{ "17-mpijob-wait-for-workers.yaml", "team-a", "nccl-tests-worker-0", "pg-nccl-tests-727ba1f0-7504-41dd-8c3d-0f92ffc3b6de", 2, NULL, 0 },
	{ "17-mpijob-wait-for-workers.yaml", "team-a", "nccl-tests-worker-1", "pg-nccl-tests-727ba1f0-7504-41dd-8c3d-0f92ffc3b6de", 2, NULL, 0 },
	{ "18-notebook.yaml", "team-a", "alice-lab-0", "pg-alice-lab-13b91eb9-53b2-4852-aee9-41dc5a3db861", 1, NULL, 0 },
	{ "19-scheduledworkflow.yaml", "data", "daily-retrain-1767409200-system-container-impl-2841751036", "pg-daily-retrain-d84267e2-988f-4afb-b893-c36a2df35f0a", 1, NULL, 0 },
	{ "19-scheduledworkflow.yaml", "data", "daily-retrain-1767409200-system-container-impl-3920184477", "pg-daily-retrain-d84267e2-988f-4afb-b893-c36a2df35f0a", 1, NULL, 0 },
	{ "20-raycluster.yaml", "team-a", "tune-cluster-head-8xk2q", "pg-tune-cluster-591edbca-7b04-4976-b0c8-217110d0510e", 4, "headgroup", 0 },
	{ "20-raycluster.yaml", "team-a", "tune-cluster-cpu-workers-worker-b4n7c", "pg-tune-cluster-591edbca-7b04-4976-b0c8-217110d0510e", 4, "cpu-workers", 0 },
	{ "20-raycluster.yaml", "team-a", "tune-cluster-cpu-workers-worker-r2t9w", "pg-tune-cluster-591edbca-7b04-4976-b0c8-217110d0510e", 4, "cpu-workers", 0 },
	{ "20-raycluster.yaml", "team-a", "tune-cluster-gpu-workers-worker-k5v8d", "pg-tune-cluster-591edbca-7b04-4976-b0c8-217110d0510e", 4, "gpu-workers", 0 },
	{ "20-raycluster.yaml", "team-a", "tune-cluster-gpu-workers-worker-z3p6m", "pg-tune-cluster-591edbca-7b04-4976-b0c8-217110d0510e", 4, "gpu-workers", 0 },
	{ "21-rayjob.yaml", "team-a", "batch-infer-raycluster-7kq2x-head-v2c8n", "pg-batch-infer-e2a25175-7a3d-4e70-aecd-56f5aa4ea98c", 2, "headgroup", 0 },
	{ "21-rayjob.yaml", "team-a", "batch-infer-raycluster-7kq2x-gpu-worker-q9d4s", "pg-batch-infer-e2a25175-7a3d-4e70-aecd-56f5aa4ea98c", 2, "gpu", 0 },
	{ "22-rayservice.yaml", "team-b", "summarizer-raycluster-d8w4k-head-h7m2p", "pg-summarizer-16e3cd0e-fb09-440b-b9cf-6466b66dbf1c", 2, "headgroup", 0 },
	{ "22-rayservice.yaml", "team-b", "summarizer-raycluster-d8w4k-gpu-worker-f3k9x", "pg-summarizer-16e3cd0e-fb09-440b-b9cf-6466b66dbf1c", 2, "gpu", 0 },
	{ "23-knative-service.yaml", "team-b", "reranker-00001-deployment-5b7d9f6c8-n4v7k", "pg-reranker-00001-cf9a80c6-03de-4f65-ab14-a24dd41eb986", 2, NULL, 0 },
	{ "23-knative-service.yaml", "team-b", "reranker-00001-deployment-5b7d9f6c8-t8q2w", "pg-reranker-00001-cf9a80c6-03de-4f65-ab14-a24dd41eb986", 2, NULL, 0 },
	{ "24-leaderworkerset.yaml", "team-b", "llama-405b-0", "pg-llama-405b-59870a10-f22c-4ffe-b12e-d906c65f96a6-group-0", 2, "leader", 0 },
	{ "24-leaderworkerset.yaml", "team-b", "llama-405b-0-1", "pg-llama-405b-59870a10-f22c-4ffe-b12e-d906c65f96a6-group-0", 2, "workers", 0 },
	{ "24-leaderworkerset.yaml", "team-b", "llama-405b-1", "pg-llama-405b-59870a10-f22c-4ffe-b12e-d906c65f96a6-group-1", 2, "leader", 0 },
	{ "24-leaderworkerset.yaml", "team-b", "llama-405b-1-1", "pg-llama-405b-59870a10-f22c-4ffe-b12e-d906c65f96a6-group-1", 2, "workers", 0 },
	{ "25-jobset.yaml", "team-a", "maxtext-run-coordinator-0-0-x7k2q", "pg-maxtext-run-ad0861f7-4a0e-4f87-b739-0736236ef667", 0, "coordinator-replica-0", 1 },
	{ "25-jobset.yaml", "team-a", "maxtext-run-workers-0-0-x7k2q", "pg-maxtext-run-ad0861f7-4a0e-4f87-b739-0736236ef667", 0, "workers-replica-0", 1 },
	{ "25-jobset.yaml", "team-a", "maxtext-run-workers-0-1-m4p9d", "pg-maxtext-run-ad0861f7-4a0e-4f87-b739-0736236ef667", 0, "workers-replica-0", 1 },
	{ "25-jobset.yaml", "team-a", "maxtext-run-workers-1-0-x7k2q", "pg-maxtext-run-ad0861f7-4a0e-4f87-b739-0736236ef667", 0, "workers-replica-1", 1 },
	{ "25-jobset.yaml", "team-a", "maxtext-run-workers-1-1-m4p9d", "pg-maxtext-run-ad0861f7-4a0e-4f87-b739-0736236ef667", 0, "workers-replica-1", 1 },
	{ "26-grove-podcliqueset.yaml", "team-b", "disagg-llm-0-frontend-r8k2m", "pg-disagg-llm-0-b53a7055-e0e7-40b3-9072-dc286ef2ca3a", 4, "disagg-llm-0-frontend", 0 },
	{ "26-grove-podcliqueset.yaml", "team-b", "disagg-llm-0-prefill-c4v9t", "pg-disagg-llm-0-b53a7055-e0e7-40b3-9072-dc286ef2ca3a", 4, "disagg-llm-0-prefill", 0 },
	{ "26-grove-podcliqueset.yaml", "team-b", "disagg-llm-0-decode-h2w7q", "pg-disagg-llm-0-b53a7055-e0e7-40b3-9072-dc286ef2ca3a", 4, "disagg-llm-0-decode", 0 },
	{ "26-grove-podcliqueset.yaml", "team-b", "disagg-llm-0-decode-p6x3n", "pg-disagg-llm-0-b53a7055-e0e7-40b3-9072-dc286ef2ca3a", 4, "disagg-llm-0-decode", 0 },
	{ "27-tekton-pipelinerun.yaml", "data", "build-model-image-r4x8k-fetch-source-pod", "pg-build-model-image-r4x8k-84a8dcba-12d8-49a6-916c-a375d9d07df8", 1, NULL, 0 },
	{ "27-tekton-pipelinerun.yaml", "data", "build-model-image-r4x8k-build-push-pod", "pg-build-model-image-r4x8k-84a8dcba-12d8-49a6-916c-a375d9d07df8", 1, NULL, 0 },
	{ "28-kubevirt-vm.yaml", "data", "virt-launcher-cuda-desktop-7pq4m", "pg-cuda-desktop-21d2993d-c3b9-4a20-b2ce-5cd27b58c7c9", 1, NULL, 0 },
	{ "29-seldon-deployment.yaml", "team-b", "fraud-detector-default-0-classifier-6f8d7-k2x9v", "pg-fraud-detector-e2aa7875-df2e-46f1-84e2-aed726f42e67", 1, NULL, 0 },
	{ "29-seldon-deployment.yaml", "team-b", "fraud-detector-default-0-classifier-6f8d7-w7m4b", "pg-fraud-detector-e2aa7875-df2e-46f1-84e2-aed726f42e67", 1, NULL, 0 },
	{ "30-argo-workflow.yaml", "data", "eval-suite-b7k2n-download-1843762509", "pg-eval-suite-b7k2n-download-1843762509-2403bd56-1e75-4a95-8498-cce9098a0a34", 1, NULL, 0 },
	{ "30-argo-workflow.yaml", "data", "eval-suite-b7k2n-eval-2957318846", "pg-eval-suite-b7k2n-eval-2957318846-f11900b3-b3db-4dbe-bc25-3ca9a3d44166", 1, NULL, 0 },
	{ "30-argo-workflow.yaml", "data", "eval-suite-b7k2n-report-3106247715", "pg-eval-suite-b7k2n-report-3106247715-8baa130a-15f6-4ec0-ae82-065adcbc6ff8", 1, NULL, 0 },
	{ "31-trainjob.yaml", "team-a", "llama-sft-node-0-0-d8r2k", "pg-llama-sft-c5f7f110-5bb5-4444-889d-6d9757b6fa3b", 0, "node-replica-0", 1 },
	{ "31-trainjob.yaml", "team-a", "llama-sft-node-0-1-j5w9c", "pg-llama-sft-c5f7f110-5bb5-4444-889d-6d9757b6fa3b", 0, "node-replica-0", 1 },
	{ "32-dynamo-graph.yaml", "team-b", "qwen-disagg-0-frontend-r8k2m", "pg-qwen-disagg-0-7d837183-702f-4533-93d3-45512b5f3c8d", 4, "qwen-disagg-0-frontend", 0 },
	{ "32-dynamo-graph.yaml", "team-b", "qwen-disagg-0-prefill-c4v9t", "pg-qwen-disagg-0-7d837183-702f-4533-93d3-45512b5f3c8d", 4, "qwen-disagg-0-prefill", 0 },
	{ "32-dynamo-graph.yaml", "team-b", "qwen-disagg-0-decode-h2w7q", "pg-qwen-disagg-0-7d837183-702f-4533-93d3-45512b5f3c8d", 4, "qwen-disagg-0-decode", 0 },
	{ "32-dynamo-graph.yaml", "team-b", "qwen-disagg-0-decode-p6x3n", "pg-qwen-disagg-0-7d837183-702f-4533-93d3-45512b5f3c8d", 4, "qwen-disagg-0-decode", 0 },
};

#define N_EXPECTED (sizeof(expected) / sizeof(expected[0]))

static int load(const char *file, struct gt_doc_list *docs)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", EXAMPLES, file);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	struct gt_err err = { 0 };
	int rc = gt_doc_parse_file(f, path, docs, &err);
	fclose(f);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	return rc;
}

/* The YAML files of the directory, sorted; their number, or -1. */
static int list_examples(char names[][64])
{
	DIR *d = opendir(EXAMPLES);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < MAX_FILES) {
		size_t len = strlen(e->d_name);
		if (len > 5 && len < 64 && !strcmp(e->d_name + len - 5, ".yaml"))
			snprintf(names[n++], 64, "%s", e->d_name);
	}
	closedir(d);
	for (int i = 1; i < n; i++)	/* insertion sort: a few dozen names */
		for (int k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
			char tmp[64];
			memcpy(tmp, names[k], 64);
			memcpy(names[k], names[k - 1], 64);
			memcpy(names[k - 1], tmp, 64);
		}
	return n;
}

static const struct gt_doc *podgroup_doc(const struct gt_pg_batch *b, const char *name)
{
	for (size_t i = 0; i < b->n_podgroups; i++)
		if (!strcmp(gt_doc_str(gt_doc_get(b->podgroups[i], "metadata"), "name"), name))
			return b->podgroups[i];
	return NULL;
}

/* Check one file's assignments against the table; false after printing why. */
static bool check_file(const char *file, const struct gt_pg_batch *b)
{
	size_t want = 0;
	for (size_t i = 0; i < N_EXPECTED; i++) {
		const struct expect *e = &expected[i];
		if (strcmp(e->file, file))
			continue;
		want++;
		const struct gt_pg_assignment *a = NULL;
		for (size_t k = 0; k < b->n_pods && !a; k++)
			if (!strcmp(gt_doc_str(gt_doc_get(b->pods[k].pod, "metadata"), "name"), e->pod))
				a = &b->pods[k];
		const struct gt_doc *pg = a ? podgroup_doc(b, a->podgroup) : NULL;
		const char *key = e->min_subgroup ? "minSubGroup" : "minMember";
		const char *min = gt_doc_str(gt_doc_get(pg, "spec"), key);
		bool other = gt_doc_get(gt_doc_get(pg, "spec"), e->min_subgroup ? "minMember"
										   : "minSubGroup");
		char want_min[16];
		snprintf(want_min, sizeof(want_min), "%d", e->min_subgroup ? e->min_subgroup : e->min);
		bool ok = a && !strcmp(a->podgroup, e->podgroup) && pg && min && !other &&
			  !strcmp(min, want_min) &&
			  !strcmp(gt_doc_str(gt_doc_get(pg, "metadata"), "namespace"), e->ns) &&
			  (e->subgroup ? a->subgroup && !strcmp(a->subgroup, e->subgroup) : !a->subgroup);
		if (!ok) {
			fprintf(stderr, "%s: pod %s: got %s %s %s subgroup %s; want %s %s %s "
				"subgroup %s\n", file, e->pod, a ? a->podgroup : "(not grouped)", key,
				min ? min : "-", a && a->subgroup ? a->subgroup : "-", e->podgroup,
				key, want_min, e->subgroup ? e->subgroup : "-");
			return false;
		}
	}
	if (want != b->n_pods) {
		fprintf(stderr, "%s: %zu pods grouped, the table expects %zu\n", file, b->n_pods, want);
		return false;
	}
	return true;
}

TEST(every_example_is_grouped_as_documented)
{
	static char names[MAX_FILES][64];
	int n = list_examples(names);
	ASSERT_TRUE(n > 30);
	struct gt_pg_config cfg;
	gt_pg_config_init(&cfg);
	size_t files_with_pods = 0;
	for (int i = 0; i < n; i++) {
		struct gt_doc_list docs = { 0 };
		struct gt_pg_batch b = { 0 };
		struct gt_err err = { 0 };
		ASSERT_EQ(0, load(names[i], &docs));
		ASSERT_EQ(0, gt_pg_group_all(&cfg, docs.docs, docs.n, &b, &err));
		for (size_t w = 0; w < b.n_warnings; w++)
			fprintf(stderr, "%s: %s\n", names[i], b.warnings[w]);
		bool ok = !b.n_warnings && check_file(names[i], &b);
		files_with_pods += b.n_pods > 0;
		gt_pg_batch_release(&b);
		gt_doc_list_release(&docs);
		ASSERT_TRUE(ok);
	}
	ASSERT_EQ(n - 1, files_with_pods);	/* all but the cluster */
	gt_pg_config_release(&cfg);
}

TEST(every_expected_file_exists)
{
	static char names[MAX_FILES][64];
	int n = list_examples(names);
	for (size_t i = 0; i < N_EXPECTED; i++) {
		bool found = false;
		for (int k = 0; k < n; k++)
			found |= !strcmp(names[k], expected[i].file);
		if (!found)
			fprintf(stderr, "no %s/%s\n", EXAMPLES, expected[i].file);
		ASSERT_TRUE(found);
	}
}

/* ---------------------------------------------------------------- the whole directory */

struct world {
	struct gt_doc_list docs;
	struct gt_pg_batch batch;
	struct gt_strtab names;
	struct gt_decoder dec;
	struct gt_cluster c;
	struct gt_session s;
	struct gt_err err;
};

static void world_free(struct world *w)
{
	gt_session_release(&w->s);
	gt_cluster_release(&w->c);
	gt_decoder_release(&w->dec);
	gt_strtab_release(&w->names);
	gt_pg_batch_release(&w->batch);
	gt_doc_list_release(&w->docs);
}

TEST(the_whole_directory_decodes_and_schedules)
{
	static char names[MAX_FILES][64];
	int n = list_examples(names);
	static struct world w;
	memset(&w, 0, sizeof(w));
	struct gt_pg_config cfg;
	gt_pg_config_init(&cfg);
	for (int i = 0; i < n; i++)
		ASSERT_EQ(0, load(names[i], &w.docs));
	ASSERT_EQ(0, gt_pg_group_all(&cfg, w.docs.docs, w.docs.n, &w.batch, &w.err));
	gt_pg_config_release(&cfg);
	ASSERT_EQ(0, w.batch.n_warnings);
	ASSERT_EQ(N_EXPECTED, w.batch.n_pods);
	gt_pg_batch_apply(&w.batch);

	gt_strtab_init(&w.names);
	gt_decoder_init(&w.dec);
	gt_cluster_init(&w.c, &w.names);
	for (size_t i = 0; i < w.docs.n; i++)
		gt_decoder_add(&w.dec, w.docs.docs[i]);
	for (size_t i = 0; i < w.batch.n_podgroups; i++)
		gt_decoder_add(&w.dec, w.batch.podgroups[i]);
	int rc = gt_decoder_build(&w.dec, &w.c, &w.err);
	if (rc)
		fprintf(stderr, "decode: %s\n", w.err.msg);
	ASSERT_EQ(0, rc);
	/* one job per PodGroup, none made up for a pod */
	size_t want_jobs = w.batch.n_podgroups;
	ASSERT_EQ(want_jobs, w.c.n_jobs);

	gt_cycle_run(&w.s, &w.c, 1767229200, 1u << GT_ACT_ALLOCATE);
	size_t placed = 0;
	for (uint32_t p = 0; p < w.c.n_pods; p++) {
		if (w.s.pods[p].status == GT_BINDING)
			placed++;
		else
			fprintf(stderr, "not placed: %s\n", gt_strtab_str(&w.names, w.c.pods[p].name));
	}
	ASSERT_EQ(N_EXPECTED, placed);
	world_free(&w);
}


/* ---------------------------------------------------------------- gt_pg_group_all */

/* Parse @yaml and group all of it with @cfg (defaults when NULL). */
static int group_all(const char *yaml, struct gt_pg_config *cfg, struct gt_doc_list *docs,
		     struct gt_pg_batch *b, struct gt_err *err)
{
	struct gt_pg_config dflt;
	gt_pg_config_init(&dflt);
	int rc = gt_doc_parse_string(yaml, strlen(yaml), "batch", docs, err);
	if (!rc)
		rc = gt_pg_group_all(cfg ? cfg : &dflt, docs->docs, docs->n, b, err);
	gt_pg_config_release(&dflt);
	return rc;
}

#define RS "{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: rs, namespace: ns, uid: u1}}\n"
#define RS_POD(name, extra)                                                                \
	"---\n{apiVersion: v1, kind: Pod, metadata: {name: " name ", namespace: ns" extra  \
	", ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u1, "  \
	"controller: true}]}, spec: {schedulerName: kai-scheduler}}\n"

TEST(group_all_shares_one_podgroup_and_keeps_the_first_queue)
{
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch b = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(0, group_all("---\n" RS RS_POD("a", ", labels: {kai.scheduler/queue: first}")
				       RS_POD("b", ", labels: {kai.scheduler/queue: second}"),
			       NULL, &docs, &b, &err));
	ASSERT_EQ(2, b.n_pods);
	ASSERT_EQ(1, b.n_podgroups);
	ASSERT_STR("pg-rs-u1", b.pods[0].podgroup);
	ASSERT_STR("pg-rs-u1", b.pods[1].podgroup);
	const struct gt_doc *pg = b.podgroups[0];
	ASSERT_STR("PodGroup", gt_doc_str(pg, "kind"));
	ASSERT_STR("scheduling.run.ai/v2alpha2", gt_doc_str(pg, "apiVersion"));
	ASSERT_STR("ns", gt_doc_str(gt_doc_get(pg, "metadata"), "namespace"));
	ASSERT_STR("first", gt_doc_str(gt_doc_get(pg, "spec"), "queue"));
	ASSERT_STR("1", gt_doc_str(gt_doc_get(pg, "spec"), "minMember"));
	ASSERT_STR("train", gt_doc_str(gt_doc_get(pg, "spec"), "priorityClassName"));
	const struct gt_doc *refs = gt_doc_path(pg, "metadata.ownerReferences");
	ASSERT_TRUE(refs && refs->kind == GT_DOC_SEQ && refs->n == 1);
	ASSERT_STR("ReplicaSet", gt_doc_str(refs->items[0], "kind"));
	ASSERT_STR("u1", gt_doc_str(refs->items[0], "uid"));
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);
}

TEST(group_all_skips_what_is_not_its_business)
{
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch b = { 0 };
	struct gt_err err = { 0 };
	const char *yaml =
		"---\n" RS
		/* already in a PodGroup */
		RS_POD("grouped", ", annotations: {pod-group-name: mine}")
		/* another scheduler's */
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: other, namespace: ns}, "
		"spec: {schedulerName: default-scheduler}}\n"
		/* its owner is not in the input */
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: orphan, namespace: ns, "
		"ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: gone}]}, "
		"spec: {schedulerName: kai-scheduler}}\n"
		/* an owner of that name, but a later incarnation (another uid) */
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: stale, namespace: ns, "
		"ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u0}]}, "
		"spec: {schedulerName: kai-scheduler}}\n"
		/* same name and kind in another API group */
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: alien, namespace: ns, "
		"ownerReferences: [{apiVersion: example.com/v1, kind: ReplicaSet, name: rs}]}, "
		"spec: {schedulerName: kai-scheduler}}\n"
		/* same name in another namespace */
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: far, namespace: other, "
		"ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs}]}, "
		"spec: {schedulerName: kai-scheduler}}\n";
	ASSERT_EQ(0, group_all(yaml, NULL, &docs, &b, &err));
	ASSERT_EQ(0, b.n_pods);
	ASSERT_EQ(0, b.n_podgroups);
	/* those whose owner is not there are not grouped, as in a cluster, but not in silence */
	ASSERT_EQ(4, b.n_warnings);
	ASSERT_CONTAINS(b.warnings[0], "Pod ns/orphan: its owner ReplicaSet 'gone' is not among the objects");
	ASSERT_CONTAINS(b.warnings[1], "Pod ns/stale: its owner ReplicaSet 'rs' (uid u0) is not among the objects");
	ASSERT_CONTAINS(b.warnings[2], "Pod ns/alien: ");
	ASSERT_CONTAINS(b.warnings[3], "Pod other/far: ");
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);
}

TEST(group_all_reports_pods_it_cannot_group)
{
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch b = { 0 };
	struct gt_err err = { 0 };
	const char *yaml =
		"---\n{apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {name: llm, "
		"namespace: team-a}, spec: {pytorchReplicaSpecs: {Worker: {replicas: 0}}}}\n"
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: llm-worker-0, namespace: team-a, "
		"ownerReferences: [{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: llm}]}, "
		"spec: {schedulerName: kai-scheduler}}\n"
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: fine, namespace: team-a}, "
		"spec: {schedulerName: kai-scheduler}}\n";
	ASSERT_EQ(0, group_all(yaml, NULL, &docs, &b, &err));
	ASSERT_EQ(1, b.n_warnings);
	ASSERT_CONTAINS(b.warnings[0], "Pod team-a/llm-worker-0: PyTorchJob team-a/llm has a "
				       "Worker replica spec with 0 replicas");
	ASSERT_EQ(1, b.n_pods);
	ASSERT_STR("pg-fine", b.pods[0].podgroup);
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);
}

TEST(group_all_reuses_an_existing_podgroup)
{
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch b = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(0, group_all("---\n" RS
			       "---\n{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, "
			       "metadata: {name: pg-rs-u1, namespace: ns}, spec: {queue: q, minMember: 2}}\n"
			       RS_POD("a", ""), NULL, &docs, &b, &err));
	ASSERT_EQ(1, b.n_pods);
	ASSERT_STR("pg-rs-u1", b.pods[0].podgroup);
	ASSERT_EQ(0, b.n_podgroups);
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);
}

TEST(group_all_unpacks_lists_and_reads_priority_classes)
{
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch b = { 0 };
	struct gt_err err = { 0 };
	const char *yaml =
		"{apiVersion: v1, kind: List, items: ["
		"{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: critical}, "
		"value: 1000}, "
		"{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns, labels: "
		"{priorityClassName: critical}}, spec: {schedulerName: kai-scheduler}}]}\n";
	ASSERT_EQ(0, group_all(yaml, NULL, &docs, &b, &err));
	ASSERT_EQ(1, b.n_podgroups);
	ASSERT_STR("critical", gt_doc_str(gt_doc_get(b.podgroups[0], "spec"), "priorityClassName"));
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);
}

TEST(group_all_reads_the_defaults_configmap_it_is_told_of)
{
	struct gt_pg_config cfg;
	gt_pg_config_init(&cfg);
	cfg.defaults_cm_namespace = strdup("kai-scheduler");
	cfg.defaults_cm_name = strdup("defaults");
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch b = { 0 };
	struct gt_err err = { 0 };
	const char *cm = "{apiVersion: v1, kind: ConfigMap, metadata: {name: defaults, namespace: "
			 "kai-scheduler}, data: {types: '[{\"typeName\": \"Pod\", \"priorityName\": "
			 "\"inference\", \"preemptibility\": \"preemptible\"}]'}}\n";
	char yaml[1024];
	snprintf(yaml, sizeof(yaml), "---\n%s---\n{apiVersion: v1, kind: Pod, metadata: {name: p, "
		 "namespace: ns}, spec: {schedulerName: kai-scheduler}}\n", cm);
	ASSERT_EQ(0, group_all(yaml, &cfg, &docs, &b, &err));
	const struct gt_doc *spec = gt_doc_get(b.podgroups[0], "spec");
	ASSERT_STR("inference", gt_doc_str(spec, "priorityClassName"));
	ASSERT_STR("preemptible", gt_doc_str(spec, "preemptibility"));
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);

	/* a malformed one stops everything: the message names it */
	snprintf(yaml, sizeof(yaml), "{apiVersion: v1, kind: ConfigMap, metadata: {name: defaults, "
		 "namespace: kai-scheduler}, data: {types: 'oops'}}\n");
	ASSERT_EQ(GT_EINVAL, group_all(yaml, &cfg, &docs, &b, &err));
	ASSERT_CONTAINS(err.msg, "ConfigMap kai-scheduler/defaults: data.types is not a JSON list");
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);
	gt_pg_config_release(&cfg);
}

TEST(group_all_last_pod_sets_the_gang)
{
	/* LeaderReady: the unplaced leader alone, then its worker: the whole group */
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch b = { 0 };
	struct gt_err err = { 0 };
	const char *yaml =
		"---\n{apiVersion: leaderworkerset.x-k8s.io/v1, kind: LeaderWorkerSet, metadata: "
		"{name: l, namespace: ns}, spec: {startupPolicy: LeaderReady, leaderWorkerTemplate: "
		"{size: 3}}}\n"
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: l-0, namespace: ns, labels: "
		"{leaderworkerset.sigs.k8s.io/worker-index: '0', leaderworkerset.sigs.k8s.io/group-index: '0'}, "
		"ownerReferences: [{apiVersion: leaderworkerset.x-k8s.io/v1, kind: LeaderWorkerSet, "
		"name: l}]}, spec: {schedulerName: kai-scheduler}}\n"
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: l-0-1, namespace: ns, labels: "
		"{leaderworkerset.sigs.k8s.io/worker-index: '1', leaderworkerset.sigs.k8s.io/group-index: '0'}, "
		"ownerReferences: [{apiVersion: leaderworkerset.x-k8s.io/v1, kind: LeaderWorkerSet, "
		"name: l}]}, spec: {schedulerName: kai-scheduler}}\n";
	ASSERT_EQ(0, group_all(yaml, NULL, &docs, &b, &err));
	ASSERT_EQ(1, b.n_podgroups);
	ASSERT_STR("3", gt_doc_path(b.podgroups[0], "spec.minMember")->scalar);
	const struct gt_doc *subs = gt_doc_path(b.podgroups[0], "spec.subGroups");
	ASSERT_TRUE(subs && subs->n == 2);
	ASSERT_STR("workers", gt_doc_str(subs->items[1], "name"));
	ASSERT_STR("2", gt_doc_str(subs->items[1], "minMember"));
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);
}

TEST(group_all_apply_writes_the_annotation_and_label)
{
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch b = { 0 };
	struct gt_err err = { 0 };
	const char *yaml =
		"---\n{apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {name: j, namespace: ns, "
		"annotations: {kai.scheduler/topology: dc, kai.scheduler/topology-required-placement: zone}}, "
		"spec: {pytorchReplicaSpecs: {Master: {replicas: 1}, Worker: {replicas: 1}}}}\n"
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: j-master-0, namespace: ns, labels: "
		"{training.kubeflow.org/replica-type: master}, annotations: ~, ownerReferences: "
		"[{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: j}]}, spec: {schedulerName: "
		"kai-scheduler}}\n"
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: j-worker-0, namespace: ns, "
		"ownerReferences: [{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: j}]}, "
		"spec: {schedulerName: kai-scheduler}}\n";
	ASSERT_EQ(0, group_all(yaml, NULL, &docs, &b, &err));
	ASSERT_EQ(2, b.n_pods);
	ASSERT_STR("master", b.pods[0].subgroup);
	ASSERT_TRUE(!b.pods[1].subgroup);	/* no replica-type label */
	gt_pg_batch_apply(&b);
	const struct gt_doc *m = docs.docs[1];
	ASSERT_STR("pg-j", gt_doc_str(gt_doc_path(m, "metadata.annotations"), "pod-group-name"));
	ASSERT_STR("master", gt_doc_str(gt_doc_path(m, "metadata.labels"),
					"kai.scheduler/subgroup-name"));
	ASSERT_STR("master", gt_doc_str(gt_doc_path(m, "metadata.labels"),
					"training.kubeflow.org/replica-type"));
	const struct gt_doc *w = docs.docs[2];
	ASSERT_STR("pg-j", gt_doc_str(gt_doc_path(w, "metadata.annotations"), "pod-group-name"));
	ASSERT_TRUE(!gt_doc_path(w, "metadata.labels"));
	/* the PodGroup document carries sub-groups and topology */
	const struct gt_doc *spec = gt_doc_get(b.podgroups[0], "spec");
	ASSERT_STR("dc", gt_doc_str(gt_doc_get(spec, "topologyConstraint"), "topology"));
	ASSERT_STR("zone", gt_doc_str(gt_doc_get(spec, "topologyConstraint"),
				      "requiredTopologyLevel"));
	ASSERT_EQ(2, gt_doc_get(spec, "subGroups")->n);
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);
}

const struct gt_test gt_tests[] = {
	T(every_example_is_grouped_as_documented),
	T(every_expected_file_exists),
	T(the_whole_directory_decodes_and_schedules),
	T(group_all_shares_one_podgroup_and_keeps_the_first_queue),
	T(group_all_skips_what_is_not_its_business),
	T(group_all_reports_pods_it_cannot_group),
	T(group_all_reuses_an_existing_podgroup),
	T(group_all_unpacks_lists_and_reads_priority_classes),
	T(group_all_reads_the_defaults_configmap_it_is_told_of),
	T(group_all_last_pod_sets_the_gang),
	T(group_all_apply_writes_the_annotation_and_label),
	{ 0 }
};
