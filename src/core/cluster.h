/*
 * cluster.h - the scheduling core's input: one immutable cluster snapshot
 *
 * Everything the core needs to decide a cycle, flattened into arrays and
 * dense ids. Names, label keys and label values are interned by the API
 * layer (src/api) into a string table; the core only compares the ids.
 * Quantities are integers in fixed units: milli-GPU, milli-CPU, bytes, MiB of
 * GPU memory. Times are seconds since the Unix epoch.
 *
 * Ownership: struct gt_cluster owns every array it points to; it is filled
 * by the API layer (gt_cluster_* helpers below) and released with
 * gt_cluster_release(). The core reads it through a const pointer and never
 * changes it; a session (session.h) copies the little mutable state it needs.
 */
#ifndef GT_CLUSTER_H
#define GT_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dra.h"
#include "util/cron.h"
#include "util/strtab.h"

#define GT_MAX_EXT 8		/* extended resources (MIG profiles, ...) */
#define GT_MAX_DEVICES 16	/* devices of one multi-device fraction */
#define GT_MAX_PODSETS 512	/* leaf sub-groups of one PodGroup, and inner ones */
#define GT_STR_(x) #x
#define GT_STR(x) GT_STR_(x)	/* a number macro as a string literal */
#define GT_NONE (-1)

/* Resources the queue tree divides: KAI's three, independent. */
enum gt_qres { GT_QGPU, GT_QCPU, GT_QMEM, GT_NQRES };

/* Pod status, KAI's set. Order matters only for the names table. */
#define GT_STATUS_MAP(X)         \
	X(PENDING, "Pending")     \
	X(GATED, "Gated")         \
	X(ALLOCATED, "Allocated") \
	X(PIPELINED, "Pipelined") \
	X(BINDING, "Binding")     \
	X(BOUND, "Bound")         \
	X(RUNNING, "Running")     \
	X(RELEASING, "Releasing") \
	X(STUCK_RELEASING, "StuckInReleasing") \
	X(SUCCEEDED, "Succeeded") \
	X(FAILED, "Failed")

enum gt_status {
#define GT_STATUS_ENUM(name, text) GT_##name,
	GT_STATUS_MAP(GT_STATUS_ENUM)
#undef GT_STATUS_ENUM
	GT_N_STATUS
};

const char *gt_status_name(enum gt_status s);

/* Holds node resources: Allocated, Pipelined, Binding, Bound, Running, Releasing,
 * StuckInReleasing (whose resources are not counted on for pipelining). */
static inline bool gt_status_active_used(enum gt_status s)
{
	return s >= GT_ALLOCATED && s <= GT_STUCK_RELEASING;
}
/* Counts toward a queue's allocation: Allocated, Binding, Bound, Running. */
static inline bool gt_status_allocated(enum gt_status s)
{
	return s == GT_ALLOCATED || s == GT_BINDING || s == GT_BOUND || s == GT_RUNNING;
}
/* Active and not being released: Allocated, Pipelined, Binding, Bound, Running. */
static inline bool gt_status_active_allocated(enum gt_status s)
{
	return s >= GT_ALLOCATED && s <= GT_RUNNING;
}
/* Alive: not finished and not being released. */
static inline bool gt_status_alive(enum gt_status s)
{
	return s <= GT_RUNNING;
}

struct gt_label {
	uint32_t key, val;	/* interned */
};

/* A set of labels sorted by key (one value per key). */
struct gt_labels {
	struct gt_label *v;
	uint32_t n;
};

enum gt_sel_op { GT_SEL_IN, GT_SEL_NOT_IN, GT_SEL_EXISTS, GT_SEL_NOT_EXISTS,
		 GT_SEL_GT, GT_SEL_LT };

/* One label-selector requirement: key op values. */
struct gt_sel_expr {
	uint32_t key;
	enum gt_sel_op op;
	uint32_t *vals;
	uint32_t n_vals;
	int64_t num;		/* GT/LT operand */
};

/* A conjunction of requirements (a node selector term, a label selector). */
struct gt_selector {
	struct gt_sel_expr *exprs;
	uint32_t n_exprs;
};

enum gt_taint_effect { GT_TAINT_NO_SCHEDULE, GT_TAINT_PREFER_NO_SCHEDULE,
		       GT_TAINT_NO_EXECUTE, GT_TAINT_ANY };

struct gt_taint {
	uint32_t key, val;
	enum gt_taint_effect effect;
};

struct gt_toleration {
	int64_t key;		/* -1: empty key (matches all with Exists) */
	uint32_t val;
	bool exists;		/* operator Exists (else Equal) */
	enum gt_taint_effect effect;	/* GT_TAINT_ANY when empty */
};

struct gt_pod_affinity_term {
	struct gt_selector selector;	/* over pod labels */
	uint32_t topology_key;
	bool anti;
	/* namespaces the selector applies to: the term's namespaces, else the
	 * pod's own; every namespace with an empty namespaceSelector */
	uint32_t *namespaces;
	uint32_t n_namespaces;
	bool all_namespaces;
	int32_t weight;		/* a preferred term's weight (1..100); 0 for a required one */
	/* a namespaceSelector with requirements: the namespaces whose labels it matches are
	 * covered too (core/namespaces.h) */
	bool has_ns_selector;
	struct gt_selector ns_selector;
};

struct gt_node {
	uint32_t name;
	uint32_t name_rank;	/* position in name order: KAI breaks score ties by name */
	struct gt_labels labels;
	struct gt_taint *taints;
	uint32_t n_taints;
	bool ready;
	bool unschedulable;
	int64_t cpu_milli;	/* allocatable */
	int64_t mem_bytes;
	int64_t pods;
	int32_t gpus;		/* whole devices allocatable (nvidia.com/gpu) */
	int64_t gpu_mem_mib;	/* per device, floored to 100; 100 when unknown */
	bool gpu_mem_synced;	/* has the nvidia.com/gpu.memory label */
	bool mig_enabled;
	int64_t ext[GT_MAX_EXT];	/* allocatable extended resources */
};

/* A container port bound on the node (kube-scheduler's NodePorts predicate). */
struct gt_host_port {
	uint32_t host_ip;	/* interned hostIP; GT_ANY_HOST_IP for all addresses */
	uint32_t protocol;	/* interned: TCP, UDP or SCTP */
	int32_t port;
};
#define GT_ANY_HOST_IP UINT32_MAX

struct gt_pod {
	uint32_t ns, name;
	int32_t job;		/* index into jobs, GT_NONE if it has no PodGroup */
	int32_t podset;		/* index into its job's podsets */
	bool ours;		/* spec.schedulerName is ours */
	bool reservation;	/* a GPU reservation pod: CPU/memory only */
	/* state at the start of the cycle */
	enum gt_status status;
	/* metadata.deletionTimestamp of a Running pod being deleted, 0 else: past
	 * the stuck-in-releasing threshold its status is StuckInReleasing */
	int64_t deleted_at;
	int32_t node;		/* GT_NONE when not on a node */
	/* gt_pod_signature() kept by a maker whose pods never change where they may go
	 * (the replay's), so a cycle does not hash them again; 0: not kept */
	uint64_t signature;
	uint32_t groups[GT_MAX_DEVICES];	/* shared-GPU group ids (interned) */
	uint8_t n_groups;
	/* request */
	int64_t cpu_milli, mem_bytes;
	int64_t ext[GT_MAX_EXT];
	int32_t gpus;		/* whole devices (nvidia.com/gpu) */
	int32_t frac_milli;	/* gpu-fraction per device, 1..999; 0 if none */
	int64_t gpu_mem_mib;	/* gpu-memory per device; 0 if none */
	int32_t num_devices;	/* devices of a fraction/memory request (>= 1) */
	bool legacy_mig;
	/* ordering */
	bool has_task_prio;
	int32_t task_prio;
	bool role_first;	/* kubeflow master/launcher, ray head */
	int64_t created;
	/* metadata.uid, interned, plus 1; 0 without one (so a zeroed pod has none): pods created in
	 * the same second (a job's pods always are) are ordered by it, as KAI's task order is */
	uint32_t uid;
	int64_t nominated_node;	/* node index or -1 */
	/* placement constraints */
	struct gt_labels labels;
	struct gt_labels node_selector;
	struct gt_selector *affinity_terms;	/* required node affinity: OR of terms */
	uint32_t n_affinity_terms;
	struct gt_toleration *tolerations;
	uint32_t n_tolerations;
	struct gt_pod_affinity_term *pod_affinity;
	uint32_t n_pod_affinity, cap_pod_affinity;
	struct gt_pod_affinity_term *preferred_affinity;	/* scored, not required */
	uint32_t n_preferred_affinity, cap_preferred_affinity;
	struct gt_host_port *host_ports;	/* containers[].ports[] with a hostPort */
	uint32_t n_host_ports;
	uint32_t *configmaps;	/* ConfigMaps it needs in its namespace (interned names) */
	uint32_t n_configmaps;
	/* a PersistentVolumeClaim it mounts does not exist: no node or victim can help */
	bool claim_missing;
	uint32_t missing_claim;	/* its name (interned) */
	struct gt_numa_pod *numa;	/* what its node's kubelet aligns (core/numa.h); NULL: nothing */
	/* the PersistentVolumeClaims it mounts (indices into the cluster's pvcs), when the
	 * input lists storage (core/volumes.h); claim_missing with claim_problem says why
	 * a claim keeps the pod from every node */
	int32_t *pvcs;
	uint32_t n_pvcs;
	uint8_t claim_problem;	/* enum gt_claim_problem, with claim_missing */
	bool dra;		/* uses resource claims (cluster's dra.uses[pod]) */
};

static inline bool gt_pod_is_shared(const struct gt_pod *p)
{
	return p->frac_milli > 0 || p->gpu_mem_mib > 0;
}

struct gt_topology_constraint {
	int32_t topology;	/* index into topologies, GT_NONE if none */
	int32_t required_level;	/* level index, GT_NONE */
	int32_t preferred_level;
};

/* A leaf sub-group of a PodGroup: its pods form one gang with its own minimum. */
struct gt_podset {
	uint32_t name;
	int32_t min_member;
	int32_t group;		/* enclosing sub-group set (index into groups), GT_NONE: root */
	struct gt_topology_constraint topo;
};

/* An inner sub-group: holds podsets and other sub-groups, may carry a topology. */
struct gt_subgroup {
	uint32_t name;
	int32_t parent;		/* GT_NONE: the job's root set */
	int32_t min_subgroup;	/* spec.subGroups[].minSubGroup; 0: every member (core/gang.h) */
	struct gt_topology_constraint topo;
};

struct gt_job {
	uint32_t ns, name;
	int32_t queue;		/* GT_NONE when the queue does not exist */
	uint32_t queue_name;	/* as written, for messages */
	const char *queue_problem;	/* with queue GT_NONE: why, when the decoder knows (a string of names) */
	int32_t priority;
	bool preemptible;
	struct gt_podset *podsets;
	uint32_t n_podsets;
	struct gt_subgroup *groups;	/* inner sub-groups, parents before children */
	uint32_t n_groups;
	int32_t min_subgroup;	/* spec.minSubGroup of the root set; 0: every member */
	struct gt_topology_constraint topo;	/* job-level constraint */
	int64_t created;
	int64_t last_start;	/* 0: never started */
	int64_t stale_since;	/* 0: not stale */
	int64_t last_eviction;	/* kai.scheduler/last-eviction-timestamp, 0: never */
	/* spec.stalenessGracePeriod and spec.preemptionDelay in seconds, when
	 * given (else the shard's default grace, and no delay) */
	bool has_staleness_grace, has_preemption_delay;
	int64_t staleness_grace_s;	/* < 0: never evicted as a stale gang */
	int64_t preemption_delay_s;
	/*
	 * spec.schedulingBackoff other than -1 (KAI's "single"): one scheduling
	 * attempt per node pool. attempt_spent: its last scheduling condition is
	 * this node pool's, so the scheduler leaves its pending pods alone.
	 */
	bool single_attempt, attempt_spent;
	bool deleting;
	int32_t *pods;
	uint32_t n_pods, cap_pods;
	/*
	 * Run times (docs/reservations.md), 0 when unknown: the limit
	 * (activeDeadlineSeconds, gantry.dev/max-runtime, the queue's default)
	 * and the estimate (gantry.dev/expected-runtime).
	 */
	int64_t max_runtime_s, expected_runtime_s;
	/* when its reservation began (core/reserve.h), 0: none; the plan reports it back */
	int64_t reserved_since;
};

struct gt_queue {
	uint32_t name;
	uint32_t display_name;	/* spec.displayName when has_display_name */
	bool has_display_name;
	int32_t parent;		/* GT_NONE for a top-level queue */
	int32_t priority;
	int64_t created;
	/* per gt_qres, in milli-GPU / milli-CPU / bytes; -1 = unlimited */
	int64_t deserved[GT_NQRES];
	int64_t limit[GT_NQRES];
	double weight[GT_NQRES];
	int64_t default_max_runtime_s;	/* gantry.dev/default-max-runtime, 0: none */
	/* gantry.dev/enforce-max-runtime: its jobs (and its children's) are evicted past their maximum */
	bool enforce_max_runtime;
	int64_t preempt_min_runtime_s;	/* -1: inherit */
	int64_t reclaim_min_runtime_s;
	/*
	 * Time-based fair share (core/usage.h): the queue's historical usage
	 * per gt_qres as a fraction of the cluster's capacity over the usage
	 * window; 0 without a usage history, which leaves fair shares as they
	 * are without time-based fair share.
	 */
	double usage[GT_NQRES];
	int32_t *children;
	uint32_t n_children, cap_children;
};

struct gt_topology {
	uint32_t name;
	uint32_t *levels;	/* node label keys, widest first */
	uint32_t *aliases;	/* spec.levels[].alias (interned), GT_NO_ALIAS if none */
	uint32_t n_levels;
};
#define GT_NO_ALIAS UINT32_MAX

/* Scoring plugins that can be switched off in the SchedulingShard. */
enum gt_plugin { GT_PLUGIN_NODEAVAILABILITY, GT_PLUGIN_RESOURCETYPE, GT_PLUGIN_NODEPLACEMENT,
		 GT_PLUGIN_GPUPACK, GT_PLUGIN_NOMINATEDNODE, GT_PLUGIN_PODAFFINITY, GT_N_PLUGINS };

/* The victim search's scenario generators, in the order they run (KAI's plugin order). */
enum gt_generator { GT_GEN_NODE_LOCAL_GREEDY, GT_GEN_MULTI_NODE_GANG, GT_N_GENERATORS };

/*
 * SchedulingShard.spec.scenarioSearchBudgets (KAI v0.17), in milliseconds;
 * 0 means no limit. Wall-clock budgets: the core reads time only through
 * the front end's clock (gt_config.clock_ms), and without one they are off.
 */
struct gt_search_budgets {
	int64_t reclaim_ms, preempt_ms, consolidation_ms;	/* maxActionSearchDuration */
	int64_t job_ms;			/* maxJobSearchDuration */
	int64_t min_job_ms;		/* minJobSearchDuration: a best-effort floor */
	int64_t generator_ms[GT_N_GENERATORS];	/* maxGeneratorSearchDuration */
	bool generator_off[GT_N_GENERATORS];	/* plugins sg-nodelocalgreedy, sg-multinodegang */
};

/* Milliseconds on a monotonic clock, supplied by a front end. */
typedef int64_t (*gt_clock_ms_fn)(void *ctx);
/* KAI's usageDBConfig.usageParams.windowType */
enum gt_usage_window { GT_WINDOW_SLIDING, GT_WINDOW_TUMBLING, GT_WINDOW_CRON };

/*
 * Time-based fair share: the SchedulingShard's usageDBConfig, as Gantry
 * acts on it (core/usage.h keeps the history these describe).
 */
struct gt_usage_params {
	bool on;		/* usageDBConfig is set */
	int64_t half_life_s;	/* 0: no decay */
	int64_t window_s;	/* windowSize; default one week */
	enum gt_usage_window window;
	int64_t tumbling_start;	/* tumblingWindowStartTime, Unix seconds */
	struct gt_cron cron;	/* cronString */
	int64_t fetch_interval_s;	/* how often the usage is refreshed (default 60) */
};
/* Reservations and backfill for gangs (core/reserve.h, docs/reservations.md). */
struct gt_reserve_params {
	bool on;		/* off: nothing is held, KAI's behaviour */
	uint32_t max;		/* reservations held at once */
	double share;		/* most of the cluster's GPUs held, 0..1 */
	int64_t wait_s;		/* a gang not at the head of its queue waits this long first */
	int64_t hold_s;		/* longest a reservation lasts; then as long without one */
	/*
	 * Also reserve for a gang that takes its queue past its fair share (still
	 * within its limit); such a reservation holds nothing from a queue that
	 * stays within its own fair share. Off: no reservation past fair share.
	 */
	bool beyond_fair_share;
	/*
	 * Backfill mode: off, a job backfills held GPUs only when its maximum run
	 * time ends before the reservation's start; on, a preemptible job may
	 * too, and is evicted when the reservation starts.
	 */
	bool backfill_preemptible;
	/* hold GPUs only once the start is this near (seconds); 0: from the moment it is made */
	int64_t horizon_s;
};
struct gt_config {
	unsigned plugins_off;	/* bit per enum gt_plugin */
	bool gpu_spread;	/* placementStrategy.gpu == spread */
	bool cpu_spread;
	bool predicates;	/* the predicates plugin is on */
	bool exhaustive_placement;	/* score every node (tests compare it with the index) */
	bool exhaustive_search;		/* search even probes no victim set can validate (tests compare) */
	bool gpu_sharing_order;	/* prefer nodes with a fitting shared GPU */
	int64_t staleness_grace_s;	/* < 0: never evict stale gangs */
	int64_t stuck_releasing_s;	/* --stuck-in-releasing-threshold */
	int32_t max_consolidation_preemptees;	/* <= 0 unlimited */
	bool scheduling_signatures;	/* skip jobs no easier than a failed one (signature.h) */
	/*
	 * Say on each job why it was not placed (KAI's fit errors). A front end
	 * that publishes no messages (the replay) turns this off; allocate then
	 * also skips jobs proven to fail without trying them (allocate.c).
	 */
	bool job_messages;
	int64_t preempt_min_runtime_s;
	int64_t reclaim_min_runtime_s;
	bool allow_consolidating_reclaim;
	unsigned actions_off;	/* SchedulingShard spec.actions{}.enabled false, bit per enum gt_action */
	double k_value;
	double saturation_multiplier;
	struct gt_search_budgets search;
	gt_clock_ms_fn clock_ms;	/* NULL: the search runs without time budgets */
	void *clock_ctx;
	struct gt_usage_params usage;
	/* spec.plugins.numa (core/numa.h): GT_NUMA_AUTO is on when a node has a topology */
	enum { GT_NUMA_AUTO, GT_NUMA_ON, GT_NUMA_OFF } numa;
	bool numa_trust_available;	/* arguments.reconstructAvailable false */
	bool has_numa_ignore;
	uint32_t numa_ignore;		/* arguments.ignoreList as written (interned), "cpu,memory" */
	/*
	 * --schedule-csi-storage (KAI's advanced CSI scheduling): CSIStorageCapacity
	 * is booked across the pods of one cycle (core/volumes.h); without it each
	 * pod is checked alone against the reported capacity, as kube-scheduler does.
	 */
	bool csi_storage;
	/*
	 * queueDepthPerAction (the SchedulingShard's, KAI's scheduler config): per
	 * enum gt_action, how many jobs of each leaf queue the action considers
	 * (its best ones in job order); -1: every job (KAI's default).
	 */
	int32_t queue_depth_per_action[8];
	struct gt_reserve_params reserve;
	/* per-job aging: priority points per hour pending, in a leaf queue's job order; 0 off */
	double aging_weight;
};

/*
 * Storage, as kube-scheduler's VolumeBinding and KAI's CSI storage scheduling
 * read it (core/volumes.h). Sizes in bytes; names interned.
 */
enum gt_claim_problem { GT_CLAIM_NOT_FOUND, GT_CLAIM_UNBOUND_IMMEDIATE, GT_CLAIM_CLASS_MISSING };

struct gt_storage_class {
	uint32_t name, provisioner;
	bool wait_for_consumer;	/* volumeBindingMode WaitForFirstConsumer (else Immediate) */
	bool no_provisioner;	/* kubernetes.io/no-provisioner: static PersistentVolumes only */
	bool capacity_tracked;	/* its provisioner is a CSIDriver with storageCapacity: true */
	struct gt_selector *topologies;	/* allowedTopologies: OR of terms; none: anywhere */
	uint32_t n_topologies;
};

struct gt_pv {
	uint32_t name;
	uint32_t class_name;	/* spec.storageClassName, "" when none */
	int64_t capacity_bytes;
	struct gt_selector *affinity;	/* spec.nodeAffinity.required: OR of terms; none: any node */
	uint32_t n_affinity;
	bool claimed;		/* spec.claimRef is set */
	int32_t claim;		/* ... to this PersistentVolumeClaim (index), GT_NONE when not in the input */
	bool available;		/* status.phase Available (or not yet set) */
};

struct gt_pvc {
	uint32_t ns, name;
	uint32_t class_name;	/* spec.storageClassName, "" when none */
	int32_t storage_class;	/* index, GT_NONE when not in the input */
	int64_t request_bytes;	/* spec.resources.requests.storage */
	bool has_volume;	/* spec.volumeName is set: the claim is bound (or being bound) */
	uint32_t volume_name;
	int32_t volume;		/* its PersistentVolume (index), GT_NONE when not in the input */
	bool has_selected_node;	/* volume.kubernetes.io/selected-node: provisioning has begun */
	int32_t selected_node;	/* ... for this node (index), GT_NONE when not in the input */
};

struct gt_csi_capacity {
	uint32_t ns, name, class_name;
	struct gt_selector topology;	/* nodeTopology; no requirement: every node */
	int64_t capacity_bytes;	/* 0 when not reported */
	int64_t max_volume_bytes;	/* maximumVolumeSize, 0 when not set */
};

/* A Namespace: its labels, for pod affinity's namespaceSelector (core/namespaces.h). */
struct gt_namespace {
	uint32_t name;
	struct gt_labels labels;
};

struct gt_cluster {
	struct gt_strtab *names;	/* borrowed: the interning table */
	struct gt_node *nodes;
	uint32_t n_nodes, cap_nodes;
	struct gt_pod *pods;
	uint32_t n_pods, cap_pods;
	struct gt_job *jobs;
	uint32_t n_jobs, cap_jobs;
	struct gt_queue *queues;
	uint32_t n_queues, cap_queues;
	struct gt_topology *topologies;
	uint32_t n_topologies, cap_topologies;
	struct gt_config config;
	uint32_t ext_names[GT_MAX_EXT];	/* interned names of extended resources */
	int64_t ext_gpu_milli[GT_MAX_EXT];	/* a MIG profile's GPU slices (1g = 1000); 0 else */
	bool ext_dra[GT_MAX_EXT];	/* the devices of a DRA device class (core/dra.h) */
	uint32_t n_ext;
	/* ConfigMaps that exist, as interned "namespace/name" keys, sorted; the
	 * ConfigMap predicate applies when configmaps_known */
	uint32_t *configmaps;
	uint32_t n_configmaps, cap_configmaps;
	bool configmaps_known;
	/* NodeResourceTopologies (core/numa.h), one per node at most */
	struct gt_numa_node *numa_nodes;
	uint32_t n_numa_nodes, cap_numa_nodes;
	/* storage (core/volumes.h): what pods mount, and where it can be */
	struct gt_pvc *pvcs;
	uint32_t n_pvcs, cap_pvcs;
	struct gt_pv *pvs;
	uint32_t n_pvs, cap_pvs;
	struct gt_storage_class *storage_classes;
	uint32_t n_storage_classes, cap_storage_classes;
	struct gt_csi_capacity *csi_capacities;
	uint32_t n_csi_capacities, cap_csi_capacities;
	/* Namespaces by name id (gt_cluster_sort_namespaces) */
	struct gt_namespace *namespaces;
	uint32_t n_namespaces, cap_namespaces;
	struct gt_dra dra;	/* DRA devices, classes, claims and the pods' use of them (core/dra.h) */
};

void gt_config_defaults(struct gt_config *c);
/* Sort c->configmaps by text (after decoding; core/configmaps.c). */
void gt_cluster_sort_configmaps(struct gt_cluster *c);
/* Does pod @pod need a ConfigMap that does not exist? Then @msg holds KAI's words
 * ("Missing required configmaps: [a b]"). Never when the ConfigMaps are unknown. */
bool gt_pod_configmaps_missing(const struct gt_cluster *c, int32_t pod, char *msg, size_t cap);

/* Settings given outside the cluster's objects (KAI's scheduler flags): each
 * one given wins over the SchedulingShard. */
struct gt_config_overrides {
	bool has_staleness_grace, has_stuck_releasing, has_max_consolidation_preemptees;
	bool has_allow_consolidating_reclaim, has_scheduling_signatures;
	int64_t staleness_grace_s, stuck_releasing_s;
	int32_t max_consolidation_preemptees;
	bool allow_consolidating_reclaim, scheduling_signatures;
	bool has_csi_storage, csi_storage;	/* --schedule-csi-storage */
	bool has_saturation_multiplier;	/* proportion's relcaimerSaturationMultiplier (--scheduler-conf) */
	double saturation_multiplier;
};
void gt_config_override(struct gt_config *c, const struct gt_config_overrides *o);
/* What KAI's messages call queue @q: its spec.displayName, else its name. */
static inline uint32_t gt_queue_shown_name(const struct gt_queue *q)
{
	return q->has_display_name ? q->display_name : q->name;
}
/* @p's status in a session at @now: a Releasing pod deleted more than the
 * stuck-in-releasing threshold ago is StuckInReleasing (KAI's getTaskStatus). */
enum gt_status gt_pod_status_at(const struct gt_pod *p, const struct gt_config *c, int64_t now);
void gt_cluster_init(struct gt_cluster *c, struct gt_strtab *names);
void gt_cluster_release(struct gt_cluster *c);
/* What one node, pod or job owns (the decoder drops an object it refused half-way). */
void gt_node_release(struct gt_node *n);
void gt_pod_release(struct gt_pod *p);
void gt_job_release(struct gt_job *j);
void gt_labels_release(struct gt_labels *l);
void gt_selector_release(struct gt_selector *s);
/* Value id of @key in @l, or -1. O(log n). */
int64_t gt_labels_get(const struct gt_labels *l, uint32_t key);
/* Sort by key, keeping the last value of a duplicated key. */
void gt_labels_sort(struct gt_labels *l);
/* Does @l satisfy every requirement of @s? Values compared as ids, GT/LT via @names. */
bool gt_selector_matches(const struct gt_selector *s, const struct gt_labels *l,
			 const struct gt_strtab *names);
/* The queues from the top-level one down to @q; returns how many (at most 64). */
uint32_t gt_queue_path(const struct gt_cluster *c, int32_t q, int32_t out[64]);
/* Link pods to jobs and queues to parents after all objects were added. */
void gt_cluster_link(struct gt_cluster *c);
/* What the storage arrays own (core/volumes.c). */
void gt_cluster_release_storage(struct gt_cluster *c);
/* What the namespaces own (core/namespaces.c). */
void gt_cluster_release_namespaces(struct gt_cluster *c);

#endif /* GT_CLUSTER_H */
