/*
 * index.c - objects by kind, namespace and name
 *
 * Each distinct key gets a dense id from a string table; objects that share
 * a key (the same name in two API groups) are chained, so a lookup never
 * misses one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"
#include "util/mem.h"

/* The key of an object; false when it does not fit (such an object is not indexed). */
static bool make_key(char *buf, size_t size, const char *kind, const char *ns, const char *name)
{
	int n = snprintf(buf, size, "%s\n%s\n%s", kind, ns, name);
	return n >= 0 && (size_t)n < size;
}

void gt_pg_index_build(struct gt_pg_index *ix, const struct gt_doc *const *objs, size_t n)
{
	memset(ix, 0, sizeof(*ix));
	ix->objs = objs;
	ix->n = n;
	gt_strtab_init(&ix->keys);
	ix->first = gt_xmalloc((n ? n : 1) * sizeof(*ix->first));
	ix->next = gt_xmalloc((n ? n : 1) * sizeof(*ix->next));
	int32_t *last = gt_xmalloc((n ? n : 1) * sizeof(*last));	/* key id -> tail */
	for (size_t i = 0; i < n; i++) {
		char key[800];
		ix->next[i] = -1;
		if (!make_key(key, sizeof(key), gt_pg_kind(objs[i]), gt_pg_ns(objs[i]),
			      gt_pg_name(objs[i])))
			continue;
		size_t before = ix->keys.n_strs;
		uint32_t id = gt_strtab_intern(&ix->keys, key);
		if (ix->keys.n_strs > before)
			ix->first[id] = (int32_t)i;
		else
			ix->next[last[id]] = (int32_t)i;
		last[id] = (int32_t)i;
	}
	free(last);
}

void gt_pg_index_release(struct gt_pg_index *ix)
{
	gt_strtab_release(&ix->keys);
	free(ix->first);
	free(ix->next);
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
