/*
 * numa.h - NUMA-aware placement: KAI v0.17's numa plugin, pure
 *
 * A node that publishes a NodeResourceTopology (topology.node.k8s.io/
 * v1alpha2) says how its kubelet's Topology Manager aligns resources
 * (policy and scope) and what each NUMA zone holds. The kubelet admits a
 * pod on such a node only when it can align the pod's resources the way the
 * policy asks; Gantry predicts that decision as KAI does:
 *
 *  - single-numa-node: every aligned resource of an alignment unit (the
 *    pod in pod scope, each container in container scope) within one zone,
 *    the lowest that holds it;
 *  - restricted: the narrowest span the kubelet prefers. For each requested
 *    resource, the fewest zones whose allocatable (largest first) reach the
 *    request; these widths must agree, and the lowest set of zones of that
 *    width whose free amounts cover the request is taken;
 *  - best-effort: never refused; zones are taken greedily, the one that
 *    covers most of what is still needed first (it only steers scoring and
 *    the books);
 *  - none, or no NodeResourceTopology: nothing to align.
 *
 * What is aligned: whole GPUs and the node's extended resources (devices)
 * for every pod; CPU and memory only for a Guaranteed pod, and CPU only in
 * whole cores (the CPU manager leaves a fractional container in the shared
 * pool). A resource in the plugin's ignoreList is never aligned.
 *
 * The books. Each zone has a free amount per resource: its allocatable
 * less the placements of the pods that hold it (KAI's reconstructAvailable,
 * the default), or the published available (reconstructAvailable false).
 * A pod's placement (which zones, how much of each) is chosen when it is
 * placed, against the books as they are then, and charged while the pod is
 * allocated, pipelined or running; an evicted (Releasing) pod's zones are
 * free again at once, so the victim search sees them. A running pod's
 * placement comes from its annotations: kai.scheduler/numa-placement-
 * observed (the placement exporter's), else kai.scheduler/numa-placement-
 * predicted (what the binder wrote); a pod with neither holds no zone.
 *
 * Scoring: 1/span of the zones the pod would use, in Gantry's node score
 * units (placement.c), below "fits now" and above the resource-type and
 * bin-packing scores, as in KAI's scores package.
 */
#ifndef GT_NUMA_H
#define GT_NUMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"

/* The resources a zone can hold, in the units of struct gt_pod. */
enum gt_numa_res { GT_NUMA_CPU, GT_NUMA_MEM, GT_NUMA_GPU, GT_NUMA_EXT };
#define GT_NUMA_NRES (GT_NUMA_EXT + GT_MAX_EXT)	/* GT_NUMA_EXT + e: the cluster's ext[e] */
#define GT_NUMA_MAX_ZONES 64

struct gt_numa_vec {
	int64_t v[GT_NUMA_NRES];	/* milli-CPU, bytes, devices, units */
};

/* The kubelet's topologyManagerPolicy: the order is KAI's. */
enum gt_numa_policy { GT_NUMA_POLICY_NONE, GT_NUMA_BEST_EFFORT, GT_NUMA_RESTRICTED, GT_NUMA_SINGLE_NODE };
enum gt_numa_scope { GT_NUMA_SCOPE_CONTAINER, GT_NUMA_SCOPE_POD };

struct gt_numa_zone {
	uint32_t id;		/* the zone's name (interned), e.g. "node-0" */
	struct gt_numa_vec allocatable, available;
};

/* One node's NodeResourceTopology. */
struct gt_numa_node {
	int32_t node;		/* index into the cluster's nodes */
	enum gt_numa_policy policy;
	enum gt_numa_scope scope;
	struct gt_numa_zone *zones;	/* by NUMA node number (the name's digits), then name */
	uint32_t n_zones;
	uint32_t aware;		/* bit per enum gt_numa_res a zone reports */
};

/* A pod's share of one zone. */
struct gt_numa_share {
	uint32_t zone;		/* a zone index (session, plan) or an interned zone name (a record) */
	struct gt_numa_vec amount;
};

/* What the kubelet aligns for one pod, and where it sits (decoded; owned by the pod). */
struct gt_numa_pod {
	bool guaranteed;	/* status.qosClass Guaranteed */
	struct gt_numa_vec pod;	/* pod scope: one unit */
	struct gt_numa_vec *units;	/* container scope: n_concurrent that run together, then n_serial */
	uint32_t n_concurrent, n_serial;	/* (plain init containers, each alone) */
	struct gt_numa_share *record;	/* the annotated placement, by zone name; NULL: none */
	uint32_t n_record;
};

void gt_numa_pod_free(struct gt_numa_pod *p);
/* @p's recorded placement becomes @sh (zones by name; NULL, 0: none), as the binder's annotation does. */
void gt_numa_pod_record(struct gt_pod *p, const struct gt_numa_share *sh, uint32_t n);
/* The cluster's topologies (gt_cluster_release). */
void gt_numa_nodes_release(struct gt_cluster *c);
/* Sort @t's zones as the kubelet numbers NUMA nodes and note what they report. */
void gt_numa_node_finish(struct gt_numa_node *t, const struct gt_strtab *names);

/* ---------------------------------------------------------------- a session's books */

struct gt_session;
struct gt_pod_state;

/* A placement: shares[first .. first + n) of the books, zones as indices. */
struct gt_numa_place {
	int32_t node;
	uint32_t first, n;
};

struct gt_numa_books {
	int32_t *topo_of;	/* per node: index into c->numa_nodes, GT_NONE */
	uint32_t *zone_base;	/* per topology: its first zone in free[] */
	struct gt_numa_vec *free;	/* per zone of every topology: what is free now */
	struct gt_numa_place *places;	/* a pod state's numa_place is 1 + an index here */
	uint32_t n_places, cap_places;
	struct gt_numa_share *shares;
	uint32_t n_shares, cap_shares;
	uint32_t max_zones;	/* most zones of a node: a node without topology spans that many */
	uint32_t device_aware;	/* aware device resources of any scored node (KAI's wantsNuma) */
	uint32_t ignore;	/* the ignoreList, bit per enum gt_numa_res */
	/*
	 * Per node, the last evaluation: the predicate and the score ask the
	 * same question of each node in one placement, and the answer holds
	 * while the session's state (its epoch) is the same.
	 */
	uint64_t *memo_epoch;
	int32_t *memo_pod;	/* GT_NONE: none */
	uint32_t *memo_span;	/* zones the pod would use; 0: it cannot be aligned */
};

/* Open the books (gt_session_open, before the pods' states are set); NULL when NUMA is off. */
struct gt_numa_books *gt_numa_open(struct gt_session *s);
void gt_numa_close(struct gt_numa_books *b);
/* The placement @pod starts the session with (its record, resolved), or 0. */
uint32_t gt_numa_initial(struct gt_session *s, int32_t pod, int32_t node);
/* Charge (@sign 1) or credit (-1) the zones a pod in state @st holds. */
void gt_numa_account(struct gt_session *s, const struct gt_pod_state *st, int sign);
/* Choose @pod's placement on @node against the books as they are: 0 when it has none. */
uint32_t gt_numa_choose(struct gt_session *s, int32_t pod, int32_t node);

/* The predicate: can the kubelet of @node align @pod under its policy? */
bool gt_numa_fits(const struct gt_session *s, int32_t pod, int32_t node);
/* KAI's numa score, 1/span of the zones @pod would use on @node, scaled by @unit; 0: not scored. */
int64_t gt_numa_score(const struct gt_session *s, int32_t pod, int32_t node, int64_t unit);
/* Does the plugin look at @pod at all (its score or predicate may apply)? */
bool gt_numa_concerns(const struct gt_session *s, int32_t pod);

/* The shares of placement @place (1-based; 0: none), zones as indices. */
const struct gt_numa_share *gt_numa_shares(const struct gt_session *s, uint32_t place, uint32_t *n);
/* @node's topology, or NULL. */
const struct gt_numa_node *gt_numa_topology(const struct gt_session *s, int32_t node);
/* What is free in zone @zone of @node's topology now. */
const struct gt_numa_vec *gt_numa_free(const struct gt_session *s, int32_t node, uint32_t zone);
/* The name of resource @r ("cpu", "memory", "nvidia.com/gpu", an extended resource's), NULL if none. */
const char *gt_numa_res_name(const struct gt_cluster *c, enum gt_numa_res r);

/* For gt_session_check: do the zones' books equal a recount from the pods' states? */
bool gt_numa_check(const struct gt_session *s);
/* @v of resource @r as a Kubernetes quantity: "3", "1500m" (CPU), "1073741824". */
void gt_numa_quantity(enum gt_numa_res r, int64_t v, char *buf, size_t cap);

/* ---------------------------------------------------------------- the evaluation, for tests */

/*
 * Can units @units[0..n_conc) (charged one after another) and @units[n_conc
 * .. n_conc + n_serial) (each alone) be aligned on @t with @free per zone,
 * aligning the resources of @aware? On success the concurrent units' draw
 * per zone is added to @drawn (n_zones vectors, may be NULL).
 */
bool gt_numa_solve(const struct gt_numa_node *t, const struct gt_numa_vec *free, uint32_t aware,
		   const struct gt_numa_vec *units, uint32_t n_conc, uint32_t n_serial, struct gt_numa_vec *drawn);

#endif /* GT_NUMA_H */
