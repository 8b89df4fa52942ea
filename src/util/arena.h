/*
 * arena.h - memory handed out in order and given back all at once
 *
 * For data that lives and dies together, such as the documents parsed from
 * one input (api/doc.h): a bump pointer in blocks of growing size, no
 * per-object header and no per-object free. Allocation never fails (it
 * aborts as gt_xmalloc() does). Not thread-safe: one arena per thread.
 */
#ifndef GT_ARENA_H
#define GT_ARENA_H

#include <stddef.h>

struct gt_arena_block;

struct gt_arena {
	struct gt_arena_block *blocks;	/* newest first */
	char *cur, *end;		/* the free part of the newest block */
	size_t next_size;		/* the size of the next block */
};

void gt_arena_init(struct gt_arena *a);
/* Free every block: everything allocated from @a is gone. */
void gt_arena_release(struct gt_arena *a);
/* Everything allocated from @a is gone, but its newest block is kept for what comes next. */
void gt_arena_reset(struct gt_arena *a);
/* @n bytes aligned for any object, uninitialised. */
void *gt_arena_alloc(struct gt_arena *a, size_t n);
/* @n bytes of @s and a NUL. */
char *gt_arena_strndup(struct gt_arena *a, const char *s, size_t n);

#endif /* GT_ARENA_H */
