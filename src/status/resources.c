#include "status/resources.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "util/err.h"
#include "util/mem.h"

void gt_rlist_release(struct gt_rlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Index of @name, or where it would go (*@found false). */
static size_t find(const struct gt_rlist *l, const char *name, bool *found)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(l->v[mid].name, name);
		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

void gt_rlist_add(struct gt_rlist *l, const char *name, int64_t milli, enum gt_qfmt fmt)
{
	bool found;
	size_t i = find(l, name, &found);
	if (found) {
		l->v[i].milli += milli;
		return;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->v = gt_xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	memmove(&l->v[i + 1], &l->v[i], (l->n - i) * sizeof(*l->v));
	l->v[i] = (struct gt_rq){ .name = gt_xstrdup(name), .milli = milli, .fmt = fmt };
	l->n++;
}

void gt_rlist_add_list(struct gt_rlist *l, const struct gt_rlist *o)
{
	for (size_t i = 0; i < o->n; i++)
		gt_rlist_add(l, o->v[i].name, o->v[i].milli, o->v[i].fmt);
}

int64_t gt_rlist_get(const struct gt_rlist *l, const char *name, bool *found)
{
	bool f;
	size_t i = find(l, name, &f);
	if (found)
		*found = f;
	return f ? l->v[i].milli : 0;
}

bool gt_rlist_equal(const struct gt_rlist *a, const struct gt_rlist *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].name, b->v[i].name) || a->v[i].milli != b->v[i].milli)
			return false;
	return true;
}

int gt_quantity_read(const char *s, int64_t *milli, enum gt_qfmt *fmt)
{
	if (gt_quantity_parse_milli(s, milli))
		return GT_EINVAL;
	size_t n = strlen(s);
	*fmt = n >= 2 && s[n - 1] == 'i' && strchr("KMGTPE", s[n - 2]) ? GT_QFMT_BINARY : GT_QFMT_DECIMAL;
	return 0;
}

/*
 * Kubernetes' canonical form (resource.Quantity.String): the largest unit
 * that leaves a whole number. A binary quantity below 1024, or not whole,
 * is written in decimal SI, as Kubernetes does.
 */
void gt_quantity_format(int64_t milli, enum gt_qfmt fmt, char *buf, size_t cap)
{
	static const char *const dec[] = { "", "k", "M", "G", "T", "P", "E" };
	static const char *const bin[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
	if (milli == 0) {
		snprintf(buf, cap, "0");
		return;
	}
	int64_t mag = milli < 0 ? -milli : milli;
	if (mag % 1000) {
		snprintf(buf, cap, "%" PRId64 "m", milli);
		return;
	}
	int64_t v = milli / 1000;
	int k = 0;
	if (fmt == GT_QFMT_BINARY && mag / 1000 >= 1024) {
		while (k < 6 && v % 1024 == 0) {
			v /= 1024;
			k++;
		}
		snprintf(buf, cap, "%" PRId64 "%s", v, bin[k]);
		return;
	}
	while (k < 6 && v % 1000 == 0) {
		v /= 1000;
		k++;
	}
	snprintf(buf, cap, "%" PRId64 "%s", v, dec[k]);
}

void gt_rlist_add_doc(struct gt_rlist *l, const struct gt_doc *d, const char **bad)
{
	if (!d || d->kind != GT_DOC_MAP)
		return;
	for (size_t i = 0; i < d->n; i++) {
		const struct gt_doc *v = d->items[i];
		int64_t m;
		enum gt_qfmt f;
		if (v->kind != GT_DOC_SCALAR || gt_quantity_read(v->scalar, &m, &f)) {
			if (bad && !*bad)
				*bad = d->keys[i];
			continue;
		}
		gt_rlist_add(l, d->keys[i], m, f);
	}
}

json_t *gt_rlist_to_json(const struct gt_rlist *l)
{
	json_t *o = json_object();
	for (size_t i = 0; i < l->n; i++) {
		char buf[48];
		gt_quantity_format(l->v[i].milli, l->v[i].fmt, buf, sizeof(buf));
		json_object_set_new(o, l->v[i].name, json_string(buf));
	}
	return o;
}
