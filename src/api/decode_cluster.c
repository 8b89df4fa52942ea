/*
 * decode_cluster.c - the cluster's frame: PriorityClasses, the
 * SchedulingShard, Topologies, Queues and Nodes
 */
#include "api/decode_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "core/actions.h"
#include "util/mem.h"
#include "util/strtab.h"
#include "util/time.h"

/* ---------------------------------------------------------------- priority classes */

int gt_dec_priority_class(struct gt_dec *x, const struct gt_doc *o)
{
	const char *v = gt_doc_str(o, "value");
	int64_t val;
	if (!v || gt_parse_int(v, &val) || val < INT32_MIN || val > INT32_MAX)
		return gt_dec_fail(x, o, "value", "must be an integer", v);
	gt_dec_set_lookup(x, &x->prio_by_name, gt_obj_name(o), 0);
	x->prio_value[gt_dec_intern(x, gt_obj_name(o))] = (int32_t)val;
	if (gt_dec_bool(gt_doc_str(o, "globalDefault"), false)) {
		x->default_priority = (int32_t)val;
		x->have_default_priority = true;
	}
	return 0;
}

/* ---------------------------------------------------------------- shard */

static const struct {
	const char *name;
	int bit;
} scoring_plugins[] = {
	{ "nodeavailability", GT_PLUGIN_NODEAVAILABILITY },
	{ "resourcetype", GT_PLUGIN_RESOURCETYPE },
	{ "nodeplacement", GT_PLUGIN_NODEPLACEMENT },
	{ "nominatednode", GT_PLUGIN_NOMINATEDNODE },
	{ "podaffinity", GT_PLUGIN_PODAFFINITY },
};

/* spec.plugins: switches, placement arguments, proportion's kValue. */
static int shard_plugins(struct gt_dec *x, const struct gt_doc *o, struct gt_config *cfg)
{
	const struct gt_doc *plugins = gt_doc_path(o, "spec.plugins");
	for (size_t i = 0; plugins && plugins->kind == GT_DOC_MAP && i < plugins->n; i++) {
		const char *name = plugins->keys[i];
		const struct gt_doc *p = plugins->items[i];
		bool enabled = gt_dec_bool(gt_doc_str(p, "enabled"), true);
		const struct gt_doc *args = gt_doc_get(p, "arguments");
		if (!strcmp(name, "predicates"))
			cfg->predicates = enabled;
		else if (!strcmp(name, "gpusharingorder"))
			cfg->gpu_sharing_order = enabled;
		else if (!strcmp(name, "gpuspread") && enabled)
			cfg->gpu_spread = true;
		for (size_t k = 0; k < sizeof(scoring_plugins) / sizeof(scoring_plugins[0]); k++)
			if (!strcmp(name, scoring_plugins[k].name) && !enabled)
				cfg->plugins_off |= 1u << scoring_plugins[k].bit;
		if (!strcmp(name, "nodeplacement") && args) {
			const char *g = gt_doc_str(args, "gpu"), *cc = gt_doc_str(args, "cpu");
			if (g)
				cfg->gpu_spread = !strcmp(g, "spread");
			if (cc)
				cfg->cpu_spread = !strcmp(cc, "spread");
		}
		if (!strcmp(name, "proportion") && args) {
			const char *k = gt_doc_str(args, "kValue");
			double v;
			if (k && gt_dec_number(k, &v))
				return gt_dec_fail(x, o, "spec.plugins.proportion.arguments.kValue", "not a number", k);
			if (k)
				cfg->k_value = v;
		}
	}
	bool gpack = true;
	if (plugins && gt_doc_get(plugins, "gpupack"))
		gpack = gt_dec_bool(gt_doc_str(gt_doc_get(plugins, "gpupack"), "enabled"), true);
	bool gspread = plugins && gt_doc_get(plugins, "gpuspread") &&
		       gt_dec_bool(gt_doc_str(gt_doc_get(plugins, "gpuspread"), "enabled"), true);
	if (!gpack && !gspread)
		cfg->plugins_off |= 1u << GT_PLUGIN_GPUPACK;
	return 0;
}

/*
 * spec.actions{}: an action switched off with enabled: false. KAI's priority
 * reorders actions; Gantry keeps KAI's default order and says so.
 */
static int shard_actions(struct gt_dec *x, const struct gt_doc *o, struct gt_config *cfg)
{
	const struct gt_doc *actions = gt_doc_path(o, "spec.actions");
	cfg->actions_off = 0;
	for (size_t i = 0; actions && actions->kind == GT_DOC_MAP && i < actions->n; i++) {
		const char *name = actions->keys[i];
		enum gt_action a = gt_action_from_name(name);
		if (a == GT_ACT_NONE)
			return gt_dec_fail(x, o, "spec.actions", "is not one of KAI's actions", name);
		const struct gt_doc *spec = actions->items[i];
		if (!gt_dec_bool(gt_doc_str(spec, "enabled"), true))
			cfg->actions_off |= 1u << a;
		if (gt_doc_str(spec, "priority"))
			gt_dec_warn(x, "SchedulingShard %s: spec.actions.%s.priority is not applied: Gantry runs the "
				    "actions in KAI's default order", gt_obj_name(o), name);
	}
	return 0;
}

/* spec.args Gantry takes from the shard; KAI's operator passes them as scheduler flags. */
static const char *const shard_args_taken[] = { "default-staleness-grace-period", "stuck-in-releasing-threshold",
						"max-consolidation-preemptees", "allow-consolidating-reclaim" };

/* spec.args and spec.minRuntime: durations and counts. */
static int shard_args(struct gt_dec *x, const struct gt_doc *o, struct gt_config *cfg)
{
	const struct gt_doc *args = gt_doc_path(o, "spec.args");
	const char *grace = gt_doc_str(args, "default-staleness-grace-period");
	if (grace && gt_duration_parse_whole(grace, &cfg->staleness_grace_s))
		return gt_dec_fail(x, o, "spec.args.default-staleness-grace-period", "not a duration", grace);
	const char *stuck = gt_doc_str(args, "stuck-in-releasing-threshold");
	if (stuck && (gt_duration_parse_whole(stuck, &cfg->stuck_releasing_s) || cfg->stuck_releasing_s <= 0))
		return gt_dec_fail(x, o, "spec.args.stuck-in-releasing-threshold", "not a positive duration", stuck);
	const char *maxc = gt_doc_str(args, "max-consolidation-preemptees");
	int64_t v;
	if (maxc && (gt_parse_int(maxc, &v) || v < INT32_MIN || v > INT32_MAX))
		return gt_dec_fail(x, o, "spec.args.max-consolidation-preemptees", "not an integer", maxc);
	if (maxc)
		cfg->max_consolidation_preemptees = (int32_t)v;
	const char *acr = gt_doc_str(args, "allow-consolidating-reclaim");
	if (acr && strcmp(acr, "true") && strcmp(acr, "false"))
		return gt_dec_fail(x, o, "spec.args.allow-consolidating-reclaim", "must be true or false, not", acr);
	if (acr)
		cfg->allow_consolidating_reclaim = !strcmp(acr, "true");
	for (size_t i = 0; args && args->kind == GT_DOC_MAP && i < args->n; i++) {
		bool taken = false;
		for (size_t k = 0; k < sizeof(shard_args_taken) / sizeof(shard_args_taken[0]); k++)
			taken |= !strcmp(args->keys[i], shard_args_taken[k]);
		if (!taken)
			gt_dec_warn(x, "SchedulingShard %s: spec.args.%s is not taken from the shard (give it to "
				    "gantry scheduler as a flag; gantry scheduler --help)", gt_obj_name(o), args->keys[i]);
	}
	const struct gt_doc *mr = gt_doc_path(o, "spec.minRuntime");
	const char *pm = gt_doc_str(mr, "preemptMinRuntime"), *rm = gt_doc_str(mr, "reclaimMinRuntime");
	if (pm && gt_duration_parse_whole(pm, &cfg->preempt_min_runtime_s))
		return gt_dec_fail(x, o, "spec.minRuntime.preemptMinRuntime", "not a duration", pm);
	if (rm && gt_duration_parse_whole(rm, &cfg->reclaim_min_runtime_s))
		return gt_dec_fail(x, o, "spec.minRuntime.reclaimMinRuntime", "not a duration", rm);
	return 0;
}

int gt_dec_shard(struct gt_dec *x, const struct gt_doc *o)
{
	struct gt_config cfg = x->c->config;	/* the whole shard or nothing of it */
	const struct gt_doc *strategy = gt_doc_path(o, "spec.placementStrategy");
	const char *gpu = gt_doc_str(strategy, "gpu"), *cpu = gt_doc_str(strategy, "cpu");
	if (gpu && strcmp(gpu, "binpack") && strcmp(gpu, "spread"))
		return gt_dec_fail(x, o, "spec.placementStrategy.gpu", "must be binpack or spread, not", gpu);
	if (cpu && strcmp(cpu, "binpack") && strcmp(cpu, "spread"))
		return gt_dec_fail(x, o, "spec.placementStrategy.cpu", "must be binpack or spread, not", cpu);
	cfg.gpu_spread = gpu && !strcmp(gpu, "spread");
	cfg.cpu_spread = cpu && !strcmp(cpu, "spread");
	if (cfg.gpu_spread)
		cfg.gpu_sharing_order = false;
	int rc = shard_plugins(x, o, &cfg);
	rc = rc ? rc : shard_args(x, o, &cfg);
	rc = rc ? rc : shard_actions(x, o, &cfg);
	if (!rc)
		x->c->config = cfg;
	return rc;
}

/* ---------------------------------------------------------------- topologies */

int gt_dec_topology(struct gt_dec *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	const struct gt_doc *levels = gt_doc_path(o, "spec.levels");
	if (!levels || levels->kind != GT_DOC_SEQ || levels->n == 0)
		return gt_dec_fail(x, o, "spec.levels", "must list at least one level", NULL);
	struct gt_topology t = { .name = gt_dec_intern(x, gt_obj_name(o)) };
	t.levels = gt_xcalloc(levels->n, sizeof(*t.levels));
	t.aliases = gt_xcalloc(levels->n, sizeof(*t.aliases));
	for (size_t i = 0; i < levels->n; i++) {
		const char *l = gt_doc_str(levels->items[i], "nodeLabel");
		const char *alias = gt_doc_str(levels->items[i], "alias");
		const char *clash = NULL;
		/* KAI's webhook: an alias names one level, never another level's label or alias */
		for (size_t k = 0; l && alias && *alias && k < levels->n && !clash; k++) {
			const char *ol = gt_doc_str(levels->items[k], "nodeLabel");
			const char *oa = gt_doc_str(levels->items[k], "alias");
			if ((k != i && ol && !strcmp(ol, alias)) || (k < i && oa && !strcmp(oa, alias)))
				clash = alias;
		}
		if (!l || clash) {
			free(t.levels);
			free(t.aliases);
			return l ? gt_dec_fail(x, o, "spec.levels[].alias", "names another level too", clash)
				 : gt_dec_fail(x, o, "spec.levels[].nodeLabel", "is missing", NULL);
		}
		t.aliases[t.n_levels] = alias && *alias ? gt_dec_intern(x, alias) : GT_NO_ALIAS;
		t.levels[t.n_levels++] = gt_dec_intern(x, l);
	}
	gt_dec_set_lookup(x, &x->topo_by_name, gt_obj_name(o), (int32_t)c->n_topologies);
	GT_PUSH(c->topologies, c->n_topologies, c->cap_topologies, t);
	return 0;
}

/* ---------------------------------------------------------------- queues */

/*
 * One resource of a Queue. As in KAI v0.17 (its Go types have no defaults and
 * its CRD none either), a key that is not written is 0: a missing limit is a
 * limit of 0, so nothing that requests the resource fits in the queue. That
 * surprises people, so the decoder says which limits are missing (@no_limit).
 */
static int queue_resource(struct gt_dec *x, const struct gt_doc *o, struct gt_queue *q, const char *res,
			  int r, double scale, char *no_limit, size_t cap)
{
	const struct gt_doc *rd = gt_doc_get(gt_doc_path(o, "spec.resources"), res);
	char field[96];
	const char *keys[] = { "quota", "limit", "overQuotaWeight" };
	double vals[3] = { 0, 0, 0 };
	if (!gt_doc_str(rd, "limit")) {
		size_t len = strlen(no_limit);
		snprintf(no_limit + len, cap - len, "%s%s", len ? ", " : "", res);
	}
	for (int k = 0; k < 3; k++) {
		const char *s = gt_doc_str(rd, keys[k]);
		if (!s)
			continue;
		snprintf(field, sizeof(field), "spec.resources.%s.%s", res, keys[k]);
		if (gt_dec_number(s, &vals[k]))
			return gt_dec_fail(x, o, field, "not a number", s);
		if (k < 2 && vals[k] < 0 && vals[k] != -1)
			return gt_dec_fail(x, o, field, "must be -1 (unlimited) or >= 0, not", s);
		if (k == 2 && vals[k] < 0)
			vals[k] = 0;
	}
	q->deserved[r] = vals[0] < 0 ? -1 : (int64_t)(vals[0] * scale + 0.5);
	q->limit[r] = vals[1] < 0 ? -1 : (int64_t)(vals[1] * scale + 0.5);
	q->weight[r] = vals[2];
	return 0;
}

int gt_dec_queue(struct gt_dec *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	const char *name = gt_obj_name(o);
	int rc = gt_dec_check_name(x, o, x->queue_by_name, "queue");
	if (rc)
		return rc;
	struct gt_queue q = { .name = gt_dec_intern(x, name), .parent = GT_NONE, .priority = 100,
			      .preempt_min_runtime_s = -1, .reclaim_min_runtime_s = -1 };
	const struct gt_doc *spec = gt_doc_get(o, "spec");
	const char *display = gt_doc_str(spec, "displayName");
	q.has_display_name = display && *display;
	q.display_name = q.has_display_name ? gt_dec_intern(x, display) : 0;
	const char *prio = gt_doc_str(spec, "priority");
	int64_t v;
	if (prio && (gt_parse_int(prio, &v) || v < INT32_MIN || v > INT32_MAX))
		return gt_dec_fail(x, o, "spec.priority", "not an integer", prio);
	if (prio)
		q.priority = (int32_t)v;
	const char *created = gt_doc_str(gt_doc_get(o, "metadata"), "creationTimestamp");
	if (created && gt_time_parse(created, &q.created))
		return gt_dec_fail(x, o, "metadata.creationTimestamp", "not an RFC 3339 time", created);
	/* units: GPUs in devices, CPU in millicores, memory in MB (10^6 bytes) */
	char no_limit[64] = "";
	rc = queue_resource(x, o, &q, "gpu", GT_QGPU, 1000.0, no_limit, sizeof(no_limit));
	rc = rc ? rc : queue_resource(x, o, &q, "cpu", GT_QCPU, 1.0, no_limit, sizeof(no_limit));
	rc = rc ? rc : queue_resource(x, o, &q, "memory", GT_QMEM, 1e6, no_limit, sizeof(no_limit));
	if (rc)
		return rc;
	if (*no_limit)
		gt_dec_warn(x, "queue %s: no spec.resources limit for %s: 0 as in KAI, so nothing requesting it fits "
			    "in this queue (write limit: -1 for no limit)", name, no_limit);
	const char *pm = gt_doc_str(spec, "preemptMinRuntime"), *rm = gt_doc_str(spec, "reclaimMinRuntime");
	if (pm && gt_duration_parse_whole(pm, &q.preempt_min_runtime_s))
		return gt_dec_fail(x, o, "spec.preemptMinRuntime", "not a duration", pm);
	if (rm && gt_duration_parse_whole(rm, &q.reclaim_min_runtime_s))
		return gt_dec_fail(x, o, "spec.reclaimMinRuntime", "not a duration", rm);
	gt_dec_set_lookup(x, &x->queue_by_name, name, (int32_t)c->n_queues);
	gt_dec_source(x, 3, c->n_queues, (int32_t)x->obj);
	GT_PUSH(c->queues, c->n_queues, c->cap_queues, q);
	return 0;
}

void gt_dec_queue_parents(struct gt_dec *x, struct gt_doc *const *queues, size_t n)
{
	struct gt_cluster *c = x->c;
	x->orphan_queue = gt_xcalloc(c->n_queues + 1, sizeof(*x->orphan_queue));
	for (size_t i = 0; i < n; i++) {
		const char *parent = gt_doc_str(gt_doc_get(queues[i], "spec"), "parentQueue");
		int32_t q = gt_dec_lookup(x, x->queue_by_name, gt_obj_name(queues[i]));
		if (!parent || !*parent || q == GT_NONE)
			continue;
		int32_t p = gt_dec_lookup(x, x->queue_by_name, parent);
		if (p == GT_NONE) {
			gt_dec_warn(x, "queue %s: parent queue '%s' does not exist; its jobs are not scheduled",
				    gt_obj_name(queues[i]), parent);
			x->orphan_queue[q] = true;
			continue;
		}
		/* refuse cycles: walk up from the parent */
		int32_t a = p;
		int guard = 0;
		while (a != GT_NONE && a != q && guard++ < 64)
			a = c->queues[a].parent;
		if (a == q) {
			gt_dec_warn(x, "queue %s: parent queue '%s' makes a cycle; ignored", gt_obj_name(queues[i]),
				    parent);
			continue;
		}
		c->queues[q].parent = p;
	}
}

/* ---------------------------------------------------------------- nodes */

static int node_taints(struct gt_dec *x, const struct gt_doc *o, struct gt_node *n)
{
	const struct gt_doc *taints = gt_doc_path(o, "spec.taints");
	if (!taints || taints->kind != GT_DOC_SEQ)
		return 0;
	n->taints = gt_xcalloc(taints->n + 1, sizeof(*n->taints));
	for (size_t i = 0; i < taints->n; i++) {
		const struct gt_doc *t = taints->items[i];
		const char *key = gt_doc_str(t, "key"), *eff = gt_doc_str(t, "effect");
		const char *val = gt_doc_str(t, "value");
		if (!key)
			return gt_dec_fail(x, o, "spec.taints[].key", "is missing", NULL);
		int e = gt_name_index(gt_dec_taint_effects, GT_TAINT_ANY, eff);
		if (e < 0)
			return gt_dec_fail(x, o, "spec.taints[].effect", "unknown effect", eff ? eff : "");
		n->taints[n->n_taints++] = (struct gt_taint){ gt_dec_intern(x, key), gt_dec_intern(x, val ? val : ""),
							      (enum gt_taint_effect)e };
	}
	return 0;
}

static int node_allocatable(struct gt_dec *x, const struct gt_doc *o, struct gt_node *n)
{
	const struct gt_doc *alloc = gt_doc_path(o, "status.allocatable");
	if (!alloc)
		alloc = gt_doc_path(o, "status.capacity");
	for (size_t i = 0; alloc && alloc->kind == GT_DOC_MAP && i < alloc->n; i++) {
		const char *res = alloc->keys[i];
		const char *val = alloc->items[i]->kind == GT_DOC_SCALAR ? alloc->items[i]->scalar : "";
		char field[160];
		snprintf(field, sizeof(field), "status.allocatable.%s", res);
		int64_t v;
		int rc = !strcmp(res, "cpu") ? gt_quantity_parse_milli(val, &v) : gt_quantity_parse(val, &v);
		if (rc || v < 0)
			return gt_dec_fail(x, o, field, "not a valid quantity", val);
		if (!strcmp(res, "cpu"))
			n->cpu_milli = v;
		else if (!strcmp(res, "memory"))
			n->mem_bytes = v;
		else if (!strcmp(res, "pods"))
			n->pods = v;
		else if (!strcmp(res, "nvidia.com/gpu"))
			n->gpus = (int32_t)v;
		else if (gt_dec_is_extended(res)) {
			int e = gt_dec_ext_index(x, res);
			if (e >= 0)
				n->ext[e] = v;
		}
	}
	return 0;
}

static int node_gpu_memory(struct gt_dec *x, const struct gt_doc *o, struct gt_node *n)
{
	const char *mem = gt_obj_label(o, "nvidia.com/gpu.memory");
	if (!mem)
		return 0;
	int64_t v;
	if (gt_parse_int(mem, &v) || v < 0)
		return gt_dec_fail(x, o, "metadata.labels.nvidia.com/gpu.memory", "not an integer (MiB)", mem);
	if (v >= 1024LL * 1024)	/* values >= 1 TiB in MiB are bytes */
		v /= 1024 * 1024;
	n->gpu_mem_mib = v / 100 * 100;
	n->gpu_mem_synced = true;
	return 0;
}

int gt_dec_node(struct gt_dec *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	const char *name = gt_obj_name(o);
	int rc = gt_dec_check_name(x, o, x->node_by_name, "node");
	if (rc)
		return rc;
	struct gt_node n = { .name = gt_dec_intern(x, name), .ready = true, .pods = 110, .gpu_mem_mib = 100 };
	gt_dec_labels(x, gt_doc_path(o, "metadata.labels"), &n.labels);
	rc = node_allocatable(x, o, &n);
	rc = rc ? rc : node_gpu_memory(x, o, &n);
	rc = rc ? rc : node_taints(x, o, &n);
	if (rc) {
		gt_node_release(&n);
		return rc;
	}
	const char *mig = gt_obj_label(o, "node-role.kubernetes.io/mig-enabled");
	const char *strategy = gt_obj_label(o, "nvidia.com/mig.strategy");
	n.mig_enabled = (mig && !strcmp(mig, "true")) || (strategy && !strcmp(strategy, "mixed"));
	n.unschedulable = gt_dec_bool(gt_doc_str(gt_doc_get(o, "spec"), "unschedulable"), false);
	const struct gt_doc *conds = gt_doc_path(o, "status.conditions");
	for (size_t i = 0; conds && conds->kind == GT_DOC_SEQ && i < conds->n; i++) {
		const char *type = gt_doc_str(conds->items[i], "type");
		if (type && !strcmp(type, "Ready"))
			n.ready = gt_dec_bool(gt_doc_str(conds->items[i], "status"), false);
	}
	gt_dec_set_lookup(x, &x->node_by_name, name, (int32_t)c->n_nodes);
	gt_dec_source(x, 0, c->n_nodes, (int32_t)x->obj);
	GT_PUSH(c->nodes, c->n_nodes, c->cap_nodes, n);
	return 0;
}
