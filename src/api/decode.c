#include "api/decode.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "util/mem.h"

#define DEFAULT_QUEUE "default-queue"

/* The PriorityClasses KAI ships; used when the input does not define them. */
static const struct {
	const char *name;
	int32_t value;
} shipped_priorities[] = {
	{ "train", 50 }, { "build-preemptible", 75 }, { "build", 100 }, { "inference", 125 },
};

struct ctx {
	struct gt_decoder *d;
	struct gt_cluster *c;
	struct gt_strtab *names;
	struct gt_err *err;
	/* name lookups, as string table id -> index + 1 (0 = absent) */
	int32_t *queue_by_name, *node_by_name, *topo_by_name, *prio_by_name;
	int32_t *prio_value;
	int32_t *claim_by_name;	/* "ns/name" of a PersistentVolumeClaim -> 1 */
	size_t n_lookup;
	int32_t default_priority;
	bool have_default_priority;
	int64_t *job_by_key;	/* ns/name key id -> job index + 1 */
	size_t n_job_lookup;
};

void gt_decoder_init(struct gt_decoder *d)
{
	memset(d, 0, sizeof(*d));
	d->scheduler_name = "kai-scheduler";
}

void gt_decoder_release(struct gt_decoder *d)
{
	for (size_t i = 0; i < d->n_warnings; i++)
		free(d->warnings[i]);
	free(d->warnings);
	free(d->objs);
	memset(d, 0, sizeof(*d));
}

static void warn(struct gt_decoder *d, const char *fmt, const char *a, const char *b)
{
	char buf[512];
	snprintf(buf, sizeof(buf), fmt, a, b);
	GT_PUSH(d->warnings, d->n_warnings, d->cap_warnings, gt_xstrdup(buf));
}

void gt_decoder_add(struct gt_decoder *d, struct gt_doc *doc)
{
	if (!doc || doc->kind != GT_DOC_MAP)
		return;
	const char *kind = gt_doc_str(doc, "kind");
	if (kind && !strcmp(kind, "List")) {
		const struct gt_doc *items = gt_doc_get(doc, "items");
		for (size_t i = 0; items && items->kind == GT_DOC_SEQ && i < items->n; i++)
			gt_decoder_add(d, items->items[i]);
		return;
	}
	GT_PUSH(d->objs, d->n_objs, d->cap_objs, doc);
}

/* ---------------------------------------------------------------- scalars */

/* @n decimal digits at @p, no sign, no spaces. */
static bool fixed_digits(const char *p, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (p[i] - '0');
	}
	*out = v;
	return true;
}

static int days_in_month(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : days[m - 1];
}

int gt_parse_time(const char *s, int64_t *out)
{
	int y, mo, da, h, mi, se;
	if (!s || strlen(s) < 20 || !fixed_digits(s, 4, &y) || s[4] != '-' ||
	    !fixed_digits(s + 5, 2, &mo) || s[7] != '-' || !fixed_digits(s + 8, 2, &da) ||
	    (s[10] != 'T' && s[10] != 't') || !fixed_digits(s + 11, 2, &h) || s[13] != ':' ||
	    !fixed_digits(s + 14, 2, &mi) || s[16] != ':' || !fixed_digits(s + 17, 2, &se))
		return GT_EINVAL;
	const char *p = s + 19;
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return GT_EINVAL;
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	}
	int64_t off = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh, om;
		if (!fixed_digits(p + 1, 2, &oh) || p[3] != ':' || !fixed_digits(p + 4, 2, &om) ||
		    oh > 23 || om > 59)
			return GT_EINVAL;
		off = (*p == '-' ? -1 : 1) * (oh * 3600 + om * 60);
		p += 6;
	} else {
		return GT_EINVAL;
	}
	if (*p || mo < 1 || mo > 12 || da < 1 || da > days_in_month(y, mo) || h > 23 || mi > 59 ||
	    se > 59)
		return GT_EINVAL;
	/* days from civil (Howard Hinnant's algorithm) */
	int64_t yy = y - (mo <= 2);
	int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
	int64_t yoe = yy - era * 400;
	int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + da - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	int64_t days = era * 146097 + doe - 719468;
	*out = days * 86400 + h * 3600 + mi * 60 + se - off;
	return 0;
}

/*
 * Go's time.ParseDuration: an optional sign, then one or more decimal
 * numbers (with an optional fraction) each followed by a unit (ns, us, ms,
 * s, m, h); "0" alone is zero. Whole seconds, rounded down; at most 100
 * years, which no scheduler setting needs to exceed.
 */
static int parse_duration_s(const char *s, double *out);

int gt_parse_duration(const char *s, int64_t *out)
{
	double v;
	int rc = parse_duration_s(s, &v);
	if (!rc)
		*out = (int64_t)v;
	return rc;
}

int gt_parse_duration_ms(const char *s, int64_t *out)
{
	double v;
	int rc = parse_duration_s(s, &v);
	if (!rc)
		*out = (int64_t)(v * 1000.0);
	return rc;
}

/* The duration in seconds, with its fraction; truncation is the callers'. */
static int parse_duration_s(const char *s, double *out)
{
	static const struct {
		const char *unit;
		double seconds;
	} units[] = { { "ns", 1e-9 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 }, { "ms", 1e-3 },
		      { "s", 1 }, { "m", 60 }, { "h", 3600 } };
	if (!s || !*s)
		return GT_EINVAL;
	const char *p = s;
	int sign = 1;
	if (*p == '-' || *p == '+')
		sign = *p++ == '-' ? -1 : 1;
	if (!strcmp(p, "0")) {
		*out = 0;
		return 0;
	}
	double total = 0;
	if (!*p)
		return GT_EINVAL;
	while (*p) {
		double whole = 0, frac = 0, scale = 1;
		bool digits = false;
		for (; *p >= '0' && *p <= '9'; p++, digits = true)
			whole = whole * 10 + (*p - '0');
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++, digits = true)
				frac += (*p - '0') * (scale /= 10);
		if (!digits)
			return GT_EINVAL;
		size_t k = 0, n_units = sizeof(units) / sizeof(units[0]);
		size_t best = n_units;
		for (k = 0; k < n_units; k++)	/* the longest unit that matches */
			if (!strncmp(p, units[k].unit, strlen(units[k].unit)) &&
			    (best == n_units || strlen(units[k].unit) > strlen(units[best].unit)))
				best = k;
		if (best == n_units)
			return GT_EINVAL;
		p += strlen(units[best].unit);
		total += (whole + frac) * units[best].seconds;
		if (total > 100.0 * 365 * 86400)
			return GT_EINVAL;
	}
	*out = sign * total;
	return 0;
}

/* A finite decimal number (no inf, nan or hex): what a float64 field holds. */
static int parse_number(const char *s, double *out)
{
	if (!s || !*s)
		return GT_EINVAL;
	for (const char *p = s; *p; p++)
		if (!strchr("0123456789+-.eE", *p))
			return GT_EINVAL;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end || errno || !isfinite(v) || fabs(v) > 1e15)
		return GT_EINVAL;
	*out = v;
	return 0;
}

static bool parse_bool(const char *s, bool dflt)
{
	if (!s)
		return dflt;
	return !strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "yes");
}

/* ---------------------------------------------------------------- helpers */

static const char *obj_kind(const struct gt_doc *o)
{
	const char *k = gt_doc_str(o, "kind");
	return k ? k : "";
}

static const char *obj_name(const struct gt_doc *o)
{
	const char *n = gt_doc_str(gt_doc_get(o, "metadata"), "name");
	return n ? n : "";
}

static const char *obj_ns(const struct gt_doc *o)
{
	const char *n = gt_doc_str(gt_doc_get(o, "metadata"), "namespace");
	return n ? n : "default";
}

static const char *label_of(const struct gt_doc *o, const char *key)
{
	return gt_doc_str(gt_doc_path(o, "metadata.labels"), key);
}

static const char *annotation_of(const struct gt_doc *o, const char *key)
{
	return gt_doc_str(gt_doc_path(o, "metadata.annotations"), key);
}

static int fail(struct ctx *x, const struct gt_doc *o, const char *field, const char *what,
		const char *value)
{
	const char *ns = gt_doc_str(gt_doc_get(o, "metadata"), "namespace");
	return gt_errf(x->err, GT_EINVAL, "%s %s%s%s (line %d): field %s: %s%s%s%s", obj_kind(o),
		       ns ? ns : "", ns ? "/" : "", obj_name(o), o->line, field, what,
		       value ? " '" : "", value ? value : "", value ? "'" : "");
}

static uint32_t intern(struct ctx *x, const char *s)
{
	return gt_strtab_intern(x->names, s);
}

static void grow_lookup(struct ctx *x)
{
	size_t need = x->names->n_strs + 1;
	if (need <= x->n_lookup)
		return;
	size_t n = need * 2;
	int32_t **arrs[] = { &x->queue_by_name, &x->node_by_name, &x->topo_by_name,
			     &x->prio_by_name, &x->prio_value, &x->claim_by_name };
	for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]); i++) {
		*arrs[i] = gt_xrealloc(*arrs[i], n * sizeof(int32_t));
		memset(*arrs[i] + x->n_lookup, 0, (n - x->n_lookup) * sizeof(int32_t));
	}
	x->n_lookup = n;
}

static int32_t lookup(struct ctx *x, int32_t *tab, const char *name)
{
	int64_t id = gt_strtab_find(x->names, name);
	if (id < 0 || (size_t)id >= x->n_lookup)
		return GT_NONE;
	return tab[id] - 1;
}

static void set_lookup(struct ctx *x, int32_t **tab, const char *name, int32_t idx)
{
	uint32_t id = intern(x, name);
	grow_lookup(x);
	(*tab)[id] = idx + 1;
}

static void read_labels(struct ctx *x, const struct gt_doc *map, struct gt_labels *out)
{
	if (!map || map->kind != GT_DOC_MAP)
		return;
	out->v = gt_xmalloc((map->n + 1) * sizeof(*out->v));
	out->n = 0;
	for (size_t i = 0; i < map->n; i++) {
		const struct gt_doc *v = map->items[i];
		out->v[out->n++] = (struct gt_label){
			.key = intern(x, map->keys[i]),
			.val = intern(x, v->kind == GT_DOC_SCALAR ? v->scalar : ""),
		};
	}
	gt_labels_sort(out);
}

static int ext_index(struct gt_cluster *c, struct ctx *x, const char *res)
{
	uint32_t id = intern(x, res);
	for (uint32_t i = 0; i < c->n_ext; i++)
		if (c->ext_names[i] == id)
			return (int)i;
	if (c->n_ext >= GT_MAX_EXT)
		return -1;
	c->ext_names[c->n_ext] = id;
	/* a MIG profile counts toward GPU quotas by its compute slices, as in KAI */
	int g, m;
	char tail;
	c->ext_gpu_milli[c->n_ext] =
		sscanf(res, "nvidia.com/mig-%dg.%dgb%c", &g, &m, &tail) == 2 && g > 0 ? g * 1000LL : 0;
	return (int)c->n_ext++;
}

static bool is_extended(const char *res)
{
	return strcmp(res, "cpu") && strcmp(res, "memory") && strcmp(res, "pods") &&
	       strcmp(res, "nvidia.com/gpu") && strcmp(res, "ephemeral-storage") &&
	       strncmp(res, "hugepages-", 10) && strchr(res, '/') != NULL;
}

/* ---------------------------------------------------------------- shard */

/* One duration of spec.scenarioSearchBudgets, non-negative, in ms; absent leaves @out. */
static int budget_ms(struct ctx *x, const struct gt_doc *o, const struct gt_doc *map, const char *key,
		     const char *field, int64_t *out)
{
	const char *v = gt_doc_str(map, key);
	if (!v)
		return 0;
	if (gt_parse_duration_ms(v, out) || *out < 0)
		return fail(x, o, field, "not a non-negative duration", v);
	return 0;
}

/*
 * KAI v0.17's scenarioSearchBudgets: per action (a key per action, else
 * "default", else 5m), per job (4m; a floor, 0s) and per generator (a key
 * per generator, else "default", else 30s for NodeLocalGreedy and 2m for
 * MultiNodeGang). 0s is no limit. Keys that name no action or generator are
 * warned about: KAI would apply nothing for them either.
 */
static int decode_budgets(struct ctx *x, const struct gt_doc *o, const struct gt_doc *b)
{
	struct gt_search_budgets *sb = &x->c->config.search;
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
		return fail(x, o, "spec.scenarioSearchBudgets.minJobSearchDuration",
			    "must be less than maxJobSearchDuration", NULL);
	static const char *const known_act[] = { "default", "reclaim", "preempt", "consolidation" };
	static const char *const known_gen[] = { "default", "NodeLocalGreedy", "MultiNodeGang" };
	for (int m = 0; m < 2; m++) {
		const struct gt_doc *map = m ? gen : act;
		const char *const *known = m ? known_gen : known_act;
		size_t n_known = m ? 3 : 4;
		for (size_t i = 0; map && map->kind == GT_DOC_MAP && i < map->n; i++) {
			bool ok = false;
			for (size_t k = 0; k < n_known; k++)
				ok |= !strcmp(map->keys[i], known[k]);
			if (!ok)
				warn(x->d, "SchedulingShard: scenarioSearchBudgets names '%s', which is not %s; "
					   "ignored", map->keys[i], m ? "a scenario generator" : "a search action");
		}
	}
	return 0;
}

static int decode_shard(struct ctx *x, const struct gt_doc *o)
{
	struct gt_config *cfg = &x->c->config;
	const struct gt_doc *spec = gt_doc_get(o, "spec");
	const char *gpu = gt_doc_str(gt_doc_get(spec, "placementStrategy"), "gpu");
	const char *cpu = gt_doc_str(gt_doc_get(spec, "placementStrategy"), "cpu");
	if (gpu && strcmp(gpu, "binpack") && strcmp(gpu, "spread"))
		return fail(x, o, "spec.placementStrategy.gpu", "must be binpack or spread, not", gpu);
	if (cpu && strcmp(cpu, "binpack") && strcmp(cpu, "spread"))
		return fail(x, o, "spec.placementStrategy.cpu", "must be binpack or spread, not", cpu);
	cfg->gpu_spread = gpu && !strcmp(gpu, "spread");
	cfg->cpu_spread = cpu && !strcmp(cpu, "spread");
	if (cfg->gpu_spread)
		cfg->gpu_sharing_order = false;
	const struct gt_doc *plugins = gt_doc_get(spec, "plugins");
	static const struct {
		const char *name;
		int bit;
	} scoring[] = {
		{ "nodeavailability", GT_PLUGIN_NODEAVAILABILITY },
		{ "resourcetype", GT_PLUGIN_RESOURCETYPE },
		{ "nodeplacement", GT_PLUGIN_NODEPLACEMENT },
		{ "nominatednode", GT_PLUGIN_NOMINATEDNODE },
	};
	for (size_t i = 0; plugins && plugins->kind == GT_DOC_MAP && i < plugins->n; i++) {
		const char *name = plugins->keys[i];
		const struct gt_doc *p = plugins->items[i];
		bool enabled = parse_bool(gt_doc_str(p, "enabled"), true);
		const struct gt_doc *args = gt_doc_get(p, "arguments");
		if (!strcmp(name, "predicates"))
			cfg->predicates = enabled;
		else if (!strcmp(name, "sg-nodelocalgreedy"))
			cfg->search.generator_off[GT_GEN_NODE_LOCAL_GREEDY] = !enabled;
		else if (!strcmp(name, "sg-multinodegang"))
			cfg->search.generator_off[GT_GEN_MULTI_NODE_GANG] = !enabled;
		else if (!strcmp(name, "gpusharingorder"))
			cfg->gpu_sharing_order = enabled;
		else if (!strcmp(name, "gpuspread") && enabled)
			cfg->gpu_spread = true;
		for (size_t k = 0; k < sizeof(scoring) / sizeof(scoring[0]); k++)
			if (!strcmp(name, scoring[k].name) && !enabled)
				cfg->plugins_off |= 1u << scoring[k].bit;
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
			if (k && parse_number(k, &v))
				return fail(x, o, "spec.plugins.proportion.arguments.kValue", "not a number", k);
			if (k)
				cfg->k_value = v;
		}
	}
	bool gpack = true;
	if (plugins && gt_doc_get(plugins, "gpupack"))
		gpack = parse_bool(gt_doc_str(gt_doc_get(plugins, "gpupack"), "enabled"), true);
	bool gspread = plugins && gt_doc_get(plugins, "gpuspread") &&
		       parse_bool(gt_doc_str(gt_doc_get(plugins, "gpuspread"), "enabled"), true);
	if (!gpack && !gspread)
		cfg->plugins_off |= 1u << GT_PLUGIN_GPUPACK;
	const struct gt_doc *args = gt_doc_get(spec, "args");
	const char *grace = gt_doc_str(args, "default-staleness-grace-period");
	if (grace && gt_parse_duration(grace, &cfg->staleness_grace_s))
		return fail(x, o, "spec.args.default-staleness-grace-period", "not a duration", grace);
	const char *maxc = gt_doc_str(args, "max-consolidation-preemptees");
	int64_t v;
	if (maxc && gt_parse_int(maxc, &v))
		return fail(x, o, "spec.args.max-consolidation-preemptees", "not an integer", maxc);
	if (maxc)
		cfg->max_consolidation_preemptees = (int32_t)v;
	const char *sigs = gt_doc_str(args, "use-scheduling-signatures");
	if (sigs)
		cfg->scheduling_signatures = parse_bool(sigs, true);
	const struct gt_doc *budgets = gt_doc_get(spec, "scenarioSearchBudgets");
	if (budgets) {
		int rc = decode_budgets(x, o, budgets);
		if (rc)
			return rc;
	}
	const struct gt_doc *mr = gt_doc_get(spec, "minRuntime");
	const char *pm = gt_doc_str(mr, "preemptMinRuntime"), *rm = gt_doc_str(mr, "reclaimMinRuntime");
	if (pm && gt_parse_duration(pm, &cfg->preempt_min_runtime_s))
		return fail(x, o, "spec.minRuntime.preemptMinRuntime", "not a duration", pm);
	if (rm && gt_parse_duration(rm, &cfg->reclaim_min_runtime_s))
		return fail(x, o, "spec.minRuntime.reclaimMinRuntime", "not a duration", rm);
	return 0;
}

/* ---------------------------------------------------------------- queues */

static int queue_resource(struct ctx *x, const struct gt_doc *o, struct gt_queue *q,
			  const char *res, int r, double scale)
{
	const struct gt_doc *rd = gt_doc_get(gt_doc_path(o, "spec.resources"), res);
	char field[96];
	const char *keys[] = { "quota", "limit", "overQuotaWeight" };
	double vals[3] = { r == GT_QGPU ? 0 : -1, -1, r == GT_QGPU ? 0 : 1 };
	/* a Queue CR without a section for a resource: unlimited quota and limit */
	if (!rd)
		vals[0] = r == GT_QGPU ? 0 : -1;
	for (int k = 0; k < 3; k++) {
		const char *s = gt_doc_str(rd, keys[k]);
		if (!s)
			continue;
		snprintf(field, sizeof(field), "spec.resources.%s.%s", res, keys[k]);
		if (parse_number(s, &vals[k]))
			return fail(x, o, field, "not a number", s);
		if (k < 2 && vals[k] < 0 && vals[k] != -1)
			return fail(x, o, field, "must be -1 (unlimited) or >= 0, not", s);
		if (k == 2 && vals[k] < 0)
			vals[k] = 0;
	}
	q->deserved[r] = vals[0] < 0 ? -1 : (int64_t)(vals[0] * scale + 0.5);
	q->limit[r] = vals[1] < 0 ? -1 : (int64_t)(vals[1] * scale + 0.5);
	q->weight[r] = vals[2];
	return 0;
}

static int decode_queue(struct ctx *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	const char *name = obj_name(o);
	if (!*name)
		return fail(x, o, "metadata.name", "is missing", NULL);
	if (lookup(x, x->queue_by_name, name) != GT_NONE)
		return fail(x, o, "metadata.name", "duplicate queue", name);
	GT_GROW(c->queues, c->n_queues + 1, c->cap_queues);
	struct gt_queue *q = &c->queues[c->n_queues];
	memset(q, 0, sizeof(*q));
	q->name = intern(x, name);
	q->parent = GT_NONE;
	q->priority = 100;
	q->preempt_min_runtime_s = q->reclaim_min_runtime_s = -1;
	const char *prio = gt_doc_str(gt_doc_get(o, "spec"), "priority");
	int64_t v;
	if (prio && gt_parse_int(prio, &v))
		return fail(x, o, "spec.priority", "not an integer", prio);
	if (prio)
		q->priority = (int32_t)v;
	const char *created = gt_doc_str(gt_doc_get(o, "metadata"), "creationTimestamp");
	if (created && gt_parse_time(created, &q->created))
		return fail(x, o, "metadata.creationTimestamp", "not an RFC 3339 time", created);
	/* units: GPUs in devices, CPU in millicores, memory in MB (10^6 bytes) */
	int rc = queue_resource(x, o, q, "gpu", GT_QGPU, 1000.0);
	rc = rc ? rc : queue_resource(x, o, q, "cpu", GT_QCPU, 1.0);
	rc = rc ? rc : queue_resource(x, o, q, "memory", GT_QMEM, 1e6);
	if (rc)
		return rc;
	const char *pm = gt_doc_str(gt_doc_get(o, "spec"), "preemptMinRuntime");
	const char *rm = gt_doc_str(gt_doc_get(o, "spec"), "reclaimMinRuntime");
	if (pm && gt_parse_duration(pm, &q->preempt_min_runtime_s))
		return fail(x, o, "spec.preemptMinRuntime", "not a duration", pm);
	if (rm && gt_parse_duration(rm, &q->reclaim_min_runtime_s))
		return fail(x, o, "spec.reclaimMinRuntime", "not a duration", rm);
	set_lookup(x, &x->queue_by_name, name, (int32_t)c->n_queues);
	c->n_queues++;
	return 0;
}

/* Second pass: parents. A queue whose parent is missing loads as an orphan. */
static void link_queue_parents(struct ctx *x, struct gt_doc **queue_objs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *parent = gt_doc_str(gt_doc_get(queue_objs[i], "spec"), "parentQueue");
		int32_t q = lookup(x, x->queue_by_name, obj_name(queue_objs[i]));
		if (!parent || !*parent || q == GT_NONE)
			continue;
		int32_t p = lookup(x, x->queue_by_name, parent);
		if (p == GT_NONE) {
			warn(x->d, "queue %s: parent queue '%s' does not exist; its jobs are not scheduled",
			     obj_name(queue_objs[i]), parent);
			x->c->queues[q].parent = GT_NONE;
			x->c->queues[q].priority = INT32_MIN;	/* marks the orphan */
			continue;
		}
		/* refuse cycles: walk up from the parent */
		int32_t a = p;
		int guard = 0;
		while (a != GT_NONE && a != q && guard++ < 64)
			a = x->c->queues[a].parent;
		if (a == q) {
			warn(x->d, "queue %s: parent queue '%s' makes a cycle; ignored",
			     obj_name(queue_objs[i]), parent);
			continue;
		}
		x->c->queues[q].parent = p;
	}
}

/* ---------------------------------------------------------------- nodes */

static int decode_taints(struct ctx *x, const struct gt_doc *o, struct gt_node *n)
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
			return fail(x, o, "spec.taints[].key", "is missing", NULL);
		enum gt_taint_effect e;
		if (eff && !strcmp(eff, "NoSchedule"))
			e = GT_TAINT_NO_SCHEDULE;
		else if (eff && !strcmp(eff, "PreferNoSchedule"))
			e = GT_TAINT_PREFER_NO_SCHEDULE;
		else if (eff && !strcmp(eff, "NoExecute"))
			e = GT_TAINT_NO_EXECUTE;
		else
			return fail(x, o, "spec.taints[].effect", "unknown effect", eff ? eff : "");
		n->taints[n->n_taints++] = (struct gt_taint){ intern(x, key), intern(x, val ? val : ""), e };
	}
	return 0;
}

static int decode_node(struct ctx *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	const char *name = obj_name(o);
	if (!*name)
		return fail(x, o, "metadata.name", "is missing", NULL);
	if (lookup(x, x->node_by_name, name) != GT_NONE)
		return fail(x, o, "metadata.name", "duplicate node", name);
	GT_GROW(c->nodes, c->n_nodes + 1, c->cap_nodes);
	struct gt_node *n = &c->nodes[c->n_nodes];
	memset(n, 0, sizeof(*n));
	n->name = intern(x, name);
	n->ready = true;
	n->pods = 110;
	n->gpu_mem_mib = 100;
	read_labels(x, gt_doc_path(o, "metadata.labels"), &n->labels);
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
			return fail(x, o, field, "not a valid quantity", val);
		if (!strcmp(res, "cpu"))
			n->cpu_milli = v;
		else if (!strcmp(res, "memory"))
			n->mem_bytes = v;
		else if (!strcmp(res, "pods"))
			n->pods = v;
		else if (!strcmp(res, "nvidia.com/gpu"))
			n->gpus = (int32_t)v;
		else if (is_extended(res)) {
			int e = ext_index(c, x, res);
			if (e >= 0)
				n->ext[e] = v;
		}
	}
	const char *mem = label_of(o, "nvidia.com/gpu.memory");
	if (mem) {
		int64_t v;
		if (gt_parse_int(mem, &v) || v < 0)
			return fail(x, o, "metadata.labels.nvidia.com/gpu.memory", "not an integer (MiB)", mem);
		if (v >= 1024LL * 1024)	/* values >= 1 TiB in MiB are bytes */
			v /= 1024 * 1024;
		n->gpu_mem_mib = v / 100 * 100;
		n->gpu_mem_synced = true;
	}
	const char *mig = label_of(o, "node-role.kubernetes.io/mig-enabled");
	const char *strategy = label_of(o, "nvidia.com/mig.strategy");
	n->mig_enabled = (mig && !strcmp(mig, "true")) || (strategy && !strcmp(strategy, "mixed"));
	n->unschedulable = parse_bool(gt_doc_str(gt_doc_get(o, "spec"), "unschedulable"), false);
	const struct gt_doc *conds = gt_doc_path(o, "status.conditions");
	for (size_t i = 0; conds && conds->kind == GT_DOC_SEQ && i < conds->n; i++) {
		const char *type = gt_doc_str(conds->items[i], "type");
		if (type && !strcmp(type, "Ready"))
			n->ready = parse_bool(gt_doc_str(conds->items[i], "status"), false);
	}
	int rc = decode_taints(x, o, n);
	if (rc)
		return rc;
	set_lookup(x, &x->node_by_name, name, (int32_t)c->n_nodes);
	c->n_nodes++;
	return 0;
}

/* ---------------------------------------------------------------- topologies */

static int decode_topology(struct ctx *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	const struct gt_doc *levels = gt_doc_path(o, "spec.levels");
	if (!levels || levels->kind != GT_DOC_SEQ || levels->n == 0)
		return fail(x, o, "spec.levels", "must list at least one level", NULL);
	GT_GROW(c->topologies, c->n_topologies + 1, c->cap_topologies);
	struct gt_topology *t = &c->topologies[c->n_topologies];
	memset(t, 0, sizeof(*t));
	t->name = intern(x, obj_name(o));
	t->levels = gt_xcalloc(levels->n, sizeof(*t->levels));
	for (size_t i = 0; i < levels->n; i++) {
		const char *l = gt_doc_str(levels->items[i], "nodeLabel");
		if (!l) {
			c->n_topologies++;
			return fail(x, o, "spec.levels[].nodeLabel", "is missing", NULL);
		}
		t->levels[t->n_levels++] = intern(x, l);
	}
	set_lookup(x, &x->topo_by_name, obj_name(o), (int32_t)c->n_topologies);
	c->n_topologies++;
	return 0;
}

static int topology_constraint(struct ctx *x, const struct gt_doc *o, const struct gt_doc *tc,
			       const char *field, struct gt_topology_constraint *out)
{
	out->topology = out->required_level = out->preferred_level = GT_NONE;
	const char *topo = gt_doc_str(tc, "topology");
	if (!topo)
		return 0;
	int32_t t = lookup(x, x->topo_by_name, topo);
	out->topology = t;
	if (t == GT_NONE)
		return 0;	/* reported on the job by the core */
	const char *req = gt_doc_str(tc, "requiredTopologyLevel");
	const char *pref = gt_doc_str(tc, "preferredTopologyLevel");
	const struct gt_topology *tp = &x->c->topologies[t];
	for (uint32_t i = 0; i < tp->n_levels; i++) {
		const char *l = gt_strtab_str(x->names, tp->levels[i]);
		if (req && !strcmp(req, l))
			out->required_level = (int32_t)i;
		if (pref && !strcmp(pref, l))
			out->preferred_level = (int32_t)i;
	}
	char f[160];
	if (req && out->required_level == GT_NONE) {
		snprintf(f, sizeof(f), "%s.requiredTopologyLevel", field);
		return fail(x, o, f, "is not a level of the topology", req);
	}
	if (pref && out->preferred_level == GT_NONE) {
		snprintf(f, sizeof(f), "%s.preferredTopologyLevel", field);
		return fail(x, o, f, "is not a level of the topology", pref);
	}
	return 0;
}

/* ---------------------------------------------------------------- podgroups */

static int32_t priority_value(struct ctx *x, const char *class_name, bool *found)
{
	*found = false;
	if (class_name && *class_name) {
		int32_t i = lookup(x, x->prio_by_name, class_name);
		if (i != GT_NONE) {
			*found = true;
			return x->prio_value[intern(x, class_name)];
		}
		for (size_t k = 0; k < sizeof(shipped_priorities) / sizeof(shipped_priorities[0]); k++)
			if (!strcmp(shipped_priorities[k].name, class_name)) {
				*found = true;
				return shipped_priorities[k].value;
			}
	}
	return x->have_default_priority ? x->default_priority : 50;
}

static uint32_t job_key(struct ctx *x, const char *ns, const char *name)
{
	char key[512];
	snprintf(key, sizeof(key), "%s/%s", ns, name);
	return intern(x, key);
}

static void set_job_lookup(struct ctx *x, uint32_t key, int32_t job)
{
	if (key >= x->n_job_lookup) {
		size_t n = (key + 1) * 2;
		x->job_by_key = gt_xrealloc(x->job_by_key, n * sizeof(*x->job_by_key));
		memset(x->job_by_key + x->n_job_lookup, 0, (n - x->n_job_lookup) * sizeof(*x->job_by_key));
		x->n_job_lookup = n;
	}
	x->job_by_key[key] = job + 1;
}

static int32_t find_job(struct ctx *x, const char *ns, const char *name)
{
	char key[512];
	snprintf(key, sizeof(key), "%s/%s", ns, name);
	int64_t id = gt_strtab_find(x->names, key);
	if (id < 0 || (size_t)id >= x->n_job_lookup)
		return GT_NONE;
	return (int32_t)x->job_by_key[id] - 1;
}

static struct gt_job *new_job(struct ctx *x, const char *ns, const char *name)
{
	struct gt_cluster *c = x->c;
	GT_GROW(c->jobs, c->n_jobs + 1, c->cap_jobs);
	struct gt_job *j = &c->jobs[c->n_jobs];
	memset(j, 0, sizeof(*j));
	j->ns = intern(x, ns);
	j->name = intern(x, name);
	j->queue = GT_NONE;
	j->topo.topology = j->topo.required_level = j->topo.preferred_level = GT_NONE;
	set_job_lookup(x, job_key(x, ns, name), (int32_t)c->n_jobs);
	c->n_jobs++;
	return j;
}

static void set_job_queue(struct ctx *x, struct gt_job *j, const char *queue)
{
	j->queue_name = intern(x, queue);
	j->queue = lookup(x, x->queue_by_name, queue);
	if (j->queue != GT_NONE && x->c->queues[j->queue].priority == INT32_MIN)
		j->queue = GT_NONE;	/* an orphan queue: treated as missing */
}

static int add_podset(struct ctx *x, const struct gt_doc *o, struct gt_job *j, const char *name,
		      int32_t min, const struct gt_topology_constraint *topo)
{
	if (j->n_podsets >= GT_MAX_PODSETS)
		return fail(x, o, "spec.subGroups", "more sub-groups than Gantry supports (64)", NULL);
	j->podsets = gt_xrealloc(j->podsets, (j->n_podsets + 1) * sizeof(*j->podsets));
	struct gt_podset *ps = &j->podsets[j->n_podsets++];
	ps->name = intern(x, name);
	ps->min_member = min;
	ps->group = GT_NONE;
	if (topo)
		ps->topo = *topo;
	else
		ps->topo = (struct gt_topology_constraint){ GT_NONE, GT_NONE, GT_NONE };
	return 0;
}

static bool subgroup_has_children(const struct gt_doc *subs, const char *name)
{
	for (size_t k = 0; k < subs->n; k++) {
		const char *parent = gt_doc_str(subs->items[k], "parent");
		if (parent && !strcmp(parent, name))
			return true;
	}
	return false;
}

/* Inner sub-groups, parents before children; GT_NONE for the root. */
static int32_t group_index(struct ctx *x, const struct gt_job *j, const char *name)
{
	if (!name)
		return GT_NONE;
	uint32_t id = intern(x, name);
	for (uint32_t i = 0; i < j->n_groups; i++)
		if (j->groups[i].name == id)
			return (int32_t)i;
	return GT_NONE;
}

static int decode_inner_groups(struct ctx *x, const struct gt_doc *o, struct gt_job *j,
			       const struct gt_doc *subs)
{
	/* repeat passes so that parents land before their children */
	for (size_t pass = 0; pass <= subs->n; pass++) {
		for (size_t i = 0; i < subs->n; i++) {
			const struct gt_doc *sg = subs->items[i];
			const char *name = gt_doc_str(sg, "name"), *parent = gt_doc_str(sg, "parent");
			if (!name || !subgroup_has_children(subs, name) || group_index(x, j, name) != GT_NONE)
				continue;
			if (parent && group_index(x, j, parent) == GT_NONE)
				continue;
			struct gt_topology_constraint topo;
			int rc = topology_constraint(x, o, gt_doc_get(sg, "topologyConstraint"),
						     "spec.subGroups[].topologyConstraint", &topo);
			if (rc)
				return rc;
			j->groups = gt_xrealloc(j->groups, (j->n_groups + 1) * sizeof(*j->groups));
			j->groups[j->n_groups++] = (struct gt_subgroup){
				.name = intern(x, name), .parent = group_index(x, j, parent), .topo = topo
			};
		}
	}
	for (size_t i = 0; i < subs->n; i++) {
		const char *name = gt_doc_str(subs->items[i], "name");
		if (name && subgroup_has_children(subs, name) && group_index(x, j, name) == GT_NONE)
			return fail(x, o, "spec.subGroups", "cycle detected in subgroups at", name);
	}
	return 0;
}

static int decode_subgroups(struct ctx *x, const struct gt_doc *o, struct gt_job *j,
			    const struct gt_doc *subs)
{
	for (size_t i = 0; i < subs->n; i++) {
		const struct gt_doc *sg = subs->items[i];
		const char *name = gt_doc_str(sg, "name");
		if (!name)
			return fail(x, o, "spec.subGroups[].name", "is missing", NULL);
		for (size_t k = 0; k < i; k++) {
			const char *other = gt_doc_str(subs->items[k], "name");
			if (other && !strcmp(other, name))
				return fail(x, o, "spec.subGroups", "duplicate subgroup name", name);
		}
		bool has_children = subgroup_has_children(subs, name);
		const char *parent = gt_doc_str(sg, "parent");
		if (parent) {
			bool found = false;
			for (size_t k = 0; k < subs->n; k++) {
				const char *other = gt_doc_str(subs->items[k], "name");
				found |= other && !strcmp(other, parent);
			}
			if (!found)
				return fail(x, o, "spec.subGroups[].parent", "parent sub-group not found", parent);
		}
		if (has_children)
			continue;	/* only leaves hold pods */
		int64_t min = 1;
		const char *ms = gt_doc_str(sg, "minMember");
		if (ms && (gt_parse_int(ms, &min) || min < 0))
			return fail(x, o, "spec.subGroups[].minMember", "not a non-negative integer", ms);
		struct gt_topology_constraint topo;
		int rc = topology_constraint(x, o, gt_doc_get(sg, "topologyConstraint"),
					     "spec.subGroups[].topologyConstraint", &topo);
		rc = rc ? rc : add_podset(x, o, j, name, (int32_t)min, &topo);
		if (rc)
			return rc;
		j->podsets[j->n_podsets - 1].group = group_index(x, j, parent);
	}
	return 0;
}

static int decode_podgroup(struct ctx *x, const struct gt_doc *o)
{
	const char *name = obj_name(o), *ns = obj_ns(o);
	if (!*name)
		return fail(x, o, "metadata.name", "is missing", NULL);
	if (find_job(x, ns, name) != GT_NONE)
		return fail(x, o, "metadata.name", "duplicate PodGroup", name);
	const struct gt_doc *spec = gt_doc_get(o, "spec");
	const char *queue = gt_doc_str(spec, "queue");
	if (!queue)
		queue = label_of(o, "kai.scheduler/queue");
	if (!queue)
		return fail(x, o, "spec.queue", "is missing", NULL);
	int64_t min = 1;
	const char *ms = gt_doc_str(spec, "minMember");
	if (ms && (gt_parse_int(ms, &min) || min < 0))
		return fail(x, o, "spec.minMember", "not a non-negative integer", ms);
	const char *pre = gt_doc_str(spec, "preemptibility");
	if (pre && strcmp(pre, "preemptible") && strcmp(pre, "non-preemptible"))
		return fail(x, o, "spec.preemptibility", "must be preemptible or non-preemptible, not", pre);
	struct gt_topology_constraint topo;
	int rc = topology_constraint(x, o, gt_doc_get(spec, "topologyConstraint"),
				     "spec.topologyConstraint", &topo);
	if (rc)
		return rc;
	int64_t created = 0, last_start = 0, stale = 0;
	const char *cs = gt_doc_str(gt_doc_get(o, "metadata"), "creationTimestamp");
	const char *ls = annotation_of(o, "kai.scheduler/last-start-timestamp");
	const char *ss = annotation_of(o, "kai.scheduler/stale-podgroup-timestamp");
	if (cs && gt_parse_time(cs, &created))
		return fail(x, o, "metadata.creationTimestamp", "not an RFC 3339 time", cs);
	if (ls && gt_parse_time(ls, &last_start))
		return fail(x, o, "metadata.annotations.kai.scheduler/last-start-timestamp",
			    "not an RFC 3339 time", ls);
	if (ss && gt_parse_time(ss, &stale))
		return fail(x, o, "metadata.annotations.kai.scheduler/stale-podgroup-timestamp",
			    "not an RFC 3339 time", ss);
	struct gt_job *j = new_job(x, ns, name);
	set_job_queue(x, j, queue);
	bool found;
	const char *pc = gt_doc_str(spec, "priorityClassName");
	if (!pc)
		pc = label_of(o, "priorityClassName");
	j->priority = priority_value(x, pc, &found);
	j->preemptible = pre ? !strcmp(pre, "preemptible") : j->priority < 100;
	j->topo = topo;
	j->created = created;
	j->last_start = last_start;
	j->stale_since = stale;
	const struct gt_doc *subs = gt_doc_get(spec, "subGroups");
	if (subs && subs->kind == GT_DOC_SEQ && subs->n > 0) {
		rc = decode_inner_groups(x, o, j, subs);
		return rc ? rc : decode_subgroups(x, o, j, subs);
	}
	return add_podset(x, o, j, "default", (int32_t)min, NULL);
}

/* ---------------------------------------------------------------- pods */

static int add_request(struct ctx *x, const struct gt_doc *o, struct gt_pod *p,
		       const struct gt_doc *res, const char *field, bool max_not_sum)
{
	for (size_t i = 0; res && res->kind == GT_DOC_MAP && i < res->n; i++) {
		const char *name = res->keys[i];
		const char *val = res->items[i]->kind == GT_DOC_SCALAR ? res->items[i]->scalar : "";
		char f[200];
		snprintf(f, sizeof(f), "%s.%s", field, name);
		int64_t v;
		bool cpu = !strcmp(name, "cpu");
		if ((cpu ? gt_quantity_parse_milli(val, &v) : gt_quantity_parse(val, &v)) || v < 0)
			return fail(x, o, f, "not a valid quantity", val);
		int64_t *dst = NULL;
		if (cpu)
			dst = &p->cpu_milli;
		else if (!strcmp(name, "memory"))
			dst = &p->mem_bytes;
		else if (!strcmp(name, "nvidia.com/gpu")) {
			int64_t whole;
			if (gt_quantity_parse_milli(val, &whole) || whole % 1000)
				return fail(x, o, f, "must be a whole number of GPUs (use the gpu-fraction annotation for a part of one)", val);
			int64_t cur = p->gpus;
			p->gpus = (int32_t)(max_not_sum ? (v > cur ? v : cur) : cur + v);
			continue;
		} else if (is_extended(name)) {
			int e = ext_index(x->c, x, name);
			if (e >= 0)
				dst = &p->ext[e];
		}
		if (!dst)
			continue;
		*dst = max_not_sum ? (v > *dst ? v : *dst) : *dst + v;
	}
	return 0;
}

static int pod_resources(struct ctx *x, const struct gt_doc *o, struct gt_pod *p)
{
	const struct gt_doc *containers = gt_doc_path(o, "spec.containers");
	for (size_t i = 0; containers && containers->kind == GT_DOC_SEQ && i < containers->n; i++) {
		const struct gt_doc *res = gt_doc_get(containers->items[i], "resources");
		const struct gt_doc *req = gt_doc_get(res, "requests");
		const struct gt_doc *lim = gt_doc_get(res, "limits");
		int rc = add_request(x, o, p, req ? req : lim, "spec.containers[].resources.requests", false);
		if (rc)
			return rc;
		/* extended resources may be given as limits only */
		if (req && lim && gt_doc_get(lim, "nvidia.com/gpu") && !gt_doc_get(req, "nvidia.com/gpu")) {
			struct gt_pod tmp = { 0 };
			rc = add_request(x, o, &tmp, lim, "spec.containers[].resources.limits", false);
			if (rc)
				return rc;
			p->gpus += tmp.gpus;
		}
	}
	/* init containers run one at a time: the pod needs the largest of them */
	struct gt_pod init = { 0 };
	const struct gt_doc *inits = gt_doc_path(o, "spec.initContainers");
	for (size_t i = 0; inits && inits->kind == GT_DOC_SEQ && i < inits->n; i++) {
		const struct gt_doc *res = gt_doc_get(inits->items[i], "resources");
		const struct gt_doc *req = gt_doc_get(res, "requests");
		int rc = add_request(x, o, &init, req ? req : gt_doc_get(res, "limits"),
				     "spec.initContainers[].resources.requests", true);
		if (rc)
			return rc;
	}
	p->cpu_milli = init.cpu_milli > p->cpu_milli ? init.cpu_milli : p->cpu_milli;
	p->mem_bytes = init.mem_bytes > p->mem_bytes ? init.mem_bytes : p->mem_bytes;
	p->gpus = init.gpus > p->gpus ? init.gpus : p->gpus;
	return 0;
}

static int gpu_sharing(struct ctx *x, const struct gt_doc *o, struct gt_pod *p)
{
	const char *frac = annotation_of(o, "gpu-fraction");
	const char *mem = annotation_of(o, "gpu-memory");
	const char *ndev = annotation_of(o, "gpu-fraction-num-devices");
	if (frac && !*frac)
		frac = NULL;	/* KAI's own fakes write an empty annotation */
	if (mem && !strcmp(mem, "0"))
		mem = NULL;
	p->num_devices = 1;
	if (frac && mem)
		return fail(x, o, "metadata.annotations", "cannot request both GPU fraction and GPU memory", NULL);
	if (frac) {
		int64_t m;
		if (gt_quantity_parse_milli(frac, &m) || m <= 0 || m > 1000)
			return fail(x, o, "metadata.annotations.gpu-fraction",
				    "must be a number greater than 0 and at most 1, not", frac);
		if (p->gpus > 0)
			return fail(x, o, "metadata.annotations.gpu-fraction",
				    "cannot have both a GPU fraction and a whole GPU request", NULL);
		if (m == 1000)
			p->gpus = 1;	/* KAI treats a fraction of 1 as a whole GPU */
		else
			p->frac_milli = (int32_t)m;
	}
	if (mem) {
		int64_t v;
		if (gt_parse_int(mem, &v) || v <= 0)
			return fail(x, o, "metadata.annotations.gpu-memory",
				    "must be a positive integer (MiB), not", mem);
		if (p->gpus > 0)
			return fail(x, o, "metadata.annotations.gpu-memory",
				    "cannot request both GPU and GPU memory", NULL);
		p->gpu_mem_mib = v;
	}
	if (ndev) {
		int64_t v;
		if (gt_parse_int(ndev, &v) || v <= 0 || v > GT_MAX_DEVICES)
			return fail(x, o, "metadata.annotations.gpu-fraction-num-devices",
				    "must be a positive integer of at most 16, not", ndev);
		if (!p->frac_milli && !p->gpu_mem_mib && v > 1)
			return fail(x, o, "metadata.annotations.gpu-fraction-num-devices",
				    "cannot request multiple fractional devices without a fraction or gpu-memory", NULL);
		p->num_devices = (int32_t)v;
	}
	return 0;
}

static int read_selector_exprs(struct ctx *x, const struct gt_doc *o, const struct gt_doc *exprs,
			       const struct gt_doc *match_labels, struct gt_selector *out)
{
	size_t n = (exprs && exprs->kind == GT_DOC_SEQ ? exprs->n : 0) +
		   (match_labels && match_labels->kind == GT_DOC_MAP ? match_labels->n : 0);
	out->exprs = gt_xcalloc(n + 1, sizeof(*out->exprs));
	for (size_t i = 0; match_labels && match_labels->kind == GT_DOC_MAP && i < match_labels->n; i++) {
		struct gt_sel_expr *e = &out->exprs[out->n_exprs++];
		e->key = intern(x, match_labels->keys[i]);
		e->op = GT_SEL_IN;
		e->vals = gt_xmalloc(sizeof(*e->vals));
		e->vals[0] = intern(x, match_labels->items[i]->scalar ? match_labels->items[i]->scalar : "");
		e->n_vals = 1;
	}
	for (size_t i = 0; exprs && exprs->kind == GT_DOC_SEQ && i < exprs->n; i++) {
		const struct gt_doc *ed = exprs->items[i];
		const char *key = gt_doc_str(ed, "key"), *op = gt_doc_str(ed, "operator");
		if (!key || !op)
			return fail(x, o, "spec.affinity...matchExpressions[]", "needs key and operator", NULL);
		struct gt_sel_expr *e = &out->exprs[out->n_exprs++];
		e->key = intern(x, key);
		if (!strcmp(op, "In"))
			e->op = GT_SEL_IN;
		else if (!strcmp(op, "NotIn"))
			e->op = GT_SEL_NOT_IN;
		else if (!strcmp(op, "Exists"))
			e->op = GT_SEL_EXISTS;
		else if (!strcmp(op, "DoesNotExist"))
			e->op = GT_SEL_NOT_EXISTS;
		else if (!strcmp(op, "Gt"))
			e->op = GT_SEL_GT;
		else if (!strcmp(op, "Lt"))
			e->op = GT_SEL_LT;
		else
			return fail(x, o, "spec.affinity...matchExpressions[].operator", "unknown operator", op);
		const struct gt_doc *vals = gt_doc_get(ed, "values");
		if (vals && vals->kind == GT_DOC_SEQ) {
			e->vals = gt_xcalloc(vals->n + 1, sizeof(*e->vals));
			for (size_t k = 0; k < vals->n; k++)
				e->vals[e->n_vals++] = intern(x, vals->items[k]->scalar ? vals->items[k]->scalar : "");
			if ((e->op == GT_SEL_GT || e->op == GT_SEL_LT) &&
			    (vals->n != 1 || gt_parse_int(vals->items[0]->scalar, &e->num)))
				return fail(x, o, "spec.affinity...matchExpressions[].values",
					    "Gt and Lt take one integer", NULL);
		}
	}
	return 0;
}

static int pod_placement(struct ctx *x, const struct gt_doc *o, struct gt_pod *p)
{
	const struct gt_doc *spec = gt_doc_get(o, "spec");
	read_labels(x, gt_doc_get(spec, "nodeSelector"), &p->node_selector);
	const struct gt_doc *terms = gt_doc_path(spec,
		"affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
	if (terms && terms->kind == GT_DOC_SEQ && terms->n) {
		p->affinity_terms = gt_xcalloc(terms->n, sizeof(*p->affinity_terms));
		for (size_t i = 0; i < terms->n; i++) {
			int rc = read_selector_exprs(x, o, gt_doc_get(terms->items[i], "matchExpressions"),
						     NULL, &p->affinity_terms[p->n_affinity_terms++]);
			if (rc)
				return rc;
		}
	}
	const struct gt_doc *tols = gt_doc_get(spec, "tolerations");
	if (tols && tols->kind == GT_DOC_SEQ && tols->n) {
		p->tolerations = gt_xcalloc(tols->n, sizeof(*p->tolerations));
		for (size_t i = 0; i < tols->n; i++) {
			const struct gt_doc *t = tols->items[i];
			const char *key = gt_doc_str(t, "key"), *op = gt_doc_str(t, "operator");
			const char *val = gt_doc_str(t, "value"), *eff = gt_doc_str(t, "effect");
			struct gt_toleration *tol = &p->tolerations[p->n_tolerations++];
			tol->key = key && *key ? (int64_t)intern(x, key) : -1;
			tol->exists = op && !strcmp(op, "Exists");
			tol->val = intern(x, val ? val : "");
			tol->effect = !eff || !*eff ? GT_TAINT_ANY
				      : !strcmp(eff, "NoSchedule") ? GT_TAINT_NO_SCHEDULE
				      : !strcmp(eff, "PreferNoSchedule") ? GT_TAINT_PREFER_NO_SCHEDULE
									  : GT_TAINT_NO_EXECUTE;
		}
	}
	static const char *const kinds[] = { "podAffinity", "podAntiAffinity" };
	for (int k = 0; k < 2; k++) {
		char path[128];
		snprintf(path, sizeof(path), "affinity.%s.requiredDuringSchedulingIgnoredDuringExecution",
			 kinds[k]);
		const struct gt_doc *pts = gt_doc_path(spec, path);
		if (!pts || pts->kind != GT_DOC_SEQ)
			continue;
		p->pod_affinity = gt_xrealloc(p->pod_affinity,
					      (p->n_pod_affinity + pts->n + 1) * sizeof(*p->pod_affinity));
		for (size_t i = 0; i < pts->n; i++) {
			const struct gt_doc *t = pts->items[i];
			const char *tk = gt_doc_str(t, "topologyKey");
			if (!tk)
				return fail(x, o, "spec.affinity.podAffinity[].topologyKey", "is missing", NULL);
			struct gt_pod_affinity_term *term = &p->pod_affinity[p->n_pod_affinity++];
			memset(term, 0, sizeof(*term));
			term->anti = k == 1;
			term->topology_key = intern(x, tk);
			term->ns = p->ns;
			const struct gt_doc *sel = gt_doc_get(t, "labelSelector");
			int rc = read_selector_exprs(x, o, gt_doc_get(sel, "matchExpressions"),
						     gt_doc_get(sel, "matchLabels"), &term->selector);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static void pod_gpu_groups(struct ctx *x, const struct gt_doc *o, struct gt_pod *p)
{
	const struct gt_doc *labels = gt_doc_path(o, "metadata.labels");
	for (size_t i = 0; labels && labels->kind == GT_DOC_MAP && i < labels->n; i++) {
		const char *k = labels->keys[i];
		const char *v = labels->items[i]->scalar;
		if (!v || p->n_groups >= GT_MAX_DEVICES)
			continue;
		if (!strcmp(k, "runai-gpu-group") || !strncmp(k, "runai-gpu-group/", 16))
			p->groups[p->n_groups++] = intern(x, v);
	}
}

static enum gt_status pod_status(const struct gt_doc *o, bool on_node)
{
	const char *phase = gt_doc_str(gt_doc_get(o, "status"), "phase");
	bool deleting = gt_doc_str(gt_doc_get(o, "metadata"), "deletionTimestamp") != NULL;
	if (phase && !strcmp(phase, "Succeeded"))
		return GT_SUCCEEDED;
	if (phase && !strcmp(phase, "Failed"))
		return GT_FAILED;
	if (deleting && on_node)
		return GT_RELEASING;
	if (phase && !strcmp(phase, "Running"))
		return on_node ? GT_RUNNING : GT_PENDING;
	if (on_node)
		return GT_BOUND;
	const struct gt_doc *gates = gt_doc_path(o, "spec.schedulingGates");
	if (gates && gates->kind == GT_DOC_SEQ && gates->n)
		return GT_GATED;
	return GT_PENDING;
}

static int32_t implicit_job(struct ctx *x, const struct gt_doc *o, struct gt_pod *p)
{
	/* what KAI's default podgrouper makes of a pod without an owner */
	char name[400];
	const char *uid = gt_doc_str(gt_doc_get(o, "metadata"), "uid");
	snprintf(name, sizeof(name), "pg-%s-%s", obj_name(o), uid ? uid : "0");
	struct gt_job *j = new_job(x, obj_ns(o), name);
	const char *queue = label_of(o, "kai.scheduler/queue");
	set_job_queue(x, j, queue ? queue : DEFAULT_QUEUE);
	bool found;
	const char *pc = label_of(o, "priorityClassName");
	if (!pc)
		pc = gt_doc_str(gt_doc_get(o, "spec"), "priorityClassName");
	j->priority = priority_value(x, pc, &found);
	if (!found)
		j->priority = 50;	/* the grouper's fallback class: train */
	const char *pre = label_of(o, "kai.scheduler/preemptibility");
	j->preemptible = pre ? !strcmp(pre, "preemptible") : j->priority < 100;
	j->created = p->created;
	struct gt_doc dummy = { 0 };
	add_podset(x, &dummy, j, "default", 1, NULL);
	return (int32_t)(j - x->c->jobs);
}

static int decode_claim(struct ctx *x, const struct gt_doc *o)
{
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", obj_ns(o), obj_name(o));
	set_lookup(x, &x->claim_by_name, key, 0);
	return 0;
}

/*
 * The first PersistentVolumeClaim the pod mounts that the input does not
 * hold (KAI's VolumeBinding pre-filter: 'persistentvolumeclaim "x" not
 * found'), when the front end lists claims (gt_decoder.claims_listed).
 */
static void pod_claims(struct ctx *x, const struct gt_doc *o, struct gt_pod *p)
{
	const struct gt_doc *vols = gt_doc_path(o, "spec.volumes");
	for (size_t i = 0; x->d->claims_listed && vols && vols->kind == GT_DOC_SEQ && i < vols->n; i++) {
		const char *claim = gt_doc_str(gt_doc_get(vols->items[i], "persistentVolumeClaim"), "claimName");
		char key[600];
		if (!claim)
			continue;
		snprintf(key, sizeof(key), "%s/%s", obj_ns(o), claim);
		if (lookup(x, x->claim_by_name, key) == GT_NONE) {
			p->claim_missing = true;
			p->missing_claim = intern(x, claim);
			return;
		}
	}
}

static int decode_pod(struct ctx *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	const char *name = obj_name(o);
	if (!*name)
		return fail(x, o, "metadata.name", "is missing", NULL);
	GT_GROW(c->pods, c->n_pods + 1, c->cap_pods);
	struct gt_pod *p = &c->pods[c->n_pods];
	memset(p, 0, sizeof(*p));
	c->n_pods++;
	p->ns = intern(x, obj_ns(o));
	p->name = intern(x, name);
	p->job = GT_NONE;
	p->node = GT_NONE;
	p->nominated_node = -1;
	const char *sched = gt_doc_str(gt_doc_get(o, "spec"), "schedulerName");
	p->ours = sched && !strcmp(sched, x->d->scheduler_name);
	const char *app = label_of(o, "app");
	p->reservation = app && !strcmp(app, "kai-resource-reservation");
	const char *cs = gt_doc_str(gt_doc_get(o, "metadata"), "creationTimestamp");
	if (cs && gt_parse_time(cs, &p->created))
		return fail(x, o, "metadata.creationTimestamp", "not an RFC 3339 time", cs);
	read_labels(x, gt_doc_path(o, "metadata.labels"), &p->labels);
	pod_claims(x, o, p);
	int rc = pod_resources(x, o, p);
	rc = rc ? rc : gpu_sharing(x, o, p);
	rc = rc ? rc : pod_placement(x, o, p);
	if (rc)
		return rc;
	const char *node = gt_doc_str(gt_doc_get(o, "spec"), "nodeName");
	if (node) {
		p->node = lookup(x, x->node_by_name, node);
		if (p->node == GT_NONE)
			warn(x->d, "pod %s: spec.nodeName '%s' is not a known node; treated as unscheduled",
			     name, node);
	}
	/* a finished pod keeps its node for the record; it holds nothing there */
	p->status = pod_status(o, p->node != GT_NONE);
	pod_gpu_groups(x, o, p);
	if (gt_pod_is_shared(p) && gt_status_active_used(p->status) && p->n_groups == 0) {
		char g[300];
		snprintf(g, sizeof(g), "%s/%s-own-gpu", obj_ns(o), name);
		p->groups[p->n_groups++] = intern(x, g);
	}
	const char *nominated = gt_doc_str(gt_doc_get(o, "status"), "nominatedNodeName");
	if (nominated)
		p->nominated_node = lookup(x, x->node_by_name, nominated);
	const char *tp = label_of(o, "kai.scheduler/task-priority");
	int64_t v;
	if (tp) {
		/* KAI orders labelled pods first; a value that is no integer comes last of them */
		p->has_task_prio = true;
		p->task_prio = gt_parse_int(tp, &v) || v < INT32_MIN || v > INT32_MAX ? INT32_MIN : (int32_t)v;
	}
	const char *role = label_of(o, "training.kubeflow.org/job-role");
	const char *ray = label_of(o, "ray.io/node-type");
	p->role_first = (role && (!strcmp(role, "master") || !strcmp(role, "launcher"))) ||
			(ray && !strcmp(ray, "head"));
	if (!p->ours && p->node == GT_NONE)
		return 0;	/* another scheduler's pending pod: not ours to place */
	const char *pg = annotation_of(o, "pod-group-name");
	if (pg) {
		p->job = find_job(x, obj_ns(o), pg);
		if (p->job == GT_NONE && p->ours)
			warn(x->d, "pod %s: PodGroup '%s' does not exist; the pod waits for it", name, pg);
	} else if (p->ours) {
		p->job = implicit_job(x, o, p);
	}
	if (p->job == GT_NONE)
		return 0;
	struct gt_job *j = &c->jobs[p->job];
	const char *sg = label_of(o, "kai.scheduler/subgroup-name");
	uint32_t want = intern(x, sg ? sg : "default");
	p->podset = -1;
	for (uint32_t i = 0; i < j->n_podsets; i++)
		if (j->podsets[i].name == want)
			p->podset = (int32_t)i;
	if (p->podset < 0) {
		if (sg && j->n_podsets && strcmp(sg, "default"))
			return fail(x, o, "metadata.labels.kai.scheduler/subgroup-name",
				    "names no sub-group of its PodGroup", sg);
		struct gt_doc dummy = { 0 };
		rc = add_podset(x, &dummy, j, "default", 0, NULL);
		if (rc)
			return rc;
		p->podset = (int32_t)j->n_podsets - 1;
	}
	if (gt_doc_str(gt_doc_get(o, "metadata"), "deletionTimestamp") && p->node == GT_NONE)
		j->deleting = true;
	return 0;
}

/* ---------------------------------------------------------------- build */

static int decode_priority_class(struct ctx *x, const struct gt_doc *o)
{
	const char *v = gt_doc_str(o, "value");
	int64_t val;
	if (!v || gt_parse_int(v, &val))
		return fail(x, o, "value", "must be an integer", v);
	set_lookup(x, &x->prio_by_name, obj_name(o), 0);
	x->prio_value[intern(x, obj_name(o))] = (int32_t)val;
	if (parse_bool(gt_doc_str(o, "globalDefault"), false)) {
		x->default_priority = (int32_t)val;
		x->have_default_priority = true;
	}
	return 0;
}

static bool is_kind(const struct gt_doc *o, const char *kind)
{
	return !strcmp(obj_kind(o), kind);
}

static int decode_all(struct ctx *x)
{
	struct gt_decoder *d = x->d;
	int rc = 0;
	struct gt_doc **queues = gt_xmalloc((d->n_objs + 1) * sizeof(*queues));
	size_t n_queues = 0;
	/* dependencies first: classes, shard, topologies, queues, nodes, groups, pods */
	static const char *const order[] = { "PriorityClass", "SchedulingShard", "Topology",
					     "Queue", "Node", "PodGroup", "Pod",
					     "PersistentVolumeClaim" };
	for (size_t i = 0; i < d->n_objs; i++)	/* claims before the pods that mount them */
		if (is_kind(d->objs[i], "PersistentVolumeClaim"))
			decode_claim(x, d->objs[i]);
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]) && !rc; k++) {
		for (size_t i = 0; i < d->n_objs && !rc; i++) {
			const struct gt_doc *o = d->objs[i];
			if (!is_kind(o, order[k]))
				continue;
			switch (k) {
			case 0: rc = decode_priority_class(x, o); break;
			case 1: rc = decode_shard(x, o); break;
			case 2: rc = decode_topology(x, o); break;
			case 3:
				rc = decode_queue(x, o);
				queues[n_queues++] = d->objs[i];
				break;
			case 4: rc = decode_node(x, o); break;
			case 5: rc = decode_podgroup(x, o); break;
			case 6: rc = decode_pod(x, o); break;
			}
		}
		if (k == 3 && !rc)
			link_queue_parents(x, queues, n_queues);
	}
	/* one line for all unknown kinds: workload owners (Jobs, PyTorchJobs, ...) are common input */
	char kinds[1024] = "";
	size_t off = 0, n_unknown = 0;
	for (size_t i = 0; i < d->n_objs && !rc; i++) {
		const char *kind = obj_kind(d->objs[i]);
		bool known = false, seen = false;
		for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
			known |= !strcmp(kind, order[k]);
		if (known)
			continue;
		n_unknown++;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(kind, obj_kind(d->objs[k]));
		if (!seen && off < sizeof(kinds))
			off += (size_t)snprintf(kinds + off, sizeof(kinds) - off, "%s%s", off ? ", " : "",
						*kind ? kind : "(no kind)");
	}
	if (n_unknown) {
		char count[32];
		snprintf(count, sizeof(count), "%zu", n_unknown);
		warn(d, "ignoring %s objects of kinds the scheduler does not read (%s); pods are grouped "
			"from their owners among them", count, kinds);
	}
	free(queues);
	return rc;
}

int gt_decoder_build(struct gt_decoder *d, struct gt_cluster *c, struct gt_err *err)
{
	struct ctx x = { .d = d, .c = c, .names = c->names, .err = err };
	grow_lookup(&x);
	int rc = decode_all(&x);
	/* orphan queues were marked with INT32_MIN; restore a sane priority */
	for (uint32_t q = 0; q < c->n_queues; q++)
		if (c->queues[q].priority == INT32_MIN)
			c->queues[q].priority = 100;
	free(x.queue_by_name);
	free(x.node_by_name);
	free(x.topo_by_name);
	free(x.prio_by_name);
	free(x.prio_value);
	free(x.job_by_key);
	free(x.claim_by_name);
	if (rc) {
		gt_cluster_release(c);
		return rc;
	}
	gt_cluster_link(c);
	return 0;
}
