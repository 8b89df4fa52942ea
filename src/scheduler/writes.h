/*
 * writes.h - what a cycle's outcome means for the API server
 *
 * Reads the cycle's plan (core/plan.h) and lists the writes it calls for,
 * without doing any of them (writer.h does), so the translation can be
 * tested without a server:
 *
 *  - bind every pod the plan binds (the core binds whole gangs only), with
 *    its GPU groups named by the plan's rule (a fresh group: the first
 *    "<node>-gpu<i>" no object of the snapshot names);
 *  - evict every pod the plan evicts, with KAI's message for the action;
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
 *    when its last fractional pod is gone. Not in BindRequest mode, where
 *    the binder that makes reservation pods deletes them (KAI's, or
 *    gantry binder's, binder/reservations.h), as KAI's scheduler leaves them
 *    alone: one cleanup, not two.
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

#include "core/plan.h"
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
	char *tolerations;	/* shared: the pod's spec.tolerations as JSON (its reservation pod gets them), or NULL */
	/* BIND of a pod with DRA claims: each claim's status (allocation, reservedFor) as a merge
	 * patch carrying the claim's resourceVersion, written before the Binding */
	char **claim_names;
	char **claim_bodies;
	uint8_t n_claims;
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

struct gt_writes {
	struct gt_kop *ops;
	size_t n, cap;
	size_t n_binds, n_evictions, n_deletes;
};

struct gt_writes_opts {
	const char *node_pool;		/* "default"; the snapshot's partition value when it has one */
	const char *reservation_ns;	/* GPU reservation pods' namespace; NULL: kai-resource-reservation */
	bool binder_owns_reservations;	/* BindRequest mode: the binder deletes idle reservation pods, not the plan */
	int64_t now;			/* for condition times */
	/* pipelined pods already announced ("uid@node", sorted); NULL for none */
	char **announced;
	size_t n_announced;
};

/*
 * The writes @plan calls for over @snap. Fresh GPU groups get their names
 * here (interned into the snapshot's table). @pipelined gets the
 * "uid@node" keys pipelined now (sorted; free each and the array) for the
 * next call's @announced.
 */
void gt_writes_build(struct gt_kube_snapshot *snap, struct gt_plan *plan, const struct gt_writes_opts *o,
		     struct gt_writes *w, char ***pipelined, size_t *n_pipelined);
void gt_writes_release(struct gt_writes *w);
/* A deep copy of @src (the binder keeps the binds it is handed); release with gt_kop_release(). */
void gt_kop_copy(struct gt_kop *dst, const struct gt_kop *src);
void gt_kop_release(struct gt_kop *op);

#endif /* GT_WRITES_H */
