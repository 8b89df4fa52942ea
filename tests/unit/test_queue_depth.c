/*
 * test_queue_depth.c - queueDepthPerAction (KAI's SchedulingShard / scheduler
 * config): an action considers at most that many jobs of each leaf queue, its
 * best ones in job order
 */
#include "core/order.h"
#include "testlib.h"

const char *gt_suite = "queue_depth";

/* Node n1 with 8 GPUs; queues a and b; @shard_spec: the SchedulingShard's spec body. */
static void world(struct tl_world *w, const char *shard_spec)
{
	tl_init(w);
	if (shard_spec)
		tl_yaml(w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default}, "
			   "spec: {%s}}\n", shard_spec);
	tl_node(w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_queue(w, &(struct tl_queue){ .name = "a", .quota = "4" });
	tl_queue(w, &(struct tl_queue){ .name = "b", .quota = "4" });
	/* four one-GPU jobs in a, oldest first by name order reversed: j3 is the oldest */
	static const char *const made[] = { "2026-01-01T00:04:00Z", "2026-01-01T00:03:00Z", "2026-01-01T00:02:00Z",
					    "2026-01-01T00:01:00Z" };
	for (int i = 0; i < 4; i++) {
		char name[8];
		snprintf(name, sizeof(name), "j%d", i);
		tl_pg(w, &(struct tl_pg){ .name = name, .queue = "a", .created = made[i] });
		tl_pod(w, &(struct tl_pod){ .name = name, .pg = name, .queue = "a", .gpus = "1", .created = made[i] });
	}
	tl_pg(w, &(struct tl_pg){ .name = "k0", .queue = "b" });
	tl_pod(w, &(struct tl_pod){ .name = "k0", .pg = "k0", .queue = "b", .gpus = "1" });
}

static int bound(const struct tl_world *w)
{
	int n = 0;
	for (uint32_t i = 0; i < w->c.n_pods; i++)
		n += w->s.pods[i].status == GT_BINDING;
	return n;
}

TEST(allocate_takes_the_best_jobs_of_each_queue)
{
	struct tl_world w;
	world(&w, "queueDepthPerAction: {allocate: 2}");
	TL_BUILD(&w);
	ASSERT_EQ(2, w.c.config.queue_depth_per_action[GT_ACT_ALLOCATE]);
	ASSERT_EQ(-1, w.c.config.queue_depth_per_action[GT_ACT_RECLAIM]);
	tl_cycle(&w);
	/* the two oldest of queue a, and queue b's own job: each queue has its depth */
	ASSERT_EQ(GT_BINDING, tl_status(&w, "j3"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "j2"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "j1"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "j0"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "k0"));
	tl_free(&w);
}

TEST(no_depth_every_job_zero_depth_none)
{
	struct tl_world w;
	world(&w, NULL);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(5, bound(&w));
	tl_free(&w);
	world(&w, "queueDepthPerAction: {allocate: 0}");
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(0, bound(&w));
	tl_free(&w);
	world(&w, "queueDepthPerAction: {allocate: -1, reclaim: 3}");
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(5, bound(&w));
	tl_free(&w);
}

TEST(the_jobq_keeps_the_best_whatever_the_push_order)
{
	struct tl_world w;
	world(&w, NULL);
	TL_BUILD(&w);
	tl_open(&w);
	static const char *const orders[][4] = { { "j0", "j1", "j2", "j3" }, { "j3", "j2", "j1", "j0" },
						 { "j1", "j3", "j0", "j2" } };
	for (size_t o = 0; o < 3; o++) {
		struct gt_jobq jq;
		gt_jobq_init(&jq, &w.s);
		gt_jobq_limit_depth(&jq, 2);
		for (int i = 0; i < 4; i++)
			gt_jobq_push(&jq, tl_job_idx(&w, orders[o][i]));
		ASSERT_EQ(tl_job_idx(&w, "j3"), gt_jobq_pop(&jq));
		ASSERT_EQ(tl_job_idx(&w, "j2"), gt_jobq_pop(&jq));
		ASSERT_EQ(GT_NONE, gt_jobq_pop(&jq));
		gt_jobq_release(&jq);
	}
	tl_free(&w);
}

TEST(bad_depths_are_named)
{
	struct tl_world w;
	world(&w, "queueDepthPerAction: {allocate: many}");
	ASSERT_EQ(GT_EINVAL, tl_build(&w));
	ASSERT_TRUE(strstr(w.err.msg, "spec.queueDepthPerAction.allocate") && strstr(w.err.msg, "'many'"));
	tl_free(&w);
	world(&w, "queueDepthPerAction: {defrag: 3}");
	ASSERT_EQ(GT_EINVAL, tl_build(&w));
	ASSERT_TRUE(strstr(w.err.msg, "is not one of KAI's actions") && strstr(w.err.msg, "'defrag'"));
	tl_free(&w);
	world(&w, "queueDepthPerAction: {allocate: -2}");
	ASSERT_EQ(GT_EINVAL, tl_build(&w));
	tl_free(&w);
	world(&w, "actions: {preempt: {enabled: false}}, queueDepthPerAction: {preempt: 3, stalegangeviction: 1}");
	TL_BUILD(&w);
	int said = 0;
	for (size_t i = 0; i < w.dec.n_warnings; i++)
		said += strstr(w.dec.warnings[i], "queueDepthPerAction") != NULL;
	ASSERT_EQ(2, said);
	tl_free(&w);
}

/* Preempt goes through the same capped queue: with depth 1 one high job evicts, not both. */
static int preempted(const char *shard_spec)
{
	struct tl_world w;
	tl_init(&w);
	if (shard_spec)
		tl_yaml(&w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default}, "
			    "spec: {%s}}\n", shard_spec);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 2 });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .quota = "2" });
	for (int i = 0; i < 2; i++) {
		char name[16];
		snprintf(name, sizeof(name), "low-%d", i);
		tl_pg(&w, &(struct tl_pg){ .name = name, .queue = "q", .prio = "train" });
		tl_pod(&w, &(struct tl_pod){ .name = name, .queue = "q", .pg = name, .node = "n1", .gpus = "1" });
		snprintf(name, sizeof(name), "high-%d", i);
		tl_pg(&w, &(struct tl_pg){ .name = name, .queue = "q", .prio = "build" });
		tl_pod(&w, &(struct tl_pod){ .name = name, .queue = "q", .pg = name, .gpus = "1" });
	}
	if (tl_build(&w)) {
		tl_free(&w);
		return -1;
	}
	tl_cycle_mask(&w, GT_ACTIONS_ALL);
	int n = 0;
	for (uint32_t i = 0; i < w.c.n_pods; i++)
		n += w.s.pods[i].evicted_by != 0;
	tl_free(&w);
	return n;
}

TEST(preempt_is_capped_too)
{
	ASSERT_EQ(2, preempted(NULL));
	ASSERT_EQ(1, preempted("queueDepthPerAction: {preempt: 1}"));
	ASSERT_EQ(2, preempted("queueDepthPerAction: {allocate: 1}"));
}

const struct gt_test gt_tests[] = {
	T(preempt_is_capped_too),
	T(allocate_takes_the_best_jobs_of_each_queue),
	T(no_depth_every_job_zero_depth_none),
	T(the_jobq_keeps_the_best_whatever_the_push_order),
	T(bad_depths_are_named),
	{ NULL, NULL },
};
