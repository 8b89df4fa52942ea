/*
 * decode_int.h - what the decoder's files share; not an API
 *
 * decode.c runs a build (objects in dependency order, rejections, the
 * entity-to-object maps, name lookups); decode_cluster.c decodes the
 * cluster's frame (PriorityClass, SchedulingShard, Topology, Queue, Node),
 * decode_job.c PodGroups and the jobs of bare pods, decode_pod.c pods.
 *
 * Every decode_* function decodes one object into a local entity and adds
 * it to the cluster only when the whole object is good: on a rejection it
 * frees what it built and returns GT_EINVAL, leaving the cluster and the
 * lookups as they were.
 */
#ifndef GT_DECODE_INT_H
#define GT_DECODE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "api/decode.h"
#include "api/object.h"
#include "util/smap.h"
#include "util/strtab.h"

#define GT_DEC_DEFAULT_QUEUE "default-queue"
#define N_KINDS 19	/* the kinds decoded, decode.c's kind_order */

/* The objects of one kind decoded so far, by "namespace/name": to find a second one. */
struct gt_dec_seen {
	struct gt_strtab keys;
	int32_t *first;		/* by key id: the object that has it */
	size_t n, cap;
};

/* A CSIDriver: its name and whether it reports CSIStorageCapacity. */
struct gt_dec_csi_driver {
	uint32_t name;
	bool capacity;
};

/* Pending pods another scheduler places, by its name: said once at the end. */
struct gt_dec_dra;

struct gt_dec_foreign {
	char *scheduler;	/* "" when the pod names none */
	size_t n;
	char names[160];	/* the first few, "ns/a, ns/b" */
};

struct gt_dec {
	struct gt_decoder *d;
	struct gt_cluster *c;
	struct gt_strtab *names;
	size_t obj;		/* the object being decoded (index into d->objs) */
	/* name lookups, as string table id -> index + 1 (0 = absent) */
	int32_t *queue_by_name, *node_by_name, *topo_by_name, *prio_by_name;
	int32_t *prio_value;
	int32_t *claim_by_name;	/* "ns/name" of a PersistentVolumeClaim -> 1 */
	size_t n_lookup;
	int32_t default_priority;
	bool have_default_priority;
	int64_t *job_by_key;	/* ns/name key id -> job index + 1 */
	size_t n_job_lookup;
	bool *orphan_queue;	/* by queue index: its parent is missing */
	size_t cap_entity_obj[4];	/* capacities of d->node_obj, pod_obj, job_obj, queue_obj */
	struct gt_dec_seen seen[N_KINDS];
	struct gt_smap queue_cycle;	/* queue name -> "qa -> qb -> qa" (heap) for the queues in a cycle */
	struct gt_smap queue_problem;	/* queue name -> why its jobs cannot use it (interned in names) */
	struct gt_dec_foreign *foreign;	/* pending pods of other schedulers */
	size_t n_foreign, cap_foreign;
	struct gt_dec_csi_driver *csi_drivers;	/* decode_storage.c */
	size_t n_csi_drivers, cap_csi_drivers;
	bool storage_warned;
	struct gt_dec_dra *dra;		/* decode_dra.c's scratch, NULL until a DRA object is met */
	struct gt_smap *owner_jobs;	/* "ns/name" -> batch Job of the input; NULL until a pod names one */
};

/* decode_pod.c: release the index of the input's Jobs */
void gt_dec_owner_jobs_release(struct gt_dec *x);

/* decode.c */
/* Reject the object being decoded: @field is at fault, @what says how (@value quoted after it). */
int gt_dec_fail(struct gt_dec *x, const struct gt_doc *o, const char *field, const char *what,
		const char *value);
void gt_dec_warn(struct gt_dec *x, const char *fmt, const char *a, const char *b);
/* A warning about @field of @o (NULL: the object), with its place when @o was read from a file. */
__attribute__((format(printf, 4, 5))) void gt_dec_note(struct gt_dec *x, const struct gt_doc *o,
							const char *field, const char *fmt, ...);
uint32_t gt_dec_intern(struct gt_dec *x, const char *s);
/* "@ns/@name" into @buf of @len bytes, cut to fit: an object's key (for every object: no snprintf). */
void gt_dec_ns_key(char *buf, size_t len, const char *ns, const char *name);
/* Index under @name in lookup @tab (one of x's *_by_name), or GT_NONE. */
int32_t gt_dec_lookup(struct gt_dec *x, const int32_t *tab, const char *name);
void gt_dec_set_lookup(struct gt_dec *x, int32_t **tab, const char *name, int32_t idx);
void gt_dec_labels(struct gt_dec *x, const struct gt_doc *map, struct gt_labels *out);
/* A finite decimal number (no inf, nan or hex): what a float64 field holds. 0 or GT_EINVAL. */
int gt_dec_number(const char *s, double *out);
bool gt_dec_bool(const char *s, bool dflt);
/* The extended resource @res's column, or -1 when there is no room (or @res is none). */
int gt_dec_ext_index(struct gt_dec *x, const char *res);
bool gt_dec_is_extended(const char *res);
/* Names of a field's values, in the order of the values they stand for. */
extern const char *const gt_dec_taint_effects[GT_TAINT_ANY];	/* enum gt_taint_effect but ANY */
extern const char *const gt_dec_selector_ops[GT_SEL_LT + 1];	/* enum gt_sel_op */
/* Bindings by pod document (qsort/bsearch order). */
int gt_dec_by_pod(const void *a, const void *b);
/* Record that entity @idx of @kind (0 node, 1 pod, 2 job, 3 queue) came from object @obj. */
void gt_dec_source(struct gt_dec *x, int kind, uint32_t idx, int32_t obj);

/* decode_cluster.c */
int gt_dec_priority_class(struct gt_dec *x, const struct gt_doc *o);
int gt_dec_shard(struct gt_dec *x, const struct gt_doc *o);
int gt_dec_topology(struct gt_dec *x, const struct gt_doc *o);
int gt_dec_queue(struct gt_dec *x, const struct gt_doc *o);
/*
 * Before the queues are decoded: those whose chain of parents loops (a
 * queue its own parent, or a cycle of any length), to be refused. @objs:
 * indices of the Queue objects in d->objs.
 */
void gt_dec_queue_cycles(struct gt_dec *x, const size_t *objs, size_t n);
/*
 * Second pass over the queues decoded: parents. A queue whose parent is
 * missing or refused is an orphan: its jobs are not scheduled, and say why.
 */
void gt_dec_queue_parents(struct gt_dec *x, struct gt_doc *const *queues, size_t n);
void gt_dec_queues_release(struct gt_dec *x);
int gt_dec_node(struct gt_dec *x, const struct gt_doc *o);

/* decode_storage.c: a PersistentVolumeClaim (before the pods that mount it), and after the pods
 * PersistentVolume, StorageClass, CSIDriver, CSIStorageCapacity */
int gt_dec_claim(struct gt_dec *x, const struct gt_doc *o);
int gt_dec_pv(struct gt_dec *x, const struct gt_doc *o);
int gt_dec_storage_class(struct gt_dec *x, const struct gt_doc *o);
int gt_dec_csi_driver(struct gt_dec *x, const struct gt_doc *o);
int gt_dec_csi_capacity(struct gt_dec *x, const struct gt_doc *o);
/*
 * After every object: claims to classes and volumes, classes to drivers, pods to what their
 * unbound claims need. Without @known (no storage in the input) pods' claims are not judged.
 */
void gt_dec_storage_link(struct gt_dec *x, bool known);

/* decode_namespace.c: a Namespace (after the pods), then their link: with @known (the input or
 * the front end lists Namespaces) sorted, else namespaceSelectors with labels are said and dropped */
int gt_dec_namespace(struct gt_dec *x, const struct gt_doc *o);
void gt_dec_namespaces_link(struct gt_dec *x, bool known);

/* decode_job.c */
int gt_dec_podgroup(struct gt_dec *x, const struct gt_doc *o);
/* The job of PodGroup @ns/@name, or GT_NONE. */
int32_t gt_dec_find_job(struct gt_dec *x, const char *ns, const char *name);
/* What KAI's default podgrouper makes of a pod without an owner: a job of its own. */
int32_t gt_dec_implicit_job(struct gt_dec *x, const struct gt_doc *o, int64_t created);
/* Append a podset @name of minimum @min to @j (@o, the object, for the message). */
int gt_dec_add_podset(struct gt_dec *x, const struct gt_doc *o, struct gt_job *j, const char *name,
		      int32_t min, const struct gt_topology_constraint *topo);

/* decode_pod.c */
int gt_dec_pod(struct gt_dec *x, const struct gt_doc *o);
/* A label selector (matchExpressions, and matchLabels when given) of @o's @field into @out. */
int gt_dec_selector(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *exprs,
		    const struct gt_doc *match_labels, const char *field, struct gt_selector *out);
int gt_dec_configmap(struct gt_dec *x, const struct gt_doc *o);
/* The warning for the pending pods of other schedulers, after the pods. */
void gt_dec_pods_not_ours(struct gt_dec *x);
void gt_dec_pods_not_ours_release(struct gt_dec *x);
/* One container's requests alone (spec.<list>[i]), into a zeroed @out. */
int gt_dec_container_request(struct gt_dec *x, const struct gt_doc *o, const char *list, size_t i,
			     struct gt_pod *out);

/* decode_numa.c */
/* A NodeResourceTopology: its node's NUMA zones (after the nodes). */
int gt_dec_nrt(struct gt_dec *x, const struct gt_doc *o);
/* What @p's node's kubelet aligns for it, and its recorded NUMA placement (core/numa.h). */
int gt_dec_pod_numa(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p);

/* decode_dra.c: DRA (resource.k8s.io/v1), after the nodes and before the pods */
int gt_dec_device_class(struct gt_dec *x, const struct gt_doc *o);
int gt_dec_resource_slice(struct gt_dec *x, const struct gt_doc *o);
int gt_dec_claim_template(struct gt_dec *x, const struct gt_doc *o);
int gt_dec_resource_claim(struct gt_dec *x, const struct gt_doc *o);
/* The pod's spec.resourceClaims, for pod index @pod (the last step of decoding a pod). */
int gt_dec_pod_dra(struct gt_dec *x, const struct gt_doc *o, uint32_t pod);
/* After the pods: selectors evaluated, columns, consumers and carriers (core/dra.h). */
void gt_dec_dra_finish(struct gt_dec *x);
void gt_dec_dra_release(struct gt_dec *x);

#endif /* GT_DECODE_INT_H */
