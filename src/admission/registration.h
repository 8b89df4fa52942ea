/*
 * registration.h - the webhook configurations, as KAI v0.17 registers them
 *
 * KAI's operator writes them at run time (pkg/operator/operands/admission,
 * queue_controller, pod_group_controller), from its Config: Gantry does the
 * same from its flags, so the rules below are KAI's, field for field:
 *
 *  MutatingWebhookConfiguration <mutating name>
 *    admission.<ns>.svc            pods CREATE, reinvocationPolicy IfNeeded
 *  ValidatingWebhookConfiguration <validating name>
 *    admission.<ns>.svc            pods CREATE, UPDATE
 *    topology.admission.<ns>.svc   kai.scheduler/v1alpha1 topologies CREATE, UPDATE (cluster scope)
 *    queue-validation.kai.scheduler     scheduling.run.ai/v2 queues CREATE, UPDATE (cluster scope)
 *    podgroup-validation.kai.scheduler  scheduling.run.ai/v2alpha2 podgroups CREATE, UPDATE
 *
 * Every webhook: admissionReviewVersions [v1], sideEffects None,
 * failurePolicy Fail. The pod webhooks only: the namespaceSelector
 * kubernetes.io/metadata.name NotIn [kube-system, <ns>] (and the queue label
 * Exists with KAI's queueLabelSelector, and matchLabels from
 * global.namespaceLabelSelector), an objectSelector from
 * global.podLabelSelector, and the matchCondition
 * object.spec.schedulerName == '<scheduler>'. The webhook names are KAI's
 * (KAI derives the pod ones from its Service, admission.<ns>.svc), so what
 * a refused user reads - admission webhook "admission.kai-scheduler.svc"
 * denied the request: ... - is what KAI's users read.
 *
 * KAI keeps the queue and pod-group webhooks in configurations of their own
 * (one per component); here one process serves all, so one validating
 * configuration holds them. The configurations are owned by a ClusterRole
 * of the install (ownerReferences), so that uninstalling it removes them: a
 * configuration with failurePolicy Fail left behind would refuse every pod
 * of the scheduler.
 */
#ifndef GT_ADMISSION_REGISTRATION_H
#define GT_ADMISSION_REGISTRATION_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct gt_registration {
	const char *ns;			/* Gantry's namespace: the Service's, and left out of the pod webhooks */
	const char *service;		/* clientConfig.service name (port @service_port), unless @url */
	int service_port;
	const char *url;		/* clientConfig.url base, e.g. "https://127.0.0.1:9443"; NULL: the Service */
	const char *mutating_name, *validating_name;
	const char *scheduler_name;
	const char *const *namespace_labels;	/* "key=value" each: the namespaceSelector's matchLabels */
	size_t n_namespace_labels;
	const char *const *pod_labels;	/* "key=value" each: the objectSelector's matchLabels */
	size_t n_pod_labels;
	const char *queue_label_key;	/* not NULL: namespaces must have this label (KAI's queueLabelSelector) */
	bool queue_validation, podgroup_validation;
	const char *owner_name, *owner_uid;	/* the owning ClusterRole, or NULL */
};

/*
 * The MutatingWebhookConfiguration and ValidatingWebhookConfiguration for
 * @r with @ca_bundle_pem as their caBundle, as server-side-apply bodies.
 */
json_t *gt_registration_mutating(const struct gt_registration *r, const char *ca_bundle_pem);
json_t *gt_registration_validating(const struct gt_registration *r, const char *ca_bundle_pem);

/* "key=value" with a non-empty key and no second '=': a flag value the selectors take. */
bool gt_registration_label_ok(const char *kv);

#endif /* GT_ADMISSION_REGISTRATION_H */
