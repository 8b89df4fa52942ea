#include "core/namespaces.h"

#include <stdlib.h>

void gt_cluster_release_namespaces(struct gt_cluster *c)
{
	for (uint32_t i = 0; i < c->n_namespaces; i++)
		gt_labels_release(&c->namespaces[i].labels);
	free(c->namespaces);
	c->namespaces = NULL;
	c->n_namespaces = c->cap_namespaces = 0;
}

static int by_name(const void *a, const void *b)
{
	const struct gt_namespace *x = a, *y = b;
	return x->name < y->name ? -1 : x->name > y->name;
}

void gt_cluster_sort_namespaces(struct gt_cluster *c)
{
	if (c->n_namespaces > 1)
		qsort(c->namespaces, c->n_namespaces, sizeof(*c->namespaces), by_name);
}

const struct gt_labels *gt_namespace_labels(const struct gt_cluster *c, uint32_t ns)
{
	struct gt_namespace key = { .name = ns };
	const struct gt_namespace *n =
		c->n_namespaces ? bsearch(&key, c->namespaces, c->n_namespaces, sizeof(key), by_name) : NULL;
	return n ? &n->labels : NULL;
}

bool gt_term_covers_namespace(const struct gt_cluster *c, const struct gt_pod_affinity_term *term, uint32_t ns)
{
	if (term->all_namespaces)
		return true;
	for (uint32_t i = 0; i < term->n_namespaces; i++)
		if (term->namespaces[i] == ns)
			return true;
	if (!term->has_ns_selector)
		return false;
	static const struct gt_labels none = { 0 };
	const struct gt_labels *l = gt_namespace_labels(c, ns);
	return gt_selector_matches(&term->ns_selector, l ? l : &none, c->names);
}
