#include "util/histogram.h"

#include <math.h>

void gt_histogram_init_exp(struct gt_histogram *h, double start, double factor, int n)
{
	if (n > GT_HISTOGRAM_MAX_BUCKETS)
		n = GT_HISTOGRAM_MAX_BUCKETS;
	h->n = n;
	double b = start;
	for (int i = 0; i < n; i++, b *= factor)
		h->bounds[i] = b;
	for (int i = 0; i <= GT_HISTOGRAM_MAX_BUCKETS; i++)
		atomic_init(&h->counts[i], 0);
	atomic_init(&h->sum_milli, 0);
}

void gt_histogram_observe(struct gt_histogram *h, double v)
{
	int i = 0;
	while (i < h->n && v > h->bounds[i])
		i++;
	atomic_fetch_add(&h->counts[i], 1);
	if (v > 0)
		atomic_fetch_add(&h->sum_milli, (unsigned long long)llround(v * 1000));
}

void gt_histogram_write(const struct gt_histogram *h, FILE *f, const char *name, const char *help,
			const char *labels)
{
	if (help)
		gt_prom_head(f, NULL, name, "histogram", help);
	const char *sep = labels && *labels ? "," : "";
	labels = labels ? labels : "";
	unsigned long cum = 0;
	for (int i = 0; i <= h->n; i++) {
		cum += atomic_load(&h->counts[i]);
		if (i < h->n)
			fprintf(f, "%s_bucket{%s%sle=\"%.10g\"} %lu\n", name, labels, sep, h->bounds[i], cum);
		else
			fprintf(f, "%s_bucket{%s%sle=\"+Inf\"} %lu\n", name, labels, sep, cum);
	}
	const char *open = *labels ? "{" : "", *close = *labels ? "}" : "";
	fprintf(f, "%s_sum%s%s%s %.3f\n", name, open, labels, close, (double)atomic_load(&h->sum_milli) / 1000);
	fprintf(f, "%s_count%s%s%s %lu\n", name, open, labels, close, cum);
}

void gt_prom_label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

void gt_prom_head(FILE *f, const char *prefix, const char *name, const char *type, const char *help)
{
	const char *sep = prefix ? "_" : "";
	prefix = prefix ? prefix : "";
	fprintf(f, "# HELP %s%s%s %s\n# TYPE %s%s%s %s\n", prefix, sep, name, help, prefix, sep, name, type);
}

void gt_prom_counter(FILE *f, const char *prefix, const char *name, const char *help, unsigned long v)
{
	gt_prom_head(f, prefix, name, "counter", help);
	fprintf(f, "%s%s%s %lu\n", prefix ? prefix : "", prefix ? "_" : "", name, v);
}
