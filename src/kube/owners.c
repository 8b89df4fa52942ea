#include "kube/owners.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/json.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/smap.h"

#define DISCOVERY_RETRY_S 60.0	/* a kind missing from discovery: look again after this */
#define UID_REREAD_S 1.0	/* a uid mismatch reads the object again at most this often */
#define MAX_NAME 253		/* Kubernetes object names, and the longest group or kind */

/* ---------------------------------------------------------------- objects */

struct gt_owner {
	atomic_int refs;
	struct gt_doc *doc;	/* immutable */
	char *uid;		/* "" when the object has none */
};

const struct gt_doc *gt_owner_doc(const struct gt_owner *o)
{
	return o->doc;
}

static struct gt_owner *owner_ref(struct gt_owner *o)
{
	atomic_fetch_add(&o->refs, 1);
	return o;
}

void gt_owner_put(struct gt_owner *o)
{
	if (!o || atomic_fetch_sub(&o->refs, 1) != 1)
		return;
	gt_doc_free(o->doc);
	free(o->uid);
	free(o);
}

/* ---------------------------------------------------------------- the cache */

enum state { FETCHING, READY, ABSENT, FAILED };

/* One object, read or being read. */
struct entry {
	enum state state;
	struct gt_owner *obj;	/* READY */
	double at;		/* when the read finished (monotonic seconds) */
	int code;		/* ABSENT/FAILED: the error code and message */
	char msg[1024];
};

/* What discovery says about one group/version. */
struct resource {
	char *kind, *plural;
	bool namespaced;
};

struct gv {
	enum state state;
	double at;
	struct resource *res;
	size_t n, cap;
	int code;
	char msg[300];
};

struct gt_owners {
	struct gt_kube_client *cl;
	struct gt_owners_opts o;
	pthread_mutex_t mu;
	pthread_cond_t done;	/* a read or a discovery finished */
	struct gt_smap entries;	/* "apiVersion\nkind\nns\nname" -> struct entry */
	struct gt_smap gvs;	/* "group/version" -> struct gv */
	struct gt_owners_stats stats;
};

struct gt_owners *gt_owners_new(struct gt_kube_client *cl, const struct gt_owners_opts *o)
{
	struct gt_owners *ow = gt_xcalloc(1, sizeof(*ow));
	ow->cl = cl;
	ow->o.ttl_s = o && o->ttl_s > 0 ? o->ttl_s : 30;
	ow->o.absent_ttl_s = o && o->absent_ttl_s > 0 ? o->absent_ttl_s : 2;
	ow->o.max_entries = o && o->max_entries ? o->max_entries : 50000;
	pthread_mutex_init(&ow->mu, NULL);
	pthread_cond_init(&ow->done, NULL);
	gt_smap_init(&ow->entries);
	gt_smap_init(&ow->gvs);
	return ow;
}

static void entry_free(struct entry *e)
{
	gt_owner_put(e->obj);
	free(e);
}

static void gv_free(struct gv *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->res[i].kind);
		free(g->res[i].plural);
	}
	free(g->res);
	free(g);
}

void gt_owners_free(struct gt_owners *ow)
{
	if (!ow)
		return;
	size_t pos = 0;
	void *v;
	while (gt_smap_next(&ow->entries, &pos, NULL, &v))
		entry_free(v);
	pos = 0;
	while (gt_smap_next(&ow->gvs, &pos, NULL, &v))
		gv_free(v);
	gt_smap_release(&ow->entries);
	gt_smap_release(&ow->gvs);
	pthread_mutex_destroy(&ow->mu);
	pthread_cond_destroy(&ow->done);
	free(ow);
}

const struct gt_owners_stats *gt_owners_stats(const struct gt_owners *ow)
{
	return &ow->stats;
}

/* ---------------------------------------------------------------- requests */

/* The status message of an error answer, else its start. */
static void why(const struct gt_kube_resp *r, char *buf, size_t cap)
{
	if (!r->status) {
		snprintf(buf, cap, "%s", r->error);
		return;
	}
	json_t *j = json_loads(r->body, 0, NULL);
	const char *m = json_string_value(json_object_get(j, "message"));
	snprintf(buf, cap, "HTTP %ld: %.200s", r->status, m ? m : r->body);
	json_decref(j);
}

/* No answer, a server error or throttling: worth trying again. */
static bool transient(long status)
{
	return status == 0 || status == 429 || status >= 500;
}

/* GET the discovery document of @api into @g (unlocked). */
static void discover(struct gt_owners *ow, const char *api, struct gv *g)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", strchr(api, '/') ? "/apis" : "/api", api);
	struct gt_kube_resp r;
	gt_kube_request(ow->cl, GT_VERB_GET, "GET", path, NULL, NULL, &r);
	atomic_fetch_add(&ow->stats.discoveries, 1);
	g->at = gt_mono_s();
	if (r.status != 200) {
		char w[300];
		why(&r, w, sizeof(w));
		g->code = transient(r.status) ? GT_EIO : GT_ENOTFOUND;
		snprintf(g->msg, sizeof(g->msg), r.status == 404 ? "the API server serves no %s" :
			 "discovery of %s: %s", api, w);
		g->state = FAILED;
		gt_kube_resp_release(&r);
		return;
	}
	json_t *j = json_loads(r.body, 0, NULL);
	gt_kube_resp_release(&r);
	size_t i;
	json_t *item;
	json_array_foreach(json_object_get(j, "resources"), i, item) {
		const char *name = json_string_value(json_object_get(item, "name"));
		const char *kind = json_string_value(json_object_get(item, "kind"));
		if (!name || !kind || strchr(name, '/'))
			continue;	/* a subresource: pods/status */
		struct resource res = { gt_xstrdup(kind), gt_xstrdup(name),
					json_is_true(json_object_get(item, "namespaced")) };
		GT_PUSH(g->res, g->n, g->cap, res);
	}
	json_decref(j);
	g->state = READY;
}

static const struct resource *find_kind(const struct gv *g, const char *kind)
{
	for (size_t i = 0; g && g->state == READY && i < g->n; i++)
		if (!strcmp(g->res[i].kind, kind))
			return &g->res[i];
	return NULL;
}

/*
 * The plural and scope of @kind in @api (locked; unlocks to read discovery
 * when it has not been read yet or is old). 0, or an error code with @err.
 */
static int resolve_kind(struct gt_owners *ow, const char *api, const char *kind, char *plural,
			size_t cap, bool *namespaced, struct gt_err *err)
{
	for (;;) {
		struct gv *g = gt_smap_get(&ow->gvs, api);
		if (g && g->state == FETCHING) {
			pthread_cond_wait(&ow->done, &ow->mu);
			continue;
		}
		const struct resource *r = find_kind(g, kind);
		/* a kind missing from an old answer may be a CRD installed since */
		bool stale = !g || gt_mono_s() - g->at >= DISCOVERY_RETRY_S ||
			     (g->state == FAILED && g->code == GT_EIO);
		if (r) {
			snprintf(plural, cap, "%s", r->plural);
			*namespaced = r->namespaced;
			return 0;
		}
		if (!stale)
			return g->state == FAILED ? gt_errf(err, g->code, "%s", g->msg) :
				gt_errf(err, GT_ENOTFOUND, "the API server serves no kind %s in %s", kind, api);
		struct gv *fresh = gt_xcalloc(1, sizeof(*fresh));
		fresh->state = FETCHING;
		struct gv *old = gt_smap_put(&ow->gvs, api, fresh);
		if (old)
			gv_free(old);
		pthread_mutex_unlock(&ow->mu);
		struct gv got = { 0 };
		discover(ow, api, &got);
		pthread_mutex_lock(&ow->mu);
		*fresh = got;
		pthread_cond_broadcast(&ow->done);
		if (fresh->state == FAILED && fresh->code == GT_EIO)
			return gt_errf(err, GT_EIO, "%s", fresh->msg);
	}
}

/* Read the object into @e (unlocked, except where resolve_kind locks). */
static void fetch(struct gt_owners *ow, const char *api, const char *kind, const char *ns,
		  const char *name, struct entry *e)
{
	char plural[MAX_NAME + 1], path[1200];
	bool namespaced = true;
	struct gt_err err = { 0 };
	pthread_mutex_lock(&ow->mu);
	int rc = resolve_kind(ow, api, kind, plural, sizeof(plural), &namespaced, &err);
	pthread_mutex_unlock(&ow->mu);
	e->at = gt_mono_s();
	if (rc) {
		e->state = rc == GT_ENOTFOUND ? ABSENT : FAILED;
		e->code = rc;
		snprintf(e->msg, sizeof(e->msg), "cannot read %s %s/%s: %.400s", kind, ns, name, err.msg);
		return;
	}
	int n = snprintf(path, sizeof(path), "%s/%s", strchr(api, '/') ? "/apis" : "/api", api);
	if (namespaced)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "/namespaces/%s", ns);
	snprintf(path + n, sizeof(path) - (size_t)n, "/%s/%s", plural, name);
	struct gt_kube_resp r;
	gt_kube_request(ow->cl, GT_VERB_GET, "GET", path, NULL, NULL, &r);
	atomic_fetch_add(&ow->stats.reads, 1);
	e->at = gt_mono_s();
	json_t *j = r.status == 200 ? json_loads(r.body, 0, NULL) : NULL;
	if (!json_is_object(j)) {
		char w[300];
		why(&r, w, sizeof(w));
		e->state = r.status == 404 ? ABSENT : FAILED;
		e->code = r.status == 404 ? GT_ENOTFOUND : transient(r.status) ? GT_EIO : GT_EINVAL;
		snprintf(e->msg, sizeof(e->msg), r.status == 404 ? "%s %s/%s not found" :
			 "cannot read %s %s/%s: %s", kind, ns, name, r.status == 200 ? "not a JSON object" : w);
		json_decref(j);
		gt_kube_resp_release(&r);
		return;
	}
	gt_kube_resp_release(&r);
	/* the fields nobody reads and that are often the largest */
	json_t *md = json_object_get(j, "metadata");
	json_object_del(md, "managedFields");
	json_object_del(json_object_get(md, "annotations"), "kubectl.kubernetes.io/last-applied-configuration");
	if (!json_object_get(j, "kind"))
		json_object_set_new(j, "kind", json_string(kind));
	if (!json_object_get(j, "apiVersion"))
		json_object_set_new(j, "apiVersion", json_string(api));
	const char *uid = json_string_value(json_object_get(md, "uid"));
	struct gt_owner *o = gt_xcalloc(1, sizeof(*o));
	atomic_init(&o->refs, 1);
	o->uid = gt_xstrdup(uid ? uid : "");
	o->doc = gt_doc_from_json(j);
	json_decref(j);
	e->state = READY;
	e->obj = o;
}

/* Drop expired entries, then every idle one if that is not enough (locked). */
static void sweep(struct gt_owners *ow)
{
	double now = gt_mono_s();
	for (int pass = 0; pass < 2 && ow->entries.n >= ow->o.max_entries; pass++) {
		size_t pos = 0;
		const char *key;
		void *v;
		while (gt_smap_next(&ow->entries, &pos, &key, &v)) {
			struct entry *e = v;
			if (e->state == FETCHING || (!pass && now - e->at < ow->o.ttl_s))
				continue;
			entry_free(gt_smap_del(&ow->entries, key));
		}
	}
}

/* Is @e's answer still good for a reference with @uid? (locked) */
static bool fresh(const struct gt_owners *ow, const struct entry *e, const char *uid, double not_before)
{
	double age = gt_mono_s() - e->at;
	if (e->at < not_before)
		return false;
	if (e->state == ABSENT)
		return age < ow->o.absent_ttl_s;
	if (e->state != READY || age >= ow->o.ttl_s)
		return false;
	return !uid || !strcmp(uid, e->obj->uid) || age < UID_REREAD_S;
}

/* @e's answer to the caller (locked). */
static int answer(const struct entry *e, const char *uid, const char *kind, const char *ns,
		  const char *name, struct gt_owner **out, struct gt_err *err)
{
	if (e->state != READY)
		return gt_errf(err, e->code, "%s", e->msg);
	if (uid && strcmp(uid, e->obj->uid))
		return gt_errf(err, GT_ENOTFOUND, "%s %s/%s has uid %s, not %s (it was replaced)",
			       kind, ns, name, e->obj->uid, uid);
	*out = owner_ref(e->obj);
	return 0;
}

static void make_key(char *key, size_t cap, const char *api, const char *kind, const char *ns,
		     const char *name)
{
	snprintf(key, cap, "%s\n%s\n%s\n%s", api, kind, ns, name);
}

int gt_owners_get(struct gt_owners *ow, const char *api_version, const char *kind, const char *ns,
		  const char *name, const char *uid, double not_before, struct gt_owner **out,
		  struct gt_err *err)
{
	*out = NULL;
	if (strlen(api_version) > MAX_NAME || strlen(kind) > MAX_NAME || strlen(ns) > MAX_NAME ||
	    strlen(name) > MAX_NAME || !*kind || !*name)
		return gt_errf(err, GT_EINVAL, "owner reference %s %s/%s: kind or name missing or too long",
			       kind, ns, name);
	if (uid && !*uid)
		uid = NULL;
	char key[4 * (MAX_NAME + 1)];
	make_key(key, sizeof(key), api_version, kind, ns, name);
	pthread_mutex_lock(&ow->mu);
	struct entry *e;
	for (;;) {
		e = gt_smap_get(&ow->entries, key);
		if (!e || e->state != FETCHING)
			break;
		pthread_cond_wait(&ow->done, &ow->mu);
	}
	if (e && fresh(ow, e, uid, not_before)) {
		atomic_fetch_add(&ow->stats.hits, 1);
		int rc = answer(e, uid, kind, ns, name, out, err);
		pthread_mutex_unlock(&ow->mu);
		return rc;
	}
	if (!e) {
		if (ow->entries.n >= ow->o.max_entries)
			sweep(ow);
		e = gt_xcalloc(1, sizeof(*e));
		gt_smap_put(&ow->entries, key, e);
	}
	/* this thread reads; the others wait for it on @done */
	gt_owner_put(e->obj);
	e->obj = NULL;
	e->state = FETCHING;
	pthread_mutex_unlock(&ow->mu);
	struct entry got = { 0 };
	fetch(ow, api_version, kind, ns, name, &got);
	pthread_mutex_lock(&ow->mu);
	*e = got;
	if (e->state == FAILED)
		atomic_fetch_add(&ow->stats.errors, 1);
	pthread_cond_broadcast(&ow->done);
	int rc = answer(e, uid, kind, ns, name, out, err);
	pthread_mutex_unlock(&ow->mu);
	return rc;
}
