/*
 * dra.h - Dynamic Resource Allocation (resource.k8s.io/v1) in the cluster snapshot
 *
 * What the core knows of DRA: the devices the drivers publish per node (ResourceSlices; only
 * node-local pools, each at its newest generation), the DeviceClasses, the ResourceClaims
 * with their requests and status (allocation, reservedFor), and which pods use which claims.
 *
 * How the core schedules with it. Every DeviceClass a claim asks for is a column of the
 * extended resources (cluster.h's ext[], named "dra:<class>"): a node has as many as it has
 * free devices of that class, and the pod that *carries* a claim asks for the claim's count.
 * A claim is carried by one pod only, so a claim shared by several pods is counted once:
 *  - an allocated claim is carried by a consumer that holds its node; with none, the node's
 *    column is reduced by the claim's devices (they stay taken while the claim is allocated);
 *  - an unallocated claim is carried by its first consumer in pod order (KAI allocates it
 *    with the first pod that is placed).
 * The other consumers ask for nothing more, but may only go where the claim is: its
 * allocation's node, or the node a consumer of it holds in the session (gt_dra_check). A
 * class whose name holds "gpu" counts toward GPU quotas and fair share (KAI's DRA GPUs),
 * one GPU per device, through ext_gpu_milli as MIG profiles do. So every action (allocate,
 * reclaim, preempt, consolidation) and the victim search see DRA through the resources they
 * already weigh, and the session's undo log covers it.
 *
 * Which devices: at bind, gt_dra_plan_claims() picks for each claim the cycle allocates the
 * node's devices of the request's class not taken by another claim (its status, or an
 * earlier choice of the same plan), in slice and device order, as the structured allocator
 * does. The selectors are evaluated by the decoder (core/cel.h), once per device.
 *
 * Where counts are not exact (a claim is *searched*): allocationMode All, firstAvailable,
 * constraints (matchAttribute), admin access, a request whose selectors keep only some of a
 * node's devices, network-attached candidates. Such a claim asks the counts for what it surely
 * takes (KAI's bookkeeping: one device for All, nothing for firstAvailable or admin access),
 * and whether it fits is decided device by device: on a node, gt_dra_check searches devices
 * for every claim the session allocates there (the others' and the pod's; for network-attached
 * devices, the claims placed on other nodes too) with backtracking over the candidates, the
 * constraints checked as devices are added, as kube-scheduler's structured allocator does; the
 * search stops after GT_DRA_SEARCH_STEPS candidates tried (then: no fit). The plan's picks run
 * the same search, node by node.
 *
 * Network-attached devices (node GT_NONE, a reach) count on every node they reach, so those
 * counts are an upper bound and the search decides.
 */
#ifndef GT_DRA_H
#define GT_DRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_DRA_MAX_CONSUMERS 256	/* resource.k8s.io's ResourceClaimReservedForMaxSize */
#define GT_DRA_MAX_RESULTS 32		/* resource.k8s.io's AllocationResultsMaxSize: devices a claim gets */
#define GT_DRA_SEARCH_STEPS 20000	/* candidate devices one search may try before it gives up */

/*
 * Where a network-attached device can be used from (a ResourceSlice with allNodes or a
 * nodeSelector instead of nodeName, or per device with perDeviceNodeSelection).
 */
struct gt_dra_reach {
	bool all;			/* allNodes */
	uint8_t *nodes;			/* else per node: 1 when it can use the device */
	bool has_selector;
	uint32_t selector;		/* the slice's node selector term as JSON (interned), for allocations */
};

struct gt_dra_device {
	uint32_t name, driver, pool;	/* interned */
	int32_t node;			/* node index of a node-local device; GT_NONE: network-attached or left out */
	int32_t reach;			/* network-attached: index into reaches; else GT_NONE */
	uint32_t *attrs;		/* (qualified name, typed value + 1) pairs, interned, when constraints need them */
	uint32_t n_attrs;
};

struct gt_dra_class {
	uint32_t name;			/* interned */
	int32_t ext;			/* its column in ext[], GT_NONE until a claim asks for it */
	uint32_t ext_resource;		/* spec.extendedResourceName (KEP-5004), when has_ext_resource */
	bool has_ext_resource;
	const char *problem;		/* its selectors cannot be evaluated (interned); NULL: fine */
	int32_t *devices;		/* the devices it selects, in slice order */
	uint32_t n_devices;
};

/* One way to satisfy a request: the request itself (exactly), or one of its firstAvailable subrequests. */
struct gt_dra_alt {
	uint32_t name;			/* the subrequest's own name; the request's for exactly (interned) */
	uint32_t full_name;		/* "request/subrequest", or the request's name (interned) */
	int32_t cls;			/* index into classes, GT_NONE when missing */
	int64_t count;			/* ExactCount */
	bool all;			/* allocationMode All: every candidate the node can use, none taken */
	bool admin;			/* adminAccess: sees devices without taking them */
	int32_t *devices;		/* candidates: the class's devices its own selectors keep, slice order */
	uint32_t n_devices;
};

struct gt_dra_constraint {
	uint32_t attribute;		/* matchAttribute, fully qualified (interned) */
	uint32_t *requests;		/* the (sub)request names it binds, interned; none: every request */
	uint32_t n_requests;
};

struct gt_dra_request {
	uint32_t name;			/* interned */
	int32_t cls;			/* index into classes, GT_NONE when missing (or firstAvailable) */
	int64_t count;			/* ExactCount */
	bool admin;			/* adminAccess: sees devices without taking them */
	bool all;			/* allocationMode All */
	bool first_available;		/* alts are its subrequests */
	struct gt_dra_alt *alts;	/* exactly: one, the request itself; firstAvailable: in order */
	uint32_t n_alts;
	/*
	 * Its own selectors keep all of a node's devices of the class or none: the nodes
	 * where they keep them (sorted), when node_limited. (A selector that splits a
	 * node's devices is not modelled.)
	 */
	bool node_limited;
	int32_t *nodes;
	uint32_t n_nodes;
};

struct gt_dra_claim {
	uint32_t ns, name, uid;		/* interned */
	bool has_queue_label;
	uint32_t queue_label;		/* kai.scheduler/queue, interned */
	bool from_template;		/* made for one pod from a ResourceClaimTemplate */
	bool gpu;			/* asks for a class whose name holds "gpu" (KAI's GPU claim) */
	struct gt_dra_request *requests;
	uint32_t n_requests;
	struct gt_dra_constraint *constraints;
	uint32_t n_constraints;
	bool searched;			/* counts are not exact for it: devices are searched (see above) */
	bool network;			/* some candidate is network-attached: it competes across nodes */
	/* status.allocation: the devices (index into devices) per result, with its request */
	bool allocated;
	int32_t node;			/* where its devices are, GT_NONE when not allocated */
	int32_t *alloc_devices;
	uint32_t *alloc_requests;	/* index into requests */
	uint32_t *alloc_alts;		/* index into the request's alts */
	uint32_t n_alloc;
	/* status.reservedFor: how many, and the names of the pods (interned) */
	uint32_t *reserved_names;
	uint32_t n_reserved;
	/* derived by gt_dra_link */
	int32_t *consumers;		/* pods that use it, in pod order */
	uint32_t n_consumers, cap_consumers;
	int32_t carrier;		/* the pod that asks for its devices, GT_NONE */
};

/* A pod's use of claims (pod.spec.resourceClaims resolved). */
struct gt_dra_use {
	int32_t *claims;		/* index into claims */
	uint32_t n_claims;
	const char *problem;		/* why it cannot be scheduled whatever the node (interned), or NULL */
};

struct gt_dra {
	struct gt_dra_device *devices;
	uint32_t n_devices, cap_devices;
	struct gt_dra_class *classes;
	uint32_t n_classes, cap_classes;
	struct gt_dra_claim *claims;
	uint32_t n_claims, cap_claims;
	struct gt_dra_reach *reaches;
	uint32_t n_reaches, cap_reaches;
	struct gt_dra_use *uses;	/* per pod (n_pods of them) when any pod uses a claim; else NULL */
	uint32_t n_uses;
	bool search;			/* some claim is searched: gt_dra_check searches devices */
};

struct gt_cluster;
struct gt_session;
struct gt_plan;

void gt_dra_release(struct gt_dra *d);

/* Can @node use device @dev (on it, or network-attached and reachable)? */
static inline bool gt_dra_usable_from(const struct gt_dra *d, int32_t dev, int32_t node)
{
	const struct gt_dra_device *v = &d->devices[dev];
	if (v->node >= 0 || v->reach < 0)
		return v->node == node && node >= 0;
	return node >= 0 && (d->reaches[v->reach].all || d->reaches[v->reach].nodes[node]);
}

/* Can @node use every device of allocated claim @k? */
bool gt_dra_claim_usable_from(const struct gt_dra *d, const struct gt_dra_claim *k, int32_t node);
void gt_dra_claim_release(struct gt_dra_claim *k);

/* Does the pod use resource claims? */
static inline bool gt_dra_pod_uses(const struct gt_dra *d, int32_t pod)
{
	return d->uses && (uint32_t)pod < d->n_uses && (d->uses[pod].n_claims || d->uses[pod].problem);
}

/* Why the pod's claims cannot be had on any node (missing, refused, not modelled), or NULL. */
static inline const char *gt_dra_problem(const struct gt_dra *d, int32_t pod)
{
	return d->uses && (uint32_t)pod < d->n_uses ? d->uses[pod].problem : NULL;
}

/* The name of a result's request as status.allocation says it: "request" or "request/subrequest". */
const char *gt_dra_result_name(const struct gt_cluster *c, const struct gt_dra_claim *k, uint32_t request,
			       uint32_t alt, char *buf, size_t cap);

/* KAI's words for a pod gt_dra_problem() blocks, as a job message. */
void gt_dra_blocked_message(const struct gt_cluster *c, int32_t pod, char *msg, size_t cap);

/* Is pod @name (interned) among the claim's status.reservedFor? */
bool gt_dra_reserved(const struct gt_dra_claim *k, uint32_t name);

/*
 * Can @pod's claims be had on @node in the session's state? Its static problem, a claim
 * allocated elsewhere or at its consumer limit, or a claim another consumer holds on another
 * node say no (the devices themselves are counted as ext[] resources). On no, @why (may be
 * NULL) holds the reason.
 */
bool gt_dra_check(const struct gt_session *s, int32_t pod, int32_t node, char *why, size_t cap);

/* A claim this cycle allocates: its devices on its node, and the pods it reserves. */
struct gt_plan_claim {
	int32_t claim;
	int32_t node;
	int32_t *devices;		/* index into devices; with their requests and alts */
	uint32_t *requests;
	uint32_t *alts;
	uint32_t n_devices;
	bool allocate;			/* the claim was not allocated: this cycle allocates it */
	bool short_of_devices;		/* allocate, but the node has not enough free devices */
	int32_t *pods;			/* consumers bound this cycle (reservedFor gets them) */
	uint32_t n_pods, cap_pods;
};

/*
 * The claims the plan's binds need: each bound pod's claims, allocated on its node when they
 * are not yet, and the pods to add to reservedFor. A claim whose devices cannot all be found
 * (which the session's counts rule out) gets n_devices 0 and short set. Pure; the result is
 * freed with gt_dra_plan_claims_free.
 */
struct gt_plan_claim *gt_dra_plan_claims(const struct gt_cluster *c, const struct gt_plan *p,
					 uint32_t *n_out);
void gt_dra_plan_claims_free(struct gt_plan_claim *v, uint32_t n);

/*
 * After a plan is carried out on the cluster (the simulator's next cycle): the claims it
 * allocated are allocated, their bound pods reserved; a claim whose consumers (all in the
 * cluster) hold no node any more is deallocated, as Kubernetes' resourceclaim controller does
 * once reservedFor is empty.
 */
void gt_dra_advance(struct gt_cluster *c, const struct gt_plan *p);

#endif /* GT_DRA_H */
