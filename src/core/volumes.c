#include "core/volumes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

void gt_cluster_release_storage(struct gt_cluster *c)
{
	for (uint32_t i = 0; i < c->n_pvs; i++) {
		for (uint32_t t = 0; t < c->pvs[i].n_affinity; t++)
			gt_selector_release(&c->pvs[i].affinity[t]);
		free(c->pvs[i].affinity);
	}
	for (uint32_t i = 0; i < c->n_storage_classes; i++) {
		for (uint32_t t = 0; t < c->storage_classes[i].n_topologies; t++)
			gt_selector_release(&c->storage_classes[i].topologies[t]);
		free(c->storage_classes[i].topologies);
	}
	for (uint32_t i = 0; i < c->n_csi_capacities; i++)
		gt_selector_release(&c->csi_capacities[i].topology);
	free(c->pvs);
	free(c->pvcs);
	free(c->storage_classes);
	free(c->csi_capacities);
	c->pvs = NULL;
	c->pvcs = NULL;
	c->storage_classes = NULL;
	c->csi_capacities = NULL;
	c->n_pvs = c->n_pvcs = c->n_storage_classes = c->n_csi_capacities = 0;
}

/* An OR of node selector terms; none means every node. */
static bool terms_match(const struct gt_cluster *c, const struct gt_selector *terms, uint32_t n, int32_t node)
{
	if (!n)
		return true;
	for (uint32_t i = 0; i < n; i++)
		if (gt_selector_matches(&terms[i], &c->nodes[node].labels, c->names))
			return true;
	return false;
}

static bool pv_fits_node(const struct gt_cluster *c, int32_t pv, int32_t node)
{
	return terms_match(c, c->pvs[pv].affinity, c->pvs[pv].n_affinity, node);
}

/* A claim the predicate decides here: no volume yet, a class that waits for its first consumer. */
static bool claim_pending(const struct gt_cluster *c, int32_t v)
{
	const struct gt_pvc *pvc = &c->pvcs[v];
	return !pvc->has_volume && pvc->storage_class != GT_NONE &&
	       c->storage_classes[pvc->storage_class].wait_for_consumer;
}

bool gt_pod_volumes_unbound(const struct gt_cluster *c, int32_t pod)
{
	const struct gt_pod *p = &c->pods[pod];
	for (uint32_t i = 0; i < p->n_pvcs; i++)
		if (!c->pvcs[p->pvcs[i]].has_volume)
			return true;
	return false;
}

/* What one pod's check has taken so far (volumes, capacity), over its claims. */
struct pod_take {
	int32_t pv[16];
	uint32_t n_pv;
	int32_t cap[16];
	int64_t bytes[16];
	uint32_t n_cap;
};

static bool taken_by_pod(const struct pod_take *t, int32_t pv)
{
	for (uint32_t i = 0; i < t->n_pv; i++)
		if (t->pv[i] == pv)
			return true;
	return false;
}

static int64_t pod_bytes_on(const struct pod_take *t, int32_t cap)
{
	for (uint32_t i = 0; i < t->n_cap; i++)
		if (t->cap[i] == cap)
			return t->bytes[i];
	return 0;
}

static void pod_add_bytes(struct pod_take *t, int32_t cap, int64_t bytes)
{
	for (uint32_t i = 0; i < t->n_cap; i++)
		if (t->cap[i] == cap) {
			t->bytes[i] += bytes;
			return;
		}
	if (t->n_cap < 16) {
		t->cap[t->n_cap] = cap;
		t->bytes[t->n_cap++] = bytes;
	}
}

/*
 * The volume for unbound claim @v on @node: one pre-bound to it (its
 * claimRef) first, else the smallest available one of its class that is
 * large enough and free this cycle. GT_NONE when there is none; @conflict
 * says a pre-bound volume exists but not on this node.
 */
static int32_t find_volume(const struct gt_session *s, int32_t v, int32_t node, const struct pod_take *t,
			   bool *conflict)
{
	const struct gt_cluster *c = s->c;
	const struct gt_pvc *pvc = &c->pvcs[v];
	const struct gt_volume_books *b = s->volumes;
	int32_t best = GT_NONE;
	*conflict = false;
	for (uint32_t i = 0; i < c->n_pvs; i++) {
		const struct gt_pv *pv = &c->pvs[i];
		if (pv->claimed && pv->claim == v) {
			if (pv_fits_node(c, (int32_t)i, node))
				return (int32_t)i;
			*conflict = true;
			return GT_NONE;
		}
	}
	for (uint32_t i = 0; i < c->n_pvs; i++) {
		const struct gt_pv *pv = &c->pvs[i];
		if (pv->claimed || !pv->available || pv->class_name != pvc->class_name ||
		    pv->capacity_bytes < pvc->request_bytes)
			continue;
		if ((b && b->pv_taken[i] != GT_NONE) || taken_by_pod(t, (int32_t)i) || !pv_fits_node(c, (int32_t)i, node))
			continue;
		if (best == GT_NONE || pv->capacity_bytes < c->pvs[best].capacity_bytes)
			best = (int32_t)i;
	}
	return best;
}

/* The CSIStorageCapacity objects of @class reaching @node: how many, and the first. */
static uint32_t node_capacities(const struct gt_cluster *c, uint32_t class_name, int32_t node, int32_t *first)
{
	uint32_t n = 0;
	*first = GT_NONE;
	for (uint32_t i = 0; i < c->n_csi_capacities; i++) {
		const struct gt_csi_capacity *cap = &c->csi_capacities[i];
		if (cap->class_name != class_name ||
		    !gt_selector_matches(&cap->topology, &c->nodes[node].labels, c->names))
			continue;
		if (!n++)
			*first = (int32_t)i;
	}
	return n;
}

static bool capacity_holds(const struct gt_csi_capacity *cap, int64_t bytes)
{
	return cap->max_volume_bytes ? bytes <= cap->max_volume_bytes : bytes <= cap->capacity_bytes;
}

/*
 * Dynamic provisioning of claim @v on @node. The capacity booked goes to
 * @*booked (GT_NONE when none is booked).
 */
static enum gt_reject provision(const struct gt_session *s, int32_t v, int32_t node, struct pod_take *t,
				int32_t *booked)
{
	const struct gt_cluster *c = s->c;
	const struct gt_pvc *pvc = &c->pvcs[v];
	const struct gt_storage_class *sc = &c->storage_classes[pvc->storage_class];
	*booked = GT_NONE;
	if (sc->no_provisioner || !terms_match(c, sc->topologies, sc->n_topologies, node))
		return GT_REJECT_VOLUME_BIND_CONFLICT;
	if (!sc->capacity_tracked)
		return GT_REJECT_NONE;
	int32_t first;
	uint32_t n = node_capacities(c, pvc->class_name, node, &first);
	if (!n)
		return GT_REJECT_VOLUME_SPACE;
	if (!c->config.csi_storage || !s->volumes) {
		/* kube-scheduler: some capacity object holds the claim alone */
		for (uint32_t i = 0; i < c->n_csi_capacities; i++) {
			const struct gt_csi_capacity *cap = &c->csi_capacities[i];
			if (cap->class_name == pvc->class_name &&
			    gt_selector_matches(&cap->topology, &c->nodes[node].labels, c->names) &&
			    capacity_holds(cap, pvc->request_bytes))
				return GT_REJECT_NONE;
		}
		return GT_REJECT_VOLUME_SPACE;
	}
	if (n > 1)
		return GT_REJECT_NONE;	/* KAI: several capacities of a class on a node are not accounted */
	const struct gt_csi_capacity *cap = &c->csi_capacities[first];
	int64_t want = s->volumes->capacity_used[first] + pod_bytes_on(t, first) + pvc->request_bytes;
	if (want > cap->capacity_bytes ||
	    (cap->max_volume_bytes && pvc->request_bytes > cap->max_volume_bytes))
		return GT_REJECT_VOLUME_SPACE;
	pod_add_bytes(t, first, pvc->request_bytes);
	*booked = first;
	return GT_REJECT_NONE;
}

/*
 * Check (with @w NULL) or book (@w the session's books) the claims of @pod
 * on @node. Booking never fails: what does not fit is simply not booked.
 */
static enum gt_reject decide(const struct gt_session *s, struct gt_volume_books *w, int32_t pod, int32_t node)
{
	const struct gt_cluster *c = s->c;
	const struct gt_pod *p = &c->pods[pod];
	const struct gt_volume_books *b = s->volumes;
	struct pod_take t = { .n_pv = 0 };
	enum gt_reject r = GT_REJECT_NONE;
	for (uint32_t i = 0; i < p->n_pvcs && (w || r == GT_REJECT_NONE); i++) {
		int32_t v = p->pvcs[i];
		const struct gt_pvc *pvc = &c->pvcs[v];
		if (pvc->has_volume) {
			if (pvc->volume == GT_NONE)
				r = GT_REJECT_VOLUME_MISSING;
			else if (!pv_fits_node(c, pvc->volume, node))
				r = GT_REJECT_VOLUME_NODE_CONFLICT;
			continue;
		}
		if (!claim_pending(c, v))
			continue;	/* Immediate: refused before any node (the decoder's claim_problem) */
		if (b && b->users[v]) {
			/* another placed pod decided for this claim: follow it */
			if (b->claim_pv[v] != GT_NONE ? !pv_fits_node(c, b->claim_pv[v], node) : b->claim_node[v] != node)
				r = GT_REJECT_VOLUME_NODE_CONFLICT;
			if (w)
				w->users[v]++;
			continue;
		}
		bool conflict = false;
		int32_t pv = GT_NONE, booked = GT_NONE;
		if (pvc->has_selected_node && pvc->selected_node != node)
			r = GT_REJECT_VOLUME_BIND_CONFLICT;
		else if (!pvc->has_selected_node)
			pv = find_volume(s, v, node, &t, &conflict);
		if (conflict)
			r = GT_REJECT_VOLUME_NODE_CONFLICT;
		else if (pv != GT_NONE && t.n_pv < 16)
			t.pv[t.n_pv++] = pv;
		else if (pv == GT_NONE && r == GT_REJECT_NONE)
			r = provision(s, v, node, &t, &booked);
		if (w) {
			/* booking never fails: what does not fit is simply not booked */
			w->users[v] = 1;
			w->claim_pv[v] = pv;
			w->claim_node[v] = node;
			w->claim_capacity[v] = booked;
			if (pv != GT_NONE)
				w->pv_taken[pv] = v;
			if (booked != GT_NONE)
				w->capacity_used[booked] += pvc->request_bytes;
		}
	}
	return r;
}

enum gt_reject gt_volumes_check(const struct gt_session *s, int32_t pod, int32_t node)
{
	return s->c->pods[pod].n_pvcs ? decide(s, NULL, pod, node) : GT_REJECT_NONE;
}

void gt_volumes_open(struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	if (!c->n_pvcs)
		return;
	struct gt_volume_books *b = gt_arena_calloc(&s->arena, 1, sizeof(*b));
	b->users = gt_arena_calloc(&s->arena, c->n_pvcs, sizeof(*b->users));
	b->claim_pv = gt_arena_calloc(&s->arena, c->n_pvcs, sizeof(*b->claim_pv));
	b->claim_node = gt_arena_calloc(&s->arena, c->n_pvcs, sizeof(*b->claim_node));
	b->claim_capacity = gt_arena_calloc(&s->arena, c->n_pvcs, sizeof(*b->claim_capacity));
	b->pv_taken = gt_arena_calloc(&s->arena, c->n_pvs + 1, sizeof(*b->pv_taken));
	b->capacity_used = gt_arena_calloc(&s->arena, c->n_csi_capacities + 1, sizeof(*b->capacity_used));
	for (uint32_t i = 0; i < c->n_pvcs; i++)
		b->claim_pv[i] = b->claim_node[i] = b->claim_capacity[i] = GT_NONE;
	for (uint32_t i = 0; i < c->n_pvs; i++)
		b->pv_taken[i] = GT_NONE;
	s->volumes = b;
}

/* Does a pod in state @st hold its claims' decisions? Placed, on a node, not a cancelled placement. */
static bool holds_claims(const struct gt_pod_state *st)
{
	return st->node >= 0 && !st->ghost && gt_status_active_allocated(st->status);
}

void gt_volumes_account(struct gt_session *s, int32_t pod, const struct gt_pod_state *st, int sign)
{
	const struct gt_pod *p = &s->c->pods[pod];
	struct gt_volume_books *b = s->volumes;
	if (!b || !p->n_pvcs || !holds_claims(st))
		return;
	if (sign > 0) {
		decide(s, b, pod, st->node);
		return;
	}
	for (uint32_t i = 0; i < p->n_pvcs; i++) {
		int32_t v = p->pvcs[i];
		if (!claim_pending(s->c, v) || !b->users[v] || --b->users[v])
			continue;
		if (b->claim_pv[v] != GT_NONE)
			b->pv_taken[b->claim_pv[v]] = GT_NONE;
		if (b->claim_capacity[v] != GT_NONE)
			b->capacity_used[b->claim_capacity[v]] -= s->c->pvcs[v].request_bytes;
		b->claim_pv[v] = b->claim_node[v] = b->claim_capacity[v] = GT_NONE;
	}
}

int32_t gt_volumes_chosen(const struct gt_session *s, int32_t pvc)
{
	return s->volumes && s->volumes->users[pvc] ? s->volumes->claim_pv[pvc] : GT_NONE;
}

enum gt_reason gt_claim_problem_reason(const struct gt_cluster *c, int32_t pod)
{
	return c->pods[pod].claim_problem == GT_CLAIM_NOT_FOUND ? GT_REASON_CLAIM_NOT_FOUND
								: GT_REASON_CLAIM_UNBOUND_IMMEDIATE;
}

void gt_claim_problem_message(const struct gt_cluster *c, int32_t pod, bool prefilter, char *buf, size_t len)
{
	const struct gt_pod *p = &c->pods[pod];
	const char *ns = gt_strtab_str(c->names, p->ns), *name = gt_strtab_str(c->names, p->name);
	const char *claim = gt_strtab_str(c->names, p->missing_claim);
	char what[600];
	switch ((enum gt_claim_problem)p->claim_problem) {
	case GT_CLAIM_UNBOUND_IMMEDIATE:
		snprintf(what, sizeof(what), "pod has unbound immediate PersistentVolumeClaims");
		break;
	case GT_CLAIM_CLASS_MISSING:
		snprintf(what, sizeof(what), "storageclass.storage.k8s.io \"%s\" not found", claim);
		break;
	case GT_CLAIM_NOT_FOUND:
	default:
		snprintf(what, sizeof(what), "persistentvolumeclaim \"%s\" not found", claim);
		break;
	}
	if (prefilter)
		snprintf(buf, len,
			 "Resources were not found for pod %s/%s due to: Scheduling conditions were not met "
			 "for pod %s/%s:\nVolumeBinding: %s.",
			 ns, name, ns, name, what);
	else
		snprintf(buf, len, "Resources were not found for pod %s/%s due to: %s", ns, name, what);
}
