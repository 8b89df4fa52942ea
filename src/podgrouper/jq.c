/*
 * jq.c - a small jq: a recursive-descent parser and a stream evaluator
 *
 * Every jq expression denotes a function from one input value to a stream
 * of outputs; eval() appends the outputs of a node for one input to a
 * vector. Operators combine the streams of their operands as jq does: the
 * right operand's outputs in the outer loop, the left's in the inner.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"
#include "podgrouper/jq.h"
#include "util/mem.h"

#define MAX_DEPTH 64

enum op {
	OP_IDENTITY, OP_FIELD, OP_INDEX, OP_ITER, OP_TRY, OP_LITERAL, OP_PIPE, OP_COMMA, OP_ALT,
	OP_OR, OP_AND, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_ADD, OP_SUB, OP_MUL, OP_DIV,
	OP_MOD, OP_NEG, OP_CALL,
};

enum fn {
	FN_SELECT, FN_HAS, FN_NOT, FN_TYPE, FN_LENGTH, FN_KEYS, FN_TO_ENTRIES, FN_TOSTRING,
	FN_TONUMBER, FN_ASCII_DOWNCASE, FN_EMPTY, FN_VALUES,
};

static const struct {
	const char *name;
	enum fn fn;
	bool arg;
} functions[] = {
	{ "select", FN_SELECT, true }, { "has", FN_HAS, true }, { "not", FN_NOT, false },
	{ "type", FN_TYPE, false }, { "length", FN_LENGTH, false }, { "keys", FN_KEYS, false },
	{ "to_entries", FN_TO_ENTRIES, false }, { "tostring", FN_TOSTRING, false },
	{ "tonumber", FN_TONUMBER, false }, { "ascii_downcase", FN_ASCII_DOWNCASE, false },
	{ "empty", FN_EMPTY, false }, { "values", FN_VALUES, false },
};

struct gt_jq {
	enum op op;
	struct gt_jq *a, *b;	/* operands; for paths, a is what the path applies to (NULL: .) */
	char *name;		/* OP_FIELD */
	struct gt_doc *literal;	/* OP_LITERAL */
	enum fn fn;		/* OP_CALL */
};

static struct gt_doc jq_true = { .kind = GT_DOC_SCALAR, .scalar = (char *)"true" };
static struct gt_doc jq_false = { .kind = GT_DOC_SCALAR, .scalar = (char *)"false" };

/* ---------------------------------------------------------------- values */

static bool numeric_text(const char *s, double *out)
{
	if (!*s || strspn(s, "0123456789+-.eE") != strlen(s))
		return false;
	char *end;
	double v = strtod(s, &end);
	if (*end || !isfinite(v))
		return false;
	if (out)
		*out = v;
	return true;
}

enum gt_jq_type gt_jq_type(const struct gt_doc *v)
{
	if (!v)
		return GT_JQ_NULL;
	if (v->kind == GT_DOC_MAP)
		return GT_JQ_OBJECT;
	if (v->kind == GT_DOC_SEQ)
		return GT_JQ_ARRAY;
	if (v->quoted)
		return GT_JQ_STRING;
	const char *s = v->scalar ? v->scalar : "";
	if (!*s || !strcmp(s, "null") || !strcmp(s, "~"))
		return GT_JQ_NULL;
	if (!strcmp(s, "true"))
		return GT_JQ_TRUE;
	if (!strcmp(s, "false"))
		return GT_JQ_FALSE;
	return numeric_text(s, NULL) ? GT_JQ_NUMBER : GT_JQ_STRING;
}

bool gt_jq_number(const struct gt_doc *v, double *out)
{
	return gt_jq_type(v) == GT_JQ_NUMBER && numeric_text(v->scalar, out);
}

static const char *type_name(enum gt_jq_type t)
{
	static const char *const names[] = { "null", "boolean", "boolean", "number", "string",
					     "array", "object" };
	return names[t];
}

static bool truthy(const struct gt_doc *v)
{
	enum gt_jq_type t = gt_jq_type(v);
	return t != GT_JQ_NULL && t != GT_JQ_FALSE;
}

/* ---------------------------------------------------------------- parsing */

struct parser {
	const char *src, *p;
	char *why;
	size_t why_size;
	int depth;
	bool failed;
};

static struct gt_jq *fail_parse(struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static struct gt_jq *fail_parse(struct parser *ps, const char *fmt, ...)
{
	if (ps->failed)
		return NULL;
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(ps->why, ps->why_size, "%s at column %d of '%s'", msg, (int)(ps->p - ps->src) + 1,
		 ps->src);
	ps->failed = true;
	return NULL;
}

static struct gt_jq *node(enum op op, struct gt_jq *a, struct gt_jq *b)
{
	struct gt_jq *n = gt_xcalloc(1, sizeof(*n));
	n->op = op;
	n->a = a;
	n->b = b;
	return n;
}

void gt_jq_free(struct gt_jq *q)
{
	if (!q)
		return;
	gt_jq_free(q->a);
	gt_jq_free(q->b);
	free(q->name);
	gt_doc_free(q->literal);
	free(q);
}

static void skip_space(struct parser *ps)
{
	while (*ps->p && isspace((unsigned char)*ps->p))
		ps->p++;
}

/* Is the next token @tok (and, for words, not the start of a longer word)? Consumes it if so. */
static bool accept(struct parser *ps, const char *tok)
{
	skip_space(ps);
	size_t len = strlen(tok);
	if (strncmp(ps->p, tok, len))
		return false;
	if (isalpha((unsigned char)tok[0]) &&
	    (isalnum((unsigned char)ps->p[len]) || ps->p[len] == '_'))
		return false;
	ps->p += len;
	return true;
}

static bool ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static char *read_ident(struct parser *ps)
{
	const char *start = ps->p;
	while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
		ps->p++;
	return gt_xstrndup(start, (size_t)(ps->p - start));
}

static void put_utf8(char **w, unsigned cp)
{
	if (cp < 0x80) {
		*(*w)++ = (char)cp;
	} else if (cp < 0x800) {
		*(*w)++ = (char)(0xc0 | cp >> 6);
		*(*w)++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*(*w)++ = (char)(0xe0 | cp >> 12);
		*(*w)++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*(*w)++ = (char)(0x80 | (cp & 0x3f));
	}
}

/* A string literal at ps->p (the opening quote); the text, or NULL after an error. */
static char *read_string(struct parser *ps)
{
	char *out = gt_xmalloc(strlen(ps->p) * 3 + 1), *w = out;
	for (ps->p++; *ps->p != '"'; ps->p++) {
		if (!*ps->p) {
			free(out);
			return (char *)fail_parse(ps, "unterminated string");
		}
		if (*ps->p != '\\') {
			*w++ = *ps->p;
			continue;
		}
		ps->p++;
		const char *esc = strchr("\"\\/bfnrt", *ps->p);
		if (esc && *ps->p) {
			*w++ = "\"\\/\b\f\n\r\t"[esc - "\"\\/bfnrt"];
		} else if (*ps->p == 'u' && strspn(ps->p + 1, "0123456789abcdefABCDEF") >= 4) {
			char hex[5] = { 0 };
			memcpy(hex, ps->p + 1, 4);
			put_utf8(&w, (unsigned)strtoul(hex, NULL, 16));
			ps->p += 4;
		} else {
			free(out);
			return (char *)fail_parse(ps, "unsupported escape '\\%c' (string interpolation "
						  "is not supported)", *ps->p ? *ps->p : ' ');
		}
	}
	ps->p++;
	*w = '\0';
	return out;
}

static struct gt_jq *literal(struct gt_doc *d)
{
	struct gt_jq *n = node(OP_LITERAL, NULL, NULL);
	n->literal = d;
	return n;
}

static struct gt_jq *parse_pipe(struct parser *ps);

/* .name / ."name" / .[...] after a term, or the term itself. */
static struct gt_jq *parse_postfix(struct parser *ps, struct gt_jq *t)
{
	while (t && !ps->failed) {
		skip_space(ps);
		if (ps->p[0] == '.' && (ident_start(ps->p[1]) || ps->p[1] == '"')) {
			ps->p++;
			struct gt_jq *f = node(OP_FIELD, t, NULL);
			f->name = *ps->p == '"' ? read_string(ps) : read_ident(ps);
			if (!f->name) {
				gt_jq_free(f);
				return NULL;
			}
			t = f;
		} else if (ps->p[0] == '[' || (ps->p[0] == '.' && ps->p[1] == '[')) {
			ps->p += ps->p[0] == '.' ? 2 : 1;
			if (accept(ps, "]")) {
				t = node(OP_ITER, t, NULL);
				continue;
			}
			struct gt_jq *idx = parse_pipe(ps);
			if (idx && accept(ps, ":")) {
				gt_jq_free(idx);
				idx = fail_parse(ps, "slices ([a:b]) are not supported");
			}
			if (idx && !accept(ps, "]")) {
				gt_jq_free(idx);
				idx = fail_parse(ps, "expected ']'");
			}
			if (!idx) {
				gt_jq_free(t);
				return NULL;
			}
			t = node(OP_INDEX, t, idx);
		} else if (accept(ps, "?")) {
			t = node(OP_TRY, t, NULL);
		} else {
			break;
		}
	}
	return t;
}

static struct gt_jq *parse_call(struct parser *ps, char *word)
{
	for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
		if (strcmp(functions[i].name, word))
			continue;
		free(word);
		struct gt_jq *n = node(OP_CALL, NULL, NULL);
		n->fn = functions[i].fn;
		if (!functions[i].arg)
			return n;
		if (!accept(ps, "(")) {
			gt_jq_free(n);
			return fail_parse(ps, "%s needs an argument: %s(f)", functions[i].name,
					  functions[i].name);
		}
		n->a = parse_pipe(ps);
		if (n->a && !accept(ps, ")"))
			fail_parse(ps, "expected ')'");
		if (ps->failed) {
			gt_jq_free(n);
			return NULL;
		}
		return n;
	}
	struct gt_jq *r = fail_parse(ps, "'%s' is not supported (Gantry's jq has select, has, not, "
				     "type, length, keys, to_entries, tostring, tonumber, "
				     "ascii_downcase, empty, values)", word);
	free(word);
	return r;
}

static struct gt_jq *parse_term(struct parser *ps)
{
	skip_space(ps);
	if (++ps->depth > MAX_DEPTH)
		return fail_parse(ps, "nested more than %d deep", MAX_DEPTH);
	struct gt_jq *t = NULL;
	const char *c = ps->p;
	if (c[0] == '.' && c[1] == '.') {
		t = fail_parse(ps, "recursive descent (..) is not supported");
	} else if (c[0] == '.' && (ident_start(c[1]) || c[1] == '"' || c[1] == '[')) {
		t = node(OP_IDENTITY, NULL, NULL);	/* the postfix loop reads the path */
	} else if (c[0] == '.') {
		ps->p++;
		t = node(OP_IDENTITY, NULL, NULL);
	} else if (accept(ps, "(")) {
		t = parse_pipe(ps);
		if (t && !accept(ps, ")")) {
			gt_jq_free(t);
			t = fail_parse(ps, "expected ')'");
		}
	} else if (c[0] == '"') {
		char *s = read_string(ps);
		t = s ? literal(gt_pg_doc_new_str(s)) : NULL;
		free(s);
	} else if (isdigit((unsigned char)c[0])) {
		char *end;
		strtod(c, &end);
		char *text = gt_xstrndup(c, (size_t)(end - c));
		ps->p = end;
		t = literal(gt_pg_doc_new_plain(text));
		free(text);
	} else if (accept(ps, "-")) {
		struct gt_jq *a = parse_term(ps);
		t = a ? node(OP_NEG, a, NULL) : NULL;
	} else if (ident_start(c[0])) {
		char *word = read_ident(ps);
		if (!strcmp(word, "true") || !strcmp(word, "false") || !strcmp(word, "null")) {
			t = literal(gt_pg_doc_new_plain(word));
			free(word);
		} else if (!strcmp(word, "if") || !strcmp(word, "reduce") || !strcmp(word, "def") ||
			   !strcmp(word, "foreach") || !strcmp(word, "try") ||
			   !strcmp(word, "label")) {
			t = fail_parse(ps, "'%s' is not supported", word);
			free(word);
		} else {
			t = parse_call(ps, word);
		}
	} else if (*c == '$' || *c == '{' || *c == '[' || *c == '@') {
		t = fail_parse(ps, "'%c' (variables, object or array construction, formats) is not "
			       "supported", *c);
	} else if (*c) {
		t = fail_parse(ps, "unexpected '%c'", *c);
	} else {
		t = fail_parse(ps, "the expression ends too early");
	}
	t = parse_postfix(ps, t);
	ps->depth--;
	return t;
}

static struct gt_jq *parse_mul(struct parser *ps)
{
	struct gt_jq *a = parse_term(ps);
	while (a) {
		skip_space(ps);
		enum op op;
		if (ps->p[0] == '*')
			op = OP_MUL;
		else if (ps->p[0] == '/' && ps->p[1] != '/')
			op = OP_DIV;
		else if (ps->p[0] == '%')
			op = OP_MOD;
		else
			break;
		ps->p++;
		struct gt_jq *b = parse_term(ps);
		a = b ? node(op, a, b) : (gt_jq_free(a), NULL);
	}
	return a;
}

static struct gt_jq *parse_add(struct parser *ps)
{
	struct gt_jq *a = parse_mul(ps);
	while (a) {
		enum op op;
		if (accept(ps, "+"))
			op = OP_ADD;
		else if (accept(ps, "-"))
			op = OP_SUB;
		else
			break;
		struct gt_jq *b = parse_mul(ps);
		a = b ? node(op, a, b) : (gt_jq_free(a), NULL);
	}
	return a;
}

static struct gt_jq *parse_cmp(struct parser *ps)
{
	static const struct {
		const char *tok;
		enum op op;
	} cmps[] = { { "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE }, { ">=", OP_GE },
		     { "<", OP_LT }, { ">", OP_GT } };
	struct gt_jq *a = parse_add(ps);
	for (size_t i = 0; a && i < sizeof(cmps) / sizeof(cmps[0]); i++) {
		if (!accept(ps, cmps[i].tok))
			continue;
		struct gt_jq *b = parse_add(ps);
		return b ? node(cmps[i].op, a, b) : (gt_jq_free(a), NULL);
	}
	return a;
}

static struct gt_jq *parse_and(struct parser *ps)
{
	struct gt_jq *a = parse_cmp(ps);
	while (a && accept(ps, "and")) {
		struct gt_jq *b = parse_cmp(ps);
		a = b ? node(OP_AND, a, b) : (gt_jq_free(a), NULL);
	}
	return a;
}

static struct gt_jq *parse_or(struct parser *ps)
{
	struct gt_jq *a = parse_and(ps);
	while (a && accept(ps, "or")) {
		struct gt_jq *b = parse_and(ps);
		a = b ? node(OP_OR, a, b) : (gt_jq_free(a), NULL);
	}
	return a;
}

/* Right-associative operators recurse: bound that as parse_term bounds nesting. */
static bool deeper(struct parser *ps)
{
	if (++ps->depth <= MAX_DEPTH)
		return true;
	fail_parse(ps, "nested more than %d deep", MAX_DEPTH);
	return false;
}

static struct gt_jq *parse_alt(struct parser *ps)
{
	if (!deeper(ps))
		return NULL;
	struct gt_jq *a = parse_or(ps);
	if (a && accept(ps, "//")) {
		struct gt_jq *b = parse_alt(ps);
		a = b ? node(OP_ALT, a, b) : (gt_jq_free(a), NULL);
	}
	ps->depth--;
	return a;
}

static struct gt_jq *parse_comma(struct parser *ps)
{
	struct gt_jq *a = parse_alt(ps);
	while (a && accept(ps, ",")) {
		struct gt_jq *b = parse_alt(ps);
		a = b ? node(OP_COMMA, a, b) : (gt_jq_free(a), NULL);
	}
	return a;
}

static struct gt_jq *parse_pipe(struct parser *ps)
{
	if (!deeper(ps))
		return NULL;
	struct gt_jq *a = parse_comma(ps);
	if (a && accept(ps, "|")) {
		struct gt_jq *b = parse_pipe(ps);
		a = b ? node(OP_PIPE, a, b) : (gt_jq_free(a), NULL);
	}
	ps->depth--;
	return a;
}

int gt_jq_parse(const char *src, struct gt_jq **out, char *why, size_t why_size)
{
	struct parser ps = { .src = src, .p = src, .why = why, .why_size = why_size };
	*out = NULL;
	struct gt_jq *q = parse_pipe(&ps);
	skip_space(&ps);
	if (q && *ps.p) {
		gt_jq_free(q);
		q = fail_parse(&ps, "unexpected '%c'", *ps.p);
	}
	if (!q) {
		if (!ps.failed)
			fail_parse(&ps, "not an expression");
		return GT_EINVAL;
	}
	*out = q;
	return 0;
}

/* ---------------------------------------------------------------- evaluation */

struct vec {
	const struct gt_doc **v;
	size_t n, cap;
};

struct ev {
	struct gt_jq_results *r;
	char *why;
	size_t why_size;
};

static void push(struct vec *o, const struct gt_doc *v)
{
	GT_PUSH(o->v, o->n, o->cap, v);
}

static int fail_eval(struct ev *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail_eval(struct ev *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->why, e->why_size, fmt, ap);
	va_end(ap);
	return GT_EINVAL;
}

static struct gt_doc *made(struct ev *e, struct gt_doc *d)
{
	GT_PUSH(e->r->made, e->r->n_made, e->r->cap_made, d);
	return d;
}

static const struct gt_doc *made_number(struct ev *e, double v)
{
	char buf[40];
	if (v == floor(v) && fabs(v) < 1e17)
		snprintf(buf, sizeof(buf), "%.0f", v);
	else
		snprintf(buf, sizeof(buf), "%.17g", v);
	return made(e, gt_pg_doc_new_plain(buf));
}

static const struct gt_doc *made_bool(bool b)
{
	return b ? &jq_true : &jq_false;
}

static const char *text_of(const struct gt_doc *v)
{
	return v && v->kind == GT_DOC_SCALAR && v->scalar ? v->scalar : "";
}

static int eval(struct ev *e, const struct gt_jq *q, const struct gt_doc *in, struct vec *out);

/* The outputs of @q on @in into a fresh vector (freed by the caller). */
static int eval_new(struct ev *e, const struct gt_jq *q, const struct gt_doc *in, struct vec *out)
{
	memset(out, 0, sizeof(*out));
	int rc = eval(e, q, in, out);
	if (rc) {
		free(out->v);
		memset(out, 0, sizeof(*out));
	}
	return rc;
}

static int compare(const struct gt_doc *a, const struct gt_doc *b);

static int rank(enum gt_jq_type t)
{
	return t == GT_JQ_TRUE ? 2 : t == GT_JQ_FALSE ? 1 : t == GT_JQ_NULL ? 0 : (int)t;
}

/* The keys of object @d in sorted order (indices into d->keys). */
static size_t *sorted_keys(const struct gt_doc *d)
{
	size_t *ix = gt_xmalloc((d->n ? d->n : 1) * sizeof(*ix));
	for (size_t i = 0; i < d->n; i++) {
		size_t k = i;
		for (; k > 0 && strcmp(d->keys[ix[k - 1]], d->keys[i]) > 0; k--)
			ix[k] = ix[k - 1];
		ix[k] = i;
	}
	return ix;
}

static int compare_objects(const struct gt_doc *a, const struct gt_doc *b)
{
	size_t *ka = sorted_keys(a), *kb = sorted_keys(b);
	int c = 0;
	for (size_t i = 0; !c && i < a->n && i < b->n; i++)
		c = strcmp(a->keys[ka[i]], b->keys[kb[i]]);
	if (!c && a->n != b->n)
		c = a->n < b->n ? -1 : 1;
	for (size_t i = 0; !c && i < a->n; i++)
		c = compare(a->items[ka[i]], b->items[kb[i]]);
	free(ka);
	free(kb);
	return c;
}

/* jq's total order: null < false < true < numbers < strings < arrays < objects. */
static int compare(const struct gt_doc *a, const struct gt_doc *b)
{
	enum gt_jq_type ta = gt_jq_type(a), tb = gt_jq_type(b);
	if (rank(ta) != rank(tb))
		return rank(ta) < rank(tb) ? -1 : 1;
	double x, y;
	switch (ta) {
	case GT_JQ_NUMBER:
		gt_jq_number(a, &x);
		gt_jq_number(b, &y);
		return x < y ? -1 : x > y;
	case GT_JQ_STRING: {
		int c = strcmp(text_of(a), text_of(b));
		return c < 0 ? -1 : c > 0;
	}
	case GT_JQ_ARRAY:
		for (size_t i = 0; i < a->n && i < b->n; i++) {
			int c = compare(a->items[i], b->items[i]);
			if (c)
				return c;
		}
		return a->n == b->n ? 0 : a->n < b->n ? -1 : 1;
	case GT_JQ_OBJECT:
		return compare_objects(a, b);
	default:
		return 0;
	}
}

static int index_value(struct ev *e, const struct gt_doc *l, const struct gt_doc *k,
		       struct vec *out)
{
	enum gt_jq_type tl = gt_jq_type(l), tk = gt_jq_type(k);
	double i;
	if (tl == GT_JQ_NULL && (tk == GT_JQ_STRING || tk == GT_JQ_NUMBER)) {
		push(out, NULL);
	} else if (tl == GT_JQ_OBJECT && tk == GT_JQ_STRING) {
		push(out, gt_doc_get(l, text_of(k)));
	} else if (tl == GT_JQ_ARRAY && gt_jq_number(k, &i)) {
		double at = floor(i) < 0 ? (double)l->n + floor(i) : floor(i);
		push(out, at >= 0 && at < (double)l->n ? l->items[(size_t)at] : NULL);
	} else {
		return fail_eval(e, "cannot index %s with %s", type_name(tl), type_name(tk));
	}
	return 0;
}

static int eval_path(struct ev *e, const struct gt_jq *q, const struct gt_doc *in, struct vec *out)
{
	struct vec l, k = { 0 };
	struct gt_doc key = { .kind = GT_DOC_SCALAR, .scalar = q->name, .quoted = true };
	int rc = 0;
	if (q->a) {
		rc = eval_new(e, q->a, in, &l);
	} else {
		memset(&l, 0, sizeof(l));
		push(&l, in);
	}
	if (!rc && q->op == OP_INDEX)
		rc = eval_new(e, q->b, in, &k);	/* the index sees the original input */
	for (size_t i = 0; !rc && i < l.n; i++) {
		const struct gt_doc *v = l.v[i];
		if (q->op == OP_FIELD) {
			rc = index_value(e, v, &key, out);
		} else if (q->op == OP_INDEX) {
			for (size_t j = 0; !rc && j < k.n; j++)
				rc = index_value(e, v, k.v[j], out);
		} else if (v && (v->kind == GT_DOC_MAP || v->kind == GT_DOC_SEQ)) {
			for (size_t j = 0; j < v->n; j++)
				push(out, v->items[j]);
		} else {
			rc = fail_eval(e, "cannot iterate over %s", type_name(gt_jq_type(v)));
		}
	}
	free(l.v);
	free(k.v);
	return rc;
}

static int arithmetic(struct ev *e, enum op op, const struct gt_doc *x, const struct gt_doc *y,
		      struct vec *out)
{
	enum gt_jq_type tx = gt_jq_type(x), ty = gt_jq_type(y);
	double a, b;
	if (op == OP_ADD && (tx == GT_JQ_NULL || ty == GT_JQ_NULL)) {
		push(out, tx == GT_JQ_NULL ? y : x);
		return 0;
	}
	if (op == OP_ADD && tx == GT_JQ_STRING && ty == GT_JQ_STRING) {
		size_t lx = strlen(text_of(x)), ly = strlen(text_of(y));
		char *s = gt_xmalloc(lx + ly + 1);
		memcpy(s, text_of(x), lx);
		memcpy(s + lx, text_of(y), ly + 1);
		push(out, made(e, gt_pg_doc_new_str(s)));
		free(s);
		return 0;
	}
	if (!gt_jq_number(x, &a) || !gt_jq_number(y, &b))
		return fail_eval(e, "%s and %s cannot be combined with %s", type_name(tx),
				 type_name(ty), (const char *[]){ "+", "-", "*", "/", "%" }[op - OP_ADD]);
	double v;
	switch (op) {
	case OP_ADD:
		v = a + b;
		break;
	case OP_SUB:
		v = a - b;
		break;
	case OP_MUL:
		v = a * b;
		break;
	case OP_DIV:
		if (b == 0)
			return fail_eval(e, "%g and %g cannot be divided because the divisor is zero",
					 a, b);
		v = a / b;
		break;
	default:
		if ((int64_t)b == 0)
			return fail_eval(e, "%g and %g cannot be divided because the divisor is zero",
					 a, b);
		v = (double)((int64_t)a % (int64_t)b);
		break;
	}
	push(out, made_number(e, v));
	return 0;
}

static bool compared(enum op op, int c)
{
	switch (op) {
	case OP_EQ:
		return c == 0;
	case OP_NE:
		return c != 0;
	case OP_LT:
		return c < 0;
	case OP_LE:
		return c <= 0;
	case OP_GT:
		return c > 0;
	default:
		return c >= 0;
	}
}

/* Binary operators: the right operand's outputs outside, the left's inside. */
static int eval_binary(struct ev *e, const struct gt_jq *q, const struct gt_doc *in, struct vec *out)
{
	struct vec l, r;
	int rc = eval_new(e, q->b, in, &r);
	if (rc)
		return rc;
	rc = eval_new(e, q->a, in, &l);
	for (size_t j = 0; !rc && j < r.n; j++) {
		for (size_t i = 0; !rc && i < l.n; i++) {
			if (q->op >= OP_EQ && q->op <= OP_GE)
				push(out, made_bool(compared(q->op, compare(l.v[i], r.v[j]))));
			else
				rc = arithmetic(e, q->op, l.v[i], r.v[j], out);
		}
	}
	free(l.v);
	free(r.v);
	return rc;
}

/* a and b, a or b: the left operand decides first, as in jq. */
static int eval_logic(struct ev *e, const struct gt_jq *q, const struct gt_doc *in, struct vec *out)
{
	struct vec l, r;
	int rc = eval_new(e, q->a, in, &l);
	for (size_t i = 0; !rc && i < l.n; i++) {
		bool t = truthy(l.v[i]);
		if (q->op == OP_AND ? !t : t) {
			push(out, made_bool(t));
			continue;
		}
		rc = eval_new(e, q->b, in, &r);
		for (size_t j = 0; !rc && j < r.n; j++)
			push(out, made_bool(truthy(r.v[j])));
		free(r.v);
	}
	free(l.v);
	return rc;
}

static int eval_alt(struct ev *e, const struct gt_jq *q, const struct gt_doc *in, struct vec *out)
{
	struct vec l;
	size_t before = out->n;
	if (!eval_new(e, q->a, in, &l)) {	/* errors on the left are suppressed */
		for (size_t i = 0; i < l.n; i++)
			if (truthy(l.v[i]))
				push(out, l.v[i]);
		free(l.v);
	}
	return out->n > before ? 0 : eval(e, q->b, in, out);
}

static size_t utf8_length(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static int call_on(struct ev *e, enum fn fn, const struct gt_doc *in, struct vec *out)
{
	enum gt_jq_type t = gt_jq_type(in);
	double v;
	switch (fn) {
	case FN_NOT:
		push(out, made_bool(!truthy(in)));
		return 0;
	case FN_TYPE:
		push(out, made(e, gt_pg_doc_new_str(type_name(t))));
		return 0;
	case FN_EMPTY:
		return 0;
	case FN_VALUES:
		if (t != GT_JQ_NULL)
			push(out, in);
		return 0;
	case FN_LENGTH:
		if (t == GT_JQ_NULL)
			v = 0;
		else if (t == GT_JQ_STRING)
			v = (double)utf8_length(text_of(in));
		else if (t == GT_JQ_ARRAY || t == GT_JQ_OBJECT)
			v = (double)in->n;
		else if (gt_jq_number(in, &v))
			v = fabs(v);
		else
			return fail_eval(e, "%s has no length", type_name(t));
		push(out, made_number(e, v));
		return 0;
	case FN_TOSTRING:
		if (t == GT_JQ_ARRAY || t == GT_JQ_OBJECT)
			return fail_eval(e, "tostring of an %s is not supported", type_name(t));
		push(out, t == GT_JQ_STRING ? in : made(e, gt_pg_doc_new_str(in ? text_of(in)
										   : "null")));
		return 0;
	case FN_TONUMBER:
		if (t == GT_JQ_NUMBER || (t == GT_JQ_STRING && numeric_text(text_of(in), &v))) {
			push(out, t == GT_JQ_NUMBER ? in : made_number(e, v));
			return 0;
		}
		return fail_eval(e, "%s cannot be parsed as a number", type_name(t));
	case FN_ASCII_DOWNCASE: {
		if (t != GT_JQ_STRING)
			return fail_eval(e, "ascii_downcase input must be a string, not %s",
					 type_name(t));
		struct gt_doc *s = made(e, gt_pg_doc_new_str(text_of(in)));
		for (char *p = s->scalar; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		push(out, s);
		return 0;
	}
	case FN_KEYS:
	case FN_TO_ENTRIES: {
		if (t != GT_JQ_OBJECT && !(fn == FN_KEYS && t == GT_JQ_ARRAY))
			return fail_eval(e, "%s has no keys", type_name(t));
		/* made containers hold borrowed children: gt_jq_results_release frees them shallowly */
		struct gt_doc *seq = made(e, gt_pg_doc_new_seq());
		size_t *ix = t == GT_JQ_OBJECT ? sorted_keys(in) : NULL;
		for (size_t i = 0; i < in->n; i++) {
			size_t k = ix && fn == FN_KEYS ? ix[i] : i;
			const struct gt_doc *key = t == GT_JQ_ARRAY ? made_number(e, (double)i)
					: made(e, gt_pg_doc_new_str(in->keys[k]));
			const struct gt_doc *item = key;
			if (fn == FN_TO_ENTRIES) {
				struct gt_doc *entry = made(e, gt_pg_doc_new_map());
				gt_pg_doc_put(entry, "key", (struct gt_doc *)key);
				gt_pg_doc_put(entry, "value", in->items[k]);
				item = entry;
			}
			gt_pg_doc_append(seq, (struct gt_doc *)item);
		}
		free(ix);
		push(out, seq);
		return 0;
	}
	default:
		return 0;	/* select and has take an argument: eval_call */
	}
}

static int eval_call(struct ev *e, const struct gt_jq *q, const struct gt_doc *in, struct vec *out)
{
	if (q->fn != FN_SELECT && q->fn != FN_HAS)
		return call_on(e, q->fn, in, out);
	struct vec r;
	int rc = eval_new(e, q->a, in, &r);
	enum gt_jq_type t = gt_jq_type(in);
	for (size_t i = 0; !rc && i < r.n; i++) {
		double k;
		if (q->fn == FN_SELECT) {
			if (truthy(r.v[i]))
				push(out, in);
		} else if (t == GT_JQ_OBJECT && gt_jq_type(r.v[i]) == GT_JQ_STRING) {
			push(out, made_bool(gt_doc_get(in, text_of(r.v[i])) != NULL));
		} else if (t == GT_JQ_ARRAY && gt_jq_number(r.v[i], &k)) {
			push(out, made_bool(k >= 0 && k < (double)in->n));
		} else {
			rc = fail_eval(e, "cannot check whether %s has a %s key", type_name(t),
				       type_name(gt_jq_type(r.v[i])));
		}
	}
	free(r.v);
	return rc;
}

static int eval(struct ev *e, const struct gt_jq *q, const struct gt_doc *in, struct vec *out)
{
	struct vec l;
	int rc = 0;
	double v;
	switch (q->op) {
	case OP_IDENTITY:
		push(out, in);
		return 0;
	case OP_LITERAL:
		push(out, gt_jq_type(q->literal) == GT_JQ_NULL ? NULL : q->literal);
		return 0;
	case OP_FIELD:
	case OP_INDEX:
	case OP_ITER:
		return eval_path(e, q, in, out);
	case OP_TRY:
		if (!eval_new(e, q->a, in, &l)) {
			for (size_t i = 0; i < l.n; i++)
				push(out, l.v[i]);
			free(l.v);
		}
		return 0;
	case OP_PIPE:
		rc = eval_new(e, q->a, in, &l);
		for (size_t i = 0; !rc && i < l.n; i++)
			rc = eval(e, q->b, l.v[i], out);
		free(l.v);
		return rc;
	case OP_COMMA:
		rc = eval(e, q->a, in, out);
		return rc ? rc : eval(e, q->b, in, out);
	case OP_ALT:
		return eval_alt(e, q, in, out);
	case OP_AND:
	case OP_OR:
		return eval_logic(e, q, in, out);
	case OP_NEG:
		rc = eval_new(e, q->a, in, &l);
		for (size_t i = 0; !rc && i < l.n; i++) {
			if (!gt_jq_number(l.v[i], &v))
				rc = fail_eval(e, "%s cannot be negated", type_name(gt_jq_type(l.v[i])));
			else
				push(out, made_number(e, -v));
		}
		free(l.v);
		return rc;
	case OP_CALL:
		return eval_call(e, q, in, out);
	default:
		return eval_binary(e, q, in, out);
	}
}

int gt_jq_eval(const struct gt_jq *q, const struct gt_doc *input, struct gt_jq_results *r,
	       char *why, size_t why_size)
{
	struct ev e = { .r = r, .why = why, .why_size = why_size };
	struct vec out = { 0 };
	memset(r, 0, sizeof(*r));
	int rc = eval(&e, q, input, &out);
	r->v = out.v;
	r->n = out.n;
	r->cap = out.cap;
	if (rc) {
		gt_jq_results_release(r);
		return GT_EINVAL;
	}
	return 0;
}

void gt_jq_results_release(struct gt_jq_results *r)
{
	for (size_t i = 0; i < r->n_made; i++) {
		struct gt_doc *d = r->made[i];	/* its children are borrowed or made: not freed here */
		for (size_t k = 0; d->kind == GT_DOC_MAP && k < d->n; k++)
			free(d->keys[k]);
		free(d->keys);
		free(d->items);
		free(d->scalar);
		free(d);
	}
	free(r->made);
	free(r->v);
	memset(r, 0, sizeof(*r));
}
