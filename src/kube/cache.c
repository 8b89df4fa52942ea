#include "kube/cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "api/json.h"
#include "util/clock.h"
#include "util/mem.h"
#include "util/smap.h"
#include "util/time.h"

const struct gt_kres_info gt_kres[GT_N_KRES] = {
	[GT_KRES_NODES] = { "nodes", "Node", "v1", false, false },
	[GT_KRES_PODS] = { "pods", "Pod", "v1", true, false },
	[GT_KRES_PODGROUPS] = { "podgroups", "PodGroup", "scheduling.run.ai/v2alpha2", true, false },
	[GT_KRES_QUEUES] = { "queues", "Queue", "scheduling.run.ai/v2", false, false },
	[GT_KRES_PRIORITYCLASSES] = { "priorityclasses", "PriorityClass", "scheduling.k8s.io/v1", false, false },
	[GT_KRES_TOPOLOGIES] = { "topologies", "Topology", "kai.scheduler/v1alpha1", false, true },
	[GT_KRES_SHARDS] = { "schedulingshards", "SchedulingShard", "kai.scheduler/v1", false, true },
	[GT_KRES_BINDREQUESTS] = { "bindrequests", "BindRequest", "scheduling.run.ai/v1alpha2", true, true },
	[GT_KRES_CONFIGMAPS] = { "configmaps", "ConfigMap", "v1", true, false },
	/* KAI v0.17's numa plugin: the NFD topology updater's or RTE's CRD, often not installed */
	[GT_KRES_NRTS] = { "noderesourcetopologies", "NodeResourceTopology", "topology.node.k8s.io/v1alpha2",
			   false, true },
	/* volume binding (core/volumes.h) */
	[GT_KRES_PVCS] = { "persistentvolumeclaims", "PersistentVolumeClaim", "v1", true, false },
	[GT_KRES_PVS] = { "persistentvolumes", "PersistentVolume", "v1", false, false },
	[GT_KRES_STORAGECLASSES] = { "storageclasses", "StorageClass", "storage.k8s.io/v1", false, false },
	[GT_KRES_CSIDRIVERS] = { "csidrivers", "CSIDriver", "storage.k8s.io/v1", false, false },
	[GT_KRES_CSICAPACITIES] = { "csistoragecapacities", "CSIStorageCapacity", "storage.k8s.io/v1", true, false },
	/* pod affinity's namespaceSelector (core/namespaces.h) */
	[GT_KRES_NAMESPACES] = { "namespaces", "Namespace", "v1", false, false },
	/* DRA: optional, a cluster whose API server does not serve resource.k8s.io/v1 has none */
	[GT_KRES_DEVICECLASSES] = { "deviceclasses", "DeviceClass", "resource.k8s.io/v1", false, true },
	[GT_KRES_RESOURCESLICES] = { "resourceslices", "ResourceSlice", "resource.k8s.io/v1", false, true },
	[GT_KRES_RESOURCECLAIMTEMPLATES] = { "resourceclaimtemplates", "ResourceClaimTemplate", "resource.k8s.io/v1",
					     true, true },
	[GT_KRES_RESOURCECLAIMS] = { "resourceclaims", "ResourceClaim", "resource.k8s.io/v1", true, true },
};

void gt_kres_path(enum gt_kres r, const char *ns, const char *name, const char *sub, char *buf,
		  size_t cap)
{
	gt_kres_info_path(&gt_kres[r], ns, name, sub, buf, cap);
}

void gt_kres_info_path(const struct gt_kres_info *k, const char *ns, const char *name, const char *sub,
		       char *buf, size_t cap)
{
	bool core = !strchr(k->group_version, '/');
	int n = snprintf(buf, cap, "%s/%s", core ? "/api" : "/apis", k->group_version);
	if (k->namespaced && ns)
		n += snprintf(buf + n, cap > (size_t)n ? cap - (size_t)n : 0, "/namespaces/%s", ns);
	n += snprintf(buf + n, cap > (size_t)n ? cap - (size_t)n : 0, "/%s", k->plural);
	if (name)
		n += snprintf(buf + n, cap > (size_t)n ? cap - (size_t)n : 0, "/%s", name);
	if (name && sub)
		snprintf(buf + n, cap > (size_t)n ? cap - (size_t)n : 0, "/%s", sub);
}

/* ---------------------------------------------------------------- objects */

struct gt_kobj *gt_kobj_ref(struct gt_kobj *o)
{
	atomic_fetch_add(&o->refs, 1);
	return o;
}

void gt_kobj_unref(struct gt_kobj *o)
{
	if (!o || atomic_fetch_sub(&o->refs, 1) != 1)
		return;
	gt_doc_free(o->doc);
	free(o->key);
	free(o->ns);
	free(o->name);
	free(o->uid);
	free(o->rv);
	free(o);
}

const char *gt_kobj_str(const struct gt_kobj *o, const char *path)
{
	const char *dot = strrchr(path, '.');
	if (!dot)
		return gt_doc_str(o->doc, path);
	char parent[256];
	size_t n = (size_t)(dot - path);
	if (n >= sizeof(parent))
		return NULL;
	memcpy(parent, path, n);
	parent[n] = '\0';
	return gt_doc_str(gt_doc_path(o->doc, parent), dot + 1);
}

/* ---------------------------------------------------------------- stores */

struct store {
	struct gt_smap objs;	/* key -> struct gt_kobj * (one reference each) */
	bool synced;
	uint64_t version;	/* bumped by every change */
};

struct gt_cache {
	pthread_mutex_t mu;
	pthread_cond_t changed;	/* a store's version moved, or gt_cache_wake() */
	struct store stores[GT_N_KRES];
	uint64_t wakes;		/* gt_cache_wake() calls: the GT_KRES_WAKE part of a version */
	/* binds in flight: few at a time (shared-GPU binds), a plain array */
	struct gt_inflight *inflight;
	size_t n_inflight, cap_inflight;
};

/* Put @o (its reference moves in), dropping the object it replaces. */
static void store_insert(struct store *st, struct gt_kobj *o)
{
	gt_kobj_unref(gt_smap_put(&st->objs, o->key, o));
}

static void store_clear(struct store *st)
{
	size_t pos = 0;
	void *v;
	while (gt_smap_next(&st->objs, &pos, NULL, &v))
		gt_kobj_unref(v);
	gt_smap_release(&st->objs);
}

/* A store changed (lock held): its readers may look again. */
static void changed(struct gt_cache *c, enum gt_kres r)
{
	c->stores[r].version++;
	pthread_cond_broadcast(&c->changed);
}

struct gt_cache *gt_cache_new(void)
{
	struct gt_cache *c = gt_xcalloc(1, sizeof(*c));
	pthread_mutex_init(&c->mu, NULL);
	gt_cond_init_mono(&c->changed);
	for (int r = 0; r < GT_N_KRES; r++)
		gt_smap_init(&c->stores[r].objs);
	return c;
}

void gt_cache_free(struct gt_cache *c)
{
	if (!c)
		return;
	for (int r = 0; r < GT_N_KRES; r++)
		store_clear(&c->stores[r]);
	gt_inflight_free(c->inflight, c->n_inflight);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->changed);
	free(c);
}

static void strip(json_t *obj)
{
	json_t *md = json_object_get(obj, "metadata");
	json_object_del(md, "managedFields");
	/* kubectl's copy of the whole manifest: never read, often the largest field */
	json_object_del(json_object_get(md, "annotations"), "kubectl.kubernetes.io/last-applied-configuration");
}

static struct gt_kobj *kobj_new(const struct gt_kres_info *k, enum gt_kres r, json_t *obj,
				struct gt_err *err)
{
	json_t *md = json_object_get(obj, "metadata");
	const char *name = json_string_value(json_object_get(md, "name"));
	if (!json_is_object(obj) || !name || !*name) {
		gt_errf(err, GT_EINVAL, "%s without metadata.name", k->kind);
		return NULL;
	}
	strip(obj);
	if (!json_object_get(obj, "kind"))
		json_object_set_new(obj, "kind", json_string(k->kind));
	if (!json_object_get(obj, "apiVersion"))
		json_object_set_new(obj, "apiVersion", json_string(k->group_version));
	struct gt_kobj *o = gt_xcalloc(1, sizeof(*o));
	atomic_init(&o->refs, 1);
	o->res = r;
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	o->ns = gt_xstrdup(k->namespaced ? (ns ? ns : "default") : "");
	o->name = gt_xstrdup(name);
	size_t kl = strlen(o->ns) + strlen(name) + 2;
	o->key = gt_xmalloc(kl);
	if (k->namespaced)
		snprintf(o->key, kl, "%s/%s", o->ns, name);
	else
		snprintf(o->key, kl, "%s", name);
	const char *uid = json_string_value(json_object_get(md, "uid"));
	const char *rv = json_string_value(json_object_get(md, "resourceVersion"));
	o->uid = gt_xstrdup(uid ? uid : "");
	o->rv = gt_xstrdup(rv ? rv : "");
	const char *cts = json_string_value(json_object_get(md, "creationTimestamp"));
	if (!cts || gt_time_parse(cts, &o->created))
		o->created = 0;
	o->doc = gt_doc_from_json(obj);
	return o;
}

struct gt_kobj *gt_kobj_new(enum gt_kres r, json_t *obj, struct gt_err *err)
{
	return kobj_new(&gt_kres[r], r, obj, err);
}

struct gt_kobj *gt_kobj_new_as(const struct gt_kres_info *k, json_t *obj, struct gt_err *err)
{
	return kobj_new(k, GT_N_KRES, obj, err);
}

void gt_cache_replace(struct gt_cache *c, enum gt_kres r, struct gt_kobj **objs, size_t n)
{
	struct store fresh = { 0 };
	gt_smap_init(&fresh.objs);
	for (size_t i = 0; i < n; i++)
		store_insert(&fresh, objs[i]);
	pthread_mutex_lock(&c->mu);
	struct store old = c->stores[r];
	fresh.synced = old.synced;
	fresh.version = old.version;
	c->stores[r] = fresh;
	changed(c, r);
	pthread_mutex_unlock(&c->mu);
	store_clear(&old);
}

void gt_cache_upsert(struct gt_cache *c, struct gt_kobj *o)
{
	pthread_mutex_lock(&c->mu);
	struct gt_kobj *old = gt_smap_put(&c->stores[o->res].objs, o->key, o);
	changed(c, o->res);
	pthread_mutex_unlock(&c->mu);
	gt_kobj_unref(old);
}

void gt_cache_delete(struct gt_cache *c, enum gt_kres r, const char *key)
{
	pthread_mutex_lock(&c->mu);
	struct gt_kobj *gone = gt_smap_del(&c->stores[r].objs, key);
	if (gone)
		changed(c, r);
	pthread_mutex_unlock(&c->mu);
	gt_kobj_unref(gone);
}

struct gt_kobj *gt_cache_get(struct gt_cache *c, enum gt_kres r, const char *key)
{
	pthread_mutex_lock(&c->mu);
	struct gt_kobj *o = gt_smap_get(&c->stores[r].objs, key);
	if (o)
		gt_kobj_ref(o);
	pthread_mutex_unlock(&c->mu);
	return o;
}

struct gt_kobj **gt_cache_list(struct gt_cache *c, enum gt_kres r, size_t *n)
{
	pthread_mutex_lock(&c->mu);
	const struct gt_smap *m = &c->stores[r].objs;
	struct gt_kobj **out = gt_xmalloc((m->n + 1) * sizeof(*out));
	size_t k = 0, pos = 0;
	void *v;
	while (gt_smap_next(m, &pos, NULL, &v))
		out[k++] = gt_kobj_ref(v);
	pthread_mutex_unlock(&c->mu);
	*n = k;
	return out;
}

size_t gt_cache_count(struct gt_cache *c, enum gt_kres r)
{
	pthread_mutex_lock(&c->mu);
	size_t n = c->stores[r].objs.n;
	pthread_mutex_unlock(&c->mu);
	return n;
}

bool gt_cache_assume(struct gt_cache *c, enum gt_kres r, const char *key, const char *rv,
		     void (*edit)(struct gt_doc *doc, void *arg), void *arg)
{
	struct gt_kobj *cur = gt_cache_get(c, r, key);
	if (!cur)
		return false;
	if (strcmp(cur->rv, rv)) {
		gt_kobj_unref(cur);
		return false;
	}
	/* edit a copy outside the lock, then swap it in if nothing newer came meanwhile */
	struct gt_kobj *o = gt_xcalloc(1, sizeof(*o));
	atomic_init(&o->refs, 1);
	o->res = r;
	o->key = gt_xstrdup(cur->key);
	o->ns = gt_xstrdup(cur->ns);
	o->name = gt_xstrdup(cur->name);
	o->uid = gt_xstrdup(cur->uid);
	o->rv = gt_xstrdup(cur->rv);
	o->created = cur->created;
	o->doc = gt_doc_copy(cur->doc);
	edit(o->doc, arg);
	bool done = false;
	pthread_mutex_lock(&c->mu);
	struct gt_smap *m = &c->stores[r].objs;
	if (gt_smap_get(m, key) == cur) {
		gt_smap_put(m, key, o);
		changed(c, r);
		done = true;
	}
	pthread_mutex_unlock(&c->mu);
	if (done)
		gt_kobj_unref(cur);	/* the store's reference */
	else
		gt_kobj_unref(o);
	gt_kobj_unref(cur);
	return done;
}

void gt_cache_set_synced(struct gt_cache *c, enum gt_kres r, bool synced)
{
	pthread_mutex_lock(&c->mu);
	c->stores[r].synced = synced;
	changed(c, r);
	pthread_mutex_unlock(&c->mu);
}

bool gt_cache_synced(struct gt_cache *c, enum gt_kres r)
{
	pthread_mutex_lock(&c->mu);
	bool s = c->stores[r].synced;
	pthread_mutex_unlock(&c->mu);
	return s;
}

bool gt_cache_all_synced(struct gt_cache *c, unsigned mask)
{
	bool all = true;
	pthread_mutex_lock(&c->mu);
	for (int r = 0; r < GT_N_KRES; r++)
		if (mask & GT_KRES_BIT(r))
			all = all && c->stores[r].synced;
	pthread_mutex_unlock(&c->mu);
	return all;
}

/* ---------------------------------------------------------------- telling readers */

static uint64_t version_locked(const struct gt_cache *c, unsigned mask)
{
	uint64_t v = mask & GT_KRES_WAKE ? c->wakes : 0;
	for (int r = 0; r < GT_N_KRES; r++)
		if (mask & GT_KRES_BIT(r))
			v += c->stores[r].version;
	return v;
}

uint64_t gt_cache_version(struct gt_cache *c, unsigned mask)
{
	pthread_mutex_lock(&c->mu);
	uint64_t v = version_locked(c, mask);
	pthread_mutex_unlock(&c->mu);
	return v;
}

uint64_t gt_cache_wait(struct gt_cache *c, unsigned mask, uint64_t seen, double deadline_s)
{
	pthread_mutex_lock(&c->mu);
	bool in_time = true;
	while (in_time && version_locked(c, mask) == seen)
		in_time = gt_cond_wait_until(&c->changed, &c->mu, deadline_s);
	uint64_t v = version_locked(c, mask);
	pthread_mutex_unlock(&c->mu);
	return v;
}

void gt_cache_wake(struct gt_cache *c)
{
	pthread_mutex_lock(&c->mu);
	c->wakes++;
	pthread_cond_broadcast(&c->changed);
	pthread_mutex_unlock(&c->mu);
}

/* ---------------------------------------------------------------- binds in flight */

static void inflight_release(struct gt_inflight *e)
{
	free(e->key);
	free(e->uid);
	free(e->node);
	for (uint8_t g = 0; g < e->n_groups; g++)
		free(e->groups[g]);
	free(e->groups);
}

static void inflight_copy(struct gt_inflight *dst, const char *key, const char *uid, const char *node,
			  char *const *groups, uint8_t n_groups)
{
	memset(dst, 0, sizeof(*dst));
	dst->key = gt_xstrdup(key);
	dst->uid = gt_xstrdup(uid ? uid : "");
	dst->node = gt_xstrdup(node);
	dst->groups = n_groups ? gt_xcalloc(n_groups, sizeof(*dst->groups)) : NULL;
	for (uint8_t g = 0; g < n_groups; g++)
		dst->groups[dst->n_groups++] = gt_xstrdup(groups[g]);
}

/* Index of @key's entry, or -1; the lock is held. */
static ssize_t inflight_find(const struct gt_cache *c, const char *key)
{
	for (size_t i = 0; i < c->n_inflight; i++)
		if (!strcmp(c->inflight[i].key, key))
			return (ssize_t)i;
	return -1;
}

void gt_cache_inflight_put(struct gt_cache *c, const char *key, const char *uid, const char *node,
			   char *const *groups, uint8_t n_groups)
{
	struct gt_inflight e;
	inflight_copy(&e, key, uid, node, groups, n_groups);
	pthread_mutex_lock(&c->mu);
	ssize_t i = inflight_find(c, key);
	if (i >= 0) {
		struct gt_inflight old = c->inflight[i];
		c->inflight[i] = e;
		pthread_mutex_unlock(&c->mu);
		inflight_release(&old);
		return;
	}
	GT_PUSH(c->inflight, c->n_inflight, c->cap_inflight, e);
	pthread_mutex_unlock(&c->mu);
}

void gt_cache_inflight_drop(struct gt_cache *c, const char *key, const char *uid)
{
	struct gt_inflight gone = { 0 };
	pthread_mutex_lock(&c->mu);
	ssize_t i = inflight_find(c, key);
	if (i >= 0 && (!uid || !strcmp(c->inflight[i].uid, uid))) {
		gone = c->inflight[i];
		c->inflight[i] = c->inflight[--c->n_inflight];
	}
	pthread_mutex_unlock(&c->mu);
	if (gone.key)
		inflight_release(&gone);
}

struct gt_inflight *gt_cache_inflight_list(struct gt_cache *c, size_t *n)
{
	pthread_mutex_lock(&c->mu);
	struct gt_inflight *v = gt_xcalloc(c->n_inflight + 1, sizeof(*v));
	for (size_t i = 0; i < c->n_inflight; i++) {
		const struct gt_inflight *e = &c->inflight[i];
		inflight_copy(&v[i], e->key, e->uid, e->node, e->groups, e->n_groups);
	}
	*n = c->n_inflight;
	pthread_mutex_unlock(&c->mu);
	return v;
}

void gt_inflight_free(struct gt_inflight *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		inflight_release(&v[i]);
	free(v);
}
