/*
 * index.c - objects by kind, namespace and name, and by kind alone
 *
 * Each distinct key gets a dense id from a string table; objects that share
 * a key (the same name in two API groups) are chained, so a lookup never
 * misses one. A second chain links all objects of one kind (the cluster's
 * Kartas, the PodGroups a JobSet's legacy shape is recognised by).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"
#include "util/concat.h"
#include "util/mem.h"

/* The key of an object; false when it does not fit (such an object is not indexed). */
static bool make_key(char *buf, size_t size, const char *kind, const char *ns, const char *name)
{
	return gt_concat(buf, size, kind, "\n", ns, "\n", name, (char *)NULL) < size;
}

/* Append object @i to the chain of key @id in @tab (@first/@next/@last by id and object). */
static void chain(struct gt_strtab *tab, const char *key, int32_t i, int32_t *first, int32_t *next,
		  int32_t *last)
{
	size_t before = tab->n_strs;
	uint32_t id = gt_strtab_intern(tab, key);
	if (tab->n_strs > before)
		first[id] = i;
	else
		next[last[id]] = i;
	last[id] = i;
}

void gt_pg_index_build(struct gt_pg_index *ix, const struct gt_doc *const *objs, size_t n)
{
	size_t slots = n ? n : 1;
	memset(ix, 0, sizeof(*ix));
	ix->objs = objs;
	ix->n = n;
	gt_strtab_init(&ix->keys);
	gt_strtab_init(&ix->kinds);
	ix->first = gt_xmalloc(slots * sizeof(*ix->first));
	ix->next = gt_xmalloc(slots * sizeof(*ix->next));
	ix->kind_first = gt_xmalloc(slots * sizeof(*ix->kind_first));
	ix->kind_next = gt_xmalloc(slots * sizeof(*ix->kind_next));
	int32_t *last = gt_xmalloc(slots * sizeof(*last));	/* key id -> tail */
	int32_t *kind_last = gt_xmalloc(slots * sizeof(*kind_last));
	for (size_t i = 0; i < n; i++) {
		char key[800];
		ix->next[i] = ix->kind_next[i] = -1;
		chain(&ix->kinds, gt_pg_kind(objs[i]), (int32_t)i, ix->kind_first, ix->kind_next,
		      kind_last);
		if (make_key(key, sizeof(key), gt_pg_kind(objs[i]), gt_pg_ns(objs[i]),
			     gt_pg_name(objs[i])))
			chain(&ix->keys, key, (int32_t)i, ix->first, ix->next, last);
	}
	free(last);
	free(kind_last);
	ix->kartas = gt_pg_kartas_build(ix);
}

void gt_pg_index_release(struct gt_pg_index *ix)
{
	gt_pg_kartas_free(ix->kartas);
	gt_strtab_release(&ix->keys);
	gt_strtab_release(&ix->kinds);
	free(ix->first);
	free(ix->next);
	free(ix->kind_first);
	free(ix->kind_next);
	memset(ix, 0, sizeof(*ix));
}

const struct gt_doc *gt_pg_index_find(const struct gt_pg_index *ix, const char *kind,
				      const char *ns, const char *name, int32_t *cursor)
{
	char key[800];
	int64_t id = make_key(key, sizeof(key), kind, ns, name) ? gt_strtab_find(&ix->keys, key) : -1;
	*cursor = id < 0 ? -1 : ix->first[id];
	return *cursor < 0 ? NULL : ix->objs[*cursor];
}

const struct gt_doc *gt_pg_index_next(const struct gt_pg_index *ix, int32_t *cursor)
{
	if (*cursor >= 0)
		*cursor = ix->next[*cursor];
	return *cursor < 0 ? NULL : ix->objs[*cursor];
}

const struct gt_doc *gt_pg_index_first_of_kind(const struct gt_pg_index *ix, const char *kind,
					       int32_t *cursor)
{
	int64_t id = gt_strtab_find(&ix->kinds, kind);
	*cursor = id < 0 ? -1 : ix->kind_first[id];
	return *cursor < 0 ? NULL : ix->objs[*cursor];
}

const struct gt_doc *gt_pg_index_next_of_kind(const struct gt_pg_index *ix, int32_t *cursor)
{
	if (*cursor >= 0)
		*cursor = ix->kind_next[*cursor];
	return *cursor < 0 ? NULL : ix->objs[*cursor];
}
