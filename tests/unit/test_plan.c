/*
 * test_plan.c - core/plan: what a cycle decided, listed once, and the one
 * naming rule for the GPU groups it opened
 */
#include "core/plan.h"
#include "harness.h"
#include "testlib.h"

const char *gt_suite = "plan";

#define ALL_ACTIONS GT_ACTIONS_ALL

static void fractions_on(struct tl_world *w, const char *node)
{
	tl_node(w, &(struct tl_node){ .name = node, .gpus = 2 });
	tl_queue(w, &(struct tl_queue){ .name = "q", .quota = "2" });
	tl_pod(w, &(struct tl_pod){ .name = "a", .queue = "q", .annotations = "gpu-fraction: '0.5'" });
	tl_pod(w, &(struct tl_pod){ .name = "b", .queue = "q", .annotations = "gpu-fraction: '0.75'",
				    .created = "2026-01-01T00:00:01Z" });
}

static const char *name_of(struct tl_world *w, struct gt_plan *p, uint32_t bind)
{
	const struct gt_plan_place *b = &p->binds[bind];
	return gt_strtab_str(&w->names, gt_plan_group_name(p, b->groups[0], b->node));
}

TEST(binds_name_fresh_groups_once_by_the_rule)
{
	struct tl_world w;
	tl_init(&w);
	fractions_on(&w, "n1");
	TL_BUILD(&w);
	tl_cycle_mask(&w, TL_ALLOCATE);
	struct gt_plan p;
	gt_plan_build(&p, &w.s, NULL);
	ASSERT_EQ(2, p.n_binds);
	ASSERT_EQ(0, p.n_pipelines);
	ASSERT_EQ(0, p.n_evictions);
	ASSERT_EQ(2, p.n_fresh);
	/* two new GPUs on n1: the 0th and the 1st opened there */
	ASSERT_TRUE(gt_plan_group_is_fresh(&p, p.binds[0].groups[0]));
	ASSERT_TRUE(gt_plan_group_is_fresh(&p, p.binds[1].groups[0]));
	/* names are made when asked, in the order asked, and then stay */
	ASSERT_STR("n1-gpu0", name_of(&w, &p, 1));
	ASSERT_STR("n1-gpu1", name_of(&w, &p, 0));
	ASSERT_STR("n1-gpu0", name_of(&w, &p, 1));
	ASSERT_TRUE(p.jobs[w.c.pods[p.binds[0].pod].job].scheduled);
	ASSERT_TRUE(p.jobs[w.c.pods[p.binds[0].pod].job].running);
	gt_plan_release(&p);
	tl_free(&w);
}

TEST(a_name_interned_already_is_taken)
{
	struct tl_world w;
	tl_init(&w);
	fractions_on(&w, "n1");
	/* some object names n1-gpu0 (a finished pod's label, say): it is not reused */
	tl_pod(&w, &(struct tl_pod){ .name = "done", .queue = "q", .node = "n1", .phase = "Succeeded",
				     .labels = "runai-gpu-group: n1-gpu0" });
	TL_BUILD(&w);
	tl_cycle_mask(&w, TL_ALLOCATE);
	struct gt_plan p;
	gt_plan_build(&p, &w.s, NULL);
	ASSERT_EQ(2, p.n_binds);
	ASSERT_STR("n1-gpu1", name_of(&w, &p, 0));
	ASSERT_STR("n1-gpu2", name_of(&w, &p, 1));
	gt_plan_release(&p);
	tl_free(&w);
}

static bool even_taken(void *arg, int32_t node, const char *name)
{
	int *calls = arg;
	(*calls)++;
	(void)node;
	size_t n = strlen(name);
	return (name[n - 1] - '0') % 2 == 0;
}

TEST(the_front_end_says_what_is_taken)
{
	struct tl_world w;
	tl_init(&w);
	fractions_on(&w, "n1");
	TL_BUILD(&w);
	tl_cycle_mask(&w, TL_ALLOCATE);
	int calls = 0;
	struct gt_plan p;
	gt_plan_build(&p, &w.s, &(struct gt_plan_opts){ .taken = even_taken, .arg = &calls });
	ASSERT_STR("n1-gpu1", name_of(&w, &p, 0));
	ASSERT_EQ(2, calls);
	ASSERT_STR("n1-gpu1", name_of(&w, &p, 0));	/* remembered: not asked again */
	ASSERT_EQ(2, calls);
	gt_plan_release(&p);
	tl_free(&w);
}

TEST(a_node_name_too_long_for_a_label_gets_a_hashed_name)
{
	struct tl_world w;
	tl_init(&w);
	fractions_on(&w, "a-node-whose-name-is-far-too-long-to-be-part-of-a-label-value-x");
	TL_BUILD(&w);
	tl_cycle_mask(&w, TL_ALLOCATE);
	struct gt_plan p;
	gt_plan_build(&p, &w.s, NULL);
	const char *n0 = name_of(&w, &p, 0);
	ASSERT_TRUE(!strncmp(n0, "gpu-", 4));
	ASSERT_TRUE(strlen(n0) <= 63);
	ASSERT_STR("-0", n0 + strlen(n0) - 2);
	gt_plan_release(&p);
	tl_free(&w);
}

TEST(reclaim_evicts_with_kai_message_and_pipelines)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "low", .quota = "0" });
	tl_queue(&w, &(struct tl_queue){ .name = "high", .quota = "1" });
	tl_pod(&w, &(struct tl_pod){ .name = "victim", .queue = "low", .gpus = "1", .node = "n1" });
	tl_pod(&w, &(struct tl_pod){ .name = "taker", .queue = "high", .gpus = "1",
				     .created = "2026-01-01T00:00:05Z" });
	TL_BUILD(&w);
	tl_cycle_mask(&w, ALL_ACTIONS);
	struct gt_plan p;
	gt_plan_build(&p, &w.s, NULL);
	ASSERT_EQ(0, p.n_binds);
	ASSERT_EQ(1, p.n_evictions);
	ASSERT_EQ(1, p.n_pipelines);
	const struct gt_plan_evict *ev = gt_plan_eviction_of(&p, tl_pod_idx(&w, "victim"));
	ASSERT_TRUE(ev != NULL);
	ASSERT_EQ(GT_ACT_RECLAIM, ev->action);
	ASSERT_EQ(tl_node_idx(&w, "n1"), ev->node);
	ASSERT_CONTAINS(ev->message, "Pod default/victim was preempted by workload default/");
	ASSERT_EQ(w.c.pods[tl_pod_idx(&w, "taker")].job, ev->evictor_job);
	ASSERT_EQ(tl_pod_idx(&w, "taker"), p.pipelines[0].pod);
	ASSERT_TRUE(gt_plan_eviction_of(&p, tl_pod_idx(&w, "taker")) == NULL);
	/* the taker waits for the room: running (pipelined counts), not scheduled by binding */
	const struct gt_plan_job *tj = &p.jobs[w.c.pods[tl_pod_idx(&w, "taker")].job];
	ASSERT_TRUE(tj->running);
	gt_plan_release(&p);
	tl_free(&w);
}

/* Consolidation: a victim moved to another node is evicted where it ran and pipelined where it goes. */
TEST(a_moved_victim_is_evicted_and_pipelined)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 2 });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 2 });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .quota = "4" });
	tl_pod(&w, &(struct tl_pod){ .name = "r1", .queue = "q", .gpus = "1", .node = "n1" });
	tl_pod(&w, &(struct tl_pod){ .name = "r2", .queue = "q", .gpus = "1", .node = "n2" });
	tl_pod(&w, &(struct tl_pod){ .name = "big", .queue = "q", .gpus = "2",
				     .created = "2026-01-01T00:00:05Z" });
	TL_BUILD(&w);
	tl_cycle_mask(&w, ALL_ACTIONS);
	struct gt_plan p;
	gt_plan_build(&p, &w.s, NULL);
	ASSERT_EQ(1, p.n_evictions);
	ASSERT_EQ(2, p.n_pipelines);
	int32_t r2 = tl_pod_idx(&w, "r2");
	const struct gt_plan_evict *ev = gt_plan_eviction_of(&p, r2);
	ASSERT_TRUE(ev != NULL);
	ASSERT_EQ(GT_ACT_CONSOLIDATION, ev->action);
	ASSERT_EQ(tl_node_idx(&w, "n2"), ev->node);
	ASSERT_EQ(r2, p.pipelines[0].pod);
	ASSERT_EQ(tl_node_idx(&w, "n1"), p.pipelines[0].node);
	gt_plan_release(&p);
	tl_free(&w);
}

TEST(jobs_carry_messages_and_times)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .quota = "1" });
	tl_pod(&w, &(struct tl_pod){ .name = "fits", .queue = "q", .gpus = "1" });
	tl_pod(&w, &(struct tl_pod){ .name = "waits", .queue = "q", .gpus = "1",
				     .created = "2026-01-01T00:00:05Z" });
	TL_BUILD(&w);
	tl_cycle_mask(&w, TL_ALLOCATE);
	struct gt_plan p;
	gt_plan_build(&p, &w.s, NULL);
	const struct gt_plan_job *fits = &p.jobs[w.c.pods[tl_pod_idx(&w, "fits")].job];
	const struct gt_plan_job *waits = &p.jobs[w.c.pods[tl_pod_idx(&w, "waits")].job];
	ASSERT_EQ(TL_NOW, fits->last_start);
	ASSERT_TRUE(fits->scheduled && fits->running && !fits->pending_ready);
	ASSERT_EQ(0, waits->last_start);
	ASSERT_TRUE(!waits->scheduled && !waits->running && waits->pending_ready);
	ASSERT_TRUE(waits->message != NULL);
	/* the plan outlives the session: it holds copies */
	gt_session_release(&w.s);
	w.have_session = false;
	ASSERT_TRUE(strlen(waits->message) > 0);
	gt_plan_release(&p);
	tl_free(&w);
}

/* The reason for each message comes from where the message is made, with its facts. */
TEST(jobs_carry_reason_codes_with_their_facts)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 2, .not_ready = true });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .quota = "4" });
	tl_queue(&w, &(struct tl_queue){ .name = "capped", .quota = "1", .limit = "1" });
	tl_queue(&w, &(struct tl_queue){ .name = "parent" });
	tl_queue(&w, &(struct tl_queue){ .name = "child", .parent = "parent" });
	/* a gang of three 2-GPU pods on one 4-GPU node: two fit, the third does not */
	tl_pg(&w, &(struct tl_pg){ .name = "gang", .queue = "q", .min = 3 });
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "gang-%d", i);
		tl_pod(&w, &(struct tl_pod){ .name = name, .pg = "gang", .gpus = "2" });
	}
	tl_pod(&w, &(struct tl_pod){ .name = "huge", .queue = "q", .gpus = "8",
				     .created = "2026-01-01T00:00:01Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "over", .queue = "capped", .gpus = "2" });
	tl_pod(&w, &(struct tl_pod){ .name = "lost", .queue = "nosuch", .gpus = "1" });
	tl_pod(&w, &(struct tl_pod){ .name = "inner", .queue = "parent", .gpus = "1" });
	tl_pg(&w, &(struct tl_pg){ .name = "short", .queue = "q", .min = 2 });
	tl_pod(&w, &(struct tl_pod){ .name = "short-0", .pg = "short", .gpus = "1" });
	TL_BUILD(&w);
	tl_cycle_mask(&w, TL_ALLOCATE);
	struct gt_plan p;
	gt_plan_build(&p, &w.s, NULL);
	const struct gt_job_why *why = p.jobs[tl_job_idx(&w, "gang")].why;
	ASSERT_TRUE(why != NULL);
	ASSERT_STR("GangShort", gt_reason_code(why->reason));
	ASSERT_STR("PodSchedulingErrors", gt_reason_kai(why->reason));
	ASSERT_EQ(2, why->found);
	ASSERT_EQ(3, why->required);
	ASSERT_EQ(1, why->rejects[GT_REJECT_GPU]);	/* n1: 0 GPUs left for the third */
	ASSERT_EQ(1, why->rejects[GT_REJECT_NOT_READY]);	/* n2 */
	ASSERT_EQ(w.c.pods[why->pod].podset, why->podset);
	why = p.jobs[tl_job_idx(&w, "huge")].why;
	ASSERT_STR("NoNodeFits", gt_reason_code(why->reason));
	ASSERT_EQ(tl_pod_idx(&w, "huge"), why->pod);
	why = p.jobs[tl_job_idx(&w, "over")].why;
	ASSERT_STR("OverLimit", gt_reason_code(why->reason));
	ASSERT_STR("OverLimit", gt_reason_kai(why->reason));
	ASSERT_EQ(tl_queue_idx(&w, "capped"), why->queue);
	ASSERT_EQ(GT_QGPU, why->qres);
	ASSERT_EQ(2000, why->requested);
	ASSERT_EQ(1000, why->bound);
	ASSERT_EQ(0, why->allocated);
	why = p.jobs[tl_job_idx(&w, "lost")].why;
	ASSERT_STR("QueueDoesNotExist", gt_reason_code(why->reason));
	ASSERT_STR("QueueDoesNotExist", gt_reason_kai(why->reason));
	why = p.jobs[tl_job_idx(&w, "inner")].why;
	ASSERT_STR("QueueNotLeaf", gt_reason_code(why->reason));
	ASSERT_STR("PodSchedulingErrors", gt_reason_kai(why->reason));
	why = p.jobs[tl_job_idx(&w, "short")].why;
	ASSERT_STR("NotEnoughPods", gt_reason_code(why->reason));
	ASSERT_EQ(1, why->found);
	ASSERT_EQ(2, why->required);
	/* a job that started has neither message nor reason */
	int32_t started = -1;
	for (uint32_t j = 0; j < w.c.n_jobs; j++)
		if (p.jobs[j].running)
			started = (int32_t)j;
	ASSERT_TRUE(started < 0 || (!p.jobs[started].why && !p.jobs[started].message));
	gt_plan_release(&p);
	tl_free(&w);
}

const struct gt_test gt_tests[] = {
	T(binds_name_fresh_groups_once_by_the_rule),
	T(a_name_interned_already_is_taken),
	T(the_front_end_says_what_is_taken),
	T(a_node_name_too_long_for_a_label_gets_a_hashed_name),
	T(reclaim_evicts_with_kai_message_and_pipelines),
	T(a_moved_victim_is_evicted_and_pipelined),
	T(jobs_carry_messages_and_times),
	T(jobs_carry_reason_codes_with_their_facts),
	{ 0 }
};
