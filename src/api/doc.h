/*
 * doc.h - YAML and JSON documents as a small tree
 *
 * Kubernetes objects arrive as YAML (kubectl get -o yaml, manifests) or JSON
 * (the API server). libyaml parses both (JSON is, for these objects, a subset
 * of YAML 1.1); this module turns its event stream into a tree of maps,
 * sequences and scalars that the decoders walk. Each node remembers its line
 * so errors can point at it. Aliases are expanded by copying.
 */
#ifndef GT_DOC_H
#define GT_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"
#include "util/num.h"

enum gt_doc_kind { GT_DOC_SCALAR, GT_DOC_MAP, GT_DOC_SEQ };

struct gt_doc {
	enum gt_doc_kind kind;
	char *scalar;		/* SCALAR: the text */
	bool quoted;		/* SCALAR: was quoted (so "1" is a string) */
	size_t n;		/* MAP: pairs; SEQ: items */
	char **keys;		/* MAP: keys (scalar keys only) */
	struct gt_doc **items;	/* MAP: values; SEQ: items */
	size_t cap;
	int line;		/* 1-based line in the source */
};

struct gt_doc_list {
	struct gt_doc **docs;	/* non-empty documents in stream order */
	size_t n, cap;
};

/*
 * Parse every document of @f (named @name for messages) and append the
 * non-empty ones to @out. Returns 0, or GT_EPARSE with the line in @err; on
 * error @out keeps the documents parsed before the bad one.
 */
int gt_doc_parse_file(FILE *f, const char *name, struct gt_doc_list *out,
		      struct gt_err *err);
int gt_doc_parse_string(const char *text, size_t len, const char *name,
			struct gt_doc_list *out, struct gt_err *err);
void gt_doc_list_release(struct gt_doc_list *l);
void gt_doc_free(struct gt_doc *d);

/* Value under @key of map @d, or NULL (also when @d is NULL or not a map). */
const struct gt_doc *gt_doc_get(const struct gt_doc *d, const char *key);
/* Scalar text under @key, or NULL if missing or not a scalar. */
const char *gt_doc_str(const struct gt_doc *d, const char *key);
/* Follow a dotted path of map keys ("metadata.name"). */
const struct gt_doc *gt_doc_path(const struct gt_doc *d, const char *path);

static inline bool gt_doc_is_null(const struct gt_doc *d)
{
	return !d || (d->kind == GT_DOC_SCALAR && !d->quoted &&
		      (d->scalar[0] == '\0' || !__builtin_strcmp(d->scalar, "null") ||
		       !__builtin_strcmp(d->scalar, "~")));
}

#endif /* GT_DOC_H */
