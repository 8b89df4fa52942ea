/*
 * resolve.c - KAI's default grouper: what every rule starts from
 *
 * Queue, priority class and preemptibility are resolved in KAI's order
 * (pkg/podgrouper/podgrouper/plugins/defaultgrouper):
 *
 *  - queue: the queue label on the top owner, else on the pod; else the
 *    legacy `project` label (top owner, then pod), as <project> or, when the
 *    pod carries the node-pool label, <project>-<node pool>; else
 *    default-queue;
 *  - priority class: for each owner in turn, its priorityClassName label,
 *    else the pod's label, else the pod's spec.priorityClassName, taken only
 *    if that PriorityClass exists; else the per-kind default of the first
 *    owner whose kind has one that exists; else the rule's fallback (train,
 *    build for notebooks, inference for serving), which is not checked;
 *  - preemptibility: the kai.scheduler/preemptibility label of the first
 *    owner that has a valid one, else the pod's, else the per-kind default,
 *    else unset (the scheduler derives it from the priority);
 *  - preemptionDelay and stalenessGracePeriod: the kai.scheduler/
 *    preemption-delay (staleness-grace-period) annotation of the first owner
 *    whose value Go's time.ParseDuration reads (a delay must not be
 *    negative), else the pod's, else unset.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"
#include "util/concat.h"
#include "util/mem.h"

static const char *const shipped_classes[] = { "train", "build-preemptible", "build", "inference" };

bool gt_pg_priority_exists(const struct gt_pg_config *cfg, const char *name)
{
	if (!name || !*name)
		return false;
	for (size_t i = 0; cfg->shipped_priority_classes && i < 4; i++)
		if (!strcmp(shipped_classes[i], name))
			return true;
	for (size_t i = 0; i < cfg->n_priority_classes; i++)
		if (!strcmp(cfg->priority_classes[i], name))
			return true;
	return false;
}

const char *gt_pg_preemptibility_value(const char *s)
{
	if (!s)
		return NULL;
	if (!strcmp(s, "preemptible"))
		return "preemptible";
	if (!strcmp(s, "non-preemptible"))
		return "non-preemptible";
	return NULL;
}

/*
 * The per-kind default for @d, matched as KAI's map keys it: "Kind.group"
 * first, then a bare "Kind" (an entry written without a group). The last
 * entry wins within each pass, as a later map key overwrites an earlier one.
 */
static const struct gt_pg_kind_default *group_kind_default(const struct gt_pg_config *cfg,
							   const char *group, const char *kind)
{
	const struct gt_pg_kind_default *exact = NULL, *bare = NULL;
	for (size_t i = 0; i < cfg->n_defaults; i++) {
		const struct gt_pg_kind_default *k = &cfg->defaults[i];
		if (strcmp(k->kind, kind))
			continue;
		if (!strcmp(k->group, group))
			exact = k;
		if (!*k->group)
			bare = k;
	}
	return exact ? exact : bare;
}

static const struct gt_pg_kind_default *kind_default(const struct gt_pg_config *cfg,
						     const struct gt_doc *d)
{
	char group[128];
	const char *version;
	gt_pg_group_version(d, group, sizeof(group), &version);
	return group_kind_default(cfg, group, gt_pg_kind(d));
}

void gt_pg_kind_defaults(const struct gt_pg_config *cfg, const char *group, const char *kind,
			 const char **priority, const char **preemptibility)
{
	const struct gt_pg_kind_default *k = group_kind_default(cfg, group, kind);
	*priority = k && gt_pg_priority_exists(cfg, k->priority) ? k->priority : NULL;
	*preemptibility = k && k->preemptibility && *k->preemptibility ? k->preemptibility : NULL;
}

bool gt_pg_duration_of(const char *v, bool non_negative, struct gt_pg_duration *out)
{
	int64_t ns;
	if (!v || gt_pg_parse_duration(v, &ns) || (non_negative && ns < 0))
		return false;
	out->set = true;
	out->ns = ns;
	return true;
}

/* KAI reads these from each owner's annotations, then the pod's; a bad value is passed over. */
static void resolve_duration(const struct gt_pg_ctx *x, const struct gt_pg_obj *owners,
			     size_t n_owners, const char *key, bool non_negative,
			     struct gt_pg_duration *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n_owners; i++)
		if (gt_pg_duration_of(gt_pg_annotation(&owners[i], key), non_negative, out))
			return;
	gt_pg_duration_of(gt_obj_annotation(x->pod, key), non_negative, out);
}

void gt_pg_resolve_durations(const struct gt_pg_ctx *x, const struct gt_pg_obj *owners,
			     size_t n_owners, struct gt_podgroup *pg)
{
	resolve_duration(x, owners, n_owners, GT_PG_PREEMPTION_DELAY, true, &pg->preemption_delay);
	resolve_duration(x, owners, n_owners, GT_PG_STALENESS_GRACE, false, &pg->staleness_grace);
}

static const char *explicit_priority(const struct gt_pg_ctx *x, const struct gt_pg_obj *owner)
{
	const char *p = gt_pg_label(owner, GT_PG_PRIORITY_LABEL);
	if (!p)
		p = gt_obj_label(x->pod, GT_PG_PRIORITY_LABEL);
	if (!p)
		p = gt_doc_str(gt_doc_get(x->pod, "spec"), "priorityClassName");
	return p;
}

const char *gt_pg_priority(const struct gt_pg_ctx *x, const struct gt_pg_obj *owners,
			   size_t n_owners, const char *fallback)
{
	for (size_t i = 0; i < n_owners; i++) {
		const char *p = explicit_priority(x, &owners[i]);
		if (gt_pg_priority_exists(x->cfg, p))
			return p;
	}
	for (size_t i = 0; i < n_owners; i++) {
		const struct gt_pg_kind_default *k = kind_default(x->cfg, owners[i].doc);
		if (k && gt_pg_priority_exists(x->cfg, k->priority))
			return k->priority;
	}
	return fallback;
}

static const char *lower_preemptibility(const char *s)
{
	char buf[32];
	size_t i = 0;
	for (; s && s[i] && i + 1 < sizeof(buf); i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[i] = '\0';
	return gt_pg_preemptibility_value(buf);
}

/*
 * A label that decides: a valid value, or an empty one (KAI's
 * ParsePreemptibility reads "" as "derive it from the priority" and stops).
 */
static bool decides(const char *label, const char **v)
{
	*v = gt_pg_preemptibility_value(label);
	return label && (*v || !*label);
}

static const char *preemptibility(const struct gt_pg_ctx *x, const struct gt_pg_obj *owners,
				  size_t n_owners)
{
	const char *v;
	for (size_t i = 0; i < n_owners; i++)
		if (decides(gt_pg_label(&owners[i], GT_PG_PREEMPTIBILITY_LABEL), &v))
			return v;
	if (decides(gt_obj_label(x->pod, GT_PG_PREEMPTIBILITY_LABEL), &v))
		return v;
	for (size_t i = 0; !v && i < n_owners; i++) {
		const struct gt_pg_kind_default *k = kind_default(x->cfg, owners[i].doc);
		if (k && k->preemptibility)
			v = lower_preemptibility(k->preemptibility);
	}
	return v;
}

void gt_pg_resolve_queue(const struct gt_pg_ctx *x, const struct gt_pg_obj *top, char **queue)
{
	const char *q = gt_pg_label(top, x->cfg->queue_label);
	if (!q)
		q = gt_obj_label(x->pod, x->cfg->queue_label);
	if (q) {
		gt_pg_set(queue, q);
		return;
	}
	const char *project = gt_pg_label(top, GT_PG_PROJECT_LABEL);
	if (!project)
		project = gt_obj_label(x->pod, GT_PG_PROJECT_LABEL);
	if (!project || !*project) {
		gt_pg_set(queue, GT_PG_FALLBACK_QUEUE);
		return;
	}
	const char *pool = *x->cfg->node_pool_label ?
				   gt_obj_label(x->pod, x->cfg->node_pool_label) : NULL;
	if (pool)
		gt_pg_setf(queue, "%s-%s", project, pool);
	else
		gt_pg_set(queue, project);
}

void gt_pg_merge_meta(struct gt_pg_kvs *dst, const struct gt_pg_obj *o, const char *field,
		      bool override)
{
	char path[64];
	gt_concat(path, sizeof(path), "metadata.", field, (char *)NULL);
	for (int e = -1; e < o->n_extra; e++) {
		const struct gt_doc *m = gt_doc_path(e < 0 ? o->doc : o->extra[e], path);
		for (size_t i = 0; m && m->kind == GT_DOC_MAP && i < m->n; i++) {
			const char *key = m->keys[i];
			/* the nearest object with the key has the say */
			const char *v = gt_pg_meta(o, field, key);
			if (v && (override || !gt_pg_kvs_get(dst, key)))
				gt_pg_kvs_set(dst, key, v);
		}
	}
}

/* What KAI's yaml.v3 prints for the top owner's identity. */
static void top_owner_metadata(struct gt_podgroup *pg, const struct gt_doc *top)
{
	char group[128];
	const char *version, *uid = gt_pg_uid(top);
	gt_pg_group_version(top, group, sizeof(group), &version);
	char *s = NULL;
	gt_pg_setj(&s, "name: ", gt_pg_name(top), "\nuid: ", uid ? uid : "\"\"", "\ngroup: ",
		   *group ? group : "\"\"", "\nversion: ", version, "\nkind: ", gt_pg_kind(top), "\n", (char *)NULL);
	gt_pg_kvs_set(&pg->annotations, GT_PG_TOP_OWNER_METADATA, s);
	free(s);
}

static void labels_and_annotations(const struct gt_pg_ctx *x, const struct gt_pg_obj *top,
				   struct gt_podgroup *pg)
{
	gt_pg_merge_meta(&pg->labels, top, "labels", true);
	const char *user = gt_obj_label(x->pod, GT_PG_USER_KEY);
	if (user && !gt_pg_kvs_get(&pg->labels, GT_PG_USER_KEY))
		gt_pg_kvs_set(&pg->labels, GT_PG_USER_KEY, user);
	user = gt_obj_annotation(x->pod, GT_PG_USER_KEY);
	if (user)
		gt_pg_kvs_set(&pg->annotations, GT_PG_USER_KEY, user);
	top_owner_metadata(pg, top->doc);
	gt_pg_merge_meta(&pg->annotations, top, "annotations", true);	/* the top owner's win */
}

void gt_pg_default(struct gt_pg_ctx *x, const struct gt_pg_obj *top, const struct gt_pg_obj *owners,
		   size_t n_owners, const char *fallback, struct gt_podgroup *pg)
{
	gt_pg_default_name(&pg->name, top->doc);
	gt_pg_kvs_release(&pg->labels);
	gt_pg_kvs_release(&pg->annotations);
	gt_pg_set(&pg->namespace, gt_pg_ns(x->pod));
	gt_pg_resolve_queue(x, top, &pg->queue);
	gt_pg_set(&pg->priority_class, gt_pg_priority(x, owners, n_owners, fallback));
	gt_pg_set(&pg->preemptibility, preemptibility(x, owners, n_owners));
	gt_pg_resolve_durations(x, owners, n_owners, pg);
	pg->min_member = 1;
	pg->has_min_subgroup = false;
	pg->min_subgroup = 0;
	gt_pg_clear_subgroups(pg);
	labels_and_annotations(x, top, pg);
	gt_pg_set_owner(&pg->owner, top->doc);
	gt_pg_set_topology(&pg->topology, gt_pg_annotation(top, GT_PG_TOPOLOGY),
			   gt_pg_annotation(top, GT_PG_TOPOLOGY_REQUIRED),
			   gt_pg_annotation(top, GT_PG_TOPOLOGY_PREFERRED));
}

void gt_pg_default_top(struct gt_pg_ctx *x, const struct gt_pg_obj *top, const char *fallback,
		       struct gt_podgroup *pg)
{
	gt_pg_default(x, top, top, 1, fallback, pg);
}
