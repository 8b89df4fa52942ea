/*
 * snapshot.h - one cycle's cluster, decoded from the cache
 *
 * Takes a reference to every cached object, orders them (creation time,
 * then namespace/name: the same objects give the same cluster whatever order
 * the watch delivered them in, and so the same plan) and feeds them to the
 * decoder that `gantry simulate` uses. Names are interned into a table of
 * the snapshot's own, so memory does not grow with the cluster's history.
 *
 * Left out: pods that finished and are not ours (they hold nothing), shards
 * other than ours, and objects the decoder rejects. A rejected object is
 * left out whole and everything else is scheduled; the rejection is logged
 * once per version of the object, with its kind, name and the field at
 * fault, and listed in @rejected with @first set that once, so the
 * scheduler posts one Warning event on it. The decoder says which object
 * each rejection is about: nothing is parsed out of message text.
 *
 * Node pools, as KAI's shards (api/nodepool.h): with a partition value,
 * only nodes, queues and PodGroups whose node-pool label has that value are
 * in the cluster (the empty value: those without the label), and so are
 * only the pods on those nodes, of those PodGroups, or bare pods with that
 * label. Pods on nodes of other pools are not counted at all: their nodes
 * are not here.
 *
 * A pod that is being bound counts as Binding on its node with its GPU
 * groups, as the binder's work in progress: a BindRequest
 * (api/bindrequest.h, left by KAI's scheduler) that is pending or still
 * retrying, or a bind this process has in flight (cache.h). The decoder is
 * told (gt_decoder_bind) and decodes such a pod Binding. A BindRequest that
 * failed for good, whose pod is gone or was re-created, or whose pod was
 * bound elsewhere is ignored and listed in @stale_brs for the plan to
 * delete, as KAI does.
 */
#ifndef GT_SNAPSHOT_H
#define GT_SNAPSHOT_H

#include "api/nodepool.h"
#include <jansson.h>

#include "core/cluster.h"
#include "kube/cache.h"
#include "util/strtab.h"

struct gt_snapshot_opts {
	const char *scheduler_name;	/* default kai-scheduler */
	const char *shard;		/* SchedulingShard name; default "default" */
	/*
	 * Leave out our pending pods whose PodGroup does not exist yet, as KAI
	 * does: with a podgrouper running, they are pods it has not reached,
	 * and scheduling them alone would split their gang.
	 */
	bool grouped_only;
	const struct gt_config_overrides *overrides;	/* KAI's flags; NULL: none */
	/*
	 * --scheduler-conf's spec (snapshot/kaisnap.h's gt_kai_conf): its
	 * plugins, and its scenarioSearchBudgets and usageDBConfig when it has
	 * them, take the place of the SchedulingShard's (or make one when there
	 * is none); NULL: the shard as it is.
	 */
	const json_t *conf_spec;
};

/* An object the decoder left out this cycle. */
struct gt_snapshot_rejection {
	struct gt_kobj *obj;		/* referenced by the snapshot's objs */
	char *text;			/* "field F: why" */
	bool first;			/* the first snapshot to reject this version of it */
};

struct gt_kube_snapshot {
	struct gt_strtab names;
	struct gt_cluster c;
	struct gt_kobj **objs[GT_N_KRES];	/* referenced, sorted by key */
	size_t n[GT_N_KRES];
	/* the object each node, pod, job and queue of @c came from (a bare pod's job: NULL) */
	struct gt_kobj **node_obj, **pod_obj, **job_obj, **queue_obj;
	struct gt_snapshot_rejection *rejected;
	size_t n_rejected;
	char *node_pool;		/* the partition served; NULL: the whole cluster */
	struct gt_kobj **stale_brs;	/* BindRequests to delete (referenced by objs) */
	size_t n_stale_brs;
	size_t n_binding;		/* pods Binding through a BindRequest or a bind in flight */
	struct gt_kobj *conf_shard;	/* the shard as conf_spec made it (referenced), or NULL */
};

/* The snapshot of @cache for pool @pool (NULL: the shard's partition, if any). Never fails. */
void gt_snapshot_take(struct gt_cache *cache, const struct gt_snapshot_opts *o,
		      const struct gt_node_pool *pool, struct gt_kube_snapshot *s);
void gt_snapshot_release(struct gt_kube_snapshot *s);
/* The object the snapshot holds for @ns/@name (@ns NULL for cluster-scoped), or NULL. */
struct gt_kobj *gt_snapshot_find(const struct gt_kube_snapshot *s, enum gt_kres r, const char *ns,
				 const char *name);

#endif /* GT_SNAPSHOT_H */
