/*
 * test_admission_registration.c - the webhook configurations Gantry registers
 * (src/admission/registration.h): KAI's names, rules, failure policy,
 * selectors and match condition, the Service or URL they call, the CA
 * bundle and the owner that removes them on uninstall.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "admission/registration.h"
#include "api/json.h"
#include "harness.h"

const char *gt_suite = "admission_registration";

static const char *const NS_LABELS[] = { "team=gpu" };
static const char *const POD_LABELS[] = { "kai=yes", "tier=batch" };

static struct gt_registration reg(void)
{
	return (struct gt_registration){
		.ns = "kai-scheduler", .service = "gantry-admission", .service_port = 443,
		.mutating_name = "gantry-admission", .validating_name = "gantry-admission",
		.scheduler_name = "kai-scheduler", .queue_validation = true, .podgroup_validation = true,
		.owner_name = "gantry-scheduler", .owner_uid = "6f1c0d2e-0000-4000-8000-000000000001",
	};
}

/* The value at a dotted path of keys and list indexes ("webhooks.0.name"), or NULL. */
static const json_t *at(const json_t *o, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *tok = strtok(buf, "."); tok && o; tok = strtok(NULL, "."))
		o = json_is_array(o) ? json_array_get(o, strtoul(tok, NULL, 10)) : json_object_get(o, tok);
	return o;
}

static const char *str(const json_t *o, const char *path)
{
	return json_string_value(at(o, path));
}

TEST(mutating_as_kai_registers_it)
{
	struct gt_registration r = reg();
	json_t *m = gt_registration_mutating(&r, "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n");
	ASSERT_STR("admissionregistration.k8s.io/v1", str(m, "apiVersion"));
	ASSERT_STR("MutatingWebhookConfiguration", str(m, "kind"));
	ASSERT_STR("gantry-admission", str(m, "metadata.name"));
	ASSERT_STR("ClusterRole", str(m, "metadata.ownerReferences.0.kind"));
	ASSERT_STR("6f1c0d2e-0000-4000-8000-000000000001", str(m, "metadata.ownerReferences.0.uid"));
	json_t *hooks = json_object_get(m, "webhooks");
	ASSERT_EQ(1, json_array_size(hooks));
	ASSERT_STR("admission.kai-scheduler.svc", str(m, "webhooks.0.name"));
	ASSERT_STR("Fail", str(m, "webhooks.0.failurePolicy"));
	ASSERT_STR("None", str(m, "webhooks.0.sideEffects"));
	ASSERT_STR("IfNeeded", str(m, "webhooks.0.reinvocationPolicy"));
	ASSERT_STR("v1", str(m, "webhooks.0.admissionReviewVersions.0"));
	ASSERT_STR("CREATE", str(m, "webhooks.0.rules.0.operations.0"));
	ASSERT_TRUE(!at(m, "webhooks.0.rules.0.operations.1"));
	ASSERT_STR("pods", str(m, "webhooks.0.rules.0.resources.0"));
	ASSERT_STR("Namespaced", str(m, "webhooks.0.rules.0.scope"));
	ASSERT_STR("kai-scheduler", str(m, "webhooks.0.clientConfig.service.namespace"));
	ASSERT_STR("gantry-admission", str(m, "webhooks.0.clientConfig.service.name"));
	ASSERT_STR("/mutate--v1-pod", str(m, "webhooks.0.clientConfig.service.path"));
	ASSERT_EQ(443, json_integer_value(at(m, "webhooks.0.clientConfig.service.port")));
	unsigned char *ca;
	size_t len;
	ASSERT_EQ(0, gt_base64_decode(str(m, "webhooks.0.clientConfig.caBundle"), &ca, &len));
	ASSERT_STR("-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n", (char *)ca);
	free(ca);
	ASSERT_STR("kubernetes.io/metadata.name", str(m, "webhooks.0.namespaceSelector.matchExpressions.0.key"));
	ASSERT_STR("NotIn", str(m, "webhooks.0.namespaceSelector.matchExpressions.0.operator"));
	ASSERT_STR("kube-system", str(m, "webhooks.0.namespaceSelector.matchExpressions.0.values.0"));
	ASSERT_STR("kai-scheduler", str(m, "webhooks.0.namespaceSelector.matchExpressions.0.values.1"));
	ASSERT_TRUE(!at(m, "webhooks.0.namespaceSelector.matchLabels"));
	ASSERT_TRUE(!at(m, "webhooks.0.objectSelector"));
	ASSERT_STR("scheduler-name-match", str(m, "webhooks.0.matchConditions.0.name"));
	ASSERT_STR("object.spec.schedulerName == 'kai-scheduler'", str(m, "webhooks.0.matchConditions.0.expression"));
	json_decref(m);
}

TEST(validating_holds_kai_four_webhooks)
{
	struct gt_registration r = reg();
	json_t *v = gt_registration_validating(&r, "x");
	json_t *hooks = json_object_get(v, "webhooks");
	ASSERT_EQ(4, json_array_size(hooks));
	static const char *const names[] = { "admission.kai-scheduler.svc", "topology.admission.kai-scheduler.svc",
					     "queue-validation.kai.scheduler", "podgroup-validation.kai.scheduler" };
	static const char *const paths[] = { "/validate--v1-pod", "/validate-kai-scheduler-v1alpha1-topology",
					     "/validate-scheduling-run-ai-v2-queue",
					     "/validate-scheduling-run-ai-v2alpha2-podgroup" };
	static const char *const scopes[] = { "Namespaced", "Cluster", "Cluster", "Namespaced" };
	for (size_t i = 0; i < 4; i++) {
		json_t *h = json_array_get(hooks, i);
		ASSERT_STR(names[i], str(h, "name"));
		ASSERT_STR(paths[i], str(h, "clientConfig.service.path"));
		ASSERT_STR(scopes[i], str(h, "rules.0.scope"));
		ASSERT_STR("UPDATE", str(h, "rules.0.operations.1"));
		ASSERT_STR("Fail", str(h, "failurePolicy"));
		/* only the pod webhook is scoped to our pods */
		ASSERT_EQ(i == 0, json_object_get(h, "matchConditions") != NULL);
		ASSERT_EQ(i == 0, json_object_get(h, "namespaceSelector") != NULL);
	}
	ASSERT_STR("scheduling.run.ai", str(v, "webhooks.2.rules.0.apiGroups.0"));
	ASSERT_STR("v2", str(v, "webhooks.2.rules.0.apiVersions.0"));
	ASSERT_STR("v2alpha2", str(v, "webhooks.3.rules.0.apiVersions.0"));
	json_decref(v);
	/* KAI's enableValidation switches, off */
	r.queue_validation = r.podgroup_validation = false;
	v = gt_registration_validating(&r, "x");
	ASSERT_EQ(2, json_array_size(json_object_get(v, "webhooks")));
	json_decref(v);
}

TEST(url_selectors_and_no_owner)
{
	struct gt_registration r = reg();
	r.url = "https://127.0.0.1:9443";
	r.namespace_labels = NS_LABELS;
	r.n_namespace_labels = 1;
	r.pod_labels = POD_LABELS;
	r.n_pod_labels = 2;
	r.queue_label_key = "kai.scheduler/queue";
	r.owner_uid = NULL;
	json_t *m = gt_registration_mutating(&r, "x");
	ASSERT_STR("https://127.0.0.1:9443/mutate--v1-pod", str(m, "webhooks.0.clientConfig.url"));
	ASSERT_TRUE(!at(m, "webhooks.0.clientConfig.service"));
	ASSERT_STR("gpu", str(m, "webhooks.0.namespaceSelector.matchLabels.team"));
	ASSERT_STR("kai.scheduler/queue", str(m, "webhooks.0.namespaceSelector.matchExpressions.1.key"));
	ASSERT_STR("Exists", str(m, "webhooks.0.namespaceSelector.matchExpressions.1.operator"));
	ASSERT_STR("yes", str(m, "webhooks.0.objectSelector.matchLabels.kai"));
	ASSERT_STR("batch", str(m, "webhooks.0.objectSelector.matchLabels.tier"));
	ASSERT_TRUE(!at(m, "metadata.ownerReferences"));
	json_decref(m);
	ASSERT_TRUE(gt_registration_label_ok("a=b"));
	ASSERT_TRUE(gt_registration_label_ok("example.com/team="));
	ASSERT_TRUE(!gt_registration_label_ok("=b"));
	ASSERT_TRUE(!gt_registration_label_ok("ab"));
	ASSERT_TRUE(!gt_registration_label_ok("a=b=c"));
}

const struct gt_test gt_tests[] = {
	T(mutating_as_kai_registers_it),
	T(validating_holds_kai_four_webhooks),
	T(url_selectors_and_no_owner),
	{ 0 }
};
