/*
 * reason.h - why a job waits and why a node was refused, as codes
 *
 * The core says why a job is not scheduled twice: in KAI's words (the
 * message, core/session.h) for people, and as a struct gt_job_why for
 * programs, set in the same place as the message (gt_job_set_why). Nobody
 * matches message text to find out what happened.
 *
 * Each reason has two names: Gantry's own code, finer than KAI's (what
 * `gantry explain` prints), and KAI's UnschedulableReason, which the
 * scheduler writes into the PodGroup's schedulingConditions[].reasons
 * (KAI v0.17: QueueDoesNotExist, OverLimit, NonPreemptibleOverQuota,
 * PreemptionDelayNotElapsed, and PodSchedulingErrors for the rest).
 */
#ifndef GT_REASON_H
#define GT_REASON_H

#include <stdint.h>

/* Why a node was rejected for a pod; counted per node into the message. */
#define GT_REJECT_MAP(X)                                                        \
	X(NONE, "")                                                            \
	X(GPU, "node(s) didn't have enough resources: GPUs")                   \
	X(GPU_MEMORY, "node(s) didn't have enough resources: GPU memory")      \
	X(CPU, "node(s) didn't have enough resources: CPU cores")              \
	X(MEMORY, "node(s) didn't have enough resources: memory")              \
	X(EXT, "node(s) didn't have enough of mig profile or extended resource") \
	X(PODS, "node(s) pod number exceeded")                                 \
	X(NOT_READY, "node(s) were not ready or unschedulable")                \
	X(SELECTOR, "node(s) didn't match Pod's node affinity/selector")      \
	X(TAINT, "node(s) had untolerated taint")                              \
	X(POD_AFFINITY, "node(s) didn't match pod affinity rules")             \
	X(POD_ANTI_AFFINITY, "node(s) didn't match pod anti-affinity rules")   \
	X(GPU_TYPE, "node(s) didn't match the requested GPU type (MIG or whole GPU)") \
	X(GPU_MEMORY_UNKNOWN, "node(s) are not gpu nodes or their gpu memory count was not synced yet") \
	X(TOPOLOGY, "node(s) are outside the required topology domain")       \
	X(HOST_PORTS, "node(s) didn't have free ports for the requested pod ports") \
	X(NUMA, "node(s) cannot NUMA-align the pod's resources under its Topology Manager policy") \
	X(VOLUME_NODE_CONFLICT, "node(s) had volume node affinity conflict")   \
	X(VOLUME_BIND_CONFLICT, "node(s) didn't find available persistent volumes to bind") \
	X(VOLUME_SPACE, "node(s) did not have enough free storage")            \
	X(VOLUME_MISSING, "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)") \
	X(DRA, "node(s) didn't satisfy the pod's resource claims")            \
	X(DRA_DEVICES, "node(s) didn't have enough free devices for the pod's resource claims")

enum gt_reject {
#define GT_REJECT_ENUM(name, text) GT_REJECT_##name,
	GT_REJECT_MAP(GT_REJECT_ENUM)
#undef GT_REJECT_ENUM
	GT_N_REJECT
};

/* A short machine name of a rejection: "GPU", "Taint", ... ("" for NONE). */
const char *gt_reject_code(enum gt_reject r);

/*
 * Why a job waits: code, KAI's UnschedulableReason, what it means. The
 * codes are an interface (gantry explain -o json, docs/explain.md): add,
 * never rename.
 */
#define GT_REASON_MAP(X)                                                                          \
	X(NONE, "", "")                                                                          \
	X(QUEUE_MISSING, "QueueDoesNotExist", "QueueDoesNotExist")                               \
	X(QUEUE_NOT_LEAF, "QueueNotLeaf", "PodSchedulingErrors")                                 \
	X(NOT_ENOUGH_PODS, "NotEnoughPods", "PodSchedulingErrors")                               \
	X(OVER_LIMIT, "OverLimit", "OverLimit")                                                  \
	X(NON_PREEMPTIBLE_OVER_QUOTA, "NonPreemptibleOverQuota", "NonPreemptibleOverQuota")      \
	X(NO_NODE_FITS, "NoNodeFits", "PodSchedulingErrors")                                     \
	X(GANG_SHORT, "GangShort", "PodSchedulingErrors")                                        \
	X(TOPOLOGY, "TopologyNotSatisfied", "PodSchedulingErrors")                               \
	X(POD_ERROR, "PodSchedulingErrors", "PodSchedulingErrors")                               \
	X(PREEMPTION_DELAY, "PreemptionDelayNotElapsed", "PreemptionDelayNotElapsed")            \
	X(MISSING_CONFIGMAPS, "MissingConfigMaps", "PodSchedulingErrors")                         \
	X(CLAIM_NOT_FOUND, "ClaimNotFound", "PodSchedulingErrors")                                 \
	X(CLAIM_UNBOUND_IMMEDIATE, "UnboundImmediateClaim", "PodSchedulingErrors")

enum gt_reason {
#define GT_REASON_ENUM(name, code, kai) GT_REASON_##name,
	GT_REASON_MAP(GT_REASON_ENUM)
#undef GT_REASON_ENUM
	GT_N_REASONS
};

/* Gantry's code ("GangShort") and KAI's UnschedulableReason ("PodSchedulingErrors"). */
const char *gt_reason_code(enum gt_reason r);
const char *gt_reason_kai(enum gt_reason r);

/*
 * The facts behind a job's message, for programs. Fields a reason does not
 * use are GT_NONE / 0.
 */
struct gt_job_why {
	enum gt_reason reason;
	int32_t pod;			/* NO_NODE_FITS, GANG_SHORT: the pod no node took */
	int32_t podset;			/* ... and its podset */
	uint32_t found;			/* GANG_SHORT: pods placed before it failed;
					   NOT_ENOUGH_PODS: pods that exist, alive and not gated */
	uint32_t required;		/* GANG_SHORT: the podset's minimum; NOT_ENOUGH_PODS: the job's */
	uint32_t rejects[GT_N_REJECT];	/* NO_NODE_FITS, GANG_SHORT: nodes refused, per reason */
	int32_t queue;			/* OVER_LIMIT, NON_PREEMPTIBLE_OVER_QUOTA, QUEUE_*: the queue */
	int32_t qres;			/* OVER_LIMIT, NON_PREEMPTIBLE_OVER_QUOTA: enum gt_qres */
	int64_t requested;		/* ... what the job asked in that resource */
	int64_t bound;			/* ... the limit or the quota */
	int64_t allocated;		/* ... what the queue held (non-preemptible only for the quota) */
};

/* A why with nothing in it but @r. */
struct gt_job_why gt_job_why_of(enum gt_reason r);

#endif /* GT_REASON_H */
