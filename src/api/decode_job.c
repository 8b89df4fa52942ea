/*
 * decode_job.c - PodGroups (with their sub-group trees and topology
 * constraints), and the job KAI's podgrouper would make for a bare pod
 */
#include "api/decode_int.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/concat.h"
#include "util/mem.h"
#include "util/time.h"

/* The PriorityClasses KAI ships; used when the input does not define them. */
static const struct {
	const char *name;
	int32_t value;
} shipped_priorities[] = {
	{ "train", 50 }, { "build-preemptible", 75 }, { "build", 100 }, { "inference", 125 },
};

/* ---------------------------------------------------------------- lookups */

static int32_t priority_value(struct gt_dec *x, const char *class_name, bool *found)
{
	*found = false;
	if (class_name && *class_name) {
		if (gt_dec_lookup(x, x->prio_by_name, class_name) != GT_NONE) {
			*found = true;
			return x->prio_value[gt_dec_intern(x, class_name)];
		}
		for (size_t k = 0; k < sizeof(shipped_priorities) / sizeof(shipped_priorities[0]); k++)
			if (!strcmp(shipped_priorities[k].name, class_name)) {
				*found = true;
				return shipped_priorities[k].value;
			}
	}
	return x->have_default_priority ? x->default_priority : 50;
}

static void job_key(const char *ns, const char *name, char *buf, size_t len)
{
	gt_dec_ns_key(buf, len, ns, name);
}

int32_t gt_dec_find_job(struct gt_dec *x, const char *ns, const char *name)
{
	char key[512];
	job_key(ns, name, key, sizeof(key));
	int64_t id = gt_strtab_find(x->names, key);
	if (id < 0 || (size_t)id >= x->n_job_lookup)
		return GT_NONE;
	return (int32_t)x->job_by_key[id] - 1;
}

/* A job of @ns/@name, not yet in the cluster; *@key: its lookup key's id. */
static void job_init(struct gt_dec *x, struct gt_job *j, const char *ns, const char *name, uint32_t *key)
{
	memset(j, 0, sizeof(*j));
	j->ns = gt_dec_intern(x, ns);
	j->name = gt_dec_intern(x, name);
	j->queue = GT_NONE;
	j->topo = (struct gt_topology_constraint){ GT_NONE, GT_NONE, GT_NONE };
	char k[512];
	job_key(ns, name, k, sizeof(k));
	*key = gt_dec_intern(x, k);
}

/* Add @j to the cluster, findable under @key, from object @obj (GT_NONE: none). */
static int32_t job_commit(struct gt_dec *x, const struct gt_job *j, uint32_t key, int32_t obj)
{
	struct gt_cluster *c = x->c;
	if (key >= x->n_job_lookup) {
		size_t n = (key + 1) * 2;
		x->job_by_key = gt_xrealloc(x->job_by_key, n * sizeof(*x->job_by_key));
		memset(x->job_by_key + x->n_job_lookup, 0, (n - x->n_job_lookup) * sizeof(*x->job_by_key));
		x->n_job_lookup = n;
	}
	x->job_by_key[key] = (int64_t)c->n_jobs + 1;
	gt_dec_source(x, 2, c->n_jobs, obj);
	GT_PUSH(c->jobs, c->n_jobs, c->cap_jobs, *j);
	return (int32_t)c->n_jobs - 1;
}

static void set_job_queue(struct gt_dec *x, struct gt_job *j, const char *queue)
{
	j->queue_name = gt_dec_intern(x, queue);
	j->queue = gt_dec_lookup(x, x->queue_by_name, queue);
	if (j->queue != GT_NONE && x->orphan_queue && x->orphan_queue[j->queue])
		j->queue = GT_NONE;	/* an orphan queue: treated as missing */
	if (j->queue == GT_NONE)
		j->queue_problem = gt_smap_get(&x->queue_problem, queue);	/* why, when known */
}

int gt_dec_add_podset(struct gt_dec *x, const struct gt_doc *o, struct gt_job *j, const char *name,
		      int32_t min, const struct gt_topology_constraint *topo)
{
	if (j->n_podsets >= GT_MAX_PODSETS)
		return gt_dec_fail(x, o, "spec.subGroups", "more leaf sub-groups than Gantry supports (" GT_STR(GT_MAX_PODSETS) ")", NULL);
	j->podsets = gt_xrealloc(j->podsets, (j->n_podsets + 1) * sizeof(*j->podsets));
	struct gt_podset *ps = &j->podsets[j->n_podsets++];
	ps->name = gt_dec_intern(x, name);
	ps->min_member = min;
	ps->group = GT_NONE;
	ps->topo = topo ? *topo : (struct gt_topology_constraint){ GT_NONE, GT_NONE, GT_NONE };
	return 0;
}

/* ---------------------------------------------------------------- topology constraints */

static int topology_constraint(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *tc,
			       const char *field, struct gt_topology_constraint *out)
{
	out->topology = out->required_level = out->preferred_level = GT_NONE;
	const char *topo = gt_doc_str(tc, "topology");
	if (!topo)
		return 0;
	int32_t t = gt_dec_lookup(x, x->topo_by_name, topo);
	out->topology = t;
	if (t == GT_NONE)
		return 0;	/* reported on the job by the core */
	const char *req = gt_doc_str(tc, "requiredTopologyLevel");
	const char *pref = gt_doc_str(tc, "preferredTopologyLevel");
	const struct gt_topology *tp = &x->c->topologies[t];
	/* a level by its node label or by its alias (Topology spec.levels[].alias) */
	for (uint32_t i = 0; i < tp->n_levels; i++) {
		const char *l = gt_strtab_str(x->names, tp->levels[i]);
		const char *a = tp->aliases[i] != GT_NO_ALIAS ? gt_strtab_str(x->names, tp->aliases[i]) : NULL;
		if (req && (!strcmp(req, l) || (a && !strcmp(req, a))))
			out->required_level = (int32_t)i;
		if (pref && (!strcmp(pref, l) || (a && !strcmp(pref, a))))
			out->preferred_level = (int32_t)i;
	}
	char f[160];
	if (req && out->required_level == GT_NONE) {
		snprintf(f, sizeof(f), "%s.requiredTopologyLevel", field);
		return gt_dec_fail(x, o, f, "is neither a level nor an alias of the topology", req);
	}
	if (pref && out->preferred_level == GT_NONE) {
		snprintf(f, sizeof(f), "%s.preferredTopologyLevel", field);
		return gt_dec_fail(x, o, f, "is neither a level nor an alias of the topology", pref);
	}
	return 0;
}

/* ---------------------------------------------------------------- sub-groups */

static bool subgroup_has_children(const struct gt_doc *subs, const char *name)
{
	for (size_t k = 0; k < subs->n; k++) {
		const char *parent = gt_doc_str(subs->items[k], "parent");
		if (parent && !strcmp(parent, name))
			return true;
	}
	return false;
}

/* A minSubGroup value: a whole number from 1 (0 when absent). */
static int min_subgroup(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *set, const char *field,
			int32_t *out)
{
	*out = 0;
	const char *v = gt_doc_str(set, "minSubGroup");
	int64_t n;
	if (!v)
		return 0;
	if (gt_parse_int(v, &n) || n < 1 || n > INT32_MAX)
		return gt_dec_fail(x, o, field, "not a whole number from 1", v);
	*out = (int32_t)n;
	return 0;
}

/* Inner sub-groups, parents before children; GT_NONE for the root. */
static int32_t group_index(struct gt_dec *x, const struct gt_job *j, const char *name)
{
	if (!name)
		return GT_NONE;
	uint32_t id = gt_dec_intern(x, name);
	for (uint32_t i = 0; i < j->n_groups; i++)
		if (j->groups[i].name == id)
			return (int32_t)i;
	return GT_NONE;
}

static int inner_groups(struct gt_dec *x, const struct gt_doc *o, struct gt_job *j, const struct gt_doc *subs)
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
			int32_t min;
			int rc = topology_constraint(x, o, gt_doc_get(sg, "topologyConstraint"),
						     "spec.subGroups[].topologyConstraint", &topo);
			rc = rc ? rc : min_subgroup(x, o, sg, "spec.subGroups[].minSubGroup", &min);
			if (rc)
				return rc;
			if (j->n_groups >= GT_MAX_PODSETS)
				return gt_dec_fail(x, o, "spec.subGroups",
						   "more inner sub-groups than Gantry supports (" GT_STR(GT_MAX_PODSETS) ")", NULL);
			j->groups = gt_xrealloc(j->groups, (j->n_groups + 1) * sizeof(*j->groups));
			j->groups[j->n_groups++] = (struct gt_subgroup){ .name = gt_dec_intern(x, name),
									 .parent = group_index(x, j, parent),
									 .min_subgroup = min,
									 .topo = topo };
		}
	}
	for (size_t i = 0; i < subs->n; i++) {
		const char *name = gt_doc_str(subs->items[i], "name");
		if (name && subgroup_has_children(subs, name) && group_index(x, j, name) == GT_NONE)
			return gt_dec_fail(x, o, "spec.subGroups", "cycle detected in subgroups at", name);
	}
	return 0;
}

/* A sub-group's name is there and unique, and its parent exists. */
static int check_subgroup(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *subs, size_t i)
{
	const char *name = gt_doc_str(subs->items[i], "name");
	if (!name)
		return gt_dec_fail(x, o, "spec.subGroups[].name", "is missing", NULL);
	for (size_t k = 0; k < i; k++) {
		const char *other = gt_doc_str(subs->items[k], "name");
		if (other && !strcmp(other, name))
			return gt_dec_fail(x, o, "spec.subGroups", "duplicate subgroup name", name);
	}
	const char *parent = gt_doc_str(subs->items[i], "parent");
	if (!parent)
		return 0;
	for (size_t k = 0; k < subs->n; k++) {
		const char *other = gt_doc_str(subs->items[k], "name");
		if (other && !strcmp(other, parent))
			return 0;
	}
	return gt_dec_fail(x, o, "spec.subGroups[].parent", "parent sub-group not found", parent);
}

/* The leaf sub-groups: one podset each. */
static int leaf_subgroups(struct gt_dec *x, const struct gt_doc *o, struct gt_job *j, const struct gt_doc *subs)
{
	for (size_t i = 0; i < subs->n; i++) {
		const struct gt_doc *sg = subs->items[i];
		int rc = check_subgroup(x, o, subs, i);
		if (rc)
			return rc;
		const char *name = gt_doc_str(sg, "name");
		if (subgroup_has_children(subs, name))
			continue;	/* only leaves hold pods */
		if (gt_doc_str(sg, "minSubGroup"))
			gt_dec_warn(x, "PodGroup %s: spec.subGroups[].minSubGroup of '%s' is ignored: that sub-group has "
				    "no sub-groups of its own (its minMember counts, as in KAI)",
				    gt_obj_name(o), name);
		int64_t min = 1;
		const char *ms = gt_doc_str(sg, "minMember");
		if (ms && (gt_parse_int(ms, &min) || min < 0 || min > INT32_MAX))
			return gt_dec_fail(x, o, "spec.subGroups[].minMember", "not a non-negative integer", ms);
		struct gt_topology_constraint topo;
		rc = topology_constraint(x, o, gt_doc_get(sg, "topologyConstraint"),
					 "spec.subGroups[].topologyConstraint", &topo);
		rc = rc ? rc : gt_dec_add_podset(x, o, j, name, (int32_t)min, &topo);
		if (rc)
			return rc;
		j->podsets[j->n_podsets - 1].group = group_index(x, j, gt_doc_str(sg, "parent"));
	}
	return 0;
}

/* No set asks for more of its direct members than it has. */
static int check_min_subgroups(struct gt_dec *x, const struct gt_doc *o, const struct gt_job *j)
{
	for (int32_t g = -1; g < (int32_t)j->n_groups; g++) {
		int32_t want = g < 0 ? j->min_subgroup : j->groups[g].min_subgroup, members = 0;
		int32_t set = g < 0 ? GT_NONE : g;
		for (uint32_t ps = 0; ps < j->n_podsets; ps++)
			members += j->podsets[ps].group == set;
		for (uint32_t c = 0; c < j->n_groups; c++)
			members += j->groups[c].parent == set;
		if (want > members) {
			char v[32];
			snprintf(v, sizeof(v), "%d", want);
			return gt_dec_fail(x, o, g < 0 ? "spec.minSubGroup" : "spec.subGroups[].minSubGroup",
					   "is more than the set's direct sub-groups", v);
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- PodGroups */

/* The PodGroup's spec and times, checked before anything is made of it. */
struct pg_fields {
	const char *queue, *pre;
	int64_t min, created, last_start, stale, last_eviction, reserved_since;
	int64_t max_runtime, expected_runtime;	/* gantry.dev/max-runtime, expected-runtime; 0 none */
	int64_t staleness_grace, preemption_delay;
	bool has_staleness_grace, has_preemption_delay;
	bool single_attempt, attempt_spent;	/* spec.schedulingBackoff */
	struct gt_topology_constraint topo;
};

/*
 * KAI's schedulingBackoff: -1 (the default) tries a PodGroup every cycle;
 * any other value gives it one attempt per node pool: once its last
 * scheduling condition (by transitionID) is its own pool's, KAI's cache
 * leaves it out (cluster_info.isPodGroupUpForScheduler).
 */
static int scheduling_backoff(struct gt_dec *x, const struct gt_doc *o, struct pg_fields *f)
{
	const char *v = gt_doc_str(gt_doc_get(o, "spec"), "schedulingBackoff");
	int64_t n = -1;
	if (v && (gt_parse_int(v, &n) || n < INT32_MIN || n > INT32_MAX))
		return gt_dec_fail(x, o, "spec.schedulingBackoff", "not an integer", v);
	f->single_attempt = n != -1;
	f->attempt_spent = false;
	if (!f->single_attempt)
		return 0;
	const struct gt_doc *conds = gt_doc_path(o, "status.schedulingConditions"), *last = NULL;
	int64_t last_id = -1;
	for (size_t i = 0; conds && conds->kind == GT_DOC_SEQ && i < conds->n; i++) {
		int64_t id;
		const char *t = gt_doc_str(conds->items[i], "transitionID");
		if (!t || gt_parse_int(t, &id))
			id = -1;
		if (!last || id > last_id) {
			last = conds->items[i];
			last_id = id;
		}
	}
	if (!last)
		return 0;
	const char *key = x->d->pool_label_key ? x->d->pool_label_key : "kai.scheduler/node-pool";
	const char *pool = gt_obj_label(o, key), *had = gt_doc_str(last, "nodePool");
	f->attempt_spent = !strcmp(had ? had : "", pool ? pool : "default");
	if (f->attempt_spent)
		gt_dec_note(x, o, "spec.schedulingBackoff", "%s: one scheduling attempt per node pool, and node pool "
			    "'%s' has had it (status.schedulingConditions): its pods are not tried again, as in KAI", v,
			    pool ? pool : "default");
	return 0;
}

/* A metav1.Duration field of the spec ("90s", "-1s"); *@given says whether it is there. */
static int spec_duration(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *spec, const char *key,
			 int64_t *out, bool *given)
{
	*out = 0;
	const char *v = gt_doc_str(spec, key);
	*given = v != NULL;
	if (v && gt_duration_parse_whole(v, out)) {
		char field[64];
		snprintf(field, sizeof(field), "spec.%s", key);
		return gt_dec_fail(x, o, field, "not a duration such as 90s or 5m", v);
	}
	return 0;
}

static int podgroup_fields(struct gt_dec *x, const struct gt_doc *o, struct pg_fields *f)
{
	const struct gt_doc *spec = gt_doc_get(o, "spec");
	f->queue = gt_doc_str(spec, "queue");
	if (!f->queue)
		f->queue = gt_obj_label(o, "kai.scheduler/queue");
	if (!f->queue)
		return gt_dec_fail(x, o, "spec.queue", "is missing", NULL);
	f->min = 1;
	const char *ms = gt_doc_str(spec, "minMember");
	if (ms && (gt_parse_int(ms, &f->min) || f->min < 0 || f->min > INT32_MAX))
		return gt_dec_fail(x, o, "spec.minMember", "not a non-negative integer", ms);
	f->pre = gt_doc_str(spec, "preemptibility");
	if (f->pre && strcmp(f->pre, "preemptible") && strcmp(f->pre, "non-preemptible"))
		return gt_dec_fail(x, o, "spec.preemptibility", "must be preemptible or non-preemptible, not", f->pre);
	int rc = topology_constraint(x, o, gt_doc_get(spec, "topologyConstraint"), "spec.topologyConstraint",
				     &f->topo);
	rc = rc ? rc : spec_duration(x, o, spec, "stalenessGracePeriod", &f->staleness_grace, &f->has_staleness_grace);
	rc = rc ? rc : spec_duration(x, o, spec, "preemptionDelay", &f->preemption_delay, &f->has_preemption_delay);
	rc = rc ? rc : scheduling_backoff(x, o, f);
	if (rc)
		return rc;
	static const struct {
		const char *annotation, *field;
		size_t off;
	} times[] = {
		{ NULL, "metadata.creationTimestamp", offsetof(struct pg_fields, created) },
		{ "kai.scheduler/last-start-timestamp", NULL, offsetof(struct pg_fields, last_start) },
		{ "kai.scheduler/stale-podgroup-timestamp", NULL, offsetof(struct pg_fields, stale) },
		{ "kai.scheduler/last-eviction-timestamp", NULL, offsetof(struct pg_fields, last_eviction) },
		{ "gantry.dev/reserved-since", NULL, offsetof(struct pg_fields, reserved_since) },
	};
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		const char *v = times[i].annotation ? gt_obj_annotation(o, times[i].annotation)
						    : gt_doc_str(gt_doc_get(o, "metadata"), "creationTimestamp");
		int64_t *out = (int64_t *)((char *)f + times[i].off);
		*out = 0;
		if (v && gt_time_parse(v, out)) {
			char field[160];
			snprintf(field, sizeof(field), "%s%s", times[i].field ? times[i].field : "metadata.annotations.",
				 times[i].field ? "" : times[i].annotation);
			return gt_dec_fail(x, o, field, "not an RFC 3339 time", v);
		}
	}
	static const struct {
		const char *annotation;
		size_t off;
	} runtimes[] = {
		{ "gantry.dev/max-runtime", offsetof(struct pg_fields, max_runtime) },
		{ "gantry.dev/expected-runtime", offsetof(struct pg_fields, expected_runtime) },
	};
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		const char *v = gt_obj_annotation(o, runtimes[i].annotation);
		int64_t *out = (int64_t *)((char *)f + runtimes[i].off);
		*out = 0;
		if (v && (gt_duration_parse_whole(v, out) || *out <= 0)) {
			/* Gantry's own annotation: a bad one is said and left out, the PodGroup stays */
			char field[96];
			snprintf(field, sizeof(field), "metadata.annotations.%s", runtimes[i].annotation);
			gt_dec_note(x, o, field, "not a positive duration such as 2h or 90m: '%s' (not used)", v);
			*out = 0;
		}
	}
	return 0;
}

int gt_dec_podgroup(struct gt_dec *x, const struct gt_doc *o)
{
	const char *name = gt_obj_name(o), *ns = gt_obj_ns(o);
	struct pg_fields f;
	int rc = podgroup_fields(x, o, &f);
	if (rc)
		return rc;
	struct gt_job j;
	uint32_t key;
	job_init(x, &j, ns, name, &key);
	set_job_queue(x, &j, f.queue);
	bool found;
	const char *pc = gt_doc_str(gt_doc_get(o, "spec"), "priorityClassName");
	if (!pc)
		pc = gt_obj_label(o, "priorityClassName");
	j.priority = priority_value(x, pc, &found);
	j.preemptible = f.pre ? !strcmp(f.pre, "preemptible") : j.priority < 100;
	j.topo = f.topo;
	j.created = f.created;
	j.last_start = f.last_start;
	j.stale_since = f.stale;
	j.last_eviction = f.last_eviction;
	j.reserved_since = f.reserved_since;
	j.max_runtime_s = f.max_runtime;
	if (!j.max_runtime_s && j.queue != GT_NONE)	/* queues are decoded before PodGroups */
		j.max_runtime_s = x->c->queues[j.queue].default_max_runtime_s;
	j.expected_runtime_s = f.expected_runtime;
	j.has_staleness_grace = f.has_staleness_grace;
	j.staleness_grace_s = f.staleness_grace;
	j.has_preemption_delay = f.has_preemption_delay;
	j.preemption_delay_s = f.preemption_delay;
	j.single_attempt = f.single_attempt;
	j.attempt_spent = f.attempt_spent;
	const struct gt_doc *subs = gt_doc_path(o, "spec.subGroups");
	if (subs && subs->kind == GT_DOC_SEQ && subs->n > 0) {
		rc = inner_groups(x, o, &j, subs);
		rc = rc ? rc : leaf_subgroups(x, o, &j, subs);
		rc = rc ? rc : min_subgroup(x, o, gt_doc_get(o, "spec"), "spec.minSubGroup", &j.min_subgroup);
		rc = rc ? rc : check_min_subgroups(x, o, &j);
	} else if (gt_doc_str(gt_doc_get(o, "spec"), "minSubGroup")) {
		rc = gt_dec_fail(x, o, "spec.minSubGroup", "needs spec.subGroups to count", NULL);
	} else {
		rc = gt_dec_add_podset(x, o, &j, "default", (int32_t)f.min, NULL);
	}
	if (rc) {
		gt_job_release(&j);
		return rc;
	}
	job_commit(x, &j, key, (int32_t)x->obj);
	return 0;
}

int32_t gt_dec_implicit_job(struct gt_dec *x, const struct gt_doc *o, int64_t created)
{
	char name[400];
	const char *uid = gt_doc_str(gt_doc_get(o, "metadata"), "uid");
	snprintf(name, sizeof(name), "pg-%s-%s", gt_obj_name(o), uid ? uid : "0");
	struct gt_job j;
	uint32_t key;
	job_init(x, &j, gt_obj_ns(o), name, &key);
	const char *queue = gt_obj_label(o, "kai.scheduler/queue");
	set_job_queue(x, &j, queue ? queue : GT_DEC_DEFAULT_QUEUE);
	bool found;
	const char *pc = gt_obj_label(o, "priorityClassName");
	if (!pc)
		pc = gt_doc_str(gt_doc_get(o, "spec"), "priorityClassName");
	j.priority = priority_value(x, pc, &found);
	if (!found)
		j.priority = 50;	/* the grouper's fallback class: train */
	const char *pre = gt_obj_label(o, "kai.scheduler/preemptibility");
	j.preemptible = pre ? !strcmp(pre, "preemptible") : j.priority < 100;
	j.created = created;
	gt_dec_add_podset(x, o, &j, "default", 1, NULL);
	return job_commit(x, &j, key, GT_NONE);
}
