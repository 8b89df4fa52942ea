#include "core/fairshare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* Fair shares are handed out in whole units: one GPU, one mCPU, one byte. */
static const int64_t unit[GT_NQRES] = { 1000, 1, 1 };

struct division {
	struct gt_session *s;
	int r;
	int32_t *qs;		/* the siblings */
	uint32_t n;
	int64_t *leftover;	/* per sibling, fixed point (leftover_fixed); < 0 = none recorded */
	int64_t remaining;
};

static int64_t requestable(const struct gt_session *s, int32_t q, int r)
{
	int64_t req = s->queues[q].request[r];
	int64_t lim = s->c->queues[q].limit[r];
	return lim < 0 ? req : (lim < req ? lim : req);
}

static bool satisfied(const struct gt_session *s, int32_t q, int r)
{
	int64_t fs = s->queues[q].fair_share[r];
	int64_t lim = s->c->queues[q].limit[r];
	return s->queues[q].request[r] <= fs || (lim >= 0 && lim <= fs);
}

static int64_t remaining_requested(const struct gt_session *s, int32_t q, int r)
{
	int64_t v = requestable(s, q, r) - s->queues[q].fair_share[r];
	return v > 0 ? v : 0;
}

static void deserved_phase(struct division *d, int64_t amount)
{
	d->remaining = amount;
	for (uint32_t i = 0; i < d->n; i++) {
		int32_t q = d->qs[i];
		int64_t des = d->s->c->queues[q].deserved[d->r];
		int64_t want = des < 0 ? amount : des;
		int64_t rq = requestable(d->s, q, d->r);
		int64_t give = want < rq ? want : rq;
		if (give < 0)
			give = 0;
		d->s->queues[q].fair_share[d->r] += give;
		d->remaining -= give;
	}
}

/*
 * A queue's share of one over-quota round, KAI's calcShareWeights: its
 * weight normalised over the unsatisfied siblings', raised or lowered by k
 * times how far its usage (core/usage.h; 0 without time-based fair share)
 * is below or above that weight, floored at 0:
 *	max(0, nw + k * (nw - usage))
 */
static double share_weight(const struct gt_session *s, int32_t q, int r, double total_w, double k)
{
	double nw = s->c->queues[q].weight[r] / total_w;
	double w = nw + k * (nw - s->c->queues[q].usage[r]);
	return w > 0 ? w : 0;
}

/*
 * A round's leftover - what a sibling's portion held beyond its whole units -
 * in fixed point with LEFTOVER_BITS fraction bits, so that the order of the
 * leftover phase is decided on integers. The exact fraction is out of reach:
 * the portion is a double (it comes from weights and usage, doubles in the
 * cluster). Bound: 0 <= left < unit <= 1000 < 2^10, so left * 2^50 < 2^60
 * fits an int64. Truncating is monotone, so the order is the doubles' order
 * except that leftovers closer than 2^-50 tie (then the older queue comes
 * first, as for equal ones); a double at or above 4 has no bits below 2^-50.
 */
enum { LEFTOVER_BITS = 50 };

static int64_t leftover_fixed(double left)
{
	if (!(left > 0))
		return -1;
	int64_t v = (int64_t)ldexp(left, LEFTOVER_BITS);
	return v > 0 ? v : 1;	/* below 2^-50 still counts as a leftover */
}

/* One priority group's water-filling rounds (KAI-SPEC 6.3 step 2). */
static void over_quota_group(struct division *d, int32_t prio)
{
	struct gt_session *s = d->s;
	int r = d->r;
	double k = s->c->config.k_value > 0 ? s->c->config.k_value : 0;
	bool another_round = true;
	while (another_round && d->remaining > 0) {
		another_round = false;
		double total_w = 0;
		for (uint32_t i = 0; i < d->n; i++) {
			int32_t q = d->qs[i];
			if (s->c->queues[q].priority == prio && remaining_requested(s, q, r) > 0)
				total_w += s->c->queues[q].weight[r];
		}
		if (total_w <= 0)
			return;
		double sum_w = 0;
		for (uint32_t i = 0; i < d->n; i++) {
			int32_t q = d->qs[i];
			if (s->c->queues[q].priority != prio || satisfied(s, q, r))
				continue;
			sum_w += share_weight(s, q, r, total_w, k);
		}
		if (sum_w <= 0)
			return;
		double r0 = (double)d->remaining;
		for (uint32_t i = 0; i < d->n && d->remaining > 0; i++) {
			int32_t q = d->qs[i];
			const struct gt_queue *cq = &s->c->queues[q];
			if (cq->priority != prio || satisfied(s, q, r) || cq->weight[r] <= 0)
				continue;
			double portion = r0 * share_weight(s, q, r, total_w, k) / sum_w;
			int64_t need = remaining_requested(s, q, r);
			int64_t give;
			if ((double)need <= portion) {
				give = need;
				d->leftover[i] = -1;
			} else {
				give = (int64_t)floor(portion / (double)unit[r]) * unit[r];
				d->leftover[i] = leftover_fixed(portion - (double)give);
			}
			if (give > d->remaining)
				give = d->remaining;
			s->queues[q].fair_share[r] += give;
			d->remaining -= give;
			if ((double)need < portion)
				another_round = true;
		}
	}
}

/* Larger leftover first, then the older queue, then the name. */
static int leftover_cmp(const struct division *d, uint32_t i, uint32_t j)
{
	if (d->leftover[i] != d->leftover[j])
		return d->leftover[i] > d->leftover[j] ? -1 : 1;
	const struct gt_queue *qi = &d->s->c->queues[d->qs[i]], *qj = &d->s->c->queues[d->qs[j]];
	if (qi->created != qj->created)
		return qi->created < qj->created ? -1 : 1;
	return strcmp(gt_strtab_str(d->s->c->names, qi->name),
		      gt_strtab_str(d->s->c->names, qj->name));
}

static void leftover_phase(struct division *d, int32_t prio)
{
	uint32_t *idx = gt_xmalloc(d->n * sizeof(*idx));
	uint32_t m = 0;
	for (uint32_t i = 0; i < d->n; i++)
		if (d->s->c->queues[d->qs[i]].priority == prio && d->leftover[i] > 0)
			idx[m++] = i;
	for (uint32_t a = 1; a < m; a++)	/* insertion sort: siblings are few */
		for (uint32_t b = a; b > 0 && leftover_cmp(d, idx[b - 1], idx[b]) > 0; b--) {
			uint32_t t = idx[b];
			idx[b] = idx[b - 1];
			idx[b - 1] = t;
		}
	for (uint32_t k = 0; k < m && d->remaining > 0; k++) {
		int64_t give = d->remaining < unit[d->r] ? d->remaining : unit[d->r];
		d->s->queues[d->qs[idx[k]]].fair_share[d->r] += give;
		d->remaining -= give;
	}
	free(idx);
}

/* Distinct priorities of the siblings, highest first. */
static uint32_t priorities_desc(const struct division *d, int32_t *out)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < d->n; i++) {
		int32_t p = d->s->c->queues[d->qs[i]].priority;
		uint32_t k = 0;
		while (k < n && out[k] > p)
			k++;
		if (k < n && out[k] == p)
			continue;
		memmove(&out[k + 1], &out[k], (n - k) * sizeof(*out));
		out[k] = p;
		n++;
	}
	return n;
}

static void divide(struct gt_session *s, int32_t *qs, uint32_t n, int r, int64_t amount)
{
	if (!n)
		return;
	struct division d = { .s = s, .r = r, .qs = qs, .n = n };
	d.leftover = gt_xmalloc(n * sizeof(*d.leftover));
	for (uint32_t i = 0; i < n; i++)
		d.leftover[i] = -1;
	deserved_phase(&d, amount);
	int32_t *prios = gt_xmalloc(n * sizeof(*prios));
	uint32_t n_prios = priorities_desc(&d, prios);
	for (uint32_t i = 0; i < n_prios && d.remaining > 0; i++)
		over_quota_group(&d, prios[i]);
	for (uint32_t i = 0; i < n_prios && d.remaining > 0; i++)
		leftover_phase(&d, prios[i]);
	free(prios);
	free(d.leftover);
}

static void divide_children(struct gt_session *s, int32_t parent)
{
	const struct gt_queue *pq = &s->c->queues[parent];
	for (int r = 0; r < GT_NQRES; r++)
		divide(s, pq->children, pq->n_children, r, s->queues[parent].fair_share[r]);
	for (uint32_t i = 0; i < pq->n_children; i++)
		divide_children(s, pq->children[i]);
}

void gt_fairshare_compute(struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	int32_t *roots = gt_xmalloc((c->n_queues + 1) * sizeof(*roots));
	uint32_t n_roots = 0;
	for (uint32_t q = 0; q < c->n_queues; q++) {
		memset(s->queues[q].fair_share, 0, sizeof(s->queues[q].fair_share));
		if (c->queues[q].parent == GT_NONE)
			roots[n_roots++] = (int32_t)q;
	}
	for (int r = 0; r < GT_NQRES; r++)
		divide(s, roots, n_roots, r, s->total[r] > 0 ? s->total[r] : 0);
	for (uint32_t i = 0; i < n_roots; i++)
		divide_children(s, roots[i]);
	free(roots);
}

int64_t gt_queue_allocatable_share(const struct gt_session *s, int32_t q, int r)
{
	const struct gt_queue *cq = &s->c->queues[q];
	if (cq->deserved[r] < 0)
		return cq->limit[r];
	int64_t fs = s->queues[q].fair_share[r];
	int64_t v = cq->deserved[r] > fs ? cq->deserved[r] : fs;
	if (cq->limit[r] >= 0 && v > cq->limit[r])
		v = cq->limit[r];
	return v;
}
