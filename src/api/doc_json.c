/*
 * doc_json.c - JSON through jansson, into the tree
 *
 * jansson parses every value: what is JSON and what a string says (escapes,
 * surrogate pairs, UTF-8, NUL, numbers) is its verdict, never ours. What
 * this file adds is the framing around it:
 *
 *   - A stream of values (kubectl and jq write one after the other),
 *     optionally with YAML's "---" lines between them.
 *   - A document at the top and the "items" of a v1 List (what
 *     `kubectl get -o json` prints) are walked member by member, each
 *     member and each item parsed whole by jansson (json_loadb with
 *     JSON_DISABLE_EOF_CHECK, which says where the value ended). So one bad
 *     Pod in a List of thousands leaves out that Pod only, a message can
 *     name the object, and a value's line is known; jansson's tree of one
 *     object at a time is small.
 *   - A value jansson refuses (or one with a key given twice: it is parsed
 *     with JSON_REJECT_DUPLICATES) is walked again member by member, each
 *     member again parsed whole by jansson, down to where the problem is:
 *     a scalar or key jansson refuses (bad UTF-8, a lone surrogate, NUL, a
 *     number out of range) leaves out its object, named, with the field's
 *     path, line and column, and the rest is read; a key given twice is a
 *     warning naming both places (the later value is used, as jansson and
 *     Go's encoding/json do); broken punctuation ends the input there (no
 *     parser can know where the next value starts), keeping the objects of
 *     a List that ended before it.
 *
 * Places: a value parsed whole has no places inside it (jansson keeps
 * none), so its nodes carry the line where it starts and column 0 ("file:
 * line:" in messages): for a List item, the item's first line; for a
 * single object, the line of its top-level field (spec, metadata). Values
 * walked because something was wrong in them carry their exact line and
 * column.
 *
 * Speed (bench/bench_decode.c): a value is handed to jansson without its
 * white space (kubectl indents, and jansson reads white space a character
 * at a time through a callback), and the items of a List of more than
 * GT_DOC_PARALLEL_BYTES are read by several threads, each into an input of its
 * own, with the same places and messages as one thread would give.
 *
 * Memory: jansson allocates every value, key and hash table on its own,
 * and frees them one by one, a large part of the cost on a 70 MB List
 * (bench/bench_decode.c). So while this file calls json_loadb, jansson's allocations on
 * this thread come from a scratch arena, emptied once the value is in the
 * tree (json_set_alloc_funcs, set before main: everywhere else, and on
 * every other thread, they are malloc and free as before).
 *
 * Numbers become the text a decoder reads: an integer in decimal, a real
 * as the shortest text that reads back as the same double (0.1 stays 0.1,
 * 1.0 stays 1.0). Nesting deeper than GT_DOC_MAX_DEPTH leaves the object
 * out, as in YAML.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/doc_int.h"
#include "util/mem.h"
#include "util/pool.h"
#include "util/swar.h"

#define LOAD_FLAGS (JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES)

enum mode {
	WHOLE,			/* parse it whole; walk it only if that fails */
	MEMBERS,		/* walk it, its members parsed whole (a document, a List's items) */
	FIND,			/* walk it: jansson refused it as a whole */
};

/* ---------------------------------------------------------------- jansson's memory */

/* Set while json_loadb runs on this thread: jansson's memory comes from it and is not freed one by one. */
static _Thread_local struct gt_arena *scratch;

static void *json_alloc(size_t n)
{
	/* gt_xmalloc: jansson answers a failed allocation with NULL, which its callers
	 * (and ours) take for "no such key"; out of memory ends the process instead */
	return scratch ? gt_arena_alloc(scratch, n) : gt_xmalloc(n);
}

static void json_release(void *p)
{
	if (!scratch)	/* the scratch arena's memory goes all at once, with gt_arena_reset() */
		free(p);
}

/*
 * Before main, before any thread: with no scratch arena set, these are
 * malloc and free, so what jansson allocated before (or on other threads)
 * is freed as it was allocated.
 */
__attribute__((constructor)) static void json_memory(void)
{
	json_set_alloc_funcs(json_alloc, json_release);
}

struct reader {
	const char *text, *p, *end;
	struct gt_arena scratch;	/* jansson's values, until they are in the tree */
	char *flat;		/* a value without its white space, for jansson */
	size_t cap_flat;
	const char *counted;	/* newlines before here are counted in @line */
	const char *line_start;
	int line;
	struct gt_doc_builder b;
};

/* ---------------------------------------------------------------- places */

/* Line and column (in characters) of @at. */
static void place(struct reader *r, const char *at, int *line, int *col)
{
	if (at < r->line_start) {	/* behind us: count again */
		r->counted = r->line_start = r->text;
		r->line = 1;
	}
	for (const char *p = r->counted; p < at;) {
		const char *nl = memchr(p, '\n', (size_t)(at - p));
		if (!nl)
			break;
		r->line++;
		p = r->line_start = nl + 1;
	}
	r->counted = at;
	int c = 1;
	for (const char *p = r->line_start; p < at; p++)
		c += ((unsigned char)*p & 0xC0) != 0x80;
	*line = r->line;
	*col = c;
}

/* Past the white space at @p. */
static const char *past_space(const char *p, const char *end)
{
	for (;;) {
		/* indentation eight spaces at a time: most of an indented file */
		uint64_t w;
		while (end - p >= 8 && (memcpy(&w, p, 8), w == 0x2020202020202020ULL))
			p += 8;
		if (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
			p++;
		else
			return p;
	}
}

static void skip_ws(struct reader *r)
{
	r->p = past_space(r->p, r->end);
}

/* Between values: white space, and "---" lines as YAML separates documents. */
static void between(struct reader *r)
{
	for (;;) {
		skip_ws(r);
		const char *p = r->p;
		bool line_start = p == r->text || p[-1] == '\n';
		if (!line_start || r->end - p < 3 || memcmp(p, "---", 3) ||
		    (r->end - p > 3 && p[3] != '\n' && p[3] != '\r' && p[3] != ' '))
			return;
		r->p += 3;
	}
}

/* The input cannot be read past @at: what is open is left out, and everything after it. */
static int broken(struct reader *r, const char *at, const char *why)
{
	int line, col;
	place(r, at, &line, &col);
	gt_db_fail(&r->b, line, col, "JSON", why, true);
	return -1;
}

/* ---------------------------------------------------------------- jansson's values into the tree */

/* The shortest text that reads back as @d, and still a real ("1.0", not "1"). */
static void real_text(double d, char *buf, size_t len)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	if (!strpbrk(buf, ".eEn"))	/* n: nan, inf (jansson never makes them) */
		strncat(buf, ".0", len - strlen(buf) - 1);
}

/* @v as the next value; the root at @line:@col, what is inside it at @line (column unknown: 0). */
static void convert(struct reader *r, json_t *v, int line, int col)
{
	char num[40];
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		gt_db_open(&r->b, GT_DOC_MAP, line, col);
		for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
			gt_db_key(&r->b, json_object_iter_key(it), json_object_iter_key_len(it), line, 0);
			convert(r, json_object_iter_value(it), line, 0);
		}
		gt_db_close(&r->b);
		return;
	case JSON_ARRAY:
		gt_db_open(&r->b, GT_DOC_SEQ, line, col);
		for (size_t i = 0; i < json_array_size(v); i++)
			convert(r, json_array_get(v, i), line, 0);
		gt_db_close(&r->b);
		return;
	case JSON_STRING:
		gt_db_scalar(&r->b, json_string_value(v), json_string_length(v), true, line, col);
		return;
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		real_text(json_real_value(v), num, sizeof(num));
		break;
	case JSON_TRUE:
		snprintf(num, sizeof(num), "true");
		break;
	case JSON_FALSE:
		snprintf(num, sizeof(num), "false");
		break;
	case JSON_NULL:
		snprintf(num, sizeof(num), "null");
		break;
	}
	gt_db_scalar(&r->b, num, strlen(num), false, line, col);
}

/*
 * The value at r->p, parsed by jansson; r->p moves past it. After a
 * scalar jansson may have read one character more (JSON_DISABLE_EOF_CHECK
 * with JSON_DECODE_ANY): what follows a value is never part of one.
 */
static json_t *load(struct reader *r, size_t flags, json_error_t *e)
{
	scratch = &r->scratch;
	json_t *v = json_loadb(r->p, (size_t)(r->end - r->p), flags, e);
	scratch = NULL;
	if (!v)
		return NULL;
	const char *q = r->p + e->position;
	if (!json_is_object(v) && !json_is_array(v))
		while (q > r->p && q[-1] && strchr(",]}: \t\r\n", q[-1]))
			q--;
	r->p = q;
	return v;
}

/* ---------------------------------------------------------------- skipping */

/* The end of the string starting at @p (its closing quote), or NULL. */
static const char *string_end(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		const char *q = memchr(p, '"', (size_t)(end - p));
		if (!q)
			return NULL;
		/* the quote ends the string unless an odd run of backslashes escapes it */
		const char *b = q;
		while (b > p && b[-1] == '\\')
			b--;
		if ((q - b) % 2 == 0)
			return q;
		p = q;
	}
	return NULL;
}

/* Past a scalar jansson refused: a string to its quote, anything else to where values end. */
static bool skip_scalar(struct reader *r)
{
	if (*r->p == '"') {
		const char *q = string_end(r->p, r->end);
		if (!q)
			return false;
		r->p = q + 1;
		return true;
	}
	const char *p = r->p;
	while (p < r->end && !strchr(",]}: \t\r\n", *p) && *p)
		p++;
	if (p == r->p)
		return false;	/* punctuation where a value should be */
	r->p = p;
	return true;
}

/*
 * The container at @p without the white space between its tokens, added
 * to r->flat at *@k (*@k moves past it); returns where it ends, or NULL
 * when it does not. Why: kubectl indents its JSON, and on its output six
 * bytes in ten are white space, which jansson reads a character at a time
 * through a callback. Strings are copied as they are.
 */
static const char *flatten(struct reader *r, const char *p, size_t *k)
{
	const char *end = r->end;
	size_t open = 0;
	/* what ends a run of token bytes: white space, a string, a bracket */
	static const bool stop[256] = { [' '] = true, ['\n'] = true, ['\t'] = true, ['\r'] = true, ['"'] = true,
					['{'] = true, ['['] = true, ['}'] = true, [']'] = true };
	while (p < end) {
		/* a run of token bytes other than strings and brackets, copied at once */
		const char *q = p;
		while (q < end && !stop[(unsigned char)*q])
			q++;
		bool last = false;
		if (q < end && *q == '"') {
			q = string_end(q, end);
			if (!q)
				return NULL;
			q++;
		} else if (q < end && (*q == '{' || *q == '[')) {
			open++;
			q++;
		} else if (q < end && (*q == '}' || *q == ']')) {
			q++;
			last = !--open;
		}
		GT_GROW(r->flat, *k + (size_t)(q - p), r->cap_flat);
		memcpy(r->flat + *k, p, (size_t)(q - p));
		*k += (size_t)(q - p);
		p = q;
		if (last)
			return p;
		p = past_space(p, end);
	}
	return NULL;
}

/*
 * The first of '"', '{', '}', '[' and ']' in the eight bytes of @w (in
 * memory order), as a byte index, or 8. Eight bytes at a time: the split of
 * a large List (container_end) goes through the whole text on one thread
 * before the others can start.
 */
static unsigned structural_byte(uint64_t w)
{
	uint64_t folded = w | (GT_SWAR_ONES * 0x20);	/* '[' and ']' read as '{' and '}' */
	uint64_t hits = gt_swar_eq(w, '"') | gt_swar_eq(folded, '{') | gt_swar_eq(folded, '}');
	return hits ? gt_swar_first(hits) : 8;
}

/*
 * The first structural byte at or after @p, or @end: a word at a time, the
 * text's last few bytes in a word padded with zeros (none of them is one).
 */
static inline const char *next_structural(const char *p, const char *end)
{
	for (; end - p >= 8; p += 8) {
		unsigned at = structural_byte(gt_swar_load(p));
		if (at < 8)
			return p + at;
	}
	uint64_t w = 0;
	memcpy(&w, p, (size_t)(end - p));
	unsigned at = structural_byte(w);
	return at < (unsigned)(end - p) ? p + at : end;
}

/*
 * Where the container at @p ('{' or '[') ends, past its closing bracket, or
 * NULL when the text ends first: what flatten() finds, without copying.
 */
static const char *container_end(const char *p, const char *end)
{
	size_t open = 0;
	for (p = next_structural(p, end); p < end; p = next_structural(p + 1, end)) {
		if (*p == '"') {
			p = string_end(p, end);
			if (!p)
				return NULL;
		} else if ((*p | 0x20) == '{') {
			open++;
		} else if (!--open) {
			return p + 1;
		}
	}
	return NULL;
}

/* Past the container at r->p, not built (it is too deep to keep). */
static bool skip_container(struct reader *r)
{
	const char *end = container_end(r->p, r->end);
	if (!end)
		return false;
	r->p = end;
	return true;
}

/* The value at r->p parsed whole, from its flattened text when it is a container; NULL: refused (@e). */
static json_t *load_whole(struct reader *r, json_error_t *e)
{
	size_t n = 0;
	const char *end = *r->p == '{' || *r->p == '[' ? flatten(r, r->p, &n) : NULL;
	if (!end)
		return load(r, LOAD_FLAGS, e);
	scratch = &r->scratch;
	json_t *v = json_loadb(r->flat, n, LOAD_FLAGS & ~(size_t)JSON_DISABLE_EOF_CHECK, e);
	scratch = NULL;
	if (v)
		r->p = end;
	return v;
}

/* ---------------------------------------------------------------- walking */

static int walk(struct reader *r, size_t depth, enum mode mode);

/* A scalar jansson refused (@e): its object is left out, the rest is read. */
static int bad_scalar(struct reader *r, int line, int col, const json_error_t *e)
{
	const char *start = r->p;
	if (!skip_scalar(r)) {
		r->p = start;
		return broken(r, start, "expected a value (an object, array, string, number, true, false or null)");
	}
	char why[JSON_ERROR_TEXT_LENGTH + 40];
	snprintf(why, sizeof(why), "not valid JSON: %s", e->text);
	gt_db_damage(&r->b, line, col, why);
	gt_db_scalar(&r->b, "", 0, false, line, col);	/* in its place, so the walk goes on */
	return 0;
}

/* A map's key, parsed by jansson; *@items: it is "items". */
static int key(struct reader *r, bool *items)
{
	if (r->p >= r->end || *r->p != '"')
		return broken(r, r->p, "expected a key (a string in double quotes)");
	const char *start = r->p, *q = string_end(start, r->end);
	if (!q)
		return broken(r, start, "the key's string does not end");
	int line, col;
	place(r, start, &line, &col);
	json_error_t e;
	scratch = &r->scratch;
	json_t *k = json_loadb(start, (size_t)(q + 1 - start), JSON_DECODE_ANY, &e);
	scratch = NULL;
	r->p = q + 1;
	if (!k) {
		char why[JSON_ERROR_TEXT_LENGTH + 40];
		snprintf(why, sizeof(why), "not valid JSON: %s", e.text);
		gt_db_damage(&r->b, line, col, why);
		gt_db_key(&r->b, "", 0, line, col);
		*items = false;
		gt_arena_reset(&r->scratch);
		return 0;
	}
	gt_db_key(&r->b, json_string_value(k), json_string_length(k), line, col);
	*items = !strcmp(json_string_value(k), "items");
	gt_arena_reset(&r->scratch);
	return 0;
}

/* ---------------------------------------------------------------- a large List's items, in parallel */

struct item {
	const char *start, *end;	/* in the text */
};

struct worker {
	const struct reader *r;
	const struct item *items;
	size_t first, end;	/* its items */
	int line;		/* of items[first] */
	const char *line_start;
	struct gt_doc_list out;	/* its items' memory and problems */
	struct gt_doc *seq;	/* its items that could be read */
	bool broken;
};

/*
 * Where each item of the List at r->p ('[') starts and ends (the threads
 * flatten them, each its own); where the List ends, or NULL when something
 * other than objects and commas is between its brackets (the walk, one item
 * at a time, says what).
 */
static const char *split_items(struct reader *r, struct item **items, size_t *n, size_t *cap)
{
	const char *p = r->p + 1;
	for (;;) {
		while (p < r->end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
			p++;
		if (p < r->end && *p == ']' && !*n)
			return p + 1;
		if (p >= r->end || *p != '{')
			return NULL;
		struct item it = { .start = p, .end = container_end(p, r->end) };
		if (!(p = it.end))
			return NULL;
		GT_PUSH(*items, *n, *cap, it);
		while (p < r->end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
			p++;
		if (p < r->end && *p == ']')
			return p + 1;
		if (p >= r->end || *p != ',')
			return NULL;
		p++;
	}
}

static void work(void *arg, size_t i)
{
	struct worker *w = (struct worker *)arg + i;
	const struct reader *main = w->r;
	struct reader r = { .text = main->text, .end = main->end, .counted = w->items[w->first].start,
			    .line_start = w->line_start, .line = w->line };
	gt_db_init(&r.b, gt_doc_input_new(&w->out, main->b.in->name), &w->out);
	gt_arena_init(&r.scratch);
	/* the items at the depth of a List's, so that one left out is said the same way */
	gt_db_open(&r.b, GT_DOC_MAP, 1, 1);
	gt_db_key(&r.b, "items", 5, 1, 1);
	gt_db_open(&r.b, GT_DOC_SEQ, 1, 1);
	for (size_t k = w->first; k < w->end && !w->broken; k++) {
		const struct item *it = &w->items[k];
		int line, col;
		r.p = it->start;
		place(&r, r.p, &line, &col);
		json_error_t e;
		size_t len = 0;
		flatten(&r, it->start, &len);	/* it ends: split_items found where */
		scratch = &r.scratch;
		json_t *v = json_loadb(r.flat, len, LOAD_FLAGS & ~(size_t)JSON_DISABLE_EOF_CHECK, &e);
		scratch = NULL;
		if (v)
			convert(&r, v, line, col);
		gt_arena_reset(&r.scratch);
		if (!v && walk(&r, 2, FIND))
			w->broken = true;
	}
	if (!w->broken) {
		w->seq = gt_db_close(&r.b);
		gt_db_close(&r.b);
	}
	w->out.n = 0;	/* the List made up above is not a document */
	gt_db_release(&r.b);
	gt_arena_release(&r.scratch);
	free(r.flat);
}

/*
 * The items of a large List at r->p, read by several threads, each into an
 * input of its own (so a message, a place and a warning are what one
 * thread would make). 0: done; -1: not done (too small, or something a
 * thread could not read on from): the walk reads them one by one.
 */
static int parallel_items(struct reader *r, int line, int col)
{
	struct item *items = NULL;
	size_t n = 0, cap = 0;
	const char *end = (size_t)(r->end - r->p) >= GT_DOC_PARALLEL_BYTES ? split_items(r, &items, &n, &cap) : NULL;
	size_t n_workers = end ? gt_doc_parse_threads((size_t)(end - r->p), n) : 1;
	if (n_workers < 2) {
		free(items);
		return -1;
	}
	struct worker *w = gt_xcalloc(n_workers, sizeof(*w));
	size_t total = (size_t)(items[n - 1].end - items[0].start);
	for (size_t k = 0, i = 0; k < n_workers; k++) {
		/* contiguous runs of about the same size, in order */
		size_t target = total / n_workers * (k + 1);
		w[k] = (struct worker){ .r = r, .items = items, .first = i };
		int c;
		if (i < n) {
			place(r, items[i].start, &w[k].line, &c);
			w[k].line_start = r->line_start;
		}
		while (i < n && (k == n_workers - 1 || (size_t)(items[i].start - items[0].start) < target))
			i++;
		w[k].end = i;
	}
	struct gt_pool *pool = gt_pool_new((int)n_workers, "json");
	gt_pool_for(pool, n_workers, work, w);
	gt_pool_free(pool, NULL);
	bool redo = false;	/* a thread met broken punctuation: one by one, to stop where it is */
	for (size_t k = 0; k < n_workers; k++)
		redo |= w[k].broken;
	if (!redo) {
		gt_db_open(&r->b, GT_DOC_SEQ, line, col);
		for (size_t k = 0; k < n_workers; k++) {
			for (size_t i = 0; w[k].seq && i < w[k].seq->n; i++)
				gt_db_value(&r->b, w[k].seq->items[i]);
			gt_doc_list_move(r->b.out, &w[k].out);
		}
		gt_db_close(&r->b);
		r->p = end;
	}
	for (size_t k = 0; k < n_workers; k++)
		gt_doc_list_release(&w[k].out);
	free(w);
	free(items);
	return redo ? -1 : 0;
}

/* The members of the container at r->p, one by one. */
static int members(struct reader *r, size_t depth, enum mode mode, int line, int col)
{
	bool map = *r->p == '{';
	char close = map ? '}' : ']';
	r->p++;
	gt_db_open(&r->b, map ? GT_DOC_MAP : GT_DOC_SEQ, line, col);
	skip_ws(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		gt_db_close(&r->b);
		return 0;
	}
	for (;;) {
		bool items = false;
		if (map) {
			skip_ws(r);
			if (key(r, &items))
				return -1;
			skip_ws(r);
			if (r->p >= r->end || *r->p != ':')
				return broken(r, r->p, "expected ':' after the key");
			r->p++;
		}
		/* a List's items one by one; everything else whole (walked only if refused) */
		enum mode child = mode == MEMBERS && depth == 0 && items ? MEMBERS : WHOLE;
		bool read = false;
		skip_ws(r);
		if (child == MEMBERS && r->p < r->end && *r->p == '[') {
			int vline, vcol;
			place(r, r->p, &vline, &vcol);
			read = !parallel_items(r, vline, vcol);
		}
		if (!read && walk(r, depth + 1, child))
			return -1;
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			gt_db_close(&r->b);
			return 0;
		}
		return broken(r, r->p, map ? "expected ',' or '}' after a member" : "expected ',' or ']' after an item");
	}
}

static int walk(struct reader *r, size_t depth, enum mode mode)
{
	skip_ws(r);
	if (r->p >= r->end)
		return broken(r, r->p, "the input ends where a value should be");
	int line, col;
	place(r, r->p, &line, &col);
	bool container = *r->p == '{' || *r->p == '[';
	if (mode == WHOLE || !container) {
		json_error_t e;
		json_t *v = load_whole(r, &e);
		if (v)
			convert(r, v, line, col);
		gt_arena_reset(&r->scratch);	/* @v (or what jansson made of it) is gone */
		if (v)
			return 0;
		if (!container)
			return bad_scalar(r, line, col, &e);
		mode = FIND;	/* where in it is the problem? */
	}
	if (depth >= GT_DOC_MAX_DEPTH) {
		char why[80];
		snprintf(why, sizeof(why), "nested deeper than %d levels", GT_DOC_MAX_DEPTH);
		const char *start = r->p;
		if (!skip_container(r))
			return broken(r, start, "a value that does not end");
		gt_db_damage(&r->b, line, col, why);
		gt_db_scalar(&r->b, "", 0, false, line, col);
		return 0;
	}
	return members(r, depth, mode, line, col);
}

/* ---------------------------------------------------------------- the input */

int gt_doc_parse_json(const char *text, size_t len, const char *name, struct gt_doc_list *out,
		      bool try_only);

/*
 * @try_only: the text only looks like JSON (not a .json file): when not
 * one document of it could be read, nothing is kept (returns -1) and the
 * caller tries YAML, whose flow style starts the same way.
 */
int gt_doc_parse_json(const char *text, size_t len, const char *name, struct gt_doc_list *out,
		      bool try_only)
{
	struct gt_doc_list tmp = { 0 };
	struct reader r = { .text = text, .p = text, .end = text + len, .counted = text, .line_start = text,
			    .line = 1 };
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		r.p += 3;	/* a byte-order mark */
	gt_db_init(&r.b, gt_doc_input_new(&tmp, name), &tmp);
	gt_arena_init(&r.scratch);
	for (;;) {
		between(&r);
		if (r.p >= r.end || walk(&r, 0, MEMBERS))
			break;
	}
	gt_db_release(&r.b);
	gt_arena_release(&r.scratch);
	free(r.flat);
	if (try_only && !tmp.n && tmp.n_errors) {
		gt_doc_list_release(&tmp);
		return -1;
	}
	gt_doc_list_move(out, &tmp);
	return 0;
}
