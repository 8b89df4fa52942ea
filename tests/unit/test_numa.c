/*
 * test_numa.c - NUMA zones: the kubelet's alignment per policy and scope,
 * NodeResourceTopology decoding, the predicate and the zones' books
 *
 * The evaluation is tested on hand-made topologies (gt_numa_solve); the
 * rest through manifests, as the scheduler sees them.
 */
#include <string.h>

#include "core/numa.h"
#include "core/placement.h"
#include "testlib.h"

const char *gt_suite = "numa";

/* A topology of @n zones with @cpu cores (and @gpus devices) allocatable each, all free. */
static void topo(struct gt_numa_node *t, struct gt_numa_zone *z, uint32_t n, enum gt_numa_policy policy,
		 int64_t cpu, int64_t gpus, struct gt_numa_vec *free)
{
	memset(t, 0, sizeof(*t));
	t->policy = policy;
	t->zones = z;
	t->n_zones = n;
	t->aware = (1u << GT_NUMA_CPU) | (gpus ? 1u << GT_NUMA_GPU : 0);
	for (uint32_t i = 0; i < n; i++) {
		memset(&z[i], 0, sizeof(z[i]));
		z[i].allocatable.v[GT_NUMA_CPU] = cpu * 1000;
		z[i].allocatable.v[GT_NUMA_GPU] = gpus;
		free[i] = z[i].allocatable;
	}
}

static struct gt_numa_vec cpu_req(int64_t cores, int64_t gpus)
{
	struct gt_numa_vec v = { { 0 } };
	v.v[GT_NUMA_CPU] = cores * 1000;
	v.v[GT_NUMA_GPU] = gpus;
	return v;
}

#define ALL ((1u << GT_NUMA_CPU) | (1u << GT_NUMA_GPU))

TEST(single_numa_node_takes_the_lowest_zone_that_holds_all)
{
	struct gt_numa_node t;
	struct gt_numa_zone z[2];
	struct gt_numa_vec free[2], drawn[2];
	topo(&t, z, 2, GT_NUMA_SINGLE_NODE, 4, 0, free);
	struct gt_numa_vec r3 = cpu_req(3, 0), r5 = cpu_req(5, 0);
	memset(drawn, 0, sizeof(drawn));
	ASSERT_TRUE(gt_numa_solve(&t, free, ALL, &r3, 1, 0, drawn));
	ASSERT_EQ(3000, drawn[0].v[GT_NUMA_CPU]);
	ASSERT_EQ(0, drawn[1].v[GT_NUMA_CPU]);
	free[0].v[GT_NUMA_CPU] = 1000;	/* zone 0 mostly taken: zone 1 */
	memset(drawn, 0, sizeof(drawn));
	ASSERT_TRUE(gt_numa_solve(&t, free, ALL, &r3, 1, 0, drawn));
	ASSERT_EQ(3000, drawn[1].v[GT_NUMA_CPU]);
	/* more than a zone holds: refused, though the node has 5 free cores */
	ASSERT_TRUE(!gt_numa_solve(&t, free, ALL, &r5, 1, 0, NULL));
	/* a resource the pod does not align (not in @aware) never refuses */
	ASSERT_TRUE(gt_numa_solve(&t, free, 1u << GT_NUMA_GPU, &r5, 1, 0, NULL));
}

TEST(restricted_takes_the_narrowest_preferred_span)
{
	struct gt_numa_node t;
	struct gt_numa_zone z[3];
	struct gt_numa_vec free[3], drawn[3];
	topo(&t, z, 3, GT_NUMA_RESTRICTED, 4, 1, free);
	struct gt_numa_vec r6 = cpu_req(6, 0);
	memset(drawn, 0, sizeof(drawn));
	ASSERT_TRUE(gt_numa_solve(&t, free, ALL, &r6, 1, 0, drawn));
	ASSERT_EQ(4000, drawn[0].v[GT_NUMA_CPU]);	/* lowest zones first */
	ASSERT_EQ(2000, drawn[1].v[GT_NUMA_CPU]);
	ASSERT_EQ(0, drawn[2].v[GT_NUMA_CPU]);
	/* zone 0 full: the lowest pair with room is {1, 2} */
	free[0].v[GT_NUMA_CPU] = 0;
	memset(drawn, 0, sizeof(drawn));
	ASSERT_TRUE(gt_numa_solve(&t, free, ALL, &r6, 1, 0, drawn));
	ASSERT_EQ(0, drawn[0].v[GT_NUMA_CPU]);
	ASSERT_EQ(4000, drawn[1].v[GT_NUMA_CPU]);
	ASSERT_EQ(2000, drawn[2].v[GT_NUMA_CPU]);
	/* 6 cores want two zones, 1 GPU wants one: the kubelet's hints disagree */
	struct gt_numa_vec mixed = cpu_req(6, 1);
	topo(&t, z, 3, GT_NUMA_RESTRICTED, 4, 1, free);
	ASSERT_TRUE(!gt_numa_solve(&t, free, ALL, &mixed, 1, 0, NULL));
	/* free cores spread thin: no single zone holds 3, so restricted (width 1) refuses */
	struct gt_numa_vec r3 = cpu_req(3, 0);
	for (int i = 0; i < 3; i++)
		free[i].v[GT_NUMA_CPU] = 2000;
	ASSERT_TRUE(!gt_numa_solve(&t, free, ALL, &r3, 1, 0, NULL));
}

TEST(best_effort_takes_the_most_covering_zone_first_and_never_asks_for_width)
{
	struct gt_numa_node t;
	struct gt_numa_zone z[2];
	struct gt_numa_vec free[2], drawn[2];
	topo(&t, z, 2, GT_NUMA_BEST_EFFORT, 4, 0, free);
	free[0].v[GT_NUMA_CPU] = 2000;
	struct gt_numa_vec r3 = cpu_req(3, 0), r6 = cpu_req(6, 0), r7 = cpu_req(7, 0);
	memset(drawn, 0, sizeof(drawn));
	ASSERT_TRUE(gt_numa_solve(&t, free, ALL, &r3, 1, 0, drawn));
	ASSERT_EQ(3000, drawn[1].v[GT_NUMA_CPU]);	/* zone 1 covers all of it */
	memset(drawn, 0, sizeof(drawn));
	ASSERT_TRUE(gt_numa_solve(&t, free, ALL, &r6, 1, 0, drawn));
	ASSERT_EQ(2000, drawn[0].v[GT_NUMA_CPU]);
	ASSERT_EQ(4000, drawn[1].v[GT_NUMA_CPU]);
	ASSERT_TRUE(!gt_numa_solve(&t, free, ALL, &r7, 1, 0, NULL));	/* the zones lack it: no prediction */
}

TEST(container_scope_charges_containers_in_turn_and_init_containers_alone)
{
	struct gt_numa_node t;
	struct gt_numa_zone z[2];
	struct gt_numa_vec free[2], drawn[2];
	topo(&t, z, 2, GT_NUMA_SINGLE_NODE, 4, 0, free);
	/* two app containers of 3 cores, then a plain init container of 4 */
	struct gt_numa_vec units[3] = { cpu_req(3, 0), cpu_req(3, 0), cpu_req(4, 0) };
	memset(drawn, 0, sizeof(drawn));
	ASSERT_TRUE(gt_numa_solve(&t, free, ALL, units, 2, 1, drawn));
	ASSERT_EQ(3000, drawn[0].v[GT_NUMA_CPU]);	/* each container on its own zone */
	ASSERT_EQ(3000, drawn[1].v[GT_NUMA_CPU]);
	units[2] = cpu_req(5, 0);	/* an init container no zone holds */
	ASSERT_TRUE(!gt_numa_solve(&t, free, ALL, units, 2, 1, NULL));
	/* the same pod in pod scope: 6 cores in one zone, refused */
	struct gt_numa_vec pod = cpu_req(6, 0);
	ASSERT_TRUE(!gt_numa_solve(&t, free, ALL, &pod, 1, 0, NULL));
}

/* ---------------------------------------------------------------- through manifests */

static void nrt(struct tl_world *w, const char *node, const char *policy, const char *scope, const char *zones)
{
	tl_yaml(w, "---\n{apiVersion: topology.node.k8s.io/v1alpha2, kind: NodeResourceTopology, metadata: {name: %s}, "
		   "attributes: [{name: topologyManagerPolicy, value: %s}, {name: topologyManagerScope, value: %s}], "
		   "zones: [%s]}\n", node, policy, scope, zones);
}

#define ZONE(name, cpu) "{name: " name ", type: Node, resources: [{name: cpu, capacity: '" cpu "', " \
			"allocatable: '" cpu "', available: '" cpu "'}]}"
#define GUARANTEED "qosClass: Guaranteed"

static void guaranteed_pod(struct tl_world *w, const char *name, const char *cpu, const char *node,
			   const char *annotations)
{
	tl_yaml(w, "---\n{apiVersion: v1, kind: Pod, metadata: {name: %s, namespace: default, "
		   "creationTimestamp: '2026-01-01T00:00:00Z', labels: {kai.scheduler/queue: q}, annotations: {%s}}, "
		   "spec: {schedulerName: kai-scheduler, %s%s%s containers: [{name: main, image: busybox, "
		   "resources: {requests: {cpu: '%s', memory: 1Gi}, limits: {cpu: '%s', memory: 1Gi}}}]}, "
		   "status: {phase: %s, qosClass: Guaranteed}}\n",
		name, annotations ? annotations : "", node ? "nodeName: " : "", node ? node : "", node ? "," : "",
		cpu, cpu, node ? "Running" : "Pending");
}

TEST(topology_is_decoded_with_zones_in_numa_node_order)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1" });
	nrt(&w, "n1", "restricted", "pod", ZONE("node-10", "2") ", " ZONE("node-2", "4") ", "
		"{name: socket-0, type: Socket, resources: []}");
	nrt(&w, "elsewhere", "restricted", "pod", ZONE("node-0", "2"));	/* no such node: left out */
	TL_BUILD(&w);
	ASSERT_EQ(1, w.c.n_numa_nodes);
	const struct gt_numa_node *t = &w.c.numa_nodes[0];
	ASSERT_EQ(GT_NUMA_RESTRICTED, t->policy);
	ASSERT_EQ(GT_NUMA_SCOPE_POD, t->scope);
	ASSERT_EQ(2, t->n_zones);	/* the socket is not a NUMA node */
	ASSERT_STR("node-2", gt_strtab_str(&w.names, t->zones[0].id));
	ASSERT_EQ(4000, t->zones[0].allocatable.v[GT_NUMA_CPU]);
	tl_free(&w);
}

TEST(bad_zone_quantity_is_refused_naming_the_field)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1" });
	nrt(&w, "n1", "single-numa-node", "pod",
	    "{name: node-0, type: Node, resources: [{name: cpu, allocatable: 'four', available: '4'}]}");
	ASSERT_TRUE(tl_build(&w) != 0);
	ASSERT_TRUE(strstr(w.err.msg, "zones[0].resources[0].allocatable") != NULL);
	ASSERT_TRUE(strstr(w.err.msg, "four") != NULL);
	tl_free(&w);
}

TEST(pod_that_no_zone_can_align_is_refused_with_the_numa_reason)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	nrt(&w, "n1", "single-numa-node", "pod", ZONE("node-0", "4") ", " ZONE("node-1", "4"));
	guaranteed_pod(&w, "wide", "6", NULL, NULL);
	/* the same request, not Guaranteed: the CPU manager does not pin it, nothing to align */
	tl_pod(&w, &(struct tl_pod){ .name = "burstable", .queue = "q", .cpu = "6" });
	TL_BUILD(&w);
	tl_open(&w);
	int32_t n1 = tl_node_idx(&w, "n1");
	ASSERT_TRUE(!gt_numa_fits(&w.s, tl_pod_idx(&w, "wide"), n1));
	ASSERT_TRUE(gt_numa_fits(&w.s, tl_pod_idx(&w, "burstable"), n1));
	ASSERT_STR("NUMA", gt_reject_code(GT_REJECT_NUMA));
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "wide"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "burstable"));
	const char *msg = w.s.jobs[w.c.pods[tl_pod_idx(&w, "wide")].job].message;
	ASSERT_TRUE(msg && strstr(msg, "1 node(s) cannot NUMA-align the pod's resources under its Topology "
				   "Manager policy"));
	tl_free(&w);
}

TEST(books_follow_placements_evictions_and_rollback)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	nrt(&w, "n1", "single-numa-node", "pod", ZONE("node-0", "4") ", " ZONE("node-1", "4"));
	guaranteed_pod(&w, "running", "3", "n1",
		       "kai.scheduler/numa-placement-observed: '[{\"zone\":\"node-1\",\"amount\":{\"cpu\":\"3\"}}]'");
	guaranteed_pod(&w, "a", "3", NULL, NULL);
	guaranteed_pod(&w, "b", "2", NULL, NULL);
	TL_BUILD(&w);
	tl_open(&w);
	int32_t n1 = tl_node_idx(&w, "n1"), run = tl_pod_idx(&w, "running");
	int32_t a = tl_pod_idx(&w, "a"), b = tl_pod_idx(&w, "b");
	/* the observed placement charges zone 1 (reconstructed from allocatable) */
	ASSERT_EQ(4000, gt_numa_free(&w.s, n1, 0)->v[GT_NUMA_CPU]);
	ASSERT_EQ(1000, gt_numa_free(&w.s, n1, 1)->v[GT_NUMA_CPU]);
	size_t cp = gt_stmt_checkpoint(&w.s);
	gt_stmt_allocate(&w.s, a, n1, NULL, 0);	/* zone 0 */
	ASSERT_EQ(1000, gt_numa_free(&w.s, n1, 0)->v[GT_NUMA_CPU]);
	ASSERT_TRUE(!gt_numa_fits(&w.s, b, n1));	/* 1 core left in each zone */
	gt_stmt_evict(&w.s, run, GT_NONE);	/* a victim's zone is free at once */
	ASSERT_EQ(4000, gt_numa_free(&w.s, n1, 1)->v[GT_NUMA_CPU]);
	ASSERT_TRUE(gt_numa_fits(&w.s, b, n1));
	gt_stmt_pipeline(&w.s, b, n1, NULL, 0);
	uint32_t n;
	const struct gt_numa_share *sh = gt_numa_shares(&w.s, w.s.pods[b].numa_place, &n);
	ASSERT_EQ(1, n);
	ASSERT_EQ(1, sh[0].zone);
	ASSERT_EQ(2000, gt_numa_free(&w.s, n1, 1)->v[GT_NUMA_CPU]);
	ASSERT_TRUE(gt_session_check(&w.s));
	gt_stmt_rollback(&w.s, cp);
	ASSERT_EQ(4000, gt_numa_free(&w.s, n1, 0)->v[GT_NUMA_CPU]);
	ASSERT_EQ(1000, gt_numa_free(&w.s, n1, 1)->v[GT_NUMA_CPU]);
	ASSERT_TRUE(gt_session_check(&w.s));
	tl_free(&w);
}

TEST(numa_plugin_switched_off_in_the_shard_aligns_nothing)
{
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default}, "
		    "spec: {plugins: {numa: {enabled: false}}}}\n");
	tl_node(&w, &(struct tl_node){ .name = "n1" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	nrt(&w, "n1", "single-numa-node", "pod", ZONE("node-0", "4"));
	guaranteed_pod(&w, "wide", "6", NULL, NULL);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_TRUE(w.s.numa == NULL);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "wide"));
	tl_free(&w);
}


/* Container scope's units as the kubelet sees them: sidecars and app containers together, plain
 * init containers alone, only whole cores of a Guaranteed pod pinned. */
TEST(pod_units_follow_the_cpu_manager)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_yaml(&w, "---\n{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default, labels: "
		    "{kai.scheduler/queue: q}}, spec: {schedulerName: kai-scheduler, initContainers: ["
		    "{name: side, image: x, restartPolicy: Always, resources: {limits: {cpu: '2', memory: 1Gi}}}, "
		    "{name: setup, image: x, resources: {limits: {cpu: '6', memory: 1Gi}}}], containers: ["
		    "{name: app, image: x, resources: {limits: {cpu: '3', memory: 2Gi}}}, "
		    "{name: log, image: x, resources: {limits: {cpu: 1500m, memory: 1Gi}}}]}, status: {phase: Pending}}\n");
	TL_BUILD(&w);
	const struct gt_numa_pod *np = w.c.pods[tl_pod_idx(&w, "p")].numa;
	ASSERT_TRUE(np != NULL);
	ASSERT_TRUE(np->guaranteed);	/* no status.qosClass: computed from the limits */
	ASSERT_EQ(3, np->n_concurrent);
	ASSERT_EQ(1, np->n_serial);
	ASSERT_EQ(2000, np->units[0].v[GT_NUMA_CPU]);	/* the sidecar */
	ASSERT_EQ(3000, np->units[1].v[GT_NUMA_CPU]);
	ASSERT_EQ(0, np->units[2].v[GT_NUMA_CPU]);	/* 1.5 cores stay in the shared pool */
	ASSERT_EQ(1073741824, np->units[2].v[GT_NUMA_MEM]);
	ASSERT_EQ(6000, np->units[3].v[GT_NUMA_CPU]);	/* the plain init container, alone */
	/* pod scope: the larger of the running set (2 + 3) and the init peak (sidecar 2 + setup 6) */
	ASSERT_EQ(8000, np->pod.v[GT_NUMA_CPU]);
	tl_free(&w);
}

const struct gt_test gt_tests[] = {
	T(single_numa_node_takes_the_lowest_zone_that_holds_all),
	T(restricted_takes_the_narrowest_preferred_span),
	T(best_effort_takes_the_most_covering_zone_first_and_never_asks_for_width),
	T(container_scope_charges_containers_in_turn_and_init_containers_alone),
	T(topology_is_decoded_with_zones_in_numa_node_order),
	T(bad_zone_quantity_is_refused_naming_the_field),
	T(pod_that_no_zone_can_align_is_refused_with_the_numa_reason),
	T(books_follow_placements_evictions_and_rollback),
	T(numa_plugin_switched_off_in_the_shard_aligns_nothing),
	T(pod_units_follow_the_cpu_manager),
	{ NULL, NULL },
};
