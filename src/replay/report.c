/*
 * report.c - one self-contained HTML page with inline SVG charts
 *
 * No script, no stylesheet or font from the network: the page opens from a
 * mail attachment or an air-gapped laptop. Charts are drawn here as SVG
 * polylines over the replay's timeline (src/replay/metrics.h); hovering a
 * line shows its name through SVG <title> elements, which every browser
 * renders without JavaScript.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/output.h"
#include "util/mem.h"

#define W 760		/* chart size in SVG units */
#define H 260
#define ML 64		/* margins: left, right, top, bottom */
#define MR 16
#define MT 16
#define MB 40
#define SMALL_W 360	/* per-queue small multiples */
#define SMALL_H 170

static const char *const palette[] = { "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
				       "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac" };
#define PALETTE_N (sizeof(palette) / sizeof(palette[0]))

struct series {
	const char *name;
	const char *color;
	const double *y;	/* one value per x */
	bool dashed;
};

/* A vertical line at @x, labelled (a percentile on a CDF). */
struct mark {
	double x;
	char label[48];
};

struct chart {
	const char *title;
	const char *y_label;
	const double *x;	/* shared x values */
	uint32_t n;
	const struct series *s;
	uint32_t n_series;
	double y_max;		/* 0: from the data */
	double y_line;		/* a horizontal reference line (capacity, quota); < 0 none */
	const char *y_line_label;
	bool log_x;
	const char *x_label;
	int w, h;
	const struct mark *marks;	/* vertical marks (p50, p90); may be NULL */
	uint32_t n_marks;
};

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

/* A "nice" step (1, 2 or 5 times a power of ten) giving about @ticks ticks over @span. */
static double nice_step(double span, int ticks)
{
	if (span <= 0)
		return 1;
	double raw = span / ticks, mag = pow(10, floor(log10(raw)));
	double r = raw / mag;
	return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

/* A tick label: "1.5M", "12k", "2,500" would be "2500", "0.25"; never an exponent. */
static void fmt_num(double v, char *buf, size_t len)
{
	double a = fabs(v);
	if (a >= 1e6)
		snprintf(buf, len, "%gM", round(v / 1e5) / 10);
	else if (a >= 1e4)
		snprintf(buf, len, "%gk", round(v / 1e2) / 10);
	else if (a >= 100 || v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

struct frame {
	double x0, x1, y1;	/* data ranges (y from 0) */
	int w, h;
	bool log_x;
};

static double px(const struct frame *fr, double x)
{
	double a = fr->log_x ? log10(x > 1 ? x : 1) : x;
	double lo = fr->log_x ? log10(fr->x0 > 1 ? fr->x0 : 1) : fr->x0;
	double hi = fr->log_x ? log10(fr->x1 > 1 ? fr->x1 : 1) : fr->x1;
	return ML + (hi > lo ? (a - lo) / (hi - lo) : 0) * (fr->w - ML - MR);
}

static double py(const struct frame *fr, double y)
{
	return fr->h - MB - (fr->y1 > 0 ? y / fr->y1 : 0) * (fr->h - MT - MB);
}

static void axes(FILE *f, const struct frame *fr, const struct chart *c)
{
	double step = nice_step(fr->y1, fr->h > 200 ? 5 : 4);
	fprintf(f, "<g class=\"axis\">\n");
	for (double y = 0; y <= fr->y1 + step * 1e-9; y += step) {
		char lab[32];
		fmt_num(y, lab, sizeof(lab));
		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
			   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			ML, fr->w - MR, py(fr, y), py(fr, y), ML - 6, py(fr, y) + 4, lab);
	}
	if (fr->log_x) {
		/* durations people think in, not powers of ten */
		static const struct {
			double s;
			const char *label;
		} ticks[] = { { 1, "1 s" },	 { 10, "10 s" },   { 60, "1 min" },  { 600, "10 min" },
			      { 3600, "1 h" },   { 21600, "6 h" }, { 86400, "1 d" }, { 604800, "1 w" },
			      { 2592000, "30 d" }, { 31536000, "1 y" } };
		for (size_t i = 0; i < sizeof(ticks) / sizeof(ticks[0]) && ticks[i].s <= fr->x1; i++)
			fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>"
				   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
				px(fr, ticks[i].s), px(fr, ticks[i].s), MT, fr->h - MB, px(fr, ticks[i].s),
				fr->h - MB + 16, ticks[i].label);
	} else {
		/* a label every 70 units at most: the small charts get fewer */
		int ticks = (fr->w - ML - MR) / 70;
		double xs = nice_step(fr->x1 - fr->x0, ticks > 2 ? ticks : 2);
		for (double x = ceil(fr->x0 / xs) * xs; x <= fr->x1 + xs * 1e-9; x += xs) {
			char lab[32];
			fmt_num(x, lab, sizeof(lab));
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
				px(fr, x), fr->h - MB + 16, lab);
		}
	}
	fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" class=\"frame\"/>\n", ML,
		fr->w - MR, fr->h - MB, fr->h - MB);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"label\">", (ML + fr->w - MR) / 2,
		fr->h - 6);
	esc(f, c->x_label);
	fprintf(f, "</text>\n<text transform=\"translate(14 %d) rotate(-90)\" text-anchor=\"middle\" class=\"label\">",
		(MT + fr->h - MB) / 2);
	esc(f, c->y_label);
	fprintf(f, "</text>\n</g>\n");
}

static void polyline(FILE *f, const struct frame *fr, const struct chart *c, const struct series *s)
{
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s points=\"", s->color,
		s->dashed ? " stroke-dasharray=\"5 3\"" : "");
	for (uint32_t i = 0; i < c->n; i++)
		fprintf(f, "%.1f,%.1f ", px(fr, c->x[i]), py(fr, s->y[i]));
	fprintf(f, "\"><title>");
	esc(f, s->name);
	fprintf(f, "</title></polyline>\n");
}

static void legend(FILE *f, const struct chart *c)
{
	fprintf(f, "<div class=\"legend\">");
	for (uint32_t i = 0; i < c->n_series; i++) {
		fprintf(f, "<span><i style=\"border-top:2px %s %s\"></i>",
			c->s[i].dashed ? "dashed" : "solid", c->s[i].color);
		esc(f, c->s[i].name);
		fprintf(f, "</span>");
	}
	if (c->y_line >= 0 && c->y_line_label) {
		fprintf(f, "<span><i style=\"border-top:2px dotted #555\"></i>");
		esc(f, c->y_line_label);
		fprintf(f, "</span>");
	}
	fprintf(f, "</div>\n");
}

static void chart(FILE *f, const struct chart *c)
{
	struct frame fr = { .w = c->w ? c->w : W, .h = c->h ? c->h : H, .log_x = c->log_x };
	fr.x0 = c->n ? c->x[0] : 0;
	fr.x1 = c->n ? c->x[c->n - 1] : 1;
	if (fr.x1 <= fr.x0)
		fr.x1 = fr.x0 + 1;
	/* the axis holds every series, the reference line and the given top, whichever is highest */
	fr.y1 = c->y_max > 0 ? c->y_max : 0;
	for (uint32_t s = 0; s < c->n_series; s++)
		for (uint32_t i = 0; i < c->n; i++)
			fr.y1 = c->s[s].y[i] > fr.y1 ? c->s[s].y[i] : fr.y1;
	if (c->y_line > fr.y1)
		fr.y1 = c->y_line;
	double step = nice_step(fr.y1, fr.h > 200 ? 5 : 4);
	fr.y1 = fr.y1 > 0 ? ceil(fr.y1 / step - 1e-9) * step : 1;
	fprintf(f, "<figure><figcaption>");
	esc(f, c->title);
	/* data-plot: the plot area in the SVG's units (tools/check-report-in-browser holds every line to it) */
	fprintf(f, "</figcaption>\n<svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
		   "data-plot=\"%d %d %d %d\">\n",
		fr.w, fr.h, fr.w, fr.h, ML, MT, fr.w - MR, fr.h - MB);
	axes(f, &fr, c);
	for (uint32_t m = 0; m < c->n_marks; m++) {
		double x = px(&fr, c->marks[m].x);
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"mark\"/>"
			   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" class=\"mark\">",
			x, x, MT, fr.h - MB, x + (m % 2 ? 4 : -4), MT + 12 + 13 * (int)m, m % 2 ? "start" : "end");
		esc(f, c->marks[m].label);
		fprintf(f, "</text>\n");
	}
	if (c->y_line >= 0)
		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"ref\"/>\n",
			ML, fr.w - MR, py(&fr, c->y_line), py(&fr, c->y_line));
	for (uint32_t s = 0; s < c->n_series; s++)
		polyline(f, &fr, c, &c->s[s]);
	fprintf(f, "</svg>\n");
	legend(f, c);
	fprintf(f, "</figure>\n");
}

/* ---------------------------------------------------------------- data */

struct tl_data {
	double *x;		/* bucket midpoints, in days (or hours) since the start */
	uint32_t n;
	const char *x_label;
};

static double *signal(const struct gt_timeline *tl, uint32_t k)
{
	double *v = gt_xcalloc(tl->n_used + 1, sizeof(*v));
	for (uint32_t b = 0; b < tl->n_used; b++)
		v[b] = gt_timeline_avg(tl, b, k);
	return v;
}

static void tl_axis(const struct gt_replay_stats *st, struct tl_data *d)
{
	const struct gt_timeline *tl = &st->timeline;
	double span = (double)(tl->t_last - tl->t0);
	double unit = span > 3 * 86400 ? 86400 : 3600;
	d->x_label = unit == 86400 ? "days since the first arrival" : "hours since the first arrival";
	d->n = tl->n_used;
	d->x = gt_xcalloc(d->n + 1, sizeof(*d->x));
	for (uint32_t b = 0; b < d->n; b++)
		d->x[b] = ((double)b + 0.5) * (double)tl->width / unit;
}

static void allocation_chart(FILE *f, const struct gt_replay_stats *st, const struct tl_data *d)
{
	double *alloc = signal(&st->timeline, GT_SIG_ALLOC);
	struct series s[] = { { "GPUs allocated", palette[0], alloc, false } };
	chart(f, &(struct chart){ .title = "GPU allocation over time", .y_label = "GPUs",
				  .x = d->x, .n = d->n, .s = s, .n_series = 1,
				  .y_max = (double)st->cluster_gpus, .y_line = (double)st->cluster_gpus,
				  .y_line_label = "cluster GPUs", .x_label = d->x_label });
	free(alloc);
	double *pend = signal(&st->timeline, GT_SIG_PENDING);
	double *run = signal(&st->timeline, GT_SIG_RUNNING);
	struct series j[] = { { "jobs waiting", palette[2], pend, false },
			      { "jobs running", palette[4], run, false } };
	chart(f, &(struct chart){ .title = "Jobs waiting and running", .y_label = "jobs", .x = d->x,
				  .n = d->n, .s = j, .n_series = 2, .y_line = -1,
				  .x_label = d->x_label });
	free(pend);
	free(run);
}

static void fragmentation_chart(FILE *f, const struct gt_replay_stats *st, const struct tl_data *d)
{
	double *frag = signal(&st->timeline, GT_SIG_FRAG);
	double *idle = signal(&st->timeline, GT_SIG_IDLE);
	double *part = signal(&st->timeline, GT_SIG_PARTIAL);
	struct series s[] = { { "free GPU share stranded on partly used GPUs (GPUs)", palette[1], frag, false },
			      { "idle GPUs (nothing on them)", palette[3], idle, false },
			      { "nodes with some but not all GPUs free", palette[6], part, true } };
	chart(f, &(struct chart){ .title = "Fragmentation over time", .y_label = "GPUs / nodes",
				  .x = d->x, .n = d->n, .s = s, .n_series = 3, .y_line = -1,
				  .x_label = d->x_label });
	free(frag);
	free(idle);
	free(part);
}

static void queue_charts(FILE *f, const struct gt_replay_stats *st, const struct tl_data *d)
{
	fprintf(f, "<h2>Per-queue allocation against fair share</h2>\n<p class=\"note\">Solid: GPUs the queue's pods held; dashed: its fair share as the last cycle computed it; dotted: its quota.</p>\n<div class=\"grid\">\n");
	for (uint32_t i = 0; i < st->n_queues; i++) {
		const struct gt_queue_stats *q = &st->queues[i];
		if (!q->jobs)
			continue;
		/* the queue's index among all queues: its name's place in the timeline */
		uint32_t k = q->timeline_index;
		double *alloc = signal(&st->timeline, GT_SIG_QALLOC(k));
		double *fair = signal(&st->timeline, GT_SIG_QFAIR(k));
		const char *color = palette[i % PALETTE_N];
		struct series s[] = { { "allocated GPUs", color, alloc, false },
				      { "fair share (GPUs)", color, fair, true } };
		char title[160];
		snprintf(title, sizeof(title), "%s: %.1f%% of GPU time, %u jobs", q->name,
			 100 * q->gpu_time_share, q->jobs);
		chart(f, &(struct chart){ .title = title, .y_label = "GPUs", .x = d->x, .n = d->n,
					  .s = s, .n_series = 2, .y_line = q->quota_gpus,
					  .y_line_label = "quota", .x_label = d->x_label,
					  .w = SMALL_W, .h = SMALL_H });
		free(alloc);
		free(fair);
	}
	fprintf(f, "</div>\n");
}

/* A cumulative distribution of durations (sorted), log scale, its p50 and p90 marked. */
static void cdf(FILE *f, const char *title, const char *what, const double *sorted, uint32_t n,
		const struct gt_dist *d, const char *y_label, const char *x_label)
{
	enum { POINTS = 200 };
	if (!n)
		return;
	double max = sorted[n - 1];
	double top = max > 10 ? max : 10;
	double x[POINTS], y[POINTS];
	/* log-spaced from 1 s to the longest; a duration of 0 counts at 1 s */
	for (int i = 0; i < POINTS; i++) {
		x[i] = pow(10, log10(top) * i / (POINTS - 1));
		uint32_t lo = 0, hi = n;
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;
			if (sorted[mid] <= x[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		y[i] = 100.0 * lo / n;
	}
	struct mark marks[2] = { { .x = d->p50 }, { .x = d->p90 } };
	char t[32];
	gt_format_duration(d->p50, t, sizeof(t));
	snprintf(marks[0].label, sizeof(marks[0].label), "p50 %s", t);
	gt_format_duration(d->p90, t, sizeof(t));
	snprintf(marks[1].label, sizeof(marks[1].label), "p90 %s", t);
	struct series s[] = { { what, palette[0], y, false } };
	chart(f, &(struct chart){ .title = title, .y_label = y_label, .x = x, .n = POINTS, .s = s,
				  .n_series = 1, .y_max = 100, .y_line = -1, .log_x = true, .x_label = x_label,
				  .marks = marks, .n_marks = 2 });
}

static void cdfs(FILE *f, const struct gt_replay_stats *st)
{
	cdf(f, "Queueing delay, cumulative distribution", "jobs that waited at most this long (%)",
	    st->waits_sorted, st->n_waits, &st->wait_s, "% of started jobs", "waited at most (log scale)");
	cdf(f, "Job completion time, cumulative distribution", "jobs done within this long of arriving (%)",
	    st->jcts_sorted, st->n_jcts, &st->jct_s, "% of finished jobs", "arrival to finish, at most (log scale)");
}

/* ---------------------------------------------------------------- text */

static void kv(FILE *f, const char *k, const char *v)
{
	fprintf(f, "<tr><th>");
	esc(f, k);
	fprintf(f, "</th><td>");
	esc(f, v);
	fprintf(f, "</td></tr>\n");
}

/* A row whose value is printf'd (up to 255 bytes: the rows are short). */
static void kvf(FILE *f, const char *k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void kvf(FILE *f, const char *k, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kv(f, k, buf);
}

/* A distribution of durations as one row: mean, p50, p90, p99. */
static void dist_kv(FILE *f, const char *k, const struct gt_dist *d)
{
	const double v[] = { d->mean, d->p50, d->p90, d->p99 };
	static const char *const names[] = { "mean", "p50", "p90", "p99" };
	char buf[256];
	size_t off = 0;
	for (int i = 0; i < 4; i++) {
		char t[32];
		gt_format_duration(v[i], t, sizeof(t));
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s %s", i ? ", " : "", names[i], t);
	}
	kv(f, k, buf);
}

static void summary(FILE *f, const struct gt_replay_stats *st)
{
	char a[32];
	fprintf(f, "<table class=\"kv\">\n");
	kvf(f, "workload", "%u jobs, %u pods; offered load %.3f", st->jobs, st->pods,
	    st->offered_load);
	kvf(f, "cluster", "%u nodes, %lld GPUs", st->nodes, (long long)st->cluster_gpus);
	dist_kv(f, "queueing delay", &st->wait_s);
	dist_kv(f, "job completion time", &st->jct_s);
	gt_format_duration((double)st->makespan_s, a, sizeof(a));
	kvf(f, "makespan", "%s; %u finished, %u never started", a, st->finished,
	    st->never_started);
	kvf(f, "GPUs", "allocation %.1f%%, utilization %.1f%%", 100 * st->gpu_allocation,
	    100 * st->gpu_utilization);
	kvf(f, "fairness", "%u jobs waited over 24 h; Jain's index %.3f", st->waited_over_24h,
	    st->jain);
	kvf(f, "evictions", "%llu jobs (%llu pods), %llu jobs restarted, %.1f GPU-hours lost",
	    (unsigned long long)st->job_evictions, (unsigned long long)st->pod_evictions,
	    (unsigned long long)st->restarted_jobs, st->lost_gpu_hours);
	kvf(f, "at the end", "%.1f%% of milli-GPUs allocated, %lld GPUs idle, %.1f GPUs stranded",
	    100 * st->packing.milli_gpu_allocation, (long long)st->packing.idle_gpus,
	    st->packing.fragmented_gpus);
	kvf(f, "scheduler", "%llu cycles, %.2f ms mean, %.2f ms p99; replay %.1f s",
	    (unsigned long long)st->cycles, st->cycle_ms.mean, st->cycle_ms.p99, st->wall_s);
	fprintf(f, "</table>\n");
}

/* A packing run (pods never leave): what got placed and how tightly, nothing about time. */
static void packing_summary(FILE *f, const struct gt_replay_stats *st)
{
	const struct gt_packing *p = &st->packing;
	fprintf(f, "<table class=\"kv\">\n");
	kvf(f, "arrived", "%u pods asking for %.1f GPUs, %.2f times the cluster's", st->pods, p->arrived_gpus,
	    st->offered_load);
	kvf(f, "cluster", "%u nodes, %lld GPUs", st->nodes, (long long)st->cluster_gpus);
	kvf(f, "placed", "%.1f GPUs; %u pods found no room", p->placed_gpus, p->pending_pods);
	kvf(f, "allocation", "%.1f%% of milli-GPUs allocated; %lld of %lld GPUs in use (%.1f%%)",
	    100 * p->milli_gpu_allocation, (long long)p->allocated_gpus, (long long)st->cluster_gpus,
	    100 * p->gpu_allocation_ratio);
	kvf(f, "fragmentation", "%lld GPUs idle, %.1f GPUs stranded on partly used GPUs, %lld nodes partly free",
	    (long long)p->idle_gpus, p->fragmented_gpus, (long long)p->partial_nodes);
	kvf(f, "scheduler", "%llu cycles, %.2f ms mean, %.2f ms p99; replay %.1f s",
	    (unsigned long long)st->cycles, st->cycle_ms.mean, st->cycle_ms.p99, st->wall_s);
	fprintf(f, "</table>\n<p class=\"note\">A packing run: pods never leave, so waiting times, completion times "
		   "and shares over time are not measured here.</p>\n");
}

/*
 * Waits by job size: per bucket the mean, p99 and longest wait, each a bar
 * on a log scale (a minute to the longest wait of the run), so that a run
 * with reservations and one without read side by side (gantry replay
 * --compare gives the same in numbers).
 */
static void size_table(FILE *f, const struct gt_replay_stats *st)
{
	double top = 60;
	for (uint32_t b = 0; b < GT_N_SIZE_BUCKETS; b++)
		top = st->wait_by_size[b].max > top ? st->wait_by_size[b].max : top;
	fprintf(f, "<table class=\"queues\"><tr><th>GPUs asked</th><th>jobs</th><th>wait: mean, p99, max "
		   "(bars on a log scale from a minute to the longest)</th></tr>\n");
	for (uint32_t b = 0; b < GT_N_SIZE_BUCKETS; b++) {
		const struct gt_dist *d = &st->wait_by_size[b];
		fprintf(f, "<tr><td>%s</td><td>%u</td><td>", gt_size_bucket_names[b], d->n);
		const double v[3] = { d->mean, d->p99, d->max };
		static const char *const what[3] = { "mean", "p99", "max" };
		for (int k = 0; k < 3; k++) {
			char t[32];
			gt_format_duration(v[k], t, sizeof(t));
			double w = v[k] > 60 ? 100.0 * log(v[k] / 60) / log(top / 60) : 0;
			fprintf(f, "<div><span style=\"display:inline-block;width:%.1f%%;max-width:70%%;height:0.8em;"
				   "background:%s\"></span> %s %s</div>",
				w * 0.7, palette[k], what[k], t);
		}
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
	if (st->reservations)
		fprintf(f, "<p class=\"note\">Reservations made: %llu; GPU-hours held from other jobs: %.0f "
			   "(docs/reservations.md).</p>\n", (unsigned long long)st->reservations,
			st->reserved_gpu_hours);
}

static void queue_table(FILE *f, const struct gt_replay_stats *st)
{
	fprintf(f, "<table class=\"queues\"><tr><th>queue</th><th>quota GPUs</th><th>quota share</th>"
		   "<th>GPU-time share</th><th>fair-share share</th><th>got / fair</th><th>jobs</th>"
		   "<th>mean wait</th><th>mean JCT</th></tr>\n");
	for (uint32_t i = 0; i < st->n_queues; i++) {
		const struct gt_queue_stats *q = &st->queues[i];
		char wait[32], jct[32];
		gt_format_duration(q->wait_mean_s, wait, sizeof(wait));
		gt_format_duration(q->jct_mean_s, jct, sizeof(jct));
		fprintf(f, "<tr><td>");
		esc(f, q->name);
		if (q->quota_gpus < 0)
			fprintf(f, "</td><td>unlimited");
		else
			fprintf(f, "</td><td>%.1f", q->quota_gpus);
		fprintf(f, "</td><td>%.1f%%</td><td>%.1f%%</td><td>%.1f%%</td><td>", 100 * q->quota_share,
			100 * q->gpu_time_share, 100 * q->fair_time_share);
		if (q->allocated_vs_fair < 0)
			fprintf(f, "-");
		else
			fprintf(f, "%.2f", q->allocated_vs_fair);
		fprintf(f, "</td><td>%u</td><td>%s</td><td>%s</td></tr>\n", q->jobs, wait, jct);
	}
	fprintf(f, "</table>\n");
}

static const char style[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:1120px;color:#222;padding:0 16px}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}"
	".sub{color:#555;margin:0 0 16px;word-break:break-all}.note{color:#555;margin:0 0 8px}"
	"table{border-collapse:collapse;margin:8px 0}th,td{padding:3px 10px;text-align:left;border-bottom:1px solid #e3e3e3}"
	"table.queues td{text-align:right}table.queues td:first-child{text-align:left}"
	"table.kv th{color:#555;font-weight:600}"
	"figure{margin:12px 0}figcaption{font-weight:600;margin-bottom:4px}"
	"svg.chart{max-width:100%;height:auto;background:#fff}svg text{font-size:11px;fill:#444}"
	"svg text.label{font-size:12px;fill:#222}line.grid{stroke:#eee}line.frame{stroke:#999}"
	"line.mark{stroke:#b00;stroke-dasharray:3 3}line.ref{stroke:#555;stroke-dasharray:2 3}svg text.mark{fill:#b00}"
	".warn{background:#fff3cd;border:1px solid #e0c36a;padding:6px 10px}"
	".legend span{margin-right:16px;white-space:nowrap}.legend i{display:inline-block;width:22px;margin:0 6px 3px 0;vertical-align:middle}"
	".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:8px}";

int gt_replay_write_report_to(FILE *f, const char *path, const struct gt_replay_stats *st, struct gt_err *err)
{
	struct tl_data d;
	tl_axis(st, &d);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<title>gantry replay: ");
	esc(f, st->trace);
	fprintf(f, "</title>\n<style>%s</style></head><body>\n<h1>gantry replay</h1>\n<p class=\"sub\">", style);
	esc(f, st->trace);
	fprintf(f, "<br>");
	esc(f, st->policy);
	fprintf(f, "</p>\n");
	if (st->interrupted)
		fprintf(f, "<p class=\"warn\">Interrupted at day %.1f: everything below covers what was gathered until "
			   "then.</p>\n", (double)(st->end - st->first_submit) / 86400.0);
	fprintf(f, "<h2>Summary</h2>\n");
	if (st->packing_run)
		packing_summary(f, st);
	else
		summary(f, st);
	fprintf(f, "<h2>Allocation</h2>\n");
	allocation_chart(f, st, &d);
	if (!st->packing_run) {	/* pods that never leave: waits and shares say nothing about a policy */
		fprintf(f, "<h2>Waiting</h2>\n");
		cdfs(f, st);
		fprintf(f, "<h3>Waits by job size</h3>\n");
		size_table(f, st);
		fprintf(f, "<h2>Queues</h2>\n");
		queue_table(f, st);
		queue_charts(f, st, &d);
	}
	fprintf(f, "<h2>Fragmentation</h2>\n");
	fragmentation_chart(f, st, &d);
	fprintf(f, "<p class=\"note\">Made by gantry replay: every scheduling decision above came from Gantry's scheduling core, cycle by cycle.</p>\n</body></html>\n");
	free(d.x);
	fflush(f);
	if (ferror(f))
		return gt_errf(err, GT_EIO, "%s: write failed", path);
	return 0;
}

int gt_replay_write_report(const char *path, const struct gt_replay_stats *st, struct gt_err *err)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return gt_errf(err, GT_EIO, "%s: cannot write: %s", path, strerror(errno));
	int rc = gt_replay_write_report_to(f, path, st, err);
	if (fclose(f) && !rc)
		return gt_errf(err, GT_EIO, "%s: write failed", path);
	return rc;
}
