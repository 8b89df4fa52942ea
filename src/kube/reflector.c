#include "kube/reflector.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/log.h"
#include "util/mem.h"
#include "util/thread.h"

#define BACKOFF_MIN_S 0.2
#define BACKOFF_MAX_S 30.0
#define ABSENT_RETRY_S 30.0

struct gt_reflector {
	pthread_t thread;
	struct gt_kube_client *cl;
	struct gt_kres_info k;	/* what is listed and watched */
	enum gt_kres res;	/* in the cache; GT_N_KRES: another sink's */
	struct gt_reflector_sink sink;
	struct gt_cache *cache;	/* the cache's sink */
	struct gt_reflector_opts o;
	struct gt_reflector_stats stats;
	char rv[64];		/* the newest resourceVersion applied */
	bool gone;		/* a 410 arrived on the watch: relist */
	bool failed;		/* the watch ended on an error event or a malformed line */
	unsigned seed;
};

static double backoff_next(struct gt_reflector *r, double *b)
{
	double cur = *b;
	*b = *b * 2 > BACKOFF_MAX_S ? BACKOFF_MAX_S : *b * 2;
	/* jitter up to +50%: reflectors that failed together do not retry together */
	return cur * (1.0 + (double)(rand_r(&r->seed) % 1000) / 2000.0);
}

static const char *status_message(const char *body)
{
	static _Thread_local char buf[300];
	json_t *j = json_loads(body, 0, NULL);
	const char *m = json_string_value(json_object_get(j, "message"));
	snprintf(buf, sizeof(buf), "%s", m ? m : body);
	json_decref(j);
	return buf;
}

/* A new object of the reflector's resource from API JSON. */
static struct gt_kobj *make_obj(const struct gt_reflector *r, json_t *item, struct gt_err *err)
{
	return r->res < GT_N_KRES ? gt_kobj_new(r->res, item, err) : gt_kobj_new_as(&r->k, item, err);
}

/* A list being gathered page by page. */
struct listing {
	struct gt_kobj **objs;
	size_t n, cap;
	char cont[2048];	/* the continue token: opaque, room for 2 KiB */
	char rv[64];		/* the first page's resourceVersion: the list's */
};

static void listing_drop(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		gt_kobj_unref(l->objs[i]);
	l->n = 0;
}

/* Take a page's items and where the next page starts. 0, or -1 when it is no list (logged). */
static int take_page(struct gt_reflector *r, json_t *page, const char *why, struct listing *l)
{
	const char *plural = r->k.plural;
	json_t *items = json_object_get(page, "items");
	if (!json_is_array(items)) {
		gt_log(GT_LOG_WARN, "reflector", "list %s: not a list: %s", plural, page ? "no items" : why);
		return -1;
	}
	size_t i;
	json_t *item;
	json_array_foreach(items, i, item) {
		struct gt_err err = { 0 };
		struct gt_kobj *o = make_obj(r, item, &err);
		if (!o) {
			atomic_fetch_add(&r->stats.bad_objects, 1);
			gt_log(GT_LOG_WARN, "reflector", "list %s: item %zu skipped: %s", plural, i, err.msg);
			continue;
		}
		GT_PUSH(l->objs, l->n, l->cap, o);
	}
	json_t *md = json_object_get(page, "metadata");
	const char *c = json_string_value(json_object_get(md, "continue"));
	const char *lrv = json_string_value(json_object_get(md, "resourceVersion"));
	/* the first page's resourceVersion is the list's: later pages are consistent with it */
	if (!*l->rv && lrv)
		snprintf(l->rv, sizeof(l->rv), "%s", lrv);
	snprintf(l->cont, sizeof(l->cont), "%s", c ? c : "");
	return 0;
}

/*
 * GET the page @l->cont points at and take it. 0: taken; 1: the resource
 * does not exist (an optional CRD); 2: the continue token expired (start
 * over); 3: refused with 403 and end_on_forbidden; -1: an error (logged).
 */
static int list_page(struct gt_reflector *r, struct listing *l)
{
	const struct gt_kres_info *k = &r->k;
	char base[512], path[8192], enc[6200];
	gt_kres_info_path(k, NULL, NULL, NULL, base, sizeof(base));
	gt_kube_urlencode(l->cont, enc, sizeof(enc));
	snprintf(path, sizeof(path), "%s?limit=%d%s%s", base, r->o.page_size, *l->cont ? "&continue=" : "", enc);
	struct gt_kube_resp resp;
	int rc = -1;
	if (gt_kube_request(r->cl, GT_VERB_LIST, "GET", path, NULL, NULL, &resp)) {
		if (!gt_kube_client_stopping(r->cl))
			gt_log(GT_LOG_WARN, "reflector", "list %s: %s", k->plural, resp.error);
	} else if (resp.status == 404 && k->optional) {
		rc = 1;
	} else if (resp.status == 403 && r->o.end_on_forbidden) {
		gt_log(GT_LOG_INFO, "reflector", "list %s: %s", k->plural, status_message(resp.body));
		rc = 3;
	} else if (resp.status == 410 && *l->cont) {
		gt_log(GT_LOG_INFO, "reflector", "list %s: continue token expired; listing again", k->plural);
		rc = 2;
	} else if (resp.status != 200) {
		gt_log(GT_LOG_WARN, "reflector", "list %s: HTTP %ld: %s", k->plural, resp.status,
		       status_message(resp.body));
	} else {
		json_error_t jerr;
		json_t *page = json_loadb(resp.body, resp.len, 0, &jerr);
		rc = take_page(r, page, jerr.text, l);
		json_decref(page);
	}
	gt_kube_resp_release(&resp);
	return rc;
}

/*
 * LIST every page and replace the store. 0 on success; 1 when the resource
 * does not exist (an optional CRD: the store is emptied); 3 when refused and
 * end_on_forbidden; -1 on error (logged).
 */
static int list_all(struct gt_reflector *r)
{
	struct listing l = { 0 };
	int rc;
	while ((rc = list_page(r, &l)) == 2 || (!rc && *l.cont)) {
		if (rc == 2) {	/* the token expired between pages: start the list over */
			listing_drop(&l);
			l.cont[0] = l.rv[0] = '\0';
		}
	}
	if (rc) {
		listing_drop(&l);
		free(l.objs);
		if (rc == 1)
			r->sink.replace(r->sink.arg, NULL, 0);
		return rc;
	}
	r->sink.replace(r->sink.arg, l.objs, l.n);
	free(l.objs);
	snprintf(r->rv, sizeof(r->rv), "%s", l.rv);
	atomic_fetch_add(&r->stats.lists, 1);
	gt_log(GT_LOG_INFO, "reflector", "listed %zu %s at resourceVersion %s", l.n, r->k.plural, r->rv);
	return 0;
}

/* One watch line: an event to apply. Nonzero ends the stream. */
static int on_event(void *arg, const char *line, size_t len)
{
	struct gt_reflector *r = arg;
	const struct gt_kres_info *k = &r->k;
	json_error_t jerr;
	json_t *ev = json_loadb(line, len, 0, &jerr);
	const char *type = json_string_value(json_object_get(ev, "type"));
	json_t *obj = json_object_get(ev, "object");
	if (!type || !json_is_object(obj)) {
		gt_log(GT_LOG_WARN, "reflector", "watch %s: malformed event: %s", k->plural,
		       ev ? "no type or object" : jerr.text);
		json_decref(ev);
		r->failed = true;
		return 1;
	}
	const char *rv = json_string_value(json_object_get(json_object_get(obj, "metadata"),
							   "resourceVersion"));
	if (!strcmp(type, "ERROR")) {
		json_int_t code = json_integer_value(json_object_get(obj, "code"));
		const char *msg = json_string_value(json_object_get(obj, "message"));
		if (code == 410) {
			r->gone = true;
			atomic_fetch_add(&r->stats.relists_gone, 1);
			gt_log(GT_LOG_INFO, "reflector", "watch %s: 410 Gone (%s); listing again", k->plural,
			       msg ? msg : "");
		} else {
			atomic_fetch_add(&r->stats.watch_errors, 1);
			r->failed = true;
			gt_log(GT_LOG_WARN, "reflector", "watch %s: error %lld: %s", k->plural, (long long)code,
			       msg ? msg : "");
		}
		json_decref(ev);
		return 1;
	}
	if (!strcmp(type, "BOOKMARK")) {
		if (rv)
			snprintf(r->rv, sizeof(r->rv), "%s", rv);
		json_decref(ev);
		return 0;
	}
	bool del = !strcmp(type, "DELETED");
	if (!del && strcmp(type, "ADDED") && strcmp(type, "MODIFIED")) {
		gt_log(GT_LOG_WARN, "reflector", "watch %s: unknown event type %s", k->plural, type);
		json_decref(ev);
		return 0;
	}
	struct gt_err err = { 0 };
	struct gt_kobj *o = make_obj(r, obj, &err);
	if (!o) {
		atomic_fetch_add(&r->stats.bad_objects, 1);
		gt_log(GT_LOG_WARN, "reflector", "watch %s: %s event skipped: %s", k->plural, type, err.msg);
	} else if (del) {
		r->sink.remove(r->sink.arg, o);
		gt_kobj_unref(o);
	} else {
		r->sink.upsert(r->sink.arg, o);
	}
	if (rv)
		snprintf(r->rv, sizeof(r->rv), "%s", rv);
	atomic_fetch_add(&r->stats.events, 1);
	json_decref(ev);
	return 0;
}

static void *run(void *arg)
{
	struct gt_reflector *r = arg;
	const struct gt_kres_info *k = &r->k;
	double backoff = BACKOFF_MIN_S;
	bool need_list = true;
	while (!gt_kube_client_stopping(r->cl)) {
		if (need_list) {
			int rc = list_all(r);
			if (rc < 0) {
				gt_kube_client_nap(r->cl, backoff_next(r, &backoff));
				continue;
			}
			if (rc == 3) {
				r->sink.state(r->sink.arg, GT_REFL_FORBIDDEN);
				break;
			}
			r->sink.state(r->sink.arg, rc == 1 ? GT_REFL_ABSENT : GT_REFL_LISTED);
			if (rc == 1) {
				gt_log(GT_LOG_INFO, "reflector", "%s: resource not served (CRD not installed?); "
				       "treated as empty, looking again in %.0f s", k->plural, ABSENT_RETRY_S);
				gt_kube_client_nap(r->cl, ABSENT_RETRY_S);
				continue;
			}
			need_list = false;
			r->gone = false;
		}
		char base[512], path[1024];
		gt_kres_info_path(k, NULL, NULL, NULL, base, sizeof(base));
		snprintf(path, sizeof(path), "%s?watch=1&resourceVersion=%s&allowWatchBookmarks=true&timeoutSeconds=%d",
			 base, r->rv, r->o.watch_timeout_s);
		struct gt_kube_resp resp;
		unsigned long before = atomic_load(&r->stats.events);
		r->failed = false;
		int rc = gt_kube_stream(r->cl, path, r->o.watch_timeout_s, on_event, r, &resp);
		if (gt_kube_client_stopping(r->cl)) {
			gt_kube_resp_release(&resp);
			break;
		}
		if (resp.status == 410 || r->gone) {
			if (resp.status == 410) {
				atomic_fetch_add(&r->stats.relists_gone, 1);
				gt_log(GT_LOG_INFO, "reflector", "watch %s: HTTP 410 Gone; listing again", k->plural);
			}
			need_list = true;
		} else if (rc || resp.status != 200) {
			atomic_fetch_add(&r->stats.watch_errors, 1);
			gt_log(GT_LOG_WARN, "reflector", "watch %s from resourceVersion %s: %s", k->plural, r->rv,
			       rc ? resp.error : status_message(resp.body));
			/* a stream that delivered events was healthy: resume at once, quietly */
			if (atomic_load(&r->stats.events) == before)
				gt_kube_client_nap(r->cl, backoff_next(r, &backoff));
			else
				backoff = BACKOFF_MIN_S;
		} else if (r->failed) {
			gt_kube_client_nap(r->cl, backoff_next(r, &backoff));
		} else {
			backoff = BACKOFF_MIN_S;
		}
		gt_kube_resp_release(&resp);
	}
	return NULL;
}

/* ---------------------------------------------------------------- the cache's sink */

static void cache_replace(void *arg, struct gt_kobj **objs, size_t n)
{
	struct gt_reflector *r = arg;
	gt_cache_replace(r->cache, r->res, objs, n);
}

static void cache_upsert(void *arg, struct gt_kobj *o)
{
	struct gt_reflector *r = arg;
	gt_cache_upsert(r->cache, o);
}

static void cache_remove(void *arg, struct gt_kobj *o)
{
	struct gt_reflector *r = arg;
	gt_cache_delete(r->cache, r->res, o->key);
}

static void cache_state(void *arg, enum gt_reflector_state st)
{
	struct gt_reflector *r = arg;
	if (st != GT_REFL_FORBIDDEN)
		gt_cache_set_synced(r->cache, r->res, true);
}

/* ---------------------------------------------------------------- the API */

static struct gt_reflector *start(struct gt_reflector *r, const struct gt_reflector_opts *o)
{
	r->o.page_size = o && o->page_size > 0 ? o->page_size : 500;
	r->o.watch_timeout_s = o && o->watch_timeout_s > 0 ? o->watch_timeout_s : 300;
	r->o.end_on_forbidden = o && o->end_on_forbidden;
	r->seed = (unsigned)time(NULL) ^ (unsigned)(uintptr_t)r * 2654435761u;
	char what[96];
	snprintf(what, sizeof(what), "the %s reflector thread", r->k.plural);
	gt_thread_start(&r->thread, run, r, what);
	return r;
}

struct gt_reflector *gt_reflector_start(struct gt_kube_client *cl, struct gt_cache *cache,
					enum gt_kres res, const struct gt_reflector_opts *o)
{
	struct gt_reflector *r = gt_xcalloc(1, sizeof(*r));
	r->cl = cl;
	r->cache = cache;
	r->res = res;
	r->k = gt_kres[res];
	r->sink = (struct gt_reflector_sink){ cache_replace, cache_upsert, cache_remove, cache_state, r };
	return start(r, o);
}

struct gt_reflector *gt_reflector_start_sink(struct gt_kube_client *cl, const struct gt_kres_info *k,
					     const struct gt_reflector_sink *sink,
					     const struct gt_reflector_opts *o)
{
	struct gt_reflector *r = gt_xcalloc(1, sizeof(*r));
	r->cl = cl;
	r->res = GT_N_KRES;
	r->k = *k;
	r->sink = *sink;
	return start(r, o);
}

void gt_reflector_join(struct gt_reflector *r)
{
	if (!r)
		return;
	pthread_join(r->thread, NULL);
	free(r);
}

const struct gt_reflector_stats *gt_reflector_stats(const struct gt_reflector *r)
{
	return &r->stats;
}
