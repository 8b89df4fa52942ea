/*
 * setup.h - the cluster a replay runs on: nodes, queues, policy switches
 *
 * Nodes come from Kubernetes objects (-f: Nodes, Queues, a SchedulingShard,
 * Topologies; decoded by src/api exactly as `gantry simulate` decodes
 * them), from flags (--nodes N --gpus-per-node G) or from an openb node
 * list; several sources add up. Queues come from the trace's tenants:
 * one top-level queue per tenant (Philly's virtual clusters), with a GPU
 * quota proportional to the tenant's node count when a VC-size table is
 * given, or one queue for everything.
 */
#ifndef GT_REPLAY_SETUP_H
#define GT_REPLAY_SETUP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/cluster.h"
#include "replay/trace.h"
#include "util/err.h"

/* @n identical nodes "node-0000".. of @gpus GPUs, 128 cores, 1 TiB, 110 pods. */
void gt_replay_gen_nodes(struct gt_cluster *c, uint32_t n, int32_t gpus);

struct json_t;

/*
 * Decode Nodes, Queues, PriorityClasses, Topologies and the SchedulingShard
 * of @files (YAML or JSON; directories as api/manifest.h reads them) into @c,
 * which must be empty. Pods and PodGroups
 * are not part of a replay's cluster: they are skipped, and @warnings (may
 * be NULL) counts them. Every object the decoder rejects and every warning
 * goes to @diag (NULL: the first rejection is in @err). 0, or GT_EPARSE /
 * GT_EINVAL / GT_EIO with @err.
 */
int gt_replay_load_cluster(struct gt_cluster *c, const char *const *files, size_t n_files, bool recursive,
			   const struct json_t *conf_spec, uint32_t *skipped, FILE *diag, struct gt_err *err);

struct gt_queue_setup {
	bool single;			/* every job in one queue */
	const struct gt_vc_size *vcs;	/* quota by VC size; NULL: no quotas */
	uint32_t n_vcs;
};

/*
 * Map every tenant of @t to a leaf queue of @c, creating the queues that
 * are missing (an existing queue of the tenant's name is used as it is).
 * @tenant_queue must hold t->tenants.n_strs entries. 0 or GT_EINVAL.
 */
int gt_replay_make_queues(struct gt_cluster *c, const struct gt_trace *t,
			  const struct gt_queue_setup *qs, int32_t *tenant_queue,
			  int32_t *default_queue, struct gt_err *err);

#endif /* GT_REPLAY_SETUP_H */
