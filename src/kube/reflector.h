/*
 * reflector.h - keep one resource of the cache in step with the API server
 *
 * A thread per resource, as client-go's reflector: LIST in pages
 * (limit/continue), replace the store, then WATCH from the list's
 * resourceVersion with bookmarks, applying each ADDED/MODIFIED/DELETED to
 * the store and remembering the newest resourceVersion seen (bookmarks move
 * it too). A watch that ends is resumed from that resourceVersion, so no
 * event is missed or applied twice; 410 Gone (as an HTTP status or as an
 * ERROR event) means the server forgot that far back: list again. Errors
 * back off exponentially (0.2 s doubling to 30 s, with jitter). An optional
 * resource (a CRD) whose LIST answers 404 counts as empty and synced, and is
 * looked for again every 30 s.
 *
 * What it lists and watches goes to a sink: the object cache's store of the
 * resource (gt_reflector_start), or any other store with the same four
 * operations (gt_reflector_start_sink: the podgrouper's owner informers,
 * kube/owners.h, for kinds found by discovery).
 */
#ifndef GT_KUBE_REFLECTOR_H
#define GT_KUBE_REFLECTOR_H

#include <stdatomic.h>

#include "kube/cache.h"
#include "kube/http.h"

struct gt_reflector_stats {
	atomic_ulong events;	/* watch events applied */
	atomic_ulong lists;	/* complete LISTs */
	atomic_ulong relists_gone;	/* LISTs forced by 410 */
	atomic_ulong watch_errors;	/* streams that ended in an error */
	atomic_ulong bad_objects;	/* objects without a name, dropped */
};

struct gt_reflector_opts {
	int page_size;		/* LIST limit; default 500 */
	int watch_timeout_s;	/* timeoutSeconds asked of the server; default 300 */
	/*
	 * A LIST refused with 403 ends the reflector (after telling the sink
	 * GT_REFL_FORBIDDEN) instead of being tried again with backoff: for a
	 * caller that can do without the watch (read objects by name instead).
	 */
	bool end_on_forbidden;
};

/* What a sink is told besides the objects. */
enum gt_reflector_state {
	GT_REFL_LISTED,		/* a complete LIST is in the store: it is in step with the server */
	GT_REFL_ABSENT,		/* an optional resource is not served: the store is empty */
	GT_REFL_FORBIDDEN,	/* the LIST was refused with 403 (end_on_forbidden: the reflector ended) */
};

/*
 * Where a reflector's objects go. Every callback runs on the reflector's
 * thread, one at a time.
 */
struct gt_reflector_sink {
	void (*replace)(void *arg, struct gt_kobj **objs, size_t n);	/* a LIST; the references move in */
	void (*upsert)(void *arg, struct gt_kobj *o);		/* ADDED, MODIFIED; the reference moves in */
	void (*remove)(void *arg, struct gt_kobj *o);		/* DELETED; borrowed */
	void (*state)(void *arg, enum gt_reflector_state st);
	void *arg;
};

struct gt_reflector;

/* Keep @res of @cache in step. */
struct gt_reflector *gt_reflector_start(struct gt_kube_client *cl, struct gt_cache *cache,
					enum gt_kres res, const struct gt_reflector_opts *o);
/*
 * Keep @sink in step with resource @k (copied; its strings are borrowed and
 * must outlive the reflector). Objects are made with gt_kobj_new_as().
 */
struct gt_reflector *gt_reflector_start_sink(struct gt_kube_client *cl, const struct gt_kres_info *k,
					     const struct gt_reflector_sink *sink,
					     const struct gt_reflector_opts *o);
/* Join the thread: call after gt_kube_client_stop(). Frees @r. */
void gt_reflector_join(struct gt_reflector *r);
const struct gt_reflector_stats *gt_reflector_stats(const struct gt_reflector *r);

#endif /* GT_KUBE_REFLECTOR_H */
