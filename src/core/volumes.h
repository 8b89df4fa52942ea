/*
 * volumes.h - where a pod's PersistentVolumeClaims let it go
 *
 * kube-scheduler's VolumeBinding predicate, which KAI v0.17 runs among its
 * predicates, and KAI's CSI storage scheduling (--schedule-csi-storage):
 *
 *  - a claim bound to a PersistentVolume (spec.volumeName) restricts the pod
 *    to the nodes of the volume's nodeAffinity; a volume that does not exist
 *    fits no node;
 *  - an unbound claim of an Immediate class (or of none) waits for the PV
 *    controller: the pod fits no node, and says so before any node is looked
 *    at (the decoder marks it: gt_pod.claim_missing, claim_problem);
 *  - an unbound claim of a WaitForFirstConsumer class needs, on the node,
 *    either an available PersistentVolume of its class, large enough, whose
 *    nodeAffinity takes the node (one pre-bound to the claim first, else the
 *    smallest), or dynamic provisioning: a provisioner (not
 *    kubernetes.io/no-provisioner), the class's allowedTopologies matching
 *    the node and, when the class's CSIDriver tracks capacity, a
 *    CSIStorageCapacity of the class in the node's topology with room. A
 *    claim whose provisioning began (volume.kubernetes.io/selected-node)
 *    fits that node only.
 *
 * The session books what it decides, so that pods of one cycle do not take
 * the same volume or more capacity than there is: placing a pod (through
 * set_pod_state in session.c, so rollback undoes it) picks the volume of
 * each of its unbound claims on its node; the first pod to use a claim
 * decides, later ones follow. Capacity is booked across pods only with
 * gt_config.csi_storage (KAI's ProvisionedPVCs accounting); without it each
 * pod is checked alone against what the CSIStorageCapacity reports, as in
 * kube-scheduler. With more than one capacity object of a class for a node,
 * KAI leaves the node out of its accounting, and so does Gantry.
 *
 * The plan (plan.h) reads the decisions: a bind whose claims are not all
 * bound becomes volume writes first (a PersistentVolume's claimRef, or the
 * claim's selected-node annotation), and the pod is bound once the PV
 * controller has bound its claims.
 */
#ifndef GT_VOLUMES_H
#define GT_VOLUMES_H

#include <stddef.h>

#include "core/reason.h"
#include "core/session.h"

/* What a session remembers of the volume decisions of its placements. */
struct gt_volume_books {
	uint32_t *users;	/* per claim: placed pods relying on the decision */
	int32_t *claim_pv;	/* per claim: the volume chosen, GT_NONE: provisioned */
	int32_t *claim_node;	/* per claim: the node decided for */
	int32_t *claim_capacity;	/* per claim: the CSIStorageCapacity booked, GT_NONE */
	int32_t *pv_taken;	/* per volume: the claim it was chosen for this cycle, GT_NONE */
	int64_t *capacity_used;	/* per CSIStorageCapacity: bytes booked this cycle */
};

/* Open the books (NULL when the cluster has no claims); before the pods are placed. */
void gt_volumes_open(struct gt_session *s);
/* Book (@sign 1) or give back (-1) the decisions of @pod in state @st. */
void gt_volumes_account(struct gt_session *s, int32_t pod, const struct gt_pod_state *st, int sign);
/* May @pod's claims be used on @node? GT_REJECT_NONE, or why not. */
enum gt_reject gt_volumes_check(const struct gt_session *s, int32_t pod, int32_t node);

/* The volume chosen this cycle for unbound claim @pvc, GT_NONE (provisioned, or none). */
int32_t gt_volumes_chosen(const struct gt_session *s, int32_t pvc);
/* Does @pod mount a claim not bound yet (the bind waits for the PV controller)? */
bool gt_pod_volumes_unbound(const struct gt_cluster *c, int32_t pod);

/*
 * Why claim problem @p keeps pod @pod from every node, in KAI's words:
 * with @prefilter the allocate action's ("Scheduling conditions were not
 * met ... VolumeBinding: ..."), else the victim search's.
 */
void gt_claim_problem_message(const struct gt_cluster *c, int32_t pod, bool prefilter, char *buf,
			      size_t len);
/* The reason code of @pod's claim problem (CLAIM_NOT_FOUND, CLAIM_UNBOUND_IMMEDIATE). */
enum gt_reason gt_claim_problem_reason(const struct gt_cluster *c, int32_t pod);

#endif /* GT_VOLUMES_H */
