/*
 * overtime.c - KAI's time-based fair-share simulator, on Gantry's core
 *
 * KAI's cmd/time-based-fairshare-simulator reads a configuration
 * (pkg/env-tests/timeaware: Cycles, WindowSize, HalfLifePeriod, KValue,
 * Nodes [{GPUs, Count}], Queues [{Name, Parent, Priority, DeservedGPUs,
 * Weight}], Jobs {queue: {GPUs, NumPods, NumJobs}}), submits every job at
 * once, and records each queue's GPU allocation and fair share once per
 * cycle while its scheduler runs with a usage history of one sample per
 * cycle (the "fake-with-history" usage client: WindowSize and
 * HalfLifePeriod count those samples as seconds).
 *
 * Here the cluster is built as Kubernetes objects and decoded by the
 * decoder every front end uses; each cycle is one virtual second: the
 * usage is integrated up to the cycle's time and applied (core/usage.h),
 * the allocation is recorded, the core runs a cycle with every action,
 * and the virtual cluster moves on as `gantry simulate` moves it, except
 * that an evicted pod is gone (KAI's simulator creates bare pods, which
 * nothing recreates).
 *
 * Keys match case-insensitively, as KAI's YAML reader (sigs.k8s.io/yaml
 * through encoding/json) matches them. Defaults are KAI's: Cycles 100,
 * WindowSize 5, HalfLifePeriod 0 (no decay), KValue 1; a queue's Priority
 * 100, DeservedGPUs 0, Weight 1. KAI's simulator makes one node per Nodes
 * entry whatever its Count; this makes Count nodes.
 */
#include "fairshare/fairshare.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/decode.h"
#include "api/doc.h"
#include "core/actions.h"
#include "core/usage.h"
#include "sim/simulate.h"
#include "util/mem.h"
#include "util/num.h"

#define START_TIME 1767225600	/* 2026-01-01T00:00:00Z: any fixed time does */

struct ot_queue {
	const char *name, *parent;
	double priority, deserved, weight;
};

struct ot_jobs {
	const char *queue;
	int64_t gpus, pods, jobs;
};

struct ot_config {
	int64_t cycles, window, half_life;
	double k;
	struct ot_queue *queues;
	size_t n_queues;
	struct ot_jobs *jobs;
	size_t n_jobs;
	int64_t *node_gpus, *node_count;
	size_t n_nodes;
};

/* The value under @key of map @m, the key matched ignoring case; NULL for none or null. */
static const struct gt_doc *get(const struct gt_doc *m, const char *key)
{
	for (size_t i = 0; m && m->kind == GT_DOC_MAP && i < m->n; i++)
		if (!strcasecmp(m->keys[i], key))
			return gt_doc_is_null(m->items[i]) ? NULL : m->items[i];
	return NULL;
}

static void check_keys(const struct gt_doc *m, const char *const *known, const char *where, FILE *diag,
		       const char *name)
{
	for (size_t i = 0; diag && m && m->kind == GT_DOC_MAP && i < m->n; i++) {
		bool ok = false;
		for (size_t k = 0; known[k] && !ok; k++)
			ok = !strcasecmp(m->keys[i], known[k]);
		if (!ok)
			fprintf(diag, "gantry fairshare: warning: %s: %s%s%s is not a key of KAI's time-based "
				"simulator; ignored\n", name, where, *where ? "." : "", m->keys[i]);
	}
}

static int num(const struct gt_doc *m, const char *key, const char *where, double *out, struct gt_err *err)
{
	const struct gt_doc *v = get(m, key);
	if (!v)
		return 0;
	if (v->kind != GT_DOC_SCALAR || gt_parse_number(v->scalar, out))
		return gt_errf(err, GT_EINVAL, "%s%s%s: must be a number", where, *where ? "." : "", key);
	return 0;
}

static int whole(const struct gt_doc *m, const char *key, const char *where, int64_t min, int64_t *out,
		 struct gt_err *err)
{
	const struct gt_doc *v = get(m, key);
	if (!v)
		return 0;
	if (v->kind != GT_DOC_SCALAR || gt_parse_int(v->scalar, out) || *out < min || *out > 10000000)
		return gt_errf(err, GT_EINVAL, "%s%s%s: must be a whole number of at least %lld", where,
			       *where ? "." : "", key, (long long)min);
	return 0;
}

static int read_queues(const struct gt_doc *list, struct ot_config *o, FILE *diag, const char *name,
		       struct gt_err *err)
{
	static const char *const known[] = { "Name", "Parent", "Priority", "DeservedGPUs", "Weight", NULL };
	if (!list || list->kind != GT_DOC_SEQ || !list->n)
		return gt_errf(err, GT_EINVAL, "Queues: must list at least one queue");
	o->queues = gt_xcalloc(list->n, sizeof(*o->queues));
	for (size_t i = 0; i < list->n; i++) {
		const struct gt_doc *q = list->items[i];
		char where[32];
		snprintf(where, sizeof(where), "Queues[%zu]", i);
		check_keys(q, known, where, diag, name);
		struct ot_queue *oq = &o->queues[o->n_queues++];
		*oq = (struct ot_queue){ .priority = 100, .weight = 1, .parent = "" };
		const struct gt_doc *n = get(q, "Name"), *p = get(q, "Parent");
		if (!n || n->kind != GT_DOC_SCALAR || !*n->scalar)
			return gt_errf(err, GT_EINVAL, "%s.Name: is required", where);
		oq->name = n->scalar;
		if (p && p->kind == GT_DOC_SCALAR)
			oq->parent = p->scalar;
		if (num(q, "Priority", where, &oq->priority, err) || num(q, "DeservedGPUs", where, &oq->deserved, err) ||
		    num(q, "Weight", where, &oq->weight, err))
			return GT_EINVAL;
	}
	return 0;
}

static int read_jobs(const struct gt_doc *map, struct ot_config *o, FILE *diag, const char *name,
		     struct gt_err *err)
{
	static const char *const known[] = { "GPUs", "NumPods", "NumJobs", NULL };
	if (map && map->kind != GT_DOC_MAP)
		return gt_errf(err, GT_EINVAL, "Jobs: must map queue names to {GPUs, NumPods, NumJobs}");
	o->jobs = gt_xcalloc(map ? map->n + 1 : 1, sizeof(*o->jobs));
	for (size_t i = 0; map && i < map->n; i++) {
		char where[300];
		snprintf(where, sizeof(where), "Jobs.%s", map->keys[i]);
		check_keys(map->items[i], known, where, diag, name);
		struct ot_jobs *j = &o->jobs[o->n_jobs++];
		*j = (struct ot_jobs){ .queue = map->keys[i] };
		if (whole(map->items[i], "GPUs", where, 0, &j->gpus, err) ||
		    whole(map->items[i], "NumPods", where, 0, &j->pods, err) ||
		    whole(map->items[i], "NumJobs", where, 0, &j->jobs, err))
			return GT_EINVAL;
		bool known_queue = false;
		for (size_t q = 0; q < o->n_queues; q++)
			known_queue |= !strcmp(o->queues[q].name, j->queue);
		if (!known_queue && diag)
			fprintf(diag, "gantry fairshare: warning: %s: %s: no such queue; its jobs wait for ever\n",
				name, where);
	}
	return 0;
}

static int read_config(const struct gt_doc *d, struct ot_config *o, FILE *diag, const char *name,
		       struct gt_err *err)
{
	static const char *const known[] = { "Cycles", "WindowSize", "HalfLifePeriod", "KValue", "Nodes",
					     "Queues", "Jobs", NULL };
	static const char *const node_keys[] = { "GPUs", "Count", NULL };
	*o = (struct ot_config){ .cycles = 100, .window = 5, .k = 1 };
	if (!d || d->kind != GT_DOC_MAP)
		return gt_errf(err, GT_EINVAL, "the configuration must be a map (KAI's example_config.yaml)");
	check_keys(d, known, "", diag, name);
	if (whole(d, "Cycles", "", 1, &o->cycles, err) || whole(d, "WindowSize", "", 1, &o->window, err) ||
	    whole(d, "HalfLifePeriod", "", 0, &o->half_life, err) || num(d, "KValue", "", &o->k, err))
		return GT_EINVAL;
	const struct gt_doc *nodes = get(d, "Nodes");
	if (!nodes || nodes->kind != GT_DOC_SEQ || !nodes->n)
		return gt_errf(err, GT_EINVAL, "Nodes: must list at least one {GPUs, Count}");
	o->node_gpus = gt_xcalloc(nodes->n, sizeof(int64_t));
	o->node_count = gt_xcalloc(nodes->n, sizeof(int64_t));
	for (size_t i = 0; i < nodes->n; i++) {
		char where[32];
		snprintf(where, sizeof(where), "Nodes[%zu]", i);
		check_keys(nodes->items[i], node_keys, where, diag, name);
		o->node_count[i] = 1;
		if (whole(nodes->items[i], "GPUs", where, 0, &o->node_gpus[i], err) ||
		    whole(nodes->items[i], "Count", where, 0, &o->node_count[i], err))
			return GT_EINVAL;
		o->n_nodes++;
	}
	if (read_queues(get(d, "Queues"), o, diag, name, err))
		return GT_EINVAL;
	return read_jobs(get(d, "Jobs"), o, diag, name, err);
}

static void free_config(struct ot_config *o)
{
	free(o->queues);
	free(o->jobs);
	free(o->node_gpus);
	free(o->node_count);
}

/* The configuration as the Kubernetes objects KAI's simulator creates. */
static char *objects(const struct ot_config *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (size_t i = 0, k = 0; i < o->n_nodes; i++)
		for (int64_t c = 0; c < o->node_count[i]; c++, k++)
			fprintf(f, "---\napiVersion: v1\nkind: Node\nmetadata: {name: node-%zu}\nstatus:\n"
				"  allocatable: {cpu: \"1000\", memory: 4Ti, pods: \"10000\", nvidia.com/gpu: \"%lld\"}\n",
				k, (long long)o->node_gpus[i]);
	for (size_t i = 0; i < o->n_queues; i++) {
		const struct ot_queue *q = &o->queues[i];
		fprintf(f, "---\napiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: \"%s\"}\n"
			"spec:\n  priority: %.0f\n", q->name, q->priority);
		if (*q->parent)
			fprintf(f, "  parentQueue: \"%s\"\n", q->parent);
		/* KAI's simulator sets the GPU section only: CPU and memory are Go's zero values */
		fprintf(f, "  resources:\n    gpu: {quota: %.17g, overQuotaWeight: %.17g, limit: -1}\n"
			"    cpu: {quota: 0, overQuotaWeight: 0, limit: 0}\n"
			"    memory: {quota: 0, overQuotaWeight: 0, limit: 0}\n", q->deserved, q->weight);
	}
	for (size_t i = 0; i < o->n_jobs; i++) {
		const struct ot_jobs *j = &o->jobs[i];
		for (int64_t n = 0; n < j->jobs; n++) {
			fprintf(f, "---\napiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\n"
				"metadata: {name: \"%s-job-%lld\", namespace: sim, creationTimestamp: "
				"\"2026-01-01T00:00:00Z\"}\nspec: {minMember: 1, queue: \"%s\"}\n",
				j->queue, (long long)n, j->queue);
			for (int64_t p = 0; p < j->pods; p++)
				fprintf(f, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: \"%s-job-%lld-%lld\"\n"
					"  namespace: sim\n  creationTimestamp: \"2026-01-01T00:00:00Z\"\n"
					"  annotations: {pod-group-name: \"%s-job-%lld\"}\n"
					"spec:\n  schedulerName: kai-scheduler\n  containers:\n  - name: c\n"
					"    resources: {limits: {nvidia.com/gpu: \"%lld\"}}\nstatus: {phase: Pending}\n",
					j->queue, (long long)n, (long long)p, j->queue, (long long)n, (long long)j->gpus);
		}
	}
	fclose(f);
	return buf;
}

static int build(const struct ot_config *o, struct gt_cluster *c, struct gt_doc_list *docs, FILE *diag,
		 struct gt_err *err)
{
	char *text = objects(o);
	int rc = gt_doc_parse_string(text, strlen(text), "time-based simulation", docs, err);
	free(text);
	if (rc)
		return rc;
	struct gt_decoder d;
	gt_decoder_init(&d);
	for (size_t i = 0; i < docs->n; i++)
		gt_decoder_add(&d, docs->docs[i]);
	rc = gt_decoder_build(&d, c, err);
	if (diag)
		gt_decoder_report(&d, diag, "gantry fairshare");
	gt_decoder_release(&d);
	c->config.k_value = o->k;
	c->config.usage = (struct gt_usage_params){ .on = true, .window_s = o->window, .half_life_s = o->half_life,
						    .window = GT_WINDOW_SLIDING, .fetch_interval_s = 1 };
	return rc;
}

/* Each queue's GPUs held by running pods, parents included (KAI's queue status). */
static void allocations(const struct gt_cluster *c, double *gpus)
{
	memset(gpus, 0, c->n_queues * sizeof(*gpus));
	for (uint32_t i = 0; i < c->n_pods; i++) {
		const struct gt_pod *p = &c->pods[i];
		if (!gt_status_allocated(p->status) || p->job == GT_NONE || p->node == GT_NONE)
			continue;
		double g = (double)gt_pod_accepted_gpu_milli(c, (int32_t)i, p->node) / 1000;
		for (int32_t q = c->jobs[p->job].queue; q != GT_NONE; q = c->queues[q].parent)
			gpus[q] += g;
	}
}

static void run(const struct ot_config *o, struct gt_cluster *c, FILE *csv)
{
	struct gt_usage_history h;
	gt_usage_init(&h, &c->config.usage, START_TIME);
	double *alloc = gt_xcalloc(c->n_queues + 1, sizeof(*alloc));
	fputs("Time,QueueID,Allocation,FairShare\n", csv);
	for (int64_t i = 0; i < o->cycles; i++) {
		int64_t now = START_TIME + i;
		gt_usage_advance(&h, now);
		gt_usage_apply(&h, &c->config.usage, c, now);
		allocations(c, alloc);
		struct gt_session s;
		struct gt_plan plan;
		gt_cycle_run(&s, c, now, GT_ACTIONS_ALL);
		for (size_t k = 0; k < o->n_queues; k++) {
			for (uint32_t q = 0; q < c->n_queues; q++)
				if (!strcmp(gt_strtab_str(c->names, c->queues[q].name), o->queues[k].name))
					fprintf(csv, "%lld,%s,%f,%f\n", (long long)i, o->queues[k].name, alloc[q],
						(double)s.queues[q].fair_share[GT_QGPU] / 1000);
		}
		gt_plan_build(&plan, &s, NULL);
		gt_usage_set_rates(&h, &s);
		gt_sim_advance(c, &plan);
		for (uint32_t e = 0; e < plan.n_evictions; e++) {	/* bare pods: nothing recreates them */
			struct gt_pod *p = &c->pods[plan.evictions[e].pod];
			p->status = GT_FAILED;
			p->node = GT_NONE;
		}
		gt_plan_release(&plan);
		gt_session_release(&s);
	}
	free(alloc);
	gt_usage_release(&h);
}

int gt_fairshare_over_time(const char *cfg, size_t len, const char *name, FILE *csv, FILE *diag,
			   struct gt_err *err)
{
	struct gt_doc_list in = { 0 }, docs = { 0 };
	struct ot_config o = { 0 };
	int rc = gt_doc_parse_string(cfg, len, name, &in, err);
	if (!rc && in.n != 1)
		rc = gt_errf(err, GT_EINVAL, "%s: expected one YAML document, found %zu", name, in.n);
	if (!rc && read_config(in.docs[0], &o, diag, name, err)) {
		char msg[sizeof(err->msg)];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		rc = gt_errf(err, GT_EINVAL, "%.200s: %.300s", name, msg);
	}
	struct gt_strtab names;
	struct gt_cluster c;
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	if (!rc)
		rc = build(&o, &c, &docs, diag, err);
	if (!rc)
		run(&o, &c, csv);
	gt_cluster_release(&c);
	gt_strtab_release(&names);
	gt_doc_list_release(&docs);
	gt_doc_list_release(&in);
	free_config(&o);
	return rc;
}
