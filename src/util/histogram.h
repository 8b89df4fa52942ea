/*
 * histogram.h - a Prometheus histogram shared by threads, without a lock
 *
 * Fixed upper bounds (exponential, as client_golang's ExponentialBuckets
 * makes them) and atomic counts, so a writer thread can observe while the
 * /metrics thread reads. The sum is kept in thousandths of the unit (an
 * atomic integer), which is finer than any latency Gantry reports.
 */
#ifndef GT_HISTOGRAM_H
#define GT_HISTOGRAM_H

#include <stdatomic.h>
#include <stdio.h>

#define GT_HISTOGRAM_MAX_BUCKETS 24

struct gt_histogram {
	double bounds[GT_HISTOGRAM_MAX_BUCKETS];	/* upper bounds, increasing; +Inf implied */
	int n;
	atomic_ulong counts[GT_HISTOGRAM_MAX_BUCKETS + 1];	/* per bucket, not cumulative; last: +Inf */
	atomic_ullong sum_milli;
};

/* @n bounds start, start*factor, ... (n <= GT_HISTOGRAM_MAX_BUCKETS). */
void gt_histogram_init_exp(struct gt_histogram *h, double start, double factor, int n);
void gt_histogram_observe(struct gt_histogram *h, double v);
/*
 * The series of metric @name (HELP and TYPE first when @help is not NULL):
 * cumulative _bucket{le=...}, _sum and _count, each with @labels (NULL or
 * "k=\"v\",..." without braces) before le.
 */
void gt_histogram_write(const struct gt_histogram *h, FILE *f, const char *name, const char *help,
			const char *labels);

/* Write @s as a Prometheus label value: \\, " and newlines escaped. */
void gt_prom_label_value(FILE *f, const char *s);
/* The HELP and TYPE lines of metric @prefix_@name (@prefix NULL: @name alone), of Prometheus @type. */
void gt_prom_head(FILE *f, const char *prefix, const char *name, const char *type, const char *help);
/* A counter of one unlabelled sample: its HELP and TYPE lines and @v. */
void gt_prom_counter(FILE *f, const char *prefix, const char *name, const char *help, unsigned long v);

#endif /* GT_HISTOGRAM_H */
