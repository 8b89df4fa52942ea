#include "scheduler/bind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/json.h"
#include "kube/event.h"
#include "util/log.h"
#include "util/mem.h"

bool gt_kw_event(const struct gt_kw *k, enum gt_kres res, const char *ns, const char *name, const char *uid,
		 const char *reason, const char *msg, bool warning)
{
	struct gt_event_source src = { .cl = k->cl, .component = k->component, .instance = k->instance };
	struct gt_event ev = { .kind = gt_kres[res].kind, .api_version = gt_kres[res].group_version, .ns = ns,
			       .name = name, .uid = uid, .reason = reason, .message = msg, .warning = warning };
	char why[400];
	if (gt_event_post(&src, &ev, why, sizeof(why)) != GT_EVENT_FAILED)
		return true;
	gt_log(GT_LOG_WARN, "writer", "event %s on %s %s/%s: %s", reason, gt_kres[res].kind, ns, name, why);
	return false;
}

/* Did an earlier attempt bind the pod to our node? (after a 409) */
static bool bound_to(const struct gt_kw *k, const struct gt_kop *op)
{
	char path[600];
	gt_kres_path(GT_KRES_PODS, op->ns, op->name, NULL, path, sizeof(path));
	struct gt_kube_resp r;
	gt_kube_call(k->cl, GT_VERB_GET, "GET", path, NULL, NULL, &r);
	bool ours = false;
	if (r.status == 200) {
		json_t *j = json_loadb(r.body, r.len, 0, NULL);
		const char *node = json_string_value(json_object_get(json_object_get(j, "spec"), "nodeName"));
		const char *uid = json_string_value(json_object_get(json_object_get(j, "metadata"), "uid"));
		ours = node && !strcmp(node, op->node) && uid && !strcmp(uid, op->uid);
		json_decref(j);
	}
	gt_kube_resp_release(&r);
	return ours;
}

bool gt_kw_bind_why(const struct gt_kw *k, const struct gt_kop *op, char *why, size_t why_len)
{
	char path[600];
	json_t *b = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:{s:s, s:s, s:s}}", "apiVersion", "v1", "kind",
			      "Binding", "metadata", "name", op->name, "namespace", op->ns, "uid", op->uid,
			      "target", "apiVersion", "v1", "kind", "Node", "name", op->node);
	char *body = gt_json_dump_take(b);
	gt_kres_path(GT_KRES_PODS, op->ns, op->name, "binding", path, sizeof(path));
	struct gt_kube_resp r;
	gt_kube_call(k->cl, GT_VERB_POST, "POST", path, "application/json", body, &r);
	free(body);
	bool ok = r.status == 201 || r.status == 200;
	if (!ok && r.status == 409 && bound_to(k, op)) {
		gt_log(GT_LOG_INFO, "writer", "pod %s/%s was already bound to %s (an earlier attempt)", op->ns,
		       op->name, op->node);
		ok = true;
	}
	if (!ok) {
		const char *reason = r.status == 404 ? "the pod is gone" : gt_kube_why(&r);
		gt_log(r.status == 404 ? GT_LOG_INFO : GT_LOG_WARN, "writer", "bind pod %s/%s to node %s: %s",
		       op->ns, op->name, op->node, reason);
		if (why)
			snprintf(why, why_len, "%s", reason);
	}
	gt_kube_resp_release(&r);
	return ok;
}

bool gt_kw_bind(const struct gt_kw *k, const struct gt_kop *op)
{
	return gt_kw_bind_why(k, op, NULL, 0);
}

bool gt_kw_bind_labelled(const struct gt_kw *k, struct gt_cache *cache, const struct gt_kop *op, char *why,
			 size_t why_len)
{
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", op->ns, op->name);
	gt_cache_inflight_put(cache, key, op->uid, op->node, op->groups, op->n_groups);
	bool ok = gt_kw_patch_groups(k, op, false);
	if (!ok && why)
		snprintf(why, why_len, "cannot set the pod's GPU group labels");
	if (ok && !gt_kw_bind_why(k, op, why, why_len)) {
		gt_kw_patch_groups(k, op, true);
		ok = false;
	}
	if (!ok)
		gt_cache_inflight_drop(cache, key, op->uid);
	return ok;
}

void gt_kw_group_label(const struct gt_kop *op, unsigned g, char *buf, size_t len)
{
	if (op->n_groups == 1)
		snprintf(buf, len, "runai-gpu-group");
	else
		snprintf(buf, len, "runai-gpu-group/%s", op->groups[g]);
}

char *gt_kw_group_patch(const struct gt_kop *op, bool remove)
{
	json_t *labels = json_object();
	for (uint8_t g = 0; g < op->n_groups; g++) {
		char key[300];
		gt_kw_group_label(op, g, key, sizeof(key));
		json_object_set_new(labels, key, remove ? json_null() : json_string(op->groups[g]));
	}
	json_t *md = json_pack("{s:o}", "labels", labels);
	if (op->shared)
		json_object_set_new(md, "annotations", json_pack("{s:o}", "received-resource-type",
								 remove ? json_null() : json_string("Fraction")));
	return gt_json_dump_take(json_pack("{s:o}", "metadata", md));
}

bool gt_kw_patch_groups(const struct gt_kw *k, const struct gt_kop *op, bool remove)
{
	char path[600];
	gt_kres_path(GT_KRES_PODS, op->ns, op->name, NULL, path, sizeof(path));
	char *body = gt_kw_group_patch(op, remove);
	struct gt_kube_resp r;
	gt_kube_call(k->cl, GT_VERB_PATCH, "PATCH", path, "application/merge-patch+json", body, &r);
	free(body);
	bool ok = r.status == 200 || (remove && r.status == 404);
	if (!ok)
		gt_log(GT_LOG_WARN, "writer", "%s pod %s/%s: cannot %s its GPU group labels (%s...): %s",
		       remove ? "roll back" : "bind", op->ns, op->name, remove ? "remove" : "set", op->groups[0],
		       gt_kube_why(&r));
	gt_kube_resp_release(&r);
	return ok;
}

static void assume_bound(struct gt_doc *doc, void *arg)
{
	const struct gt_kop *op = arg;
	const char *node_path[] = { "spec", "nodeName" };
	gt_doc_set(doc, node_path, 2, op->node, true);
	for (uint8_t g = 0; g < op->n_groups; g++) {
		char key[300];
		gt_kw_group_label(op, g, key, sizeof(key));
		const char *lp[] = { "metadata", "labels", key };
		gt_doc_set(doc, lp, 3, op->groups[g], true);
	}
}

void gt_kw_assume_bound(struct gt_cache *cache, const struct gt_kop *op)
{
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", op->ns, op->name);
	gt_cache_assume(cache, GT_KRES_PODS, key, op->rv, assume_bound, (void *)op);
}
