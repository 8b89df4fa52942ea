/*
 * kai_flags.c - KAI's scheduler flags turned into configuration (kai_flags.h)
 */
#include "scheduler/kai_flags.h"

#include <stdio.h>
#include <string.h>

#include "util/log.h"

static void inert(bool given, const char *flag, const char *why)
{
	if (given)
		gt_log(GT_LOG_WARN, "scheduler", "--%s is accepted but has no effect: %s", flag, why);
}

int gt_kai_flags_apply(const struct gt_kai_flags *k, struct gt_config_overrides *ov, int *log_level)
{
	memset(ov, 0, sizeof(*ov));
	if (k->seen_conf) {
		fprintf(stderr, "gantry scheduler: --scheduler-conf %s: KAI's actions-and-tiers file is not read; "
				"put its actions and plugin arguments in the SchedulingShard (spec.actions is "
				"--actions, spec.plugins; docs/kai-differences.md)\n",
			k->scheduler_conf);
		return 2;
	}
	ov->has_max_consolidation_preemptees = k->seen_max_cp;
	ov->max_consolidation_preemptees = (int32_t)k->max_consolidation_preemptees;
	ov->has_staleness_grace = k->seen_grace;
	ov->staleness_grace_s = (int64_t)k->staleness_grace_s;
	ov->has_stuck_releasing = k->seen_stuck;
	ov->stuck_releasing_s = (int64_t)k->stuck_releasing_s;
	ov->has_allow_consolidating_reclaim = k->seen_acr;
	ov->allow_consolidating_reclaim = k->allow_consolidating_reclaim;
	ov->has_scheduling_signatures = k->seen_sig;
	ov->scheduling_signatures = k->use_scheduling_signatures;
	ov->has_csi_storage = k->seen_csi;
	ov->csi_storage = k->schedule_csi_storage;
	if (k->seen_v)
		*log_level = k->verbosity >= 4 ? GT_LOG_DEBUG : GT_LOG_INFO;
	inert(k->seen_fhf && !k->full_hierarchy_fairness, "full-hierarchy-fairness=false",
	      "Gantry always divides fair share across every queue level");
	inert(k->seen_dfe && k->detailed_fit_errors, "detailed-fit-errors",
	      "the fit error counts nodes per reason, as KAI's default does");
	inert(k->seen_upec && k->update_pod_eviction_condition, "update-pod-eviction-condition",
	      "victims are evicted through the Eviction API, which sets DisruptionTarget itself");
	inert(k->seen_queue_key && strcmp(k->queue_label_key, "kai.scheduler/queue"), "queue-label-key",
	      "Gantry reads the queue from kai.scheduler/queue only");
	inert(k->seen_app_label && strcmp(k->reservation_app_label, "kai-resource-reservation"),
	      "resource-reservation-app-label", "reservation pods are labelled app=kai-resource-reservation");
	inert(k->seen_restrict && k->restrict_node_scheduling, "restrict-node-scheduling",
	      "node restriction by worker labels is not implemented");
	inert(k->seen_cpu_key || k->seen_gpu_key || k->seen_mig_key, "*-worker-node-label-key",
	      "they serve restrict-node-scheduling, which is not implemented");
	inert(k->seen_profiler && k->enable_profiler, "enable-profiler", "Go's profiler does not exist here");
	inert(k->seen_profiler_port, "profiler-port", "Go's profiler does not exist here");
	inert(k->seen_pyroscope || k->seen_mutex_rate || k->seen_block_rate, "pyroscope-*",
	      "Pyroscope profiles Go programs");
	inert(k->seen_plugin_port && !k->plugin_server_used, "plugin-server-port",
	      "KAI's plugin server is not part of Gantry; only /get-snapshot (--snapshot-endpoint) uses it");
	return 0;
}
