/*
 * engine_stats.c - what a finished replay measured
 *
 * The engine integrates its signals while it runs (engine.c: observe());
 * here the per-job times become distributions, the per-queue integrals
 * shares and Jain's index, and the node books the packing at the end.
 */
#include "replay/engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/strtab.h"

/* ---------------------------------------------------------------- results */

static void queue_stats(struct gt_replay *r, double span)
{
	struct gt_replay_stats *st = &r->st;
	double all_alloc = 0, all_fair = 0, all_quota = 0;
	uint32_t nq = r->c.n_queues;
	for (uint32_t q = 0; q < nq; q++) {
		if (r->c.queues[q].n_children)
			continue;
		all_alloc += r->q_alloc_s[q];
		all_fair += r->q_fair_s[q];
		if (r->c.queues[q].deserved[GT_QGPU] > 0)
			all_quota += (double)r->c.queues[q].deserved[GT_QGPU];
	}
	st->queues = gt_xcalloc(nq + 1, sizeof(*st->queues));
	double *x = gt_xcalloc(nq + 1, sizeof(*x));
	uint32_t nx = 0;
	int32_t *map = gt_xmalloc((nq + 1) * sizeof(*map));
	for (uint32_t q = 0; q < nq; q++) {
		map[q] = -1;
		if (r->c.queues[q].n_children)
			continue;
		map[q] = (int32_t)st->n_queues;
		struct gt_queue_stats *qs = &st->queues[st->n_queues++];
		int64_t des = r->c.queues[q].deserved[GT_QGPU];
		qs->name = gt_xstrdup(gt_strtab_str(r->names, r->c.queues[q].name));
		qs->timeline_index = q;
		qs->quota_gpus = des < 0 ? -1 : (double)des / 1000.0;
		qs->quota_share = all_quota > 0 && des > 0 ? (double)des / all_quota : 0;
		qs->gpu_hours = r->q_alloc_s[q] / 3600.0;
		qs->gpu_time_share = all_alloc > 0 ? r->q_alloc_s[q] / all_alloc : 0;
		qs->fair_share_gpus = span > 0 ? r->q_fair_s[q] / span : 0;
		qs->fair_time_share = all_fair > 0 ? r->q_fair_s[q] / all_fair : 0;
		qs->allocated_vs_fair = r->q_fair_s[q] > 0 ? r->q_alloc_s[q] / r->q_fair_s[q] : -1;
		if (r->q_fair_s[q] > 0)
			x[nx++] = qs->allocated_vs_fair;
	}
	for (uint32_t i = 0; i < r->n_jobs; i++) {
		const struct rp_job *rj = &r->jobs[i];
		if (map[rj->queue] < 0)
			continue;
		struct gt_queue_stats *qs = &st->queues[map[rj->queue]];
		qs->jobs++;
		if (rj->first_start >= 0)
			qs->wait_mean_s += (double)(rj->first_start - r->tj[i].submit);
		if (rj->state == JS_DONE) {
			qs->finished++;
			qs->jct_mean_s += (double)(rj->end - r->tj[i].submit);
		}
	}
	for (uint32_t k = 0; k < st->n_queues; k++) {
		struct gt_queue_stats *qs = &st->queues[k];
		uint32_t started = 0;
		for (uint32_t i = 0; i < r->n_jobs; i++)
			started += map[r->jobs[i].queue] == (int32_t)k && r->jobs[i].first_start >= 0;
		qs->wait_mean_s = started ? qs->wait_mean_s / started : 0;
		qs->jct_mean_s = qs->finished ? qs->jct_mean_s / qs->finished : 0;
	}
	st->jain = gt_jain(x, nx);
	free(x);
	free(map);
}

/* Waits by job size, from @wait: the started jobs' waits in job order (job_stats). */
static void wait_by_size(struct gt_replay *r, const double *wait)
{
	double *by[GT_N_SIZE_BUCKETS];
	size_t n[GT_N_SIZE_BUCKETS] = { 0 };
	for (uint32_t b = 0; b < GT_N_SIZE_BUCKETS; b++)
		by[b] = gt_xmalloc((r->n_jobs + 1) * sizeof(*by[b]));
	uint32_t k = 0;
	for (uint32_t i = 0; i < r->n_jobs; i++) {
		if (r->jobs[i].state == JS_FUTURE || r->jobs[i].first_start < 0)
			continue;
		uint32_t b = gt_size_bucket(gt_rp_job_gpus(&r->tj[i]));
		by[b][n[b]++] = wait[k++];
	}
	for (uint32_t b = 0; b < GT_N_SIZE_BUCKETS; b++) {
		gt_dist_of(by[b], n[b], &r->st.wait_by_size[b]);
		free(by[b]);
	}
}

static void job_stats(struct gt_replay *r)
{
	struct gt_replay_stats *st = &r->st;
	double *wait = gt_xmalloc((r->n_jobs + 1) * sizeof(*wait));
	double *jct = gt_xmalloc((r->n_jobs + 1) * sizeof(*jct));
	uint32_t nw = 0, nj = 0;
	int64_t last_end = r->origin;
	for (uint32_t i = 0; i < r->n_jobs; i++) {
		const struct rp_job *rj = &r->jobs[i];
		int64_t submit = r->tj[i].submit;
		if (rj->state == JS_FUTURE)
			continue;
		if (rj->first_start >= 0) {
			wait[nw++] = (double)(rj->first_start - submit);
			st->started++;
			st->waited_over += rj->first_start - submit > r->o.starvation_s;
			st->waited_over_24h += rj->first_start - submit > 86400;
		} else {
			/* still waiting at the end: it waited at least this long */
			st->never_started++;
			st->waited_over += st->end - submit > r->o.starvation_s;
			st->waited_over_24h += st->end - submit > 86400;
		}
		if (rj->state == JS_DONE) {
			jct[nj++] = (double)(rj->end - submit);
			st->finished++;
			last_end = rj->end > last_end ? rj->end : last_end;
		}
	}
	wait_by_size(r, wait);
	gt_dist_of(wait, nw, &st->wait_s);
	gt_dist_of(jct, nj, &st->jct_s);
	st->waits_sorted = wait;	/* sorted by gt_dist_of */
	st->n_waits = nw;
	st->jcts_sorted = jct;
	st->n_jcts = nj;
	bool all_done = st->finished == r->n_jobs;
	st->makespan_s = (all_done ? last_end : st->end) - r->origin;
}

static void packing_stats(struct gt_replay *r)
{
	struct gt_packing *pk = &r->st.packing;
	double total = (double)r->st.cluster_gpus;
	pk->milli_gpu_allocation = total > 0 ? (double)r->alloc_milli / (total * 1000.0) : 0;
	pk->idle_gpus = r->idle_devices;
	pk->allocated_gpus = r->st.cluster_gpus - r->idle_devices;
	pk->gpu_allocation_ratio = total > 0 ? (double)pk->allocated_gpus / total : 0;
	pk->fragmented_gpus = (double)r->stranded_milli / 1000.0;
	pk->partial_nodes = r->partial_nodes;
	pk->arrived_gpus = r->arrived_milli / 1000.0;
	pk->placed_gpus = (double)r->alloc_milli / 1000.0;
	for (uint32_t slot = 0; slot < r->c.n_jobs; slot++)
		if (r->jobs[r->slot_id[slot]].state == JS_PENDING)
			pk->pending_pods += r->c.jobs[slot].n_pods;
}

void gt_rp_finish_stats(struct gt_replay *r)
{
	struct gt_replay_stats *st = &r->st;
	double span = (double)(st->end - r->origin);
	double cap = (double)st->cluster_gpus * span;
	job_stats(r);
	st->gpu_allocation = cap > 0 ? r->alloc_gpu_s / cap : 0;
	st->gpu_utilization = cap > 0 ? r->useful_gpu_s / cap : 0;
	st->lost_gpu_hours = r->lost_gpu_s / 3600.0;
	st->frag_gpus_mean = span > 0 ? r->frag_s / span : 0;
	st->idle_gpus_mean = span > 0 ? r->idle_s / span : (double)r->idle_devices;
	st->partial_nodes_mean = span > 0 ? r->partial_s / span : 0;
	gt_dist_of(r->cycle_ms, r->n_cycle_ms, &st->cycle_ms);
	queue_stats(r, span);
	packing_stats(r);
}

const struct gt_replay_stats *gt_replay_stats(const struct gt_replay *r)
{
	return &r->st;
}

int64_t gt_replay_job_start(const struct gt_replay *r, uint32_t i)
{
	return i < r->n_jobs ? r->jobs[i].first_start : -1;
}

int64_t gt_replay_job_end(const struct gt_replay *r, uint32_t i)
{
	return i < r->n_jobs && r->jobs[i].state == JS_DONE ? r->jobs[i].end : -1;
}

int32_t gt_replay_job_evictions(const struct gt_replay *r, uint32_t i)
{
	return i < r->n_jobs ? r->jobs[i].evictions : 0;
}

int32_t gt_replay_pod_node(const struct gt_replay *r, uint32_t i, int32_t k)
{
	if (i >= r->n_jobs || k < 0 || k >= r->tj[i].n_pods)
		return -1;
	return r->last_node[r->jobs[i].pod0 + (uint32_t)k];
}

const char *gt_replay_pod_group(const struct gt_replay *r, uint32_t i, int32_t k)
{
	if (i >= r->n_jobs || k < 0 || k >= r->tj[i].n_pods)
		return NULL;
	uint32_t g = r->last_group[r->jobs[i].pod0 + (uint32_t)k];
	return g ? gt_strtab_str(r->names, g - 1) : NULL;
}

int gt_replay_write_jobs(const struct gt_replay *r, FILE *f)
{
	int rc = fprintf(f, "job,submit,gpus,queue,start,end,wait\n") < 0;
	for (uint32_t i = 0; i < r->n_jobs && !rc; i++) {
		const struct rp_job *j = &r->jobs[i];
		const char *q = j->queue >= 0 ? gt_strtab_str(r->names, r->c.queues[j->queue].name) : "";
		char start[24] = "", end[24] = "", wait[24] = "";
		if (j->first_start >= 0) {
			snprintf(start, sizeof(start), "%lld", (long long)j->first_start);
			snprintf(wait, sizeof(wait), "%lld", (long long)(j->first_start - r->tj[i].submit));
		}
		if (j->state == JS_DONE)
			snprintf(end, sizeof(end), "%lld", (long long)j->end);
		rc = fprintf(f, "%u,%lld,%g,%s,%s,%s,%s\n", i, (long long)r->tj[i].submit, gt_rp_job_gpus(&r->tj[i]), q,
			     start, end, wait) < 0;
	}
	return rc;
}
