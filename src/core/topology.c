#include "core/topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/order.h"
#include "util/mem.h"

struct domain {
	int32_t level;		/* -1: the whole node set */
	uint32_t key_node;	/* a node of the domain: its labels name the domain */
	int32_t *nodes;
	uint32_t n;
	double fit_ratio;	/* dominant job request / domain free: larger = fuller */
	int64_t pods;		/* how many of the tasks fit */
};

/* Copies of the largest task that fit on @node's idle and releasing resources. */
static int64_t copies_on_node(const struct gt_session *s, int32_t node, const int64_t want[4],
			      int64_t portion, int64_t cap)
{
	const struct gt_node *n = &s->c->nodes[node];
	const struct gt_node_state *ns = &s->nodes[node];
	int64_t have[4] = {
		(int64_t)gt_node_idle_gpus(s, node) + gt_node_releasing_gpus(s, node),
		n->cpu_milli - ns->used_cpu_milli + ns->rel_cpu_milli,
		n->mem_bytes - ns->used_mem_bytes + ns->rel_mem_bytes,
		n->pods - ns->used_pods + ns->rel_pods,
	};
	int64_t k = cap;
	for (int r = 0; r < 4; r++)
		if (want[r] > 0 && have[r] / want[r] < k)
			k = have[r] / want[r];
	if (portion > 0) {
		int64_t shared = have[0] * (1000 / portion);
		for (uint32_t g = 0; g < ns->n_groups; g++)
			shared += (1000 - ns->groups[g].used_milli + ns->groups[g].releasing_milli) / portion;
		if (shared < k)
			k = shared;
	}
	return k < 0 ? 0 : k;
}

static void largest_task(const struct gt_session *s, const int32_t *tasks, uint32_t n,
			 int64_t want[4], int64_t *portion, int64_t total[GT_NQRES])
{
	memset(want, 0, 4 * sizeof(*want));
	*portion = 0;
	memset(total, 0, GT_NQRES * sizeof(*total));
	for (uint32_t i = 0; i < n; i++) {
		const struct gt_pod *p = &s->c->pods[tasks[i]];
		int64_t v[4] = { p->gpus, p->cpu_milli, p->mem_bytes, 1 };
		for (int r = 0; r < 4; r++)
			want[r] = v[r] > want[r] ? v[r] : want[r];
		if (p->frac_milli > *portion)
			*portion = p->frac_milli;
		if (p->gpu_mem_mib && *portion < 100)
			*portion = 100;	/* a GPU-memory pod: assume a tenth of a device at least */
		int64_t res[GT_NQRES];
		gt_pod_queue_res(s, tasks[i], GT_NONE, res);
		for (int r = 0; r < GT_NQRES; r++)
			total[r] += res[r];
	}
}

static bool node_in_topology(const struct gt_cluster *c, const struct gt_topology *t, int32_t node)
{
	for (uint32_t l = 0; l < t->n_levels; l++)
		if (gt_labels_get(&c->nodes[node].labels, t->levels[l]) < 0)
			return false;
	return true;
}

/* Do @a and @b share the domain of @level (equal labels of levels 0..level)? */
static bool same_domain(const struct gt_cluster *c, const struct gt_topology *t, int32_t level,
			int32_t a, int32_t b)
{
	for (int32_t l = 0; l <= level; l++)
		if (gt_labels_get(&c->nodes[a].labels, t->levels[l]) !=
		    gt_labels_get(&c->nodes[b].labels, t->levels[l]))
			return false;
	return true;
}

/* Domain IDs compare as their label values, widest level first. */
static int domain_id_cmp(const struct gt_cluster *c, const struct gt_topology *t,
			 const struct domain *a, const struct domain *b)
{
	for (int32_t l = 0; l <= a->level && l <= b->level; l++) {
		int64_t va = gt_labels_get(&c->nodes[a->key_node].labels, t->levels[l]);
		int64_t vb = gt_labels_get(&c->nodes[b->key_node].labels, t->levels[l]);
		if (va == vb)
			continue;
		return strcmp(gt_strtab_str(c->names, (uint32_t)va), gt_strtab_str(c->names, (uint32_t)vb));
	}
	return 0;
}

static void measure(struct gt_session *s, struct domain *d, const int64_t want[4], int64_t portion,
		    uint32_t n_tasks, const int64_t total[GT_NQRES])
{
	int64_t free_res[GT_NQRES] = { 0 };
	d->pods = 0;
	for (uint32_t i = 0; i < d->n; i++) {
		int32_t node = d->nodes[i];
		const struct gt_node *n = &s->c->nodes[node];
		const struct gt_node_state *ns = &s->nodes[node];
		d->pods += copies_on_node(s, node, want, portion, n_tasks);
		free_res[GT_QGPU] += 1000LL * (gt_node_idle_gpus(s, node) + gt_node_releasing_gpus(s, node));
		free_res[GT_QCPU] += n->cpu_milli - ns->used_cpu_milli + ns->rel_cpu_milli;
		free_res[GT_QMEM] += n->mem_bytes - ns->used_mem_bytes + ns->rel_mem_bytes;
	}
	d->fit_ratio = 0;
	for (int r = 0; r < GT_NQRES; r++) {
		if (total[r] <= 0)
			continue;
		double v = free_res[r] > 0 ? (double)total[r] / (double)free_res[r] : 1000.0;
		if (v > d->fit_ratio)
			d->fit_ratio = v;
	}
}

/* Group @nodes into the domains of @level. */
static uint32_t domains_at(const struct gt_cluster *c, const struct gt_topology *t, int32_t level,
			   const int32_t *nodes, uint32_t n, struct domain **out)
{
	struct domain *d = NULL;
	uint32_t nd = 0, cap = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = 0;
		while (k < nd && !same_domain(c, t, level, (int32_t)d[k].key_node, nodes[i]))
			k++;
		if (k == nd) {
			struct domain nw = { .level = level, .key_node = (uint32_t)nodes[i] };
			nw.nodes = gt_xmalloc((n + 1) * sizeof(*nw.nodes));
			GT_PUSH(d, nd, cap, nw);
		}
		d[k].nodes[d[k].n++] = nodes[i];
	}
	*out = d;
	return nd;
}

static void sort_domains(const struct gt_cluster *c, const struct gt_topology *t, struct domain *d,
			 uint32_t n)
{
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t k = i; k > 0; k--) {
			struct domain *a = &d[k - 1], *b = &d[k];
			bool swap = a->fit_ratio < b->fit_ratio ||
				    (a->fit_ratio == b->fit_ratio && domain_id_cmp(c, t, a, b) > 0);
			if (!swap)
				break;
			struct domain x = *a;
			*a = *b;
			*b = x;
		}
}

static void free_domains(struct domain *d, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(d[i].nodes);
	free(d);
}

/*
 * A (sub-)group that already runs pods - running before this cycle, in the
 * podsets these tasks belong to - must stay in the domain that holds them.
 */
static bool holds_running_pods(const struct gt_session *s, int32_t job, const int32_t *tasks,
			       uint32_t n_tasks, const struct domain *d)
{
	const struct gt_job *j = &s->c->jobs[job];
	bool any_running = false;
	for (uint32_t i = 0; i < j->n_pods; i++) {
		const struct gt_pod *p = &s->c->pods[j->pods[i]];
		const struct gt_pod_state *st = &s->pods[j->pods[i]];
		bool same_scope = false;
		for (uint32_t t = 0; t < n_tasks && !same_scope; t++)
			same_scope = s->c->pods[tasks[t]].podset == p->podset;
		if (!same_scope || !gt_status_active_allocated(p->status) ||
		    !gt_status_active_allocated(st->status) || st->node < 0)
			continue;
		any_running = true;
		for (uint32_t k = 0; k < d->n; k++)
			if (d->nodes[k] == st->node)
				return true;
	}
	return !any_running;
}

/* KAI's preferred-level score: domain i of n in sorted order gets floor(10(i+1)/n) x 10^4. */
static void set_preferred_bonus(struct gt_session *s, struct gt_place_ctx *ctx,
				const struct gt_topology *t, int32_t level, const int32_t *nodes, uint32_t n, const int64_t want[4],
				int64_t portion, uint32_t n_tasks, const int64_t total[GT_NQRES])
{
	struct domain *d;
	uint32_t nd = domains_at(s->c, t, level, nodes, n, &d);
	for (uint32_t i = 0; i < nd; i++)
		measure(s, &d[i], want, portion, n_tasks, total);
	sort_domains(s->c, t, d, nd);
	if (!ctx->node_bonus)
		ctx->node_bonus = gt_xcalloc(s->c->n_nodes + 1, sizeof(*ctx->node_bonus));
	for (uint32_t i = 0; i < nd; i++)
		for (uint32_t k = 0; k < d[i].n; k++)
			ctx->node_bonus[d[i].nodes[k]] = (int64_t)(10 * (i + 1) / nd) * 10000 * 1000;
	free_domains(d, nd);
}

void gt_topology_clear_bonus(struct gt_place_ctx *ctx)
{
	free(ctx->node_bonus);
	ctx->node_bonus = NULL;
}

void gt_nodesets_free(struct gt_nodeset *sets, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(sets[i].nodes);
	free(sets);
}

static void push_set(struct gt_nodeset **out, uint32_t *n, uint32_t *cap, const int32_t *nodes,
		     uint32_t count)
{
	struct gt_nodeset ns = { .n = count };
	ns.nodes = gt_xmalloc((count + 1) * sizeof(*ns.nodes));
	memcpy(ns.nodes, nodes, count * sizeof(*nodes));
	GT_PUSH(*out, *n, *cap, ns);
}

uint32_t gt_topology_subsets(struct gt_session *s, struct gt_place_ctx *ctx, int32_t job,
			     const struct gt_topology_constraint *tc, const int32_t *tasks,
			     uint32_t n_tasks, const int32_t *nodes, uint32_t n_nodes,
			     struct gt_nodeset **out, char *err, size_t err_len)
{
	const struct gt_cluster *c = s->c;
	uint32_t n_out = 0, cap = 0;
	*out = NULL;
	if (tc->topology == GT_NONE || (tc->required_level == GT_NONE && tc->preferred_level == GT_NONE)) {
		push_set(out, &n_out, &cap, nodes, n_nodes);
		return n_out;
	}
	const struct gt_topology *t = &c->topologies[tc->topology];
	int32_t *in = gt_xmalloc((n_nodes + 1) * sizeof(*in));
	uint32_t n_in = 0;
	for (uint32_t i = 0; i < n_nodes; i++)
		if (node_in_topology(c, t, nodes[i]))
			in[n_in++] = nodes[i];
	int64_t want[4], portion, total[GT_NQRES];
	largest_task(s, tasks, n_tasks, want, &portion, total);
	int32_t narrow = tc->preferred_level != GT_NONE ? tc->preferred_level : tc->required_level;
	int32_t wide = tc->required_level != GT_NONE ? tc->required_level : -1;
	for (int32_t level = narrow; level >= wide; level--) {
		struct domain *d;
		uint32_t nd;
		if (level < 0) {
			d = gt_xcalloc(1, sizeof(*d));
			d->level = -1;
			d->nodes = gt_xmalloc((n_in + 1) * sizeof(*d->nodes));
			memcpy(d->nodes, in, n_in * sizeof(*in));
			d->n = n_in;
			nd = 1;
		} else {
			nd = domains_at(c, t, level, in, n_in, &d);
		}
		for (uint32_t i = 0; i < nd; i++)
			measure(s, &d[i], want, portion, n_tasks, total);
		if (level >= 0)
			sort_domains(c, t, d, nd);
		for (uint32_t i = 0; i < nd; i++)
			if (d[i].pods >= (int64_t)n_tasks &&
			    (tc->required_level == GT_NONE ||
			     holds_running_pods(s, job, tasks, n_tasks, &d[i])))
				push_set(out, &n_out, &cap, d[i].nodes, d[i].n);
		free_domains(d, nd);
	}
	if (n_out && tc->preferred_level != GT_NONE)
		set_preferred_bonus(s, ctx, t, tc->preferred_level, in, n_in, want, portion, n_tasks, total);
	if (!n_out) {
		int32_t lvl = tc->required_level != GT_NONE ? tc->required_level : tc->preferred_level;
		snprintf(err, err_len,
			 "topology %s, requirement %s couldn't be satisfied for job %s/%s: not enough resources in any %s domain to allocate the job",
			 gt_strtab_str(c->names, t->name), gt_strtab_str(c->names, t->levels[lvl]),
			 gt_strtab_str(c->names, c->jobs[job].ns), gt_strtab_str(c->names, c->jobs[job].name),
			 gt_strtab_str(c->names, t->levels[lvl]));
	}
	free(in);
	return n_out;
}
