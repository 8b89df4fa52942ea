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

#define GT_DEC_DEFAULT_QUEUE "default-queue"

struct gt_dec {
	struct gt_decoder *d;
	struct gt_cluster *c;
	struct gt_strtab *names;
	size_t obj;		/* the object being decoded (index into d->objs) */
	/* name lookups, as string table id -> index + 1 (0 = absent) */
	int32_t *queue_by_name, *node_by_name, *topo_by_name, *prio_by_name;
	int32_t *prio_value;
	size_t n_lookup;
	int32_t default_priority;
	bool have_default_priority;
	int64_t *job_by_key;	/* ns/name key id -> job index + 1 */
	size_t n_job_lookup;
	bool *orphan_queue;	/* by queue index: its parent is missing */
	size_t cap_entity_obj[4];	/* capacities of d->node_obj, pod_obj, job_obj, queue_obj */
};

/* decode.c */
/* Reject the object being decoded: @field is at fault, @what says how (@value quoted after it). */
int gt_dec_fail(struct gt_dec *x, const struct gt_doc *o, const char *field, const char *what,
		const char *value);
void gt_dec_warn(struct gt_dec *x, const char *fmt, const char *a, const char *b);
uint32_t gt_dec_intern(struct gt_dec *x, const char *s);
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
/* Reject an object without a name, or whose name lookup @tab has already (@what: "queue", "node"). */
int gt_dec_check_name(struct gt_dec *x, const struct gt_doc *o, const int32_t *tab, const char *what);
/* Bindings by pod document (qsort/bsearch order). */
int gt_dec_by_pod(const void *a, const void *b);
/* Record that entity @idx of @kind (0 node, 1 pod, 2 job, 3 queue) came from object @obj. */
void gt_dec_source(struct gt_dec *x, int kind, uint32_t idx, int32_t obj);

/* decode_cluster.c */
int gt_dec_priority_class(struct gt_dec *x, const struct gt_doc *o);
int gt_dec_shard(struct gt_dec *x, const struct gt_doc *o);
int gt_dec_topology(struct gt_dec *x, const struct gt_doc *o);
int gt_dec_queue(struct gt_dec *x, const struct gt_doc *o);
/* Second pass over the queues: parents. A queue whose parent is missing is an orphan. */
void gt_dec_queue_parents(struct gt_dec *x, struct gt_doc *const *queues, size_t n);
int gt_dec_node(struct gt_dec *x, const struct gt_doc *o);

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
int gt_dec_configmap(struct gt_dec *x, const struct gt_doc *o);

#endif /* GT_DECODE_INT_H */
