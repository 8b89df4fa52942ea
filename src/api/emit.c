/*
 * emit.c - JSON or block-style YAML written as it is made
 *
 * The containers open are a stack. JSON needs only each one's count of
 * members so far (the comma, the line and the indentation go before every
 * member but the first). YAML cannot write a container's first line before
 * it knows whether the container is empty ("key: []" against "key:" and
 * its items on the lines below), so a container's opening text waits for
 * its first member, or for its end.
 */
#include "api/emit.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/num.h"
#include "util/swar.h"

/* How a YAML container's first member starts, once it has one. */
enum start {
	AT_TOP,			/* the document itself: on the first line */
	NEW_LINE,		/* under its key or its "-": on the next line */
	SAME_LINE,		/* an object item of a sequence: its first key after "- " */
};

struct frame {
	bool object;
	enum start start;
	int indent;		/* YAML: its members' indentation */
	size_t count;		/* members so far */
};

struct gt_emitter {
	FILE *f;
	bool yaml;
	int indent;		/* JSON: spaces a level */
	struct frame *stack;
	size_t depth, cap;
	size_t n;		/* bytes in @s */
	char s[1 << 16];
};

/* ---------------------------------------------------------------- text */

static void put(struct gt_emitter *w, const char *s, size_t len)
{
	if (len > sizeof(w->s) - w->n) {
		fwrite(w->s, 1, w->n, w->f);
		w->n = 0;
		if (len > sizeof(w->s)) {
			fwrite(s, 1, len, w->f);
			return;
		}
	}
	memcpy(w->s + w->n, s, len);
	w->n += len;
}

static void put_spaces(struct gt_emitter *w, size_t n)
{
	static const char spaces[] = "                                ";
	while (n) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		put(w, spaces, k);
		n -= k;
	}
}

/* How many bytes from @s (of @len) need no escape: eight at a time, most strings have none. */
static size_t plain_run(const char *s, size_t len)
{
	size_t i = 0;
	for (; len - i >= 8; i += 8) {
		uint64_t w = gt_swar_load(s + i);
		uint64_t hits = gt_swar_lt(w, 0x20) | gt_swar_eq(w, '"') | gt_swar_eq(w, '\\');
		if (hits)
			return i + gt_swar_first(hits);
	}
	while (i < len && (unsigned char)s[i] >= 0x20 && s[i] != '"' && s[i] != '\\')
		i++;
	return i;
}

/*
 * A string as jansson's dump writes it: '"', '\\' and control characters
 * escaped (the common ones by letter, the others as \u00XX in capitals),
 * everything else, UTF-8 included, as it is.
 */
static void put_string(struct gt_emitter *w, const char *s, size_t len)
{
	put(w, "\"", 1);
	for (;;) {
		size_t plain = plain_run(s, len);
		put(w, s, plain);
		if (plain == len)
			break;
		unsigned char c = (unsigned char)s[plain];
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
		put(w, esc, strlen(esc));
		s += plain + 1;
		len -= plain + 1;
	}
	put(w, "\"", 1);
}

/* ---------------------------------------------------------------- structure */

static struct frame *top(struct gt_emitter *w)
{
	return w->depth ? &w->stack[w->depth - 1] : NULL;
}

/* YAML: @f's opening text, before its first member. */
static void start(struct gt_emitter *w, const struct frame *f)
{
	if (f->count)
		return;
	if (f->start == NEW_LINE)
		put(w, "\n", 1);
	else if (f->start == SAME_LINE)
		put(w, " ", 1);
}

/* What goes before a value: JSON, an item's comma and line; YAML, an item's "-". */
static void before_value(struct gt_emitter *w)
{
	struct frame *f = top(w);
	if (!f || f->object)
		return;	/* the key said it all */
	if (w->yaml) {
		start(w, f);
		put_spaces(w, f->indent > 2 ? (size_t)f->indent - 2 : 0);
		put(w, "-", 1);
	} else {
		if (f->count)
			put(w, ",", 1);
		put(w, "\n", 1);
		put_spaces(w, w->depth * (size_t)w->indent);
	}
	f->count++;
}

void gt_emit_key(struct gt_emitter *w, const char *key, size_t len)
{
	struct frame *f = top(w);
	if (!w->yaml) {
		if (f->count)
			put(w, ",", 1);
		put(w, "\n", 1);
		put_spaces(w, w->depth * (size_t)w->indent);
		put_string(w, key, len);
		put(w, ": ", 2);
		f->count++;
		return;
	}
	start(w, f);
	if (!(f->start == SAME_LINE && !f->count))
		put_spaces(w, (size_t)f->indent);
	bool plain = len > 0;
	for (size_t i = 0; plain && i < len; i++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./", key[i]) &&
			key[i];
	if (plain)
		put(w, key, len);
	else
		put_string(w, key, len);
	put(w, ":", 1);
	f->count++;
}

static void open(struct gt_emitter *w, bool object)
{
	before_value(w);
	const struct frame *f = top(w);
	struct frame g = { .object = object };
	if (!f) {
		g.start = object ? AT_TOP : NEW_LINE;
		g.indent = object ? 0 : 2;	/* a sequence's items at 0, their keys under them */
	} else if (f->object) {
		g.start = NEW_LINE;
		g.indent = f->indent + 2;
	} else if (object) {
		g.start = SAME_LINE;	/* "- key: value", its other keys under the first */
		g.indent = f->indent;
	} else {
		g.start = NEW_LINE;	/* "-", its items two deeper than the "-" */
		g.indent = f->indent + 2;
	}
	if (!w->yaml)
		put(w, object ? "{" : "[", 1);
	GT_PUSH(w->stack, w->depth, w->cap, g);
}

void gt_emit_object(struct gt_emitter *w)
{
	open(w, true);
}

void gt_emit_array(struct gt_emitter *w)
{
	open(w, false);
}

void gt_emit_close(struct gt_emitter *w)
{
	const struct frame *f = &w->stack[--w->depth];
	if (w->yaml) {
		if (!f->count)
			put(w, f->object ? " {}\n" : " []\n", 4);
		return;
	}
	if (f->count) {
		put(w, "\n", 1);
		put_spaces(w, w->depth * (size_t)w->indent);
	}
	put(w, f->object ? "}" : "]", 1);
}

/* ---------------------------------------------------------------- scalars */

/* A scalar's text: after a key or "-", YAML puts it on that line. */
static void scalar(struct gt_emitter *w, const char *text, size_t len, bool string)
{
	before_value(w);
	if (w->yaml)
		put(w, " ", 1);
	if (string)
		put_string(w, text, len);
	else
		put(w, text, len);
	if (w->yaml)
		put(w, "\n", 1);
}

void gt_emit_string(struct gt_emitter *w, const char *s, size_t len)
{
	scalar(w, s, len, true);
}

void gt_emit_int(struct gt_emitter *w, int64_t v)
{
	char buf[GT_INT_TEXT], *end = buf + sizeof(buf);
	char *p = gt_int_text(v, end);
	scalar(w, p, (size_t)(end - p), false);
}

/*
 * A number of thousandths (GPUs from milli-GPUs, the common case) as
 * "%.10g" writes it: @v is m/1000 for an integer 0 < |m| < 10^9, so its
 * ten significant digits are m's, in fixed notation. Else false.
 */
static bool thousandths(double v, char *buf, size_t *len)
{
	if (!(v > -1e6 && v < 1e6) || v == 0)
		return false;
	double scaled = v * 1000.0;
	long long m = (long long)(scaled < 0 ? scaled - 0.5 : scaled + 0.5);
	if ((double)m / 1000.0 != v)
		return false;	/* not the double nearest to m/1000 */
	char tmp[32], *end = tmp + sizeof(tmp), *p = end;
	uint64_t abs = (uint64_t)(m < 0 ? -m : m);
	unsigned frac = (unsigned)(abs % 1000);
	int digits = 3;
	while (frac && frac % 10 == 0) {	/* %g drops the zeros at the end */
		frac /= 10;
		digits--;
	}
	if (frac) {
		for (int i = 0; i < digits; i++, frac /= 10)
			*--p = (char)('0' + frac % 10);
	} else {
		*--p = '0';	/* jansson's ".0" */
	}
	*--p = '.';
	p = gt_decimal(abs / 1000, p);
	if (m < 0)
		*--p = '-';
	*len = (size_t)(end - p);
	memcpy(buf, p, *len);
	return true;
}

/*
 * "%.10g", ".0" added when that reads as an integer, the exponent without
 * '+' or leading zeros: jansson's JSON_REAL_PRECISION(10).
 */
void gt_emit_real(struct gt_emitter *w, double v)
{
	char buf[64];
	size_t len;
	if (thousandths(v, buf, &len)) {
		scalar(w, buf, len, false);
		return;
	}
	int n = snprintf(buf, sizeof(buf) - 2, "%.10g", v);
	if (n < 0 || (size_t)n >= sizeof(buf) - 2)
		return;
	if (!strchr(buf, '.') && !strchr(buf, 'e')) {
		memcpy(buf + n, ".0", 3);
		n += 2;
	}
	char *e = strchr(buf, 'e');
	if (e) {
		char *from = e + 1, *end = e + 2;
		if (*from == '-')
			from++;
		while (*end == '0')
			end++;
		if (end != from) {
			memmove(from, end, (size_t)(buf + n - end) + 1);
			n -= (int)(end - from);
		}
	}
	scalar(w, buf, (size_t)n, false);
}

void gt_emit_bool(struct gt_emitter *w, bool v)
{
	scalar(w, v ? "true" : "false", v ? 4 : 5, false);
}

void gt_emit_null(struct gt_emitter *w)
{
	scalar(w, "null", 4, false);
}

void gt_emit_kstr_or_null(struct gt_emitter *w, const char *key, const char *s)
{
	gt_emit_key(w, key, strlen(key));
	if (s)
		gt_emit_string(w, s, strlen(s));
	else
		gt_emit_null(w);
}

/* ---------------------------------------------------------------- the emitter */

struct gt_emitter *gt_emitter_new(FILE *f, bool yaml, int indent)
{
	struct gt_emitter *w = gt_xmalloc(sizeof(*w));
	w->f = f;
	w->yaml = yaml;
	w->indent = indent;
	w->stack = NULL;
	w->depth = w->cap = 0;
	w->n = 0;
	return w;
}

void gt_emitter_free(struct gt_emitter *w)
{
	fwrite(w->s, 1, w->n, w->f);
	free(w->stack);
	free(w);
}
