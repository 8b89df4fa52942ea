#include "api/gpushare.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "api/json.h"
#include "api/object.h"

#define CM_ANNOTATION "runai/shared-gpu-configmap"
#define CONTAINER_ANNOTATION "gpu-fraction-container-name"

/* The container the webhook gave the shared-GPU env to, and its index as KAI names it. */
static const struct gt_doc *gpu_container(const struct gt_doc *pod, char *index, size_t len)
{
	const char *want = gt_obj_annotation(pod, CONTAINER_ANNOTATION);
	static const char *const lists[] = { "spec.containers", "spec.initContainers" };
	for (int l = 0; want && l < 2; l++) {
		const struct gt_doc *cs = gt_doc_path(pod, lists[l]);
		for (size_t i = 0; cs && cs->kind == GT_DOC_SEQ && i < cs->n; i++) {
			const char *name = gt_doc_str(cs->items[i], "name");
			if (name && !strcmp(name, want)) {
				snprintf(index, len, "%s%zu", l ? "i" : "", i);
				return cs->items[i];
			}
		}
	}
	snprintf(index, len, "0");
	const struct gt_doc *cs = gt_doc_path(pod, "spec.containers");
	return cs && cs->kind == GT_DOC_SEQ && cs->n ? cs->items[0] : NULL;
}

static bool env_from_configmap(const struct gt_doc *container, const char *var)
{
	const struct gt_doc *env = gt_doc_get(container, "env");
	for (size_t i = 0; env && env->kind == GT_DOC_SEQ && i < env->n; i++) {
		const char *name = gt_doc_str(env->items[i], "name");
		if (name && !strcmp(name, var) && gt_doc_path(env->items[i], "valueFrom.configMapKeyRef"))
			return true;
	}
	return false;
}

bool gt_gpushare_configmaps(const struct gt_doc *pod, struct gt_gpushare_cms *out)
{
	const char *prefix = gt_obj_annotation(pod, CM_ANNOTATION);
	char index[32];
	const struct gt_doc *container = gpu_container(pod, index, sizeof(index));
	if (!prefix || !*prefix)
		return false;
	snprintf(out->caps, sizeof(out->caps), "%.500s-%s", prefix, index);
	snprintf(out->evar, sizeof(out->evar), "%.500s-%s-evar", prefix, index);
	out->visible_in_caps = container && env_from_configmap(container, "NVIDIA_VISIBLE_DEVICES");
	return true;
}

char *gt_pod_tolerations_json(const struct gt_doc *pod)
{
	const struct gt_doc *tol = gt_doc_path(pod, "spec.tolerations");
	if (!tol)
		return NULL;
	json_t *j = gt_doc_to_json(tol);
	if (!json_is_array(j) || !json_array_size(j)) {
		json_decref(j);
		return NULL;
	}
	return gt_json_dump_take(j);
}

size_t gt_gpushare_pod_groups(const struct gt_doc *pod, const char **out, size_t cap)
{
	const struct gt_doc *labels = gt_doc_path(pod, "metadata.labels");
	size_t n = 0, len = strlen(GT_GPU_GROUP_LABEL);
	for (size_t i = 0; labels && labels->kind == GT_DOC_MAP && i < labels->n && n < cap; i++) {
		const char *k = labels->keys[i];
		const char *v = labels->items[i]->scalar;
		if (!v || !*v || strncmp(k, GT_GPU_GROUP_LABEL, len) || (k[len] && k[len] != '/'))
			continue;
		bool seen = false;
		for (size_t j = 0; j < n && !seen; j++)
			seen = !strcmp(out[j], v);
		if (!seen)
			out[n++] = v;
	}
	return n;
}
