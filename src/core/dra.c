/*
 * dra.c - DRA claims in a session: where a pod's claims let it go, and which devices a bind
 * allocates (core/dra.h)
 */
#include "core/dra.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "core/session.h"
#include "util/mem.h"

void gt_dra_claim_release(struct gt_dra_claim *k)
{
	for (uint32_t r = 0; k->requests && r < k->n_requests; r++)
		free(k->requests[r].nodes);
	free(k->requests);
	free(k->alloc_devices);
	free(k->alloc_requests);
	free(k->reserved_names);
	free(k->consumers);
}

void gt_dra_release(struct gt_dra *d)
{
	for (uint32_t i = 0; i < d->n_classes; i++)
		free(d->classes[i].devices);
	for (uint32_t i = 0; i < d->n_claims; i++)
		gt_dra_claim_release(&d->claims[i]);
	for (uint32_t i = 0; i < d->n_uses; i++)
		free(d->uses[i].claims);
	free(d->devices);
	free(d->classes);
	free(d->claims);
	free(d->uses);
	memset(d, 0, sizeof(*d));
}

bool gt_dra_reserved(const struct gt_dra_claim *k, uint32_t name)
{
	for (uint32_t i = 0; i < k->n_reserved; i++)
		if (k->reserved_names[i] == name)
			return true;
	return false;
}

/* Does pod @c hold a node in the session (placed, pipelined or leaving)? */
static bool holds_node(const struct gt_session *s, int32_t c)
{
	return s->pods[c].node >= 0 && gt_status_active_used(s->pods[c].status);
}

static bool node_listed(const struct gt_dra_request *rq, int32_t node)
{
	uint32_t lo = 0, hi = rq->n_nodes;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (rq->nodes[mid] < node)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rq->n_nodes && rq->nodes[lo] == node;
}

static bool say(char *why, size_t cap, const char *fmt, const char *a, const char *b)
{
	if (why && cap)
		snprintf(why, cap, fmt, a, b);
	return false;
}

bool gt_dra_check(const struct gt_session *s, int32_t pod, int32_t node, char *why, size_t cap)
{
	const struct gt_cluster *c = s->c;
	const struct gt_dra *d = &c->dra;
	if (!gt_dra_pod_uses(d, pod))
		return true;
	const struct gt_dra_use *u = &d->uses[pod];
	if (u->problem)
		return say(why, cap, "%s%s", u->problem, "");
	const struct gt_pod *p = &c->pods[pod];
	for (uint32_t i = 0; i < u->n_claims; i++) {
		const struct gt_dra_claim *k = &d->claims[u->claims[i]];
		const char *kname = gt_strtab_str(c->names, k->name);
		int32_t where = k->allocated ? k->node : GT_NONE;
		uint32_t reserved = k->n_reserved;
		bool mine = gt_dra_reserved(k, p->name);
		for (uint32_t j = 0; j < k->n_consumers; j++) {
			int32_t other = k->consumers[j];
			if (other == pod || !holds_node(s, other))
				continue;
			if (where == GT_NONE)
				where = s->pods[other].node;
			if (gt_status_active_allocated(s->pods[other].status) &&
			    !gt_dra_reserved(k, c->pods[other].name))
				reserved++;	/* KAI reserves the claim for each pod it places */
		}
		if (!mine && reserved >= GT_DRA_MAX_CONSUMERS)
			return say(why, cap, "resource claim %s has reached its maximum number of consumers "
				   "(" GT_STR(GT_DRA_MAX_CONSUMERS) ")%s", kname, "");
		if (where != GT_NONE && where != node)
			return say(why, cap, "resource claim %s is allocated on node %s", kname,
				   gt_strtab_str(c->names, c->nodes[where].name));
		for (uint32_t r = 0; where == GT_NONE && r < k->n_requests; r++)
			if (k->requests[r].node_limited && !node_listed(&k->requests[r], node))
				return say(why, cap, "the selectors of resource claim %s keep no device of node %s", kname,
					   gt_strtab_str(c->names, c->nodes[node].name));
		if (where == GT_NONE && k->carrier != pod && k->carrier != GT_NONE)
			return say(why, cap, "resource claim %s is allocated with its first consumer %s", kname,
				   gt_strtab_str(c->names, c->pods[k->carrier].name));
	}
	return true;
}

void gt_dra_blocked_message(const struct gt_cluster *c, int32_t pod, char *msg, size_t cap)
{
	const char *ns = gt_strtab_str(c->names, c->pods[pod].ns), *name = gt_strtab_str(c->names, c->pods[pod].name);
	snprintf(msg, cap, "Resources were not found for pod %s/%s due to: pod %s/%s cannot be scheduled: %s", ns, name,
		 ns, name, gt_dra_problem(&c->dra, pod));
}

/* ---------------------------------------------------------------- the plan's claims */

static struct gt_plan_claim *claim_entry(struct gt_plan_claim **v, uint32_t *n, uint32_t *cap, int32_t claim)
{
	for (uint32_t i = 0; i < *n; i++)
		if ((*v)[i].claim == claim)
			return &(*v)[i];
	struct gt_plan_claim e = { .claim = claim, .node = GT_NONE };
	GT_PUSH(*v, *n, *cap, e);
	return &(*v)[*n - 1];
}

/* Pick the claim's devices on @node among those not @taken (marking them). */
static void pick_devices(const struct gt_cluster *c, const struct gt_dra_claim *k, int32_t node, bool *taken,
			 struct gt_plan_claim *e)
{
	const struct gt_dra *d = &c->dra;
	uint32_t want = 0;
	for (uint32_t r = 0; r < k->n_requests; r++)
		want += (uint32_t)k->requests[r].count;
	e->devices = gt_xmalloc((want + 1) * sizeof(*e->devices));
	e->requests = gt_xmalloc((want + 1) * sizeof(*e->requests));
	e->n_devices = 0;
	for (uint32_t r = 0; r < k->n_requests; r++) {
		const struct gt_dra_request *rq = &k->requests[r];
		if (rq->cls == GT_NONE)
			continue;
		const struct gt_dra_class *cl = &d->classes[rq->cls];
		int64_t got = 0;
		for (uint32_t i = 0; i < cl->n_devices && got < rq->count; i++) {
			int32_t dev = cl->devices[i];
			if (d->devices[dev].node != node || (!rq->admin && taken[dev]) ||
			    (rq->node_limited && !node_listed(rq, node)))
				continue;
			bool again = false;	/* one device serves one request of a claim */
			for (uint32_t j = 0; j < e->n_devices; j++)
				again |= e->devices[j] == dev;
			if (again)
				continue;
			if (!rq->admin)
				taken[dev] = true;
			e->devices[e->n_devices] = dev;
			e->requests[e->n_devices++] = r;
			got++;
		}
		if (got < rq->count)
			e->short_of_devices = true;
	}
}

struct gt_plan_claim *gt_dra_plan_claims(const struct gt_cluster *c, const struct gt_plan *p, uint32_t *n_out)
{
	const struct gt_dra *d = &c->dra;
	struct gt_plan_claim *v = NULL;
	uint32_t n = 0, cap = 0;
	*n_out = 0;
	if (!d->uses)
		return NULL;
	bool *taken = gt_xcalloc(d->n_devices + 1, sizeof(*taken));
	for (uint32_t i = 0; i < d->n_claims; i++)
		for (uint32_t j = 0; j < d->claims[i].n_alloc; j++)
			if (d->claims[i].alloc_devices[j] >= 0 && !d->claims[i].requests[d->claims[i].alloc_requests[j]].admin)
				taken[d->claims[i].alloc_devices[j]] = true;
	for (uint32_t b = 0; b < p->n_binds; b++) {
		int32_t pod = p->binds[b].pod;
		if (!gt_dra_pod_uses(d, pod))
			continue;
		const struct gt_dra_use *u = &d->uses[pod];
		for (uint32_t i = 0; i < u->n_claims; i++) {
			const struct gt_dra_claim *k = &d->claims[u->claims[i]];
			struct gt_plan_claim *e = claim_entry(&v, &n, &cap, u->claims[i]);
			if (!gt_dra_reserved(k, c->pods[pod].name))
				GT_PUSH(e->pods, e->n_pods, e->cap_pods, pod);
			if (e->node != GT_NONE)
				continue;
			e->node = k->allocated ? k->node : p->binds[b].node;
			e->allocate = !k->allocated;
			if (e->allocate)
				pick_devices(c, k, e->node, taken, e);
		}
	}
	free(taken);
	*n_out = n;
	return v;
}

void gt_dra_advance(struct gt_cluster *c, const struct gt_plan *p)
{
	struct gt_dra *d = &c->dra;
	for (uint32_t i = 0; i < p->n_claims; i++) {
		const struct gt_plan_claim *e = &p->claims[i];
		struct gt_dra_claim *k = &d->claims[e->claim];
		if (e->allocate && !e->short_of_devices) {
			free(k->alloc_devices);
			free(k->alloc_requests);
			k->alloc_devices = gt_xmalloc((e->n_devices + 1) * sizeof(*k->alloc_devices));
			k->alloc_requests = gt_xmalloc((e->n_devices + 1) * sizeof(*k->alloc_requests));
			memcpy(k->alloc_devices, e->devices, e->n_devices * sizeof(*e->devices));
			memcpy(k->alloc_requests, e->requests, e->n_devices * sizeof(*e->requests));
			k->n_alloc = e->n_devices;
			k->allocated = true;
			k->node = e->node;
		}
		k->reserved_names = gt_xrealloc(k->reserved_names, (k->n_reserved + e->n_pods + 1) * sizeof(uint32_t));
		for (uint32_t j = 0; j < e->n_pods; j++)
			if (!gt_dra_reserved(k, c->pods[e->pods[j]].name))
				k->reserved_names[k->n_reserved++] = c->pods[e->pods[j]].name;
	}
	for (uint32_t i = 0; i < d->n_claims; i++) {
		struct gt_dra_claim *k = &d->claims[i];
		bool held = !k->n_consumers;
		for (uint32_t j = 0; j < k->n_consumers && !held; j++) {
			const struct gt_pod *pod = &c->pods[k->consumers[j]];
			held = pod->node != GT_NONE && gt_status_active_used(pod->status);
		}
		if (!k->allocated || held || k->carrier == GT_NONE)
			continue;	/* (without a carrier its devices are off the node's count for good) */
		k->allocated = false;
		k->node = GT_NONE;
		k->n_alloc = 0;
		k->n_reserved = 0;
	}
}

void gt_dra_plan_claims_free(struct gt_plan_claim *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		free(v[i].devices);
		free(v[i].requests);
		free(v[i].pods);
	}
	free(v);
}
