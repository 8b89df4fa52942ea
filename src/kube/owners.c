/*
 * owners.c - owners watched kind by kind, or read by name
 *
 * Two stores behind one lock: the watched kinds (struct kind: a reflector
 * and the objects it keeps in step), and the objects read by name (struct
 * entry, with a ttl). A read asks the kind first and falls back to the
 * name; discovery (struct gv) serves both.
 */
#include "kube/owners.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/json.h"
#include "kube/reflector.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/smap.h"

#define DISCOVERY_RETRY_S 60.0	/* a kind missing from discovery: look again after this */
#define UID_REREAD_S 1.0	/* a uid mismatch reads the object again at most this often */
#define MAX_NAME 253		/* Kubernetes object names, and the longest group or kind */
#define REVIEW_PATH "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"

/* ---------------------------------------------------------------- the cache */

enum state { FETCHING, READY, ABSENT, FAILED };

/* One object read by name, or being read. */
struct entry {
	enum state state;
	struct gt_kobj *obj;	/* READY */
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

/* How a kind is read. */
enum mode {
	STARTING,		/* discovery, the access review and the first LIST under way */
	WATCHED,		/* a reflector keeps @objs in step */
	BY_NAME,		/* not watchable: every object is read by name */
};

/* One watched kind. */
struct kind {
	struct gt_owners *ow;
	enum mode mode;
	bool synced;		/* the first LIST is in (or the resource is not served) */
	char *api, *kind, *plural;
	struct gt_kres_info info;	/* over the three strings above */
	struct gt_reflector *refl;
	struct gt_smap objs;	/* "ns/name" or "name" -> struct gt_kobj * */
};

struct gt_owners {
	struct gt_kube_client *cl;
	struct gt_owners_opts o;
	pthread_mutex_t mu;
	pthread_cond_t done;	/* a read, a discovery or a kind's first LIST finished */
	struct gt_smap entries;	/* "apiVersion\nkind\nns\nname" -> struct entry */
	struct gt_smap gvs;	/* "group/version" -> struct gv */
	struct gt_smap kinds;	/* "apiVersion\nkind" -> struct kind */
	struct gt_owners_stats stats;
};

struct gt_owners *gt_owners_new(struct gt_kube_client *cl, const struct gt_owners_opts *o)
{
	struct gt_owners *ow = gt_xcalloc(1, sizeof(*ow));
	ow->cl = cl;
	if (o)
		ow->o = *o;
	ow->o.ttl_s = o && o->ttl_s > 0 ? o->ttl_s : 30;
	ow->o.absent_ttl_s = o && o->absent_ttl_s > 0 ? o->absent_ttl_s : 2;
	ow->o.max_entries = o && o->max_entries ? o->max_entries : 50000;
	ow->o.page_size = o && o->page_size > 0 ? o->page_size : 500;
	ow->o.watch_timeout_s = o && o->watch_timeout_s > 0 ? o->watch_timeout_s : 300;
	ow->o.sync_timeout_s = o && o->sync_timeout_s > 0 ? o->sync_timeout_s : 5;
	pthread_mutex_init(&ow->mu, NULL);
	gt_cond_init_mono(&ow->done);
	gt_smap_init(&ow->entries);
	gt_smap_init(&ow->gvs);
	gt_smap_init(&ow->kinds);
	return ow;
}

static void entry_free(struct entry *e)
{
	gt_kobj_unref(e->obj);
	free(e);
}

static void store_clear(struct gt_smap *objs)
{
	size_t pos = 0;
	void *v;
	while (gt_smap_next(objs, &pos, NULL, &v))
		gt_kobj_unref(v);
	gt_smap_release(objs);
}

/* The kind's reflector has ended (gt_owners_free joins it first). */
static void kind_free(struct kind *k)
{
	store_clear(&k->objs);
	free(k->api);
	free(k->kind);
	free(k->plural);
	free(k);
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
	/* unlocked: the reflectors take the lock on their way out */
	while (gt_smap_next(&ow->kinds, &pos, NULL, &v))
		gt_reflector_join(((struct kind *)v)->refl);
	pos = 0;
	while (gt_smap_next(&ow->kinds, &pos, NULL, &v))
		kind_free(v);
	gt_smap_release(&ow->kinds);
	pos = 0;
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
static void fetch(struct gt_owners *ow, const struct gt_owner_ref *ref, struct entry *e)
{
	char plural[MAX_NAME + 1], path[1200];
	bool namespaced = true;
	struct gt_err err = { 0 };
	pthread_mutex_lock(&ow->mu);
	int rc = resolve_kind(ow, ref->api_version, ref->kind, plural, sizeof(plural), &namespaced, &err);
	pthread_mutex_unlock(&ow->mu);
	e->at = gt_mono_s();
	if (rc) {
		e->state = rc == GT_ENOTFOUND ? ABSENT : FAILED;
		e->code = rc;
		snprintf(e->msg, sizeof(e->msg), "cannot read %s %s/%s: %.400s", ref->kind, ref->ns, ref->name,
			 err.msg);
		return;
	}
	struct gt_kres_info k = { .plural = plural, .kind = ref->kind, .group_version = ref->api_version,
				  .namespaced = namespaced };
	gt_kres_info_path(&k, ref->ns, ref->name, NULL, path, sizeof(path));
	struct gt_kube_resp r;
	gt_kube_request(ow->cl, GT_VERB_GET, "GET", path, NULL, NULL, &r);
	atomic_fetch_add(&ow->stats.reads, 1);
	e->at = gt_mono_s();
	json_t *j = r.status == 200 ? json_loads(r.body, 0, NULL) : NULL;
	struct gt_kobj *o = json_is_object(j) ? gt_kobj_new_as(&k, j, &err) : NULL;
	json_decref(j);
	if (!o) {
		char w[300];
		why(&r, w, sizeof(w));
		e->state = r.status == 404 ? ABSENT : FAILED;
		e->code = r.status == 404 ? GT_ENOTFOUND : transient(r.status) ? GT_EIO : GT_EINVAL;
		snprintf(e->msg, sizeof(e->msg), r.status == 404 ? "%s %s/%s not found" :
			 "cannot read %s %s/%s: %s", ref->kind, ref->ns, ref->name,
			 r.status == 200 ? "not an object with a name" : w);
		gt_kube_resp_release(&r);
		return;
	}
	gt_kube_resp_release(&r);
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

/* An object's answer to the caller (locked). */
static int answer(struct gt_kobj *o, const struct gt_owner_ref *ref, const char *uid, struct gt_kobj **out,
		  struct gt_err *err)
{
	if (uid && strcmp(uid, o->uid))
		return gt_errf(err, GT_ENOTFOUND, "%s %s/%s has uid %s, not %s (it was replaced)",
			       ref->kind, ref->ns, ref->name, o->uid, uid);
	*out = gt_kobj_ref(o);
	return 0;
}

static int entry_answer(const struct entry *e, const struct gt_owner_ref *ref, const char *uid,
			struct gt_kobj **out, struct gt_err *err)
{
	if (e->state != READY)
		return gt_errf(err, e->code, "%s", e->msg);
	return answer(e->obj, ref, uid, out, err);
}

/* The object read by name: single flight, kept for the ttl. */
static int get_by_name(struct gt_owners *ow, const struct gt_owner_ref *ref, const char *uid, double not_before,
		       struct gt_kobj **out, struct gt_err *err)
{
	char key[4 * (MAX_NAME + 1)];
	snprintf(key, sizeof(key), "%s\n%s\n%s\n%s", ref->api_version, ref->kind, ref->ns, ref->name);
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
		int rc = entry_answer(e, ref, uid, out, err);
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
	gt_kobj_unref(e->obj);
	e->obj = NULL;
	e->state = FETCHING;
	pthread_mutex_unlock(&ow->mu);
	struct entry got = { 0 };
	fetch(ow, ref, &got);
	pthread_mutex_lock(&ow->mu);
	*e = got;
	if (e->state == FAILED)
		atomic_fetch_add(&ow->stats.errors, 1);
	pthread_cond_broadcast(&ow->done);
	int rc = entry_answer(e, ref, uid, out, err);
	pthread_mutex_unlock(&ow->mu);
	return rc;
}

/* ---------------------------------------------------------------- watched kinds */

/*
 * May this ServiceAccount @verb @plural of @api's group cluster-wide? A
 * SelfSubjectAccessReview (what `kubectl auth can-i` asks), which every
 * authenticated user may create. An answer that is no review (an API
 * server or double without the API) counts as yes: the LIST then tells.
 */
static bool may(struct gt_owners *ow, const char *api, const char *plural, const char *verb)
{
	const char *slash = strchr(api, '/');
	char group[MAX_NAME + 1];
	snprintf(group, sizeof(group), "%.*s", slash ? (int)(slash - api) : 0, api);
	json_t *body = json_pack("{s:s, s:s, s:{s:{s:s, s:s, s:s}}}", "apiVersion", "authorization.k8s.io/v1",
				 "kind", "SelfSubjectAccessReview", "spec", "resourceAttributes", "group", group,
				 "resource", plural, "verb", verb);
	char *text = gt_json_dump_take(body);
	struct gt_kube_resp r;
	gt_kube_request(ow->cl, GT_VERB_POST, "POST", REVIEW_PATH, "application/json", text, &r);
	free(text);
	atomic_fetch_add(&ow->stats.reviews, 1);
	json_t *j = r.status == 200 || r.status == 201 ? json_loads(r.body, 0, NULL) : NULL;
	json_t *allowed = json_object_get(json_object_get(j, "status"), "allowed");
	bool yes = !json_is_boolean(allowed) || json_is_true(allowed);
	json_decref(j);
	gt_kube_resp_release(&r);
	return yes;
}

/* The kind's entry, or NULL (locked). */
static struct kind *kind_of(struct gt_owners *ow, const char *api, const char *kind)
{
	char key[2 * (MAX_NAME + 1)];
	snprintf(key, sizeof(key), "%s\n%s", api, kind);
	return gt_smap_get(&ow->kinds, key);
}

/* The kind's mode is settled: tell whoever waits, and the owner of the module. */
static void settled(struct kind *k)
{
	struct gt_owners *ow = k->ow;
	pthread_mutex_lock(&ow->mu);
	k->synced = true;
	pthread_cond_broadcast(&ow->done);
	pthread_mutex_unlock(&ow->mu);
	if (ow->o.on_sync)
		ow->o.on_sync(ow->o.arg);
}

static void report(struct gt_owners *ow, const struct gt_kobj *old, const struct gt_kobj *cur)
{
	atomic_fetch_add(&ow->stats.events, 1);
	if (ow->o.on_change)
		ow->o.on_change(ow->o.arg, old, cur);
}

/* A LIST: the new store; after the first, what differs from the old one is reported. */
static void sink_replace(void *arg, struct gt_kobj **objs, size_t n)
{
	struct kind *k = arg;
	struct gt_owners *ow = k->ow;
	struct gt_smap fresh_objs;
	gt_smap_init(&fresh_objs);
	for (size_t i = 0; i < n; i++)
		gt_kobj_unref(gt_smap_put(&fresh_objs, objs[i]->key, objs[i]));
	pthread_mutex_lock(&ow->mu);
	struct gt_smap old = k->objs;
	k->objs = fresh_objs;
	bool relist = k->synced;
	pthread_mutex_unlock(&ow->mu);
	/* only this thread changes the store: both maps are stable while reported */
	size_t pos = 0;
	const char *key;
	void *v;
	while (relist && gt_smap_next(&fresh_objs, &pos, &key, &v)) {
		struct gt_kobj *was = gt_smap_get(&old, key), *now = v;
		if (!was || strcmp(was->rv, now->rv))
			report(ow, was, now);
	}
	pos = 0;
	while (relist && gt_smap_next(&old, &pos, &key, &v))
		if (!gt_smap_get(&fresh_objs, key))
			report(ow, v, NULL);
	store_clear(&old);
}

static void sink_upsert(void *arg, struct gt_kobj *o)
{
	struct kind *k = arg;
	pthread_mutex_lock(&k->ow->mu);
	struct gt_kobj *old = gt_smap_put(&k->objs, o->key, o);
	pthread_mutex_unlock(&k->ow->mu);
	report(k->ow, old, o);
	gt_kobj_unref(old);
}

static void sink_remove(void *arg, struct gt_kobj *o)
{
	struct kind *k = arg;
	pthread_mutex_lock(&k->ow->mu);
	struct gt_kobj *old = gt_smap_del(&k->objs, o->key);
	pthread_mutex_unlock(&k->ow->mu);
	report(k->ow, old ? old : o, NULL);
	gt_kobj_unref(old);
}

static void sink_state(void *arg, enum gt_reflector_state st)
{
	struct kind *k = arg;
	struct gt_owners *ow = k->ow;
	if (st == GT_REFL_FORBIDDEN) {
		gt_log(GT_LOG_WARN, "owners", "may not list %s although allowed to: reading them by name",
		       k->plural);
		pthread_mutex_lock(&ow->mu);
		k->mode = BY_NAME;
		pthread_mutex_unlock(&ow->mu);
		atomic_fetch_sub(&ow->stats.watched, 1);
		atomic_fetch_add(&ow->stats.by_name, 1);
	}
	if (!k->synced)
		settled(k);
}

/*
 * Decide how @k is read and start its watch (unlocked; @k is STARTING and
 * only this thread changes its mode until it is settled).
 */
static void start_kind(struct gt_owners *ow, struct kind *k)
{
	bool ok = may(ow, k->api, k->plural, "list") && may(ow, k->api, k->plural, "watch");
	if (!ok) {
		gt_log(GT_LOG_INFO, "owners", "not allowed to list and watch %s (%s): reading them by name, "
		       "each kept %.0f s", k->plural, k->api, ow->o.ttl_s);
		pthread_mutex_lock(&ow->mu);
		k->mode = BY_NAME;
		pthread_mutex_unlock(&ow->mu);
		atomic_fetch_add(&ow->stats.by_name, 1);
		settled(k);
		return;
	}
	gt_log(GT_LOG_INFO, "owners", "watching %s (%s)", k->plural, k->api);
	atomic_fetch_add(&ow->stats.watched, 1);
	pthread_mutex_lock(&ow->mu);
	k->mode = WATCHED;
	pthread_mutex_unlock(&ow->mu);
	struct gt_reflector_sink sink = { sink_replace, sink_upsert, sink_remove, sink_state, k };
	struct gt_reflector_opts ro = { .page_size = ow->o.page_size, .watch_timeout_s = ow->o.watch_timeout_s,
					.end_on_forbidden = true };
	k->refl = gt_reflector_start_sink(ow->cl, &k->info, &sink, &ro);
}

/* A new kind, STARTING, in the map (locked). */
static struct kind *add_kind(struct gt_owners *ow, const char *api, const char *kind, const char *plural,
			     bool namespaced, bool optional)
{
	struct kind *k = gt_xcalloc(1, sizeof(*k));
	k->ow = ow;
	k->mode = STARTING;
	k->api = gt_xstrdup(api);
	k->kind = gt_xstrdup(kind);
	k->plural = gt_xstrdup(plural);
	k->info = (struct gt_kres_info){ .plural = k->plural, .kind = k->kind, .group_version = k->api,
					 .namespaced = namespaced, .optional = optional };
	gt_smap_init(&k->objs);
	char key[2 * (MAX_NAME + 1)];
	snprintf(key, sizeof(key), "%s\n%s", api, kind);
	gt_smap_put(&ow->kinds, key, k);
	return k;
}

/*
 * The watched kind @ref names, its first LIST in, or NULL when it is read
 * by name (locked; may unlock to discover and start it, and to wait). A
 * first LIST that does not come within sync_timeout_s (a kind of 50,000
 * objects, a LIST failing) leaves this read to be made by name: the pod's
 * grouping goes on, at one read per owner.
 */
static void watched_kind(struct gt_owners *ow, const struct gt_owner_ref *ref, struct kind **out)
{
	*out = NULL;
	struct kind *k = kind_of(ow, ref->api_version, ref->kind);
	if (!k) {
		char plural[MAX_NAME + 1];
		bool namespaced;
		struct gt_err derr = { 0 };
		/* a kind not served is for the read by name to report */
		if (resolve_kind(ow, ref->api_version, ref->kind, plural, sizeof(plural), &namespaced, &derr))
			return;
		k = kind_of(ow, ref->api_version, ref->kind);	/* another reader may have */
		if (!k) {
			k = add_kind(ow, ref->api_version, ref->kind, plural, namespaced, false);
			pthread_mutex_unlock(&ow->mu);
			start_kind(ow, k);
			pthread_mutex_lock(&ow->mu);
		}
	}
	double until = gt_mono_s() + ow->o.sync_timeout_s;
	bool in_time = true;
	while (in_time && !k->synced)
		in_time = gt_cond_wait_until(&ow->done, &ow->mu, until);
	if (k->mode == WATCHED && k->synced)
		*out = k;
}

static bool ref_ok(const struct gt_owner_ref *ref)
{
	return ref->api_version && ref->kind && ref->ns && ref->name && *ref->kind && *ref->name &&
	       strlen(ref->api_version) <= MAX_NAME && strlen(ref->kind) <= MAX_NAME &&
	       strlen(ref->ns) <= MAX_NAME && strlen(ref->name) <= MAX_NAME;
}

int gt_owners_get(struct gt_owners *ow, const struct gt_owner_ref *ref, double not_before, unsigned flags,
		  struct gt_kobj **out, struct gt_err *err)
{
	*out = NULL;
	if (!ref_ok(ref))
		return gt_errf(err, GT_EINVAL, "owner reference %s %s/%s: kind or name missing or too long",
			       ref->kind ? ref->kind : "", ref->ns ? ref->ns : "", ref->name ? ref->name : "");
	const char *uid = ref->uid && *ref->uid ? ref->uid : NULL;
	if (ow->o.watch && !(flags & GT_OWNERS_BY_NAME)) {
		pthread_mutex_lock(&ow->mu);
		struct kind *k;
		watched_kind(ow, ref, &k);
		if (k) {
			char key[2 * (MAX_NAME + 1)];
			snprintf(key, sizeof(key), "%s%s%s", k->info.namespaced ? ref->ns : "",
				 k->info.namespaced ? "/" : "", ref->name);
			struct gt_kobj *o = gt_smap_get(&k->objs, key);
			/* not there (yet), or another object under the name: read it by name */
			if (o && (!uid || !strcmp(uid, o->uid))) {
				atomic_fetch_add(&ow->stats.hits, 1);
				int rc = answer(o, ref, uid, out, err);
				pthread_mutex_unlock(&ow->mu);
				return rc;
			}
		}
		pthread_mutex_unlock(&ow->mu);
	}
	return get_by_name(ow, ref, uid, not_before, out, err);
}

void gt_owners_watch(struct gt_owners *ow, const char *api_version, const struct gt_kres_info *k)
{
	pthread_mutex_lock(&ow->mu);
	struct kind *kd = kind_of(ow, api_version, k->kind);
	if (!kd)
		kd = add_kind(ow, api_version, k->kind, k->plural, k->namespaced, k->optional);
	else
		kd = NULL;	/* already watched */
	pthread_mutex_unlock(&ow->mu);
	if (kd)
		start_kind(ow, kd);
}

bool gt_owners_synced(struct gt_owners *ow, const char *api_version, const char *kind)
{
	pthread_mutex_lock(&ow->mu);
	struct kind *k = kind_of(ow, api_version, kind);
	bool synced = k && k->synced;
	pthread_mutex_unlock(&ow->mu);
	return synced;
}

struct gt_kobj **gt_owners_list(struct gt_owners *ow, const char *api_version, const char *kind, size_t *n)
{
	pthread_mutex_lock(&ow->mu);
	struct kind *k = kind_of(ow, api_version, kind);
	size_t cap = k && k->mode == WATCHED ? k->objs.n : 0;
	struct gt_kobj **out = gt_xmalloc((cap + 1) * sizeof(*out));
	size_t m = 0, pos = 0;
	void *v;
	while (cap && gt_smap_next(&k->objs, &pos, NULL, &v))
		out[m++] = gt_kobj_ref(v);
	pthread_mutex_unlock(&ow->mu);
	*n = m;
	return out;
}
