/*
 * patch.c - the JSON Patch (RFC 6902) between an object and its mutation
 *
 * The mutating webhook changes a copy of the pod and answers with the
 * operations that turn the original into it. Objects are compared member by
 * member (add, remove, or descend); anything else that differs - an array,
 * a scalar, a value whose type changed - is replaced whole. An env list
 * that gained three entries becomes one "add" of the new list: as good for
 * the API server as KAI's finer patch, and a patch that is correct by
 * construction. Keys are escaped as RFC 6901 says ("~" as "~0", "/" as
 * "~1": runai/shared-gpu-configmap is runai~1shared-gpu-configmap).
 */
#include <stdlib.h>
#include <string.h>

#include "admission/internal.h"
#include "util/mem.h"

/* @base + "/" + @key escaped, to free(). */
static char *pointer_join(const char *base, const char *key)
{
	size_t n = strlen(base), extra = 0;
	for (const char *k = key; *k; k++)
		extra += *k == '~' || *k == '/';
	char *out = gt_xmalloc(n + strlen(key) + extra + 2), *o = out;
	memcpy(o, base, n);
	o += n;
	*o++ = '/';
	for (const char *k = key; *k; k++) {
		if (*k == '~' || *k == '/') {
			*o++ = '~';
			*o++ = *k == '~' ? '0' : '1';
		} else {
			*o++ = *k;
		}
	}
	*o = '\0';
	return out;
}

static void op(json_t *ops, const char *name, const char *path, const json_t *value)
{
	json_t *o = json_pack("{s:s, s:s}", "op", name, "path", path);
	if (value)
		json_object_set_new(o, "value", json_deep_copy(value));
	json_array_append_new(ops, o);
}

static void diff(json_t *ops, const char *path, const json_t *from, const json_t *to)
{
	if (json_equal(from, to))
		return;
	if (!json_is_object(from) || !json_is_object(to)) {
		op(ops, "replace", path, to);
		return;
	}
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)from, key, value) {
		if (!json_object_get(to, key)) {
			char *p = pointer_join(path, key);
			op(ops, "remove", p, NULL);
			free(p);
		}
	}
	json_object_foreach((json_t *)to, key, value) {
		char *p = pointer_join(path, key);
		json_t *old = json_object_get(from, key);
		if (!old)
			op(ops, "add", p, value);
		else
			diff(ops, p, old, value);
		free(p);
	}
}

json_t *json_patch_diff(const json_t *from, const json_t *to)
{
	json_t *ops = json_array();
	diff(ops, "", from, to);
	return ops;
}
