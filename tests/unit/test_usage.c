/*
 * test_usage.c - time-based fair share: the usage history (core/usage.h),
 * its effect on the over-quota division (KAI's calcShareWeights), the
 * windows' starts (util/cron, Prometheus durations). Its ConfigMaps:
 * test_usagestore.c. Expected values are worked out in the comments.
 */
#include <math.h>

#include "core/usage.h"
#include "testlib.h"
#include "util/cron.h"
#include "util/time.h"

const char *gt_suite = "usage";

#define T0 1767225600	/* 2026-01-01T00:00:00Z, a Thursday */

static void near(double want, double got, const char *what, int line)
{
	if (fabs(want - got) > 1e-9) {
		fprintf(stderr, "%s:%d: %s: %.12f, expected %.12f\n", __FILE__, line, what, got, want);
		gt_test_failures++;
	}
}
#define ASSERT_NEAR(want, got)                                   \
	do {                                                     \
		int f_ = gt_test_failures;                       \
		near((want), (got), #got, __LINE__);             \
		if (gt_test_failures != f_)                      \
			return;                                  \
	} while (0)

/*
 * A cluster of one 8-GPU node and queue "a" (and its parent "dept"); a
 * session whose only pod of "a" holds @gpus GPUs (0: pending).
 */
static void world(struct tl_world *w, const char *gpus, bool running)
{
	tl_init(w);
	tl_node(w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_queue(w, &(struct tl_queue){ .name = "dept" });
	tl_queue(w, &(struct tl_queue){ .name = "a", .parent = "dept" });
	tl_pg(w, &(struct tl_pg){ .name = "j", .queue = "a" });
	tl_pod(w, &(struct tl_pod){ .name = "j-0", .pg = "j", .gpus = gpus, .node = running ? "n1" : NULL });
}

static struct gt_usage_params sliding(int64_t window, int64_t half_life)
{
	struct gt_usage_params p = { .on = true, .window_s = window, .half_life_s = half_life,
				     .window = GT_WINDOW_SLIDING, .fetch_interval_s = 60 };
	return p;
}

/* From T0: 10 s at @busy's rates, then 10 s at @idle's, into a new history @h. */
static void busy_then_idle(struct gt_usage_history *h, const struct gt_usage_params *p,
			   const struct tl_world *busy, const struct tl_world *idle)
{
	gt_usage_init(h, p, T0);
	gt_usage_advance(h, T0);
	gt_usage_set_rates(h, &busy->s);
	gt_usage_advance(h, T0 + 10);
	gt_usage_set_rates(h, &idle->s);
	gt_usage_advance(h, T0 + 20);
}

/*
 * 4 of 8 GPUs for 10 s, then nothing for 10 s, in a 20 s sliding window:
 * usage = 4*10 / (8*20) = 0.25, for the queue and for its parent alike.
 */
TEST(usage_is_allocation_over_capacity)
{
	struct tl_world w, idle;
	world(&w, "4", true);
	world(&idle, "4", false);
	TL_BUILD(&w);
	TL_BUILD(&idle);
	tl_open(&w);
	tl_open(&idle);
	struct gt_usage_params p = sliding(20, 0);
	struct gt_usage_history h;
	busy_then_idle(&h, &p, &w, &idle);
	ASSERT_EQ(1, h.bucket_s);	/* windows up to 512 s: one bucket a second, as KAI's simulator */
	gt_usage_apply(&h, &p, &w.c, T0 + 20);
	ASSERT_NEAR(0.25, w.c.queues[tl_queue_idx(&w, "a")].usage[GT_QGPU]);
	ASSERT_NEAR(0.25, w.c.queues[tl_queue_idx(&w, "dept")].usage[GT_QGPU]);
	/* ten seconds on, the busy half has slid out: usage 4*0 ... over 8*20 = 0 */
	gt_usage_advance(&h, T0 + 30);
	gt_usage_apply(&h, &p, &w.c, T0 + 30);
	ASSERT_NEAR(0.0, w.c.queues[tl_queue_idx(&w, "a")].usage[GT_QGPU]);
	gt_usage_release(&h);
	tl_free(&w);
	tl_free(&idle);
}

/*
 * The same with a half-life of 10 s. Second-buckets [t, t+1) weigh
 * r^(now - t) with r = 0.5^(1/10): the busy ones are 11..20 s old, all
 * twenty 1..20 s old. usage = 4 sum_{11..20} r^a / (8 sum_{1..20} r^a)
 * = 0.5 * r^10 (1 - r^10) / (1 - r^20) = 0.5 * 0.5 * 0.5 / 0.75 = 1/6.
 */
TEST(half_life_decays_old_usage)
{
	struct tl_world w, idle;
	world(&w, "4", true);
	world(&idle, "4", false);
	TL_BUILD(&w);
	TL_BUILD(&idle);
	tl_open(&w);
	tl_open(&idle);
	struct gt_usage_params p = sliding(20, 10);
	struct gt_usage_history h;
	busy_then_idle(&h, &p, &w, &idle);
	gt_usage_apply(&h, &p, &w.c, T0 + 20);
	ASSERT_NEAR(1.0 / 6, w.c.queues[tl_queue_idx(&w, "a")].usage[GT_QGPU]);
	gt_usage_release(&h);
	tl_free(&w);
	tl_free(&idle);
}

/* A pipelined or evicted pod uses nothing; a queue the history has never seen has usage 0. */
TEST(pending_pods_use_nothing)
{
	struct tl_world w;
	world(&w, "4", false);
	TL_BUILD(&w);
	tl_open(&w);
	struct gt_usage_params p = sliding(60, 0);
	struct gt_usage_history h;
	gt_usage_init(&h, &p, T0);
	gt_usage_advance(&h, T0);
	gt_usage_set_rates(&h, &w.s);
	ASSERT_NEAR(0.0, gt_usage_queue(&h, "a")->rate[GT_QGPU]);
	ASSERT_NEAR(8000.0, h.cap_rate[GT_QGPU]);
	gt_usage_advance(&h, T0 + 30);
	gt_usage_apply(&h, &p, &w.c, T0 + 30);
	ASSERT_NEAR(0.0, w.c.queues[tl_queue_idx(&w, "a")].usage[GT_QGPU]);
	gt_usage_release(&h);
	tl_free(&w);
}

/*
 * KAI's calcShareWeights. 16 GPUs, queues a and b (weight 1, no quota,
 * both asking for 16), k = 1, usage a = 0.75, b = 0: normalised weights
 * 0.5 each; a: 0.5 + (0.5 - 0.75) = 0.25, b: 0.5 + 0.5 = 1. Round one
 * gives a 16 * 0.25/1.25 = 3.2 -> 3 (0.2 left over), b 12.8 -> 12 (0.8);
 * the last GPU goes to the larger leftover: a = 3, b = 13. Without usage,
 * 8 and 8.
 */
TEST(usage_shifts_the_over_quota_share)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 16 });
	tl_queue(&w, &(struct tl_queue){ .name = "a" });
	tl_queue(&w, &(struct tl_queue){ .name = "b" });
	tl_pg(&w, &(struct tl_pg){ .name = "ja", .queue = "a" });
	tl_pod(&w, &(struct tl_pod){ .name = "ja", .pg = "ja", .gpus = "16" });
	tl_pg(&w, &(struct tl_pg){ .name = "jb", .queue = "b" });
	tl_pod(&w, &(struct tl_pod){ .name = "jb", .pg = "jb", .gpus = "16" });
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(8000, tl_fair_share(&w, "a", GT_QGPU));
	ASSERT_EQ(8000, tl_fair_share(&w, "b", GT_QGPU));
	w.c.queues[tl_queue_idx(&w, "a")].usage[GT_QGPU] = 0.75;
	tl_open(&w);
	ASSERT_EQ(3000, tl_fair_share(&w, "a", GT_QGPU));
	ASSERT_EQ(13000, tl_fair_share(&w, "b", GT_QGPU));
	/* usage past 1.5 floors a's weight at 0: b takes all 16 */
	w.c.queues[tl_queue_idx(&w, "a")].usage[GT_QGPU] = 1.6;
	tl_open(&w);
	ASSERT_EQ(0, tl_fair_share(&w, "a", GT_QGPU));
	ASSERT_EQ(16000, tl_fair_share(&w, "b", GT_QGPU));
	tl_free(&w);
}

/* Tumbling: since start + n * window strictly before now (KAI's getLatestUsageResetTime). */
TEST(tumbling_window_start)
{
	struct gt_usage_params p = { .on = true, .window = GT_WINDOW_TUMBLING, .window_s = 3600,
				     .tumbling_start = T0 };
	struct gt_usage_history h;
	gt_usage_init(&h, &p, T0);
	h.until = T0 + 7200;
	h.newest = (T0 + 7200) / h.bucket_s;
	ASSERT_EQ(T0 + 3600, gt_usage_window_start(&h, &p, T0 + 3600 + 1));
	ASSERT_EQ(T0, gt_usage_window_start(&h, &p, T0 + 3600));	/* exactly on a reset: the one before */
	ASSERT_EQ(T0, gt_usage_window_start(&h, &p, T0 + 1800));	/* inside the first window */
	ASSERT_EQ(T0 - 60, gt_usage_window_start(&h, &p, T0 - 60));	/* a start still to come: size 0 */
	gt_usage_release(&h);
}

TEST(cron_previous_firing)
{
	struct gt_cron c;
	char why[256];
	ASSERT_EQ(0, gt_cron_parse("@daily", &c, why, sizeof(why)));
	ASSERT_EQ(T0, gt_cron_prev(&c, T0 + 5 * 3600));
	ASSERT_EQ(T0 - 86400, gt_cron_prev(&c, T0));	/* strictly before */
	ASSERT_EQ(0, gt_cron_parse("*/15 * * * *", &c, why, sizeof(why)));
	ASSERT_EQ(T0 + 45 * 60, gt_cron_prev(&c, T0 + 59 * 60));
	/* weekdays at 09:00: from Saturday 2026-01-03 noon back to Friday the 2nd */
	ASSERT_EQ(0, gt_cron_parse("0 9 * * mon-fri", &c, why, sizeof(why)));
	ASSERT_EQ(T0 + 86400 + 9 * 3600, gt_cron_prev(&c, T0 + 2 * 86400 + 12 * 3600));
	/* both day fields restricted: either one fires (the 2nd of the month, or a Sunday) */
	ASSERT_EQ(0, gt_cron_parse("0 0 2 * 0", &c, why, sizeof(why)));
	ASSERT_EQ(T0 + 3 * 86400, gt_cron_prev(&c, T0 + 3 * 86400 + 60));	/* Sunday the 4th */
	ASSERT_EQ(T0 + 86400, gt_cron_prev(&c, T0 + 3 * 86400));		/* the 2nd */
	ASSERT_EQ(-1, gt_cron_parse("0 0 * *", &c, why, sizeof(why)));
	ASSERT_CONTAINS(why, "five fields");
	ASSERT_EQ(-1, gt_cron_parse("61 * * * *", &c, why, sizeof(why)));
	ASSERT_CONTAINS(why, "minute");
	ASSERT_EQ(0, gt_cron_parse("0 0 30 2 *", &c, why, sizeof(why)));
	ASSERT_EQ(-1, gt_cron_prev(&c, T0));	/* February 30th never comes */
}

TEST(prometheus_durations)
{
	int64_t s;
	ASSERT_EQ(0, gt_duration_parse_prom("1w", &s));
	ASSERT_EQ(604800, s);
	ASSERT_EQ(0, gt_duration_parse_prom("168h", &s));
	ASSERT_EQ(604800, s);
	ASSERT_EQ(0, gt_duration_parse_prom("1d2h30m", &s));
	ASSERT_EQ(86400 + 9000, s);
	ASSERT_EQ(0, gt_duration_parse_prom("4m16s", &s));	/* what KAI's simulator writes for 256 */
	ASSERT_EQ(256, s);
	ASSERT_EQ(0, gt_duration_parse_prom("0", &s));
	ASSERT_EQ(0, s);
	ASSERT_TRUE(gt_duration_parse_prom("1h1d", &s) != 0);	/* largest unit first */
	ASSERT_TRUE(gt_duration_parse_prom("", &s) != 0);
	ASSERT_TRUE(gt_duration_parse_prom("1.5h", &s) != 0);
	ASSERT_TRUE(gt_duration_parse_prom("10", &s) != 0);
}

/* A changed window re-buckets: every allocation-second is still there. */
TEST(reconfigure_keeps_the_totals)
{
	struct tl_world w;
	world(&w, "2", true);
	TL_BUILD(&w);
	tl_open(&w);
	struct gt_usage_params p = sliding(100, 0);
	struct gt_usage_history h;
	gt_usage_init(&h, &p, T0);
	gt_usage_advance(&h, T0);
	gt_usage_set_rates(&h, &w.s);
	gt_usage_advance(&h, T0 + 100);
	struct gt_usage_params wide = sliding(86400, 0);
	gt_usage_configure(&h, &wide, T0 + 100);
	ASSERT_EQ(169, h.bucket_s);	/* ceil(86400 / 512) */
	double total = 0;
	const struct gt_usage_queue *q = gt_usage_queue(&h, "a");
	for (uint32_t i = 0; i < h.n_slots; i++)
		total += q->sum[i * GT_NQRES + GT_QGPU];
	ASSERT_NEAR(2000.0 * 100, total);
	gt_usage_apply(&h, &wide, &w.c, T0 + 100);
	ASSERT_NEAR(0.25, w.c.queues[tl_queue_idx(&w, "a")].usage[GT_QGPU]);
	gt_usage_release(&h);
	tl_free(&w);
}

const struct gt_test gt_tests[] = {
	T(usage_is_allocation_over_capacity),
	T(half_life_decays_old_usage),
	T(pending_pods_use_nothing),
	T(usage_shifts_the_over_quota_share),
	T(tumbling_window_start),
	T(cron_previous_firing),
	T(prometheus_durations),
	T(reconfigure_keeps_the_totals),
	{ NULL, NULL },
};
