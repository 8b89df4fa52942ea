#include "core/order.h"

#include <stdlib.h>
#include <string.h>

#include "core/fairshare.h"
#include "core/gang.h"
#include "util/heap.h"
#include "util/mem.h"

static int name_cmp(const struct gt_session *s, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	return strcmp(gt_strtab_str(s->c->names, a), gt_strtab_str(s->c->names, b));
}

void gt_job_count(const struct gt_session *s, int32_t job, struct gt_podset_count *out)
{
	const struct gt_job *j = &s->c->jobs[job];
	memset(out, 0, j->n_podsets * sizeof(*out));
	for (uint32_t i = 0; i < j->n_pods; i++) {
		int32_t p = j->pods[i];
		const struct gt_pod *pod = &s->c->pods[p];
		struct gt_podset_count *pc = &out[pod->podset];
		enum gt_status st = s->pods[p].status;
		if (gt_status_active_allocated(st))
			pc->active_allocated++;
		if (gt_status_active_used(st))
			pc->active_used++;
		if (st == GT_PIPELINED)
			pc->pipelined++;
		if (st == GT_PENDING && pod->ours)
			pc->pending++;
		if (gt_status_alive(st) && st != GT_GATED)
			pc->alive_not_gated++;
	}
}

bool gt_gang_met_counts(const struct gt_job *j, const struct gt_podset_count *cnt, size_t field)
{
	int32_t n[GT_MAX_PODSETS];
	for (uint32_t i = 0; i < j->n_podsets; i++)
		n[i] = *(const int32_t *)(const void *)((const char *)&cnt[i] + field);
	return gt_gang_met(j, n);
}

bool gt_job_is_ready(const struct gt_session *s, int32_t job)
{
	struct gt_podset_count cnt[GT_MAX_PODSETS];
	gt_job_count(s, job, cnt);
	return gt_gang_met_counts(&s->c->jobs[job], cnt, GT_COUNT(alive_not_gated));
}

/* 0: some podset below its minimum, 1: all exactly at it, 2: above. */
static int elastic_state(const struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	struct gt_podset_count cnt[GT_MAX_PODSETS];
	gt_job_count(s, job, cnt);
	if (!gt_gang_met_counts(j, cnt, GT_COUNT(active_allocated)))
		return 0;
	int state = 1;
	for (uint32_t i = 0; i < j->n_podsets; i++)
		if (cnt[i].active_allocated > j->podsets[i].min_member)
			state = 2;
	return state;
}

static int job_cmp_keyed(const struct gt_session *s, int32_t a, int ea, int32_t b, int eb)
{
	const struct gt_job *ja = &s->c->jobs[a], *jb = &s->c->jobs[b];
	if (ja->priority != jb->priority)
		return ja->priority > jb->priority ? -1 : 1;
	if (ea != eb)
		return ea < eb ? -1 : 1;
	if (ja->created != jb->created)
		return ja->created < jb->created ? -1 : 1;
	int c = name_cmp(s, ja->name, jb->name);
	return c ? c : (a < b ? -1 : a > b);
}

int gt_job_cmp(const struct gt_session *s, int32_t a, int32_t b)
{
	const struct gt_job *ja = &s->c->jobs[a], *jb = &s->c->jobs[b];
	if (ja->priority != jb->priority)
		return ja->priority > jb->priority ? -1 : 1;
	return job_cmp_keyed(s, a, elastic_state(s, a), b, elastic_state(s, b));
}

int gt_task_cmp(const struct gt_session *s, int32_t a, int32_t b)
{
	const struct gt_pod *pa = &s->c->pods[a], *pb = &s->c->pods[b];
	if (pa->role_first != pb->role_first)
		return pa->role_first ? -1 : 1;
	if (pa->has_task_prio != pb->has_task_prio)
		return pa->has_task_prio ? -1 : 1;
	if (pa->has_task_prio && pa->task_prio != pb->task_prio)
		return pa->task_prio > pb->task_prio ? -1 : 1;
	if (pa->created != pb->created)
		return pa->created < pb->created ? -1 : 1;
	int c = name_cmp(s, pa->name, pb->name);
	return c ? c : (a < b ? -1 : a > b);
}

/* Podset order: below minimum first, then lower active/min ratio, then name. */
static int podset_cmp(const struct gt_session *s, const struct gt_job *j,
		      const struct gt_podset_count *cnt, uint32_t a, uint32_t b)
{
	int64_t ma = j->podsets[a].min_member, mb = j->podsets[b].min_member;
	bool below_a = cnt[a].active_allocated < ma, below_b = cnt[b].active_allocated < mb;
	if (below_a != below_b)
		return below_a ? -1 : 1;
	if (!below_a) {
		/* ratio active/min, cross-multiplied to stay in integers */
		int64_t l = cnt[a].active_allocated * (mb > 0 ? mb : 1);
		int64_t r = cnt[b].active_allocated * (ma > 0 ? ma : 1);
		if (l != r)
			return l < r ? -1 : 1;
	}
	int c = name_cmp(s, j->podsets[a].name, j->podsets[b].name);
	return c ? c : (a < b ? -1 : a > b);
}

void gt_sort_podsets(const struct gt_session *s, int32_t job, const struct gt_podset_count *cnt,
		     uint32_t *order)
{
	const struct gt_job *j = &s->c->jobs[job];
	for (uint32_t i = 0; i < j->n_podsets; i++)
		order[i] = i;
	for (uint32_t i = 1; i < j->n_podsets; i++)
		for (uint32_t k = i; k > 0 && podset_cmp(s, j, cnt, order[k - 1], order[k]) > 0; k--) {
			uint32_t x = order[k];
			order[k] = order[k - 1];
			order[k - 1] = x;
		}
}

static void sort_tasks(const struct gt_session *s, int32_t *t, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t k = i; k > 0 && gt_task_cmp(s, t[k - 1], t[k]) > 0; k--) {
			int32_t x = t[k];
			t[k] = t[k - 1];
			t[k - 1] = x;
		}
}

bool gt_task_wants_placement(const struct gt_session *s, int32_t pod)
{
	const struct gt_pod_state *st = &s->pods[pod];
	if (st->status == GT_PENDING)
		return s->c->pods[pod].ours;
	/* a simulation may put this session's victims somewhere again */
	return s->simulating && st->status == GT_RELEASING && st->virtual_evict;
}

/* Tasks of podset @ps that want a place, best first; returns the count. */
static uint32_t pending_tasks(const struct gt_session *s, int32_t job, uint32_t ps, int32_t *out)
{
	const struct gt_job *j = &s->c->jobs[job];
	uint32_t n = 0;
	for (uint32_t i = 0; i < j->n_pods; i++) {
		int32_t p = j->pods[i];
		if ((uint32_t)s->c->pods[p].podset == ps && gt_task_wants_placement(s, p))
			out[n++] = p;
	}
	sort_tasks(s, out, n);
	return n;
}

uint32_t gt_tasks_to_allocate(const struct gt_session *s, int32_t job, int32_t *out)
{
	const struct gt_job *j = &s->c->jobs[job];
	uint32_t nps = j->n_podsets;
	struct gt_podset_count cnt[GT_MAX_PODSETS];
	uint32_t order[GT_MAX_PODSETS];
	gt_job_count(s, job, cnt);
	gt_sort_podsets(s, job, cnt, order);
	int32_t *buf = gt_xmalloc((j->n_pods + 1) * sizeof(*buf));
	uint32_t n = 0;
	bool any_below = false;
	/* the gang phase: what the minimum needs, members chosen in order (core/gang.h) */
	int32_t allocated[GT_MAX_PODSETS], need[GT_MAX_PODSETS];
	for (uint32_t k = 0; k < nps; k++)
		allocated[k] = cnt[k].active_allocated;
	gt_gang_need(j, allocated, order, need);
	for (uint32_t k = 0; k < nps; k++) {
		uint32_t ps = order[k];
		if (need[ps] <= 0)
			continue;
		any_below = true;
		uint32_t m = pending_tasks(s, job, ps, buf);
		for (uint32_t i = 0; i < m && (int32_t)i < need[ps]; i++)
			out[n++] = buf[i];
	}
	if (!any_below) {
		for (uint32_t k = 0; k < nps && n == 0; k++) {
			if (pending_tasks(s, job, order[k], buf) > 0)
				out[n++] = buf[0];
		}
	}
	free(buf);
	return n;
}

void gt_tasks_queue_res(const struct gt_session *s, const int32_t *tasks, uint32_t n,
			int64_t out[GT_NQRES])
{
	memset(out, 0, GT_NQRES * sizeof(*out));
	for (uint32_t i = 0; i < n; i++) {
		int64_t res[GT_NQRES];
		gt_pod_queue_res(s, tasks[i], GT_NONE, res);
		for (int r = 0; r < GT_NQRES; r++)
			out[r] += res[r];
	}
}

/* ---------------------------------------------------------------- queue order */

static const double unit_scale[GT_NQRES] = { 1000.0, 1.0, 1.0 };

static bool over_utilised(const struct gt_session *s, int32_t q)
{
	for (int r = 0; r < GT_NQRES; r++)
		if (!(s->queues[q].fair_share[r] < s->queues[q].allocated[r]))
			return false;
	return true;
}

/* What a job's next allocation would add; cached until one of its pods changes. */
static void head_request(const struct gt_session *s, int32_t job, int64_t out[GT_NQRES])
{
	memset(out, 0, GT_NQRES * sizeof(*out));
	if (job == GT_NONE)
		return;
	if (!s->job_req_valid[job]) {
		int32_t *tasks = gt_xmalloc((s->c->jobs[job].n_pods + 1) * sizeof(*tasks));
		uint32_t n = gt_tasks_to_allocate(s, job, tasks);
		gt_tasks_queue_res(s, tasks, n, s->job_req[job]);
		free(tasks);
		s->job_req_valid[job] = true;
	}
	memcpy(out, s->job_req[job], GT_NQRES * sizeof(*out));
}

static bool within_deserved(const struct gt_session *s, int32_t q, const int64_t req[GT_NQRES])
{
	for (int r = 0; r < GT_NQRES; r++) {
		int64_t des = s->c->queues[q].deserved[r];
		if (des >= 0 && s->queues[q].allocated[r] + req[r] > des)
			return false;
	}
	return true;
}

static bool zero_share_penalty(const struct gt_session *s, int32_t q, const int64_t req[GT_NQRES])
{
	for (int r = 0; r < GT_NQRES; r++)
		if (s->queues[q].allocated[r] + req[r] > 0 && gt_queue_allocatable_share(s, q, r) == 0)
			return true;
	return false;
}

static double dominant_share(const struct gt_session *s, int32_t q, const int64_t req[GT_NQRES],
			     const int64_t sub[GT_NQRES])
{
	double best = 0;
	for (int r = 0; r < GT_NQRES; r++) {
		double alloc = (double)(s->queues[q].allocated[r] + req[r] - sub[r]) / unit_scale[r];
		int64_t share = gt_queue_allocatable_share(s, q, r);
		double v;
		if (share < 0)
			share = s->total[r];
		if (share == 0)
			v = alloc * 1000;
		else
			v = alloc / ((double)share / unit_scale[r]);
		if (v > best)
			best = v;
	}
	return best;
}

static const int64_t none[GT_NQRES];

/*
 * KAI's queue order (KAI-SPEC 6.5) for siblings @lq and @rq, whose next
 * jobs would add @lreq / @rreq and whose victims so far remove @lsub /
 * @rsub. Doubles only break ties of ratios here; every rule ends in a
 * total order (creation time, then name, then index).
 */
static int queue_cmp_core(const struct gt_session *s, int32_t lq, int32_t rq,
			  const int64_t lreq[GT_NQRES], const int64_t rreq[GT_NQRES],
			  const int64_t lsub[GT_NQRES], const int64_t rsub[GT_NQRES])
{
	bool lo = over_utilised(s, lq), ro = over_utilised(s, rq);
	if (lo != ro)
		return lo ? 1 : -1;
	bool ls = within_deserved(s, lq, lreq), rs = within_deserved(s, rq, rreq);
	if (ls != rs)
		return ls ? -1 : 1;
	const struct gt_queue *l = &s->c->queues[lq], *r = &s->c->queues[rq];
	if (l->priority != r->priority)
		return l->priority > r->priority ? -1 : 1;
	bool lz = zero_share_penalty(s, lq, lreq), rz = zero_share_penalty(s, rq, rreq);
	if (lz != rz)
		return lz ? 1 : -1;
	double ld = dominant_share(s, lq, lreq, lsub), rd = dominant_share(s, rq, rreq, rsub);
	if (ld != rd)
		return ld < rd ? -1 : 1;
	ld = dominant_share(s, lq, none, none);
	rd = dominant_share(s, rq, none, none);
	if (ld != rd)
		return ld < rd ? -1 : 1;
	bool le = true, lt = false, re = true, rt = false;
	for (int k = 0; k < GT_NQRES; k++) {
		/* -1 is unlimited: larger than any share */
		int64_t a = gt_queue_allocatable_share(s, lq, k), b = gt_queue_allocatable_share(s, rq, k);
		uint64_t ua = a < 0 ? UINT64_MAX : (uint64_t)a, ub = b < 0 ? UINT64_MAX : (uint64_t)b;
		le &= ua <= ub;
		lt |= ua < ub;
		re &= ub <= ua;
		rt |= ub < ua;
	}
	if (le && lt)
		return -1;
	if (re && rt)
		return 1;
	if (l->created != r->created)
		return l->created < r->created ? -1 : 1;
	int c = name_cmp(s, l->name, r->name);
	return c ? c : (lq < rq ? -1 : lq > rq);
}

int gt_queue_cmp(const struct gt_session *s, int32_t lq, int32_t rq, int32_t lj, int32_t rj)
{
	int64_t lreq[GT_NQRES], rreq[GT_NQRES];
	head_request(s, lj, lreq);
	head_request(s, rj, rreq);
	return queue_cmp_core(s, lq, rq, lreq, rreq, none, none);
}

int gt_queue_cmp_victims(const struct gt_session *s, int32_t lq, int32_t rq,
			 const int64_t lsub[GT_NQRES], const int64_t rsub[GT_NQRES])
{
	return queue_cmp_core(s, lq, rq, none, none, lsub, rsub);
}

/* ---------------------------------------------------------------- job queue */

static bool job_before(const struct gt_jobq *jq, const int32_t *a, const int32_t *b)
{
	return job_cmp_keyed(jq->s, *a, jq->elastic[*a], *b, jq->elastic[*b]) < 0;
}

GT_HEAP_DEFINE(job_heap, int32_t, const struct gt_jobq, job_before)

void gt_jobq_init(struct gt_jobq *jq, const struct gt_session *s)
{
	memset(jq, 0, sizeof(*jq));
	jq->s = s;
	uint32_t n = s->c->n_queues ? s->c->n_queues : 1;
	jq->heaps = gt_xcalloc(n, sizeof(*jq->heaps));
	jq->n_heap = gt_xcalloc(n, sizeof(*jq->n_heap));
	jq->cap_heap = gt_xcalloc(n, sizeof(*jq->cap_heap));
	jq->elastic = gt_xcalloc(s->c->n_jobs + 1, sizeof(*jq->elastic));
}

void gt_jobq_release(struct gt_jobq *jq)
{
	for (uint32_t q = 0; q < jq->s->c->n_queues; q++)
		free(jq->heaps[q]);
	free(jq->heaps);
	free(jq->n_heap);
	free(jq->cap_heap);
	free(jq->elastic);
	memset(jq, 0, sizeof(*jq));
}

void gt_jobq_push(struct gt_jobq *jq, int32_t job)
{
	int32_t q = jq->s->c->jobs[job].queue;
	jq->elastic[job] = (int8_t)elastic_state(jq->s, job);
	job_heap_push(&jq->heaps[q], &jq->n_heap[q], &jq->cap_heap[q], job, jq);
}

/* The leaf under @q whose head job goes first, or GT_NONE if none has jobs. */
static int32_t best_leaf(const struct gt_jobq *jq, int32_t q)
{
	const struct gt_queue *cq = &jq->s->c->queues[q];
	if (cq->n_children == 0)
		return jq->n_heap[q] ? q : GT_NONE;
	int32_t best = GT_NONE, best_child = GT_NONE;
	for (uint32_t i = 0; i < cq->n_children; i++) {
		int32_t child = cq->children[i];
		int32_t leaf = best_leaf(jq, child);
		if (leaf == GT_NONE)
			continue;
		if (best == GT_NONE) {
			best = leaf;
			best_child = child;
			continue;
		}
		int c = gt_queue_cmp(jq->s, child, best_child, jq->heaps[leaf][0],
				     jq->heaps[best][0]);
		if (c < 0) {
			best = leaf;
			best_child = child;
		}
	}
	return best;
}

int32_t gt_jobq_pop(struct gt_jobq *jq)
{
	const struct gt_cluster *c = jq->s->c;
	int32_t best = GT_NONE, best_root = GT_NONE;
	for (uint32_t q = 0; q < c->n_queues; q++) {
		if (c->queues[q].parent != GT_NONE)
			continue;
		int32_t leaf = best_leaf(jq, (int32_t)q);
		if (leaf == GT_NONE)
			continue;
		if (best != GT_NONE) {
			int cmp = gt_queue_cmp(jq->s, (int32_t)q, best_root, jq->heaps[leaf][0],
					       jq->heaps[best][0]);
			if (cmp >= 0)
				continue;
		}
		best = leaf;
		best_root = (int32_t)q;
	}
	return best == GT_NONE ? GT_NONE : job_heap_pop(jq->heaps[best], &jq->n_heap[best], jq);
}

bool gt_jobq_empty(const struct gt_jobq *jq)
{
	for (uint32_t q = 0; q < jq->s->c->n_queues; q++)
		if (jq->n_heap[q])
			return false;
	return true;
}
