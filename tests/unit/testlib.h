/*
 * testlib.h - build a cluster from YAML for unit tests, through the real API
 *
 * A test describes its cluster as Kubernetes objects, the way a user would,
 * and gets it decoded by the same code the simulator uses (gt_doc_parse_string
 * -> gt_decoder_add -> gt_decoder_build), so the tests exercise the path a
 * real manifest takes. Helpers append one object per call as a single-line
 * YAML flow mapping, which keeps printf composition free of indentation
 * worries:
 *
 *	struct tl_world w;
 *	tl_init(&w);
 *	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
 *	tl_queue(&w, &(struct tl_queue){ .name = "q" });
 *	tl_pod(&w, &(struct tl_pod){ .name = "p1", .queue = "q", .gpus = "1" });
 *	TL_BUILD(&w);
 *	tl_cycle(&w);
 *	ASSERT_EQ(GT_BINDING, tl_status(&w, "p1"));
 *	tl_free(&w);
 *
 * Everything here is static inline: the Makefile links only harness.c with
 * each test, and an unused static inline function draws no warning.
 */
#ifndef GT_TESTLIB_H
#define GT_TESTLIB_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/decode.h"
#include "api/doc.h"
#include "core/actions.h"
#include "core/fairshare.h"
#include "core/session.h"
#include "harness.h"
#include "util/mem.h"
#include "util/strtab.h"

/* 2026-01-01T00:00:00Z, the creation time objects get unless told otherwise */
#define TL_EPOCH 1767225600LL
/* The cycle's clock: an hour after everything was created. */
#define TL_NOW (TL_EPOCH + 3600)
#define TL_ALLOCATE (1u << GT_ACT_ALLOCATE)

struct tl_world {
	char *yaml;		/* the manifest being written */
	size_t n_yaml, cap_yaml;
	struct gt_strtab names;
	struct gt_doc_list docs;
	struct gt_decoder dec;
	struct gt_cluster c;
	struct gt_err err;
	struct gt_session s;
	bool have_session;
};

static inline void tl_init(struct tl_world *w)
{
	memset(w, 0, sizeof(*w));
	gt_strtab_init(&w->names);
	gt_decoder_init(&w->dec);
	gt_cluster_init(&w->c, &w->names);
}

static inline void tl_free(struct tl_world *w)
{
	if (w->have_session)
		gt_session_release(&w->s);
	gt_cluster_release(&w->c);
	gt_decoder_release(&w->dec);
	gt_doc_list_release(&w->docs);
	gt_strtab_release(&w->names);
	free(w->yaml);
	memset(w, 0, sizeof(*w));
}

/* Append printf-formatted text to the manifest. */
static inline __attribute__((format(printf, 2, 3))) void
tl_yaml(struct tl_world *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gt_test_vappendf(&w->yaml, &w->n_yaml, &w->cap_yaml, fmt, ap);
	va_end(ap);
}

/* Parse and decode the manifest into w->c. 0, or the error code (w->err). */
static inline int tl_build(struct tl_world *w)
{
	const char *text = w->yaml ? w->yaml : "";
	int rc = gt_doc_parse_string(text, strlen(text), "test.yaml", &w->docs, &w->err);
	if (rc)
		return rc;
	for (size_t i = 0; i < w->docs.n; i++)
		gt_decoder_add(&w->dec, w->docs.docs[i]);
	return gt_decoder_build(&w->dec, &w->c, &w->err);
}

/* Build or fail the test, saying why and freeing the world. */
#define TL_BUILD(w) TL_BUILD_WITH(w, tl_build(w))

/* The same for a world built another way: @built is 0 when it built, else w->err says why. */
#define TL_BUILD_WITH(w, built)                                                      \
	do {                                                                         \
		if (built) {                                                         \
			fprintf(stderr, "%s:%d: build failed: %s\n", __FILE__,      \
				__LINE__, (w)->err.msg);                             \
			tl_free(w);                                                  \
			gt_test_failures++;                                          \
			return;                                                      \
		}                                                                    \
	} while (0)

/* Run one cycle of @mask at @now over the built cluster (a previous session is dropped). */
static inline void tl_cycle_at(struct tl_world *w, int64_t now, unsigned mask)
{
	if (w->have_session)
		gt_session_release(&w->s);
	gt_cycle_run(&w->s, &w->c, now, mask);
	w->have_session = true;
}

static inline void tl_cycle_mask(struct tl_world *w, unsigned mask)
{
	tl_cycle_at(w, TL_NOW, mask);
}

static inline void tl_cycle(struct tl_world *w)
{
	tl_cycle_mask(w, TL_ALLOCATE);
}

/* Open a session and compute fair shares only: no action runs. */
static inline void tl_open(struct tl_world *w)
{
	if (w->have_session)
		gt_session_release(&w->s);
	gt_session_open(&w->s, &w->c, TL_NOW);
	gt_fairshare_compute(&w->s);
	w->have_session = true;
}

/* ---------------------------------------------------------------- objects */

struct tl_node {
	const char *name;
	int gpus;
	const char *cpu;	/* default "64" */
	const char *memory;	/* default "512Gi" */
	const char *labels;	/* flow-map body: "zone: a, x: y" */
	const char *spec;	/* flow-map body for spec: "taints: [...]" */
	bool not_ready;
};

static inline void tl_node(struct tl_world *w, const struct tl_node *n)
{
	tl_yaml(w, "---\n{apiVersion: v1, kind: Node, metadata: {name: %s, labels: {%s}}, "
		   "spec: {%s}, status: {allocatable: {cpu: '%s', memory: '%s', "
		   "nvidia.com/gpu: '%d', pods: '110'}, conditions: [{type: Ready, status: '%s'}]}}\n",
		n->name, n->labels ? n->labels : "", n->spec ? n->spec : "",
		n->cpu ? n->cpu : "64", n->memory ? n->memory : "512Gi", n->gpus,
		n->not_ready ? "False" : "True");
}

/*
 * A queue; GPU quota/limit in devices as the CR writes them. CPU and memory
 * are unlimited with weight 1 so that only the GPU matters to a test.
 */
struct tl_queue {
	const char *name;
	const char *parent;
	const char *quota;	/* default "0" */
	const char *limit;	/* default "-1" */
	const char *weight;	/* default "1" */
	int priority;		/* 0: unset (the CR default, 100) */
	const char *created;	/* default 2026-01-01T00:00:00Z */
};

static inline void tl_queue(struct tl_world *w, const struct tl_queue *q)
{
	tl_yaml(w, "---\n{apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: %s, "
		   "creationTimestamp: '%s'}, spec: {",
		q->name, q->created ? q->created : "2026-01-01T00:00:00Z");
	if (q->parent)
		tl_yaml(w, "parentQueue: %s, ", q->parent);
	if (q->priority)
		tl_yaml(w, "priority: %d, ", q->priority);
	tl_yaml(w, "resources: {gpu: {quota: %s, limit: %s, overQuotaWeight: %s}, "
		   "cpu: {quota: -1, limit: -1, overQuotaWeight: 1}, "
		   "memory: {quota: -1, limit: -1, overQuotaWeight: 1}}}}\n",
		q->quota ? q->quota : "0", q->limit ? q->limit : "-1",
		q->weight ? q->weight : "1");
}

struct tl_pg {
	const char *ns;		/* default "default" */
	const char *name;
	const char *queue;
	int min;		/* minMember; 0 means 1 */
	const char *prio;	/* priorityClassName */
	const char *preemptibility;
	const char *created;
	const char *spec;	/* more spec, flow-map body: "subGroups: [...]" */
};

static inline void tl_pg(struct tl_world *w, const struct tl_pg *g)
{
	tl_yaml(w, "---\n{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: "
		   "{name: %s, namespace: %s, creationTimestamp: '%s'}, spec: {queue: %s, "
		   "minMember: %d",
		g->name, g->ns ? g->ns : "default", g->created ? g->created : "2026-01-01T00:00:00Z",
		g->queue, g->min ? g->min : 1);
	if (g->prio)
		tl_yaml(w, ", priorityClassName: %s", g->prio);
	if (g->preemptibility)
		tl_yaml(w, ", preemptibility: %s", g->preemptibility);
	if (g->spec)
		tl_yaml(w, ", %s", g->spec);
	tl_yaml(w, "}}\n");
}

/*
 * A pod of ours. With .pg it joins that PodGroup; without, it gets a
 * PodGroup of its own in .queue (the podgrouper's bare-pod rule). With .node
 * it sits on that node (Running unless .phase says otherwise).
 */
struct tl_pod {
	const char *ns;
	const char *name;
	const char *pg;
	const char *queue;
	const char *gpus;	/* nvidia.com/gpu request, e.g. "1"; NULL for none */
	const char *cpu;	/* default "1" */
	const char *memory;	/* default "1Gi" */
	const char *labels;	/* flow-map bodies */
	const char *annotations;
	const char *spec;
	const char *node;
	const char *phase;
	const char *created;
	bool deleting;		/* metadata.deletionTimestamp set */
};

static inline void tl_pod(struct tl_world *w, const struct tl_pod *p)
{
	tl_yaml(w, "---\n{apiVersion: v1, kind: Pod, metadata: {name: %s, namespace: %s, "
		   "creationTimestamp: '%s', labels: {",
		p->name, p->ns ? p->ns : "default", p->created ? p->created : "2026-01-01T00:00:00Z");
	if (p->queue)
		tl_yaml(w, "kai.scheduler/queue: %s%s", p->queue, p->labels ? ", " : "");
	tl_yaml(w, "%s}, annotations: {", p->labels ? p->labels : "");
	if (p->pg)
		tl_yaml(w, "pod-group-name: %s%s", p->pg, p->annotations ? ", " : "");
	tl_yaml(w, "%s}", p->annotations ? p->annotations : "");
	if (p->deleting)
		tl_yaml(w, ", deletionTimestamp: '2026-01-01T00:59:30Z'");
	tl_yaml(w, "}, spec: {schedulerName: kai-scheduler, ");
	if (p->node)
		tl_yaml(w, "nodeName: %s, ", p->node);
	if (p->spec)
		tl_yaml(w, "%s, ", p->spec);
	tl_yaml(w, "containers: [{name: main, image: busybox, resources: {requests: {cpu: '%s', "
		   "memory: '%s'",
		p->cpu ? p->cpu : "1", p->memory ? p->memory : "1Gi");
	if (p->gpus)
		tl_yaml(w, ", nvidia.com/gpu: '%s'", p->gpus);
	tl_yaml(w, "}}}]}, status: {phase: %s}}\n",
		p->phase ? p->phase : p->node ? "Running" : "Pending");
}

/* A PodGroup @name in @q of minMember @min with @n pods "<name>-<i>" of @gpus each, created at @created (NULL: the default). */
static inline void tl_gang(struct tl_world *w, const char *name, const char *q, int min, int n, const char *gpus,
			   const char *created)
{
	tl_pg(w, &(struct tl_pg){ .name = name, .queue = q, .min = min, .created = created });
	for (int i = 0; i < n; i++) {
		char pod[64];
		snprintf(pod, sizeof(pod), "%s-%d", name, i);
		tl_pod(w, &(struct tl_pod){ .name = pod, .pg = name, .gpus = gpus, .created = created });
	}
}

/* ---------------------------------------------------------------- lookups */

/* Index of the pod named @name (any namespace), or -1. */
static inline int32_t tl_pod_idx(const struct tl_world *w, const char *name)
{
	int64_t id = gt_strtab_find(&w->names, name);
	for (uint32_t i = 0; id >= 0 && i < w->c.n_pods; i++)
		if (w->c.pods[i].name == (uint32_t)id)
			return (int32_t)i;
	return -1;
}

static inline int32_t tl_node_idx(const struct tl_world *w, const char *name)
{
	int64_t id = gt_strtab_find(&w->names, name);
	for (uint32_t i = 0; id >= 0 && i < w->c.n_nodes; i++)
		if (w->c.nodes[i].name == (uint32_t)id)
			return (int32_t)i;
	return -1;
}

static inline int32_t tl_queue_idx(const struct tl_world *w, const char *name)
{
	int64_t id = gt_strtab_find(&w->names, name);
	for (uint32_t i = 0; id >= 0 && i < w->c.n_queues; i++)
		if (w->c.queues[i].name == (uint32_t)id)
			return (int32_t)i;
	return -1;
}

/* The job (PodGroup) named @name, or the implicit job of pod @name, or -1. */
static inline int32_t tl_job_idx(const struct tl_world *w, const char *name)
{
	int64_t id = gt_strtab_find(&w->names, name);
	for (uint32_t i = 0; id >= 0 && i < w->c.n_jobs; i++)
		if (w->c.jobs[i].name == (uint32_t)id)
			return (int32_t)i;
	int32_t p = tl_pod_idx(w, name);
	return p >= 0 ? w->c.pods[p].job : -1;
}

/* Session status of pod @name; GT_N_STATUS when there is no such pod. */
static inline enum gt_status tl_status(const struct tl_world *w, const char *name)
{
	int32_t p = tl_pod_idx(w, name);
	return p < 0 ? GT_N_STATUS : w->s.pods[p].status;
}

/* Name of the node pod @name is on in the session, or NULL. */
static inline const char *tl_node_of(const struct tl_world *w, const char *name)
{
	int32_t p = tl_pod_idx(w, name);
	if (p < 0 || w->s.pods[p].node < 0)
		return NULL;
	return gt_strtab_str(&w->names, w->c.nodes[w->s.pods[p].node].name);
}

/* The session's "why not scheduled" message of job @name ("" when none). */
static inline const char *tl_msg(const struct tl_world *w, const char *name)
{
	int32_t j = tl_job_idx(w, name);
	if (j < 0)
		return "(no such job)";
	return w->s.jobs[j].message ? w->s.jobs[j].message : "";
}

static inline int32_t tl_idle_gpus(const struct tl_world *w, const char *node)
{
	return gt_node_idle_gpus(&w->s, tl_node_idx(w, node));
}

/* Fair share of queue @name for resource @r, in the session's units. */
static inline int64_t tl_fair_share(const struct tl_world *w, const char *queue, int r)
{
	int32_t q = tl_queue_idx(w, queue);
	return q < 0 ? -999 : w->s.queues[q].fair_share[r];
}

#endif /* GT_TESTLIB_H */
