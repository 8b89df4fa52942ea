/*
 * test_kube_cache.c - API-server JSON through the cache, the snapshot and
 * the plan: real objects as the server writes them decode into the core's
 * cluster; the cache's copy-on-write assumptions; a malformed object left
 * out (with its name) while the rest is scheduled; the writes a cycle plans
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/actions.h"
#include "harness.h"
#include "kube/cache.h"
#include "api/json.h"
#include "util/log.h"
#include "scheduler/writes.h"
#include "scheduler/snapshot.h"

const char *gt_suite = "kube_cache";

/* A pod as `kubectl get pod -o json` prints it: server-set fields and all. */
static const char pod_json[] =
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"annotations\":{\"gpu-fraction\":\"0.5\","
	"\"kubectl.kubernetes.io/last-applied-configuration\":\"{\\\"apiVersion\\\":\\\"v1\\\"}\\n\"},"
	"\"creationTimestamp\":\"2026-01-01T00:00:05Z\",\"generateName\":\"nb-\",\"labels\":{\"app\":\"notebook\","
	"\"kai.scheduler/queue\":\"research\",\"pod-template-hash\":\"5d8f\"},\"managedFields\":[{\"apiVersion\":\"v1\","
	"\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{}},\"manager\":\"kube-controller-manager\","
	"\"operation\":\"Update\",\"time\":\"2026-01-01T00:00:05Z\"}],\"name\":\"nb-x7k2p\",\"namespace\":\"team-a\","
	"\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"blockOwnerDeletion\":true,\"controller\":true,"
	"\"kind\":\"ReplicaSet\",\"name\":\"nb-5d8f\",\"uid\":\"7c1e\"}],\"resourceVersion\":\"48213\","
	"\"uid\":\"3f9b2c1e-0d4a-4e7b-9a51-2c6f8e1d0b7a\"},\"spec\":{\"containers\":[{\"image\":\"jupyter:1\","
	"\"imagePullPolicy\":\"IfNotPresent\",\"name\":\"nb\",\"ports\":[{\"containerPort\":8888,\"protocol\":\"TCP\"}],"
	"\"resources\":{\"limits\":{\"cpu\":\"2\",\"memory\":\"4Gi\"},\"requests\":{\"cpu\":\"500m\",\"memory\":\"1Gi\"}},"
	"\"terminationMessagePath\":\"/dev/termination-log\",\"volumeMounts\":[{\"mountPath\":\"/var/run/secrets/"
	"kubernetes.io/serviceaccount\",\"name\":\"kube-api-access-abcde\",\"readOnly\":true}]}],"
	"\"dnsPolicy\":\"ClusterFirst\",\"enableServiceLinks\":true,\"preemptionPolicy\":\"PreemptLowerPriority\","
	"\"priority\":0,\"restartPolicy\":\"Always\",\"schedulerName\":\"kai-scheduler\",\"securityContext\":{},"
	"\"serviceAccountName\":\"default\",\"terminationGracePeriodSeconds\":30,\"tolerations\":[{"
	"\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"},{\"effect\":"
	"\"NoExecute\",\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"tolerationSeconds\":300}],"
	"\"volumes\":[{\"name\":\"kube-api-access-abcde\",\"projected\":{\"defaultMode\":420,\"sources\":[{"
	"\"serviceAccountToken\":{\"expirationSeconds\":3607,\"path\":\"token\"}}]}}]},\"status\":{\"conditions\":[{"
	"\"lastProbeTime\":null,\"lastTransitionTime\":\"2026-01-01T00:00:05Z\",\"message\":\"old\",\"reason\":"
	"\"Unschedulable\",\"status\":\"False\",\"type\":\"PodScheduled\"}],\"phase\":\"Pending\",\"qosClass\":\"Burstable\"}}";

static const char node_json[] =
	"{\"metadata\":{\"name\":\"gpu-1\",\"uid\":\"n-1\",\"resourceVersion\":\"4000\",\"creationTimestamp\":"
	"\"2025-12-01T00:00:00Z\",\"labels\":{\"kubernetes.io/hostname\":\"gpu-1\",\"nvidia.com/gpu.memory\":"
	"\"81559\",\"nvidia.com/gpu.count\":\"8\"},\"annotations\":{\"node.alpha.kubernetes.io/ttl\":\"0\"}},"
	"\"spec\":{\"podCIDR\":\"10.244.1.0/24\",\"taints\":[{\"effect\":\"NoSchedule\",\"key\":\"nvidia.com/gpu\","
	"\"value\":\"present\"}]},\"status\":{\"addresses\":[{\"address\":\"10.0.0.7\",\"type\":\"InternalIP\"}],"
	"\"allocatable\":{\"cpu\":\"95500m\",\"ephemeral-storage\":\"1800Gi\",\"hugepages-1Gi\":\"0\",\"memory\":"
	"\"1584112Mi\",\"nvidia.com/gpu\":\"8\",\"pods\":\"110\"},\"capacity\":{\"cpu\":\"96\",\"memory\":\"1584212Mi\","
	"\"nvidia.com/gpu\":\"8\",\"pods\":\"110\"},\"conditions\":[{\"lastHeartbeatTime\":\"2026-01-01T00:00:00Z\","
	"\"lastTransitionTime\":\"2025-12-01T00:00:00Z\",\"message\":\"kubelet is posting ready status\",\"reason\":"
	"\"KubeletReady\",\"status\":\"True\",\"type\":\"Ready\"}],\"images\":[{\"names\":[\"busybox\"],\"sizeBytes\":"
	"4261550}],\"nodeInfo\":{\"architecture\":\"amd64\",\"kubeletVersion\":\"v1.31.2\"}}}";

static const char queue_json[] =
	"{\"apiVersion\":\"scheduling.run.ai/v2\",\"kind\":\"Queue\",\"metadata\":{\"name\":\"research\","
	"\"uid\":\"q-1\",\"resourceVersion\":\"7\",\"generation\":1,\"creationTimestamp\":\"2025-12-01T00:00:00Z\"},"
	"\"spec\":{\"resources\":{\"cpu\":{\"limit\":-1,\"overQuotaWeight\":1,\"quota\":-1},\"gpu\":{\"limit\":-1,"
	"\"overQuotaWeight\":1,\"quota\":4.5},\"memory\":{\"limit\":-1,\"overQuotaWeight\":1,\"quota\":-1}}},"
	"\"status\":{\"allocated\":{\"cpu\":\"0\"},\"childQueues\":[]}}";

static const char pg_json[] =
	"{\"apiVersion\":\"scheduling.run.ai/v2alpha2\",\"kind\":\"PodGroup\",\"metadata\":{\"name\":\"big\","
	"\"namespace\":\"team-a\",\"uid\":\"pg-1\",\"resourceVersion\":\"90\",\"creationTimestamp\":"
	"\"2026-01-01T00:00:01Z\",\"labels\":{\"kai.scheduler/queue\":\"research\"}},\"spec\":{\"minMember\":2,"
	"\"queue\":\"research\",\"priorityClassName\":\"train\",\"markUnschedulable\":true},\"status\":{"
	"\"schedulingConditions\":[{\"type\":\"UnschedulableOnNodePool\",\"nodePool\":\"other\",\"reason\":"
	"\"Unschedulable\",\"message\":\"elsewhere\",\"transitionID\":\"4\",\"status\":\"True\"}]}}";

static struct gt_kobj *make(struct gt_cache *c, enum gt_kres r, const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	if (!j) {
		fprintf(stderr, "bad test JSON: %s\n", je.text);
		abort();
	}
	struct gt_err err = { 0 };
	struct gt_kobj *o = gt_cache_make(c, r, j, &err);
	json_decref(j);
	return o;
}

static void add(struct gt_cache *c, enum gt_kres r, const char *text)
{
	gt_cache_upsert(c, make(c, r, text));
}

static char *fmt(const char *f, const char *a, const char *b)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf), f, a, b);
	return buf;
}

#define BIG_POD "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"team-a\",\"uid\":\"u-%s\",\"resourceVersion\":\"1\"," \
	"\"creationTimestamp\":\"2026-01-01T00:00:02Z\",\"annotations\":{\"pod-group-name\":\"big\"}},\"spec\":{" \
	"\"schedulerName\":\"kai-scheduler\",\"tolerations\":[{\"operator\":\"Exists\"}]," \
	"\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{" \
	"\"nvidia.com/gpu\":\"8\"}}}]},\"status\":{\"phase\":\"Pending\"}}"

static struct gt_snapshot_opts sopts = { .scheduler_name = "kai-scheduler", .shard = "default" };

TEST(real_api_json_decodes)
{
	struct gt_cache *c = gt_cache_new();
	struct gt_kobj *p = make(c, GT_KRES_PODS, pod_json);
	ASSERT_TRUE(p != NULL);
	ASSERT_STR("team-a/nb-x7k2p", p->key);
	ASSERT_STR("48213", p->rv);
	ASSERT_STR("3f9b2c1e-0d4a-4e7b-9a51-2c6f8e1d0b7a", p->uid);
	/* what the scheduler never reads is not kept */
	ASSERT_TRUE(gt_doc_path(p->doc, "metadata.managedFields") == NULL);
	ASSERT_TRUE(gt_kobj_str(p, "metadata.annotations.kubectl.kubernetes.io/last-applied-configuration") == NULL);
	gt_cache_upsert(c, p);
	add(c, GT_KRES_NODES, node_json);	/* a list item: no kind, no apiVersion */
	add(c, GT_KRES_QUEUES, queue_json);
	struct gt_kube_snapshot s;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_snapshot_take(c, &sopts, &s, &err));
	ASSERT_EQ(1, s.c.n_nodes);
	ASSERT_EQ(1, s.c.n_pods);
	ASSERT_EQ(1, s.c.n_queues);
	const struct gt_node *n = &s.c.nodes[0];
	ASSERT_EQ(95500, n->cpu_milli);
	ASSERT_EQ(8, n->gpus);
	ASSERT_EQ(81500, n->gpu_mem_mib);
	ASSERT_TRUE(n->ready);
	ASSERT_EQ(1, n->n_taints);
	const struct gt_pod *pd = &s.c.pods[0];
	ASSERT_TRUE(pd->ours);
	ASSERT_EQ(GT_PENDING, pd->status);
	ASSERT_EQ(500, pd->cpu_milli);
	ASSERT_EQ(1LL << 30, pd->mem_bytes);
	ASSERT_EQ(500, pd->frac_milli);
	ASSERT_EQ(2, pd->n_tolerations);
	ASSERT_TRUE(pd->job >= 0);
	ASSERT_STR("research", gt_strtab_str(&s.names, s.c.jobs[pd->job].queue_name));
	ASSERT_EQ(4500, s.c.queues[0].deserved[GT_QGPU]);
	gt_snapshot_release(&s);
	gt_cache_free(c);
}

static void set_node(struct gt_doc *doc, void *arg)
{
	static const char *const path[] = { "spec", "nodeName" };
	gt_kdoc_set(doc, path, 2, arg, true);
}

TEST(cache_replace_delete_assume)
{
	struct gt_cache *c = gt_cache_new();
	add(c, GT_KRES_PODS, pod_json);
	ASSERT_EQ(1, gt_cache_count(c, GT_KRES_PODS));
	struct gt_kobj *held = gt_cache_get(c, GT_KRES_PODS, "team-a/nb-x7k2p");
	ASSERT_TRUE(held != NULL);
	/* a stale resourceVersion: a newer version is the truth, nothing is assumed */
	ASSERT_TRUE(!gt_cache_assume(c, GT_KRES_PODS, "team-a/nb-x7k2p", "1", set_node, "gpu-1"));
	ASSERT_TRUE(!gt_cache_assume(c, GT_KRES_PODS, "team-a/gone", "48213", set_node, "gpu-1"));
	ASSERT_TRUE(gt_cache_assume(c, GT_KRES_PODS, "team-a/nb-x7k2p", "48213", set_node, "gpu-1"));
	struct gt_kobj *now = gt_cache_get(c, GT_KRES_PODS, "team-a/nb-x7k2p");
	ASSERT_STR("gpu-1", gt_kobj_str(now, "spec.nodeName"));
	gt_kobj_unref(now);
	/* copy on write: the old reference still reads the old document */
	ASSERT_TRUE(gt_kobj_str(held, "spec.nodeName") == NULL);
	gt_kobj_unref(held);
	gt_cache_delete(c, GT_KRES_PODS, "team-a/nb-x7k2p");
	gt_cache_delete(c, GT_KRES_PODS, "team-a/nb-x7k2p");
	ASSERT_EQ(0, gt_cache_count(c, GT_KRES_PODS));
	for (int i = 0; i < 300; i++) {
		char name[32];
		snprintf(name, sizeof(name), "p%d", i);
		add(c, GT_KRES_PODS, fmt(BIG_POD, name, name));
	}
	ASSERT_EQ(300, gt_cache_count(c, GT_KRES_PODS));
	for (int i = 0; i < 300; i += 2) {
		char key[40];
		snprintf(key, sizeof(key), "team-a/p%d", i);
		gt_cache_delete(c, GT_KRES_PODS, key);
	}
	ASSERT_EQ(150, gt_cache_count(c, GT_KRES_PODS));
	struct gt_kobj *o = gt_cache_get(c, GT_KRES_PODS, "team-a/p299");
	ASSERT_TRUE(o != NULL);
	gt_kobj_unref(o);
	ASSERT_TRUE(gt_cache_get(c, GT_KRES_PODS, "team-a/p298") == NULL);
	struct gt_kobj *one = make(c, GT_KRES_PODS, fmt(BIG_POD, "only", "only"));
	gt_cache_replace(c, GT_KRES_PODS, &one, 1);
	ASSERT_EQ(1, gt_cache_count(c, GT_KRES_PODS));
	ASSERT_TRUE(!gt_cache_all_synced(c));
	for (int r = 0; r < GT_N_KRES; r++)
		gt_cache_set_synced(c, (enum gt_kres)r, true);
	ASSERT_TRUE(gt_cache_all_synced(c));
	gt_cache_free(c);
}

TEST(bad_object_left_out_rest_decoded)
{
	gt_log_set_level(GT_LOG_ERROR);	/* the skipped objects' warnings: tests/kube checks them */
	struct gt_cache *c = gt_cache_new();
	add(c, GT_KRES_NODES, node_json);
	add(c, GT_KRES_QUEUES, queue_json);
	add(c, GT_KRES_PODS, pod_json);
	add(c, GT_KRES_PODS, "{\"metadata\":{\"name\":\"bad\",\"namespace\":\"team-a\",\"annotations\":"
			     "{\"gpu-fraction\":\"1.5\"}},\"spec\":{\"schedulerName\":\"kai-scheduler\","
			     "\"containers\":[{\"name\":\"c\"}]}}");
	add(c, GT_KRES_PODS, "{\"metadata\":{\"name\":\"worse\",\"namespace\":\"team-b\"},\"spec\":{"
			     "\"schedulerName\":\"kai-scheduler\",\"containers\":[{\"name\":\"c\",\"resources\":"
			     "{\"requests\":{\"cpu\":\"lots\"}}}]}}");
	struct gt_kube_snapshot s;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_snapshot_take(c, &sopts, &s, &err));
	ASSERT_EQ(1, s.c.n_pods);
	ASSERT_EQ(2, s.n_skipped);
	ASSERT_STR("nb-x7k2p", gt_strtab_str(&s.names, s.c.pods[0].name));
	gt_snapshot_release(&s);
	/* marked: the next snapshot does not try them again */
	ASSERT_EQ(0, gt_snapshot_take(c, &sopts, &s, &err));
	ASSERT_EQ(2, s.n_skipped);
	gt_snapshot_release(&s);
	/* a fixed version replaces the bad one */
	add(c, GT_KRES_PODS, "{\"metadata\":{\"name\":\"bad\",\"namespace\":\"team-a\",\"annotations\":"
			     "{\"gpu-fraction\":\"0.5\"}},\"spec\":{\"schedulerName\":\"kai-scheduler\","
			     "\"containers\":[{\"name\":\"c\"}]}}");
	ASSERT_EQ(0, gt_snapshot_take(c, &sopts, &s, &err));
	ASSERT_EQ(2, s.c.n_pods);
	ASSERT_EQ(1, s.n_skipped);
	gt_snapshot_release(&s);
	gt_cache_free(c);
}

#define LOOSE_POD "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"team-a\",\"uid\":\"u-%s\"," \
	"\"labels\":{\"kai.scheduler/queue\":\"research\"}},\"spec\":{\"schedulerName\":\"kai-scheduler\"," \
	"\"tolerations\":[{\"operator\":\"Exists\"}],\"containers\":[{\"name\":\"c\"}]}," \
	"\"status\":{\"phase\":\"Pending\"}}"

/* With a podgrouper running, a pod it has not grouped yet waits: placed alone it would split its gang. */
TEST(grouped_only_leaves_ungrouped_pods_out)
{
	struct gt_cache *c = gt_cache_new();
	add(c, GT_KRES_NODES, node_json);
	add(c, GT_KRES_QUEUES, queue_json);
	add(c, GT_KRES_PODGROUPS, pg_json);
	add(c, GT_KRES_PODS, fmt(BIG_POD, "big-0", "big-0"));
	add(c, GT_KRES_PODS, fmt(LOOSE_POD, "loose", "loose"));
	add(c, GT_KRES_PODS, "{\"metadata\":{\"name\":\"orphan\",\"namespace\":\"team-a\",\"annotations\":"
			     "{\"pod-group-name\":\"gone\"}},\"spec\":{\"schedulerName\":\"kai-scheduler\","
			     "\"containers\":[{\"name\":\"c\"}]},\"status\":{\"phase\":\"Pending\"}}");
	add(c, GT_KRES_PODS, "{\"metadata\":{\"name\":\"running\",\"namespace\":\"team-a\",\"labels\":"
			     "{\"kai.scheduler/queue\":\"research\"}},\"spec\":{\"schedulerName\":\"kai-scheduler\","
			     "\"nodeName\":\"gpu-1\",\"tolerations\":[{\"operator\":\"Exists\"}],\"containers\":"
			     "[{\"name\":\"c\"}]},\"status\":{\"phase\":\"Running\"}}");
	struct gt_snapshot_opts grouped = sopts;
	grouped.grouped_only = true;
	struct gt_kube_snapshot s;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_snapshot_take(c, &grouped, &s, &err));
	/* the grouped pod and the bound one; not the loose pod nor the one whose group is gone */
	ASSERT_EQ(2, s.c.n_pods);
	for (uint32_t i = 0; i < s.c.n_pods; i++) {
		const char *name = gt_strtab_str(&s.names, s.c.pods[i].name);
		ASSERT_TRUE(!strcmp(name, "big-0") || !strcmp(name, "running"));
	}
	gt_snapshot_release(&s);
	/* without it, the loose pod is scheduled as a job of its own */
	ASSERT_EQ(0, gt_snapshot_take(c, &sopts, &s, &err));
	uint32_t loose = 0;
	for (uint32_t i = 0; i < s.c.n_pods; i++)
		loose += !strcmp(gt_strtab_str(&s.names, s.c.pods[i].name), "loose");
	ASSERT_EQ(1, loose);
	gt_snapshot_release(&s);
	gt_cache_free(c);
}

static const struct gt_kop *find_op(const struct gt_writes *p, enum gt_kop_kind k, const char *name,
				    const char *what)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->ops[i].kind == k && !strcmp(p->ops[i].name, name) &&
		    (!what || (p->ops[i].what && !strcmp(p->ops[i].what, what))))
			return &p->ops[i];
	return NULL;
}

TEST(plan_binds_and_conditions)
{
	struct gt_cache *c = gt_cache_new();
	add(c, GT_KRES_NODES, node_json);
	add(c, GT_KRES_QUEUES, queue_json);
	add(c, GT_KRES_PODS, pod_json);
	add(c, GT_KRES_PODGROUPS, pg_json);
	add(c, GT_KRES_PODS, fmt(BIG_POD, "big-0", "big-0"));
	add(c, GT_KRES_PODS, fmt(BIG_POD, "big-1", "big-1"));
	struct gt_kube_snapshot s;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_snapshot_take(c, &sopts, &s, &err));
	struct gt_session ss;
	gt_cycle_run(&ss, &s.c, 1767229200, 1u << GT_ACT_ALLOCATE);
	struct gt_writes_opts po = { .node_pool = "default", .now = 1767229200 };
	struct gt_plan cp;
	gt_plan_build(&cp, &ss, NULL);
	struct gt_writes plan;
	char **pipelined;
	size_t n_pipelined;
	gt_writes_build(&s, &cp, &po, &plan, &pipelined, &n_pipelined);
	/* the notebook's half GPU: bound, on a GPU group of its own named after the node */
	const struct gt_kop *b = find_op(&plan, GT_KOP_BIND, "nb-x7k2p", NULL);
	ASSERT_TRUE(b != NULL);
	ASSERT_STR("gpu-1", b->node);
	ASSERT_EQ(1, b->n_groups);
	ASSERT_STR("gpu-1-gpu0", b->groups[0]);
	ASSERT_STR("48213", b->rv);
	ASSERT_CONTAINS(b->message, "Successfully assigned pod team-a/nb-x7k2p to node gpu-1 at node-pool default");
	/* the gang of two 8-GPU pods cannot fit beside it: nothing of it is bound */
	ASSERT_TRUE(find_op(&plan, GT_KOP_BIND, "big-0", NULL) == NULL);
	ASSERT_TRUE(find_op(&plan, GT_KOP_BIND, "big-1", NULL) == NULL);
	ASSERT_EQ(1, plan.n_binds);
	const struct gt_kop *st = find_op(&plan, GT_KOP_PATCH, "big", "PodGroup status");
	ASSERT_TRUE(st != NULL);
	ASSERT_STR("status", st->sub);
	/* our node pool's condition is added beside the other pool's, with the next transition id */
	ASSERT_CONTAINS(st->body, "\"nodePool\":\"other\"");
	ASSERT_CONTAINS(st->body, "\"nodePool\":\"default\"");
	ASSERT_CONTAINS(st->body, "\"transitionID\":\"5\"");
	ASSERT_CONTAINS(st->body, "\"reason\":\"PodSchedulingErrors\"");
	ASSERT_CONTAINS(st->body, ss.jobs[s.c.pods[1].job].message);
	const struct gt_kop *pc = find_op(&plan, GT_KOP_PATCH, "big-0", "pod condition");
	ASSERT_TRUE(pc != NULL);
	ASSERT_TRUE(pc->strategic);
	ASSERT_CONTAINS(pc->body, "\"type\":\"PodScheduled\"");
	ASSERT_CONTAINS(pc->body, "\"status\":\"False\"");
	ASSERT_TRUE(find_op(&plan, GT_KOP_EVENT, "big", NULL) != NULL);
	ASSERT_TRUE(find_op(&plan, GT_KOP_EVENT, "big-0", NULL) != NULL);
	/* the PodGroup's last-start annotation is not touched: it never started */
	ASSERT_TRUE(find_op(&plan, GT_KOP_PATCH, "big", "PodGroup annotations") == NULL);
	gt_writes_release(&plan);
	gt_plan_release(&cp);
	free(pipelined);
	gt_session_release(&ss);
	gt_snapshot_release(&s);
	gt_cache_free(c);
}

/* Plan a cycle over the cache; the plan's writes for pods and groups named @prefix*. */
static size_t writes_for(struct gt_cache *c, const char *prefix, char *msg, size_t msg_len)
{
	struct gt_kube_snapshot s;
	struct gt_err err = { 0 };
	if (gt_snapshot_take(c, &sopts, &s, &err))
		return 999;
	struct gt_session ss;
	gt_cycle_run(&ss, &s.c, 1767229200, 1u << GT_ACT_ALLOCATE);
	struct gt_writes_opts po = { .node_pool = "default", .now = 1767229200 };
	struct gt_plan cp;
	gt_plan_build(&cp, &ss, NULL);
	struct gt_writes plan;
	char **pl;
	size_t npl, n = 0;
	gt_writes_build(&s, &cp, &po, &plan, &pl, &npl);
	for (size_t i = 0; i < plan.n; i++)
		n += !strncmp(plan.ops[i].name, prefix, strlen(prefix));
	for (uint32_t j = 0; j < s.c.n_jobs; j++)
		if (ss.jobs[j].message && msg)
			snprintf(msg, msg_len, "%s", ss.jobs[j].message);
	gt_writes_release(&plan);
	gt_plan_release(&cp);
	free(pl);
	gt_session_release(&ss);
	gt_snapshot_release(&s);
	return n;
}

TEST(plan_steady_state_writes_nothing)
{
	struct gt_cache *c = gt_cache_new();
	add(c, GT_KRES_NODES, node_json);
	add(c, GT_KRES_QUEUES, queue_json);
	add(c, GT_KRES_PODGROUPS, pg_json);
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "big-%d", i);
		add(c, GT_KRES_PODS, fmt(BIG_POD, name, name));
	}
	/* minMember 2 of 8-GPU pods on one 8-GPU node: never fits */
	char msg[1024] = "";
	ASSERT_EQ(1 + 1 + 3 + 3, writes_for(c, "big", msg, sizeof(msg)));
	ASSERT_CONTAINS(msg, "gang");
	/* once the objects say what the core says, the plan is empty */
	json_t *pg = json_loads(pg_json, 0, NULL);
	json_t *conds = json_object_get(json_object_get(pg, "status"), "schedulingConditions");
	json_array_append_new(conds, json_pack("{s:s, s:s, s:s, s:s}", "type", "UnschedulableOnNodePool",
					       "nodePool", "default", "message", msg, "transitionID", "5"));
	struct gt_err err = { 0 };
	gt_cache_upsert(c, gt_cache_make(c, GT_KRES_PODGROUPS, pg, &err));
	json_decref(pg);
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "big-%d", i);
		json_t *p = json_loads(fmt(BIG_POD, name, name), 0, NULL);
		json_object_set_new(json_object_get(p, "status"), "conditions",
				    json_pack("[{s:s, s:s, s:s, s:s}]", "type", "PodScheduled", "status", "False",
					      "reason", "Unschedulable", "message", msg));
		gt_cache_upsert(c, gt_cache_make(c, GT_KRES_PODS, p, &err));
		json_decref(p);
	}
	ASSERT_EQ(0, writes_for(c, "big", NULL, 0));
	gt_cache_free(c);
}

const struct gt_test gt_tests[] = {
	T(real_api_json_decodes),
	T(cache_replace_delete_assume),
	T(bad_object_left_out_rest_decoded),
	T(grouped_only_leaves_ungrouped_pods_out),
	T(plan_binds_and_conditions),
	T(plan_steady_state_writes_nothing),
	{ NULL, NULL },
};
