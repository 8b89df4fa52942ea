/*
 * test_writes.c - scheduler/writes: what a cycle's plan means for the API
 * server (binds, conditions, events), and a steady state writes nothing
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/actions.h"
#include "core/plan.h"
#include "harness.h"
#include "kubefix.h"
#include "scheduler/writes.h"
#include "util/mem.h"

const char *gt_suite = "writes";

static const struct gt_kop *find_op(const struct gt_writes *p, enum gt_kop_kind k, const char *name,
				    const char *what)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->ops[i].kind == k && !strcmp(p->ops[i].name, name) &&
		    (!what || (p->ops[i].what && !strcmp(p->ops[i].what, what))))
			return &p->ops[i];
	return NULL;
}

/* A cycle planned over a cache, and the writes its plan gives: what every test here looks at. */
struct planned {
	struct gt_kube_snapshot snap;
	struct gt_session ss;
	struct gt_plan cp;
	struct gt_writes w;
	char **pipelined;
	size_t n_pipelined;
};

static void plan_cycle(struct gt_cache *c, struct planned *p)
{
	gt_snapshot_take(c, &sopts, NULL, &p->snap);
	gt_cycle_run(&p->ss, &p->snap.c, 1767229200, 1u << GT_ACT_ALLOCATE);
	struct gt_writes_opts po = { .node_pool = "default", .now = 1767229200 };
	gt_plan_build(&p->cp, &p->ss, NULL);
	gt_writes_build(&p->snap, &p->cp, &po, &p->w, &p->pipelined, &p->n_pipelined);
}

static void planned_release(struct planned *p)
{
	for (size_t i = 0; i < p->n_pipelined; i++)
		free(p->pipelined[i]);
	free(p->pipelined);
	gt_writes_release(&p->w);
	gt_plan_release(&p->cp);
	gt_session_release(&p->ss);
	gt_snapshot_release(&p->snap);
}

TEST(plan_binds_and_conditions)
{
	struct gt_cache *c = gt_cache_new();
	add(c, GT_KRES_NODES, node_json);
	add(c, GT_KRES_QUEUES, queue_json);
	add(c, GT_KRES_PODS, pod_json);
	add(c, GT_KRES_PODGROUPS, nb_pg_json);
	add(c, GT_KRES_PODGROUPS, pg_json);
	add(c, GT_KRES_PODS, fmt(BIG_POD, "big-0", "big-0"));
	add(c, GT_KRES_PODS, fmt(BIG_POD, "big-1", "big-1"));
	struct planned p;
	plan_cycle(c, &p);
	/* the notebook's half GPU: bound, on a GPU group of its own named after the node */
	const struct gt_kop *b = find_op(&p.w, GT_KOP_BIND, "nb-x7k2p", NULL);
	ASSERT_TRUE(b != NULL);
	ASSERT_STR("gpu-1", b->node);
	ASSERT_EQ(1, b->n_groups);
	ASSERT_STR("gpu-1-gpu0", b->groups[0]);
	ASSERT_STR("48213", b->rv);
	ASSERT_CONTAINS(b->message, "Successfully assigned pod team-a/nb-x7k2p to node gpu-1 at node-pool default");
	/* the gang of two 8-GPU pods cannot fit beside it: nothing of it is bound */
	ASSERT_TRUE(find_op(&p.w, GT_KOP_BIND, "big-0", NULL) == NULL);
	ASSERT_TRUE(find_op(&p.w, GT_KOP_BIND, "big-1", NULL) == NULL);
	ASSERT_EQ(1, p.w.n_binds);
	const struct gt_kop *st = find_op(&p.w, GT_KOP_PATCH, "big", "PodGroup status");
	ASSERT_TRUE(st != NULL);
	ASSERT_STR("status", st->sub);
	/* our node pool's condition is added beside the other pool's, with the next transition id */
	ASSERT_CONTAINS(st->body, "\"nodePool\":\"other\"");
	ASSERT_CONTAINS(st->body, "\"nodePool\":\"default\"");
	ASSERT_CONTAINS(st->body, "\"transitionID\":\"5\"");
	ASSERT_CONTAINS(st->body, "\"reason\":\"PodSchedulingErrors\"");
	ASSERT_CONTAINS(st->body, p.ss.jobs[p.snap.c.pods[1].job].message);
	const struct gt_kop *pc = find_op(&p.w, GT_KOP_PATCH, "big-0", "pod condition");
	ASSERT_TRUE(pc != NULL);
	ASSERT_TRUE(pc->strategic);
	ASSERT_CONTAINS(pc->body, "\"type\":\"PodScheduled\"");
	ASSERT_CONTAINS(pc->body, "\"status\":\"False\"");
	ASSERT_TRUE(find_op(&p.w, GT_KOP_EVENT, "big", NULL) != NULL);
	ASSERT_TRUE(find_op(&p.w, GT_KOP_EVENT, "big-0", NULL) != NULL);
	/* the PodGroup's last-start annotation is not touched: it never started */
	ASSERT_TRUE(find_op(&p.w, GT_KOP_PATCH, "big", "PodGroup annotations") == NULL);
	planned_release(&p);
	gt_cache_free(c);
}

/* Plan a cycle over the cache; the plan's writes for pods and groups named @prefix*. */
static size_t writes_for(struct gt_cache *c, const char *prefix, char *msg, size_t msg_len)
{
	struct planned p;
	plan_cycle(c, &p);
	size_t n = 0;
	for (size_t i = 0; i < p.w.n; i++)
		n += !strncmp(p.w.ops[i].name, prefix, strlen(prefix));
	for (uint32_t j = 0; j < p.snap.c.n_jobs; j++)
		if (p.ss.jobs[j].message && msg)
			snprintf(msg, msg_len, "%s", p.ss.jobs[j].message);
	planned_release(&p);
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
	gt_cache_upsert(c, gt_kobj_new(GT_KRES_PODGROUPS, pg, &err));
	json_decref(pg);
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "big-%d", i);
		json_t *p = json_loads(fmt(BIG_POD, name, name), 0, NULL);
		json_object_set_new(json_object_get(p, "status"), "conditions",
				    json_pack("[{s:s, s:s, s:s, s:s}]", "type", "PodScheduled", "status", "False",
					      "reason", "Unschedulable", "message", msg));
		gt_cache_upsert(c, gt_kobj_new(GT_KRES_PODS, p, &err));
		json_decref(p);
	}
	ASSERT_EQ(0, writes_for(c, "big", NULL, 0));
	gt_cache_free(c);
}

/* The condition's reason is the code the core set with the message, not a reading of its text. */
TEST(condition_reason_is_the_cores_code)
{
	struct gt_cache *c = gt_cache_new();
	add(c, GT_KRES_NODES, node_json);
	/* the research queue capped at 4 GPUs: the 16-GPU gang is over its limit */
	char *capped = gt_xstrdup(queue_json);
	char *gpu = strstr(capped, "\"gpu\":{\"limit\":-1");
	ASSERT_TRUE(gpu != NULL);
	memcpy(gpu, "\"gpu\":{\"limit\":4 ", strlen("\"gpu\":{\"limit\":-1"));
	add(c, GT_KRES_QUEUES, capped);
	free(capped);
	add(c, GT_KRES_PODGROUPS, pg_json);
	add(c, GT_KRES_PODS, fmt(BIG_POD, "big-0", "big-0"));
	add(c, GT_KRES_PODS, fmt(BIG_POD, "big-1", "big-1"));
	struct planned p;
	plan_cycle(c, &p);
	const struct gt_kop *st = find_op(&p.w, GT_KOP_PATCH, "big", "PodGroup status");
	ASSERT_TRUE(st != NULL);
	ASSERT_CONTAINS(st->body, "\"reason\":\"OverLimit\"");
	ASSERT_CONTAINS(st->body, "quota has reached the allowable limit of GPUs");
	planned_release(&p);
	gt_cache_free(c);
}


/* A NUMA-aligned bind carries its predicted zones, as KAI's binder writes them, before the bind. */
TEST(numa_bind_writes_predicted_zones)
{
	struct gt_cache *c = gt_cache_new();
	add(c, GT_KRES_NODES, node_json);
	add(c, GT_KRES_QUEUES, queue_json);
	add(c, GT_KRES_NRTS,
	    "{\"apiVersion\":\"topology.node.k8s.io/v1alpha2\",\"kind\":\"NodeResourceTopology\",\"metadata\":{"
	    "\"name\":\"gpu-1\",\"uid\":\"t-1\",\"resourceVersion\":\"5\"},\"attributes\":[{\"name\":"
	    "\"topologyManagerPolicy\",\"value\":\"single-numa-node\"},{\"name\":\"topologyManagerScope\",\"value\":"
	    "\"pod\"}],\"zones\":[{\"name\":\"node-1\",\"type\":\"Node\",\"resources\":[{\"name\":\"cpu\",\"capacity\":"
	    "\"48\",\"allocatable\":\"47\",\"available\":\"47\"},{\"name\":\"nvidia.com/gpu\",\"capacity\":\"4\","
	    "\"allocatable\":\"4\",\"available\":\"4\"}]},{\"name\":\"node-0\",\"type\":\"Node\",\"resources\":[{\"name\":"
	    "\"cpu\",\"capacity\":\"48\",\"allocatable\":\"2\",\"available\":\"2\"},{\"name\":\"nvidia.com/gpu\","
	    "\"capacity\":\"4\",\"allocatable\":\"4\",\"available\":\"4\"}]}]}");
	add(c, GT_KRES_PODS,
	    "{\"metadata\":{\"name\":\"g\",\"namespace\":\"team-a\",\"uid\":\"u-g\",\"resourceVersion\":\"3\","
	    "\"labels\":{\"kai.scheduler/queue\":\"research\"}},\"spec\":{\"schedulerName\":\"kai-scheduler\","
	    "\"tolerations\":[{\"operator\":\"Exists\"}],\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{"
	    "\"cpu\":\"4\",\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"1\"}}}]},\"status\":{\"phase\":\"Pending\","
	    "\"qosClass\":\"Guaranteed\"}}");
	struct planned p;
	plan_cycle(c, &p);
	ASSERT_TRUE(find_op(&p.w, GT_KOP_BIND, "g", NULL) != NULL);
	const struct gt_kop *a = find_op(&p.w, GT_KOP_PATCH, "g", "pod NUMA placement");
	ASSERT_TRUE(a != NULL);
	/* zone node-0 (the lowest NUMA node) has 2 cores only: node-1 holds the pod */
	ASSERT_CONTAINS(a->body, "\"kai.scheduler/numa-placement-predicted\":"
				 "\"[{\\\"zone\\\":\\\"node-1\\\",\\\"amount\\\":{\\\"cpu\\\":\\\"4\\\","
				 "\\\"nvidia.com/gpu\\\":\\\"1\\\"}}]\"");
	ASSERT_TRUE(a < find_op(&p.w, GT_KOP_BIND, "g", NULL));	/* written before the bind */
	planned_release(&p);
	gt_cache_free(c);
}

/* The plan's deletes of idle reservation pods, binding directly (@binder_owns false) or not. */
static size_t reservation_deletes(bool binder_owns)
{
	struct gt_cache *c = gt_cache_new();
	add(c, GT_KRES_NODES, node_json);
	add(c, GT_KRES_QUEUES, queue_json);
	add(c, GT_KRES_PODS, "{\"metadata\":{\"name\":\"gpu-reservation-idle\",\"namespace\":"
			     "\"kai-resource-reservation\",\"uid\":\"r-1\",\"labels\":{\"app\":"
			     "\"kai-resource-reservation\",\"runai-gpu-group\":\"gpu-1-gpu3\"}},\"spec\":{"
			     "\"nodeName\":\"gpu-1\",\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
			     "{\"nvidia.com/gpu\":\"1\"}}}]},\"status\":{\"phase\":\"Running\"}}");
	struct gt_kube_snapshot s;
	gt_snapshot_take(c, &sopts, NULL, &s);
	struct gt_session ss;
	gt_cycle_run(&ss, &s.c, 1767229200, 1u << GT_ACT_ALLOCATE);
	struct gt_writes_opts po = { .node_pool = "default", .now = 1767229200, .binder_owns_reservations = binder_owns };
	struct gt_plan cp;
	gt_plan_build(&cp, &ss, NULL);
	struct gt_writes plan;
	char **pl;
	size_t npl;
	gt_writes_build(&s, &cp, &po, &plan, &pl, &npl);
	size_t n = find_op(&plan, GT_KOP_DELETE, "gpu-reservation-idle", "reservation pod") != NULL;
	gt_writes_release(&plan);
	gt_plan_release(&cp);
	free(pl);
	gt_session_release(&ss);
	gt_snapshot_release(&s);
	gt_cache_free(c);
	return n;
}

TEST(idle_reservation_pod_deleted_by_one_cleanup)
{
	/* binding directly, the scheduler made it and deletes it; in BindRequest mode the binder does */
	ASSERT_EQ(1, reservation_deletes(false));
	ASSERT_EQ(0, reservation_deletes(true));
}

const struct gt_test gt_tests[] = {
	T(idle_reservation_pod_deleted_by_one_cleanup),
	T(plan_binds_and_conditions),
	T(plan_steady_state_writes_nothing),
	T(condition_reason_is_the_cores_code),
	T(numa_bind_writes_predicted_zones),
	{ NULL, NULL },
};
