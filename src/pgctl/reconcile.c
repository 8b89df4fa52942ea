/*
 * reconcile.c - one pod: its owners, its PodGroup, its annotation
 *
 * The steps of KAI's pod reconciler (pkg/podgrouper/pod_controller.go), each
 * write made only when the object does not say so already, so that
 * reconciling a pod twice, or after a restart, writes nothing the second
 * time.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/json.h"
#include "api/object.h"
#include "kube/event.h"
#include "pgctl/reconcile.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"

#define MAX_OWNER_DEPTH 16	/* owner chains are short; this catches cycles too */
#define MAX_EXTRAS 4		/* related objects read for one pod */
#define JOB_ID_ANNOTATION "runai-job-id"
#define PODGANG_LABEL "grove.io/podgang"
#define WARNING_REASON "PodGrouperWarning"
#define RECENT_S 5.0		/* a PodGroup just written is in the cache well before this */

/* ---------------------------------------------------------------- requests */

static bool transient(long status)
{
	return status == 0 || status == 429 || status >= 500;
}

/* ---------------------------------------------------------------- warnings */

/*
 * A PodGrouperWarning event on @pod. Its name derives from the pod and the
 * message, so the same failure, retried or met again after a restart, is
 * recorded once (the create meets 409).
 */
static void warn(const struct gt_pgctl_env *env, const struct gt_kobj *pod, const char *msg)
{
	struct gt_event_source src = { .cl = env->cl, .component = env->component, .instance = env->instance };
	struct gt_event ev = { .kind = "Pod", .api_version = "v1", .ns = pod->ns, .name = pod->name,
			       .uid = pod->uid, .reason = WARNING_REASON, .message = msg, .warning = true,
			       .once = true };
	char w[400];
	switch (gt_event_post(&src, &ev, w, sizeof(w))) {
	case GT_EVENT_POSTED:
		atomic_fetch_add(&env->stats->warnings, 1);
		gt_log(GT_LOG_WARN, "podgrouper", "pod %s: %s", pod->key, msg);
		break;
	case GT_EVENT_KNOWN:
		gt_log(GT_LOG_DEBUG, "podgrouper", "pod %s: %s (already recorded)", pod->key, msg);
		break;
	case GT_EVENT_FAILED:
		gt_log(GT_LOG_WARN, "podgrouper", "pod %s: %s (and the event could not be recorded: %s)",
		       pod->key, msg, w);
		break;
	}
}

/* ---------------------------------------------------------------- owners */

struct chain {
	struct gt_kobj *own[MAX_OWNER_DEPTH + MAX_EXTRAS];
	const struct gt_doc *docs[MAX_OWNER_DEPTH];	/* nearest owner first */
	size_t n;
	const struct gt_doc *extras[MAX_EXTRAS];	/* related objects read for the rule */
	size_t n_extras;
};

static void chain_release(struct chain *ch)
{
	for (size_t i = 0; i < ch->n + ch->n_extras; i++)
		gt_kobj_unref(ch->own[i]);
}

/* The uid of a watched object read for the pod (its change brings the pod back). */
static void note_read(struct gt_pgctl_outcome *out, const struct gt_kobj *o)
{
	if (*o->uid && out->n_read < GT_PGCTL_MAX_READ)
		snprintf(out->read[out->n_read++], sizeof(out->read[0]), "%s", o->uid);
}

/*
 * The object @ref names: a pod from the cache the reflectors keep (the
 * Spark driver that owns its executors), anything else through the owner
 * watches.
 */
static int lookup(const struct gt_pgctl_env *env, const struct gt_owner_ref *ref, double read_after,
		  struct gt_kobj **out, struct gt_err *err)
{
	if (!strcmp(ref->api_version, "v1") && !strcmp(ref->kind, "Pod")) {
		char key[600];
		snprintf(key, sizeof(key), "%s/%s", ref->ns, ref->name);
		struct gt_kobj *o = gt_cache_get(env->cache, GT_KRES_PODS, key);
		if (o && (!ref->uid || !*ref->uid || !strcmp(ref->uid, o->uid))) {
			*out = o;
			return 0;
		}
		gt_kobj_unref(o);	/* not there yet, or replaced: ask the API server */
	}
	return gt_owners_get(env->owners, ref, read_after, 0, out, err);
}

/* Read one owner by @ref into @ch (after the @ch->n nearer ones). */
static int follow(const struct gt_pgctl_env *env, const struct gt_kobj *pod, const struct gt_doc *ref,
		  double read_after, struct chain *ch, struct gt_err *err)
{
	const char *api = gt_doc_str(ref, "apiVersion"), *kind = gt_doc_str(ref, "kind");
	const char *name = gt_doc_str(ref, "name"), *uid = gt_doc_str(ref, "uid");
	if (!api || !kind || !name)
		return gt_errf(err, GT_EINVAL, "an owner reference in the chain of Pod %s lacks apiVersion, "
			       "kind or name (metadata.ownerReferences)", pod->key);
	if (ch->n == MAX_OWNER_DEPTH)
		return gt_errf(err, GT_EINVAL, "the owners of Pod %s go deeper than %d (a cycle?)",
			       pod->key, MAX_OWNER_DEPTH);
	struct gt_kobj *o;
	struct gt_owner_ref r = { api, kind, pod->ns, name, uid };
	int rc = lookup(env, &r, read_after, &o, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < ch->n; i++) {
		if (ch->own[i] == o || (*o->uid && !strcmp(ch->own[i]->uid, o->uid))) {
			gt_kobj_unref(o);
			return gt_errf(err, GT_EINVAL, "the owner references of Pod %s form a cycle "
				       "through %s %s", pod->key, kind, name);
		}
	}
	ch->own[ch->n] = o;
	ch->docs[ch->n++] = o->doc;
	return 0;
}

static int resolve_chain(const struct gt_pgctl_env *env, const struct gt_kobj *pod, double read_after,
			 struct chain *ch, struct gt_err *err)
{
	const struct gt_doc *cur = pod->doc, *ref;
	while ((ref = gt_pg_owner_ref(cur))) {
		int rc = follow(env, pod, ref, read_after, ch, err);
		if (rc)
			return rc;
		cur = ch->docs[ch->n - 1];
	}
	return 0;
}

static bool in_chain(const struct chain *ch, const char *kind, const char *name)
{
	for (size_t i = 0; i < ch->n; i++) {
		const char *k = gt_doc_str(ch->docs[i], "kind");
		const char *n = gt_doc_str(gt_doc_get(ch->docs[i], "metadata"), "name");
		if (k && n && !strcmp(k, kind) && !strcmp(n, name))
			return true;
	}
	return false;
}

/* Read a related object for the rules; a missing one is for the rule to report. */
static int add_extra(const struct gt_pgctl_env *env, const struct gt_kobj *pod, const char *api,
		     const char *kind, const char *name, double read_after, struct chain *ch,
		     struct gt_err *err)
{
	if (!name || ch->n_extras == MAX_EXTRAS || in_chain(ch, kind, name))
		return 0;
	struct gt_kobj *o;
	struct gt_owner_ref r = { api, kind, pod->ns, name, NULL };
	int rc = lookup(env, &r, read_after, &o, err);
	if (rc == GT_EIO)
		return rc;
	if (rc)
		return 0;
	ch->own[ch->n + ch->n_extras] = o;
	ch->extras[ch->n_extras++] = o->doc;
	return 0;
}

/*
 * The objects outside the owner chain and the cache that a rule consults,
 * as KAI's groupers read them: a Grove pod's PodGang (its label names it),
 * and the RayCluster a RayJob's or RayService's status names.
 */
static int read_extras(const struct gt_pgctl_env *env, const struct gt_kobj *pod, double read_after,
		       struct chain *ch, struct gt_err *err)
{
	int rc = add_extra(env, pod, "scheduler.grove.io/v1alpha1", "PodGang",
			   gt_obj_label(pod->doc, PODGANG_LABEL), read_after, ch, err);
	if (rc || !ch->n)
		return rc;
	const struct gt_doc *top = ch->docs[ch->n - 1];
	const char *kind = gt_doc_str(top, "kind"), *api = gt_doc_str(top, "apiVersion");
	if (!kind || !api || strncmp(api, "ray.io/", 7) ||
	    (strcmp(kind, "RayJob") && strcmp(kind, "RayService")))
		return 0;
	const struct gt_doc *status = gt_doc_get(top, "status");
	const char *names[] = {
		gt_doc_str(status, "rayClusterName"),
		gt_doc_str(gt_doc_get(status, "activeServiceStatus"), "rayClusterName"),
		gt_doc_str(gt_doc_get(status, "pendingServiceStatus"), "rayClusterName"),
	};
	for (size_t i = 0; i < 3 && !rc; i++)
		rc = add_extra(env, pod, api, "RayCluster", names[i], read_after, ch, err);
	return rc;
}

/* ---------------------------------------------------------------- the PodGroup */

/* @v without nulls, empty objects and empty arrays: what "unset" looks like in JSON. */
static json_t *norm(const json_t *v)
{
	if (json_is_object(v)) {
		json_t *o = json_object();
		const char *k;
		json_t *x;
		json_object_foreach((json_t *)v, k, x) {
			json_t *n = norm(x);
			if (n)
				json_object_set_new(o, k, n);
		}
		if (!json_object_size(o)) {
			json_decref(o);
			return NULL;
		}
		return o;
	}
	if (json_is_array(v)) {
		if (!json_array_size(v))
			return NULL;
		json_t *a = json_array();
		for (size_t i = 0; i < json_array_size(v); i++) {
			json_t *n = norm(json_array_get(v, i));
			json_array_append_new(a, n ? n : json_null());
		}
		return a;
	}
	return json_is_null(v) || !v ? NULL : json_incref((json_t *)v);
}

static bool same_json(const json_t *a, const json_t *b)
{
	json_t *x = norm(a), *y = norm(b);
	bool eq = (!x && !y) || (x && y && json_equal(x, y));
	json_decref(x);
	json_decref(y);
	return eq;
}

/* The owner references as the PodGroup's equality sees them: who, not how. */
static json_t *refs_key(const json_t *refs)
{
	json_t *out = json_array();
	for (size_t i = 0; i < json_array_size(refs); i++) {
		json_t *r = json_array_get(refs, i), *k = json_object();
		static const char *const fields[] = { "apiVersion", "kind", "name", "uid" };
		for (size_t f = 0; f < 4; f++) {
			json_t *v = json_object_get(r, fields[f]);
			if (v)
				json_object_set(k, fields[f], v);
		}
		json_array_append_new(out, k);
	}
	return out;
}

/* Does map @have hold every key of map @want with the same value? */
static bool contains(const json_t *have, const json_t *want)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)want, k, v) {
		json_t *h = json_object_get(have, k);
		if (!h || !json_equal(h, v))
			return false;
	}
	return true;
}

/* KAI's equality: the spec and owners alike, our labels and annotations present. */
static bool podgroup_same(const json_t *have, const json_t *want)
{
	json_t *hm = json_object_get(have, "metadata"), *wm = json_object_get(want, "metadata");
	json_t *hr = refs_key(json_object_get(hm, "ownerReferences"));
	json_t *wr = refs_key(json_object_get(wm, "ownerReferences"));
	bool same = same_json(json_object_get(have, "spec"), json_object_get(want, "spec")) &&
		    json_equal(hr, wr) &&
		    contains(json_object_get(hm, "labels"), json_object_get(wm, "labels")) &&
		    contains(json_object_get(hm, "annotations"), json_object_get(wm, "annotations"));
	json_decref(hr);
	json_decref(wr);
	return same;
}

/*
 * A merge patch that turns object @have into @want: what @want says, and a
 * null for every key @have has and @want has not (a merge patch would keep
 * them), recursively through objects.
 */
static json_t *replace_patch(const json_t *have, const json_t *want)
{
	if (!json_is_object(have) || !json_is_object(want))
		return want ? json_deep_copy(want) : json_null();
	json_t *p = json_object();
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)want, k, v)
		json_object_set_new(p, k, replace_patch(json_object_get(have, k), v));
	json_object_foreach((json_t *)have, k, v)
		if (!json_object_get(want, k))
			json_object_set_new(p, k, json_null());
	return p;
}

/* ---------------------------------------------------------------- PodGroups just made */

struct recent {
	json_t *obj;		/* NULL while a worker creates it */
	double at;		/* gt_mono_s() */
};

static void recent_free(struct recent *e)
{
	json_decref(e->obj);
	free(e);
}

void gt_pgctl_recent_init(struct gt_pgctl_recent *r)
{
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->made, NULL);
	gt_smap_init(&r->pgs);
}

void gt_pgctl_recent_release(struct gt_pgctl_recent *r)
{
	size_t pos = 0;
	void *v;
	while (gt_smap_next(&r->pgs, &pos, NULL, &v))
		recent_free(v);
	gt_smap_release(&r->pgs);
	pthread_cond_destroy(&r->made);
	pthread_mutex_destroy(&r->mu);
}

/* Forget the copies past RECENT_S; a creation under way stays (locked). */
static void recent_sweep(struct gt_pgctl_recent *r, double now)
{
	size_t pos = 0;
	const char *key;
	void *v;
	while (gt_smap_next(&r->pgs, &pos, &key, &v))
		if (((struct recent *)v)->obj && now - ((struct recent *)v)->at >= RECENT_S)
			recent_free(gt_smap_del(&r->pgs, key));
}

/* Put @e under @key and wake the workers waiting for it (locked). */
static void recent_set(struct gt_pgctl_recent *r, const char *key, struct recent *e)
{
	recent_sweep(r, gt_mono_s());
	struct recent *old = e ? gt_smap_put(&r->pgs, key, e) : gt_smap_del(&r->pgs, key);
	if (old)
		recent_free(old);
	pthread_cond_broadcast(&r->made);
}

/* Remember the PodGroup @obj (the server's copy) under @key; ends a creation. */
static void recent_put(struct gt_pgctl_recent *r, const char *key, const json_t *obj)
{
	struct recent *e = gt_xcalloc(1, sizeof(*e));
	e->obj = json_deep_copy(obj);
	e->at = gt_mono_s();
	pthread_mutex_lock(&r->mu);
	recent_set(r, key, e);
	pthread_mutex_unlock(&r->mu);
}

/*
 * Forget what is under @key: a creation that failed (@claim; a waiting
 * worker then tries itself), or a copy once the cache has the PodGroup
 * (its copy is the truth from now on: a PodGroup deleted later must not be
 * taken for one just made; another worker's creation is left to it).
 */
static void recent_forget(struct gt_pgctl_recent *r, const char *key, bool claim)
{
	pthread_mutex_lock(&r->mu);
	struct recent *e = gt_smap_get(&r->pgs, key);
	if (e && (claim || e->obj))
		recent_set(r, key, NULL);
	pthread_mutex_unlock(&r->mu);
}

/*
 * A copy of the PodGroup written under @key a moment ago, waiting while
 * another worker creates it; or NULL, and then the caller is the one to
 * create it and ends with recent_put() or recent_forget().
 */
static json_t *recent_get_or_claim(struct gt_pgctl_recent *r, const char *key)
{
	pthread_mutex_lock(&r->mu);
	struct recent *e;
	while ((e = gt_smap_get(&r->pgs, key)) && !e->obj)
		pthread_cond_wait(&r->made, &r->mu);
	json_t *j = e && gt_mono_s() - e->at < RECENT_S ? json_deep_copy(e->obj) : NULL;
	if (!j) {
		e = gt_xcalloc(1, sizeof(*e));
		e->at = gt_mono_s();
		recent_set(r, key, e);
	}
	pthread_mutex_unlock(&r->mu);
	return j;
}

static void podgroup_path(const struct gt_podgroup *pg, bool one, char *buf, size_t cap)
{
	gt_kres_path(GT_KRES_PODGROUPS, pg->namespace, one ? pg->name : NULL, NULL, buf, cap);
}

/* The server's copy of the PodGroup (after a create met 409), or NULL. */
static json_t *read_podgroup(const struct gt_pgctl_env *env, const struct gt_podgroup *pg)
{
	char path[800];
	podgroup_path(pg, true, path, sizeof(path));
	struct gt_kube_resp r;
	gt_kube_request(env->cl, GT_VERB_GET, "GET", path, NULL, NULL, &r);
	json_t *j = r.status == 200 ? json_loads(r.body, 0, NULL) : NULL;
	gt_kube_resp_release(&r);
	return j;
}

/* How a failed write counts: conflicts and vanished objects soon, errors with backoff. */
static enum gt_pgctl_result write_failed(const struct gt_pgctl_env *env, const struct gt_kobj *pod,
					 const char *what, const struct gt_kube_resp *r)
{
	char msg[700];
	if (r->status == 409 || r->status == 404) {
		gt_log(GT_LOG_DEBUG, "podgrouper", "%s: %s; trying again", what, gt_kube_why(r));
		return GT_PGR_SOON;
	}
	snprintf(msg, sizeof(msg), "%s: %s", what, gt_kube_why(r));
	if (transient(r->status))
		gt_log(GT_LOG_WARN, "podgrouper", "pod %s: %s", pod->key, msg);
	else
		warn(env, pod, msg);	/* the API refused what we wrote: the user should know */
	return GT_PGR_FAIL;
}

static enum gt_pgctl_result create_podgroup(const struct gt_pgctl_env *env, const struct gt_kobj *pod,
					    const struct gt_podgroup *pg, const json_t *want,
					    json_t **have)
{
	char path[800], what[600];
	podgroup_path(pg, false, path, sizeof(path));
	char *body = gt_json_dump(want);
	struct gt_kube_resp r;
	gt_kube_request(env->cl, GT_VERB_POST, "POST", path, "application/json", body, &r);
	free(body);
	enum gt_pgctl_result res = GT_PGR_OK;
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", pg->namespace, pg->name);
	if (r.status == 201 || r.status == 200) {
		json_t *made = json_loads(r.body, 0, NULL);
		if (json_is_object(made))
			recent_put(env->recent, key, made);
		else
			recent_forget(env->recent, key, true);
		json_decref(made);
		atomic_fetch_add(&env->stats->created, 1);
		gt_log(GT_LOG_INFO, "podgrouper", "created PodGroup %s/%s (%s, minMember %d, %zu sub-groups, "
		       "queue %s) for pod %s", pg->namespace, pg->name, pg->rule ? pg->rule : "default", pg->min_member,
		       pg->n_subgroups, pg->queue ? pg->queue : "", pod->key);
	} else if (r.status == 409) {
		/* another worker, or a PodGroup our cache has not seen yet: compare with it */
		*have = read_podgroup(env, pg);
		if (*have) {
			recent_put(env->recent, key, *have);
		} else {
			recent_forget(env->recent, key, true);
			res = GT_PGR_SOON;
		}
	} else {
		recent_forget(env->recent, key, true);
		snprintf(what, sizeof(what), "cannot create PodGroup %s/%s", pg->namespace, pg->name);
		res = write_failed(env, pod, what, &r);
	}
	gt_kube_resp_release(&r);
	return res;
}

static enum gt_pgctl_result update_podgroup(const struct gt_pgctl_env *env, const struct gt_kobj *pod,
					    const struct gt_pg_config *cfg, const struct gt_podgroup *pg,
					    json_t *want, const json_t *have)
{
	/* what the update may change is the podgrouper's to say (podgrouper/merge.c) */
	struct gt_doc *old = gt_doc_from_json(have), *merged = gt_pg_podgroup_update(cfg, old, pg);
	json_t *m = gt_doc_to_json(merged);
	json_object_update(want, m);
	json_decref(m);
	gt_doc_free(merged);
	gt_doc_free(old);
	if (podgroup_same(have, want))
		return GT_PGR_OK;
	json_t *hm = json_object_get(have, "metadata"), *wm = json_object_get(want, "metadata");
	json_t *md = json_object();
	/* the version we compared with: a PodGroup changed meanwhile is compared again */
	json_t *rv = json_object_get(hm, "resourceVersion");
	if (rv)
		json_object_set(md, "resourceVersion", rv);
	static const char *const fields[] = { "labels", "annotations", "ownerReferences" };
	for (size_t i = 0; i < 3; i++) {
		json_t *v = json_object_get(wm, fields[i]);
		if (v)
			json_object_set(md, fields[i], v);
	}
	json_t *patch = json_pack("{s:o, s:o}", "metadata", md, "spec",
				  replace_patch(json_object_get(have, "spec"), json_object_get(want, "spec")));
	char *body = gt_json_dump(patch);
	json_decref(patch);
	char path[800], what[600];
	podgroup_path(pg, true, path, sizeof(path));
	struct gt_kube_resp r;
	gt_kube_request(env->cl, GT_VERB_PATCH, "PATCH", path, "application/merge-patch+json", body, &r);
	free(body);
	enum gt_pgctl_result res = GT_PGR_OK;
	if (r.status == 200) {
		atomic_fetch_add(&env->stats->patched, 1);
		gt_log(GT_LOG_INFO, "podgrouper", "updated PodGroup %s/%s (minMember %d, %zu sub-groups) for "
		       "pod %s", pg->namespace, pg->name, pg->min_member, pg->n_subgroups, pod->key);
	} else {
		snprintf(what, sizeof(what), "cannot update PodGroup %s/%s", pg->namespace, pg->name);
		res = write_failed(env, pod, what, &r);
	}
	gt_kube_resp_release(&r);
	return res;
}

/* Create the PodGroup, or bring the existing one in line. */
static enum gt_pgctl_result apply_podgroup(const struct gt_pgctl_env *env, const struct gt_kobj *pod,
					   const struct gt_pg_config *cfg, const struct gt_podgroup *pg)
{
	struct gt_doc *d = gt_podgroup_to_doc(pg);
	json_t *want = gt_doc_to_json(d);
	gt_doc_free(d);
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", pg->namespace, pg->name);
	struct gt_kobj *old = gt_cache_get(env->cache, GT_KRES_PODGROUPS, key);
	json_t *have = old ? gt_doc_to_json(old->doc) : recent_get_or_claim(env->recent, key);
	if (old)
		recent_forget(env->recent, key, false);
	gt_kobj_unref(old);
	enum gt_pgctl_result res = GT_PGR_OK;
	if (!have)	/* ours to create: create_podgroup() ends the claim */
		res = create_podgroup(env, pod, pg, want, &have);
	if (have)
		res = update_podgroup(env, pod, cfg, pg, want, have);
	json_decref(have);
	json_decref(want);
	return res;
}

/* ---------------------------------------------------------------- the pod */

struct pod_marks {
	const char *pg, *subgroup, *job_id;
};

/* What the cache shows until the watch brings our patch back. */
static void assume_marked(struct gt_doc *doc, void *arg)
{
	const struct pod_marks *m = arg;
	const char *ann[] = { "metadata", "annotations", GT_PG_POD_ANNOTATION };
	gt_doc_set(doc, ann, 3, m->pg, true);
	if (m->job_id) {
		const char *id[] = { "metadata", "annotations", JOB_ID_ANNOTATION };
		gt_doc_set(doc, id, 3, m->job_id, true);
	}
	if (m->subgroup) {
		const char *sg[] = { "metadata", "labels", GT_PG_SUBGROUP_LABEL };
		gt_doc_set(doc, sg, 3, m->subgroup, true);
	}
}

static bool differs(const char *have, const char *want)
{
	return want && (!have || strcmp(have, want));
}

static enum gt_pgctl_result mark_pod(const struct gt_pgctl_env *env, const struct gt_kobj *pod,
				     const struct gt_podgroup *pg, struct gt_pgctl_outcome *out)
{
	struct pod_marks m = { pg->name, pg->pod_subgroup, pg->owner.uid };
	const struct gt_doc *d = pod->doc;
	if (!differs(gt_obj_annotation(d, GT_PG_POD_ANNOTATION), m.pg) &&
	    !differs(gt_obj_annotation(d, JOB_ID_ANNOTATION), m.job_id) &&
	    !differs(gt_obj_label(d, GT_PG_SUBGROUP_LABEL), m.subgroup))
		return GT_PGR_OK;
	json_t *ann = json_pack("{s:s}", GT_PG_POD_ANNOTATION, m.pg);
	if (m.job_id)
		json_object_set_new(ann, JOB_ID_ANNOTATION, json_string(m.job_id));
	json_t *md = json_pack("{s:o}", "annotations", ann);
	if (m.subgroup)
		json_object_set_new(md, "labels", json_pack("{s:s}", GT_PG_SUBGROUP_LABEL, m.subgroup));
	json_t *patch = json_pack("{s:o}", "metadata", md);
	char *body = gt_json_dump(patch);
	json_decref(patch);
	char path[800], what[600];
	gt_kres_path(GT_KRES_PODS, pod->ns, pod->name, NULL, path, sizeof(path));
	struct gt_kube_resp r;
	gt_kube_request(env->cl, GT_VERB_PATCH, "PATCH", path, "application/merge-patch+json", body, &r);
	free(body);
	enum gt_pgctl_result res = GT_PGR_OK;
	if (r.status == 200) {
		json_t *j = json_loads(r.body, 0, NULL);
		const char *rv = json_string_value(json_object_get(json_object_get(j, "metadata"),
								   "resourceVersion"));
		snprintf(out->rv_written, sizeof(out->rv_written), "%s", rv ? rv : "");
		json_decref(j);
		gt_cache_assume(env->cache, GT_KRES_PODS, pod->key, pod->rv, assume_marked, &m);
		atomic_fetch_add(&env->stats->grouped, 1);
		gt_log(GT_LOG_DEBUG, "podgrouper", "pod %s joins PodGroup %s%s%s", pod->key, m.pg,
		       m.subgroup ? ", sub-group " : "", m.subgroup ? m.subgroup : "");
	} else if (r.status != 404) {	/* a pod gone needs nothing */
		snprintf(what, sizeof(what), "cannot annotate pod %s with its PodGroup %s", pod->key, m.pg);
		res = write_failed(env, pod, what, &r);
	}
	gt_kube_resp_release(&r);
	return res;
}

/* ---------------------------------------------------------------- one pod */

/*
 * The request for the rules: the pod, its owners, and what the world holds
 * of its namespace and of the cluster (Kartas). Related objects read for
 * this pod alone (a PodGang, a RayCluster) are not in the world's index:
 * then the rules scan a short-lived list of them all (*@owned, to free).
 */
static void request(const struct gt_pgctl_world *w, const struct gt_kobj *pod, const struct chain *ch,
		    struct gt_pg_request *req, const struct gt_doc ***owned)
{
	size_t lo, n, clo, cn;
	gt_pgctl_world_slice(w, pod->ns, &lo, &n);
	*req = (struct gt_pg_request){ .pod = pod->doc, .owners = ch->docs, .n_owners = ch->n,
				       .related = w->docs + lo, .n_related = n, .index = &w->index };
	*owned = NULL;
	if (!ch->n_extras)
		return;
	gt_pgctl_world_slice(w, "", &clo, &cn);
	const struct gt_doc **related = gt_xmalloc((n + cn + ch->n_extras) * sizeof(*related));
	memcpy(related, w->docs + lo, n * sizeof(*related));
	memcpy(related + n, w->docs + clo, cn * sizeof(*related));
	memcpy(related + n + cn, ch->extras, ch->n_extras * sizeof(*related));
	req->related = related;
	req->n_related = n + cn + ch->n_extras;
	req->index = NULL;
	*owned = related;
}

/* Owners read and related objects found: group the pod and write it down. */
static enum gt_pgctl_result group(const struct gt_pgctl_env *env, const struct gt_pgctl_world *w,
				  const struct gt_kobj *pod, const struct chain *ch,
				  struct gt_pgctl_outcome *out)
{
	struct gt_pg_request req;
	const struct gt_doc **owned;
	request(w, pod, ch, &req, &owned);
	const struct gt_doc *by = NULL;
	if (gt_pg_skip_reason(&req, &by) != GT_PG_GROUP) {
		/* KAI's reconciler asks before any grouper: the pod is someone else's to group */
		out->skip = GT_PGCTL_SKIP_OWNER_ANNOTATED;
		snprintf(out->why, sizeof(out->why), "its owner %s %s/%s has %s: \"true\"", gt_doc_str(by, "kind"),
			 pod->ns, gt_doc_str(gt_doc_get(by, "metadata"), "name"), GT_PG_SKIP_ANNOTATION);
		free(owned);
		return GT_PGR_OK;
	}
	struct gt_podgroup pg;
	struct gt_err err = { 0 };
	enum gt_pgctl_result res;
	if (gt_pg_group_pod(&w->cfg, &req, &pg, &err)) {
		warn(env, pod, err.msg);
		res = GT_PGR_FAIL;
	} else {
		if (pg.warning)	/* a Karta passed over: KAI logs it; an event tells the user too */
			warn(env, pod, pg.warning);
		res = apply_podgroup(env, pod, &w->cfg, &pg);
		if (res == GT_PGR_OK)
			res = mark_pod(env, pod, &pg, out);
		if (res == GT_PGR_OK)
			snprintf(out->pg, sizeof(out->pg), "%s", pg.name);
		gt_podgroup_release(&pg);
	}
	free(owned);
	return res;
}

/*
 * Does --namespace-label-selector select the pod's namespace? As KAI's
 * event filter, a namespace that cannot be read selects nothing (said
 * once per message: the event-free log line repeats only at debug).
 */
static bool namespace_selected(const struct gt_pgctl_env *env, const struct gt_kobj *pod,
			       struct gt_pgctl_outcome *out)
{
	if (!env->namespaces || !env->namespaces->n)
		return true;
	struct gt_owner_ref r = { "v1", "Namespace", "", pod->ns, NULL };
	struct gt_kobj *ns;
	struct gt_err err = { 0 };
	if (gt_owners_get(env->owners, &r, 0, 0, &ns, &err)) {
		gt_log(GT_LOG_WARN, "podgrouper", "pod %s: --namespace-label-selector: %s; the pod is not "
		       "grouped", pod->key, err.msg);
		return false;
	}
	note_read(out, ns);
	bool yes = gt_pgctl_selector_match(env->namespaces, ns->doc);
	gt_kobj_unref(ns);
	return yes;
}

/* A pod KAI's reconciler leaves alone before it reads any owner: why, or GT_PGCTL_NOT_SKIPPED. */
static enum gt_pgctl_skip left_alone_early(const struct gt_kobj *pod, struct gt_pgctl_outcome *out)
{
	const char *skip = gt_obj_annotation(pod->doc, GT_PG_SKIP_ANNOTATION);
	if (skip && !strcmp(skip, "true")) {
		snprintf(out->why, sizeof(out->why), "it has %s: \"true\"", GT_PG_SKIP_ANNOTATION);
		return GT_PGCTL_SKIP_ANNOTATED;
	}
	/* a pod with a PodGroup and no owner is the user's own arrangement */
	const char *own = gt_obj_annotation(pod->doc, GT_PG_POD_ANNOTATION);
	if (own && !gt_pg_owner_ref(pod->doc)) {
		snprintf(out->why, sizeof(out->why), "it has no owner and names its own PodGroup (%s: %s)",
			 GT_PG_POD_ANNOTATION, own);
		return GT_PGCTL_SKIP_OWN_PODGROUP;
	}
	return GT_PGCTL_NOT_SKIPPED;
}

void gt_pgctl_reconcile(const struct gt_pgctl_env *env, const struct gt_pgctl_world *w,
			const struct gt_kobj *pod, double read_after, struct gt_pgctl_outcome *out)
{
	memset(out, 0, sizeof(*out));
	atomic_fetch_add(&env->stats->reconciles, 1);
	if (!gt_pod_is_live_ours(pod->doc, w->cfg.scheduler_name))
		return;
	out->skip = left_alone_early(pod, out);
	if (!out->skip && !namespace_selected(env, pod, out)) {
		out->skip = GT_PGCTL_SKIP_NAMESPACE;
		snprintf(out->why, sizeof(out->why), "--namespace-label-selector does not select namespace %s",
			 pod->ns);
	}
	if (out->skip)
		return;
	struct chain ch = { 0 };
	struct gt_err err = { 0 };
	int rc = resolve_chain(env, pod, read_after, &ch, &err);
	rc = rc ? rc : read_extras(env, pod, read_after, &ch, &err);
	for (size_t i = 0; i < ch.n + ch.n_extras; i++)
		note_read(out, ch.own[i]);
	if (rc == GT_EIO) {
		gt_log(GT_LOG_WARN, "podgrouper", "pod %s: %s; trying again", pod->key, err.msg);
		out->result = GT_PGR_FAIL;
	} else if (rc) {
		warn(env, pod, err.msg);
		out->result = GT_PGR_FAIL;
	} else {
		out->result = group(env, w, pod, &ch, out);
	}
	if (out->result == GT_PGR_FAIL)
		atomic_fetch_add(&env->stats->failures, 1);
	else if (out->result == GT_PGR_SOON)
		atomic_fetch_add(&env->stats->requeues, 1);
	chain_release(&ch);
}
