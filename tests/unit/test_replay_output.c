/*
 * test_replay_output.c - what a replay prints: the JSON keys outside tools
 * rely on (../shared/docs/REPLAY.md), the table, --compare, and the HTML
 * report (self-contained, with its charts).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "replay/engine.h"
#include "replay/output.h"
#include "replay/setup.h"
#include "util/mem.h"

const char *gt_suite = "replay_output";

#define DATA "tests/data/replay/"

/* Replay the Philly slice on 4 nodes of 8 GPUs, VC quotas from the small table. */
static struct gt_replay *philly_slice(struct gt_trace *t, struct gt_strtab *names,
				      struct gt_cluster *c)
{
	struct gt_err err = { 0 };
	struct gt_vc_size *v = NULL;
	uint32_t nv = 0;
	struct gt_replay *r = NULL;
	int32_t tq[8], dq;
	gt_trace_init(t);
	gt_strtab_init(names);
	gt_cluster_init(c, names);
	gt_replay_gen_nodes(c, 4, 8);
	struct gt_replay_opts o;
	gt_replay_opts_defaults(&o);
	struct gt_queue_setup qs = { 0 };
	if (gt_trace_load(t, GT_TRACE_PHILLY, DATA "philly_small.csv", NULL, &err) ||
	    gt_vc_sizes_load(DATA "vc_small.csv", &v, &nv, &err))
		goto out;
	qs.vcs = v;
	qs.n_vcs = nv;
	if (gt_replay_make_queues(c, t, &qs, tq, &dq, &err) ||
	    gt_replay_new(&r, c, t, tq, dq, &o, &err))
		goto out;
	gt_replay_run(r, NULL, NULL);
out:
	if (err.code)
		fprintf(stderr, "setup: %s\n", err.msg);
	gt_vc_sizes_free(v, nv);
	return r;
}

static void slice_free(struct gt_replay *r, struct gt_trace *t, struct gt_strtab *names,
		       struct gt_cluster *c)
{
	gt_replay_free(r);
	gt_cluster_release(c);
	gt_strtab_release(names);
	gt_trace_release(t);
}

static bool has(json_t *o, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *save = NULL, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
		if (!json_is_object(o))
			return false;
		o = json_object_get(o, k);
		if (!o)
			return false;
	}
	return true;
}

TEST(json_has_the_contract_keys)
{
	static const char *const keys[] = {
		"jobs", "offered_load", "cluster_gpus", "wait_s.mean", "wait_s.p50", "wait_s.p90",
		"wait_s.p99", "jct_s.mean", "jct_s.p50", "jct_s.p90", "jct_s.p99", "makespan_s",
		"gpu_utilization", "waited_over_24h", "queues", "packing.milli_gpu_allocation",
		"packing.idle_gpus", "packing.fragmented_gpus",
		/* and what docs/replay.md adds */
		"gpu_allocation", "jain_index", "evictions.jobs", "evictions.restarted_jobs", "evictions.lost_gpu_hours",
		"scheduler.cycles", "scheduler.cycle_ms.p99", "fragmentation.fragmented_gpus_mean",
		"starvation.threshold_s", "arrival_scale", "never_started",
	};
	struct gt_trace t;
	struct gt_strtab names;
	struct gt_cluster c;
	struct gt_replay *r = philly_slice(&t, &names, &c);
	ASSERT_TRUE(r != NULL);
	json_t *o = gt_replay_stats_json(gt_replay_stats(r));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!has(o, keys[i]))
			fprintf(stderr, "missing key %s\n", keys[i]);
		ASSERT_TRUE(has(o, keys[i]));
	}
	ASSERT_EQ(6, json_integer_value(json_object_get(o, "jobs")));
	ASSERT_EQ(32, json_integer_value(json_object_get(o, "cluster_gpus")));
	json_t *q = json_array_get(json_object_get(o, "queues"), 0);
	ASSERT_TRUE(has(q, "name") && has(q, "quota_gpus") && has(q, "gpu_time_share"));
	/* ratios stay in [0, 1] */
	double u = json_number_value(json_object_get(o, "gpu_utilization"));
	ASSERT_TRUE(u >= 0 && u <= 1);
	json_decref(o);
	slice_free(r, &t, &names, &c);
}

TEST(table_says_what_matters)
{
	struct gt_trace t;
	struct gt_strtab names;
	struct gt_cluster c;
	struct gt_replay *r = philly_slice(&t, &names, &c);
	ASSERT_TRUE(r != NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	gt_replay_print_table(f, gt_replay_stats(r));
	fclose(f);
	ASSERT_CONTAINS(buf, "6 jobs (8 pods) on 4 nodes, 32 GPUs");
	ASSERT_CONTAINS(buf, "queueing delay");
	ASSERT_CONTAINS(buf, "6214e9");
	ASSERT_CONTAINS(buf, "Jain's index");
	free(buf);
	slice_free(r, &t, &names, &c);
}

static bool write_json(const char *path, const struct gt_replay_stats *st)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	gt_replay_print_json(f, st, false);
	return fclose(f) == 0;
}

TEST(compare_puts_two_runs_side_by_side)
{
	struct gt_trace t;
	struct gt_strtab names;
	struct gt_cluster c;
	struct gt_replay *r = philly_slice(&t, &names, &c);
	ASSERT_TRUE(r != NULL);
	char a[] = "/tmp/gt-replay-a-XXXXXX", b[] = "/tmp/gt-replay-b-XXXXXX";
	int fa = mkstemp(a), fb = mkstemp(b);
	ASSERT_TRUE(fa >= 0 && fb >= 0);
	close(fa);
	close(fb);
	ASSERT_TRUE(write_json(a, gt_replay_stats(r)) && write_json(b, gt_replay_stats(r)));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct gt_err err = { 0 };
	int rc = gt_replay_compare(f, a, b, &err);
	fclose(f);
	ASSERT_EQ(0, rc);
	ASSERT_CONTAINS(buf, "queueing delay mean");
	ASSERT_CONTAINS(buf, "GPU-time share by queue");
	ASSERT_CONTAINS(buf, "6214e9");
	free(buf);
	/* not a result: the error says which file */
	f = fopen(b, "w");
	fputs("{\"x\": 1}", f);
	fclose(f);
	f = open_memstream(&buf, &len);
	ASSERT_EQ(GT_EPARSE, gt_replay_compare(f, a, b, &err));
	fclose(f);
	free(buf);
	ASSERT_CONTAINS(err.msg, "not a `gantry replay -o json` result");
	remove(a);
	remove(b);
	slice_free(r, &t, &names, &c);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = gt_xmalloc((size_t)n + 1);
	size_t got = fread(s, 1, (size_t)n, f);
	s[got] = '\0';
	fclose(f);
	return s;
}

static size_t count(const char *h, const char *n)
{
	size_t k = 0;
	for (const char *p = strstr(h, n); p; p = strstr(p + 1, n))
		k++;
	return k;
}

/* Does every polyline of every chart stay inside the plot area its <svg> declares (data-plot)? */
static bool lines_inside_plot_areas(const char *html)
{
	for (const char *svg = strstr(html, "<svg"); svg; svg = strstr(svg + 1, "<svg")) {
		double x0, y0, x1, y1;
		const char *dp = strstr(svg, "data-plot=\""), *end = strstr(svg, "</svg>");
		if (!dp || !end || dp > end || sscanf(dp, "data-plot=\"%lf %lf %lf %lf", &x0, &y0, &x1, &y1) != 4)
			return false;
		for (const char *pl = strstr(svg, "points=\""); pl && pl < end; pl = strstr(pl + 1, "points=\"")) {
			double x, y;
			int n;
			for (const char *q = pl + 8; *q != '"' && sscanf(q, "%lf,%lf%n", &x, &y, &n) == 2; q += n) {
				if (x < x0 - 0.05 || x > x1 + 0.05 || y < y0 - 0.05 || y > y1 + 0.05) {
					fprintf(stderr, "point %.1f,%.1f outside %g %g %g %g\n", x, y, x0, y0, x1, y1);
					return false;
				}
				while (q[n] == ' ')
					n++;
			}
		}
	}
	return true;
}

TEST(report_is_one_self_contained_page_with_charts)
{
	struct gt_trace t;
	struct gt_strtab names;
	struct gt_cluster c;
	struct gt_replay *r = philly_slice(&t, &names, &c);
	ASSERT_TRUE(r != NULL);
	char path[] = "/tmp/gt-replay-report-XXXXXX";
	int fd = mkstemp(path);
	ASSERT_TRUE(fd >= 0);
	close(fd);
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_replay_write_report(path, gt_replay_stats(r), &err));
	char *html = slurp(path);
	remove(path);
	ASSERT_TRUE(html != NULL);
	ASSERT_CONTAINS(html, "<!DOCTYPE html>");
	ASSERT_CONTAINS(html, "GPU allocation over time");
	ASSERT_CONTAINS(html, "Queueing delay, cumulative distribution");
	ASSERT_CONTAINS(html, "Job completion time, cumulative distribution");
	ASSERT_CONTAINS(html, "Per-queue allocation against fair share");
	ASSERT_CONTAINS(html, "Fragmentation over time");
	/* allocation, jobs, two CDFs, fragmentation, and one per queue with jobs (4) */
	ASSERT_EQ(9, count(html, "<svg"));
	/* each CDF marks its p50 and p90 */
	ASSERT_EQ(4, count(html, "class=\"mark\"/>"));
	ASSERT_CONTAINS(html, ">p50 ");
	ASSERT_CONTAINS(html, ">p90 ");
	ASSERT_TRUE(lines_inside_plot_areas(html));
	ASSERT_EQ(count(html, "<svg"), count(html, "</svg>"));
	ASSERT_TRUE(count(html, "<polyline") >= 8);
	/* nothing to fetch: no script, no link, no URL */
	ASSERT_EQ(0, count(html, "http"));
	ASSERT_EQ(0, count(html, "<script"));
	ASSERT_EQ(0, count(html, "<link"));
	ASSERT_TRUE(strstr(html, "nan") == NULL && strstr(html, "inf\"") == NULL);
	free(html);
	ASSERT_EQ(GT_EIO, gt_replay_write_report("/nonexistent-dir/r.html", gt_replay_stats(r), &err));
	ASSERT_CONTAINS(err.msg, "/nonexistent-dir/r.html: cannot write");
	slice_free(r, &t, &names, &c);
}

TEST(durations_read_well)
{
	char buf[32];
	gt_format_duration(45, buf, sizeof(buf));
	ASSERT_STR("45 s", buf);
	gt_format_duration(5400, buf, sizeof(buf));
	ASSERT_STR("90.0 min", buf);
	gt_format_duration(36000, buf, sizeof(buf));
	ASSERT_STR("10.0 h", buf);
	gt_format_duration(864000, buf, sizeof(buf));
	ASSERT_STR("10.0 d", buf);
}

TEST(percentiles_are_nearest_rank)
{
	double v[] = { 5, 1, 4, 2, 3, 10, 9, 8, 7, 6 };
	struct gt_dist d;
	gt_dist_of(v, 10, &d);
	ASSERT_EQ(5, (long long)d.p50);		/* rank ceil(5) = 5 */
	ASSERT_EQ(9, (long long)d.p90);		/* rank 9 */
	ASSERT_EQ(10, (long long)d.p99);	/* rank ceil(9.9) = 10 */
	ASSERT_EQ(55, (long long)(d.mean * 10));
	double one[] = { 7 };
	gt_dist_of(one, 1, &d);
	ASSERT_EQ(7, (long long)d.p50);
	gt_dist_of(NULL, 0, &d);
	ASSERT_EQ(0, d.n);
	double x[] = { 1, 1, 1, 1 }, y[] = { 1, 0, 0, 0 };
	ASSERT_EQ(1000, (long long)(gt_jain(x, 4) * 1000 + 0.5));
	ASSERT_EQ(250, (long long)(gt_jain(y, 4) * 1000 + 0.5));
}

TEST(timeline_integrates_and_coarsens)
{
	struct gt_timeline tl;
	gt_timeline_init(&tl, 1, 0, 1);
	tl.cur[0] = 2;
	gt_timeline_advance(&tl, 10);
	ASSERT_EQ(2, (long long)gt_timeline_avg(&tl, 3, 0));
	tl.cur[0] = 4;
	/* past 512 buckets of 1 s the width doubles until it fits */
	gt_timeline_advance(&tl, 2000);
	ASSERT_EQ(4, tl.width);
	ASSERT_EQ(500, tl.n_used);
	/* bucket 0 covers 0-4: 2 for 4 s */
	ASSERT_EQ(2, (long long)gt_timeline_avg(&tl, 0, 0));
	/* bucket 2 covers 8-12: 2 for 2 s, 4 for 2 s */
	ASSERT_EQ(3, (long long)gt_timeline_avg(&tl, 2, 0));
	ASSERT_EQ(4, (long long)gt_timeline_avg(&tl, 400, 0));
	gt_timeline_release(&tl);
}

const struct gt_test gt_tests[] = {
	T(json_has_the_contract_keys),
	T(table_says_what_matters),
	T(compare_puts_two_runs_side_by_side),
	T(report_is_one_self_contained_page_with_charts),
	T(durations_read_well),
	T(percentiles_are_nearest_rank),
	T(timeline_integrates_and_coarsens),
	{ 0 }
};
