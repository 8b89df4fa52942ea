#include "kube/writer.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/kdoc.h"
#include "kube/log.h"
#include "util/mem.h"

#define ATTEMPTS 3

struct gt_writer {
	struct gt_kube_client *cl;
	struct gt_cache *cache;
	struct gt_writer_opts o;
	char *component, *instance;
	struct gt_writer_stats stats;
	pthread_t *threads;
	int n_threads;
	pthread_mutex_t mu;
	pthread_cond_t work, idle;
	const struct gt_kplan *plan;	/* the batch being written */
	size_t next, done;
	bool quit;
};

/* ---------------------------------------------------------------- requests */

static bool transient(long status)
{
	return status == 0 || status >= 500;
}

/* One write with retries on transport errors and 5xx. */
static void call(struct gt_writer *w, enum gt_kube_verb verb, const char *method, const char *path,
		 const char *ctype, const char *body, struct gt_kube_resp *r)
{
	for (int attempt = 0;; attempt++) {
		gt_kube_request(w->cl, verb, method, path, ctype, body, r);
		if (!transient(r->status) || attempt + 1 == ATTEMPTS || gt_kube_client_stopping(w->cl))
			return;
		gt_log(GT_LOG_DEBUG, "writer", "%s %s: %s; retrying", method, path,
		       r->status ? "server error" : r->error);
		gt_kube_resp_release(r);
		struct timespec ts = { 0, 100000000L << (2 * attempt) };
		nanosleep(&ts, NULL);
	}
}

static const char *why(const struct gt_kube_resp *r)
{
	static _Thread_local char buf[400];
	if (!r->status)
		return r->error;
	json_t *j = json_loads(r->body, 0, NULL);
	const char *m = json_string_value(json_object_get(j, "message"));
	snprintf(buf, sizeof(buf), "HTTP %ld: %s", r->status, m ? m : r->body);
	json_decref(j);
	return buf;
}

static void now_rfc3339(char *buf, size_t len, bool micro)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	if (micro)
		snprintf(buf + n, len - n, ".%06ldZ", ts.tv_nsec / 1000);
	else
		snprintf(buf + n, len - n, "Z");
}

/* ---------------------------------------------------------------- events */

static void event(struct gt_writer *w, enum gt_kres res, const char *ns, const char *name, const char *uid,
		  const char *reason, const char *msg, bool warning)
{
	char ts[48], mts[48], ename[400], path[600];
	now_rfc3339(ts, sizeof(ts), false);
	now_rfc3339(mts, sizeof(mts), true);
	/* named after its content and time: a retried create meets 409, not a duplicate */
	uint64_t h = 1469598103934665603ULL;
	const char *parts[] = { uid, reason, msg, mts };
	for (size_t k = 0; k < 4; k++)
		for (const char *p = parts[k]; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	snprintf(ename, sizeof(ename), "%.200s.%016llx", name, (unsigned long long)h);
	const char *evns = *ns ? ns : "default";
	json_t *ev = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s}, s:s, s:s, s:s, "
			       "s:{s:s}, s:s, s:s, s:i, s:s, s:s}",
			       "apiVersion", "v1", "kind", "Event", "metadata", "name", ename, "namespace", evns,
			       "involvedObject", "kind", gt_kres[res].kind, "apiVersion", gt_kres[res].group_version,
			       "name", name, "namespace", ns, "uid", uid, "reason", reason, "message", msg, "type",
			       warning ? "Warning" : "Normal", "source", "component", w->component,
			       "firstTimestamp", ts, "lastTimestamp", ts, "count", 1, "reportingComponent",
			       w->component, "reportingInstance", w->instance);
	char *body = json_dumps(ev, JSON_COMPACT);
	json_decref(ev);
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/events", evns);
	struct gt_kube_resp r;
	call(w, GT_VERB_POST, "POST", path, "application/json", body, &r);
	free(body);
	if (r.status == 201 || r.status == 200 || r.status == 409) {
		atomic_fetch_add(&w->stats.events, 1);
	} else {
		atomic_fetch_add(&w->stats.event_errors, 1);
		gt_log(GT_LOG_WARN, "writer", "event %s on %s %s/%s: %s", reason, gt_kres[res].kind, ns, name,
		       why(&r));
	}
	gt_kube_resp_release(&r);
}

/* ---------------------------------------------------------------- binds */

static void group_label_key(const struct gt_kop *op, uint8_t g, char *buf, size_t len)
{
	if (op->n_groups == 1)
		snprintf(buf, len, "runai-gpu-group");
	else
		snprintf(buf, len, "runai-gpu-group/%s", op->groups[g]);
}

static void assume_bound(struct gt_doc *doc, void *arg)
{
	const struct gt_kop *op = arg;
	const char *node_path[] = { "spec", "nodeName" };
	gt_kdoc_set(doc, node_path, 2, op->node, true);
	for (uint8_t g = 0; g < op->n_groups; g++) {
		char key[300];
		group_label_key(op, g, key, sizeof(key));
		const char *lp[] = { "metadata", "labels", key };
		gt_kdoc_set(doc, lp, 3, op->groups[g], true);
	}
}

static void assume_deleting(struct gt_doc *doc, void *arg)
{
	(void)arg;
	char ts[48];
	now_rfc3339(ts, sizeof(ts), false);
	const char *p[] = { "metadata", "deletionTimestamp" };
	gt_kdoc_set(doc, p, 2, ts, true);
}

/* Did an earlier attempt bind the pod to our node? (after a 409) */
static bool bound_to(struct gt_writer *w, const struct gt_kop *op)
{
	char path[600];
	gt_kres_path(GT_KRES_PODS, op->ns, op->name, NULL, path, sizeof(path));
	struct gt_kube_resp r;
	call(w, GT_VERB_GET, "GET", path, NULL, NULL, &r);
	bool ours = false;
	if (r.status == 200) {
		json_t *j = json_loads(r.body, 0, NULL);
		json_t *spec = json_object_get(j, "spec");
		const char *node = json_string_value(json_object_get(spec, "nodeName"));
		const char *uid = json_string_value(json_object_get(json_object_get(j, "metadata"), "uid"));
		ours = node && !strcmp(node, op->node) && uid && !strcmp(uid, op->uid);
		json_decref(j);
	}
	gt_kube_resp_release(&r);
	return ours;
}

static void do_bind(struct gt_writer *w, const struct gt_kop *op)
{
	char path[600];
	struct gt_kube_resp r;
	if (op->n_groups) {
		json_t *labels = json_object();
		for (uint8_t g = 0; g < op->n_groups; g++) {
			char key[300];
			group_label_key(op, g, key, sizeof(key));
			json_object_set_new(labels, key, json_string(op->groups[g]));
		}
		json_t *patch = json_pack("{s:{s:o}}", "metadata", "labels", labels);
		char *body = json_dumps(patch, JSON_COMPACT);
		json_decref(patch);
		gt_kres_path(GT_KRES_PODS, op->ns, op->name, NULL, path, sizeof(path));
		call(w, GT_VERB_PATCH, "PATCH", path, "application/merge-patch+json", body, &r);
		free(body);
		if (r.status != 200) {
			atomic_fetch_add(&w->stats.bind_errors, 1);
			gt_log(GT_LOG_WARN, "writer", "bind pod %s/%s: cannot label its GPU group %s: %s", op->ns,
			       op->name, op->groups[0], why(&r));
			gt_kube_resp_release(&r);
			return;
		}
		gt_kube_resp_release(&r);
	}
	json_t *b = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:{s:s, s:s, s:s}}", "apiVersion", "v1", "kind",
			      "Binding", "metadata", "name", op->name, "namespace", op->ns, "uid", op->uid,
			      "target", "apiVersion", "v1", "kind", "Node", "name", op->node);
	char *body = json_dumps(b, JSON_COMPACT);
	json_decref(b);
	gt_kres_path(GT_KRES_PODS, op->ns, op->name, "binding", path, sizeof(path));
	call(w, GT_VERB_POST, "POST", path, "application/json", body, &r);
	free(body);
	bool ok = r.status == 201 || r.status == 200;
	if (!ok && r.status == 409 && bound_to(w, op)) {
		gt_log(GT_LOG_INFO, "writer", "pod %s/%s was already bound to %s (an earlier attempt)", op->ns,
		       op->name, op->node);
		ok = true;
	}
	if (!ok) {
		atomic_fetch_add(&w->stats.bind_errors, 1);
		gt_log(r.status == 404 ? GT_LOG_INFO : GT_LOG_WARN, "writer", "bind pod %s/%s to node %s: %s",
		       op->ns, op->name, op->node, r.status == 404 ? "the pod is gone" : why(&r));
		gt_kube_resp_release(&r);
		return;
	}
	gt_kube_resp_release(&r);
	atomic_fetch_add(&w->stats.binds, 1);
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", op->ns, op->name);
	gt_cache_assume(w->cache, GT_KRES_PODS, key, op->rv, assume_bound, (void *)op);
	gt_log(GT_LOG_DEBUG, "writer", "bound pod %s/%s to node %s%s%s", op->ns, op->name, op->node,
	       op->job ? " (job " : "", op->job ? op->job : "");
	event(w, GT_KRES_PODS, op->ns, op->name, op->uid, op->reason, op->message, false);
}

/* ---------------------------------------------------------------- evictions */

static void do_evict(struct gt_writer *w, const struct gt_kop *op)
{
	char path[600];
	struct gt_kube_resp r;
	json_t *opts = json_pack("{s:{s:s}}", "preconditions", "uid", op->uid);
	if (w->o.grace_period_s >= 0)
		json_object_set_new(opts, "gracePeriodSeconds", json_integer(w->o.grace_period_s));
	json_t *req;
	if (w->o.evict_by_delete) {
		json_object_set_new(opts, "apiVersion", json_string("v1"));
		json_object_set_new(opts, "kind", json_string("DeleteOptions"));
		req = opts;
		gt_kres_path(GT_KRES_PODS, op->ns, op->name, NULL, path, sizeof(path));
	} else {
		req = json_pack("{s:s, s:s, s:{s:s, s:s}, s:o}", "apiVersion", "policy/v1", "kind", "Eviction",
				"metadata", "name", op->name, "namespace", op->ns, "deleteOptions", opts);
		gt_kres_path(GT_KRES_PODS, op->ns, op->name, "eviction", path, sizeof(path));
	}
	char *body = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (w->o.evict_by_delete)
		call(w, GT_VERB_DELETE, "DELETE", path, "application/json", body, &r);
	else
		call(w, GT_VERB_POST, "POST", path, "application/json", body, &r);
	free(body);
	if (r.status == 429) {
		/* a disruption budget says not now: the next cycle decides again */
		atomic_fetch_add(&w->stats.evictions_refused, 1);
		gt_log(GT_LOG_INFO, "writer", "eviction of pod %s/%s refused for now: %s", op->ns, op->name,
		       why(&r));
		gt_kube_resp_release(&r);
		return;
	}
	if (r.status == 404 || r.status == 409) {
		gt_log(GT_LOG_INFO, "writer", "eviction of pod %s/%s: the pod is already gone", op->ns, op->name);
		gt_kube_resp_release(&r);
		return;
	}
	if (r.status < 200 || r.status >= 300) {
		atomic_fetch_add(&w->stats.eviction_errors, 1);
		gt_log(GT_LOG_WARN, "writer", "eviction of pod %s/%s: %s", op->ns, op->name, why(&r));
		gt_kube_resp_release(&r);
		return;
	}
	gt_kube_resp_release(&r);
	atomic_fetch_add(&w->stats.evictions[op->action < GT_N_ACTIONS ? op->action : 0], 1);
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", op->ns, op->name);
	gt_cache_assume(w->cache, GT_KRES_PODS, key, op->rv, assume_deleting, NULL);
	gt_log(GT_LOG_INFO, "writer", "evicted pod %s/%s: %s", op->ns, op->name, op->message);
	event(w, op->evict_event_res, op->evict_event_ns, op->evict_event_name, op->evict_event_uid, op->reason,
	      op->message, false);
}

/* ---------------------------------------------------------------- patches */

static void do_patch(struct gt_writer *w, const struct gt_kop *op)
{
	char path[600];
	gt_kres_path(op->res, gt_kres[op->res].namespaced ? op->ns : NULL, op->name,
		     op->sub && *op->sub ? op->sub : NULL, path, sizeof(path));
	struct gt_kube_resp r;
	call(w, GT_VERB_PATCH, "PATCH", path,
	     op->strategic ? "application/strategic-merge-patch+json" : "application/merge-patch+json", op->body,
	     &r);
	if (r.status == 200) {
		atomic_fetch_add(&w->stats.patches, 1);
	} else if (r.status == 404) {
		gt_log(GT_LOG_DEBUG, "writer", "%s of %s/%s: the object is gone", op->what, op->ns, op->name);
	} else {
		atomic_fetch_add(&w->stats.patch_errors, 1);
		gt_log(GT_LOG_WARN, "writer", "%s of %s %s%s%s: %s", op->what, gt_kres[op->res].kind, op->ns,
		       *op->ns ? "/" : "", op->name, why(&r));
	}
	gt_kube_resp_release(&r);
}

static void run_op(struct gt_writer *w, const struct gt_kop *op)
{
	switch (op->kind) {
	case GT_KOP_BIND:
		do_bind(w, op);
		break;
	case GT_KOP_EVICT:
		do_evict(w, op);
		break;
	case GT_KOP_PATCH:
		do_patch(w, op);
		break;
	case GT_KOP_EVENT:
		event(w, op->res, op->ns, op->name, op->uid, op->reason, op->message, op->warning);
		break;
	}
}

/* ---------------------------------------------------------------- pool */

static void *worker(void *arg)
{
	struct gt_writer *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->quit && (!w->plan || w->next >= w->plan->n))
			pthread_cond_wait(&w->work, &w->mu);
		if (w->quit)
			break;
		const struct gt_kop *op = &w->plan->ops[w->next++];
		pthread_mutex_unlock(&w->mu);
		run_op(w, op);
		pthread_mutex_lock(&w->mu);
		if (++w->done == w->plan->n)
			pthread_cond_broadcast(&w->idle);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

struct gt_writer *gt_writer_new(struct gt_kube_client *cl, struct gt_cache *cache,
				const struct gt_writer_opts *o)
{
	struct gt_writer *w = gt_xcalloc(1, sizeof(*w));
	w->cl = cl;
	w->cache = cache;
	w->o = *o;
	w->component = gt_xstrdup(o->component ? o->component : "kai-scheduler");
	w->instance = gt_xstrdup(o->instance ? o->instance : "gantry");
	w->n_threads = o->workers > 0 ? o->workers : 16;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->idle, NULL);
	w->threads = gt_xcalloc((size_t)w->n_threads, sizeof(*w->threads));
	for (int i = 0; i < w->n_threads; i++)
		if (pthread_create(&w->threads[i], NULL, worker, w)) {
			fprintf(stderr, "gantry: cannot start writer threads\n");
			abort();
		}
	return w;
}

void gt_writer_run(struct gt_writer *w, const struct gt_kplan *plan)
{
	if (!plan->n)
		return;
	pthread_mutex_lock(&w->mu);
	w->plan = plan;
	w->next = w->done = 0;
	pthread_cond_broadcast(&w->work);
	while (w->done < plan->n)
		pthread_cond_wait(&w->idle, &w->mu);
	w->plan = NULL;
	pthread_mutex_unlock(&w->mu);
}

const struct gt_writer_stats *gt_writer_stats(const struct gt_writer *w)
{
	return &w->stats;
}

void gt_writer_free(struct gt_writer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->quit = true;
	pthread_cond_broadcast(&w->work);
	pthread_mutex_unlock(&w->mu);
	for (int i = 0; i < w->n_threads; i++)
		pthread_join(w->threads[i], NULL);
	free(w->threads);
	free(w->component);
	free(w->instance);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->idle);
	free(w);
}
