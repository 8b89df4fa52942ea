#include "scheduler/writer.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/json.h"
#include "scheduler/bind.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/pool.h"
#include "util/time.h"

struct gt_writer {
	struct gt_kw kw;
	struct gt_binder *binder;
	struct gt_cache *cache;
	struct gt_writer_opts o;
	char *component, *instance;
	struct gt_writer_stats stats;
	struct gt_pool *pool;
};

/* ---------------------------------------------------------------- binds */

static void count_event(struct gt_writer *w, bool ok)
{
	atomic_fetch_add(ok ? &w->stats.events : &w->stats.event_errors, 1);
}

static void do_event(struct gt_writer *w, const struct gt_kop *op)
{
	count_event(w, gt_kw_event(&w->kw, op->res, op->ns, op->name, op->uid, op->reason, op->message,
				   op->warning));
}

/* KAI's BindRequest for @op (cache.go's createBindRequest). */
static json_t *bind_request(const struct gt_writer *w, const struct gt_kop *op)
{
	json_t *labels = json_pack("{s:s}", "selected-node", op->node);
	if (w->o.pool_key && w->o.pool_value && *w->o.pool_value)
		json_object_set_new(labels, w->o.pool_key, json_string(w->o.pool_value));
	json_t *md = json_pack("{s:s, s:s, s:[{s:s, s:s, s:s, s:s}], s:o}", "name", op->name, "namespace", op->ns,
			       "ownerReferences", "apiVersion", "v1", "kind", "Pod", "name", op->name, "uid", op->uid,
			       "labels", labels);
	json_t *spec = json_pack("{s:s, s:s, s:s}", "podName", op->name, "selectedNode", op->node,
				 "receivedResourceType", op->shared ? "Fraction" : "Regular");
	if (op->n_groups) {
		json_t *groups = json_array();
		for (uint8_t g = 0; g < op->n_groups; g++)
			json_array_append_new(groups, json_string(op->groups[g]));
		json_object_set_new(spec, "selectedGPUGroups", groups);
	}
	if (op->shared)
		json_object_set_new(spec, "receivedGPU", json_pack("{s:i, s:s}", "count", (int)op->n_groups,
								   "portion", op->portion ? op->portion : "1.00"));
	return json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "scheduling.run.ai/v1alpha2", "kind", "BindRequest",
			 "metadata", md, "spec", spec);
}

/* BindRequest mode: the bind is a BindRequest for a binder to carry out. */
static void do_bind_request(struct gt_writer *w, const struct gt_kop *op)
{
	char path[600];
	gt_kres_path(GT_KRES_BINDREQUESTS, op->ns, NULL, NULL, path, sizeof(path));
	char *body = gt_json_dump_take(bind_request(w, op));
	struct gt_kube_resp r;
	double t0 = gt_mono_ms();
	gt_kube_call(w->kw.cl, GT_VERB_POST, "POST", path, "application/json", body, &r);
	gt_histogram_observe(&w->stats.bind_ms, gt_mono_ms() - t0);
	free(body);
	if (r.status != 201 && r.status != 200) {
		/* 409: one is there already (stale ones are deleted by the plan): the next snapshot judges it */
		atomic_fetch_add(&w->stats.bind_errors, 1);
		gt_log(r.status == 409 ? GT_LOG_INFO : GT_LOG_WARN, "writer", "BindRequest for pod %s/%s on node %s: %s",
		       op->ns, op->name, op->node, gt_kube_why(&r));
		gt_kube_resp_release(&r);
		return;
	}
	json_t *made = json_loadb(r.body, r.len, 0, NULL);
	gt_kube_resp_release(&r);
	struct gt_err err = { 0 };
	struct gt_kobj *o = made ? gt_kobj_new(GT_KRES_BINDREQUESTS, made, &err) : NULL;
	if (o)
		gt_cache_upsert(w->cache, o);	/* the next snapshot sees the pod Binding, as KAI's informer store */
	json_decref(made);
	atomic_fetch_add(&w->stats.binds, 1);
	atomic_fetch_add(&w->stats.bind_requests, 1);
	gt_log(GT_LOG_DEBUG, "writer", "BindRequest %s/%s: pod to node %s%s%s", op->ns, op->name, op->node,
	       op->job ? " (job " : "", op->job ? op->job : "");
}

/* Does the claim's status (@body, JSON) reserve it for the pod @uid? */
static bool reserves(const char *body, const char *uid)
{
	json_t *j = json_loads(body ? body : "", 0, NULL);
	json_t *rf = json_object_get(json_object_get(j, "status"), "reservedFor");
	bool yes = false;
	size_t i;
	json_t *ref;
	json_array_foreach(rf, i, ref) {
		const char *u = json_string_value(json_object_get(ref, "uid"));
		yes |= u && !strcmp(u, uid);
	}
	json_decref(j);
	return yes;
}

/*
 * A DRA pod's claims, before its Binding (as kube-scheduler's PreBind): each claim's status
 * patch, whose resourceVersion makes a stale one fail with 409. A 409 is still success when
 * the claim reserves the pod already (another pod's bind this cycle wrote the same status,
 * or an earlier attempt of this one). False: do not bind.
 */
static bool write_claims(struct gt_writer *w, const struct gt_kop *op)
{
	for (uint8_t i = 0; i < op->n_claims; i++) {
		char path[700];
		gt_kres_path(GT_KRES_RESOURCECLAIMS, op->ns, op->claim_names[i], "status", path, sizeof(path));
		struct gt_kube_resp r;
		gt_kube_call(w->kw.cl, GT_VERB_PATCH, "PATCH", path, "application/merge-patch+json",
			     op->claim_bodies[i], &r);
		bool ok = r.status == 200;
		if (r.status == 409) {
			struct gt_kube_resp g;
			gt_kres_path(GT_KRES_RESOURCECLAIMS, op->ns, op->claim_names[i], NULL, path, sizeof(path));
			gt_kube_call(w->kw.cl, GT_VERB_GET, "GET", path, NULL, NULL, &g);
			ok = g.status == 200 && reserves(g.body, op->uid);
			gt_kube_resp_release(&g);
		}
		if (!ok)
			gt_log(GT_LOG_WARN, "writer", "pod %s/%s not bound: status of resource claim %s: %s", op->ns,
			       op->name, op->claim_names[i], r.status == 409 ? "changed since the snapshot (409)"
										 : gt_kube_why(&r));
		gt_kube_resp_release(&r);
		if (!ok)
			return false;
	}
	return true;
}

static void do_bind(struct gt_writer *w, const struct gt_kop *op)
{
	if (op->n_claims && !write_claims(w, op)) {
		atomic_fetch_add(&w->stats.bind_errors, 1);
		return;
	}
	if (w->o.bind_requests) {	/* the claims are written first: the BindRequest carries no allocation */
		do_bind_request(w, op);
		return;
	}
	if (op->shared && op->n_groups && gt_binder_active(w->binder)) {
		gt_binder_submit(w->binder, op);
		return;
	}
	double t0 = gt_mono_ms();
	bool ok = op->n_groups ? gt_kw_bind_labelled(&w->kw, w->cache, op, NULL, 0) : gt_kw_bind(&w->kw, op);
	gt_histogram_observe(&w->stats.bind_ms, gt_mono_ms() - t0);
	if (!ok) {
		atomic_fetch_add(&w->stats.bind_errors, 1);
		return;
	}
	atomic_fetch_add(&w->stats.binds, 1);
	if (!op->n_groups)
		gt_kw_assume_bound(w->cache, op);
	gt_log(GT_LOG_DEBUG, "writer", "bound pod %s/%s to node %s%s%s", op->ns, op->name, op->node,
	       op->job ? " (job " : "", op->job ? op->job : "");
	count_event(w, gt_kw_event(&w->kw, GT_KRES_PODS, op->ns, op->name, op->uid, op->reason, op->message,
				   false));
}

/* ---------------------------------------------------------------- evictions */

static void assume_deleting(struct gt_doc *doc, void *arg)
{
	(void)arg;
	char ts[48];
	gt_time_now_rfc3339(ts, sizeof(ts), 0);
	const char *p[] = { "metadata", "deletionTimestamp" };
	gt_doc_set(doc, p, 2, ts, true);
}

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
	char *body = gt_json_dump_take(req);
	if (w->o.evict_by_delete)
		gt_kube_call(w->kw.cl, GT_VERB_DELETE, "DELETE", path, "application/json", body, &r);
	else
		gt_kube_call(w->kw.cl, GT_VERB_POST, "POST", path, "application/json", body, &r);
	free(body);
	if (r.status == 429) {
		/* a disruption budget says not now: the next cycle decides again */
		atomic_fetch_add(&w->stats.evictions_refused, 1);
		gt_log(GT_LOG_INFO, "writer", "eviction of pod %s/%s refused for now: %s", op->ns, op->name,
		       gt_kube_why(&r));
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
		gt_log(GT_LOG_WARN, "writer", "eviction of pod %s/%s: %s", op->ns, op->name, gt_kube_why(&r));
		gt_kube_resp_release(&r);
		return;
	}
	gt_kube_resp_release(&r);
	atomic_fetch_add(&w->stats.evictions[op->action < GT_N_ACTIONS ? op->action : 0], 1);
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", op->ns, op->name);
	gt_cache_assume(w->cache, GT_KRES_PODS, key, op->rv, assume_deleting, NULL);
	gt_log(GT_LOG_INFO, "writer", "evicted pod %s/%s: %s", op->ns, op->name, op->message);
	count_event(w, gt_kw_event(&w->kw, op->evict_event_res, op->evict_event_ns, op->evict_event_name,
				   op->evict_event_uid, op->reason, op->message, false));
}

/* ---------------------------------------------------------------- patches */

static void do_patch(struct gt_writer *w, const struct gt_kop *op)
{
	char path[600];
	gt_kres_path(op->res, gt_kres[op->res].namespaced ? op->ns : NULL, op->name,
		     op->sub && *op->sub ? op->sub : NULL, path, sizeof(path));
	struct gt_kube_resp r;
	gt_kube_call(w->kw.cl, GT_VERB_PATCH, "PATCH", path,
		     op->strategic ? "application/strategic-merge-patch+json" : "application/merge-patch+json",
		     op->body, &r);
	if (r.status == 200) {
		atomic_fetch_add(&w->stats.patches, 1);
	} else if (r.status == 404) {
		gt_log(GT_LOG_DEBUG, "writer", "%s of %s/%s: the object is gone", op->what, op->ns, op->name);
	} else {
		atomic_fetch_add(&w->stats.patch_errors, 1);
		gt_log(GT_LOG_WARN, "writer", "%s of %s %s%s%s: %s", op->what, gt_kres[op->res].kind, op->ns,
		       *op->ns ? "/" : "", op->name, gt_kube_why(&r));
	}
	gt_kube_resp_release(&r);
}

/* ---------------------------------------------------------------- deletes */

static void do_delete(struct gt_writer *w, const struct gt_kop *op)
{
	char path[600];
	gt_kres_path(op->res, op->ns, op->name, NULL, path, sizeof(path));
	json_t *opts = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "DeleteOptions",
				 "preconditions", "uid", op->uid);
	if (op->grace_s >= 0)
		json_object_set_new(opts, "gracePeriodSeconds", json_integer(op->grace_s));
	char *body = gt_json_dump_take(opts);
	struct gt_kube_resp r;
	gt_kube_call(w->kw.cl, GT_VERB_DELETE, "DELETE", path, "application/json", body, &r);
	free(body);
	/* 404: gone already; 409: the precondition met a new object of that name, not ours to delete */
	if (r.status == 200 || r.status == 202 || r.status == 404 || r.status == 409) {
		atomic_fetch_add(&w->stats.deletes, 1);
		/* a BindRequest is gone at once (no grace): the next snapshot must not judge and delete it again */
		if (op->res == GT_KRES_BINDREQUESTS && r.status != 409) {
			char key[600];
			snprintf(key, sizeof(key), "%s/%s", op->ns, op->name);
			gt_cache_delete(w->cache, op->res, key);
		}
		gt_log(GT_LOG_INFO, "writer", "deleted %s %s/%s", op->what, op->ns, op->name);
	} else {
		atomic_fetch_add(&w->stats.delete_errors, 1);
		gt_log(GT_LOG_WARN, "writer", "delete %s %s/%s: %s", op->what, op->ns, op->name, gt_kube_why(&r));
	}
	gt_kube_resp_release(&r);
}

static void run_op(struct gt_writer *w, const struct gt_kop *op)
{
	static void (*const run[])(struct gt_writer *, const struct gt_kop *) = {
		[GT_KOP_BIND] = do_bind, [GT_KOP_EVICT] = do_evict, [GT_KOP_PATCH] = do_patch,
		[GT_KOP_EVENT] = do_event, [GT_KOP_DELETE] = do_delete,
	};
	run[op->kind](w, op);
}

/* The plan being written: the pool runs its writes, one task each. */
struct batch {
	struct gt_writer *w;
	const struct gt_writes *plan;
};

static void run_one(void *arg, size_t i)
{
	struct batch *b = arg;
	run_op(b->w, &b->plan->ops[i]);
}

struct gt_writer *gt_writer_new(struct gt_kube_client *cl, struct gt_cache *cache,
				const struct gt_writer_opts *o)
{
	struct gt_writer *w = gt_xcalloc(1, sizeof(*w));
	w->cache = cache;
	w->o = *o;
	w->component = gt_xstrdup(o->component ? o->component : "kai-scheduler");
	w->instance = gt_xstrdup(o->instance ? o->instance : "gantry");
	w->kw = (struct gt_kw){ .cl = cl, .component = w->component, .instance = w->instance };
	gt_histogram_init_exp(&w->stats.bind_ms, 5, 2, 10);	/* KAI's buckets */
	struct gt_binder_counters n = { .binds = &w->stats.binds, .errors = &w->stats.bind_errors,
					.events = &w->stats.events, .event_errors = &w->stats.event_errors,
					.bind_ms = &w->stats.bind_ms };
	w->binder = gt_binder_new(&w->kw, cache, n, &o->reservation);
	w->pool = gt_pool_new(o->workers > 0 ? o->workers : 16, "writer");
	return w;
}

void gt_writer_run(struct gt_writer *w, const struct gt_writes *plan)
{
	struct batch b = { w, plan };
	gt_pool_for(w->pool, plan->n, run_one, &b);
}

size_t gt_writer_binds_in_flight(struct gt_writer *w)
{
	return gt_binder_pending(w->binder);
}

void gt_writer_wait_binds(struct gt_writer *w)
{
	gt_binder_wait_idle(w->binder);
}

void gt_writer_wake(void *w)
{
	gt_binder_wake(((struct gt_writer *)w)->binder);
}

const struct gt_writer_stats *gt_writer_stats(const struct gt_writer *w)
{
	return &w->stats;
}

void gt_writer_free(struct gt_writer *w)
{
	if (!w)
		return;
	gt_pool_free(w->pool, NULL);
	/* while the client still works: given-up binds clean up after themselves */
	gt_binder_free(w->binder);
	free(w->component);
	free(w->instance);
	free(w);
}
