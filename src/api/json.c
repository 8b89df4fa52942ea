#include "api/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/emit.h"
#include "util/mem.h"
#include "util/num.h"

static struct gt_doc *from_json(const json_t *v)
{
	char buf[64];
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		struct gt_doc *d = gt_doc_new(GT_DOC_MAP);
		size_t n = json_object_size(v);	/* exactly its members (not grown) */
		d->keys = gt_xmalloc((n ? n : 1) * sizeof(*d->keys));
		d->items = gt_xmalloc((n ? n : 1) * sizeof(*d->items));
		const char *k;
		json_t *val;
		json_object_foreach((json_t *)v, k, val) {
			d->keys[d->n] = gt_xstrdup(k);
			d->items[d->n++] = from_json(val);
		}
		return d;
	}
	case JSON_ARRAY: {
		struct gt_doc *d = gt_doc_new(GT_DOC_SEQ);
		size_t n = json_array_size(v);
		d->items = gt_xmalloc((n ? n : 1) * sizeof(*d->items));	/* exactly its items (not grown) */
		for (size_t i = 0; i < n; i++)
			d->items[d->n++] = from_json(json_array_get(v, i));
		return d;
	}
	case JSON_STRING:
		return gt_doc_new_scalar(json_string_value(v), true);
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return gt_doc_new_scalar(buf, false);
	case JSON_REAL:
		/* 15 digits: 0.1 prints as 0.1, not 0.10000000000000001 */
		snprintf(buf, sizeof(buf), "%.15g", json_real_value(v));
		return gt_doc_new_scalar(buf, false);
	case JSON_TRUE:
		return gt_doc_new_scalar("true", false);
	case JSON_FALSE:
		return gt_doc_new_scalar("false", false);
	case JSON_NULL:
	default:
		return gt_doc_new_scalar("null", false);
	}
}

struct gt_doc *gt_doc_from_json(const json_t *v)
{
	return from_json(v);	/* no source lines: an object is named by kind and name */
}

void gt_doc_set(struct gt_doc *d, const char *const *keys, size_t n, const char *value,
		 bool quoted)
{
	for (size_t i = 0; i + 1 < n && d->kind == GT_DOC_MAP; i++)
		d = gt_doc_child_map(d, keys[i]);
	if (n && d->kind == GT_DOC_MAP)
		gt_doc_put(d, keys[n - 1], gt_doc_new_scalar(value, quoted));
}

json_t *gt_doc_to_json(const struct gt_doc *d)
{
	if (d->kind == GT_DOC_MAP) {
		json_t *o = json_object();
		for (size_t i = 0; i < d->n; i++)
			json_object_set_new(o, d->keys[i], gt_doc_to_json(d->items[i]));
		return o;
	}
	if (d->kind == GT_DOC_SEQ) {
		json_t *a = json_array();
		for (size_t i = 0; i < d->n; i++)
			json_array_append_new(a, gt_doc_to_json(d->items[i]));
		return a;
	}
	if (d->quoted)
		return json_string(d->scalar);
	if (!strcmp(d->scalar, "true") || !strcmp(d->scalar, "false"))
		return json_boolean(!strcmp(d->scalar, "true"));
	if (gt_doc_is_null(d))
		return json_null();
	int64_t v;
	if (!gt_parse_int(d->scalar, &v))
		return json_integer(v);
	double f;
	if (!gt_parse_number(d->scalar, &f))
		return json_real(f);
	return json_string(d->scalar);
}

static int b64_value(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

int gt_base64_decode(const char *in, unsigned char **out, size_t *len)
{
	size_t n = strlen(in);
	unsigned char *buf = gt_xmalloc(n / 4 * 3 + 4);
	size_t o = 0;
	unsigned acc = 0;
	int bits = 0;
	bool pad = false;
	for (const char *p = in; *p; p++) {
		if (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
			continue;
		if (*p == '=') {
			pad = true;
			continue;
		}
		int v = b64_value((unsigned char)*p);
		if (v < 0 || pad) {
			free(buf);
			return -1;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[o++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (bits >= 6) {
		free(buf);
		return -1;
	}
	buf[o] = '\0';
	*out = buf;
	*len = o;
	return 0;
}

char *gt_base64_encode(const unsigned char *in, size_t len)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = gt_xmalloc((len + 2) / 3 * 4 + 1), *o = out;
	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)in[i] << 16;
		if (i + 1 < len)
			v |= (unsigned)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		*o++ = abc[v >> 18 & 63];
		*o++ = abc[v >> 12 & 63];
		*o++ = i + 1 < len ? abc[v >> 6 & 63] : '=';
		*o++ = i + 2 < len ? abc[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

char *gt_json_dump(const json_t *j)
{
	/* JSON_ENCODE_ANY: a bare scalar too, so that NULL means out of memory only */
	char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!s)
		gt_out_of_memory(0);
	return s;
}

char *gt_json_dump_take(json_t *j)
{
	char *s = gt_json_dump(j);
	json_decref(j);
	return s;
}

/* ---------------------------------------------------------------- printing */

/* @v into @w, member by member. */
static void write_value(struct gt_emitter *w, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		gt_emit_object(w);
		for (void *it = json_object_iter((json_t *)v); it; it = json_object_iter_next((json_t *)v, it)) {
			gt_emit_key(w, json_object_iter_key(it), json_object_iter_key_len(it));
			write_value(w, json_object_iter_value(it));
		}
		gt_emit_close(w);
		break;
	case JSON_ARRAY:
		gt_emit_array(w);
		for (size_t i = 0; i < json_array_size(v); i++)
			write_value(w, json_array_get(v, i));
		gt_emit_close(w);
		break;
	case JSON_STRING:
		gt_emit_string(w, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		gt_emit_int(w, json_integer_value(v));
		break;
	case JSON_REAL:
		gt_emit_real(w, json_real_value(v));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		gt_emit_bool(w, json_is_true(v));
		break;
	default:
		gt_emit_null(w);
		break;
	}
}

void gt_json_print(FILE *f, const json_t *j, int indent)
{
	if (!json_is_object(j) && !json_is_array(j))
		return;		/* as json_dumpf without JSON_ENCODE_ANY */
	struct gt_emitter *w = gt_emitter_new(f, false, indent);
	write_value(w, j);
	gt_emitter_free(w);
}

void gt_json_print_yaml(FILE *f, const json_t *j)
{
	struct gt_emitter *w = gt_emitter_new(f, true, 0);
	write_value(w, j);
	gt_emitter_free(w);
}
