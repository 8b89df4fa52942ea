/*
 * test_reserve.c - reservations, backfill and per-job aging (core/reserve.h,
 * docs/reservations.md): the planner's where and when, what holds refuse and
 * allow, expiry, the fair-share rules, and a property over random clusters
 */
#include "core/plan.h"
#include "core/reserve.h"
#include "scheduler/metrics.h"
#include "shapes/snapshot_build.h"
#include "testlib.h"

const char *gt_suite = "reserve";

#define HOUR 3600

/* A PodGroup @name in @q with @n pods "<name>-<i>" of @gpus each, all needed. */
static void gang(struct tl_world *w, const char *name, const char *q, int n, const char *gpus,
		 const char *created)
{
	tl_gang(w, name, q, n, n, gpus, created);
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
	tl_cycle_at(w, now, TL_ALLOCATE);
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

TEST(scheduler_metrics_count_reservations)
{
	struct tl_world w;
	two_nodes(&w, "0");
	TL_BUILD(&w);
	reserve_on(&w);
	set_runtime(&w, "busy", TL_NOW - 60, HOUR);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	struct gt_metrics m;
	gt_metrics_init(&m, "kai");
	m.scheduler = true;
	struct gt_kube_snapshot snap;
	struct gt_writes wr;
	memset(&snap, 0, sizeof(snap));
	memset(&wr, 0, sizeof(wr));
	gt_metrics_count_cycle(&m, &snap, &plan, &wr, NULL, 1000);
	gt_metrics_count_cycle(&m, &snap, &plan, &wr, NULL, 1000 + 3600 * 1000);	/* an hour later */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	gt_metrics_write(&m, f);
	fclose(f);
	ASSERT_CONTAINS(text, "kai_reservations_held 1.000");
	ASSERT_CONTAINS(text, "kai_reserved_gpus_held 4.000");	/* n2's four */
	ASSERT_CONTAINS(text, "kai_reserved_gpu_hours_total 4.000");
	free(text);
	gt_metrics_release(&m);
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(horizon_holds_nothing_while_the_start_is_far)
{
	struct tl_world w;
	two_nodes(&w, "0");
	TL_BUILD(&w);
	reserve_on(&w);
	set_runtime(&w, "busy", TL_NOW - 60, HOUR);	/* the gang's start: 59 min from now */
	w.c.config.reserve.horizon_s = 30 * 60;
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	const struct gt_plan_job *pj = &plan.jobs[tl_job_idx(&w, "big")];
	ASSERT_TRUE(pj->reserved);
	ASSERT_EQ(0, pj->reserve_held);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "small"));	/* nothing held yet */
	gt_plan_release(&plan);
	w.c.config.reserve.horizon_s = 2 * HOUR;	/* within the horizon: held */
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(4, plan.jobs[tl_job_idx(&w, "big")].reserve_held);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "small"));
	gt_plan_release(&plan);
	tl_free(&w);
}

/*
 * The hold counts from when GPUs are first held (the expected start less the
 * horizon), not from when the reservation was first planned: a gang whose
 * start is ten hours off keeps its reservation past a six-hour hold, and it
 * still expires a hold after it began holding.
 */
TEST(hold_counts_from_the_start_less_the_horizon)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .quota = "8" });
	running(&w, "busy", "q", "n1", "4");
	gang(&w, "big", "q", 2, "4", "2025-12-31T00:00:00Z");
	TL_BUILD(&w);
	reserve_on(&w);
	w.c.config.reserve.hold_s = 6 * HOUR;
	w.c.config.reserve.horizon_s = 2 * HOUR;
	set_runtime(&w, "busy", TL_NOW, 10 * HOUR);	/* the gang's start: ten hours from now */
	int32_t big = tl_job_idx(&w, "big");
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_TRUE(plan.jobs[big].reserved);
	ASSERT_EQ(TL_NOW + 10 * HOUR, plan.jobs[big].reserve_start);
	ASSERT_EQ(0, plan.jobs[big].reserve_held);
	ASSERT_EQ(0, plan.jobs[big].reserved_since);	/* far off: its hold has not begun */
	w.c.jobs[big].reserved_since = plan.jobs[big].reserved_since;	/* the front end's part */
	gt_plan_release(&plan);
	/* seven hours on (past a hold counted from the first plan): not yet held */
	cycle_at(&w, TL_NOW + 7 * HOUR, &plan);
	ASSERT_TRUE(plan.jobs[big].reserved);
	ASSERT_EQ(0, plan.jobs[big].reserved_since);
	w.c.jobs[big].reserved_since = plan.jobs[big].reserved_since;
	gt_plan_release(&plan);
	/* within the horizon: held, the hold begins */
	int64_t began = TL_NOW + 9 * HOUR;
	cycle_at(&w, began, &plan);
	ASSERT_TRUE(plan.jobs[big].reserved);
	ASSERT_EQ(4, plan.jobs[big].reserve_held);	/* n2's four; n1's free when busy ends */
	ASSERT_EQ(began, plan.jobs[big].reserved_since);
	w.c.jobs[big].reserved_since = plan.jobs[big].reserved_since;
	gt_plan_release(&plan);
	/* busy overruns its estimate: the start is "any moment now", held until the hold is over */
	cycle_at(&w, began + 6 * HOUR - 1, &plan);
	ASSERT_TRUE(plan.jobs[big].reserved);
	ASSERT_EQ(began, plan.jobs[big].reserved_since);
	gt_plan_release(&plan);
	cycle_at(&w, began + 6 * HOUR, &plan);
	ASSERT_TRUE(!plan.jobs[big].reserved);	/* expired: it rests */
	ASSERT_EQ(began, plan.jobs[big].reserved_since);
	gt_plan_release(&plan);
	tl_free(&w);
}

/* ---------------------------------------------------------------- maximum run time */

/* One node of 8 GPUs; "late" (2 pods of 2 GPUs) started 2 h ago with a 1 h maximum, in queue @q. */
static void late_world(struct tl_world *w, const char *q_annotations)
{
	tl_init(w);
	tl_node(w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_yaml(w, "---\n{apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: top, "
		   "creationTimestamp: '2026-01-01T00:00:00Z', annotations: {%s}}, spec: {resources: "
		   "{gpu: {quota: 8, limit: -1, overQuotaWeight: 1}, cpu: {quota: -1, limit: -1, overQuotaWeight: 1}, "
		   "memory: {quota: -1, limit: -1, overQuotaWeight: 1}}}}\n", q_annotations);
	tl_queue(w, &(struct tl_queue){ .name = "q", .parent = "top", .quota = "8" });
	tl_pg(w, &(struct tl_pg){ .name = "late", .queue = "q", .min = 2 });
	tl_pod(w, &(struct tl_pod){ .name = "late-0", .pg = "late", .gpus = "2", .node = "n1" });
	tl_pod(w, &(struct tl_pod){ .name = "late-1", .pg = "late", .gpus = "2", .node = "n1" });
	tl_pg(w, &(struct tl_pg){ .name = "fresh", .queue = "q", .min = 1 });
	tl_pod(w, &(struct tl_pod){ .name = "fresh-0", .pg = "fresh", .gpus = "2", .node = "n1" });
}

static void late_times(struct tl_world *w)
{
	set_runtime(w, "late", TL_NOW - 2 * HOUR, HOUR);
	set_runtime(w, "fresh", TL_NOW - HOUR / 2, HOUR);
}

TEST(max_runtime_evicted_where_an_ancestor_queue_enforces)
{
	struct tl_world w;
	late_world(&w, "gantry.dev/enforce-max-runtime: 'true'");
	TL_BUILD(&w);
	late_times(&w);
	ASSERT_TRUE(w.c.queues[tl_queue_idx(&w, "top")].enforce_max_runtime);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(GT_RELEASING, tl_status(&w, "late-0"));
	ASSERT_EQ(GT_RELEASING, tl_status(&w, "late-1"));
	ASSERT_EQ(GT_RUNNING, tl_status(&w, "fresh-0"));	/* 30 min of its hour */
	ASSERT_TRUE(plan.jobs[tl_job_idx(&w, "late")].max_runtime_evicted);
	ASSERT_TRUE(!plan.jobs[tl_job_idx(&w, "fresh")].max_runtime_evicted);
	ASSERT_EQ(2, plan.n_evictions);
	ASSERT_EQ(GT_EVICT_MAX_RUNTIME, plan.evictions[0].action);
	ASSERT_EQ(GT_NONE, plan.evictions[0].evictor_job);
	ASSERT_STR("maxruntime", gt_action_name(plan.evictions[0].action));
	ASSERT_STR("Pod default/late-0 was evicted: its workload ran past its maximum run time (1h0m0s)",
		   plan.evictions[0].message);
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(max_runtime_not_evicted_unless_the_queue_asks)
{
	struct tl_world w;
	late_world(&w, "");
	TL_BUILD(&w);
	late_times(&w);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(GT_RUNNING, tl_status(&w, "late-0"));
	ASSERT_EQ(0, plan.n_evictions);
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(max_runtime_from_pod_and_owner_job_deadlines)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_yaml(&w, "---\n{apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: q, annotations: "
		    "{gantry.dev/default-max-runtime: 3h}}, spec: {resources: {gpu: {quota: 8, limit: -1}, "
		    "cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}}\n");
	tl_yaml(&w, "---\n{apiVersion: batch/v1, kind: Job, metadata: {name: trainer, namespace: default}, "
		    "spec: {activeDeadlineSeconds: 5400}}\n");
	tl_pg(&w, &(struct tl_pg){ .name = "bypod", .queue = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "bypod-0", .pg = "bypod", .gpus = "1", .spec = "activeDeadlineSeconds: 600" });
	tl_pg(&w, &(struct tl_pg){ .name = "byjob", .queue = "q" });
	tl_yaml(&w, "---\n{apiVersion: v1, kind: Pod, metadata: {name: byjob-0, namespace: default, "
		    "annotations: {pod-group-name: byjob}, ownerReferences: [{apiVersion: batch/v1, kind: Job, "
		    "name: trainer, uid: u1}]}, spec: {schedulerName: kai-scheduler, containers: [{name: m, "
		    "resources: {requests: {nvidia.com/gpu: '1'}}}]}, status: {phase: Pending}}\n");
	tl_pg(&w, &(struct tl_pg){ .name = "default", .queue = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "default-0", .pg = "default", .gpus = "1" });
	TL_BUILD(&w);
	ASSERT_EQ(600, w.c.jobs[tl_job_idx(&w, "bypod")].max_runtime_s);
	ASSERT_EQ(5400, w.c.jobs[tl_job_idx(&w, "byjob")].max_runtime_s);
	ASSERT_EQ(3 * HOUR, w.c.jobs[tl_job_idx(&w, "default")].max_runtime_s);
	tl_free(&w);
}

/* ---------------------------------------------------------------- preemptible backfill */

TEST(preemptible_backfill_mode_lets_a_preemptible_job_use_held_gpus)
{
	struct tl_world w;
	two_nodes(&w, "0");
	TL_BUILD(&w);
	reserve_on(&w);
	set_runtime(&w, "busy", TL_NOW - 60, HOUR);
	int32_t small = tl_job_idx(&w, "small");
	w.c.jobs[small].preemptible = true;
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "small"));	/* run-time mode: it would end after the start */
	gt_plan_release(&plan);
	w.c.config.reserve.backfill_preemptible = true;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_TRUE(plan.jobs[tl_job_idx(&w, "big")].reserved);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "small"));
	w.c.jobs[small].preemptible = false;	/* a non-preemptible job still may not */
	gt_plan_release(&plan);
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "small"));
	gt_plan_release(&plan);
	tl_free(&w);
}

/*
 * The gang "big" (2 x 4 GPUs) has held n1 and n2 since 10 min ago; n1 is
 * idle, a preemptible 1-GPU job runs on n2. @bf_started: when it started.
 */
static void backfilled_in(struct tl_world *w, int64_t bf_started, bool preemptible_mode, const char *other_quota)
{
	tl_init(w);
	tl_node(w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_node(w, &(struct tl_node){ .name = "n2", .gpus = 4 });
	tl_queue(w, &(struct tl_queue){ .name = "q", .quota = "8" });
	/* "other" is ordered first: its jobs are tried before the gang */
	tl_queue(w, &(struct tl_queue){ .name = "other", .quota = other_quota, .priority = 200 });
	gang(w, "big", "q", 2, "4", "2025-12-31T00:00:00Z");
	running(w, "filler", "other", "n2", "1");
	/* a preemptible job pending since before the gang: it may backfill, but not once the gang starts */
	tl_pod(w, &(struct tl_pod){ .name = "eager", .queue = "other", .gpus = "1", .created = "2025-12-30T00:00:00Z" });
	TL_BUILD(w);
	w->c.jobs[tl_job_idx(w, "eager")].preemptible = true;
	reserve_on(w);
	w->c.config.reserve.backfill_preemptible = preemptible_mode;
	int32_t f = tl_job_idx(w, "filler");
	w->c.jobs[f].preemptible = true;
	w->c.jobs[f].last_start = bf_started;
	w->c.jobs[tl_job_idx(w, "big")].reserved_since = TL_NOW - 600;
}

/* "other" deserves nothing: the filler is over its queue's deserved quota. */
static void backfilled(struct tl_world *w, int64_t bf_started, bool preemptible_mode)
{
	backfilled_in(w, bf_started, preemptible_mode, "0");
}

TEST(preemptible_backfiller_evicted_when_the_reservation_starts)
{
	struct tl_world w;
	backfilled(&w, TL_NOW - 300, true);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(GT_RELEASING, tl_status(&w, "filler"));
	ASSERT_EQ(1, plan.n_evictions);
	ASSERT_EQ(GT_EVICT_BACKFILL, plan.evictions[0].action);
	ASSERT_EQ(tl_job_idx(&w, "big"), plan.evictions[0].evictor_job);
	ASSERT_STR("Pod default/filler was evicted: it backfilled GPUs reserved for default/big, whose "
		   "reservation starts now", plan.evictions[0].message);
	/* the gang lands on the room the backfiller leaves; another preemptible job may not take it */
	ASSERT_TRUE(tl_status(&w, "big-0") == GT_PIPELINED || tl_status(&w, "big-0") == GT_BINDING);
	ASSERT_TRUE(tl_status(&w, "big-1") == GT_PIPELINED || tl_status(&w, "big-1") == GT_BINDING);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "eager"));
	/* pipelined onto n2's releasing GPU: the reservation holds on until the gang is bound */
	ASSERT_EQ(GT_PIPELINED, tl_status(&w, "big-1"));
	ASSERT_TRUE(plan.jobs[tl_job_idx(&w, "big")].reserved);
	ASSERT_EQ(TL_NOW - 600, plan.jobs[tl_job_idx(&w, "big")].reserved_since);
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(preemptible_backfiller_gone_the_gang_is_bound_next_cycle)
{
	struct tl_world w;
	backfilled(&w, TL_NOW - 300, true);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(GT_RELEASING, tl_status(&w, "filler"));
	int32_t big = tl_job_idx(&w, "big");
	w.c.jobs[big].reserved_since = plan.jobs[big].reserved_since;	/* the front end's part */
	gt_plan_release(&plan);
	/* the front end: the backfiller is gone and made again, pending; the gang still pending */
	struct gt_pod *f = &w.c.pods[tl_pod_idx(&w, "filler")];
	f->status = GT_PENDING;
	f->node = GT_NONE;
	w.c.jobs[tl_job_idx(&w, "filler")].last_start = 0;
	cycle_at(&w, TL_NOW + 1, &plan);
	ASSERT_EQ(0, plan.n_evictions);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "big-0"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "big-1"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "filler"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "eager"));
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(preemptible_job_started_before_the_reservation_is_no_backfiller)
{
	struct tl_world w;
	backfilled(&w, TL_NOW - 900, true);	/* before the reservation began */
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(GT_RUNNING, tl_status(&w, "filler"));
	ASSERT_EQ(0, plan.n_evictions);
	ASSERT_TRUE(plan.jobs[tl_job_idx(&w, "big")].reserved);	/* a drain: it waits */
	ASSERT_EQ(GT_BINDING, tl_status(&w, "eager"));	/* and a preemptible job backfills it */
	ASSERT_EQ(1, plan.backfilled_gpus);
	gt_plan_release(&plan);
	tl_free(&w);
}

/*
 * A preemptible job whose queue is within its deserved quota was entitled to
 * the room (holds never block it): it is no backfiller and is not evicted
 * when the reservation starts, else it would take the room back next cycle
 * and be evicted again, cycle after cycle.
 */
TEST(preemptible_job_within_deserved_quota_is_no_backfiller)
{
	struct tl_world w;
	backfilled_in(&w, TL_NOW - 300, true, "1");	/* the filler's one GPU is what "other" deserves */
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(GT_RUNNING, tl_status(&w, "filler"));
	ASSERT_EQ(0, plan.n_evictions);
	ASSERT_TRUE(plan.jobs[tl_job_idx(&w, "big")].reserved);	/* it waits for the filler as for any pod */
	ASSERT_EQ(GT_PENDING, tl_status(&w, "big-0"));
	gt_plan_release(&plan);
	tl_free(&w);
	/* over its deserved quota (it deserves none): a backfiller, evicted as before */
	backfilled_in(&w, TL_NOW - 300, true, "0");
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(GT_RELEASING, tl_status(&w, "filler"));
	ASSERT_EQ(1, plan.n_evictions);
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(run_time_mode_never_evicts_and_counts_backfilled_gpus)
{
	struct tl_world w;
	backfilled(&w, TL_NOW - 300, false);
	struct gt_plan plan;
	cycle_at(&w, TL_NOW, &plan);
	ASSERT_EQ(GT_RUNNING, tl_status(&w, "filler"));
	ASSERT_EQ(0, plan.n_evictions);
	ASSERT_TRUE(plan.jobs[tl_job_idx(&w, "big")].reserved);
	ASSERT_EQ(1, plan.backfilled_gpus);	/* started while n2 was held */
	struct gt_metrics m;
	gt_metrics_init(&m, "kai");
	m.scheduler = true;
	struct gt_kube_snapshot snap;
	struct gt_writes wr;
	memset(&snap, 0, sizeof(snap));
	memset(&wr, 0, sizeof(wr));
	gt_metrics_count_cycle(&m, &snap, &plan, &wr, NULL, 1000);
	gt_metrics_count_cycle(&m, &snap, &plan, &wr, NULL, 1000 + 2 * 3600 * 1000);	/* two hours later */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	gt_metrics_write(&m, f);
	fclose(f);
	ASSERT_CONTAINS(text, "# TYPE kai_backfilled_gpus gauge");
	ASSERT_CONTAINS(text, "kai_backfilled_gpus 1.000");
	ASSERT_CONTAINS(text, "kai_backfilled_gpu_hours_total 2.000");
	free(text);
	gt_metrics_release(&m);
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(shard_and_queue_annotations_of_run_times_decoded)
{
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default, "
		    "annotations: {gantry.dev/reservations: 'true', gantry.dev/reserve-backfill: preemptible, "
		    "gantry.dev/reserve-horizon: 2h}}, spec: {}}\n");
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	TL_BUILD(&w);
	ASSERT_TRUE(w.c.config.reserve.backfill_preemptible);
	ASSERT_EQ(2 * HOUR, w.c.config.reserve.horizon_s);
	ASSERT_TRUE(!w.c.queues[0].enforce_max_runtime);
	tl_free(&w);
}

/* ---------------------------------------------------------------- property */

static uint64_t rng;

static uint32_t below(uint32_t n)
{
	return bench_rng_below(&rng, n);
}

/*
 * A random cluster: 2-4 nodes of 4 or 8 GPUs, two queues, running pods (some
 * with run times, some never ending), pending gangs of 2-3 pods and 1-GPU
 * jobs, some with a max run time.
 */
static int random_world(struct tl_world *w)
{
	tl_init(w);
	uint32_t n_nodes = 2 + below(3);
	tl_queue(w, &(struct tl_queue){ .name = "qa", .quota = below(2) ? "4" : "0" });
	tl_queue(w, &(struct tl_queue){ .name = "qb", .quota = "0" });
	for (uint32_t i = 0; i < n_nodes; i++) {
		char node[16], pod[16];
		snprintf(node, sizeof(node), "n%u", i);
		int gpus = below(2) ? 8 : 4;
		tl_node(w, &(struct tl_node){ .name = node, .gpus = gpus });
		for (uint32_t k = 0, used = 0; k < 3; k++) {
			uint32_t g = 1 + below(4);
			if (used + g > (uint32_t)gpus || below(3) == 0)
				continue;
			used += g;
			snprintf(pod, sizeof(pod), "r%u-%u", i, k);
			char gs[8];
			snprintf(gs, sizeof(gs), "%u", g);
			running(w, pod, below(2) ? "qa" : "qb", node, gs);
		}
	}
	uint32_t n_gangs = 1 + below(3), n_small = below(5);
	for (uint32_t i = 0; i < n_gangs; i++) {
		char name[16];
		snprintf(name, sizeof(name), "g%u", i);
		gang(w, name, below(2) ? "qa" : "qb", 2 + (int)below(2), below(2) ? "4" : "2",
		     "2025-12-31T00:00:00Z");
	}
	for (uint32_t i = 0; i < n_small; i++) {
		char name[16];
		snprintf(name, sizeof(name), "s%u", i);
		tl_pod(w, &(struct tl_pod){ .name = name, .queue = below(2) ? "qa" : "qb", .gpus = "1" });
	}
	return tl_build(w);
}

/* Give running jobs start times and (some) run times; pending jobs (some) max run times. */
static void random_runtimes(struct tl_world *w)
{
	for (uint32_t j = 0; j < w->c.n_jobs; j++) {
		struct gt_job *job = &w->c.jobs[j];
		bool runs = job->n_pods && w->c.pods[job->pods[0]].node >= 0;
		if (runs)
			job->last_start = TL_NOW - 600;
		if (below(3))
			job->max_runtime_s = job->expected_runtime_s = 900 + 900 * below(8);
	}
}

/*
 * No job waits behind a reservation that never starts. Nothing ends here
 * (the snapshot stays as it is), so a drain never starts: every cycle, from
 * the first on through two hold periods, each reservation is younger than
 * its hold, and a job that KAI would place on the same snapshot but that
 * waits with reservations on waits only while some reservation that young
 * holds. Once a reservation is past its hold the job rests as long.
 */
TEST(property_no_job_waits_behind_a_reservation_that_never_starts)
{
	for (uint64_t seed = 1; seed <= 150; seed++) {
		struct tl_world on, off;
		rng = seed * 2654435761u + 7;	/* the same cluster twice: reservations on and off */
		ASSERT_EQ(0, random_world(&on));
		random_runtimes(&on);
		rng = seed * 2654435761u + 7;
		ASSERT_EQ(0, random_world(&off));
		random_runtimes(&off);
		reserve_on(&on);
		int64_t hold = on.c.config.reserve.hold_s;
		for (int k = 0; k <= 8; k++) {
			int64_t now = TL_NOW + k * hold / 4;
			struct gt_plan pon, poff;
			cycle_at(&on, now, &pon);
			cycle_at(&off, now, &poff);
			ASSERT_TRUE(gt_session_check(&on.s));
			/* a hold this cycle: one planned again from the carried time, or a new one */
			bool young_hold = false;
			for (uint32_t j = 0; j < on.c.n_jobs; j++)
				young_hold |= on.c.jobs[j].reserved_since && now < on.c.jobs[j].reserved_since + hold;
			for (uint32_t j = 0; j < on.c.n_jobs; j++) {
				const struct gt_plan_job *pj = &pon.jobs[j];
				if (pj->reserved && !pj->reserved_since)
					ASSERT_EQ(0, pj->reserve_held);	/* far off: holds nothing, not begun */
				if (pj->reserved && pj->reserved_since) {
					ASSERT_TRUE(pj->reserved_since <= now && now < pj->reserved_since + hold);
					young_hold = true;
				}
				if (pj->reserved_since && now >= pj->reserved_since + hold)
					ASSERT_TRUE(!pj->reserved);	/* expired: it rests */
			}
			for (uint32_t i = 0; i < on.c.n_pods; i++) {
				bool kai = gt_plan_bind_of(&poff, (int32_t)i) != NULL;
				bool here = gt_plan_bind_of(&pon, (int32_t)i) != NULL ||
					    gt_plan_eviction_of(&pon, (int32_t)i) != NULL;
				const struct gt_reservation *mine = gt_reserve_of(&on.s, on.c.pods[i].job);
				if (kai && !here && !mine && !young_hold)
					fprintf(stderr, "seed %llu cycle %d: %s waits with no reservation\n",
						(unsigned long long)seed, k,
						gt_strtab_str(&on.names, on.c.pods[i].name));
				if (kai && !here && !mine)
					ASSERT_TRUE(young_hold);	/* held back only by a live reservation */
			}
			for (uint32_t j = 0; j < on.c.n_jobs; j++)	/* the front end's part */
				on.c.jobs[j].reserved_since = pon.jobs[j].reserved_since;
			gt_plan_release(&pon);
			gt_plan_release(&poff);
			if (gt_test_failures)
				break;
		}
		tl_free(&on);
		tl_free(&off);
		if (gt_test_failures) {
			fprintf(stderr, "seed %llu\n", (unsigned long long)seed);
			return;
		}
	}
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
	T(property_no_job_waits_behind_a_reservation_that_never_starts),
	T(scheduler_metrics_count_reservations),
	T(max_runtime_evicted_where_an_ancestor_queue_enforces),
	T(max_runtime_not_evicted_unless_the_queue_asks),
	T(max_runtime_from_pod_and_owner_job_deadlines),
	T(preemptible_backfill_mode_lets_a_preemptible_job_use_held_gpus),
	T(preemptible_backfiller_evicted_when_the_reservation_starts),
	T(preemptible_job_started_before_the_reservation_is_no_backfiller),
	T(run_time_mode_never_evicts_and_counts_backfilled_gpus),
	T(shard_and_queue_annotations_of_run_times_decoded),
	T(horizon_holds_nothing_while_the_start_is_far),
	T(preemptible_backfiller_gone_the_gang_is_bound_next_cycle),
	T(preemptible_job_within_deserved_quota_is_no_backfiller),
	T(hold_counts_from_the_start_less_the_horizon),
	{ 0 }
};
