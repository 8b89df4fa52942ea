#include "replay/setup.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/decode.h"
#include "api/doc.h"
#include "api/manifest.h"
#include "util/mem.h"

#define QUEUE_EPOCH (GT_TRACE_EPOCH - 1000000)	/* queues are older than any job */

void gt_replay_gen_nodes(struct gt_cluster *c, uint32_t n, int32_t gpus)
{
	GT_GROW(c->nodes, c->n_nodes + n, c->cap_nodes);
	for (uint32_t i = 0; i < n; i++) {
		struct gt_node *nd = &c->nodes[c->n_nodes++];
		char name[32];
		memset(nd, 0, sizeof(*nd));
		snprintf(name, sizeof(name), "node-%04u", i);
		nd->name = gt_strtab_intern(c->names, name);
		nd->ready = true;
		nd->cpu_milli = 128000;
		nd->mem_bytes = INT64_C(1) << 40;
		nd->pods = 110;
		nd->gpus = gpus;
		nd->gpu_mem_mib = 100;	/* unknown, as for a node without the label */
	}
}

/* ---------------------------------------------------------------- -f files */

static bool cluster_kind(const char *kind)
{
	/* DRA: the devices and classes (a class lending its devices to nvidia.com/gpu gives the
	 * trace's GPUs); claims are the workload's, which the trace brings */
	static const char *const kinds[] = { "Node", "Queue", "PriorityClass", "Topology",
					     "SchedulingShard", "DeviceClass", "ResourceSlice" };
	for (size_t i = 0; kind && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i]))
			return true;
	return false;
}

/* Add the cluster objects of @d (a List's items one by one) to the decoder. */
static void add_objects(struct gt_decoder *dec, struct gt_doc *d, uint32_t *skipped)
{
	const char *kind = gt_doc_str(d, "kind");
	const struct gt_doc *items = gt_doc_get(d, "items");
	if (kind && !strcmp(kind, "List") && items && items->kind == GT_DOC_SEQ) {
		for (size_t i = 0; i < items->n; i++)
			add_objects(dec, items->items[i], skipped);
		return;
	}
	if (cluster_kind(kind))
		gt_decoder_add(dec, d);
	else if (skipped)
		(*skipped)++;
}

int gt_replay_load_cluster(struct gt_cluster *c, const char *const *files, size_t n_files, bool recursive,
			   const struct json_t *conf_spec, uint32_t *skipped, FILE *diag, struct gt_err *err)
{
	struct gt_doc_list docs = { 0 };
	struct gt_decoder dec;
	gt_decoder_init(&dec);
	dec.conf_spec = conf_spec;
	int rc = n_files ? gt_manifests_load(files, n_files, recursive, &docs, diag, "gantry replay", err) : 0;
	if (!rc) {
		for (size_t i = 0; i < docs.n; i++)
			add_objects(&dec, docs.docs[i], skipped);
		rc = gt_decoder_build(&dec, c, err);
		size_t bad = diag ? gt_decoder_report(&dec, diag, "gantry replay") : 0;
		if (bad)
			rc = gt_errf(err, GT_EINVAL, "%zu object%s of the cluster rejected (listed above)", bad,
				     bad == 1 ? "" : "s");
	}
	gt_decoder_release(&dec);
	gt_doc_list_release(&docs);
	return rc;
}

/* ---------------------------------------------------------------- queues */

static int32_t find_queue(const struct gt_cluster *c, const char *name)
{
	int64_t id = gt_strtab_find(c->names, name);
	for (uint32_t q = 0; id >= 0 && q < c->n_queues; q++)
		if (c->queues[q].name == (uint32_t)id)
			return (int32_t)q;
	return GT_NONE;
}

/* A top-level queue: GPU quota @deserved_milli, weight 1, no limits, CPU/memory unlimited. */
static int32_t add_queue(struct gt_cluster *c, const char *name, int64_t deserved_milli)
{
	GT_GROW(c->queues, c->n_queues + 1, c->cap_queues);
	int32_t idx = (int32_t)c->n_queues++;
	struct gt_queue *q = &c->queues[idx];
	memset(q, 0, sizeof(*q));
	q->name = gt_strtab_intern(c->names, name);
	q->parent = GT_NONE;
	q->priority = 100;
	q->created = QUEUE_EPOCH + idx;
	q->preempt_min_runtime_s = q->reclaim_min_runtime_s = -1;
	for (int r = 0; r < GT_NQRES; r++) {
		q->deserved[r] = -1;
		q->limit[r] = -1;
		q->weight[r] = 1.0;
	}
	q->deserved[GT_QGPU] = deserved_milli;
	return idx;
}

static bool is_leaf(const struct gt_cluster *c, int32_t q)
{
	for (uint32_t i = 0; i < c->n_queues; i++)
		if (c->queues[i].parent == q)
			return false;
	return true;
}

static int64_t cluster_gpus(const struct gt_cluster *c)
{
	int64_t g = 0;
	for (uint32_t n = 0; n < c->n_nodes; n++)
		g += c->nodes[n].gpus > 0 ? c->nodes[n].gpus : 0;
	return g;
}

/* The VC's quota: its share of the VC nodes, applied to the cluster's GPUs. */
static int64_t vc_quota(const struct gt_cluster *c, const struct gt_queue_setup *qs,
			const char *name, bool *listed)
{
	int64_t all = 0, mine = 0;
	*listed = false;
	for (uint32_t i = 0; i < qs->n_vcs; i++) {
		all += qs->vcs[i].nodes;
		if (!strcmp(qs->vcs[i].name, name)) {
			mine = qs->vcs[i].nodes;
			*listed = true;
		}
	}
	return all > 0 ? cluster_gpus(c) * 1000 * mine / all : 0;
}

/* The catch-all queue: "default", found or made. */
static int32_t default_queue(struct gt_cluster *c, bool quotas)
{
	int32_t q = find_queue(c, "default");
	if (q != GT_NONE)
		return q;
	/*
	 * Alone it deserves the whole cluster (non-preemptible jobs must fit in
	 * a quota); next to VCs with quotas it lives on what they leave over.
	 */
	return add_queue(c, "default", quotas ? 0 : cluster_gpus(c) * 1000);
}

int gt_replay_make_queues(struct gt_cluster *c, const struct gt_trace *t,
			  const struct gt_queue_setup *qs, int32_t *tenant_queue,
			  int32_t *dflt, struct gt_err *err)
{
	bool quotas = qs->vcs && qs->n_vcs && !qs->single;
	uint32_t n_tenants = (uint32_t)t->tenants.n_strs;
	*dflt = GT_NONE;
	for (uint32_t i = 0; i < n_tenants; i++) {
		const char *name = gt_strtab_str(&t->tenants, i);
		int32_t q = qs->single ? GT_NONE : find_queue(c, name);
		bool listed = false;
		int64_t quota = quotas ? vc_quota(c, qs, name, &listed) : 0;
		if (q == GT_NONE && !qs->single && (!quotas || listed))
			q = add_queue(c, name, quota);
		if (q == GT_NONE) {
			if (*dflt == GT_NONE)
				*dflt = default_queue(c, quotas);
			q = *dflt;
		}
		tenant_queue[i] = q;
	}
	bool untenanted = false;
	for (uint32_t i = 0; i < t->n_jobs && !untenanted; i++)
		untenanted = t->jobs[i].tenant == GT_NONE;
	if (*dflt == GT_NONE)
		*dflt = untenanted || !n_tenants ? default_queue(c, quotas || n_tenants > 0)
						 : tenant_queue[0];
	for (uint32_t i = 0; i <= n_tenants; i++) {
		int32_t q = i < n_tenants ? tenant_queue[i] : *dflt;
		if (!is_leaf(c, q))
			return gt_errf(err, GT_EINVAL, "queue '%s' has child queues: jobs need a leaf queue",
				       gt_strtab_str(c->names, c->queues[q].name));
	}
	return 0;
}
