/*
 * internal.h - what the podgrouper's files share; not part of its API
 *
 * A rule (one per workload kind) sees the pod, its top owner and the chain of
 * owners through a struct gt_pg_ctx and fills a struct gt_podgroup. Objects
 * are seen through struct gt_pg_obj so that a skipped top owner (an Argo
 * Workflow, a TrainJob) can lend its labels and annotations to the owner
 * below it without the caller's documents being changed.
 */
#ifndef GT_PODGROUPER_INTERNAL_H
#define GT_PODGROUPER_INTERNAL_H

#include "api/object.h"
#include "podgrouper/podgrouper.h"

#define GT_PG_MAX_EXTRA 8	/* skipped owners (and their kinds' defaults) one object can inherit from */
#define GT_PG_FALLBACK_QUEUE "default-queue"

/* KAI's label and annotation keys the rules read. */
#define GT_PG_PRIORITY_LABEL "priorityClassName"
#define GT_PG_PREEMPTIBILITY_LABEL "kai.scheduler/preemptibility"
#define GT_PG_PROJECT_LABEL "project"
#define GT_PG_USER_KEY "user"
#define GT_PG_TOPOLOGY "kai.scheduler/topology"
#define GT_PG_TOPOLOGY_REQUIRED "kai.scheduler/topology-required-placement"
#define GT_PG_TOPOLOGY_PREFERRED "kai.scheduler/topology-preferred-placement"
#define GT_PG_SEGMENT_SIZE "kai.scheduler/segment-size"
#define GT_PG_SEGMENT_REQUIRED "kai.scheduler/segment-topology-required-placement"
#define GT_PG_SEGMENT_PREFERRED "kai.scheduler/segment-topology-preferred-placement"
#define GT_PG_TOP_OWNER_METADATA "kai.scheduler/top-owner-metadata"
#define GT_PG_PREEMPTION_DELAY "kai.scheduler/preemption-delay"
#define GT_PG_STALENESS_GRACE "kai.scheduler/staleness-grace-period"
#define GT_PG_BATCH_MIN_MEMBER "kai.scheduler/batch-min-member"
#define GT_PG_MAX_SEGMENTS 10000

/* An object as a rule sees it: its own metadata, then that of skipped owners. */
struct gt_pg_obj {
	const struct gt_doc *doc;
	const struct gt_doc *extra[GT_PG_MAX_EXTRA];	/* nearest skipped owner first */
	int n_extra;
};

struct gt_pg_ctx {
	const struct gt_pg_config *cfg;
	const struct gt_pg_request *req;
	const struct gt_doc *pod;
	struct gt_pg_obj top;		/* the owner the rule is chosen by */
	/*
	 * KAI's "all owners": the pod's owner first, the top owner last (seen
	 * as @top); just the top owner for a pod without owner.
	 */
	struct gt_pg_obj *chain;
	size_t n_chain;
	/*
	 * A wrapper was skipped: KAI's skip-top-owner grouper then looks the
	 * owner below up by its exact group, version and kind, and never asks
	 * a Karta.
	 */
	bool after_skip;
	struct gt_doc **synth;	/* documents made for this pod (a skipped kind's defaults); owned */
	size_t n_synth, cap_synth;
	struct gt_err *err;
};

typedef int (*gt_pg_rule_fn)(struct gt_pg_ctx *x, struct gt_podgroup *pg);

/* ---------------------------------------------------------------- object.c */

const char *gt_pg_kind(const struct gt_doc *d);		/* "" when missing */
const char *gt_pg_name(const struct gt_doc *d);		/* "" when missing */
const char *gt_pg_ns(const struct gt_doc *d);		/* "default" when missing */
const char *gt_pg_uid(const struct gt_doc *d);		/* NULL when missing */
const char *gt_pg_api_version(const struct gt_doc *d);	/* "v1" when missing */
/* Does @d's apiVersion have API group @group ("" for core)? */
bool gt_pg_in_group(const struct gt_doc *d, const char *group);
/* @d's API group and version, split from apiVersion. */
void gt_pg_group_version(const struct gt_doc *d, char *group, size_t size, const char **version);

/* "Kind namespace/name", for messages. */
struct gt_pg_id {
	char s[320];
};
struct gt_pg_id gt_pg_id(const struct gt_doc *d);

/* Key @key of metadata.@field ("labels", "annotations") of @o or its skipped owners. */
const char *gt_pg_meta(const struct gt_pg_obj *o, const char *field, const char *key);
const char *gt_pg_label(const struct gt_pg_obj *o, const char *key);
const char *gt_pg_annotation(const struct gt_pg_obj *o, const char *key);
static inline struct gt_pg_obj gt_pg_obj_of(const struct gt_doc *d)
{
	return (struct gt_pg_obj){ .doc = d };
}

/*
 * Integer scalar @d: 0 and *out; GT_ENOTFOUND when @d is missing or null;
 * GT_EINVAL when it is not an integer.
 */
int gt_pg_int(const struct gt_doc *d, int64_t *out);

/* An object of @kind named @ns/@name among the owners and related objects. */
const struct gt_doc *gt_pg_find(const struct gt_pg_ctx *x, const char *kind, const char *ns,
				const char *name);

/*
 * Every object of @kind among the owners' related objects, through the index
 * when there is one: start with it->i = 0 and it->cursor = -2, then call
 * until NULL.
 */
struct gt_pg_iter {
	size_t i;
	int32_t cursor;
};
const struct gt_doc *gt_pg_each_of_kind(const struct gt_pg_ctx *x, const char *kind,
					struct gt_pg_iter *it);

/* Fail with GT_EINVAL and a message (it should name the object and field). */
int gt_pg_fail(struct gt_pg_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A strictly positive int32 in annotation text, as strconv.ParseInt(v, 10, 32)
 * reads it and KAI then requires: 0 and *out, or GT_EINVAL.
 */
int gt_pg_parse_count(const char *v, int32_t *out);

/* ---------------------------------------------------------------- result.c */

void gt_pg_set(char **field, const char *value);	/* copy of @value; NULL clears */
void gt_pg_setf(char **field, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* *@field = the join of @first and the strings after it up to a NULL (no format: a few per pod). */
void gt_pg_setj(char **field, const char *first, ...) __attribute__((sentinel));
void gt_pg_kvs_set(struct gt_pg_kvs *m, const char *key, const char *value);
void gt_pg_kvs_release(struct gt_pg_kvs *m);
struct gt_pg_subgroup *gt_pg_add_subgroup(struct gt_podgroup *pg, const char *name,
					  int64_t min_member, const char *parent);
void gt_pg_clear_subgroups(struct gt_podgroup *pg);
void gt_pg_set_topology(struct gt_pg_topology *t, const char *topology, const char *required,
			const char *preferred);
/* Make sub-group @sg a parent that needs @n placeable children (minSubGroup). */
void gt_pg_set_min_subgroup(struct gt_pg_subgroup *sg, int64_t n);
void gt_pg_topology_release(struct gt_pg_topology *t);
void gt_pg_set_owner(struct gt_pg_owner_ref *o, const struct gt_doc *d);
void gt_pg_owner_release(struct gt_pg_owner_ref *o);
/*
 * What of a PodGroup makes its document (gt_podgroup_to_doc), as a text: two
 * PodGroups with the same fingerprint make the same document. The pod's own
 * sub-group, the rule and the warning do not count. Labels and annotations
 * count in their order, so the same ones in another order differ (a caller
 * that then updates the document changes nothing). A few hundred bytes,
 * where the PodGroup itself is a dozen allocations: what the podgrouper
 * keeps of each new PodGroup to tell whether the next pod changes it.
 */
struct gt_pg_fingerprint {
	char *bytes;
	size_t len, cap;
};
/* Write @pg's fingerprint into @f (its bytes reused and grown). */
void gt_pg_podgroup_fingerprint(const struct gt_podgroup *pg, struct gt_pg_fingerprint *f);

/*
 * The parts of PodGroup documents that repeat from PodGroup to PodGroup (the
 * spec of a queue's bare pods, a queue's labels), made once: the documents
 * made in one input through one memo (gt_podgroup_to_doc_in) share them.
 * Nothing may change such a document in place (gt_pg_podgroup_update copies
 * first); they go with their input.
 */
struct gt_pg_doc_memo {
	struct gt_strtab texts;		/* what each part holds, printed as fingerprints are: id i is parts[i] */
	struct gt_doc **parts;
	size_t n_parts, cap_parts;
	struct gt_pg_fingerprint text;	/* the part at hand's */
};
void gt_pg_doc_memo_init(struct gt_pg_doc_memo *m);
void gt_pg_doc_memo_release(struct gt_pg_doc_memo *m);
/* pg-<name>-<uid>, or pg-<name> when there is no uid. */
void gt_pg_name_uid(char **field, const char *name, const char *uid);
/* The default PodGroup name for @d: pg-<name of d>-<uid of d>. */
void gt_pg_default_name(char **field, const struct gt_doc *d);

/* Building documents (the PodGroups to add, the patched pods). */
struct gt_doc *gt_pg_doc_new_map(void);
struct gt_doc *gt_pg_doc_new_seq(void);
struct gt_doc *gt_pg_doc_new_str(const char *s);
struct gt_doc *gt_pg_doc_new_int(int64_t v);
/* A plain (unquoted) scalar: a number, true, false or null as text. */
struct gt_doc *gt_pg_doc_new_plain(const char *s);
/* A deep copy of @d (NULL for NULL). */
struct gt_doc *gt_pg_doc_copy(const struct gt_doc *d);
/* Set @key of map @map to @value (owned by @map; an old value is freed). */
void gt_pg_doc_put(struct gt_doc *map, const char *key, struct gt_doc *value);
/* Append @value (owned by @seq) to sequence @seq. */
void gt_pg_doc_append(struct gt_doc *seq, struct gt_doc *value);
/* Remove @key from map @map (freeing its value); nothing when it is not there. */
void gt_pg_doc_del(struct gt_doc *map, const char *key);
/* The map under @key of @map, created when missing or not a map. */
struct gt_doc *gt_pg_doc_child_map(struct gt_doc *map, const char *key);
/* Take @d as a document that lives as long as the grouping of this pod. */
struct gt_doc *gt_pg_keep(struct gt_pg_ctx *x, struct gt_doc *d);

/* ---------------------------------------------------------------- resolve.c */

/*
 * KAI's default grouper: fill @pg for top owner @top with owners @owners
 * (searched for the priority class and preemptibility, the pod consulted
 * alongside each) and fallback priority class @fallback: name
 * pg-<top>-<uid>, minMember 1, no sub-groups, queue, priority,
 * preemptibility, labels, annotations, owner reference and topology from
 * @top's annotations.
 */
void gt_pg_default(struct gt_pg_ctx *x, const struct gt_pg_obj *top, const struct gt_pg_obj *owners,
		   size_t n_owners, const char *fallback, struct gt_podgroup *pg);
/* The same with just @top as owner, as most of KAI's rules call it. */
void gt_pg_default_top(struct gt_pg_ctx *x, const struct gt_pg_obj *top, const char *fallback,
		       struct gt_podgroup *pg);
/*
 * Copy @o's metadata.@field ("labels" or "annotations"), a skipped owner's
 * entries where @o has none, into @dst; entries @dst already has are kept
 * unless @override.
 */
void gt_pg_merge_meta(struct gt_pg_kvs *dst, const struct gt_pg_obj *o, const char *field,
		      bool override);
/* Priority class for @owners and the pod, per-kind defaults, else @fallback. */
const char *gt_pg_priority(const struct gt_pg_ctx *x, const struct gt_pg_obj *owners,
			   size_t n_owners, const char *fallback);
/* The queue for top owner @top: queue label, project label, else default-queue. */
void gt_pg_resolve_queue(const struct gt_pg_ctx *x, const struct gt_pg_obj *top, char **queue);
bool gt_pg_priority_exists(const struct gt_pg_config *cfg, const char *name);
/*
 * KAI's ResolveDefaultsForKind: the defaults ConfigMap's priority class for
 * @group/@kind (NULL unless that PriorityClass exists) and its preemptibility
 * as written (NULL when none).
 */
void gt_pg_kind_defaults(const struct gt_pg_config *cfg, const char *group, const char *kind,
			 const char **priority, const char **preemptibility);
/*
 * preemptionDelay and stalenessGracePeriod: the annotation of the first of
 * @owners that has a valid one, else the pod's (a negative preemption delay
 * is not valid); unset otherwise.
 */
void gt_pg_resolve_durations(const struct gt_pg_ctx *x, const struct gt_pg_obj *owners,
			     size_t n_owners, struct gt_podgroup *pg);
/* Parse @v as KAI's ParsePreemptionDelay (true) or ParseStalenessGracePeriod. */
bool gt_pg_duration_of(const char *v, bool non_negative, struct gt_pg_duration *out);
/* "preemptible" / "non-preemptible" for a valid spelling, else NULL. */
const char *gt_pg_preemptibility_value(const char *s);

/* ---------------------------------------------------------------- dispatch.c */

/* Choose the rule for x->top and run it (custom rules first, then KAI's table). */
int gt_pg_dispatch(struct gt_pg_ctx *x, struct gt_podgroup *pg);

/* ---------------------------------------------------------------- rules */

int gt_pg_rule_default(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_pod(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_deployment(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_replicaset(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_statefulset(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_job(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_cronjob(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_runaijob(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_aml(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_inference(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_tfjob(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_pytorchjob(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_xgboostjob(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_jaxjob(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_mpijob(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_notebook(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_ray(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_knative(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_lws(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_jobset(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_grove(struct gt_pg_ctx *x, struct gt_podgroup *pg);
int gt_pg_rule_custom(struct gt_pg_ctx *x, const struct gt_pg_custom_rule *r,
		      struct gt_podgroup *pg);
/*
 * KAI's Karta fallback for x->top's kind: 1 when a Karta describes it and
 * grouped the pod (or failed: then GT_EINVAL), 0 when none does (*pg is then
 * untouched but for pg->warning when Kartas were passed over).
 */
int gt_pg_rule_karta(struct gt_pg_ctx *x, struct gt_podgroup *pg);
/* The Kartas among @ix's objects, read and validated once (NULL when there are none). */
struct gt_pg_kartas *gt_pg_kartas_build(const struct gt_pg_index *ix);
void gt_pg_kartas_free(struct gt_pg_kartas *k);

#endif /* GT_PODGROUPER_INTERNAL_H */
