#include "core/cluster.h"

#include "core/numa.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/num.h"

static const char *const status_names[] = {
#define GT_STATUS_NAME(name, text) text,
	GT_STATUS_MAP(GT_STATUS_NAME)
#undef GT_STATUS_NAME
};

const char *gt_status_name(enum gt_status s)
{
	return (unsigned)s < GT_N_STATUS ? status_names[s] : "Unknown";
}

void gt_config_defaults(struct gt_config *c)
{
	memset(c, 0, sizeof(*c));
	c->predicates = true;
	c->gpu_sharing_order = true;
	c->staleness_grace_s = 60;
	c->stuck_releasing_s = 120;	/* KAI's DefaultStuckInReleasingThreshold */
	c->max_consolidation_preemptees = 16;
	c->scheduling_signatures = true;	/* KAI's --use-scheduling-signatures */
	c->job_messages = true;
	c->allow_consolidating_reclaim = true;
	c->k_value = 1.0;
	c->saturation_multiplier = 1.0;
	/* KAI's defaults: 5m an action, 4m a job, 2m a generator (30s NodeLocalGreedy) */
	c->search = (struct gt_search_budgets){
		.reclaim_ms = 300000, .preempt_ms = 300000, .consolidation_ms = 300000,
		.job_ms = 240000, .min_job_ms = 0,
		.generator_ms = { [GT_GEN_NODE_LOCAL_GREEDY] = 30000, [GT_GEN_MULTI_NODE_GANG] = 120000 },
	};
	for (size_t a = 0; a < sizeof(c->queue_depth_per_action) / sizeof(c->queue_depth_per_action[0]); a++)
		c->queue_depth_per_action[a] = -1;	/* no queueDepthPerAction: every job */
	c->usage.window_s = 7 * 86400;	/* KAI's defaults (usagedb/api/defaults.go) */
	c->usage.fetch_interval_s = 60;
	c->reserve = (struct gt_reserve_params){ .max = 4, .share = 0.5, .wait_s = 3600,
						 .hold_s = 6 * 3600 };
}

enum gt_status gt_pod_status_at(const struct gt_pod *p, const struct gt_config *c, int64_t now)
{
	if (p->status == GT_RELEASING && p->deleted_at && now - p->deleted_at > c->stuck_releasing_s)
		return GT_STUCK_RELEASING;
	return p->status;
}

void gt_config_override(struct gt_config *c, const struct gt_config_overrides *o)
{
	if (o->has_staleness_grace)
		c->staleness_grace_s = o->staleness_grace_s;
	if (o->has_stuck_releasing)
		c->stuck_releasing_s = o->stuck_releasing_s;
	if (o->has_max_consolidation_preemptees)
		c->max_consolidation_preemptees = o->max_consolidation_preemptees;
	if (o->has_allow_consolidating_reclaim)
		c->allow_consolidating_reclaim = o->allow_consolidating_reclaim;
	if (o->has_scheduling_signatures)
		c->scheduling_signatures = o->scheduling_signatures;
	if (o->has_csi_storage)
		c->csi_storage = o->csi_storage;
	if (o->has_saturation_multiplier)
		c->saturation_multiplier = o->saturation_multiplier;
}

void gt_cluster_init(struct gt_cluster *c, struct gt_strtab *names)
{
	memset(c, 0, sizeof(*c));
	c->names = names;
	gt_config_defaults(&c->config);
}

void gt_labels_release(struct gt_labels *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void gt_selector_release(struct gt_selector *s)
{
	for (uint32_t i = 0; i < s->n_exprs; i++)
		free(s->exprs[i].vals);
	free(s->exprs);
	s->exprs = NULL;
	s->n_exprs = 0;
}

void gt_pod_release(struct gt_pod *p)
{
	gt_labels_release(&p->labels);
	gt_labels_release(&p->node_selector);
	for (uint32_t i = 0; i < p->n_affinity_terms; i++)
		gt_selector_release(&p->affinity_terms[i]);
	free(p->affinity_terms);
	free(p->tolerations);
	gt_numa_pod_free(p->numa);
	p->numa = NULL;
	for (uint32_t i = 0; i < p->n_pod_affinity; i++)
	{
		gt_selector_release(&p->pod_affinity[i].selector);
		gt_selector_release(&p->pod_affinity[i].ns_selector);
		free(p->pod_affinity[i].namespaces);
	}
	free(p->pod_affinity);
	for (uint32_t i = 0; i < p->n_preferred_affinity; i++) {
		gt_selector_release(&p->preferred_affinity[i].selector);
		gt_selector_release(&p->preferred_affinity[i].ns_selector);
		free(p->preferred_affinity[i].namespaces);
	}
	free(p->preferred_affinity);
	free(p->host_ports);
	free(p->configmaps);
	free(p->pvcs);
}

void gt_node_release(struct gt_node *n)
{
	gt_labels_release(&n->labels);
	free(n->taints);
}

void gt_job_release(struct gt_job *j)
{
	free(j->podsets);
	free(j->groups);
	free(j->pods);
}

void gt_cluster_release(struct gt_cluster *c)
{
	for (uint32_t i = 0; i < c->n_nodes; i++)
		gt_node_release(&c->nodes[i]);
	for (uint32_t i = 0; i < c->n_pods; i++)
		gt_pod_release(&c->pods[i]);
	for (uint32_t i = 0; i < c->n_jobs; i++)
		gt_job_release(&c->jobs[i]);
	for (uint32_t i = 0; i < c->n_queues; i++)
		free(c->queues[i].children);
	free(c->configmaps);
	gt_numa_nodes_release(c);
	for (uint32_t i = 0; i < c->n_topologies; i++) {
		free(c->topologies[i].levels);
		free(c->topologies[i].aliases);
	}
	gt_cluster_release_storage(c);
	gt_cluster_release_namespaces(c);
	free(c->nodes);
	free(c->pods);
	free(c->jobs);
	free(c->queues);
	free(c->topologies);
	gt_dra_release(&c->dra);
	struct gt_strtab *names = c->names;
	memset(c, 0, sizeof(*c));
	c->names = names;
}

int64_t gt_labels_get(const struct gt_labels *l, uint32_t key)
{
	uint32_t lo = 0, hi = l->n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (l->v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n && l->v[lo].key == key ? (int64_t)l->v[lo].val : -1;
}

static int label_cmp(const void *a, const void *b)
{
	const struct gt_label *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

void gt_labels_sort(struct gt_labels *l)
{
	/* stable enough: duplicates are resolved by keeping the later entry */
	for (uint32_t i = 0; i < l->n; i++)
		for (uint32_t j = i + 1; j < l->n; j++)
			if (l->v[j].key == l->v[i].key) {
				l->v[i].val = l->v[j].val;
				l->v[j] = l->v[--l->n];
				j--;
			}
	qsort(l->v, l->n, sizeof(*l->v), label_cmp);
}

static bool expr_matches(const struct gt_sel_expr *e, const struct gt_labels *l,
			 const struct gt_strtab *names)
{
	int64_t v = gt_labels_get(l, e->key);
	switch (e->op) {
	case GT_SEL_EXISTS:
		return v >= 0;
	case GT_SEL_NOT_EXISTS:
		return v < 0;
	case GT_SEL_IN:
	case GT_SEL_NOT_IN: {
		bool found = false;
		for (uint32_t i = 0; v >= 0 && i < e->n_vals; i++)
			found |= e->vals[i] == (uint32_t)v;
		return e->op == GT_SEL_IN ? found : !found;
	}
	case GT_SEL_GT:
	case GT_SEL_LT: {
		if (v < 0)
			return false;
		int64_t n;
		if (gt_parse_int(gt_strtab_str(names, (uint32_t)v), &n))
			return false;
		return e->op == GT_SEL_GT ? n > e->num : n < e->num;
	}
	}
	return false;
}

bool gt_selector_matches(const struct gt_selector *s, const struct gt_labels *l,
			 const struct gt_strtab *names)
{
	for (uint32_t i = 0; i < s->n_exprs; i++)
		if (!expr_matches(&s->exprs[i], l, names))
			return false;
	return true;
}

static void rank_nodes(struct gt_cluster *c)
{
	uint32_t *idx = gt_xmalloc((c->n_nodes + 1) * sizeof(*idx));
	for (uint32_t i = 0; i < c->n_nodes; i++)
		idx[i] = i;
	/* binary insertion: O(n log n) compares, O(n^2) moves of 4 bytes */
	for (uint32_t i = 1; i < c->n_nodes; i++) {
		uint32_t x = idx[i], lo = 0, hi = i;
		const char *nx = gt_strtab_str(c->names, c->nodes[x].name);
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;
			if (strcmp(gt_strtab_str(c->names, c->nodes[idx[mid]].name), nx) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		memmove(&idx[lo + 1], &idx[lo], (i - lo) * sizeof(*idx));
		idx[lo] = x;
	}
	for (uint32_t i = 0; i < c->n_nodes; i++)
		c->nodes[idx[i]].name_rank = i;
	free(idx);
}

uint32_t gt_queue_path(const struct gt_cluster *c, int32_t q, int32_t out[64])
{
	int32_t rev[64];
	uint32_t n = 0;
	for (; q != GT_NONE && n < 64; q = c->queues[q].parent)
		rev[n++] = q;
	for (uint32_t i = 0; i < n; i++)
		out[i] = rev[n - 1 - i];
	return n;
}

void gt_cluster_link(struct gt_cluster *c)
{
	rank_nodes(c);
	for (uint32_t j = 0; j < c->n_jobs; j++)
		c->jobs[j].n_pods = 0;
	for (uint32_t q = 0; q < c->n_queues; q++)
		c->queues[q].n_children = 0;
	for (uint32_t i = 0; i < c->n_pods; i++) {
		struct gt_pod *p = &c->pods[i];
		if (p->job == GT_NONE)
			continue;
		struct gt_job *j = &c->jobs[p->job];
		GT_PUSH(j->pods, j->n_pods, j->cap_pods, (int32_t)i);
	}
	for (uint32_t q = 0; q < c->n_queues; q++) {
		int32_t parent = c->queues[q].parent;
		if (parent == GT_NONE)
			continue;
		struct gt_queue *pq = &c->queues[parent];
		GT_PUSH(pq->children, pq->n_children, pq->cap_children, (int32_t)q);
	}
}
