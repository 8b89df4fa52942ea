/*
 * doc_build.c - a reader's events into a tree in an input's arena
 *
 * The containers open are a stack; their children wait in one array until
 * the container ends, and then move into arrays of the exact size in the
 * arena: no allocation per node beyond the arena's bump, no array that
 * grows by copying. Map keys are interned as they come.
 *
 * What a message names is the object: the document, or an item of a v1
 * List (what kubectl get -o yaml|json prints), so that one bad Pod in a
 * List of thousands leaves out that Pod only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/doc_int.h"
#include "util/mem.h"

struct gt_db_frame {
	struct gt_doc *node;
	size_t first;		/* its first child in b->children */
	char *key;		/* MAP: the key whose value comes next; NULL while a key is awaited */
	int key_line, key_col;
};

struct gt_db_child {
	char *key;
	struct gt_doc *node;
	int key_line, key_col;
};

void gt_db_init(struct gt_doc_builder *b, struct gt_doc_input *in, struct gt_doc_list *out)
{
	memset(b, 0, sizeof(*b));
	b->in = in;
	b->out = out;
	b->first_warning = out->n_problems;
}

void gt_db_release(struct gt_doc_builder *b)
{
	free(b->stack);
	free(b->children);
	free(b->damage);
	memset(b, 0, sizeof(*b));
}

/* ---------------------------------------------------------------- objects */

/* Inside the items of a v1 List (its "items" sequence is open at the top)? */
static bool in_list_items(const struct gt_doc_builder *b)
{
	return b->depth >= 2 && b->stack[0].node->kind == GT_DOC_MAP && b->stack[0].key &&
	       !strcmp(b->stack[0].key, "items") && b->stack[1].node->kind == GT_DOC_SEQ;
}

/* The level of the object being read: 2 for an item of a List, else 0 (the document). */
static size_t object_level(const struct gt_doc_builder *b)
{
	return in_list_items(b) ? 2 : 0;
}

/* The child of frame @f (its children so far) under @key, or NULL. */
static const struct gt_doc *frame_get(const struct gt_doc_builder *b, size_t f, const char *key)
{
	size_t end = f + 1 < b->depth ? b->stack[f + 1].first : b->n_children;
	for (size_t i = b->stack[f].first; i < end; i++)
		if (b->children[i].key && !strcmp(b->children[i].key, key))
			return b->children[i].node;
	return NULL;
}

/* "Pod ns/name: " for @o, as much as it says; "" when it says neither kind nor name. */
static void name_object(const char *kind, const char *ns, const char *name, char *buf, size_t len)
{
	if (!kind && !name) {
		*buf = '\0';
		return;
	}
	snprintf(buf, len, "%s %s%s%s: ", kind ? kind : "object", ns ? ns : "", ns ? "/" : "",
		 name ? name : "(no name)");
}

static void name_done(const struct gt_doc *o, char *buf, size_t len)
{
	const struct gt_doc *md = gt_doc_get(o, "metadata");
	name_object(gt_doc_str(o, "kind"), gt_doc_str(md, "namespace"), gt_doc_str(md, "name"), buf, len);
}

/* The object being read, named from what has been read of it so far. */
static void name_open(const struct gt_doc_builder *b, char *buf, size_t len)
{
	size_t lvl = object_level(b);
	*buf = '\0';
	if (lvl >= b->depth || b->stack[lvl].node->kind != GT_DOC_MAP)
		return;
	const struct gt_doc *kind = frame_get(b, lvl, "kind");
	const struct gt_doc *md = frame_get(b, lvl, "metadata");
	const char *ns = gt_doc_str(md, "namespace"), *name = gt_doc_str(md, "name");
	if (!md && lvl + 1 < b->depth && b->stack[lvl].key && !strcmp(b->stack[lvl].key, "metadata")) {
		const struct gt_doc *n = frame_get(b, lvl + 1, "name"), *s = frame_get(b, lvl + 1, "namespace");
		name = n && n->kind == GT_DOC_SCALAR ? n->scalar : NULL;
		ns = s && s->kind == GT_DOC_SCALAR ? s->scalar : NULL;
	}
	name_object(kind && kind->kind == GT_DOC_SCALAR ? kind->scalar : NULL, ns, name, buf, len);
}

/* The field being read, from the object's level down ("spec.containers[1].image"). */
static void field_path(const struct gt_doc_builder *b, size_t from, char *buf, size_t len)
{
	size_t off = 0;
	*buf = '\0';
	for (size_t i = from; i < b->depth && off < len; i++) {
		const struct gt_db_frame *f = &b->stack[i];
		if (off > 200 && len > off + 4) {	/* deep nesting: the start says enough */
			snprintf(buf + off, len - off, "...");
			return;
		}
		if (f->node->kind == GT_DOC_MAP && f->key)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "." : "", f->key);
		else if (f->node->kind == GT_DOC_SEQ)
			off += (size_t)snprintf(buf + off, len - off, "[%zu]",
						(i + 1 < b->depth ? b->stack[i + 1].first : b->n_children) - f->first);
	}
}

/* "file:line:col"; "file:line" when the column is not known (inside a JSON value parsed whole) */
static void where(const struct gt_doc_builder *b, int line, int col, char *buf, size_t len)
{
	if (col > 0)
		snprintf(buf, len, "%s:%d:%d", b->in->name, line, col);
	else
		snprintf(buf, len, "%s:%d", b->in->name, line);
}

void gt_db_damage(struct gt_doc_builder *b, int line, int col, const char *why)
{
	if (b->damaged)
		return;	/* the first is the one to fix first */
	char at[600], field[512], text[1400];
	where(b, line, col, at, sizeof(at));
	b->damage_level = object_level(b);
	field_path(b, b->damage_level, field, sizeof(field));
	snprintf(text, sizeof(text), "%s\n%s%s%s", at, *field ? "field " : "", field, *field ? ": " : "");
	size_t n = strlen(text);
	snprintf(text + n, sizeof(text) - n, "%s", why);
	b->damaged = true;
	b->damage = gt_xstrdup(text);
}

/* The damaged object @o ends: said, and left out. */
static void drop_damaged(struct gt_doc_builder *b, const struct gt_doc *o)
{
	char name[600];
	name_done(o, name, sizeof(name));
	char *nl = strchr(b->damage, '\n');
	*nl = '\0';
	gt_doc_problem_add(b->out, false, "%s: %s%s; the object is left out", b->damage, name, nl + 1);
	free(b->damage);
	b->damage = NULL;
	b->damaged = false;
}

/* ---------------------------------------------------------------- values */

static void finish_document(struct gt_doc_builder *b, struct gt_doc *d)
{
	if (b->damaged) {
		drop_damaged(b, d);
		return;
	}
	if (gt_doc_is_null(d))
		return;	/* an empty document: nothing to read */
	GT_PUSH(b->out->docs, b->out->n, b->out->cap, d);
	b->n_docs++;
}

static void add_value(struct gt_doc_builder *b, struct gt_doc *node)
{
	if (b->skip)
		return;
	if (!b->depth) {
		finish_document(b, node);
		return;
	}
	if (b->depth == 2 && b->damaged && b->damage_level == 2 && in_list_items(b)) {
		drop_damaged(b, node);	/* one object of the List */
		return;
	}
	struct gt_db_frame *f = &b->stack[b->depth - 1];
	struct gt_db_child c = { .key = f->key, .node = node, .key_line = f->key_line, .key_col = f->key_col };
	GT_PUSH(b->children, b->n_children, b->cap_children, c);
	f->key = NULL;
}

bool gt_db_wants_key(const struct gt_doc_builder *b)
{
	return !b->skip && b->depth && b->stack[b->depth - 1].node->kind == GT_DOC_MAP &&
	       !b->stack[b->depth - 1].key;
}

void gt_db_key(struct gt_doc_builder *b, const char *s, size_t len, int line, int col)
{
	if (b->skip)
		return;
	struct gt_db_frame *f = &b->stack[b->depth - 1];
	f->key = gt_doc_input_key(b->in, s, len);
	f->key_line = line;
	f->key_col = col;
}

struct gt_doc *gt_db_scalar(struct gt_doc_builder *b, const char *s, size_t len, bool quoted, int line,
			    int col)
{
	if (b->skip)
		return NULL;
	if (gt_db_wants_key(b)) {
		gt_db_key(b, s, len, line, col);
		return NULL;
	}
	struct gt_doc *d = gt_doc_input_node(b->in, GT_DOC_SCALAR, line, col);
	d->scalar = gt_arena_strndup(&b->in->arena, s, len);
	d->quoted = quoted;
	add_value(b, d);
	return d;
}

void gt_db_value(struct gt_doc_builder *b, struct gt_doc *node)
{
	add_value(b, node);
}

void gt_db_open(struct gt_doc_builder *b, enum gt_doc_kind kind, int line, int col)
{
	if (b->skip) {
		b->skip++;
		return;
	}
	if (b->depth >= GT_DOC_MAX_DEPTH) {
		char why[80];
		snprintf(why, sizeof(why), "nested deeper than %d levels", GT_DOC_MAX_DEPTH);
		gt_db_damage(b, line, col, why);
		b->skip = 1;
		return;
	}
	GT_GROW(b->stack, b->depth + 1, b->cap_stack);
	b->stack[b->depth++] = (struct gt_db_frame){
		.node = gt_doc_input_node(b->in, kind, line, col),
		.first = b->n_children,
	};
}

/* ---------------------------------------------------------------- maps */

static int by_key(const void *x, const void *y)
{
	const struct gt_db_child *const *a = x, *const *c = y;
	uintptr_t ka = (uintptr_t)(*a)->key, kc = (uintptr_t)(*c)->key;
	if (ka != kc)
		return ka < kc ? -1 : 1;
	return (uintptr_t)*a < (uintptr_t)*c ? -1 : 1;	/* in order of appearance */
}

/* A key given twice: the later value is used, in the place of the first, with a warning. */
static void duplicate(struct gt_doc_builder *b, struct gt_db_child *first, struct gt_db_child *again)
{
	char name[600], field[512], at[600];
	b->depth++;	/* the map's frame, popped already, for the path */
	b->stack[b->depth - 1].key = first->key;
	name_open(b, name, sizeof(name));
	field_path(b, object_level(b), field, sizeof(field));
	b->depth--;
	where(b, again->key_line, again->key_col, at, sizeof(at));
	bool top = b->depth == object_level(b);
	gt_doc_problem_add(b->out, true, "%s: %sfield %s: given twice (first at line %d); the later value is used%s",
			   at, name, field, first->key_line,
			   top ? " (two objects without '---' between them?)" : "");
	first->node = again->node;
	again->node = NULL;
}

/* Duplicate keys out of @c[0..n) (in place); returns how many are left. */
static size_t dedup(struct gt_doc_builder *b, struct gt_db_child *c, size_t n)
{
	bool any = false;
	if (n <= 16) {
		for (size_t j = 1; j < n; j++)
			for (size_t i = 0; i < j && c[j].node; i++)
				if (c[i].node && c[i].key == c[j].key) {
					duplicate(b, &c[i], &c[j]);
					any = true;
				}
	} else {
		struct gt_db_child **order = gt_xmalloc(n * sizeof(*order));
		for (size_t i = 0; i < n; i++)
			order[i] = &c[i];
		qsort(order, n, sizeof(*order), by_key);
		for (size_t i = 0, j = 1; j < n; j++) {
			if (order[j]->key != order[i]->key) {
				i = j;
				continue;
			}
			duplicate(b, order[i], order[j]);
			any = true;
		}
		free(order);
	}
	if (!any)
		return n;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (c[i].node)
			c[k++] = c[i];
	return k;
}

struct gt_doc *gt_db_close(struct gt_doc_builder *b)
{
	if (b->skip) {
		b->skip--;
		return NULL;
	}
	struct gt_db_frame f = b->stack[--b->depth];
	struct gt_doc *d = f.node;
	size_t n = b->n_children - f.first;
	/* no children yet: no array either (NULL + 0 is undefined in C) */
	struct gt_db_child *c = n ? b->children + f.first : NULL;
	if (d->kind == GT_DOC_MAP)
		n = dedup(b, c, n);
	d->n = (uint32_t)n;
	d->items = gt_arena_alloc(&b->in->arena, (n ? n : 1) * sizeof(*d->items));
	if (d->kind == GT_DOC_MAP)
		d->keys = gt_arena_alloc(&b->in->arena, (n ? n : 1) * sizeof(*d->keys));
	for (size_t i = 0; i < n; i++) {
		d->items[i] = c[i].node;
		if (d->keys)
			d->keys[i] = c[i].key;
	}
	b->n_children = f.first;
	add_value(b, d);
	return d;
}

/* ---------------------------------------------------------------- failing */

void gt_db_fail(struct gt_doc_builder *b, int line, int col, const char *what, const char *why,
		bool rest_lost)
{
	char at[600], name[600], field[512];
	where(b, line, col, at, sizeof(at));
	bool list = in_list_items(b) && !b->skip;
	name_open(b, name, sizeof(name));
	field_path(b, object_level(b), field, sizeof(field));
	const char *lost = list ? (b->depth > 2 ? "this object and the List's objects after it are left out"
						: "the List's objects from here on are left out")
				: "the document is left out";
	gt_doc_problem_add(b->out, false, "%s: %s%s%s%snot valid %s: %s; %s%s", at, name, *field ? "field " : "", field,
			   *field ? ": " : "", what, why, lost, rest_lost ? ", and nothing after it is read" : "");
	if (b->damaged) {
		/* what damaged the object is worth saying too: it is left out either way */
		char *nl = strchr(b->damage, '\n');
		*nl = '\0';
		gt_doc_problem_add(b->out, false, "%s: %s%s", b->damage, name, nl + 1);
		free(b->damage);
		b->damage = NULL;
		b->damaged = false;
	}
	b->skip = 0;
	if (list) {
		/* keep the objects of the List that ended: close the List as it stands */
		b->n_children = b->depth > 2 ? b->stack[2].first : b->n_children;
		b->depth = 2;
		gt_db_close(b);
		gt_db_close(b);
	}
	b->depth = 0;
	b->n_children = 0;
}
