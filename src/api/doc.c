#include "api/doc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/mem.h"

struct anchor {
	char *name;
	struct gt_doc *node;
};

struct builder {
	yaml_parser_t parser;
	const char *name;
	struct anchor *anchors;
	size_t n_anchors, cap_anchors;
};

static struct gt_doc *doc_new(enum gt_doc_kind kind, int line)
{
	struct gt_doc *d = gt_xcalloc(1, sizeof(*d));
	d->kind = kind;
	d->line = line;
	return d;
}

void gt_doc_free(struct gt_doc *d)
{
	if (!d)
		return;
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

static struct gt_doc *doc_copy(const struct gt_doc *s)
{
	struct gt_doc *d = doc_new(s->kind, s->line);
	d->quoted = s->quoted;
	if (s->scalar)
		d->scalar = gt_xstrdup(s->scalar);
	d->n = d->cap = s->n;
	if (s->n) {
		d->items = gt_xmalloc(s->n * sizeof(*d->items));
		if (s->keys)
			d->keys = gt_xmalloc(s->n * sizeof(*d->keys));
		for (size_t i = 0; i < s->n; i++) {
			d->items[i] = doc_copy(s->items[i]);
			if (s->keys)
				d->keys[i] = gt_xstrdup(s->keys[i]);
		}
	}
	return d;
}

static void remember_anchor(struct builder *b, const yaml_char_t *anchor,
			    struct gt_doc *node)
{
	if (!anchor)
		return;
	struct anchor a = { gt_xstrdup((const char *)anchor), node };
	GT_PUSH(b->anchors, b->n_anchors, b->cap_anchors, a);
}

static int parse_error(struct builder *b, struct gt_err *err)
{
	return gt_errf(err, GT_EPARSE, "%s: line %zu: %s%s%s", b->name,
		       (size_t)b->parser.problem_mark.line + 1,
		       b->parser.problem ? b->parser.problem : "malformed YAML",
		       b->parser.context ? " " : "",
		       b->parser.context ? b->parser.context : "");
}

static int next_event(struct builder *b, yaml_event_t *ev, struct gt_err *err)
{
	if (!yaml_parser_parse(&b->parser, ev))
		return parse_error(b, err);
	return 0;
}

static int build_node(struct builder *b, yaml_event_t *ev, struct gt_doc **out,
		      struct gt_err *err);

static int build_children(struct builder *b, struct gt_doc *d,
			  yaml_event_type_t end, struct gt_err *err)
{
	for (;;) {
		yaml_event_t ev;
		int rc = next_event(b, &ev, err);
		if (rc)
			return rc;
		if (ev.type == end) {
			yaml_event_delete(&ev);
			return 0;
		}
		char *key = NULL;
		if (d->kind == GT_DOC_MAP) {
			if (ev.type != YAML_SCALAR_EVENT) {
				int line = (int)ev.start_mark.line + 1;
				yaml_event_delete(&ev);
				return gt_errf(err, GT_EPARSE,
					       "%s: line %d: only scalar map keys are supported",
					       b->name, line);
			}
			key = gt_xstrdup((const char *)ev.data.scalar.value);
			yaml_event_delete(&ev);
			rc = next_event(b, &ev, err);
			if (rc) {
				free(key);
				return rc;
			}
		}
		struct gt_doc *child = NULL;
		rc = build_node(b, &ev, &child, err);
		yaml_event_delete(&ev);
		if (rc) {
			free(key);
			return rc;
		}
		GT_GROW(d->items, d->n + 1, d->cap);
		if (d->kind == GT_DOC_MAP) {
			d->keys = gt_xrealloc(d->keys, d->cap * sizeof(*d->keys));
			d->keys[d->n] = key;
		}
		d->items[d->n++] = child;
	}
}

static int build_node(struct builder *b, yaml_event_t *ev, struct gt_doc **out,
		      struct gt_err *err)
{
	int line = (int)ev->start_mark.line + 1;
	switch (ev->type) {
	case YAML_SCALAR_EVENT: {
		struct gt_doc *d = doc_new(GT_DOC_SCALAR, line);
		d->scalar = gt_xstrndup((const char *)ev->data.scalar.value,
					ev->data.scalar.length);
		d->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
			    ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ||
			    ev->data.scalar.style == YAML_LITERAL_SCALAR_STYLE ||
			    ev->data.scalar.style == YAML_FOLDED_SCALAR_STYLE;
		remember_anchor(b, ev->data.scalar.anchor, d);
		*out = d;
		return 0;
	}
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT: {
		bool map = ev->type == YAML_MAPPING_START_EVENT;
		struct gt_doc *d = doc_new(map ? GT_DOC_MAP : GT_DOC_SEQ, line);
		int rc = build_children(b, d, map ? YAML_MAPPING_END_EVENT
						  : YAML_SEQUENCE_END_EVENT, err);
		if (rc) {
			gt_doc_free(d);
			return rc;
		}
		remember_anchor(b, map ? ev->data.mapping_start.anchor
				       : ev->data.sequence_start.anchor, d);
		*out = d;
		return 0;
	}
	case YAML_ALIAS_EVENT:
		for (size_t i = b->n_anchors; i-- > 0;) {
			if (!strcmp(b->anchors[i].name,
				    (const char *)ev->data.alias.anchor)) {
				*out = doc_copy(b->anchors[i].node);
				return 0;
			}
		}
		return gt_errf(err, GT_EPARSE, "%s: line %d: unknown alias '%s'",
			       b->name, line, ev->data.alias.anchor);
	default:
		return gt_errf(err, GT_EPARSE, "%s: line %d: unexpected YAML event",
			       b->name, line);
	}
}

static void release_anchors(struct builder *b)
{
	for (size_t i = 0; i < b->n_anchors; i++)
		free(b->anchors[i].name);
	free(b->anchors);
	b->anchors = NULL;
	b->n_anchors = b->cap_anchors = 0;
}

static int parse_stream(struct builder *b, struct gt_doc_list *out,
			struct gt_err *err)
{
	int rc = 0;
	for (;;) {
		yaml_event_t ev;
		rc = next_event(b, &ev, err);
		if (rc)
			break;
		yaml_event_type_t type = ev.type;
		if (type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (type == YAML_STREAM_START_EVENT || type == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		if (type == YAML_DOCUMENT_START_EVENT) {
			yaml_event_delete(&ev);
			release_anchors(b);
			continue;
		}
		struct gt_doc *d = NULL;
		rc = build_node(b, &ev, &d, err);
		yaml_event_delete(&ev);
		if (rc)
			break;
		if (gt_doc_is_null(d)) {
			gt_doc_free(d);
			continue;
		}
		GT_PUSH(out->docs, out->n, out->cap, d);
	}
	release_anchors(b);
	yaml_parser_delete(&b->parser);
	return rc;
}

int gt_doc_parse_file(FILE *f, const char *name, struct gt_doc_list *out,
		      struct gt_err *err)
{
	struct builder b = { .name = name };
	if (!yaml_parser_initialize(&b.parser))
		return gt_errf(err, GT_EINTERNAL, "%s: cannot start YAML parser", name);
	yaml_parser_set_input_file(&b.parser, f);
	return parse_stream(&b, out, err);
}

int gt_doc_parse_string(const char *text, size_t len, const char *name,
			struct gt_doc_list *out, struct gt_err *err)
{
	struct builder b = { .name = name };
	if (!yaml_parser_initialize(&b.parser))
		return gt_errf(err, GT_EINTERNAL, "%s: cannot start YAML parser", name);
	yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);
	return parse_stream(&b, out, err);
}

void gt_doc_list_release(struct gt_doc_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		gt_doc_free(l->docs[i]);
	free(l->docs);
	l->docs = NULL;
	l->n = l->cap = 0;
}

const struct gt_doc *gt_doc_get(const struct gt_doc *d, const char *key)
{
	if (!d || d->kind != GT_DOC_MAP)
		return NULL;
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->keys[i], key))
			return d->items[i];
	return NULL;
}

const char *gt_doc_str(const struct gt_doc *d, const char *key)
{
	const struct gt_doc *v = gt_doc_get(d, key);
	if (!v || v->kind != GT_DOC_SCALAR || gt_doc_is_null(v))
		return NULL;
	return v->scalar;
}

const struct gt_doc *gt_doc_path(const struct gt_doc *d, const char *path)
{
	char key[128];
	while (d && *path) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);
		if (len >= sizeof(key))
			return NULL;
		memcpy(key, path, len);
		key[len] = '\0';
		d = gt_doc_get(d, key);
		path += len + (dot ? 1 : 0);
	}
	return d;
}

