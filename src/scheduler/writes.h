/*
 * writes.h - what a cycle's outcome means for the API server
 *
 * Reads the session after the actions ran and lists the writes it calls
 * for, without doing any of them (writer.h does), so the translation can be
 * tested without a server:
 *
 *  - bind every pod the session marks Binding (the core marks whole gangs
 *    only), with its GPU groups: a group the session opened gets a name
 *    "<node>-gpu<k>", the simulator's naming, unused by any pod;
 *  - evict every pod the session evicted (Releasing with evicted_by), with
 *    KAI's message for the action;
 *  - a Pipelined event for a pod newly pipelined;
 *  - for a job that could not be scheduled: the PodGroup's
 *    UnschedulableOnNodePool condition and the pods' PodScheduled=False
 *    condition, each only when it differs from what the object already says
 *    (the write is idempotent and a steady state writes nothing), with the
 *    matching Unschedulable events; the condition is cleared once the job
 *    runs;
 *  - the PodGroup's kai.scheduler/last-start-timestamp and
 *    stale-podgroup-timestamp annotations when the session moved them;
 *  - delete the BindRequests the snapshot found stale (as KAI's scheduler
 *    does), and the GPU reservation pods whose group no active pod uses any
 *    more (as KAI's binder's sync does): a shared GPU goes back to the node
 *    when its last fractional pod is gone.
 *
 * A bind of a shared-GPU pod (gpu-fraction or gpu-memory) carries what the
 * binder's reservation flow needs (writer.h, binder.h): the portion each
 * device gives, and the names of the ConfigMaps the admission webhook
 * pointed the pod's container at (annotation runai/shared-gpu-configmap).
 *
 * Jobs without a PodGroup object (a bare pod's implicit group) get the pod
 * writes only.
 */
#ifndef GT_WRITES_H
#define GT_WRITES_H

#include <stddef.h>
#include <stdint.h>

#include "core/session.h"
#include "scheduler/snapshot.h"

enum gt_kop_kind { GT_KOP_BIND, GT_KOP_EVICT, GT_KOP_PATCH, GT_KOP_EVENT, GT_KOP_DELETE };

struct gt_kop {
	enum gt_kop_kind kind;
	enum gt_kres res;	/* the object written (PATCH) or the event's subject */
	char *ns, *name, *uid, *rv;
	/* BIND */
	char *node;
	char *groups[GT_MAX_DEVICES];
	uint8_t n_groups;
	char *job;		/* "ns/name" of the pod's job, for logs */
	bool shared;		/* a fraction / GPU-memory pod: groups name its devices */
	char *portion;		/* shared: the share of each device, "0.50" (KAI's GPU_PORTION) */
	char *cm_caps;		/* shared: the capabilities ConfigMap, NULL when the webhook set none */
	char *cm_evar;		/* shared: the direct-env ConfigMap ("<cm_caps>-evar") */
	bool visible_in_caps;	/* NVIDIA_VISIBLE_DEVICES goes into cm_caps (the container reads it there) */
	/* EVICT */
	enum gt_action action;
	char *evict_event_ns, *evict_event_name, *evict_event_uid;	/* Evict event subject */
	enum gt_kres evict_event_res;
	/* PATCH: a merge patch (strategic when @strategic) of @sub ("" or "status") */
	char *sub;
	char *body;
	int strategic;
	/* DELETE: gracePeriodSeconds, or < 0 for the object's own */
	int64_t grace_s;
	/* EVENT, and the event a BIND/EVICT emits on success */
	char *reason, *message;
	int warning;
	const char *what;	/* for logs: "PodGroup status", "pod condition", ... */
};

struct gt_kplan {
	struct gt_kop *ops;
	size_t n, cap;
	size_t n_binds, n_evictions, n_deletes;
};

struct gt_plan_opts {
	const char *node_pool;		/* "default"; the snapshot's partition value when it has one */
	const char *reservation_ns;	/* GPU reservation pods' namespace; NULL: kai-resource-reservation */
	int64_t now;			/* for condition times */
	/* pipelined pods already announced ("uid@node", sorted); NULL for none */
	char **announced;
	size_t n_announced;
};

/*
 * Build the plan of @s over @snap. GPU group names minted here are interned
 * into the snapshot's table. @pipelined gets the "uid@node" keys pipelined
 * now (sorted; free each and the array) for the next call's @announced.
 */
void gt_plan_build(struct gt_kube_snapshot *snap, const struct gt_session *s,
		   const struct gt_plan_opts *o, struct gt_kplan *plan, char ***pipelined,
		   size_t *n_pipelined);
void gt_plan_release(struct gt_kplan *plan);

#endif /* GT_WRITES_H */
