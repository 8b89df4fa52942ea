/*
 * signature.c - KAI's scheduling signatures and smallest failed jobs
 *
 * Cost: a signature is O(pods of the job + their constraints); a lookup in
 * the failed-jobs table is O(1) expected; a comparison sorts the pending
 * pods' requests of the two jobs, O(p log p). Memory: two slots per job the
 * action may try, from the session's arena.
 */
#include <stdlib.h>
#include <string.h>

#include "core/order.h"
#include "core/signature.h"
#include "util/hash.h"

static uint64_t selector_sig(uint64_t h, const struct gt_selector *sel)
{
	h = gt_hash_mix(h, sel->n_exprs);
	for (uint32_t e = 0; e < sel->n_exprs; e++) {
		const struct gt_sel_expr *x = &sel->exprs[e];
		h = gt_hash_mix(gt_hash_mix(gt_hash_mix(h, x->key), (uint64_t)x->op), (uint64_t)x->num);
		h = gt_hash_mix(h, x->n_vals);
		for (uint32_t v = 0; v < x->n_vals; v++)
			h = gt_hash_mix(h, x->vals[v]);
	}
	return h;
}

static uint64_t affinity_sig(uint64_t h, const struct gt_pod_affinity_term *t)
{
	h = gt_hash_mix(gt_hash_mix(gt_hash_mix(gt_hash_mix(h, t->topology_key), t->anti), (uint64_t)t->weight),
			t->all_namespaces);
	h = gt_hash_mix(h, t->n_namespaces);
	for (uint32_t i = 0; i < t->n_namespaces; i++)
		h = gt_hash_mix(h, t->namespaces[i]);
	h = gt_hash_mix(h, t->has_ns_selector);
	if (t->has_ns_selector)
		h = selector_sig(h, &t->ns_selector);
	return selector_sig(h, &t->selector);
}

/* KAI's pod signature: where the pod may go, not what it asks for. */
uint64_t gt_pod_signature(const struct gt_cluster *c, int32_t pod)
{
	const struct gt_pod *p = &c->pods[pod];
	if (p->signature)
		return p->signature;
	uint64_t h = gt_hash_mix(0x51C7A7E5ULL, p->node_selector.n);
	for (uint32_t i = 0; i < p->node_selector.n; i++)
		h = gt_hash_mix(gt_hash_mix(h, p->node_selector.v[i].key), p->node_selector.v[i].val);
	h = gt_hash_mix(h, p->n_affinity_terms);
	for (uint32_t i = 0; i < p->n_affinity_terms; i++)
		h = selector_sig(h, &p->affinity_terms[i]);
	h = gt_hash_mix(h, p->n_pod_affinity);
	for (uint32_t i = 0; i < p->n_pod_affinity; i++)
		h = affinity_sig(h, &p->pod_affinity[i]);
	h = gt_hash_mix(h, p->n_preferred_affinity);
	for (uint32_t i = 0; i < p->n_preferred_affinity; i++)
		h = affinity_sig(h, &p->preferred_affinity[i]);
	h = gt_hash_mix(h, p->n_host_ports);
	for (uint32_t i = 0; i < p->n_host_ports; i++)
		h = gt_hash_mix(gt_hash_mix(gt_hash_mix(h, p->host_ports[i].host_ip), p->host_ports[i].protocol),
				(uint64_t)p->host_ports[i].port);
	/* the ConfigMaps it needs, in its namespace */
	h = gt_hash_mix(h, p->n_configmaps);
	for (uint32_t i = 0; i < p->n_configmaps; i++)
		h = gt_hash_mix(gt_hash_mix(h, p->ns), p->configmaps[i]);
	h = gt_hash_mix(h, p->n_tolerations);
	for (uint32_t i = 0; i < p->n_tolerations; i++) {
		const struct gt_toleration *t = &p->tolerations[i];
		h = gt_hash_mix(gt_hash_mix(gt_hash_mix(gt_hash_mix(h, (uint64_t)t->key), t->val), t->exists), (uint64_t)t->effect);
	}
	h = gt_hash_mix(h, (uint64_t)(int64_t)(p->job >= 0 ? c->jobs[p->job].priority : 0));
	/* its claims: each is its own (a volume one pod takes, another cannot) */
	h = gt_hash_mix(h, p->n_pvcs);
	for (uint32_t i = 0; i < p->n_pvcs; i++)
		h = gt_hash_mix(h, (uint64_t)(int64_t)p->pvcs[i]);
	h = gt_hash_mix(h, p->claim_problem);
	h = gt_hash_mix(h, p->dra ? 1 + (uint64_t)pod : 0);	/* its own claims: like no other pod */
	return gt_hash_mix(h, p->claim_missing ? 1 + (uint64_t)p->missing_claim : 0);
}

static uint64_t topo_sig(uint64_t h, const struct gt_topology_constraint *t)
{
	return gt_hash_mix(gt_hash_mix(gt_hash_mix(h, (uint64_t)(int64_t)t->topology), (uint64_t)(int64_t)t->required_level),
		   (uint64_t)(int64_t)t->preferred_level);
}

static uint64_t job_signature(const struct gt_session *s, int32_t job);

/* Cached per job: it depends on which of its pods are active, and on nothing that changes. */
uint64_t gt_job_signature(const struct gt_session *s, int32_t job)
{
	struct gt_job_memo *m = &s->job_memo[job];
	if (!gt_job_memo_valid(s, job, m->sig_stamp)) {
		m->sig = job_signature(s, job);
		m->sig_stamp = s->job_stamp[job] + 1;
	}
	return m->sig;
}

static uint64_t job_signature(const struct gt_session *s, int32_t job)
{
	const struct gt_cluster *c = s->c;
	const struct gt_job *j = &c->jobs[job];
	uint64_t sets = gt_hash_mix(0x70B5E7ULL, j->n_podsets);
	/* each podset: its topology chain and its inactive pods as a multiset (a sum of mixes) */
	for (uint32_t ps = 0; ps < j->n_podsets || (ps == 0 && j->n_podsets == 0); ps++) {
		uint64_t pods = 0;
		bool any = false;
		for (uint32_t i = 0; i < j->n_pods; i++) {
			int32_t p = j->pods[i];
			if ((j->n_podsets && c->pods[p].podset != (int32_t)ps) ||
			    gt_status_active_allocated(s->pods[p].status))
				continue;
			any = true;
			pods += gt_hash_mix(0xA11CEULL, gt_pod_signature(c, p));
		}
		if (!any) {
			sets += gt_hash_mix(0xE4A7ULL, 0);	/* KAI's empty signature: all its pods are active */
			continue;
		}
		uint64_t h = 0x5E7ULL;
		if (j->n_podsets) {
			const struct gt_podset *set = &j->podsets[ps];
			h = topo_sig(h, &set->topo);
			for (int32_t g = set->group; g != GT_NONE; g = j->groups[g].parent)
				h = topo_sig(gt_hash_mix(h, '|'), &j->groups[g].topo);
		}
		h = topo_sig(gt_hash_mix(h, '|'), &j->topo);
		sets += gt_hash_mix(0xE4A7ULL, gt_hash_mix(h, pods));
	}
	return sets;
}

/* ---------------------------------------------------------------- failed jobs */

struct gt_failed_slot {
	bool used;
	int32_t queue;
	uint64_t sig;
	int32_t job;
};

void gt_failed_jobs_init(struct gt_failed_jobs *f, struct gt_arena *a, uint32_t max_jobs)
{
	uint32_t cap = 16;
	while (cap < 2 * (uint64_t)max_jobs)
		cap *= 2;
	f->slots = gt_arena_calloc(a, cap, sizeof(*f->slots));
	f->mask = cap - 1;
	f->n = 0;
}

static struct gt_failed_slot *slot(const struct gt_failed_jobs *f, int32_t queue, uint64_t sig)
{
	uint32_t i = (uint32_t)gt_hash_mix(sig, (uint64_t)(int64_t)queue) & f->mask;
	while (f->slots[i].used && (f->slots[i].sig != sig || f->slots[i].queue != queue))
		i = (i + 1) & f->mask;
	return &f->slots[i];
}

/* A pending pod's request, KAI's ResReqVector. */
#define NVEC (4 + GT_MAX_EXT)
struct req_vec {
	int64_t v[NVEC];
};

static bool vec_le(const struct req_vec *a, const struct req_vec *b)
{
	for (int i = 0; i < NVEC; i++)
		if (a->v[i] > b->v[i])
			return false;
	return true;
}

/*
 * KAI sorts by LessEqual, a partial order; lexicographic order extends it
 * (a <= b everywhere puts a first), so comparable requests sort the same.
 */
static int vec_cmp(const void *pa, const void *pb)
{
	const struct req_vec *a = pa, *b = pb;
	for (int i = 0; i < NVEC; i++)
		if (a->v[i] != b->v[i])
			return a->v[i] < b->v[i] ? -1 : 1;
	return 0;
}

/* The job's Pending pods' requests, sorted; returns how many. Cached per job (order.h's memo). */
static uint32_t pending_reqs(const struct gt_session *s, int32_t job, struct req_vec **out)
{
	const struct gt_cluster *c = s->c;
	const struct gt_job *j = &c->jobs[job];
	struct gt_job_memo *m = &s->job_memo[job];
	*out = m->reqs;
	if (gt_job_memo_valid(s, job, m->reqs_stamp))
		return m->n_reqs;
	if (!m->reqs) {
		struct gt_session *ms = (struct gt_session *)s;	/* the cache's memory only */
		m->reqs = gt_arena_alloc(&ms->arena, (j->n_pods + 1) * sizeof(struct req_vec));
	}
	struct req_vec *v = m->reqs;
	uint32_t n = 0;
	for (uint32_t i = 0; i < j->n_pods; i++) {
		int32_t p = j->pods[i];
		if (s->pods[p].status != GT_PENDING)
			continue;
		const struct gt_pod *pod = &c->pods[p];
		struct req_vec *r = &v[n++];
		r->v[0] = gt_pod_requested_gpu_milli(c, p);
		r->v[1] = pod->gpu_mem_mib * (pod->gpu_mem_mib ? pod->num_devices : 0);
		r->v[2] = pod->cpu_milli;
		r->v[3] = pod->mem_bytes;
		for (int e = 0; e < GT_MAX_EXT; e++)
			r->v[4 + e] = pod->ext[e];
	}
	qsort(v, n, sizeof(*v), vec_cmp);
	*out = v;
	m->n_reqs = n;
	m->reqs_stamp = s->job_stamp[job] + 1;
	return n;
}

/* KAI's jobEasierToScheduleComparison(job1, job2). */
static bool easier(struct gt_session *s, int32_t job1, int32_t job2)
{
	struct req_vec *v1, *v2;
	uint32_t n1 = pending_reqs(s, job1, &v1), n2 = pending_reqs(s, job2, &v2);
	bool r = false;
	if (n1 == 0 || n2 == 0)
		goto out;
	if (n2 > n1) {
		r = true;	/* the failed job has more pods: this one may fit */
		goto out;
	}
	for (uint32_t i = 0; i < n1; i++) {
		if (i >= n2)
			break;	/* as large as the failed job for each of its pods, and more */
		if (vec_le(&v1[i], &v2[i])) {
			if (vec_le(&v2[i], &v1[i]))
				continue;
			r = true;
			break;
		}
	}
out:
	return r;
}

/* KAI's isPodGroupFootprintSmaller(job1, job2). */
static bool smaller(struct gt_session *s, int32_t job1, int32_t job2)
{
	struct req_vec *v1, *v2;
	uint32_t n1 = pending_reqs(s, job1, &v1), n2 = pending_reqs(s, job2, &v2);
	bool r = n1 > 0 && n2 > 0 && n1 <= n2;
	for (uint32_t i = 0; r && i < n1; i++)
		r = vec_le(&v1[i], &v2[i]);
	return r;
}

bool gt_failed_jobs_easier(const struct gt_failed_jobs *f, struct gt_session *s,
			   int32_t queue, uint64_t sig, int32_t job)
{
	const struct gt_failed_slot *sl = slot(f, queue, sig);
	return !sl->used || easier(s, job, sl->job);
}

void gt_failed_jobs_update(struct gt_failed_jobs *f, struct gt_session *s,
			   int32_t queue, uint64_t sig, int32_t job)
{
	struct gt_failed_slot *sl = slot(f, queue, sig);
	if (sl->used) {
		if (smaller(s, job, sl->job))
			sl->job = job;
		return;
	}
	if (2 * (f->n + 1) > f->mask + 1)
		return;	/* full (more failures than the action may try): forget it */
	*sl = (struct gt_failed_slot){ .used = true, .queue = queue, .sig = sig, .job = job };
	f->n++;
}
