/*
 * owners.h - objects read by name through the API, cached: a pod's owners
 *
 * The podgrouper follows each pod's owner references up to the top owner
 * (a ReplicaSet, then its Deployment; a PyTorchJob; a RayCluster, then its
 * RayJob). A 1,000-pod job must not cost 1,000 reads of the same owner, so
 * every object read is kept for a while (--owner-cache-ttl, 30 s by default)
 * and shared by every pod that names it:
 *
 *  - keyed by apiVersion, kind, namespace and name; a reference whose uid
 *    differs from the cached object's reads it again (the owner was deleted
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
 * resources need no table here. Objects are handed out as immutable,
 * reference-counted documents (api/doc.h), like the cache's.
 */
#ifndef GT_KUBE_OWNERS_H
#define GT_KUBE_OWNERS_H

#include <stdatomic.h>
#include <stddef.h>

#include "api/doc.h"
#include "kube/http.h"
#include "util/err.h"

struct gt_owners_opts {
	double ttl_s;		/* how long a read object is trusted; default 30 */
	double absent_ttl_s;	/* how long a 404 is trusted; default 2 */
	size_t max_entries;	/* default 50000 */
};

struct gt_owners_stats {
	atomic_ulong reads;	/* GETs of objects */
	atomic_ulong hits;	/* answered from the cache (waiting for a read in flight counts) */
	atomic_ulong discoveries;	/* GETs of discovery documents */
	atomic_ulong errors;	/* reads that failed (404 excluded) */
};

struct gt_owners;
struct gt_owner;		/* one cached object */

struct gt_owners *gt_owners_new(struct gt_kube_client *cl, const struct gt_owners_opts *o);
void gt_owners_free(struct gt_owners *ow);
const struct gt_owners_stats *gt_owners_stats(const struct gt_owners *ow);

/*
 * The object @kind @ns/@name of @api_version ("apps/v1", "v1"); @ns is
 * ignored for cluster-scoped kinds; @uid, when not NULL, must match; a copy
 * read before @not_before (monotonic seconds, gt_mono_s(); 0: any) is
 * not good enough. On 0,
 * *@out holds a reference (gt_owner_put() it). Otherwise, with a message
 * naming the object: GT_ENOTFOUND (no such object or uid, or the API server
 * serves no such kind), GT_EIO (no answer, 5xx, 429: try again later),
 * GT_EINVAL (any other refusal, 403 say).
 */
int gt_owners_get(struct gt_owners *ow, const char *api_version, const char *kind, const char *ns,
		  const char *name, const char *uid, double not_before, struct gt_owner **out,
		  struct gt_err *err);
const struct gt_doc *gt_owner_doc(const struct gt_owner *o);
void gt_owner_put(struct gt_owner *o);

#endif /* GT_KUBE_OWNERS_H */
