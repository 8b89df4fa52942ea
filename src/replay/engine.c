/*
 * engine.c - the replay's virtual clock, event queue and cluster upkeep
 *
 * PROCEDURE (gt_replay_run), at each tick of the clock:
 *   Step 1. Events up to now, in time order: departures and finished
 *           evictions free their pods' places, arrivals add pending pods.
 *           Metrics are integrated up to each event's own time.
 *   Step 2. If anything changed since the last cycle, run one: compact the
 *           cluster arrays, hide hopeless jobs if that is exact (see
 *           engine.h), call gt_cycle_run(), apply the plan.
 *   Step 3. The next tick: now + period if the cycle bound or evicted
 *           something (its effects may enable more); otherwise the first
 *           tick at or after the next event; none left: the run is over.
 */
#include "replay/engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fairshare.h"
#include "core/plan.h"
#include "core/session.h"
#include "core/signature.h"
#include "util/clock.h"
#include "util/heap.h"
#include "util/mem.h"

/* ---------------------------------------------------------------- event heap */

static bool ev_before(const void *ctx, const struct rp_event *a, const struct rp_event *b)
{
	(void)ctx;
	if (a->t != b->t)
		return a->t < b->t;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->job < b->job;
}

GT_HEAP_DEFINE(event_heap, struct rp_event, const void, ev_before)

static void heap_push(struct gt_replay *r, struct rp_event ev)
{
	event_heap_push(&r->heap, &r->n_heap, &r->cap_heap, ev, NULL);
}

static struct rp_event heap_pop(struct gt_replay *r)
{
	return event_heap_pop(r->heap, &r->n_heap, NULL);
}

/* Drop events made stale by an eviction, so the heap top is a real one. */
static void heap_clean(struct gt_replay *r)
{
	while (r->n_heap && r->heap[0].gen != r->jobs[r->heap[0].job].gen)
		heap_pop(r);
}

/* ---------------------------------------------------------------- metrics */

void gt_rp_set_signals(struct gt_replay *r)
{
	double *cur = r->st.timeline.cur;
	cur[GT_SIG_ALLOC] = (double)r->alloc_milli / 1000.0;
	cur[GT_SIG_PENDING] = r->n_pending;
	cur[GT_SIG_RUNNING] = r->n_running;
	cur[GT_SIG_FRAG] = (double)r->stranded_milli / 1000.0;
	cur[GT_SIG_IDLE] = (double)r->idle_devices;
	cur[GT_SIG_PARTIAL] = (double)r->partial_nodes;
	for (uint32_t q = 0; q < r->c.n_queues; q++) {
		cur[GT_SIG_QALLOC(q)] = (double)r->q_alloc_milli[q] / 1000.0;
		cur[GT_SIG_QFAIR(q)] = (double)r->q_fair_milli[q] / 1000.0;
	}
}

/* Integrate every signal up to @t; call before anything changes at @t. */
static void observe(struct gt_replay *r, int64_t t)
{
	struct gt_timeline *tl = &r->st.timeline;
	if (t <= tl->t_last)
		return;
	double dt = (double)(t - tl->t_last);
	r->alloc_gpu_s += dt * (double)r->alloc_milli / 1000.0;
	r->frag_s += dt * (double)r->stranded_milli / 1000.0;
	r->idle_s += dt * (double)r->idle_devices;
	r->partial_s += dt * (double)r->partial_nodes;
	r->st.reserved_gpu_hours += dt * (double)r->held_gpus / 3600.0;
	r->st.backfilled_gpu_hours += dt * (double)r->backfilled_gpus / 3600.0;
	for (uint32_t q = 0; q < r->c.n_queues; q++) {
		r->q_alloc_s[q] += dt * (double)r->q_alloc_milli[q] / 1000.0;
		r->q_fair_s[q] += dt * (double)r->q_fair_milli[q] / 1000.0;
	}
	gt_timeline_advance(tl, t);
}

/* ---------------------------------------------------------------- node books */

static struct rp_group *find_group(struct rp_node *n, uint32_t id)
{
	for (uint32_t i = 0; i < n->n_groups; i++)
		if (n->groups[i].id == id)
			return &n->groups[i];
	return NULL;
}

/* Add (@sign 1) or remove (-1) node @n's share of the cluster-wide figures. */
void gt_rp_node_contrib(struct gt_replay *r, int32_t n, int sign)
{
	const struct rp_node *rn = &r->nodes[n];
	int32_t gpus = r->c.nodes[n].gpus;
	int64_t used = (int64_t)rn->whole * 1000, stranded = 0;
	for (uint32_t i = 0; i < rn->n_groups; i++) {
		used += rn->groups[i].used_milli;
		if (rn->groups[i].used_milli < 1000)
			stranded += 1000 - rn->groups[i].used_milli;
	}
	int64_t idle = gpus - rn->whole - (int64_t)rn->n_groups;
	idle = idle < 0 ? 0 : idle;
	r->alloc_milli += sign * used;
	r->stranded_milli += sign * stranded;
	r->idle_devices += sign * idle;
	r->partial_nodes += sign * (idle > 0 && idle < gpus);
}

/* Put pod @i (in c.pods) on its node in the books (@sign 1) or take it off (-1). */
static void book_pod(struct gt_replay *r, uint32_t i, int sign)
{
	const struct gt_pod *p = &r->c.pods[i];
	int32_t n = p->node;
	struct rp_node *rn = &r->nodes[n];
	gt_rp_node_contrib(r, n, -1);
	rn->cpu_milli += sign * p->cpu_milli;
	rn->mem_bytes += sign * p->mem_bytes;
	rn->pods += sign;
	int64_t milli;
	if (p->frac_milli) {
		struct rp_group *g = find_group(rn, p->groups[0]);
		if (!g) {
			struct rp_group ng = { .id = p->groups[0] };
			GT_PUSH(rn->groups, rn->n_groups, rn->cap_groups, ng);
			g = &rn->groups[rn->n_groups - 1];
		}
		g->used_milli += sign * p->frac_milli;
		g->n_pods += sign;
		if (!g->n_pods)
			*g = rn->groups[--rn->n_groups];
		milli = p->frac_milli;
	} else {
		rn->whole += sign * p->gpus;
		milli = (int64_t)p->gpus * 1000;
	}
	gt_rp_node_contrib(r, n, 1);
	int32_t q = r->c.jobs[p->job].queue;
	if (q >= 0)
		r->q_alloc_milli[q] += sign * milli;
}

/* ---------------------------------------------------------------- cluster arrays */

static uint32_t intern_fmt(struct gt_strtab *names, const char *fmt, uint32_t a, int32_t b)
{
	char buf[64];
	snprintf(buf, sizeof(buf), fmt, a, b);
	return gt_strtab_intern(names, buf);
}

/* Job @id arrives: a PodGroup and its pods, appended (arrival order is kept). */
static void add_job(struct gt_replay *r, uint32_t id)
{
	struct gt_cluster *c = &r->c;
	const struct gt_rjob *tj = &r->tj[id];
	struct rp_job *rj = &r->jobs[id];
	GT_GROW(c->jobs, c->n_jobs + 1, c->cap_jobs);
	GT_GROW(r->slot_id, c->n_jobs + 1, r->cap_slot_id);
	r->slot_id[c->n_jobs] = id;
	struct gt_job *j = &c->jobs[c->n_jobs];
	memset(j, 0, sizeof(*j));
	rj->slot = (int32_t)c->n_jobs++;
	j->ns = r->ns;
	j->name = intern_fmt(r->names, "job-%07u", id, 0);
	j->queue = rj->queue;
	j->queue_name = c->queues[rj->queue].name;
	j->priority = rj->priority;
	j->preemptible = rj->preemptible;
	j->podsets = gt_xcalloc(1, sizeof(*j->podsets));
	j->podsets[0] = (struct gt_podset){ .name = r->podset_name, .min_member = tj->n_pods,
					    .group = GT_NONE, .topo = { GT_NONE, GT_NONE, GT_NONE } };
	j->n_podsets = 1;
	j->topo = (struct gt_topology_constraint){ GT_NONE, GT_NONE, GT_NONE };
	j->created = tj->submit;
	if (r->o.runtime_factor > 0) {
		int64_t rt = (int64_t)((double)tj->duration * r->o.runtime_factor + 0.5);
		j->max_runtime_s = j->expected_runtime_s = rt > 0 ? rt : 1;
	}
	GT_GROW(c->pods, c->n_pods + (uint32_t)tj->n_pods, c->cap_pods);
	j->pods = gt_xmalloc((size_t)tj->n_pods * sizeof(*j->pods));
	j->cap_pods = (uint32_t)tj->n_pods;
	for (int32_t k = 0; k < tj->n_pods; k++) {
		struct gt_pod *p = &c->pods[c->n_pods];
		memset(p, 0, sizeof(*p));
		j->pods[j->n_pods++] = (int32_t)c->n_pods++;
		p->ns = r->ns;
		p->name = intern_fmt(r->names, "job-%07u-%d", id, k);
		p->job = rj->slot;
		p->ours = true;
		p->status = GT_PENDING;
		p->node = GT_NONE;
		p->cpu_milli = tj->cpu_milli;
		p->mem_bytes = tj->mem_bytes;
		p->gpus = tj->frac_milli ? 0 : gt_rjob_pod_gpus(tj, k);
		p->frac_milli = tj->frac_milli;
		p->num_devices = 1;
		p->created = tj->submit;
		p->nominated_node = -1;
		if (tj->gpu_spec >= 0) {
			p->affinity_terms = &r->spec_sel[tj->gpu_spec];
			p->n_affinity_terms = 1;
		}
		/* a trace's pod keeps its constraints and claims no device: its signature too */
		p->signature = gt_pod_signature(c, (int32_t)(c->n_pods - 1));
	}
	rj->state = JS_PENDING;
	r->n_pending++;
	r->arrived_milli += gt_rp_job_gpus(tj) * 1000.0;
}

/* Drop the jobs that are done from the arrays, keeping the others' order. */
static void compact(struct gt_replay *r)
{
	struct gt_cluster *c = &r->c;
	uint32_t nj = 0, np = 0;
	for (uint32_t s = 0; s < c->n_jobs; s++) {
		struct gt_job *j = &c->jobs[s];
		uint32_t id = r->slot_id[s];
		if (r->jobs[id].state == JS_DONE) {
			free(j->podsets);
			free(j->pods);
			continue;
		}
		uint32_t first = (uint32_t)j->pods[0];
		for (uint32_t k = 0; k < j->n_pods; k++) {
			c->pods[np + k] = c->pods[first + k];
			c->pods[np + k].job = (int32_t)nj;
			j->pods[k] = (int32_t)(np + k);
		}
		np += j->n_pods;
		r->jobs[id].slot = (int32_t)nj;
		r->slot_id[nj] = id;
		c->jobs[nj++] = *j;
	}
	c->n_jobs = nj;
	c->n_pods = np;
	r->need_compact = false;
}

/* ---------------------------------------------------------------- lifecycles */

/* The pods of job @id, as indices into c.pods. */
static const int32_t *job_pods(const struct gt_replay *r, uint32_t id, uint32_t *n)
{
	const struct gt_job *j = &r->c.jobs[r->jobs[id].slot];
	*n = j->n_pods;
	return j->pods;
}

static void pod_place(struct gt_replay *r, uint32_t id, uint32_t k, int32_t node, uint32_t group)
{
	uint32_t n;
	uint32_t i = (uint32_t)job_pods(r, id, &n)[k];
	struct gt_pod *p = &r->c.pods[i];
	p->status = GT_RUNNING;
	p->node = node;
	p->n_groups = p->frac_milli ? 1 : 0;
	p->groups[0] = group;
	book_pod(r, i, 1);
	r->last_node[r->jobs[id].pod0 + k] = node;
	r->last_group[r->jobs[id].pod0 + k] = p->frac_milli ? group + 1 : 0;
}

/* Take every pod of job @id off its node; they are Pending again. */
static void job_unplace(struct gt_replay *r, uint32_t id)
{
	uint32_t n;
	const int32_t *pods = job_pods(r, id, &n);
	for (uint32_t k = 0; k < n; k++) {
		struct gt_pod *p = &r->c.pods[pods[k]];
		if (p->node >= 0 && gt_status_active_used(p->status))
			book_pod(r, (uint32_t)pods[k], -1);
		p->status = GT_PENDING;
		p->node = GT_NONE;
		p->n_groups = 0;
	}
}

static void start_job(struct gt_replay *r, uint32_t id)
{
	struct rp_job *rj = &r->jobs[id];
	const struct gt_rjob *tj = &r->tj[id];
	rj->state = JS_RUNNING;
	rj->run_start = r->now;
	if (rj->first_start < 0)
		rj->first_start = r->now + r->o.bind_latency;
	r->c.jobs[rj->slot].last_start = r->now;
	r->n_pending--;
	r->n_running++;
	/* the core's view changes when the job's min-runtime protection ends */
	for (uint32_t w = 0; w < r->n_wake_after; w++)
		heap_push(r, (struct rp_event){ .t = r->now + r->wake_after[w], .job = id,
						.gen = rj->gen, .kind = EV_WAKE });
	if (r->o.enforce_max_runtime && r->c.jobs[rj->slot].max_runtime_s > 0)	/* the core evicts it then */
		heap_push(r, (struct rp_event){ .t = r->now + r->c.jobs[rj->slot].max_runtime_s, .job = id,
						.gen = rj->gen, .kind = EV_MAX_RUNTIME });
	if (r->o.no_departures)
		return;
	int64_t left = tj->duration - rj->done_work;
	rj->end = r->now + r->o.bind_latency + (left > 0 ? left : 0);
	heap_push(r, (struct rp_event){ .t = rj->end, .job = id, .gen = rj->gen, .kind = EV_END });
}

/* Job @id runs no more: it is no longer one a cycle must see past its maximum run time. */
static void not_overdue(struct gt_replay *r, uint32_t id)
{
	if (r->jobs[id].overdue) {
		r->jobs[id].overdue = false;
		r->n_overdue--;
	}
}

static void finish_job(struct gt_replay *r, uint32_t id, int64_t t)
{
	struct rp_job *rj = &r->jobs[id];
	not_overdue(r, id);
	job_unplace(r, id);
	rj->state = JS_DONE;
	rj->end = t;
	rj->gen++;	/* its pending wake-ups mean nothing now */
	r->n_running--;
	r->useful_gpu_s += gt_rp_job_gpus(&r->tj[id]) * (double)r->tj[id].duration;
	r->need_compact = true;
}

/*
 * The core evicted (some of) job @id's pods. A gang does not run in part:
 * its controller deletes every pod and recreates the gang Pending.
 */
static void evict_job(struct gt_replay *r, uint32_t id)
{
	struct rp_job *rj = &r->jobs[id];
	double gpus = gt_rp_job_gpus(&r->tj[id]);
	not_overdue(r, id);
	if (rj->state == JS_RUNNING) {
		int64_t held = r->now - rj->run_start;
		int64_t worked = held - r->o.bind_latency;
		worked = worked < 0 ? 0 : worked;
		int64_t kept = r->o.resume ? worked : 0;
		rj->done_work += kept;
		r->lost_gpu_s += gpus * (double)(held - kept);
		r->n_running--;
	} else {
		r->n_pending--;	/* bound in part: nothing ran */
	}
	rj->gen++;
	if (!rj->evictions++)
		r->st.restarted_jobs++;
	r->st.job_evictions++;
	r->c.jobs[rj->slot].last_start = 0;
	if (r->o.evict_grace <= 0) {
		job_unplace(r, id);
		rj->state = JS_PENDING;
		r->n_pending++;
		return;
	}
	uint32_t n;
	const int32_t *pods = job_pods(r, id, &n);
	for (uint32_t k = 0; k < n; k++)
		if (r->c.pods[pods[k]].node >= 0) {
			r->c.pods[pods[k]].status = GT_RELEASING;
			r->n_releasing_pods++;
		}
	rj->state = JS_RELEASING;
	rj->release_at = r->now + r->o.evict_grace;
	heap_push(r, (struct rp_event){ .t = rj->release_at, .job = id, .gen = rj->gen,
					.kind = EV_RELEASE });
}

/*
 * The core evicted job @id past its maximum run time (its queue enforces
 * it): the job ends there, its work cut short, and is not recreated (as a
 * Job past its activeDeadlineSeconds fails).
 */
static void kill_job(struct gt_replay *r, uint32_t id)
{
	struct rp_job *rj = &r->jobs[id];
	not_overdue(r, id);
	int64_t ran = r->now - rj->run_start - r->o.bind_latency;
	r->st.max_runtime_evictions++;
	job_unplace(r, id);
	rj->state = JS_DONE;
	rj->end = r->now;
	rj->gen++;
	r->n_running--;
	r->useful_gpu_s += gt_rp_job_gpus(&r->tj[id]) * (double)(ran > 0 ? ran : 0);
	r->need_compact = true;
}

/* An evicted gang's pods are gone: the controller recreates them Pending. */
static void release_job(struct gt_replay *r, uint32_t id)
{
	uint32_t n;
	const int32_t *pods = job_pods(r, id, &n);
	for (uint32_t k = 0; k < n; k++)
		if (r->c.pods[pods[k]].status == GT_RELEASING)
			r->n_releasing_pods--;
	job_unplace(r, id);
	r->jobs[id].state = JS_PENDING;
	r->n_pending++;
}

/* ---------------------------------------------------------------- applying a plan */

/*
 * The plan's hook for naming a GPU group the cycle opened on @node: every
 * device already has a name ("<node>-gpu<d>", engine_setup.c), so a name is
 * taken while a group of that name holds pods on the node.
 */
static bool group_taken(void *arg, int32_t node, const char *name)
{
	const struct gt_replay *r = arg;
	int64_t id = gt_strtab_find(r->names, name);
	const struct rp_node *rn = &r->nodes[node];
	for (uint32_t g = 0; id >= 0 && g < rn->n_groups; g++)
		if (rn->groups[g].id == (uint32_t)id)
			return true;
	return false;
}

/* The plan's binds and evictions of job @id (pods in job order: the plan lists them by pod). */
struct job_plan {
	uint32_t bound, evicted;
};

static void count_job_plan(const struct gt_replay *r, const struct gt_plan *plan, uint32_t id,
			   struct job_plan *jp)
{
	uint32_t n;
	const int32_t *pods = job_pods(r, id, &n);
	memset(jp, 0, sizeof(*jp));
	for (uint32_t k = 0; k < n; k++) {
		const struct gt_pod *p = &r->c.pods[pods[k]];
		jp->evicted += p->status == GT_RUNNING && gt_plan_eviction_of(plan, pods[k]);
	}
}

/*
 * Carry out the plan for job @id. Returns 1 when the snapshot changed (pods
 * bound or evicted), 0 when not, -1 when the job stayed pending.
 */
static int apply_job(struct gt_replay *r, struct gt_plan *plan, uint32_t id, bool hold)
{
	struct rp_job *rj = &r->jobs[id];
	uint32_t n, bound = 0, placed = 0;
	const int32_t *pods = job_pods(r, id, &n);
	struct job_plan jp;
	count_job_plan(r, plan, id, &jp);
	for (uint32_t k = 0; k < n; k++) {
		const struct gt_pod *p = &r->c.pods[pods[k]];
		bound += p->status == GT_PENDING && gt_plan_bind_of(plan, pods[k]);
		placed += p->status == GT_RUNNING;
	}
	if (rj->state == JS_RUNNING && plan->jobs[rj->slot].max_runtime_evicted) {
		kill_job(r, id);
		return 1;
	}
	if (jp.evicted) {
		r->st.pod_evictions += jp.evicted;
		evict_job(r, id);
		return 1;
	}
	if (rj->state != JS_PENDING)
		return 0;
	if (hold || !bound)
		return placed + bound < n ? -1 : 0;
	for (uint32_t k = 0; k < n; k++) {
		const struct gt_plan_place *b = gt_plan_bind_of(plan, pods[k]);
		if (r->c.pods[pods[k]].status != GT_PENDING || !b)
			continue;
		uint32_t group = b->n_groups ? gt_plan_group_name(plan, b->groups[0], b->node) : 0;
		pod_place(r, id, k, b->node, group);
	}
	if (placed + bound == n)
		start_job(r, id);
	return placed + bound < n ? -1 : 1;
}

/* The reservation the cycle reports for the job in @slot: given back next cycle, counted. */
static void note_reservation(struct gt_replay *r, const struct gt_plan_job *pj, uint32_t slot)
{
	struct gt_job *j = &r->c.jobs[slot];
	if (pj->reserved_since && pj->reserved_since != j->reserved_since && pj->reserved)
		r->st.reservations++;
	j->reserved_since = pj->reserved_since;
	if (pj->reserved)
		r->held_gpus += pj->reserve_held;
}

/*
 * Walk the jobs in arrival order and carry out the plan. Under strict FIFO
 * the first job left pending blocks every later one: what the core placed
 * behind it (backfill) is not carried out. Returns whether anything changed.
 */
static bool apply_plan(struct gt_replay *r, struct gt_plan *plan)
{
	bool changed = false, blocked = false;
	uint32_t n_slots = r->c.n_jobs;
	r->held_gpus = 0;
	r->backfilled_gpus = plan->backfilled_gpus;
	for (uint32_t slot = 0; slot < n_slots; slot++) {
		uint32_t id = r->slot_id[slot];
		r->c.jobs[slot].stale_since = plan->jobs[slot].stale_since;
		note_reservation(r, &plan->jobs[slot], slot);
		if (r->jobs[id].gated) {
			blocked = true;
			continue;
		}
		int rc = apply_job(r, plan, id, r->o.fifo && blocked);
		changed |= rc > 0;
		if (rc < 0 && r->o.fifo)
			blocked = true;
	}
	return changed;
}

/* ---------------------------------------------------------------- shortcuts */

static void compute_rooms(struct gt_replay *r)
{
	uint32_t n_nodes = r->c.n_nodes;
	for (uint32_t cls = 0; cls <= r->n_specs; cls++) {
		struct rp_room *room = &r->rooms[cls];
		memset(room->fit, 0, ((size_t)r->max_node_gpus + 1) * sizeof(*room->fit));
		room->max_share = room->max_cpu = room->max_mem = 0;
	}
	for (uint32_t n = 0; n < n_nodes; n++) {
		const struct gt_node *nd = &r->c.nodes[n];
		const struct rp_node *rn = &r->nodes[n];
		if (!nd->ready || nd->unschedulable || rn->pods >= nd->pods)
			continue;
		int32_t free_dev = nd->gpus - rn->whole - (int32_t)rn->n_groups;
		int64_t share = free_dev > 0 ? 1000 : 0;
		for (uint32_t g = 0; g < rn->n_groups; g++)
			if (1000 - rn->groups[g].used_milli > share)
				share = 1000 - rn->groups[g].used_milli;
		int64_t cpu = nd->cpu_milli - rn->cpu_milli, mem = nd->mem_bytes - rn->mem_bytes;
		for (uint32_t cls = 0; cls <= r->n_specs; cls++) {
			if (cls && !r->spec_ok[(size_t)(cls - 1) * n_nodes + n])
				continue;
			struct rp_room *room = &r->rooms[cls];
			for (int32_t g = 1; g <= free_dev; g++)
				room->fit[g] += free_dev / g;
			room->max_share = share > room->max_share ? share : room->max_share;
			room->max_cpu = cpu > room->max_cpu ? cpu : room->max_cpu;
			room->max_mem = mem > room->max_mem ? mem : room->max_mem;
		}
	}
}

/*
 * Can no placement of job @id's gang exist on the free resources now? Only
 * necessary conditions are tested (each pod's GPUs, share, CPU and memory
 * against the best any eligible node offers), so "hopeless" is certain.
 */
static bool hopeless(const struct gt_replay *r, uint32_t id)
{
	const struct gt_rjob *j = &r->tj[id];
	const struct rp_room *room = &r->rooms[j->gpu_spec >= 0 ? 1 + j->gpu_spec : 0];
	if (j->cpu_milli > room->max_cpu || j->mem_bytes > room->max_mem)
		return true;
	if (j->frac_milli)
		return j->frac_milli > room->max_share;
	int32_t g = j->gpus / j->n_pods;
	if (g <= 0)
		return false;
	return g > r->max_node_gpus || room->fit[g] < j->n_pods;
}

/*
 * Hide job @id from the core (its pods Gated) or show it again. A gate stays
 * between cycles, so a long backlog behind it costs nothing to keep hidden.
 */
static void set_gate(struct gt_replay *r, uint32_t id, bool on)
{
	if (r->jobs[id].gated == on)
		return;
	uint32_t n;
	const int32_t *pods = job_pods(r, id, &n);
	for (uint32_t k = 0; k < n; k++)
		r->c.pods[pods[k]].status = on ? GT_GATED : GT_PENDING;
	r->jobs[id].gated = on;
}

/* GPU milli-units free on the nodes: whole devices and room in shared ones. */
static int64_t free_milli(const struct gt_replay *r)
{
	int64_t total = 0;
	for (uint32_t n = 0; n < r->c.n_nodes; n++) {
		const struct rp_node *rn = &r->nodes[n];
		int64_t dev = r->c.nodes[n].gpus - rn->whole - (int64_t)rn->n_groups;
		total += (dev > 0 ? dev : 0) * 1000;
		for (uint32_t g = 0; g < rn->n_groups; g++)
			total += 1000 - rn->groups[g].used_milli;
	}
	return total;
}

/*
 * Hide from the snapshot what cannot matter (see engine.h). Returns false
 * when the cycle can be skipped altogether.
 */
static bool prepare_snapshot(struct gt_replay *r)
{
	bool allocate_only = r->o.actions == (1u << GT_ACT_ALLOCATE);
	bool shortcut = !r->o.exact && allocate_only && r->n_releasing_pods == 0;
	if (shortcut)
		compute_rooms(r);
	int64_t room = r->o.fifo ? free_milli(r) : 0, asked = 0;
	bool any = false, cut = false;
	for (uint32_t slot = 0; slot < r->c.n_jobs; slot++) {
		uint32_t id = r->slot_id[slot];
		if (r->jobs[id].state != JS_PENDING)
			continue;
		if (cut) {
			set_gate(r, id, true);	/* FIFO: behind a job that cannot start */
			continue;
		}
		bool lost = shortcut && hopeless(r, id);
		if (r->o.fifo) {
			/*
			 * The head stops everything behind it; and once the jobs so far
			 * ask for more than is free, one of them must fail.
			 */
			asked += (int64_t)(gt_rp_job_gpus(&r->tj[id]) * 1000.0);
			cut = lost || asked > room;
		}
		set_gate(r, id, lost && (r->o.fifo || r->single_queue));
		any |= !lost;
	}
	return any;
}

/* ---------------------------------------------------------------- the cycle */

/*
 * Time-based fair share: the usage the run so far left (core/usage.h), on
 * the virtual clock; a skipped cycle's rates are set too, so departures
 * between cycles end a queue's usage when they happen.
 */
static void usage_before(struct gt_replay *r)
{
	if (!r->usage_started) {
		gt_usage_init(&r->usage, &r->c.config.usage, r->now);
		r->usage_started = true;
	}
	gt_usage_advance(&r->usage, r->now);
	gt_usage_apply(&r->usage, &r->c.config.usage, &r->c, r->now);
}

static void cycle(struct gt_replay *r)
{
	if (r->need_compact)
		compact(r);
	r->dirty = false;
	struct gt_session s;
	bool usage = r->c.config.usage.on && !r->single_queue;
	if (usage)
		usage_before(r);
	bool go = (r->n_pending || r->o.exact) && prepare_snapshot(r);
	if (!go && r->n_overdue) {	/* the core evicts a job past its maximum run time */
		if (!r->n_pending && !r->o.exact)
			prepare_snapshot(r);
		go = true;
	}
	if (!go) {
		/*
		 * Nothing pending, or nothing that could be placed: a cycle would
		 * decide nothing. The fair shares are still what it would report
		 * (with one queue, where nothing is compared with them, they are
		 * left as the last cycle saw them: a long backlog makes them dear).
		 */
		r->st.cycles_skipped++;
		if (r->single_queue)
			return;
		observe(r, r->now);
		gt_session_open(&s, &r->c, r->now);
		gt_fairshare_compute(&s);
		for (uint32_t q = 0; q < r->c.n_queues; q++)
			r->q_fair_milli[q] = s.queues[q].fair_share[GT_QGPU];
		if (usage)
			gt_usage_set_rates(&r->usage, &s);
		gt_session_release(&s);
		gt_rp_set_signals(r);
		return;
	}
	double t0 = gt_mono_ms();
	gt_cycle_run(&s, &r->c, r->now, r->o.actions);
	double dt = gt_mono_ms() - t0;
	GT_PUSH(r->cycle_ms, r->n_cycle_ms, r->cap_cycle_ms, dt);
	r->st.cycles++;
	observe(r, r->now);
	for (uint32_t q = 0; q < r->c.n_queues; q++)
		r->q_fair_milli[q] = s.queues[q].fair_share[GT_QGPU];
	struct gt_plan plan;
	struct gt_plan_opts po = { .taken = group_taken, .arg = r };
	if (usage)
		gt_usage_set_rates(&r->usage, &s);
	gt_plan_build(&plan, &s, &po);
	gt_session_release(&s);
	r->dirty = apply_plan(r, &plan);
	gt_plan_release(&plan);
	gt_rp_set_signals(r);
}

/* ---------------------------------------------------------------- the clock */

static void process_events(struct gt_replay *r)
{
	for (;;) {
		heap_clean(r);
		int64_t te = r->n_heap ? r->heap[0].t : INT64_MAX;
		int64_t ta = r->next_arrival < r->n_jobs ? r->tj[r->next_arrival].submit : INT64_MAX;
		int64_t t = te <= ta ? te : ta;
		if (t > r->now)
			return;
		observe(r, t);
		if (te <= ta) {
			struct rp_event ev = heap_pop(r);
			if (ev.kind == EV_END)
				finish_job(r, ev.job, ev.t);
			else if (ev.kind == EV_RELEASE)
				release_job(r, ev.job);
			else if (ev.kind == EV_MAX_RUNTIME && !r->jobs[ev.job].overdue) {
				r->jobs[ev.job].overdue = true;
				r->n_overdue++;
			}
		} else {
			add_job(r, r->next_arrival++);
		}
		r->st.end = t;
		r->dirty = true;
		gt_rp_set_signals(r);
	}
}

/* The next tick to wake up at, INT64_MAX when nothing can happen any more. */
static int64_t next_tick(struct gt_replay *r)
{
	if (r->dirty)
		return r->now + r->o.period;
	heap_clean(r);
	int64_t te = r->n_heap ? r->heap[0].t : INT64_MAX;
	int64_t ta = r->next_arrival < r->n_jobs ? r->tj[r->next_arrival].submit : INT64_MAX;
	int64_t t = te < ta ? te : ta;
	if (t == INT64_MAX)
		return t;
	int64_t p = r->o.period;
	int64_t k = (t - r->origin + p - 1) / p;
	int64_t tick = r->origin + k * p;
	return tick > r->now ? tick : r->now + p;
}

void gt_replay_run(struct gt_replay *r, gt_replay_progress_fn fn, void *arg)
{
	double wall0 = gt_mono_ms();
	if (!r->n_jobs)
		return;
	r->now = r->origin;
	struct gt_replay_progress p = { .jobs = r->n_jobs };
	double ms_sum = 0;
	for (;;) {
		process_events(r);
		if (r->dirty)
			cycle(r);
		if (r->now > r->st.end)
			r->st.end = r->now;
		int64_t next = next_tick(r);
		if (next == INT64_MAX)
			break;
		r->now = next;
		p.arrived = r->next_arrival;
		p.now = r->now;
		p.job_evictions = r->st.job_evictions;
		for (uint64_t i = p.cycles; i < r->n_cycle_ms; i++)
			ms_sum += r->cycle_ms[i];
		p.cycles = r->n_cycle_ms;
		p.cycle_ms_mean = p.cycles ? ms_sum / (double)p.cycles : 0;
		if (fn && !fn(arg, &p)) {
			r->st.interrupted = true;
			break;
		}
	}
	p.arrived = r->next_arrival;
	p.done = true;
	if (fn)
		fn(arg, &p);
	observe(r, r->st.end);
	gt_rp_finish_stats(r);
	r->st.wall_s = (gt_mono_ms() - wall0) / 1000.0;
}

