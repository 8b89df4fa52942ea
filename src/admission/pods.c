/*
 * pods.c - the pod webhooks: GPU sharing, device access, the runtime class
 *
 * KAI's admission runs a list of plugins on every pod of its scheduler
 * (pkg/admission/webhook/v1alpha2): the same here, in KAI's order.
 *
 * Mutation (/mutate--v1-pod, CREATE):
 *  1. the pod's namespace is the request's (an object naming another one
 *     is refused, as KAI refuses it);
 *  2. gpusharing - a pod with the annotation gpu-fraction or gpu-memory
 *     gets, in its fraction container (the one annotation
 *     gpu-fraction-container-name names, else the first):
 *       - the annotation runai/shared-gpu-configmap = <prefix>, when it has
 *         none: <owner or pod name, cut to fit>-<7 characters>-shared-gpu;
 *       - env NVIDIA_VISIBLE_DEVICES, RUNAI_NUM_OF_GPUS, GPU_PORTION, each
 *         from the key of its name in ConfigMap <prefix>-<index> (an init
 *         container's index is "i<index>"), replacing any of those names;
 *       - envFrom ConfigMap <prefix>-<index>-evar (optional: false);
 *       - a volume "<prefix>-<index>-vol" of ConfigMap <prefix>-<index>.
 *     Gantry's binder fills those two ConfigMaps at bind time
 *     (api/gpushare.h names them from the same annotation): the GPU's UUID,
 *     the portion, and the same value as RUNAI_NUM_OF_GPUS;
 *  3. deviceaccess (--block-nvidia-visible-devices) - every other container
 *     that requests no GPU (nvidia.com/gpu or a MIG device) gets
 *     NVIDIA_VISIBLE_DEVICES=void;
 *  4. runtimeenforcement - a fractional pod without a runtimeClassName gets
 *     --gpu-fraction-runtime-class-name (default nvidia).
 *
 * Validation (/validate--v1-pod, CREATE and UPDATE): gpu sharing must be
 * enabled for a fractional pod; then KAI's checks of the annotations (the
 * messages are KAI's, word for word): gpu-fraction a number in (0, 1)
 * written as a decimal, gpu-memory and gpu-fraction-num-devices positive
 * integers, no fraction beside a whole-GPU limit, no gpu-memory beside
 * either, no device count or MPS without a fraction; and with
 * --block-nvidia-visible-devices, no container but the fraction container
 * may set NVIDIA_VISIBLE_DEVICES to anything but void or none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/internal.h"
#include "api/quantity.h"
#include "util/hash.h"
#include "util/mem.h"

#define ANN_FRACTION "gpu-fraction"
#define ANN_MEMORY "gpu-memory"
#define ANN_NUM_DEVICES "gpu-fraction-num-devices"
#define ANN_MPS "mps"
#define ANN_CONTAINER "gpu-fraction-container-name"
#define ANN_CONFIGMAP "runai/shared-gpu-configmap"
#define GPU_RESOURCE "nvidia.com/gpu"
#define MIG_PREFIX "nvidia.com/mig-"
#define VISIBLE_DEVICES "NVIDIA_VISIBLE_DEVICES"

/* KAI's name rule: volume "<configmap>-vol" within 63 bytes, with 7 random characters and 2 hyphens */
#define MAX_VOLUME_NAME 63
#define SUFFIX_CHARS 7
#define SHARED_GPU "shared-gpu"

/* The container the fraction is for: where it is and whether it is an init container. */
struct cref {
	json_t *c;
	size_t index;
	bool init;
};

/* --- reading the pod ------------------------------------------------------------------------- */

static const char *annotation(const json_t *pod, const char *key)
{
	return obj_get_string(obj_get_object(obj_get_object(pod, "metadata"), "annotations"), key);
}

static bool requests_fraction(const json_t *pod)
{
	return annotation(pod, ANN_FRACTION) || annotation(pod, ANN_MEMORY);
}

static json_t *containers(const json_t *pod, bool init)
{
	return obj_get_array(obj_get_object(pod, "spec"), init ? "initContainers" : "containers");
}

/* A map of strings, or absent: what metadata.annotations, requests and limits must be. */
static bool string_map(const json_t *o, const char *key)
{
	json_t *m = json_object_get(o, key);
	if (!m || json_is_null(m))
		return true;
	if (!json_is_object(m))
		return false;
	const char *k;
	json_t *val;
	json_object_foreach(m, k, val) {
		if (!json_is_string(val))
			return false;
	}
	return true;
}

/* An array of objects, or absent. */
static bool object_list(const json_t *o, const char *key)
{
	json_t *a = json_object_get(o, key);
	if (!a || json_is_null(a))
		return true;
	if (!json_is_array(a))
		return false;
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x) {
		if (!json_is_object(x))
			return false;
	}
	return true;
}

static bool container_shape(const json_t *c, const char *list, size_t i, char *why, size_t len)
{
	json_t *res = json_object_get(c, "resources");
	const char *bad = !json_is_string(json_object_get(c, "name")) ? "name must be a string" :
			  !object_list(c, "env") ? "env must be a list of objects" :
			  !object_list(c, "envFrom") ? "envFrom must be a list of objects" :
			  res && !json_is_object(res) && !json_is_null(res) ? "resources must be an object" :
			  !string_map(res, "requests") || !string_map(res, "limits") ?
			  "resources.requests and limits must map names to quantities" : NULL;
	if (bad)
		snprintf(why, len, "pod: spec.%s[%zu].%s", list, i, bad);
	return !bad;
}

/*
 * The fields the webhooks read have the types a Pod has (the API server
 * sends only valid pods; anything else is a bad request, never a crash).
 */
static bool pod_shape(const json_t *pod, char *why, size_t len)
{
	json_t *md = json_object_get(pod, "metadata"), *spec = json_object_get(pod, "spec");
	const char *bad = !json_is_object(md) ? "metadata must be an object" :
			  !string_map(md, "annotations") ? "metadata.annotations must map names to strings" :
			  !object_list(md, "ownerReferences") ? "metadata.ownerReferences must be a list of objects" :
			  !json_is_object(spec) ? "spec must be an object" :
			  !object_list(spec, "containers") ? "spec.containers must be a list of objects" :
			  !object_list(spec, "initContainers") ? "spec.initContainers must be a list of objects" :
			  !object_list(spec, "volumes") ? "spec.volumes must be a list of objects" : NULL;
	if (bad) {
		snprintf(why, len, "pod: %s", bad);
		return false;
	}
	for (int l = 0; l < 2; l++) {
		size_t i;
		json_t *c;
		json_array_foreach(containers(pod, l), i, c) {
			if (!container_shape(c, l ? "initContainers" : "containers", i, why, len))
				return false;
		}
	}
	return true;
}

static bool is_ours(const struct gt_admission_rules *rules, const json_t *pod)
{
	const char *s = obj_get_string(obj_get_object(pod, "spec"), "schedulerName");
	return s && rules->scheduler_name && !strcmp(s, rules->scheduler_name);
}

/*
 * KAI's GetFractionContainerRef: the container annotation
 * gpu-fraction-container-name names (init containers first), else the
 * first. -1 when the annotation names none (the message in @v).
 */
static int fraction_container(const json_t *pod, struct cref *out, struct verdict *v)
{
	const char *want = annotation(pod, ANN_CONTAINER);
	if (!want) {
		*out = (struct cref){ .c = json_array_get(containers(pod, false), 0) };
		return 0;
	}
	for (int init = 1; init >= 0; init--) {
		size_t i;
		json_t *c;
		json_array_foreach(containers(pod, init), i, c) {
			const char *name = obj_get_string(c, "name");
			if (name && !strcmp(name, want)) {
				*out = (struct cref){ .c = c, .index = i, .init = init };
				return 0;
			}
		}
	}
	verdict_deny(v, "failed to get fraction container ref: container with name %s not found for fraction request",
		     want);
	return -1;
}

/* --- validation ------------------------------------------------------------------------------ */

/* KAI's getFirstGPULimit: a container (regular, then init) with an nvidia.com/gpu limit, whatever its value. */
static bool has_whole_gpu_limit(const json_t *pod)
{
	for (int init = 0; init < 2; init++) {
		size_t i;
		json_t *c;
		json_array_foreach(containers(pod, init), i, c) {
			if (json_object_get(obj_get_object(obj_get_object(c, "resources"), "limits"), GPU_RESOURCE))
				return true;
		}
	}
	return false;
}

/* gpu-fraction: strconv.ParseFloat, in (0, 1) (a NaN passes, as in Go), then a quantity. */
static bool fraction_ok(const char *frac, struct verdict *v)
{
	double f;
	if (!go_parse_float(frac, &f) || f <= 0 || f >= 1) {
		verdict_deny(v, "gpu-fraction annotation value must be a positive number smaller than 1.0");
		return false;
	}
	if (!k8s_quantity_syntax(frac)) {
		verdict_deny(v, "gpu-fraction annotation value must be a float written with a decimal point or a "
			     "scientific notation .given value: %s", frac);
		return false;
	}
	return true;
}

static bool positive_uint(const char *s)
{
	uint64_t n;
	return go_parse_uint(s, &n) && n > 0;
}

/* KAI's ValidateGpuRequests, in its order. */
static bool gpu_requests_ok(const json_t *pod, struct verdict *v)
{
	const char *frac = annotation(pod, ANN_FRACTION), *mem = annotation(pod, ANN_MEMORY);
	const char *count = annotation(pod, ANN_NUM_DEVICES), *mps = annotation(pod, ANN_MPS);
	bool whole = has_whole_gpu_limit(pod);
	if (!frac && !mem && mps && !strcmp(mps, "true"))
		verdict_deny(v, "MPS is only supported with GPU fraction request");
	else if (frac && whole)
		verdict_deny(v, "cannot have both GPU fraction request and whole GPU resource request/limit");
	else if (mem && (frac || whole))
		verdict_deny(v, "cannot request both GPU and GPU memory");
	else if (count && !frac && !mem)
		verdict_deny(v, "cannot request multiple fractional devices without specifying fraction portion or "
			     "gpu-memory");
	else if (mem && !positive_uint(mem))
		verdict_deny(v, "gpu-memory annotation value must be a positive integer greater than 0");
	else if (frac && !fraction_ok(frac, v))
		return false;
	else if (count && !positive_uint(count))
		verdict_deny(v, "fraction count annotation value must be a positive integer greater than 0");
	else
		return true;
	return false;
}

/* deviceaccess: NVIDIA_VISIBLE_DEVICES only "void" or "none", and never from a reference. */
static bool visible_devices_ok(const json_t *c, struct verdict *v)
{
	size_t i;
	json_t *e;
	json_array_foreach(obj_get_array(c, "env"), i, e) {
		const char *name = obj_get_string(e, "name"), *value = obj_get_string(e, "value");
		if (!name || strcmp(name, VISIBLE_DEVICES))
			continue;
		const char *cname = obj_get_string(c, "name");
		if (value && *value && strcmp(value, "void") && strcmp(value, "none")) {
			verdict_deny(v, "container %s has an environment variable NVIDIA_VISIBLE_DEVICES defined with a "
				     "value of %s. This is forbidden due to conflicts with Nvidia's device plugin. The only "
				     "values that are allowed are 'void' or 'none'", cname, value);
			return false;
		}
		json_t *from = json_object_get(e, "valueFrom");
		if ((!value || !*value) && from && !json_is_null(from)) {
			verdict_deny(v, "container %s has an environment variable NVIDIA_VISIBLE_DEVICES defined with a "
				     "valueFrom reference. This is forbidden due to possible conflicts with Nvidia's "
				     "device plugin", cname);
			return false;
		}
	}
	return true;
}

/* Every container but the fraction one (when the pod has a fraction), in KAI's order: init, then regular. */
typedef bool (*container_fn)(json_t *c, struct verdict *v);

static bool each_other_container(const json_t *pod, container_fn fn, struct verdict *v)
{
	struct cref ref = { 0 };
	bool fraction = requests_fraction(pod) && json_array_size(containers(pod, false));
	if (fraction && fraction_container(pod, &ref, v))
		return false;
	for (int init = 1; init >= 0; init--) {
		size_t i;
		json_t *c;
		json_array_foreach(containers(pod, init), i, c) {
			if (fraction && ref.init == (bool)init && ref.index == i)
				continue;
			if (!fn(c, v))
				return false;
		}
	}
	return true;
}

static bool visible_devices_ok_fn(json_t *c, struct verdict *v)
{
	return visible_devices_ok(c, v);
}

/*
 * Whether the webhook has anything to say about @r's pod: not on DELETE or
 * CONNECT, nor for a pod of another scheduler (allowed), nor for one that is
 * not a pod's shape (a 400). Otherwise the verdict is left for the caller.
 */
static bool pod_to_review(const struct gt_admission_rules *rules, const struct review *r, struct verdict *v)
{
	char why[256];
	if (r->op == OP_DELETE || r->op == OP_CONNECT) {
		verdict_allow(v);
		return false;
	}
	if (!pod_shape(r->object, why, sizeof(why))) {
		verdict_error(v, 400, "%s", why);
		return false;
	}
	if (!is_ours(rules, r->object)) {
		verdict_allow(v);
		return false;
	}
	return true;
}

void pod_validate(const struct gt_admission_rules *rules, const struct review *r, struct verdict *v)
{
	if (!pod_to_review(rules, r, v))
		return;
	const json_t *pod = r->object;
	if (!rules->gpu_sharing && requests_fraction(pod)) {
		const json_t *md = obj_get_object(pod, "metadata");
		const char *ns = obj_get_string(md, "namespace"), *name = obj_get_string(md, "name");
		verdict_deny(v, "attempting to create a pod %s/%s with gpu sharing request, while GPU sharing is disabled",
			     ns ? ns : "", name ? name : "");
		return;
	}
	if (!gpu_requests_ok(pod, v))
		return;
	if (rules->block_visible_devices && !each_other_container(pod, visible_devices_ok_fn, v))
		return;
	verdict_allow(v);
}

/* --- mutation -------------------------------------------------------------------------------- */

/* KAI's utilrand alphabet (no vowels, no look-alikes). */
static const char suffix_alphabet[] = "bcdfghjklmnpqrstvwxz2456789";

/*
 * <base>-<7 characters>-shared-gpu, where base is the first owner's name
 * (else the pod's, else - the pod has only generateName at this point - its
 * generateName), cut so that "<prefix>-<index>-evar-vol"... fits in 63
 * bytes as KAI cuts it, without trailing dots or hyphens.
 */
static void configmap_prefix(const json_t *pod, size_t index, const char *uid, char *out, size_t cap)
{
	const json_t *md = obj_get_object(pod, "metadata");
	json_t *owners = obj_get_array(md, "ownerReferences");
	const char *base = json_array_size(owners) ? obj_get_string(json_array_get(owners, 0), "name") :
			   obj_get_string(md, "name");
	if (!base || !*base)
		base = obj_get_string(md, "generateName");
	if (!base)
		base = "";
	char digits[24];
	size_t max = MAX_VOLUME_NAME - (SUFFIX_CHARS + 6) - strlen(SHARED_GPU);
	max -= (size_t)snprintf(digits, sizeof(digits), "%zu", index) + 1 + strlen("-evar");
	size_t n = strlen(base);
	if (n > max)
		n = max;
	while (n && (base[n - 1] == '.' || base[n - 1] == '-'))
		n--;
	char suffix[SUFFIX_CHARS + 1];
	uint64_t h = gt_hash_str(uid);
	for (int i = 0; i < SUFFIX_CHARS; i++, h /= sizeof(suffix_alphabet) - 1)
		suffix[i] = suffix_alphabet[h % (sizeof(suffix_alphabet) - 1)];
	suffix[SUFFIX_CHARS] = '\0';
	snprintf(out, cap, "%.*s-%s-%s", (int)n, base, suffix, SHARED_GPU);
}

static void set_annotation(json_t *pod, const char *key, const char *value)
{
	json_t *md = json_object_get(pod, "metadata");
	json_t *ann = obj_get_object(md, "annotations");
	if (!ann) {
		ann = json_object();
		json_object_set_new(md, "annotations", ann);
	}
	json_object_set_new(ann, key, json_string(value));
}

/* The list at @key of @o, made when absent. */
static json_t *list_at(json_t *o, const char *key)
{
	json_t *a = obj_get_array(o, key);
	if (!a) {
		a = json_array();
		json_object_set_new(o, key, a);
	}
	return a;
}

/* KAI's AddEnvVarToContainer: drop the variables named @var, append @env (taken). */
static void replace_env(json_t *c, const char *var, json_t *env)
{
	json_t *list = list_at(c, "env"), *kept = json_array();
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		const char *name = obj_get_string(e, "name");
		if (!name || strcmp(name, var))
			json_array_append(kept, e);
	}
	json_array_append_new(kept, env);
	json_object_set_new(c, "env", kept);
}

static void env_from_configmap(json_t *c, const char *configmap)
{
	static const char *const vars[] = { VISIBLE_DEVICES, "RUNAI_NUM_OF_GPUS", "GPU_PORTION" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		replace_env(c, vars[i], json_pack("{s:s, s:{s:{s:s, s:s}}}", "name", vars[i], "valueFrom",
						  "configMapKeyRef", "key", vars[i], "name", configmap));
}

/* KAI's GetConfigVolumeName: "<configmap>-vol" in lower case, each run of other bytes one '-', trimmed of '-'. */
static void volume_name(const char *configmap, char *out, size_t cap)
{
	char src[700];
	size_t o = 0;
	bool in_run = false;
	snprintf(src, sizeof(src), "%s-vol", configmap);
	for (const char *p = src; *p && o + 1 < cap; p++) {
		char c = *p >= 'A' && *p <= 'Z' ? (char)(*p + 32) : *p;
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
			out[o++] = c;
			in_run = false;
		} else if (!in_run) {
			out[o++] = '-';
			in_run = true;
		}
	}
	out[o] = '\0';
	size_t start = strspn(out, "-");
	memmove(out, out + start, strlen(out + start) + 1);
	for (o = strlen(out); o && out[o - 1] == '-'; o--)
		out[o - 1] = '\0';
}

static void configmap_volume(json_t *pod, const char *configmap)
{
	char name[700];
	volume_name(configmap, name, sizeof(name));
	json_t *spec = json_object_get(pod, "spec"), *kept = json_array();
	size_t i;
	json_t *vol;
	json_array_foreach(obj_get_array(spec, "volumes"), i, vol) {
		const char *n = obj_get_string(vol, "name");
		if (!n || strcmp(n, name))
			json_array_append(kept, vol);
	}
	json_array_append_new(kept, json_pack("{s:s, s:{s:s}}", "name", name, "configMap", "name", configmap));
	json_object_set_new(spec, "volumes", kept);
}

static void env_from_evar(json_t *c, const char *evar)
{
	json_t *list = list_at(c, "envFrom");
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		const char *name = obj_get_string(obj_get_object(e, "configMapRef"), "name");
		if (name && !strcmp(name, evar))
			return;
	}
	json_array_append_new(list, json_pack("{s:{s:s, s:b}}", "configMapRef", "name", evar, "optional", 0));
}

/* KAI's gpusharing plugin. False when refused (the message in @v). */
static bool share_gpu(json_t *pod, const char *uid, struct verdict *v)
{
	if (!json_array_size(containers(pod, false)) || !requests_fraction(pod))
		return true;
	struct cref ref;
	if (fraction_container(pod, &ref, v))
		return false;
	char prefix[256], caps[300], evar[320];
	const char *have = annotation(pod, ANN_CONFIGMAP);
	if (have) {
		snprintf(prefix, sizeof(prefix), "%s", have);
	} else {
		configmap_prefix(pod, ref.index, uid, prefix, sizeof(prefix));
		set_annotation(pod, ANN_CONFIGMAP, prefix);
	}
	snprintf(caps, sizeof(caps), "%s-%s%zu", prefix, ref.init ? "i" : "", ref.index);
	snprintf(evar, sizeof(evar), "%s-evar", caps);
	env_from_configmap(ref.c, caps);
	configmap_volume(pod, caps);
	env_from_evar(ref.c, evar);
	return true;
}

/* KAI's containerRequestsGPU: a nonzero request of nvidia.com/gpu or of a MIG device. */
static bool requests_gpu(const json_t *c)
{
	const char *name;
	json_t *q;
	json_object_foreach(obj_get_object(obj_get_object(c, "resources"), "requests"), name, q) {
		if (strcmp(name, GPU_RESOURCE) && strncmp(name, MIG_PREFIX, strlen(MIG_PREFIX)))
			continue;
		int64_t milli;
		if (gt_quantity_parse_milli(json_string_value(q), &milli) || milli)
			return true;
	}
	return false;
}

/* deviceaccess: NVIDIA_VISIBLE_DEVICES=void in a container that asks for no GPU (the first such env set). */
static bool block_visible_devices(json_t *c, struct verdict *v)
{
	(void)v;
	if (requests_gpu(c))
		return true;
	json_t *env = list_at(c, "env"), *e;
	size_t i;
	json_array_foreach(env, i, e) {
		const char *name = obj_get_string(e, "name");
		if (name && !strcmp(name, VISIBLE_DEVICES)) {
			json_object_set_new(e, "value", json_string("void"));
			return true;
		}
	}
	json_array_append_new(env, json_pack("{s:s, s:s}", "name", VISIBLE_DEVICES, "value", "void"));
	return true;
}

static void runtime_class(const struct gt_admission_rules *rules, json_t *pod)
{
	const char *rc = rules->fraction_runtime_class;
	if (!rc || !*rc || !requests_fraction(pod))
		return;
	json_t *spec = json_object_get(pod, "spec");
	const char *have = obj_get_string(spec, "runtimeClassName");
	if (!have || !*have)
		json_object_set_new(spec, "runtimeClassName", json_string(rc));
}

/* KAI's pod mutator: the target namespace first. False when refused. */
static bool target_namespace(json_t *pod, const char *req_ns, struct verdict *v)
{
	json_t *md = json_object_get(pod, "metadata");
	const char *ns = obj_get_string(md, "namespace");
	if (ns && *ns && *req_ns && strcmp(ns, req_ns)) {
		verdict_deny(v, "error: the namespace from the provided object %s does not match the namespace %s", ns,
			     req_ns);
		return false;
	}
	if ((!ns || !*ns) && *req_ns)
		json_object_set_new(md, "namespace", json_string(req_ns));
	return true;
}

void pod_mutate(const struct gt_admission_rules *rules, const struct review *r, struct verdict *v)
{
	if (!pod_to_review(rules, r, v))
		return;
	json_t *pod = json_deep_copy(r->object);
	if (!target_namespace(pod, r->ns, v) || !share_gpu(pod, r->uid, v) ||
	    (rules->block_visible_devices && !each_other_container(pod, block_visible_devices, v))) {
		json_decref(pod);
		return;
	}
	runtime_class(rules, pod);
	verdict_allow(v);
	v->patched = pod;
}
