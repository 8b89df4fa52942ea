/*
 * emit.h - JSON or block-style YAML written as it is made
 *
 * What `-o json` and `-o yaml` print: the values are given one at a time
 * (open an object, a key, a scalar, close it) and the text is written as
 * they come, a buffer at a time, with no tree in between. A simulation of
 * 50,000 pods printed through a jansson tree spent more on making and
 * freeing the tree (a hash table and an allocation per member) than on the
 * text.
 *
 * The text is byte for byte what gt_json_print() (json_dumpf's
 * JSON_INDENT(n) | JSON_REAL_PRECISION(10)) and gt_json_print_yaml() write
 * for the same values: those two are this emitter fed from a jansson value.
 * YAML: maps and sequences indented, an item's first key on its "- " line,
 * a sequence inside a sequence under a "-" of its own and two deeper, an
 * empty container as {} or [], scalars as JSON writes them (strings
 * double-quoted), keys plain when they are made of [A-Za-z0-9_./-]. (The
 * printer before this one put a sequence's sequences, and the keys of a
 * top-level sequence's objects, at their parent's depth, where YAML reads
 * them as something else; nothing printed such a document.)
 */
#ifndef GT_EMIT_H
#define GT_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gt_emitter;

/* JSON indented by @indent spaces a level, or YAML (@yaml; @indent unused). */
struct gt_emitter *gt_emitter_new(FILE *f, bool yaml, int indent);
/* What is still buffered written to the file, and @w freed. The values given must be closed. */
void gt_emitter_free(struct gt_emitter *w);

/* The key of the next value, inside an object. */
void gt_emit_key(struct gt_emitter *w, const char *key, size_t len);
void gt_emit_object(struct gt_emitter *w);
void gt_emit_array(struct gt_emitter *w);
/* The innermost object or array open ends. */
void gt_emit_close(struct gt_emitter *w);

void gt_emit_string(struct gt_emitter *w, const char *s, size_t len);
void gt_emit_int(struct gt_emitter *w, int64_t v);
/* As jansson writes a real with JSON_REAL_PRECISION(10): 0.25, 1.0, 1e-5. */
void gt_emit_real(struct gt_emitter *w, double v);
void gt_emit_bool(struct gt_emitter *w, bool v);
void gt_emit_null(struct gt_emitter *w);

/* Shorthands: a key and its value. gt_emit_str_or_null: null when @s is NULL. */
static inline void gt_emit_kstr(struct gt_emitter *w, const char *key, const char *s)
{
	gt_emit_key(w, key, __builtin_strlen(key));
	gt_emit_string(w, s, __builtin_strlen(s));
}

void gt_emit_kstr_or_null(struct gt_emitter *w, const char *key, const char *s);

static inline void gt_emit_kint(struct gt_emitter *w, const char *key, int64_t v)
{
	gt_emit_key(w, key, __builtin_strlen(key));
	gt_emit_int(w, v);
}

static inline void gt_emit_kreal(struct gt_emitter *w, const char *key, double v)
{
	gt_emit_key(w, key, __builtin_strlen(key));
	gt_emit_real(w, v);
}

#endif /* GT_EMIT_H */
