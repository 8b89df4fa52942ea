#include "scheduler/kaiconfig.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* The leaves of spec Gantry acts on; a path ending in '.' takes everything under it. */
static const char *const acted[] = {
	"global.schedulerName", "global.queueLabelKey", "global.nodePoolLabelKey",
	"global.namespaceLabelSelector.", "global.podLabelSelector.",
	"binder.resourceReservation.namespace", "binder.resourceReservation.serviceAccountName",
	"binder.resourceReservation.runtimeClassName", "binder.resourceReservation.allocationTimeout",
	"queueController.queueLabelToMetricLabel", "queueController.queueLabelToDefaultMetricValue",
};

static void warn(struct gt_kai_config *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *w = gt_xvasprintf(fmt, ap);
	va_end(ap);
	GT_PUSH(c->warnings, c->n_warnings, c->cap_warnings, w);
}

static bool is_acted(const char *path)
{
	for (size_t i = 0; i < sizeof(acted) / sizeof(acted[0]); i++) {
		size_t n = strlen(acted[i]);
		bool under = acted[i][n - 1] == '.';	/* a map: anything in it, or the map itself (empty) */
		if (under ? !strncmp(path, acted[i], n) || (!strncmp(path, acted[i], n - 1) && !path[n - 1])
			  : !strcmp(path, acted[i]))
			return true;
	}
	return false;
}

/* Each leaf under @v (at @path) that Gantry does not act on: a warning. */
static void warn_leaves(struct gt_kai_config *c, json_t *v, char *path, size_t len)
{
	size_t at = strlen(path);
	if (json_is_object(v) && json_object_size(v)) {
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x) {
			snprintf(path + at, len - at, "%s%s", at ? "." : "", k);
			warn_leaves(c, x, path, len);
			path[at] = '\0';
		}
		return;
	}
	if (!is_acted(path))
		warn(c, "kai-config: spec.%s is not acted on by Gantry", path);
}

/* The value at dotted @path under spec, or NULL. */
static json_t *at(json_t *spec, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	json_t *v = spec;
	for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
		v = json_object_get(v, k);
	return v;
}

/* A non-empty string at @path, or NULL (anything else there is warned about). */
static const char *str_at(struct gt_kai_config *c, json_t *spec, const char *path)
{
	json_t *v = at(spec, path);
	if (!v || json_is_null(v))
		return NULL;
	if (!json_is_string(v) || !*json_string_value(v)) {
		warn(c, "kai-config: spec.%s: not a non-empty string; left out", path);
		return NULL;
	}
	return json_string_value(v);
}

static void selector(struct gt_kai_config *c, json_t *sel, const char *name, char ***out, size_t *n)
{
	if (!sel || json_is_null(sel))
		return;
	if (!json_is_object(sel)) {
		warn(c, "kai-config: spec.global.%s: not a map of labels; left out", name);
		return;
	}
	*out = gt_xcalloc(json_object_size(sel) + 1, sizeof(**out));
	const char *k;
	json_t *v;
	json_object_foreach(sel, k, v) {
		if (!json_is_string(v)) {
			warn(c, "kai-config: spec.global.%s.%s: not a string; left out", name, k);
			continue;
		}
		size_t len = strlen(k) + strlen(json_string_value(v)) + 2;
		char *kv = gt_xmalloc(len);
		snprintf(kv, len, "%s=%s", k, json_string_value(v));
		(*out)[(*n)++] = kv;
	}
}

void gt_kai_config_read(json_t *obj, struct gt_kai_config *out)
{
	memset(out, 0, sizeof(*out));
	out->obj = json_incref(obj);
	json_t *spec = json_object_get(obj, "spec");
	if (!json_is_object(spec)) {
		warn(out, "kai-config: no spec; nothing read");
		return;
	}
	out->scheduler_name = str_at(out, spec, "global.schedulerName");
	out->queue_label_key = str_at(out, spec, "global.queueLabelKey");
	out->node_pool_label_key = str_at(out, spec, "global.nodePoolLabelKey");
	out->resv_ns = str_at(out, spec, "binder.resourceReservation.namespace");
	out->resv_sa = str_at(out, spec, "binder.resourceReservation.serviceAccountName");
	/* an empty runtime class is a setting too: none (KAI v0.17's default) */
	json_t *rc = at(spec, "binder.resourceReservation.runtimeClassName");
	out->resv_runtime_class = json_is_string(rc) ? json_string_value(rc) : NULL;
	json_t *t = at(spec, "binder.resourceReservation.allocationTimeout");
	if (json_is_integer(t) && json_integer_value(t) > 0)
		out->resv_timeout_s = json_integer_value(t);
	else if (t && !json_is_null(t))
		warn(out, "kai-config: spec.binder.resourceReservation.allocationTimeout: not a positive integer "
			  "(seconds); left out");
	out->queue_label_to_metric_label = str_at(out, spec, "queueController.queueLabelToMetricLabel");
	out->queue_label_defaults = str_at(out, spec, "queueController.queueLabelToDefaultMetricValue");
	json_t *g = json_object_get(spec, "global");
	selector(out, json_object_get(g, "namespaceLabelSelector"), "namespaceLabelSelector", &out->namespace_labels,
		 &out->n_namespace_labels);
	selector(out, json_object_get(g, "podLabelSelector"), "podLabelSelector", &out->pod_labels, &out->n_pod_labels);
	char path[1024] = "";
	warn_leaves(out, spec, path, sizeof(path));
}

void gt_kai_config_release(struct gt_kai_config *c)
{
	for (size_t i = 0; i < c->n_namespace_labels; i++)
		free(c->namespace_labels[i]);
	for (size_t i = 0; i < c->n_pod_labels; i++)
		free(c->pod_labels[i]);
	free(c->namespace_labels);
	free(c->pod_labels);
	for (size_t i = 0; i < c->n_warnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	json_decref(c->obj);
	memset(c, 0, sizeof(*c));
}
