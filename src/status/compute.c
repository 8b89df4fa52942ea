#include "status/compute.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/object.h"
#include "api/quantity.h"
#include "util/mem.h"

#define GPU "nvidia.com/gpu"
#define GPU_MEMORY "run.ai/gpu.memory"

void gt_pg_status_release(struct gt_pg_status *st)
{
	gt_rlist_release(&st->requested);
	gt_rlist_release(&st->allocated);
}

static const char *phase(const struct gt_doc *pod)
{
	const char *p = gt_doc_str(gt_doc_get(pod, "status"), "phase");
	return p ? p : "";
}

static bool scheduled(const struct gt_doc *pod)
{
	const struct gt_doc *conds = gt_doc_path(pod, "status.conditions");
	if (!conds || conds->kind != GT_DOC_SEQ)
		return false;
	for (size_t i = 0; i < conds->n; i++) {
		const char *t = gt_doc_str(conds->items[i], "type");
		if (t && !strcmp(t, "PodScheduled")) {
			const char *s = gt_doc_str(conds->items[i], "status");
			return s && !strcmp(s, "True");
		}
	}
	return false;
}

/* The containers' requests (KAI's controller counts neither init containers nor overhead). */
static int add_containers(struct gt_rlist *l, const struct gt_doc *pod, char *why, size_t cap)
{
	const struct gt_doc *cs = gt_doc_path(pod, "spec.containers");
	if (!cs || cs->kind != GT_DOC_SEQ)
		return 0;
	for (size_t i = 0; i < cs->n; i++) {
		const char *bad = NULL;
		gt_rlist_add_doc(l, gt_doc_path(cs->items[i], "resources.requests"), &bad);
		if (bad) {
			snprintf(why, cap, "spec.containers[%zu].resources.requests.%s: not a quantity", i, bad);
			return -1;
		}
	}
	return 0;
}

static int annotation_quantity(const struct gt_doc *pod, const char *key, int64_t *milli, enum gt_qfmt *fmt,
			       char *why, size_t cap)
{
	const char *v = gt_obj_annotation(pod, key);
	if (gt_quantity_read(v, milli, fmt)) {
		snprintf(why, cap, "metadata.annotations.%s: '%s' is not a quantity", key, v);
		return -1;
	}
	return 0;
}

/* What a shared-GPU pod asks for beyond its containers (its annotations). */
static int add_sharing_requested(struct gt_rlist *l, const struct gt_doc *pod, char *why, size_t cap)
{
	int64_t count = 1, m;
	enum gt_qfmt f;
	if (gt_obj_annotation(pod, "gpu-fraction-num-devices")) {
		if (annotation_quantity(pod, "gpu-fraction-num-devices", &m, &f, why, cap))
			return -1;
		if (m % 1000) {
			snprintf(why, cap, "metadata.annotations.gpu-fraction-num-devices: not a whole number");
			return -1;
		}
		count = m / 1000;
	}
	if (gt_obj_annotation(pod, "gpu-fraction")) {
		if (annotation_quantity(pod, "gpu-fraction", &m, &f, why, cap))
			return -1;
		gt_rlist_add(l, GPU, m * count, f);
	}
	if (gt_obj_annotation(pod, "gpu-memory")) {
		if (annotation_quantity(pod, "gpu-memory", &m, &f, why, cap))
			return -1;
		gt_rlist_add(l, GPU_MEMORY, m * count, f);
	}
	return 0;
}

/* One GPU's memory on @node, MiB: NVIDIA's label, or AMD's beta.amd.com/gpu.vram<size> label key. */
static int node_gpu_memory(const struct gt_doc *node, int64_t *mib, char *why, size_t cap)
{
	const char *name = node ? gt_obj_name(node) : "(unknown)";
	const char *nv = node ? gt_obj_label(node, "nvidia.com/gpu.memory") : NULL;
	const struct gt_doc *labels = node ? gt_doc_path(node, "metadata.labels") : NULL;
	int64_t amd = -1;
	for (size_t i = 0; labels && labels->kind == GT_DOC_MAP && i < labels->n; i++) {
		const char *k = labels->keys[i];
		if (strncmp(k, "beta.amd.com/gpu.vram", 21))
			continue;
		const char *d = k + 21;
		while (*d && !isdigit((unsigned char)*d))
			d++;
		int64_t bytes;
		if (!*d || gt_quantity_parse(d, &bytes)) {
			snprintf(why, cap, "node %s: label %s: no memory size in it", name, k);
			return -1;
		}
		amd = bytes / 1000000;
		break;
	}
	if (nv && amd >= 0) {
		snprintf(why, cap, "node %s has both NVIDIA and AMD GPU memory labels", name);
		return -1;
	}
	if (nv) {
		char *end;
		long long v = strtoll(nv, &end, 10);
		if (*end || end == nv || v <= 0) {
			snprintf(why, cap, "node %s: label nvidia.com/gpu.memory: '%s' is not a whole number", name, nv);
			return -1;
		}
		*mib = v;
		return 0;
	}
	if (amd > 0) {
		*mib = amd;
		return 0;
	}
	snprintf(why, cap, "node %s has no GPU memory label (nvidia.com/gpu.memory)", name);
	return -1;
}

/* The GPU share the binder gave a pod whose received-resource-type is Fraction. */
static int add_sharing_received(struct gt_rlist *l, const struct gt_doc *pod, const struct gt_doc *node, char *why,
				size_t cap)
{
	const char *rt = gt_obj_annotation(pod, "received-resource-type");
	if (!rt || strcmp(rt, "Fraction"))
		return 0;
	int64_t m;
	enum gt_qfmt f;
	if (gt_obj_annotation(pod, "gpu-fraction")) {
		if (annotation_quantity(pod, "gpu-fraction", &m, &f, why, cap))
			return -1;
		gt_rlist_add(l, GPU, m, f);
		return 0;
	}
	if (!gt_obj_annotation(pod, "gpu-memory")) {
		snprintf(why, cap, "metadata.annotations: received-resource-type Fraction without gpu-fraction or gpu-memory");
		return -1;
	}
	char *end;
	const char *mem = gt_obj_annotation(pod, "gpu-memory");
	long long want = strtoll(mem, &end, 10);
	if (*end || end == mem) {
		snprintf(why, cap, "metadata.annotations.gpu-memory: '%s' is not a whole number", mem);
		return -1;
	}
	int64_t per_gpu;
	if (node_gpu_memory(node, &per_gpu, why, cap))
		return -1;
	/* KAI writes the float quotient; thousandths are what a quantity here holds (rounded up) */
	gt_rlist_add(l, GPU, (want * 1000 + per_gpu - 1) / per_gpu, GT_QFMT_DECIMAL);
	return 0;
}

int gt_status_add_pod(struct gt_pg_status *st, const struct gt_doc *pod, const struct gt_doc *node, char *why,
		      size_t why_cap)
{
	const char *ph = phase(pod);
	bool pending = !strcmp(ph, "Pending"), running = !strcmp(ph, "Running");
	if (pending || running) {
		if (add_containers(&st->requested, pod, why, why_cap) ||
		    add_sharing_requested(&st->requested, pod, why, why_cap))
			return -1;
	}
	if (running || (pending && scheduled(pod))) {
		if (add_containers(&st->allocated, pod, why, why_cap) ||
		    add_sharing_received(&st->allocated, pod, node, why, why_cap))
			return -1;
	}
	return 0;
}

bool gt_status_preemptible(const struct gt_doc *pg, int32_t priority)
{
	const char *p = gt_doc_str(gt_doc_get(pg, "spec"), "preemptibility");
	if (p && !strcmp(p, "preemptible"))
		return true;
	if (p && !strcmp(p, "non-preemptible"))
		return false;
	return priority < 100;
}

/*
 * Into @patch under @key: @want against what @have (a stored list) says;
 * nothing when they agree. True when something was added.
 */
static bool diff_list(json_t *patch, const char *key, const struct gt_doc *have, const struct gt_rlist *want)
{
	struct gt_rlist cur = { 0 };
	gt_rlist_add_doc(&cur, have, NULL);
	bool same = gt_rlist_equal(&cur, want) && (want->n || !have || gt_doc_is_null(have) ||
						   (have->kind == GT_DOC_MAP && have->n == 0));
	if (!same) {
		if (!want->n) {
			json_object_set_new(patch, key, json_null());
		} else {
			json_t *o = gt_rlist_to_json(want);
			for (size_t i = 0; have && have->kind == GT_DOC_MAP && i < have->n; i++)
				if (!json_object_get(o, have->keys[i]))
					json_object_set_new(o, have->keys[i], json_null());
			json_object_set_new(patch, key, o);
		}
	}
	gt_rlist_release(&cur);
	return !same;
}

/* {"status": {@key: @inner}} when @inner has anything, else NULL; takes @inner. */
static json_t *wrap(const char *key, json_t *inner)
{
	if (!json_object_size(inner)) {
		json_decref(inner);
		return NULL;
	}
	if (!key)
		return json_pack("{s:o}", "status", inner);
	return json_pack("{s:{s:o}}", "status", key, inner);
}

json_t *gt_status_pg_patch(const struct gt_doc *pg, const struct gt_pg_status *st)
{
	const struct gt_doc *rs = gt_doc_path(pg, "status.resourcesStatus");
	json_t *p = json_object();
	diff_list(p, "requested", gt_doc_get(rs, "requested"), &st->requested);
	diff_list(p, "allocated", gt_doc_get(rs, "allocated"), &st->allocated);
	if (!st->preemptible)
		diff_list(p, "allocatedNonPreemptible", gt_doc_get(rs, "allocatedNonPreemptible"), &st->allocated);
	return wrap("resourcesStatus", p);
}

void gt_queue_status_release(struct gt_queue_status *st)
{
	gt_rlist_release(&st->allocated);
	gt_rlist_release(&st->nonpreemptible);
	gt_rlist_release(&st->requested);
	free(st->children);
	memset(st, 0, sizeof(*st));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct qctx {
	const struct gt_doc *const *queues;
	size_t n;
	struct gt_queue_status *out;
	unsigned char *state;	/* 0 new, 1 in progress, 2 done */
};

static const char *parent_of(const struct gt_doc *q)
{
	const char *p = gt_doc_str(gt_doc_get(q, "spec"), "parentQueue");
	return p && *p ? p : NULL;
}

/* Queue @i after its children (a parent loop is cut where it closes). */
static void sum_children(struct qctx *x, size_t i)
{
	if (x->state[i])
		return;
	x->state[i] = 1;
	struct gt_queue_status *st = &x->out[i];
	for (size_t k = 0; k < x->n; k++) {
		const char *p = parent_of(x->queues[k]);
		if (!p || strcmp(p, st->name))
			continue;
		st->children = gt_xrealloc(st->children, (st->n_children + 1) * sizeof(*st->children));
		st->children[st->n_children++] = x->out[k].name;
		if (x->state[k] == 1)
			continue;
		sum_children(x, k);
		gt_rlist_add_list(&st->allocated, &x->out[k].allocated);
		gt_rlist_add_list(&st->nonpreemptible, &x->out[k].nonpreemptible);
		gt_rlist_add_list(&st->requested, &x->out[k].requested);
	}
	if (st->n_children > 1)
		qsort(st->children, st->n_children, sizeof(*st->children), cmp_str);
	x->state[i] = 2;
}

void gt_status_queues(const struct gt_doc *const *queues, size_t n_queues, const struct gt_doc *const *pgs,
		      size_t n_pgs, struct gt_queue_status *out)
{
	for (size_t i = 0; i < n_queues; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].name = gt_obj_name(queues[i]);
	}
	/* the PodGroups first: a parent adds its children's totals, PodGroups included */
	for (size_t g = 0; g < n_pgs; g++) {
		const char *qn = gt_doc_str(gt_doc_get(pgs[g], "spec"), "queue");
		if (!qn)
			continue;
		for (size_t i = 0; i < n_queues; i++) {
			if (strcmp(out[i].name, qn))
				continue;
			const struct gt_doc *rs = gt_doc_path(pgs[g], "status.resourcesStatus");
			gt_rlist_add_doc(&out[i].allocated, gt_doc_get(rs, "allocated"), NULL);
			gt_rlist_add_doc(&out[i].nonpreemptible, gt_doc_get(rs, "allocatedNonPreemptible"), NULL);
			gt_rlist_add_doc(&out[i].requested, gt_doc_get(rs, "requested"), NULL);
			break;
		}
	}
	struct qctx x = { queues, n_queues, out, gt_xcalloc(n_queues ? n_queues : 1, 1) };
	for (size_t i = 0; i < n_queues; i++)
		sum_children(&x, i);
	free(x.state);
}

json_t *gt_status_queue_patch(const struct gt_doc *q, const struct gt_queue_status *st)
{
	const struct gt_doc *s = gt_doc_get(q, "status");
	json_t *p = json_object();
	diff_list(p, "allocated", gt_doc_get(s, "allocated"), &st->allocated);
	diff_list(p, "allocatedNonPreemptible", gt_doc_get(s, "allocatedNonPreemptible"), &st->nonpreemptible);
	diff_list(p, "requested", gt_doc_get(s, "requested"), &st->requested);
	const struct gt_doc *have = gt_doc_get(s, "childQueues");
	size_t n_have = have && have->kind == GT_DOC_SEQ ? have->n : 0;
	bool same = n_have == st->n_children;
	for (size_t i = 0; same && i < n_have; i++)
		same = have->items[i]->kind == GT_DOC_SCALAR && !strcmp(have->items[i]->scalar, st->children[i]);
	if (!same) {
		if (!st->n_children) {
			json_object_set_new(p, "childQueues", json_null());
		} else {
			json_t *a = json_array();
			for (size_t i = 0; i < st->n_children; i++)
				json_array_append_new(a, json_string(st->children[i]));
			json_object_set_new(p, "childQueues", a);
		}
	}
	return wrap(NULL, p);
}
