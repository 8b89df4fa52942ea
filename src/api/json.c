#include "api/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/num.h"

static struct gt_doc *from_json(const json_t *v)
{
	char buf[64];
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		struct gt_doc *d = gt_doc_new(GT_DOC_MAP);
		size_t n = json_object_size(v);
		d->cap = n ? n : 1;
		d->keys = gt_xmalloc(d->cap * sizeof(*d->keys));
		d->items = gt_xmalloc(d->cap * sizeof(*d->items));
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
		d->cap = n ? n : 1;
		d->items = gt_xmalloc(d->cap * sizeof(*d->items));
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

/* Text gathered and written a buffer at a time. */
struct printer {
	FILE *f;
	size_t n;
	int indent;
	char s[1 << 16];
};

static void put(struct printer *p, const char *s, size_t len)
{
	if (len > sizeof(p->s) - p->n) {
		fwrite(p->s, 1, p->n, p->f);
		p->n = 0;
		if (len > sizeof(p->s)) {
			fwrite(s, 1, len, p->f);
			return;
		}
	}
	memcpy(p->s + p->n, s, len);
	p->n += len;
}

static void flush(struct printer *p)
{
	fwrite(p->s, 1, p->n, p->f);
	p->n = 0;
}

/*
 * A string as jansson's dump writes it: '"', '\\' and control characters
 * escaped (the common ones by letter, the others as \u00XX in capitals),
 * everything else, UTF-8 included, as it is. jansson's strings are valid
 * UTF-8 (json_string() refuses others), so there is nothing to check.
 */
static void put_string(struct printer *p, const char *s, size_t len)
{
	put(p, "\"", 1);
	size_t start = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		put(p, s + start, i - start);
		/* the escapes by letter, as pairs: the character, then the letter */
		static const char letters[] = "\"\"\\\\\bb\ff\nn\rr\tt";
		char esc[8] = "\\";
		const char *l = memchr(letters, c, sizeof(letters) - 1);
		if (l && (l - letters) % 2 == 0) {
			esc[1] = l[1];
			esc[2] = '\0';
		} else {
			snprintf(esc, sizeof(esc), "\\u%04X", c);
		}
		put(p, esc, strlen(esc));
		start = i + 1;
	}
	put(p, s + start, len - start);
	put(p, "\"", 1);
}

/*
 * A real as jansson writes it with JSON_REAL_PRECISION(10): "%.10g", ".0"
 * added when that reads as an integer, the exponent without '+' or
 * leading zeros.
 */
static void put_real(struct printer *p, double v)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf) - 2, "%.10g", v);
	if (n < 0 || (size_t)n >= sizeof(buf) - 2)
		return;
	if (!strchr(buf, '.') && !strchr(buf, 'e')) {
		memcpy(buf + n, ".0", 3);
		n += 2;
	}
	char *e = strchr(buf, 'e');
	if (e) {
		char *start = e + 1, *end = e + 2;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, (size_t)(buf + n - end) + 1);
			n -= (int)(end - start);
		}
	}
	put(p, buf, (size_t)n);
}

static void put_scalar(struct printer *p, const json_t *v)
{
	char buf[32];
	switch (json_typeof(v)) {
	case JSON_STRING:
		put_string(p, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER: {
		int n = snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		put(p, buf, (size_t)n);
		break;
	}
	case JSON_REAL:
		put_real(p, json_real_value(v));
		break;
	case JSON_TRUE:
		put(p, "true", 4);
		break;
	case JSON_FALSE:
		put(p, "false", 5);
		break;
	default:
		put(p, "null", 4);
		break;
	}
}

/* A new line and @depth levels of indentation. */
static void put_indent(struct printer *p, int depth)
{
	static const char spaces[] = "                                ";
	put(p, "\n", 1);
	for (size_t n = (size_t)depth * (size_t)p->indent; n;) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		put(p, spaces, k);
		n -= k;
	}
}

static void put_value(struct printer *p, const json_t *v, int depth)
{
	if (json_is_object(v)) {
		put(p, "{", 1);
		void *it = json_object_iter((json_t *)v);
		if (it)
			put_indent(p, depth + 1);
		while (it) {
			void *next = json_object_iter_next((json_t *)v, it);
			put_string(p, json_object_iter_key(it), json_object_iter_key_len(it));
			put(p, ": ", 2);
			put_value(p, json_object_iter_value(it), depth + 1);
			if (next)
				put(p, ",", 1);
			put_indent(p, next ? depth + 1 : depth);
			it = next;
		}
		put(p, "}", 1);
	} else if (json_is_array(v)) {
		size_t n = json_array_size(v);
		put(p, "[", 1);
		if (n)
			put_indent(p, depth + 1);
		for (size_t i = 0; i < n; i++) {
			put_value(p, json_array_get(v, i), depth + 1);
			if (i + 1 < n)
				put(p, ",", 1);
			put_indent(p, i + 1 < n ? depth + 1 : depth);
		}
		put(p, "]", 1);
	} else {
		put_scalar(p, v);
	}
}

void gt_json_print(FILE *f, const json_t *j, int indent)
{
	if (!json_is_object(j) && !json_is_array(j))
		return;		/* as json_dumpf without JSON_ENCODE_ANY */
	struct printer *p = gt_xmalloc(sizeof(*p));
	p->f = f;
	p->n = 0;
	p->indent = indent;
	put_value(p, j, 0);
	flush(p);
	free(p);
}

/* ---------------------------------------------------------------- YAML */

/* A scalar as JSON writes it: strings double-quoted with JSON's escapes, which YAML reads alike. */
static void yaml_scalar(FILE *f, const json_t *v)
{
	char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
	fputs(s ? s : "null", f);
	free(s);
}

static bool plain_key(const char *k)
{
	if (!*k)
		return false;
	for (const char *p = k; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./", *p))
			return false;
	return true;
}

static bool is_container(const json_t *v)
{
	return (json_is_object(v) && json_object_size(v)) || (json_is_array(v) && json_array_size(v));
}

static void yaml_value(FILE *f, const json_t *v, int indent);

/* The pairs of @o, the first one on the current line when @inline_first. */
static void yaml_object(FILE *f, const json_t *o, int indent, bool inline_first)
{
	const char *k;
	json_t *v;
	bool first = true;
	json_object_foreach((json_t *)o, k, v) {
		if (!(first && inline_first))
			fprintf(f, "%*s", indent, "");
		first = false;
		if (plain_key(k)) {
			fputs(k, f);
		} else {
			json_t *key = json_string(k);
			yaml_scalar(f, key);
			json_decref(key);
		}
		fputc(':', f);
		yaml_value(f, v, indent + 2);
	}
}

static void yaml_value(FILE *f, const json_t *v, int indent)
{
	if (!is_container(v)) {
		fputc(' ', f);
		if (json_is_object(v))
			fputs("{}", f);
		else if (json_is_array(v))
			fputs("[]", f);
		else
			yaml_scalar(f, v);
		fputc('\n', f);
		return;
	}
	fputc('\n', f);
	if (json_is_object(v)) {
		yaml_object(f, v, indent, false);
		return;
	}
	for (size_t i = 0; i < json_array_size(v); i++) {
		const json_t *item = json_array_get(v, i);
		fprintf(f, "%*s-", indent - 2 > 0 ? indent - 2 : 0, "");
		if (json_is_object(item) && json_object_size(item)) {
			fputc(' ', f);
			yaml_object(f, item, indent, true);
		} else {
			yaml_value(f, item, indent);
		}
	}
}

void gt_json_print_yaml(FILE *f, const json_t *j)
{
	if (json_is_object(j) && json_object_size(j))
		yaml_object(f, j, 0, false);
	else
		yaml_value(f, j, 0);
}
