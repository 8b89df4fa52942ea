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
	for (uint32_t r = 0; k->requests && r < k->n_requests; r++) {
		free(k->requests[r].nodes);
		for (uint32_t a = 0; a < k->requests[r].n_alts; a++)
			free(k->requests[r].alts[a].devices);
		free(k->requests[r].alts);
	}
	for (uint32_t i = 0; k->constraints && i < k->n_constraints; i++)
		free(k->constraints[i].requests);
	free(k->constraints);
	free(k->requests);
	free(k->alloc_devices);
	free(k->alloc_requests);
	free(k->alloc_alts);
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
	for (uint32_t i = 0; i < d->n_devices; i++)
		free(d->devices[i].attrs);
	for (uint32_t i = 0; i < d->n_reaches; i++)
		free(d->reaches[i].nodes);
	free(d->reaches);
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

/* ---------------------------------------------------------------- the device search */

/*
 * Devices for a list of claims, each on its node, as kube-scheduler's structured allocator
 * finds them: claim after claim, request after request, each device the first candidate (in
 * slice order) that is free and keeps the claim's constraints, backtracking when a later one
 * cannot be had; a firstAvailable request tries its subrequests in order. Two choices differ
 * here: the devices of one request are tried in increasing candidate order only (the same
 * sets, without their permutations), and the search gives up after GT_DRA_SEARCH_STEPS
 * candidates tried.
 */
struct pick {
	int32_t dev;
	uint32_t req, alt;
};

struct cstate {
	uint32_t value;			/* the attribute's value (interned), once a device is in */
	uint32_t n;			/* devices in the set */
};

struct search {
	const struct gt_dra *d;
	const int32_t *claims, *nodes;	/* what to allocate, and where */
	uint32_t n;
	uint8_t *busy;			/* per device: taken by another claim or this search */
	struct pick *picks;		/* the choices so far, claim after claim */
	uint32_t n_picks;
	uint32_t *start;		/* per claim (n + 1): where its picks start */
	struct cstate *cs;		/* per claim's constraints, from cs_off */
	uint32_t *cs_off;
	long steps;
	bool gave_up;
};

static bool usable_from(const struct gt_dra *d, int32_t dev, int32_t node)
{
	return gt_dra_usable_from(d, dev, node);
}

bool gt_dra_claim_usable_from(const struct gt_dra *d, const struct gt_dra_claim *k, int32_t node)
{
	for (uint32_t i = 0; i < k->n_alloc; i++)
		if (k->alloc_devices[i] >= 0 && !gt_dra_usable_from(d, k->alloc_devices[i], node))
			return false;
	return true;
}

static uint32_t device_attr(const struct gt_dra_device *dv, uint32_t name)
{
	for (uint32_t i = 0; i < dv->n_attrs; i++)
		if (dv->attrs[2 * i] == name)
			return dv->attrs[2 * i + 1];
	return 0;
}

static bool constraint_binds(const struct gt_dra_constraint *k, const struct gt_dra_request *rq,
			     const struct gt_dra_alt *al)
{
	if (!k->n_requests)
		return true;
	for (uint32_t i = 0; i < k->n_requests; i++)
		if (k->requests[i] == rq->name || k->requests[i] == al->full_name)
			return true;
	return false;
}

/* Take @dev for request @r (alt @a) of claim @ci if it is free and keeps the constraints. */
static bool take(struct search *s, uint32_t ci, uint32_t r, uint32_t a, int32_t dev)
{
	const struct gt_dra_claim *k = &s->d->claims[s->claims[ci]];
	const struct gt_dra_request *rq = &k->requests[r];
	const struct gt_dra_alt *al = &rq->alts[a];
	if (s->n_picks - s->start[ci] >= GT_DRA_MAX_RESULTS)
		return false;
	if (!al->admin && s->busy[dev])
		return false;
	for (uint32_t i = s->start[ci]; i < s->n_picks; i++)	/* one device serves one request of a claim */
		if (s->picks[i].dev == dev)
			return false;
	struct cstate *cs = &s->cs[s->cs_off[ci]];
	uint32_t done = 0;
	for (; done < k->n_constraints; done++) {
		const struct gt_dra_constraint *kc = &k->constraints[done];
		if (!constraint_binds(kc, rq, al))
			continue;
		uint32_t v = device_attr(&s->d->devices[dev], kc->attribute);
		if (!v || (cs[done].n && cs[done].value != v))
			break;
		cs[done].value = v;
		cs[done].n++;
	}
	if (done < k->n_constraints) {	/* undo the constraints it was added to */
		for (uint32_t j = 0; j < done; j++)
			if (constraint_binds(&k->constraints[j], rq, al))
				cs[j].n--;
		return false;
	}
	if (!al->admin)
		s->busy[dev] = 1;
	s->picks[s->n_picks++] = (struct pick){ .dev = dev, .req = r, .alt = a };
	return true;
}

static void untake(struct search *s, uint32_t ci)
{
	const struct gt_dra_claim *k = &s->d->claims[s->claims[ci]];
	struct pick p = s->picks[--s->n_picks];
	const struct gt_dra_request *rq = &k->requests[p.req];
	const struct gt_dra_alt *al = &rq->alts[p.alt];
	if (!al->admin)
		s->busy[p.dev] = 0;
	struct cstate *cs = &s->cs[s->cs_off[ci]];
	for (uint32_t j = 0; j < k->n_constraints; j++)
		if (constraint_binds(&k->constraints[j], rq, al))
			cs[j].n--;
}

static bool place(struct search *s, uint32_t ci, uint32_t r, int32_t a, int64_t got, uint32_t from);

/* allocationMode All: every candidate the node can use, each free; at least one. */
static bool place_all(struct search *s, uint32_t ci, uint32_t r, uint32_t a)
{
	const struct gt_dra_alt *al = &s->d->claims[s->claims[ci]].requests[r].alts[a];
	uint32_t took = 0;
	bool ok = true;
	for (uint32_t j = 0; j < al->n_devices && ok; j++) {
		if (!usable_from(s->d, al->devices[j], s->nodes[ci]))
			continue;
		if (++s->steps > GT_DRA_SEARCH_STEPS) {
			s->gave_up = true;
			ok = false;
		} else if ((ok = take(s, ci, r, a, al->devices[j]))) {
			took++;
		}
	}
	if (ok && took && place(s, ci, r + 1, -1, 0, 0))
		return true;
	while (took--)
		untake(s, ci);
	return false;
}

static bool place(struct search *s, uint32_t ci, uint32_t r, int32_t a, int64_t got, uint32_t from)
{
	if (ci == s->n)
		return true;
	const struct gt_dra_claim *k = &s->d->claims[s->claims[ci]];
	if (r == k->n_requests) {
		s->start[ci + 1] = s->n_picks;
		return place(s, ci + 1, 0, -1, 0, 0);
	}
	const struct gt_dra_request *rq = &k->requests[r];
	if (a < 0) {	/* the request's alternatives in order: the first that works wins */
		for (uint32_t alt = 0; alt < rq->n_alts && !s->gave_up; alt++)
			if (place(s, ci, r, (int32_t)alt, 0, 0))
				return true;
		return false;
	}
	const struct gt_dra_alt *al = &rq->alts[a];
	if (al->cls == GT_NONE)
		return false;
	if (al->all)
		return place_all(s, ci, r, (uint32_t)a);
	if (got == al->count)
		return place(s, ci, r + 1, -1, 0, 0);
	for (uint32_t j = from; j < al->n_devices && !s->gave_up; j++) {
		int32_t dev = al->devices[j];
		if (!usable_from(s->d, dev, s->nodes[ci]))
			continue;
		if (++s->steps > GT_DRA_SEARCH_STEPS) {
			s->gave_up = true;
			break;
		}
		if (!take(s, ci, r, (uint32_t)a, dev))
			continue;
		if (place(s, ci, r, a, got + 1, j + 1))
			return true;
		untake(s, ci);
	}
	return false;
}

/*
 * Search devices for claims[0..n) on nodes[0..n), none of them @busy (non-admin choices are
 * marked there on success). On success, the picks of claim i are picks[start[i]..start[i+1]).
 */
static bool search_run(struct search *s, const struct gt_dra *d, const int32_t *claims, const int32_t *nodes,
		       uint32_t n, uint8_t *busy)
{
	uint32_t n_cs = 0;
	*s = (struct search){ .d = d, .claims = claims, .nodes = nodes, .n = n, .busy = busy };
	s->start = gt_xcalloc(n + 1, sizeof(*s->start));
	s->cs_off = gt_xcalloc(n + 1, sizeof(*s->cs_off));
	for (uint32_t i = 0; i < n; i++) {
		s->cs_off[i] = n_cs;
		n_cs += d->claims[claims[i]].n_constraints;
	}
	s->cs = gt_xcalloc(n_cs + 1, sizeof(*s->cs));
	s->picks = gt_xmalloc(((size_t)n * GT_DRA_MAX_RESULTS + 1) * sizeof(*s->picks));
	return place(s, 0, 0, -1, 0, 0);
}

static void search_free(struct search *s)
{
	free(s->start);
	free(s->cs_off);
	free(s->cs);
	free(s->picks);
}

/* Is device @dev held in the session: allocated to a claim whose carrier keeps it (or none does)? */
static void mark_held(const struct gt_session *s, uint8_t *busy)
{
	const struct gt_dra *d = &s->c->dra;
	for (uint32_t i = 0; i < d->n_claims; i++) {
		const struct gt_dra_claim *k = &d->claims[i];
		if (!k->allocated)
			continue;
		if (k->carrier != GT_NONE && !(holds_node(s, k->carrier) &&
					       gt_status_active_allocated(s->pods[k->carrier].status)))
			continue;	/* its carrier is leaving or gone: the counts free its devices too */
		for (uint32_t j = 0; j < k->n_alloc; j++) {
			int32_t dev = k->alloc_devices[j];
			const struct gt_dra_request *rq = &k->requests[k->alloc_requests[j]];
			bool admin = rq->n_alts ? rq->alts[k->alloc_alts ? k->alloc_alts[j] : 0].admin : rq->admin;
			if (dev >= 0 && !admin)
				busy[dev] = 1;
		}
	}
}

/*
 * The device-level check on @node: every claim the session allocates there (carried by a
 * pod that holds it) and @pod's claims it would allocate, searched together.
 */
static bool devices_fit(const struct gt_session *s, int32_t pod, int32_t node, char *why, size_t cap)
{
	const struct gt_cluster *c = s->c;
	const struct gt_dra *d = &c->dra;
	const struct gt_dra_use *u = &d->uses[pod];
	int32_t *claims = gt_xmalloc((d->n_claims + 1) * sizeof(*claims));
	int32_t *nodes = gt_xmalloc((d->n_claims + 1) * sizeof(*nodes));
	uint32_t n = 0;
	bool searched = false;
	for (uint32_t i = 0; i < d->n_claims; i++) {	/* also those elsewhere that may want the same devices */
		const struct gt_dra_claim *k = &d->claims[i];
		if (k->allocated || k->carrier == GT_NONE || k->carrier == pod)
			continue;
		int32_t cp = k->carrier;
		if (holds_node(s, cp) && (s->pods[cp].node == node || k->network) &&
		    gt_status_active_allocated(s->pods[cp].status)) {
			nodes[n] = s->pods[cp].node;
			claims[n++] = (int32_t)i;
			searched |= k->searched;
		}
	}
	uint32_t mine = n;
	for (uint32_t i = 0; i < u->n_claims; i++) {
		const struct gt_dra_claim *k = &d->claims[u->claims[i]];
		if (k->allocated || k->carrier != pod)
			continue;
		bool again = false;
		for (uint32_t j = mine; j < n; j++)
			again |= claims[j] == u->claims[i];
		if (!again) {
			nodes[n] = node;
			claims[n++] = u->claims[i];
			searched |= k->searched;
		}
	}
	bool ok = true;
	if (searched && n > mine) {
		uint8_t *busy = gt_xcalloc(d->n_devices + 1, 1);
		mark_held(s, busy);
		struct search sr;
		ok = search_run(&sr, d, claims, nodes, n, busy);
		if (!ok && why && cap)
			snprintf(why, cap, "%s", sr.gave_up ? "the device search gave up after " GT_STR(GT_DRA_SEARCH_STEPS)
				 " candidates" : "no devices of the node satisfy the pod's resource claims");
		search_free(&sr);
		free(busy);
	}
	free(nodes);
	free(claims);
	return ok;
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
		if (k->allocated && where == GT_NONE && !gt_dra_claim_usable_from(d, k, node))
			return say(why, cap, "resource claim %s is allocated devices node %s cannot reach", kname,
				   gt_strtab_str(c->names, c->nodes[node].name));
		for (uint32_t r = 0; where == GT_NONE && r < k->n_requests; r++)
			if (k->requests[r].node_limited && !node_listed(&k->requests[r], node))
				return say(why, cap, "the selectors of resource claim %s keep no device of node %s", kname,
					   gt_strtab_str(c->names, c->nodes[node].name));
		if (where == GT_NONE && k->carrier != pod && k->carrier != GT_NONE)
			return say(why, cap, "resource claim %s is allocated with its first consumer %s", kname,
				   gt_strtab_str(c->names, c->pods[k->carrier].name));
	}
	return !d->search || devices_fit(s, pod, node, why, cap);
}

const char *gt_dra_result_name(const struct gt_cluster *c, const struct gt_dra_claim *k, uint32_t request,
			       uint32_t alt, char *buf, size_t cap)
{
	const struct gt_dra_request *rq = &k->requests[request];
	if (!rq->first_available || alt >= rq->n_alts)
		return gt_strtab_str(c->names, rq->name);
	snprintf(buf, cap, "%s", gt_strtab_str(c->names, rq->alts[alt].full_name));
	return buf;
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

/* Keep the search's picks of its claim @ci in plan entry @e. */
static void keep_picks(const struct search *sr, uint32_t ci, struct gt_plan_claim *e)
{
	uint32_t a = sr->start[ci], b = sr->start[ci + 1], n = b - a;
	e->devices = gt_xmalloc((n + 1) * sizeof(*e->devices));
	e->requests = gt_xmalloc((n + 1) * sizeof(*e->requests));
	e->alts = gt_xmalloc((n + 1) * sizeof(*e->alts));
	for (uint32_t i = 0; i < n; i++) {
		e->devices[i] = sr->picks[a + i].dev;
		e->requests[i] = sr->picks[a + i].req;
		e->alts[i] = sr->picks[a + i].alt;
	}
	e->n_devices = n;
}

/*
 * The devices of the claims the plan allocates, node by node (in the order of their first
 * bind; all at once when network-attached devices tie nodes together): the node's claims
 * searched together, so a searched claim the session fitted next to the others fits here too;
 * when they cannot all be had, one after the other, and a claim that cannot be had gets no
 * device and short_of_devices.
 */
static void pick_devices(const struct gt_cluster *c, struct gt_plan_claim *v, uint32_t n, uint8_t *taken)
{
	const struct gt_dra *d = &c->dra;
	bool *done = gt_xcalloc(n + 1, sizeof(*done));
	int32_t *claims = gt_xmalloc((n + 1) * sizeof(*claims)), *nodes = gt_xmalloc((n + 1) * sizeof(*nodes));
	uint32_t *which = gt_xmalloc((n + 1) * sizeof(*which));
	bool network = false;	/* network-attached devices tie the nodes: one search for all */
	for (uint32_t i = 0; i < n; i++)
		network |= v[i].allocate && d->claims[v[i].claim].network;
	for (uint32_t i = 0; i < n; i++) {
		if (done[i] || !v[i].allocate)
			continue;
		uint32_t m = 0;
		for (uint32_t j = i; j < n; j++)
			if (!done[j] && v[j].allocate && (network || v[j].node == v[i].node)) {
				done[j] = true;
				which[m] = j;
				claims[m] = v[j].claim;
				nodes[m++] = v[j].node;
			}
		struct search sr;
		bool ok = search_run(&sr, d, claims, nodes, m, taken);
		for (uint32_t j = 0; ok && j < m; j++)
			keep_picks(&sr, j, &v[which[j]]);
		search_free(&sr);
		for (uint32_t j = 0; !ok && j < m; j++) {
			if (search_run(&sr, d, &claims[j], &nodes[j], 1, taken))
				keep_picks(&sr, 0, &v[which[j]]);
			else
				v[which[j]].short_of_devices = true;
			search_free(&sr);
		}
	}
	free(done);
	free(claims);
	free(nodes);
	free(which);
}

struct gt_plan_claim *gt_dra_plan_claims(const struct gt_cluster *c, const struct gt_plan *p, uint32_t *n_out)
{
	const struct gt_dra *d = &c->dra;
	struct gt_plan_claim *v = NULL;
	uint32_t n = 0, cap = 0;
	*n_out = 0;
	if (!d->uses)
		return NULL;
	uint8_t *taken = gt_xcalloc(d->n_devices + 1, sizeof(*taken));
	for (uint32_t i = 0; i < d->n_claims; i++) {
		const struct gt_dra_claim *k = &d->claims[i];
		for (uint32_t j = 0; j < k->n_alloc; j++) {
			const struct gt_dra_request *rq = &k->requests[k->alloc_requests[j]];
			bool admin = rq->n_alts ? rq->alts[k->alloc_alts ? k->alloc_alts[j] : 0].admin : rq->admin;
			if (k->alloc_devices[j] >= 0 && !admin)
				taken[k->alloc_devices[j]] = 1;
		}
	}
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
		}
	}
	pick_devices(c, v, n, taken);
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
			free(k->alloc_alts);
			k->alloc_devices = gt_xmalloc((e->n_devices + 1) * sizeof(*k->alloc_devices));
			k->alloc_requests = gt_xmalloc((e->n_devices + 1) * sizeof(*k->alloc_requests));
			k->alloc_alts = gt_xmalloc((e->n_devices + 1) * sizeof(*k->alloc_alts));
			memcpy(k->alloc_devices, e->devices, e->n_devices * sizeof(*e->devices));
			memcpy(k->alloc_requests, e->requests, e->n_devices * sizeof(*e->requests));
			memcpy(k->alloc_alts, e->alts, e->n_devices * sizeof(*e->alts));
			k->n_alloc = e->n_devices;
			k->allocated = true;
			k->node = e->node;	/* (network-attached devices only: kept to its first node) */
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
		free(v[i].alts);
		free(v[i].pods);
	}
	free(v);
}
