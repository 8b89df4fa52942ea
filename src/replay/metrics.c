#include "replay/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

static int double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double gt_percentile_sorted(const double *v, size_t n, double p)
{
	if (!n)
		return 0;
	double r = ceil(p / 100.0 * (double)n);
	size_t rank = r < 1 ? 1 : r > (double)n ? n : (size_t)r;
	return v[rank - 1];
}

void gt_dist_of(double *v, size_t n, struct gt_dist *out)
{
	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), double_cmp);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	out->n = (uint32_t)n;
	out->mean = sum / (double)n;
	out->p50 = gt_percentile_sorted(v, n, 50);
	out->p90 = gt_percentile_sorted(v, n, 90);
	out->p99 = gt_percentile_sorted(v, n, 99);
	out->max = v[n - 1];
}

const char *const gt_size_bucket_names[GT_N_SIZE_BUCKETS] = { "1", "2-8", "9-32", "33+" };

uint32_t gt_size_bucket(double gpus)
{
	return gpus <= 1 ? 0 : gpus <= 8 ? 1 : gpus <= 32 ? 2 : 3;
}

double gt_jain(const double *x, size_t n)
{
	double s = 0, s2 = 0;
	for (size_t i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	return n && s2 > 0 ? s * s / ((double)n * s2) : 1.0;
}

/* ---------------------------------------------------------------- timeline */

void gt_timeline_init(struct gt_timeline *tl, uint32_t n_signals, int64_t t0, int64_t width)
{
	memset(tl, 0, sizeof(*tl));
	tl->t0 = tl->t_last = t0;
	tl->width = width > 0 ? width : 1;
	tl->n_signals = n_signals;
	tl->cur = gt_xcalloc(n_signals + 1, sizeof(*tl->cur));
	tl->sum = gt_xcalloc((size_t)GT_TIMELINE_BUCKETS * (n_signals + 1), sizeof(*tl->sum));
}

void gt_timeline_release(struct gt_timeline *tl)
{
	free(tl->cur);
	free(tl->sum);
	memset(tl, 0, sizeof(*tl));
}

/* Halve the resolution: bucket i becomes buckets 2i and 2i+1 together. */
static void coarsen(struct gt_timeline *tl)
{
	uint32_t k = tl->n_signals;
	for (uint32_t b = 0; b < GT_TIMELINE_BUCKETS / 2; b++)
		for (uint32_t s = 0; s < k; s++)
			tl->sum[b * k + s] = tl->sum[2 * b * k + s] + tl->sum[(2 * b + 1) * k + s];
	memset(&tl->sum[(GT_TIMELINE_BUCKETS / 2) * k], 0,
	       (GT_TIMELINE_BUCKETS / 2) * k * sizeof(*tl->sum));
	tl->width *= 2;
	tl->n_used = (tl->n_used + 1) / 2;
}

void gt_timeline_advance(struct gt_timeline *tl, int64_t t)
{
	if (t <= tl->t_last)
		return;
	while (t - tl->t0 > tl->width * GT_TIMELINE_BUCKETS)
		coarsen(tl);
	uint32_t k = tl->n_signals;
	while (tl->t_last < t) {
		int64_t b = (tl->t_last - tl->t0) / tl->width;
		int64_t b_end = tl->t0 + (b + 1) * tl->width;
		int64_t upto = t < b_end ? t : b_end;
		double dt = (double)(upto - tl->t_last);
		for (uint32_t s = 0; s < k; s++)
			tl->sum[b * k + s] += tl->cur[s] * dt;
		tl->n_used = (uint32_t)b + 1 > tl->n_used ? (uint32_t)b + 1 : tl->n_used;
		tl->t_last = upto;
	}
}

double gt_timeline_avg(const struct gt_timeline *tl, uint32_t b, uint32_t k)
{
	int64_t start = tl->t0 + (int64_t)b * tl->width;
	int64_t end = start + tl->width;
	if (end > tl->t_last)
		end = tl->t_last;
	if (end <= start)
		return 0;
	return tl->sum[b * tl->n_signals + k] / (double)(end - start);
}

void gt_replay_stats_release(struct gt_replay_stats *st)
{
	for (uint32_t q = 0; q < st->n_queues; q++)
		free(st->queues[q].name);
	free(st->queues);
	free(st->trace);
	free(st->policy);
	free(st->waits_sorted);
	free(st->jcts_sorted);
	gt_timeline_release(&st->timeline);
	memset(st, 0, sizeof(*st));
}
