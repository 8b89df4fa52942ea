/*
 * batch.c - grouping every pod of a set of documents at once
 *
 * What the simulator needs: `kubectl get pytorchjob,pods -o yaml` from a real
 * cluster simulates as is, because the pods that arrive without a PodGroup
 * are grouped the way the podgrouper would have grouped them, their owners
 * being found among the same documents.
 */
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"
#include "util/arena.h"
#include "util/mem.h"

#define MAX_OWNER_DEPTH 16	/* owner chains are short; this catches cycles */

struct new_pg {
	struct gt_doc *doc;		/* the PodGroup as the pods so far made it */
	/*
	 * The fingerprint of what the last of them computed (in prints), kept
	 * from the second pod on; until then NULL, and @first (the pod that made
	 * it) can compute it again. Most PodGroups have one pod (every bare pod
	 * has its own): their fingerprints were 18 MB at 50,000 pods, made and
	 * kept for nothing.
	 */
	const char *last;
	size_t last_len;
	struct gt_doc *first;
};

struct batch {
	const struct gt_pg_config *cfg;
	struct gt_doc **objs;		/* every object, v1 Lists unpacked */
	size_t n_objs, cap_objs;
	struct gt_pg_index index;	/* of objs */
	struct new_pg *pgs;		/* new PodGroups, as the pods so far made them */
	size_t n_pgs, cap_pgs;
	struct gt_strtab pg_keys;	/* "namespace\nname" of pgs[i] has id i */
	/*
	 * pgs' fingerprints: kept whole, 50,000 pods' PodGroups were 70 MB of
	 * heap, which a large simulation faulted in page by page
	 */
	struct gt_arena prints;
	struct gt_pg_fingerprint print;	/* the pod at hand's */
	struct gt_pg_batch *out;
	struct gt_doc_input *memory;	/* out->memory's: the new PodGroups are made there */
	struct gt_pg_doc_memo parts;	/* what they share (gt_pg_doc_memo) */
};

static void add_object(struct batch *b, struct gt_doc *d)
{
	if (!d || d->kind != GT_DOC_MAP)
		return;
	if (!strcmp(gt_pg_kind(d), "List")) {
		const struct gt_doc *items = gt_doc_get(d, "items");
		for (size_t i = 0; items && items->kind == GT_DOC_SEQ && i < items->n; i++)
			add_object(b, items->items[i]);
		return;
	}
	GT_PUSH(b->objs, b->n_objs, b->cap_objs, d);
}

static const struct gt_doc *find_object(const struct batch *b, const char *kind, const char *ns,
					const char *name)
{
	int32_t cursor;
	return gt_pg_index_find(&b->index, kind, ns, name, &cursor);
}

const struct gt_doc *gt_pg_owner_ref(const struct gt_doc *d)
{
	const struct gt_doc *refs = gt_doc_path(d, "metadata.ownerReferences");
	if (!refs || refs->kind != GT_DOC_SEQ || !refs->n)
		return NULL;
	for (size_t i = 0; i < refs->n; i++) {
		const char *controller = gt_doc_str(refs->items[i], "controller");
		if (controller && !strcmp(controller, "true"))
			return refs->items[i];
	}
	return refs->items[0];
}

/* Does object @o match owner reference @ref (kind, name, API group and uid when known)? */
static bool matches_ref(const struct gt_doc *o, const struct gt_doc *ref)
{
	const char *kind = gt_doc_str(ref, "kind"), *name = gt_doc_str(ref, "name");
	const char *uid = gt_doc_str(ref, "uid"), *api = gt_doc_str(ref, "apiVersion");
	if (!kind || !name || strcmp(gt_pg_kind(o), kind) || strcmp(gt_pg_name(o), name))
		return false;
	/* an owner deleted and recreated under the same name is not the owner */
	if (uid && gt_pg_uid(o) && strcmp(uid, gt_pg_uid(o)))
		return false;
	const char *slash = api ? strchr(api, '/') : NULL;
	char group[128] = "";
	if (slash && (size_t)(slash - api) < sizeof(group)) {
		memcpy(group, api, (size_t)(slash - api));
		group[slash - api] = '\0';
	}
	return !api || gt_pg_in_group(o, group);
}

/* The owners of @pod, nearest first; false when one is not among the objects (*@missing: its reference). */
static bool owner_chain(const struct batch *b, const struct gt_doc *pod,
			const struct gt_doc **chain, size_t *n, const struct gt_doc **missing)
{
	const char *ns = gt_pg_ns(pod);
	const struct gt_doc *cur = pod, *ref;
	*n = 0;
	*missing = NULL;
	while ((ref = gt_pg_owner_ref(cur))) {
		*missing = ref;
		const char *kind = gt_doc_str(ref, "kind"), *name = gt_doc_str(ref, "name");
		int32_t cursor;
		const struct gt_doc *owner = kind && name ? gt_pg_index_find(&b->index, kind, ns,
									     name, &cursor) : NULL;
		while (owner && !matches_ref(owner, ref))
			owner = gt_pg_index_next(&b->index, &cursor);
		if (!owner || *n == MAX_OWNER_DEPTH || owner == pod)
			return false;
		for (size_t i = 0; i < *n; i++)
			if (chain[i] == owner)
				return false;	/* a cycle */
		chain[(*n)++] = owner;
		cur = owner;
	}
	return true;
}

static bool ours(const struct batch *b, const struct gt_doc *d)
{
	const char *sched = gt_doc_str(gt_doc_get(d, "spec"), "schedulerName");
	return !strcmp(gt_pg_kind(d), "Pod") && sched && !strcmp(sched, b->cfg->scheduler_name) &&
	       !gt_obj_annotation(d, GT_PG_POD_ANNOTATION);
}

static void warn(struct batch *b, const struct gt_doc *pod, const char *msg)
{
	char *w = NULL;
	gt_pg_setf(&w, "%s: %s", gt_pg_id(pod).s, msg);
	GT_PUSH(b->out->warnings, b->out->n_warnings, b->out->cap_warnings, w);
}

/* Keep b->print as @n's last fingerprint. */
static void keep_print(struct batch *b, struct new_pg *n)
{
	char *copy = gt_arena_alloc(&b->prints, b->print.len ? b->print.len : 1);
	memcpy(copy, b->print.bytes, b->print.len);
	n->last = copy;
	n->last_len = b->print.len;
}

/*
 * The PodGroup @pod makes (0), or why it makes none (1): said when @say,
 * as the pod's warning.
 */
static int group_pod(struct batch *b, struct gt_doc *pod, struct gt_podgroup *pg, bool say)
{
	const struct gt_doc *chain[MAX_OWNER_DEPTH];
	size_t n;
	const struct gt_doc *missing;
	if (!owner_chain(b, pod, chain, &n, &missing)) {
		if (!say)
			return 1;
		/* an owner is not in the input: the pod stays as it is, as in a cluster, but not in silence */
		char msg[600];
		const char *uid = gt_doc_str(missing, "uid");
		snprintf(msg, sizeof(msg), "its owner %.60s '%.253s'%s%.60s%s is not among the objects (missing, or "
			 "with another uid): the podgrouper makes it no PodGroup, so it is not scheduled",
			 gt_doc_str(missing, "kind") ? gt_doc_str(missing, "kind") : "object",
			 gt_doc_str(missing, "name") ? gt_doc_str(missing, "name") : "", uid ? " (uid " : "",
			 uid ? uid : "", uid ? ")" : "");
		warn(b, pod, msg);
		return 1;
	}
	struct gt_pg_request req = {
		.pod = pod, .owners = chain, .n_owners = n,
		.related = (const struct gt_doc *const *)b->objs, .n_related = b->n_objs,
		.index = &b->index,
	};
	if (gt_pg_skip_reason(&req, NULL) != GT_PG_GROUP)
		return 1;	/* kai.scheduler/skip-podgrouper on the pod or an owner */
	struct gt_err err = { 0 };
	if (gt_pg_group_pod(b->cfg, &req, pg, &err)) {
		if (say)
			warn(b, pod, err.msg);
		return 1;
	}
	return 0;
}

/*
 * Make @pg (released here), computed for @pod, the PodGroup to create, unless
 * it exists already. A PodGroup an earlier pod of this batch made is updated
 * as KAI's reconciler updates it for the next pod (gt_pg_podgroup_update:
 * the queue it was made with stays, labels and annotations add up).
 */
static void keep_podgroup(struct batch *b, struct gt_podgroup *pg, struct gt_doc *pod)
{
	if (find_object(b, "PodGroup", pg->namespace, pg->name)) {
		gt_podgroup_release(pg);
		return;
	}
	char *key = NULL;
	gt_pg_setj(&key, pg->namespace, "\n", pg->name, (char *)NULL);
	uint32_t id = gt_strtab_intern(&b->pg_keys, key);
	free(key);
	if (id == b->n_pgs) {
		struct new_pg n = { gt_podgroup_to_doc_in(pg, b->memory, &b->parts), NULL, 0, pod };
		GT_PUSH(b->pgs, b->n_pgs, b->cap_pgs, n);
		gt_podgroup_release(pg);
		return;
	}
	struct new_pg *n = &b->pgs[id];
	if (!n->last) {
		/* the second pod: what the first computed, computed again (the objects have not changed) */
		struct gt_podgroup was;
		if (!group_pod(b, n->first, &was, false)) {
			gt_pg_podgroup_fingerprint(&was, &b->print);
			keep_print(b, n);
			gt_podgroup_release(&was);
		}
	}
	gt_pg_podgroup_fingerprint(pg, &b->print);
	/* the update is idempotent: a pod that computes what the last one did changes nothing */
	if (n->last_len != b->print.len || memcmp(n->last, b->print.bytes, b->print.len)) {
		struct gt_doc *updated = gt_pg_podgroup_update(b->cfg, n->doc, pg);
		gt_doc_free(n->doc);
		n->doc = updated;
		keep_print(b, n);
	}
	gt_podgroup_release(pg);
}

static void group_one(struct batch *b, struct gt_doc *pod)
{
	struct gt_podgroup pg;
	if (group_pod(b, pod, &pg, true))
		return;
	if (pg.warning)
		warn(b, pod, pg.warning);
	struct gt_pg_assignment a = { pod, NULL, NULL };
	gt_pg_set(&a.podgroup, pg.name);
	gt_pg_set(&a.subgroup, pg.pod_subgroup);
	GT_PUSH(b->out->pods, b->out->n_pods, b->out->cap_pods, a);
	keep_podgroup(b, &pg, pod);	/* takes @pg over */
}

/*
 * @local: @cfg plus the PriorityClasses among the objects and the defaults
 * ConfigMap @cfg names, when it is there. @extra owns what was added.
 */
static int local_config(const struct batch *b, struct gt_pg_config *local,
			struct gt_pg_config *extra, struct gt_err *err)
{
	const struct gt_pg_config *cfg = b->cfg;
	*local = *cfg;
	memset(extra, 0, sizeof(*extra));
	for (size_t i = 0; i < cfg->n_priority_classes; i++)
		gt_pg_config_add_priority_class(extra, cfg->priority_classes[i]);
	for (size_t i = 0; i < b->n_objs; i++)
		if (!strcmp(gt_pg_kind(b->objs[i]), "PriorityClass") && *gt_pg_name(b->objs[i]))
			gt_pg_config_add_priority_class(extra, gt_pg_name(b->objs[i]));
	local->priority_classes = extra->priority_classes;
	local->n_priority_classes = extra->n_priority_classes;
	const struct gt_doc *cm = NULL;
	if (cfg->defaults_cm_name && cfg->defaults_cm_namespace)
		cm = find_object(b, "ConfigMap", cfg->defaults_cm_namespace, cfg->defaults_cm_name);
	if (!cm)
		return 0;
	int rc = gt_pg_config_set_defaults(extra, cm, err);
	local->defaults = extra->defaults;
	local->n_defaults = extra->n_defaults;
	return rc;
}

int gt_pg_group_all(const struct gt_pg_config *cfg, struct gt_doc *const *docs, size_t n,
		    struct gt_pg_batch *out, struct gt_err *err)
{
	struct batch b = { .out = out, .memory = gt_doc_list_input(&out->memory) };
	for (size_t i = 0; i < n; i++)
		add_object(&b, docs[i]);
	gt_pg_index_build(&b.index, (const struct gt_doc *const *)b.objs, b.n_objs);
	gt_strtab_init(&b.pg_keys);
	gt_arena_init(&b.prints);
	gt_pg_doc_memo_init(&b.parts);
	struct gt_pg_config local, extra;
	b.cfg = cfg;
	int rc = local_config(&b, &local, &extra, err);
	b.cfg = &local;
	for (size_t i = 0; !rc && i < b.n_objs; i++)
		if (ours(&b, b.objs[i]))
			group_one(&b, b.objs[i]);
	for (size_t i = 0; i < b.n_pgs; i++) {
		if (!rc)
			GT_PUSH(out->podgroups, out->n_podgroups, out->cap_podgroups, b.pgs[i].doc);
		else
			gt_doc_free(b.pgs[i].doc);
	}
	free(b.pgs);
	gt_arena_release(&b.prints);
	gt_pg_doc_memo_release(&b.parts);
	free(b.print.bytes);
	gt_strtab_release(&b.pg_keys);
	gt_pg_index_release(&b.index);
	free(b.objs);
	gt_pg_config_release(&extra);
	return rc;
}

void gt_pg_batch_apply(const struct gt_pg_batch *b)
{
	for (size_t i = 0; i < b->n_pods; i++) {
		const struct gt_pg_assignment *a = &b->pods[i];
		struct gt_doc *meta = gt_pg_doc_child_map(a->pod, "metadata");
		struct gt_doc *annotations = gt_pg_doc_child_map(meta, "annotations");
		/* quoted, as gt_pg_doc_new_str makes them; made in the pod's input, not copied there */
		gt_pg_doc_put(annotations, GT_PG_POD_ANNOTATION,
			      gt_doc_new_scalar_in(annotations->input, a->podgroup, true));
		if (a->subgroup) {
			struct gt_doc *labels = gt_pg_doc_child_map(meta, "labels");
			gt_pg_doc_put(labels, GT_PG_SUBGROUP_LABEL, gt_doc_new_scalar_in(labels->input, a->subgroup, true));
		}
	}
}

void gt_pg_batch_release(struct gt_pg_batch *b)
{
	for (size_t i = 0; i < b->n_podgroups; i++)
		gt_doc_free(b->podgroups[i]);
	free(b->podgroups);
	for (size_t i = 0; i < b->n_pods; i++) {
		free(b->pods[i].podgroup);
		free(b->pods[i].subgroup);
	}
	free(b->pods);
	for (size_t i = 0; i < b->n_warnings; i++)
		free(b->warnings[i]);
	free(b->warnings);
	gt_doc_list_release(&b->memory);	/* the PodGroups made in it */
	memset(b, 0, sizeof(*b));
}
