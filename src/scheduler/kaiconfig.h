/*
 * kaiconfig.h - what KAI's `kai-config` Config says to Gantry's scheduler
 *
 * A cluster installed with KAI's chart has one Config (kai.scheduler/v1,
 * cluster-scoped, named kai-config; KAI's pkg/apis/kai/v1) from which KAI's
 * operator configures every component. When it is there, Gantry's scheduler
 * reads it once at start and takes the settings that apply to it, where no
 * flag says otherwise (a flag wins):
 *
 *   spec.global.schedulerName            --scheduler-name
 *   spec.global.queueLabelKey            the podgrouper's queue label
 *   spec.global.nodePoolLabelKey         --nodepool-label-key (and the podgrouper's)
 *   spec.global.namespaceLabelSelector   --webhook-namespace-label (with --admission)
 *   spec.global.podLabelSelector         --webhook-pod-label (with --admission)
 *   spec.binder.resourceReservation.{namespace, serviceAccountName,
 *     runtimeClassName, allocationTimeout}   the reservation pods' (--resource-reservation-*)
 *   spec.queueController.{queueLabelToMetricLabel,
 *     queueLabelToDefaultMetricValue}        --queue-label-to-metric-label, -default-metric-value
 *
 * Every other leaf of spec is warned about by its path: Gantry does not act
 * on it (images, replicas, services, resources are the deployment's, which
 * is Gantry's chart's). A change to the Config needs a restart, as KAI's
 * operator restarts its components.
 */
#ifndef GT_KAICONFIG_H
#define GT_KAICONFIG_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct gt_kai_config {
	const char *scheduler_name, *queue_label_key, *node_pool_label_key;	/* NULL: not set */
	const char *resv_ns, *resv_sa, *resv_runtime_class;
	int64_t resv_timeout_s;		/* 0: not set */
	const char *queue_label_to_metric_label, *queue_label_defaults;
	char **namespace_labels, **pod_labels;	/* "k=v" */
	size_t n_namespace_labels, n_pod_labels;
	char **warnings;
	size_t n_warnings, cap_warnings;
	json_t *obj;			/* the Config (the strings above point into it) */
};

/* Read Config @obj (a reference is taken). Never fails: what is malformed is warned about and left out. */
void gt_kai_config_read(json_t *obj, struct gt_kai_config *out);
void gt_kai_config_release(struct gt_kai_config *c);

#endif /* GT_KAICONFIG_H */
