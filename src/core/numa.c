/*
 * numa.c - NUMA zones: the kubelet's alignment predicted, the zones' books
 *
 * The evaluation (gt_numa_solve) works on a node's topology and a view of
 * what each zone has free; the books (gt_numa_open ...) keep that view for
 * a session, changed only through the session's one change of a pod's state
 * (session.c's set_pod_state calls gt_numa_account), so rollback and the
 * victim search keep them exact.
 */
#include "core/numa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/session.h"
#include "util/arena.h"
#include "util/mem.h"

#define DEVICE_BITS (~((1u << GT_NUMA_CPU) | (1u << GT_NUMA_MEM)))

void gt_numa_pod_free(struct gt_numa_pod *p)
{
	if (!p)
		return;
	free(p->units);
	free(p->record);
	free(p);
}

void gt_numa_pod_record(struct gt_pod *p, const struct gt_numa_share *sh, uint32_t n)
{
	if (!p->numa)
		return;	/* nothing of it is aligned: no placement to keep */
	free(p->numa->record);
	p->numa->record = NULL;
	p->numa->n_record = 0;
	if (!n)
		return;
	p->numa->record = gt_xmalloc(n * sizeof(*sh));
	memcpy(p->numa->record, sh, n * sizeof(*sh));
	p->numa->n_record = n;
}

void gt_numa_nodes_release(struct gt_cluster *c)
{
	for (uint32_t i = 0; i < c->n_numa_nodes; i++)
		free(c->numa_nodes[i].zones);
	free(c->numa_nodes);
	c->numa_nodes = NULL;
	c->n_numa_nodes = c->cap_numa_nodes = 0;
}

/* The NUMA node number in a zone name: its trailing digits ("node-3" -> 3), or -1. */
static int64_t zone_number(const char *name)
{
	size_t n = strlen(name), k = n;
	while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	if (k == n || n - k > 9)
		return -1;
	return strtol(name + k, NULL, 10);
}

static bool zone_before(const struct gt_strtab *names, const struct gt_numa_zone *a, const struct gt_numa_zone *b)
{
	const char *x = gt_strtab_str(names, a->id), *y = gt_strtab_str(names, b->id);
	int64_t i = zone_number(x), j = zone_number(y);
	if ((i >= 0) != (j >= 0))
		return i >= 0;	/* numbered zones first */
	if (i != j)
		return i < j;
	return strcmp(x, y) < 0;
}

/*
 * The kubelet prefers the lowest NUMA nodes among equally narrow choices;
 * the exporter's list order says nothing, the number in the name does.
 * A handful of zones: an insertion sort.
 */
void gt_numa_node_finish(struct gt_numa_node *t, const struct gt_strtab *names)
{
	for (uint32_t i = 1; i < t->n_zones; i++)
		for (uint32_t k = i; k > 0 && zone_before(names, &t->zones[k], &t->zones[k - 1]); k--) {
			struct gt_numa_zone z = t->zones[k];
			t->zones[k] = t->zones[k - 1];
			t->zones[k - 1] = z;
		}
}

/* ---------------------------------------------------------------- the evaluation */

static bool modeled(enum gt_numa_policy p)
{
	return p == GT_NUMA_SINGLE_NODE || p == GT_NUMA_RESTRICTED;
}

static bool scored(enum gt_numa_policy p)
{
	return modeled(p) || p == GT_NUMA_BEST_EFFORT;
}

/* Zone @z's free amount of @r, less what earlier units of this pod took (@took may be NULL). */
static int64_t avail(const struct gt_numa_vec *free, const struct gt_numa_vec *took, uint32_t z, int r)
{
	return free[z].v[r] - (took ? took[z].v[r] : 0);
}

static bool zone_holds(const struct gt_numa_vec *free, const struct gt_numa_vec *took, uint32_t aware,
		       const struct gt_numa_vec *req, uint32_t z)
{
	for (uint32_t m = aware; m; m &= m - 1) {
		int r = __builtin_ctz(m);
		if (req->v[r] > 0 && avail(free, took, z, r) < req->v[r])
			return false;
	}
	return true;
}

static bool lowest_zone(const struct gt_numa_node *t, const struct gt_numa_vec *free, const struct gt_numa_vec *took,
			uint32_t aware, const struct gt_numa_vec *req, uint32_t *mask, uint32_t *n_mask)
{
	for (uint32_t z = 0; z < t->n_zones; z++)
		if (zone_holds(free, took, aware, req, z)) {
			mask[0] = z;
			*n_mask = 1;
			return true;
		}
	return false;
}

/* best-effort: add the zone that covers most of what is still needed until all is covered */
static bool greedy_zones(const struct gt_numa_node *t, const struct gt_numa_vec *free,
			 const struct gt_numa_vec *took, uint32_t aware, const struct gt_numa_vec *req,
			 uint32_t *mask, uint32_t *n_mask)
{
	int64_t need[GT_NUMA_NRES];
	bool used[GT_NUMA_MAX_ZONES] = { false };
	for (int r = 0; r < GT_NUMA_NRES; r++)
		need[r] = (aware & (1u << r)) ? req->v[r] : 0;
	*n_mask = 0;
	for (;;) {
		bool met = true;
		for (int r = 0; r < GT_NUMA_NRES; r++)
			met &= need[r] <= 0;
		if (met)
			return true;
		if (*n_mask == t->n_zones)
			return false;
		int64_t best_cover = 0;
		int32_t best = GT_NONE;
		for (uint32_t z = 0; z < t->n_zones; z++) {
			if (used[z])
				continue;
			int64_t cover = 0;
			for (int r = 0; r < GT_NUMA_NRES; r++) {
				int64_t a = avail(free, took, z, r);
				if (need[r] > 0)
					cover += a < need[r] ? a : need[r];
			}
			if (cover > best_cover) {
				best_cover = cover;
				best = (int32_t)z;
			}
		}
		if (best == GT_NONE)
			return false;
		used[best] = true;
		mask[(*n_mask)++] = (uint32_t)best;
		for (int r = 0; r < GT_NUMA_NRES; r++)
			if (aware & (1u << r))
				need[r] -= avail(free, took, (uint32_t)best, r);
	}
}

/* The fewest zones whose allocatable, largest first, reach @need; 0 when all of them do not. */
static uint32_t preferred_width(const struct gt_numa_node *t, int r, int64_t need)
{
	int64_t vals[GT_NUMA_MAX_ZONES];
	for (uint32_t z = 0; z < t->n_zones; z++)
		vals[z] = t->zones[z].allocatable.v[r];
	for (uint32_t i = 1; i < t->n_zones; i++)	/* descending; a handful of zones */
		for (uint32_t k = i; k > 0 && vals[k - 1] < vals[k]; k--) {
			int64_t x = vals[k];
			vals[k] = vals[k - 1];
			vals[k - 1] = x;
		}
	int64_t sum = 0;
	for (uint32_t k = 0; k < t->n_zones; k++) {
		sum += vals[k];
		if (sum >= need)
			return k + 1;
	}
	return 0;
}

static bool zones_hold(const struct gt_numa_vec *free, const struct gt_numa_vec *took, uint32_t aware,
		       const struct gt_numa_vec *req, const uint32_t *mask, uint32_t n_mask)
{
	for (uint32_t m = aware; m; m &= m - 1) {
		int r = __builtin_ctz(m);
		if (req->v[r] <= 0)
			continue;
		int64_t sum = 0;
		for (uint32_t i = 0; i < n_mask; i++)
			sum += avail(free, took, mask[i], r);
		if (sum < req->v[r])
			return false;
	}
	return true;
}

/*
 * restricted: the kubelet merges one preferred width per resource and
 * refuses the pod when they differ; then the lowest set of that many
 * zones (in lexicographic order of zone numbers) with room wins.
 */
static bool narrowest_zones(const struct gt_numa_node *t, const struct gt_numa_vec *free,
			    const struct gt_numa_vec *took, uint32_t aware, const struct gt_numa_vec *req,
			    uint32_t *mask, uint32_t *n_mask)
{
	uint32_t w = 0;
	for (uint32_t m = aware; m; m &= m - 1) {
		int r = __builtin_ctz(m);
		if (req->v[r] <= 0)
			continue;
		uint32_t k = preferred_width(t, r, req->v[r]);
		if (!k || (w && k != w))
			return false;
		w = k;
	}
	*n_mask = 0;
	if (!w)
		return true;	/* nothing to align */
	if (w == 1)
		return lowest_zone(t, free, took, aware, req, mask, n_mask);
	for (uint32_t i = 0; i < w; i++)
		mask[i] = i;
	for (;;) {
		if (zones_hold(free, took, aware, req, mask, w)) {
			*n_mask = w;
			return true;
		}
		int32_t i = (int32_t)w - 1;
		while (i >= 0 && mask[i] == t->n_zones - w + (uint32_t)i)
			i--;
		if (i < 0)
			return false;
		mask[i]++;
		for (uint32_t k = (uint32_t)i + 1; k < w; k++)
			mask[k] = mask[k - 1] + 1;
	}
}

static bool unit_fits(const struct gt_numa_node *t, const struct gt_numa_vec *free, const struct gt_numa_vec *took,
		      uint32_t aware, const struct gt_numa_vec *req, uint32_t *mask, uint32_t *n_mask)
{
	switch (t->policy) {
	case GT_NUMA_SINGLE_NODE:
		return lowest_zone(t, free, took, aware, req, mask, n_mask);
	case GT_NUMA_BEST_EFFORT:
		return greedy_zones(t, free, took, aware, req, mask, n_mask);
	default:
		return narrowest_zones(t, free, took, aware, req, mask, n_mask);
	}
}

/* Take @req from the zones of @mask, lowest first: the kubelet fixes no split within them. */
static void draw(const struct gt_numa_vec *free, struct gt_numa_vec *took, uint32_t aware,
		 const struct gt_numa_vec *req, const uint32_t *mask, uint32_t n_mask, struct gt_numa_vec *drawn)
{
	for (uint32_t m = aware; m; m &= m - 1) {
		int r = __builtin_ctz(m);
		int64_t left = req->v[r];
		for (uint32_t i = 0; i < n_mask && left > 0; i++) {
			int64_t take = avail(free, took, mask[i], r);
			take = take < left ? take : left;
			if (take <= 0)
				continue;
			took[mask[i]].v[r] += take;
			if (drawn)
				drawn[mask[i]].v[r] += take;
			left -= take;
		}
	}
}

bool gt_numa_solve(const struct gt_numa_node *t, const struct gt_numa_vec *free, uint32_t aware,
		   const struct gt_numa_vec *units, uint32_t n_conc, uint32_t n_serial, struct gt_numa_vec *drawn)
{
	struct gt_numa_vec took[GT_NUMA_MAX_ZONES];
	uint32_t mask[GT_NUMA_MAX_ZONES], n_mask;
	if (t->n_zones > GT_NUMA_MAX_ZONES)
		return false;	/* the decoder refuses such a topology */
	memset(took, 0, t->n_zones * sizeof(*took));
	for (uint32_t i = 0; i < n_conc; i++) {
		if (!unit_fits(t, free, took, aware, &units[i], mask, &n_mask))
			return false;
		draw(free, took, aware, &units[i], mask, n_mask, drawn);
	}
	/* a plain init container runs before the others start: alone, on what is free */
	for (uint32_t i = n_conc; i < n_conc + n_serial; i++)
		if (!unit_fits(t, free, NULL, aware, &units[i], mask, &n_mask))
			return false;
	return true;
}

/* ---------------------------------------------------------------- what concerns a pod */

static const struct gt_numa_node *topo_of(const struct gt_session *s, int32_t node)
{
	if (!s->numa || node < 0)
		return NULL;
	int32_t t = s->numa->topo_of[node];
	return t == GT_NONE ? NULL : &s->c->numa_nodes[t];
}

const struct gt_numa_node *gt_numa_topology(const struct gt_session *s, int32_t node)
{
	return topo_of(s, node);
}

static bool asks_devices(const struct gt_numa_pod *np, uint32_t devices)
{
	for (int r = 0; r < GT_NUMA_NRES; r++)
		if ((devices & (1u << r)) && np->pod.v[r] > 0)
			return true;
	return false;
}

/* The resources the kubelet aligns for @np on @t: devices always, CPU and memory when Guaranteed. */
static uint32_t aligned(const struct gt_session *s, const struct gt_numa_pod *np, const struct gt_numa_node *t)
{
	uint32_t aware = t->aware & ~s->numa->ignore;
	return np->guaranteed ? aware : aware & DEVICE_BITS;
}

/* KAI's shouldScore (@policy_ok scored) and shouldFilter (modeled): a Guaranteed pod, or one asking for devices. */
static bool concerned(const struct gt_session *s, const struct gt_numa_pod *np, const struct gt_numa_node *t,
		      bool filter)
{
	if (!np || !t || !(filter ? modeled(t->policy) : scored(t->policy)))
		return false;
	return np->guaranteed || asks_devices(np, aligned(s, np, t));
}

static bool solve_pod(const struct gt_session *s, const struct gt_numa_pod *np, const struct gt_numa_node *t,
		      const struct gt_numa_vec *free, struct gt_numa_vec *drawn)
{
	uint32_t aware = aligned(s, np, t);
	if (t->scope == GT_NUMA_SCOPE_POD || !np->units)
		return gt_numa_solve(t, free, aware, &np->pod, 1, 0, drawn);
	return gt_numa_solve(t, free, aware, np->units, np->n_concurrent, np->n_serial, drawn);
}

static const struct gt_numa_vec *zones_free(const struct gt_session *s, int32_t node)
{
	return &s->numa->free[s->numa->zone_base[s->numa->topo_of[node]]];
}

/* The zones @np would span on @node now (at least 1), or 0 when they cannot be aligned; memoized. */
static uint32_t span_on(const struct gt_session *s, int32_t pod, const struct gt_numa_pod *np,
			const struct gt_numa_node *t, int32_t node)
{
	struct gt_numa_books *b = s->numa;
	if (b->memo_pod[node] == pod && b->memo_epoch[node] == s->epoch)
		return b->memo_span[node];
	struct gt_numa_vec drawn[GT_NUMA_MAX_ZONES];
	memset(drawn, 0, t->n_zones * sizeof(*drawn));
	uint32_t span = 0;
	if (solve_pod(s, np, t, zones_free(s, node), drawn)) {
		for (uint32_t z = 0; z < t->n_zones; z++) {
			bool any = false;
			for (int r = 0; r < GT_NUMA_NRES; r++)
				any |= drawn[z].v[r] > 0;
			span += any;
		}
		span = span ? span : 1;
	}
	b->memo_pod[node] = pod;
	b->memo_epoch[node] = s->epoch;
	b->memo_span[node] = span;
	return span;
}

bool gt_numa_fits(const struct gt_session *s, int32_t pod, int32_t node)
{
	const struct gt_numa_node *t = topo_of(s, node);
	const struct gt_numa_pod *np = s->c->pods[pod].numa;
	if (!concerned(s, np, t, true))
		return true;
	return span_on(s, pod, np, t, node) > 0;
}

bool gt_numa_concerns(const struct gt_session *s, int32_t pod)
{
	const struct gt_numa_pod *np = s->c->pods[pod].numa;
	return s->numa && np && (np->guaranteed || asks_devices(np, s->numa->device_aware));
}

int64_t gt_numa_score(const struct gt_session *s, int32_t pod, int32_t node, int64_t unit)
{
	if (!gt_numa_concerns(s, pod) || !s->numa->max_zones)
		return 0;
	const struct gt_numa_node *t = topo_of(s, node);
	const struct gt_numa_pod *np = s->c->pods[pod].numa;
	uint32_t span;
	if (!t || !t->n_zones) {
		span = s->numa->max_zones;	/* unknown: assume the widest */
	} else if (t->policy == GT_NUMA_POLICY_NONE || !concerned(s, np, t, false)) {
		span = t->n_zones;	/* not aligned here: spread over every zone */
	} else {
		span = span_on(s, pod, np, t, node);
		if (!span)
			return 0;
	}
	return unit / span;
}

/* ---------------------------------------------------------------- the books */

/* The ignoreList "a, b": resources the kubelet reports per zone but does not align. */
static uint32_t ignore_bits(const struct gt_cluster *c, const char *list)
{
	uint32_t bits = 0;
	while (*list) {
		list += strspn(list, ", \t");
		size_t n = strcspn(list, ", \t");
		for (int r = 0; n && r < GT_NUMA_NRES; r++) {
			const char *name = gt_numa_res_name(c, (enum gt_numa_res)r);
			if (name && strlen(name) == n && !strncmp(name, list, n))
				bits |= 1u << r;
		}
		list += n;
	}
	return bits;
}

struct gt_numa_books *gt_numa_open(struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	if (c->config.numa == GT_NUMA_OFF || !c->n_numa_nodes)
		return NULL;
	struct gt_numa_books *b = gt_arena_calloc(&s->arena, 1, sizeof(*b));
	b->topo_of = gt_arena_calloc(&s->arena, c->n_nodes + 1, sizeof(*b->topo_of));
	b->memo_epoch = gt_arena_calloc(&s->arena, c->n_nodes + 1, sizeof(*b->memo_epoch));
	b->memo_pod = gt_arena_calloc(&s->arena, c->n_nodes + 1, sizeof(*b->memo_pod));
	b->memo_span = gt_arena_calloc(&s->arena, c->n_nodes + 1, sizeof(*b->memo_span));
	for (uint32_t n = 0; n < c->n_nodes; n++) {
		b->topo_of[n] = GT_NONE;
		b->memo_pod[n] = GT_NONE;
	}
	b->zone_base = gt_arena_calloc(&s->arena, c->n_numa_nodes + 1, sizeof(*b->zone_base));
	if (c->config.has_numa_ignore)
		b->ignore = ignore_bits(c, gt_strtab_str(c->names, c->config.numa_ignore));
	uint32_t n_zones = 0;
	for (uint32_t i = 0; i < c->n_numa_nodes; i++) {
		const struct gt_numa_node *t = &c->numa_nodes[i];
		b->zone_base[i] = n_zones;
		n_zones += t->n_zones;
		if (t->node >= 0 && (uint32_t)t->node < c->n_nodes)
			b->topo_of[t->node] = (int32_t)i;
		b->max_zones = t->n_zones > b->max_zones ? t->n_zones : b->max_zones;
		if (scored(t->policy))
			b->device_aware |= t->aware & DEVICE_BITS & ~b->ignore;
	}
	b->free = gt_arena_calloc(&s->arena, n_zones + 1, sizeof(*b->free));
	for (uint32_t i = 0; i < c->n_numa_nodes; i++) {
		const struct gt_numa_node *t = &c->numa_nodes[i];
		/*
		 * KAI's reconstructAvailable (the default): the published
		 * available lags the pods, so start from allocatable and let
		 * every pod that holds zones charge them.
		 */
		for (uint32_t z = 0; z < t->n_zones; z++)
			b->free[b->zone_base[i] + z] = c->config.numa_trust_available ? t->zones[z].available
										   : t->zones[z].allocatable;
	}
	return b;
}

void gt_numa_close(struct gt_numa_books *b)
{
	if (!b)
		return;
	free(b->places);
	free(b->shares);
	b->places = NULL;
	b->shares = NULL;
}

static uint32_t new_place(struct gt_session *s, int32_t node, const struct gt_numa_share *shares, uint32_t n)
{
	struct gt_numa_books *b = s->numa;
	struct gt_numa_place pl = { .node = node, .first = b->n_shares, .n = n };
	for (uint32_t i = 0; i < n; i++)
		GT_PUSH(b->shares, b->n_shares, b->cap_shares, shares[i]);
	GT_PUSH(b->places, b->n_places, b->cap_places, pl);
	return b->n_places;
}

static void charge(struct gt_session *s, uint32_t place, int sign)
{
	struct gt_numa_books *b = s->numa;
	const struct gt_numa_place *pl = &b->places[place - 1];
	struct gt_numa_vec *free = &b->free[b->zone_base[b->topo_of[pl->node]]];
	for (uint32_t i = 0; i < pl->n; i++) {
		const struct gt_numa_share *sh = &b->shares[pl->first + i];
		for (int r = 0; r < GT_NUMA_NRES; r++)
			free[sh->zone].v[r] -= sign * sh->amount.v[r];
	}
}

uint32_t gt_numa_initial(struct gt_session *s, int32_t pod, int32_t node)
{
	const struct gt_numa_pod *np = s->c->pods[pod].numa;
	const struct gt_numa_node *t = topo_of(s, node);
	if (!np || !np->n_record || !concerned(s, np, t, false))
		return 0;
	struct gt_numa_share shares[GT_NUMA_MAX_ZONES];
	uint32_t n = 0;
	for (uint32_t i = 0; i < np->n_record && n < GT_NUMA_MAX_ZONES; i++) {
		uint32_t z = 0;
		while (z < t->n_zones && t->zones[z].id != np->record[i].zone)
			z++;
		if (z == t->n_zones)
			return 0;	/* a zone the node no longer reports: the record is unknown */
		shares[n] = np->record[i];
		shares[n++].zone = z;
	}
	for (uint32_t i = 1; i < n; i++)	/* by zone index */
		for (uint32_t k = i; k > 0 && shares[k - 1].zone > shares[k].zone; k--) {
			struct gt_numa_share x = shares[k];
			shares[k] = shares[k - 1];
			shares[k - 1] = x;
		}
	uint32_t place = new_place(s, node, shares, n);
	enum gt_status st = gt_pod_status_at(&s->c->pods[pod], &s->c->config, s->now);
	if (s->c->config.numa_trust_available && gt_status_active_allocated(st))
		charge(s, place, -1);	/* the published available already counts it */
	return place;
}

void gt_numa_account(struct gt_session *s, const struct gt_pod_state *st, int sign)
{
	if (s->numa && st->numa_place && gt_status_active_allocated(st->status))
		charge(s, st->numa_place, sign);
}

uint32_t gt_numa_choose(struct gt_session *s, int32_t pod, int32_t node)
{
	const struct gt_numa_node *t = topo_of(s, node);
	const struct gt_numa_pod *np = s->c->pods[pod].numa;
	if (!concerned(s, np, t, false))
		return 0;
	struct gt_numa_vec drawn[GT_NUMA_MAX_ZONES];
	memset(drawn, 0, t->n_zones * sizeof(*drawn));
	if (!solve_pod(s, np, t, zones_free(s, node), drawn))
		return 0;	/* best-effort with no room in the zones: nothing predicted */
	struct gt_numa_share shares[GT_NUMA_MAX_ZONES];
	uint32_t n = 0;
	for (uint32_t z = 0; z < t->n_zones; z++) {
		bool any = false;
		for (int r = 0; r < GT_NUMA_NRES; r++)
			any |= drawn[z].v[r] > 0;
		if (any)
			shares[n++] = (struct gt_numa_share){ .zone = z, .amount = drawn[z] };
	}
	return n ? new_place(s, node, shares, n) : 0;
}

const struct gt_numa_share *gt_numa_shares(const struct gt_session *s, uint32_t place, uint32_t *n)
{
	if (!s->numa || !place) {
		*n = 0;
		return NULL;
	}
	const struct gt_numa_place *pl = &s->numa->places[place - 1];
	*n = pl->n;
	return &s->numa->shares[pl->first];
}

const struct gt_numa_vec *gt_numa_free(const struct gt_session *s, int32_t node, uint32_t zone)
{
	return &zones_free(s, node)[zone];
}

const char *gt_numa_res_name(const struct gt_cluster *c, enum gt_numa_res r)
{
	switch (r) {
	case GT_NUMA_CPU:
		return "cpu";
	case GT_NUMA_MEM:
		return "memory";
	case GT_NUMA_GPU:
		return "nvidia.com/gpu";
	default:
		return (uint32_t)(r - GT_NUMA_EXT) < c->n_ext ? gt_strtab_str(c->names, c->ext_names[r - GT_NUMA_EXT])
							      : NULL;
	}
}

void gt_numa_quantity(enum gt_numa_res r, int64_t v, char *buf, size_t cap)
{
	if (r == GT_NUMA_CPU && v % 1000)
		snprintf(buf, cap, "%lldm", (long long)v);
	else
		snprintf(buf, cap, "%lld", (long long)(r == GT_NUMA_CPU ? v / 1000 : v));
}

bool gt_numa_check(const struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	const struct gt_numa_books *b = s->numa;
	if (!b || c->config.numa_trust_available)
		return true;	/* the published available is no recount's starting point */
	uint32_t n_zones = 0;
	for (uint32_t i = 0; i < c->n_numa_nodes; i++)
		n_zones += c->numa_nodes[i].n_zones;
	struct gt_numa_vec *want = gt_xcalloc(n_zones + 1, sizeof(*want));
	for (uint32_t i = 0; i < c->n_numa_nodes; i++)
		for (uint32_t z = 0; z < c->numa_nodes[i].n_zones; z++)
			want[b->zone_base[i] + z] = c->numa_nodes[i].zones[z].allocatable;
	for (uint32_t p = 0; p < c->n_pods; p++) {
		const struct gt_pod_state *st = &s->pods[p];
		if (!st->numa_place || !gt_status_active_allocated(st->status))
			continue;
		const struct gt_numa_place *pl = &b->places[st->numa_place - 1];
		for (uint32_t i = 0; i < pl->n; i++) {
			const struct gt_numa_share *sh = &b->shares[pl->first + i];
			for (int r = 0; r < GT_NUMA_NRES; r++)
				want[b->zone_base[b->topo_of[pl->node]] + sh->zone].v[r] -= sh->amount.v[r];
		}
	}
	bool ok = !memcmp(want, b->free, n_zones * sizeof(*want));
	free(want);
	return ok;
}
