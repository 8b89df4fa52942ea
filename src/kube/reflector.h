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
};

struct gt_reflector;

struct gt_reflector *gt_reflector_start(struct gt_kube_client *cl, struct gt_cache *cache,
					enum gt_kres res, const struct gt_reflector_opts *o);
/* Join the thread: call after gt_kube_client_stop(). Frees @r. */
void gt_reflector_join(struct gt_reflector *r);
const struct gt_reflector_stats *gt_reflector_stats(const struct gt_reflector *r);

#endif /* GT_KUBE_REFLECTOR_H */
