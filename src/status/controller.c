#include "status/controller.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api/json.h"
#include "api/object.h"
#include "status/compute.h"
#include "util/clock.h"
#include "util/histogram.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/num.h"
#include "util/smap.h"
#include "util/thread.h"

#define LOG "status"

/* One Queue as the queue controller's metrics say it. */
struct qrow {
	char *name, *display;
	char **extra;		/* the label map's values, in its order */
	double deserved_gpus, quota_cpu_cores, quota_memory_bytes;
	double allocated_gpus, allocated_cpu_cores, allocated_memory_bytes;
};

struct gt_statusctl {
	struct gt_kube_client *cl;
	struct gt_cache *cache;
	struct gt_statusctl_opts o;
	struct gt_statusctl_stats stats;
	pthread_t thread;
	atomic_bool quit;
	pthread_mutex_t mu;	/* the rows */
	struct qrow *rows;
	size_t n_rows;
	struct gt_smap said;	/* "ns/name" of PodGroups -> last message logged (a char *) */
};

static void rows_free(struct qrow *r, size_t n, size_t n_extra)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].name);
		free(r[i].display);
		for (size_t k = 0; r[i].extra && k < n_extra; k++)
			free(r[i].extra[k]);
		free(r[i].extra);
	}
	free(r);
}

/* ---------------------------------------------------------------- the pass */

struct podvec {
	const struct gt_doc **v;
	size_t n, cap;
};

struct pass {
	struct gt_statusctl *c;
	struct gt_kobj **pods, **pgs, **queues, **pcs;
	size_t n_pods, n_pgs, n_queues, n_pcs;
	struct gt_smap by_group;	/* "ns/pg" -> struct podvec */
	bool have_default;
	int32_t default_priority;
};

static int32_t priority_of(const struct pass *p, const char *class_name)
{
	for (size_t i = 0; class_name && *class_name && i < p->n_pcs; i++) {
		if (strcmp(p->pcs[i]->name, class_name))
			continue;
		int64_t v;
		if (!gt_parse_int(gt_doc_str(p->pcs[i]->doc, "value"), &v))
			return (int32_t)v;
	}
	return p->have_default ? p->default_priority : GT_STATUS_DEFAULT_PRIORITY;
}

static void index_pods(struct pass *p)
{
	gt_smap_init(&p->by_group);
	for (size_t i = 0; i < p->n_pods; i++) {
		const struct gt_doc *d = p->pods[i]->doc;
		const char *pg = gt_pod_group_name(d);
		if (!pg)
			continue;
		char key[512];
		snprintf(key, sizeof(key), "%s/%s", p->pods[i]->ns, pg);
		struct podvec *v = gt_smap_get(&p->by_group, key);
		if (!v) {
			v = gt_xcalloc(1, sizeof(*v));
			gt_smap_put(&p->by_group, key, v);
		}
		GT_PUSH(v->v, v->n, v->cap, d);
	}
	for (size_t i = 0; i < p->n_pcs; i++) {
		const char *gd = gt_doc_str(p->pcs[i]->doc, "globalDefault");
		int64_t v;
		if (gd && !strcmp(gd, "true") && !gt_parse_int(gt_doc_str(p->pcs[i]->doc, "value"), &v)) {
			p->have_default = true;
			p->default_priority = (int32_t)v;
		}
	}
}

/* Log a PodGroup's trouble once per message (a pass runs after every change). */
static void say_once(struct gt_statusctl *c, const char *key, const char *msg)
{
	char *last = gt_smap_get(&c->said, key);
	if (last && !strcmp(last, msg))
		return;
	free(gt_smap_put(&c->said, key, gt_xstrdup(msg)));
	gt_log(GT_LOG_WARN, LOG, "PodGroup %s: resourcesStatus not updated: %s", key, msg);
}

static void send_patch(struct gt_statusctl *c, enum gt_kres r, const struct gt_kobj *o, json_t *patch,
		       atomic_ulong *count)
{
	char path[1024];
	gt_kres_path(r, gt_kres[r].namespaced ? o->ns : NULL, o->name, "status", path, sizeof(path));
	char *body = gt_json_dump_take(patch);
	struct gt_kube_resp resp;
	gt_kube_call(c->cl, GT_VERB_PATCH, "PATCH", path, "application/merge-patch+json", body, &resp);
	if (resp.status / 100 == 2) {
		atomic_fetch_add(count, 1);
		gt_log(GT_LOG_DEBUG, LOG, "%s %s status: %s", gt_kres[r].kind, o->key, body);
	} else if (resp.status != 404) {	/* gone meanwhile: its delete event is on its way */
		atomic_fetch_add(&c->stats.errors, 1);
		gt_log(GT_LOG_WARN, LOG, "%s %s: status patch failed: %s", gt_kres[r].kind, o->key, gt_kube_why(&resp));
	}
	gt_kube_resp_release(&resp);
	free(body);
}

static void podgroups_pass(struct pass *p)
{
	struct gt_statusctl *c = p->c;
	for (size_t i = 0; i < p->n_pgs && !atomic_load(&c->quit); i++) {
		const struct gt_kobj *pg = p->pgs[i];
		struct gt_pg_status st = { 0 };
		st.preemptible = gt_status_preemptible(
			pg->doc, priority_of(p, gt_doc_str(gt_doc_get(pg->doc, "spec"), "priorityClassName")));
		const struct podvec *pods = gt_smap_get(&p->by_group, pg->key);
		char why[512] = "";
		int bad = 0;
		for (size_t k = 0; pods && k < pods->n && !bad; k++) {
			const struct gt_doc *pod = pods->v[k];
			struct gt_kobj *node = NULL;
			if (gt_pod_node(pod))
				node = gt_cache_get(c->cache, GT_KRES_NODES, gt_pod_node(pod));
			char msg[400];
			bad = gt_status_add_pod(&st, pod, node ? node->doc : NULL, msg, sizeof(msg));
			if (bad)
				snprintf(why, sizeof(why), "pod %s: %s", gt_obj_name(pod), msg);
			if (node)
				gt_kobj_unref(node);
		}
		if (bad) {
			atomic_fetch_add(&c->stats.errors, 1);
			say_once(c, pg->key, why);
		} else {
			free(gt_smap_del(&c->said, pg->key));
			json_t *patch = gt_status_pg_patch(pg->doc, &st);
			if (patch)
				send_patch(c, GT_KRES_PODGROUPS, pg, patch, &c->stats.podgroup_patches);
		}
		gt_pg_status_release(&st);
	}
	/* forget what was said of PodGroups that are gone */
	size_t pos = 0;
	const char *key;
	void *msg;
	while (gt_smap_next(&c->said, &pos, &key, &msg)) {
		struct gt_kobj *o = gt_cache_get(c->cache, GT_KRES_PODGROUPS, key);
		if (o) {
			gt_kobj_unref(o);
			continue;
		}
		free(gt_smap_del(&c->said, key));
	}
}

static double spec_number(const struct gt_doc *q, const char *res)
{
	char path[64];
	snprintf(path, sizeof(path), "spec.resources.%s.quota", res);
	double v;
	const struct gt_doc *d = gt_doc_path(q, path);
	return d && d->kind == GT_DOC_SCALAR && !gt_parse_number(d->scalar, &v) ? v : 0;
}

/* KAI rounds the allocation to four decimals. */
static double round4(double v)
{
	return round(v * 10000) / 10000;
}

/* A queue's metric row: KAI's queuecontroller/metrics from its spec and the status just computed. */
static void fill_row(struct qrow *r, const struct gt_doc *q, const struct gt_queue_status *st,
		     const struct gt_queue_label_map *lm)
{
	const char *dn = gt_doc_str(gt_doc_get(q, "spec"), "displayName");
	r->name = gt_xstrdup(gt_obj_name(q));
	r->display = gt_xstrdup(dn ? dn : "");
	if (lm && lm->n) {
		r->extra = gt_xcalloc(lm->n, sizeof(*r->extra));
		for (size_t k = 0; k < lm->n; k++) {
			const char *v = gt_obj_label(q, lm->queue_key[k]);
			r->extra[k] = gt_xstrdup(v ? v : lm->fallback[k] ? lm->fallback[k] : "");
		}
	}
	r->deserved_gpus = spec_number(q, "gpu");
	double cpu = spec_number(q, "cpu"), mem = spec_number(q, "memory");
	r->quota_cpu_cores = cpu == -1 ? -1 : cpu / 1000;	/* spec: millicores */
	r->quota_memory_bytes = mem == -1 ? -1 : mem * 1e6;	/* spec: megabytes */
	/* the first resource whose name ends in /gpu, as KAI's metric takes it */
	for (size_t i = 0; i < st->allocated.n; i++) {
		size_t len = strlen(st->allocated.v[i].name);
		if (len >= 4 && !strcmp(st->allocated.v[i].name + len - 4, "/gpu")) {
			r->allocated_gpus = round4((double)st->allocated.v[i].milli / 1000);
			break;
		}
	}
	r->allocated_cpu_cores = round4((double)gt_rlist_get(&st->allocated, "cpu", NULL) / 1000);
	r->allocated_memory_bytes = round4((double)gt_rlist_get(&st->allocated, "memory", NULL) / 1000);
}

static void queues_pass(struct pass *p)
{
	struct gt_statusctl *c = p->c;
	size_t nq = p->n_queues;
	const struct gt_doc **qd = gt_xcalloc(nq + 1, sizeof(*qd));
	const struct gt_doc **pd = gt_xcalloc(p->n_pgs + 1, sizeof(*pd));
	for (size_t i = 0; i < nq; i++)
		qd[i] = p->queues[i]->doc;
	for (size_t i = 0; i < p->n_pgs; i++)
		pd[i] = p->pgs[i]->doc;
	struct gt_queue_status *st = gt_xcalloc(nq + 1, sizeof(*st));
	gt_status_queues(qd, nq, pd, p->n_pgs, st);
	struct qrow *rows = gt_xcalloc(nq + 1, sizeof(*rows));
	for (size_t i = 0; i < nq; i++) {
		json_t *patch = atomic_load(&c->quit) ? NULL : gt_status_queue_patch(qd[i], &st[i]);
		if (patch)
			send_patch(c, GT_KRES_QUEUES, p->queues[i], patch, &c->stats.queue_patches);
		fill_row(&rows[i], qd[i], &st[i], c->o.labels);
		gt_queue_status_release(&st[i]);
	}
	pthread_mutex_lock(&c->mu);
	rows_free(c->rows, c->n_rows, c->o.labels ? c->o.labels->n : 0);
	c->rows = rows;
	c->n_rows = nq;
	pthread_mutex_unlock(&c->mu);
	free(st);
	free(qd);
	free(pd);
}

static void unref_all(struct gt_kobj **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		gt_kobj_unref(v[i]);
	free(v);
}

static void pass(struct gt_statusctl *c)
{
	struct pass p = { .c = c };
	p.pods = gt_cache_list(c->cache, GT_KRES_PODS, &p.n_pods);
	p.pgs = gt_cache_list(c->cache, GT_KRES_PODGROUPS, &p.n_pgs);
	p.queues = gt_cache_list(c->cache, GT_KRES_QUEUES, &p.n_queues);
	p.pcs = gt_cache_list(c->cache, GT_KRES_PRIORITYCLASSES, &p.n_pcs);
	index_pods(&p);
	if (c->o.podgroups)
		podgroups_pass(&p);
	if (c->o.queues)
		queues_pass(&p);
	size_t pos = 0;
	void *v;
	while (gt_smap_next(&p.by_group, &pos, NULL, &v)) {
		free(((struct podvec *)v)->v);
		free(v);
	}
	gt_smap_release(&p.by_group);
	unref_all(p.pods, p.n_pods);
	unref_all(p.pgs, p.n_pgs);
	unref_all(p.queues, p.n_queues);
	unref_all(p.pcs, p.n_pcs);
	atomic_fetch_add(&c->stats.passes, 1);
}

static void *run(void *arg)
{
	struct gt_statusctl *c = arg;
	bool said_ready = false;
	while (!atomic_load(&c->quit)) {
		/* until synced, any resource's change may be the last one it waits for */
		unsigned mask = (said_ready ? GT_STATUSCTL_WATCH : GT_STATUSCTL_KRES) | GT_KRES_WAKE;
		uint64_t seen = gt_cache_version(c->cache, mask);
		bool ready = gt_cache_all_synced(c->cache, GT_STATUSCTL_KRES);
		bool active = !c->o.active || atomic_load(c->o.active);
		if (ready && active) {
			if (!said_ready)
				gt_log(GT_LOG_INFO, LOG, "writing%s%s status", c->o.podgroups ? " PodGroup" : "",
				       c->o.queues ? (c->o.podgroups ? " and Queue" : " Queue") : "");
			said_ready = true;
			pass(c);
		}
		gt_cache_wait(c->cache, mask, seen, 0);
		/* a burst of changes (a gang bound, its pods starting) makes one pass */
		if (!atomic_load(&c->quit))
			gt_kube_client_nap(c->cl, 0.2);
	}
	return NULL;
}

struct gt_statusctl *gt_statusctl_start(struct gt_kube_client *cl, struct gt_cache *cache,
					const struct gt_statusctl_opts *o)
{
	struct gt_statusctl *c = gt_xcalloc(1, sizeof(*c));
	c->cl = cl;
	c->cache = cache;
	c->o = *o;
	pthread_mutex_init(&c->mu, NULL);
	gt_smap_init(&c->said);
	gt_thread_start(&c->thread, run, c, "the status controllers' thread");
	return c;
}

void gt_statusctl_stop(struct gt_statusctl *c)
{
	if (!c)
		return;
	atomic_store(&c->quit, true);
	gt_cache_wake(c->cache);
	pthread_join(c->thread, NULL);
	size_t pos = 0;
	void *v;
	while (gt_smap_next(&c->said, &pos, NULL, &v))
		free(v);
	gt_smap_release(&c->said);
	rows_free(c->rows, c->n_rows, c->o.labels ? c->o.labels->n : 0);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

const struct gt_statusctl_stats *gt_statusctl_stats(const struct gt_statusctl *c)
{
	return &c->stats;
}

void gt_statusctl_write_metrics(struct gt_statusctl *c, FILE *f, const char *p)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} series[] = {
		{ "queue_info", "Queues info", 0 },
		{ "queue_deserved_gpus", "Queue deserved GPUs", offsetof(struct qrow, deserved_gpus) },
		{ "queue_quota_cpu_cores", "Queue quota CPU", offsetof(struct qrow, quota_cpu_cores) },
		{ "queue_quota_memory_bytes", "Queue quota memory", offsetof(struct qrow, quota_memory_bytes) },
		{ "queue_allocated_gpus", "Queue allocated GPUs", offsetof(struct qrow, allocated_gpus) },
		{ "queue_allocated_cpu_cores", "Queue allocated CPUs", offsetof(struct qrow, allocated_cpu_cores) },
		{ "queue_allocated_memory_bytes", "Queue allocated memory",
		  offsetof(struct qrow, allocated_memory_bytes) },
	};
	if (c->o.queues) {
		pthread_mutex_lock(&c->mu);
		for (size_t k = 0; k < sizeof(series) / sizeof(series[0]); k++) {
			gt_prom_head(f, p, series[k].name, "gauge", series[k].help);
			for (size_t i = 0; i < c->n_rows; i++) {
				const struct qrow *r = &c->rows[i];
				fprintf(f, "%s_%s{queue_name=\"", p, series[k].name);
				gt_prom_label_value(f, r->name);
				fputs("\",queue_metadata_name=\"", f);
				gt_prom_label_value(f, r->name);
				fputs("\",queue_display_name=\"", f);
				gt_prom_label_value(f, r->display);
				for (size_t e = 0; r->extra && e < c->o.labels->n; e++) {
					fprintf(f, "\",%s=\"", c->o.labels->metric_label[e]);
					gt_prom_label_value(f, r->extra[e]);
				}
				fprintf(f, "\"} %.10g\n", k ? *(const double *)((const char *)r + series[k].off) : 1.0);
			}
		}
		pthread_mutex_unlock(&c->mu);
	}
	gt_prom_head(f, p, "status_patches_total", "counter",
		     "PodGroup and Queue status patches by the status controllers");
	fprintf(f, "%s_status_patches_total{kind=\"PodGroup\"} %lu\n", p, atomic_load(&c->stats.podgroup_patches));
	fprintf(f, "%s_status_patches_total{kind=\"Queue\"} %lu\n", p, atomic_load(&c->stats.queue_patches));
	gt_prom_counter(f, p, "status_errors_total",
			"Status patches that failed and PodGroups that could not be computed",
			atomic_load(&c->stats.errors));
}
