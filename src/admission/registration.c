/*
 * registration.c - KAI's webhook registrations as JSON (see registration.h)
 */
#include "admission/registration.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/webhooks.h"
#include "api/json.h"
#include "util/mem.h"

#define GROUP "admissionregistration.k8s.io"

static json_t *client_config(const struct gt_registration *r, enum gt_webhook w, const char *bundle_b64)
{
	json_t *cc;
	if (r->url) {
		char url[1024];
		snprintf(url, sizeof(url), "%s%s", r->url, gt_webhook_path(w));
		cc = json_pack("{s:s}", "url", url);
	} else {
		cc = json_pack("{s:{s:s, s:s, s:s, s:i}}", "service", "namespace", r->ns, "name", r->service, "path",
			       gt_webhook_path(w), "port", r->service_port);
	}
	json_object_set_new(cc, "caBundle", json_string(bundle_b64));
	return cc;
}

static json_t *labels_map(const char *const *kv, size_t n)
{
	json_t *m = json_object();
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(kv[i], '=');
		char *key = gt_xstrndup(kv[i], eq ? (size_t)(eq - kv[i]) : strlen(kv[i]));
		json_object_set_new(m, key, json_string(eq ? eq + 1 : ""));
		free(key);
	}
	return m;
}

/* The pod webhooks' selectors and match condition (KAI's buildWebhookSelectors and match conditions). */
static void pod_scope(const struct gt_registration *r, json_t *hook)
{
	json_t *exprs = json_pack("[{s:s, s:s, s:[s, s]}]", "key", "kubernetes.io/metadata.name", "operator", "NotIn",
				  "values", "kube-system", r->ns);
	if (r->queue_label_key)
		json_array_append_new(exprs, json_pack("{s:s, s:s}", "key", r->queue_label_key, "operator", "Exists"));
	json_t *ns_sel = json_pack("{s:o}", "matchExpressions", exprs);
	if (r->n_namespace_labels)
		json_object_set_new(ns_sel, "matchLabels", labels_map(r->namespace_labels, r->n_namespace_labels));
	json_object_set_new(hook, "namespaceSelector", ns_sel);
	if (r->n_pod_labels)
		json_object_set_new(hook, "objectSelector",
				    json_pack("{s:o}", "matchLabels", labels_map(r->pod_labels, r->n_pod_labels)));
	char expr[512];
	snprintf(expr, sizeof(expr), "object.spec.schedulerName == '%s'", r->scheduler_name);
	json_object_set_new(hook, "matchConditions",
			    json_pack("[{s:s, s:s}]", "name", "scheduler-name-match", "expression", expr));
}

/* One webhook: KAI's constant fields, its rule, its client. */
static json_t *hook(const struct gt_registration *r, const char *name, enum gt_webhook w, const char *group,
		    const char *version, const char *resource, const char *scope, bool update, const char *bundle)
{
	json_t *ops = update ? json_pack("[s, s]", "CREATE", "UPDATE") : json_pack("[s]", "CREATE");
	return json_pack("{s:s, s:[s], s:s, s:s, s:o, s:[{s:o, s:[s], s:[s], s:[s], s:s}]}", "name", name,
			 "admissionReviewVersions", "v1", "sideEffects", "None", "failurePolicy", "Fail",
			 "clientConfig", client_config(r, w, bundle), "rules", "operations", ops, "apiGroups", group,
			 "apiVersions", version, "resources", resource, "scope", scope);
}

static json_t *configuration(const struct gt_registration *r, const char *kind, const char *name, json_t *hooks)
{
	json_t *md = json_pack("{s:s, s:{s:s, s:s}}", "name", name, "labels", "app.kubernetes.io/name", "gantry",
			       "app.kubernetes.io/component", "admission");
	if (r->owner_name && r->owner_uid)
		json_object_set_new(md, "ownerReferences",
				    json_pack("[{s:s, s:s, s:s, s:s}]", "apiVersion", "rbac.authorization.k8s.io/v1",
					      "kind", "ClusterRole", "name", r->owner_name, "uid", r->owner_uid));
	return json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", GROUP "/v1", "kind", kind, "metadata", md, "webhooks",
			 hooks);
}

static char *bundle_b64(const char *pem)
{
	return gt_base64_encode((const unsigned char *)pem, strlen(pem));
}

json_t *gt_registration_mutating(const struct gt_registration *r, const char *ca_bundle_pem)
{
	char name[300], *b64 = bundle_b64(ca_bundle_pem);
	snprintf(name, sizeof(name), "admission.%s.svc", r->ns);
	json_t *pods = hook(r, name, GT_WEBHOOK_POD_MUTATE, "", "v1", "pods", "Namespaced", false, b64);
	pod_scope(r, pods);
	json_object_set_new(pods, "reinvocationPolicy", json_string("IfNeeded"));
	free(b64);
	return configuration(r, "MutatingWebhookConfiguration", r->mutating_name, json_pack("[o]", pods));
}

json_t *gt_registration_validating(const struct gt_registration *r, const char *ca_bundle_pem)
{
	char name[300], topo[320], *b64 = bundle_b64(ca_bundle_pem);
	snprintf(name, sizeof(name), "admission.%s.svc", r->ns);
	snprintf(topo, sizeof(topo), "topology.%s", name);
	json_t *pods = hook(r, name, GT_WEBHOOK_POD_VALIDATE, "", "v1", "pods", "Namespaced", true, b64);
	pod_scope(r, pods);
	json_t *hooks = json_pack("[o, o]", pods, hook(r, topo, GT_WEBHOOK_TOPOLOGY, "kai.scheduler", "v1alpha1",
							"topologies", "Cluster", true, b64));
	if (r->queue_validation)
		json_array_append_new(hooks, hook(r, "queue-validation.kai.scheduler", GT_WEBHOOK_QUEUE,
						  "scheduling.run.ai", "v2", "queues", "Cluster", true, b64));
	if (r->podgroup_validation)
		json_array_append_new(hooks, hook(r, "podgroup-validation.kai.scheduler", GT_WEBHOOK_PODGROUP,
						  "scheduling.run.ai", "v2alpha2", "podgroups", "Namespaced", true, b64));
	free(b64);
	return configuration(r, "ValidatingWebhookConfiguration", r->validating_name, hooks);
}

bool gt_registration_label_ok(const char *kv)
{
	const char *eq = strchr(kv, '=');
	return eq && eq > kv && !strchr(eq + 1, '=');
}
