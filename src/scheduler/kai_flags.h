/*
 * kai_flags.h - KAI v0.17's scheduler flags, under their names
 *
 * A cluster switching from KAI passes the flags its operator wrote (from the
 * SchedulingShard's args) unchanged. Those Gantry acts on become overrides of
 * the shard's configuration; those it cannot act on are accepted and warned
 * about with the reason, never ignored silently (docs/kai-differences.md).
 */
#ifndef GT_KAI_FLAGS_H
#define GT_KAI_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"
#include "snapshot/kaisnap.h"
#include "util/flags.h"

struct gt_kai_flags {
	int64_t max_consolidation_preemptees;
	double staleness_grace_s, stuck_releasing_s;
	bool allow_consolidating_reclaim, full_hierarchy_fairness, use_scheduling_signatures;
	bool detailed_fit_errors, update_pod_eviction_condition, schedule_csi_storage;
	bool restrict_node_scheduling, enable_profiler, log_json, version;
	const char *queue_label_key, *reservation_app_label, *scheduler_conf;
	const char *cpu_worker_key, *gpu_worker_key, *mig_worker_key;
	const char *profiler_port, *pyroscope_address;
	int64_t pyroscope_mutex_rate, pyroscope_block_rate, plugin_server_port, verbosity;
	/* which were given */
	bool seen_max_cp, seen_grace, seen_stuck, seen_acr, seen_fhf, seen_sig, seen_dfe, seen_upec, seen_csi;
	bool seen_restrict, seen_profiler, seen_json, seen_version, seen_queue_key, seen_app_label, seen_conf;
	bool seen_cpu_key, seen_gpu_key, seen_mig_key, seen_profiler_port, seen_pyroscope, seen_mutex_rate;
	bool seen_block_rate, seen_plugin_port, seen_v;
	/* set by the command: --snapshot-endpoint listens on plugin_server_port */
	bool plugin_server_used;
};

#define GT_KAI_FLAGS_DEFAULTS { .max_consolidation_preemptees = 16, .staleness_grace_s = 60, \
	.stuck_releasing_s = 120, .allow_consolidating_reclaim = true, .full_hierarchy_fairness = true, \
	.use_scheduling_signatures = true, .version = true, .verbosity = 3, .plugin_server_port = 8081 }

/* The flags, for a command's flag table (util/flags.h). */
#define GT_KAI_FLAGS(k)                                                                              \
	{ .type = GT_FLAG_SECTION, .help = "KAI's scheduler flags (cmd/scheduler options, same meaning)" }, \
	{ .type = GT_FLAG_INT, .name = "max-consolidation-preemptees", .dest = &(k)->max_consolidation_preemptees, \
	  .seen = &(k)->seen_max_cp, .arg = "N", .min = INT32_MIN, .max = INT32_MAX,                 \
	  .help = "victims one consolidation may move (default 16; <= 0: no limit)" },                \
	{ .type = GT_FLAG_DURATION, .name = "default-staleness-grace-period", .dest = &(k)->staleness_grace_s, \
	  .seen = &(k)->seen_grace, .arg = "D", .dmin = -1e12,                                        \
	  .help = "stale gangs are evicted after this (default 60s; negative: never)" },              \
	{ .type = GT_FLAG_DURATION, .name = "stuck-in-releasing-threshold", .dest = &(k)->stuck_releasing_s, \
	  .seen = &(k)->seen_stuck, .arg = "D", .dmin_open = true,                                    \
	  .help = "a pod deleted this long ago is StuckInReleasing (default 2m)" },                   \
	{ .type = GT_FLAG_BOOL, .name = "allow-consolidating-reclaim", .dest = &(k)->allow_consolidating_reclaim, \
	  .seen = &(k)->seen_acr, .help = "pipelined pods do not count as reclaimed (default true)" },  \
	{ .type = GT_FLAG_BOOL, .name = "full-hierarchy-fairness", .dest = &(k)->full_hierarchy_fairness, \
	  .seen = &(k)->seen_fhf, .help = "fairness across every queue level (default true; false: warned)" }, \
	{ .type = GT_FLAG_BOOL, .name = "use-scheduling-signatures", .dest = &(k)->use_scheduling_signatures, \
	  .seen = &(k)->seen_sig, .help = "skip jobs identical to one that failed (default true)" },    \
	{ .type = GT_FLAG_BOOL, .name = "detailed-fit-errors", .dest = &(k)->detailed_fit_errors,     \
	  .seen = &(k)->seen_dfe, .help = "per-node fit errors (default false; true: warned)" },        \
	{ .type = GT_FLAG_BOOL, .name = "update-pod-eviction-condition",                              \
	  .dest = &(k)->update_pod_eviction_condition, .seen = &(k)->seen_upec,                       \
	  .help = "(default false; true: warned)" },                                                  \
	{ .type = GT_FLAG_BOOL, .name = "schedule-csi-storage", .dest = &(k)->schedule_csi_storage,   \
	  .seen = &(k)->seen_csi, .help = "book CSIStorageCapacity across the pods of a cycle (default false)" }, \
	{ .type = GT_FLAG_STRING, .name = "queue-label-key", .dest = &(k)->queue_label_key,          \
	  .seen = &(k)->seen_queue_key, .arg = "KEY", .help = "(kai.scheduler/queue; another: warned)" }, \
	{ .type = GT_FLAG_STRING, .name = "resource-reservation-app-label",                          \
	  .dest = &(k)->reservation_app_label, .seen = &(k)->seen_app_label, .arg = "V",              \
	  .help = "(kai-resource-reservation; another: warned)" },                                    \
	{ .type = GT_FLAG_BOOL, .name = "restrict-node-scheduling", .dest = &(k)->restrict_node_scheduling, \
	  .seen = &(k)->seen_restrict, .help = "(default false; true: warned)" },                     \
	{ .type = GT_FLAG_STRING, .name = "cpu-worker-node-label-key", .dest = &(k)->cpu_worker_key,  \
	  .seen = &(k)->seen_cpu_key, .arg = "KEY", .help = "(with restrict-node-scheduling)" },      \
	{ .type = GT_FLAG_STRING, .name = "gpu-worker-node-label-key", .dest = &(k)->gpu_worker_key,  \
	  .seen = &(k)->seen_gpu_key, .arg = "KEY", .help = "(with restrict-node-scheduling)" },      \
	{ .type = GT_FLAG_STRING, .name = "mig-worker-node-label-key", .dest = &(k)->mig_worker_key,  \
	  .seen = &(k)->seen_mig_key, .arg = "KEY", .help = "(with restrict-node-scheduling)" },      \
	{ .type = GT_FLAG_STRING, .name = "scheduler-conf", .dest = &(k)->scheduler_conf,            \
	  .seen = &(k)->seen_conf, .arg = "FILE",                                                    \
	  .help = "KAI's SchedulerConfiguration (actions, tiers): over the shard's plugins" }, \
	{ .type = GT_FLAG_INT, .name = "v", .dest = &(k)->verbosity, .seen = &(k)->seen_v, .arg = "N",   \
	  .min = 0, .max = 10, .help = "KAI's verbosity: 4 and more is --log-level debug" },           \
	{ .type = GT_FLAG_BOOL, .name = "log-json", .dest = &(k)->log_json, .seen = &(k)->seen_json,  \
	  .help = "(Gantry's log lines never carry colour codes)" },                                  \
	{ .type = GT_FLAG_BOOL, .name = "version", .dest = &(k)->version, .seen = &(k)->seen_version, \
	  .help = "log the version at start (default true)" },                                        \
	{ .type = GT_FLAG_BOOL, .name = "enable-profiler", .dest = &(k)->enable_profiler,             \
	  .seen = &(k)->seen_profiler, .help = "(Go's profiler: warned)" },                           \
	{ .type = GT_FLAG_STRING, .name = "profiler-port", .dest = &(k)->profiler_port,              \
	  .seen = &(k)->seen_profiler_port, .arg = "PORT", .help = "(warned)" },                      \
	{ .type = GT_FLAG_STRING, .name = "pyroscope-address", .dest = &(k)->pyroscope_address,      \
	  .seen = &(k)->seen_pyroscope, .arg = "URL", .help = "(warned)" },                           \
	{ .type = GT_FLAG_INT, .name = "pyroscope-mutex-profiler-rate", .dest = &(k)->pyroscope_mutex_rate, \
	  .seen = &(k)->seen_mutex_rate, .arg = "N", .help = "(warned)" },                            \
	{ .type = GT_FLAG_INT, .name = "pyroscope-block-profiler-rate", .dest = &(k)->pyroscope_block_rate, \
	  .seen = &(k)->seen_block_rate, .arg = "N", .help = "(warned)" },                            \
	{ .type = GT_FLAG_INT, .name = "plugin-server-port", .dest = &(k)->plugin_server_port,        \
	  .seen = &(k)->seen_plugin_port, .arg = "PORT", .max = 65535,                                \
	  .help = "/get-snapshot's port with --snapshot-endpoint (default 8081; 0: any)" }

/*
 * What the flags ask for: overrides of the shard's configuration in @ov, the
 * log level in *@log_level when -v was given, --scheduler-conf's file read
 * into @conf (zero without it; release it); a warning per flag, plugin or
 * argument Gantry does not act on. 2 (said) when a flag cannot be honoured
 * at all (the file cannot be read).
 */
int gt_kai_flags_apply(const struct gt_kai_flags *k, struct gt_config_overrides *ov, int *log_level,
		       struct gt_kai_conf *conf);

#endif /* GT_KAI_FLAGS_H */
