/*
 * rules_custom.c - grouping rules for custom resources, from configuration
 *
 * Most operators follow one of two shapes: a replica count at some path
 * (spec.replicas), or roles, each with its own count, as a map
 * (spec.replicaSpecs: {Master: {replicas: 1}, Worker: {replicas: 4}}) or a
 * list (spec.roles: [{name: worker, replicas: 4}]). A rule says where the
 * counts live and which pod label names a pod's role; the gang is the sum of
 * the counts, with one sub-group per role, as KAI does for Kubeflow jobs.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "podgrouper/internal.h"

struct role {
	const char *name;
	int64_t count;
};

#define MAX_ROLES 64

static int role_count(struct gt_pg_ctx *x, const struct gt_pg_custom_rule *r,
		      const struct gt_doc *role, const char *where, int64_t *count)
{
	/* a bare number ({worker: 4}) is the count itself */
	const struct gt_doc *v = role->kind == GT_DOC_SCALAR ? role
							      : gt_doc_path(role, r->replicas_field);
	int rc = gt_pg_int(v, count);
	if (rc == GT_ENOTFOUND)
		return gt_pg_fail(x, "%s: %s has no %s (podgrouper configuration, replicasField)",
				  gt_pg_id(x->top.doc).s, where, r->replicas_field);
	if (rc || *count < 0 || *count > INT32_MAX)
		return gt_pg_fail(x, "%s: %s%s%s is not a replica count", gt_pg_id(x->top.doc).s,
				  where, role->kind == GT_DOC_SCALAR ? "" : ".",
				  role->kind == GT_DOC_SCALAR ? "" : r->replicas_field);
	return 0;
}

/* The roles under @d (a map or a list), with their counts. */
static int read_roles(struct gt_pg_ctx *x, const struct gt_pg_custom_rule *r,
		      const struct gt_doc *d, struct role *roles, size_t *n)
{
	*n = 0;
	if (d->n > MAX_ROLES)
		return gt_pg_fail(x, "%s: %s has more than %d roles", gt_pg_id(x->top.doc).s,
				  r->replicas, MAX_ROLES);
	for (size_t i = 0; i < d->n; i++) {
		char where[200];
		const char *name = d->kind == GT_DOC_MAP ? d->keys[i]
							 : gt_doc_str(d->items[i], r->role_name_field);
		if (d->kind == GT_DOC_MAP && name)
			snprintf(where, sizeof(where), "%s.%s", r->replicas, name);
		else
			snprintf(where, sizeof(where), "%s[%zu]", r->replicas, i);
		if (!name)
			return gt_pg_fail(x, "%s: %s has no %s naming its role (podgrouper "
					  "configuration, roleNameField)", gt_pg_id(x->top.doc).s,
					  where, r->role_name_field);
		roles[*n].name = name;
		int rc = role_count(x, r, d->items[i], where, &roles[*n].count);
		if (rc)
			return rc;
		(*n)++;
	}
	return 0;
}

static void lower(char *dst, size_t size, const char *s)
{
	size_t i = 0;
	for (; s[i] && i + 1 < size; i++)
		dst[i] = (char)tolower((unsigned char)s[i]);
	dst[i] = '\0';
}

/* One sub-group per role that has pods; the pod joins its role's. */
static int role_subgroups(struct gt_pg_ctx *x, const struct gt_pg_custom_rule *r,
			  const struct role *roles, size_t n, struct gt_podgroup *pg)
{
	const char *mine = gt_obj_label(x->pod, r->role_label);
	for (size_t i = 0; i < n; i++) {
		char name[64];
		if (!roles[i].count)
			continue;
		lower(name, sizeof(name), roles[i].name);
		gt_pg_add_subgroup(pg, name, roles[i].count, NULL);
		if (mine && !strcasecmp(mine, roles[i].name))
			gt_pg_set(&pg->pod_subgroup, name);
	}
	if (!pg->pod_subgroup && pg->n_subgroups)
		return gt_pg_fail(x, "%s: its label %s %s%s%s names none of the roles of %s",
				  gt_pg_id(x->pod).s, r->role_label, mine ? "'" : "(missing)",
				  mine ? mine : "", mine ? "'" : "", gt_pg_id(x->top.doc).s);
	return 0;
}

static int gang(struct gt_pg_ctx *x, const struct gt_pg_custom_rule *r, struct gt_podgroup *pg)
{
	const struct gt_doc *d = gt_doc_path(x->top.doc, r->replicas);
	if (gt_doc_is_null(d))
		return gt_pg_fail(x, "%s has no %s (replica counts, podgrouper configuration)",
				  gt_pg_id(x->top.doc).s, r->replicas);
	struct role roles[MAX_ROLES];
	size_t n = 1;
	roles[0].name = NULL;
	int rc = d->kind == GT_DOC_SCALAR ? role_count(x, r, d, r->replicas, &roles[0].count)
					   : read_roles(x, r, d, roles, &n);
	if (rc)
		return rc;
	int64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += roles[i].count;
	if (total < 1 || total > INT32_MAX)
		return gt_pg_fail(x, "%s has %lld replicas in %s; a gang needs 1 to %d",
				  gt_pg_id(x->top.doc).s, (long long)total, r->replicas, INT32_MAX);
	pg->min_member = (int32_t)total;
	if (r->role_label && d->kind != GT_DOC_SCALAR)
		return role_subgroups(x, r, roles, n, pg);
	return 0;
}

int gt_pg_rule_custom(struct gt_pg_ctx *x, const struct gt_pg_custom_rule *r,
		      struct gt_podgroup *pg)
{
	gt_pg_default_top(x, &x->top, r->priority, pg);
	int rc = r->replicas ? gang(x, r, pg) : 0;
	if (rc || !r->min_member)
		return rc;
	int64_t v;
	rc = gt_pg_int(gt_doc_path(x->top.doc, r->min_member), &v);
	if (rc == GT_ENOTFOUND)
		return 0;	/* an optional override */
	if (rc || v < 1 || v > INT32_MAX)
		return gt_pg_fail(x, "%s: %s must be an integer of at least 1",
				  gt_pg_id(x->top.doc).s, r->min_member);
	pg->min_member = (int32_t)v;
	return 0;
}
