/*
 * kaisnap.h - KAI's scheduler snapshots (its snapshot plugin's format)
 *
 * KAI's scheduler answers GET /get-snapshot with a ZIP holding one
 * snapshot.json (pkg/scheduler/plugins/snapshot):
 *
 *	{"config": SchedulerConfiguration,     actions "a, b", tiers[].plugins[{name, arguments}],
 *	                                       queueDepthPerAction, usageDBConfig, scenarioSearchBudgets
 *	 "schedulerParams": SchedulerParams,   schedulerName, partitionParams {NodePoolLabelKey,
 *	                                       NodePoolLabelValue} (Go field names), durations as
 *	                                       integer nanoseconds, false and 0 left out
 *	 "rawObjects": {"pods": [...], "nodes": [...], ... 17 lists},
 *	 "discovery": {"serverVersion": {...}, "resources": [...]}}
 *
 * The objects carry no kind or apiVersion (their list says what they are),
 * an empty list is null, list order is the cache's. Reading turns all this
 * into what `gantry simulate` decodes: the objects with kind and apiVersion
 * set, a SchedulingShard made from the configuration (the plugins it
 * enables and their arguments, the scheduler parameters a shard can say),
 * the pods being bound, and the rest of the configuration. Whatever Gantry
 * does not act on is a warning, never a stop: a field a newer KAI wrote, a
 * plugin or argument Gantry does not know, a list of objects it does not
 * model. What makes the snapshot unreadable is an error naming the part:
 * not a ZIP or JSON, no snapshot.json, a list that is not a list, an
 * object of another kind in a list, a truncated file.
 *
 * Writing (gantry scheduler's /get-snapshot) makes the same layout from the
 * scheduler's cache.
 */
#ifndef GT_KAISNAP_H
#define GT_KAISNAP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/decode.h"
#include "api/doc.h"
#include "util/err.h"

#define GT_KAISNAP_MEMBER "snapshot.json"

/* rawObjects' lists, in KAI's order. */
#define GT_KAISNAP_LISTS(X)                                                          \
	X(PODS, "pods", "Pod", "v1", true)                                            \
	X(NODES, "nodes", "Node", "v1", true)                                         \
	X(QUEUES, "queues", "Queue", "scheduling.run.ai/v2", true)                    \
	X(PODGROUPS, "podGroups", "PodGroup", "scheduling.run.ai/v2alpha2", true)     \
	X(BINDREQUESTS, "bindRequests", "BindRequest", "scheduling.run.ai/v1alpha2", true) \
	X(PRIORITYCLASSES, "priorityClasses", "PriorityClass", "scheduling.k8s.io/v1", true) \
	X(CONFIGMAPS, "configMaps", "ConfigMap", "v1", true)                          \
	X(PVS, "persistentVolumes", "PersistentVolume", "v1", true)                   \
	X(PVCS, "persistentVolumeClaims", "PersistentVolumeClaim", "v1", true)        \
	X(CSICAPS, "csiStorageCapacities", "CSIStorageCapacity", "storage.k8s.io/v1", true)  \
	X(STORAGECLASSES, "storageClasses", "StorageClass", "storage.k8s.io/v1", true)  \
	X(CSIDRIVERS, "csiDrivers", "CSIDriver", "storage.k8s.io/v1", true)           \
	X(RESOURCECLAIMS, "resourceClaims", "ResourceClaim", "resource.k8s.io/v1", true) \
	X(RESOURCESLICES, "resourceSlices", "ResourceSlice", "resource.k8s.io/v1", true) \
	X(DEVICECLASSES, "deviceClasses", "DeviceClass", "resource.k8s.io/v1", true) \
	X(TOPOLOGIES, "topologies", "Topology", "kai.scheduler/v1alpha1", true)       \
	X(NRTS, "nodeResourceTopologies", "NodeResourceTopology", "topology.node.k8s.io/v1alpha2", true)

enum gt_kaisnap_list {
#define GT_KAISNAP_ENUM(id, key, kind, gv, read) GT_KAISNAP_##id,
	GT_KAISNAP_LISTS(GT_KAISNAP_ENUM)
#undef GT_KAISNAP_ENUM
	GT_KAISNAP_N_LISTS
};

struct gt_kaisnap_list_info {
	const char *key, *kind, *api_version;
	bool read;		/* Gantry's decoder reads these objects */
};
extern const struct gt_kaisnap_list_info gt_kaisnap_lists[GT_KAISNAP_N_LISTS];

struct gt_kai_snapshot {
	struct gt_doc_list docs;	/* for the decoder: the shard made from config, then the objects */
	struct gt_doc_list held;	/* read but not decoded (BindRequests: the bindings point into them) */
	struct gt_binding *bindings;	/* pods being bound (live BindRequests) */
	size_t n_bindings, cap_bindings;
	unsigned actions;		/* config.actions as 1u << GT_ACT_* */
	char *scheduler_name;		/* schedulerParams.schedulerName, or kai-scheduler */
	bool allow_consolidating_reclaim;	/* schedulerParams.allowConsolidatingReclaim */
	double saturation_multiplier;	/* proportion's relcaimerSaturationMultiplier */
	char *server_version;		/* discovery.serverVersion.gitVersion, or NULL */
	size_t n_objects[GT_KAISNAP_N_LISTS];
	bool configmaps_listed;		/* rawObjects.configMaps is a list: every ConfigMap KAI cached */
	/* rawObjects.persistentVolumeClaims / persistentVolumes and storageClasses are lists:
	 * KAI cached them (--schedule-csi-storage) */
	bool claims_listed, storage_listed;
	char **warnings;
	size_t n_warnings, cap_warnings;
};

/*
 * Read a snapshot from @data (@len bytes: KAI's ZIP, or the bare
 * snapshot.json) named @name in messages. 0, or GT_EPARSE / GT_EINVAL /
 * GT_ENOTFOUND with @err naming the part at fault; @s is released either way
 * on failure.
 */
int gt_kai_snapshot_read(const char *data, size_t len, const char *name, struct gt_kai_snapshot *s,
			 struct gt_err *err);
void gt_kai_snapshot_release(struct gt_kai_snapshot *s);
/* What the configuration says that a SchedulingShard cannot: onto @c's config after the build. */
void gt_kai_snapshot_apply(const struct gt_kai_snapshot *s, struct gt_cluster *c);

/*
 * KAI's SchedulerConfiguration (a snapshot's "config"; the file KAI's
 * scheduler takes with --scheduler-conf), read by the one parser both use:
 * @out->spec is the SchedulingShard spec it amounts to (spec.plugins from
 * tiers[].plugins, the plugins it leaves out switched off where Gantry can;
 * scenarioSearchBudgets and usageDBConfig as they are, for the shard's
 * decoder to judge), @out->actions config.actions (1u << GT_ACT_*; all
 * when it says none), @out->saturation_multiplier proportion's
 * relcaimerSaturationMultiplier (0: not given), and a warning for each
 * plugin, argument or key Gantry does not act on (queueDepthPerAction among
 * them). 0, or GT_EINVAL with @err naming the field (@out released).
 */
struct gt_kai_conf {
	json_t *spec;
	unsigned actions;
	double saturation_multiplier;
	char **warnings;
	size_t n_warnings;
};
int gt_kai_conf_read(json_t *cfg, struct gt_kai_conf *out, struct gt_err *err);
/* The same from KAI's configuration file (YAML, one document): 0, or an error naming the file. */
int gt_kai_conf_read_file(const char *path, struct gt_kai_conf *out, struct gt_err *err);
/* gt_kai_conf_read_file for a command's --scheduler-conf, its error and warnings said on @to: 0 or 2. */
int gt_kai_conf_load(const char *cmd, const char *path, struct gt_kai_conf *out, FILE *to);
void gt_kai_conf_release(struct gt_kai_conf *c);

/* ---- writing */

/* What a snapshot says besides its objects. */
struct gt_kaisnap_meta {
	unsigned actions;
	const struct gt_config *config;	/* plugins, placement, kValue and the rest as Gantry runs them */
	const char *scheduler_name;
	const char *pool_key, *pool_value;	/* partitionParams; value NULL: no partition */
	double schedule_period_s;
	const char *server_version;	/* gitVersion, "v1.37.2"; NULL: unknown, no discovery written */
};

/*
 * snapshot.json as KAI writes it, into *@out (free it): @lists[l] holds
 * @n[l] object documents of list l (kind, apiVersion and managedFields are
 * left out, as in KAI's; an empty list is null).
 */
void gt_kai_snapshot_write(const struct gt_kaisnap_meta *m, const struct gt_doc *const *const *lists,
			   const size_t *n, char **out, size_t *out_len);

#endif /* GT_KAISNAP_H */
