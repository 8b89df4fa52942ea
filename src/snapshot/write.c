/*
 * write.c - snapshot.json in KAI's layout (kaisnap.h), for /get-snapshot
 *
 * The configuration is written as KAI's scheduler would hold the same
 * behaviour: the actions Gantry runs, KAI's default plugin list less the
 * plugins switched off, nodeplacement's strategies and proportion's kValue
 * as arguments; the scheduler parameters a snapshot replay needs. Objects
 * go out as the cache holds them, less kind, apiVersion and managedFields,
 * as KAI's informers hold them.
 */
#include "snapshot/kaisnap.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/json.h"
#include "core/actions.h"

static json_t *actions_string(unsigned mask)
{
	char buf[256] = "";
	size_t off = 0;
	for (int a = 1; a < GT_N_ACTIONS; a++)
		if (mask & (1u << a))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", off ? ", " : "",
						gt_action_name((enum gt_action)a));
	return json_string(buf);
}

static void add_plugin(json_t *list, const char *name, json_t *args)
{
	json_t *p = json_object();
	json_object_set_new(p, "name", json_string(name));
	if (args)
		json_object_set_new(p, "arguments", args);
	json_array_append_new(list, p);
}

/* KAI's default plugin list (conf_util's), as Gantry's configuration switches it. */
static json_t *tiers(const struct gt_config *c)
{
	json_t *list = json_array();
	bool off[GT_N_PLUGINS];
	for (int i = 0; i < GT_N_PLUGINS; i++)
		off[i] = c->plugins_off & (1u << i);
	if (c->predicates)
		add_plugin(list, "predicates", NULL);
	json_t *prop = NULL;
	if (c->k_value != 1 || c->saturation_multiplier != 1) {
		char buf[64];
		prop = json_object();
		snprintf(buf, sizeof(buf), "%g", c->k_value);
		json_object_set_new(prop, "kValue", json_string(buf));
		if (c->saturation_multiplier != 1) {
			snprintf(buf, sizeof(buf), "%g", c->saturation_multiplier);
			json_object_set_new(prop, "relcaimerSaturationMultiplier", json_string(buf));
		}
	}
	/* KAI v0.17's default configuration's order (its operator writes it so): KAI's
	 * snapshot-tool runs what is listed, and its reclaim and preempt find no scenario
	 * without the two generators */
	add_plugin(list, "proportion", prop);
	add_plugin(list, "priority", NULL);
	if (!off[GT_PLUGIN_NODEAVAILABILITY])
		add_plugin(list, "nodeavailability", NULL);
	if (!off[GT_PLUGIN_RESOURCETYPE])
		add_plugin(list, "resourcetype", NULL);
	if (!off[GT_PLUGIN_PODAFFINITY])
		add_plugin(list, "podaffinity", NULL);
	static const char *const fixed[] = { "elastic", "kubeflow", "ray", "subgrouporder", "taskorder" };
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		add_plugin(list, fixed[i], NULL);
	if (!off[GT_PLUGIN_NOMINATEDNODE])
		add_plugin(list, "nominatednode", NULL);
	add_plugin(list, "dynamicresources", NULL);
	add_plugin(list, "minruntime", NULL);
	add_plugin(list, "topology", NULL);
	if (c->numa != GT_NUMA_OFF) {	/* KAI's is opt-in; Gantry's is on wherever nodes publish zones */
		json_t *args = NULL;
		if (c->numa_trust_available) {
			args = json_object();
			json_object_set_new(args, "reconstructAvailable", json_string("false"));
		}
		add_plugin(list, "numa", args);
	}
	add_plugin(list, "snapshot", NULL);
	if (!c->search.generator_off[GT_GEN_NODE_LOCAL_GREEDY])
		add_plugin(list, "sg-nodelocalgreedy", NULL);
	if (!c->search.generator_off[GT_GEN_MULTI_NODE_GANG])
		add_plugin(list, "sg-multinodegang", NULL);
	if (c->gpu_spread)
		add_plugin(list, "gpuspread", NULL);
	else if (!off[GT_PLUGIN_GPUPACK])
		add_plugin(list, "gpupack", NULL);
	if (!off[GT_PLUGIN_NODEPLACEMENT]) {
		json_t *args = json_object();
		json_object_set_new(args, "cpu", json_string(c->cpu_spread ? "spread" : "binpack"));
		json_object_set_new(args, "gpu", json_string(c->gpu_spread ? "spread" : "binpack"));
		add_plugin(list, "nodeplacement", args);
	}
	if (c->gpu_sharing_order)
		add_plugin(list, "gpusharingorder", NULL);
	json_t *tier = json_object();
	json_object_set_new(tier, "plugins", list);
	json_t *all = json_array();
	json_array_append_new(all, tier);
	return all;
}

static json_t *usage_config(const struct gt_usage_params *u)
{
	static const char *const windows[] = { "sliding", "tumbling", "cron" };
	json_t *db = json_object(), *p = json_object();
	char buf[64];
	json_object_set_new(db, "clientType", json_string("prometheus"));
	snprintf(buf, sizeof(buf), "%llds", (long long)u->window_s);
	json_object_set_new(p, "windowSize", json_string(buf));
	json_object_set_new(p, "windowType", json_string(windows[u->window]));
	if (u->half_life_s > 0) {
		snprintf(buf, sizeof(buf), "%llds", (long long)u->half_life_s);
		json_object_set_new(p, "halfLifePeriod", json_string(buf));
	}
	json_object_set_new(db, "usageParams", p);
	return db;
}

static json_t *config(const struct gt_kaisnap_meta *m)
{
	json_t *c = json_object();
	json_object_set_new(c, "actions", actions_string(m->actions));
	json_object_set_new(c, "tiers", tiers(m->config));
	if (m->config->usage.on)
		json_object_set_new(c, "usageDBConfig", usage_config(&m->config->usage));
	return c;
}

static json_t *params(const struct gt_kaisnap_meta *m)
{
	json_t *p = json_object();
	const struct gt_config *c = m->config;
	json_object_set_new(p, "schedulerName", json_string(m->scheduler_name));
	/* always, as KAI writes it (an empty value: no partition): KAI's snapshot-tool dereferences it */
	json_t *pp = json_object();
	json_object_set_new(pp, "NodePoolLabelKey", json_string(m->pool_key ? m->pool_key : "kai.scheduler/node-pool"));
	json_object_set_new(pp, "NodePoolLabelValue", json_string(m->pool_value ? m->pool_value : ""));
	json_object_set_new(p, "partitionParams", pp);
	if (c->scheduling_signatures)
		json_object_set_new(p, "useSchedulingSignatures", json_true());
	json_object_set_new(p, "fullHierarchyFairness", json_true());	/* the only fairness Gantry has */
	/* Go leaves out false and 0 (omitempty); durations are nanoseconds */
	if (c->max_consolidation_preemptees)
		json_object_set_new(p, "maxNumberConsolidationPreemptees",
				    json_integer(c->max_consolidation_preemptees));
	if (c->allow_consolidating_reclaim)
		json_object_set_new(p, "allowConsolidatingReclaim", json_true());
	if (c->staleness_grace_s)
		json_object_set_new(p, "globalDefaultStalenessGracePeriod",
				    json_integer(c->staleness_grace_s * 1000000000LL));
	if (c->stuck_releasing_s)
		json_object_set_new(p, "stuckInReleasingThreshold", json_integer(c->stuck_releasing_s * 1000000000LL));
	if (m->schedule_period_s > 0)
		json_object_set_new(p, "schedulePeriod", json_integer(llround(m->schedule_period_s * 1e9)));
	/* KAI's DRA plugin checks a shared GPU claim's queue label under this key: without it, none passes */
	json_object_set_new(p, "queueLabelKey", json_string("kai.scheduler/queue"));
	return p;
}

static json_t *object(const struct gt_doc *d)
{
	json_t *o = gt_doc_to_json(d);
	json_object_del(o, "kind");
	json_object_del(o, "apiVersion");
	json_object_del(json_object_get(o, "metadata"), "managedFields");
	return o;
}

/*
 * What KAI's readers take from discovery: the server's version (its DRA
 * check wants major >= 1 and minor >= 26) and the API groups that say DRA
 * (resource.k8s.io) and NodeResourceTopology are served. KAI's
 * snapshot-tool decides by them whether to read claims and NRTs at all, so
 * a snapshot must name the groups whose objects it carries. Without the
 * server's version there is no discovery (KAI's tool then works it out
 * from the objects, as for its own older snapshots).
 */
static json_t *api_group(const char *group_version, const char *const *names, const char *const *kinds,
			 const bool *namespaced, size_t n)
{
	json_t *list = json_object(), *rs = json_array();
	json_object_set_new(list, "groupVersion", json_string(group_version));
	for (size_t i = 0; i < n; i++) {
		json_t *r = json_object();
		json_object_set_new(r, "name", json_string(names[i]));
		json_object_set_new(r, "namespaced", json_boolean(namespaced[i]));
		json_object_set_new(r, "kind", json_string(kinds[i]));
		json_array_append_new(rs, r);
	}
	json_object_set_new(list, "resources", rs);
	return list;
}

static json_t *discovery(const struct gt_kaisnap_meta *m, const size_t *n)
{
	unsigned major, minor;
	if (!m->server_version || sscanf(m->server_version, "v%u.%u", &major, &minor) != 2)
		return NULL;
	json_t *disc = json_object(), *ver = json_object(), *res = json_array();
	char buf[16];
	snprintf(buf, sizeof(buf), "%u", major);
	json_object_set_new(ver, "major", json_string(buf));
	snprintf(buf, sizeof(buf), "%u", minor);
	json_object_set_new(ver, "minor", json_string(buf));
	json_object_set_new(ver, "gitVersion", json_string(m->server_version));
	json_object_set_new(disc, "serverVersion", ver);
	if (n[GT_KAISNAP_RESOURCECLAIMS] || n[GT_KAISNAP_RESOURCESLICES] || n[GT_KAISNAP_DEVICECLASSES]) {
		static const char *const names[] = { "resourceclaims", "resourceslices", "deviceclasses" };
		static const char *const kinds[] = { "ResourceClaim", "ResourceSlice", "DeviceClass" };
		static const bool namespaced[] = { true, false, false };
		json_array_append_new(res, api_group("resource.k8s.io/v1", names, kinds, namespaced, 3));
	}
	if (n[GT_KAISNAP_NRTS]) {
		static const char *const names[] = { "noderesourcetopologies" };
		static const char *const kinds[] = { "NodeResourceTopology" };
		static const bool namespaced[] = { false };
		json_array_append_new(res, api_group("topology.node.k8s.io/v1alpha2", names, kinds, namespaced, 1));
	}
	json_object_set_new(disc, "resources", res);
	return disc;
}

void gt_kai_snapshot_write(const struct gt_kaisnap_meta *m, const struct gt_doc *const *const *lists,
			   const size_t *n, char **out, size_t *out_len)
{
	json_t *root = json_object(), *raw = json_object();
	json_object_set_new(root, "config", config(m));
	json_object_set_new(root, "schedulerParams", params(m));
	for (int l = 0; l < GT_KAISNAP_N_LISTS; l++) {
		if (!n[l]) {
			json_object_set_new(raw, gt_kaisnap_lists[l].key, json_null());
			continue;
		}
		json_t *a = json_array();
		for (size_t i = 0; i < n[l]; i++)
			json_array_append_new(a, object(lists[l][i]));
		json_object_set_new(raw, gt_kaisnap_lists[l].key, a);
	}
	json_object_set_new(root, "rawObjects", raw);
	json_t *disc = discovery(m, n);
	if (disc)
		json_object_set_new(root, "discovery", disc);
	*out = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
	*out_len = strlen(*out);
	json_decref(root);
}
