/*
 * test_session.c - the session's books and its statement (undo log)
 *
 * Every change of a pod's state goes through one function that takes the
 * pod's old contribution out of its node, shared GPU and queues and puts the
 * new one in; rollback is the same call with the old state. These tests
 * check that a rollback leaves the books exactly as they were, that
 * gt_session_check() (the recount the property tests run after every
 * action) notices a wrong book, and the statement's special cases.
 */
#include <string.h>

#include "core/order.h"
#include "core/plan.h"
#include "testlib.h"
#include "util/arena.h"
#include "util/mem.h"

const char *gt_suite = "session";

/* A small cluster with whole GPUs, a shared GPU, pending and running pods in two queues. */
static int world(struct tl_world *w)
{
	tl_init(w);
	tl_node(w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_node(w, &(struct tl_node){ .name = "n2", .gpus = 4 });
	tl_queue(w, &(struct tl_queue){ .name = "a", .quota = "4" });
	tl_queue(w, &(struct tl_queue){ .name = "b", .quota = "4" });
	tl_pod(w, &(struct tl_pod){ .name = "whole", .queue = "a", .gpus = "2", .node = "n1" });
	tl_pod(w, &(struct tl_pod){ .name = "half", .queue = "a", .node = "n2",
				    .annotations = "gpu-fraction: '0.5'", .labels = "runai-gpu-group: g1" });
	tl_pod(w, &(struct tl_pod){ .name = "quarter", .queue = "b", .node = "n2",
				    .annotations = "gpu-fraction: '0.25'", .labels = "runai-gpu-group: g1" });
	tl_pod(w, &(struct tl_pod){ .name = "wait1", .queue = "b", .gpus = "1" });
	tl_pod(w, &(struct tl_pod){ .name = "wait2", .queue = "b", .gpus = "2" });
	return tl_build(w);
}

/* A deep copy of the books a rollback must restore. */
struct books {
	struct gt_node_state *nodes;
	struct gt_gpu_group **groups;
	struct gt_queue_state *queues;
	struct gt_pod_state *pods;
	uint32_t *job_active, *job_pending;
	uint64_t epoch;
	uint32_t binds, evictions, pipelines;
};

static void books_take(const struct gt_session *s, struct books *b)
{
	const struct gt_cluster *c = s->c;
	b->nodes = gt_xmalloc(c->n_nodes * sizeof(*b->nodes));
	b->groups = gt_xcalloc(c->n_nodes, sizeof(*b->groups));
	memcpy(b->nodes, s->nodes, c->n_nodes * sizeof(*b->nodes));
	for (uint32_t n = 0; n < c->n_nodes; n++) {
		b->groups[n] = gt_xmalloc((s->nodes[n].n_groups + 1) * sizeof(**b->groups));
		if (s->nodes[n].n_groups)
			memcpy(b->groups[n], s->nodes[n].groups, s->nodes[n].n_groups * sizeof(**b->groups));
	}
	b->queues = gt_xmalloc(c->n_queues * sizeof(*b->queues));
	memcpy(b->queues, s->queues, c->n_queues * sizeof(*b->queues));
	b->pods = gt_xmalloc(c->n_pods * sizeof(*b->pods));
	memcpy(b->pods, s->pods, c->n_pods * sizeof(*b->pods));
	b->job_active = gt_xmalloc(c->n_jobs * sizeof(*b->job_active));
	memcpy(b->job_active, s->job_active, c->n_jobs * sizeof(*b->job_active));
	b->job_pending = gt_xmalloc(c->n_jobs * sizeof(*b->job_pending));
	memcpy(b->job_pending, s->job_pending, c->n_jobs * sizeof(*b->job_pending));
	b->epoch = s->epoch;
	b->binds = s->n_binds;
	b->evictions = s->n_evictions;
	b->pipelines = s->n_pipelines;
}

static void books_free(const struct gt_session *s, struct books *b)
{
	for (uint32_t n = 0; n < s->c->n_nodes; n++)
		free(b->groups[n]);
	free(b->groups);
	free(b->nodes);
	free(b->queues);
	free(b->pods);
	free(b->job_active);
	free(b->job_pending);
}

/* Field by field: a group's padding holds whatever its memory held before (valgrind). */
static bool group_equal(const struct gt_gpu_group *a, const struct gt_gpu_group *b)
{
	return a->id == b->id && a->used_milli == b->used_milli && a->releasing_milli == b->releasing_milli &&
	       a->pipelined_milli == b->pipelined_milli && a->n_pods == b->n_pods;
}

/* Are the session's books what @b took? Shared GPUs compare as sets; pointers aside. */
static bool books_equal(const struct gt_session *s, const struct books *b)
{
	const struct gt_cluster *c = s->c;
	for (uint32_t n = 0; n < c->n_nodes; n++) {
		struct gt_node_state x = s->nodes[n], y = b->nodes[n];
		if (x.n_groups != y.n_groups)
			return false;
		for (uint32_t i = 0; i < x.n_groups; i++) {
			bool found = false;
			for (uint32_t k = 0; k < y.n_groups && !found; k++)
				found = group_equal(&x.groups[i], &b->groups[n][k]);
			if (!found)
				return false;
		}
		x.groups = y.groups = NULL;
		x.cap_groups = y.cap_groups = 0;
		if (memcmp(&x, &y, sizeof(x)))
			return false;
	}
	return !memcmp(s->queues, b->queues, c->n_queues * sizeof(*b->queues)) &&
	       !memcmp(s->pods, b->pods, c->n_pods * sizeof(*b->pods)) &&
	       !memcmp(s->job_active, b->job_active, c->n_jobs * sizeof(*b->job_active)) &&
	       !memcmp(s->job_pending, b->job_pending, c->n_jobs * sizeof(*b->job_pending)) &&
	       s->epoch == b->epoch && s->n_binds == b->binds && s->n_evictions == b->evictions &&
	       s->n_pipelines == b->pipelines;
}

TEST(rollback_restores_the_books_exactly)
{
	struct tl_world w;
	TL_BUILD_WITH(&w, world(&w));
	tl_open(&w);
	struct gt_session *s = &w.s;
	ASSERT_TRUE(gt_session_check(s));
	struct books before;
	books_take(s, &before);
	size_t cp = gt_stmt_checkpoint(s);
	int32_t n1 = tl_node_idx(&w, "n1"), n2 = tl_node_idx(&w, "n2");
	gt_stmt_evict(s, tl_pod_idx(&w, "whole"), GT_NONE);
	ASSERT_TRUE(gt_session_check(s));
	gt_stmt_pipeline(s, tl_pod_idx(&w, "wait2"), n1, NULL, 0);	/* onto what is being freed */
	ASSERT_TRUE(gt_session_check(s));
	gt_stmt_allocate(s, tl_pod_idx(&w, "wait1"), n1, NULL, 0);
	ASSERT_TRUE(gt_session_check(s));
	gt_stmt_evict(s, tl_pod_idx(&w, "half"), GT_NONE);	/* a shared GPU's holder */
	ASSERT_TRUE(gt_session_check(s));
	uint32_t g = gt_session_new_group(s);
	gt_stmt_pipeline(s, tl_pod_idx(&w, "half"), n2, &g, 1);	/* moved to another device */
	ASSERT_TRUE(gt_session_check(s));
	ASSERT_TRUE(!books_equal(s, &before));
	gt_stmt_rollback(s, cp);
	ASSERT_TRUE(gt_session_check(s));
	ASSERT_TRUE(books_equal(s, &before));
	books_free(s, &before);
	tl_free(&w);
}

TEST(check_notices_a_wrong_book)
{
	struct tl_world w;
	TL_BUILD_WITH(&w, world(&w));
	tl_open(&w);
	ASSERT_TRUE(gt_session_check(&w.s));
	w.s.queues[tl_queue_idx(&w, "a")].allocated[GT_QGPU] += 1;
	ASSERT_TRUE(!gt_session_check(&w.s));
	w.s.queues[tl_queue_idx(&w, "a")].allocated[GT_QGPU] -= 1;
	w.s.nodes[tl_node_idx(&w, "n2")].groups[0].used_milli -= 250;
	ASSERT_TRUE(!gt_session_check(&w.s));
	w.s.nodes[tl_node_idx(&w, "n2")].groups[0].used_milli += 250;
	w.s.job_active[tl_job_idx(&w, "whole")]++;
	ASSERT_TRUE(!gt_session_check(&w.s));
	w.s.job_active[tl_job_idx(&w, "whole")]--;
	ASSERT_TRUE(gt_session_check(&w.s));
	tl_free(&w);
}

/* In a simulation, a victim placed back where it was is un-evicted: no eviction is left. */
TEST(victim_placed_back_is_unevicted)
{
	struct tl_world w;
	TL_BUILD_WITH(&w, world(&w));
	tl_open(&w);
	struct gt_session *s = &w.s;
	int32_t pod = tl_pod_idx(&w, "whole");
	gt_stmt_evict(s, pod, GT_NONE);
	ASSERT_EQ(GT_RELEASING, s->pods[pod].status);
	ASSERT_EQ(1, s->n_evictions);
	s->simulating = true;
	ASSERT_TRUE(gt_task_wants_placement(s, pod));
	gt_stmt_pipeline(s, pod, tl_node_idx(&w, "n1"), NULL, 0);
	s->simulating = false;
	ASSERT_EQ(GT_RUNNING, s->pods[pod].status);
	ASSERT_EQ(0, s->n_evictions);
	ASSERT_EQ(0, s->n_pipelines);
	ASSERT_TRUE(gt_session_check(s));
	tl_free(&w);
}

/*
 * A victim moved to another node, evicted again there and put back there,
 * is still a moved victim: evicted from its first node, by the first
 * action (the plan found no eviction for such a pod in KAI's
 * ConsolidationAction_Small shape).
 */
TEST(moved_victim_put_back_stays_evicted)
{
	struct tl_world w;
	TL_BUILD_WITH(&w, world(&w));
	tl_open(&w);
	struct gt_session *s = &w.s;
	int32_t pod = tl_pod_idx(&w, "whole"), n1 = tl_node_idx(&w, "n1"), n2 = tl_node_idx(&w, "n2");
	s->action = GT_ACT_CONSOLIDATION;
	gt_stmt_evict(s, pod, GT_NONE);
	s->simulating = true;
	gt_stmt_pipeline(s, pod, n2, NULL, 0);	/* moved: n1 -> n2 */
	ASSERT_EQ(GT_PIPELINED, s->pods[pod].status);
	ASSERT_EQ(n1, s->pods[pod].rel_node);
	s->action = GT_ACT_RECLAIM;
	gt_stmt_evict(s, pod, GT_NONE);	/* a later search evicts it from n2 ... */
	gt_stmt_pipeline(s, pod, n2, NULL, 0);	/* ... and puts it back on n2 */
	s->simulating = false;
	s->action = GT_ACT_NONE;
	const struct gt_pod_state *st = &s->pods[pod];
	ASSERT_EQ(GT_PIPELINED, st->status);
	ASSERT_EQ(n2, st->node);
	ASSERT_EQ(GT_ACT_CONSOLIDATION, st->evicted_by);
	ASSERT_TRUE(st->virtual_evict);	/* not committed: a simulation may still move it */
	ASSERT_EQ(1, s->n_evictions);
	ASSERT_TRUE(gt_session_check(s));
	struct gt_plan p;
	gt_plan_build(&p, s, NULL);
	ASSERT_EQ(1, p.n_evictions);
	ASSERT_EQ(n1, p.evictions[0].node);
	ASSERT_EQ(1, p.n_pipelines);
	gt_plan_release(&p);
	tl_free(&w);
}

/* A committed eviction is final: no later simulation may place the pod again. */
TEST(commit_makes_evictions_final)
{
	struct tl_world w;
	TL_BUILD_WITH(&w, world(&w));
	tl_open(&w);
	struct gt_session *s = &w.s;
	int32_t pod = tl_pod_idx(&w, "whole");
	size_t cp = gt_stmt_checkpoint(s);
	gt_stmt_evict(s, pod, GT_NONE);
	gt_stmt_commit(s, cp);
	ASSERT_EQ(cp, gt_stmt_checkpoint(s));
	s->simulating = true;
	ASSERT_TRUE(!gt_task_wants_placement(s, pod));
	s->simulating = false;
	ASSERT_EQ(GT_RELEASING, s->pods[pod].status);
	ASSERT_EQ(1, s->n_evictions);
	tl_free(&w);
}

/* The arena hands back what a search took, and reuses it. */
TEST(arena_pops_to_a_mark)
{
	struct gt_arena a;
	gt_arena_init(&a);
	char *first = gt_arena_alloc(&a, 100);
	memset(first, 1, 100);
	struct gt_arena_mark m = gt_arena_mark(&a);
	char *big = gt_arena_alloc(&a, 1 << 20);	/* a block of its own */
	big[(1 << 20) - 1] = 2;
	char *small = gt_arena_alloc(&a, 10);
	ASSERT_TRUE(((uintptr_t)small & 15) == 0);
	gt_arena_pop(&a, m);
	char *again = gt_arena_alloc(&a, 10);
	ASSERT_TRUE(again == first + 112 || again == small);	/* from the reused memory */
	ASSERT_EQ(1, first[99]);	/* what came before the mark stays */
	ASSERT_TRUE(a.peak >= (1 << 20));
	gt_arena_release(&a);
}

/*
 * Blocks double as an arena grows, so 64 MiB in 1 KiB pieces takes a few
 * dozen blocks; those of 2 MiB and more start on a 2 MiB boundary (for huge
 * pages); every piece stays intact, and a reset reuses them all.
 */
TEST(arena_blocks_grow_and_large_ones_align)
{
	struct gt_arena a;
	gt_arena_init(&a);
	enum { PIECE = 1024, PIECES = 64 * 1024 };
	unsigned char **at = gt_xcalloc(PIECES, sizeof(*at));
	size_t blocks = 0;
	for (size_t i = 0; i < PIECES; i++) {
		struct gt_arena_block *before = a.cur;
		at[i] = gt_arena_alloc(&a, PIECE);
		memset(at[i], (int)(i & 0xff), PIECE);
		blocks += a.cur != before;
	}
	ASSERT_TRUE(blocks <= 24);	/* 64 KiB doubling to 8 MiB, then 8 MiB blocks: 14 */
	ASSERT_TRUE(a.next_block == (size_t)8 << 20);
	for (size_t i = 0; i < PIECES; i += 997)
		ASSERT_EQ((int)(i & 0xff), at[i][PIECE - 1]);
	/* the last piece lies in an 8 MiB block, which starts on a 2 MiB boundary */
	uintptr_t block = (uintptr_t)a.cur;
	ASSERT_EQ(0, (int)(block & (((uintptr_t)2 << 20) - 1)));
	struct gt_arena_block *final = a.cur;
	gt_arena_reset(&a);
	ASSERT_TRUE(gt_arena_alloc(&a, PIECE) == at[0]);	/* the first block again */
	for (size_t i = 1; i < PIECES; i++)
		ASSERT_TRUE(gt_arena_alloc(&a, PIECE) == at[i]);	/* the same blocks, in order */
	ASSERT_TRUE(a.cur == final);
	free(at);
	gt_arena_release(&a);
}

const struct gt_test gt_tests[] = {
	T(rollback_restores_the_books_exactly),
	T(check_notices_a_wrong_book),
	T(victim_placed_back_is_unevicted),
	T(moved_victim_put_back_stays_evicted),
	T(commit_makes_evictions_final),
	T(arena_pops_to_a_mark),
	T(arena_blocks_grow_and_large_ones_align),
	{ 0 }
};
