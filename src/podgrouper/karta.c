/*
 * karta.c - KAI's generic fallback: kinds described by a Karta
 *
 * A Karta (run.ai/v1alpha1, cluster-scoped) describes a workload kind to
 * tools that do not know it: its components (a root, the kind itself, and
 * children such as "coordinator" and "worker"), where each component's
 * replica count lives in the workload, which pods belong to it, and how its
 * pods are gang-scheduled. KAI v0.17 (pkg/podgrouper/podgrouper/plugins/
 * karta, with --generic-karta-fallback, on by default) uses it for a top
 * owner whose group/version/kind has no rule of its own:
 *
 *  - the Karta is found by its labels run.ai/karta-group, run.ai/karta-
 *    version and run.ai/karta-kind and must describe exactly that kind
 *    (spec.structureDefinition.rootComponent.kind); one being deleted, one
 *    without gangScheduling instructions and one that is not valid are
 *    passed over; when several remain, none is used (hub.go);
 *  - gangScheduling.podGroup: one PodGroup, pg-<uid>-<name>, with a
 *    sub-group per listed component (its subtree's scale; a pod joins the
 *    first whose subtree its labels select) and minSubGroup = their number,
 *    or, without sub-groups, minMember = the whole workload's scale;
 *    topology from the instruction;
 *  - gangScheduling.podGroups (the older form): the pod's component (the
 *    leaf whose selector matches it), the first member definition of it or
 *    of an ancestor whose filters the pod passes, a PodGroup
 *    pg-<uid>-<groupByKeyPaths values joined by "-"> of that member's
 *    subtree scale (of the pod's own instance when the member is its
 *    component);
 *  - otherwise the default rule (queue, priority, labels, ...) applies.
 *
 * A component's scale, as run-ai/karta computes it (pkg/instructions): when
 * any component has a scaleDefinition, per instance minReplicas if > 0, else
 * replicas if > 0, else 0, summed over instances; a parent's scale times its
 * children's sum, or whichever of the two is not 0. When no component has
 * one, the number of pod-defining components (times their instances) in the
 * subtree. The paths are jq, evaluated on the workload (scale, instance
 * ids) or on the pod (selectors, filters, grouping keys): jq.h lists what
 * Gantry evaluates.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"
#include "podgrouper/jq.h"
#include "util/mem.h"

#define KARTA_GROUP_LABEL "run.ai/karta-group"
#define KARTA_VERSION_LABEL "run.ai/karta-version"
#define KARTA_KIND_LABEL "run.ai/karta-kind"
#define MAX_COMPONENTS 256
#define MAX_SCALE INT32_MAX

struct component {
	const struct gt_doc *def;
	const char *name;
	const char *owner;	/* ownerRef, NULL for the root */
	int parent;		/* index, -1 for the root */
	bool pods;		/* a specDefinition of pods */
	bool scale;		/* a scaleDefinition */
	struct gt_jq *replicas, *min_replicas, *max_replicas, *instance_ids;
	bool selector;		/* a podSelector */
	struct gt_jq *type_key;	/* podSelector.componentTypeSelector.keyPath */
	const char *type_value;	/* its value, or NULL: the key must exist */
	struct gt_jq *instance_key;	/* podSelector.componentInstanceSelector.idPath */
};

struct member {
	const char *group;	/* the pod group's name */
	const char *component;
	size_t at;		/* podGroups[at] */
	struct gt_jq **group_by, **filters;
	size_t n_group_by, n_filters;
};

struct karta {
	const struct gt_doc *doc;
	struct component *c;	/* c[0] is the root */
	size_t n;
	bool any_scale;
	const struct gt_doc *pod_group;	/* gangScheduling.podGroup, or NULL */
	struct member *members;	/* of gangScheduling.podGroups, in order */
	size_t n_members;
	char why[600];		/* what is wrong, when it is not valid */
};

/* ---------------------------------------------------------------- reading a Karta */

static void karta_release(struct karta *k)
{
	for (size_t i = 0; i < k->n; i++) {
		struct component *c = &k->c[i];
		gt_jq_free(c->replicas);
		gt_jq_free(c->min_replicas);
		gt_jq_free(c->max_replicas);
		gt_jq_free(c->instance_ids);
		gt_jq_free(c->type_key);
		gt_jq_free(c->instance_key);
	}
	for (size_t i = 0; i < k->n_members; i++) {
		struct member *m = &k->members[i];
		for (size_t j = 0; j < m->n_group_by; j++)
			gt_jq_free(m->group_by[j]);
		for (size_t j = 0; j < m->n_filters; j++)
			gt_jq_free(m->filters[j]);
		free(m->group_by);
		free(m->filters);
	}
	free(k->c);
	free(k->members);
	k->c = NULL;
	k->members = NULL;
	k->n = k->n_members = 0;	/* k->why stays: the reason a Karta is not valid */
}

static int invalid(struct karta *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int invalid(struct karta *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(k->why, sizeof(k->why), fmt, ap);
	va_end(ap);
	return GT_EINVAL;
}

/* The jq expression at @key of @d (NULL when absent), parsed. */
static int jq_at(struct karta *k, const struct gt_doc *d, const char *key, const char *where,
		 struct gt_jq **out)
{
	const struct gt_doc *v = gt_doc_get(d, key);
	char why[400];
	*out = NULL;
	if (gt_doc_is_null(v))
		return 0;
	if (v->kind != GT_DOC_SCALAR)
		return invalid(k, "%s.%s is not a jq expression", where, key);
	if (gt_jq_parse(v->scalar, out, why, sizeof(why)))
		return invalid(k, "%s.%s: %s", where, key, why);
	return 0;
}

static const struct component *component_named(const struct karta *k, const char *name)
{
	for (size_t i = 0; name && i < k->n; i++)
		if (!strcmp(k->c[i].name, name))
			return &k->c[i];
	return NULL;
}

/* One component definition (validateComponent, and the paths the grouping evaluates). */
static int read_component(struct karta *k, const struct gt_doc *def, const char *where,
			  struct component *c)
{
	memset(c, 0, sizeof(*c));
	c->def = def;
	c->name = gt_doc_str(def, "name");
	c->owner = gt_doc_str(def, "ownerRef");
	if (!c->name || !*c->name)
		return invalid(k, "%s: component name is empty", where);
	const struct gt_doc *spec = gt_doc_get(def, "specDefinition");
	int forms = !gt_doc_is_null(gt_doc_get(spec, "podTemplateSpecPath")) +
		    !gt_doc_is_null(gt_doc_get(spec, "podSpecPath")) +
		    !gt_doc_is_null(gt_doc_get(spec, "fragmentedPodSpecDefinition"));
	if (forms > 1)
		return invalid(k, "%s: component '%s' has multiple pod spec definitions", where, c->name);
	c->pods = forms == 1;
	const struct gt_doc *scale = gt_doc_get(def, "scaleDefinition");
	const struct gt_doc *selector = gt_doc_get(def, "podSelector");
	const struct gt_doc *type = gt_doc_get(selector, "componentTypeSelector");
	const struct gt_doc *instance = gt_doc_get(selector, "componentInstanceSelector");
	c->scale = !gt_doc_is_null(scale);
	c->selector = !gt_doc_is_null(selector);
	c->type_value = gt_doc_is_null(gt_doc_get(type, "value")) ? NULL : gt_doc_str(type, "value");
	bool has_ids = !gt_doc_is_null(gt_doc_get(def, "instanceIdPath"));
	if (has_ids != !gt_doc_is_null(instance))
		return invalid(k, has_ids ? "%s: component '%s' has instance id path but no pod "
				  "component instance selector" : "%s: component '%s' has pod "
				  "component instance selector but no instance id path", where, c->name);
	char at[300];
	snprintf(at, sizeof(at), "%s.scaleDefinition", where);
	int rc = jq_at(k, scale, "replicasPath", at, &c->replicas);
	rc = rc ? rc : jq_at(k, scale, "minReplicasPath", at, &c->min_replicas);
	rc = rc ? rc : jq_at(k, scale, "maxReplicasPath", at, &c->max_replicas);
	rc = rc ? rc : jq_at(k, def, "instanceIdPath", where, &c->instance_ids);
	snprintf(at, sizeof(at), "%s.podSelector.componentTypeSelector", where);
	rc = rc ? rc : jq_at(k, type, "keyPath", at, &c->type_key);
	if (!rc && !gt_doc_is_null(type) && !c->type_key)
		return invalid(k, "%s.keyPath is missing", at);
	snprintf(at, sizeof(at), "%s.podSelector.componentInstanceSelector", where);
	rc = rc ? rc : jq_at(k, instance, "idPath", at, &c->instance_key);
	if (!rc && !gt_doc_is_null(instance) && !c->instance_key)
		return invalid(k, "%s.idPath is missing", at);
	return rc;
}

static int read_root(struct karta *k, const struct gt_doc *root)
{
	const char *where = "spec.structureDefinition.rootComponent";
	const struct gt_doc *kind = gt_doc_get(root, "kind");
	const char *g = gt_doc_str(kind, "group"), *v = gt_doc_str(kind, "version");
	const char *kd = gt_doc_str(kind, "kind");
	if (!v || !*v || !kd || !*kd || ((!g || !*g) && strcmp(kd, "Pod")))
		return invalid(k, "%s must have full kind (group, version, kind)", where);
	if (gt_doc_get(root, "ownerRef"))
		return invalid(k, "%s cannot have owner ref", where);
	if (!gt_doc_get(root, "statusDefinition"))
		return invalid(k, "%s must have status definition", where);
	return read_component(k, root, where, &k->c[0]);
}

/* Every child's owner exists and the ownership reaches the root (validateNoOwnershipCycles). */
static int link_parents(struct karta *k)
{
	k->c[0].parent = -1;
	for (size_t i = 1; i < k->n; i++) {
		struct component *c = &k->c[i];
		if (!c->owner || !*c->owner)
			return invalid(k, "child component '%s' has no owner ref", c->name);
		const struct component *p = component_named(k, c->owner);
		if (!p)
			return invalid(k, "child component '%s' has owner ref to non-existing component "
				       "'%s'", c->name, c->owner);
		c->parent = (int)(p - k->c);
	}
	for (size_t i = 1; i < k->n; i++) {
		int at = (int)i;
		for (size_t steps = 0; at >= 0; steps++, at = k->c[at].parent)
			if (steps > k->n)
				return invalid(k, "ownership cycle detected involving component %s",
					       k->c[i].name);
	}
	return 0;
}

static int read_exprs(struct karta *k, const struct gt_doc *seq, const char *where,
		      struct gt_jq ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (gt_doc_is_null(seq))
		return 0;
	if (seq->kind != GT_DOC_SEQ)
		return invalid(k, "%s is not a list of jq expressions", where);
	*out = gt_xcalloc(seq->n ? seq->n : 1, sizeof(**out));
	for (size_t i = 0; i < seq->n; i++) {
		char at[320], why[400];
		snprintf(at, sizeof(at), "%s[%zu]", where, i);
		if (seq->items[i]->kind != GT_DOC_SCALAR)
			return invalid(k, "%s is not a jq expression", at);
		(*n)++;
		if (gt_jq_parse(seq->items[i]->scalar, &(*out)[i], why, sizeof(why)))
			return invalid(k, "%s: %s", at, why);
	}
	return 0;
}

/* gangScheduling.podGroups[].members[]: each names a component the Karta has. */
static int read_members(struct karta *k, const struct gt_doc *groups)
{
	size_t total = 0;
	for (size_t g = 0; groups && groups->kind == GT_DOC_SEQ && g < groups->n; g++) {
		const struct gt_doc *m = gt_doc_get(groups->items[g], "members");
		total += m && m->kind == GT_DOC_SEQ ? m->n : 0;
	}
	k->members = gt_xcalloc(total ? total : 1, sizeof(*k->members));
	for (size_t g = 0; groups && groups->kind == GT_DOC_SEQ && g < groups->n; g++) {
		const struct gt_doc *ms = gt_doc_get(groups->items[g], "members");
		for (size_t i = 0; ms && ms->kind == GT_DOC_SEQ && i < ms->n; i++) {
			char where[200];
			snprintf(where, sizeof(where), "spec.optimizationInstructions.gangScheduling."
				 "podGroups[%zu].members[%zu]", g, i);
			struct member *m = &k->members[k->n_members++];
			m->group = gt_doc_str(groups->items[g], "name");
			m->component = gt_doc_str(ms->items[i], "componentName");
			m->at = g;
			if (!component_named(k, m->component))
				return invalid(k, "pod-group member component '%s' is not defined (should "
					       "be a root or child component)",
					       m->component ? m->component : "");
			char at[240];
			snprintf(at, sizeof(at), "%s.groupByKeyPaths", where);
			int rc = read_exprs(k, gt_doc_get(ms->items[i], "groupByKeyPaths"), at,
					    &m->group_by, &m->n_group_by);
			snprintf(at, sizeof(at), "%s.filters", where);
			rc = rc ? rc : read_exprs(k, gt_doc_get(ms->items[i], "filters"), at,
						  &m->filters, &m->n_filters);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Read and validate Karta @doc (KAI's KartaValidator, and the jq Gantry evaluates). */
static int karta_load(struct karta *k, const struct gt_doc *doc)
{
	memset(k, 0, sizeof(*k));
	k->doc = doc;
	const struct gt_doc *sd = gt_doc_path(doc, "spec.structureDefinition");
	const struct gt_doc *children = gt_doc_get(sd, "childComponents");
	size_t n_children = children && children->kind == GT_DOC_SEQ ? children->n : 0;
	if (n_children + 1 > MAX_COMPONENTS)
		return invalid(k, "more than %d components", MAX_COMPONENTS);
	k->c = gt_xcalloc(n_children + 1, sizeof(*k->c));
	k->n = 1;
	int rc = read_root(k, gt_doc_get(sd, "rootComponent"));
	for (size_t i = 0; !rc && i < n_children; i++) {
		char where[120];
		snprintf(where, sizeof(where), "spec.structureDefinition.childComponents[%zu]", i);
		rc = read_component(k, children->items[i], where, &k->c[k->n]);
		if (!rc && component_named(k, k->c[k->n].name))
			rc = invalid(k, "component name %s is not unique", k->c[k->n].name);
		k->n += !rc;
	}
	rc = rc ? rc : link_parents(k);
	const struct gt_doc *gang = gt_doc_path(doc, "spec.optimizationInstructions.gangScheduling");
	rc = rc ? rc : read_members(k, gt_doc_get(gang, "podGroups"));
	for (size_t i = 0; i < k->n; i++)
		k->any_scale |= k->c[i].scale;
	k->pod_group = gt_doc_is_null(gt_doc_get(gang, "podGroup")) ? NULL
								 : gt_doc_get(gang, "podGroup");
	return rc;
}

/* ---------------------------------------------------------------- evaluating paths */

/* Evaluation of Karta paths: errors name the Karta and the component. */
struct eval {
	struct gt_pg_ctx *x;
	const struct karta *k;
	const struct gt_doc *workload, *pod;
};

static int eval_fail(struct eval *e, const char *what, const char *why)
{
	return gt_pg_fail(e->x, "%s of %s, grouped by Karta %s: %s: %s", gt_pg_id(e->pod).s,
			  gt_pg_id(e->workload).s, gt_pg_name(e->k->doc), what, why);
}

/*
 * What was evaluated is put into words (@fmt) only when it fails: a pod of a
 * large workload evaluates the same paths many times.
 */
static int vfailf(struct eval *e, const char *why, const char *fmt, va_list ap)
{
	char what[300];
	vsnprintf(what, sizeof(what), fmt, ap);
	return eval_fail(e, what, why);
}

static int failf(struct eval *e, const char *why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int failf(struct eval *e, const char *why, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vfailf(e, why, fmt, ap);
	va_end(ap);
	return rc;
}

static int vrun(struct eval *e, const struct gt_jq *q, const struct gt_doc *on,
		struct gt_jq_results *r, const char *fmt, va_list ap)
{
	char why[300];
	if (gt_jq_eval(q, on, r, why, sizeof(why)))
		return vfailf(e, why, fmt, ap);
	return 0;
}

static int run(struct eval *e, const struct gt_jq *q, const struct gt_doc *on,
	       struct gt_jq_results *r, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int run(struct eval *e, const struct gt_jq *q, const struct gt_doc *on,
	       struct gt_jq_results *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vrun(e, q, on, r, fmt, ap);
	va_end(ap);
	return rc;
}

/* KAI's evaluateStringField: exactly one non-empty result, as text (into @buf). */
static int single_string(struct eval *e, const struct gt_jq *q, char *buf, size_t size,
			 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int single_string(struct eval *e, const struct gt_jq *q, char *buf, size_t size,
			 const char *fmt, ...)
{
	struct gt_jq_results r;
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	int rc = vrun(e, q, e->pod, &r, fmt, ap);
	va_end(ap);
	if (rc) {
		va_end(again);
		return rc;
	}
	enum gt_jq_type t = r.n == 1 ? gt_jq_type(r.v[0]) : GT_JQ_NULL;
	char why[80] = "";
	if (r.n != 1)
		snprintf(why, sizeof(why), "expected single query result, got %zu", r.n);
	else if (t == GT_JQ_ARRAY || t == GT_JQ_OBJECT)
		snprintf(why, sizeof(why), "the result is an %s, not a single value",
			 t == GT_JQ_ARRAY ? "array" : "object");
	else if (t == GT_JQ_NULL || !*r.v[0]->scalar)
		snprintf(why, sizeof(why), "query result is empty");
	else
		snprintf(buf, size, "%s", r.v[0]->scalar);
	gt_jq_results_release(&r);
	rc = *why ? vfailf(e, why, fmt, again) : 0;
	va_end(again);
	return rc;
}

/* Does the pod belong to component @c's type (componentTypeSelector)? 1, 0, or an error. */
static int matches_type(struct eval *e, const struct component *c)
{
	if (!c->type_key)
		return 0;
	struct gt_jq_results r;
	int rc = run(e, c->type_key, e->pod, &r, "component %s's componentTypeSelector", c->name);
	if (rc)
		return rc;
	int match = 0;
	for (size_t i = 0; i < r.n && !match; i++) {
		if (!c->type_value)
			match = gt_jq_type(r.v[i]) != GT_JQ_NULL;
		else
			match = gt_jq_type(r.v[i]) == GT_JQ_STRING && !strcmp(r.v[i]->scalar, c->type_value);
	}
	gt_jq_results_release(&r);
	return match;
}

/* The instance ids of @c on the workload ([""] without instanceIdPath), into @ids. */
static int instance_ids(struct eval *e, const struct component *c, struct gt_jq_results *ids)
{
	memset(ids, 0, sizeof(*ids));
	if (!c->instance_ids)
		return 0;
	int rc = run(e, c->instance_ids, e->workload, ids, "component %s's instanceIdPath", c->name);
	for (size_t i = 0; !rc && i < ids->n; i++) {
		enum gt_jq_type t = gt_jq_type(ids->v[i]);
		if (t != GT_JQ_STRING && t != GT_JQ_NULL)
			rc = failf(e, "an instance id is not a string", "component %s's instanceIdPath",
				   c->name);
		else if (t == GT_JQ_NULL || !*ids->v[i]->scalar)
			rc = failf(e, "instance id path contained empty string values",
				   "component %s's instanceIdPath", c->name);
	}
	if (rc)
		gt_jq_results_release(ids);
	return rc;
}

static size_t n_ids(const struct component *c, const struct gt_jq_results *ids)
{
	return c->instance_ids ? ids->n : 1;
}

static const char *id_at(const struct component *c, const struct gt_jq_results *ids, size_t i)
{
	return c->instance_ids ? ids->v[i]->scalar : "";
}

/* The values of one scale path as int32 counts (-1: unset), into @out[0..*n). */
static int scale_values(struct eval *e, const struct component *c, const struct gt_jq *q,
			const char *path, int64_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!q)
		return 0;
	struct gt_jq_results r;
	int rc = run(e, q, e->workload, &r, "component %s's scaleDefinition.%s", c->name, path);
	if (rc)
		return rc;
	*out = gt_xcalloc(r.n ? r.n : 1, sizeof(**out));
	for (size_t i = 0; i < r.n && !rc; i++) {
		double v;
		if (gt_jq_type(r.v[i]) == GT_JQ_NULL)
			(*out)[i] = -1;
		else if (!gt_jq_number(r.v[i], &v) || v != (double)(int64_t)v || v < INT32_MIN ||
			 v > INT32_MAX)
			rc = failf(e, "a result is not an int32 replica count",
				   "component %s's scaleDefinition.%s", c->name, path);
		else
			(*out)[i] = (int64_t)v;
	}
	*n = r.n;
	gt_jq_results_release(&r);
	return rc;
}

/*
 * The effective minimum of each instance of @c (minReplicas if > 0, else
 * replicas if > 0, else 0) into @eff, with the instance ids in @ids; *@n is
 * 0 when @c has no scaleDefinition.
 */
static int scales(struct eval *e, const struct component *c, int64_t **eff, size_t *n,
		  struct gt_jq_results *ids)
{
	int64_t *rep = NULL, *min = NULL, *max = NULL;
	size_t n_rep = 0, n_min = 0, n_max = 0;
	*eff = NULL;
	*n = 0;
	memset(ids, 0, sizeof(*ids));
	if (!c->scale)
		return 0;
	int rc = scale_values(e, c, c->replicas, "replicasPath", &rep, &n_rep);
	rc = rc ? rc : scale_values(e, c, c->min_replicas, "minReplicasPath", &min, &n_min);
	rc = rc ? rc : scale_values(e, c, c->max_replicas, "maxReplicasPath", &max, &n_max);
	rc = rc ? rc : instance_ids(e, c, ids);
	size_t count = n_rep > n_min ? n_rep : n_min;
	count = count > n_max ? count : n_max;
	if (!rc && n_ids(c, ids) != count) {
		char why[120];
		snprintf(why, sizeof(why), "instance ids count (%zu) does not match results count (%zu)",
			 n_ids(c, ids), count);
		rc = failf(e, why, "component %s's scaleDefinition", c->name);
	}
	if (!rc) {
		*eff = gt_xcalloc(count ? count : 1, sizeof(**eff));
		for (size_t i = 0; i < count; i++) {
			int64_t m = i < n_min ? min[i] : -1, r = i < n_rep ? rep[i] : -1;
			(*eff)[i] = m > 0 ? m : r > 0 ? r : 0;
		}
		*n = count;
	} else {
		gt_jq_results_release(ids);
	}
	free(rep);
	free(min);
	free(max);
	return rc;
}

/* Go keeps one scale per instance id, the last: is instance @i overridden by a later one? */
static bool shadowed(const struct component *c, const struct gt_jq_results *ids, size_t i, size_t n)
{
	for (size_t j = i + 1; j < n; j++)
		if (!strcmp(id_at(c, ids, i), id_at(c, ids, j)))
			return true;
	return false;
}

static int64_t capped(int64_t v)
{
	return v > MAX_SCALE ? MAX_SCALE + 1LL : v;
}

/* calculateSubtreeScaleByDefinition */
static int scale_by_definition(struct eval *e, size_t at, size_t root, const char *instance,
			       int64_t *out)
{
	const struct component *c = &e->k->c[at];
	int64_t *eff, current = 0;
	size_t n, unique = 0;
	struct gt_jq_results ids;
	int rc = scales(e, c, &eff, &n, &ids);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		unique += !shadowed(c, &ids, i, n);
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		if (shadowed(c, &ids, i, n))
			continue;
		if (unique > 1 && at == root && instance) {
			if (strcmp(id_at(c, &ids, i), instance))
				continue;
			found = true;
		}
		current = capped(current + eff[i]);
	}
	free(eff);
	gt_jq_results_release(&ids);
	if (unique > 1 && at == root && instance && !found) {
		char why[300];
		snprintf(why, sizeof(why), "instance id %s not found", instance);
		return eval_fail(e, "the pod's instance", why);
	}
	int64_t children = 0;
	bool leaf = true;
	for (size_t i = 0; i < e->k->n && !rc; i++) {
		if (e->k->c[i].parent != (int)at)
			continue;
		int64_t s = 0;	/* a child that failed says so through rc, not a scale */
		leaf = false;
		rc = scale_by_definition(e, i, root, instance, &s);
		children = capped(children + s);
	}
	*out = leaf || !children ? current : !current ? children : capped(current * children);
	return rc;
}

/* calculateSubtreeScaleByLeaves: without any scaleDefinition, count the pod-defining components. */
static int scale_by_leaves(struct eval *e, size_t at, size_t root, const char *instance,
			   int64_t *out)
{
	const struct component *c = &e->k->c[at];
	*out = 0;
	if (c->pods) {
		if (!c->instance_ids) {
			*out = 1;
			return 0;
		}
		struct gt_jq_results ids;
		int rc = instance_ids(e, c, &ids);
		if (rc)
			return rc;
		*out = (int64_t)ids.n;
		if (at == root && instance) {
			bool found = false;
			for (size_t i = 0; i < ids.n; i++)
				found |= !strcmp(ids.v[i]->scalar, instance);
			*out = 1;
			if (!found) {
				char why[300];
				snprintf(why, sizeof(why), "instance id %s not found", instance);
				rc = eval_fail(e, "the pod's instance", why);
			}
		}
		gt_jq_results_release(&ids);
		return rc;
	}
	for (size_t i = 0; i < e->k->n; i++) {
		int64_t s;
		if (e->k->c[i].parent != (int)at)
			continue;
		int rc = scale_by_leaves(e, i, root, instance, &s);
		if (rc)
			return rc;
		*out = capped(*out + s);
	}
	return 0;
}

/* CalculateSubtreeScale of the component at @at (of @instance, or all of them). */
static int subtree_scale(struct eval *e, size_t at, const char *instance, int64_t *out)
{
	int rc = e->k->any_scale ? scale_by_definition(e, at, at, instance, out)
				 : scale_by_leaves(e, at, at, instance, out);
	if (!rc && *out > MAX_SCALE)
		return eval_fail(e, e->k->c[at].name, "the scale is more than 2^31-1 pods");
	return rc;
}

/* ---------------------------------------------------------------- gangScheduling.podGroup */

/* pg-<uid>[-<part>...]; without a uid (a hand-written manifest) the owner's name takes its place. */
static void karta_name(const struct gt_pg_ctx *x, char **name, const char *suffix)
{
	const char *uid = gt_pg_uid(x->top.doc);
	gt_pg_setf(name, "pg-%s%s%s", uid && *uid ? uid : gt_pg_name(x->top.doc),
		   suffix && *suffix ? "-" : "", suffix ? suffix : "");
}

static int read_topology(struct eval *e, const struct gt_doc *t, const char *where,
			 struct gt_pg_topology *out)
{
	if (gt_doc_is_null(t))
		return 0;
	const char *name = gt_doc_str(t, "topologyName");
	const char *pref = gt_doc_str(t, "preferredTopologyLevel");
	const char *req = gt_doc_str(t, "requiredTopologyLevel");
	if (!name || !*name)
		return eval_fail(e, where, "topology constraint must include topology name");
	if ((!pref || !*pref) && (!req || !*req))
		return eval_fail(e, where, "topology constraint must include preferred or required "
				 "topology level");
	gt_pg_set_topology(out, name, req, pref);
	return 0;
}

/* Does the pod belong to the subtree of component @at (its own type selector, or a child's)? */
static int in_subtree(struct eval *e, size_t at)
{
	int rc = matches_type(e, &e->k->c[at]);
	for (size_t i = 0; i < e->k->n && !rc; i++)
		if (e->k->c[i].parent == (int)at)
			rc = in_subtree(e, i);
	return rc;
}

static int group_by_components(struct eval *e, struct gt_podgroup *pg)
{
	const struct gt_doc *def = e->k->pod_group;
	const char *where = "spec.optimizationInstructions.gangScheduling.podGroup";
	karta_name(e->x, &pg->name, gt_doc_str(def, "name"));
	int rc = read_topology(e, gt_doc_get(def, "topology"), where, &pg->topology);
	const struct gt_doc *subs = gt_doc_get(def, "subGroups");
	for (size_t i = 0; !rc && subs && subs->kind == GT_DOC_SEQ && i < subs->n; i++) {
		char at[120];
		snprintf(at, sizeof(at), "%s.subGroups[%zu]", where, i);
		const char *name = gt_doc_str(subs->items[i], "componentName");
		const struct component *c = component_named(e->k, name);
		int64_t min = 0;
		if (!name || !*name)
			return eval_fail(e, at, "subgroup component name cannot be empty");
		if (!c)
			return eval_fail(e, at, "the component it names is not in the Karta");
		rc = subtree_scale(e, (size_t)(c - e->k->c), NULL, &min);
		if (!rc && !min)
			return eval_fail(e, at, "the component must expose a replica scale definition");
		struct gt_pg_subgroup *sg = rc ? NULL : gt_pg_add_subgroup(pg, name, min, NULL);
		rc = rc ? rc : read_topology(e, gt_doc_get(subs->items[i], "topology"), at,
					     &sg->topology);
		int mine = rc ? 0 : in_subtree(e, (size_t)(c - e->k->c));
		if (mine < 0)
			return mine;
		if (mine && !pg->pod_subgroup)
			gt_pg_set(&pg->pod_subgroup, name);
	}
	if (rc)
		return rc;
	if (pg->n_subgroups) {
		pg->has_min_subgroup = true;
		pg->min_subgroup = (int32_t)pg->n_subgroups;
		pg->min_member = 0;
		return 0;
	}
	int64_t min;
	rc = subtree_scale(e, 0, NULL, &min);
	pg->min_member = (int32_t)min;
	return rc;
}

/* ---------------------------------------------------------------- gangScheduling.podGroups */

/* InferPodComponent: the only pod-defining component, or the first whose selector matches. */
static int pod_component(struct eval *e, size_t *at)
{
	size_t leaves = 0, last = 0;
	for (size_t i = 0; i < e->k->n; i++)
		if (e->k->c[i].pods)
			leaves++, last = i;
	if (leaves == 1) {
		*at = last;
		return 0;
	}
	for (size_t i = 0; i < e->k->n; i++) {
		if (!e->k->c[i].pods || !e->k->c[i].selector)
			continue;
		int m = matches_type(e, &e->k->c[i]);
		if (m < 0)
			return m;
		if (m) {
			*at = i;
			return 0;
		}
	}
	return eval_fail(e, "its component", "no component found for the pod");
}

#define FILTER "podGroups[%zu] (%s) filters[%zu] for component %s"

/* Does the pod pass every filter of @m? 1, 0, or an error. */
static int passes(struct eval *e, const struct member *m)
{
	for (size_t i = 0; i < m->n_filters; i++) {
		struct gt_jq_results r;
		const char *group = m->group ? m->group : "";
		int rc = run(e, m->filters[i], e->pod, &r, FILTER, m->at, group, i, m->component);
		if (rc)
			return rc;
		enum gt_jq_type t = r.n == 1 ? gt_jq_type(r.v[0]) : GT_JQ_NULL;
		bool empty = r.n != 1 || t == GT_JQ_NULL ||
			     (t == GT_JQ_STRING && !*r.v[0]->scalar);
		gt_jq_results_release(&r);
		if (empty)
			return failf(e, "expected a single non-empty result", FILTER, m->at, group, i,
				     m->component);
		if (t != GT_JQ_TRUE)
			return 0;
	}
	return 1;
}

/* GetPodGroupingEffectiveComponent: the first member of the component or an ancestor the pod passes. */
static int effective_member(struct eval *e, size_t comp, const struct member **out)
{
	*out = NULL;
	for (int at = (int)comp; at >= 0; at = e->k->c[at].parent) {
		for (size_t i = 0; i < e->k->n_members; i++) {
			const struct member *m = &e->k->members[i];
			if (strcmp(m->component, e->k->c[at].name))
				continue;
			int rc = passes(e, m);
			if (rc < 0)
				return rc;
			if (rc) {
				*out = m;
				return 0;
			}
		}
	}
	return eval_fail(e, "its pod group", "the pod does not match any Karta pod group member "
			 "definition");
}

/* InferPodComponentInstance: the pod's instance of component @c, or NULL (into @buf). */
static int pod_instance(struct eval *e, const struct component *c, char *buf, size_t size,
			const char **out)
{
	struct gt_jq_results ids;
	*out = NULL;
	int rc = instance_ids(e, c, &ids);
	if (rc || !c->instance_ids || !ids.n || !c->selector) {
		gt_jq_results_release(&ids);
		return rc;
	}
	rc = single_string(e, c->instance_key, buf, size, "component %s's componentInstanceSelector",
			   c->name);
	for (size_t i = 0; !rc && i < ids.n && !*out; i++)
		if (!strcmp(ids.v[i]->scalar, buf))
			*out = buf;
	if (!rc && !*out) {
		char why[400];
		snprintf(why, sizeof(why), "could not match instance id \"%s\" with the workload's",
			 buf);
		rc = failf(e, why, "component %s's componentInstanceSelector", c->name);
	}
	gt_jq_results_release(&ids);
	return rc;
}

static bool lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Kubernetes' IsDNS1123Subdomain: dot-separated labels of [a-z0-9-], alphanumeric at each end. */
static bool dns_subdomain(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 253 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
		return false;
	for (size_t i = 1; i < n - 1; i++) {
		if (s[i] == '.' && (!lower_alnum(s[i - 1]) || !lower_alnum(s[i + 1])))
			return false;
		if (s[i] != '.' && s[i] != '-' && !lower_alnum(s[i]))
			return false;
	}
	return true;
}

static int group_by_members(struct eval *e, struct gt_podgroup *pg)
{
	size_t comp = 0;
	const struct member *m;
	int rc = pod_component(e, &comp);
	rc = rc ? rc : effective_member(e, comp, &m);
	if (rc)
		return rc;
	size_t effective = (size_t)(component_named(e->k, m->component) - e->k->c);
	char instance_buf[256], keys[600] = "";
	const char *instance = NULL;
	if (effective == comp)
		rc = pod_instance(e, &e->k->c[comp], instance_buf, sizeof(instance_buf), &instance);
	for (size_t i = 0; !rc && i < m->n_group_by; i++) {
		char key[256];
		rc = single_string(e, m->group_by[i], key, sizeof(key), "podGroups[%zu] (%s) "
				   "groupByKeyPaths[%zu]", m->at, m->group ? m->group : "", i);
		if (!rc)
			snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s", i ? "-" : "",
				 key);
	}
	if (rc)
		return rc;
	karta_name(e->x, &pg->name, keys);
	if (m->n_group_by && !dns_subdomain(pg->name))
		return eval_fail(e, "its grouping keys", "they make the PodGroup name an invalid "
				 "Kubernetes name: a lowercase RFC 1123 subdomain must consist of lower "
				 "case alphanumeric characters, '-' or '.', and must start and end "
				 "with an alphanumeric character");
	int64_t min;
	rc = subtree_scale(e, effective, instance, &min);
	pg->min_member = (int32_t)min;
	return rc;
}

/* ---------------------------------------------------------------- choosing the Karta */

static bool label_is(const struct gt_doc *d, const char *key, const char *want)
{
	const char *v = gt_obj_label(d, key);
	return v && !strcmp(v, want);
}

/* Is @d a Karta, not being deleted, that describes @group/@version/@kind? */
static bool describes(const struct gt_doc *d, const char *group, const char *version,
		      const char *kind)
{
	const struct gt_doc *k = gt_doc_path(d, "spec.structureDefinition.rootComponent.kind");
	const char *g = gt_doc_str(k, "group");
	return gt_pg_in_group(d, "run.ai") && label_is(d, KARTA_GROUP_LABEL, group) &&
	       label_is(d, KARTA_VERSION_LABEL, version) && label_is(d, KARTA_KIND_LABEL, kind) &&
	       !strcmp(g ? g : "", group) && gt_doc_str(k, "version") &&
	       !strcmp(gt_doc_str(k, "version"), version) && gt_doc_str(k, "kind") &&
	       !strcmp(gt_doc_str(k, "kind"), kind) &&
	       !gt_doc_str(gt_doc_get(d, "metadata"), "deletionTimestamp");
}

/* An empty Karta, or one without gang instructions, is not for the podgrouper. */
static bool has_gang_instructions(const struct gt_doc *d)
{
	const struct gt_doc *sd = gt_doc_path(d, "spec.structureDefinition");
	const char *root = gt_doc_str(gt_doc_get(sd, "rootComponent"), "name");
	const struct gt_doc *children = gt_doc_get(sd, "childComponents");
	if ((!root || !*root) && (!children || children->kind != GT_DOC_SEQ || !children->n))
		return false;
	const struct gt_doc *gang = gt_doc_path(d, "spec.optimizationInstructions.gangScheduling");
	const struct gt_doc *groups = gt_doc_get(gang, "podGroups");
	return !gt_doc_is_null(gt_doc_get(gang, "podGroup")) ||
	       (groups && groups->kind == GT_DOC_SEQ && groups->n);
}

static void add_warning(struct gt_podgroup *pg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_warning(struct gt_podgroup *pg, const char *fmt, ...)
{
	char msg[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (pg->warning)
		gt_pg_setf(&pg->warning, "%s; %s", pg->warning, msg);
	else
		gt_pg_set(&pg->warning, msg);
}

/*
 * The Kartas among an index's objects, read and validated once: the
 * controller's world and gantry simulate's batch group many pods against the
 * same few Kartas.
 */
struct gt_pg_kartas {
	const struct gt_doc **docs;
	struct karta *k;	/* k[i].why is set when docs[i] is not valid */
	bool *valid;
	size_t n;
};

struct gt_pg_kartas *gt_pg_kartas_build(const struct gt_pg_index *ix)
{
	int32_t cursor;
	size_t n = 0;
	for (const struct gt_doc *d = gt_pg_index_first_of_kind(ix, "Karta", &cursor); d;
	     d = gt_pg_index_next_of_kind(ix, &cursor))
		n += gt_pg_in_group(d, "run.ai");
	if (!n)
		return NULL;
	struct gt_pg_kartas *c = gt_xcalloc(1, sizeof(*c));
	c->docs = gt_xcalloc(n, sizeof(*c->docs));
	c->k = gt_xcalloc(n, sizeof(*c->k));
	c->valid = gt_xcalloc(n, sizeof(*c->valid));
	for (const struct gt_doc *d = gt_pg_index_first_of_kind(ix, "Karta", &cursor); d;
	     d = gt_pg_index_next_of_kind(ix, &cursor)) {
		if (!gt_pg_in_group(d, "run.ai"))
			continue;
		c->docs[c->n] = d;
		c->valid[c->n] = !karta_load(&c->k[c->n], d);
		c->n++;
	}
	return c;
}

void gt_pg_kartas_free(struct gt_pg_kartas *c)
{
	for (size_t i = 0; c && i < c->n; i++)
		karta_release(&c->k[i]);
	if (c) {
		free(c->docs);
		free(c->k);
		free(c->valid);
	}
	free(c);
}

/* Karta @d read: from the index's cache when it has it, else into @local (to release). */
static const struct karta *read_karta(const struct gt_pg_ctx *x, const struct gt_doc *d,
				      struct karta *local, bool *valid)
{
	const struct gt_pg_kartas *c = x->req->index ? x->req->index->kartas : NULL;
	for (size_t i = 0; c && i < c->n; i++) {
		if (c->docs[i] == d) {
			*valid = c->valid[i];
			return &c->k[i];
		}
	}
	*valid = !karta_load(local, d);
	return local;
}

int gt_pg_rule_karta(struct gt_pg_ctx *x, struct gt_podgroup *pg)
{
	char group[128];
	const char *version, *kind = gt_pg_kind(x->top.doc);
	gt_pg_group_version(x->top.doc, group, sizeof(group), &version);
	struct gt_pg_iter it = { 0, -2 };
	const struct gt_doc *d;
	struct karta local[2] = { { 0 } };	/* read here: the chosen one, and the one at hand */
	const struct karta *chosen = NULL;
	size_t n_valid = 0;
	char names[400] = "";
	while ((d = gt_pg_each_of_kind(x, "Karta", &it))) {
		if (!describes(d, group, version, kind) || !has_gang_instructions(d))
			continue;
		bool valid;
		struct karta *slot = chosen == &local[0] ? &local[1] : &local[0];
		const struct karta *k = read_karta(x, d, slot, &valid);
		if (!valid)
			add_warning(pg, "Karta %s, which describes %s, is not valid and was passed "
				    "over: %s", gt_pg_name(d), kind, k->why);
		if (valid && !n_valid++)
			chosen = k;
		else if (valid)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), ", %s",
				 gt_pg_name(d));
		if (k == slot && k != chosen)
			karta_release(slot);
	}
	int rc = 0;
	if (n_valid > 1) {
		add_warning(pg, "found multiple Kartas with gang scheduling instructions for "
			    "%s%s%s/%s (%s%s): none is used", group, *group ? "/" : "", version, kind,
			    gt_pg_name(chosen->doc), names);
	} else if (n_valid == 1) {
		gt_pg_default_top(x, &x->top, "train", pg);
		pg->rule = "karta";
		struct eval e = { x, chosen, x->top.doc, x->pod };
		rc = chosen->pod_group ? group_by_components(&e, pg) : group_by_members(&e, pg);
		rc = rc ? rc : 1;
	}
	karta_release(&local[0]);
	karta_release(&local[1]);
	return rc;
}
