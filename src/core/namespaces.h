/*
 * namespaces.h - the Namespaces a pod (anti-)affinity term covers
 *
 * A term covers its `namespaces` list and the namespaces whose labels its
 * `namespaceSelector` matches (an empty selector: every namespace); with
 * neither, the pod's own namespace (Kubernetes' rule, as KAI's podaffinity
 * plugin takes it from kube-scheduler). The labels come from the Namespace
 * objects of the input (a namespace it does not hold has none).
 */
#ifndef GT_NAMESPACES_H
#define GT_NAMESPACES_H

#include "core/cluster.h"

/* Sort c->namespaces by name id, for the lookups below (after decoding). */
void gt_cluster_sort_namespaces(struct gt_cluster *c);
/* The labels of namespace @ns (interned name), or NULL when the input does not hold it. */
const struct gt_labels *gt_namespace_labels(const struct gt_cluster *c, uint32_t ns);
/* Does @term apply to pods of namespace @ns? */
bool gt_term_covers_namespace(const struct gt_cluster *c, const struct gt_pod_affinity_term *term, uint32_t ns);

#endif /* GT_NAMESPACES_H */
