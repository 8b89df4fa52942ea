/*
 * test_replay.c - the replay engine on hand-made traces with hand-computed
 * timelines: FIFO and backfill, a gang that waits for whole nodes, a
 * reclaim that evicts and restarts (or resumes, or waits out a min-runtime),
 * fractions sharing one GPU, the packing run, load scaling, and the
 * shortcuts changing nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "replay/engine.h"
#include "replay/output.h"
#include "replay/setup.h"
#include "util/mem.h"

const char *gt_suite = "replay";

#define T0 GT_TRACE_EPOCH

/* A world: a trace built in memory, a generated cluster, one replay. */
struct world {
	struct gt_trace t;
	struct gt_strtab names;
	struct gt_cluster c;
	struct gt_replay_opts o;
	struct gt_replay *r;
	struct gt_vc_size vcs[4];
	uint32_t n_vcs;
	bool single;
};

static void w_init(struct world *w, uint32_t nodes, int32_t gpus)
{
	memset(w, 0, sizeof(*w));
	gt_trace_init(&w->t);
	w->t.path = gt_xstrdup("test");
	gt_strtab_init(&w->names);
	gt_cluster_init(&w->c, &w->names);
	gt_replay_gen_nodes(&w->c, nodes, gpus);
	gt_replay_opts_defaults(&w->o);
	w->o.actions = 1u << GT_ACT_ALLOCATE;
}

/* A job: @gpus whole GPUs over @pods pods, or one pod of @frac milli-GPU. */
static void w_job(struct world *w, int64_t submit, int64_t dur, int32_t gpus, int32_t pods,
		  int32_t frac, const char *tenant)
{
	GT_GROW(w->t.jobs, w->t.n_jobs + 1, w->t.cap_jobs);
	struct gt_rjob *j = &w->t.jobs[w->t.n_jobs++];
	memset(j, 0, sizeof(*j));
	j->submit = T0 + submit;
	j->duration = dur;
	j->gpus = gpus;
	j->n_pods = pods;
	j->frac_milli = frac;
	j->tenant = tenant ? (int32_t)gt_strtab_intern(&w->t.tenants, tenant) : GT_NONE;
	j->gpu_spec = GT_NONE;
	j->line = w->t.n_jobs + 1;
}

/* Queues from the tenants (quotas from w->vcs), then run to the end. */
static int w_run(struct world *w)
{
	int32_t *tq = gt_xcalloc(w->t.tenants.n_strs + 1, sizeof(*tq)), dq;
	struct gt_queue_setup qs = { .single = w->single, .vcs = w->n_vcs ? w->vcs : NULL,
				     .n_vcs = w->n_vcs };
	struct gt_err err = { 0 };
	int rc = gt_replay_make_queues(&w->c, &w->t, &qs, tq, &dq, &err);
	if (!rc)
		rc = gt_replay_new(&w->r, &w->c, &w->t, tq, dq, &w->o, &err);
	free(tq);
	if (rc) {
		fprintf(stderr, "setup: %s\n", err.msg);
		return rc;
	}
	gt_replay_run(w->r, NULL, NULL);
	return 0;
}

static void w_free(struct world *w)
{
	gt_replay_free(w->r);
	gt_cluster_release(&w->c);
	gt_strtab_release(&w->names);
	gt_trace_release(&w->t);
}

static int64_t start(const struct world *w, uint32_t i)
{
	int64_t s = gt_replay_job_start(w->r, i);
	return s < 0 ? -1 : s - T0;
}

static int64_t end(const struct world *w, uint32_t i)
{
	int64_t e = gt_replay_job_end(w->r, i);
	return e < 0 ? -1 : e - T0;
}

#define RUN(w)                                   \
	do {                                     \
		if (w_run(w)) {                  \
			w_free(w);               \
			ASSERT_TRUE(false);      \
		}                                \
	} while (0)

TEST(fifo_timeline_of_three_jobs)
{
	/* one GPU: A 0-100, B waits 90 s and runs 100-150, C waits 130 s and runs 150-180 */
	struct world w;
	w_init(&w, 1, 1);
	w_job(&w, 0, 100, 1, 1, 0, NULL);
	w_job(&w, 10, 50, 1, 1, 0, NULL);
	w_job(&w, 20, 30, 1, 1, 0, NULL);
	RUN(&w);
	const struct gt_replay_stats *st = gt_replay_stats(w.r);
	ASSERT_EQ(0, start(&w, 0));
	ASSERT_EQ(100, end(&w, 0));
	ASSERT_EQ(100, start(&w, 1));
	ASSERT_EQ(150, end(&w, 1));
	ASSERT_EQ(150, start(&w, 2));
	ASSERT_EQ(180, end(&w, 2));
	ASSERT_EQ(3, st->finished);
	ASSERT_EQ(180, st->makespan_s);
	/* waits 0, 90, 130: nearest rank p50 = 2nd value, p90 = p99 = 3rd */
	ASSERT_EQ(73333, (long long)(st->wait_s.mean * 1000));
	ASSERT_EQ(90, (long long)st->wait_s.p50);
	ASSERT_EQ(130, (long long)st->wait_s.p90);
	ASSERT_EQ(130, (long long)st->wait_s.p99);
	/* JCTs 100, 140, 160 */
	ASSERT_EQ(140, (long long)st->jct_s.p50);
	ASSERT_EQ(133333, (long long)(st->jct_s.mean * 1000));
	/* the GPU was busy from the first arrival to the last departure */
	ASSERT_EQ(1000, (long long)(st->gpu_allocation * 1000 + 0.5));
	ASSERT_EQ(1000, (long long)(st->gpu_utilization * 1000 + 0.5));
	ASSERT_EQ(0, st->waited_over_24h);
	w_free(&w);
}

/* Two GPUs: A (1 GPU) runs; B wants both; C (1 GPU) arrives behind B. */
static void backfill_world(struct world *w, bool fifo)
{
	w_init(w, 1, 2);
	w->o.fifo = fifo;
	w_job(w, 0, 100, 1, 1, 0, NULL);
	w_job(w, 10, 50, 2, 1, 0, NULL);
	w_job(w, 20, 30, 1, 1, 0, NULL);
}

TEST(backfill_lets_a_small_job_pass)
{
	struct world w;
	backfill_world(&w, false);
	RUN(&w);
	ASSERT_EQ(20, start(&w, 2));	/* C takes the free GPU at once */
	ASSERT_EQ(50, end(&w, 2));
	ASSERT_EQ(100, start(&w, 1));	/* B gets both GPUs when A leaves */
	ASSERT_EQ(150, end(&w, 1));
	w_free(&w);
}

TEST(strict_fifo_holds_everyone_behind_the_head)
{
	struct world w;
	backfill_world(&w, true);
	RUN(&w);
	ASSERT_EQ(100, start(&w, 1));
	ASSERT_EQ(150, start(&w, 2));	/* C waits for B, though a GPU was free */
	ASSERT_EQ(180, end(&w, 2));
	w_free(&w);
}

TEST(gang_waits_for_two_whole_nodes)
{
	/*
	 * Two 8-GPU nodes. X (1 GPU, 0-100) sits on one; the 16-GPU gang G (two
	 * pods of 8) needs both nodes whole and starts when X leaves. Y (8 GPUs)
	 * fits on the free node meanwhile and runs 10-30.
	 */
	struct world w;
	w_init(&w, 2, 8);
	w_job(&w, 0, 100, 1, 1, 0, NULL);
	w_job(&w, 5, 50, 16, 2, 0, NULL);
	w_job(&w, 10, 20, 8, 1, 0, NULL);
	RUN(&w);
	ASSERT_EQ(10, start(&w, 2));
	ASSERT_EQ(30, end(&w, 2));
	ASSERT_EQ(100, start(&w, 1));
	ASSERT_EQ(150, end(&w, 1));
	int32_t n0 = gt_replay_pod_node(w.r, 1, 0), n1 = gt_replay_pod_node(w.r, 1, 1);
	ASSERT_TRUE(n0 >= 0 && n1 >= 0 && n0 != n1);
	ASSERT_EQ(0, gt_replay_stats(w.r)->job_evictions);
	w_free(&w);
}

/* Two queues of 1 GPU quota each on one 2-GPU node; qa borrows both, qb wants one. */
static void reclaim_world(struct world *w)
{
	w_init(w, 1, 2);
	w->o.actions = (1u << GT_ACT_ALLOCATE) | (1u << GT_ACT_RECLAIM);
	w->vcs[0] = (struct gt_vc_size){ "qa", 1 };
	w->vcs[1] = (struct gt_vc_size){ "qb", 1 };
	w->n_vcs = 2;
	w_job(w, 0, 1000, 1, 1, 0, "qa");
	w_job(w, 1, 1000, 1, 1, 0, "qa");
	w_job(w, 100, 50, 1, 1, 0, "qb");
}

/* Which of qa's two jobs reclaim chose; the other one ran undisturbed. */
static uint32_t victim(const struct world *w)
{
	return gt_replay_job_evictions(w->r, 0) ? 0 : 1;
}

TEST(reclaim_evicts_and_the_victim_restarts)
{
	/*
	 * At 100 reclaim evicts one qa job and pipelines B; the victim is gone
	 * by the next cycle (101), where B binds. B leaves at 151 and the victim
	 * starts over: 1000 s more, to 1151.
	 */
	struct world w;
	reclaim_world(&w);
	RUN(&w);
	uint32_t v = victim(&w);
	ASSERT_EQ(1, gt_replay_job_evictions(w.r, v));
	ASSERT_EQ(0, gt_replay_job_evictions(w.r, 1 - v));
	ASSERT_EQ(101, start(&w, 2));
	ASSERT_EQ(151, end(&w, 2));
	ASSERT_EQ(1151, end(&w, v));
	ASSERT_EQ((long long)v, start(&w, v));	/* its first start still counts for the wait */
	const struct gt_replay_stats *st = gt_replay_stats(w.r);
	ASSERT_EQ(1, st->job_evictions);
	ASSERT_EQ(1, st->pod_evictions);
	ASSERT_EQ(1, st->restarted_jobs);
	/* it had held its GPU since it started (0 or 1) until 100 */
	ASSERT_EQ((100 - (long long)v) * 1000 / 3600, (long long)(st->lost_gpu_hours * 1000));
	w_free(&w);
}

TEST(reclaim_victim_resumes_with_its_progress)
{
	struct world w;
	reclaim_world(&w);
	w.o.resume = true;
	RUN(&w);
	uint32_t v = victim(&w);
	int64_t ran = 100 - (int64_t)v;
	ASSERT_EQ(151 + 1000 - ran, end(&w, v));
	ASSERT_EQ(0, (long long)(gt_replay_stats(w.r)->lost_gpu_hours * 1e6));
	w_free(&w);
}

TEST(reclaim_waits_for_min_runtime)
{
	/* protected for 300 s after their start: B can take a GPU from 300 (or 301) on */
	struct world w;
	reclaim_world(&w);
	w.c.config.reclaim_min_runtime_s = 300;
	RUN(&w);
	uint32_t v = victim(&w);
	ASSERT_EQ(1, gt_replay_job_evictions(w.r, v));
	ASSERT_EQ(300 + (int64_t)v + 1, start(&w, 2));
	w_free(&w);
}

TEST(evict_grace_delays_the_preemptor)
{
	/* the victim takes 30 s to go: B is pipelined until then */
	struct world w;
	reclaim_world(&w);
	w.o.evict_grace = 30;
	RUN(&w);
	ASSERT_EQ(130, start(&w, 2));
	w_free(&w);
}

TEST(fractions_share_one_gpu)
{
	/* 500 + 300 milli share the one GPU; 400 more does not fit until 500 leaves */
	struct world w;
	w_init(&w, 1, 1);
	w_job(&w, 0, 100, 0, 1, 500, NULL);
	w_job(&w, 0, 200, 0, 1, 300, NULL);
	w_job(&w, 5, 10, 0, 1, 400, NULL);
	RUN(&w);
	ASSERT_EQ(0, start(&w, 0));
	ASSERT_EQ(0, start(&w, 1));
	ASSERT_STR("node-0000-gpu0", gt_replay_pod_group(w.r, 0, 0));
	ASSERT_STR("node-0000-gpu0", gt_replay_pod_group(w.r, 1, 0));
	ASSERT_EQ(100, start(&w, 2));
	ASSERT_STR("node-0000-gpu0", gt_replay_pod_group(w.r, 2, 0));
	const struct gt_replay_stats *st = gt_replay_stats(w.r);
	/* the GPU was 80% used 0-100, 70% 100-110, 30% 110-200 */
	ASSERT_EQ(8000 + 700 + 2700, (long long)(st->gpu_allocation * 200 * 100 + 0.5));
	w_free(&w);
}

TEST(fractions_open_a_second_gpu_when_the_first_is_full)
{
	struct world w;
	w_init(&w, 1, 2);
	w_job(&w, 0, 100, 0, 1, 700, NULL);
	w_job(&w, 1, 100, 0, 1, 600, NULL);
	RUN(&w);
	ASSERT_EQ(1, start(&w, 1));
	ASSERT_STR("node-0000-gpu0", gt_replay_pod_group(w.r, 0, 0));
	ASSERT_STR("node-0000-gpu1", gt_replay_pod_group(w.r, 1, 0));
	w_free(&w);
}

TEST(packing_run_never_lets_go)
{
	/*
	 * Two 1-GPU nodes; pods of 600 and 300 milli-GPU. The trace asks for
	 * 0.9 GPUs; inflated 2x it arrives twice (1.8 GPUs): 600+300 on one GPU,
	 * the second 600 opens the other GPU and the last 300 joins it.
	 */
	struct world w;
	w_init(&w, 2, 1);
	w.o.no_departures = true;
	w.o.inflate = 2.0;
	w_job(&w, 0, 50, 0, 1, 600, NULL);
	w_job(&w, 10, 50, 0, 1, 300, NULL);
	RUN(&w);
	const struct gt_replay_stats *st = gt_replay_stats(w.r);
	ASSERT_EQ(4, st->jobs);
	ASSERT_EQ(0, st->finished);
	ASSERT_EQ(4, st->started);
	ASSERT_EQ(900, (long long)(st->packing.milli_gpu_allocation * 1000 + 0.5));
	ASSERT_EQ(0, st->packing.idle_gpus);
	ASSERT_EQ(200, (long long)(st->packing.fragmented_gpus * 1000 + 0.5));
	ASSERT_EQ(2, st->packing.allocated_gpus);
	ASSERT_EQ(900, (long long)(st->offered_load * 1000 + 0.5));
	w_free(&w);
}

TEST(packing_run_leaves_what_does_not_fit_pending)
{
	struct world w;
	w_init(&w, 1, 1);
	w.o.no_departures = true;
	w_job(&w, 0, 50, 0, 1, 600, NULL);
	w_job(&w, 1, 50, 0, 1, 600, NULL);
	w_job(&w, 2, 50, 0, 1, 300, NULL);
	RUN(&w);
	const struct gt_replay_stats *st = gt_replay_stats(w.r);
	ASSERT_EQ(1, st->packing.pending_pods);
	ASSERT_EQ(900, (long long)(st->packing.milli_gpu_allocation * 1000 + 0.5));
	ASSERT_EQ(1, st->never_started);
	w_free(&w);
}

/* A packing run of fractions and whole GPUs; its packing as a string. */
static char *packing_run(bool exact)
{
	struct world w;
	w_init(&w, 3, 2);
	w.o.no_departures = true;
	w.o.inflate = 1.5;
	w.o.exact = exact;
	static const int32_t milli[] = { 600, 0, 300, 450, 0, 800, 200, 0, 550, 350 };
	for (int i = 0; i < 10; i++)
		w_job(&w, i * 1000, 10, milli[i] ? 0 : 1 + i % 2, 1, milli[i], NULL);
	if (w_run(&w)) {
		w_free(&w);
		return NULL;
	}
	json_t *o = gt_replay_stats_json(gt_replay_stats(w.r));
	char *s = json_dumps(json_object_get(o, "packing"), JSON_SORT_KEYS);
	json_decref(o);
	w_free(&w);
	return s;
}

TEST(packing_does_not_depend_on_the_cycle_period)
{
	char *coarse = packing_run(false), *exact = packing_run(true);
	bool same = coarse && exact && !strcmp(coarse, exact);
	if (!same)
		fprintf(stderr, "coarse: %s\nexact:  %s\n", coarse ? coarse : "-", exact ? exact : "-");
	free(coarse);
	free(exact);
	ASSERT_TRUE(same);
}

TEST(load_scales_the_gaps_between_arrivals)
{
	/* 2 GPU-jobs of 100 s over a 100 s span on 2 GPUs: load 1; asked 0.5, gaps double */
	struct world w;
	w_init(&w, 1, 2);
	w.o.load = 0.5;
	w_job(&w, 0, 100, 1, 1, 0, NULL);
	w_job(&w, 100, 100, 1, 1, 0, NULL);
	RUN(&w);
	const struct gt_replay_stats *st = gt_replay_stats(w.r);
	ASSERT_EQ(500, (long long)(st->offered_load * 1000 + 0.5));
	ASSERT_EQ(2000, (long long)(st->arrival_scale * 1000 + 0.5));
	ASSERT_EQ(200, start(&w, 1));
	w_free(&w);
}

TEST(starved_jobs_are_counted)
{
	/* a 2-GPU job on a 1-GPU cluster never starts: it waited from its arrival to the end */
	struct world w;
	w_init(&w, 1, 1);
	w.o.starvation_s = 50;
	w_job(&w, 0, 100, 1, 1, 0, NULL);
	w_job(&w, 10, 100, 2, 1, 0, NULL);
	RUN(&w);
	const struct gt_replay_stats *st = gt_replay_stats(w.r);
	ASSERT_EQ(1, st->never_started);
	ASSERT_EQ(1, st->waited_over);
	ASSERT_EQ(0, st->waited_over_24h);
	ASSERT_EQ(-1, start(&w, 1));
	w_free(&w);
}

TEST(queue_shares_follow_quota)
{
	/* qa and qb, 1 GPU quota each, both busy all the time: half the GPU time each */
	struct world w;
	w_init(&w, 1, 2);
	w.vcs[0] = (struct gt_vc_size){ "qa", 1 };
	w.vcs[1] = (struct gt_vc_size){ "qb", 1 };
	w.n_vcs = 2;
	w_job(&w, 0, 100, 1, 1, 0, "qa");
	w_job(&w, 0, 100, 1, 1, 0, "qb");
	RUN(&w);
	const struct gt_replay_stats *st = gt_replay_stats(w.r);
	ASSERT_EQ(2, st->n_queues);
	ASSERT_STR("qa", st->queues[0].name);
	ASSERT_EQ(1000, (long long)(st->queues[0].quota_gpus * 1000));
	ASSERT_EQ(500, (long long)(st->queues[0].gpu_time_share * 1000 + 0.5));
	ASSERT_EQ(500, (long long)(st->queues[1].quota_share * 1000 + 0.5));
	ASSERT_EQ(1000, (long long)(st->jain * 1000 + 0.5));
	w_free(&w);
}

/* Drop what a run may observe differently: timings, and fair shares of one queue. */
static void strip(json_t *o, bool fair)
{
	json_object_del(o, "scheduler");
	json_object_del(o, "policy");
	if (!fair)
		return;
	json_object_del(o, "jain_index");
	size_t i;
	json_t *q;
	json_array_foreach(json_object_get(o, "queues"), i, q) {
		json_object_del(q, "fair_share_gpus");
		json_object_del(q, "fair_time_share");
		json_object_del(q, "allocated_vs_fair");
	}
}

enum mix { MIX_QUEUES, MIX_SINGLE, MIX_FIFO };

static uint64_t last_skipped;	/* cycles the last mixed run skipped */

/* Run a mixed workload with or without the shortcuts; the JSON without timings. */
static char *mixed_run(bool exact, unsigned actions, enum mix mix)
{
	struct world w;
	w_init(&w, 3, 4);
	w.o.exact = exact;
	w.o.actions = actions;
	w.single = mix != MIX_QUEUES;
	w.o.fifo = mix == MIX_FIFO;
	w.vcs[0] = (struct gt_vc_size){ "qa", 2 };
	w.vcs[1] = (struct gt_vc_size){ "qb", 1 };
	w.n_vcs = 2;
	static const int gpus[] = { 1, 2, 4, 8, 1, 3, 2, 1, 4, 1, 6, 1, 2, 8, 1, 1 };
	for (int i = 0; i < 48; i++) {
		int g = gpus[i % 16];
		w_job(&w, i * 37 % 400 + i, 60 + (i * 53) % 500, g, g > 4 ? 2 : 1, 0,
		      i % 3 ? "qa" : "qb");
	}
	/* submit times must ascend for the engine: the loader sorts, the test does too */
	for (uint32_t i = 1; i < w.t.n_jobs; i++)
		for (uint32_t k = i; k > 0 && w.t.jobs[k - 1].submit > w.t.jobs[k].submit; k--) {
			struct gt_rjob x = w.t.jobs[k];
			w.t.jobs[k] = w.t.jobs[k - 1];
			w.t.jobs[k - 1] = x;
		}
	if (w_run(&w)) {
		w_free(&w);
		return NULL;
	}
	last_skipped = gt_replay_stats(w.r)->cycles_skipped;
	json_t *o = gt_replay_stats_json(gt_replay_stats(w.r));
	strip(o, mix != MIX_QUEUES);
	char *s = json_dumps(o, JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
	json_decref(o);
	w_free(&w);
	return s;
}

TEST(shortcuts_change_nothing)
{
	static const struct {
		unsigned mask;
		enum mix mix;
	} runs[] = {
		{ 1u << GT_ACT_ALLOCATE, MIX_QUEUES },
		{ (1u << GT_ACT_ALLOCATE) | (1u << GT_ACT_RECLAIM), MIX_QUEUES },
		{ 1u << GT_ACT_ALLOCATE, MIX_SINGLE },
		{ 1u << GT_ACT_ALLOCATE, MIX_FIFO },
	};
	for (size_t m = 0; m < sizeof(runs) / sizeof(runs[0]); m++) {
		char *fast = mixed_run(false, runs[m].mask, runs[m].mix);
		uint64_t skipped = last_skipped;
		char *exact = mixed_run(true, runs[m].mask, runs[m].mix);
		bool same = fast && exact && !strcmp(fast, exact);
		if (!same)
			fprintf(stderr, "fast:  %s\nexact: %s\n", fast ? fast : "-", exact ? exact : "-");
		free(fast);
		free(exact);
		ASSERT_TRUE(same);
		ASSERT_TRUE(skipped > 0);	/* the shortcuts were taken */
	}
}

TEST(deterministic)
{
	char *a = mixed_run(false, GT_ACTIONS_ALL, MIX_QUEUES);
	char *b = mixed_run(false, GT_ACTIONS_ALL, MIX_QUEUES);
	bool same = a && b && !strcmp(a, b);
	free(a);
	free(b);
	ASSERT_TRUE(same);
}

TEST(rejects_a_trace_without_run_times_unless_packing)
{
	struct world w;
	w_init(&w, 1, 1);
	w_job(&w, 0, -1, 1, 1, 0, NULL);
	int32_t tq = 0, dq;
	struct gt_queue_setup qs = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_replay_make_queues(&w.c, &w.t, &qs, &tq, &dq, &err));
	ASSERT_TRUE(gt_replay_new(&w.r, &w.c, &w.t, &tq, dq, &w.o, &err) != 0);
	ASSERT_CONTAINS(err.msg, "--no-departures");
	w.r = NULL;
	w_free(&w);
}

const struct gt_test gt_tests[] = {
	T(fifo_timeline_of_three_jobs),
	T(backfill_lets_a_small_job_pass),
	T(strict_fifo_holds_everyone_behind_the_head),
	T(gang_waits_for_two_whole_nodes),
	T(reclaim_evicts_and_the_victim_restarts),
	T(reclaim_victim_resumes_with_its_progress),
	T(reclaim_waits_for_min_runtime),
	T(evict_grace_delays_the_preemptor),
	T(fractions_share_one_gpu),
	T(fractions_open_a_second_gpu_when_the_first_is_full),
	T(packing_run_never_lets_go),
	T(packing_run_leaves_what_does_not_fit_pending),
	T(packing_does_not_depend_on_the_cycle_period),
	T(load_scales_the_gaps_between_arrivals),
	T(starved_jobs_are_counted),
	T(queue_shares_follow_quota),
	T(shortcuts_change_nothing),
	T(deterministic),
	T(rejects_a_trace_without_run_times_unless_packing),
	{ 0 }
};
