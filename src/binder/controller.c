#include "binder/controller.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/bindrequest.h"
#include "api/gpushare.h"
#include "api/json.h"
#include "api/object.h"
#include "binder/reservations.h"
#include "scheduler/bind.h"
#include "util/clock.h"
#include "util/histogram.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/num.h"
#include "util/pool.h"
#include "util/smap.h"
#include "util/thread.h"

#define LOG "binder"
#define DEFAULT_WORKERS 10
#define MAX_DELAY_S 60.0	/* KAI's --rate-limiter-max-delay default */
#define GC_KRES (GT_KRES_BIT(GT_KRES_PODS) | GT_KRES_BIT(GT_KRES_BINDREQUESTS))
#define GC_INTERVAL_S 1.0	/* the shortest time between two reservation syncs */
#define GC_RETRY_S 5.0		/* after a deletion failed */
/*
 * The scheduler writes a BindRequest only for a pod it has seen, but our pod
 * watch can trail the BindRequest watch. A pod the cache lacks is looked for
 * again every POD_WAIT_STEP_S for POD_WAIT_S before the attempt fails (KAI's
 * binder, reading its own informer, fails and requeues at once).
 */
#define POD_WAIT_S 5.0
#define POD_WAIT_STEP_S 0.1

/* What the controller remembers of a BindRequest between passes. */
struct track {
	bool busy;		/* an attempt is in progress */
	char *rv;		/* the version our last outcome was written over: wait for a newer one */
	double due;		/* no attempt before this (monotonic seconds) */
	bool retry;		/* the last attempt failed with a retry to come (backoffLimit > failedAttempts) */
	unsigned seen;		/* the last pass that saw it */
	double pod_missing_since;	/* when an attempt first found no pod in the cache (0: it did not) */
};

/* One attempt at a BindRequest. */
struct attempt {
	struct gt_brctl *c;
	char key[700];		/* the track's key: "ns/name#uid" */
	char *ns, *name, *rv;	/* the BindRequest's */
	char *node;		/* spec.selectedNode */
	char *pod_name;
	bool has_limit;
	int64_t limit, failed;	/* spec.backoffLimit, status.failedAttempts */
	bool have_pod;		/* the pod exists (its condition and event can be written) */
	bool evented;		/* the shared-GPU flow posted the Bound event itself */
	struct gt_kop op;	/* the bind */
	double t0;
};

struct gt_brctl {
	struct gt_kube_client *cl;
	struct gt_cache *cache;
	struct gt_brctl_opts o;
	struct gt_brctl_stats stats;
	struct gt_kw kw;
	char *component, *instance;
	struct gt_binder *shared;	/* the shared-GPU flow */
	struct gt_pool *pool;		/* the other binds */
	pthread_t thread;
	atomic_bool quit;
	pthread_mutex_t mu;		/* tracks */
	struct gt_smap tracks;		/* key -> struct track */
	unsigned pass_no;
	/* reservation_gc: the cache's version the last sync saw, and the earliest time of the next */
	uint64_t gc_seen;
	double gc_at;
	bool gc_started;
};

static void attempt_free(struct attempt *a)
{
	free(a->ns);
	free(a->name);
	free(a->rv);
	free(a->node);
	free(a->pod_name);
	gt_kop_release(&a->op);
	free(a);
}

/* ---------------------------------------------------------------- the outcome */

/* The BindRequest's status as KAI's UpdateStatus leaves it; false when the patch failed. */
static bool patch_status(struct gt_brctl *c, struct attempt *a, bool ok, const char *why, bool retry)
{
	json_t *st = json_pack("{s:s}", "phase", ok ? "Succeeded" : "Failed");
	if (!ok) {
		json_object_set_new(st, "reason", json_string(why));
		json_object_set_new(st, "failedAttempts", json_integer(a->failed + (retry ? 1 : 0)));
	}
	char path[800];
	gt_kres_path(GT_KRES_BINDREQUESTS, a->ns, a->name, "status", path, sizeof(path));
	char *body = gt_json_dump_take(json_pack("{s:o}", "status", st));
	struct gt_kube_resp r;
	gt_kube_call(c->cl, GT_VERB_PATCH, "PATCH", path, "application/merge-patch+json", body, &r);
	free(body);
	bool done = r.status / 100 == 2;
	if (!done && r.status != 404) {
		atomic_fetch_add(&c->stats.status_errors, 1);
		gt_log(GT_LOG_WARN, LOG, "BindRequest %s/%s: status patch failed: %s", a->ns, a->name, gt_kube_why(&r));
	}
	gt_kube_resp_release(&r);
	return done;
}

/* The pod's PodBound condition and event, with KAI's reasons and messages. */
static void tell_pod(struct gt_brctl *c, struct attempt *a, bool ok, const char *why)
{
	char msg[1200];
	if (ok)
		snprintf(msg, sizeof(msg), "Pod bound successfully to node %s", a->node);
	else
		snprintf(msg, sizeof(msg), "Failed to bind pod %s/%s to node %s: %s", a->ns, a->pod_name, a->node, why);
	const char *reason = ok ? "Bound" : "BindingError";
	char path[800];
	gt_kres_path(GT_KRES_PODS, a->ns, a->pod_name, "status", path, sizeof(path));
	char *body = gt_json_dump_take(json_pack("{s:{s:[{s:s, s:s, s:s, s:s}]}}", "status", "conditions", "type",
						 "PodBound", "status", ok ? "True" : "False", "reason", reason,
						 "message", msg));
	struct gt_kube_resp r;
	gt_kube_call(c->cl, GT_VERB_PATCH, "PATCH", path, "application/strategic-merge-patch+json", body, &r);
	free(body);
	if (r.status / 100 != 2 && r.status != 404)
		gt_log(GT_LOG_WARN, LOG, "pod %s/%s: PodBound condition: %s", a->ns, a->pod_name, gt_kube_why(&r));
	gt_kube_resp_release(&r);
	if (a->evented && ok)
		return;
	bool sent = gt_kw_event(&c->kw, GT_KRES_PODS, a->ns, a->pod_name, a->op.uid, reason, msg, !ok);
	atomic_fetch_add(sent ? &c->stats.events : &c->stats.event_errors, 1);
}

/* An attempt is over: status, the pod's condition and event, when to look again. Frees @a. */
static void settle(struct attempt *a, bool ok, const char *why)
{
	struct gt_brctl *c = a->c;
	bool retry = !ok && a->has_limit && a->limit > a->failed;
	if (a->t0)
		gt_histogram_observe(&c->stats.bind_ms, gt_mono_ms() - a->t0);
	if (ok)
		gt_log(GT_LOG_INFO, LOG, "BindRequest %s/%s: pod %s bound to node %s", a->ns, a->name, a->pod_name, a->node);
	else
		gt_log(GT_LOG_WARN, LOG, "BindRequest %s/%s: pod %s not bound to node %s: %s (%s)", a->ns, a->name,
		       a->pod_name, a->node, why, retry ? "retried" : "failed for good: the scheduler deletes it");
	bool patched = patch_status(c, a, ok, why, retry);
	if (a->have_pod)
		tell_pod(c, a, ok, why);
	atomic_fetch_add(ok ? &c->stats.succeeded : &c->stats.failed, 1);
	if (retry)
		atomic_fetch_add(&c->stats.retries, 1);
	/* KAI's requeue after 2^failedAttempts s (capped as its rate limiter); a failed patch waits 1 s */
	double delay = retry ? (double)(1ull << (a->failed < 30 ? a->failed : 30)) : 1;
	double cap = c->o.max_delay_s > 0 ? c->o.max_delay_s : MAX_DELAY_S;
	pthread_mutex_lock(&c->mu);
	struct track *t = gt_smap_get(&c->tracks, a->key);
	if (t) {
		t->busy = false;
		free(t->rv);
		t->rv = patched ? gt_xstrdup(a->rv) : NULL;
		t->due = gt_mono_s() + (delay < cap ? delay : cap);
		t->retry = retry;
	}
	pthread_mutex_unlock(&c->mu);
	gt_cache_wake(c->cache);	/* the thread looks again: the retry's time, the next BindRequest */
	attempt_free(a);
}

static void shared_done(void *arg, bool bound, const char *why)
{
	struct attempt *a = arg;
	a->evented = bound;	/* the flow posted op.reason / op.message */
	settle(a, bound, why);
}

static void run_plain(void *arg, size_t i)
{
	(void)i;
	struct attempt *a = arg;
	char why[600] = "the bind failed";
	bool ok = a->op.n_groups ? gt_kw_bind_labelled(&a->c->kw, a->c->cache, &a->op, why, sizeof(why))
				 : gt_kw_bind_why(&a->c->kw, &a->op, why, sizeof(why));
	settle(a, ok, why);
}

/* ---------------------------------------------------------------- an attempt */

/* The bind @a's BindRequest @br asks for, from the pod's cached object @pod. */
static void make_op(struct attempt *a, const struct gt_doc *br, const struct gt_kobj *pod)
{
	struct gt_kop *op = &a->op;
	op->kind = GT_KOP_BIND;
	op->res = GT_KRES_PODS;
	op->ns = gt_xstrdup(pod->ns);
	op->name = gt_xstrdup(pod->name);
	op->uid = gt_xstrdup(pod->uid);
	op->rv = gt_xstrdup(pod->rv);
	op->node = gt_xstrdup(a->node);
	const char *groups[GT_MAX_DEVICES];
	size_t n = gt_br_groups(br, groups, GT_MAX_DEVICES);
	for (size_t g = 0; g < n; g++)
		op->groups[g] = gt_xstrdup(groups[g]);
	op->n_groups = (uint8_t)n;
	char msg[600];
	snprintf(msg, sizeof(msg), "Pod bound successfully to node %s", a->node);
	op->reason = gt_xstrdup("Bound");
	op->message = gt_xstrdup(msg);
	if (!n)
		return;
	/* KAI's binder shares a GPU for a BindRequest with GPU groups (IsSharedGPUAllocation) */
	op->shared = true;
	const char *portion = gt_doc_str(gt_doc_path(br, "spec.receivedGPU"), "portion");
	op->portion = gt_xstrdup(portion && *portion ? portion : "1.00");
	op->tolerations = gt_pod_tolerations_json(pod->doc);
	struct gt_gpushare_cms cms;
	if (gt_gpushare_configmaps(pod->doc, &cms)) {
		op->cm_caps = gt_xstrdup(cms.caps);
		op->cm_evar = gt_xstrdup(cms.evar);
		op->visible_in_caps = cms.visible_in_caps;
	}
}

/*
 * @a found no pod in the cache: true when it is to look again shortly (its
 * track is free and due then), false once POD_WAIT_S has gone by.
 */
static bool wait_for_pod(struct gt_brctl *c, struct attempt *a)
{
	double now = gt_mono_s();
	bool wait = false;
	pthread_mutex_lock(&c->mu);
	struct track *t = gt_smap_get(&c->tracks, a->key);
	if (t) {
		if (!t->pod_missing_since)
			t->pod_missing_since = now;
		wait = now - t->pod_missing_since < POD_WAIT_S;
		if (wait) {
			t->busy = false;
			t->due = now + POD_WAIT_STEP_S;
		}
	}
	pthread_mutex_unlock(&c->mu);
	if (wait) {
		gt_cache_wake(c->cache);	/* the thread's next pass sees the new due time */
		gt_log(GT_LOG_DEBUG, LOG, "BindRequest %s/%s: pod %s not in the cache yet: looking again", a->ns,
		       a->name, a->pod_name);
	}
	return wait;
}

/* Start @a (the controller's thread, no lock held): the pod and node from the cache, then the bind. */
static void start_attempt(struct gt_brctl *c, struct attempt *a, const struct gt_kobj *bro)
{
	char key[700], why[700];
	snprintf(key, sizeof(key), "%s/%s", a->ns, a->pod_name);
	struct gt_kobj *pod = gt_cache_get(c->cache, GT_KRES_PODS, key);
	struct gt_kobj *node = gt_cache_get(c->cache, GT_KRES_NODES, a->node);
	a->have_pod = pod != NULL;
	const char *on = pod ? gt_doc_str(gt_doc_path(pod->doc, "spec"), "nodeName") : NULL;
	if (pod) {
		free(a->op.uid);
		a->op.uid = gt_xstrdup(pod->uid);
	}
	if (!pod && wait_for_pod(c, a)) {
		attempt_free(a);
	} else if (!pod) {
		snprintf(why, sizeof(why), "pods \"%s\" not found", a->pod_name);
		settle(a, false, why);
	} else if (on && *on) {
		gt_log(GT_LOG_INFO, LOG, "BindRequest %s/%s: pod %s is already bound to node %s", a->ns, a->name,
		       a->pod_name, on);
		settle(a, true, NULL);
	} else if (!node) {
		snprintf(why, sizeof(why), "nodes \"%s\" not found", a->node);
		settle(a, false, why);
	} else {
		gt_kop_release(&a->op);
		memset(&a->op, 0, sizeof(a->op));
		make_op(a, bro->doc, pod);
		a->t0 = gt_mono_ms();
		if (a->op.shared && gt_binder_active(c->shared))
			gt_binder_submit_then(c->shared, &a->op, shared_done, a);
		else
			gt_pool_submit(c->pool, run_plain, a);
	}
	gt_kobj_unref(pod);
	gt_kobj_unref(node);
}

static int64_t int_at(const struct gt_doc *d, const char *obj, const char *key, bool *present)
{
	const char *v = gt_doc_str(gt_doc_path(d, obj), key);
	int64_t n = 0;
	*present = v && !gt_parse_int(v, &n);
	return *present ? n : 0;
}

/*
 * Is BindRequest @o to be attempted now? Lock held. Sets *@next to its
 * retry time when it waits for one.
 */
static bool due(struct gt_brctl *c, const struct gt_kobj *o, struct track *t, double now, double *next)
{
	(void)c;
	if (t->busy || gt_doc_path(o->doc, "metadata.deletionTimestamp"))
		return false;
	const char *phase = gt_doc_str(gt_doc_path(o->doc, "status"), "phase");
	if (phase && !strcmp(phase, "Succeeded"))
		return false;
	if (t->rv && !strcmp(t->rv, o->rv))
		return false;	/* our last outcome has not come back through the watch yet */
	if (phase && !strcmp(phase, "Failed")) {
		bool has_limit, has_failed;
		int64_t limit = int_at(o->doc, "spec", "backoffLimit", &has_limit);
		int64_t failed = int_at(o->doc, "status", "failedAttempts", &has_failed);
		/* failed for good: the scheduler's to delete; but the retry the last failure promised is made */
		if (failed >= limit && !t->retry)
			return false;
	}
	if (now < t->due) {
		if (!*next || t->due < *next)
			*next = t->due;
		return false;
	}
	return true;
}

/* One look at every BindRequest; the earliest retry time (0: none). */
static double pass(struct gt_brctl *c)
{
	size_t n;
	struct gt_kobj **brs = gt_cache_list(c->cache, GT_KRES_BINDREQUESTS, &n);
	struct attempt **go = gt_xcalloc(n + 1, sizeof(*go));
	size_t n_go = 0;
	double now = gt_mono_s(), next = 0;
	pthread_mutex_lock(&c->mu);
	unsigned pass_no = ++c->pass_no;
	for (size_t i = 0; i < n; i++) {
		const struct gt_kobj *o = brs[i];
		char key[700];
		snprintf(key, sizeof(key), "%s#%s", o->key, o->uid);
		struct track *t = gt_smap_get(&c->tracks, key);
		if (!t) {
			t = gt_xcalloc(1, sizeof(*t));
			gt_smap_put(&c->tracks, key, t);
		}
		t->seen = pass_no;
		const char *node = gt_br_node(o->doc);
		if (!due(c, o, t, now, &next) || !node)
			continue;
		t->busy = true;
		struct attempt *a = gt_xcalloc(1, sizeof(*a));
		a->c = c;
		snprintf(a->key, sizeof(a->key), "%s", key);
		a->ns = gt_xstrdup(o->ns);
		a->name = gt_xstrdup(o->name);
		a->rv = gt_xstrdup(o->rv);
		a->node = gt_xstrdup(node);
		a->pod_name = gt_xstrdup(gt_br_pod_name(o->doc));
		bool has_failed;
		a->limit = int_at(o->doc, "spec", "backoffLimit", &a->has_limit);
		a->failed = int_at(o->doc, "status", "failedAttempts", &has_failed);
		go[n_go++] = a;
	}
	/* forget the BindRequests gone (a busy one is forgotten once its attempt is over) */
	size_t pos = 0;
	const char *k;
	void *v;
	char **gone = NULL;
	size_t n_gone = 0, cap_gone = 0;
	while (gt_smap_next(&c->tracks, &pos, &k, &v))
		if (((struct track *)v)->seen != pass_no && !((struct track *)v)->busy)
			GT_PUSH(gone, n_gone, cap_gone, gt_xstrdup(k));
	for (size_t i = 0; i < n_gone; i++) {
		struct track *t = gt_smap_del(&c->tracks, gone[i]);
		free(t->rv);
		free(t);
		free(gone[i]);
	}
	free(gone);
	pthread_mutex_unlock(&c->mu);
	for (size_t i = 0; i < n_go; i++) {
		const struct gt_kobj *o = NULL;
		for (size_t j = 0; j < n && !o; j++)
			if (!strcmp(brs[j]->ns, go[i]->ns) && !strcmp(brs[j]->name, go[i]->name))
				o = brs[j];
		start_attempt(c, go[i], o);
	}
	free(go);
	for (size_t i = 0; i < n; i++)
		gt_kobj_unref(brs[i]);
	free(brs);
	return next;
}

/* ---------------------------------------------------------------- idle reservation pods */

static void delete_idle(struct gt_brctl *c, const struct gt_resv_idle *r)
{
	const char *ns = r->pod->ns, *name = r->pod->name;
	gt_log(GT_LOG_INFO, LOG, "GPU group %s has no fractional pod left: deleting its reservation pod %s/%s",
	       r->group, ns, name);
	switch (gt_binder_delete_idle(c->shared, r->group, name, r->pod->uid)) {
	case GT_RESV_DELETED:
		atomic_fetch_add(&c->stats.resv_deleted, 1);
		break;
	case GT_RESV_BUSY:
		gt_log(GT_LOG_INFO, LOG, "reservation pod %s/%s kept: a bind for GPU group %s has just begun", ns, name,
		       r->group);
		break;
	case GT_RESV_GONE:
		gt_log(GT_LOG_INFO, LOG, "reservation pod %s/%s was gone already", ns, name);
		break;
	case GT_RESV_ERROR:
		atomic_fetch_add(&c->stats.resv_delete_errors, 1);
		c->gc_seen = 0;	/* look again, change or not */
		c->gc_at = gt_mono_s() + GC_RETRY_S;
		break;
	}
}

/*
 * KAI's resource-reservation sync on the cache: the reservation pods whose
 * GPU group no pod, BindRequest or bind in flight uses are deleted. At most
 * once per GC_INTERVAL_S, and only when pods or BindRequests changed; the
 * time of the next sync when one is due later (0: none).
 */
static double sync_reservations(struct gt_brctl *c)
{
	double now = gt_mono_s();
	uint64_t v = gt_cache_version(c->cache, GC_KRES);
	if (c->gc_started && v == c->gc_seen)
		return 0;
	if (now < c->gc_at)
		return c->gc_at;
	if (!c->gc_started)
		gt_log(GT_LOG_INFO, LOG, "syncing GPU reservation pods in namespace %s",
		       c->o.reservation.ns ? c->o.reservation.ns : GT_RESERVATION);
	c->gc_started = true;
	c->gc_seen = v;
	c->gc_at = now + GC_INTERVAL_S;
	/* pods before binds in flight: a bind that ends between the two is still seen in flight */
	struct gt_resv_view view = { .ns = c->o.reservation.ns };
	struct gt_kobj **pods = gt_cache_list(c->cache, GT_KRES_PODS, &view.n_pods);
	struct gt_kobj **brs = gt_cache_list(c->cache, GT_KRES_BINDREQUESTS, &view.n_brs);
	struct gt_inflight *ifl = gt_cache_inflight_list(c->cache, &view.n_inflight);
	view.pods = pods;
	view.brs = brs;
	view.inflight = ifl;
	struct gt_resv_verdict r;
	gt_resv_judge(&view, &r);
	/* the binds in flight whose pods are bound or gone are over (no snapshot drops them here) */
	for (size_t i = 0; i < view.n_inflight; i++)
		if (r.inflight_done[i])
			gt_cache_inflight_drop(c->cache, ifl[i].key, ifl[i].uid);
	if (r.n_kept_binding)
		gt_log(GT_LOG_DEBUG, LOG, "%zu reservation pods kept for a bind on the way", r.n_kept_binding);
	for (size_t i = 0; i < r.n_idle; i++)
		delete_idle(c, &r.idle[i]);
	atomic_fetch_add(&c->stats.resv_syncs, 1);
	gt_resv_verdict_release(&r);
	gt_inflight_free(ifl, view.n_inflight);
	for (size_t i = 0; i < view.n_pods; i++)
		gt_kobj_unref(pods[i]);
	for (size_t i = 0; i < view.n_brs; i++)
		gt_kobj_unref(brs[i]);
	free(pods);
	free(brs);
	return c->gc_seen ? 0 : c->gc_at;
}

static void *run(void *arg)
{
	struct gt_brctl *c = arg;
	bool said = false;
	unsigned mask = GT_BRCTL_KRES | GT_KRES_WAKE;
	while (!atomic_load(&c->quit)) {
		uint64_t seen = gt_cache_version(c->cache, mask);
		bool ready = gt_cache_all_synced(c->cache, GT_BRCTL_KRES);
		bool active = !c->o.active || atomic_load(c->o.active);
		double next = 0;
		if (ready && active) {
			if (!said)
				gt_log(GT_LOG_INFO, LOG, "binding the pods of BindRequests");
			said = true;
			next = pass(c);
			double gc = c->o.reservation_gc ? sync_reservations(c) : 0;
			if (gc && (!next || gc < next))
				next = gc;
		}
		gt_cache_wait(c->cache, mask, seen, next);
	}
	return NULL;
}

/* ---------------------------------------------------------------- life */

struct gt_brctl *gt_brctl_start(struct gt_kube_client *cl, struct gt_cache *cache, const struct gt_brctl_opts *o)
{
	struct gt_brctl *c = gt_xcalloc(1, sizeof(*c));
	c->cl = cl;
	c->cache = cache;
	c->o = *o;
	c->component = gt_xstrdup(o->component ? o->component : "binder");
	c->instance = gt_xstrdup(o->instance ? o->instance : "gantry");
	c->kw = (struct gt_kw){ .cl = cl, .component = c->component, .instance = c->instance };
	gt_histogram_init_exp(&c->stats.bind_ms, 5, 2, 10);
	struct gt_binder_counters n = { .binds = &c->stats.binds, .errors = &c->stats.bind_errors,
					.events = &c->stats.events, .event_errors = &c->stats.event_errors };
	c->shared = gt_binder_new(&c->kw, cache, n, &o->reservation);
	c->pool = gt_pool_new(o->workers > 0 ? o->workers : DEFAULT_WORKERS, "bindrequests");
	pthread_mutex_init(&c->mu, NULL);
	gt_smap_init(&c->tracks);
	gt_thread_start(&c->thread, run, c, "the BindRequest controller's thread");
	return c;
}

const struct gt_brctl_stats *gt_brctl_stats(const struct gt_brctl *c)
{
	return &c->stats;
}

void gt_brctl_write_metrics(struct gt_brctl *c, FILE *f, const char *p)
{
	gt_prom_head(f, p, "bind_requests_total", "counter", "BindRequests carried out, by outcome");
	fprintf(f, "%s_bind_requests_total{result=\"succeeded\"} %lu\n", p, atomic_load(&c->stats.succeeded));
	fprintf(f, "%s_bind_requests_total{result=\"failed\"} %lu\n", p, atomic_load(&c->stats.failed));
	gt_prom_counter(f, p, "bind_request_retries_total", "Failed binds given another attempt (backoffLimit)",
			atomic_load(&c->stats.retries));
	gt_prom_counter(f, p, "bind_request_status_errors_total", "BindRequest status patches that failed",
			atomic_load(&c->stats.status_errors));
	if (c->o.reservation_gc) {
		gt_prom_counter(f, p, "reservation_syncs_total", "Looks at every GPU reservation pod for idle ones",
				atomic_load(&c->stats.resv_syncs));
		gt_prom_counter(f, p, "reservation_pods_deleted_total",
				"GPU reservation pods deleted: no fractional pod left in their group",
				atomic_load(&c->stats.resv_deleted));
		gt_prom_counter(f, p, "reservation_pod_delete_errors_total",
				"Deletions of idle GPU reservation pods that failed",
				atomic_load(&c->stats.resv_delete_errors));
	}
	char name[128];
	snprintf(name, sizeof(name), "%s_bind_request_latency_milliseconds", p);
	gt_histogram_write(&c->stats.bind_ms, f, name, "A BindRequest's bind, its requests to the API server, ms",
			   NULL);
}

static void drop_attempt(void *arg)
{
	attempt_free(arg);
}

void gt_brctl_stop(struct gt_brctl *c)
{
	if (!c)
		return;
	atomic_store(&c->quit, true);
	gt_cache_wake(c->cache);
	pthread_join(c->thread, NULL);
	gt_pool_free(c->pool, drop_attempt);	/* binds in progress finish */
	gt_binder_free(c->shared);	/* those waiting for a reservation pod are given up (settled Failed) */
	size_t pos = 0;
	void *v;
	while (gt_smap_next(&c->tracks, &pos, NULL, &v)) {
		free(((struct track *)v)->rv);
		free(v);
	}
	gt_smap_release(&c->tracks);
	pthread_mutex_destroy(&c->mu);
	free(c->component);
	free(c->instance);
	free(c);
}
