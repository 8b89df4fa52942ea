#include "core/usage.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define MAX_BUCKETS 512
#define HALF_LIVES 20		/* 0.5^20 < 1e-6: older usage cannot change a share */

static int64_t floor_div(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* How far back a window can reach: what the buckets must cover. */
static int64_t horizon(const struct gt_usage_params *p, int64_t now)
{
	int64_t h = p->window_s > 0 ? p->window_s : 1;
	if (p->window == GT_WINDOW_CRON) {
		/* the longest of the last gaps between firings; a year when it never fires */
		h = 366 * 86400;
		int64_t t = gt_cron_prev(&p->cron, now), longest = 0;
		for (int i = 0; i < 4 && t > 0; i++) {
			int64_t prev = gt_cron_prev(&p->cron, t);
			if (prev < 0)
				break;
			longest = t - prev > longest ? t - prev : longest;
			t = prev;
		}
		if (longest)
			h = longest;
	}
	if (p->half_life_s > 0 && h > HALF_LIVES * p->half_life_s)
		h = HALF_LIVES * p->half_life_s;
	return h;
}

static void size_for(const struct gt_usage_params *p, int64_t now, int64_t *bucket_s, uint32_t *n_slots)
{
	int64_t h = horizon(p, now);
	int64_t w = (h + MAX_BUCKETS - 1) / MAX_BUCKETS;
	*bucket_s = w > 0 ? w : 1;
	/* the window's straddling bucket and the one being filled on top */
	*n_slots = (uint32_t)((h + *bucket_s - 1) / *bucket_s + 2);
}

void gt_usage_init(struct gt_usage_history *h, const struct gt_usage_params *p, int64_t now)
{
	memset(h, 0, sizeof(*h));
	size_for(p, now, &h->bucket_s, &h->n_slots);
	h->cap = gt_xcalloc((size_t)h->n_slots * GT_NQRES, sizeof(double));
	gt_smap_init(&h->by_name);
}

void gt_usage_release(struct gt_usage_history *h)
{
	for (uint32_t i = 0; i < h->n_queues; i++) {
		free(h->queues[i].name);
		free(h->queues[i].sum);
	}
	free(h->queues);
	free(h->cap);
	gt_smap_release(&h->by_name);
	memset(h, 0, sizeof(*h));
}

struct gt_usage_queue *gt_usage_queue(struct gt_usage_history *h, const char *name)
{
	uintptr_t i = (uintptr_t)gt_smap_get(&h->by_name, name);
	if (i)
		return &h->queues[i - 1];
	struct gt_usage_queue q = { .name = gt_xstrdup(name) };
	q.sum = gt_xcalloc((size_t)h->n_slots * GT_NQRES, sizeof(double));
	GT_PUSH(h->queues, h->n_queues, h->cap_queues, q);
	gt_smap_put(&h->by_name, name, (void *)(uintptr_t)h->n_queues);
	return &h->queues[h->n_queues - 1];
}

static double *slot_of(double *arr, const struct gt_usage_history *h, int64_t bucket)
{
	int64_t s = bucket % h->n_slots;
	return arr + (size_t)(s < 0 ? s + h->n_slots : s) * GT_NQRES;
}

static void clear_slot(struct gt_usage_history *h, int64_t bucket)
{
	memset(slot_of(h->cap, h, bucket), 0, GT_NQRES * sizeof(double));
	for (uint32_t i = 0; i < h->n_queues; i++)
		memset(slot_of(h->queues[i].sum, h, bucket), 0, GT_NQRES * sizeof(double));
}

/* Make @bucket the newest, clearing the slots of the buckets that start on the way. */
static void roll_to(struct gt_usage_history *h, int64_t bucket)
{
	if (h->until && bucket <= h->newest)
		return;
	int64_t from = h->until ? h->newest + 1 : bucket - h->n_slots + 1;
	if (bucket - from >= h->n_slots)
		from = bucket - h->n_slots + 1;
	for (int64_t b = from; b <= bucket; b++)
		clear_slot(h, b);
	h->newest = bucket;
}

void gt_usage_advance(struct gt_usage_history *h, int64_t now)
{
	if (!h->until) {
		roll_to(h, floor_div(now, h->bucket_s));
		h->until = now;
		return;
	}
	int64_t t = h->until;
	int64_t reach = (int64_t)h->n_slots * h->bucket_s;
	if (now - t > reach)	/* what lies further back falls out of the ring anyway */
		t = now - reach;
	while (t < now) {
		int64_t b = floor_div(t, h->bucket_s);
		int64_t end = (b + 1) * h->bucket_s < now ? (b + 1) * h->bucket_s : now;
		double dt = (double)(end - t);
		roll_to(h, b);
		double *cap = slot_of(h->cap, h, b);
		for (int r = 0; r < GT_NQRES; r++)
			cap[r] += h->cap_rate[r] * dt;
		for (uint32_t i = 0; i < h->n_queues; i++) {
			double *sum = slot_of(h->queues[i].sum, h, b);
			for (int r = 0; r < GT_NQRES; r++)
				sum[r] += h->queues[i].rate[r] * dt;
		}
		t = end;
	}
	if (now > h->until)
		h->until = now;
}

void gt_usage_set_rates(struct gt_usage_history *h, const struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	for (uint32_t i = 0; i < h->n_queues; i++)
		memset(h->queues[i].rate, 0, sizeof(h->queues[i].rate));
	struct gt_usage_queue **uq = gt_xcalloc(c->n_queues + 1, sizeof(*uq));
	for (uint32_t q = 0; q < c->n_queues; q++)
		uq[q] = gt_usage_queue(h, gt_strtab_str(c->names, c->queues[q].name));
	/* what runs or is being bound: a pipelined pod uses nothing yet, an evicted one is going */
	for (uint32_t i = 0; i < c->n_pods; i++) {
		const struct gt_pod_state *st = &s->pods[i];
		const struct gt_pod *p = &c->pods[i];
		if (!gt_status_allocated(st->status) || p->job == GT_NONE || c->jobs[p->job].queue == GT_NONE)
			continue;
		int64_t res[GT_NQRES];
		gt_pod_queue_res(s, (int32_t)i, st->node, res);
		for (int32_t q = c->jobs[p->job].queue; q != GT_NONE; q = c->queues[q].parent)
			for (int r = 0; r < GT_NQRES; r++)
				uq[q]->rate[r] += (double)res[r];
	}
	free(uq);
	/* KAI divides by the nodes' capacity (kube_node_status_capacity); Gantry has their allocatable */
	memset(h->cap_rate, 0, sizeof(h->cap_rate));
	for (uint32_t n = 0; n < c->n_nodes; n++) {
		const struct gt_node *nd = &c->nodes[n];
		int64_t mig = 0;
		for (uint32_t e = 0; e < c->n_ext; e++)
			mig += nd->ext[e] * c->ext_gpu_milli[e];
		h->cap_rate[GT_QGPU] += (double)nd->gpus * 1000 + (double)mig;
		h->cap_rate[GT_QCPU] += (double)nd->cpu_milli;
		h->cap_rate[GT_QMEM] += (double)nd->mem_bytes;
	}
}

int64_t gt_usage_window_start(const struct gt_usage_history *h, const struct gt_usage_params *p,
			      int64_t now)
{
	int64_t reach = now - (int64_t)h->n_slots * h->bucket_s;
	int64_t start = now - p->window_s;
	if (p->window == GT_WINDOW_TUMBLING) {
		/* KAI: the latest start + n * windowSize strictly before now; now itself before the start */
		if (now <= p->tumbling_start || p->window_s <= 0)
			start = now <= p->tumbling_start ? now : p->tumbling_start;
		else
			start = p->tumbling_start + (now - p->tumbling_start - 1) / p->window_s * p->window_s;
	} else if (p->window == GT_WINDOW_CRON) {
		start = gt_cron_prev(&p->cron, now);
		if (start < 0)
			start = reach;
	}
	return start > reach ? start : reach;
}

void gt_usage_apply(const struct gt_usage_history *h, const struct gt_usage_params *p,
		    struct gt_cluster *c, int64_t now)
{
	for (uint32_t q = 0; q < c->n_queues; q++)
		memset(c->queues[q].usage, 0, sizeof(c->queues[q].usage));
	if (!h->until)
		return;
	int64_t start = gt_usage_window_start(h, p, now);
	double *w = gt_xcalloc((size_t)h->n_slots + 1, sizeof(double));	/* per bucket: overlap x decay */
	int64_t first = floor_div(start, h->bucket_s);
	if (first < h->newest - h->n_slots + 1)
		first = h->newest - h->n_slots + 1;
	double den[GT_NQRES] = { 0 };
	for (int64_t b = first; b <= h->newest; b++) {
		int64_t b0 = b * h->bucket_s, b1 = (b + 1) * h->bucket_s < h->until ? (b + 1) * h->bucket_s : h->until;
		if (b1 <= b0 || b1 <= start)
			continue;
		double f = b0 >= start ? 1 : (double)(b1 - start) / (double)(b1 - b0);
		double decay = p->half_life_s > 0 ? pow(0.5, (double)(now - b0) / (double)p->half_life_s) : 1;
		w[b - first] = f * decay;
		const double *cap = slot_of(h->cap, h, b);
		for (int r = 0; r < GT_NQRES; r++)
			den[r] += w[b - first] * cap[r];
	}
	for (uint32_t q = 0; q < c->n_queues; q++) {
		uintptr_t i = (uintptr_t)gt_smap_get(&h->by_name, gt_strtab_str(c->names, c->queues[q].name));
		if (!i)
			continue;
		const struct gt_usage_queue *uq = &h->queues[i - 1];
		double num[GT_NQRES] = { 0 };
		for (int64_t b = first; b <= h->newest; b++) {
			const double *sum = slot_of(uq->sum, h, b);
			for (int r = 0; r < GT_NQRES; r++)
				num[r] += w[b - first] * sum[r];
		}
		for (int r = 0; r < GT_NQRES; r++)
			c->queues[q].usage[r] = den[r] > 0 ? num[r] / den[r] : 0;
	}
	free(w);
}

void gt_usage_configure(struct gt_usage_history *h, const struct gt_usage_params *p, int64_t now)
{
	int64_t bucket_s;
	uint32_t n_slots;
	size_for(p, now, &bucket_s, &n_slots);
	if (bucket_s == h->bucket_s && n_slots == h->n_slots)
		return;
	struct gt_usage_history old = *h;	/* its ring: cap and the sums saved below */
	double **old_sums = gt_xcalloc(h->n_queues + 1, sizeof(*old_sums));
	h->bucket_s = bucket_s;
	h->n_slots = n_slots;
	h->cap = gt_xcalloc((size_t)n_slots * GT_NQRES, sizeof(double));
	for (uint32_t i = 0; i < h->n_queues; i++) {
		old_sums[i] = h->queues[i].sum;
		h->queues[i].sum = gt_xcalloc((size_t)n_slots * GT_NQRES, sizeof(double));
	}
	if (old.until) {
		h->newest = floor_div(old.until, bucket_s);
		for (int64_t b = old.newest - old.n_slots + 1; b <= old.newest; b++) {
			int64_t nb = floor_div(b * old.bucket_s, bucket_s);
			if (nb <= h->newest - n_slots)
				continue;
			double *to = slot_of(h->cap, h, nb);
			const double *from = slot_of(old.cap, &old, b);
			for (int r = 0; r < GT_NQRES; r++)
				to[r] += from[r];
			for (uint32_t i = 0; i < h->n_queues; i++) {
				double *qt = slot_of(h->queues[i].sum, h, nb);
				const double *qf = slot_of(old_sums[i], &old, b);
				for (int r = 0; r < GT_NQRES; r++)
					qt[r] += qf[r];
			}
		}
	}
	free(old.cap);
	for (uint32_t i = 0; i < h->n_queues; i++)
		free(old_sums[i]);
	free(old_sums);
}
