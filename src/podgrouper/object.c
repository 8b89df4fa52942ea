/*
 * object.c - reading Kubernetes objects the way the grouping rules need them
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"

static const char *meta_str(const struct gt_doc *d, const char *key)
{
	return gt_doc_str(gt_doc_get(d, "metadata"), key);
}

const char *gt_pg_kind(const struct gt_doc *d)
{
	const char *k = gt_doc_str(d, "kind");
	return k ? k : "";
}

const char *gt_pg_name(const struct gt_doc *d)
{
	const char *n = meta_str(d, "name");
	return n ? n : "";
}

/* Manifests often leave the namespace out; kubectl applies them to "default". */
const char *gt_pg_ns(const struct gt_doc *d)
{
	const char *n = meta_str(d, "namespace");
	return n ? n : "default";
}

const char *gt_pg_uid(const struct gt_doc *d)
{
	return meta_str(d, "uid");
}

const char *gt_pg_api_version(const struct gt_doc *d)
{
	const char *v = gt_doc_str(d, "apiVersion");
	return v ? v : "v1";
}

void gt_pg_group_version(const struct gt_doc *d, char *group, size_t size, const char **version)
{
	const char *api = gt_pg_api_version(d);
	const char *slash = strchr(api, '/');
	size_t len = slash ? (size_t)(slash - api) : 0;	/* "v1" is the core group */
	*version = slash ? slash + 1 : api;
	if (!size)
		return;
	if (len >= size)
		len = size - 1;
	memcpy(group, api, len);
	group[len] = '\0';
}

bool gt_pg_in_group(const struct gt_doc *d, const char *group)
{
	char g[128];
	const char *version;
	gt_pg_group_version(d, g, sizeof(g), &version);
	return !strcmp(g, group);
}

struct gt_pg_id gt_pg_id(const struct gt_doc *d)
{
	struct gt_pg_id id;
	snprintf(id.s, sizeof(id.s), "%s %s/%s", gt_pg_kind(d), gt_pg_ns(d), gt_pg_name(d));
	return id;
}

/* A key the object lacks comes from the nearest skipped owner that has it. */
const char *gt_pg_meta(const struct gt_pg_obj *o, const char *field, const char *key)
{
	const char *v = gt_doc_str(gt_doc_get(gt_doc_get(o->doc, "metadata"), field), key);
	for (int i = 0; !v && i < o->n_extra; i++)
		v = gt_doc_str(gt_doc_get(gt_doc_get(o->extra[i], "metadata"), field), key);
	return v;
}

const char *gt_pg_label(const struct gt_pg_obj *o, const char *key)
{
	return gt_pg_meta(o, "labels", key);
}

const char *gt_pg_annotation(const struct gt_pg_obj *o, const char *key)
{
	return gt_pg_meta(o, "annotations", key);
}

int gt_pg_int(const struct gt_doc *d, int64_t *out)
{
	if (gt_doc_is_null(d))
		return GT_ENOTFOUND;
	if (d->kind != GT_DOC_SCALAR)
		return GT_EINVAL;
	return gt_parse_int(d->scalar, out);
}

static bool is_object(const struct gt_doc *d, const char *kind, const char *ns, const char *name)
{
	return !strcmp(gt_pg_kind(d), kind) && !strcmp(gt_pg_name(d), name) &&
	       !strcmp(gt_pg_ns(d), ns);
}

const struct gt_doc *gt_pg_find(const struct gt_pg_ctx *x, const char *kind, const char *ns,
				const char *name)
{
	const struct gt_pg_request *r = x->req;
	for (size_t i = 0; i < r->n_owners; i++)
		if (is_object(r->owners[i], kind, ns, name))
			return r->owners[i];
	if (r->index) {
		int32_t cursor;
		return gt_pg_index_find(r->index, kind, ns, name, &cursor);
	}
	for (size_t i = 0; i < r->n_related; i++)
		if (is_object(r->related[i], kind, ns, name))
			return r->related[i];
	return NULL;
}

int gt_pg_fail(struct gt_pg_ctx *x, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (x->err) {
		vsnprintf(x->err->msg, sizeof(x->err->msg), fmt, ap);
		x->err->code = GT_EINVAL;
	}
	va_end(ap);
	return GT_EINVAL;
}

const struct gt_doc *gt_pg_each_of_kind(const struct gt_pg_ctx *x, const char *kind,
					struct gt_pg_iter *it)
{
	const struct gt_pg_request *r = x->req;
	if (r->index) {
		if (it->cursor == -2)
			return gt_pg_index_first_of_kind(r->index, kind, &it->cursor);
		return gt_pg_index_next_of_kind(r->index, &it->cursor);
	}
	while (it->i < r->n_related) {
		const struct gt_doc *d = r->related[it->i++];
		if (!strcmp(gt_pg_kind(d), kind))
			return d;
	}
	return NULL;
}

int gt_pg_parse_count(const char *v, int32_t *out)
{
	int64_t n;
	if (!v || gt_parse_int(v, &n) || n < 1 || n > INT32_MAX)
		return GT_EINVAL;
	*out = (int32_t)n;
	return 0;
}
