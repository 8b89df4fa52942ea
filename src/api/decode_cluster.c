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
#include "util/concat.h"
#include "util/cron.h"
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

/* spec.plugins.numa: on or off (on by itself when a node has a NodeResourceTopology), and its arguments. */
static void shard_numa(struct gt_dec *x, const struct gt_doc *o, struct gt_config *cfg, bool enabled,
		       const struct gt_doc *args)
{
	cfg->numa = enabled ? GT_NUMA_ON : GT_NUMA_OFF;
	const char *reconstruct = gt_doc_str(args, "reconstructAvailable");
	const char *ignore = gt_doc_str(args, "ignoreList");
	if (reconstruct)
		cfg->numa_trust_available = !gt_dec_bool(reconstruct, true);
	if (ignore) {
		cfg->has_numa_ignore = true;
		cfg->numa_ignore = gt_dec_intern(x, ignore);
	}
	for (size_t i = 0; args && args->kind == GT_DOC_MAP && i < args->n; i++)
		if (strcmp(args->keys[i], "reconstructAvailable") && strcmp(args->keys[i], "ignoreList"))
			gt_dec_note(x, o, "spec.plugins.numa.arguments", "'%s' is not an argument of KAI's numa "
				    "plugin (ignoreList, reconstructAvailable): not acted on", args->keys[i]);
}

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
		else if (!strcmp(name, "sg-nodelocalgreedy"))
			cfg->search.generator_off[GT_GEN_NODE_LOCAL_GREEDY] = !enabled;
		else if (!strcmp(name, "sg-multinodegang"))
			cfg->search.generator_off[GT_GEN_MULTI_NODE_GANG] = !enabled;
		else if (!strcmp(name, "gpusharingorder"))
			cfg->gpu_sharing_order = enabled;
		else if (!strcmp(name, "dynamicresources") && !enabled)
			gt_dec_note(x, o, "spec.plugins.dynamicresources.enabled", "false is not acted on: Gantry "
				    "schedules pods' resource claims whatever the plugins say%s", "");
		else if (!strcmp(name, "gpuspread") && enabled)
			cfg->gpu_spread = true;
		else if (!strcmp(name, "numa"))
			shard_numa(x, o, cfg, enabled, args);
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

/*
 * spec.queueDepthPerAction{}: how many jobs per queue an action considers.
 * KAI's operator refuses an action the shard does not run; so does Gantry
 * for one that is none of KAI's, and says when the action is switched off.
 */
static int shard_queue_depth(struct gt_dec *x, const struct gt_doc *o, struct gt_config *cfg)
{
	const struct gt_doc *depth = gt_doc_path(o, "spec.queueDepthPerAction");
	for (size_t a = 0; a < sizeof(cfg->queue_depth_per_action) / sizeof(cfg->queue_depth_per_action[0]); a++)
		cfg->queue_depth_per_action[a] = -1;
	if (depth && depth->kind != GT_DOC_MAP)
		return gt_dec_fail(x, o, "spec.queueDepthPerAction", "must be a map of action names to job counts", NULL);
	for (size_t i = 0; depth && i < depth->n; i++) {
		const char *name = depth->keys[i], *v = depth->items[i]->scalar;
		char field[200];
		snprintf(field, sizeof(field), "spec.queueDepthPerAction.%s", name);
		enum gt_action a = gt_action_from_name(name);
		if (a == GT_ACT_NONE)
			return gt_dec_fail(x, o, "spec.queueDepthPerAction", "is not one of KAI's actions", name);
		int64_t n;
		if (!v || gt_parse_int(v, &n) || n < -1 || n > INT32_MAX)
			return gt_dec_fail(x, o, field, "must be a whole number of jobs (-1: every job), not",
					   v ? v : "(none)");
		cfg->queue_depth_per_action[a] = (int32_t)n;
		if (a == GT_ACT_STALEGANG)
			gt_dec_warn(x, "SchedulingShard %s: spec.queueDepthPerAction.%s has no effect: the action does "
				    "not go through the queues' jobs (as in KAI)", gt_obj_name(o), name);
		else if (cfg->actions_off & (1u << a))
			gt_dec_warn(x, "SchedulingShard %s: spec.queueDepthPerAction.%s has no effect: the action is "
				    "switched off (KAI's operator refuses it)", gt_obj_name(o), name);
	}
	return 0;
}

/* spec.args Gantry takes from the shard; KAI's operator passes them as scheduler flags. */
static const char *const shard_args_taken[] = { "default-staleness-grace-period", "stuck-in-releasing-threshold",
						"max-consolidation-preemptees", "allow-consolidating-reclaim",
						"use-scheduling-signatures", "schedule-csi-storage" };
/* One duration of spec.scenarioSearchBudgets, non-negative, in ms; absent leaves @out. */
static int budget_ms(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *map, const char *key,
		     const char *field, int64_t *out)
{
	const char *v = gt_doc_str(map, key);
	if (!v)
		return 0;
	double s;
	if (gt_duration_parse(v, &s) || s < 0)
		return gt_dec_fail(x, o, field, "not a non-negative duration", v);
	*out = (int64_t)(s * 1000.0);
	return 0;
}

/* Warn about the keys of @map that are not in @known (@what: what they should name). */
static void warn_unknown_keys(struct gt_dec *x, const struct gt_doc *map, const char *const *known,
			      size_t n_known, const char *what)
{
	for (size_t i = 0; map && map->kind == GT_DOC_MAP && i < map->n; i++) {
		bool ok = false;
		for (size_t k = 0; k < n_known; k++)
			ok |= !strcmp(map->keys[i], known[k]);
		if (!ok)
			gt_dec_warn(x, "SchedulingShard: scenarioSearchBudgets names '%s', which is not %s; ignored",
				    map->keys[i], what);
	}
}

/*
 * KAI v0.17's scenarioSearchBudgets: per action (a key per action, else
 * "default", else 5m), per job (4m; a floor, 0s) and per generator (a key
 * per generator, else "default", else 30s for NodeLocalGreedy and 2m for
 * MultiNodeGang). 0s is no limit. Keys that name no action or generator are
 * warned about: KAI would apply nothing for them either.
 */
static int shard_budgets(struct gt_dec *x, const struct gt_doc *o, struct gt_config *cfg)
{
	const struct gt_doc *b = gt_doc_path(o, "spec.scenarioSearchBudgets");
	if (!b)
		return 0;
	struct gt_search_budgets *sb = &cfg->search;
	const struct gt_doc *act = gt_doc_get(b, "maxActionSearchDuration");
	const struct gt_doc *gen = gt_doc_get(b, "maxGeneratorSearchDuration");
	int64_t dflt = -1;
	int rc = budget_ms(x, o, act, "default", "spec.scenarioSearchBudgets.maxActionSearchDuration.default", &dflt);
	if (!rc && dflt >= 0)
		sb->reclaim_ms = sb->preempt_ms = sb->consolidation_ms = dflt;
	rc = rc ? rc : budget_ms(x, o, act, "reclaim", "spec.scenarioSearchBudgets.maxActionSearchDuration.reclaim", &sb->reclaim_ms);
	rc = rc ? rc : budget_ms(x, o, act, "preempt", "spec.scenarioSearchBudgets.maxActionSearchDuration.preempt", &sb->preempt_ms);
	rc = rc ? rc : budget_ms(x, o, act, "consolidation", "spec.scenarioSearchBudgets.maxActionSearchDuration.consolidation", &sb->consolidation_ms);
	rc = rc ? rc : budget_ms(x, o, b, "maxJobSearchDuration", "spec.scenarioSearchBudgets.maxJobSearchDuration", &sb->job_ms);
	rc = rc ? rc : budget_ms(x, o, b, "minJobSearchDuration", "spec.scenarioSearchBudgets.minJobSearchDuration", &sb->min_job_ms);
	dflt = -1;
	rc = rc ? rc : budget_ms(x, o, gen, "default", "spec.scenarioSearchBudgets.maxGeneratorSearchDuration.default", &dflt);
	if (!rc && dflt >= 0)
		sb->generator_ms[GT_GEN_NODE_LOCAL_GREEDY] = sb->generator_ms[GT_GEN_MULTI_NODE_GANG] = dflt;
	rc = rc ? rc : budget_ms(x, o, gen, "NodeLocalGreedy", "spec.scenarioSearchBudgets.maxGeneratorSearchDuration.NodeLocalGreedy", &sb->generator_ms[GT_GEN_NODE_LOCAL_GREEDY]);
	rc = rc ? rc : budget_ms(x, o, gen, "MultiNodeGang", "spec.scenarioSearchBudgets.maxGeneratorSearchDuration.MultiNodeGang", &sb->generator_ms[GT_GEN_MULTI_NODE_GANG]);
	if (rc)
		return rc;
	if (sb->job_ms && sb->min_job_ms >= sb->job_ms)
		return gt_dec_fail(x, o, "spec.scenarioSearchBudgets.minJobSearchDuration",
				   "must be less than maxJobSearchDuration", NULL);
	static const char *const known_act[] = { "default", "reclaim", "preempt", "consolidation" };
	static const char *const known_gen[] = { "default", "NodeLocalGreedy", "MultiNodeGang" };
	warn_unknown_keys(x, act, known_act, 4, "a search action");
	warn_unknown_keys(x, gen, known_gen, 3, "a scenario generator");
	return 0;
}

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
	const char *sigs = gt_doc_str(args, "use-scheduling-signatures");
	if (sigs)
		cfg->scheduling_signatures = gt_dec_bool(sigs, true);
	const char *csi = gt_doc_str(args, "schedule-csi-storage");
	if (csi && strcmp(csi, "true") && strcmp(csi, "false"))
		return gt_dec_fail(x, o, "spec.args.schedule-csi-storage", "must be true or false, not", csi);
	if (csi)
		cfg->csi_storage = !strcmp(csi, "true");
	const struct gt_doc *mr = gt_doc_path(o, "spec.minRuntime");
	const char *pm = gt_doc_str(mr, "preemptMinRuntime"), *rm = gt_doc_str(mr, "reclaimMinRuntime");
	if (pm && gt_duration_parse_whole(pm, &cfg->preempt_min_runtime_s))
		return gt_dec_fail(x, o, "spec.minRuntime.preemptMinRuntime", "not a duration", pm);
	if (rm && gt_duration_parse_whole(rm, &cfg->reclaim_min_runtime_s))
		return gt_dec_fail(x, o, "spec.minRuntime.reclaimMinRuntime", "not a duration", rm);
	return 0;
}

/* usageDBConfig.usageParams' durations: Go's (metav1.Duration); @dflt when absent. */
static int usage_duration(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *up, const char *key,
			  int64_t *out)
{
	const char *v = gt_doc_str(up, key);
	if (!v || gt_doc_is_null(gt_doc_get(up, key)))
		return 0;
	char field[96];
	snprintf(field, sizeof(field), "spec.usageDBConfig.usageParams.%s", key);
	if (gt_duration_parse_whole(v, out))
		return gt_dec_fail(x, o, field, "not a duration", v);
	return 0;
}

static int usage_window(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *up,
			struct gt_usage_params *u)
{
	const char *size = gt_doc_str(up, "windowSize"), *type = gt_doc_str(up, "windowType");
	if (size && gt_duration_parse_prom(size, &u->window_s))
		return gt_dec_fail(x, o, "spec.usageDBConfig.usageParams.windowSize",
				   "not a Prometheus duration (1w, 168h, 1h30m)", size);
	if (!type || !strcmp(type, "sliding"))
		u->window = GT_WINDOW_SLIDING;
	else if (!strcmp(type, "tumbling"))
		u->window = GT_WINDOW_TUMBLING;
	else if (!strcmp(type, "cron"))
		u->window = GT_WINDOW_CRON;
	else
		return gt_dec_fail(x, o, "spec.usageDBConfig.usageParams.windowType",
				   "must be sliding, tumbling or cron, not", type);
	const char *start = gt_doc_str(up, "tumblingWindowStartTime");
	if (u->window == GT_WINDOW_TUMBLING && !start)	/* KAI's usage client refuses it too */
		return gt_dec_fail(x, o, "spec.usageDBConfig.usageParams.tumblingWindowStartTime",
				   "is required with windowType tumbling", NULL);
	if (start && gt_time_parse(start, &u->tumbling_start))
		return gt_dec_fail(x, o, "spec.usageDBConfig.usageParams.tumblingWindowStartTime",
				   "not an RFC 3339 time", start);
	const char *cron = gt_doc_str(up, "cronString");
	char why[256];
	if (u->window == GT_WINDOW_CRON && gt_cron_parse(cron ? cron : "", &u->cron, why, sizeof(why)))
		return gt_dec_fail(x, o, "spec.usageDBConfig.usageParams.cronString", why, NULL);
	return 0;
}

/*
 * spec.kValue and spec.usageDBConfig: time-based fair share. Gantry keeps
 * the usage history itself (core/usage.h), so what only KAI's usage
 * database client reads is accepted with a warning.
 */
static int shard_usage(struct gt_dec *x, const struct gt_doc *o, struct gt_config *cfg)
{
	/* spec.kValue is the proportion plugin's default argument: the plugin's own arguments replace it */
	const char *k = gt_doc_str(gt_doc_get(o, "spec"), "kValue");
	double kv;
	if (k && !gt_doc_is_null(gt_doc_path(o, "spec.kValue")) && gt_dec_number(k, &kv))
		return gt_dec_fail(x, o, "spec.kValue", "not a number", k);
	if (k && !gt_doc_is_null(gt_doc_path(o, "spec.kValue")) &&
	    !gt_doc_path(o, "spec.plugins.proportion.arguments"))
		cfg->k_value = kv;
	const struct gt_doc *db = gt_doc_path(o, "spec.usageDBConfig");
	if (!db || gt_doc_is_null(db))
		return 0;
	struct gt_usage_params u = cfg->usage;
	u.on = true;
	const char *client = gt_doc_str(db, "clientType");
	if (!client || !*client)	/* KAI: "client type cannot be empty" */
		return gt_dec_fail(x, o, "spec.usageDBConfig.clientType", "is required (prometheus)", NULL);
	static const char *const db_only[] = { "connectionString", "connectionStringEnvVar" };
	for (size_t i = 0; i < 2; i++)
		if (gt_doc_str(db, db_only[i]) && *gt_doc_str(db, db_only[i]))
			gt_dec_warn(x, "SchedulingShard %s: spec.usageDBConfig.%s is not used: Gantry keeps the "
				    "queues' usage itself, from its own allocations (docs/fairshare.md)",
				    gt_obj_name(o), db_only[i]);
	const struct gt_doc *up = gt_doc_get(db, "usageParams");
	int64_t hl = 0;
	int rc = usage_duration(x, o, up, "halfLifePeriod", &hl);
	rc = rc ? rc : usage_duration(x, o, up, "fetchInterval", &u.fetch_interval_s);
	rc = rc ? rc : usage_window(x, o, up, &u);
	if (rc)
		return rc;
	u.half_life_s = hl > 0 ? hl : 0;	/* KAI: 0 or less means no decay */
	static const char *const unused[] = { "stalenessPeriod", "waitTimeout", "extraParams" };
	for (size_t i = 0; i < 3; i++)
		if (gt_doc_get(up, unused[i]) && !gt_doc_is_null(gt_doc_get(up, unused[i])))
			gt_dec_warn(x, "SchedulingShard %s: spec.usageDBConfig.usageParams.%s is not used: it "
				    "concerns KAI's Prometheus queries; Gantry's own usage history is never stale",
				    gt_obj_name(o), unused[i]);
	cfg->usage = u;
	return 0;
}

/*
 * Gantry's own settings, as annotations so that KAI's SchedulingShard schema
 * stays as it is (docs/reservations.md): reservations and backfill, per-job aging.
 */
/* A bad Gantry annotation on a shard is said and left out: KAI's settings still apply. */
static void bad_shard_annotation(struct gt_dec *x, const struct gt_doc *o, const char *key, const char *why,
				 const char *v)
{
	char field[96];
	snprintf(field, sizeof(field), "metadata.annotations.%s", key);
	gt_dec_note(x, o, field, "%s: '%s' (not used)", why, v);
}

/*
 * Gantry's own settings, as annotations so that KAI's SchedulingShard schema
 * stays as it is (docs/reservations.md): reservations and backfill, per-job aging.
 */
static void shard_reserve(struct gt_dec *x, const struct gt_doc *o, struct gt_config *cfg)
{
	struct gt_reserve_params *rp = &cfg->reserve;
	static const char *const bools[] = { "gantry.dev/reservations", "gantry.dev/reserve-beyond-fair-share" };
	bool *bool_out[] = { &rp->on, &rp->beyond_fair_share };
	for (size_t i = 0; i < 2; i++) {
		const char *v = gt_obj_annotation(o, bools[i]);
		if (v && strcmp(v, "true") && strcmp(v, "false"))
			bad_shard_annotation(x, o, bools[i], "must be true or false", v);
		else if (v)
			*bool_out[i] = !strcmp(v, "true");
	}
	const char *max = gt_obj_annotation(o, "gantry.dev/reserve-max");
	int64_t n;
	if (max && (gt_parse_int(max, &n) || n < 1 || n > 1000))
		bad_shard_annotation(x, o, "gantry.dev/reserve-max", "not a count from 1 to 1000", max);
	else if (max)
		rp->max = (uint32_t)n;
	const char *share = gt_obj_annotation(o, "gantry.dev/reserve-share");
	double f;
	if (share && (gt_parse_number(share, &f) || f <= 0 || f > 1))
		bad_shard_annotation(x, o, "gantry.dev/reserve-share", "not a fraction in (0, 1]", share);
	else if (share)
		rp->share = f;
	static const struct {
		const char *key;
		size_t off;
	} durations[] = {
		{ "gantry.dev/reserve-wait", offsetof(struct gt_reserve_params, wait_s) },
		{ "gantry.dev/reserve-hold", offsetof(struct gt_reserve_params, hold_s) },
		{ "gantry.dev/reserve-horizon", offsetof(struct gt_reserve_params, horizon_s) },
	};
	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		const char *v = gt_obj_annotation(o, durations[i].key);
		int64_t d;
		if (v && (gt_duration_parse_whole(v, &d) || d <= 0))
			bad_shard_annotation(x, o, durations[i].key, "not a positive duration", v);
		else if (v)
			*(int64_t *)((char *)rp + durations[i].off) = d;
	}
	const char *bf = gt_obj_annotation(o, "gantry.dev/reserve-backfill");
	if (bf && strcmp(bf, "run-time") && strcmp(bf, "preemptible"))
		bad_shard_annotation(x, o, "gantry.dev/reserve-backfill", "must be run-time or preemptible", bf);
	else if (bf)
		rp->backfill_preemptible = !strcmp(bf, "preemptible");
	const char *aging = gt_obj_annotation(o, "gantry.dev/job-aging-weight");
	if (aging && (gt_parse_number(aging, &f) || f < 0))
		bad_shard_annotation(x, o, "gantry.dev/job-aging-weight",
				     "not a non-negative number (priority points per hour pending)", aging);
	else if (aging)
		cfg->aging_weight = f;
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
	rc = rc ? rc : shard_usage(x, o, &cfg);
	rc = rc ? rc : shard_actions(x, o, &cfg);
	rc = rc ? rc : shard_queue_depth(x, o, &cfg);
	rc = rc ? rc : shard_budgets(x, o, &cfg);
	if (!rc)
		shard_reserve(x, o, &cfg);
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
		double v;
		if (gt_parse_number(s, &v))
			return gt_dec_fail(x, o, field, "not a number", s);
		if (gt_dec_number(s, &vals[k]))
			return gt_dec_fail(x, o, field, "is out of range (at most 1e15 either way), not", s);
		if (k < 2 && vals[k] < 0 && vals[k] != -1)
			return gt_dec_fail(x, o, field, "must be -1 (unlimited) or >= 0, not", s);
		if (k == 2 && vals[k] < 0) {
			/* KAI takes any number (-1 in its own scenarios): a negative weight gets no share */
			if (vals[k] != -1)
				gt_dec_note(x, o, field, "is negative (%s): it counts as 0, no share of what is left over",
					    s);
			vals[k] = 0;
		}
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
	const char *cycle = gt_smap_get(&x->queue_cycle, name);
	if (cycle && !strchr(cycle, '>'))
		return gt_dec_fail(x, o, "spec.parentQueue", "names the queue itself; the queue is refused", NULL);
	if (cycle) {
		char why[700];
		snprintf(why, sizeof(why), "its parent queues make a cycle (%s); the queue is refused", cycle);
		return gt_dec_fail(x, o, "spec.parentQueue", why, NULL);
	}
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
	int rc = queue_resource(x, o, &q, "gpu", GT_QGPU, 1000.0, no_limit, sizeof(no_limit));
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
	const char *dm = gt_obj_annotation(o, "gantry.dev/default-max-runtime");
	if (dm && (gt_duration_parse_whole(dm, &q.default_max_runtime_s) || q.default_max_runtime_s <= 0)) {
		gt_dec_note(x, o, "metadata.annotations.gantry.dev/default-max-runtime",
			    "not a positive duration: '%s' (not used)", dm);
		q.default_max_runtime_s = 0;
	}
	const char *em = gt_obj_annotation(o, "gantry.dev/enforce-max-runtime");
	if (em && strcmp(em, "true") && strcmp(em, "false"))
		gt_dec_note(x, o, "metadata.annotations.gantry.dev/enforce-max-runtime",
			    "must be true or false: '%s' (not used)", em);
	q.enforce_max_runtime = em && !strcmp(em, "true");
	gt_dec_set_lookup(x, &x->queue_by_name, name, (int32_t)c->n_queues);
	gt_dec_source(x, 3, c->n_queues, (int32_t)x->obj);
	GT_PUSH(c->queues, c->n_queues, c->cap_queues, q);
	return 0;
}

static const char *parent_of(const struct gt_doc *queue)
{
	const char *p = gt_doc_str(gt_doc_get(queue, "spec"), "parentQueue");
	return p && *p ? p : NULL;
}

void gt_dec_queue_cycles(struct gt_dec *x, const size_t *objs, size_t n)
{
	/* each queue has at most one parent: follow each chain once, colouring */
	struct gt_strtab ids;
	gt_strtab_init(&ids);
	for (size_t i = 0; i < n; i++)
		gt_strtab_intern(&ids, gt_obj_name(x->d->objs[objs[i]]));
	size_t m = ids.n_strs;
	int64_t *parent = gt_xmalloc((m + 1) * sizeof(*parent));
	uint8_t *state = gt_xcalloc(m + 1, 1);	/* 0 new, 1 on the walk, 2 done */
	for (size_t j = 0; j < m; j++)
		parent[j] = -1;
	for (size_t i = n; i-- > 0;) {	/* the first object of a name decides (the others are duplicates) */
		const struct gt_doc *q = x->d->objs[objs[i]];
		const char *p = parent_of(q);
		parent[gt_strtab_find(&ids, gt_obj_name(q))] = p ? gt_strtab_find(&ids, p) : -1;
	}
	size_t *walk = gt_xmalloc((m + 1) * sizeof(*walk));
	for (size_t j = 0; j < m; j++) {
		size_t len = 0;
		int64_t at = (int64_t)j;
		while (at >= 0 && !state[at]) {
			state[at] = 1;
			walk[len++] = (size_t)at;
			at = parent[at];
		}
		if (at >= 0 && state[at] == 1) {
			/* back on this walk: a cycle from `at` on, every queue of it refused */
			size_t from = 0;
			while (walk[from] != (size_t)at)
				from++;
			size_t n_cycle = len - from;
			for (size_t k = 0; k < n_cycle; k++) {
				/* "qb -> qa -> qb" for qb: each queue's message starts at itself */
				char text[600] = "";
				size_t off = 0;
				for (size_t s = 0; s <= n_cycle && off < sizeof(text); s++)
					off += (size_t)snprintf(text + off, sizeof(text) - off, "%s%s", s ? " -> " : "",
								ids.strs[walk[from + (k + s) % n_cycle]]);
				const char *name = ids.strs[walk[from + k]];
				free(gt_smap_put(&x->queue_cycle, name, gt_xstrdup(n_cycle == 1 ? "itself" : text)));
				char problem[800];
				if (n_cycle == 1)
					snprintf(problem, sizeof(problem),
						 "Queue '%s' is refused: it names itself as its parent queue", name);
				else
					snprintf(problem, sizeof(problem),
						 "Queue '%s' is refused: its parent queues make a cycle (%s)", name, text);
				gt_smap_put(&x->queue_problem, name,
					    (void *)gt_strtab_str(x->names, gt_dec_intern(x, problem)));
			}
		}
		for (size_t k = 0; k < len; k++)
			state[walk[k]] = 2;
	}
	free(walk);
	free(state);
	free(parent);
	gt_strtab_release(&ids);
}

void gt_dec_queue_parents(struct gt_dec *x, struct gt_doc *const *queues, size_t n)
{
	struct gt_cluster *c = x->c;
	x->orphan_queue = gt_xcalloc(c->n_queues + 1, sizeof(*x->orphan_queue));
	/* parents first named, then orphans found: an orphan's children are orphans too */
	for (size_t i = 0; i < n; i++) {
		const char *parent = parent_of(queues[i]);
		int32_t q = gt_dec_lookup(x, x->queue_by_name, gt_obj_name(queues[i]));
		if (!parent || q == GT_NONE)
			continue;
		int32_t p = gt_dec_lookup(x, x->queue_by_name, parent);
		char problem[800];
		if (p != GT_NONE) {
			c->queues[q].parent = p;
			continue;
		}
		bool refused = gt_smap_get(&x->queue_cycle, parent) != NULL;
		gt_dec_note(x, queues[i], "spec.parentQueue",
			    refused ? "parent queue '%s' is refused (a cycle of parent queues); the queue's jobs are not scheduled"
				    : "parent queue '%s' does not exist; the queue's jobs are not scheduled", parent);
		snprintf(problem, sizeof(problem), refused ?
			 "Queue '%s' cannot be used: its parent queue '%s' is refused (a cycle of parent queues)" :
			 "Queue '%s' cannot be used: its parent queue '%s' does not exist",
			 gt_obj_name(queues[i]), parent);
		gt_smap_put(&x->queue_problem, gt_obj_name(queues[i]),
			    (void *)gt_strtab_str(x->names, gt_dec_intern(x, problem)));
		x->orphan_queue[q] = true;
	}
	/* below an orphan, every queue is one */
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t q = 0; q < c->n_queues; q++) {
			int32_t p = c->queues[q].parent;
			if (p == GT_NONE || x->orphan_queue[q] || !x->orphan_queue[p])
				continue;
			x->orphan_queue[q] = changed = true;
			char problem[800];
			const char *qn = gt_strtab_str(x->names, c->queues[q].name);
			snprintf(problem, sizeof(problem), "Queue '%s' cannot be used: its parent queue '%s' cannot be used",
				 qn, gt_strtab_str(x->names, c->queues[p].name));
			gt_smap_put(&x->queue_problem, qn, (void *)gt_strtab_str(x->names, gt_dec_intern(x, problem)));
		}
	}
}

void gt_dec_queues_release(struct gt_dec *x)
{
	size_t pos = 0;
	void *why;
	while (gt_smap_next(&x->queue_cycle, &pos, NULL, &why))
		free(why);
	gt_smap_release(&x->queue_cycle);
	gt_smap_release(&x->queue_problem);	/* its values are the cluster's strings */
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
		gt_concat(field, sizeof(field), "status.allocatable.", res, (char *)NULL);
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
	struct gt_node n = { .name = gt_dec_intern(x, name), .ready = true, .pods = 110, .gpu_mem_mib = 100 };
	gt_dec_labels(x, gt_doc_path(o, "metadata.labels"), &n.labels);
	int rc = node_allocatable(x, o, &n);
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
