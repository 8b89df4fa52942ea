/*
 * crds.c - the validating webhooks of Gantry's own kinds, after KAI v0.17
 *
 * Queue (KAI's queue controller, queue_validator.go): spec.resources must be
 * there ("resources must be specified", also sent as a warning, as KAI
 * does). KAI's parent/child quota warnings are opt-in there
 * (--enable-quota-validation, which KAI's operator never passes) and are
 * not done here.
 *
 * Topology (KAI's admission, topology_validator.go): level aliases are
 * unique and no alias equals a level's nodeLabel.
 *
 * PodGroup (podgroup_webhook.go): minMember and minSubGroup exclusive, the
 * sub-groups a tree (unique names, parents that exist, no cycle), leaves
 * with minMember, mid-level groups with minSubGroup at most their number
 * of children. Structural errors refuse alone; the others are collected in
 * name order and joined by newlines, and two of them are only warnings: a
 * minSubGroup above the number of children, and (on UPDATE, for objects
 * made before the rule) minMember on a mid-level group. Where KAI walks a
 * Go map (which missing parent it names first), the list's order is used.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/internal.h"
#include "util/mem.h"

/* --- Queue -------------------------------------------------------------------------------- */

void queue_validate(const struct review *r, struct verdict *v)
{
	if (r->op != OP_CREATE && r->op != OP_UPDATE) {
		verdict_allow(v);
		return;
	}
	json_t *spec = json_object_get(r->object, "spec");
	if (spec && !json_is_object(spec) && !json_is_null(spec)) {
		verdict_error(v, 400, "queue %s: spec must be an object", r->name);
		return;
	}
	json_t *res = json_object_get(spec, "resources");
	if (!res || json_is_null(res)) {
		verdict_warn(v, "resources must be specified");
		verdict_deny(v, "resources must be specified");
		return;
	}
	verdict_allow(v);
}

/* --- Topology ----------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Go's %v of a sorted []string: "[a b c]". */
static void go_list(const char **v, size_t n, char *out, size_t cap)
{
	qsort(v, n, sizeof(*v), cmp_str);
	size_t o = (size_t)snprintf(out, cap, "[");
	for (size_t i = 0; i < n && o < cap; i++)
		o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? " " : "", v[i]);
	if (o < cap)
		snprintf(out + o, cap - o, "]");
}

static bool in_list(const char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* The levels' node labels and aliases; false when a level is not {nodeLabel: string, alias?: string}. */
static bool topology_levels(json_t *levels, const char **labels, const char **aliases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_t *l = json_array_get(levels, i), *alias = json_object_get(l, "alias");
		labels[i] = obj_get_string(l, "nodeLabel");
		aliases[i] = obj_get_string(l, "alias");
		if (!json_is_object(l) || (json_object_get(l, "nodeLabel") && !labels[i]) ||
		    (alias && !json_is_null(alias) && !aliases[i]))
			return false;
		if (!labels[i])
			labels[i] = "";
	}
	return true;
}

void topology_validate(const struct review *r, struct verdict *v)
{
	if (r->op != OP_CREATE && r->op != OP_UPDATE) {
		verdict_allow(v);
		return;
	}
	json_t *levels = json_object_get(json_object_get(r->object, "spec"), "levels");
	size_t n = json_is_array(levels) ? json_array_size(levels) : 0;
	const char **labels = gt_xcalloc(n + 1, sizeof(*labels)), **aliases = gt_xcalloc(n + 1, sizeof(*aliases));
	const char **dups = gt_xcalloc(n + 1, sizeof(*dups)), **clash = gt_xcalloc(n + 1, sizeof(*clash));
	size_t n_dups = 0, n_clash = 0;
	if ((levels && !json_is_array(levels) && !json_is_null(levels)) || !topology_levels(levels, labels, aliases, n)) {
		verdict_error(v, 400, "topology %s: spec.levels must be a list of {nodeLabel, alias} strings", r->name);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!aliases[i] || !*aliases[i])
			continue;
		for (size_t j = 0; j < i; j++)
			if (aliases[j] && !strcmp(aliases[j], aliases[i])) {
				dups[n_dups++] = aliases[i];
				break;
			}
		if (in_list(labels, n, aliases[i]))
			clash[n_clash++] = aliases[i];
	}
	if (n_dups || n_clash) {
		char a[2048] = "", b[2048] = "";
		go_list(dups, n_dups, a, sizeof(a));
		go_list(clash, n_clash, b, sizeof(b));
		char da[2100], cb[2100];
		snprintf(da, sizeof(da), "aliases must be unique within the topology; duplicated: %s", a);
		snprintf(cb, sizeof(cb), "an alias must not equal a nodeLabel; conflicting: %s", b);
		verdict_deny(v, "invalid topology aliases: %s%s%s", n_dups ? da : "", n_dups && n_clash ? "; " : "",
			     n_clash ? cb : "");
		goto out;
	}
	verdict_allow(v);
out:
	free(labels);
	free(aliases);
	free(dups);
	free(clash);
}

/* --- PodGroup ----------------------------------------------------------------------------- */

/* What a sub-group says; the optional integers are "set" or not. */
struct subgroup {
	const char *name;
	const char *parent;		/* NULL: a direct child of the PodGroup */
	bool has_min_member, has_min_subgroup;
	long long min_member, min_subgroup;
};

/* KAI's kinds of min-definition errors; the ones a warning may stand for. */
enum min_error { MIN_INVALID_SUBGROUP, MIN_EXCEEDS_CHILDREN, MIN_PARENT_MEMBER, MIN_MISSING_MEMBER };

struct pg_check {
	const struct subgroup *sg;
	size_t n;
	char *structural;		/* a structural error refuses alone */
	char **msgs;			/* the min-definition errors, in order */
	enum min_error *kinds;
	size_t n_msgs, cap_msgs, cap_kinds;
};

static void structural(struct pg_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void structural(struct pg_check *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	c->structural = gt_xvasprintf(fmt, ap);
	va_end(ap);
}

static void min_error(struct pg_check *c, enum min_error kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void min_error(struct pg_check *c, enum min_error kind, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	size_t n = c->n_msgs;
	GT_PUSH(c->kinds, n, c->cap_kinds, kind);
	GT_PUSH(c->msgs, c->n_msgs, c->cap_msgs, gt_xstrdup(buf));
}

/* An optional int32 field: absent or null (not set), an integer (set), else false. */
static bool opt_int(const json_t *o, const char *key, bool *set, long long *out)
{
	json_t *x = json_object_get(o, key);
	*set = x && !json_is_null(x);
	if (*set && !json_is_integer(x))
		return false;
	*out = *set ? (long long)json_integer_value(x) : 0;
	return true;
}

static bool read_subgroups(json_t *list, struct subgroup *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_t *s = json_array_get(list, i), *parent = json_object_get(s, "parent");
		out[i].name = obj_get_string(s, "name");
		out[i].parent = obj_get_string(s, "parent");
		if (!json_is_object(s) || !out[i].name || (parent && !json_is_null(parent) && !out[i].parent) ||
		    !opt_int(s, "minMember", &out[i].has_min_member, &out[i].min_member) ||
		    !opt_int(s, "minSubGroup", &out[i].has_min_subgroup, &out[i].min_subgroup))
			return false;
	}
	return true;
}

static long find_subgroup(const struct pg_check *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->sg[i].name, name))
			return (long)i;
	return -1;
}

static size_t children_of(const struct pg_check *c, const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		n += c->sg[i].parent && !strcmp(c->sg[i].parent, name);
	return n;
}

/* Following parents from any sub-group comes back to it: a cycle (parents all exist by now). */
static bool has_cycle(const struct pg_check *c)
{
	for (size_t i = 0; i < c->n; i++) {
		long at = (long)i;
		for (size_t steps = 0; steps <= c->n && at >= 0 && c->sg[at].parent; steps++) {
			at = find_subgroup(c, c->sg[at].parent);
			if (at == (long)i)
				return true;
		}
	}
	return false;
}

static int cmp_subgroup_name(const void *a, const void *b)
{
	return strcmp((*(const struct subgroup *const *)a)->name, (*(const struct subgroup *const *)b)->name);
}

/* KAI's validateSubGroupMinFields, for one sub-group. */
static void check_min_fields(struct pg_check *c, const struct subgroup *s)
{
	char q[300];
	go_quote(s->name, q, sizeof(q));
	if (s->has_min_member && s->has_min_subgroup) {
		structural(c, "subgroup %s: minMember and minSubGroup are mutually exclusive", q);
		return;
	}
	size_t kids = children_of(c, s->name);
	if (!kids) {
		if (s->has_min_subgroup)
			min_error(c, MIN_INVALID_SUBGROUP, "subgroup %s: minSubGroup cannot be set on a leaf SubGroup "
				  "(no child SubGroups)", q);
		if (!s->has_min_member)
			min_error(c, MIN_MISSING_MEMBER, "subgroup %s: minMember is required", s->name);
		return;
	}
	if (s->has_min_member)
		min_error(c, MIN_PARENT_MEMBER, "subgroup %s: minMember cannot be set on a mid-level SubGroup (has "
			  "child SubGroups); use minSubGroup instead", q);
	if (s->has_min_subgroup && s->min_subgroup > (long long)kids)
		min_error(c, MIN_EXCEEDS_CHILDREN, "subgroup %s: minSubGroup (%lld) exceeds the number of direct child "
			  "SubGroups (%zu)", q, s->min_subgroup, kids);
}

/* KAI's validateSubGroups: duplicates, parents, cycles, then each sub-group in name order. */
static void check_subgroups(struct pg_check *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (find_subgroup(c, c->sg[i].name) != (long)i) {
			structural(c, "duplicate subgroup name %s", c->sg[i].name);
			return;
		}
	for (size_t i = 0; i < c->n; i++)
		if (c->sg[i].parent && find_subgroup(c, c->sg[i].parent) < 0) {
			structural(c, "parent %s of %s was not found", c->sg[i].parent, c->sg[i].name);
			return;
		}
	if (has_cycle(c)) {
		structural(c, "cycle detected in subgroups");
		return;
	}
	const struct subgroup **sorted = gt_xcalloc(c->n + 1, sizeof(*sorted));
	for (size_t i = 0; i < c->n; i++)
		sorted[i] = &c->sg[i];
	qsort(sorted, c->n, sizeof(*sorted), cmp_subgroup_name);
	for (size_t i = 0; i < c->n && !c->structural; i++)
		check_min_fields(c, sorted[i]);
	free(sorted);
}

/* KAI's validatePodGroupSpec. */
static void check_spec(struct pg_check *c, bool has_mm, long long mm, bool has_msg, long long msg)
{
	if (has_mm && has_msg) {
		structural(c, "minMember and minSubGroup are mutually exclusive: set minMember (%lld) to schedule a fixed "
			   "number of pods, or set minSubGroup to require a minimum number of child SubGroups, but not "
			   "both", mm);
		return;
	}
	check_subgroups(c);
	if (c->structural || !has_msg)
		return;
	if (msg < 1) {
		min_error(c, MIN_INVALID_SUBGROUP, "minSubGroup at the podgroup level must be equal to or greater than 1");
		return;
	}
	size_t roots = 0;
	for (size_t i = 0; i < c->n; i++)
		roots += !c->sg[i].parent;
	if (msg > (long long)roots)
		min_error(c, MIN_EXCEEDS_CHILDREN, "minSubGroup (%lld) exceeds the number of direct child SubGroups (%zu)",
			  msg, roots);
}

/* The verdict: errors refuse (joined by newlines), warnings ride along (on CREATE, UPDATE as KAI says). */
static void pg_verdict(const struct pg_check *c, bool update, struct verdict *v)
{
	if (c->structural) {
		verdict_deny(v, "%s", c->structural);
		return;
	}
	size_t len = 1;
	for (size_t i = 0; i < c->n_msgs; i++)
		len += strlen(c->msgs[i]) + 1;
	char *hard = gt_xcalloc(len, 1);
	for (size_t i = 0; i < c->n_msgs; i++) {
		bool warning = c->kinds[i] == MIN_EXCEEDS_CHILDREN || (update && c->kinds[i] == MIN_PARENT_MEMBER);
		if (warning) {
			verdict_warn(v, "%s", c->msgs[i]);
			continue;
		}
		if (*hard)
			strcat(hard, "\n");
		strcat(hard, c->msgs[i]);
	}
	if (*hard)
		verdict_deny(v, "%s", hard);
	else
		verdict_allow(v);
	free(hard);
}

void podgroup_validate(const struct review *r, struct verdict *v)
{
	if (r->op != OP_CREATE && r->op != OP_UPDATE) {
		verdict_allow(v);
		return;
	}
	json_t *spec = json_object_get(r->object, "spec"), *list = json_object_get(spec, "subGroups");
	size_t n = json_is_array(list) ? json_array_size(list) : 0;
	struct subgroup *sg = gt_xcalloc(n + 1, sizeof(*sg));
	struct pg_check c = { .sg = sg, .n = n };
	bool has_mm, has_msg;
	long long mm, msg;
	if ((spec && !json_is_object(spec) && !json_is_null(spec)) || (list && !json_is_array(list) &&
								       !json_is_null(list)) ||
	    !opt_int(spec, "minMember", &has_mm, &mm) || !opt_int(spec, "minSubGroup", &has_msg, &msg) ||
	    !read_subgroups(list, sg, n)) {
		verdict_error(v, 400, "podgroup %s/%s: spec.minMember, spec.minSubGroup and spec.subGroups[] (name, "
			      "parent, minMember, minSubGroup) must have the PodGroup's types", r->ns, r->name);
	} else {
		check_spec(&c, has_mm, mm, has_msg, msg);
		pg_verdict(&c, r->op == OP_UPDATE, v);
	}
	free(c.structural);
	for (size_t i = 0; i < c.n_msgs; i++)
		free(c.msgs[i]);
	free(c.msgs);
	free(c.kinds);
	free(sg);
}
