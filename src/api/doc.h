/*
 * doc.h - YAML and JSON documents as a small tree
 *
 * Kubernetes objects arrive as YAML (manifests, kubectl get -o yaml) or JSON
 * (kubectl get -o json, the API server). Each goes through a parser of its
 * own language: YAML through libyaml (doc_yaml.c), JSON through jansson
 * (doc_json.c; so "\ud83d\ude80" is one character and not a YAML 1.1
 * error). Both build the same tree of maps, sequences and scalars, which
 * the decoders walk. Every node knows its line, and its column where the
 * parser says it (col 0: not known, inside a JSON value jansson read whole;
 * the line is then its object's), so a message can point at the field.
 *
 * The documents parsed from one input live in one arena with the input's
 * name (struct gt_doc_input): no allocation per node or string, and the
 * whole set is freed at once by gt_doc_list_release(). Map keys are
 * interned per input, so looking a key up is one hash of the key asked for
 * and a scan comparing pointers, never a string comparison per key.
 * Documents made on the heap (gt_doc_from_json in json.h, gt_doc_new_*) have
 * no input: they are freed with gt_doc_free() and looked up by comparing
 * strings.
 *
 * A reader reports and carries on: a document it cannot read is left out
 * with an error in the list's problems ("file:line:col: Pod ns/name: field
 * spec.x: why"), and so is an object of a v1 List; the documents before and
 * after it are kept. Suspicious input that can be read (a key given twice,
 * as when two objects are concatenated without "---") is a warning.
 */
#ifndef GT_DOC_H
#define GT_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"
#include "util/hash.h"
#include "util/num.h"

enum gt_doc_kind { GT_DOC_SCALAR, GT_DOC_MAP, GT_DOC_SEQ };

/* Documents nest at most this deep; deeper ones are an error (doc.h's readers, and the walkers). */
#define GT_DOC_MAX_DEPTH 256

struct gt_doc_input;

/*
 * 48 bytes on 64-bit machines: a large input is millions of nodes, and each
 * byte of them is memory to fault in (the parsed documents of 50,000 pods
 * were most of a simulation's memory).
 */
struct gt_doc {
	enum gt_doc_kind kind : 8;
	bool quoted;		/* SCALAR: was quoted (so "1" is a string) */
	/*
	 * MAP, SEQ: the arrays are a power of two long (4 at least) since a
	 * child was added; until then, exactly n (as parsed or copied)
	 */
	bool grown;
	int line, col;		/* 1-based place in the source; 0 when made, not parsed (col: or not known) */
	uint32_t n;		/* MAP: pairs; SEQ: items */
	char *scalar;		/* SCALAR: the text */
	char **keys;		/* MAP: keys (scalar keys only) */
	struct gt_doc **items;	/* MAP: values; SEQ: items */
	struct gt_doc_input *input;	/* what it was parsed from; NULL: made on the heap */
};

_Static_assert(sizeof(void *) != 8 || sizeof(struct gt_doc) == 48, "a node is 48 bytes on 64-bit machines");

/* Something a reader met: an error (what it names was left out) or a warning. */
struct gt_doc_problem {
	bool warning;
	char *text;		/* "file:line:col: Pod ns/name: field spec.x: message" */
};

struct gt_doc_list {
	struct gt_doc **docs;	/* non-empty documents in stream order */
	size_t n, cap;
	struct gt_doc_input **inputs;	/* the memory of those documents */
	size_t n_inputs, cap_inputs;
	struct gt_doc_problem *problems;	/* in the order met */
	size_t n_problems, cap_problems;
	size_t n_errors;	/* problems that are errors */
};

/*
 * Parse every document of @f (read to its end) or @text (named @name for
 * messages) and append them to @out, and what was wrong to out->problems.
 * YAML or JSON by content: JSON when the text starts with '{' or '[' and
 * reads as JSON (a stream of values, with or without "---" between them).
 * Returns 0, or GT_EPARSE when something was left out (@err holds the first
 * error; the documents that could be read are in @out either way), or
 * GT_EIO when @f cannot be read.
 */
int gt_doc_parse_file(FILE *f, const char *name, struct gt_doc_list *out, struct gt_err *err);
int gt_doc_parse_string(const char *text, size_t len, const char *name, struct gt_doc_list *out,
			struct gt_err *err);
void gt_doc_list_release(struct gt_doc_list *l);
/* The name of the input @d was parsed from, or NULL for a document made on the heap. */
const char *gt_doc_source(const struct gt_doc *d);

/* The value under the @len bytes at @key of map @d, or NULL (also when @d is NULL or not a map). */
const struct gt_doc *gt_doc_getn(const struct gt_doc *d, const char *key, size_t len);
/* Scalar text under @key (@len bytes), or NULL if missing, null or not a scalar. */
const char *gt_doc_strn(const struct gt_doc *d, const char *key, size_t len);

/*
 * A parsed map's keys carry their first sixteen bytes as two integers
 * (gt_bytes_word, util/hash.h), so that finding a key compares integers
 * (and a key past sixteen bytes the rest with memcmp). For a key written
 * in the code the compiler packs them.
 */
/* gt_doc_getn for a key whose first sixteen bytes the caller packed. */
const struct gt_doc *gt_doc_get_packed(const struct gt_doc *d, const char *key, size_t len, uint64_t w0,
				       uint64_t w1);
/* @v's text when it is a scalar and not null, else NULL. */
const char *gt_doc_text(const struct gt_doc *v);

/*
 * gt_doc_getn, inline: a key written in the code (nearly every lookup: the
 * decoders ask hundreds per Pod) is measured and packed by the compiler.
 */
__attribute__((always_inline)) static inline const struct gt_doc *gt_doc_get_len(const struct gt_doc *d,
										       const char *key, size_t len)
{
	if (__builtin_constant_p(len))
		return gt_doc_get_packed(d, key, len, gt_bytes_word(key, len, 0),
					 gt_bytes_word(key, len, sizeof(uint64_t)));
	return gt_doc_getn(d, key, len);
}
/* The same for a string. */
__attribute__((always_inline)) static inline const struct gt_doc *gt_doc_get(const struct gt_doc *d,
										   const char *key)
{
	return gt_doc_get_len(d, key, __builtin_strlen(key));
}
__attribute__((always_inline)) static inline const char *gt_doc_str(const struct gt_doc *d, const char *key)
{
	return gt_doc_text(gt_doc_get(d, key));
}
/* Follow a dotted path of map keys ("metadata.name"). */
const struct gt_doc *gt_doc_path_walk(const struct gt_doc *d, const char *path);
/* The value under @path's first key (a path written in the code); *@path moves past it. */
__attribute__((always_inline)) static inline const struct gt_doc *gt_doc_path_key(const struct gt_doc *d,
										    const char **path, bool *last)
{
	const char *p = *path, *dot = __builtin_strchr(p, '.');
	*last = !dot;
	if (!dot)
		return gt_doc_get_len(d, p, __builtin_strlen(p));
	*path = dot + 1;
	return gt_doc_get_len(d, p, (size_t)(dot - p));
}
/*
 * The same; a path written in the code (of up to four keys) is split and
 * packed by the compiler (written out, not a loop: GCC folds strchr() on a
 * literal only outside one).
 */
__attribute__((always_inline)) static inline const struct gt_doc *gt_doc_path(const struct gt_doc *d,
										    const char *path)
{
	bool last;
	if (!__builtin_constant_p(__builtin_strlen(path)) || !*path)
		return gt_doc_path_walk(d, path);
	d = gt_doc_path_key(d, &path, &last);
	if (last)
		return d;
	d = gt_doc_path_key(d, &path, &last);
	if (last)
		return d;
	d = gt_doc_path_key(d, &path, &last);
	if (last)
		return d;
	d = gt_doc_path_key(d, &path, &last);
	return last ? d : gt_doc_path_walk(d, path);
}

/*
 * Made on the heap, and changed. A node is freed with gt_doc_free() (a
 * no-op for a parsed one: its input owns it). gt_doc_put() and
 * gt_doc_append() take @value over: into a parsed map or sequence it is
 * copied into the input and freed, so the returned pointer is the one to
 * use; into a heap one it is stored as it is (the caller may keep borrowed
 * nodes there, as long as it frees that container itself).
 */
struct gt_doc *gt_doc_new(enum gt_doc_kind kind);
struct gt_doc *gt_doc_new_scalar(const char *s, bool quoted);
/*
 * Documents made in bulk (the podgrouper's PodGroups for 50,000 pods) are
 * better made as parsed ones are: an input of their own, kept by @l, holds
 * them in one arena with interned keys, so that they cost no allocation per
 * node, are looked up as fast, and are freed with @l. They come from no
 * file: gt_doc_source() says NULL, as for the heap's.
 */
struct gt_doc_input *gt_doc_list_input(struct gt_doc_list *l);
/* gt_doc_new() and gt_doc_new_scalar() in @in (made by gt_doc_list_input), or on the heap when NULL. */
struct gt_doc *gt_doc_new_in(struct gt_doc_input *in, enum gt_doc_kind kind);
struct gt_doc *gt_doc_new_scalar_in(struct gt_doc_input *in, const char *s, bool quoted);
/*
 * A scalar of @in with the text @s, the same node every time for the same
 * text and quoting (on the heap, a new one, when @in is NULL): for documents
 * that are only read once made, where most values repeat (the PodGroups the
 * podgrouper makes for 50,000 pods share their apiVersion, kind, namespace,
 * queue...). A shared node is never to be changed.
 */
struct gt_doc *gt_doc_shared_scalar_in(struct gt_doc_input *in, const char *s, bool quoted);
/* A deep copy on the heap. */
struct gt_doc *gt_doc_copy(const struct gt_doc *d);
void gt_doc_free(struct gt_doc *d);
struct gt_doc *gt_doc_put(struct gt_doc *map, const char *key, struct gt_doc *value);
struct gt_doc *gt_doc_append(struct gt_doc *seq, struct gt_doc *value);
/* Remove @key from @map (its value freed); nothing when it is not there. */
void gt_doc_del(struct gt_doc *map, const char *key);
/* The map under @key, made (replacing whatever else was there) when missing. */
struct gt_doc *gt_doc_child_map(struct gt_doc *map, const char *key);

static inline bool gt_doc_is_null(const struct gt_doc *d)
{
	/* by character: the decoders ask this of nearly every scalar they read */
	const char *s = d ? d->scalar : NULL;
	return !d || (d->kind == GT_DOC_SCALAR && !d->quoted &&
		      (s[0] == '\0' || (s[0] == '~' && !s[1]) ||
		       (s[0] == 'n' && s[1] == 'u' && s[2] == 'l' && s[3] == 'l' && !s[4])));
}

#endif /* GT_DOC_H */
