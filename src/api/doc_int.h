/*
 * doc_int.h - what the document readers share; not an API
 *
 * doc.c owns the tree (lookups, changes, copies) and the inputs;
 * doc_build.c turns a reader's events (open, key, scalar, close) into a
 * tree in an input's arena, and knows what an object is for messages;
 * doc_yaml.c (libyaml) and doc_json.c feed it.
 */
#ifndef GT_DOC_INT_H
#define GT_DOC_INT_H

#include <stdint.h>

#include "api/doc.h"
#include "util/arena.h"

/*
 * A map key of a parsed input, interned: keys[i] of a parsed map points at
 * @s. @words are its first sixteen bytes as gt_bytes_word() (util/hash.h)
 * packs them (zeros past its end), so comparing a key of up to sixteen
 * bytes asked for with one of these is three integer comparisons, and a
 * longer one needs a memcmp() past the sixteenth byte only when they match.
 */
struct gt_doc_key {
	uint32_t len;
	uint32_t hash;		/* gt_hash_bytes, for the interning table */
	uint64_t words[2];
	struct gt_doc *shared[2];	/* gt_doc_shared_scalar_in's node of this text, plain and quoted */
	char s[];
};

static inline const struct gt_doc_key *gt_doc_key_of(const char *s)
{
	return (const struct gt_doc_key *)(const void *)(s - offsetof(struct gt_doc_key, s));
}

struct gt_doc_input {
	char *name;		/* the source, for messages */
	struct gt_arena arena;	/* every node, array, string and key of its documents */
	struct gt_doc_key **slots;	/* the keys, open addressing */
	size_t n_slots, n_keys;
};

/* doc.c */
struct gt_doc_input *gt_doc_input_new(struct gt_doc_list *l, const char *name);
/* @key's interned copy in @in (added when new). */
char *gt_doc_input_key(struct gt_doc_input *in, const char *key, size_t len);
/* A node of @in (zeroed but for kind, position and input). */
struct gt_doc *gt_doc_input_node(struct gt_doc_input *in, enum gt_doc_kind kind, int line, int col);
/* A deep copy of @d into @in, counting its nodes into *@budget and stopping at 0: NULL then. */
struct gt_doc *gt_doc_input_copy(struct gt_doc_input *in, const struct gt_doc *d, size_t *budget);
/* Move @from's documents, inputs and problems to the end of @to; @from is left empty. */
void gt_doc_list_move(struct gt_doc_list *to, struct gt_doc_list *from);
__attribute__((format(printf, 3, 4))) void gt_doc_problem_add(struct gt_doc_list *l, bool warning,
							     const char *fmt, ...);

/* doc_build.c */
struct gt_db_frame;
struct gt_db_child;

struct gt_doc_builder {
	struct gt_doc_input *in;
	struct gt_doc_list *out;
	struct gt_db_frame *stack;	/* the containers open, outermost first */
	size_t depth, cap_stack;
	struct gt_db_child *children;	/* their children so far, in order */
	size_t n_children, cap_children;
	size_t skip;		/* > 0: inside a subtree too deep to build, this many levels down */
	/* the first damage of the object being read: it is left out when it ends */
	bool damaged;
	size_t damage_level;	/* 0: the document; 2: an item of a List */
	char *damage;		/* "file:line:col", field and why, ready to print */
	size_t first_warning;	/* the object's warnings start here in out->problems */
	size_t n_docs;		/* documents added to @out */
};

void gt_db_init(struct gt_doc_builder *b, struct gt_doc_input *in, struct gt_doc_list *out);
void gt_db_release(struct gt_doc_builder *b);
/*
 * The events. A scalar is a map's key when the innermost open container
 * is a map waiting for one (YAML); gt_db_key() says so explicitly (JSON).
 * Each returns the node made, or NULL (a key, or inside a part skipped).
 * A value at the top ends a document.
 */
struct gt_doc *gt_db_scalar(struct gt_doc_builder *b, const char *s, size_t len, bool quoted, int line,
			    int col);
void gt_db_key(struct gt_doc_builder *b, const char *s, size_t len, int line, int col);
void gt_db_open(struct gt_doc_builder *b, enum gt_doc_kind kind, int line, int col);
struct gt_doc *gt_db_close(struct gt_doc_builder *b);
/* A node made elsewhere in the input (an alias's copy), as the next value. */
void gt_db_value(struct gt_doc_builder *b, struct gt_doc *node);
/* The next scalar would be a map key (YAML: an alias or a collection there is not supported). */
bool gt_db_wants_key(const struct gt_doc_builder *b);
/* The object being read is wrong at @line:@col (the current field): it is left out when it ends. */
void gt_db_damage(struct gt_doc_builder *b, int line, int col, const char *why);
/*
 * The reader cannot go on: the document open is left out, except the
 * objects of a v1 List that ended before @line:@col. @what: "YAML", "JSON";
 * @rest_lost: nothing after this point of the input is read either.
 */
void gt_db_fail(struct gt_doc_builder *b, int line, int col, const char *what, const char *why,
		bool rest_lost);

/*
 * Inputs of GT_DOC_PARALLEL_BYTES or more are read by several threads, each
 * into an input of its own (below it, threads cost more than they save):
 * how many for @len bytes of @n_items items, 1 for small or few.
 */
#define GT_DOC_PARALLEL_BYTES (4u << 20)
size_t gt_doc_parse_threads(size_t len, size_t n_items);

#endif /* GT_DOC_INT_H */
