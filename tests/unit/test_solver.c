/*
 * test_solver.c - the victim search: KAI's benchmark shapes, budgets, the
 * fingerprint cache, the GPU bound and the pre-filter
 *
 * The clusters are KAI's own benchmark topologies at their small sizes,
 * written by the shared builders (tests/shapes) and decoded as simulate
 * decodes them.
 */
#include <string.h>

#include "core/actions.h"
#include "core/fairshare.h"
#include "shapes/kai_benchmarks.h"
#include "testlib.h"

const char *gt_suite = "solver";

static const struct kb_shape *shape(const char *name, const char *size)
{
	size_t n;
	const struct kb_shape *all = kb_shapes(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(all[i].name, name) && !strcmp(all[i].size, size))
			return &all[i];
	return NULL;
}

/* Decode @sh into @w (claims listed, as gantry simulate reads a cluster). */
static int load(struct tl_world *w, const struct kb_shape *sh)
{
	struct kf_manifest m;
	kb_build(sh, &m);
	tl_init(w);
	w->dec.claims_listed = true;
	tl_yaml(w, "%s", m.text);
	kf_release(&m);
	return tl_build(w);
}

/* Run the shape's actions, as KAI's benchmark runs them, on one session. */
static void run(struct tl_world *w, const struct kb_shape *sh)
{
	if (w->have_session)
		gt_session_release(&w->s);
	gt_cycle_run(&w->s, &w->c, KF_NOW, sh->actions);
	w->have_session = true;
}

#define LOAD(w, sh)                                                                          \
	do {                                                                                 \
		ASSERT_TRUE((sh) != NULL);                                                   \
		TL_BUILD_WITH(w, load(w, sh));                                               \
	} while (0)

/* Every KAI benchmark shape up to 50 nodes ends as KAI's ends (kai_benchmarks.c's verdicts). */
TEST(kai_benchmark_shapes_end_as_kai_does)
{
	size_t n;
	const struct kb_shape *all = kb_shapes(&n);
	int checked = 0;
	for (size_t i = 0; i < n; i++) {
		if (all[i].nodes > 50 || all[i].param >= 7000)
			continue;
		struct tl_world w;
		LOAD(&w, &all[i]);
		run(&w, &all[i]);
		char why[200];
		bool ok = kb_verdict(&all[i], &w.s, why, sizeof(why));
		if (!ok)
			fprintf(stderr, "%s/%s: %s\n", all[i].name, all[i].size, why);
		tl_free(&w);
		ASSERT_TRUE(ok);
		checked++;
	}
	ASSERT_TRUE(checked >= 18);
}

/* Two 1-GPU-short queues' worth of running pods, and pending jobs of queue b that reclaim. */
static int signatures_world(struct tl_world *w, bool signatures)
{
	tl_init(w);
	if (!signatures)
		tl_yaml(w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default}, "
			   "spec: {args: {use-scheduling-signatures: 'false'}}}\n");
	tl_node(w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_node(w, &(struct tl_node){ .name = "n2", .gpus = 4 });
	tl_queue(w, &(struct tl_queue){ .name = "a", .quota = "0" });
	tl_queue(w, &(struct tl_queue){ .name = "b", .quota = "8" });
	static const char *const running[] = { "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7" };
	for (int i = 0; i < 8; i++)
		tl_pod(w, &(struct tl_pod){ .name = running[i], .queue = "a", .gpus = "1",
					    .node = i < 4 ? "n1" : "n2" });
	/* no node has 8 GPUs: big1 fails, and big2, the same constraints and size, would too */
	tl_pod(w, &(struct tl_pod){ .name = "big1", .queue = "b", .gpus = "8",
				    .created = "2026-01-01T00:00:01Z" });
	tl_pod(w, &(struct tl_pod){ .name = "big2", .queue = "b", .gpus = "8",
				    .created = "2026-01-01T00:00:02Z" });
	/* easier than big1 (a smaller request): tried, and it fits by reclaiming two pods */
	tl_pod(w, &(struct tl_pod){ .name = "small", .queue = "b", .gpus = "2",
				    .created = "2026-01-01T00:00:03Z" });
	return tl_build(w);
}

/*
 * KAI's scheduling signatures (MinimalJobRepresentatives): a job with the
 * signature of one that failed and no easier than it is not searched; an
 * easier one is. Off with args.use-scheduling-signatures: 'false'.
 */
TEST(signatures_skip_a_job_no_easier_than_a_failed_one)
{
	for (int on = 1; on >= 0; on--) {
		struct tl_world w;
		if (signatures_world(&w, on)) {
			fprintf(stderr, "build failed: %s\n", w.err.msg);
			tl_free(&w);
			gt_test_failures++;
			return;
		}
		ASSERT_EQ(on, w.c.config.scheduling_signatures);
		tl_cycle_mask(&w, 1u << GT_ACT_RECLAIM);
		ASSERT_EQ(on ? 1 : 0, w.s.search[GT_ACT_RECLAIM].signature_skipped);
		ASSERT_EQ(GT_PENDING, w.s.pods[tl_pod_idx(&w, "big1")].status);
		ASSERT_EQ(GT_PENDING, w.s.pods[tl_pod_idx(&w, "big2")].status);
		ASSERT_EQ(GT_PIPELINED, w.s.pods[tl_pod_idx(&w, "small")].status);
		tl_free(&w);
	}
}

/* KAI's TestReclaimSkipsDuplicateScenariosBeforeSimulation: an equal failed scenario is not re-run. */
TEST(failed_scenarios_are_not_simulated_twice)
{
	struct tl_world w;
	LOAD(&w, shape("ReclaimUnschedulableDistributedJob", "50Node"));
	w.c.config.exhaustive_search = true;	/* KAI searches it all: so must we, here */
	run(&w, shape("ReclaimUnschedulableDistributedJob", "50Node"));
	const struct gt_search_stats *st = &w.s.search[GT_ACT_RECLAIM];
	ASSERT_TRUE(st->duplicate > 0);
	ASSERT_TRUE(st->simulated > 0);
	ASSERT_EQ(st->emitted, st->simulated + st->duplicate);
	ASSERT_EQ(0, w.s.n_evictions);
	ASSERT_EQ(1, st->jobs[GT_SEARCH_EXHAUSTED]);
	tl_free(&w);
}

/* The same job, with reclaim's bound: the probes no victim set can validate are not searched. */
TEST(reclaim_bound_cuts_hopeless_probes_with_the_same_end)
{
	const struct kb_shape *sh = shape("ReclaimUnschedulableDistributedJob", "50Node");
	struct tl_world all, cut;
	LOAD(&all, sh);
	all.c.config.exhaustive_search = true;
	run(&all, sh);
	LOAD(&cut, sh);
	run(&cut, sh);
	const struct gt_search_stats *a = &all.s.search[GT_ACT_RECLAIM], *b = &cut.s.search[GT_ACT_RECLAIM];
	ASSERT_TRUE(b->pruned > 0);
	ASSERT_EQ(0, a->pruned);
	ASSERT_TRUE(b->simulated < a->simulated);
	ASSERT_EQ(a->jobs[GT_SEARCH_EXHAUSTED], b->jobs[GT_SEARCH_EXHAUSTED]);
	for (uint32_t p = 0; p < all.c.n_pods; p++)
		ASSERT_EQ(all.s.pods[p].status, cut.s.pods[p].status);
	tl_free(&all);
	tl_free(&cut);
}

/* The bound knows nothing of anti-affinity: that shape is searched, and still ends pending. */
TEST(bound_says_nothing_when_the_validator_would_pass)
{
	const struct kb_shape *sh = shape("ReclaimUnschedulableDistributedJob", "AntiAffinity100Node");
	struct tl_world w;
	LOAD(&w, sh);
	run(&w, sh);
	ASSERT_EQ(0, w.s.search[GT_ACT_RECLAIM].pruned);
	ASSERT_TRUE(w.s.search[GT_ACT_RECLAIM].simulated > 0);
	ASSERT_EQ(10, kb_count(&w.s, "unschedulable-distributed-job", GT_PENDING));
	ASSERT_EQ(0, w.s.n_evictions);
	tl_free(&w);
}

/* A clock that moves a second each time it is read. */
static int64_t racing_clock(void *ctx)
{
	int64_t *t = ctx;
	return *t += 1000;
}

TEST(time_budget_stops_the_action)
{
	const struct kb_shape *sh = shape("ReclaimLargeJobs", "50Node");
	struct tl_world w;
	LOAD(&w, sh);
	int64_t t = 0;
	w.c.config.clock_ms = racing_clock;
	w.c.config.clock_ctx = &t;
	w.c.config.search.job_ms = 1500;	/* over after the first reads */
	run(&w, sh);
	const struct gt_search_stats *st = &w.s.search[GT_ACT_RECLAIM];
	ASSERT_EQ(1, st->jobs[GT_SEARCH_DEADLINE]);
	ASSERT_EQ(0, w.s.n_evictions);
	ASSERT_EQ(25, kb_count(&w.s, "very-large-job", GT_PENDING));
	tl_free(&w);
}

/* A clock that never moves: budgets are on, and never run out. */
static int64_t frozen_clock(void *ctx)
{
	return *(const int64_t *)ctx;
}

/* One queue of one priority: a full node, and pending jobs preempt can find no victim for. */
static int one_priority_world(struct tl_world *w)
{
	tl_init(w);
	tl_node(w, &(struct tl_node){ .name = "n1", .gpus = 2 });
	tl_queue(w, &(struct tl_queue){ .name = "a", .quota = "2" });
	tl_pod(w, &(struct tl_pod){ .name = "r0", .queue = "a", .gpus = "1", .node = "n1" });
	tl_pod(w, &(struct tl_pod){ .name = "r1", .queue = "a", .gpus = "1", .node = "n1" });
	tl_pod(w, &(struct tl_pod){ .name = "p1", .queue = "a", .gpus = "2",
				    .created = "2026-01-01T00:00:01Z" });
	tl_pod(w, &(struct tl_pod){ .name = "p2", .queue = "a", .gpus = "2",
				    .created = "2026-01-01T00:00:02Z" });
	tl_pod(w, &(struct tl_pod){ .name = "p3", .queue = "a", .gpus = "1",
				    .created = "2026-01-01T00:00:03Z" });
	return tl_build(w);
}

/*
 * Preempt leaves out a queue where no job has a lower priority than its
 * pending ones (nothing to search), and counts them as the search would:
 * the same counts as with a clock, which turns the shortcut off.
 */
TEST(preempt_counts_a_queue_without_victims_as_searched)
{
	struct gt_search_stats got[2];
	for (int clock = 0; clock < 2; clock++) {
		struct tl_world w;
		if (one_priority_world(&w)) {
			fprintf(stderr, "build failed: %s\n", w.err.msg);
			tl_free(&w);
			gt_test_failures++;
			return;
		}
		int64_t t = 5000;
		if (clock) {
			w.c.config.clock_ms = frozen_clock;
			w.c.config.clock_ctx = &t;
		}
		tl_cycle_mask(&w, 1u << GT_ACT_PREEMPT);
		got[clock] = w.s.search[GT_ACT_PREEMPT];
		ASSERT_EQ(0, w.s.n_evictions);
		ASSERT_EQ(GT_PENDING, w.s.pods[tl_pod_idx(&w, "p1")].status);
		tl_free(&w);
	}
	/* p1 fails; p2 is no easier (skipped by signature); p3 is easier, and fails */
	ASSERT_EQ(2, got[0].acted_on);
	ASSERT_EQ(1, got[0].signature_skipped);
	ASSERT_EQ(2, got[0].jobs[GT_SEARCH_EXHAUSTED]);
	ASSERT_EQ(got[1].acted_on, got[0].acted_on);
	ASSERT_EQ(got[1].signature_skipped, got[0].signature_skipped);
	for (int r = 0; r < GT_N_SEARCH_RESULTS; r++)
		ASSERT_EQ(got[1].jobs[r], got[0].jobs[r]);
}

TEST(without_a_clock_budgets_are_off)
{
	const struct kb_shape *sh = shape("ReclaimLargeJobs", "50Node");
	struct tl_world w;
	LOAD(&w, sh);
	w.c.config.search.job_ms = 1;	/* would stop anything, if time were read */
	run(&w, sh);
	ASSERT_EQ(1, w.s.search[GT_ACT_RECLAIM].jobs[GT_SEARCH_SOLVED]);
	ASSERT_EQ(200, w.s.n_evictions);
	tl_free(&w);
}

TEST(generators_can_be_switched_off)
{
	const struct kb_shape *sh = shape("ReclaimLargeJobs", "10Node");
	struct tl_world w;
	LOAD(&w, sh);
	w.c.config.search.generator_off[GT_GEN_NODE_LOCAL_GREEDY] = true;
	w.c.config.search.generator_off[GT_GEN_MULTI_NODE_GANG] = true;
	run(&w, sh);
	ASSERT_EQ(1, w.s.search[GT_ACT_RECLAIM].jobs[GT_SEARCH_NO_GENERATOR]);
	ASSERT_EQ(0, w.s.n_evictions);
	tl_free(&w);
	/* NodeLocalGreedy alone cannot free five nodes at once: MultiNodeGang does it */
	LOAD(&w, sh);
	w.c.config.search.generator_off[GT_GEN_MULTI_NODE_GANG] = true;
	run(&w, sh);
	ASSERT_EQ(0, w.s.n_evictions);
	tl_free(&w);
	LOAD(&w, sh);
	w.c.config.search.generator_off[GT_GEN_NODE_LOCAL_GREEDY] = true;
	run(&w, sh);
	ASSERT_EQ(40, w.s.n_evictions);
	ASSERT_EQ(5, kb_count(&w.s, "very-large-job", GT_PIPELINED));
	tl_free(&w);
}

/* A pod mounting a missing claim: reclaim evicts nothing and says why (KAI's victim-invariant pre-filter). */
TEST(missing_claim_keeps_the_job_out_of_the_search)
{
	struct tl_world w;
	tl_init(&w);
	w.dec.claims_listed = true;
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "busy", .quota = "0" });
	tl_queue(&w, &(struct tl_queue){ .name = "starved", .quota = "2" });
	tl_yaml(&w, "---\n{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: here, namespace: default}}\n");
	tl_pod(&w, &(struct tl_pod){ .name = "running-1", .queue = "busy", .gpus = "1", .node = "n1" });
	tl_pod(&w, &(struct tl_pod){ .name = "running-2", .queue = "busy", .gpus = "1", .node = "n2" });
	tl_pod(&w, &(struct tl_pod){ .name = "blocked", .queue = "starved", .gpus = "1",
				     .spec = "volumes: [{name: v, persistentVolumeClaim: {claimName: gone}}]" });
	tl_pod(&w, &(struct tl_pod){ .name = "fine", .queue = "starved", .gpus = "1",
				     .spec = "volumes: [{name: v, persistentVolumeClaim: {claimName: here}}]" });
	TL_BUILD(&w);
	tl_cycle_mask(&w, (1u << GT_ACT_ALLOCATE) | (1u << GT_ACT_RECLAIM));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "blocked"));
	ASSERT_CONTAINS(tl_msg(&w, "blocked"), "persistentvolumeclaim \"gone\" not found");
	ASSERT_EQ(GT_PIPELINED, tl_status(&w, "fine"));	/* the claim exists: it may reclaim */
	ASSERT_EQ(1, w.s.n_evictions);	/* for "fine" only */
	tl_free(&w);
}

/* ---------------------------------------------------------------- budgets from the shard */

static int shard_budgets(struct tl_world *w, const char *budgets, const char *plugins)
{
	tl_init(w);
	tl_yaml(w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default}, "
		   "spec: {scenarioSearchBudgets: {%s}%s%s}}\n",
		budgets, plugins ? ", plugins: " : "", plugins ? plugins : "");
	return tl_build(w);
}

TEST(budgets_default_to_kais)
{
	struct tl_world w;
	tl_init(&w);
	TL_BUILD(&w);
	const struct gt_search_budgets *b = &w.c.config.search;
	ASSERT_EQ(300000, b->reclaim_ms);
	ASSERT_EQ(300000, b->preempt_ms);
	ASSERT_EQ(300000, b->consolidation_ms);
	ASSERT_EQ(240000, b->job_ms);
	ASSERT_EQ(0, b->min_job_ms);
	ASSERT_EQ(30000, b->generator_ms[GT_GEN_NODE_LOCAL_GREEDY]);
	ASSERT_EQ(120000, b->generator_ms[GT_GEN_MULTI_NODE_GANG]);
	tl_free(&w);
}

TEST(budgets_from_the_shard)
{
	struct tl_world w;
	ASSERT_EQ(0, shard_budgets(&w, "maxActionSearchDuration: {default: 1m, reclaim: 500ms}, "
				       "maxJobSearchDuration: 30s, minJobSearchDuration: 1s, "
				       "maxGeneratorSearchDuration: {default: 10s, MultiNodeGang: 0s}",
				   "{sg-nodelocalgreedy: {enabled: false}}"));
	const struct gt_search_budgets *b = &w.c.config.search;
	ASSERT_EQ(500, b->reclaim_ms);
	ASSERT_EQ(60000, b->preempt_ms);
	ASSERT_EQ(60000, b->consolidation_ms);
	ASSERT_EQ(30000, b->job_ms);
	ASSERT_EQ(1000, b->min_job_ms);
	ASSERT_EQ(10000, b->generator_ms[GT_GEN_NODE_LOCAL_GREEDY]);
	ASSERT_EQ(0, b->generator_ms[GT_GEN_MULTI_NODE_GANG]);
	ASSERT_TRUE(b->generator_off[GT_GEN_NODE_LOCAL_GREEDY]);
	ASSERT_TRUE(!b->generator_off[GT_GEN_MULTI_NODE_GANG]);
	tl_free(&w);
}

TEST(budgets_reject_a_floor_not_below_the_limit)
{
	struct tl_world w;
	ASSERT_TRUE(shard_budgets(&w, "maxJobSearchDuration: 10s, minJobSearchDuration: 10s", NULL) != 0);
	ASSERT_CONTAINS(w.err.msg, "spec.scenarioSearchBudgets.minJobSearchDuration");
	tl_free(&w);
	ASSERT_TRUE(shard_budgets(&w, "maxJobSearchDuration: soon", NULL) != 0);
	ASSERT_CONTAINS(w.err.msg, "spec.scenarioSearchBudgets.maxJobSearchDuration");
	tl_free(&w);
}

TEST(budgets_warn_about_names_they_do_not_know)
{
	struct tl_world w;
	ASSERT_EQ(0, shard_budgets(&w, "maxActionSearchDuration: {reclaimm: 1m}, "
				       "maxGeneratorSearchDuration: {NodeLocal: 1m}", NULL));
	ASSERT_EQ(2, w.dec.n_warnings);
	ASSERT_CONTAINS(w.dec.warnings[0], "reclaimm");
	ASSERT_CONTAINS(w.dec.warnings[1], "NodeLocal");
	ASSERT_EQ(300000, w.c.config.search.reclaim_ms);
	tl_free(&w);
}

/* The per-generator counts the metrics read add up to the action's, and each job tried is counted once. */
static void assert_generators_add_up(const struct gt_search_stats *st)
{
	uint64_t sum[GT_N_SCENARIO_STATES] = { 0 };
	for (int g = 0; g < GT_N_GENERATORS; g++)
		for (int k = 0; k < GT_N_SCENARIO_STATES; k++)
			sum[k] += st->gen_scenarios[g][k];
	ASSERT_EQ(st->emitted, sum[GT_SCENARIO_EMITTED]);
	ASSERT_EQ(st->simulated, sum[GT_SCENARIO_SIMULATED]);
	ASSERT_EQ(st->duplicate, sum[GT_SCENARIO_DUPLICATE]);
	ASSERT_EQ(st->validator_rejected, sum[GT_SCENARIO_REJECTED]);
}

TEST(search_metrics_count_jobs_scenarios_and_filters)
{
	const struct kb_shape *sh = shape("ReclaimUnschedulableDistributedJob", "50Node");
	struct tl_world w;
	LOAD(&w, sh);
	w.c.config.exhaustive_search = true;
	run(&w, sh);
	const struct gt_search_stats *st = &w.s.search[GT_ACT_RECLAIM];
	assert_generators_add_up(st);
	ASSERT_TRUE(st->gen_scenarios[GT_GEN_NODE_LOCAL_GREEDY][GT_SCENARIO_SIMULATED] > 0);
	ASSERT_EQ(1, st->acted_on);	/* the one pending job */
	ASSERT_TRUE(st->filtered > 0);	/* accumulations the idle-GPU filter turned away */
	ASSERT_EQ(NULL, st->timings);	/* no clock: nothing timed */
	ASSERT_EQ(0, st->jobs_reduced[GT_SEARCH_EXHAUSTED]);
	tl_free(&w);
}

TEST(search_metrics_time_each_generator_attempt)
{
	const struct kb_shape *sh = shape("ReclaimLargeJobs", "10Node");
	struct tl_world w;
	LOAD(&w, sh);
	int64_t t = 0;
	w.c.config.clock_ms = racing_clock;
	w.c.config.clock_ctx = &t;
	run(&w, sh);
	const struct gt_search_stats *st = &w.s.search[GT_ACT_RECLAIM];
	assert_generators_add_up(st);
	ASSERT_EQ(1, st->jobs[GT_SEARCH_SOLVED]);
	uint32_t n = 0, solved = 0;
	for (const struct gt_search_timing *tm = st->timings; tm; tm = tm->next) {
		n++;
		solved += tm->result == GT_SEARCH_SOLVED;
		ASSERT_TRUE(tm->ms >= 1000);	/* the clock moved at least once during each */
	}
	ASSERT_TRUE(n >= 1);
	ASSERT_EQ(1, solved);	/* the attempt that solved it, and only it */
	ASSERT_EQ(GT_SEARCH_SOLVED, st->timings->result);	/* newest first: the last attempt */
	tl_free(&w);
}

const struct gt_test gt_tests[] = {
	T(signatures_skip_a_job_no_easier_than_a_failed_one),
	T(kai_benchmark_shapes_end_as_kai_does),
	T(failed_scenarios_are_not_simulated_twice),
	T(reclaim_bound_cuts_hopeless_probes_with_the_same_end),
	T(bound_says_nothing_when_the_validator_would_pass),
	T(time_budget_stops_the_action),
	T(preempt_counts_a_queue_without_victims_as_searched),
	T(without_a_clock_budgets_are_off),
	T(generators_can_be_switched_off),
	T(missing_claim_keeps_the_job_out_of_the_search),
	T(budgets_default_to_kais),
	T(budgets_from_the_shard),
	T(budgets_reject_a_floor_not_below_the_limit),
	T(budgets_warn_about_names_they_do_not_know),
	T(search_metrics_count_jobs_scenarios_and_filters),
	T(search_metrics_time_each_generator_attempt),
	{ 0 }
};
