/*
 * merge.c - updating a PodGroup that exists, as KAI's handler does
 *
 * KAI's podgrouper (pkg/podgrouper/podgroup/handler.go, ApplyToCluster)
 * builds the PodGroup it wants, copies into it what others own
 * (ignoreFields), and when the two differ replaces the old spec and owner
 * references with the new ones and adds the new labels and annotations to
 * the old ones (updater.go, updatePodGroup). What others own:
 *
 *  - spec.queue, spec.markUnschedulable, spec.schedulingBackoff: always the
 *    existing PodGroup's (a queue moved by hand stays moved);
 *  - spec.topologyConstraint: the existing one, whenever the podgrouper
 *    computes none (no kai.scheduler/topology on the workload), so a
 *    constraint set by hand or by another controller survives;
 *  - the node-pool label: the existing PodGroup's value, and never added to
 *    a PodGroup that was made without one; the queue label: the existing
 *    value when there is one;
 *  - any other label or annotation: kept, as labels and annotations are
 *    only added or overwritten, never removed.
 *
 * Everything else in the spec is the podgrouper's: minMember or
 * minSubGroup, sub-groups, priorityClassName, preemptibility, and
 * preemptionDelay and stalenessGracePeriod, which KAI v0.17 derives from the
 * workload's kai.scheduler/preemption-delay and staleness-grace-period
 * annotations on every update (a value set on the PodGroup alone is
 * replaced by the annotation's, or removed when the workload has none).
 */
#include <string.h>

#include "podgrouper/internal.h"

/* @key of map @dst becomes @old's value, or goes when @old has none. */
static void keep(struct gt_doc *dst, const struct gt_doc *old, const char *key)
{
	const struct gt_doc *v = gt_doc_get(old, key);
	if (gt_doc_is_null(v))
		gt_pg_doc_del(dst, key);
	else
		gt_pg_doc_put(dst, key, gt_pg_doc_copy(v));
}

/* Every entry of map @src into map @dst, overwriting. */
static void add_all(struct gt_doc *dst, const struct gt_doc *src)
{
	for (size_t i = 0; src && src->kind == GT_DOC_MAP && i < src->n; i++)
		gt_pg_doc_put(dst, src->keys[i], gt_pg_doc_copy(src->items[i]));
}

static struct gt_doc *updated_spec(const struct gt_doc *want, const struct gt_doc *existing)
{
	const struct gt_doc *old = gt_doc_get(existing, "spec");
	struct gt_doc *spec = gt_pg_doc_copy(gt_doc_get(want, "spec"));
	keep(spec, old, "markUnschedulable");
	keep(spec, old, "schedulingBackoff");
	keep(spec, old, "queue");
	const char *topology = gt_doc_str(gt_doc_get(spec, "topologyConstraint"), "topology");
	if (!topology || !*topology)
		keep(spec, old, "topologyConstraint");
	return spec;
}

/* The labels the podgrouper wants, with the two it leaves to others as they are. */
static struct gt_doc *wanted_labels(const struct gt_pg_config *cfg, const struct gt_doc *want,
				    const struct gt_doc *old_labels)
{
	struct gt_doc *labels = gt_pg_doc_copy(gt_doc_path(want, "metadata.labels"));
	if (!labels)
		labels = gt_pg_doc_new_map();
	if (*cfg->node_pool_label)
		keep(labels, old_labels, cfg->node_pool_label);
	const struct gt_doc *queue = gt_doc_get(old_labels, cfg->queue_label);
	if (queue)
		gt_pg_doc_put(labels, cfg->queue_label, gt_pg_doc_copy(queue));
	return labels;
}

struct gt_doc *gt_pg_podgroup_update(const struct gt_pg_config *cfg, const struct gt_doc *existing,
				     const struct gt_podgroup *computed)
{
	struct gt_doc *want = gt_podgroup_to_doc(computed);
	if (!existing || existing->kind != GT_DOC_MAP)
		return want;
	struct gt_doc *out = gt_pg_doc_copy(existing);
	for (const char *const *k = (const char *const[]){ "apiVersion", "kind", NULL }; *k; k++)
		if (!gt_doc_get(out, *k))
			gt_pg_doc_put(out, *k, gt_pg_doc_copy(gt_doc_get(want, *k)));
	gt_pg_doc_put(out, "spec", updated_spec(want, existing));

	const struct gt_doc *old_md = gt_doc_get(existing, "metadata");
	struct gt_doc *md = gt_pg_doc_child_map(out, "metadata");
	struct gt_doc *labels = wanted_labels(cfg, want, gt_doc_get(old_md, "labels"));
	if (labels->n)
		add_all(gt_pg_doc_child_map(md, "labels"), labels);
	gt_doc_free(labels);
	const struct gt_doc *annotations = gt_doc_path(want, "metadata.annotations");
	if (annotations && annotations->n)
		add_all(gt_pg_doc_child_map(md, "annotations"), annotations);
	const struct gt_doc *refs = gt_doc_path(want, "metadata.ownerReferences");
	if (refs)
		gt_pg_doc_put(md, "ownerReferences", gt_pg_doc_copy(refs));
	else
		gt_pg_doc_del(md, "ownerReferences");
	gt_doc_free(want);
	return out;
}
