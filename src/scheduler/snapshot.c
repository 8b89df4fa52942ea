#include "scheduler/snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "api/bindrequest.h"
#include "api/decode.h"
#include "api/json.h"
#include "api/object.h"
#include "util/log.h"
#include "util/mem.h"

/* What gt_snapshot_take() works with besides the snapshot itself. */
struct take {
	struct gt_kube_snapshot *s;
	const struct gt_snapshot_opts *o;
	const char *pool_value;		/* asked for; NULL: the shard's */
	const char *pool_key;
	bool *keep[GT_N_KRES];		/* per object of s->objs */
	struct gt_decoder d;
	struct gt_inflight *ifl;	/* the binds in flight; their strings back d's bindings */
	size_t n_ifl;
	struct gt_kobj **feed;		/* what the decoder got, in its order */
	size_t n_feed, cap_feed;
};

static int by_key(const void *a, const void *b)
{
	const struct gt_kobj *x = *(struct gt_kobj *const *)a, *y = *(struct gt_kobj *const *)b;
	return strcmp(x->key, y->key);
}

static int by_age(const void *a, const void *b)
{
	const struct gt_kobj *x = *(struct gt_kobj *const *)a, *y = *(struct gt_kobj *const *)b;
	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Index of the object under @key in the sorted objs of @r, or -1. */
static ssize_t find_key(const struct gt_kube_snapshot *s, enum gt_kres r, const char *key)
{
	size_t lo = 0, hi = s->n[r];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->objs[r][mid]->key, key);
		if (!c)
			return (ssize_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

struct gt_kobj *gt_snapshot_find(const struct gt_kube_snapshot *s, enum gt_kres r, const char *ns,
				 const char *name)
{
	char key[600];
	if (gt_kres[r].namespaced)
		snprintf(key, sizeof(key), "%s/%s", ns ? ns : "default", name);
	else
		snprintf(key, sizeof(key), "%s", name);
	ssize_t i = find_key(s, r, key);
	return i < 0 ? NULL : s->objs[r][i];
}

/* ---------------------------------------------------------------- what goes in */

static bool in_pool(const struct take *t, const struct gt_kobj *o)
{
	return gt_node_pool_has(t->pool_key, t->s->node_pool, o->doc);
}

/* Is node @name in the snapshot? -1: it is not in the cache at all. */
static int node_kept(const struct take *t, const char *name)
{
	ssize_t i = find_key(t->s, GT_KRES_NODES, name);
	return i < 0 ? -1 : t->keep[GT_KRES_NODES][i];
}

/* The partition: the flag's, else our SchedulingShard's, else none. */
static void choose_pool(struct take *t)
{
	struct gt_kube_snapshot *s = t->s;
	if (t->pool_value) {
		s->node_pool = gt_xstrdup(t->pool_value);
		return;
	}
	const struct gt_kobj *shard = gt_snapshot_find(s, GT_KRES_SHARDS, NULL, t->o->shard);
	if (shard)
		s->node_pool = gt_xstrdup(gt_shard_partition(shard->doc));
}

/* The pod's PodGroup in the snapshot, -1 if absent; *@named: the pod names one. */
static ssize_t pod_group(const struct take *t, const struct gt_kobj *o, bool *named)
{
	const char *pg = gt_pod_group_name(o->doc);
	*named = pg != NULL;
	if (!pg)
		return -1;
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", o->ns, pg);
	return find_key(t->s, GT_KRES_PODGROUPS, key);
}

/* A pod of the partition: on one of its nodes, of one of its PodGroups, or labelled for it. */
static bool pod_in_pool(const struct take *t, const struct gt_kobj *o)
{
	if (!t->s->node_pool)
		return true;
	const char *node = gt_pod_node(o->doc);
	if (node)
		return node_kept(t, node) != 0;	/* an unknown node: the decoder says so */
	bool named;
	ssize_t i = pod_group(t, o, &named);
	if (named)
		return i < 0 || t->keep[GT_KRES_PODGROUPS][i];
	return !gt_pod_is_ours(o->doc, t->o->scheduler_name) || in_pool(t, o);
}

/* Bound, or in a PodGroup the snapshot holds. */
static bool has_podgroup(const struct take *t, const struct gt_kobj *o)
{
	bool named;
	return gt_pod_node(o->doc) || pod_group(t, o, &named) >= 0;
}

/* Finished pods of other schedulers hold nothing anywhere: skip their decoding. */
static bool wanted(const struct take *t, const struct gt_kobj *o)
{
	switch (o->res) {
	case GT_KRES_SHARDS:
		return !strcmp(o->name, t->o->shard);
	case GT_KRES_BINDREQUESTS:
		return false;
	case GT_KRES_NODES:
	case GT_KRES_QUEUES:
	case GT_KRES_PODGROUPS:
		return in_pool(t, o);
	case GT_KRES_PODS:
		break;
	default:
		return true;
	}
	bool finished = gt_pod_is_finished(o->doc), ours = gt_pod_is_ours(o->doc, t->o->scheduler_name);
	if (finished && !ours)
		return false;
	if (t->o->grouped_only && ours && !finished && !has_podgroup(t, o))
		return false;
	return pod_in_pool(t, o);
}

/* Decide what goes in, in dependency order: nodes and PodGroups before the pods they hold. */
static void choose(struct take *t)
{
	struct gt_kube_snapshot *s = t->s;
	static const enum gt_kres order[] = { GT_KRES_SHARDS, GT_KRES_PRIORITYCLASSES, GT_KRES_TOPOLOGIES,
					      GT_KRES_QUEUES, GT_KRES_NODES, GT_KRES_PODGROUPS,
					      GT_KRES_BINDREQUESTS, GT_KRES_CONFIGMAPS, GT_KRES_DEVICECLASSES,
					      GT_KRES_RESOURCESLICES, GT_KRES_RESOURCECLAIMTEMPLATES,
					      GT_KRES_RESOURCECLAIMS, GT_KRES_PODS,
					      GT_KRES_NRTS, GT_KRES_PVCS, GT_KRES_PVS, GT_KRES_STORAGECLASSES,
					      GT_KRES_CSIDRIVERS, GT_KRES_CSICAPACITIES, GT_KRES_NAMESPACES };
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		enum gt_kres r = order[k];
		t->keep[r] = gt_xcalloc(s->n[r] + 1, sizeof(bool));
		for (size_t i = 0; i < s->n[r]; i++)
			t->keep[r][i] = wanted(t, s->objs[r][i]);
	}
}

/* ---------------------------------------------------------------- pods being bound */

/*
 * @pod is being bound to @node: the decoder makes it Binding there when
 * the node is ours; a pod bound into another pool is not ours to count.
 */
static void bind_pod(struct take *t, const struct gt_kobj *pod, const char *node, const char *const *groups,
		     size_t n_groups)
{
	ssize_t pi = find_key(t->s, GT_KRES_PODS, pod->key);
	if (pi < 0 || !t->keep[GT_KRES_PODS][pi])
		return;
	if (node_kept(t, node) != 1) {
		t->keep[GT_KRES_PODS][pi] = false;
		return;
	}
	struct gt_binding b = { .pod = pod->doc, .node = node };
	for (size_t g = 0; g < n_groups && g < GT_MAX_DEVICES; g++)
		b.groups[b.n_groups++] = groups[g];
	gt_decoder_bind(&t->d, &b);
}

/* Ours to delete: a BindRequest of our partition. */
static bool br_ours(const struct take *t, const struct gt_kobj *br)
{
	const char *sel = gt_br_node(br->doc);
	return in_pool(t, br) || (sel && node_kept(t, sel) == 1);
}

static void read_bindrequests(struct take *t)
{
	struct gt_kube_snapshot *s = t->s;
	size_t cap = 0;
	for (size_t i = 0; i < s->n[GT_KRES_BINDREQUESTS]; i++) {
		struct gt_kobj *br = s->objs[GT_KRES_BINDREQUESTS][i];
		const struct gt_kobj *pod = gt_snapshot_find(s, GT_KRES_PODS, br->ns, gt_br_pod_name(br->doc));
		enum gt_br_state v = gt_br_state(br->doc, pod ? pod->doc : NULL, pod ? pod->uid : "");
		if (v == GT_BR_STALE && br_ours(t, br)) {
			GT_PUSH(s->stale_brs, s->n_stale_brs, cap, br);
			continue;
		}
		if (v != GT_BR_LIVE)
			continue;
		const char *groups[GT_MAX_DEVICES];
		size_t n = gt_br_groups(br->doc, groups, GT_MAX_DEVICES);
		bind_pod(t, pod, gt_br_node(br->doc), groups, n);
	}
}

/* Binds this process has in flight; entries whose pod is bound or gone are done. */
static void read_inflight(struct take *t, struct gt_cache *cache)
{
	t->ifl = gt_cache_inflight_list(cache, &t->n_ifl);
	for (size_t i = 0; i < t->n_ifl; i++) {
		const struct gt_inflight *e = &t->ifl[i];
		ssize_t pi = find_key(t->s, GT_KRES_PODS, e->key);
		const struct gt_kobj *pod = pi < 0 ? NULL : t->s->objs[GT_KRES_PODS][pi];
		if (!pod || strcmp(pod->uid, e->uid) || gt_pod_node(pod->doc)) {
			gt_cache_inflight_drop(cache, e->key, e->uid);
			continue;
		}
		bool seen = false;	/* a BindRequest said so already */
		for (size_t k = 0; k < t->d.n_bindings && !seen; k++)
			seen = t->d.bindings[k].pod == pod->doc;
		if (!seen)
			bind_pod(t, pod, e->node, (const char *const *)e->groups, e->n_groups);
	}
}

/* ---------------------------------------------------------------- --scheduler-conf */

/*
 * The shard the decoder gets under --scheduler-conf: ours (or a bare one of
 * its name) with the file's plugins, and its budgets and usage settings
 * when it has them, in place of the shard's own.
 */
static void conf_shard(struct take *t)
{
	struct gt_kube_snapshot *s = t->s;
	ssize_t at = -1;
	for (size_t i = 0; i < t->n_feed && at < 0; i++)
		if (t->feed[i]->res == GT_KRES_SHARDS)
			at = (ssize_t)i;
	json_t *shard = at >= 0 ? gt_doc_to_json(t->feed[at]->doc)
				: json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "kai.scheduler/v1", "kind",
					    "SchedulingShard", "metadata", "name", t->o->shard);
	json_t *spec = json_object_get(shard, "spec");
	if (!json_is_object(spec)) {
		spec = json_object();
		json_object_set_new(shard, "spec", spec);
	}
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)t->o->conf_spec, k, v)
		json_object_set(spec, k, v);
	struct gt_err err = { 0 };
	s->conf_shard = gt_kobj_new(GT_KRES_SHARDS, shard, &err);
	json_decref(shard);
	if (!s->conf_shard)
		return;
	if (at >= 0)
		t->feed[at] = s->conf_shard;
	else	/* fed as a cached one would be */
		GT_PUSH(t->feed, t->n_feed, t->cap_feed, s->conf_shard);
}

/* ---------------------------------------------------------------- decoding */

/* Each rejection: left out this cycle; said once per version of the object. */
static void note_rejections(struct take *t)
{
	struct gt_kube_snapshot *s = t->s;
	const struct gt_decoder *d = &t->d;
	s->rejected = gt_xcalloc(d->n_rejections + 1, sizeof(*s->rejected));
	for (size_t i = 0; i < d->n_rejections; i++) {
		const struct gt_rejection *r = &d->rejections[i];
		struct gt_snapshot_rejection *sr = &s->rejected[s->n_rejected++];
		char text[1200];
		snprintf(text, sizeof(text), "field %s: %s", r->field, r->message);
		sr->obj = t->feed[r->obj];
		sr->text = gt_xstrdup(text);
		sr->first = !atomic_exchange(&sr->obj->reported, true);
		if (sr->first)
			gt_log(GT_LOG_WARN, "snapshot", "skipping %s %s: %s", gt_kres[sr->obj->res].kind,
			       sr->obj->key, text);
	}
}

/* The object of each entity, from the decoder's map into the feed. */
static struct gt_kobj **entity_objs(const struct take *t, const int32_t *map, uint32_t n)
{
	struct gt_kobj **out = gt_xcalloc(n + 1, sizeof(*out));
	for (uint32_t i = 0; i < n; i++)
		out[i] = map[i] >= 0 ? t->feed[map[i]] : NULL;
	return out;
}

static void decode(struct take *t)
{
	struct gt_kube_snapshot *s = t->s;
	for (size_t i = 0; i < t->n_feed; i++)
		gt_decoder_add(&t->d, t->feed[i]->doc);
	struct gt_err err = { 0 };
	gt_decoder_build(&t->d, &s->c, &err);
	if (t->o->overrides)
		gt_config_override(&s->c.config, t->o->overrides);
	if (gt_log_enabled(GT_LOG_DEBUG))
		for (size_t i = 0; i < t->d.n_warnings; i++)
			gt_log(GT_LOG_DEBUG, "snapshot", "%s", t->d.warnings[i]);
	note_rejections(t);
	s->node_obj = entity_objs(t, t->d.node_obj, s->c.n_nodes);
	s->pod_obj = entity_objs(t, t->d.pod_obj, s->c.n_pods);
	s->job_obj = entity_objs(t, t->d.job_obj, s->c.n_jobs);
	s->queue_obj = entity_objs(t, t->d.queue_obj, s->c.n_queues);
	for (uint32_t i = 0; i < s->c.n_pods; i++)
		s->n_binding += s->c.pods[i].status == GT_BINDING;
}

void gt_snapshot_take(struct gt_cache *cache, const struct gt_snapshot_opts *o,
		      const struct gt_node_pool *pool, struct gt_kube_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	gt_strtab_init(&s->names);
	gt_cluster_init(&s->c, &s->names);
	struct take t = { .s = s, .o = o, .pool_value = pool ? pool->value : NULL,
			  .pool_key = pool && pool->key ? pool->key : GT_NODE_POOL_LABEL };
	gt_decoder_init(&t.d);
	t.d.configmaps_complete = true;	/* the cache lists every ConfigMap */
	t.d.claims_listed = true;	/* ... every claim, volume, class, driver and capacity */
	t.d.storage_listed = true;
	t.d.namespaces_listed = true;
	t.d.scheduler_name = o->scheduler_name;
	t.d.pool_label_key = t.pool_key;
	for (int r = 0; r < GT_N_KRES; r++) {
		s->objs[r] = gt_cache_list(cache, (enum gt_kres)r, &s->n[r]);
		qsort(s->objs[r], s->n[r], sizeof(*s->objs[r]), by_key);
	}
	choose_pool(&t);
	choose(&t);
	read_bindrequests(&t);
	read_inflight(&t, cache);
	for (int r = 0; r < GT_N_KRES; r++)
		for (size_t i = 0; i < s->n[r]; i++)
			if (t.keep[r][i])
				GT_PUSH(t.feed, t.n_feed, t.cap_feed, s->objs[r][i]);
	if (o->conf_spec)
		conf_shard(&t);
	if (t.n_feed)
		qsort(t.feed, t.n_feed, sizeof(*t.feed), by_age);
	decode(&t);
	gt_decoder_release(&t.d);
	free(t.feed);
	for (int r = 0; r < GT_N_KRES; r++)
		free(t.keep[r]);
	gt_inflight_free(t.ifl, t.n_ifl);
}

void gt_snapshot_release(struct gt_kube_snapshot *s)
{
	gt_cluster_release(&s->c);
	for (size_t i = 0; i < s->n_rejected; i++)
		free(s->rejected[i].text);
	free(s->rejected);
	free(s->node_obj);
	free(s->pod_obj);
	free(s->job_obj);
	free(s->queue_obj);
	for (int r = 0; r < GT_N_KRES; r++) {
		for (size_t i = 0; i < s->n[r]; i++)
			gt_kobj_unref(s->objs[r][i]);
		free(s->objs[r]);
	}
	free(s->stale_brs);
	free(s->node_pool);
	gt_kobj_unref(s->conf_shard);
	gt_strtab_release(&s->names);
	memset(s, 0, sizeof(*s));
}
