/*
 * test_admission.c - the admission webhooks (src/admission/webhooks.h)
 * through their one entry point, as the API server calls them: an
 * AdmissionReview in, the answer out, its JSON Patch applied back to the
 * object to see the pod the API server would store. KAI's messages are
 * checked word for word; the shared-GPU ConfigMaps the mutation names are
 * checked against the names Gantry's binder derives (api/gpushare.h);
 * garbage must always get an answer.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admission/webhooks.h"
#include "api/gpushare.h"
#include "api/json.h"
#include "harness.h"

const char *gt_suite = "admission";

static const struct gt_admission_rules RULES = {
	.scheduler_name = "kai-scheduler", .gpu_sharing = true, .fraction_runtime_class = "nvidia",
	.queue_validation = true, .podgroup_validation = true,
};

/* --- a client of the webhooks ---------------------------------------------------------------- */

struct answer {
	int http;
	json_t *review;		/* the whole answer, when it is JSON */
	json_t *resp;		/* review.response */
	json_t *patched;	/* the object with the patch applied (a copy of it without a patch) */
	const char *message;	/* status.message */
	long code;		/* status.code */
	bool allowed;
};

static json_t *review_of(const char *kind_group, const char *version, const char *kind, const char *op,
			 json_t *object, json_t *old)
{
	json_t *req = json_pack("{s:s, s:{s:s, s:s, s:s}, s:s, s:s, s:s}", "uid", "0d7e5c1a-1111-4222-8333-944455556666",
				"kind", "group", kind_group, "version", version, "kind", kind, "operation", op,
				"namespace", "team-a", "name", "p");
	json_object_set_new(req, "object", object ? object : json_null());
	if (old)
		json_object_set_new(req, "oldObject", old);
	return json_pack("{s:s, s:s, s:o}", "apiVersion", "admission.k8s.io/v1", "kind", "AdmissionReview",
			 "request", req);
}

/* RFC 6901 tokens, for the small JSON Patch applier below. */
static char *unescape(const char *tok, size_t n)
{
	char *out = calloc(n + 1, 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		if (tok[i] == '~' && i + 1 < n) {
			*o++ = tok[i + 1] == '1' ? '/' : '~';
			i++;
		} else {
			*o++ = tok[i];
		}
	}
	return out;
}

/* Apply add / remove / replace (on object members, as the webhook emits them) to @doc. 0 or -1. */
static int apply_patch(json_t *doc, const json_t *ops)
{
	size_t i;
	json_t *op;
	json_array_foreach(ops, i, op) {
		const char *name = json_string_value(json_object_get(op, "op"));
		const char *path = json_string_value(json_object_get(op, "path"));
		if (!name || !path || path[0] != '/')
			return -1;
		json_t *at = doc;
		const char *p = path + 1;
		for (const char *slash; (slash = strchr(p, '/')); p = slash + 1) {
			char *key = unescape(p, (size_t)(slash - p));
			at = json_object_get(at, key);
			free(key);
			if (!json_is_object(at))
				return -1;
		}
		char *key = unescape(p, strlen(p));
		int rc = 0;
		if (!strcmp(name, "remove"))
			rc = json_object_del(at, key);
		else if (!strcmp(name, "add") || (!strcmp(name, "replace") && json_object_get(at, key)))
			rc = json_object_set(at, key, json_object_get(op, "value"));
		else
			rc = -1;
		free(key);
		if (rc)
			return -1;
	}
	return 0;
}

static void call(const struct gt_admission_rules *rules, const char *path, json_t *review, struct answer *a)
{
	char *body = json_dumps(review, JSON_COMPACT);
	struct gt_admission_reply r;
	gt_admission_handle(rules, "POST", path, "application/json", body, strlen(body), &r);
	*a = (struct answer){ .http = r.http_status };
	a->review = json_loadb(r.body, r.len, 0, NULL);
	a->resp = json_object_get(a->review, "response");
	json_t *st = json_object_get(a->resp, "status");
	a->message = json_string_value(json_object_get(st, "message"));
	a->code = (long)json_integer_value(json_object_get(st, "code"));
	a->allowed = json_is_true(json_object_get(a->resp, "allowed"));
	json_t *object = json_object_get(json_object_get(review, "request"), "object");
	a->patched = json_deep_copy(object);
	const char *patch = json_string_value(json_object_get(a->resp, "patch"));
	if (patch) {
		unsigned char *raw;
		size_t len;
		json_t *ops = NULL;
		if (!gt_base64_decode(patch, &raw, &len)) {
			ops = json_loadb((const char *)raw, len, 0, NULL);
			free(raw);
		}
		if (!ops || apply_patch(a->patched, ops)) {
			json_decref(a->patched);
			a->patched = NULL;
		}
		json_decref(ops);
	}
	gt_admission_reply_release(&r);
	free(body);
	json_decref(review);
}

static void answer_release(struct answer *a)
{
	json_decref(a->review);
	json_decref(a->patched);
}

/* A pod of kai-scheduler with @annotations (a JSON object text) and one container. */
static json_t *pod(const char *annotations)
{
	json_t *ann = json_loads(annotations, 0, NULL);
	return json_pack("{s:s, s:s, s:{s:s, s:s, s:o}, s:{s:s, s:[{s:s, s:s, s:{s:{s:s}}}]}}", "apiVersion", "v1",
			 "kind", "Pod", "metadata", "name", "train-0", "namespace", "team-a", "annotations", ann,
			 "spec", "schedulerName", "kai-scheduler", "containers", "name", "main", "image", "x", "resources",
			 "requests", "cpu", "1");
}

static void mutate(const struct gt_admission_rules *rules, json_t *p, struct answer *a)
{
	call(rules, "/mutate--v1-pod", review_of("", "v1", "Pod", "CREATE", p, NULL), a);
}

static void validate(const struct gt_admission_rules *rules, json_t *p, struct answer *a)
{
	call(rules, "/validate--v1-pod", review_of("", "v1", "Pod", "CREATE", p, NULL), a);
}

static const char *env_cm(const json_t *c, const char *var)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(c, "env"), i, e) {
		if (!strcmp(json_string_value(json_object_get(e, "name")), var)) {
			json_t *ref = json_object_get(json_object_get(e, "valueFrom"), "configMapKeyRef");
			const char *key = json_string_value(json_object_get(ref, "key"));
			return key && !strcmp(key, var) ? json_string_value(json_object_get(ref, "name")) : "(wrong key)";
		}
	}
	return NULL;
}

/* --- mutation ------------------------------------------------------------------------------ */

TEST(fraction_pod_gets_configmaps_env_volume_and_runtime_class)
{
	struct answer a;
	mutate(&RULES, pod("{\"gpu-fraction\": \"0.5\"}"), &a);
	ASSERT_EQ(200, a.http);
	ASSERT_TRUE(a.allowed);
	ASSERT_TRUE(a.patched != NULL);
	ASSERT_STR("0d7e5c1a-1111-4222-8333-944455556666", json_string_value(json_object_get(a.resp, "uid")));
	ASSERT_STR("JSONPatch", json_string_value(json_object_get(a.resp, "patchType")));
	const char *prefix = json_string_value(
		json_object_get(json_object_get(json_object_get(a.patched, "metadata"), "annotations"),
				"runai/shared-gpu-configmap"));
	/* <pod name>-<7 of KAI's alphabet>-shared-gpu */
	ASSERT_TRUE(prefix && strlen(prefix) == strlen("train-0-") + 7 + strlen("-shared-gpu"));
	ASSERT_TRUE(!strncmp(prefix, "train-0-", 8) && !strcmp(prefix + 15, "-shared-gpu"));
	ASSERT_EQ(7, strspn(prefix + 8, "bcdfghjklmnpqrstvwxz2456789"));
	char caps[128], evar[140], vol[140];
	snprintf(caps, sizeof(caps), "%s-0", prefix);
	snprintf(evar, sizeof(evar), "%s-0-evar", prefix);
	snprintf(vol, sizeof(vol), "%s-0-vol", prefix);
	json_t *spec = json_object_get(a.patched, "spec"), *c = json_array_get(json_object_get(spec, "containers"), 0);
	ASSERT_STR(caps, env_cm(c, "NVIDIA_VISIBLE_DEVICES"));
	ASSERT_STR(caps, env_cm(c, "RUNAI_NUM_OF_GPUS"));
	ASSERT_STR(caps, env_cm(c, "GPU_PORTION"));
	json_t *ef = json_array_get(json_object_get(c, "envFrom"), 0);
	ASSERT_STR(evar, json_string_value(json_object_get(json_object_get(ef, "configMapRef"), "name")));
	ASSERT_TRUE(json_is_false(json_object_get(json_object_get(ef, "configMapRef"), "optional")));
	json_t *v = json_array_get(json_object_get(spec, "volumes"), 0);
	ASSERT_STR(vol, json_string_value(json_object_get(v, "name")));
	ASSERT_STR(caps, json_string_value(json_object_get(json_object_get(v, "configMap"), "name")));
	ASSERT_STR("nvidia", json_string_value(json_object_get(spec, "runtimeClassName")));
	/* the binder reads the same names off the pod, and writes NVIDIA_VISIBLE_DEVICES where the env reads it */
	struct gt_doc *d = gt_doc_from_json(a.patched);
	struct gt_gpushare_cms cms;
	ASSERT_TRUE(gt_gpushare_configmaps(d, &cms));
	gt_doc_free(d);
	ASSERT_STR(caps, cms.caps);
	ASSERT_STR(evar, cms.evar);
	ASSERT_TRUE(cms.visible_in_caps);
	answer_release(&a);
}

TEST(mutation_is_idempotent_when_reinvoked)
{
	struct answer a, b;
	mutate(&RULES, pod("{\"gpu-memory\": \"10240\"}"), &a);
	ASSERT_TRUE(a.patched != NULL);
	mutate(&RULES, json_deep_copy(a.patched), &b);
	ASSERT_TRUE(b.allowed);
	ASSERT_TRUE(json_object_get(b.resp, "patch") == NULL);
	ASSERT_TRUE(json_equal(a.patched, b.patched));
	answer_release(&a);
	answer_release(&b);
}

TEST(named_init_container_and_existing_annotation)
{
	json_t *p = pod("{\"gpu-fraction\": \"0.25\", \"gpu-fraction-container-name\": \"warm\", "
			"\"runai/shared-gpu-configmap\": \"mine-abcdefg-shared-gpu\"}");
	json_t *init = json_pack("[{s:s, s:s, s:[{s:s, s:s}, {s:s, s:s}]}]", "name", "warm", "image", "x", "env", "name",
				 "GPU_PORTION", "value", "1", "name", "KEEP", "value", "k");
	json_object_set_new(json_object_get(p, "spec"), "initContainers", init);
	json_object_set_new(json_object_get(p, "spec"), "runtimeClassName", json_string("kata"));
	struct answer a;
	mutate(&RULES, p, &a);
	ASSERT_TRUE(a.allowed && a.patched);
	json_t *spec = json_object_get(a.patched, "spec");
	json_t *w = json_array_get(json_object_get(spec, "initContainers"), 0);
	ASSERT_STR("mine-abcdefg-shared-gpu-i0", env_cm(w, "GPU_PORTION"));
	/* KAI drops the variables it sets and appends them; the others keep their order */
	json_t *env = json_object_get(w, "env");
	ASSERT_EQ(4, json_array_size(env));
	ASSERT_STR("KEEP", json_string_value(json_object_get(json_array_get(env, 0), "name")));
	ASSERT_STR("GPU_PORTION", json_string_value(json_object_get(json_array_get(env, 3), "name")));
	/* the regular container is untouched, the runtime class the pod chose is kept */
	ASSERT_TRUE(!json_object_get(json_array_get(json_object_get(spec, "containers"), 0), "env"));
	ASSERT_STR("kata", json_string_value(json_object_get(spec, "runtimeClassName")));
	struct gt_doc *d = gt_doc_from_json(a.patched);
	struct gt_gpushare_cms cms;
	ASSERT_TRUE(gt_gpushare_configmaps(d, &cms));
	gt_doc_free(d);
	ASSERT_STR("mine-abcdefg-shared-gpu-i0", cms.caps);
	ASSERT_STR("mine-abcdefg-shared-gpu-i0-evar", cms.evar);
	answer_release(&a);
}

TEST(configmap_prefix_from_owner_cut_to_fit)
{
	json_t *p = pod("{\"gpu-fraction\": \"0.5\"}");
	json_object_set_new(json_object_get(p, "metadata"), "ownerReferences",
			    json_pack("[{s:s, s:s, s:s, s:s}]", "apiVersion", "batch/v1", "kind", "Job", "uid", "u", "name",
				      "a-very-long-job-name-for-training-llms-on-many-gpus"));
	struct answer a;
	mutate(&RULES, p, &a);
	const char *prefix = json_string_value(
		json_object_get(json_object_get(json_object_get(a.patched, "metadata"), "annotations"),
				"runai/shared-gpu-configmap"));
	/* 63 - 13 - len("shared-gpu") - len("0") - 1 - len("-evar") = 33 bytes of the owner's name */
	ASSERT_TRUE(prefix && !strncmp(prefix, "a-very-long-job-name-for-training-", 33));
	ASSERT_TRUE(prefix[33] == '-' && !strcmp(prefix + 41, "-shared-gpu"));
	json_t *v = json_array_get(json_object_get(json_object_get(a.patched, "spec"), "volumes"), 0);
	ASSERT_TRUE(strlen(json_string_value(json_object_get(v, "name"))) <= 63);
	answer_release(&a);
	/* a name cut at a hyphen loses it: "abc-" + "..." is never "abc--x" */
	p = pod("{\"gpu-fraction\": \"0.5\"}");
	json_object_set_new(json_object_get(p, "metadata"), "name", json_string("abcdefghijklmnopqrstuvwxyz-12345-7-9"));
	mutate(&RULES, p, &a);
	prefix = json_string_value(json_object_get(
		json_object_get(json_object_get(a.patched, "metadata"), "annotations"), "runai/shared-gpu-configmap"));
	ASSERT_TRUE(!strncmp(prefix, "abcdefghijklmnopqrstuvwxyz-12345-", 32) && prefix[32] == '-' &&
		    prefix[33] != '-');
	answer_release(&a);
}

TEST(other_schedulers_and_whole_gpu_pods_untouched)
{
	json_t *p = pod("{\"gpu-fraction\": \"0.5\"}");
	json_object_set_new(json_object_get(p, "spec"), "schedulerName", json_string("default-scheduler"));
	struct answer a;
	mutate(&RULES, p, &a);
	ASSERT_TRUE(a.allowed && !json_object_get(a.resp, "patch"));
	answer_release(&a);
	mutate(&RULES, pod("{}"), &a);
	ASSERT_TRUE(a.allowed && !json_object_get(a.resp, "patch"));
	answer_release(&a);
	struct gt_admission_rules no_rc = RULES;
	no_rc.fraction_runtime_class = "";
	mutate(&no_rc, pod("{\"gpu-fraction\": \"0.5\"}"), &a);
	ASSERT_TRUE(a.allowed && a.patched);
	ASSERT_TRUE(!json_object_get(json_object_get(a.patched, "spec"), "runtimeClassName"));
	answer_release(&a);
}

TEST(mutation_refusals_with_kai_messages)
{
	struct answer a;
	mutate(&RULES, pod("{\"gpu-fraction\": \"0.5\", \"gpu-fraction-container-name\": \"nope\"}"), &a);
	ASSERT_TRUE(!a.allowed);
	ASSERT_EQ(403, a.code);
	ASSERT_STR("Forbidden", json_string_value(json_object_get(json_object_get(a.resp, "status"), "reason")));
	ASSERT_STR("failed to get fraction container ref: container with name nope not found for fraction request",
		   a.message);
	answer_release(&a);
	json_t *p = pod("{}");
	json_object_set_new(json_object_get(p, "metadata"), "namespace", json_string("elsewhere"));
	mutate(&RULES, p, &a);
	ASSERT_STR("error: the namespace from the provided object elsewhere does not match the namespace team-a",
		   a.message);
	answer_release(&a);
}

TEST(block_nvidia_visible_devices)
{
	struct gt_admission_rules block = RULES;
	block.block_visible_devices = true;
	json_t *p = pod("{\"gpu-fraction\": \"0.5\"}");
	json_t *cs = json_object_get(json_object_get(p, "spec"), "containers");
	json_array_append_new(cs, json_pack("{s:s, s:s}", "name", "side", "image", "x"));
	json_array_append_new(cs, json_pack("{s:s, s:s, s:{s:{s:s}}}", "name", "gpu", "image", "x", "resources",
					    "requests", "nvidia.com/mig-1g.5gb", "1"));
	struct answer a;
	mutate(&block, p, &a);
	ASSERT_TRUE(a.allowed && a.patched);
	cs = json_object_get(json_object_get(a.patched, "spec"), "containers");
	json_t *side = json_array_get(json_object_get(json_array_get(cs, 1), "env"), 0);
	ASSERT_STR("NVIDIA_VISIBLE_DEVICES", json_string_value(json_object_get(side, "name")));
	ASSERT_STR("void", json_string_value(json_object_get(side, "value")));
	ASSERT_TRUE(!json_object_get(json_array_get(cs, 2), "env"));		/* asks for a MIG device */
	ASSERT_STR(env_cm(json_array_get(cs, 0), "GPU_PORTION"), env_cm(json_array_get(cs, 0), "NVIDIA_VISIBLE_DEVICES"));
	answer_release(&a);
	p = pod("{}");
	json_object_set_new(json_array_get(json_object_get(json_object_get(p, "spec"), "containers"), 0), "env",
			    json_pack("[{s:s, s:s}]", "name", "NVIDIA_VISIBLE_DEVICES", "value", "all"));
	validate(&block, p, &a);
	ASSERT_STR("container main has an environment variable NVIDIA_VISIBLE_DEVICES defined with a value of all. "
		   "This is forbidden due to conflicts with Nvidia's device plugin. The only values that are allowed "
		   "are 'void' or 'none'", a.message);
	answer_release(&a);
	p = pod("{}");
	json_object_set_new(json_array_get(json_object_get(json_object_get(p, "spec"), "containers"), 0), "env",
			    json_pack("[{s:s, s:{s:{s:s, s:s}}}]", "name", "NVIDIA_VISIBLE_DEVICES", "valueFrom",
				      "configMapKeyRef", "name", "cm", "key", "k"));
	validate(&block, p, &a);
	ASSERT_STR("container main has an environment variable NVIDIA_VISIBLE_DEVICES defined with a valueFrom "
		   "reference. This is forbidden due to possible conflicts with Nvidia's device plugin", a.message);
	answer_release(&a);
	/* without the flag, the same pod passes */
	p = pod("{}");
	json_object_set_new(json_array_get(json_object_get(json_object_get(p, "spec"), "containers"), 0), "env",
			    json_pack("[{s:s, s:s}]", "name", "NVIDIA_VISIBLE_DEVICES", "value", "all"));
	validate(&RULES, p, &a);
	ASSERT_TRUE(a.allowed);
	answer_release(&a);
}

/* --- pod validation ---------------------------------------------------------------------- */

TEST(pod_validation_kai_messages)
{
	static const struct {
		const char *annotations;
		bool whole_gpu_limit;
		const char *message;	/* NULL: allowed */
	} cases[] = {
		{ "{\"gpu-fraction\": \"0.5\"}", false, NULL },
		{ "{\"gpu-fraction\": \"1.5\"}", false, "gpu-fraction annotation value must be a positive number smaller than 1.0" },
		{ "{\"gpu-fraction\": \"1\"}", false, "gpu-fraction annotation value must be a positive number smaller than 1.0" },
		{ "{\"gpu-fraction\": \"0\"}", false, "gpu-fraction annotation value must be a positive number smaller than 1.0" },
		{ "{\"gpu-fraction\": \"-0.5\"}", false, "gpu-fraction annotation value must be a positive number smaller than 1.0" },
		{ "{\"gpu-fraction\": \"500m\"}", false, "gpu-fraction annotation value must be a positive number smaller than 1.0" },
		{ "{\"gpu-fraction\": \" 0.5\"}", false, "gpu-fraction annotation value must be a positive number smaller than 1.0" },
		{ "{\"gpu-fraction\": \"half\"}", false, "gpu-fraction annotation value must be a positive number smaller than 1.0" },
		{ "{\"gpu-fraction\": \"0x1p-1\"}", false, "gpu-fraction annotation value must be a float written with a decimal point or a scientific notation .given value: 0x1p-1" },
		{ "{\"gpu-fraction\": \"nan\"}", false, "gpu-fraction annotation value must be a float written with a decimal point or a scientific notation .given value: nan" },
		{ "{\"gpu-fraction\": \"0.1_5\"}", false, "gpu-fraction annotation value must be a float written with a decimal point or a scientific notation .given value: 0.1_5" },
		{ "{\"gpu-fraction\": \"5e-1\"}", false, NULL },
		{ "{\"gpu-fraction\": \"+.25\"}", false, NULL },
		{ "{\"gpu-fraction\": \"0.1234567890123456789012345\"}", false, NULL },
		{ "{\"gpu-fraction\": \"0.5\"}", true, "cannot have both GPU fraction request and whole GPU resource request/limit" },
		{ "{\"gpu-memory\": \"2000\"}", true, "cannot request both GPU and GPU memory" },
		{ "{\"gpu-memory\": \"2000\", \"gpu-fraction\": \"0.5\"}", false, "cannot request both GPU and GPU memory" },
		{ "{\"gpu-memory\": \"0\"}", false, "gpu-memory annotation value must be a positive integer greater than 0" },
		{ "{\"gpu-memory\": \"-5\"}", false, "gpu-memory annotation value must be a positive integer greater than 0" },
		{ "{\"gpu-memory\": \"1Gi\"}", false, "gpu-memory annotation value must be a positive integer greater than 0" },
		{ "{\"gpu-memory\": \"18446744073709551615\"}", false, NULL },
		{ "{\"gpu-memory\": \"18446744073709551616\"}", false, "gpu-memory annotation value must be a positive integer greater than 0" },
		{ "{\"gpu-fraction-num-devices\": \"2\"}", false, "cannot request multiple fractional devices without specifying fraction portion or gpu-memory" },
		{ "{\"gpu-fraction-num-devices\": \"0\", \"gpu-fraction\": \"0.5\"}", false, "fraction count annotation value must be a positive integer greater than 0" },
		{ "{\"gpu-fraction-num-devices\": \"2\", \"gpu-fraction\": \"0.5\"}", false, NULL },
		{ "{\"mps\": \"true\"}", false, "MPS is only supported with GPU fraction request" },
		{ "{\"mps\": \"true\", \"gpu-memory\": \"100\"}", false, NULL },
		{ "{\"mps\": \"yes\"}", false, NULL },
		{ "{}", true, NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *p = pod(cases[i].annotations);
		if (cases[i].whole_gpu_limit)
			json_object_set_new(json_object_get(json_array_get(json_object_get(json_object_get(p, "spec"),
											      "containers"), 0),
							    "resources"),
					    "limits", json_pack("{s:s}", "nvidia.com/gpu", "1"));
		struct answer a;
		validate(&RULES, p, &a);
		if (cases[i].message) {
			if (a.allowed || !a.message || strcmp(a.message, cases[i].message))
				fprintf(stderr, "case %zu (%s): allowed %d, message %s\n", i, cases[i].annotations,
					a.allowed, a.message ? a.message : "(none)");
			ASSERT_TRUE(!a.allowed);
			ASSERT_EQ(403, a.code);
			ASSERT_STR(cases[i].message, a.message);
		} else {
			if (!a.allowed)
				fprintf(stderr, "case %zu (%s): %s\n", i, cases[i].annotations, a.message);
			ASSERT_TRUE(a.allowed);
		}
		answer_release(&a);
	}
}

TEST(gpu_sharing_disabled_refuses_fractions)
{
	struct gt_admission_rules off = RULES;
	off.gpu_sharing = false;
	struct answer a;
	validate(&off, pod("{\"gpu-memory\": \"1024\"}"), &a);
	ASSERT_STR("attempting to create a pod team-a/train-0 with gpu sharing request, while GPU sharing is disabled",
		   a.message);
	answer_release(&a);
	validate(&off, pod("{}"), &a);
	ASSERT_TRUE(a.allowed);
	answer_release(&a);
	/* an update of a pod of ours is validated the same way, a DELETE is not */
	call(&off, "/validate--v1-pod", review_of("", "v1", "Pod", "UPDATE", pod("{\"gpu-fraction\": \"0.5\"}"),
						  pod("{}")), &a);
	ASSERT_TRUE(!a.allowed);
	answer_release(&a);
	call(&off, "/validate--v1-pod", review_of("", "v1", "Pod", "DELETE", NULL, pod("{\"gpu-fraction\": \"2\"}")),
	     &a);
	ASSERT_TRUE(a.allowed);
	answer_release(&a);
}

/* --- Queue, Topology, PodGroup -------------------------------------------------------------- */

TEST(queue_needs_resources)
{
	struct answer a;
	json_t *q = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "apiVersion", "scheduling.run.ai/v2", "kind", "Queue",
			      "metadata", "name", "q", "spec", "parentQueue", "root");
	call(&RULES, "/validate-scheduling-run-ai-v2-queue", review_of("scheduling.run.ai", "v2", "Queue", "CREATE",
								       q, NULL), &a);
	ASSERT_TRUE(!a.allowed);
	ASSERT_STR("resources must be specified", a.message);
	ASSERT_STR("resources must be specified", json_string_value(json_array_get(json_object_get(a.resp,
												 "warnings"), 0)));
	answer_release(&a);
	q = json_pack("{s:s, s:s, s:{s:s}, s:{s:{s:{s:i}}}}", "apiVersion", "scheduling.run.ai/v2", "kind", "Queue",
		      "metadata", "name", "q", "spec", "resources", "gpu", "quota", 2);
	call(&RULES, "/validate-scheduling-run-ai-v2-queue", review_of("scheduling.run.ai", "v2", "Queue", "UPDATE",
								       q, NULL), &a);
	ASSERT_TRUE(a.allowed);
	answer_release(&a);
	/* switched off (KAI's queueController.webhooks.enableValidation false): no such webhook */
	struct gt_admission_rules off = RULES;
	off.queue_validation = false;
	call(&off, "/validate-scheduling-run-ai-v2-queue", review_of("scheduling.run.ai", "v2", "Queue", "CREATE",
								     json_object(), NULL), &a);
	ASSERT_EQ(404, a.http);
	answer_release(&a);
}

static void topology(const char *levels, struct answer *a)
{
	json_t *t = json_pack("{s:s, s:s, s:{s:s}, s:{s:o}}", "apiVersion", "kai.scheduler/v1alpha1", "kind", "Topology",
			      "metadata", "name", "dc", "spec", "levels", json_loads(levels, 0, NULL));
	call(&RULES, "/validate-kai-scheduler-v1alpha1-topology",
	     review_of("kai.scheduler", "v1alpha1", "Topology", "CREATE", t, NULL), a);
}

TEST(topology_aliases)
{
	struct answer a;
	topology("[{\"nodeLabel\": \"zone\", \"alias\": \"z\"}, {\"nodeLabel\": \"rack\", \"alias\": \"r\"}]", &a);
	ASSERT_TRUE(a.allowed);
	answer_release(&a);
	topology("[{\"nodeLabel\": \"zone\", \"alias\": \"x\"}, {\"nodeLabel\": \"rack\", \"alias\": \"x\"}, "
		 "{\"nodeLabel\": \"host\", \"alias\": \"zone\"}, {\"nodeLabel\": \"gpu\", \"alias\": \"a\"}, "
		 "{\"nodeLabel\": \"nic\", \"alias\": \"a\"}]", &a);
	ASSERT_STR("invalid topology aliases: aliases must be unique within the topology; duplicated: [a x]; "
		   "an alias must not equal a nodeLabel; conflicting: [zone]", a.message);
	answer_release(&a);
	topology("[{\"nodeLabel\": \"zone\", \"alias\": \"zone\"}]", &a);
	ASSERT_STR("invalid topology aliases: an alias must not equal a nodeLabel; conflicting: [zone]", a.message);
	answer_release(&a);
}

static void podgroup(const char *op, const char *spec, struct answer *a)
{
	json_t *pg = json_pack("{s:s, s:s, s:{s:s, s:s}, s:o}", "apiVersion", "scheduling.run.ai/v2alpha2", "kind",
			       "PodGroup", "metadata", "name", "pg", "namespace", "team-a", "spec",
			       json_loads(spec, 0, NULL));
	call(&RULES, "/validate-scheduling-run-ai-v2alpha2-podgroup",
	     review_of("scheduling.run.ai", "v2alpha2", "PodGroup", op, pg, NULL), a);
}

static const char *warning(const struct answer *a, size_t i)
{
	return json_string_value(json_array_get(json_object_get(a->resp, "warnings"), i));
}

TEST(podgroup_rules)
{
	struct answer a;
	podgroup("CREATE", "{\"minMember\": 2, \"minSubGroup\": 1}", &a);
	ASSERT_STR("minMember and minSubGroup are mutually exclusive: set minMember (2) to schedule a fixed number of "
		   "pods, or set minSubGroup to require a minimum number of child SubGroups, but not both", a.message);
	answer_release(&a);
	podgroup("CREATE", "{\"subGroups\": [{\"name\": \"a\", \"minMember\": 1}, {\"name\": \"a\", \"minMember\": 1}]}",
		 &a);
	ASSERT_STR("duplicate subgroup name a", a.message);
	answer_release(&a);
	podgroup("CREATE", "{\"subGroups\": [{\"name\": \"a\", \"parent\": \"z\", \"minMember\": 1}]}", &a);
	ASSERT_STR("parent z of a was not found", a.message);
	answer_release(&a);
	podgroup("CREATE", "{\"subGroups\": [{\"name\": \"a\", \"parent\": \"b\"}, {\"name\": \"b\", \"parent\": \"a\"}]}",
		 &a);
	ASSERT_STR("cycle detected in subgroups", a.message);
	answer_release(&a);
}

TEST(podgroup_errors_in_name_order_and_warnings)
{
	struct answer a;
	/* leaves b and a: errors sorted by name, joined by newlines */
	podgroup("CREATE", "{\"subGroups\": [{\"name\": \"b\", \"minSubGroup\": 1}, {\"name\": \"a\"}]}", &a);
	ASSERT_STR("subgroup a: minMember is required\n"
		   "subgroup \"b\": minSubGroup cannot be set on a leaf SubGroup (no child SubGroups)\n"
		   "subgroup b: minMember is required", a.message);
	answer_release(&a);
	/* minSubGroup above the children: a warning only; minMember on a mid-level group: refused on create... */
	const char *spec = "{\"minSubGroup\": 3, \"subGroups\": [{\"name\": \"top\", \"minMember\": 1, \"minSubGroup\": 0}, "
			   "{\"name\": \"leaf\", \"parent\": \"top\", \"minMember\": 1}]}";
	podgroup("CREATE", spec, &a);
	ASSERT_STR("subgroup \"top\": minMember and minSubGroup are mutually exclusive", a.message);
	answer_release(&a);
	spec = "{\"minSubGroup\": 3, \"subGroups\": [{\"name\": \"top\", \"minMember\": 1}, "
	       "{\"name\": \"leaf\", \"parent\": \"top\", \"minMember\": 1}]}";
	podgroup("CREATE", spec, &a);
	ASSERT_TRUE(!a.allowed);
	ASSERT_STR("subgroup \"top\": minMember cannot be set on a mid-level SubGroup (has child SubGroups); use "
		   "minSubGroup instead", a.message);
	ASSERT_STR("minSubGroup (3) exceeds the number of direct child SubGroups (1)", warning(&a, 0));
	answer_release(&a);
	/* ...and only a warning on update, for PodGroups made before the rule */
	podgroup("UPDATE", spec, &a);
	ASSERT_TRUE(a.allowed);
	ASSERT_STR("subgroup \"top\": minMember cannot be set on a mid-level SubGroup (has child SubGroups); use "
		   "minSubGroup instead", warning(&a, 0));
	ASSERT_STR("minSubGroup (3) exceeds the number of direct child SubGroups (1)", warning(&a, 1));
	answer_release(&a);
	podgroup("CREATE", "{\"minSubGroup\": 0}", &a);
	ASSERT_STR("minSubGroup at the podgroup level must be equal to or greater than 1", a.message);
	answer_release(&a);
	podgroup("CREATE", "{\"minMember\": 3, \"subGroups\": [{\"name\": \"x\", \"minMember\": 2, \"parent\": null}]}",
		 &a);
	ASSERT_TRUE(a.allowed);
	answer_release(&a);
}

/* --- what the API server should never send, and gets an answer for -------------------------- */

static struct gt_admission_reply raw(const char *method, const char *path, const char *ctype, const char *body)
{
	struct gt_admission_reply r;
	gt_admission_handle(&RULES, method, path, ctype, body, body ? strlen(body) : 0, &r);
	return r;
}

static void expect_error(const char *body, int code, const char *msg_part)
{
	struct gt_admission_reply r = raw("POST", "/validate--v1-pod", "application/json", body);
	json_t *j = json_loadb(r.body, r.len, 0, NULL);
	json_t *st = json_object_get(json_object_get(j, "response"), "status");
	if (r.http_status != 200 || !json_is_false(json_object_get(json_object_get(j, "response"), "allowed")) ||
	    json_integer_value(json_object_get(st, "code")) != code ||
	    !json_string_value(json_object_get(st, "message")) ||
	    !strstr(json_string_value(json_object_get(st, "message")), msg_part))
		fprintf(stderr, "body %.80s: got %d %.*s\n", body, r.http_status, (int)r.len, r.body);
	ASSERT_EQ(200, r.http_status);
	ASSERT_EQ(code, json_integer_value(json_object_get(st, "code")));
	ASSERT_CONTAINS(json_string_value(json_object_get(st, "message")), msg_part);
	json_decref(j);
	gt_admission_reply_release(&r);
}

TEST(bad_requests_get_clear_errors)
{
	expect_error("", 400, "the body is not JSON");
	expect_error("{\"apiVersion\": \"admission.k8s.io/v1\"", 400, "the body is not JSON");
	expect_error("[1, 2]", 400, "expected an AdmissionReview");
	expect_error("{\"apiVersion\": \"v1\", \"kind\": \"Pod\"}", 400, "expected an AdmissionReview of admission.k8s.io/v1");
	expect_error("{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": \"AdmissionReview\"}", 400, "has no request");
	expect_error("{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": \"AdmissionReview\", \"request\": {}}", 400,
		     "request.uid is missing");
	expect_error("{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": \"AdmissionReview\", \"request\": {\"uid\": "
		     "\"u\", \"kind\": {\"group\": \"\", \"version\": \"v1\", \"kind\": \"Pod\"}, \"operation\": \"PATCH\"}}",
		     400, "unknown operation \"PATCH\"");
	expect_error("{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": \"AdmissionReview\", \"request\": {\"uid\": "
		     "\"u\", \"kind\": {\"group\": \"scheduling.run.ai\", \"version\": \"v2\", \"kind\": \"Queue\"}, "
		     "\"operation\": \"CREATE\", \"object\": {}}}", 400, "/validate--v1-pod reviews v1/Pod, not "
		     "scheduling.run.ai/v2/Queue");
	expect_error("{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": \"AdmissionReview\", \"request\": {\"uid\": "
		     "\"u\", \"kind\": {\"group\": \"\", \"version\": \"v1\", \"kind\": \"Pod\"}, \"operation\": "
		     "\"CREATE\"}}", 400, "request.object is missing");
	expect_error("{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": \"AdmissionReview\", \"request\": {\"uid\": "
		     "\"u\", \"kind\": {\"group\": \"\", \"version\": \"v1\", \"kind\": \"Pod\"}, \"operation\": "
		     "\"CREATE\", \"object\": {\"metadata\": {\"annotations\": {\"a\": 1}}, \"spec\": {}}}}", 400,
		     "metadata.annotations must map names to strings");
	expect_error("{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": \"AdmissionReview\", \"request\": {\"uid\": "
		     "\"u\", \"kind\": {\"group\": \"\", \"version\": \"v1\", \"kind\": \"Pod\"}, \"operation\": "
		     "\"CREATE\", \"object\": {\"metadata\": {}, \"spec\": {\"containers\": [{\"name\": \"m\", "
		     "\"env\": 3}]}}}}", 400, "spec.containers[0].env must be a list of objects");
	struct gt_admission_reply r = raw("POST", "/nope", "application/json", "{}");
	ASSERT_EQ(404, r.http_status);
	gt_admission_reply_release(&r);
	r = raw("GET", "/mutate--v1-pod", NULL, NULL);
	ASSERT_EQ(405, r.http_status);
	gt_admission_reply_release(&r);
	r = raw("POST", "/mutate--v1-pod", "text/plain", "{}");
	ASSERT_CONTAINS(r.body, "contentType=text/plain, expected application/json");
	gt_admission_reply_release(&r);
	/* the answer keeps the review's uid when it could be read, and its apiVersion */
	r = raw("POST", "/mutate--v1-pod", "application/json; charset=utf-8",
		"{\"apiVersion\": \"admission.k8s.io/v1beta1\", \"kind\": \"AdmissionReview\", \"request\": {\"uid\": "
		"\"abc\", \"kind\": {\"group\": \"\", \"version\": \"v1\", \"kind\": \"Pod\"}, \"operation\": \"DELETE\"}}");
	ASSERT_CONTAINS(r.body, "\"uid\":\"abc\"");
	ASSERT_CONTAINS(r.body, "\"apiVersion\":\"admission.k8s.io/v1beta1\"");
	ASSERT_CONTAINS(r.body, "\"allowed\":true");
	gt_admission_reply_release(&r);
}

/*
 * Garbage, and a good review cut and damaged at every byte: every call
 * answers (ASan and UBSan watch for the rest), an answer that is JSON is an
 * AdmissionReview, and a damaged review is never allowed with a patch that
 * does not apply.
 */
TEST(fuzzed_reviews_always_answered)
{
	json_t *p = pod("{\"gpu-fraction\": \"0.5\", \"gpu-fraction-container-name\": \"main\"}");
	json_t *rv = review_of("", "v1", "Pod", "CREATE", p, NULL);
	char *good = json_dumps(rv, JSON_COMPACT);
	json_decref(rv);
	size_t n = strlen(good);
	char *buf = malloc(n + 1);
	uint64_t seed = 88172645463325252ULL;
	static const char *const paths[] = { "/mutate--v1-pod", "/validate--v1-pod",
					     "/validate-scheduling-run-ai-v2alpha2-podgroup" };
	for (size_t i = 0; i < 3 * n; i++) {
		memcpy(buf, good, n + 1);
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		size_t at = seed % n, len = i < n ? i : n;
		if (i >= n)
			buf[at] = (char)(seed >> 24);	/* one byte damaged */
		struct gt_admission_reply r;
		gt_admission_handle(&RULES, "POST", paths[i % 3], "application/json", buf, len, &r);
		ASSERT_EQ(200, r.http_status);
		json_t *j = json_loadb(r.body, r.len, 0, NULL);
		ASSERT_TRUE(j != NULL);
		ASSERT_STR("AdmissionReview", json_string_value(json_object_get(j, "kind")));
		json_decref(j);
		gt_admission_reply_release(&r);
	}
	free(buf);
	free(good);
}

const struct gt_test gt_tests[] = {
	T(fraction_pod_gets_configmaps_env_volume_and_runtime_class),
	T(mutation_is_idempotent_when_reinvoked),
	T(named_init_container_and_existing_annotation),
	T(configmap_prefix_from_owner_cut_to_fit),
	T(other_schedulers_and_whole_gpu_pods_untouched),
	T(mutation_refusals_with_kai_messages),
	T(block_nvidia_visible_devices),
	T(pod_validation_kai_messages),
	T(gpu_sharing_disabled_refuses_fractions),
	T(queue_needs_resources),
	T(topology_aliases),
	T(podgroup_rules),
	T(podgroup_errors_in_name_order_and_warnings),
	T(bad_requests_get_clear_errors),
	T(fuzzed_reviews_always_answered),
	{ 0 }
};
