#include "scheduler/snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "api/decode.h"
#include "util/log.h"
#include "util/mem.h"

/* Passes over a refused object before the cycle gives up. */
#define MAX_REBUILDS 64
#define DEFAULT_POOL_KEY "kai.scheduler/node-pool"

/* A pod seen Binding: where, and on which GPU groups (strings held by the snapshot or @ifl). */
struct override {
	const struct gt_kobj *pod;
	const char *node;
	const char *groups[GT_MAX_DEVICES];
	uint8_t n_groups;
};

/* What gt_snapshot_take() works with besides the snapshot itself. */
struct take {
	struct gt_kube_snapshot *s;
	const struct gt_snapshot_opts *o;
	const char *pool_value;		/* asked for; NULL: the shard's */
	const char *pool_key;
	bool *keep[GT_N_KRES];		/* per object of s->objs */
	struct override *ovs;
	size_t n_ovs, cap_ovs;
	struct gt_inflight *ifl;
	size_t n_ifl;
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

static int by_pod(const void *a, const void *b)
{
	const struct override *x = a, *y = b;
	return x->pod < y->pod ? -1 : x->pod > y->pod;
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

static const char *label(const struct gt_kobj *o, const char *key)
{
	return gt_doc_str(gt_doc_path(o->doc, "metadata.labels"), key);
}

/* ---------------------------------------------------------------- node pools */

static bool in_pool(const struct take *t, const struct gt_kobj *o)
{
	const char *pool = t->s->node_pool;
	if (!pool)
		return true;
	const char *v = label(o, t->pool_key);
	return *pool ? v && !strcmp(v, pool) : !v || !*v;
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
	if (shard) {
		const char *v = gt_kobj_str(shard, "spec.partitionLabelValue");
		s->node_pool = gt_xstrdup(v && !gt_doc_is_null(gt_doc_path(shard->doc, "spec.partitionLabelValue"))
					  ? v : "");
	}
}

/* The pod's PodGroup in the snapshot, -1 if absent; *@named: the pod names one. */
static ssize_t pod_group(const struct take *t, const struct gt_kobj *o, bool *named)
{
	const char *pg = gt_doc_str(gt_doc_path(o->doc, "metadata.annotations"), "pod-group-name");
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
	const char *node = gt_kobj_str(o, "spec.nodeName");
	if (node && *node)
		return node_kept(t, node) != 0;	/* an unknown node: the decoder says so */
	bool named;
	ssize_t i = pod_group(t, o, &named);
	if (named)
		return i < 0 || t->keep[GT_KRES_PODGROUPS][i];
	const char *sched = gt_kobj_str(o, "spec.schedulerName");
	bool ours = sched && !strcmp(sched, t->o->scheduler_name);
	return !ours || in_pool(t, o);
}

/* Bound, or in a PodGroup the snapshot holds. */
static bool has_podgroup(const struct take *t, const struct gt_kobj *o)
{
	const char *node = gt_kobj_str(o, "spec.nodeName");
	if (node && *node)
		return true;
	bool named;
	return pod_group(t, o, &named) >= 0;
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
	const char *phase = gt_kobj_str(o, "status.phase");
	const char *sched = gt_kobj_str(o, "spec.schedulerName");
	bool finished = phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"));
	bool ours = sched && !strcmp(sched, t->o->scheduler_name);
	if (finished && !ours)
		return false;
	if (t->o->grouped_only && ours && !finished && !has_podgroup(t, o))
		return false;
	return pod_in_pool(t, o);
}

/* ---------------------------------------------------------------- pods being bound */

static void add_override(struct take *t, const struct gt_kobj *pod, const char *node)
{
	GT_GROW(t->ovs, t->n_ovs + 1, t->cap_ovs);
	struct override *ov = &t->ovs[t->n_ovs++];
	memset(ov, 0, sizeof(*ov));
	ov->pod = pod;
	ov->node = node;
}

/* The pod index of @pod in s->objs, or -1. */
static ssize_t pod_index(const struct take *t, const struct gt_kobj *pod)
{
	return find_key(t->s, GT_KRES_PODS, pod->key);
}

/* A pod being bound to @node: Binding there if the node is ours, else not ours to count. */
static void binding(struct take *t, const struct gt_kobj *pod, const char *node, struct override **ov)
{
	ssize_t pi = pod_index(t, pod);
	*ov = NULL;
	if (pi < 0 || !t->keep[GT_KRES_PODS][pi])
		return;
	if (node_kept(t, node) != 1) {
		t->keep[GT_KRES_PODS][pi] = false;
		return;
	}
	add_override(t, pod, node);
	*ov = &t->ovs[t->n_ovs - 1];
}

enum br_verdict { BR_LIVE, BR_STALE, BR_DONE };

static const char *owner_pod_uid(const struct gt_kobj *br)
{
	const struct gt_doc *refs = gt_doc_path(br->doc, "metadata.ownerReferences");
	for (size_t i = 0; refs && refs->kind == GT_DOC_SEQ && i < refs->n; i++) {
		const char *kind = gt_doc_str(refs->items[i], "kind");
		if (kind && !strcmp(kind, "Pod"))
			return gt_doc_str(refs->items[i], "uid");
	}
	return NULL;
}

/* KAI's IsFailed: Failed with no attempts left (no backoffLimit: one attempt). */
static bool br_failed(const struct gt_kobj *br)
{
	const char *phase = gt_kobj_str(br, "status.phase");
	if (!phase || strcmp(phase, "Failed"))
		return false;
	const char *limit = gt_kobj_str(br, "spec.backoffLimit");
	const char *tries = gt_kobj_str(br, "status.failedAttempts");
	return !limit || gt_doc_is_null(gt_doc_path(br->doc, "spec.backoffLimit")) ||
	       atoll(tries ? tries : "0") >= atoll(limit);
}

static enum br_verdict judge_br(const struct take *t, const struct gt_kobj *br, const struct gt_kobj **pod)
{
	const char *pod_name = gt_kobj_str(br, "spec.podName");
	*pod = gt_snapshot_find(t->s, GT_KRES_PODS, br->ns, pod_name ? pod_name : br->name);
	const char *uid = owner_pod_uid(br);
	if (!*pod || (uid && strcmp(uid, (*pod)->uid)))
		return BR_STALE;	/* orphaned: the pod is gone or was re-created */
	if (br_failed(br))
		return BR_STALE;
	const char *sel = gt_kobj_str(br, "spec.selectedNode");
	const char *node = gt_kobj_str(*pod, "spec.nodeName");
	if (node && *node)
		return sel && !strcmp(sel, node) ? BR_DONE : BR_STALE;
	return sel && *sel ? BR_LIVE : BR_DONE;
}

/* Ours to delete: a BindRequest of our partition. */
static bool br_ours(const struct take *t, const struct gt_kobj *br)
{
	const char *sel = gt_kobj_str(br, "spec.selectedNode");
	return in_pool(t, br) || (sel && node_kept(t, sel) == 1);
}

static void read_bindrequests(struct take *t)
{
	struct gt_kube_snapshot *s = t->s;
	size_t cap = 0;
	for (size_t i = 0; i < s->n[GT_KRES_BINDREQUESTS]; i++) {
		struct gt_kobj *br = s->objs[GT_KRES_BINDREQUESTS][i];
		const struct gt_kobj *pod;
		enum br_verdict v = judge_br(t, br, &pod);
		if (v == BR_STALE && br_ours(t, br)) {
			GT_PUSH(s->stale_brs, s->n_stale_brs, cap, br);
			continue;
		}
		if (v != BR_LIVE)
			continue;
		struct override *ov;
		binding(t, pod, gt_kobj_str(br, "spec.selectedNode"), &ov);
		const struct gt_doc *groups = gt_doc_path(br->doc, "spec.selectedGPUGroups");
		for (size_t g = 0; ov && groups && groups->kind == GT_DOC_SEQ && g < groups->n; g++)
			if (groups->items[g]->scalar && ov->n_groups < GT_MAX_DEVICES)
				ov->groups[ov->n_groups++] = groups->items[g]->scalar;
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
		const char *node = pod ? gt_kobj_str(pod, "spec.nodeName") : NULL;
		if (!pod || strcmp(pod->uid, e->uid) || (node && *node)) {
			gt_cache_inflight_drop(cache, e->key, e->uid);
			continue;
		}
		bool seen = false;
		for (size_t k = 0; k < t->n_ovs && !seen; k++)
			seen = t->ovs[k].pod == pod;
		struct override *ov = NULL;
		if (!seen)
			binding(t, pod, e->node, &ov);
		for (uint8_t g = 0; ov && g < e->n_groups; g++)
			ov->groups[ov->n_groups++] = e->groups[g];
	}
}

/* Make the decoded pods being bound Binding on their node, with their groups. */
static void apply_overrides(struct take *t, struct gt_kobj **feed, size_t n_feed)
{
	struct gt_kube_snapshot *s = t->s;
	struct gt_cluster *c = &s->c;
	if (!t->n_ovs)
		return;
	qsort(t->ovs, t->n_ovs, sizeof(*t->ovs), by_pod);
	int32_t *node_of = gt_xmalloc((s->names.n_strs + 1) * sizeof(*node_of));
	for (size_t i = 0; i < s->names.n_strs; i++)
		node_of[i] = GT_NONE;
	for (uint32_t n = 0; n < c->n_nodes; n++)
		node_of[c->nodes[n].name] = (int32_t)n;
	size_t n_names = s->names.n_strs;
	/* the decoder added the pods in feed order, leaving out the refused ones */
	uint32_t pi = 0;
	for (size_t i = 0; i < n_feed && pi < c->n_pods; i++) {
		if (feed[i]->res != GT_KRES_PODS || atomic_load(&feed[i]->bad))
			continue;
		struct gt_pod *p = &c->pods[pi++];
		struct override key = { .pod = feed[i] };
		const struct override *ov = bsearch(&key, t->ovs, t->n_ovs, sizeof(*t->ovs), by_pod);
		if (!ov || strcmp(gt_strtab_str(&s->names, p->name), feed[i]->name))
			continue;
		int64_t id = gt_strtab_find(&s->names, ov->node);
		if (id < 0 || (size_t)id >= n_names || node_of[id] == GT_NONE)
			continue;
		p->status = GT_BINDING;
		p->node = node_of[id];
		p->n_groups = 0;
		for (uint8_t g = 0; g < ov->n_groups; g++)
			p->groups[p->n_groups++] = gt_strtab_intern(&s->names, ov->groups[g]);
		if (gt_pod_is_shared(p) && !p->n_groups) {
			/* as the decoder names the device of a shared pod that carries no group */
			char own[600];
			snprintf(own, sizeof(own), "%s/%s-own-gpu", feed[i]->ns, feed[i]->name);
			p->groups[p->n_groups++] = gt_strtab_intern(&s->names, own);
		}
		s->n_binding++;
	}
	free(node_of);
}

/* ---------------------------------------------------------------- decoding */

/* The line number a decoder message names, or -1. */
static int line_of(const char *msg)
{
	const char *p = strstr(msg, "(line ");
	int line;
	if (!p || sscanf(p, "(line %d)", &line) != 1)
		return -1;
	return line;
}

/* Decode @feed, leaving out what the decoder refuses; 0 or GT_EINVAL. */
static int decode(struct gt_kube_snapshot *s, const struct gt_snapshot_opts *o, struct gt_kobj **feed,
		  size_t n_feed, struct gt_err *err)
{
	for (int pass = 0;; pass++) {
		struct gt_decoder d;
		gt_decoder_init(&d);
		d.scheduler_name = o->scheduler_name;
		for (size_t i = 0; i < n_feed; i++)
			if (!atomic_load(&feed[i]->bad))
				gt_decoder_add(&d, feed[i]->doc);
		gt_cluster_init(&s->c, &s->names);
		struct gt_err derr = { 0 };
		int rc = gt_decoder_build(&d, &s->c, &derr);
		if (!rc && gt_log_enabled(GT_LOG_DEBUG))
			for (size_t i = 0; i < d.n_warnings; i++)
				gt_log(GT_LOG_DEBUG, "snapshot", "%s", d.warnings[i]);
		gt_decoder_release(&d);
		if (!rc)
			return 0;
		int line = line_of(derr.msg);
		struct gt_kobj *culprit = NULL;
		for (size_t i = 0; line > 0 && i < n_feed && !culprit; i++)
			if (feed[i]->serial == line && !atomic_load(&feed[i]->bad))
				culprit = feed[i];
		if (!culprit || pass == MAX_REBUILDS)
			return gt_errf(err, GT_EINVAL, "cannot decode the cluster: %s", derr.msg);
		/* the decoder's "(line N)" is the object's serial: meaningless to a reader */
		const char *what = strstr(derr.msg, "): ");
		gt_log(GT_LOG_WARN, "snapshot", "skipping %s %s: %s", gt_kres[culprit->res].kind, culprit->key,
		       what ? what + 3 : derr.msg);
		atomic_store(&culprit->bad, true);
	}
}

/* Decide what goes in, in dependency order: nodes and PodGroups before the pods they hold. */
static void choose(struct take *t)
{
	struct gt_kube_snapshot *s = t->s;
	static const enum gt_kres order[] = { GT_KRES_SHARDS, GT_KRES_PRIORITYCLASSES, GT_KRES_TOPOLOGIES,
					      GT_KRES_QUEUES, GT_KRES_NODES, GT_KRES_PODGROUPS,
					      GT_KRES_BINDREQUESTS, GT_KRES_PODS };
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		enum gt_kres r = order[k];
		t->keep[r] = gt_xcalloc(s->n[r] + 1, sizeof(bool));
		for (size_t i = 0; i < s->n[r]; i++)
			t->keep[r][i] = wanted(t, s->objs[r][i]);
	}
}

int gt_snapshot_take(struct gt_cache *cache, const struct gt_snapshot_opts *o,
		     struct gt_kube_snapshot *s, struct gt_err *err)
{
	return gt_snapshot_take_pool(cache, o, NULL, s, err);
}

int gt_snapshot_take_pool(struct gt_cache *cache, const struct gt_snapshot_opts *o,
			  const struct gt_node_pool *pool, struct gt_kube_snapshot *s, struct gt_err *err)
{
	memset(s, 0, sizeof(*s));
	gt_strtab_init(&s->names);
	gt_cluster_init(&s->c, &s->names);
	struct take t = { .s = s, .o = o, .pool_value = pool ? pool->value : NULL,
			  .pool_key = pool && pool->key ? pool->key : DEFAULT_POOL_KEY };
	for (int r = 0; r < GT_N_KRES; r++) {
		s->objs[r] = gt_cache_list(cache, (enum gt_kres)r, &s->n[r]);
		qsort(s->objs[r], s->n[r], sizeof(*s->objs[r]), by_key);
	}
	choose_pool(&t);
	choose(&t);
	read_bindrequests(&t);
	read_inflight(&t, cache);
	struct gt_kobj **feed = NULL;
	size_t n_feed = 0, cap_feed = 0;
	for (int r = 0; r < GT_N_KRES; r++)
		for (size_t i = 0; i < s->n[r]; i++)
			if (t.keep[r][i])
				GT_PUSH(feed, n_feed, cap_feed, s->objs[r][i]);
	if (n_feed)
		qsort(feed, n_feed, sizeof(*feed), by_age);
	int rc = decode(s, o, feed, n_feed, err);
	if (!rc)
		apply_overrides(&t, feed, n_feed);
	for (size_t i = 0; i < n_feed; i++)
		s->n_skipped += atomic_load(&feed[i]->bad);
	free(feed);
	for (int r = 0; r < GT_N_KRES; r++)
		free(t.keep[r]);
	free(t.ovs);
	gt_inflight_free(t.ifl, t.n_ifl);
	if (rc) {
		gt_snapshot_release(s);
		return rc;
	}
	return 0;
}

void gt_snapshot_release(struct gt_kube_snapshot *s)
{
	gt_cluster_release(&s->c);
	for (int r = 0; r < GT_N_KRES; r++) {
		for (size_t i = 0; i < s->n[r]; i++)
			gt_kobj_unref(s->objs[r][i]);
		free(s->objs[r]);
	}
	free(s->stale_brs);
	free(s->node_pool);
	gt_strtab_release(&s->names);
	memset(s, 0, sizeof(*s));
}
