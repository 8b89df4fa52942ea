/*
 * doc.c - the document tree: inputs, lookups, changes, copies, and which
 * reader reads a text
 */
#include "api/doc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "api/doc_int.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/mem.h"
#include "util/pool.h"

/* ---------------------------------------------------------------- inputs */

struct gt_doc_input *gt_doc_input_new(struct gt_doc_list *l, const char *name)
{
	struct gt_doc_input *in = gt_xcalloc(1, sizeof(*in));
	in->name = name ? gt_xstrdup(name) : NULL;	/* NULL: made, not parsed */
	gt_arena_init(&in->arena);
	GT_PUSH(l->inputs, l->n_inputs, l->cap_inputs, in);
	return in;
}

static void input_free(struct gt_doc_input *in)
{
	free(in->name);
	gt_arena_release(&in->arena);
	free(in->slots);
	free(in);
}

/* The interning table's hash of a key (and of a shared scalar's text). */
static uint32_t key_hash(const char *s, size_t len)
{
	uint64_t h = gt_hash_bytes(s, len);
	return (uint32_t)(h ^ h >> 32);
}

static void rehash(struct gt_doc_input *in)
{
	size_t n = in->n_slots ? in->n_slots * 2 : 256;
	struct gt_doc_key **slots = gt_xcalloc(n, sizeof(*slots));
	for (size_t i = 0; i < in->n_slots; i++) {
		struct gt_doc_key *k = in->slots[i];
		if (!k)
			continue;
		size_t j = k->hash & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = k;
	}
	free(in->slots);
	in->slots = slots;
	in->n_slots = n;
}

char *gt_doc_input_key(struct gt_doc_input *in, const char *key, size_t len)
{
	uint32_t h = key_hash(key, len);
	if ((in->n_keys + 1) * 2 > in->n_slots)
		rehash(in);
	size_t j = h & (in->n_slots - 1);
	for (struct gt_doc_key *k; (k = in->slots[j]); j = (j + 1) & (in->n_slots - 1))
		if (k->hash == h && k->len == len && !memcmp(k->s, key, len))
			return k->s;
	struct gt_doc_key *k = gt_arena_alloc(&in->arena, sizeof(*k) + len + 1);
	memcpy(k->s, key, len);
	k->s[len] = '\0';
	k->len = (uint32_t)len;
	k->hash = h;
	k->words[0] = gt_bytes_word(key, len, 0);
	k->words[1] = gt_bytes_word(key, len, sizeof(uint64_t));
	k->shared[0] = k->shared[1] = NULL;
	in->slots[j] = k;
	in->n_keys++;
	return k->s;
}

struct gt_doc *gt_doc_input_node(struct gt_doc_input *in, enum gt_doc_kind kind, int line, int col)
{
	struct gt_doc *d = gt_arena_alloc(&in->arena, sizeof(*d));
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->line = line;
	d->col = col;
	d->input = in;
	return d;
}

struct gt_doc *gt_doc_input_copy(struct gt_doc_input *in, const struct gt_doc *s, size_t *budget)
{
	if (!*budget)
		return NULL;
	--*budget;
	struct gt_doc *d = gt_doc_input_node(in, s->kind, s->line, s->col);
	d->quoted = s->quoted;
	if (s->kind == GT_DOC_SCALAR) {
		d->scalar = gt_arena_strndup(&in->arena, s->scalar, strlen(s->scalar));
		return d;
	}
	d->n = s->n;
	d->items = gt_arena_alloc(&in->arena, (s->n ? s->n : 1) * sizeof(*d->items));
	if (s->kind == GT_DOC_MAP)
		d->keys = gt_arena_alloc(&in->arena, (s->n ? s->n : 1) * sizeof(*d->keys));
	for (size_t i = 0; i < s->n; i++) {
		d->items[i] = gt_doc_input_copy(in, s->items[i], budget);
		if (!d->items[i])
			return NULL;
		if (s->kind == GT_DOC_MAP)
			d->keys[i] = s->input == in ? s->keys[i] : gt_doc_input_key(in, s->keys[i], strlen(s->keys[i]));
	}
	return d;
}

void gt_doc_problem_add(struct gt_doc_list *l, bool warning, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct gt_doc_problem p = { warning, gt_xvasprintf(fmt, ap) };
	va_end(ap);
	GT_PUSH(l->problems, l->n_problems, l->cap_problems, p);
	l->n_errors += !warning;
}

void gt_doc_list_move(struct gt_doc_list *to, struct gt_doc_list *from)
{
	for (size_t i = 0; i < from->n; i++)
		GT_PUSH(to->docs, to->n, to->cap, from->docs[i]);
	for (size_t i = 0; i < from->n_inputs; i++)
		GT_PUSH(to->inputs, to->n_inputs, to->cap_inputs, from->inputs[i]);
	for (size_t i = 0; i < from->n_problems; i++)
		GT_PUSH(to->problems, to->n_problems, to->cap_problems, from->problems[i]);
	to->n_errors += from->n_errors;
	free(from->docs);
	free(from->inputs);
	free(from->problems);
	memset(from, 0, sizeof(*from));
}

void gt_doc_list_release(struct gt_doc_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		gt_doc_free(l->docs[i]);	/* the heap ones; the parsed ones go with their input */
	for (size_t i = 0; i < l->n_inputs; i++)
		input_free(l->inputs[i]);
	for (size_t i = 0; i < l->n_problems; i++)
		free(l->problems[i].text);
	free(l->docs);
	free(l->inputs);
	free(l->problems);
	memset(l, 0, sizeof(*l));
}

const char *gt_doc_source(const struct gt_doc *d)
{
	return d && d->input ? d->input->name : NULL;
}

/* ---------------------------------------------------------------- reading */

size_t gt_doc_parse_threads(size_t len, size_t n_items)
{
	enum { MAX_THREADS = 4 };
	if (len < GT_DOC_PARALLEL_BYTES || n_items < 64)
		return 1;
	return gt_pool_cpus(MAX_THREADS);
}

int gt_doc_parse_yaml(const char *text, size_t len, const char *name, struct gt_doc_list *out);
int gt_doc_parse_json(const char *text, size_t len, const char *name, struct gt_doc_list *out,
		      bool try_only);

/* JSON starts with an object or an array (after a byte-order mark and white space). */
static bool looks_like_json(const char *text, size_t len)
{
	size_t i = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
		i++;
	return i < len && (text[i] == '{' || text[i] == '[');
}

static bool json_name(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && !strcmp(name + n - 5, ".json");
}

int gt_doc_parse_string(const char *text, size_t len, const char *name, struct gt_doc_list *out,
			struct gt_err *err)
{
	size_t first = out->n_problems, errors = out->n_errors;
	/*
	 * A .json file is JSON. Other text that starts as JSON does is read as
	 * JSON, and as YAML only when it is not (YAML's flow style starts the
	 * same way: "{kind: Pod, ...}").
	 */
	if (json_name(name))
		gt_doc_parse_json(text, len, name, out, false);
	else if (!looks_like_json(text, len) || gt_doc_parse_json(text, len, name, out, true))
		gt_doc_parse_yaml(text, len, name, out);
	if (out->n_errors == errors)
		return 0;
	for (size_t i = first; i < out->n_problems; i++)
		if (!out->problems[i].warning)
			return gt_errf(err, GT_EPARSE, "%s", out->problems[i].text);
	return GT_EPARSE;
}

int gt_doc_parse_file(FILE *f, const char *name, struct gt_doc_list *out, struct gt_err *err)
{
	char *buf;
	size_t len;
	int bad = gt_file_slurp(f, &buf, &len);
	if (bad)
		return gt_errf(err, GT_EIO, "%s: cannot read: %s", name, strerror(bad));
	int rc = gt_doc_parse_string(buf, len, name, out, err);
	free(buf);
	return rc;
}

/* ---------------------------------------------------------------- lookups */

/*
 * A parsed map and a key past sixteen bytes: what the words leave is
 * compared with memcmp() (a loop of its own keeps the usual one tight).
 */
__attribute__((noinline)) static const struct gt_doc *getn_long(const struct gt_doc *d, const char *key,
								 size_t len, uint64_t w0, uint64_t w1)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct gt_doc_key *k = gt_doc_key_of(d->keys[i]);
		if (k->words[0] == w0 && k->words[1] == w1 && k->len == len &&
		    !memcmp(k->s + 2 * sizeof(w0), key + 2 * sizeof(w0), len - 2 * sizeof(w0)))
			return d->items[i];
	}
	return NULL;
}

/* A map made on the heap: its keys are plain strings. */
__attribute__((noinline)) static const struct gt_doc *getn_heap(const struct gt_doc *d, const char *key,
								 size_t len)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strncmp(d->keys[i], key, len) && d->keys[i][len] == '\0')
			return d->items[i];
	return NULL;
}

const struct gt_doc *gt_doc_get_packed(const struct gt_doc *d, const char *key, size_t len, uint64_t w0,
				       uint64_t w1)
{
	if (!d || d->kind != GT_DOC_MAP)
		return NULL;
	if (!d->input)
		return getn_heap(d, key, len);
	if (len > 2 * sizeof(w0))
		return getn_long(d, key, len, w0, w1);
	for (size_t i = 0; i < d->n; i++) {
		const struct gt_doc_key *k = gt_doc_key_of(d->keys[i]);
		if (k->words[0] == w0 && k->words[1] == w1 && k->len == len)
			return d->items[i];
	}
	return NULL;
}

const struct gt_doc *gt_doc_getn(const struct gt_doc *d, const char *key, size_t len)
{
	if (!d || d->kind != GT_DOC_MAP)
		return NULL;
	if (!d->input)
		return getn_heap(d, key, len);
	return gt_doc_get_packed(d, key, len, gt_bytes_word(key, len, 0),
				 gt_bytes_word(key, len, sizeof(uint64_t)));
}

const char *gt_doc_text(const struct gt_doc *v)
{
	if (!v || v->kind != GT_DOC_SCALAR || gt_doc_is_null(v))
		return NULL;
	return v->scalar;
}

const char *gt_doc_strn(const struct gt_doc *d, const char *key, size_t len)
{
	return gt_doc_text(gt_doc_getn(d, key, len));
}

const struct gt_doc *gt_doc_path_walk(const struct gt_doc *d, const char *path)
{
	while (d && *path) {
		size_t len = 0;
		while (path[len] && path[len] != '.')
			len++;
		d = gt_doc_getn(d, path, len);
		path += len + (path[len] == '.');
	}
	return d;
}

/* ---------------------------------------------------------------- the heap */

struct gt_doc *gt_doc_new(enum gt_doc_kind kind)
{
	struct gt_doc *d = gt_xcalloc(1, sizeof(*d));
	d->kind = kind;
	if (kind == GT_DOC_SCALAR)
		d->scalar = gt_xstrdup("");
	return d;
}

struct gt_doc *gt_doc_new_scalar(const char *s, bool quoted)
{
	struct gt_doc *d = gt_xcalloc(1, sizeof(*d));
	d->kind = GT_DOC_SCALAR;
	d->scalar = gt_xstrdup(s);
	d->quoted = quoted;
	return d;
}

struct gt_doc_input *gt_doc_list_input(struct gt_doc_list *l)
{
	return gt_doc_input_new(l, NULL);
}

struct gt_doc *gt_doc_new_in(struct gt_doc_input *in, enum gt_doc_kind kind)
{
	if (!in)
		return gt_doc_new(kind);
	struct gt_doc *d = gt_doc_input_node(in, kind, 0, 0);
	if (kind == GT_DOC_SCALAR)
		d->scalar = "";
	return d;
}

struct gt_doc *gt_doc_new_scalar_in(struct gt_doc_input *in, const char *s, bool quoted)
{
	if (!in)
		return gt_doc_new_scalar(s, quoted);
	struct gt_doc *d = gt_doc_input_node(in, GT_DOC_SCALAR, 0, 0);
	d->scalar = gt_arena_strndup(&in->arena, s, strlen(s));
	d->quoted = quoted;
	return d;
}

struct gt_doc *gt_doc_shared_scalar_in(struct gt_doc_input *in, const char *s, bool quoted)
{
	if (!in)
		return gt_doc_new_scalar(s, quoted);
	char *text = gt_doc_input_key(in, s, strlen(s));
	struct gt_doc_key *k = (struct gt_doc_key *)gt_doc_key_of(text);	/* the input's own: writable */
	if (!k->shared[quoted]) {
		struct gt_doc *d = gt_doc_input_node(in, GT_DOC_SCALAR, 0, 0);
		d->scalar = text;	/* the interned text, as the input's keys are */
		d->quoted = quoted;
		k->shared[quoted] = d;
	}
	return k->shared[quoted];
}

struct gt_doc *gt_doc_copy(const struct gt_doc *s)
{
	struct gt_doc *d = gt_xcalloc(1, sizeof(*d));
	d->kind = s->kind;
	d->line = s->line;
	d->col = s->col;
	d->quoted = s->quoted;
	if (s->kind == GT_DOC_SCALAR) {
		d->scalar = gt_xstrdup(s->scalar ? s->scalar : "");
		return d;
	}
	size_t len = s->n ? s->n : 1;
	d->items = gt_xmalloc(len * sizeof(*d->items));
	if (s->kind == GT_DOC_MAP)
		d->keys = gt_xmalloc(len * sizeof(*d->keys));
	for (size_t i = 0; i < s->n; i++) {
		d->items[i] = gt_doc_copy(s->items[i]);
		if (s->kind == GT_DOC_MAP)
			d->keys[i] = gt_xstrdup(s->keys[i]);
	}
	d->n = s->n;
	return d;
}

void gt_doc_free(struct gt_doc *d)
{
	if (!d || d->input)
		return;	/* a parsed node belongs to its input */
	free(d->scalar);
	for (size_t i = 0; i < d->n; i++) {
		if (d->keys)
			free(d->keys[i]);
		gt_doc_free(d->items[i]);
	}
	free(d->keys);
	free(d->items);
	free(d);
}

/* ---------------------------------------------------------------- changes */

/* How many children @d's arrays have room for (d->grown says how they were made). */
static size_t room(const struct gt_doc *d)
{
	if (!d->grown)
		return d->n;
	size_t cap = 4;
	while (cap < d->n)
		cap *= 2;
	return cap;
}

/* Room for one more child of @d, in its input's arena or on the heap. */
static void grow(struct gt_doc *d)
{
	if (d->n < room(d))
		return;
	size_t cap = 4;	/* a power of two, as room() counts once d->grown */
	while (cap < (size_t)d->n + 1)
		cap *= 2;
	if (!d->input) {
		d->items = gt_xrealloc(d->items, cap * sizeof(*d->items));
		if (d->kind == GT_DOC_MAP)
			d->keys = gt_xrealloc(d->keys, cap * sizeof(*d->keys));
	} else {
		/* a node made empty in an input (gt_doc_new_in) has no arrays yet: nothing to copy */
		struct gt_doc **items = gt_arena_alloc(&d->input->arena, cap * sizeof(*items));
		if (d->n)
			memcpy(items, d->items, d->n * sizeof(*items));
		d->items = items;
		if (d->kind == GT_DOC_MAP) {
			char **keys = gt_arena_alloc(&d->input->arena, cap * sizeof(*keys));
			if (d->n)
				memcpy(keys, d->keys, d->n * sizeof(*keys));
			d->keys = keys;
		}
	}
	d->grown = true;
}

/* @value as a child of @parent: copied into a parsed parent's input (and freed). */
static struct gt_doc *adopt(struct gt_doc *parent, struct gt_doc *value)
{
	if (!parent->input || value->input == parent->input)
		return value;
	size_t budget = SIZE_MAX;
	struct gt_doc *copy = gt_doc_input_copy(parent->input, value, &budget);
	gt_doc_free(value);
	return copy;
}

static ptrdiff_t key_index(const struct gt_doc *map, const char *key)
{
	const struct gt_doc *v = gt_doc_get(map, key);
	for (size_t i = 0; v && i < map->n; i++)
		if (map->items[i] == v)
			return (ptrdiff_t)i;
	return -1;
}

struct gt_doc *gt_doc_put(struct gt_doc *map, const char *key, struct gt_doc *value)
{
	value = adopt(map, value);
	if (map->input) {
		/* a parsed map's keys are its input's interned copies: interned once, compared as pointers */
		char *k = gt_doc_input_key(map->input, key, strlen(key));
		for (size_t j = 0; j < map->n; j++) {
			if (map->keys[j] == k) {
				gt_doc_free(map->items[j]);
				map->items[j] = value;
				return value;
			}
		}
		grow(map);
		map->keys[map->n] = k;
		map->items[map->n++] = value;
		return value;
	}
	ptrdiff_t i = key_index(map, key);
	if (i >= 0) {
		gt_doc_free(map->items[i]);
		map->items[i] = value;
		return value;
	}
	grow(map);
	map->keys[map->n] = gt_xstrdup(key);
	map->items[map->n++] = value;
	return value;
}

struct gt_doc *gt_doc_append(struct gt_doc *seq, struct gt_doc *value)
{
	value = adopt(seq, value);
	grow(seq);
	seq->items[seq->n++] = value;
	return value;
}

void gt_doc_del(struct gt_doc *map, const char *key)
{
	ptrdiff_t i = map && map->kind == GT_DOC_MAP ? key_index(map, key) : -1;
	if (i < 0)
		return;
	gt_doc_free(map->items[i]);
	if (!map->input)
		free(map->keys[i]);
	size_t after = map->n - (size_t)i - 1;
	memmove(&map->items[i], &map->items[i + 1], after * sizeof(*map->items));
	memmove(&map->keys[i], &map->keys[i + 1], after * sizeof(*map->keys));
	map->n--;
}

struct gt_doc *gt_doc_child_map(struct gt_doc *map, const char *key)
{
	const struct gt_doc *v = gt_doc_get(map, key);
	if (v && v->kind == GT_DOC_MAP)
		return (struct gt_doc *)v;
	return gt_doc_put(map, key, gt_doc_new_in(map->input, GT_DOC_MAP));	/* made where it goes */
}
