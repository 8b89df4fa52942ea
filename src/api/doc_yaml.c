/*
 * doc_yaml.c - YAML through libyaml, one document at a time
 *
 * The text is cut into its documents at the "---" lines before libyaml sees
 * it. YAML forbids "---" at the start of a line inside any content (it ends
 * even a block scalar), so the cut is exact, and it buys two things: a
 * document libyaml cannot read costs that document only, where one error
 * would otherwise end the stream; and a large input's documents are read
 * by several threads at once, each into an input of its own. (A stream with
 * directives, "%YAML", is read whole: they belong to the next document.)
 *
 * Aliases are copies (so a change to one pod never shows in another), at
 * most ALIAS_BUDGET nodes of them per document: "a billion laughs" is an
 * error, not an out-of-memory.
 */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "api/doc_int.h"
#include "util/mem.h"
#include "util/pool.h"

#define ALIAS_BUDGET 100000

struct anchor {
	char *name;
	struct gt_doc *node;
};

struct reader {
	struct gt_doc_builder b;
	yaml_parser_t parser;
	int line0;		/* lines before the part being read */
	struct anchor *anchors;	/* of the document being read */
	size_t n_anchors, cap_anchors;
	char **open_anchors;	/* the anchor of each container open (NULL: none) */
	size_t n_open, cap_open;
	size_t alias_budget;
};

static void forget_anchors(struct reader *r)
{
	for (size_t i = 0; i < r->n_anchors; i++)
		free(r->anchors[i].name);
	r->n_anchors = 0;
	for (size_t i = 0; i < r->n_open; i++)
		free(r->open_anchors[i]);
	r->n_open = 0;
	r->alias_budget = ALIAS_BUDGET;
}

static void remember(struct reader *r, const yaml_char_t *name, struct gt_doc *node)
{
	if (!name || !node)
		return;
	struct anchor a = { gt_xstrdup((const char *)name), node };
	GT_PUSH(r->anchors, r->n_anchors, r->cap_anchors, a);
}

static struct gt_doc *anchored(const struct reader *r, const yaml_char_t *name)
{
	for (size_t i = r->n_anchors; i-- > 0;)	/* the latest of a name wins */
		if (!strcmp(r->anchors[i].name, (const char *)name))
			return r->anchors[i].node;
	return NULL;
}

static bool quoted_style(const yaml_event_t *ev)
{
	yaml_scalar_style_t s = ev->data.scalar.style;
	const char *tag = (const char *)ev->data.scalar.tag;
	return s == YAML_SINGLE_QUOTED_SCALAR_STYLE || s == YAML_DOUBLE_QUOTED_SCALAR_STYLE ||
	       s == YAML_LITERAL_SCALAR_STYLE || s == YAML_FOLDED_SCALAR_STYLE ||
	       (tag && !strcmp(tag, YAML_STR_TAG));
}

static void scalar(struct reader *r, const yaml_event_t *ev, int line, int col)
{
	const char *text = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	if (memchr(text, '\0', len)) {
		gt_db_damage(&r->b, line, col, "holds a NUL character");
		len = strlen(text);
	}
	bool key = gt_db_wants_key(&r->b);
	struct gt_doc *d = gt_db_scalar(&r->b, text, len, quoted_style(ev), line, col);
	if (key && ev->data.scalar.anchor) {
		/* an anchored key: its text can be a value elsewhere */
		d = gt_doc_input_node(r->b.in, GT_DOC_SCALAR, line, col);
		d->scalar = gt_arena_strndup(&r->b.in->arena, text, len);
	}
	remember(r, ev->data.scalar.anchor, d);
}

/* 0, or -1 when the document cannot be read on. */
static int alias(struct reader *r, const yaml_event_t *ev, int line, int col)
{
	struct gt_doc *target = anchored(r, ev->data.alias.anchor);
	char why[300];
	if (!target) {
		snprintf(why, sizeof(why), "unknown alias '%.200s'", ev->data.alias.anchor);
		gt_db_fail(&r->b, line, col, "YAML", why, false);
		return -1;
	}
	if (gt_db_wants_key(&r->b)) {
		if (target->kind != GT_DOC_SCALAR) {
			gt_db_fail(&r->b, line, col, "YAML", "only scalar map keys are supported", false);
			return -1;
		}
		gt_db_key(&r->b, target->scalar, strlen(target->scalar), line, col);
		return 0;
	}
	struct gt_doc *copy = gt_doc_input_copy(r->b.in, target, &r->alias_budget);
	if (!copy) {
		snprintf(why, sizeof(why), "aliases expand to more than %d nodes", ALIAS_BUDGET);
		gt_db_damage(&r->b, line, col, why);
		copy = gt_doc_input_node(r->b.in, GT_DOC_SCALAR, line, col);
		copy->scalar = "";
	}
	gt_db_value(&r->b, copy);
	return 0;
}

/* One event into the tree; 0, 1 at the end of the stream, -1 when the document cannot be read on. */
static int event(struct reader *r, const yaml_event_t *ev)
{
	int line = r->line0 + (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
	switch (ev->type) {
	case YAML_STREAM_END_EVENT:
		return 1;
	case YAML_DOCUMENT_START_EVENT:
		forget_anchors(r);
		return 0;
	case YAML_SCALAR_EVENT:
		scalar(r, ev, line, col);
		return 0;
	case YAML_ALIAS_EVENT:
		return alias(r, ev, line, col);
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT: {
		bool map = ev->type == YAML_MAPPING_START_EVENT;
		if (gt_db_wants_key(&r->b)) {
			gt_db_fail(&r->b, line, col, "YAML", "only scalar map keys are supported", false);
			return -1;
		}
		const yaml_char_t *a = map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
		GT_PUSH(r->open_anchors, r->n_open, r->cap_open, a ? gt_xstrdup((const char *)a) : NULL);
		gt_db_open(&r->b, map ? GT_DOC_MAP : GT_DOC_SEQ, line, col);
		return 0;
	}
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT: {
		struct gt_doc *d = gt_db_close(&r->b);
		char *a = r->n_open ? r->open_anchors[--r->n_open] : NULL;
		remember(r, (const yaml_char_t *)a, d);
		free(a);
		return 0;
	}
	default:
		return 0;	/* stream start, document end */
	}
}

/* One part of the text (whole documents) into @r's builder. */
static void read_part(struct reader *r, const char *text, size_t len, int line0)
{
	/* libyaml fails only for memory here, and in a parse with YAML_MEMORY_ERROR:
	 * not the input's fault, so not a message about it (mem.h) */
	if (!yaml_parser_initialize(&r->parser))
		gt_out_of_memory(0);
	yaml_parser_set_input_string(&r->parser, (const unsigned char *)text, len);
	r->line0 = line0;
	for (;;) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&r->parser, &ev)) {
			char why[400];
			const yaml_parser_t *p = &r->parser;
			if (p->error == YAML_MEMORY_ERROR)
				gt_out_of_memory(0);
			snprintf(why, sizeof(why), "%s%s%s", p->problem ? p->problem : "malformed",
				 p->context ? " " : "", p->context ? p->context : "");
			gt_db_fail(&r->b, line0 + (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1,
				   "YAML", why, false);
			break;
		}
		int rc = event(r, &ev);
		yaml_event_delete(&ev);
		if (rc)
			break;
	}
	yaml_parser_delete(&r->parser);
	forget_anchors(r);
	r->b.depth = 0;	/* what an error left open is gone with it */
	r->b.n_children = 0;
	r->b.skip = 0;
}

/* ---------------------------------------------------------------- parts */

struct part {
	const char *text;
	size_t len;
	int line0;
};

/* A "---" document marker at @p, the start of a line? */
static bool marker(const char *p, const char *end)
{
	return end - p >= 3 && p[0] == '-' && p[1] == '-' && p[2] == '-' &&
	       (end - p == 3 || p[3] == ' ' || p[3] == '\t' || p[3] == '\n' || p[3] == '\r');
}

/* The documents of @text, cut at its "---" lines; one part when it has directives. */
static struct part *cut(const char *text, size_t len, size_t *n)
{
	struct part *parts = NULL;
	size_t cap = 0;
	*n = 0;
	const char *end = text + len, *start = text;
	int line = 0, start_line = 0;
	for (const char *p = text; p < end;) {
		if (*p == '%') {
			free(parts);
			parts = gt_xmalloc(sizeof(*parts));
			parts[0] = (struct part){ text, len, 0 };
			*n = 1;
			return parts;
		}
		if (marker(p, end) && p > start) {
			struct part pt = { start, (size_t)(p - start), start_line };
			GT_PUSH(parts, *n, cap, pt);
			start = p;
			start_line = line;
		}
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		p = nl + 1;
		line++;
	}
	struct part last = { start, (size_t)(end - start), start_line };
	GT_PUSH(parts, *n, cap, last);
	return parts;
}

struct worker {
	const struct part *parts;
	size_t first, end;	/* its parts */
	const char *name;
	struct gt_doc_list out;	/* its documents, inputs and problems */
};

static void work(void *arg, size_t i)
{
	struct worker *w = (struct worker *)arg + i;
	struct reader r = { .alias_budget = ALIAS_BUDGET };
	gt_db_init(&r.b, gt_doc_input_new(&w->out, w->name), &w->out);
	for (size_t k = w->first; k < w->end; k++)
		read_part(&r, w->parts[k].text, w->parts[k].len, w->parts[k].line0);
	gt_db_release(&r.b);
	free(r.anchors);
	free(r.open_anchors);
}

int gt_doc_parse_yaml(const char *text, size_t len, const char *name, struct gt_doc_list *out);

int gt_doc_parse_yaml(const char *text, size_t len, const char *name, struct gt_doc_list *out)
{
	size_t n_parts;
	struct part *parts = cut(text, len, &n_parts);
	size_t n_workers = gt_doc_parse_threads(len, n_parts);
	struct worker *w = gt_xcalloc(n_workers, sizeof(*w));
	/* contiguous runs of parts of about the same size, in order */
	for (size_t k = 0, i = 0, done = 0; k < n_workers; k++) {
		size_t target = len / n_workers * (k + 1);
		w[k] = (struct worker){ .parts = parts, .first = i, .name = name };
		while (i < n_parts && (k == n_workers - 1 || done < target))
			done += parts[i++].len;
		w[k].end = i;
	}
	if (n_workers == 1) {
		work(w, 0);
	} else {
		struct gt_pool *pool = gt_pool_new((int)n_workers, "yaml");
		gt_pool_for(pool, n_workers, work, w);
		gt_pool_free(pool, NULL);
	}
	for (size_t k = 0; k < n_workers; k++)
		gt_doc_list_move(out, &w[k].out);
	free(w);
	free(parts);
	return 0;
}
