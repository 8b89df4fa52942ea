/*
 * cache.h - the long-lived object cache the reflectors fill
 *
 * One store per resource kind (a gt_smap), keyed by "namespace/name" (or
 * "name" for cluster-scoped kinds), holding immutable, reference-counted objects: the
 * object's document tree (already converted from JSON, ready for the
 * decoder) and the few metadata fields the scheduler needs. A change never
 * edits an object in place; it swaps in a new one, so a cycle's snapshot can
 * keep references to the objects it decoded without holding any lock.
 *
 * The cycle itself changes the cache in one way only: after a successful
 * bind or eviction it "assumes" the outcome (sets spec.nodeName, the GPU
 * group labels, deletionTimestamp on a copy) so that the next cycle does not
 * act again on a pod whose watch event has not arrived yet. The next event
 * for that pod replaces the assumed copy with the server's truth.
 */
#ifndef GT_KUBE_CACHE_H
#define GT_KUBE_CACHE_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/doc.h"
#include "util/err.h"

enum gt_kres { GT_KRES_NODES, GT_KRES_PODS, GT_KRES_PODGROUPS, GT_KRES_QUEUES,
	       GT_KRES_PRIORITYCLASSES, GT_KRES_TOPOLOGIES, GT_KRES_SHARDS, GT_KRES_BINDREQUESTS,
	       GT_KRES_CONFIGMAPS, GT_KRES_NRTS, GT_KRES_PVCS, GT_KRES_PVS, GT_KRES_STORAGECLASSES, GT_KRES_CSIDRIVERS,
	       GT_KRES_CSICAPACITIES, GT_KRES_NAMESPACES, GT_KRES_DEVICECLASSES, GT_KRES_RESOURCESLICES,
	       GT_KRES_RESOURCECLAIMTEMPLATES, GT_KRES_RESOURCECLAIMS, GT_N_KRES };

struct gt_kres_info {
	const char *plural;
	const char *kind;
	const char *group_version;	/* "v1", "scheduling.run.ai/v2alpha2", ... */
	bool namespaced;
	bool optional;		/* a CRD that may not be installed: 404 means "none" */
};

extern const struct gt_kres_info gt_kres[GT_N_KRES];

/* Sets of resources, for waits and sync checks. */
#define GT_KRES_BIT(r) (1u << (r))
#define GT_KRES_ALL ((1u << GT_N_KRES) - 1)
#define GT_KRES_WAKE (1u << GT_N_KRES)	/* in a wait's mask: gt_cache_wake() counts as a change */

/*
 * The API path of resource @r: the collection (@name NULL; all namespaces
 * when @ns is NULL too), or one object, or its subresource @sub.
 */
void gt_kres_path(enum gt_kres r, const char *ns, const char *name, const char *sub, char *buf,
		  size_t cap);
/* The same for any resource (one the cache does not hold: an owner kind found by discovery). */
void gt_kres_info_path(const struct gt_kres_info *k, const char *ns, const char *name, const char *sub,
		       char *buf, size_t cap);

struct gt_kobj {
	atomic_int refs;
	enum gt_kres res;	/* GT_N_KRES: a resource the cache does not hold (gt_kobj_new_as) */
	struct gt_doc *doc;	/* immutable once published */
	char *key;		/* "ns/name" or "name" */
	char *ns;		/* "" for cluster-scoped objects */
	char *name;
	char *uid;
	char *rv;		/* metadata.resourceVersion */
	int64_t created;	/* creationTimestamp, seconds; 0 if unknown */
	atomic_bool reported;	/* the decoder refused this version, and that was said once */
};

struct gt_kobj *gt_kobj_ref(struct gt_kobj *o);
void gt_kobj_unref(struct gt_kobj *o);
/* Scalar at a dotted path of @o's document, or NULL. */
const char *gt_kobj_str(const struct gt_kobj *o, const char *path);

struct gt_cache;

struct gt_cache *gt_cache_new(void);
void gt_cache_free(struct gt_cache *c);

/*
 * A new object (one reference) from API JSON. Sets kind and apiVersion when
 * the server left them off (items of built-in lists), drops managedFields.
 * NULL with a message when it has no metadata.name.
 */
struct gt_kobj *gt_kobj_new(enum gt_kres r, json_t *obj, struct gt_err *err);
/* The same for resource @k, which the cache does not hold (the object's res is GT_N_KRES). */
struct gt_kobj *gt_kobj_new_as(const struct gt_kres_info *k, json_t *obj, struct gt_err *err);

/* Replace the whole store of @r with @objs (a relist); takes their references. */
void gt_cache_replace(struct gt_cache *c, enum gt_kres r, struct gt_kobj **objs, size_t n);
/* Add or replace one object; takes the reference. */
void gt_cache_upsert(struct gt_cache *c, struct gt_kobj *o);
void gt_cache_delete(struct gt_cache *c, enum gt_kres r, const char *key);
/* A new reference to the object under @key, or NULL. */
struct gt_kobj *gt_cache_get(struct gt_cache *c, enum gt_kres r, const char *key);
/* Every object of @r, each with a new reference; free the array, unref each. */
struct gt_kobj **gt_cache_list(struct gt_cache *c, enum gt_kres r, size_t *n);
size_t gt_cache_count(struct gt_cache *c, enum gt_kres r);

/*
 * Copy-on-write edit of the object under @key when its resourceVersion is
 * still @rv: @edit changes a private copy of the document, which then
 * replaces the object. False (nothing done) when the object is gone or a
 * newer version has arrived; that version is the truth.
 */
bool gt_cache_assume(struct gt_cache *c, enum gt_kres r, const char *key, const char *rv,
		     void (*edit)(struct gt_doc *doc, void *arg), void *arg);

/*
 * Binds in flight: a shared-GPU bind waits for its reservation pod and
 * labels the pod before it binds it, so neither the snapshot's copy of the
 * pod nor an assumed one says what is going on. From the moment the writer
 * takes such a bind until the pod's watch event shows it on a node (or the
 * bind fails and is rolled back), an entry here makes the snapshot see the
 * pod Binding on @node with @groups: the next cycles neither place it again
 * nor give its GPU share away. The snapshot drops entries whose pod is
 * bound or gone.
 */
struct gt_inflight {
	char *key;		/* "ns/name" of the pod */
	char *uid;
	char *node;
	char **groups;
	uint8_t n_groups;
};

void gt_cache_inflight_put(struct gt_cache *c, const char *key, const char *uid, const char *node,
			   char *const *groups, uint8_t n_groups);
/* Drop the entry of @key when it is still for @uid (NULL: whichever). */
void gt_cache_inflight_drop(struct gt_cache *c, const char *key, const char *uid);
/* A copy of every entry; release with gt_inflight_free(). */
struct gt_inflight *gt_cache_inflight_list(struct gt_cache *c, size_t *n);
void gt_inflight_free(struct gt_inflight *v, size_t n);

void gt_cache_set_synced(struct gt_cache *c, enum gt_kres r, bool synced);
bool gt_cache_synced(struct gt_cache *c, enum gt_kres r);
/* Every resource of @mask (GT_KRES_BIT()s; GT_KRES_ALL) is synced. */
bool gt_cache_all_synced(struct gt_cache *c, unsigned mask);

/*
 * Telling readers. Every change of a resource's store (an object added,
 * replaced or deleted, a relist, an assumption, the synced flag) bumps the
 * store's version and wakes every gt_cache_wait(), so nothing that waits
 * for the cache polls it. A reader remembers the version of the resources
 * it cares about (@mask) and waits for it to move:
 *
 *	uint64_t v = gt_cache_version(cache, mask);
 *	for (;;) { look at the cache; v = gt_cache_wait(cache, mask, v, deadline); }
 *
 * gt_cache_wait() returns the current version once it differs from @seen
 * or at @deadline_s (gt_mono_s(); <= 0: none). A version taken before the
 * reader looks makes a change it did not see wake it at once: no wakeup is
 * lost. With GT_KRES_WAKE in the mask, gt_cache_wake() moves the version
 * too: other parts of the process call it when something a cache reader
 * also waits for changed (leadership, a stop, new work for the binder).
 */
uint64_t gt_cache_version(struct gt_cache *c, unsigned mask);
uint64_t gt_cache_wait(struct gt_cache *c, unsigned mask, uint64_t seen, double deadline_s);
void gt_cache_wake(struct gt_cache *c);

#endif /* GT_KUBE_CACHE_H */
