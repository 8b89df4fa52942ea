/*
 * kai_flags.c - KAI's scheduler flags turned into configuration (kai_flags.h)
 */
#include "scheduler/kai_flags.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/doc.h"
#include "api/json.h"
#include "util/file.h"
#include "util/log.h"

static void inert(bool given, const char *flag, const char *why)
{
	if (given)
		gt_log(GT_LOG_WARN, "scheduler", "--%s is accepted but has no effect: %s", flag, why);
}

/* Plugin arguments are Go's map[string]string: 1.5 and true in them are text, as KAI reads them. */
/* --scheduler-conf: KAI's SchedulerConfiguration file into @conf. 0, or 2 (said). */
static int read_conf(const char *path, struct gt_kai_conf *conf)
{
	struct gt_err err = { 0 };
	if (gt_kai_conf_read_file(path, conf, &err)) {
		fprintf(stderr, "gantry scheduler: --scheduler-conf %s: %s\n", path, err.msg);
		return 2;
	}
	for (size_t i = 0; i < conf->n_warnings; i++)
		gt_log(GT_LOG_WARN, "scheduler", "--scheduler-conf %s: %s", path, conf->warnings[i]);
	gt_log(GT_LOG_INFO, "scheduler", "--scheduler-conf %s: its actions and plugins take the place of the "
	       "SchedulingShard's", path);
	return 0;
}

int gt_kai_flags_apply(const struct gt_kai_flags *k, struct gt_config_overrides *ov, int *log_level,
		       struct gt_kai_conf *conf)
{
	memset(ov, 0, sizeof(*ov));
	memset(conf, 0, sizeof(*conf));
	if (k->seen_conf) {
		if (read_conf(k->scheduler_conf, conf))
			return 2;
		ov->has_saturation_multiplier = conf->saturation_multiplier > 0;
		ov->saturation_multiplier = conf->saturation_multiplier;
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
