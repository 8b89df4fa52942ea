/*
 * test_fairshare.c - KAI's proportion division (KAI-SPEC 6.3), driven through
 * a session: pending pods make each queue's request, nodes make the total,
 * and gt_fairshare_compute() divides it. Shares are in milli-GPU.
 */
#include "testlib.h"

const char *gt_suite = "fairshare";

/* A pending job of @gpus whole GPUs in queue @q (requests are what count). */
static void demand(struct tl_world *w, const char *name, const char *q, const char *gpus)
{
	tl_pg(w, &(struct tl_pg){ .name = name, .queue = q });
	tl_pod(w, &(struct tl_pod){ .name = name, .pg = name, .gpus = gpus });
}

/*
 * KAI-SPEC 6.3, the worked example. 10 GPUs; A{quota 2, weight 1, request 8},
 * B{quota 2, weight 3, request 8}, same priority, no usage.
 *   deserved:   A = 2, B = 2, remaining 6
 *   round 1:    portions A = 6 * 1/4 = 1.5, B = 4.5 (k only scales both
 *               weights alike without usage) -> A gets 1 (leftover .5),
 *               B gets 4 (leftover .5), remaining 1; nobody asked for less
 *               than its portion, so no second round
 *   leftovers:  tie at .5 -> the older queue gets the last GPU
 * So A = 4, B = 6 when A is older, A = 3, B = 7 when B is.
 */
static void worked_example(struct tl_world *w, const char *a_created, const char *b_created)
{
	tl_init(w);
	tl_node(w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_node(w, &(struct tl_node){ .name = "n2", .gpus = 2 });
	tl_queue(w, &(struct tl_queue){ .name = "a", .quota = "2", .weight = "1", .created = a_created });
	tl_queue(w, &(struct tl_queue){ .name = "b", .quota = "2", .weight = "3", .created = b_created });
	demand(w, "ja", "a", "8");
	demand(w, "jb", "b", "8");
}

TEST(worked_example_a_older)
{
	struct tl_world w;
	worked_example(&w, "2025-01-01T00:00:00Z", "2025-06-01T00:00:00Z");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(10000, w.s.total[GT_QGPU]);
	ASSERT_EQ(8000, w.s.queues[tl_queue_idx(&w, "a")].request[GT_QGPU]);
	ASSERT_EQ(4000, tl_fair_share(&w, "a", GT_QGPU));
	ASSERT_EQ(6000, tl_fair_share(&w, "b", GT_QGPU));
	tl_free(&w);
}

TEST(worked_example_b_older)
{
	struct tl_world w;
	worked_example(&w, "2025-06-01T00:00:00Z", "2025-01-01T00:00:00Z");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(3000, tl_fair_share(&w, "a", GT_QGPU));
	ASSERT_EQ(7000, tl_fair_share(&w, "b", GT_QGPU));
	tl_free(&w);
}

TEST(worked_example_same_age_breaks_ties_by_name)
{
	/* same creation time: KAI falls back to the UID; Gantry to the name */
	struct tl_world w;
	worked_example(&w, "2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(10000, tl_fair_share(&w, "a", GT_QGPU) + tl_fair_share(&w, "b", GT_QGPU));
	ASSERT_EQ(4000, tl_fair_share(&w, "a", GT_QGPU));
	tl_free(&w);
}

TEST(higher_priority_group_first)
{
	/*
	 * 10 GPUs, no quotas. "high" (priority 200, weight 1) wants 8, "low"
	 * (priority 100, weight 5) wants 8: the higher group is filled up to
	 * its request before the lower one sees anything, whatever the weights.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_queue(&w, &(struct tl_queue){ .name = "high", .priority = 200, .weight = "1" });
	tl_queue(&w, &(struct tl_queue){ .name = "low", .priority = 100, .weight = "5" });
	demand(&w, "jh", "high", "8");
	demand(&w, "jl", "low", "8");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(8000, tl_fair_share(&w, "high", GT_QGPU));
	ASSERT_EQ(2000, tl_fair_share(&w, "low", GT_QGPU));
	tl_free(&w);
}

TEST(higher_priority_group_keeps_its_quota_order)
{
	/*
	 * Deserved quota comes first regardless of priority: low has quota 3,
	 * so it keeps 3 and high gets the other 7 of its 8.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_queue(&w, &(struct tl_queue){ .name = "high", .priority = 200 });
	tl_queue(&w, &(struct tl_queue){ .name = "low", .priority = 100, .quota = "3" });
	demand(&w, "jh", "high", "8");
	demand(&w, "jl", "low", "8");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(7000, tl_fair_share(&w, "high", GT_QGPU));
	ASSERT_EQ(3000, tl_fair_share(&w, "low", GT_QGPU));
	tl_free(&w);
}

TEST(weight_zero_gets_no_over_quota)
{
	/*
	 * 10 GPUs. A{quota 2, weight 0, request 8}, B{quota 2, weight 1,
	 * request 4}: B is filled to 4, and the 4 GPUs left stay undivided
	 * rather than going to the weight-0 queue.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_queue(&w, &(struct tl_queue){ .name = "a", .quota = "2", .weight = "0" });
	tl_queue(&w, &(struct tl_queue){ .name = "b", .quota = "2", .weight = "1" });
	demand(&w, "ja", "a", "8");
	demand(&w, "jb", "b", "4");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(2000, tl_fair_share(&w, "a", GT_QGPU));
	ASSERT_EQ(4000, tl_fair_share(&w, "b", GT_QGPU));
	tl_free(&w);
}

TEST(weight_zero_alone_gets_only_quota)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_queue(&w, &(struct tl_queue){ .name = "a", .quota = "3", .weight = "0" });
	demand(&w, "ja", "a", "8");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(3000, tl_fair_share(&w, "a", GT_QGPU));
	tl_free(&w);
}

TEST(limit_caps_the_fair_share)
{
	/*
	 * 10 GPUs. A{quota 1, limit 3, request 8}, B{quota 1, request 8},
	 * equal weights: deserved 1 + 1; round 1 portions 4 and 4, A can only
	 * take 2 more (limit 3), B takes 4; round 2 gives B the last 2.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_queue(&w, &(struct tl_queue){ .name = "a", .quota = "1", .limit = "3" });
	tl_queue(&w, &(struct tl_queue){ .name = "b", .quota = "1" });
	demand(&w, "ja", "a", "8");
	demand(&w, "jb", "b", "8");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(3000, tl_fair_share(&w, "a", GT_QGPU));
	ASSERT_EQ(7000, tl_fair_share(&w, "b", GT_QGPU));
	ASSERT_EQ(3000, gt_queue_allocatable_share(&w.s, tl_queue_idx(&w, "a"), GT_QGPU));
	tl_free(&w);
}

TEST(limit_below_quota_caps_the_deserved_phase)
{
	/* requestable = min(limit, request): a quota above the limit is not handed out */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_queue(&w, &(struct tl_queue){ .name = "a", .quota = "5", .limit = "2" });
	demand(&w, "ja", "a", "8");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(2000, tl_fair_share(&w, "a", GT_QGPU));
	tl_free(&w);
}

TEST(never_more_than_requested)
{
	/*
	 * 10 GPUs. A{quota 5, request 1}: the deserved phase gives min(quota,
	 * request). B{quota 0, request 2} and C{quota 0, fraction 0.5}: their
	 * portions (4.5 each) exceed what they ask, so each gets its request
	 * exactly, the fraction included, and the rest stays undivided.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_queue(&w, &(struct tl_queue){ .name = "a", .quota = "5" });
	tl_queue(&w, &(struct tl_queue){ .name = "b" });
	tl_queue(&w, &(struct tl_queue){ .name = "c" });
	demand(&w, "ja", "a", "1");
	demand(&w, "jb", "b", "2");
	tl_pg(&w, &(struct tl_pg){ .name = "jc", .queue = "c" });
	tl_pod(&w, &(struct tl_pod){ .name = "jc", .pg = "jc", .annotations = "gpu-fraction: '0.5'" });
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(1000, tl_fair_share(&w, "a", GT_QGPU));
	ASSERT_EQ(2000, tl_fair_share(&w, "b", GT_QGPU));
	ASSERT_EQ(500, tl_fair_share(&w, "c", GT_QGPU));
	tl_free(&w);
}

TEST(no_request_no_share)
{
	/* a queue with quota but no pods gets nothing: shares follow demand */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_queue(&w, &(struct tl_queue){ .name = "idle", .quota = "4" });
	tl_queue(&w, &(struct tl_queue){ .name = "busy" });
	demand(&w, "jb", "busy", "10");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(0, tl_fair_share(&w, "idle", GT_QGPU));
	ASSERT_EQ(10000, tl_fair_share(&w, "busy", GT_QGPU));
	tl_free(&w);
}

TEST(running_pods_count_as_request)
{
	/* Request = allocated + pending: a queue's running pods keep their share */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_queue(&w, &(struct tl_queue){ .name = "a" });
	tl_queue(&w, &(struct tl_queue){ .name = "b" });
	tl_pg(&w, &(struct tl_pg){ .name = "ra", .queue = "a" });
	tl_pod(&w, &(struct tl_pod){ .name = "ra-0", .pg = "ra", .gpus = "3", .node = "n1" });
	demand(&w, "pa", "a", "1");
	demand(&w, "pb", "b", "8");
	TL_BUILD(&w);
	tl_open(&w);
	int32_t a = tl_queue_idx(&w, "a");
	ASSERT_EQ(4000, w.s.queues[a].request[GT_QGPU]);
	ASSERT_EQ(3000, w.s.queues[a].allocated[GT_QGPU]);
	/* portions 5 and 5: a needs 4, b gets 5, then b the last one */
	ASSERT_EQ(4000, tl_fair_share(&w, "a", GT_QGPU));
	ASSERT_EQ(6000, tl_fair_share(&w, "b", GT_QGPU));
	tl_free(&w);
}

TEST(other_schedulers_pods_come_off_the_top)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_node(&w, &(struct tl_node){ .name = "down", .gpus = 8, .not_ready = true });
	tl_queue(&w, &(struct tl_queue){ .name = "a" });
	demand(&w, "ja", "a", "20");
	/* a pod of another scheduler holding 2 GPUs on n1 */
	tl_yaml(&w, "---\n{apiVersion: v1, kind: Pod, metadata: {name: foreign}, spec: "
		    "{schedulerName: default-scheduler, nodeName: n1, containers: [{name: c, "
		    "resources: {requests: {nvidia.com/gpu: '2'}}}]}, status: {phase: Running}}\n");
	TL_BUILD(&w);
	tl_open(&w);
	/* not-ready nodes do not count either */
	ASSERT_EQ(8000, w.s.total[GT_QGPU]);
	ASSERT_EQ(8000, tl_fair_share(&w, "a", GT_QGPU));
	tl_free(&w);
}

TEST(hierarchy_children_divide_the_parent_share)
{
	/*
	 * 10 GPUs. Top level: P1{quota 2} with children wanting 12 in all,
	 * P2{quota 2} with one child wanting 4. Deserved 2 + 2, round 1
	 * portions 3 and 3: P2 needs only 2 (another round), P1 takes 3;
	 * round 2 gives P1 the last one: P1 = 6, P2 = 4.
	 * P1's children C1{quota 1, weight 3}, C2{quota 1, weight 1}, each
	 * wanting 6, divide 6: deserved 1 + 1, then 4 by weight 3:1 -> C1 = 4,
	 * C2 = 2. P2's only child gets all of P2's 4.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_queue(&w, &(struct tl_queue){ .name = "p1", .quota = "2" });
	tl_queue(&w, &(struct tl_queue){ .name = "p2", .quota = "2" });
	tl_queue(&w, &(struct tl_queue){ .name = "c1", .parent = "p1", .quota = "1", .weight = "3" });
	tl_queue(&w, &(struct tl_queue){ .name = "c2", .parent = "p1", .quota = "1", .weight = "1" });
	tl_queue(&w, &(struct tl_queue){ .name = "c3", .parent = "p2" });
	demand(&w, "j1", "c1", "6");
	demand(&w, "j2", "c2", "6");
	demand(&w, "j3", "c3", "4");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(12000, w.s.queues[tl_queue_idx(&w, "p1")].request[GT_QGPU]);
	ASSERT_EQ(6000, tl_fair_share(&w, "p1", GT_QGPU));
	ASSERT_EQ(4000, tl_fair_share(&w, "p2", GT_QGPU));
	ASSERT_EQ(4000, tl_fair_share(&w, "c1", GT_QGPU));
	ASSERT_EQ(2000, tl_fair_share(&w, "c2", GT_QGPU));
	ASSERT_EQ(4000, tl_fair_share(&w, "c3", GT_QGPU));
	tl_free(&w);
}

TEST(hierarchy_children_divide_only_the_parent_share)
{
	/*
	 * P{quota 2, limit 2} has fair share 2 although the cluster has 10;
	 * its children C1 and C2 (quota 0) split those 2, not the cluster.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_queue(&w, &(struct tl_queue){ .name = "p", .quota = "2", .limit = "2" });
	tl_queue(&w, &(struct tl_queue){ .name = "c1", .parent = "p" });
	tl_queue(&w, &(struct tl_queue){ .name = "c2", .parent = "p" });
	demand(&w, "j1", "c1", "8");
	demand(&w, "j2", "c2", "8");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(2000, tl_fair_share(&w, "p", GT_QGPU));
	ASSERT_EQ(1000, tl_fair_share(&w, "c1", GT_QGPU));
	ASSERT_EQ(1000, tl_fair_share(&w, "c2", GT_QGPU));
	tl_free(&w);
}

TEST(hierarchy_child_quota_is_not_scaled)
{
	/*
	 * KAI-SPEC 6.3 step 1: quotas are not scaled when they exceed the
	 * amount being divided; a child with quota 5 under a parent whose
	 * share is 2 still gets min(quota, request) = 5 in the deserved phase.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_queue(&w, &(struct tl_queue){ .name = "p", .quota = "2", .limit = "2" });
	tl_queue(&w, &(struct tl_queue){ .name = "c", .parent = "p", .quota = "5" });
	demand(&w, "j", "c", "8");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(2000, tl_fair_share(&w, "p", GT_QGPU));
	ASSERT_EQ(5000, tl_fair_share(&w, "c", GT_QGPU));
	tl_free(&w);
}

TEST(unlimited_quota_takes_what_it_requests)
{
	/* quota -1: deserved is the whole amount being divided (capped by request) */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 10 });
	tl_queue(&w, &(struct tl_queue){ .name = "all", .quota = "-1" });
	tl_queue(&w, &(struct tl_queue){ .name = "other", .quota = "0" });
	demand(&w, "ja", "all", "7");
	demand(&w, "jo", "other", "7");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(7000, tl_fair_share(&w, "all", GT_QGPU));
	ASSERT_EQ(3000, tl_fair_share(&w, "other", GT_QGPU));
	/* with deserved -1 the allocatable share is the limit (-1: unlimited) */
	ASSERT_EQ(-1, gt_queue_allocatable_share(&w.s, tl_queue_idx(&w, "all"), GT_QGPU));
	tl_free(&w);
}

TEST(cpu_divides_independently)
{
	/* the queue tree divides CPU on its own: here by request, quotas unlimited */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 0, .cpu = "10" });
	tl_queue(&w, &(struct tl_queue){ .name = "a" });
	tl_queue(&w, &(struct tl_queue){ .name = "b" });
	tl_pod(&w, &(struct tl_pod){ .name = "pa", .queue = "a", .cpu = "3" });
	tl_pod(&w, &(struct tl_pod){ .name = "pb", .queue = "b", .cpu = "4" });
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(10000, w.s.total[GT_QCPU]);
	ASSERT_EQ(3000, tl_fair_share(&w, "a", GT_QCPU));
	ASSERT_EQ(4000, tl_fair_share(&w, "b", GT_QCPU));
	ASSERT_EQ(0, tl_fair_share(&w, "a", GT_QGPU));
	tl_free(&w);
}

const struct gt_test gt_tests[] = {
	T(worked_example_a_older),
	T(worked_example_b_older),
	T(worked_example_same_age_breaks_ties_by_name),
	T(higher_priority_group_first),
	T(higher_priority_group_keeps_its_quota_order),
	T(weight_zero_gets_no_over_quota),
	T(weight_zero_alone_gets_only_quota),
	T(limit_caps_the_fair_share),
	T(limit_below_quota_caps_the_deserved_phase),
	T(never_more_than_requested),
	T(no_request_no_share),
	T(running_pods_count_as_request),
	T(other_schedulers_pods_come_off_the_top),
	T(hierarchy_children_divide_the_parent_share),
	T(hierarchy_children_divide_only_the_parent_share),
	T(hierarchy_child_quota_is_not_scaled),
	T(unlimited_quota_takes_what_it_requests),
	T(cpu_divides_independently),
	{ 0 }
};
