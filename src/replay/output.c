#include "replay/output.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/json.h"
#include "util/mem.h"

/* ---------------------------------------------------------------- JSON */

static json_t *dist_json(const struct gt_dist *d)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:f}", "mean", d->mean, "p50", d->p50, "p90", d->p90,
			 "p99", d->p99, "max", d->max);
}

static json_t *queue_json(const struct gt_queue_stats *q)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(q->name));
	json_object_set_new(o, "quota_gpus", q->quota_gpus < 0 ? json_null() : json_real(q->quota_gpus));
	json_object_set_new(o, "quota_share", json_real(q->quota_share));
	json_object_set_new(o, "gpu_time_share", json_real(q->gpu_time_share));
	json_object_set_new(o, "gpu_hours", json_real(q->gpu_hours));
	json_object_set_new(o, "fair_share_gpus", json_real(q->fair_share_gpus));
	json_object_set_new(o, "fair_time_share", json_real(q->fair_time_share));
	json_object_set_new(o, "allocated_vs_fair",
			    q->allocated_vs_fair < 0 ? json_null() : json_real(q->allocated_vs_fair));
	json_object_set_new(o, "jobs", json_integer(q->jobs));
	json_object_set_new(o, "finished", json_integer(q->finished));
	json_object_set_new(o, "wait_mean_s", json_real(q->wait_mean_s));
	json_object_set_new(o, "jct_mean_s", json_real(q->jct_mean_s));
	return o;
}

static json_t *packing_json(const struct gt_packing *p)
{
	return json_pack("{s:f, s:I, s:f, s:f, s:I, s:I, s:f, s:f, s:I}",
			 "milli_gpu_allocation", p->milli_gpu_allocation,
			 "idle_gpus", (json_int_t)p->idle_gpus,
			 "fragmented_gpus", p->fragmented_gpus,
			 "gpu_allocation_ratio", p->gpu_allocation_ratio,
			 "allocated_gpus", (json_int_t)p->allocated_gpus,
			 "partial_nodes", (json_int_t)p->partial_nodes,
			 "arrived_gpus", p->arrived_gpus,
			 "placed_gpus", p->placed_gpus,
			 "pending_pods", (json_int_t)p->pending_pods);
}

json_t *gt_replay_stats_json(const struct gt_replay_stats *st)
{
	json_t *o = json_object();
	json_object_set_new(o, "trace", json_string(st->trace));
	json_object_set_new(o, "policy", json_string(st->policy));
	json_object_set_new(o, "interrupted", json_boolean(st->interrupted));
	json_object_set_new(o, "jobs", json_integer(st->jobs));
	json_object_set_new(o, "pods", json_integer(st->pods));
	json_object_set_new(o, "nodes", json_integer(st->nodes));
	json_object_set_new(o, "cluster_gpus", json_integer(st->cluster_gpus));
	json_object_set_new(o, "offered_load", json_real(st->offered_load));
	json_object_set_new(o, "arrival_scale", json_real(st->arrival_scale));
	json_object_set_new(o, "started", json_integer(st->started));
	json_object_set_new(o, "finished", json_integer(st->finished));
	json_object_set_new(o, "never_started", json_integer(st->never_started));
	json_object_set_new(o, "wait_s", dist_json(&st->wait_s));
	json_object_set_new(o, "jct_s", dist_json(&st->jct_s));
	json_object_set_new(o, "makespan_s", json_integer(st->makespan_s));
	json_object_set_new(o, "gpu_allocation", json_real(st->gpu_allocation));
	json_object_set_new(o, "gpu_utilization", json_real(st->gpu_utilization));
	json_t *by_size = json_array();
	for (uint32_t b = 0; b < GT_N_SIZE_BUCKETS; b++) {
		const struct gt_dist *d = &st->wait_by_size[b];
		json_array_append_new(by_size, json_pack("{s:s, s:I, s:f, s:f, s:f}", "gpus",
							 gt_size_bucket_names[b], "jobs", (json_int_t)d->n,
							 "mean", d->mean, "p99", d->p99, "max", d->max));
	}
	json_object_set_new(o, "wait_by_size", by_size);
	json_object_set_new(o, "reservations",
			    json_pack("{s:I, s:f, s:f}", "made", (json_int_t)st->reservations,
				      "gpu_hours_held", st->reserved_gpu_hours, "gpu_hours_backfilled",
				      st->backfilled_gpu_hours));
	json_object_set_new(o, "max_runtime_evictions", json_integer((json_int_t)st->max_runtime_evictions));
	json_object_set_new(o, "waited_over_24h", json_integer(st->waited_over_24h));
	json_object_set_new(o, "starvation", json_pack("{s:I, s:I}", "threshold_s",
						       (json_int_t)st->starvation_s, "jobs",
						       (json_int_t)st->waited_over));
	json_object_set_new(o, "evictions",
			    json_pack("{s:I, s:I, s:I, s:f}", "jobs", (json_int_t)st->job_evictions,
				      "pods", (json_int_t)st->pod_evictions, "restarted_jobs",
				      (json_int_t)st->restarted_jobs, "lost_gpu_hours", st->lost_gpu_hours));
	json_t *qs = json_array();
	for (uint32_t q = 0; q < st->n_queues; q++)
		json_array_append_new(qs, queue_json(&st->queues[q]));
	json_object_set_new(o, "queues", qs);
	json_object_set_new(o, "jain_index", json_real(st->jain));
	json_object_set_new(o, "fragmentation",
			    json_pack("{s:f, s:f, s:f}", "fragmented_gpus_mean", st->frag_gpus_mean,
				      "idle_gpus_mean", st->idle_gpus_mean, "partial_nodes_mean",
				      st->partial_nodes_mean));
	json_object_set_new(o, "packing", packing_json(&st->packing));
	json_t *sched = json_object();
	json_object_set_new(sched, "cycles", json_integer((json_int_t)st->cycles));
	json_object_set_new(sched, "cycles_skipped", json_integer((json_int_t)st->cycles_skipped));
	json_object_set_new(sched, "cycle_ms", dist_json(&st->cycle_ms));
	json_object_set_new(sched, "wall_s", json_real(st->wall_s));
	json_object_set_new(o, "scheduler", sched);
	return o;
}

void gt_replay_print_json(FILE *f, const struct gt_replay_stats *st, bool yaml)
{
	json_t *o = gt_replay_stats_json(st);
	if (yaml) {
		gt_json_print_yaml(f, o);
	} else {
		json_dumpf(o, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		fputc('\n', f);
	}
	json_decref(o);
}

/* ---------------------------------------------------------------- table */


static void dist_row(FILE *f, const char *what, const struct gt_dist *d)
{
	char v[5][32];
	const double x[5] = { d->mean, d->p50, d->p90, d->p99, d->max };
	for (int i = 0; i < 5; i++)
		gt_format_duration(x[i], v[i], sizeof(v[i]));
	fprintf(f, "  %-16s %10s %10s %10s %10s %10s\n", what, v[0], v[1], v[2], v[3], v[4]);
}

static void queue_table(FILE *f, const struct gt_replay_stats *st)
{
	fprintf(f, "\n  %-12s %8s %8s %9s %9s %9s %7s %10s\n", "queue", "quota", "quota %",
		"GPU-time", "fair %", "got/fair", "jobs", "mean wait");
	for (uint32_t i = 0; i < st->n_queues; i++) {
		const struct gt_queue_stats *q = &st->queues[i];
		char quota[24], ratio[24], wait[32];
		if (q->quota_gpus < 0)
			snprintf(quota, sizeof(quota), "-");
		else
			snprintf(quota, sizeof(quota), "%.1f", q->quota_gpus);
		if (q->allocated_vs_fair < 0)
			snprintf(ratio, sizeof(ratio), "-");
		else
			snprintf(ratio, sizeof(ratio), "%.2f", q->allocated_vs_fair);
		gt_format_duration(q->wait_mean_s, wait, sizeof(wait));
		fprintf(f, "  %-12s %8s %7.1f%% %8.1f%% %8.1f%% %9s %7u %10s\n", q->name, quota,
			100 * q->quota_share, 100 * q->gpu_time_share, 100 * q->fair_time_share, ratio,
			q->jobs, wait);
	}
	fprintf(f, "  Jain's index over got/fair: %.3f\n", st->jain);
}

static void scheduler_line(FILE *f, const struct gt_replay_stats *st)
{
	fprintf(f, "  scheduler: %llu cycles (%llu skipped: nothing could change), %.2f ms mean, %.2f ms p99, %.1f ms max; replay took %.1f s\n",
		(unsigned long long)st->cycles, (unsigned long long)st->cycles_skipped,
		st->cycle_ms.mean, st->cycle_ms.p99, st->cycle_ms.max, st->wall_s);
}

/* A packing run (pods never leave): how much got placed and how tightly; times and shares mean nothing. */
static void packing_table(FILE *f, const struct gt_replay_stats *st)
{
	const struct gt_packing *p = &st->packing;
	fprintf(f, "  arrived: %u pods asking for %.1f GPUs (%.3f times the cluster's); placed %.1f GPUs, %u pods found no room\n",
		st->pods, p->arrived_gpus, st->offered_load, p->placed_gpus, p->pending_pods);
	fprintf(f, "  allocation: %.2f%% of milli-GPUs; %lld of %lld GPUs in use (%.2f%%)\n",
		100 * p->milli_gpu_allocation, (long long)p->allocated_gpus, (long long)st->cluster_gpus,
		100 * p->gpu_allocation_ratio);
	fprintf(f, "  fragmentation: %lld GPUs idle, %.1f GPUs stranded on partly used GPUs, %lld nodes partly free\n",
		(long long)p->idle_gpus, p->fragmented_gpus, (long long)p->partial_nodes);
	fprintf(f, "  (a packing run: pods never leave, so waits, completion times and shares are not measured)\n");
	scheduler_line(f, st);
}

void gt_replay_print_table(FILE *f, const struct gt_replay_stats *st)
{
	char mk[32];
	gt_format_duration((double)st->makespan_s, mk, sizeof(mk));
	fprintf(f, "replay %s\n  %u jobs (%u pods) on %u nodes, %lld GPUs; offered load %.3f (arrival gaps x%.3f)\n",
		st->trace, st->jobs, st->pods, st->nodes, (long long)st->cluster_gpus,
		st->offered_load, st->arrival_scale);
	fprintf(f, "  %s\n\n", st->policy);
	if (st->interrupted)
		fprintf(f, "  INTERRUPTED at day %.1f: what follows covers what was gathered until then\n\n",
			(double)(st->end - st->first_submit) / 86400.0);
	if (st->packing_run) {
		packing_table(f, st);
		return;
	}
	fprintf(f, "  %-16s %10s %10s %10s %10s %10s\n", "", "mean", "p50", "p90", "p99", "max");
	dist_row(f, "queueing delay", &st->wait_s);
	dist_row(f, "JCT", &st->jct_s);
	fprintf(f, "\n  finished %u, started %u, never started %u; makespan %s\n", st->finished,
		st->started, st->never_started, mk);
	fprintf(f, "  GPU allocation %.1f%%, utilization %.1f%% (finished work)\n",
		100 * st->gpu_allocation, 100 * st->gpu_utilization);
	fprintf(f, "  waited over 24 h: %u jobs; evictions: %llu jobs (%llu pods), %llu jobs restarted, "
		   "%.1f GPU-hours lost\n",
		st->waited_over_24h, (unsigned long long)st->job_evictions,
		(unsigned long long)st->pod_evictions, (unsigned long long)st->restarted_jobs,
		st->lost_gpu_hours);
	queue_table(f, st);
	fprintf(f, "\n  fragmentation (time average): %.1f GPUs free in partly used GPUs, %.1f idle GPUs, %.1f nodes partly free\n",
		st->frag_gpus_mean, st->idle_gpus_mean, st->partial_nodes_mean);
	fprintf(f, "  at the end: %.1f%% of milli-GPUs allocated, %lld of %lld GPUs in use, %.1f GPUs fragmented, %u pods pending\n",
		100 * st->packing.milli_gpu_allocation, (long long)st->packing.allocated_gpus,
		(long long)st->cluster_gpus, st->packing.fragmented_gpus, st->packing.pending_pods);
	scheduler_line(f, st);
}

/* ---------------------------------------------------------------- compare */

static double num_at(json_t *o, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	json_t *cur = o;
	for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && cur; k = strtok_r(NULL, ".", &save))
		cur = json_object_get(cur, k);
	return cur && json_is_number(cur) ? json_number_value(cur) : NAN;
}

static json_t *load_result(const char *path, struct gt_err *err)
{
	json_error_t je;
	json_t *o = json_load_file(path, 0, &je);
	if (!o) {
		gt_errf(err, GT_EPARSE, "%s:%d: %s", path, je.line, je.text);
		return NULL;
	}
	if (!json_is_object(o) || !json_object_get(o, "wait_s")) {
		json_decref(o);
		gt_errf(err, GT_EPARSE, "%s: not a `gantry replay -o json` result", path);
		return NULL;
	}
	return o;
}

enum unit { U_COUNT, U_RATIO, U_TIME, U_NUM };

static void cmp_row(FILE *f, const char *label, double a, double b, enum unit u)
{
	char sa[32], sb[32], sd[40];
	const double v[2] = { a, b };
	char *out[2] = { sa, sb };
	for (int i = 0; i < 2; i++) {
		if (isnan(v[i]))
			snprintf(out[i], 32, "-");
		else if (u == U_TIME)
			gt_format_duration(v[i], out[i], 32);
		else if (u == U_RATIO)
			snprintf(out[i], 32, "%.1f%%", 100 * v[i]);
		else if (u == U_COUNT)
			snprintf(out[i], 32, "%.0f", v[i]);
		else
			snprintf(out[i], 32, "%.3f", v[i]);
	}
	if (isnan(a) || isnan(b))
		sd[0] = '\0';
	else if (u == U_RATIO)	/* a change of a percentage is in percentage points */
		snprintf(sd, sizeof(sd), "%+.1f pp", 100 * (b - a));
	else if (a != 0)
		snprintf(sd, sizeof(sd), "%+.1f%%", 100 * (b - a) / fabs(a));
	else
		snprintf(sd, sizeof(sd), "%s", b == 0 ? "=" : "new");
	fprintf(f, "  %-28s %14s %14s %10s\n", label, sa, sb, sd);
}

static void compare_queues(FILE *f, json_t *a, json_t *b)
{
	json_t *qa = json_object_get(a, "queues"), *qb = json_object_get(b, "queues");
	size_t i;
	json_t *q;
	fprintf(f, "\n  %-28s %14s %14s\n", "GPU-time share by queue", "A", "B");
	json_array_foreach(qa, i, q) {
		const char *name = json_string_value(json_object_get(q, "name"));
		double sb = NAN;
		size_t k;
		json_t *o;
		json_array_foreach(qb, k, o)
			if (name && json_string_value(json_object_get(o, "name")) &&
			    !strcmp(name, json_string_value(json_object_get(o, "name"))))
				sb = num_at(o, "gpu_time_share");
		cmp_row(f, name ? name : "?", num_at(q, "gpu_time_share"), sb, U_RATIO);
	}
}

/* Waits by job size (docs/reservations.md): a run without reservations against one with, say. */
static void compare_sizes(FILE *f, json_t *a, json_t *b)
{
	json_t *sa = json_object_get(a, "wait_by_size"), *sb = json_object_get(b, "wait_by_size");
	if (!json_is_array(sa))
		return;	/* a result from before wait_by_size */
	fprintf(f, "\n  %-28s %14s %14s\n", "waits by GPUs asked", "A", "B");
	size_t i;
	json_t *x;
	json_array_foreach(sa, i, x) {
		const char *g = json_string_value(json_object_get(x, "gpus"));
		json_t *y = json_array_get(sb, i);
		static const char *const what[] = { "jobs", "mean", "p99", "max" };
		for (int k = 0; k < 4; k++) {
			char label[64];
			snprintf(label, sizeof(label), "%s GPUs: %s", g ? g : "?", k ? what[k] : "jobs");
			cmp_row(f, label, num_at(x, what[k]), y ? num_at(y, what[k]) : NAN, k ? U_TIME : U_COUNT);
		}
	}
}

int gt_replay_compare(FILE *f, const char *pa, const char *pb, struct gt_err *err)
{
	static const struct {
		const char *label, *path;
		enum unit u;
	} rows[] = {
		{ "jobs", "jobs", U_COUNT },
		{ "cluster GPUs", "cluster_gpus", U_COUNT },
		{ "offered load", "offered_load", U_NUM },
		{ "queueing delay mean", "wait_s.mean", U_TIME },
		{ "queueing delay p50", "wait_s.p50", U_TIME },
		{ "queueing delay p90", "wait_s.p90", U_TIME },
		{ "queueing delay p99", "wait_s.p99", U_TIME },
		{ "JCT mean", "jct_s.mean", U_TIME },
		{ "JCT p50", "jct_s.p50", U_TIME },
		{ "JCT p90", "jct_s.p90", U_TIME },
		{ "JCT p99", "jct_s.p99", U_TIME },
		{ "makespan", "makespan_s", U_TIME },
		{ "GPU allocation", "gpu_allocation", U_RATIO },
		{ "GPU utilization", "gpu_utilization", U_RATIO },
		{ "waited over 24 h", "waited_over_24h", U_COUNT },
		{ "job evictions", "evictions.jobs", U_COUNT },
		{ "restarted jobs", "evictions.restarted_jobs", U_COUNT },
		{ "lost GPU-hours", "evictions.lost_gpu_hours", U_NUM },
		{ "Jain's index", "jain_index", U_NUM },
		{ "fragmented GPUs (mean)", "fragmentation.fragmented_gpus_mean", U_NUM },
		{ "milli-GPU allocation (end)", "packing.milli_gpu_allocation", U_RATIO },
		{ "GPU allocation ratio (end)", "packing.gpu_allocation_ratio", U_RATIO },
		{ "idle GPUs (end)", "packing.idle_gpus", U_COUNT },
		{ "fragmented GPUs (end)", "packing.fragmented_gpus", U_NUM },
		{ "cycles", "scheduler.cycles", U_COUNT },
		{ "cycle ms mean", "scheduler.cycle_ms.mean", U_NUM },
	};
	json_t *a = load_result(pa, err);
	if (!a)
		return GT_EPARSE;
	json_t *b = load_result(pb, err);
	if (!b) {
		json_decref(a);
		return GT_EPARSE;
	}
	const char *pol_a = json_string_value(json_object_get(a, "policy"));
	const char *pol_b = json_string_value(json_object_get(b, "policy"));
	fprintf(f, "A: %s\n   %s\nB: %s\n   %s\n\n", pa, pol_a ? pol_a : "", pb, pol_b ? pol_b : "");
	fprintf(f, "  %-28s %14s %14s %10s\n", "", "A", "B", "B vs A");
	fprintf(f, "  (changes of percentages in percentage points, pp; of the rest relative)\n");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		cmp_row(f, rows[i].label, num_at(a, rows[i].path), num_at(b, rows[i].path), rows[i].u);
	compare_queues(f, a, b);
	compare_sizes(f, a, b);
	json_decref(a);
	json_decref(b);
	return 0;
}
