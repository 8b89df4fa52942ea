/*
 * decode_namespace.c - Namespace objects: their labels, for pod affinity's
 * namespaceSelector (core/namespaces.h)
 *
 * Namespaces are decoded after the pods; gt_dec_namespaces_link() then
 * sorts them, or, when the input holds none and the front end does not
 * list them all, says which terms cannot be judged and lets the listed
 * namespaces (or the pod's own) stand in, as before Gantry read them.
 */
#include <stdlib.h>
#include <string.h>

#include "api/decode_int.h"
#include "core/namespaces.h"
#include "util/mem.h"

#define NAME_LABEL "kubernetes.io/metadata.name"

int gt_dec_namespace(struct gt_dec *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	struct gt_namespace n = { .name = gt_dec_intern(x, gt_obj_name(o)) };
	gt_dec_labels(x, gt_doc_path(o, "metadata.labels"), &n.labels);
	/* the API server sets it on every namespace; an input written by hand may leave it out */
	if (gt_labels_get(&n.labels, gt_dec_intern(x, NAME_LABEL)) < 0) {
		n.labels.v = gt_xrealloc(n.labels.v, (n.labels.n + 1) * sizeof(*n.labels.v));
		n.labels.v[n.labels.n++] = (struct gt_label){ .key = gt_dec_intern(x, NAME_LABEL), .val = n.name };
		gt_labels_sort(&n.labels);
	}
	GT_PUSH(c->namespaces, c->n_namespaces, c->cap_namespaces, n);
	return 0;
}

/* Without Namespaces: the term keeps its listed namespaces, or the pod's own, and it is said. */
static void unjudged(struct gt_dec *x, struct gt_pod *p, struct gt_pod_affinity_term *t, bool *said)
{
	if (!t->has_ns_selector)
		return;
	if (!*said)
		gt_dec_warn(x, "pod %s: a pod affinity namespaceSelector with labels needs the Namespace objects "
			    "and the input has none: the term applies to %s (add them, e.g. kubectl get namespaces "
			    "-o yaml)", gt_strtab_str(x->names, p->name),
			    t->n_namespaces ? "its namespaces list only" : "the pod's own namespace");
	*said = true;
	gt_selector_release(&t->ns_selector);
	t->has_ns_selector = false;
	if (!t->n_namespaces) {
		t->namespaces = gt_xrealloc(t->namespaces, sizeof(*t->namespaces));
		t->namespaces[t->n_namespaces++] = p->ns;
	}
}

void gt_dec_namespaces_link(struct gt_dec *x, bool known)
{
	struct gt_cluster *c = x->c;
	if (known) {
		gt_cluster_sort_namespaces(c);
		return;
	}
	for (uint32_t i = 0; i < c->n_pods; i++) {
		struct gt_pod *p = &c->pods[i];
		bool said = false;
		for (uint32_t k = 0; k < p->n_pod_affinity; k++)
			unjudged(x, p, &p->pod_affinity[k], &said);
		for (uint32_t k = 0; k < p->n_preferred_affinity; k++)
			unjudged(x, p, &p->preferred_affinity[k], &said);
	}
}
