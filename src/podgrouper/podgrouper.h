/*
 * podgrouper.h - which pods form one gang, decided the way KAI's podgrouper does
 *
 * Teams submit a PyTorchJob, a RayCluster or an Argo workflow as they always
 * do; the podgrouper works out, for every pod, the PodGroup it belongs to:
 * its name, queue, priority, preemptibility, gang size (minMember), its
 * sub-groups and topology constraints, and the sub-group the pod itself joins.
 * The rules are KAI's (KAI-SPEC section 8), one per workload kind, chosen by
 * the kind of the pod's top owner; docs/podgrouper.md lists them.
 *
 * Everything here is pure: no I/O, no clock, no globals. The caller reads the
 * pod and its owners (from the API server, or from the documents given to the
 * simulator) and hands them over as parsed documents (api/doc.h). Two entry
 * points:
 *
 *  - gt_pg_group_pod(): one pod and its chain of owners -> one PodGroup, or an
 *    error that names the object and the field ("PyTorchJob team-a/llm has a
 *    Worker replica spec with 0 replicas (spec.pytorchReplicaSpecs.Worker.
 *    replicas)"); the controller turns such errors into PodGrouperWarning
 *    events;
 *  - gt_pg_group_all(): every pod of ours among a list of documents whose
 *    owners are in the same list -> the PodGroup documents to add and the
 *    annotation and label to set on each pod (what the simulator needs).
 *
 * Beyond KAI (docs/podgrouper.md): an opt-in gang for StatefulSets,
 * ReplicaSets and Deployments (annotation kai.scheduler/gang-replicas on the
 * owner), and grouping rules for custom resources declared in configuration.
 */
#ifndef GT_PODGROUPER_H
#define GT_PODGROUPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/doc.h"
#include "util/err.h"
#include "util/strtab.h"

/* Keys the podgrouper writes on pods. */
#define GT_PG_POD_ANNOTATION "pod-group-name"
#define GT_PG_SUBGROUP_LABEL "kai.scheduler/subgroup-name"
/* "true" on a pod or any of its owners: KAI's podgrouper leaves the pod alone. */
#define GT_PG_SKIP_ANNOTATION "kai.scheduler/skip-podgrouper"

/* Configuration defaults (KAI's podgrouper flags). */
#define GT_PG_DEFAULT_SCHEDULER "kai-scheduler"
#define GT_PG_DEFAULT_QUEUE_LABEL "kai.scheduler/queue"
#define GT_PG_DEFAULT_NODE_POOL_LABEL "kai.scheduler/node-pool"
#define GT_PG_DEFAULT_GANG_ANNOTATION "kai.scheduler/gang-replicas"

/*
 * One entry of KAI's per-kind defaults ConfigMap (data.types, a JSON list of
 * {typeName, group, priorityName, preemptibility}): the priority class and
 * preemptibility a kind gets when neither the owners nor the pod say.
 */
struct gt_pg_kind_default {
	char *kind;		/* typeName */
	char *group;		/* API group, "" for the core group and for "any group" */
	char *priority;		/* priorityName, or NULL */
	char *preemptibility;	/* or NULL */
};

/*
 * A grouping rule for a custom resource, from configuration, so that a new
 * operator needs no code. The rule applies when the pod's top owner has this
 * group/kind (and version, unless "*"). See docs/podgrouper.md for the YAML.
 */
struct gt_pg_custom_rule {
	char *group, *version, *kind;	/* version "*" matches every version */
	bool skip;		/* skip this owner like an Argo Workflow: the owner below decides */
	char *replicas;		/* dotted path to an integer, a map of roles or a list of roles */
	char *replicas_field;	/* inside one role: dotted path to its count ("replicas") */
	char *role_name_field;	/* list roles: the field that names the role ("name") */
	char *role_label;	/* pod label naming the pod's role, or NULL: no sub-groups */
	char *min_member;	/* dotted path to an integer overriding the sum, or NULL */
	char *priority;		/* fallback priority class ("train") */
};

struct gt_pg_config {
	char *scheduler_name;	/* pods with this spec.schedulerName are ours */
	char *queue_label;	/* label naming the queue */
	char *node_pool_label;	/* copied from pod to PodGroup; "" disables */
	char *gang_annotation;	/* the opt-in gang annotation (beyond KAI) */
	bool knative_gang;	/* --knative-gang-schedule: one PodGroup per Revision */
	bool search_legacy_pg;	/* --search-legacy-pg: a Job's (or RunaiJob's) pods keep the
				   per-pod PodGroup an older podgrouper made */
	bool karta_fallback;	/* --generic-karta-fallback: kinds without a rule are grouped
				   by the Karta that describes them, if any */
	bool shipped_priority_classes;	/* train, build-preemptible, build and inference exist */
	char **priority_classes;	/* PriorityClasses known to exist, besides the shipped */
	size_t n_priority_classes, cap_priority_classes;
	char *defaults_cm_namespace, *defaults_cm_name;	/* where gt_pg_group_all finds the
							   defaults ConfigMap; NULL: none */
	struct gt_pg_kind_default *defaults;
	size_t n_defaults, cap_defaults;
	struct gt_pg_custom_rule *rules;
	size_t n_rules, cap_rules;
};

/* KAI's defaults; the shipped priority classes count as existing. Allocates. */
void gt_pg_config_init(struct gt_pg_config *c);
void gt_pg_config_release(struct gt_pg_config *c);

/*
 * Read a podgrouper configuration document (YAML, parsed with api/doc.h) into
 * @c, which holds the defaults from gt_pg_config_init(); keys the document
 * leaves out keep them. Returns 0, or GT_EINVAL with a message naming the key
 * (unknown keys are errors, so a typo is not silently ignored).
 */
int gt_pg_config_load(struct gt_pg_config *c, const struct gt_doc *doc, struct gt_err *err);

/*
 * Replace the per-kind defaults with those of KAI's defaults ConfigMap
 * @configmap (a v1 ConfigMap whose data.types is a JSON list). Returns 0, or
 * GT_EINVAL naming the ConfigMap and what is wrong.
 */
int gt_pg_config_set_defaults(struct gt_pg_config *c, const struct gt_doc *configmap,
			      struct gt_err *err);

/* Record that PriorityClass @name exists. */
void gt_pg_config_add_priority_class(struct gt_pg_config *c, const char *name);

/* ---------------------------------------------------------------- one pod */

/*
 * Objects indexed by kind, namespace and name, so that a rule finds a
 * related object (a Job's legacy PodGroup, a Grove PodGang) in O(1) rather
 * than by scanning them all: what grouping thousands of pods needs.
 */
struct gt_pg_kartas;

struct gt_pg_index {
	const struct gt_doc *const *objs;	/* borrowed */
	size_t n;
	struct gt_strtab keys;	/* "kind\nnamespace\nname" */
	int32_t *first;		/* key id -> first object with it */
	int32_t *next;		/* object -> next object with the same key, or -1 */
	struct gt_strtab kinds;	/* "kind" */
	int32_t *kind_first;	/* kind id -> first object of that kind */
	int32_t *kind_next;	/* object -> next object of the same kind, or -1 */
	struct gt_pg_kartas *kartas;	/* the Kartas among @objs, read once (karta.c), or NULL */
};

/* Index @objs[0..n) (borrowed: they must outlive the index). */
void gt_pg_index_build(struct gt_pg_index *ix, const struct gt_doc *const *objs, size_t n);
void gt_pg_index_release(struct gt_pg_index *ix);
/*
 * The objects of @kind named @ns/@name: the first, then each next one via
 * gt_pg_index_next(). NULL when there is none (more).
 */
const struct gt_doc *gt_pg_index_find(const struct gt_pg_index *ix, const char *kind,
				      const char *ns, const char *name, int32_t *cursor);
const struct gt_doc *gt_pg_index_next(const struct gt_pg_index *ix, int32_t *cursor);
/* Every object of @kind, in input order: the first, then each next via gt_pg_index_next_of_kind(). */
const struct gt_doc *gt_pg_index_first_of_kind(const struct gt_pg_index *ix, const char *kind,
					       int32_t *cursor);
const struct gt_doc *gt_pg_index_next_of_kind(const struct gt_pg_index *ix, int32_t *cursor);
/*
 * The owner reference of @d to follow up the chain: the controller one, else
 * the first (KAI takes the first; a controller reference is what ownership
 * means). NULL when @d has none.
 */
const struct gt_doc *gt_pg_owner_ref(const struct gt_doc *d);

struct gt_pg_request {
	const struct gt_doc *pod;
	/*
	 * The pod's owners as full objects: the pod's controller owner first,
	 * then its owner, and so on up to the top owner (the one without an
	 * owner). Empty for a pod without owner.
	 */
	const struct gt_doc *const *owners;
	size_t n_owners;
	/*
	 * Other objects some rules consult, as KAI's grouper reads them from the
	 * API server: sibling pods (an MPIJob's launcher, a Knative revision's
	 * earlier pods), Grove PodGangs, RayClusters not in the owner chain,
	 * existing PodGroups (legacy names and shapes) and the cluster's Kartas
	 * (run.ai/v1alpha1, for kinds without a rule). May be empty; a rule that
	 * needs an object that is not there says so in its error.
	 */
	const struct gt_doc *const *related;
	size_t n_related;
	const struct gt_pg_index *index;	/* @related indexed, or NULL: they are scanned */
};

/* A topology constraint; every field NULL when there is none. */
struct gt_pg_topology {
	char *topology;		/* Topology CR name */
	char *required;		/* requiredTopologyLevel */
	char *preferred;	/* preferredTopologyLevel */
};

struct gt_pg_subgroup {
	char *name;
	int32_t min_member;	/* a leaf's gang (minMember) */
	bool has_min_subgroup;	/* a parent: minSubGroup instead of minMember */
	int32_t min_subgroup;	/* children that must be placeable */
	char *parent;		/* NULL: a child of the PodGroup itself */
	struct gt_pg_topology topology;
};

/*
 * A Go duration (metav1.Duration in the PodGroup spec), in nanoseconds, so
 * that it is written back exactly as KAI writes it ("5m" becomes "5m0s").
 */
struct gt_pg_duration {
	bool set;
	int64_t ns;
};

/*
 * Parse Go's duration syntax ("300ms", "1.5h", "-2m30s", "0"): 0, or
 * GT_EINVAL for text time.ParseDuration rejects (no unit, an unknown unit,
 * more than 2^63-1 ns).
 */
int gt_pg_parse_duration(const char *s, int64_t *ns);

struct gt_pg_kv {
	char *key, *value;
};

/* A small string map in insertion order (labels, annotations). */
struct gt_pg_kvs {
	struct gt_pg_kv *items;
	size_t n, cap;
};

struct gt_pg_owner_ref {
	char *api_version, *kind, *name, *uid;	/* uid NULL when the object has none */
};

/* The PodGroup one pod belongs to, and what to set on the pod. */
struct gt_podgroup {
	char *name, *namespace;
	char *queue;
	char *priority_class;
	char *preemptibility;	/* "preemptible", "non-preemptible", or NULL: from priority */
	int32_t min_member;
	bool has_min_subgroup;	/* minSubGroup (of the top sub-groups) instead of minMember */
	int32_t min_subgroup;
	struct gt_pg_duration preemption_delay;	/* kai.scheduler/preemption-delay */
	struct gt_pg_duration staleness_grace;	/* kai.scheduler/staleness-grace-period */
	struct gt_pg_subgroup *subgroups;
	size_t n_subgroups, cap_subgroups;
	struct gt_pg_topology topology;
	struct gt_pg_kvs labels, annotations;
	struct gt_pg_owner_ref owner;	/* the PodGroup's owner reference */
	char *pod_subgroup;	/* kai.scheduler/subgroup-name for the pod, or NULL */
	const char *rule;	/* the rule that grouped the pod ("pytorch"); static */
	/*
	 * Something the caller should report although the pod was grouped
	 * (KAI logs it): a Karta that was passed over because it is invalid, or
	 * because several describe the kind. NULL when all is well.
	 */
	char *warning;
};

/*
 * Work out the PodGroup of @req->pod. On success fills @out (which the
 * caller releases with gt_podgroup_release()) and returns 0. On failure
 * returns GT_EINVAL with a message naming the object and the field; @out is
 * then empty. @cfg is only read.
 */
int gt_pg_group_pod(const struct gt_pg_config *cfg, const struct gt_pg_request *req,
		    struct gt_podgroup *out, struct gt_err *err);
void gt_podgroup_release(struct gt_podgroup *pg);

/* Value of @key in @m, or NULL. */
const char *gt_pg_kvs_get(const struct gt_pg_kvs *m, const char *key);

/* @pg as a scheduling.run.ai/v2alpha2 PodGroup document (owned by the caller). */
struct gt_doc *gt_podgroup_to_doc(const struct gt_podgroup *pg);

/* The parts PodGroup documents made in one input share (podgrouper/internal.h). */
struct gt_pg_doc_memo;

/*
 * The same made in @in (api/doc.h's gt_doc_list_input: it goes with its
 * list), its repeating parts shared through @memo (NULL: none shared), or
 * on the heap (@in NULL; @memo is not used then).
 */
struct gt_doc *gt_podgroup_to_doc_in(const struct gt_podgroup *pg, struct gt_doc_input *in,
				     struct gt_pg_doc_memo *memo);

/*
 * Does KAI's reconciler leave @req->pod alone (pkg/podgrouper/pod_controller.go)?
 * GT_PG_SKIP_ANNOTATED when the pod or one of @req->owners has the annotation
 * kai.scheduler/skip-podgrouper "true" (*@by: that object);
 * GT_PG_SKIP_OWN_PODGROUP when the pod has no owner and already names its
 * PodGroup (the user's own arrangement; *@by: the pod); else GT_PG_GROUP.
 * The caller checks this before gt_pg_group_pod(), as KAI's reconciler does
 * before asking a grouper; @by may be NULL.
 */
enum gt_pg_skip { GT_PG_GROUP, GT_PG_SKIP_ANNOTATED, GT_PG_SKIP_OWN_PODGROUP };
enum gt_pg_skip gt_pg_skip_reason(const struct gt_pg_request *req, const struct gt_doc **by);

/*
 * KAI's update of a PodGroup that exists (pkg/podgrouper/podgroup/handler.go):
 * the object to write so that @existing (as read from the API server) says
 * what the podgrouper computed, @computed, and nothing else changes. The
 * podgrouper owns the spec and the owner reference; it keeps from @existing
 * what people and other controllers set: spec.queue, spec.markUnschedulable,
 * spec.schedulingBackoff, the topology constraint when @computed has none,
 * the node-pool label (never added later) and the queue label, and every
 * label and annotation it does not set itself (labels and annotations are
 * only added or changed, never removed). Everything else of @existing
 * (status, resourceVersion, ...) is copied. @cfg names the two label keys.
 * Returns a new document owned by the caller.
 */
struct gt_doc *gt_pg_podgroup_update(const struct gt_pg_config *cfg, const struct gt_doc *existing,
				     const struct gt_podgroup *computed);

/*
 * Does an owner's change from @old to @cur (two versions of one object)
 * change what the rules read of it? Its spec, labels, annotations and
 * owner references do; its status does not, except the RayCluster a RayJob
 * or a RayService names; nor does the bookkeeping of its metadata
 * (resourceVersion, generation, managedFields). The controller groups the
 * pods of an owner again only for a change that matters: a 1,000-pod Job's
 * status moves with every pod.
 */
bool gt_pg_owner_change_matters(const struct gt_doc *old, const struct gt_doc *cur);

/* ---------------------------------------------------------------- many pods */

struct gt_pg_assignment {
	struct gt_doc *pod;	/* borrowed from the input */
	char *podgroup;		/* value for the pod-group-name annotation */
	char *subgroup;		/* value for the kai.scheduler/subgroup-name label, or NULL */
};

struct gt_pg_batch {
	struct gt_doc **podgroups;	/* PodGroup documents to add; owned */
	size_t n_podgroups, cap_podgroups;
	struct gt_doc_list memory;	/* where most of them are made: one arena (api/doc.h) */
	struct gt_pg_assignment *pods;	/* one per grouped pod, in input order */
	size_t n_pods, cap_pods;
	char **warnings;		/* pods that could not be grouped, and why (the
					   controller's PodGrouperWarning events), and
					   Kartas passed over (gt_podgroup.warning); owned */
	size_t n_warnings, cap_warnings;
};

/*
 * Group every pod among @docs (v1 Lists are unpacked) whose spec.schedulerName
 * is cfg->scheduler_name, that has no pod-group-name annotation yet and whose
 * owners are all among @docs. Pods with an owner missing from @docs, and pods
 * KAI skips (gt_pg_skip_reason()), are left alone (the simulator treats them
 * as bare pods). PriorityClass documents, the defaults ConfigMap named by @cfg
 * and Kartas are taken from @docs as well.
 *
 * A PodGroup that @docs already holds (same namespace and name) is not added
 * again; its pods are still assigned to it. When several pods share a new
 * PodGroup, it is the one computed for the first of them updated for each
 * next one as KAI's reconciler updates it (gt_pg_podgroup_update(): the last
 * pod's spec, the first pod's queue).
 *
 * Returns 0 (a pod that cannot be grouped becomes a warning, not a failure),
 * or GT_EINVAL when the defaults ConfigMap in @docs is malformed. @out is
 * zero-initialised by the caller and released with gt_pg_batch_release().
 * Nothing in @docs is changed; gt_pg_batch_apply() does that.
 */
int gt_pg_group_all(const struct gt_pg_config *cfg, struct gt_doc *const *docs, size_t n,
		    struct gt_pg_batch *out, struct gt_err *err);

/*
 * Write each assignment into its pod document: the pod-group-name annotation
 * and, when there is one, the kai.scheduler/subgroup-name label (creating
 * metadata.annotations / metadata.labels as needed).
 */
void gt_pg_batch_apply(const struct gt_pg_batch *b);
void gt_pg_batch_release(struct gt_pg_batch *b);

#endif /* GT_PODGROUPER_H */
