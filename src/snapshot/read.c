/*
 * read.c - a KAI snapshot into what `gantry simulate` decodes (kaisnap.h)
 */
#include "snapshot/kaisnap.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/bindrequest.h"
#include "api/json.h"
#include "api/nodepool.h"
#include "api/object.h"
#include "core/actions.h"
#include "snapshot/zipio.h"
#include "util/file.h"
#include "util/mem.h"
#include "util/smap.h"
#include "util/time.h"

const struct gt_kaisnap_list_info gt_kaisnap_lists[GT_KAISNAP_N_LISTS] = {
#define GT_KAISNAP_INFO(id, key, kind, gv, read) { key, kind, gv, read },
	GT_KAISNAP_LISTS(GT_KAISNAP_INFO)
#undef GT_KAISNAP_INFO
};

static void warn(struct gt_kai_snapshot *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *w = gt_xvasprintf(fmt, ap);
	va_end(ap);
	GT_PUSH(s->warnings, s->n_warnings, s->cap_warnings, w);
}

/* Keys of @obj not in @known (NULL-terminated): each a warning under @where. */
static void unknown_keys(struct gt_kai_snapshot *s, json_t *obj, const char *const *known, const char *where)
{
	const char *k;
	json_t *v;
	json_object_foreach(obj, k, v) {
		bool ok = false;
		for (size_t i = 0; known[i] && !ok; i++)
			ok = !strcmp(k, known[i]);
		if (!ok)
			warn(s, "%s.%s: a field Gantry does not know (a newer KAI's?); ignored", where, k);
	}
}

/* ---------------------------------------------------------------- plugins */

/* KAI's plugins: whether Gantry can switch it off, and why Gantry does not act on it (NULL: it does). */
static const struct {
	const char *name;
	bool switchable;	/* enabled/disabled in gt_config */
	const char *not_acted;
} plugins[] = {
	{ "predicates", true, NULL }, { "proportion", false, NULL }, { "priority", false, NULL },
	{ "elastic", false, NULL }, { "kubeflow", false, NULL }, { "ray", false, NULL },
	{ "nodeavailability", true, NULL }, { "gpusharingorder", true, NULL }, { "gpupack", true, NULL },
	{ "gpuspread", true, NULL }, { "resourcetype", true, NULL }, { "subgrouporder", false, NULL },
	{ "taskorder", false, NULL }, { "nominatednode", true, NULL }, { "nodeplacement", true, NULL },
	{ "minruntime", false, NULL }, { "topology", false, NULL }, { "snapshot", true, NULL },
	{ "podaffinity", false, NULL },
	{ "dynamicresources", false, NULL },	/* always on (docs/dra.md) */
	{ "sg-nodelocalgreedy", true, NULL }, { "sg-multinodegang", true, NULL },
	{ "numa", true, NULL },
};
#define N_PLUGINS (sizeof(plugins) / sizeof(plugins[0]))

/* Plugin arguments Gantry acts on. */
static const struct {
	const char *plugin, *arg;
} known_args[] = {
	{ "nodeplacement", "gpu" }, { "nodeplacement", "cpu" },
	{ "proportion", "kValue" }, { "proportion", "relcaimerSaturationMultiplier" },
	{ "numa", "ignoreList" }, { "numa", "reconstructAvailable" },
};

static int plugin_index(const char *name)
{
	for (size_t i = 0; i < N_PLUGINS; i++)
		if (!strcmp(plugins[i].name, name))
			return (int)i;
	return -1;
}

static void plugin_args(struct gt_kai_snapshot *s, const char *name, json_t *args, json_t *shard_plugin)
{
	const char *k;
	json_t *v;
	json_object_foreach(args, k, v) {
		bool known = false;
		for (size_t i = 0; i < sizeof(known_args) / sizeof(known_args[0]) && !known; i++)
			known = !strcmp(known_args[i].plugin, name) && !strcmp(known_args[i].arg, k);
		if (!known) {
			warn(s, "config: plugin %s: argument %s is not acted on by Gantry", name, k);
			continue;
		}
		if (!strcmp(k, "relcaimerSaturationMultiplier")) {
			double m;
			if (json_is_string(v) && !gt_parse_number(json_string_value(v), &m) && m > 0)
				s->saturation_multiplier = m;
			else
				warn(s, "config: plugin proportion: relcaimerSaturationMultiplier is not a positive "
					"number; 1 is used");
			continue;
		}
		json_t *a = json_object_get(shard_plugin, "arguments");
		if (!a) {
			a = json_object();
			json_object_set_new(shard_plugin, "arguments", a);
		}
		json_object_set(a, k, v);
	}
}

/* config.tiers[].plugins into the shard's spec.plugins, warning about what is not acted on. */
static int read_plugins(struct gt_kai_snapshot *s, json_t *tiers, json_t *spec_plugins, struct gt_err *err)
{
	static const char *const option_keys[] = { "name", "arguments", "disableJobOrder", "disableTaskOrder",
						   "disablePreemptable", "disableReclaimable", "disableQueueOrder",
						   "disablePredicate", "disableNodeOrder", NULL };
	bool present[N_PLUGINS] = { false };
	for (size_t t = 0; t < json_array_size(tiers); t++) {
		json_t *list = json_object_get(json_array_get(tiers, t), "plugins");
		if (list && !json_is_null(list) && !json_is_array(list))
			return gt_errf(err, GT_EINVAL, "config.tiers[%zu].plugins: must be a list", t);
		for (size_t i = 0; i < json_array_size(list); i++) {
			json_t *p = json_array_get(list, i);
			const char *name = json_string_value(json_object_get(p, "name"));
			if (!json_is_object(p) || !name)
				return gt_errf(err, GT_EINVAL, "config.tiers[%zu].plugins[%zu]: must be {name, arguments}",
					       t, i);
			char where[96];
			snprintf(where, sizeof(where), "config.tiers[%zu].plugins[%zu]", t, i);
			unknown_keys(s, p, option_keys, where);
			const char *k;
			json_t *v;
			json_object_foreach(p, k, v)
				if (!strncmp(k, "disable", 7) && json_is_true(v))
					warn(s, "config: plugin %s: %s is not acted on by Gantry", name, k);
			int pi = plugin_index(name);
			if (pi < 0) {
				warn(s, "config: plugin %s is not one Gantry knows; not acted on", name);
				continue;
			}
			present[pi] = true;
			if (plugins[pi].not_acted)
				warn(s, "config: plugin %s is not acted on: %s", name, plugins[pi].not_acted);
			json_t *sp = json_object();
			json_object_set_new(sp, "enabled", json_true());
			json_t *args = json_object_get(p, "arguments");
			if (json_is_object(args))
				plugin_args(s, name, args, sp);
			json_object_set_new(spec_plugins, name, sp);
		}
	}
	for (size_t i = 0; i < N_PLUGINS; i++) {
		if (present[i] || plugins[i].not_acted)
			continue;
		if (plugins[i].switchable) {
			json_t *sp = json_object();
			json_object_set_new(sp, "enabled", json_false());
			json_object_set_new(spec_plugins, plugins[i].name, sp);
		} else if (strcmp(plugins[i].name, "podaffinity")) {
			warn(s, "config: plugin %s is not in the configuration, but Gantry cannot turn it off",
			     plugins[i].name);
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- config and parameters */

static void read_actions(struct gt_kai_snapshot *s, const char *list)
{
	s->actions = 0;
	for (const char *p = list; *p;) {
		p += strspn(p, ", \t");
		size_t n = strcspn(p, ",");
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (!n)
			break;
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		enum gt_action a = gt_action_from_name(name);
		if (a == GT_ACT_NONE)
			warn(s, "config.actions: '%s' is not an action Gantry runs; skipped", name);
		else
			s->actions |= 1u << a;
		p += n;
	}
}


static int read_params(struct gt_kai_snapshot *s, json_t *p, json_t *spec, const char **pool_key,
		       const char **pool_value, struct gt_err *err)
{
	static const char *const known[] = { "schedulerName", "restrictSchedulingNodes", "partitionParams",
					     "maxNumberConsolidationPreemptees", "scheduleCSIStorage",
					     "useSchedulingSignatures", "fullHierarchyFairness",
					     "allowConsolidatingReclaim", "numOfStatusRecordingWorkers",
					     "globalDefaultStalenessGracePeriod", "schedulePeriod",
					     "stuckInReleasingThreshold", "detailedFitErrors",
					     "updatePodEvictionCondition", "queueLabelKey", NULL };
	if (!p || json_is_null(p))
		return 0;
	if (!json_is_object(p))
		return gt_errf(err, GT_EINVAL, "schedulerParams: must be an object");
	unknown_keys(s, p, known, "schedulerParams");
	const char *name = json_string_value(json_object_get(p, "schedulerName"));
	if (name && *name) {
		free(s->scheduler_name);
		s->scheduler_name = gt_xstrdup(name);
	}
	json_t *args = json_object();
	char buf[64];
	json_t *v = json_object_get(p, "maxNumberConsolidationPreemptees");
	snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));	/* absent: 0, as KAI reads it */
	json_object_set_new(args, "max-consolidation-preemptees", json_string(buf));
	v = json_object_get(p, "globalDefaultStalenessGracePeriod");
	if (v && !json_is_integer(v)) {
		json_decref(args);
		return gt_errf(err, GT_EINVAL, "schedulerParams.globalDefaultStalenessGracePeriod: must be integer "
			       "nanoseconds");
	}
	/* Go durations are integer nanoseconds in SchedulerParams; the shard's args take Go's text */
	char dur[GT_DURATION_GO_MAX];
	gt_duration_format_go(json_integer_value(v), dur);
	json_object_set_new(args, "default-staleness-grace-period", json_string(dur));
	v = json_object_get(p, "stuckInReleasingThreshold");
	if (v && (!json_is_integer(v) || json_integer_value(v) < 0)) {
		json_decref(args);
		return gt_errf(err, GT_EINVAL, "schedulerParams.stuckInReleasingThreshold: must be integer nanoseconds");
	}
	if (json_integer_value(v) > 0) {	/* absent or 0: the scheduler's default */
		gt_duration_format_go(json_integer_value(v), dur);
		json_object_set_new(args, "stuck-in-releasing-threshold", json_string(dur));
	}
	/* Go leaves false out: absent is false, as KAI's snapshot-tool reads it */
	json_object_set_new(args, "use-scheduling-signatures",
			    json_string(json_is_true(json_object_get(p, "useSchedulingSignatures")) ? "true" : "false"));
	if (!json_is_true(json_object_get(p, "fullHierarchyFairness")))
		warn(s, "schedulerParams.fullHierarchyFairness: false (or absent) asks for KAI's project-level "
			"fairness, which Gantry does not implement: fair share is divided over the whole queue tree");
	json_object_set_new(spec, "args", args);
	s->allow_consolidating_reclaim = json_is_true(json_object_get(p, "allowConsolidatingReclaim"));
	if (json_is_true(json_object_get(p, "scheduleCSIStorage")))
		json_object_set_new(args, "schedule-csi-storage", json_string("true"));
	if (json_is_true(json_object_get(p, "restrictSchedulingNodes")))
		warn(s, "schedulerParams.%s: true is not acted on by Gantry's simulation", "restrictSchedulingNodes");
	const char *qlk = json_string_value(json_object_get(p, "queueLabelKey"));
	if (qlk && *qlk && strcmp(qlk, "kai.scheduler/queue"))
		warn(s, "schedulerParams.queueLabelKey: '%s' is not acted on; PodGroups name their queue", qlk);
	json_t *pp = json_object_get(p, "partitionParams");
	if (pp && !json_is_null(pp)) {
		static const char *const pk[] = { "NodePoolLabelKey", "NodePoolLabelValue", NULL };
		if (!json_is_object(pp))
			return gt_errf(err, GT_EINVAL, "schedulerParams.partitionParams: must be an object");
		unknown_keys(s, pp, pk, "schedulerParams.partitionParams");
		*pool_key = json_string_value(json_object_get(pp, "NodePoolLabelKey"));
		*pool_value = json_string_value(json_object_get(pp, "NodePoolLabelValue"));
		if (*pool_key && !**pool_key)
			*pool_key = NULL;
		if (*pool_key && !*pool_value)
			*pool_value = "";
	}
	return 0;
}

static int read_config(struct gt_kai_snapshot *s, json_t *cfg, json_t *spec, struct gt_err *err)
{
	static const char *const known[] = { "actions", "tiers", "queueDepthPerAction", "usageDBConfig",
					     "scenarioSearchBudgets", NULL };
	s->actions = GT_ACTIONS_ALL;
	if (!cfg || json_is_null(cfg)) {
		warn(s, "config: missing; KAI's default actions and plugins are assumed");
		return 0;
	}
	if (!json_is_object(cfg))
		return gt_errf(err, GT_EINVAL, "config: must be an object");
	unknown_keys(s, cfg, known, "config");
	const char *actions = json_string_value(json_object_get(cfg, "actions"));
	if (actions)
		read_actions(s, actions);
	json_t *tiers = json_object_get(cfg, "tiers");
	if (tiers && !json_is_null(tiers) && !json_is_array(tiers))
		return gt_errf(err, GT_EINVAL, "config.tiers: must be a list");
	json_t *sp = json_object();
	json_object_set_new(spec, "plugins", sp);
	if (json_array_size(tiers) && read_plugins(s, tiers, sp, err))
		return GT_EINVAL;
	json_t *depth = json_object_get(cfg, "queueDepthPerAction");
	if (json_object_size(depth))
		json_object_set(spec, "queueDepthPerAction", depth);
	/* the shard's fields of the same type: its decoder judges them */
	json_t *budgets = json_object_get(cfg, "scenarioSearchBudgets");
	if (budgets && !json_is_null(budgets))
		json_object_set(spec, "scenarioSearchBudgets", budgets);
	json_t *usage = json_object_get(cfg, "usageDBConfig");
	if (usage && !json_is_null(usage))
		json_object_set(spec, "usageDBConfig", usage);
	return 0;
}

/* Go reads plugin arguments as text: 1.5 and true as written, not as numbers or booleans. */
static void arguments_as_text(const struct gt_doc *root)
{
	const struct gt_doc *tiers = gt_doc_get(root, "tiers");
	for (size_t t = 0; tiers && tiers->kind == GT_DOC_SEQ && t < tiers->n; t++) {
		const struct gt_doc *list = gt_doc_get(tiers->items[t], "plugins");
		for (size_t i = 0; list && list->kind == GT_DOC_SEQ && i < list->n; i++) {
			const struct gt_doc *args = gt_doc_get(list->items[i], "arguments");
			for (size_t a = 0; args && args->kind == GT_DOC_MAP && a < args->n; a++)
				if (args->items[a]->kind == GT_DOC_SCALAR && !gt_doc_is_null(args->items[a]))
					args->items[a]->quoted = true;
		}
	}
}

int gt_kai_conf_read_file(const char *path, struct gt_kai_conf *out, struct gt_err *err)
{
	char *text = NULL;
	size_t len = 0;
	struct gt_doc_list docs = { 0 };
	memset(out, 0, sizeof(*out));
	int rc = gt_file_read(path, &text, &len, err);
	if (!rc)
		rc = gt_doc_parse_string(text, len, path, &docs, err);
	if (!rc && docs.n != 1)
		rc = gt_errf(err, GT_EINVAL, "%s: %zu YAML documents; KAI's configuration is one", path, docs.n);
	if (!rc && docs.docs[0]->kind != GT_DOC_MAP)
		rc = gt_errf(err, GT_EINVAL, "%s: not a mapping (actions, tiers, ...)", path);
	if (!rc) {
		arguments_as_text(docs.docs[0]);
		json_t *cfg = gt_doc_to_json(docs.docs[0]);
		rc = gt_kai_conf_read(cfg, out, err);
		json_decref(cfg);
	}
	gt_doc_list_release(&docs);
	free(text);
	return rc;
}

int gt_kai_conf_load(const char *cmd, const char *path, struct gt_kai_conf *out, FILE *to)
{
	struct gt_err err = { 0 };
	if (gt_kai_conf_read_file(path, out, &err)) {
		fprintf(to, "%s: --scheduler-conf %s: %s\n", cmd, path, err.msg);
		return 2;
	}
	for (size_t i = 0; i < out->n_warnings; i++)
		fprintf(to, "%s: warning: --scheduler-conf %s: %s\n", cmd, path, out->warnings[i]);
	return 0;
}

int gt_kai_conf_read(json_t *cfg, struct gt_kai_conf *out, struct gt_err *err)
{
	memset(out, 0, sizeof(*out));
	struct gt_kai_snapshot tmp = { 0 };
	out->spec = json_object();
	int rc = read_config(&tmp, cfg, out->spec, err);
	out->actions = tmp.actions;
	out->saturation_multiplier = tmp.saturation_multiplier;
	out->warnings = tmp.warnings;
	out->n_warnings = tmp.n_warnings;
	if (rc)
		gt_kai_conf_release(out);
	return rc;
}

void gt_kai_conf_release(struct gt_kai_conf *c)
{
	json_decref(c->spec);
	for (size_t i = 0; i < c->n_warnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	memset(c, 0, sizeof(*c));
}

/* ---------------------------------------------------------------- objects */

static void hold(struct gt_doc_list *l, struct gt_doc *d)
{
	GT_PUSH(l->docs, l->n, l->cap, d);
}

static int read_list(struct gt_kai_snapshot *s, json_t *raw, int l, struct gt_doc_list *out, struct gt_err *err)
{
	const struct gt_kaisnap_list_info *li = &gt_kaisnap_lists[l];
	json_t *list = json_object_get(raw, li->key);
	if (!list || json_is_null(list))
		return 0;
	if (!json_is_array(list))
		return gt_errf(err, GT_EINVAL, "rawObjects.%s: must be a list of %s objects or null", li->key, li->kind);
	if (l == GT_KAISNAP_CONFIGMAPS)
		s->configmaps_listed = true;
	if (l == GT_KAISNAP_PVCS)
		s->claims_listed = true;
	if (l == GT_KAISNAP_PVS || l == GT_KAISNAP_STORAGECLASSES)
		s->storage_listed = true;
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *o = json_array_get(list, i);
		if (json_is_null(o))
			continue;
		if (!json_is_object(o))
			return gt_errf(err, GT_EINVAL, "rawObjects.%s[%zu]: must be a %s object", li->key, i, li->kind);
		const char *kind = json_string_value(json_object_get(o, "kind"));
		if (kind && *kind && strcmp(kind, li->kind))
			return gt_errf(err, GT_EINVAL, "rawObjects.%s[%zu]: a %s in the list of %s objects", li->key, i,
				       kind, li->kind);
		/* items carry no kind: a pod, the commonest object, is known by its containers */
		bool pod_shaped = json_is_array(json_object_get(json_object_get(o, "spec"), "containers"));
		if (l == GT_KAISNAP_PODS && !pod_shaped)
			return gt_errf(err, GT_EINVAL, "rawObjects.pods[%zu]: not a Pod (no spec.containers)", i);
		if (l != GT_KAISNAP_PODS && pod_shaped)
			return gt_errf(err, GT_EINVAL, "rawObjects.%s[%zu]: a Pod (spec.containers) in the list of %s objects",
				       li->key, i, li->kind);
		const char *name = json_string_value(json_object_get(json_object_get(o, "metadata"), "name"));
		if (!name || !*name)
			return gt_errf(err, GT_EINVAL, "rawObjects.%s[%zu]: metadata.name is missing", li->key, i);
		s->n_objects[l]++;
		if (!li->read && l != GT_KAISNAP_BINDREQUESTS)
			continue;
		struct gt_doc *d = gt_doc_from_json(o);
		const char *kk[] = { "kind" }, *ak[] = { "apiVersion" };
		gt_doc_set(d, kk, 1, li->kind, true);
		gt_doc_set(d, ak, 1, li->api_version, true);
		hold(out, d);
	}
	if (!li->read && s->n_objects[l])
		warn(s, "rawObjects.%s: %zu objects not read: Gantry's simulation does not model them yet", li->key,
		     s->n_objects[l]);
	return 0;
}

/* ---------------------------------------------------------------- what is scheduled */

struct scope {
	const char *pool_key, *pool_value;	/* NULL value: the whole cluster */
	struct gt_smap nodes_out;		/* nodes of other pools */
	struct gt_smap groups_out;		/* "ns/name" of PodGroups of other pools */
	struct gt_smap pods;			/* "ns/name" -> pod document */
};

static void key_of(const struct gt_doc *o, char *buf, size_t len)
{
	const char *ns = gt_obj_ns(o);
	snprintf(buf, len, "%s/%s", ns && *ns ? ns : "default", gt_obj_name(o));
}

/*
 * KAI's cache serves one partition (partitionParams) and schedules only
 * pods whose PodGroup exists: the objects of other partitions, and our
 * pending pods that name no PodGroup (the podgrouper had not reached them),
 * are left out, as KAI leaves them out.
 */
static bool in_scope(struct gt_kai_snapshot *s, struct scope *sc, struct gt_doc *d, size_t *n_ungrouped)
{
	const char *kind = gt_obj_kind(d);
	char key[600];
	bool pooled = !strcmp(kind, "Node") || !strcmp(kind, "Queue") || !strcmp(kind, "PodGroup");
	if (pooled && sc->pool_value && !gt_node_pool_has(sc->pool_key, sc->pool_value, d)) {
		key_of(d, key, sizeof(key));
		if (!strcmp(kind, "Node"))
			gt_smap_put(&sc->nodes_out, gt_obj_name(d), d);
		else if (!strcmp(kind, "PodGroup"))
			gt_smap_put(&sc->groups_out, key, d);
		return false;
	}
	if (strcmp(kind, "Pod"))
		return true;
	const char *node = gt_pod_node(d), *group = gt_pod_group_name(d);
	if (node && gt_smap_get(&sc->nodes_out, node))
		return false;
	if (group) {
		snprintf(key, sizeof(key), "%s/%s", gt_obj_ns(d) && *gt_obj_ns(d) ? gt_obj_ns(d) : "default", group);
		return !gt_smap_get(&sc->groups_out, key);
	}
	if (!node && gt_pod_is_live_ours(d, s->scheduler_name)) {
		(*n_ungrouped)++;
		return false;
	}
	return true;
}

struct aged {
	struct gt_doc *d;
	int64_t created;
	char key[300];
};

static int by_age(const void *a, const void *b)
{
	const struct aged *x = a, *y = b;
	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return strcmp(x->key, y->key);
}

/*
 * KAI's lists come in its cache's order, which varies from one snapshot to
 * the next: decode them in the order `gantry scheduler` decodes its cache
 * (creation time, then namespace/name), so that a snapshot gives one plan.
 */
static void sort_by_age(struct gt_doc_list *all)
{
	struct aged *v = gt_xcalloc(all->n + 1, sizeof(*v));
	for (size_t i = 0; i < all->n; i++) {
		v[i].d = all->docs[i];
		const char *t = gt_doc_str(gt_doc_get(v[i].d, "metadata"), "creationTimestamp");
		if (!t || gt_time_parse(t, &v[i].created))
			v[i].created = 0;
		key_of(v[i].d, v[i].key, sizeof(v[i].key));
	}
	qsort(v, all->n, sizeof(*v), by_age);
	for (size_t i = 0; i < all->n; i++)
		all->docs[i] = v[i].d;
	free(v);
}

static void scope_objects(struct gt_kai_snapshot *s, struct gt_doc_list *all, struct scope *sc)
{
	size_t n_ungrouped = 0;
	sort_by_age(all);
	/* nodes and PodGroups first: pods are judged by theirs */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < all->n; i++) {
			struct gt_doc *d = all->docs[i];
			bool is_pod = !strcmp(gt_obj_kind(d), "Pod");
			if (!d || is_pod != (pass == 1))
				continue;
			if (in_scope(s, sc, d, &n_ungrouped)) {
				hold(&s->docs, d);
				if (is_pod) {
					char key[600];
					key_of(d, key, sizeof(key));
					gt_smap_put(&sc->pods, key, d);
				}
			} else {
				hold(&s->held, d);
			}
		}
	if (n_ungrouped)
		warn(s, "%zu pending pods name no PodGroup yet: KAI's scheduler does not schedule them, and neither "
			"does this simulation", n_ungrouped);
}

/* Live BindRequests: their pods are being bound, as KAI's cache reads them. */
static void read_bindings(struct gt_kai_snapshot *s, struct gt_doc_list *brs, struct scope *sc)
{
	for (size_t i = 0; i < brs->n; i++) {
		struct gt_doc *br = brs->docs[i];
		hold(&s->held, br);
		char key[600];
		const char *ns = gt_obj_ns(br);
		snprintf(key, sizeof(key), "%s/%s", ns && *ns ? ns : "default", gt_br_pod_name(br));
		const struct gt_doc *pod = gt_smap_get(&sc->pods, key);
		const char *uid = pod ? gt_doc_str(gt_doc_get(pod, "metadata"), "uid") : NULL;
		if (!pod || gt_br_state(br, pod, uid ? uid : "") != GT_BR_LIVE || !gt_br_node(br))
			continue;
		struct gt_binding b = { .pod = pod, .node = gt_br_node(br) };
		b.n_groups = (uint8_t)gt_br_groups(br, b.groups, GT_MAX_DEVICES);
		GT_PUSH(s->bindings, s->n_bindings, s->cap_bindings, b);
	}
}

/* ---------------------------------------------------------------- the whole */

static int parse_json(const char *data, size_t len, const char *name, json_t **root, struct gt_err *err)
{
	char *member = NULL;
	size_t mlen = 0;
	if (gt_zip_looks_like(data, len)) {
		struct gt_err zerr = { 0 };
		if (gt_zip_read(data, len, GT_KAISNAP_MEMBER, &member, &mlen, &zerr))
			return gt_errf(err, zerr.code, "%s: %s", name, zerr.msg);
		data = member;
		len = mlen;
	} else if (len && data[strspn(data, " \t\r\n")] != '{') {
		return gt_errf(err, GT_EPARSE, "%s: neither a ZIP archive (KAI's /get-snapshot) nor a snapshot.json",
			       name);
	}
	json_error_t je;
	*root = json_loadb(data, len, JSON_ALLOW_NUL, &je);
	free(member);
	if (!*root)
		return gt_errf(err, GT_EPARSE, "%s: %s: not JSON at line %d, column %d: %s%s", name, GT_KAISNAP_MEMBER,
			       je.line, je.column, je.text,
			       strstr(je.text, "end of") ? " (a truncated file?)" : "");
	if (!json_is_object(*root)) {
		json_decref(*root);
		return gt_errf(err, GT_EINVAL, "%s: %s: must be an object with config, schedulerParams and rawObjects",
			       name, GT_KAISNAP_MEMBER);
	}
	return 0;
}

static json_t *new_shard(void)
{
	json_t *shard = json_object();
	json_object_set_new(shard, "apiVersion", json_string("kai.scheduler/v1"));
	json_object_set_new(shard, "kind", json_string("SchedulingShard"));
	json_t *meta = json_object();
	json_object_set_new(meta, "name", json_string("snapshot"));
	json_object_set_new(shard, "metadata", meta);
	json_object_set_new(shard, "spec", json_object());
	return shard;
}

static void read_discovery(struct gt_kai_snapshot *s, json_t *root)
{
	json_t *disc = json_object_get(root, "discovery");
	const char *v = json_string_value(json_object_get(json_object_get(disc, "serverVersion"), "gitVersion"));
	if (v)
		s->server_version = gt_xstrdup(v);
}

static int read_objects(struct gt_kai_snapshot *s, json_t *raw, struct scope *sc, const char *name,
			struct gt_err *err)
{
	static const char *known[GT_KAISNAP_N_LISTS + 1];
	for (int l = 0; l < GT_KAISNAP_N_LISTS; l++)
		known[l] = gt_kaisnap_lists[l].key;
	if (!json_is_object(raw))
		return gt_errf(err, GT_EINVAL, "%s: rawObjects: %s", name, raw ? "must be an object of lists" : "missing");
	unknown_keys(s, raw, known, "rawObjects");
	struct gt_doc_list all = { 0 }, brs = { 0 };
	int rc = 0;
	for (int l = 0; l < GT_KAISNAP_N_LISTS && !rc; l++)
		rc = read_list(s, raw, l, l == GT_KAISNAP_BINDREQUESTS ? &brs : &all, err);
	if (rc) {
		char msg[sizeof(err->msg)];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		gt_errf(err, rc, "%.200s: %.300s", name, msg);
		for (size_t i = 0; i < all.n; i++)
			gt_doc_free(all.docs[i]);
		for (size_t i = 0; i < brs.n; i++)
			gt_doc_free(brs.docs[i]);
	} else {
		scope_objects(s, &all, sc);
		read_bindings(s, &brs, sc);
	}
	free(all.docs);
	free(brs.docs);
	return rc;
}

int gt_kai_snapshot_read(const char *data, size_t len, const char *name, struct gt_kai_snapshot *s,
			 struct gt_err *err)
{
	static const char *const known[] = { "config", "schedulerParams", "rawObjects", "discovery", NULL };
	memset(s, 0, sizeof(*s));
	s->scheduler_name = gt_xstrdup("kai-scheduler");
	s->saturation_multiplier = 1;
	json_t *root = NULL;
	int rc = parse_json(data, len, name, &root, err);
	if (rc) {
		gt_kai_snapshot_release(s);
		return rc;
	}
	unknown_keys(s, root, known, GT_KAISNAP_MEMBER);
	json_t *shard = new_shard(), *spec = json_object_get(shard, "spec");
	struct scope sc = { 0 };
	gt_smap_init(&sc.nodes_out);
	gt_smap_init(&sc.groups_out);
	gt_smap_init(&sc.pods);
	rc = read_config(s, json_object_get(root, "config"), spec, err);
	if (!rc && json_object_get(spec, "usageDBConfig"))
		warn(s, "config.usageDBConfig: a snapshot holds no usage history; its cycle runs with no past usage");
	rc = rc ? rc : read_params(s, json_object_get(root, "schedulerParams"), spec, &sc.pool_key, &sc.pool_value, err);
	if (rc) {
		char msg[sizeof(err->msg)];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		gt_errf(err, rc, "%.200s: %.300s", name, msg);
	} else {
		hold(&s->docs, gt_doc_from_json(shard));
		rc = read_objects(s, json_object_get(root, "rawObjects"), &sc, name, err);
	}
	read_discovery(s, root);
	gt_smap_release(&sc.nodes_out);
	gt_smap_release(&sc.groups_out);
	gt_smap_release(&sc.pods);
	json_decref(shard);
	json_decref(root);
	if (rc)
		gt_kai_snapshot_release(s);
	return rc;
}

void gt_kai_snapshot_release(struct gt_kai_snapshot *s)
{
	gt_doc_list_release(&s->docs);
	gt_doc_list_release(&s->held);
	free(s->bindings);
	free(s->scheduler_name);
	free(s->server_version);
	for (size_t i = 0; i < s->n_warnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	memset(s, 0, sizeof(*s));
}

void gt_kai_snapshot_apply(const struct gt_kai_snapshot *s, struct gt_cluster *c)
{
	c->config.allow_consolidating_reclaim = s->allow_consolidating_reclaim;
	c->config.saturation_multiplier = s->saturation_multiplier;
}
