/*
 * arena.h - memory that dies together: one scheduling cycle, one search, the
 * documents parsed from one input (api/doc.h)
 *
 * A session allocates its per-pod, per-node, per-job and per-queue books and
 * the victim search's scratch from arenas instead of malloc/free pairs:
 * allocation is a pointer bump, nothing is freed one at a time, and a
 * search gives back everything it took with one gt_arena_pop() to a mark.
 *
 * Blocks are kept when popped and reused by later allocations, so a cycle
 * that runs thousands of searches touches the allocator a handful of times.
 * Each new block is twice the last, up to BLOCK_MAX: a large input's
 * documents (hundreds of MB) take a few hundred blocks, not thousands, and
 * blocks of 2 MiB and more ask the kernel for huge pages, which cuts the
 * page faults that were a fifth of reading such an input.
 * Like gt_xmalloc, running out of memory aborts with a message.
 *
 * Nothing taken from an arena may be used after gt_arena_pop() to an
 * earlier mark or after gt_arena_release().
 */
#ifndef GT_ARENA_H
#define GT_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct gt_arena_block;

struct gt_arena {
	struct gt_arena_block *cur;	/* the block being filled */
	struct gt_arena_block *first;
	unsigned char *cur_data;	/* cur's bytes (NULL: no block yet) */
	size_t cur_size;		/* how many (0: no block yet) */
	size_t used;			/* bytes used in cur */
	size_t peak;			/* most bytes ever held at once (for the bench) */
	size_t held;			/* bytes held now */
	size_t next_block;		/* the size of the next new block (0: the smallest) */
};

/* A position to come back to. */
struct gt_arena_mark {
	struct gt_arena_block *block;
	size_t used, held;
};

void gt_arena_init(struct gt_arena *a);
/* Free every block. */
void gt_arena_release(struct gt_arena *a);

/* gt_arena_alloc when the block being filled has no room for @n (rounded) bytes. */
void *gt_arena_alloc_slow(struct gt_arena *a, size_t n);

/*
 * @n bytes aligned to 16, uninitialised. O(1) amortised; inline, as a
 * pointer bump, while the block being filled has room: the documents of a
 * large input are millions of allocations.
 */
static inline void *gt_arena_alloc(struct gt_arena *a, size_t n)
{
	n = n ? (n + 15) & ~(size_t)15 : 16;
	if (n > a->cur_size - a->used)
		return gt_arena_alloc_slow(a, n);
	void *p = a->cur_data + a->used;
	a->used += n;
	a->held += n;
	if (a->held > a->peak)
		a->peak = a->held;
	return p;
}

/* @n zeroed elements of @size bytes. */
static inline void *gt_arena_calloc(struct gt_arena *a, size_t n, size_t size)
{
	size_t bytes = n * size;
	void *p = gt_arena_alloc(a, bytes ? bytes : 1);
	memset(p, 0, bytes);
	return p;
}

static inline struct gt_arena_mark gt_arena_mark(const struct gt_arena *a)
{
	return (struct gt_arena_mark){ a->cur, a->used, a->held };
}

/* Give back everything allocated since @m (blocks stay for reuse). */
void gt_arena_pop(struct gt_arena *a, struct gt_arena_mark m);

/* Give back everything, keeping the blocks for what comes next. */
static inline void gt_arena_reset(struct gt_arena *a)
{
	gt_arena_pop(a, (struct gt_arena_mark){ 0 });
}

/* @n bytes of @s and a NUL. */
static inline char *gt_arena_strndup(struct gt_arena *a, const char *s, size_t n)
{
	char *d = gt_arena_alloc(a, n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/*
 * Make room for @need elements in @arr (capacity @cap), both lvalues, from
 * arena @a: a bigger copy, the old one left to the arena. Amortised O(1).
 */
#define GT_ARENA_GROW(a, arr, need, cap)                                          \
	do {                                                                      \
		if ((size_t)(need) > (size_t)(cap)) {                             \
			size_t gt_nc_ = (cap) ? (size_t)(cap) * 2 : 16;           \
			while (gt_nc_ < (size_t)(need))                           \
				gt_nc_ *= 2;                                      \
			void *gt_np_ = gt_arena_alloc((a), gt_nc_ * sizeof(*(arr))); \
			if ((cap))                                                \
				memcpy(gt_np_, (arr), (size_t)(cap) * sizeof(*(arr))); \
			(arr) = gt_np_;                                           \
			(cap) = gt_nc_;                                           \
		}                                                                 \
	} while (0)

#define GT_ARENA_PUSH(a, arr, len, cap, val)             \
	do {                                             \
		GT_ARENA_GROW(a, arr, (len) + 1, cap);   \
		(arr)[(len)++] = (val);                  \
	} while (0)

#endif /* GT_ARENA_H */
