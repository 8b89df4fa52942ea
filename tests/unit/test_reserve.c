/*
 * test_reserve.c - reservations, backfill and per-job aging (core/reserve.h,
 * docs/reservations.md): the planner's where and when, what holds refuse and
 * allow, expiry, the fair-share rules, and a property over random clusters
 */
#include "core/plan.h"
#include "core/reserve.h"
#include "testlib.h"

const char *gt_suite = "reserve";

#define HOUR 3600

/* A PodGroup @name in @q with @n pods "<name>-<i>" of @gpus each, all needed. */
static void gang(struct tl_world *w, const char *name, const char *q, int n, const char *gpus,
		 const char *created)
{
	tl_pg(w, &(struct tl_pg){ .name = name, .queue = q, .min = n, .created = created });
	for (int i = 0; i < n; i++) {
		char pod[64];
		snprintf(pod, sizeof(pod), "%s-%d", name, i);
		tl_pod(w, &(struct tl_pod){ .name = pod, .pg = name, .gpus = gpus, .created = created });
	}
}

/* A running job @name of one pod with @gpus on @node (set_runtime says since when and how long). */
static void running(struct tl_world *w, const char *name, const char *q, const char *node,
		    const char *gpus)
{
	tl_pg(w, &(struct tl_pg){ .name = name, .queue = q, .min = 1 });
	tl_pod(w, &(struct tl_pod){ .name = name, .pg = name, .gpus = gpus, .node = node });
}

static void set_runtime(struct tl_world *w, const char *job, int64_t started, int64_t rt)
{
	struct gt_job *j = &w->c.jobs[tl_job_idx(w, job)];
	j->last_start = started;
	j->max_runtime_s = j->expected_runtime_s = rt;
}

/* On, with room for a gang as large as these small clusters (the default share is half). */
static void reserve_on(struct tl_world *w)
{
	w->c.config.reserve.on = true;
	w->c.config.reserve.share = 1.0;
}

/* One allocate cycle at @now; returns the plan (release it). */
static void cycle_at(struct tl_world *w, int64_t now, struct gt_plan *plan)
{
	if (w->have_session)
		gt_session_release(&w->s);
	gt_cycle_run(&w->s, &w->c, now, TL_ALLOCATE);
	w->have_session = true;
	gt_plan_build(plan, &w->s, NULL);
}

/*
 * Two nodes of 4 GPUs; n1 busy until an hour from now, n2 idle. The gang
 * (two pods of 4) is older than the small job: without reservations the
 * small job takes a GPU of n2 and the gang waits for both nodes at once.
 */
static void two_nodes(struct tl_world *w, const char *quota)
{
	tl_init(w);
	tl_node(w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_node(w, &(struct tl_node){ .name = "n2", .gpus = 4 });
	/* q deserves the cluster: the gang stays within its fair share */
	tl_queue(w, &(struct tl_queue){ .name = "q", .quota = "8" });
	tl_queue(w, &(struct tl_queue){ .name = "other", .quota = quota });
	running(w, "busy", "q", "n1", "4");
	gang(w, "big", "q", 2, "4", "2025-12-31T00:00:00Z");
	tl_pod(w, &(struct tl_pod){ .name = "small", .queue = "other", .gpus = "1" });
}

TEST(off_by_default_small_job_takes_the_free_gpu)
{
	struct tl_world w;
	two_nodes(&w, "0");
	TL_BUILD(&w);
	set_runtime(&w, "busy", TL_NOW - 60, HOUR);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "small"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "big-0"));
	ASSERT_TRUE(!(plan.jobs[tl_job_idx(&w, "big")].reserved));
	ASSERT_EQ(0, plan.jobs[tl_job_idx(&w, "big")].reserved_since);
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(gang_holds_the_nodes_it_will_land_on)
{
	struct tl_world w;
	two_nodes(&w, "0");
	TL_BUILD(&w);
	reserve_on(&w);
	set_runtime(&w, "busy", TL_NOW - 60, HOUR);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	const struct gt_plan_job *pj = &plan.jobs[tl_job_idx(&w, "big")];
	ASSERT_TRUE(pj->reserved);
	ASSERT_EQ(TL_NOW, pj->reserved_since);
	ASSERT_EQ(TL_NOW - 60 + HOUR, pj->reserve_start);
	ASSERT_EQ(8, pj->reserve_gpus);
	ASSERT_EQ(2, pj->reserve_nodes);
	ASSERT_EQ(4, pj->reserve_held);	/* n2's four; n1's free when busy ends */
	/* the small job would run past the start: refused */
	ASSERT_EQ(GT_PENDING, tl_status(&w, "small"));
	ASSERT_EQ(4, tl_idle_gpus(&w, "n2"));
	char text[128];
	gt_reserve_describe(gt_reserve_of(&w.s, tl_job_idx(&w, "big")), text, sizeof(text));
	ASSERT_STR("reserved 8 GPUs on 2 nodes, expected start 01:59 UTC", text);
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(backfill_allowed_when_it_ends_before_the_start)
{
	struct tl_world w;
	two_nodes(&w, "0");
	TL_BUILD(&w);
	reserve_on(&w);
	set_runtime(&w, "busy", TL_NOW - 60, HOUR);
	w.c.jobs[tl_job_idx(&w, "small")].max_runtime_s = 30 * 60;
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_TRUE(plan.jobs[tl_job_idx(&w, "big")].reserved);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "small"));
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(backfill_refused_when_it_would_end_after_the_start)
{
	struct tl_world w;
	two_nodes(&w, "0");
	TL_BUILD(&w);
	reserve_on(&w);
	set_runtime(&w, "busy", TL_NOW - 60, HOUR);
	w.c.jobs[tl_job_idx(&w, "small")].max_runtime_s = HOUR;	/* ends 60 s after the start */
	/* the expected run time is not trusted for backfill: only the limit counts */
	w.c.jobs[tl_job_idx(&w, "small")].expected_runtime_s = 60;
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_TRUE(plan.jobs[tl_job_idx(&w, "big")].reserved);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "small"));
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(queue_under_deserved_quota_is_never_blocked)
{
	struct tl_world w;
	two_nodes(&w, "2");	/* "other" deserves 2 GPUs and has none */
	TL_BUILD(&w);
	reserve_on(&w);
	set_runtime(&w, "busy", TL_NOW - 60, HOUR);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_TRUE(plan.jobs[tl_job_idx(&w, "big")].reserved);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "small"));
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(drain_when_no_run_time_is_known)
{
	struct tl_world w;
	two_nodes(&w, "0");
	TL_BUILD(&w);
	reserve_on(&w);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	const struct gt_plan_job *pj = &plan.jobs[tl_job_idx(&w, "big")];
	ASSERT_TRUE(pj->reserved);
	ASSERT_EQ(GT_RESERVE_NO_START, pj->reserve_start);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "small"));
	/* no start: nothing can end before it, even a short job */
	gt_plan_release(&plan);
	w.c.jobs[tl_job_idx(&w, "small")].max_runtime_s = 60;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "small"));
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(held_across_cycles_then_expires_and_rests)
{
	struct tl_world w;
	two_nodes(&w, "0");
	TL_BUILD(&w);
	reserve_on(&w);
	int64_t hold = w.c.config.reserve.hold_s;
	int32_t big = tl_job_idx(&w, "big");
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(TL_NOW, plan.jobs[big].reserved_since);
	w.c.jobs[big].reserved_since = plan.jobs[big].reserved_since;	/* the front end's part */
	gt_plan_release(&plan);
	/* later, re-planned from scratch: still held, since when unchanged */
	cycle_at(&w, TL_NOW + hold / 2, &plan);
	ASSERT_TRUE(plan.jobs[big].reserved);
	ASSERT_EQ(TL_NOW, plan.jobs[big].reserved_since);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "small"));
	gt_plan_release(&plan);
	/* past the hold: expired; the small job goes, the gang rests */
	cycle_at(&w, TL_NOW + hold, &plan);
	ASSERT_TRUE(!(plan.jobs[big].reserved));
	ASSERT_EQ(TL_NOW, plan.jobs[big].reserved_since);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "small"));
	gt_plan_release(&plan);
	/* after resting as long: a new reservation */
	cycle_at(&w, TL_NOW + 2 * hold, &plan);
	ASSERT_TRUE(plan.jobs[big].reserved);
	ASSERT_EQ(TL_NOW + 2 * hold, plan.jobs[big].reserved_since);
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(no_reservation_for_what_never_fits)
{
	/* three pods of 4 on two nodes of 4: not even an empty cluster takes it */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	gang(&w, "huge", "q", 3, "4", "2025-12-31T00:00:00Z");
	tl_pod(&w, &(struct tl_pod){ .name = "small", .queue = "q", .gpus = "1" });
	TL_BUILD(&w);
	reserve_on(&w);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_TRUE(!(plan.jobs[tl_job_idx(&w, "huge")].reserved));
	ASSERT_EQ(0, plan.jobs[tl_job_idx(&w, "huge")].reserved_since);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "small"));
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(no_reservation_past_the_queue_limit)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .limit = "6" });
	tl_queue(&w, &(struct tl_queue){ .name = "other" });
	running(&w, "busy", "other", "n1", "4");
	gang(&w, "big", "q", 2, "4", "2025-12-31T00:00:00Z");
	tl_pod(&w, &(struct tl_pod){ .name = "small", .queue = "other", .gpus = "1" });
	TL_BUILD(&w);
	reserve_on(&w);
	set_runtime(&w, "busy", TL_NOW - 60, HOUR);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_TRUE(!(plan.jobs[tl_job_idx(&w, "big")].reserved));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "small"));
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(bounded_by_share_of_the_cluster)
{
	struct tl_world w;
	two_nodes(&w, "0");
	TL_BUILD(&w);
	reserve_on(&w);
	w.c.config.reserve.share = 0.5;	/* 4 of 8 GPUs: the gang needs 8 */
	set_runtime(&w, "busy", TL_NOW - 60, HOUR);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_TRUE(!(plan.jobs[tl_job_idx(&w, "big")].reserved));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "small"));
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(gang_placed_ends_its_reservation)
{
	struct tl_world w;
	two_nodes(&w, "0");
	TL_BUILD(&w);
	reserve_on(&w);
	int32_t big = tl_job_idx(&w, "big");
	w.c.jobs[big].reserved_since = TL_NOW - 60;
	/* busy is gone: the gang fits now */
	w.c.pods[tl_pod_idx(&w, "busy")].status = GT_SUCCEEDED;
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "big-0"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "big-1"));
	ASSERT_TRUE(!(plan.jobs[big].reserved));
	ASSERT_EQ(0, plan.jobs[big].reserved_since);
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(topology_required_level_picks_one_rack)
{
	/*
	 * Two racks of two 4-GPU nodes. Rack a frees in an hour, rack b in ten;
	 * an unconstrained planner would take n-a1 (an hour) and n-b2 (idle).
	 * The gang needs one rack: it reserves rack a, starting in an hour.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "---\n{apiVersion: kai.scheduler/v1alpha1, kind: Topology, metadata: {name: t}, "
		    "spec: {levels: [{nodeLabel: rack}]}}\n");
	tl_node(&w, &(struct tl_node){ .name = "n-a1", .gpus = 4, .labels = "rack: a" });
	tl_node(&w, &(struct tl_node){ .name = "n-a2", .gpus = 4, .labels = "rack: a" });
	tl_node(&w, &(struct tl_node){ .name = "n-b1", .gpus = 4, .labels = "rack: b" });
	tl_node(&w, &(struct tl_node){ .name = "n-b2", .gpus = 4, .labels = "rack: b" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	running(&w, "a1", "q", "n-a1", "4");
	running(&w, "a2", "q", "n-a2", "4");
	running(&w, "b1", "q", "n-b1", "4");
	tl_pg(&w, &(struct tl_pg){ .name = "big", .queue = "q", .min = 2, .created = "2025-12-31T00:00:00Z",
				   .spec = "topologyConstraint: {topology: t, requiredTopologyLevel: rack}" });
	for (int i = 0; i < 2; i++) {
		char pod[16];
		snprintf(pod, sizeof(pod), "big-%d", i);
		tl_pod(&w, &(struct tl_pod){ .name = pod, .pg = "big", .gpus = "4" });
	}
	TL_BUILD(&w);
	reserve_on(&w);
	set_runtime(&w, "a1", TL_NOW, HOUR);
	set_runtime(&w, "a2", TL_NOW, HOUR);
	set_runtime(&w, "b1", TL_NOW, 10 * HOUR);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	const struct gt_reservation *r = gt_reserve_of(&w.s, tl_job_idx(&w, "big"));
	ASSERT_TRUE(r != NULL);
	ASSERT_EQ(TL_NOW + HOUR, r->start);
	ASSERT_EQ(2, r->n_nodes);
	ASSERT_EQ(tl_node_idx(&w, "n-a1"), r->nodes[0] < r->nodes[1] ? r->nodes[0] : r->nodes[1]);
	ASSERT_EQ(tl_node_idx(&w, "n-a2"), r->nodes[0] < r->nodes[1] ? r->nodes[1] : r->nodes[0]);
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(aging_lifts_a_long_waiting_job_within_its_queue)
{
	/* one free GPU; the high-priority job is new, the old one waited a day */
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "---\n{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: hi}, value: 60}\n");
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pg(&w, &(struct tl_pg){ .name = "old", .queue = "q", .created = "2025-12-31T00:00:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "old", .pg = "old", .gpus = "1" });
	tl_pg(&w, &(struct tl_pg){ .name = "new", .queue = "q", .prio = "hi", .created = "2026-01-01T00:59:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "new", .pg = "new", .gpus = "1" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "new"));	/* no aging: priority wins */
	w.c.config.aging_weight = 1.0;	/* a point an hour: 25 hours beat 10 points */
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "old"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "new"));
	tl_free(&w);
}

const struct gt_test gt_tests[] = {
	T(off_by_default_small_job_takes_the_free_gpu),
	T(gang_holds_the_nodes_it_will_land_on),
	T(backfill_allowed_when_it_ends_before_the_start),
	T(backfill_refused_when_it_would_end_after_the_start),
	T(queue_under_deserved_quota_is_never_blocked),
	T(drain_when_no_run_time_is_known),
	T(held_across_cycles_then_expires_and_rests),
	T(no_reservation_for_what_never_fits),
	T(no_reservation_past_the_queue_limit),
	T(bounded_by_share_of_the_cluster),
	T(gang_placed_ends_its_reservation),
	T(topology_required_level_picks_one_rack),
	T(aging_lifts_a_long_waiting_job_within_its_queue),
	{ 0 }
};
