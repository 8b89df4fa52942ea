#include "core/placement.h"
#include "core/reserve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numa.h"
#include "core/namespaces.h"
#include "core/volumes.h"
#include "util/mem.h"

#define GROUP_FULL 1000		/* a shared GPU is 1000 milli-GPU */
#define NEW_GROUP UINT32_MAX	/* placeholder until the winner is minted */

static const char *const reject_texts[] = {
#define GT_REJECT_TEXT(name, text) text,
	GT_REJECT_MAP(GT_REJECT_TEXT)
#undef GT_REJECT_TEXT
};

const char *gt_reject_text(enum gt_reject r)
{
	return (unsigned)r < GT_N_REJECT ? reject_texts[r] : "";
}

static int64_t pod_portion(const struct gt_session *s, int32_t pod, int32_t node)
{
	const struct gt_pod *p = &s->c->pods[pod];
	return gt_pod_accepted_gpu_milli(s->c, pod, node) / (p->num_devices > 0 ? p->num_devices : 1);
}

/* Check one scalar: fits idle, fits with releasing, or not at all. */
static bool fit_scalar(int64_t req, int64_t idle, int64_t releasing, bool *needs_rel)
{
	if (req <= 0)
		return true;
	if (req > idle + releasing)
		return false;
	if (req > idle)
		*needs_rel = true;
	return true;
}

struct gpu_candidate {
	int64_t score;
	int32_t group;		/* index into node groups, -1 for a free device */
	bool releasing;
};

/* Choose devices for a fractional / GPU-memory pod (KAI-SPEC 7.2). */
static bool fit_shared(struct gt_session *s, int32_t pod, int32_t node, bool mint,
		       struct gt_fit *out)
{
	const struct gt_pod *p = &s->c->pods[pod];
	const struct gt_node *n = &s->c->nodes[node];
	struct gt_node_state *ns = &s->nodes[node];
	if (n->gpus <= 0 || (p->gpu_mem_mib && p->gpu_mem_mib > n->gpu_mem_mib)) {
		out->reject = p->gpu_mem_mib ? GT_REJECT_GPU_MEMORY : GT_REJECT_GPU;
		return false;
	}
	int64_t portion = pod_portion(s, pod, node);
	bool spread = s->c->config.gpu_spread;
	bool order = !(s->c->config.plugins_off & (1u << GT_PLUGIN_GPUPACK));
	/*
	 * Pipelined pods claim releasing devices first and idle ones after, so
	 * releasing can go negative: what is free in all is idle + releasing,
	 * and of that only min(idle, total) can be used right now.
	 */
	int32_t node_idle = gt_node_idle_gpus(s, node), node_rel = gt_node_releasing_gpus(s, node);
	gt_reserve_shrink(s, pod, node, &node_idle, &node_rel);	/* GPUs held for a gang */
	int32_t total = node_idle + node_rel;
	total = total > 0 ? total : 0;
	int32_t idle = node_idle < total ? node_idle : total;
	idle = idle > 0 ? idle : 0;
	int32_t rel = total - idle;
	uint32_t max_c = ns->n_groups + (uint32_t)idle + (uint32_t)rel;
	struct gpu_candidate local[64];
	struct gpu_candidate *cand = max_c < 64 ? local : gt_xmalloc((max_c + 1) * sizeof(*cand));
	uint32_t nc = 0;
	for (uint32_t i = 0; i < ns->n_groups; i++) {
		const struct gt_gpu_group *g = &ns->groups[i];
		int64_t held = g->used_milli - g->pipelined_milli;
		if (held > 0 && g->releasing_milli == held && !g->pipelined_milli)
			continue;	/* the whole device is on its way out */
		if (GROUP_FULL - g->used_milli + g->releasing_milli < portion)
			continue;
		cand[nc++] = (struct gpu_candidate){
			.score = !order ? 0 : spread ? GROUP_FULL - g->used_milli : g->used_milli,
			.group = (int32_t)i,
			.releasing = GROUP_FULL - g->used_milli < portion,
		};
	}
	for (int32_t d = 0; d < idle + rel; d++)
		cand[nc++] = (struct gpu_candidate){ .score = order && spread ? GROUP_FULL : 0,
						     .group = -1, .releasing = d >= idle };
	/* stable sort by score, descending: groups first on ties, as inserted */
	for (uint32_t i = 1; i < nc; i++)
		for (uint32_t k = i; k > 0 && cand[k - 1].score < cand[k].score; k--) {
			struct gpu_candidate t = cand[k];
			cand[k] = cand[k - 1];
			cand[k - 1] = t;
		}
	int32_t want = p->num_devices > 0 ? p->num_devices : 1;
	bool ok = (int32_t)nc >= want && want <= GT_MAX_DEVICES;
	for (int32_t i = 0; ok && i < want; i++) {
		if (cand[i].releasing)
			out->needs_releasing = true;
		if (cand[i].group >= 0)
			out->groups[i] = ns->groups[cand[i].group].id;
		else
			out->groups[i] = mint ? gt_session_new_group(s) : NEW_GROUP;
	}
	if (ok)
		out->n_groups = (uint8_t)want;
	else
		out->reject = p->gpu_mem_mib ? GT_REJECT_GPU_MEMORY : GT_REJECT_GPU;
	if (cand != local)
		free(cand);
	return ok;
}

static void short_of(struct gt_fit *out, enum gt_reject r)
{
	if (!out->short_mask)
		out->reject = r;
	out->short_mask |= 1u << r;
}

/* Does @p's CPU (memory) fit on node @n, once its releasing pods leave if need be (*@rel)? */
static bool fits_cpu(const struct gt_pod *p, const struct gt_node *n, const struct gt_node_state *ns, bool *rel)
{
	return fit_scalar(p->cpu_milli, n->cpu_milli - ns->used_cpu_milli, ns->rel_cpu_milli, rel);
}

static bool fits_memory(const struct gt_pod *p, const struct gt_node *n, const struct gt_node_state *ns, bool *rel)
{
	return fit_scalar(p->mem_bytes, n->mem_bytes - ns->used_mem_bytes, ns->rel_mem_bytes, rel);
}

/* Every resource the node lacks is a reason, as in KAI's fit errors. */
static void fit_node(struct gt_session *s, int32_t pod, int32_t node, bool mint,
		     struct gt_fit *out)
{
	const struct gt_pod *p = &s->c->pods[pod];
	const struct gt_node *n = &s->c->nodes[node];
	const struct gt_node_state *ns = &s->nodes[node];
	memset(out, 0, sizeof(*out));
	bool rel = false;
	if (!fits_cpu(p, n, ns, &rel))
		short_of(out, GT_REJECT_CPU);
	if (!fits_memory(p, n, ns, &rel))
		short_of(out, GT_REJECT_MEMORY);
	for (uint32_t e = 0; e < s->c->n_ext; e++)
		if (!fit_scalar(p->ext[e], n->ext[e] - ns->used_ext[e], ns->rel_ext[e], &rel)) {
			short_of(out, s->c->ext_dra[e] ? GT_REJECT_DRA_DEVICES : GT_REJECT_EXT);
			break;
		}
	/* a pod slot is a resource too; a releasing pod's slot frees with it */
	if (s->c->config.predicates &&
	    !fit_scalar(1, n->pods - ns->used_pods, ns->rel_pods, &rel))
		short_of(out, GT_REJECT_PODS);
	int32_t idle = gt_node_idle_gpus(s, node), releasing = gt_node_releasing_gpus(s, node);
	gt_reserve_shrink(s, pod, node, &idle, &releasing);	/* GPUs held for a gang */
	if (p->gpus > 0 && !gt_pod_is_shared(p) && !fit_scalar(p->gpus, idle, releasing, &rel))
		short_of(out, GT_REJECT_GPU);
	if (out->short_mask)
		return;
	out->needs_releasing = rel;
	if (gt_pod_is_shared(p) && !fit_shared(s, pod, node, mint, out)) {
		out->short_mask |= 1u << out->reject;
		return;
	}
	out->ok = true;
}

/* Count every reason a node was turned down for. */
static void count_rejects(uint32_t rejects[GT_N_REJECT], enum gt_reject predicate,
			  const struct gt_fit *fit)
{
	if (!rejects)
		return;
	if (predicate != GT_REJECT_NONE) {
		rejects[predicate]++;
		return;
	}
	for (int r = 1; r < GT_N_REJECT; r++)
		if (fit->short_mask & (1u << r))
			rejects[r]++;
}

void gt_fit_resources(struct gt_session *s, int32_t pod, int32_t node, struct gt_fit *out)
{
	fit_node(s, pod, node, true, out);
}

/* ---------------------------------------------------------------- predicates */

static bool tolerates(const struct gt_pod *p, const struct gt_taint *t)
{
	for (uint32_t i = 0; i < p->n_tolerations; i++) {
		const struct gt_toleration *tol = &p->tolerations[i];
		if (tol->effect != GT_TAINT_ANY && tol->effect != t->effect)
			continue;
		if (tol->key < 0) {
			if (tol->exists)
				return true;
			continue;
		}
		if ((uint32_t)tol->key != t->key)
			continue;
		if (tol->exists || tol->val == t->val)
			return true;
	}
	return false;
}

bool gt_node_affinity_ok(const struct gt_cluster *c, const struct gt_pod *p, const struct gt_node *n)
{
	for (uint32_t i = 0; i < p->node_selector.n; i++)
		if (gt_labels_get(&n->labels, p->node_selector.v[i].key) !=
		    (int64_t)p->node_selector.v[i].val)
			return false;
	if (!p->n_affinity_terms)
		return true;
	for (uint32_t i = 0; i < p->n_affinity_terms; i++)
		if (gt_selector_matches(&p->affinity_terms[i], &n->labels, c->names))
			return true;
	return false;
}

/* Does some placed pod matching @term share @node's domain of the topology key? */
static bool term_matched_near(const struct gt_session *s, int32_t self,
			      const struct gt_pod_affinity_term *term, int32_t node,
			      bool *any_match_out)
{
	const struct gt_cluster *c = s->c;
	int64_t domain = gt_labels_get(&c->nodes[node].labels, term->topology_key);
	bool near = false;
	for (uint32_t i = 0; i < c->n_pods && !near; i++) {
		const struct gt_pod_state *st = &s->pods[i];
		if ((int32_t)i == self || st->node < 0 || !gt_status_active_allocated(st->status))
			continue;
		if (!gt_term_covers_namespace(c, term, c->pods[i].ns))
			continue;
		if (!gt_selector_matches(&term->selector, &c->pods[i].labels, c->names))
			continue;
		*any_match_out = true;
		if (domain >= 0 &&
		    gt_labels_get(&c->nodes[st->node].labels, term->topology_key) == domain)
			near = true;
	}
	return near;
}

static enum gt_reject pod_affinity_check(const struct gt_session *s, int32_t pod, int32_t node)
{
	const struct gt_pod *p = &s->c->pods[pod];
	for (uint32_t i = 0; i < p->n_pod_affinity; i++) {
		const struct gt_pod_affinity_term *t = &p->pod_affinity[i];
		bool any = false;
		bool near = term_matched_near(s, pod, t, node, &any);
		if (t->anti && near)
			return GT_REJECT_POD_ANTI_AFFINITY;
		/* the first pod of a self-affine group may go anywhere (k8s rule) */
		if (!t->anti && !near &&
		    (any || !gt_selector_matches(&t->selector, &p->labels, s->c->names)))
			return GT_REJECT_POD_AFFINITY;
	}
	return GT_REJECT_NONE;
}

static bool ports_clash(const struct gt_host_port *a, const struct gt_host_port *b)
{
	return a->port == b->port && a->protocol == b->protocol &&
	       (a->host_ip == GT_ANY_HOST_IP || b->host_ip == GT_ANY_HOST_IP || a->host_ip == b->host_ip);
}

/* Are @pod's host ports free on @node? Every pod that holds the node counts,
 * a releasing one too (its ports are bound until it is gone). Rare, so a scan. */
static bool host_ports_free(const struct gt_session *s, int32_t pod, int32_t node)
{
	const struct gt_cluster *c = s->c;
	const struct gt_pod *p = &c->pods[pod];
	for (uint32_t i = 0; i < c->n_pods; i++) {
		const struct gt_pod *other = &c->pods[i];
		if ((int32_t)i == pod || !other->n_host_ports || s->pods[i].node != node ||
		    !gt_status_active_used(s->pods[i].status))
			continue;
		for (uint32_t a = 0; a < p->n_host_ports; a++)
			for (uint32_t b = 0; b < other->n_host_ports; b++)
				if (ports_clash(&p->host_ports[a], &other->host_ports[b]))
					return false;
	}
	return true;
}

enum gt_reject gt_check_predicates(const struct gt_session *s, int32_t pod, int32_t node)
{
	const struct gt_cluster *c = s->c;
	const struct gt_pod *p = &c->pods[pod];
	const struct gt_node *n = &c->nodes[node];
	/* KAI's dynamicresources plugin filters whether or not predicates are on */
	if (p->dra && !gt_dra_check(s, pod, node, NULL, 0))
		return GT_REJECT_DRA;
	if (!c->config.predicates)
		return GT_REJECT_NONE;
	if (!n->ready || n->unschedulable)
		return GT_REJECT_NOT_READY;
	if (!gt_node_affinity_ok(c, p, n))
		return GT_REJECT_SELECTOR;
	for (uint32_t i = 0; i < n->n_taints; i++)
		if (n->taints[i].effect != GT_TAINT_PREFER_NO_SCHEDULE && !tolerates(p, &n->taints[i]))
			return GT_REJECT_TAINT;
	if ((p->gpus > 0 || gt_pod_is_shared(p)) && n->mig_enabled && n->gpus == 0)
		return GT_REJECT_GPU_TYPE;
	if (p->gpu_mem_mib && !n->gpu_mem_synced)
		return GT_REJECT_GPU_MEMORY_UNKNOWN;
	if (p->n_host_ports && !host_ports_free(s, pod, node))
		return GT_REJECT_HOST_PORTS;
	if (p->n_pvcs) {
		enum gt_reject vr = gt_volumes_check(s, pod, node);
		if (vr != GT_REJECT_NONE)
			return vr;
	}
	if (p->n_pod_affinity)
		return pod_affinity_check(s, pod, node);
	return GT_REJECT_NONE;
}

/*
 * The numa plugin's predicate, on its own switch (core/numa.h). KAI runs
 * predicates after the resource fit: a node short of resources says so,
 * not that it cannot align them.
 */
static enum gt_reject numa_after_fit(const struct gt_session *s, int32_t pod, int32_t node, enum gt_reject r,
				     const struct gt_fit *fit)
{
	if (r == GT_REJECT_NONE && fit->ok && s->numa && !gt_numa_fits(s, pod, node))
		return GT_REJECT_NUMA;
	return r;
}

/* ---------------------------------------------------------------- node order */

static bool is_gpu_task(const struct gt_pod *p)
{
	return p->gpus > 0 || gt_pod_is_shared(p);
}

static bool is_cpu_only_task(const struct gt_cluster *c, const struct gt_pod *p)
{
	if (is_gpu_task(p))
		return false;
	for (uint32_t e = 0; e < c->n_ext; e++)
		if (p->ext[e])
			return false;
	return true;
}

/* What nodeplacement measures: free GPUs (devices) or free milli-CPU. */
static int64_t placement_free(const struct gt_session *s, const struct gt_pod *p, int32_t node,
			      int64_t *overall)
{
	const struct gt_node *n = &s->c->nodes[node];
	if (is_gpu_task(p)) {
		*overall = n->gpus;
		return (int64_t)gt_node_idle_gpus(s, node) + gt_node_releasing_gpus(s, node);
	}
	*overall = n->cpu_milli;
	return n->cpu_milli - s->nodes[node].used_cpu_milli + s->nodes[node].rel_cpu_milli;
}

/*
 * KAI's gpusharingorder: the node holds a shared GPU in use with room for
 * the pod. A pod that is not fractional asks no GPU memory of it, so KAI
 * draws whole-GPU and CPU-only pods to any node with a shared GPU in use
 * that is not all leaving (a snapshot run through KAI v0.17's snapshot-tool
 * put a CPU-only pod on a GPU node with notebooks, over a CPU node, for
 * this); the session keeps those nodes in its index (drawing).
 */
static bool has_fitting_group(const struct gt_session *s, int32_t pod, int32_t node)
{
	const struct gt_node_state *ns = &s->nodes[node];
	if (!gt_pod_is_shared(&s->c->pods[pod]))
		return gt_node_draws_pods(ns);
	int64_t portion = pod_portion(s, pod, node);
	for (uint32_t i = 0; i < ns->n_groups; i++)
		if (GROUP_FULL - ns->groups[i].used_milli >= portion)
			return true;
	return false;
}

/*
 * KAI's podaffinity plugin (kube-scheduler's InterPodAffinity score): the
 * weights of the pod's preferred affinity terms that a placed pod in the
 * node's domain satisfies, less those of its preferred anti-affinity terms.
 */
static int64_t preferred_affinity_score(const struct gt_session *s, int32_t pod, int32_t node)
{
	const struct gt_pod *p = &s->c->pods[pod];
	int64_t score = 0;
	for (uint32_t i = 0; i < p->n_preferred_affinity; i++) {
		const struct gt_pod_affinity_term *t = &p->preferred_affinity[i];
		bool any = false;
		if (term_matched_near(s, pod, t, node, &any))
			score += t->anti ? -t->weight : t->weight;
	}
	return score;
}

struct scored {
	int32_t node;
	int64_t free, overall;
	struct gt_fit fit;
};

/*
 * @scale * @part / @whole, truncated, with 0 <= @part <= @whole: a node's
 * free CPU is in millicores, and a node that claims billions of cores would
 * overflow the product in 64 bits (found by fuzzing the decoder).
 */
static int64_t share_of(int64_t scale, int64_t part, int64_t whole)
{
	return (int64_t)((__int128)scale * part / whole);
}

static int64_t score_node(const struct gt_session *s, const struct gt_place_ctx *ctx, int32_t pod,
			  const struct scored *sc, int64_t min_free, int64_t max_free)
{
	const struct gt_cluster *c = s->c;
	const struct gt_pod *p = &c->pods[pod];
	const struct gt_node *n = &c->nodes[sc->node];
	int64_t score = ctx->node_bonus ? ctx->node_bonus[sc->node] : 0;
	unsigned off = c->config.plugins_off;
	if (p->nominated_node == sc->node && !(off & (1u << GT_PLUGIN_NOMINATEDNODE)))
		score += 1000000LL * 1000;
	/* KAI weighs kube-scheduler's scores a tenth of a nominated node each point */
	if (p->n_preferred_affinity && !(off & (1u << GT_PLUGIN_PODAFFINITY)))
		score += 100000000LL * preferred_affinity_score(s, pod, sc->node);
	if (c->config.gpu_sharing_order && has_fitting_group(s, pod, sc->node))
		score += 1000LL * 1000;
	if (!sc->fit.needs_releasing && !(off & (1u << GT_PLUGIN_NODEAVAILABILITY)))
		score += 100LL * 1000;
	/* KAI's numa score, 1/span: below fitting now, above resource type and bin packing */
	if (s->numa)
		score += gt_numa_score(s, pod, sc->node, 90LL * 1000);
	if (is_cpu_only_task(c, p) && n->gpus == 0 && !n->mig_enabled &&
	    !(off & (1u << GT_PLUGIN_RESOURCETYPE)))
		score += 10LL * 1000;
	if (off & (1u << GT_PLUGIN_NODEPLACEMENT))
		return score;
	bool spread = is_gpu_task(p) ? c->config.gpu_spread : c->config.cpu_spread;
	if (sc->overall == 0)
		return score;
	if (spread)
		return score + share_of(1000, sc->free, sc->overall);
	if (max_free == 0)
		return score;
	if (min_free == max_free)
		return score + 9000;
	return score + share_of(9000, max_free - sc->free, max_free - min_free);
}

/*
 * The fast path for a GPU pod under binpack on the whole cluster. With the
 * scores above, the best node is the one with, in order: a shared GPU the
 * pod fits (shared pods), room without waiting for releases, the fewest free
 * GPUs (binpack's 0..9 is strictly monotone in free GPUs, which vary by at
 * most a node's device count), the first name. The index lists nodes by
 * free GPUs in name order, so the first node of the lowest bucket that fits
 * now is the best; nodes with shared GPUs that have room are looked at
 * separately. Equal to the full scan's choice. When nothing fits, the full
 * scan runs to give every reason (and remembers them: see no_fit).
 */
struct fast_key {
	int32_t node;
	bool group_fit, idle_fit;
	int32_t free_gpus;
	uint32_t rank;
};

static bool key_better(const struct fast_key *a, const struct fast_key *b)
{
	if (b->node == GT_NONE)
		return true;
	if (a->group_fit != b->group_fit)
		return a->group_fit;
	if (a->idle_fit != b->idle_fit)
		return a->idle_fit;
	if (a->free_gpus != b->free_gpus)
		return a->free_gpus < b->free_gpus;
	return a->rank < b->rank;
}

static bool fast_path_applies(const struct gt_session *s, const struct gt_place_ctx *ctx,
			      const struct gt_pod *p)
{
	const struct gt_config *cfg = &s->c->config;
	unsigned off = (1u << GT_PLUGIN_NODEAVAILABILITY) | (1u << GT_PLUGIN_NODEPLACEMENT);
	return is_gpu_task(p) && !cfg->exhaustive_placement && !cfg->gpu_spread && !(cfg->plugins_off & off) &&
	       p->nominated_node < 0 && !p->n_preferred_affinity && !ctx->node_bonus && p->num_devices <= 1 &&
	       s->index.by_free && !gt_numa_concerns(s, (int32_t)(p - s->c->pods));
}

/* Evaluate @node for the fast path; false if it cannot take the pod. */
static bool fast_eval(struct gt_session *s, int32_t pod, int32_t node, uint32_t rejects[GT_N_REJECT],
		      uint32_t *visited, struct fast_key *key)
{
	struct gt_fit fit = { 0 };
	(*visited)++;
	enum gt_reject r = gt_check_predicates(s, pod, node);
	if (r == GT_REJECT_NONE)
		fit_node(s, pod, node, false, &fit);
	r = numa_after_fit(s, pod, node, r, &fit);
	if (r != GT_REJECT_NONE || !fit.ok) {
		count_rejects(rejects, r, &fit);
		return false;
	}
	*key = (struct fast_key){
		.node = node,
		.group_fit = s->c->config.gpu_sharing_order && has_fitting_group(s, pod, node),
		.idle_fit = !fit.needs_releasing,
		.free_gpus = gt_node_idle_gpus(s, node) + gt_node_releasing_gpus(s, node),
		.rank = s->c->nodes[node].name_rank,
	};
	return true;
}

static uint64_t mask_word(const struct gt_place_ctx *ctx, uint32_t w)
{
	return ctx->node_mask ? ctx->node_mask[w] : ~0ULL;
}

/*
 * Can @node not take @pod however its releasing pods leave, for lack of CPU,
 * memory or, for a shared pod, a device with room? fit_node would refuse it
 * then, so the fast path may pass over the node without the full look: on a
 * cluster packed with fractional pods, thousands of nodes have a shared GPU
 * in use and nearly all of them are full. (A whole-GPU pod's devices are
 * best_favoured's: it starts at the bucket of that many free GPUs.)
 */
static bool cannot_hold(const struct gt_session *s, int32_t pod, int32_t node)
{
	const struct gt_pod *p = &s->c->pods[pod];
	const struct gt_node *n = &s->c->nodes[node];
	const struct gt_node_state *ns = &s->nodes[node];
	bool rel = false;
	if (!fits_cpu(p, n, ns, &rel) || !fits_memory(p, n, ns, &rel))
		return true;
	/* fit_shared's devices: groups with room (max_room is the most any has) and free ones
	 * (gt_reserve_shrink only takes devices away) */
	return gt_pod_is_shared(p) && ns->idle_gpus + ns->rel_gpus <= 0 &&
	       pod_portion(s, pod, node) > ns->max_room;
}

/*
 * The best of the @favoured nodes by key_better. They are looked at in key
 * order, by free GPUs from the fewest up and then by name, so the first that
 * takes the pod without waiting for releases (on a shared GPU it fits, when
 * gpusharingorder asks for that) is the best and ends the look: with
 * fractional pods packed across thousands of nodes, most are never
 * evaluated. The lowest and highest buckets also hold nodes whose free count
 * was clamped (below 0, above max_free), so there every node is looked at
 * before the order can be trusted. When no node qualifies early, all are
 * looked at, as a plain scan would. @rejects, when given, counts only the
 * nodes looked at (the fast path passes none).
 */
static struct fast_key best_favoured(struct gt_session *s, const struct gt_place_ctx *ctx, int32_t pod,
				     const uint64_t *favoured, uint32_t rejects[GT_N_REJECT], uint32_t *visited)
{
	const struct gt_node_index *ix = &s->index;
	struct fast_key best = { .node = GT_NONE }, k;
	/* without gpusharingorder no node has group_fit: the first that fits now is the best */
	bool can_group = s->c->config.gpu_sharing_order;
	/* a whole-GPU pod needs that many free devices: the buckets below cannot hold it */
	const struct gt_pod *p = &s->c->pods[pod];
	for (int32_t b = gt_pod_is_shared(p) ? 0 : p->gpus; b <= ix->max_free; b++) {
		bool exact = b > 0 && b < ix->max_free;
		for (uint32_t w = 0; w < ix->n_words; w++)
			for (uint64_t bits = favoured[w] & ix->by_free[b][w] & mask_word(ctx, w); bits;
			     bits &= bits - 1) {
				uint32_t rank = w * 64 + (uint32_t)__builtin_ctzll(bits);
				int32_t node = ix->node_at_rank[rank];
				if (cannot_hold(s, pod, node) || !fast_eval(s, pod, node, rejects, visited, &k) ||
				    !key_better(&k, &best))
					continue;
				best = k;
				if (exact && best.idle_fit && (best.group_fit || !can_group))
					return best;
			}
		if (best.idle_fit && (best.group_fit || !can_group))
			return best;	/* every later bucket has more free GPUs */
	}
	return best;
}

/*
 * Pass 1 looks only at nodes with enough idle GPUs (those can fit now), in
 * buckets of free GPUs from the fewest up: the first that fits now is the
 * binpack choice. Pass 2, when none fits now, takes the first node in the
 * same order that fits once releasing pods leave. Shared pods first look at
 * every node with a shared GPU that has room.
 */
static int32_t fast_best_node(struct gt_session *s, const struct gt_place_ctx *ctx, int32_t pod,
			      uint32_t rejects[GT_N_REJECT])
{
	const struct gt_node_index *ix = &s->index;
	const struct gt_pod *p = &s->c->pods[pod];
	struct fast_key shared = { .node = GT_NONE }, best = { .node = GT_NONE }, k;
	uint32_t visited = 0;
	/* nodes gpusharingorder favours beat every other node: a fractional pod's with room on a
	 * shared GPU, any other pod's with a shared GPU in use */
	const uint64_t *favoured = gt_pod_is_shared(p) ? ix->roomy : s->c->config.gpu_sharing_order ? ix->drawing : NULL;
	if (favoured) {
		shared = best_favoured(s, ctx, pod, favoured, rejects, &visited);
		if (shared.group_fit)
			return shared.node;
	}
	int32_t want = gt_pod_is_shared(p) ? 1 : p->gpus;
	uint64_t *idle_mask = s->fast_scratch;
	for (uint32_t w = 0; w < ix->n_words; w++) {
		uint64_t m = 0;
		for (int32_t b = want; b <= ix->max_free; b++)
			m |= ix->by_idle[b][w];
		idle_mask[w] = m & mask_word(ctx, w);
	}
	for (int pass = 0; pass < 2 && best.node == GT_NONE; pass++) {
		struct fast_key pipeline = { .node = GT_NONE };
		for (int32_t b = want; b <= ix->max_free && best.node == GT_NONE; b++) {
			for (uint32_t w = 0; w < ix->n_words && best.node == GT_NONE; w++) {
				uint64_t bits = ix->by_free[b][w] & (pass ? mask_word(ctx, w) : idle_mask[w]);
				for (; bits && best.node == GT_NONE; bits &= bits - 1) {
					uint32_t rank = w * 64 + (uint32_t)__builtin_ctzll(bits);
					if (!fast_eval(s, pod, ix->node_at_rank[rank], rejects, &visited, &k))
						continue;
					if (k.idle_fit || k.group_fit)
						best = k;
					else if (pass && key_better(&k, &pipeline))
						pipeline = k;
					/*
					 * Pass 2 sees no node that fits now (pass 1 would have
					 * taken it): for a whole-GPU pod the bucket's first fit,
					 * in name order, is its best.
					 */
					if (pass && pipeline.node != GT_NONE && !gt_pod_is_shared(p))
						break;
				}
				if (pass && pipeline.node != GT_NONE && !gt_pod_is_shared(p))
					break;
			}
			if (pass && pipeline.node != GT_NONE)
				break;	/* the lowest bucket's first node that fits after releases */
		}
		if (pass && best.node == GT_NONE)
			best = pipeline;
	}
	if (shared.node != GT_NONE && key_better(&shared, &best))
		best = shared;
	return best.node;
}

_Static_assert(GT_N_REJECT <= GT_MAX_REJECTS, "no_fit.rejects holds every reason");

static bool unconstrained(const struct gt_pod *p)
{
	return !p->node_selector.n && !p->n_affinity_terms && !p->n_tolerations &&
	       !p->n_pod_affinity && !p->n_host_ports && p->nominated_node < 0 && !p->n_pvcs && !p->dra;
}

static bool same_request(const struct gt_no_fit *nf, const struct gt_pod *p)
{
	return nf->gpus == p->gpus && nf->frac_milli == p->frac_milli &&
	       nf->num_devices == p->num_devices && nf->gpu_mem_mib == p->gpu_mem_mib &&
	       nf->cpu_milli == p->cpu_milli && nf->mem_bytes == p->mem_bytes &&
	       !memcmp(nf->ext, p->ext, sizeof(p->ext));
}

static bool known_no_fit(const struct gt_session *s, const struct gt_place_ctx *ctx,
			 const struct gt_pod *p, uint32_t rejects[GT_N_REJECT])
{
	if (!unconstrained(p) || ctx->node_bonus || ctx->node_mask || gt_numa_concerns(s, (int32_t)(p - s->c->pods)) ||
	    gt_reserve_holding(s))
		return false;
	for (int i = 0; i < GT_NO_FIT_SLOTS; i++) {
		const struct gt_no_fit *nf = &s->no_fit[i];
		if (!nf->valid || nf->epoch != s->epoch || !same_request(nf, p))
			continue;
		if (rejects)
			for (int r = 0; r < GT_N_REJECT; r++)
				rejects[r] += nf->rejects[r];
		return true;
	}
	return false;
}

static void remember_no_fit(struct gt_session *s, const struct gt_place_ctx *ctx,
			    const struct gt_pod *p, const uint32_t rejects[GT_N_REJECT])
{
	if (!unconstrained(p) || ctx->node_bonus || ctx->node_mask || !rejects ||
	    gt_numa_concerns(s, (int32_t)(p - s->c->pods)) || gt_reserve_holding(s))
		return;
	struct gt_no_fit *nf = &s->no_fit[s->no_fit_next++ % GT_NO_FIT_SLOTS];
	*nf = (struct gt_no_fit){
		.valid = true, .epoch = s->epoch, .gpus = p->gpus, .frac_milli = p->frac_milli,
		.num_devices = p->num_devices, .gpu_mem_mib = p->gpu_mem_mib,
		.cpu_milli = p->cpu_milli, .mem_bytes = p->mem_bytes,
	};
	memcpy(nf->ext, p->ext, sizeof(p->ext));
	memcpy(nf->rejects, rejects, GT_N_REJECT * sizeof(*rejects));
}

int32_t gt_best_node(struct gt_session *s, const struct gt_place_ctx *ctx, int32_t pod,
		     const int32_t *nodes, uint32_t n_nodes, struct gt_fit *fit_out, uint32_t rejects[GT_N_REJECT])
{
	const struct gt_cluster *c = s->c;
	if (!nodes && known_no_fit(s, ctx, &c->pods[pod], rejects))
		return GT_NONE;
	if (!nodes && fast_path_applies(s, ctx, &c->pods[pod])) {
		/* the fast path finds the node; only a failure needs every reason */
		int32_t best = fast_best_node(s, ctx, pod, NULL);
		if (best != GT_NONE)
			fit_node(s, pod, best, true, fit_out);
		if (best != GT_NONE || !rejects)
			return best;
	}
	if (!nodes)
		n_nodes = c->n_nodes;
	if (!s->scratch)
		s->scratch = gt_xmalloc((c->n_nodes + 1) * sizeof(struct scored));
	struct scored *fits = s->scratch;
	uint32_t n_fit = 0;
	int64_t min_free = INT64_MAX, max_free = 0;
	for (uint32_t i = 0; i < n_nodes; i++) {
		int32_t node = nodes ? nodes[i] : (int32_t)i;
		uint32_t rank = c->nodes[node].name_rank;
		if (!nodes && !(mask_word(ctx, rank / 64) & (1ULL << (rank % 64))))
			continue;
		struct scored *sc = &fits[n_fit];
		memset(&sc->fit, 0, sizeof(sc->fit));
		enum gt_reject r = gt_check_predicates(s, pod, node);
		if (r == GT_REJECT_NONE)
			fit_node(s, pod, node, false, &sc->fit);
		r = numa_after_fit(s, pod, node, r, &sc->fit);
		if (r != GT_REJECT_NONE || !sc->fit.ok) {
			count_rejects(rejects, r, &sc->fit);
			continue;
		}
		sc->node = node;
		sc->free = placement_free(s, &c->pods[pod], node, &sc->overall);
		if (sc->overall > 0) {
			min_free = sc->free < min_free ? sc->free : min_free;
			max_free = sc->free > max_free ? sc->free : max_free;
		}
		n_fit++;
	}
	int32_t best = GT_NONE;
	int64_t best_score = 0;
	uint32_t best_rank = 0;
	for (uint32_t i = 0; i < n_fit; i++) {
		int64_t sc = score_node(s, ctx, pod, &fits[i], min_free, max_free);
		uint32_t rank = c->nodes[fits[i].node].name_rank;
		if (best == GT_NONE || sc > best_score || (sc == best_score && rank < best_rank)) {
			best = fits[i].node;
			best_score = sc;
			best_rank = rank;
		}
	}
	if (best != GT_NONE)
		fit_node(s, pod, best, true, fit_out);
	else if (!nodes)
		remember_no_fit(s, ctx, &c->pods[pod], rejects);
	return best;
}

/*
 * KAI's fit-error text: "<base>: <count> <reason>. \n<count> <reason>." with
 * the "<count> <reason>" strings sorted, so that users see the same words
 * either scheduler writes.
 */
void gt_format_fit_error(const uint32_t rejects[GT_N_REJECT], char *buf, size_t len)
{
	char items[GT_N_REJECT][160];
	int n = 0;
	for (int r = 1; r < GT_N_REJECT; r++)
		if (rejects[r])
			snprintf(items[n++], sizeof(items[0]), "%u %s", rejects[r], reject_texts[r]);
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && strcmp(items[k - 1], items[k]) > 0; k--) {
			char t[160];
			memcpy(t, items[k], sizeof(t));
			memcpy(items[k], items[k - 1], sizeof(t));
			memcpy(items[k - 1], t, sizeof(t));
		}
	size_t off = (size_t)snprintf(buf, len, "no nodes with enough resources were found");
	for (int i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ". \n" : ": ", items[i]);
	if (n && off < len)
		snprintf(buf + off, len - off, ".");
}
