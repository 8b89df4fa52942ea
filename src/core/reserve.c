/*
 * reserve.c - reservations for gangs, and the holds placement respects
 *
 * PROCEDURE (one reservation, plan_one):
 *   Step 1. The gang qualifies: pending and ready, more than one task to
 *           place, its queue path within limit and within the larger of fair
 *           share and deserved quota with the gang added, and the bounds
 *           (count, share of the cluster's GPUs) leave room.
 *   Step 2. The running GPU pods not on another reservation's nodes, in
 *           order of expected end (the job's last start plus its expected,
 *           else maximum, run time); pods whose end is unknown last, those
 *           on nodes with the most idle GPUs first (a drain).
 *   Step 3. Bisection for the shortest prefix of that list whose eviction
 *           lets the core's own placement put the gang down (pipeline only,
 *           in a statement rolled back): topology, sub-groups and every
 *           predicate are placement's. None, even with all of them gone: no
 *           reservation.
 *   Step 4. Per node, hold what the gang needs there less what the prefix
 *           frees there; the prefix's last end is the expected start. A
 *           start further off than the horizon holds nothing yet, and the
 *           hold's clock (reserved_since) starts only once GPUs are held.
 * Holds are read by placement's fit (gt_reserve_shrink): the gang itself, a
 * job whose maximum run time ends before the start (backfill) and a job
 * whose queue path stays within its deserved GPUs see every GPU.
 */
#include "core/reserve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/actions.h"
#include "core/order.h"
#include "core/solver.h"
#include "util/strtab.h"
#include "util/time.h"

struct ev {
	int32_t pod;
	int32_t node;
	int32_t gpus;
	int64_t end;		/* GT_RESERVE_NO_START: unknown */
	int32_t idle;		/* the node's idle GPUs: drain the emptiest first */
	uint32_t rank;
	bool bf;		/* a preemptible backfiller: gone when the reservation starts */
};

static int ev_cmp(const void *pa, const void *pb)
{
	const struct ev *a = pa, *b = pb;
	if (a->bf != b->bf)
		return a->bf ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a->idle != b->idle)
		return a->idle > b->idle ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->pod > b->pod) - (a->pod < b->pod);
}

/* GPUs a pod holds as devices: its whole GPUs, or one device for a shared pod. */
static int32_t pod_devices(const struct gt_pod *p)
{
	return gt_pod_is_shared(p) ? (p->num_devices > 0 ? p->num_devices : 1) : p->gpus;
}

/* When @job is expected to end, from its last start and run time. */
static int64_t expected_end(const struct gt_session *s, int32_t job)
{
	if (job == GT_NONE)
		return GT_RESERVE_NO_START;
	const struct gt_job *j = &s->c->jobs[job];
	int64_t rt = j->expected_runtime_s > 0 ? j->expected_runtime_s : j->max_runtime_s;
	int64_t start = s->jobs[job].last_start;
	if (rt <= 0 || start <= 0)
		return GT_RESERVE_NO_START;
	int64_t end = start + rt;
	return end > s->now ? end : s->now;	/* overdue: any moment now */
}

/*
 * The queue rule: every queue on @job's path stays within its limit and
 * within the larger of its fair share and deserved quota once the gang is
 * added, less what its own pods among the first @k of @ev free by the start
 * (a queue that fills the cluster may still reserve for its next gang).
 */
static bool queue_allows(struct gt_session *s, int32_t job, const int64_t req[GT_NQRES],
			 const struct ev *ev, uint32_t k, bool *beyond)
{
	const struct gt_cluster *c = s->c;
	struct gt_arena_mark mark = gt_arena_mark(&s->step_arena);
	int64_t *freed = gt_arena_calloc(&s->step_arena, c->n_queues + 1, sizeof(*freed));
	for (uint32_t i = 0; i < k; i++) {
		int32_t pj = c->pods[ev[i].pod].job;
		int64_t milli = gt_pod_accepted_gpu_milli(c, ev[i].pod, ev[i].node);
		for (int32_t q = pj == GT_NONE ? GT_NONE : c->jobs[pj].queue; q != GT_NONE; q = c->queues[q].parent)
			freed[q] += milli;
	}
	bool ok = true;
	for (int32_t q = c->jobs[job].queue; ok && q != GT_NONE; q = c->queues[q].parent) {
		const struct gt_queue *cq = &c->queues[q];
		const struct gt_queue_state *qs = &s->queues[q];
		for (int r = 0; r < GT_NQRES && ok; r++) {
			if (req[r] <= 0)
				continue;
			int64_t want = qs->allocated[r] + req[r] - (r == GT_QGPU ? freed[q] : 0);
			int64_t cap = qs->fair_share[r] > cq->deserved[r] ? qs->fair_share[r] : cq->deserved[r];
			ok = !(cq->limit[r] >= 0 && want > cq->limit[r]);
			if (cq->deserved[r] >= 0 && want > cap) {
				*beyond = true;
				ok &= c->config.reserve.beyond_fair_share;
			}
		}
	}
	gt_arena_pop(&s->step_arena, mark);
	return ok;
}

/*
 * Would placing @pod keep its queue path within deserved GPUs (@fair: within
 * the larger of fair share and deserved)? Such a job ignores holds.
 */
static bool within(const struct gt_session *s, int32_t job, int32_t pod, bool fair)
{
	const struct gt_cluster *c = s->c;
	int64_t milli = gt_pod_requested_gpu_milli(c, pod);
	for (int32_t q = c->jobs[job].queue; q != GT_NONE; q = c->queues[q].parent) {
		int64_t d = c->queues[q].deserved[GT_QGPU];
		int64_t fs = s->queues[q].fair_share[GT_QGPU];
		int64_t cap = fair && fs > d ? fs : d;
		if (d >= 0 && s->queues[q].allocated[GT_QGPU] + milli > cap)
			return false;
	}
	return c->jobs[job].queue != GT_NONE;
}

static bool exempt(const struct gt_session *s, int32_t job, int32_t pod, const struct gt_reservation *r)
{
	const struct gt_job *j = &s->c->jobs[job];
	if (r->start != GT_RESERVE_NO_START && j->max_runtime_s > 0 && s->now + j->max_runtime_s <= r->start)
		return true;	/* backfill: gone before the gang starts */
	if (s->c->config.reserve.backfill_preemptible && j->preemptible && r->start > s->now)
		return true;	/* backfill: evicted when the gang starts (gt_reserve_begin); not once it has */
	/* a gang past its fair share holds nothing from a queue within its own */
	return within(s, job, pod, r->beyond);
}

void gt_reserve_shrink(struct gt_session *s, int32_t pod, int32_t node, int32_t *idle,
		       int32_t *releasing)
{
	struct gt_reserve_book *b = s->reserve;
	if (!b || b->hold[node] <= 0)
		return;
	const struct gt_reservation *r = &b->v[b->hold_by[node]];
	int32_t job = s->c->pods[pod].job;
	if (job == r->job || job == GT_NONE || exempt(s, job, pod, r))
		return;
	int32_t h = b->hold[node];
	int32_t from_idle = *idle < h ? (*idle > 0 ? *idle : 0) : h;
	*idle -= from_idle;
	h -= from_idle;
	if (h > 0 && *releasing > 0)
		*releasing -= *releasing < h ? *releasing : h;
}

/*
 * Evict the first @k of @ev and place the gang on the nodes @ctx allows,
 * rolled back; the tasks' nodes in @nodes when it fits.
 */
static bool fits_after(struct gt_session *s, const struct gt_place_ctx *ctx, int32_t job,
		       const int32_t *tasks, uint32_t n, const struct ev *ev, uint32_t k, int32_t *nodes)
{
	size_t cp = gt_stmt_checkpoint(s);
	for (uint32_t i = 0; i < k; i++)
		gt_stmt_evict(s, ev[i].pod, job);
	bool ok = gt_place_tasks(s, ctx, job, tasks, n, true, NULL, 0);
	if (ok && nodes)
		for (uint32_t i = 0; i < n; i++)
			nodes[i] = s->pods[tasks[i]].node;
	gt_stmt_rollback(s, cp);
	return ok;
}

/* A bitmap (by name rank) of the nodes no reservation holds, or NULL when none is held. */
static uint64_t *free_mask(struct gt_session *s)
{
	const struct gt_reserve_book *b = s->reserve;
	if (!b->n)
		return NULL;
	uint32_t words = (s->c->n_nodes + 63) / 64;
	uint64_t *m = gt_arena_calloc(&s->step_arena, words + 1, sizeof(*m));
	for (uint32_t i = 0; i < s->c->n_nodes; i++)
		if (b->hold_by[i] == GT_NONE) {
			uint32_t rank = s->c->nodes[i].name_rank;
			m[rank / 64] |= 1ULL << (rank % 64);
		}
	return m;
}

static int int_cmp(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	return (a > b) - (a < b);
}

/* Is every queue on @job's path within its deserved GPUs, the job's running pods counted? */
static bool running_within_deserved(const struct gt_session *s, int32_t job)
{
	const struct gt_cluster *c = s->c;
	for (int32_t q = c->jobs[job].queue; q != GT_NONE; q = c->queues[q].parent) {
		int64_t d = c->queues[q].deserved[GT_QGPU];
		if (d >= 0 && s->queues[q].allocated[GT_QGPU] > d)
			return false;
	}
	return c->jobs[job].queue != GT_NONE;
}

/*
 * In the preemptible backfill mode, a running pod of a preemptible job other
 * than @job that started while @job's reservation was held (@since, from an
 * earlier cycle) backfilled it: the reservation counts its GPUs as free. Not
 * a pod whose queue path is within its deserved GPUs: it was entitled to the
 * room (holds never block such a queue), so evicting it would only hand the
 * room back to it next cycle, and evict it again the cycle after.
 */
static bool backfiller(const struct gt_session *s, int32_t job, int64_t since, int32_t pod)
{
	int32_t pj = s->c->pods[pod].job;
	return s->c->config.reserve.backfill_preemptible && since > 0 && since < s->now && pj != GT_NONE &&
	       pj != job && s->c->jobs[pj].preemptible && s->jobs[pj].last_start >= since &&
	       !running_within_deserved(s, pj);
}

/* Evict every active pod of @job now (@why: GT_EVICT_*, @by: the job that takes the room or GT_NONE). */
static void evict_job_now(struct gt_session *s, int32_t job, enum gt_action why, int32_t by)
{
	const struct gt_job *j = &s->c->jobs[job];
	enum gt_action was = s->action;
	s->action = why;
	for (uint32_t i = 0; i < j->n_pods; i++) {
		int32_t pod = j->pods[i];
		if (!gt_status_active_allocated(s->pods[pod].status))
			continue;
		gt_session_evict_now(s, pod);
		s->pods[pod].evictor_job = by;
	}
	s->action = was;
}

/* Steps 1-4 for @job; true when it holds a reservation now. @since: when it began, 0: new. */
static bool plan_one(struct gt_session *s, int32_t job, int64_t since)
{
	struct gt_reserve_book *b = s->reserve;
	const struct gt_cluster *c = s->c;
	const struct gt_reserve_params *rp = &c->config.reserve;
	if (b->n >= rp->max || b->n >= b->cap || !gt_job_pending_ready(s, job))
		return false;
	struct gt_arena_mark mark = gt_arena_mark(&s->step_arena);
	bool ok = false;
	int32_t *tasks = gt_arena_alloc(&s->step_arena, (c->jobs[job].n_pods + 1) * sizeof(*tasks));
	uint32_t n = gt_tasks_to_allocate(s, job, tasks);
	int64_t req[GT_NQRES];
	gt_tasks_queue_res(s, tasks, n, req);
	int32_t gpus = 0;
	for (uint32_t i = 0; i < n; i++)
		gpus += pod_devices(&c->pods[tasks[i]]);
	if (n < 2 || gpus <= 0 || (double)(b->held_gpus + gpus) > rp->share * (double)b->total_gpus)
		goto out;
	/* Step 2 */
	uint64_t *mask = free_mask(s);
	struct ev *ev = gt_arena_alloc(&s->step_arena, (c->n_pods + 1) * sizeof(*ev));
	uint32_t n_ev = 0, n_bf = 0;
	for (uint32_t i = 0; i < c->n_pods; i++) {
		const struct gt_pod_state *st = &s->pods[i];
		const struct gt_pod *p = &c->pods[i];
		if (!gt_status_allocated(st->status) || st->node < 0 || pod_devices(p) <= 0 ||
		    b->hold_by[st->node] != GT_NONE)
			continue;
		bool bf = backfiller(s, job, since, (int32_t)i);
		ev[n_ev++] = (struct ev){ .pod = (int32_t)i, .node = st->node, .gpus = pod_devices(p),
					  .end = bf ? s->now : expected_end(s, p->job),
					  .idle = gt_node_idle_gpus(s, st->node),
					  .rank = c->nodes[st->node].name_rank, .bf = bf };
		n_bf += bf;
	}
	for (uint32_t i = 0; i < n_ev; i++)
		if (ev[i].end != GT_RESERVE_NO_START)
			ev[i].idle = 0;	/* known ends go by time alone */
	qsort(ev, n_ev, sizeof(*ev), ev_cmp);
	/* Step 3 */
	const struct gt_place_ctx free_nodes = { .node_mask = mask };
	int32_t *nodes = gt_arena_alloc(&s->step_arena, (n + 1) * sizeof(*nodes));
	uint32_t k = 0;
	if (!fits_after(s, &free_nodes, job, tasks, n, ev, 0, NULL) &&
	    !(n_bf && fits_after(s, &free_nodes, job, tasks, n, ev, n_bf, NULL) && (k = n_bf))) {
		if (!fits_after(s, &free_nodes, job, tasks, n, ev, n_ev, NULL))
			goto out;
		uint32_t lo = n_bf, hi = n_ev;	/* fits after hi, not after lo (nor after 0) */
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (fits_after(s, &free_nodes, job, tasks, n, ev, mid, NULL))
				hi = mid;
			else
				lo = mid;
		}
		k = hi;
	}
	bool beyond = false;
	ok = fits_after(s, &free_nodes, job, tasks, n, ev, k, nodes) &&
	     queue_allows(s, job, req, ev, k, &beyond);
	if (!ok)
		goto out;
	/* Step 4 */
	struct gt_reservation *r = &b->v[b->n];
	*r = (struct gt_reservation){ .job = job, .gpus = gpus, .beyond = beyond,
				      .start = k ? ev[k - 1].end : s->now };
	int32_t *need = gt_arena_calloc(&s->step_arena, c->n_nodes + 1, sizeof(*need));
	for (uint32_t i = 0; i < n; i++)
		need[nodes[i]] += pod_devices(&c->pods[tasks[i]]);
	/* the gang starts now on backfillers' room: they go, and what it needs is held whole */
	bool starts = n_bf && k == n_bf;
	for (uint32_t i = 0; i < k; i++)
		if (!(starts && need[ev[i].node] > 0))
			need[ev[i].node] -= ev[i].gpus;
		else if (gt_status_active_allocated(s->pods[ev[i].pod].status))
			evict_job_now(s, c->pods[ev[i].pod].job, GT_EVICT_BACKFILL, job);
	/* far off: planned, its nodes kept from other reservations, nothing held and its hold not begun */
	bool far = rp->horizon_s > 0 && r->start != GT_RESERVE_NO_START && r->start - s->now > rp->horizon_s;
	qsort(nodes, n, sizeof(*nodes), int_cmp);
	r->nodes = gt_arena_alloc(&s->arena, (n + 1) * sizeof(*r->nodes));
	for (uint32_t i = 0; i < n; i++) {
		int32_t nd = nodes[i];
		if (r->n_nodes && r->nodes[r->n_nodes - 1] == nd)
			continue;
		r->nodes[r->n_nodes++] = nd;
		b->hold_by[nd] = (int32_t)b->n;
		b->hold[nd] = need[nd] > 0 && !far ? need[nd] : 0;
		r->held += b->hold[nd];
	}
	b->held_gpus += gpus;
	b->n++;
	/* the hold counts from when GPUs are first held: the expected start less the horizon */
	if (!far && !b->since[job])
		b->since[job] = s->now;
out:
	gt_arena_pop(&s->step_arena, mark);
	return ok;
}

struct by_since {
	int32_t job;
	int64_t since;
};

static int by_since_cmp(const void *pa, const void *pb)
{
	const struct by_since *a = pa, *b = pb;
	if (a->since != b->since)
		return a->since < b->since ? -1 : 1;
	return (a->job > b->job) - (a->job < b->job);
}

void gt_reserve_begin(struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	const struct gt_reserve_params *rp = &c->config.reserve;
	if (!rp->on)
		return;
	struct gt_arena *a = &s->arena;
	struct gt_reserve_book *b = gt_arena_calloc(a, 1, sizeof(*b));
	b->cap = rp->max;
	b->v = gt_arena_calloc(a, b->cap + 1, sizeof(*b->v));
	b->hold = gt_arena_calloc(a, c->n_nodes + 1, sizeof(*b->hold));
	b->hold_by = gt_arena_alloc(a, (c->n_nodes + 1) * sizeof(*b->hold_by));
	b->since = gt_arena_calloc(a, c->n_jobs + 1, sizeof(*b->since));
	b->queue_tried = gt_arena_calloc(a, c->n_queues + 1, sizeof(*b->queue_tried));
	for (uint32_t i = 0; i < c->n_nodes; i++) {
		b->hold_by[i] = GT_NONE;
		b->total_gpus += c->nodes[i].gpus;
	}
	s->reserve = b;
	struct by_since *held = gt_arena_alloc(a, (c->n_jobs + 1) * sizeof(*held));
	uint32_t n_held = 0;
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		int64_t since = c->jobs[j].reserved_since;
		if (since <= 0 || !gt_job_pending_ready(s, (int32_t)j))
			continue;	/* placed, gone or never reserved: it starts afresh */
		if (s->now >= since + 2 * rp->hold_s)
			continue;	/* expired and rested */
		b->since[j] = since;
		if (s->now < since + rp->hold_s)
			held[n_held++] = (struct by_since){ (int32_t)j, since };
	}
	qsort(held, n_held, sizeof(*held), by_since_cmp);
	for (uint32_t i = 0; i < n_held; i++)
		plan_one(s, held[i].job, held[i].since);
}

bool gt_reserve_popped(struct gt_session *s, int32_t job)
{
	struct gt_reserve_book *b = s->reserve;
	int32_t q = s->c->jobs[job].queue;
	if (!b || q == GT_NONE)
		return false;
	bool head = !b->queue_tried[q];
	b->queue_tried[q] = true;
	return head;
}

const struct gt_reservation *gt_reserve_of(const struct gt_session *s, int32_t job)
{
	const struct gt_reserve_book *b = s->reserve;
	for (uint32_t i = 0; b && i < b->n; i++)
		if (b->v[i].job == job)
			return &b->v[i];
	return NULL;
}

void gt_reserve_failed(struct gt_session *s, int32_t job, bool head)
{
	struct gt_reserve_book *b = s->reserve;
	if (!b || b->since[job] || gt_reserve_of(s, job))
		return;	/* holds one, or rests after one expired */
	const struct gt_reserve_params *rp = &s->c->config.reserve;
	if (!head && s->now - s->c->jobs[job].created < rp->wait_s)
		return;
	plan_one(s, job, 0);
}

void gt_reserve_placed(struct gt_session *s, int32_t job)
{
	struct gt_reserve_book *b = s->reserve;
	if (!b)
		return;
	const struct gt_job *j = &s->c->jobs[job];
	for (uint32_t i = 0; i < j->n_pods; i++)
		if (s->pods[j->pods[i]].status == GT_PIPELINED)
			return;	/* it lands on room being released: held until it is bound */
	b->since[job] = 0;
	for (uint32_t i = 0; i < b->n; i++) {
		struct gt_reservation *r = &b->v[i];
		if (r->job != job)
			continue;
		for (uint32_t k = 0; k < r->n_nodes; k++) {
			b->hold[r->nodes[k]] = 0;
			b->hold_by[r->nodes[k]] = GT_NONE;
		}
		b->held_gpus -= r->gpus;
		r->job = GT_NONE;	/* ended: kept in place so indices stay */
		r->held = 0;
	}
}

int64_t gt_reserve_since(const struct gt_session *s, int32_t job)
{
	if (s->reserve)
		return s->reserve->since[job];
	return s->c->config.reserve.on ? s->c->jobs[job].reserved_since : 0;
}

void gt_reserve_describe(const struct gt_reservation *r, char *buf, size_t cap)
{
	if (r->start == GT_RESERVE_NO_START) {
		snprintf(buf, cap, "reserved %d GPUs on %u nodes, expected start when running pods end "
			 "(no run time known)", r->gpus, r->n_nodes);
		return;
	}
	int64_t day = r->start % 86400;
	snprintf(buf, cap, "reserved %d GPUs on %u nodes, expected start %02d:%02d UTC", r->gpus,
		 r->n_nodes, (int)(day / 3600), (int)(day % 3600 / 60));
}

void gt_reserve_end(struct gt_session *s)
{
	const struct gt_reserve_book *b = s->reserve;
	if (!s->c->config.job_messages)
		return;	/* a front end that publishes none (the replay) */
	for (uint32_t i = 0; b && i < b->n; i++) {
		const struct gt_reservation *r = &b->v[i];
		if (r->job == GT_NONE)
			continue;
		struct gt_job_state *js = &s->jobs[r->job];
		char what[160], msg[2048];
		gt_reserve_describe(r, what, sizeof(what));
		if (js->message)
			snprintf(msg, sizeof(msg), "%s; %s", js->message, what);
		else
			snprintf(msg, sizeof(msg), "%s", what);
		if (js->why) {
			struct gt_job_why why = *js->why;
			gt_job_set_why(s, r->job, &why, msg);
		} else {
			gt_job_set_message(s, r->job, msg);
		}
	}
}

/* ---------------------------------------------------------------- maximum run time */

static bool queue_enforces(const struct gt_cluster *c, int32_t q)
{
	for (; q != GT_NONE; q = c->queues[q].parent)
		if (c->queues[q].enforce_max_runtime)
			return true;
	return false;
}

void gt_max_runtime_evict(struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	bool any = false;
	for (uint32_t q = 0; q < c->n_queues && !any; q++)
		any = c->queues[q].enforce_max_runtime;
	for (uint32_t job = 0; any && job < c->n_jobs; job++) {
		const struct gt_job *j = &c->jobs[job];
		int64_t start = s->jobs[job].last_start;
		if (j->max_runtime_s <= 0 || start <= 0 || s->now < start + j->max_runtime_s ||
		    !s->job_active[job] || !queue_enforces(c, j->queue))
			continue;
		evict_job_now(s, (int32_t)job, GT_EVICT_MAX_RUNTIME, GT_NONE);
	}
}

bool gt_max_runtime_evicted(const struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	for (uint32_t i = 0; i < j->n_pods; i++)
		if (s->pods[j->pods[i]].evicted_by == GT_EVICT_MAX_RUNTIME)
			return true;
	return false;
}

void gt_reserve_eviction_message(const struct gt_session *s, int32_t pod, char *buf, size_t len)
{
	const struct gt_cluster *c = s->c;
	const struct gt_pod *p = &c->pods[pod];
	const struct gt_pod_state *st = &s->pods[pod];
	const char *ns = gt_strtab_str(c->names, p->ns), *name = gt_strtab_str(c->names, p->name);
	buf[0] = '\0';
	if (st->evicted_by == GT_EVICT_MAX_RUNTIME && p->job != GT_NONE) {
		char d[64];
		gt_duration_format_go(c->jobs[p->job].max_runtime_s * 1000000000LL, d);
		snprintf(buf, len, "Pod %s/%s was evicted: its workload ran past its maximum run time (%s)", ns, name,
			 d);
	} else if (st->evicted_by == GT_EVICT_BACKFILL && st->evictor_job != GT_NONE) {
		const struct gt_job *g = &c->jobs[st->evictor_job];
		snprintf(buf, len, "Pod %s/%s was evicted: it backfilled GPUs reserved for %s/%s, whose reservation "
			 "starts now", ns, name, gt_strtab_str(c->names, g->ns), gt_strtab_str(c->names, g->name));
	}
}

int64_t gt_reserve_backfilled_gpus(const struct gt_session *s)
{
	const struct gt_reserve_book *b = s->reserve;
	const struct gt_cluster *c = s->c;
	int64_t gpus = 0;
	if (!b || !b->n)
		return 0;
	for (uint32_t i = 0; i < c->n_pods; i++) {
		const struct gt_pod_state *st = &s->pods[i];
		int32_t pj = c->pods[i].job;
		if (!gt_status_active_allocated(st->status) || st->node < 0 || pj == GT_NONE ||
		    b->hold_by[st->node] == GT_NONE)
			continue;
		int32_t holder = b->v[b->hold_by[st->node]].job;
		int64_t since = holder == GT_NONE ? 0 : b->since[holder];
		if (holder != pj && since > 0 && since < s->now && s->jobs[pj].last_start >= since)
			gpus += pod_devices(&c->pods[i]);
	}
	return gpus;
}
