/*
 * owners.h - the objects a pod's grouping reads: its owners, watched
 *
 * The podgrouper follows each pod's owner references up to the top owner
 * (a ReplicaSet, then its Deployment; a PyTorchJob; a RayCluster, then its
 * RayJob). A 1,000-pod job must not cost 1,000 reads of the same owner, and
 * a change to an owner (a new replica count) must reach its PodGroup at
 * once, as KAI's informers make it. So the first time an object of a kind
 * is asked for, the kind is watched: one LIST + WATCH of it, cluster-wide
 * (kube/reflector.h), into a store that answers every later read of that
 * kind without a request, and whose changes are reported (on_change) so
 * that the pods of a changed owner are grouped again.
 *
 * A kind is read by name instead (GET), object by object:
 *  - when the ServiceAccount may not list and watch it (asked once per kind
 *    with a SelfSubjectAccessReview, so that no request is refused; a LIST
 *    refused all the same falls back too), as for a custom resource granted
 *    `get` only;
 *  - when the caller says so (GT_OWNERS_BY_NAME: the one defaults ConfigMap
 *    of a namespace), or watching is off (opts.watch false);
 *  - for an object the store does not have (yet) or has under another uid:
 *    a pod may name an owner whose ADDED event is still on its way;
 *  - while the kind's first LIST takes longer than sync_timeout_s.
 * An object read by name is kept for a while (ttl_s, 30 s by default) and
 * shared by every pod that names it:
 *  - keyed by apiVersion, kind, namespace and name; a reference whose uid
 *    differs from the kept object's reads it again (the owner was deleted
 *    and recreated under the same name), at most once a second;
 *  - concurrent readers of one object wait for the first one's GET
 *    (single flight), so a burst of pods costs one read, not one per worker;
 *  - a 404 is remembered briefly too (an owner already gone), other failures
 *    not at all;
 *  - a caller can ask for a copy read after a given moment: a retry after a
 *    failure must see the owner's latest version (a replica count the user
 *    just fixed), yet pods retried together still share one read;
 *  - the number of entries is capped: expired entries go first.
 *
 * The resource (plural) of a kind comes from API discovery of its
 * group/version (GET /apis/<group>/<version>), itself cached, so custom
 * resources need no table here. Objects are handed out as the cache's
 * immutable, reference-counted objects (kube/cache.h).
 */
#ifndef GT_KUBE_OWNERS_H
#define GT_KUBE_OWNERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "kube/cache.h"
#include "kube/http.h"
#include "util/err.h"

struct gt_owners_opts {
	double ttl_s;		/* how long an object read by name is trusted; default 30 */
	double absent_ttl_s;	/* how long a 404 is trusted; default 2 */
	size_t max_entries;	/* objects read by name; default 50000 */
	bool watch;		/* watch each kind at its first read (else read every object by name) */
	int page_size;		/* the watches' LIST page; default 500 */
	int watch_timeout_s;	/* and their timeoutSeconds; default 300 */
	double sync_timeout_s;	/* how long a read waits for its kind's first LIST (then reads by name); default 5 */
	/*
	 * An object of a watched kind changed: @old NULL when it was added, @cur
	 * NULL when deleted. Not called for a kind's first LIST; a relist (after
	 * 410 Gone) reports what differs. Runs on the kind's reflector thread
	 * with no lock of this module held; the objects are borrowed for the call.
	 */
	void (*on_change)(void *arg, const struct gt_kobj *old, const struct gt_kobj *cur);
	/* A kind's first LIST is in, or the kind turned out not to be watchable. */
	void (*on_sync)(void *arg);
	void *arg;
};

struct gt_owners_stats {
	atomic_ulong reads;	/* GETs of objects */
	atomic_ulong hits;	/* answered without a request (a watch's store, or an object read by name) */
	atomic_ulong discoveries;	/* GETs of discovery documents */
	atomic_ulong errors;	/* reads that failed (404 excluded) */
	atomic_ulong watched;	/* kinds watched */
	atomic_ulong by_name;	/* kinds read by name because they may not be listed and watched */
	atomic_ulong events;	/* watch events applied to the stores */
	atomic_ulong reviews;	/* SelfSubjectAccessReviews */
};

/* Which object: the fields of an owner reference, and the namespace of the pod. */
struct gt_owner_ref {
	const char *api_version;	/* "apps/v1", "v1" */
	const char *kind;
	const char *ns;		/* ignored for cluster-scoped kinds */
	const char *name;
	const char *uid;	/* NULL or "": any */
};

#define GT_OWNERS_BY_NAME 1u	/* gt_owners_get(): never watch this kind for this read */

struct gt_owners;

struct gt_owners *gt_owners_new(struct gt_kube_client *cl, const struct gt_owners_opts *o);
/* Stop the watches and free: call it after gt_kube_client_stop(). */
void gt_owners_free(struct gt_owners *ow);
const struct gt_owners_stats *gt_owners_stats(const struct gt_owners *ow);

/*
 * The object @ref names; a copy read by name before @not_before (monotonic
 * seconds, gt_mono_s(); 0: any) is not good enough (a watched kind's store
 * is always good enough). @flags: GT_OWNERS_BY_NAME. On 0, *@out holds a
 * reference (gt_kobj_unref() it). Otherwise, with a message naming the
 * object: GT_ENOTFOUND (no such object or uid, or the API server serves no
 * such kind), GT_EIO (no answer, 5xx, 429: try again later), GT_EINVAL (any
 * other refusal, 403 say).
 */
int gt_owners_get(struct gt_owners *ow, const struct gt_owner_ref *ref, double not_before, unsigned flags,
		  struct gt_kobj **out, struct gt_err *err);

/*
 * Watch resource @k (served as @api_version; its strings are copied) from
 * now on, without waiting for a read: a kind known in advance whose objects
 * are listed rather than read one by one (the podgrouper's Kartas). With
 * @k->optional, a resource not served (its CRD not installed) is empty and
 * looked for again every 30 s. Returns at once; gt_owners_synced() tells
 * when the first LIST is in.
 */
void gt_owners_watch(struct gt_owners *ow, const char *api_version, const struct gt_kres_info *k);
/* Is @kind of @api_version watched and listed, or settled as not watchable? */
bool gt_owners_synced(struct gt_owners *ow, const char *api_version, const char *kind);
/*
 * Every object of a watched kind, each with a reference (unref each, free
 * the array); none when the kind is not watched or not listed yet.
 */
struct gt_kobj **gt_owners_list(struct gt_owners *ow, const char *api_version, const char *kind, size_t *n);

#endif /* GT_KUBE_OWNERS_H */
