/*
 * doc_json.c - JSON as RFC 8259 writes it, straight into the tree
 *
 * Why not jansson, which Gantry links for the API server: on a large
 * `kubectl get -o json` (71 MB, 55,000 objects) json_loadb alone takes
 * 0.7-1.1 s, a value at a time through malloc, and it gives no place for
 * a value, so no message could point at a field. This reader builds the
 * tree in the input's arena as it goes, keeps the text of numbers as
 * written (the decoders read them strictly) and knows every value's line
 * and column. tests/unit/test_doc_json.c holds it to jansson's verdict on
 * what is JSON and what a string says.
 *
 * What is read: a stream of values (kubectl and jq write one after the
 * other), optionally with YAML's "---" lines between them. Strings must be
 * UTF-8; escapes, surrogate pairs included, are decoded. A string that
 * cannot be one (bad UTF-8, a control character, a lone surrogate, NUL)
 * damages its object, which is left out with a message while the rest is
 * read; a syntax error ends the input there, keeping the objects of a v1
 * List that ended before it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/doc_int.h"
#include "util/mem.h"

struct reader {
	const char *p, *end;
	const char *line_start;	/* for columns */
	int line;
	size_t line_extra;	/* UTF-8 continuation bytes on this line before p: columns count characters */
	struct gt_doc_builder b;
	char *buf;		/* a string's decoded text */
	size_t cap_buf;
	bool failed;		/* a syntax error at fail_line:fail_col */
	int fail_line, fail_col;
	char why[200];
};

static int column(const struct reader *r, const char *p)
{
	return (int)(p - r->line_start - (ptrdiff_t)r->line_extra) + 1;
}

static int fail(struct reader *r, const char *p, const char *why)
{
	if (!r->failed) {
		r->failed = true;
		r->fail_line = r->line;
		r->fail_col = column(r, p);
		snprintf(r->why, sizeof(r->why), "%s", why);
	}
	return -1;
}

static void skip_ws(struct reader *r)
{
	const char *p = r->p, *end = r->end;
	for (;;) {
		/* indentation first, eight spaces at a time: most of an indented file */
		uint64_t w;
		while (end - p >= 8 && (memcpy(&w, p, 8), w == 0x2020202020202020ULL))
			p += 8;
		while (p < end && *p == ' ')
			p++;
		if (p >= end)
			break;
		if (*p == '\n') {
			r->line++;
			r->line_start = ++p;
			r->line_extra = 0;
		} else if (*p == '\t' || *p == '\r') {
			p++;
		} else {
			break;
		}
	}
	r->p = p;
}

/* ---------------------------------------------------------------- strings */

static void put(struct reader *r, size_t *n, const char *s, size_t len)
{
	GT_GROW(r->buf, *n + len + 1, r->cap_buf);
	memcpy(r->buf + *n, s, len);
	*n += len;
}

static void put_code(struct reader *r, size_t *n, uint32_t c)
{
	char u[4];
	size_t len;
	if (c < 0x80) {
		u[0] = (char)c;
		len = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xC0 | c >> 6);
		u[1] = (char)(0x80 | (c & 0x3F));
		len = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xE0 | c >> 12);
		u[1] = (char)(0x80 | (c >> 6 & 0x3F));
		u[2] = (char)(0x80 | (c & 0x3F));
		len = 3;
	} else {
		u[0] = (char)(0xF0 | c >> 18);
		u[1] = (char)(0x80 | (c >> 12 & 0x3F));
		u[2] = (char)(0x80 | (c >> 6 & 0x3F));
		u[3] = (char)(0x80 | (c & 0x3F));
		len = 4;
	}
	put(r, n, u, len);
}

/* The length of the well-formed UTF-8 character at @p (RFC 3629), or 0. */
static size_t utf8_char(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];
	size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
	if (!len || c > 0xF4 || (size_t)(end - p) < len)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F) ||	/* overlong, surrogate */
	    (c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] > 0x8F))	/* overlong, > U+10FFFF */
		return 0;
	return len;
}

static int hex4(const char *p, const char *end, uint32_t *out)
{
	if (end - p < 4)
		return -1;
	uint32_t v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* A \u escape at r->p (after the backslash's 'u'), a surrogate pair in full; the character in @out. */
static const char *unicode_escape(struct reader *r, const char *p, uint32_t *out, const char **bad)
{
	uint32_t c, lo;
	*bad = NULL;
	*out = 0xFFFD;
	if (hex4(p, r->end, &c)) {
		*bad = "a \\u escape needs four hexadecimal digits";
		return p;
	}
	p += 4;
	if (c >= 0xDC00 && c <= 0xDFFF) {
		*bad = "a lone UTF-16 low surrogate (\\udc00-\\udfff) is no character";
	} else if (c >= 0xD800 && c <= 0xDBFF) {
		if (r->end - p >= 6 && p[0] == '\\' && p[1] == 'u' && !hex4(p + 2, r->end, &lo) && lo >= 0xDC00 &&
		    lo <= 0xDFFF) {
			c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
			p += 6;
		} else {
			*bad = "a UTF-16 high surrogate (\\ud800-\\udbff) must be followed by a low one";
		}
	} else if (c == 0) {
		*bad = "holds a NUL character (\\u0000)";
	}
	*out = *bad ? 0xFFFD : c;
	return p;
}

/*
 * The string at r->p (its opening quote): its text in *@s, *@len (in the
 * input or in r->buf). A string that is no text damages the object; an
 * unterminated one is a syntax error (-1).
 */
static int string(struct reader *r, const char **s, size_t *len)
{
	const char *start = ++r->p, *p = start;
	/* the common case: plain ASCII, no escape, pointed at where it is */
	while (p < r->end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x80)
		p++;
	if (p < r->end && *p == '"') {
		*s = start;
		*len = (size_t)(p - start);
		r->p = p + 1;
		return 0;
	}
	size_t n = 0;
	put(r, &n, start, (size_t)(p - start));
	while (p < r->end && *p != '"') {
		unsigned char c = (unsigned char)*p;
		const char *bad = NULL;
		int bad_col = column(r, p);
		if (c == '\\') {
			if (r->end - p < 2)
				break;
			const char *esc = "\"\\/bfnrt", *val = "\"\\/\b\f\n\r\t", *k = strchr(esc, p[1]);
			if (p[1] == 'u') {
				uint32_t code;
				p = unicode_escape(r, p + 2, &code, &bad);
				put_code(r, &n, code);
			} else if (p[1] && k) {
				put(r, &n, val + (k - esc), 1);
				p += 2;
			} else {
				bad = "an escape other than \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX";
				p += 2;
			}
		} else if (c < 0x20) {
			bad = c == '\n' ? "a string does not end on its line (a newline must be written \\n)"
					: "a control character must be escaped";
			if (c == '\n') {
				r->line++;
				r->line_start = p + 1;
				r->line_extra = 0;
			}
			p++;
		} else if (c < 0x80) {
			put(r, &n, p++, 1);
		} else {
			size_t k = utf8_char((const unsigned char *)p, (const unsigned char *)r->end);
			if (k) {
				put(r, &n, p, k);
				r->line_extra += k - 1;
				p += k;
			} else {
				bad = "not UTF-8";
				put_code(r, &n, 0xFFFD);
				p++;
			}
		}
		if (bad)
			gt_db_damage(&r->b, r->line, bad_col, bad);
	}
	if (p >= r->end) {
		r->p = p;
		return fail(r, p, "the string does not end");
	}
	r->buf[n] = '\0';
	*s = r->buf;
	*len = n;
	r->p = p + 1;
	return 0;
}

/* ---------------------------------------------------------------- values */

static bool digit(const char *p, const char *end)
{
	return p < end && *p >= '0' && *p <= '9';
}

/* A number as RFC 8259 writes it, kept as its text. */
static int number(struct reader *r, int line, int col)
{
	const char *start = r->p, *p = r->p, *end = r->end;
	if (*p == '-')
		p++;
	if (!digit(p, end))
		return fail(r, p, "a number needs a digit here");
	if (*p == '0' && digit(p + 1, end))
		return fail(r, p, "a number does not start with 0 (leading zeros are not JSON)");
	while (digit(p, end))
		p++;
	if (p < end && *p == '.') {
		if (!digit(++p, end))
			return fail(r, p, "a number needs a digit after its point");
		while (digit(p, end))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (!digit(p, end))
			return fail(r, p, "a number needs a digit in its exponent");
		while (digit(p, end))
			p++;
	}
	r->p = p;
	gt_db_scalar(&r->b, start, (size_t)(p - start), false, line, col);
	return 0;
}

static int literal(struct reader *r, const char *word, int line, int col)
{
	size_t n = strlen(word);
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n))
		return fail(r, r->p, "expected a value (an object, array, string, number, true, false or null)");
	r->p += n;
	gt_db_scalar(&r->b, word, n, false, line, col);
	return 0;
}

static int value(struct reader *r, size_t depth);

/* Past the value at r->p without building it (it is too deep to keep). */
static int skip_value(struct reader *r)
{
	size_t open = 0;
	do {
		skip_ws(r);
		if (r->p >= r->end)
			return fail(r, r->p, "the input ends inside a value");
		char c = *r->p;
		if (c == '"') {
			const char *s;
			size_t len;
			if (string(r, &s, &len))
				return -1;
		} else {
			if (c == '{' || c == '[')
				open++;
			else if ((c == '}' || c == ']') && open)
				open--;
			r->p++;
		}
	} while (open);
	return 0;
}

static int object(struct reader *r, size_t depth, int line, int col)
{
	r->p++;
	gt_db_open(&r->b, GT_DOC_MAP, line, col);
	skip_ws(r);
	if (r->p < r->end && *r->p == '}') {
		r->p++;
		gt_db_close(&r->b);
		return 0;
	}
	for (;;) {
		skip_ws(r);
		if (r->p >= r->end || *r->p != '"')
			return fail(r, r->p, "expected a key (a string in double quotes)");
		int kline = r->line, kcol = column(r, r->p);
		const char *k;
		size_t klen;
		if (string(r, &k, &klen))
			return -1;
		gt_db_key(&r->b, k, klen, kline, kcol);
		skip_ws(r);
		if (r->p >= r->end || *r->p != ':')
			return fail(r, r->p, "expected ':' after the key");
		r->p++;
		if (value(r, depth))
			return -1;
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == '}') {
			r->p++;
			gt_db_close(&r->b);
			return 0;
		}
		return fail(r, r->p, "expected ',' or '}'");
	}
}

static int array(struct reader *r, size_t depth, int line, int col)
{
	r->p++;
	gt_db_open(&r->b, GT_DOC_SEQ, line, col);
	skip_ws(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
		gt_db_close(&r->b);
		return 0;
	}
	for (;;) {
		if (value(r, depth))
			return -1;
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == ']') {
			r->p++;
			gt_db_close(&r->b);
			return 0;
		}
		return fail(r, r->p, "expected ',' or ']'");
	}
}

static int value(struct reader *r, size_t depth)
{
	skip_ws(r);
	if (r->p >= r->end)
		return fail(r, r->p, "the input ends where a value should be");
	int line = r->line, col = column(r, r->p);
	switch (*r->p) {
	case '{':
	case '[':
		if (depth >= GT_DOC_MAX_DEPTH) {
			char why[80];
			snprintf(why, sizeof(why), "nested deeper than %d levels", GT_DOC_MAX_DEPTH);
			gt_db_damage(&r->b, line, col, why);
			gt_db_scalar(&r->b, "", 0, false, line, col);
			return skip_value(r);
		}
		return *r->p == '{' ? object(r, depth + 1, line, col) : array(r, depth + 1, line, col);
	case '"': {
		const char *s;
		size_t len;
		if (string(r, &s, &len))
			return -1;
		gt_db_scalar(&r->b, s, len, true, line, col);
		return 0;
	}
	case 't':
		return literal(r, "true", line, col);
	case 'f':
		return literal(r, "false", line, col);
	case 'n':
		return literal(r, "null", line, col);
	default:
		if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
			return number(r, line, col);
		return fail(r, r->p, "expected a value (an object, array, string, number, true, false or null)");
	}
}

/* Between values: white space, and "---" lines as YAML separates documents. */
static void between(struct reader *r)
{
	for (;;) {
		skip_ws(r);
		const char *p = r->p;
		if (p != r->line_start || r->end - p < 3 || memcmp(p, "---", 3) ||
		    (r->end - p > 3 && p[3] != '\n' && p[3] != '\r' && p[3] != ' '))
			return;
		r->p += 3;
	}
}

int gt_doc_parse_json(const char *text, size_t len, const char *name, struct gt_doc_list *out,
		      bool try_only);

int gt_doc_parse_json(const char *text, size_t len, const char *name, struct gt_doc_list *out,
		      bool try_only)
{
	struct gt_doc_list tmp = { 0 };
	struct reader r = { .p = text, .end = text + len, .line_start = text, .line = 1 };
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		r.p += 3;	/* a byte-order mark */
	gt_db_init(&r.b, gt_doc_input_new(&tmp, name), &tmp);
	size_t values = 0;	/* read to their end, kept or not */
	for (;;) {
		between(&r);
		size_t before = r.b.n_docs + tmp.n_errors;
		if (r.p >= r.end || value(&r, 0))
			break;
		values += r.b.n_docs + tmp.n_errors > before;
	}
	if (r.failed && try_only && !values) {
		/* not JSON from its first value on: YAML's turn */
		gt_db_release(&r.b);
		free(r.buf);
		gt_doc_list_release(&tmp);
		return -1;
	}
	if (r.failed)
		gt_db_fail(&r.b, r.fail_line, r.fail_col, "JSON", r.why, true);
	gt_db_release(&r.b);
	free(r.buf);
	gt_doc_list_move(out, &tmp);
	return 0;
}
