/*
 * test_snapshot.c - scheduler/snapshot: the cache decoded into one cycle's
 * cluster; a rejected object left out (and said once) while the rest is
 * scheduled; pods without their PodGroup held back with a podgrouper
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kubefix.h"
#include "scheduler/snapshot.h"
#include "util/log.h"

const char *gt_suite = "snapshot";

static struct gt_kube_snapshot s_;

TEST(real_api_json_decodes)
{
	struct gt_cache *c = gt_cache_new();
	add(c, GT_KRES_PODS, pod_json);
	add(c, GT_KRES_PODGROUPS, nb_pg_json);
	add(c, GT_KRES_NODES, node_json);	/* a list item: no kind, no apiVersion */
	add(c, GT_KRES_QUEUES, queue_json);
	struct gt_kube_snapshot s;
	gt_snapshot_take(c, &sopts, NULL, &s);
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

TEST(bad_object_left_out_rest_decoded)
{
	gt_log_set_level(GT_LOG_ERROR);	/* the skipped objects' warnings: tests/kube checks them */
	struct gt_cache *c = gt_cache_new();
	add(c, GT_KRES_NODES, node_json);
	add(c, GT_KRES_QUEUES, queue_json);
	add(c, GT_KRES_PODS, pod_json);
	add(c, GT_KRES_PODGROUPS, nb_pg_json);
	add(c, GT_KRES_PODS, "{\"metadata\":{\"name\":\"bad\",\"namespace\":\"team-a\",\"annotations\":"
			     "{\"gpu-fraction\":\"1.5\"}},\"spec\":{\"schedulerName\":\"kai-scheduler\","
			     "\"containers\":[{\"name\":\"c\"}]}}");
	add(c, GT_KRES_PODS, "{\"metadata\":{\"name\":\"worse\",\"namespace\":\"team-b\"},\"spec\":{"
			     "\"schedulerName\":\"kai-scheduler\",\"containers\":[{\"name\":\"c\",\"resources\":"
			     "{\"requests\":{\"cpu\":\"lots\"}}}]}}");
	struct gt_kube_snapshot s;
	gt_snapshot_take(c, &sopts, NULL, &s);
	ASSERT_EQ(1, s.c.n_pods);
	ASSERT_EQ(2, s.n_rejected);
	ASSERT_STR("nb-x7k2p", gt_strtab_str(&s.names, s.c.pods[0].name));
	/* the decoder says which object and field: the snapshot parses no message text */
	for (size_t i = 0; i < s.n_rejected; i++) {
		ASSERT_TRUE(s.rejected[i].first);
		bool bad = !strcmp(s.rejected[i].obj->key, "team-a/bad");
		ASSERT_TRUE(bad || !strcmp(s.rejected[i].obj->key, "team-b/worse"));
		ASSERT_CONTAINS(s.rejected[i].text, bad ? "field metadata.annotations.gpu-fraction"
							: "field spec.containers[0].resources.requests.cpu");
	}
	gt_snapshot_release(&s);
	/* left out again, but said once: the next snapshot does not report them as new */
	gt_snapshot_take(c, &sopts, NULL, &s);
	ASSERT_EQ(2, s.n_rejected);
	ASSERT_TRUE(!s.rejected[0].first && !s.rejected[1].first);
	gt_snapshot_release(&s);
	/* a fixed version replaces the bad one */
	add(c, GT_KRES_PODS, "{\"metadata\":{\"name\":\"bad\",\"namespace\":\"team-a\",\"annotations\":"
			     "{\"gpu-fraction\":\"0.5\"}},\"spec\":{\"schedulerName\":\"kai-scheduler\","
			     "\"containers\":[{\"name\":\"c\"}]}}");
	gt_snapshot_take(c, &sopts, NULL, &s);
	ASSERT_EQ(2, s.c.n_pods);
	ASSERT_EQ(1, s.n_rejected);
	gt_snapshot_release(&s);
	gt_cache_free(c);
}

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
	gt_snapshot_take(c, &grouped, NULL, &s);
	/* the grouped pod and the bound one; not the loose pod nor the one whose group is gone */
	ASSERT_EQ(2, s.c.n_pods);
	for (uint32_t i = 0; i < s.c.n_pods; i++) {
		const char *name = gt_strtab_str(&s.names, s.c.pods[i].name);
		ASSERT_TRUE(!strcmp(name, "big-0") || !strcmp(name, "running"));
	}
	gt_snapshot_release(&s);
	/* without it, the loose pod is scheduled as a job of its own */
	gt_snapshot_take(c, &sopts, NULL, &s);
	uint32_t loose = 0;
	for (uint32_t i = 0; i < s.c.n_pods; i++)
		loose += !strcmp(gt_strtab_str(&s.names, s.c.pods[i].name), "loose");
	ASSERT_EQ(1, loose);
	gt_snapshot_release(&s);
	gt_cache_free(c);
}

#define BR(name, pod, node, extra) \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"team-a\",\"uid\":\"br-" name "\"}," \
	"\"spec\":{\"podName\":\"" pod "\",\"selectedNode\":\"" node "\",\"selectedGPUGroups\":[\"g1\"]" \
	extra "}}"

/* KAI's BindRequests: a live one makes its pod Binding; stale ones are listed for deletion. */
TEST(bindrequests_bind_or_go)
{
	struct gt_cache *c = gt_cache_new();
	add(c, GT_KRES_NODES, node_json);
	add(c, GT_KRES_QUEUES, queue_json);
	add(c, GT_KRES_PODS, fmt(LOOSE_POD, "waiting", "waiting"));
	add(c, GT_KRES_PODS, fmt(LOOSE_POD, "retried", "retried"));
	add(c, GT_KRES_BINDREQUESTS, BR("live", "waiting", "gpu-1", ""));
	add(c, GT_KRES_BINDREQUESTS, BR("orphan", "gone", "gpu-1", ""));
	add(c, GT_KRES_BINDREQUESTS, BR("spent", "retried", "gpu-1", ",\"backoffLimit\":2},\"status\":{"
				 "\"phase\":\"Failed\",\"failedAttempts\":2"));
	gt_snapshot_take(c, &sopts, NULL, &s_);
	ASSERT_EQ(1, s_.n_binding);
	const struct gt_pod *w = NULL, *r = NULL;
	for (uint32_t i = 0; i < s_.c.n_pods; i++) {
		const char *name = gt_strtab_str(&s_.names, s_.c.pods[i].name);
		if (!strcmp(name, "waiting"))
			w = &s_.c.pods[i];
		if (!strcmp(name, "retried"))
			r = &s_.c.pods[i];
	}
	ASSERT_TRUE(w && r);
	ASSERT_EQ(GT_BINDING, w->status);
	ASSERT_EQ(0, w->node);
	ASSERT_EQ(1, w->n_groups);
	ASSERT_STR("g1", gt_strtab_str(&s_.names, w->groups[0]));
	ASSERT_EQ(GT_PENDING, r->status);
	ASSERT_EQ(2, s_.n_stale_brs);
	ASSERT_TRUE(!strcmp(s_.stale_brs[0]->name, "orphan") || !strcmp(s_.stale_brs[1]->name, "orphan"));
	ASSERT_TRUE(!strcmp(s_.stale_brs[0]->name, "spent") || !strcmp(s_.stale_brs[1]->name, "spent"));
	/* the entity maps lead to the objects */
	for (uint32_t i = 0; i < s_.c.n_pods; i++)
		ASSERT_STR(gt_strtab_str(&s_.names, s_.c.pods[i].name), s_.pod_obj[i]->name);
	gt_snapshot_release(&s_);
	gt_cache_free(c);
}

const struct gt_test gt_tests[] = {
	T(real_api_json_decodes),
	T(bad_object_left_out_rest_decoded),
	T(grouped_only_leaves_ungrouped_pods_out),
	T(bindrequests_bind_or_go),
	{ NULL, NULL },
};
