/*
 * decode.h - Kubernetes objects into the core's cluster snapshot
 *
 * Reads Node, Pod, PersistentVolumeClaim, PersistentVolume, StorageClass, CSIDriver,
 * CSIStorageCapacity, Namespace, PriorityClass, Queue (scheduling.run.ai/v2), PodGroup
 * (scheduling.run.ai/v2alpha2), Topology (kai.scheduler/v1alpha1) and
 * SchedulingShard (kai.scheduler/v1) objects, as kubectl or the API server
 * print them (a v1 List is unpacked), validates them and builds a
 * struct gt_cluster.
 *
 * Decoding reports and carries on. A malformed object (a bad quantity, a
 * gpu-fraction of 1.5, both gpu-fraction and gpu-memory, a PodGroup
 * without a queue, a name longer than Kubernetes allows, a second object of
 * the same kind and name, a queue whose parents make a cycle) is a
 * rejection {object, field, message} and is left out whole: nothing of it
 * reaches the cluster, and every other object is decoded as if it were not
 * there. A rejection knows where its field is (file, line and column, for
 * objects read from files). The caller decides what a rejection means:
 * `gantry simulate` and `gantry replay` list them all, schedule the rest
 * and exit 2; `gantry scheduler` logs each once, posts it as an event and
 * schedules the rest. Objects that are well-formed but refer to something
 * missing (a PodGroup whose queue does not exist, a queue whose parent does
 * not exist or was refused) load, with a warning, and the core reports them
 * on the job, with the reason when the decoder knows it.
 *
 * After a build, every node, pod, job and queue of the cluster knows the
 * object it came from (@node_obj and friends: an index into @objs), so a
 * front end can write back to it without looking it up by name.
 */
#ifndef GT_DECODE_H
#define GT_DECODE_H

#include <stdio.h>

#include "api/doc.h"
#include "core/cluster.h"

/* One object left out: which, what field, why. */
struct gt_rejection {
	size_t obj;		/* index into the decoder's objs */
	const char *source;	/* the file the object was read from (its input's name), or NULL */
	int line, col;		/* where the field is in it (as far as it exists); 0 when unknown */
	char *what;		/* "Pod team-a/nb" */
	char *field;		/* "metadata.annotations.gpu-fraction" */
	char *message;		/* "must be a number greater than 0 and at most 1, not '1.5'" */
};

/* A pod being bound (a BindRequest, a bind in flight): decoded Binding on @node with @groups. */
struct gt_binding {
	const struct gt_doc *pod;
	const char *node;
	const char *groups[GT_MAX_DEVICES];
	uint8_t n_groups;
};

struct gt_decoder {
	struct gt_doc **objs;	/* borrowed object documents, List items flattened */
	size_t n_objs, cap_objs;
	char **warnings;	/* unknown kinds and such, for stderr */
	size_t n_warnings, cap_warnings;
	const char *scheduler_name;	/* default "kai-scheduler" */
	/* the node pool label key (schedulingBackoff compares pools by it); NULL: kai.scheduler/node-pool */
	const char *pool_label_key;
	/*
	 * --scheduler-conf (KAI's SchedulerConfiguration as SchedulingShard spec
	 * fields, gt_kai_conf_read): they take the place of the input shard's
	 * (a shard named default is made when the input has none). Borrowed.
	 */
	const struct json_t *conf_spec;
	struct gt_doc **conf_shards;	/* the shards so made, freed by gt_decoder_release */
	size_t n_conf_shards, cap_conf_shards;
	/* every ConfigMap of the cluster is among the objects (the scheduler's cache):
	 * KAI's ConfigMap predicate applies even when there are none; else it applies
	 * only when the input holds ConfigMaps */
	bool configmaps_complete;
	/*
	 * The input lists every PersistentVolumeClaim (gantry simulate reads
	 * the whole cluster): a pod mounting one it does not hold cannot be
	 * scheduled. Off by default, for front ends that do not read claims.
	 */
	bool claims_listed;
	/*
	 * Every PersistentVolume, StorageClass, CSIDriver and CSIStorageCapacity
	 * is among the objects (the scheduler's cache): volume binding is judged
	 * even when there are none. Otherwise it is judged when the input holds a
	 * StorageClass or a PersistentVolume (core/volumes.h).
	 */
	bool storage_listed;
	/*
	 * Every Namespace is among the objects (the scheduler's cache): pod
	 * affinity namespaceSelectors are judged on their labels even when none
	 * is there. Otherwise they are judged when the input holds Namespaces.
	 */
	bool namespaces_listed;
	/*
	 * Pods of ours without a PodGroup: by default (the scheduler) each gets
	 * a job of its own, as KAI's podgrouper gives a bare pod. (KAI waits for
	 * its podgrouper for a pod with an owner; the scheduler's tests rely on
	 * the job of its own: a change left to the lead.) simulate sets this,
	 * having run the podgrouper over its input: a pod it did not group (its
	 * owner missing) gets no job, with the podgrouper's warning.
	 */
	bool no_implicit_jobs;
	/*
	 * No resourceclaim controller runs (gantry simulate): a pod's claim from a
	 * ResourceClaimTemplate that its status does not name is made here, named as the
	 * controller would. Off (the scheduler): such a pod waits for the controller.
	 */
	bool dra_make_claims;	/* true: no pod gets a job of its own (the podgrouper ran) */
	struct gt_binding *bindings;	/* borrowed strings */
	size_t n_bindings, cap_bindings;
	/* filled by gt_decoder_build() */
	struct gt_rejection *rejections;
	size_t n_rejections, cap_rejections;
	int32_t *node_obj, *pod_obj, *job_obj, *queue_obj;	/* entity -> objs index; GT_NONE: none */
};

void gt_decoder_init(struct gt_decoder *d);
void gt_decoder_release(struct gt_decoder *d);
/* Add the objects of one parsed document (unpacking a v1 List). */
void gt_decoder_add(struct gt_decoder *d, struct gt_doc *doc);
/* Decode pod @b->pod (added too) as being bound to @b->node; @b's strings must outlive the build. */
void gt_decoder_bind(struct gt_decoder *d, const struct gt_binding *b);
/*
 * Build @c (initialised by the caller with its string table) from every
 * object added except the rejected ones, which are listed in
 * d->rejections. Returns 0 when nothing was rejected, else GT_EINVAL with
 * the first rejection in @err (gt_rejection_format); @c holds the rest
 * either way. A job made for a bare pod has no object (job_obj GT_NONE).
 */
int gt_decoder_build(struct gt_decoder *d, struct gt_cluster *c, struct gt_err *err);

/*
 * "pods.yaml:3:42: Pod team-a/nb: field metadata.annotations.gpu-fraction:
 * must be ..." (without the place when the object was not read from a file).
 */
void gt_rejection_format(const struct gt_rejection *r, char *buf, size_t len);
/*
 * For the commands that read files: every rejection, then every warning,
 * one line each on @f as "<prefix>: <rejection>" and "<prefix>: warning:
 * <warning>". Returns the number of rejections.
 */
size_t gt_decoder_report(const struct gt_decoder *d, FILE *f, const char *prefix);

#endif /* GT_DECODE_H */
