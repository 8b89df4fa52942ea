/*
 * placement.h - can a task go on a node, and which node is best
 *
 * Fit is KAI's IsTaskAllocatableOnReleasingOrIdle: the request fits the
 * node's idle resources (allocate now) or idle plus releasing ones (pipeline:
 * wait for the evicted pods to leave). Whole GPUs only go to free devices; a
 * fractional or GPU-memory request goes to an existing shared GPU with room
 * or opens a new one on a free device (gpupack: fullest group first; with
 * gpu spread: emptiest first, a fresh device before any shared one).
 *
 * Predicates (when the predicates plugin is on): node ready and schedulable,
 * node selector, required node affinity, taints and tolerations, required
 * pod affinity and anti-affinity, max pods, MIG versus whole-GPU nodes, GPU
 * memory known for GPU-memory requests.
 *
 * Node order is the sum of KAI's node scores, a lexicographic priority:
 * nominated node (1e6) > shared GPU with room (1e3) > fits idle now (100) >
 * CPU-only node for a CPU-only task (10) > binpack/spread (0..9).
 */
#ifndef GT_PLACEMENT_H
#define GT_PLACEMENT_H

#include "core/session.h"

/* Why a node was rejected; aggregated into the user-facing message. */
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
	X(HOST_PORTS, "node(s) didn't have free ports for the requested pod ports")

enum gt_reject {
#define GT_REJECT_ENUM(name, text) GT_REJECT_##name,
	GT_REJECT_MAP(GT_REJECT_ENUM)
#undef GT_REJECT_ENUM
	GT_N_REJECT
};

const char *gt_reject_text(enum gt_reject r);

struct gt_fit {
	bool ok;
	bool needs_releasing;	/* fits only once releasing pods are gone */
	uint32_t groups[GT_MAX_DEVICES];	/* chosen shared GPUs (new ones minted) */
	uint8_t n_groups;
	enum gt_reject reject;	/* the first reason */
	unsigned short_mask;	/* every reason (1 << enum gt_reject): KAI lists them all */
};

/* Resource fit of @pod on @node, choosing GPU groups for shared requests. */
void gt_fit_resources(struct gt_session *s, int32_t pod, int32_t node, struct gt_fit *out);
/* Predicates; GT_REJECT_NONE when every one passes. */
enum gt_reject gt_check_predicates(const struct gt_session *s, int32_t pod, int32_t node);

/*
 * The best node for @pod among @nodes (or all nodes when @nodes is NULL).
 * With @pipeline_only the placement is always a pipeline (the solver's
 * simulation). Returns the node or GT_NONE, the fit in @fit_out and the
 * reason counts per rejection in @rejects (may be NULL).
 */
int32_t gt_best_node(struct gt_session *s, int32_t pod, const int32_t *nodes, uint32_t n_nodes,
		     struct gt_fit *fit_out, uint32_t rejects[GT_N_REJECT]);

/* "no nodes with enough resources were found: 3 node(s) didn't ..." */
void gt_format_fit_error(const uint32_t rejects[GT_N_REJECT], char *buf, size_t len);

#endif /* GT_PLACEMENT_H */
