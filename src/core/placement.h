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

#include "core/reason.h"
#include "core/session.h"

/* Why a node was rejected (enum gt_reject, core/reason.h); aggregated into the user-facing message. */
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
/* Node selector and required node affinity (KAI's NodeAffinity filter) of pod @p on @n. */
bool gt_node_affinity_ok(const struct gt_cluster *c, const struct gt_pod *p, const struct gt_node *n);
/* Predicates; GT_REJECT_NONE when every one passes. */
enum gt_reject gt_check_predicates(const struct gt_session *s, int32_t pod, int32_t node);

/*
 * What one placement may use and what it prefers, passed down the calls
 * rather than set on the session around them: the solver's simulations and
 * the reservations' trials look only at some nodes, and a topology's
 * preferred level favours the nodes of its best domains for one job.
 */
struct gt_place_ctx {
	const uint64_t *node_mask;	/* NULL: every node; else a bitmap by name rank */
	int64_t *node_bonus;	/* NULL: none; else per node, added to node order */
};

/*
 * The best node for @pod among @nodes (or all nodes @ctx allows when @nodes
 * is NULL), with @ctx's bonus in node order.
 * With @pipeline_only the placement is always a pipeline (the solver's
 * simulation). Returns the node or GT_NONE, the fit in @fit_out and the
 * reason counts per rejection in @rejects (may be NULL).
 */
int32_t gt_best_node(struct gt_session *s, const struct gt_place_ctx *ctx, int32_t pod,
		     const int32_t *nodes, uint32_t n_nodes, struct gt_fit *fit_out, uint32_t rejects[GT_N_REJECT]);

/* "no nodes with enough resources were found: 3 node(s) didn't ..." */
void gt_format_fit_error(const uint32_t rejects[GT_N_REJECT], char *buf, size_t len);

#endif /* GT_PLACEMENT_H */
