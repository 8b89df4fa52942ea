/*
 * fuzz_doc.h - parse a text as documents and touch every node (the YAML and
 * JSON targets share it)
 */
#ifndef GT_FUZZ_DOC_H
#define GT_FUZZ_DOC_H

#include "api/doc.h"
#include "fuzz.h"

/* Read every field of every node, so a dangling pointer in the tree shows. */
static inline size_t fuzz_doc_walk(const struct gt_doc *d, int depth)
{
	if (!d || depth > 10000)
		return 0;
	size_t n = 1 + (size_t)d->line;
	switch (d->kind) {
	case GT_DOC_SCALAR:
		return n + strlen(d->scalar) + d->quoted;
	case GT_DOC_MAP:
		for (size_t i = 0; i < d->n; i++) {
			n += strlen(d->keys[i]);
			FUZZ_CHECK(gt_doc_get(d, d->keys[i]) != NULL);	/* a key that is there is found */
			n += fuzz_doc_walk(d->items[i], depth + 1);
		}
		return n;
	case GT_DOC_SEQ:
		for (size_t i = 0; i < d->n; i++)
			n += fuzz_doc_walk(d->items[i], depth + 1);
		return n;
	}
	FUZZ_CHECK(!"a node kind other than scalar, map or sequence");
	return 0;
}

static inline int fuzz_doc_parse(const uint8_t *data, size_t size, const char *name)
{
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	int rc = gt_doc_parse_string((const char *)data, size, name, &l, &err);
	FUZZ_CHECK(!rc || err.msg[0]);	/* a failure says why */
	size_t sum = 0;
	for (size_t i = 0; i < l.n; i++) {
		sum += fuzz_doc_walk(l.docs[i], 0);
		(void)gt_doc_path(l.docs[i], "metadata.name");
		(void)gt_doc_str(l.docs[i], "kind");
		(void)gt_doc_is_null(l.docs[i]);
	}
	gt_doc_list_release(&l);
	return sum == 1 ? 1 : 0;	/* keep the walk from being optimised away */
}

#endif /* GT_FUZZ_DOC_H */
