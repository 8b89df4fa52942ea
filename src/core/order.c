#include "core/order.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/fairshare.h"
#include "core/gang.h"
#include "util/heap.h"
#include "util/mem.h"

/*
 * Names in order without comparing strings in the hot paths: ranks of the
 * names of jobs, podsets and queues are computed the first time two
 * different names must be compared (most sessions never need them: ties
 * on priority and age are rare), and pods of one job compare by their place
 * in the job's task order (task_order_of). Any other pair falls back to strcmp.
 */
struct name_ref {
	const char *str;
	uint32_t id;
};

static int name_ref_cmp(const void *pa, const void *pb)
{
	const struct name_ref *a = pa, *b = pb;
	return strcmp(a->str, b->str);
}

static void add_name(struct name_ref *refs, uint32_t *n, const struct gt_strtab *names, uint32_t id)
{
	refs[(*n)++] = (struct name_ref){ gt_strtab_str(names, id), id };
}

/* O((J + Q + podsets) log) once per session, on first use. */
static void rank_names(struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	uint32_t total = c->n_jobs + c->n_queues;
	for (uint32_t j = 0; j < c->n_jobs; j++)
		total += c->jobs[j].n_podsets;
	struct name_ref *refs = gt_xmalloc((total + 1) * sizeof(*refs));
	uint32_t n = 0;
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		add_name(refs, &n, c->names, c->jobs[j].name);
		for (uint32_t k = 0; k < c->jobs[j].n_podsets; k++)
			add_name(refs, &n, c->names, c->jobs[j].podsets[k].name);
	}
	for (uint32_t q = 0; q < c->n_queues; q++)
		add_name(refs, &n, c->names, c->queues[q].name);
	qsort(refs, n, sizeof(*refs), name_ref_cmp);
	s->n_ranked = (uint32_t)c->names->n_strs;
	s->name_rank = gt_arena_calloc(&s->arena, s->n_ranked + 1, sizeof(*s->name_rank));
	uint32_t rank = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!s->name_rank[refs[i].id])	/* the same name twice keeps one rank */
			s->name_rank[refs[i].id] = ++rank;
	free(refs);
	s->names_ranked = true;
}

/*
 * Names are interned (one id per string), so ranks and strcmp agree on
 * every pair. A session compares a few names as strings; once it has
 * compared about as many as ranking them all would, it ranks them.
 */
static int name_cmp(const struct gt_session *cs, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	struct gt_session *s = (struct gt_session *)cs;	/* the rank cache only */
	if (!s->names_ranked && s->name_strcmps++ >= s->c->n_jobs + s->c->n_queues)
		rank_names(s);
	if (a < s->n_ranked && b < s->n_ranked && s->name_rank[a] && s->name_rank[b])
		return s->name_rank[a] < s->name_rank[b] ? -1 : 1;
	return strcmp(gt_strtab_str(s->c->names, a), gt_strtab_str(s->c->names, b));
}

/* The static part of task order (everything a pod field). */
struct task_key {
	bool role_first, has_prio;
	int32_t prio;
	int64_t created;
	const char *uid, *name;
	int32_t pod;
};

/* KAI's last word on task order is the pod's UID ("" without one); the name breaks what is left. */
static const char *uid_of(const struct gt_cluster *c, const struct gt_pod *p)
{
	return p->uid ? gt_strtab_str(c->names, p->uid - 1) : "";
}

static int task_key_cmp(const void *pa, const void *pb)
{
	const struct task_key *a = pa, *b = pb;
	if (a->role_first != b->role_first)
		return a->role_first ? -1 : 1;
	if (a->has_prio != b->has_prio)
		return a->has_prio ? -1 : 1;
	if (a->has_prio && a->prio != b->prio)
		return a->prio > b->prio ? -1 : 1;
	if (a->created != b->created)
		return a->created < b->created ? -1 : 1;
	int c = a->uid == b->uid ? 0 : strcmp(a->uid, b->uid);
	c = c ? c : a->name == b->name ? 0 : strcmp(a->name, b->name);
	return c ? c : (a->pod < b->pod ? -1 : a->pod > b->pod);
}

static struct task_key task_key_of(const struct gt_cluster *c, int32_t pod)
{
	const struct gt_pod *p = &c->pods[pod];
	return (struct task_key){ p->role_first, p->has_task_prio, p->task_prio, p->created, uid_of(c, p),
				  gt_strtab_str(c->names, p->name), pod };
}

int gt_task_static_cmp(const struct gt_cluster *c, int32_t a, int32_t b)
{
	struct task_key ka = task_key_of(c, a), kb = task_key_of(c, b);
	return task_key_cmp(&ka, &kb);
}

/* @job's pods in task order, sorted on first use (task order does not change in a cycle). */
static const int32_t *task_order_of(const struct gt_session *cs, int32_t job)
{
	struct gt_session *s = (struct gt_session *)cs;	/* the order cache only */
	if (s->task_order[job])
		return s->task_order[job];
	const struct gt_cluster *c = s->c;
	const struct gt_job *j = &c->jobs[job];
	struct task_key local[64];
	struct task_key *keys = j->n_pods <= 64 ? local : gt_xmalloc(j->n_pods * sizeof(*keys));
	for (uint32_t i = 0; i < j->n_pods; i++)
		keys[i] = task_key_of(c, j->pods[i]);
	qsort(keys, j->n_pods, sizeof(*keys), task_key_cmp);
	int32_t *order = gt_arena_alloc(&s->arena, (j->n_pods + 1) * sizeof(*order));
	for (uint32_t i = 0; i < j->n_pods; i++) {
		order[i] = keys[i].pod;
		s->task_pos[keys[i].pod] = i;
	}
	if (keys != local)
		free(keys);
	s->task_order[job] = order;
	return order;
}

void gt_order_prepare(struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	s->n_ranked = 0;	/* rank_names() makes them when first needed */
	s->task_order = gt_arena_calloc(&s->arena, c->n_jobs + 1, sizeof(*s->task_order));
	s->task_pos = gt_arena_alloc(&s->arena, (c->n_pods + 1) * sizeof(*s->task_pos));
	s->job_memo = gt_arena_calloc(&s->arena, c->n_jobs + 1, sizeof(*s->job_memo));
}

static void count_pods(const struct gt_session *s, int32_t job, struct gt_podset_count *out);

void gt_job_count(const struct gt_session *s, int32_t job, struct gt_podset_count *out)
{
	const struct gt_job *j = &s->c->jobs[job];
	if (j->n_podsets != 1) {
		count_pods(s, job, out);
		return;
	}
	struct gt_job_memo *m = &s->job_memo[job];
	if (!gt_job_memo_valid(s, job, m->cnt_stamp)) {
		count_pods(s, job, &m->cnt);
		m->cnt_stamp = s->job_stamp[job] + 1;
	}
	*out = m->cnt;
}

/* O(the job's pods). */
static void count_pods(const struct gt_session *s, int32_t job, struct gt_podset_count *out)
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
	struct gt_job_memo *m = &s->job_memo[job];
	if (!gt_job_memo_valid(s, job, m->ready_stamp)) {
		struct gt_podset_count cnt[GT_MAX_PODSETS];
		gt_job_count(s, job, cnt);
		m->ready = gt_gang_met_counts(&s->c->jobs[job], cnt, GT_COUNT(alive_not_gated));
		m->ready_stamp = s->job_stamp[job] + 1;
	}
	return m->ready;
}

static int count_elastic_state(const struct gt_session *s, int32_t job)
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

int gt_job_elastic_state(const struct gt_session *s, int32_t job)
{
	struct gt_job_memo *m = &s->job_memo[job];
	if (!gt_job_memo_valid(s, job, m->elastic_stamp)) {
		m->elastic = (int8_t)count_elastic_state(s, job);
		m->elastic_stamp = s->job_stamp[job] + 1;
	}
	return m->elastic;
}

/*
 * A job's priority within its queue: with per-job aging (config.aging_weight
 * points per hour since creation, docs/reservations.md) a long wait lifts it.
 * Without aging, the priority itself.
 */
static int64_t aged_priority(const struct gt_session *s, const struct gt_job *j)
{
	double w = s->c->config.aging_weight;
	if (w <= 0 || s->now <= j->created)
		return j->priority;
	return j->priority + (int64_t)(w * (double)(s->now - j->created) / 3600.0);
}

static int job_cmp_keyed(const struct gt_session *s, int32_t a, int ea, int32_t b, int eb)
{
	const struct gt_job *ja = &s->c->jobs[a], *jb = &s->c->jobs[b];
	int64_t pa = aged_priority(s, ja), pb = aged_priority(s, jb);
	if (pa != pb)
		return pa > pb ? -1 : 1;
	if (ea != eb)
		return ea < eb ? -1 : 1;
	if (ja->created != jb->created)
		return ja->created < jb->created ? -1 : 1;
	int c = name_cmp(s, ja->name, jb->name);
	return c ? c : (a < b ? -1 : a > b);
}

int gt_job_cmp(const struct gt_session *s, int32_t a, int32_t b)
{
	int64_t pa = aged_priority(s, &s->c->jobs[a]), pb = aged_priority(s, &s->c->jobs[b]);
	if (pa != pb)
		return pa > pb ? -1 : 1;
	return job_cmp_keyed(s, a, gt_job_elastic_state(s, a), b, gt_job_elastic_state(s, b));
}

int gt_task_cmp(const struct gt_session *s, int32_t a, int32_t b)
{
	const struct gt_pod *pa = &s->c->pods[a], *pb = &s->c->pods[b];
	if (pa->job != GT_NONE && pa->job == pb->job) {
		task_order_of(s, pa->job);
		return s->task_pos[a] < s->task_pos[b] ? -1 : s->task_pos[a] > s->task_pos[b];
	}
	if (pa->role_first != pb->role_first)
		return pa->role_first ? -1 : 1;
	if (pa->has_task_prio != pb->has_task_prio)
		return pa->has_task_prio ? -1 : 1;
	if (pa->has_task_prio && pa->task_prio != pb->task_prio)
		return pa->task_prio > pb->task_prio ? -1 : 1;
	if (pa->created != pb->created)
		return pa->created < pb->created ? -1 : 1;
	int c = pa->uid == pb->uid ? 0 : strcmp(uid_of(s->c, pa), uid_of(s->c, pb));
	c = c ? c : name_cmp(s, pa->name, pb->name);
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

bool gt_task_wants_placement(const struct gt_session *s, int32_t pod)
{
	const struct gt_pod_state *st = &s->pods[pod];
	if (st->status == GT_PENDING)
		return s->c->pods[pod].ours;
	/* a simulation may put this session's victims somewhere again */
	return s->simulating && st->status == GT_RELEASING && st->virtual_evict;
}

/* Tasks of podset @ps that want a place, best first; returns the count. O(pods). */
static uint32_t pending_tasks(const struct gt_session *s, int32_t job, uint32_t ps, int32_t *out)
{
	const struct gt_job *j = &s->c->jobs[job];
	const int32_t *order = task_order_of(s, job);
	uint32_t n = 0;
	for (uint32_t i = 0; i < j->n_pods; i++) {
		int32_t p = order[i];
		if ((uint32_t)s->c->pods[p].podset == ps && gt_task_wants_placement(s, p))
			out[n++] = p;
	}
	return n;
}

static uint32_t tasks_to_allocate(const struct gt_session *s, int32_t job, int32_t *out);

/* Outside simulations (where victims count as tasks), cached per job. */
uint32_t gt_tasks_to_allocate(const struct gt_session *s, int32_t job, int32_t *out)
{
	if (s->simulating)
		return tasks_to_allocate(s, job, out);
	struct gt_job_memo *m = &s->job_memo[job];
	if (!gt_job_memo_valid(s, job, m->tasks_stamp)) {
		if (!m->tasks) {
			struct gt_session *ms = (struct gt_session *)s;	/* the cache's memory only */
			m->tasks = gt_arena_alloc(&ms->arena, (s->c->jobs[job].n_pods + 1) * sizeof(*m->tasks));
		}
		m->n_tasks = tasks_to_allocate(s, job, m->tasks);
		m->tasks_stamp = s->job_stamp[job] + 1;
	}
	memcpy(out, m->tasks, m->n_tasks * sizeof(*out));
	return m->n_tasks;
}

static uint32_t tasks_to_allocate(const struct gt_session *s, int32_t job, int32_t *out)
{
	const struct gt_job *j = &s->c->jobs[job];
	uint32_t nps = j->n_podsets;
	struct gt_podset_count cnt[GT_MAX_PODSETS];
	uint32_t order[GT_MAX_PODSETS];
	gt_job_count(s, job, cnt);
	gt_sort_podsets(s, job, cnt, order);
	int32_t local[64];	/* most jobs are small: no allocation for them */
	int32_t *buf = j->n_pods < 64 ? local : gt_xmalloc((j->n_pods + 1) * sizeof(*buf));
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
	if (buf != local)
		free(buf);
	return n;
}

int32_t gt_tasks_claim_missing(const struct gt_session *s, const int32_t *tasks, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (s->c->pods[tasks[i]].claim_missing || gt_dra_problem(&s->c->dra, tasks[i]))
			return tasks[i];
	return GT_NONE;
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
	if (s->job_req_gen[job] != s->req_gen) {
		int32_t local[64];
		uint32_t n_pods = s->c->jobs[job].n_pods;
		int32_t *tasks = n_pods < 64 ? local : gt_xmalloc((n_pods + 1) * sizeof(*tasks));
		uint32_t n = gt_tasks_to_allocate(s, job, tasks);
		gt_tasks_queue_res(s, tasks, n, s->job_req[job]);
		if (tasks != local)
			free(tasks);
		s->job_req_gen[job] = s->req_gen;
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

/*
 * A queue's dominant share as an exact fraction num/den (den > 0): the
 * largest of allocated/share over the resources, in the same units (a zero
 * share counts allocated x 1000 in GPUs, cores' milli-units and bytes, as
 * KAI's float64 order does: a penalty that ranks such queues last).
 *
 * Ordering by it compares a/b with c/d as a*d with c*b in 128-bit integers.
 * Bound: numerators are at most an allocation x 1000 (memory in bytes: a
 * cluster under 2^50 bytes, 1 PiB, gives under 2^60) and denominators a
 * share (under 2^50), so each product stays under 2^110 < 2^127.
 */
struct share_frac {
	__int128 num;
	int64_t den;
};

static int frac_cmp(struct share_frac a, struct share_frac b)
{
	__int128 l = a.num * b.den, r = b.num * a.den;
	return l < r ? -1 : l > r;
}

static struct share_frac dominant_share(const struct gt_session *s, int32_t q,
					const int64_t req[GT_NQRES], const int64_t sub[GT_NQRES])
{
	static const int64_t per_unit[GT_NQRES] = { 1000, 1, 1 };	/* milli-GPU per GPU */
	struct share_frac best = { 0, 1 };
	for (int r = 0; r < GT_NQRES; r++) {
		int64_t alloc = s->queues[q].allocated[r] + req[r] - sub[r];
		int64_t share = gt_queue_allocatable_share(s, q, r);
		if (share < 0)
			share = s->total[r];
		struct share_frac v = share == 0 ? (struct share_frac){ (__int128)alloc * 1000, per_unit[r] }
						 : (struct share_frac){ alloc, share };
		if (frac_cmp(v, best) > 0)
			best = v;
	}
	return best;
}

static const int64_t none[GT_NQRES];

/*
 * What KAI's queue order (KAI-SPEC 6.5) looks at for queue @q, whose next
 * job would add @req and whose victims so far remove @sub: everything but
 * the static fields (priority, creation, name) read from the cluster.
 */
struct gt_queue_key {
	bool over, within, zero;
	struct share_frac ds, ds_now;	/* dominant share with the request, without */
	uint64_t share[GT_NQRES];	/* allocatable share, unlimited as UINT64_MAX */
};

static void queue_key(const struct gt_session *s, int32_t q, const int64_t req[GT_NQRES],
		      const int64_t sub[GT_NQRES], struct gt_queue_key *k)
{
	k->over = over_utilised(s, q);
	k->within = within_deserved(s, q, req);
	k->zero = zero_share_penalty(s, q, req);
	k->ds = dominant_share(s, q, req, sub);
	k->ds_now = dominant_share(s, q, none, none);
	for (int r = 0; r < GT_NQRES; r++) {
		int64_t a = gt_queue_allocatable_share(s, q, r);
		k->share[r] = a < 0 ? UINT64_MAX : (uint64_t)a;	/* -1 is unlimited */
	}
}

/*
 * KAI's queue order for siblings @lq and @rq by their keys. No float
 * decides: shares are compared as exact fractions; every rule ends in a
 * total order (creation time, then name, then index).
 */
static int queue_key_cmp(const struct gt_session *s, int32_t lq, int32_t rq,
			 const struct gt_queue_key *lk, const struct gt_queue_key *rk)
{
	if (lk->over != rk->over)
		return lk->over ? 1 : -1;
	if (lk->within != rk->within)
		return lk->within ? -1 : 1;
	const struct gt_queue *l = &s->c->queues[lq], *r = &s->c->queues[rq];
	if (l->priority != r->priority)
		return l->priority > r->priority ? -1 : 1;
	if (lk->zero != rk->zero)
		return lk->zero ? 1 : -1;
	int d = frac_cmp(lk->ds, rk->ds);
	if (d)
		return d;
	d = frac_cmp(lk->ds_now, rk->ds_now);
	if (d)
		return d;
	bool le = true, lt = false, re = true, rt = false;
	for (int k = 0; k < GT_NQRES; k++) {
		uint64_t ua = lk->share[k], ub = rk->share[k];
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
	struct gt_queue_key lk, rk;
	queue_key(s, lq, lreq, none, &lk);
	queue_key(s, rq, rreq, none, &rk);
	return queue_key_cmp(s, lq, rq, &lk, &rk);
}

/*
 * A queue's key kept with what it was made from besides the fields fixed
 * for the cycle (the static ones and the fair shares, computed once per
 * cycle): the queue's allocation, the request added (the job queue's head
 * job) and what the queue gave up (the victim queue's victims).
 */
struct gt_queue_key_memo {
	struct gt_queue_key key;
	bool valid;		/* the inputs below are set */
	bool computed;		/* key is theirs */
	int64_t in_alloc[GT_NQRES];
	int64_t in_req[GT_NQRES];
	int64_t in_sub[GT_NQRES];
	/* the job queue's quick test (inputs_changed): the stamps the inputs were read at */
	int32_t in_job;		/* the head job */
	uint32_t in_req_gen;
	uint64_t in_job_stamp, in_queue_stamp;
};

struct gt_queue_key_memo *gt_queue_key_memos_in(struct gt_arena *a, uint32_t n_queues)
{
	return gt_arena_calloc(a, n_queues + 1, sizeof(struct gt_queue_key_memo));
}

/* Were @now the values kept in @kept? @kept holds them afterwards. */
static bool kept_same(int64_t kept[GT_NQRES], const int64_t now[GT_NQRES])
{
	if (!memcmp(kept, now, GT_NQRES * sizeof(*kept)))
		return true;
	memcpy(kept, now, GT_NQRES * sizeof(*kept));
	return false;
}

/* Sets @m's inputs for queue @q: true when they differ from the key's (it is then made again). */
static bool memo_inputs(const struct gt_session *s, int32_t q, struct gt_queue_key_memo *m,
			const int64_t req[GT_NQRES], const int64_t sub[GT_NQRES])
{
	bool same = m->valid;
	same &= kept_same(m->in_alloc, s->queues[q].allocated);	/* all three kept: no && */
	same &= kept_same(m->in_req, req);
	same &= kept_same(m->in_sub, sub);
	m->valid = true;
	if (!same)
		m->computed = false;
	return !same;
}

/* @m's key for queue @q, made from its inputs the first time it is asked for. */
static const struct gt_queue_key *memo_key(const struct gt_session *s, int32_t q,
					   struct gt_queue_key_memo *m)
{
	if (!m->computed) {
		queue_key(s, q, m->in_req, m->in_sub, &m->key);
		m->computed = true;
	}
	return &m->key;
}

static const struct gt_queue_key *victim_key(const struct gt_session *s, int32_t q,
					     const int64_t sub[GT_NQRES], struct gt_queue_key_memo *memo)
{
	memo_inputs(s, q, &memo[q], none, sub);
	return memo_key(s, q, &memo[q]);
}

uint32_t gt_queue_gives_first(const struct gt_session *s, const int32_t *qs,
			      const int64_t (*subs)[GT_NQRES], uint32_t n, struct gt_queue_key_memo *memo)
{
	uint32_t best = 0;
	const struct gt_queue_key *best_k = victim_key(s, qs[0], subs[0], memo);
	for (uint32_t i = 1; i < n; i++) {
		const struct gt_queue_key *k = victim_key(s, qs[i], subs[i], memo);
		if (queue_key_cmp(s, qs[i], qs[best], k, best_k) < 0)
			continue;
		best = i;
		best_k = k;
	}
	return best;
}

/* ---------------------------------------------------------------- job queue */

static bool job_before(const struct gt_jobq *jq, const int32_t *a, const int32_t *b)
{
	return job_cmp_keyed(jq->s, *a, jq->elastic[*a], *b, jq->elastic[*b]) < 0;
}

GT_HEAP_DEFINE(job_heap, int32_t, const struct gt_jobq, job_before)

/* Zeroed memory for the job queue: from its arena when it has one. */
static void *jq_calloc(struct gt_jobq *jq, size_t n, size_t size)
{
	return jq->arena ? gt_arena_calloc(jq->arena, n, size) : gt_xcalloc(n, size);
}

static bool is_leaf(const struct gt_cluster *c, int32_t q)
{
	return c->queues[q].n_children == 0;
}

/* The queues under @p, the roots for p == n_queues. */
static const int32_t *kids_of(const struct gt_jobq *jq, int32_t p, uint32_t *n)
{
	const struct gt_cluster *c = jq->s->c;
	if ((uint32_t)p == c->n_queues) {
		*n = jq->n_roots;
		return jq->roots;
	}
	*n = c->queues[p].n_children;
	return c->queues[p].children;
}

static void jobq_setup(struct gt_jobq *jq, const struct gt_session *s, struct gt_arena *a)
{
	memset(jq, 0, sizeof(*jq));
	jq->s = s;
	jq->depth = -1;
	jq->arena = a;
	const struct gt_cluster *c = s->c;
	uint32_t n = c->n_queues ? c->n_queues : 1;
	jq->heaps = jq_calloc(jq, n, sizeof(*jq->heaps));
	jq->n_heap = jq_calloc(jq, n, sizeof(*jq->n_heap));
	jq->cap_heap = jq_calloc(jq, n, sizeof(*jq->cap_heap));
	jq->first = jq_calloc(jq, n, sizeof(*jq->first));
	jq->as_heap = jq_calloc(jq, n, sizeof(*jq->as_heap));
	/* written by every push before it is read: no need to clear */
	jq->elastic = a ? gt_arena_alloc(a, (c->n_jobs + 1) * sizeof(*jq->elastic))
			: gt_xcalloc(c->n_jobs + 1, sizeof(*jq->elastic));
	jq->keys = jq_calloc(jq, n, sizeof(*jq->keys));
	jq->win = jq_calloc(jq, n + 1, sizeof(*jq->win));
	jq->tree_at = jq_calloc(jq, n + 1, sizeof(*jq->tree_at));
	jq->slot = jq_calloc(jq, n, sizeof(*jq->slot));
	jq->roots = jq_calloc(jq, n, sizeof(*jq->roots));
	jq->empty = jq_calloc(jq, n, sizeof(*jq->empty));
	jq->dirty = jq_calloc(jq, n, sizeof(*jq->dirty));
	jq->is_dirty = jq_calloc(jq, n, sizeof(*jq->is_dirty));
	for (uint32_t q = 0; q < c->n_queues; q++)
		if (c->queues[q].parent == GT_NONE)
			jq->roots[jq->n_roots++] = (int32_t)q;
	/* each parent's children take 2k slots: leaves at [k, 2k), winners of pairs below k */
	uint32_t slots = 0;
	for (uint32_t p = 0; p <= c->n_queues; p++) {
		uint32_t k;
		const int32_t *kids = kids_of(jq, (int32_t)p, &k);
		jq->tree_at[p] = slots;
		for (uint32_t i = 0; i < k; i++)
			jq->slot[kids[i]] = i;
		slots += 2 * k;
	}
	jq->tree = jq_calloc(jq, slots ? slots : 1, sizeof(*jq->tree));
	for (uint32_t p = 0; p <= c->n_queues; p++) {
		uint32_t k;
		const int32_t *kids = kids_of(jq, (int32_t)p, &k);
		for (uint32_t i = 0; i < k; i++)
			jq->tree[jq->tree_at[p] + k + i] = kids[i];
	}
}

void gt_jobq_init(struct gt_jobq *jq, const struct gt_session *s)
{
	jobq_setup(jq, s, NULL);
}

void gt_jobq_init_in(struct gt_jobq *jq, const struct gt_session *s, struct gt_arena *a)
{
	jobq_setup(jq, s, a);
}

void gt_jobq_release(struct gt_jobq *jq)
{
	if (jq->arena) {
		memset(jq, 0, sizeof(*jq));
		return;
	}
	for (uint32_t q = 0; q < jq->s->c->n_queues; q++)
		free(jq->heaps[q]);
	void *arrays[] = { jq->heaps, jq->n_heap, jq->cap_heap, jq->first, jq->as_heap, jq->elastic,
			   jq->keys, jq->win, jq->tree, jq->tree_at, jq->slot, jq->roots, jq->empty,
			   jq->dirty, jq->is_dirty };
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		free(arrays[i]);
	memset(jq, 0, sizeof(*jq));
}

_Static_assert(GT_N_ACTIONS <= sizeof(((struct gt_config *)0)->queue_depth_per_action) / sizeof(int32_t),
	       "queue_depth_per_action has a slot per action");

void gt_jobq_limit_depth(struct gt_jobq *jq, int32_t depth)
{
	jq->depth = depth < 0 ? -1 : depth;
}

int32_t gt_action_queue_depth(const struct gt_session *s)
{
	return (unsigned)s->action < GT_N_ACTIONS ? s->c->config.queue_depth_per_action[s->action] : -1;
}

static uint32_t leaf_count(const struct gt_jobq *jq, int32_t q)
{
	return jq->n_heap[q] - jq->first[q];
}

/* Leaf @q's next job; it has one. */
static int32_t leaf_head(const struct gt_jobq *jq, int32_t q)
{
	return jq->heaps[q][jq->first[q]];
}

/* Leaf @q's jobs changed: its path is looked at again at the next pop. */
static void mark_dirty(struct gt_jobq *jq, int32_t q)
{
	if (!jq->tree_ready || jq->is_dirty[q])
		return;
	jq->is_dirty[q] = true;
	jq->dirty[jq->n_dirty++] = q;
}

/* From a sorted run to a heap: the run, moved to the front, is one already. */
static void leaf_to_heap(struct gt_jobq *jq, int32_t q)
{
	uint32_t f = jq->first[q], n = leaf_count(jq, q);
	if (f)
		memmove(jq->heaps[q], jq->heaps[q] + f, n * sizeof(**jq->heaps));
	jq->first[q] = 0;
	jq->n_heap[q] = n;
	jq->as_heap[q] = true;
}

/* Past the depth: drop the queue's last job in job order (in a heap, a leaf: no child to move up). */
static void drop_last(struct gt_jobq *jq, int32_t q)
{
	int32_t *v = jq->heaps[q];
	if (!jq->as_heap[q]) {
		jq->n_heap[q]--;
		return;
	}
	uint32_t n = jq->n_heap[q], worst = n / 2;
	for (uint32_t i = n / 2 + 1; i < n; i++)
		if (job_before(jq, &v[worst], &v[i]))
			worst = i;
	v[worst] = v[--jq->n_heap[q]];
	if (worst < jq->n_heap[q])
		job_heap_up(v, worst, jq);
}

void gt_jobq_push(struct gt_jobq *jq, int32_t job)
{
	int32_t q = jq->s->c->jobs[job].queue;
	jq->elastic[job] = (int8_t)gt_job_elastic_state(jq->s, job);
	if (!jq->as_heap[q] && leaf_count(jq, q) &&
	    job_before(jq, &job, &jq->heaps[q][jq->n_heap[q] - 1]))
		leaf_to_heap(jq, q);
	if (jq->arena)
		GT_ARENA_PUSH(jq->arena, jq->heaps[q], jq->n_heap[q], jq->cap_heap[q], job);
	else
		GT_PUSH(jq->heaps[q], jq->n_heap[q], jq->cap_heap[q], job);
	if (jq->as_heap[q])
		job_heap_up(jq->heaps[q], jq->n_heap[q] - 1, jq);
	if (jq->depth >= 0 && leaf_count(jq, q) > (uint32_t)jq->depth)
		drop_last(jq, q);
	mark_dirty(jq, q);
}

/*
 * Is queue @q's key still the one for head job @job? Besides the fields
 * fixed for the cycle, queue_key reads the queue's allocation and the
 * head's request. The queue's stamp says when its allocation last changed,
 * the job's stamp and the request generation when the request can have;
 * when a stamp moved, the values themselves are compared (memo_inputs), as
 * a simulation rolled back leaves them as they were. When one changed, the
 * key is made again when first compared (key_of): a queue alone under its
 * parent never is. True then.
 */
static bool inputs_changed(struct gt_jobq *jq, int32_t q, int32_t job)
{
	const struct gt_session *s = jq->s;
	struct gt_queue_key_memo *m = &jq->keys[q];
	uint64_t job_stamp = s->job_stamp[job], queue_stamp = s->queue_stamp[q];
	if (m->valid && m->in_queue_stamp == queue_stamp && m->in_job == job &&
	    m->in_job_stamp == job_stamp && m->in_req_gen == s->req_gen)
		return false;
	m->in_job = job;
	m->in_job_stamp = job_stamp;
	m->in_queue_stamp = queue_stamp;
	m->in_req_gen = s->req_gen;
	int64_t req[GT_NQRES];
	head_request(s, job, req);
	return memo_inputs(s, q, m, req, none);
}

static const struct gt_queue_key *key_of(struct gt_jobq *jq, int32_t q)
{
	return memo_key(jq->s, q, &jq->keys[q]);
}

/* Of sibling queues @a and @b, the one whose head goes first: one without jobs never does. */
static int32_t first_of(struct gt_jobq *jq, int32_t a, int32_t b)
{
	if (jq->win[a] == GT_NONE)
		return b;
	if (jq->win[b] == GT_NONE)
		return a;
	return queue_key_cmp(jq->s, a, b, key_of(jq, a), key_of(jq, b)) < 0 ? a : b;
}

/*
 * Replays the matches of parent @p's tree above child slot @i (all of them
 * for i == UINT32_MAX), then takes @p's leaf from the tree's winner. With
 * k children, leaves sit at [k, 2k) and node j holds the winner of 2j and
 * 2j+1; the order is total, so the winner is the first child whatever the
 * pairing.
 */
static void replay(struct gt_jobq *jq, int32_t p, uint32_t i)
{
	uint32_t k;
	(void)kids_of(jq, p, &k);
	int32_t *t = jq->tree + jq->tree_at[p];
	if (!k) {
		jq->win[p] = GT_NONE;
		return;
	}
	if (i == UINT32_MAX)
		for (uint32_t j = k - 1; j > 0; j--)
			t[j] = first_of(jq, t[2 * j], t[2 * j + 1]);
	else
		for (uint32_t j = (k + i) / 2; j > 0; j /= 2)
			t[j] = first_of(jq, t[2 * j], t[2 * j + 1]);
	jq->win[p] = jq->win[t[1]];
}

/* Parent @p's leaf again, its tree unchanged (the winning child's own leaf may have changed). */
static void retake(struct gt_jobq *jq, int32_t p)
{
	jq->win[p] = jq->win[jq->tree[jq->tree_at[p] + 1]];
}

/* Child @q as its parent's tree sees it, brought up to date: true when its place may have moved. */
static bool child_changed(struct gt_jobq *jq, int32_t q)
{
	if (is_leaf(jq->s->c, q))
		jq->win[q] = leaf_count(jq, q) ? q : GT_NONE;
	bool no_job = jq->win[q] == GT_NONE;
	bool changed = no_job != jq->empty[q];
	jq->empty[q] = no_job;
	if (!no_job)
		changed |= inputs_changed(jq, q, leaf_head(jq, jq->win[q]));
	return changed;
}

/*
 * In another state than the last pop's, the queues whose key may have
 * changed: those with jobs whose allocation did (their stamp) and the
 * leaves whose head job's pods did (its request).
 */
static void mark_changed(struct gt_jobq *jq)
{
	const struct gt_session *s = jq->s;
	for (uint32_t q = 0; q < s->c->n_queues; q++) {
		const struct gt_queue_key_memo *k = &jq->keys[q];
		if (!jq->empty[q] && (k->in_queue_stamp != s->queue_stamp[q] ||
				      k->in_job_stamp != s->job_stamp[k->in_job]))
			mark_dirty(jq, (int32_t)q);
	}
}

/*
 * Every tree under @p again (p == n_queues: all of them), from the leaves
 * up; a tree with a changed child is replayed whole, as every child
 * usually has (a new request generation changes every head's request).
 */
static void refresh_all(struct gt_jobq *jq, int32_t p)
{
	uint32_t k;
	const int32_t *kids = kids_of(jq, p, &k);
	bool any = !k;
	for (uint32_t i = 0; i < k; i++) {
		if (!is_leaf(jq->s->c, kids[i]))
			refresh_all(jq, kids[i]);
		any |= child_changed(jq, kids[i]);
	}
	if (any || !jq->tree_ready)
		replay(jq, p, UINT32_MAX);
	else
		retake(jq, p);
}

static int32_t parent_of(const struct gt_jobq *jq, int32_t q)
{
	int32_t p = jq->s->c->queues[q].parent;
	return p == GT_NONE ? (int32_t)jq->s->c->n_queues : p;
}

/*
 * The trees brought up to date. With a simulation begun or ended every
 * request may have changed, and every key is checked. Otherwise only the
 * paths of the queues whose key may have changed are replayed: the leaves
 * pushed or popped since the last pop and, in another state (epoch), the
 * queues mark_changed finds.
 */
static void bring_up_to_date(struct gt_jobq *jq)
{
	const struct gt_session *s = jq->s;
	int32_t top = (int32_t)s->c->n_queues;
	if (!jq->tree_ready || jq->tree_sim != s->simulating || jq->tree_req_gen != s->req_gen) {
		refresh_all(jq, top);
		jq->tree_ready = true;
	} else {
		if (jq->tree_epoch != s->epoch)
			mark_changed(jq);
		for (uint32_t d = 0; d < jq->n_dirty; d++)
			for (int32_t q = jq->dirty[d], p; q != top; q = p) {
				p = parent_of(jq, q);
				if (child_changed(jq, q))
					replay(jq, p, jq->slot[q]);
				else
					retake(jq, p);
			}
	}
	for (uint32_t d = 0; d < jq->n_dirty; d++)
		jq->is_dirty[jq->dirty[d]] = false;
	jq->n_dirty = 0;
	jq->tree_epoch = s->epoch;
	jq->tree_sim = s->simulating;
	jq->tree_req_gen = s->req_gen;
}

/*
 * The leaf under @q whose head job goes first, or GT_NONE, found by
 * comparing every queue with keys computed afresh: what the kept trees
 * must agree with (checked at every pop in builds with GT_CHECK_ORDER).
 */
static int32_t first_leaf_afresh(const struct gt_jobq *jq, int32_t p)
{
	const struct gt_session *s = jq->s;
	if ((uint32_t)p != s->c->n_queues && is_leaf(s->c, p))
		return leaf_count(jq, p) ? p : GT_NONE;
	uint32_t k;
	const int32_t *kids = kids_of(jq, p, &k);
	int32_t best = GT_NONE, best_child = GT_NONE;
	struct gt_queue_key best_key = { 0 }, child_key;
	for (uint32_t i = 0; i < k; i++) {
		int32_t leaf = first_leaf_afresh(jq, kids[i]);
		if (leaf == GT_NONE)
			continue;
		int64_t req[GT_NQRES];
		head_request(s, leaf_head(jq, leaf), req);
		queue_key(s, kids[i], req, none, &child_key);
		if (best == GT_NONE || queue_key_cmp(s, kids[i], best_child, &child_key, &best_key) < 0) {
			best = leaf;
			best_child = kids[i];
			best_key = child_key;
		}
	}
	return best;
}

int32_t gt_jobq_pop(struct gt_jobq *jq)
{
	bring_up_to_date(jq);
	int32_t top = (int32_t)jq->s->c->n_queues;
	int32_t best = jq->win[top];
#ifdef GT_CHECK_ORDER
	assert(first_leaf_afresh(jq, top) == best);	/* the kept trees agree with every queue compared afresh */
#else
	(void)first_leaf_afresh;
#endif
	return best == GT_NONE ? GT_NONE : gt_jobq_pop_leaf(jq, best);
}

int32_t gt_jobq_pop_leaf(struct gt_jobq *jq, int32_t q)
{
	if (!leaf_count(jq, q))
		return GT_NONE;
	int32_t job;
	if (jq->as_heap[q])
		job = job_heap_pop(jq->heaps[q], &jq->n_heap[q], jq);
	else
		job = jq->heaps[q][jq->first[q]++];
	if (!leaf_count(jq, q))
		gt_jobq_drop_leaf(jq, q);
	mark_dirty(jq, q);
	return job;
}

uint32_t gt_jobq_leaf_jobs(const struct gt_jobq *jq, int32_t q, const int32_t **jobs)
{
	*jobs = jq->heaps[q] + jq->first[q];
	return leaf_count(jq, q);
}

static bool subtree_empty(const struct gt_jobq *jq, int32_t q)
{
	if (leaf_count(jq, q))
		return false;
	const struct gt_queue *cq = &jq->s->c->queues[q];
	for (uint32_t i = 0; i < cq->n_children; i++)
		if (!subtree_empty(jq, cq->children[i]))
			return false;
	return true;
}

bool gt_jobq_leaf_alone(const struct gt_jobq *jq, int32_t q)
{
	const struct gt_cluster *c = jq->s->c;
	for (int32_t child = q, a = c->queues[q].parent; a != GT_NONE;
	     child = a, a = c->queues[a].parent)
		for (uint32_t i = 0; i < c->queues[a].n_children; i++)
			if (c->queues[a].children[i] != child && !subtree_empty(jq, c->queues[a].children[i]))
				return false;
	return true;
}

void gt_jobq_drop_leaf(struct gt_jobq *jq, int32_t q)
{
	jq->n_heap[q] = jq->first[q] = 0;
	jq->as_heap[q] = false;
	mark_dirty(jq, q);
}

bool gt_jobq_empty(const struct gt_jobq *jq)
{
	for (uint32_t q = 0; q < jq->s->c->n_queues; q++)
		if (leaf_count(jq, (int32_t)q))
			return false;
	return true;
}
