/*
 * config.c - the podgrouper's configuration: KAI's flags, the per-kind
 * defaults ConfigMap and the custom resource rules
 *
 * The configuration is a YAML document (docs/podgrouper.md):
 *
 *	schedulerName: kai-scheduler
 *	queueLabelKey: kai.scheduler/queue
 *	nodePoolLabelKey: kai.scheduler/node-pool
 *	gangAnnotation: kai.scheduler/gang-replicas
 *	knativeGangSchedule: true
 *	searchLegacyPodGroups: true
 *	genericKartaFallback: true
 *	priorityClasses: [critical]
 *	defaultPrioritiesConfigMap: {namespace: kai-scheduler, name: workload-defaults}
 *	customResources:
 *	- apiVersion: example.com/v1
 *	  kind: TrainingRun
 *	  replicas: spec.roles
 *	  roleLabel: example.com/role
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"
#include "util/mem.h"

void gt_pg_config_init(struct gt_pg_config *c)
{
	memset(c, 0, sizeof(*c));
	c->scheduler_name = gt_xstrdup(GT_PG_DEFAULT_SCHEDULER);
	c->queue_label = gt_xstrdup(GT_PG_DEFAULT_QUEUE_LABEL);
	c->node_pool_label = gt_xstrdup(GT_PG_DEFAULT_NODE_POOL_LABEL);
	c->gang_annotation = gt_xstrdup(GT_PG_DEFAULT_GANG_ANNOTATION);
	c->knative_gang = true;
	c->search_legacy_pg = true;
	c->karta_fallback = true;
	c->shipped_priority_classes = true;
}

static void release_defaults(struct gt_pg_config *c)
{
	for (size_t i = 0; i < c->n_defaults; i++) {
		free(c->defaults[i].kind);
		free(c->defaults[i].group);
		free(c->defaults[i].priority);
		free(c->defaults[i].preemptibility);
	}
	free(c->defaults);
	c->defaults = NULL;
	c->n_defaults = c->cap_defaults = 0;
}

static void release_rule(struct gt_pg_custom_rule *r)
{
	free(r->group);
	free(r->version);
	free(r->kind);
	free(r->replicas);
	free(r->replicas_field);
	free(r->role_name_field);
	free(r->role_label);
	free(r->min_member);
	free(r->priority);
}

void gt_pg_config_release(struct gt_pg_config *c)
{
	free(c->scheduler_name);
	free(c->queue_label);
	free(c->node_pool_label);
	free(c->gang_annotation);
	for (size_t i = 0; i < c->n_priority_classes; i++)
		free(c->priority_classes[i]);
	free(c->priority_classes);
	free(c->defaults_cm_namespace);
	free(c->defaults_cm_name);
	release_defaults(c);
	for (size_t i = 0; i < c->n_rules; i++)
		release_rule(&c->rules[i]);
	free(c->rules);
	memset(c, 0, sizeof(*c));
}

void gt_pg_config_add_priority_class(struct gt_pg_config *c, const char *name)
{
	GT_PUSH(c->priority_classes, c->n_priority_classes, c->cap_priority_classes,
		gt_xstrdup(name));
}

/* ---------------------------------------------------------------- defaults ConfigMap */

static int read_default(const struct gt_doc *entry, size_t i, const char *cm,
			struct gt_pg_kind_default *out, struct gt_err *err)
{
	const char *kind = gt_doc_str(entry, "typeName");
	if (entry->kind != GT_DOC_MAP || !kind)
		return gt_errf(err, GT_EINVAL, "%s: data.types[%zu] has no typeName", cm, i);
	const char *group = gt_doc_str(entry, "group");
	out->kind = gt_xstrdup(kind);
	out->group = gt_xstrdup(group ? group : "");
	out->priority = NULL;
	out->preemptibility = NULL;
	gt_pg_set(&out->priority, gt_doc_str(entry, "priorityName"));
	gt_pg_set(&out->preemptibility, gt_doc_str(entry, "preemptibility"));
	return 0;
}

static int read_defaults(struct gt_pg_config *c, const struct gt_doc *types, const char *cm,
			 struct gt_err *err)
{
	if (types->kind != GT_DOC_SEQ)
		return gt_errf(err, GT_EINVAL, "%s: data.types is not a JSON list", cm);
	for (size_t i = 0; i < types->n; i++) {
		struct gt_pg_kind_default d;
		int rc = read_default(types->items[i], i, cm, &d, err);
		if (rc)
			return rc;
		GT_PUSH(c->defaults, c->n_defaults, c->cap_defaults, d);
	}
	return 0;
}

int gt_pg_config_set_defaults(struct gt_pg_config *c, const struct gt_doc *configmap,
			      struct gt_err *err)
{
	struct gt_pg_id id = gt_pg_id(configmap);
	const char *text = gt_doc_str(gt_doc_get(configmap, "data"), "types");
	if (!text)
		return gt_errf(err, GT_EINVAL, "%s: data.types is missing", id.s);
	struct gt_doc_list parsed = { 0 };
	struct gt_err perr = { 0 };
	int rc = gt_doc_parse_string(text, strlen(text), "data.types", &parsed, &perr);
	release_defaults(c);
	if (rc)
		rc = gt_errf(err, GT_EINVAL, "%s: data.types is not JSON: %s", id.s, perr.msg);
	else if (parsed.n)
		rc = read_defaults(c, parsed.docs[0], id.s, err);
	if (rc)
		release_defaults(c);
	gt_doc_list_release(&parsed);
	return rc;
}

/* ---------------------------------------------------------------- the YAML */

static int bad_key(struct gt_err *err, const char *where, const char *key, int line)
{
	return gt_errf(err, GT_EINVAL, "podgrouper configuration: %s: unknown key '%s' (line %d)",
		       where, key, line);
}

static int want_str(const struct gt_doc *v, const char *key, char **out, struct gt_err *err)
{
	if (v->kind != GT_DOC_SCALAR)
		return gt_errf(err, GT_EINVAL, "podgrouper configuration: %s must be a string "
			       "(line %d)", key, v->line);
	gt_pg_set(out, gt_doc_is_null(v) ? "" : v->scalar);
	return 0;
}

static int want_bool(const struct gt_doc *v, const char *key, bool *out, struct gt_err *err)
{
	if (v->kind == GT_DOC_SCALAR && (!strcmp(v->scalar, "true") || !strcmp(v->scalar, "false"))) {
		*out = !strcmp(v->scalar, "true");
		return 0;
	}
	return gt_errf(err, GT_EINVAL, "podgrouper configuration: %s must be true or false "
		       "(line %d)", key, v->line);
}

static int rule_api_version(struct gt_pg_custom_rule *r, const char *api, const char *where,
			    struct gt_err *err)
{
	const char *slash = api ? strchr(api, '/') : NULL;
	if (!slash || slash == api || !slash[1])
		return gt_errf(err, GT_EINVAL, "podgrouper configuration: %s: apiVersion must be "
			       "group/version (version may be *), not '%s'", where, api ? api : "");
	r->group = gt_xstrndup(api, (size_t)(slash - api));
	r->version = gt_xstrdup(slash + 1);
	return 0;
}

/* One key of a customResources entry. */
static int rule_key(struct gt_pg_custom_rule *r, const char *key, const struct gt_doc *v,
		    const char *where, struct gt_err *err)
{
	static const struct {
		const char *key;
		size_t off;
	} strs[] = {
		{ "kind", offsetof(struct gt_pg_custom_rule, kind) },
		{ "replicas", offsetof(struct gt_pg_custom_rule, replicas) },
		{ "replicasField", offsetof(struct gt_pg_custom_rule, replicas_field) },
		{ "roleNameField", offsetof(struct gt_pg_custom_rule, role_name_field) },
		{ "roleLabel", offsetof(struct gt_pg_custom_rule, role_label) },
		{ "minMember", offsetof(struct gt_pg_custom_rule, min_member) },
		{ "priorityClassName", offsetof(struct gt_pg_custom_rule, priority) },
	};
	if (!strcmp(key, "apiVersion"))
		return rule_api_version(r, v->kind == GT_DOC_SCALAR ? v->scalar : NULL, where, err);
	if (!strcmp(key, "skipTopOwner"))
		return want_bool(v, key, &r->skip, err);
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (!strcmp(key, strs[i].key))
			return want_str(v, key, (char **)((char *)r + strs[i].off), err);
	return bad_key(err, where, key, v->line);
}

static int read_rule(const struct gt_doc *d, size_t i, struct gt_pg_custom_rule *r,
		     struct gt_err *err)
{
	char where[48];
	snprintf(where, sizeof(where), "customResources[%zu]", i);
	memset(r, 0, sizeof(*r));
	if (d->kind != GT_DOC_MAP)
		return gt_errf(err, GT_EINVAL, "podgrouper configuration: %s is not a map", where);
	for (size_t k = 0; k < d->n; k++) {
		int rc = rule_key(r, d->keys[k], d->items[k], where, err);
		if (rc)
			return rc;
	}
	if (!r->group || !r->kind || !*r->kind)
		return gt_errf(err, GT_EINVAL, "podgrouper configuration: %s needs apiVersion and "
			       "kind", where);
	if (!r->replicas_field)
		r->replicas_field = gt_xstrdup("replicas");
	if (!r->role_name_field)
		r->role_name_field = gt_xstrdup("name");
	if (!r->priority)
		r->priority = gt_xstrdup("train");
	if (r->role_label && !*r->role_label)
		gt_pg_set(&r->role_label, NULL);
	return 0;
}

static int read_rules(struct gt_pg_config *c, const struct gt_doc *v, struct gt_err *err)
{
	if (v->kind != GT_DOC_SEQ)
		return gt_errf(err, GT_EINVAL, "podgrouper configuration: customResources must be "
			       "a list (line %d)", v->line);
	for (size_t i = 0; i < v->n; i++) {
		struct gt_pg_custom_rule r;
		int rc = read_rule(v->items[i], i, &r, err);
		if (rc) {
			release_rule(&r);
			return rc;
		}
		GT_PUSH(c->rules, c->n_rules, c->cap_rules, r);
	}
	return 0;
}

static int read_priority_classes(struct gt_pg_config *c, const struct gt_doc *v,
				 struct gt_err *err)
{
	bool ok = v->kind == GT_DOC_SEQ;
	for (size_t i = 0; ok && i < v->n; i++)
		ok = v->items[i]->kind == GT_DOC_SCALAR && !gt_doc_is_null(v->items[i]);
	if (!ok)
		return gt_errf(err, GT_EINVAL, "podgrouper configuration: priorityClasses must be a "
			       "list of names (line %d)", v->line);
	for (size_t i = 0; i < v->n; i++)
		gt_pg_config_add_priority_class(c, v->items[i]->scalar);
	return 0;
}

static int read_cm_ref(struct gt_pg_config *c, const struct gt_doc *v, struct gt_err *err)
{
	const char *ns = gt_doc_str(v, "namespace"), *name = gt_doc_str(v, "name");
	if (!ns || !name)
		return gt_errf(err, GT_EINVAL, "podgrouper configuration: defaultPrioritiesConfigMap "
			       "needs namespace and name (line %d)", v->line);
	gt_pg_set(&c->defaults_cm_namespace, ns);
	gt_pg_set(&c->defaults_cm_name, name);
	return 0;
}

static int config_key(struct gt_pg_config *c, const char *key, const struct gt_doc *v,
		      struct gt_err *err)
{
	if (!strcmp(key, "schedulerName"))
		return want_str(v, key, &c->scheduler_name, err);
	if (!strcmp(key, "queueLabelKey"))
		return want_str(v, key, &c->queue_label, err);
	if (!strcmp(key, "nodePoolLabelKey"))
		return want_str(v, key, &c->node_pool_label, err);
	if (!strcmp(key, "gangAnnotation"))
		return want_str(v, key, &c->gang_annotation, err);
	if (!strcmp(key, "knativeGangSchedule"))
		return want_bool(v, key, &c->knative_gang, err);
	if (!strcmp(key, "searchLegacyPodGroups"))
		return want_bool(v, key, &c->search_legacy_pg, err);
	if (!strcmp(key, "genericKartaFallback"))
		return want_bool(v, key, &c->karta_fallback, err);
	if (!strcmp(key, "priorityClasses"))
		return read_priority_classes(c, v, err);
	if (!strcmp(key, "defaultPrioritiesConfigMap"))
		return read_cm_ref(c, v, err);
	if (!strcmp(key, "customResources"))
		return read_rules(c, v, err);
	/* a Kubernetes-style wrapper around the settings is fine */
	if (!strcmp(key, "apiVersion") || !strcmp(key, "kind") || !strcmp(key, "metadata"))
		return 0;
	return bad_key(err, "top level", key, v->line);
}

int gt_pg_config_load(struct gt_pg_config *c, const struct gt_doc *doc, struct gt_err *err)
{
	if (!doc || doc->kind != GT_DOC_MAP)
		return gt_errf(err, GT_EINVAL, "podgrouper configuration: expected a map of settings");
	for (size_t i = 0; i < doc->n; i++) {
		int rc = config_key(c, doc->keys[i], doc->items[i], err);
		if (rc)
			return rc;
	}
	if (!*c->scheduler_name || !*c->queue_label)
		return gt_errf(err, GT_EINVAL, "podgrouper configuration: schedulerName and "
			       "queueLabelKey cannot be empty");
	return 0;
}
