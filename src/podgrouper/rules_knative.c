/*
 * rules_knative.c - Knative Services: one gang per Revision
 *
 * With gang scheduling (--knative-gang-schedule, the default) a Revision's
 * pods form one PodGroup whose minMember is the revision's
 * autoscaling.knative.dev/min-scale, so a service comes up at its minimum
 * scale or not at all. A revision whose pods already have a PodGroup each
 * (grouped before gang scheduling was turned on) keeps that, so running
 * pods are not regrouped.
 */
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"
#include "util/mem.h"

#define REVISION_LABEL "serving.knative.dev/revision"
#define MIN_SCALE "autoscaling.knative.dev/min-scale"

static const struct gt_doc *podgroup_owner_kind_doc(const struct gt_doc *pg)
{
	const struct gt_doc *refs = gt_doc_path(pg, "metadata.ownerReferences");
	return refs && refs->kind == GT_DOC_SEQ && refs->n ? refs->items[0] : NULL;
}

/* Does the PodGroup @name decide for per-pod grouping? 1 yes, 0 no, or an error. */
static int per_pod_podgroup(struct gt_pg_ctx *x, const struct gt_doc *rev, const char *name)
{
	const struct gt_doc *pg = gt_pg_find(x, "PodGroup", gt_pg_ns(rev), name);
	if (!pg)
		return 0;
	const char *kind = gt_doc_str(podgroup_owner_kind_doc(pg), "kind");
	if (!kind)
		return gt_pg_fail(x, "%s, the only PodGroup of %s's pods, has no owner reference",
				  gt_pg_id(pg).s, gt_pg_id(rev).s);
	if (!strcmp(kind, "Revision"))
		return 0;
	if (!strcmp(kind, "Pod"))
		return 1;
	return gt_pg_fail(x, "%s, the only PodGroup of %s's pods, is owned by a %s",
			  gt_pg_id(pg).s, gt_pg_id(rev).s, kind);
}

/* The PodGroup a pod of revision @rev already joined, or NULL. */
static const char *revision_pod_group(const struct gt_doc *p, const struct gt_doc *rev)
{
	const char *r = gt_obj_label(p, REVISION_LABEL);
	if (strcmp(gt_pg_kind(p), "Pod") || !r || strcmp(r, gt_pg_name(rev)) ||
	    strcmp(gt_pg_ns(p), gt_pg_ns(rev)))
		return NULL;
	return gt_obj_annotation(p, GT_PG_POD_ANNOTATION);
}

/*
 * KAI's backward-compatibility check, from the PodGroups the revision's
 * other pods already joined: two pods in one PodGroup mean a gang; pods in
 * several PodGroups mean per-pod; a single PodGroup says by its owner.
 */
static int grouped_per_pod(struct gt_pg_ctx *x, const struct gt_doc *rev)
{
	const char **seen = NULL;	/* PodGroups of the revision's pods, a few */
	size_t n = 0, cap = 0;
	int verdict = -1;
	for (size_t i = 0; i < x->req->n_related && verdict < 0; i++) {
		const char *name = revision_pod_group(x->req->related[i], rev);
		for (size_t k = 0; name && k < n && verdict < 0; k++)
			if (!strcmp(seen[k], name))
				verdict = 0;
		if (name)
			GT_PUSH(seen, n, cap, name);
	}
	for (size_t k = 1; verdict < 0 && k < n; k++)
		if (strcmp(seen[k], seen[0]))
			verdict = 1;
	if (verdict < 0)
		verdict = n ? per_pod_podgroup(x, rev, seen[0]) : 0;
	free(seen);
	return verdict;
}

static int32_t min_scale(const struct gt_doc *rev)
{
	int64_t v;
	const char *s = gt_obj_annotation(rev, MIN_SCALE);
	/* KAI uses 1 for a missing or unreadable value; 0 makes no gang either */
	if (!s || gt_parse_int(s, &v) || v < 1 || v > INT32_MAX)
		return 1;
	return (int32_t)v;
}

int gt_pg_rule_knative(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	const char *name = gt_obj_label(x->pod, REVISION_LABEL);
	if (!name)
		return gt_pg_fail(x, "%s of %s has no label %s", gt_pg_id(x->pod).s,
				  gt_pg_id(x->top.doc).s, REVISION_LABEL);
	const struct gt_doc *rev = gt_pg_find(x, "Revision", gt_pg_ns(x->pod), name);
	if (!rev)
		return gt_pg_fail(x, "Revision %s/%s (label %s of %s) is not known", gt_pg_ns(x->pod),
				  name, REVISION_LABEL, gt_pg_id(x->pod).s);
	int per_pod = x->cfg->knative_gang ? grouped_per_pod(x, rev) : 1;
	if (per_pod < 0)
		return per_pod;
	struct gt_pg_obj r = gt_pg_obj_of(rev);
	gt_pg_default_top(x, &r, "inference", pg);
	/* KAI builds this PodGroup by hand: no preemptibility, delays or topology */
	gt_pg_set(&pg->preemptibility, NULL);
	memset(&pg->preemption_delay, 0, sizeof(pg->preemption_delay));
	memset(&pg->staleness_grace, 0, sizeof(pg->staleness_grace));
	gt_pg_set_topology(&pg->topology, NULL, NULL, NULL);
	if (per_pod) {
		gt_pg_default_name(&pg->name, x->pod);
		gt_pg_set_owner(&pg->owner, x->pod);
		gt_pg_set(&pg->priority_class, "inference");
		pg->rule = "knative-per-pod";
		return 0;
	}
	pg->min_member = min_scale(rev);
	return 0;
}
