#include "core/plan.h"
#include "core/reserve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/actions.h"
#include "core/messages.h"
#include "core/numa.h"
#include "core/order.h"
#include "core/volumes.h"
#include "util/hash.h"
#include "util/mem.h"

#define LABEL_VALUE_MAX 63

/* ---------------------------------------------------------------- building */

static void place_of(const struct gt_pod_state *st, int32_t pod, struct gt_plan_place *out)
{
	memset(out, 0, sizeof(*out));
	out->pod = pod;
	out->node = st->node;
	out->n_groups = st->n_groups;
	memcpy(out->groups, st->groups, st->n_groups * sizeof(*st->groups));
}

static bool is_bind(enum gt_status before, const struct gt_pod_state *st)
{
	bool placed = st->status == GT_BINDING || st->status == GT_ALLOCATED;
	bool was = before == GT_BINDING || before == GT_ALLOCATED;
	return placed && !was && st->node >= 0;
}

static void add_eviction(struct gt_plan *p, const struct gt_session *s, int32_t pod, uint32_t *cap)
{
	const struct gt_pod_state *st = &s->pods[pod];
	char msg[1024];
	gt_eviction_message(s, pod, msg, sizeof(msg));
	struct gt_plan_evict e = { .pod = pod, .node = p->c->pods[pod].node,
				   .action = (enum gt_action)st->evicted_by,
				   .evictor_job = st->evictor_job, .message = gt_xstrdup(msg) };
	GT_PUSH(p->evictions, p->n_evictions, *cap, e);
}

/* @st's NUMA placement, by zone name (the durable form front ends write). */
static void place_numa(const struct gt_session *s, const struct gt_pod_state *st, struct gt_plan_place *pl)
{
	uint32_t n;
	const struct gt_numa_share *sh = gt_numa_shares(s, st->numa_place, &n);
	const struct gt_numa_node *t = gt_numa_topology(s, st->node);
	pl->numa = NULL;
	pl->n_numa = 0;
	if (!n || !t)
		return;
	pl->numa = gt_xmalloc(n * sizeof(*pl->numa));
	for (uint32_t i = 0; i < n; i++) {
		pl->numa[i] = sh[i];
		pl->numa[i].zone = t->zones[sh[i].zone].id;
	}
	pl->n_numa = n;
}

static void plan_pods(struct gt_plan *p, const struct gt_session *s)
{
	const struct gt_cluster *c = p->c;
	uint32_t cap_b = 0, cap_p = 0, cap_e = 0;
	for (uint32_t i = 0; i < c->n_pods; i++) {
		const struct gt_pod_state *st = &s->pods[i];
		enum gt_status before = c->pods[i].status;
		struct gt_plan_place pl;
		if (is_bind(before, st)) {
			place_of(st, (int32_t)i, &pl);
			place_numa(s, st, &pl);
			GT_PUSH(p->binds, p->n_binds, cap_b, pl);
		} else if (st->status == GT_PIPELINED && st->node >= 0) {
			place_of(st, (int32_t)i, &pl);
			place_numa(s, st, &pl);
			GT_PUSH(p->pipelines, p->n_pipelines, cap_p, pl);
		}
		/* a victim moved elsewhere is pipelined there and still evicted here */
		if (st->evicted_by && before != GT_RELEASING)
			add_eviction(p, s, (int32_t)i, &cap_e);
	}
}

static bool job_scheduled(const struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	struct gt_podset_count cnt[GT_MAX_PODSETS];
	gt_job_count(s, job, cnt);
	if (!gt_gang_met_counts(j, cnt, GT_COUNT(active_allocated)))
		return false;
	bool any = false;
	for (uint32_t i = 0; i < j->n_podsets; i++)
		any |= cnt[i].active_allocated > 0;
	return any;
}

static void plan_jobs(struct gt_plan *p, const struct gt_session *s)
{
	const struct gt_cluster *c = p->c;
	p->jobs = gt_xcalloc(c->n_jobs + 1, sizeof(*p->jobs));
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		const struct gt_job_state *js = &s->jobs[j];
		struct gt_plan_job *pj = &p->jobs[j];
		pj->message = js->message ? gt_xstrdup(js->message) : NULL;
		if (js->why) {
			pj->why = gt_xmalloc(sizeof(*pj->why));
			*pj->why = *js->why;
		}
		pj->last_start = js->last_start;
		pj->stale_since = js->stale_since;
		pj->last_eviction = c->jobs[j].last_eviction;
		pj->scheduled = job_scheduled(s, (int32_t)j);
		pj->running = s->job_active[j] > 0;
		pj->pending_ready = gt_job_pending_ready(s, (int32_t)j);
		pj->reserved_since = gt_reserve_since(s, (int32_t)j);
		const struct gt_reservation *rv = gt_reserve_of(s, (int32_t)j);
		if (rv) {
			pj->reserved = true;
			pj->reserve_start = rv->start;
			pj->reserve_gpus = rv->gpus;
			pj->reserve_held = rv->held;
			pj->reserve_nodes = rv->n_nodes;
		}
		pj->max_runtime_evicted = gt_max_runtime_evicted(s, (int32_t)j);
	}
	p->backfilled_gpus = gt_reserve_backfilled_gpus(s);
	/* KAI's statement stamps the victim's PodGroup: its preemption delay re-arms */
	for (uint32_t i = 0; i < p->n_evictions; i++) {
		int32_t job = c->pods[p->evictions[i].pod].job;
		if (job != GT_NONE)
			p->jobs[job].last_eviction = s->now;
	}
}

/* The fresh groups (GPUs the cycle opened): named when asked (gt_plan_group_name). */
static void plan_fresh(struct gt_plan *p, const struct gt_session *s)
{
	p->base_names = s->n_base_names;
	p->n_fresh = s->next_group - s->n_base_names;
	p->fresh_name = gt_xcalloc(p->n_fresh + 1, sizeof(*p->fresh_name));
}

/* The volume writes the binds need: each unbound claim once, unless already written. */
static void plan_volumes(struct gt_plan *p, const struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	uint32_t cap = 0;
	for (uint32_t b = 0; b < p->n_binds; b++) {
		const struct gt_pod *pod = &c->pods[p->binds[b].pod];
		for (uint32_t k = 0; k < pod->n_pvcs; k++) {
			int32_t v = pod->pvcs[k];
			const struct gt_pvc *pvc = &c->pvcs[v];
			if (pvc->has_volume || pvc->has_selected_node)
				continue;
			int32_t pv = gt_volumes_chosen(s, v);
			if (pv != GT_NONE && c->pvs[pv].claimed)
				continue;	/* pre-bound to it: the PV controller binds them */
			bool seen = false;
			for (uint32_t i = 0; i < p->n_volumes && !seen; i++)
				seen = p->volumes[i].pvc == v;
			if (seen)
				continue;
			struct gt_plan_volume pv_w = { .pod = p->binds[b].pod, .pvc = v, .pv = pv, .node = p->binds[b].node };
			GT_PUSH(p->volumes, p->n_volumes, cap, pv_w);
		}
	}
}

void gt_plan_build(struct gt_plan *p, const struct gt_session *s, const struct gt_plan_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->c = s->c;
	p->now = s->now;
	if (o)
		p->o = *o;
	plan_pods(p, s);
	plan_jobs(p, s);
	plan_fresh(p, s);
	plan_volumes(p, s);
	p->claims = gt_dra_plan_claims(p->c, p, &p->n_claims);
}

void gt_plan_release(struct gt_plan *p)
{
	for (uint32_t i = 0; i < p->n_evictions; i++)
		free(p->evictions[i].message);
	for (uint32_t j = 0; p->jobs && j < p->c->n_jobs; j++) {
		free(p->jobs[j].message);
		free(p->jobs[j].why);
	}
	for (uint32_t i = 0; i < p->n_binds; i++)
		free(p->binds[i].numa);
	for (uint32_t i = 0; i < p->n_pipelines; i++)
		free(p->pipelines[i].numa);
	free(p->binds);
	free(p->pipelines);
	free(p->evictions);
	free(p->volumes);
	free(p->jobs);
	free(p->fresh_name);
	gt_dra_plan_claims_free(p->claims, p->n_claims);
	memset(p, 0, sizeof(*p));
}

/*
 * The element for @pod in an array the plan built in pod order, whose
 * elements of @size bytes start with their int32_t pod; NULL if none.
 */
static const void *find_pod(const void *arr, uint32_t n, size_t size, int32_t pod)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (*(const int32_t *)((const char *)arr + (size_t)mid * size) < pod)
			lo = mid + 1;
		else
			hi = mid;
	}
	const void *at = (const char *)arr + (size_t)lo * size;
	return lo < n && *(const int32_t *)at == pod ? at : NULL;
}

const struct gt_plan_evict *gt_plan_eviction_of(const struct gt_plan *p, int32_t pod)
{
	return find_pod(p->evictions, p->n_evictions, sizeof(*p->evictions), pod);
}

const struct gt_plan_place *gt_plan_bind_of(const struct gt_plan *p, int32_t pod)
{
	return find_pod(p->binds, p->n_binds, sizeof(*p->binds), pod);
}

/* ---------------------------------------------------------------- naming */

/* A Kubernetes label value: at most 63 of [A-Za-z0-9_.-], alphanumeric at both ends. */
static bool label_value_ok(const char *v)
{
	size_t n = strlen(v);
	if (!n || n > LABEL_VALUE_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = v[i];
		bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
		if (!alnum && ((i == 0 || i + 1 == n) || (ch != '-' && ch != '_' && ch != '.')))
			return false;
	}
	return true;
}

static bool taken(const struct gt_plan *p, int32_t node, const char *name)
{
	if (p->o.taken)
		return p->o.taken(p->o.arg, node, name);
	return gt_strtab_find(p->c->names, name) >= 0;
}

uint32_t gt_plan_group_name(struct gt_plan *p, uint32_t id, int32_t node)
{
	if (!gt_plan_group_is_fresh(p, id))
		return id;
	uint32_t k = id - p->base_names;
	if (p->fresh_name[k])
		return p->fresh_name[k] - 1;
	struct gt_strtab *names = p->c->names;
	const char *nn = node >= 0 ? gt_strtab_str(names, p->c->nodes[node].name) : "gpu";
	char buf[300];
	for (unsigned i = 0;; i++) {
		snprintf(buf, sizeof(buf), "%s-gpu%u", nn, i);
		if (!label_value_ok(buf))
			snprintf(buf, sizeof(buf), "gpu-%016llx-%u", (unsigned long long)gt_hash_str(nn), i);
		if (!taken(p, node, buf))
			break;
	}
	p->fresh_name[k] = gt_strtab_intern(names, buf) + 1;
	return p->fresh_name[k] - 1;
}
