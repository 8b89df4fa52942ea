#include "util/arena.h"

#include <stdlib.h>

#include "util/mem.h"

/* Blocks grow with the request; a block holds at least 64 KiB. */
#define BLOCK_MIN ((size_t)64 * 1024)

struct gt_arena_block {
	struct gt_arena_block *next;
	size_t size;
	_Alignas(16) unsigned char data[];
};

void gt_arena_init(struct gt_arena *a)
{
	memset(a, 0, sizeof(*a));
}

void gt_arena_release(struct gt_arena *a)
{
	for (struct gt_arena_block *b = a->first, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	memset(a, 0, sizeof(*a));
}

static struct gt_arena_block *new_block(size_t n)
{
	size_t size = n > BLOCK_MIN ? n : BLOCK_MIN;
	struct gt_arena_block *b = gt_xmalloc(sizeof(*b) + size);
	b->next = NULL;
	b->size = size;
	return b;
}

void *gt_arena_alloc(struct gt_arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (!a->cur) {
		a->first = a->cur = new_block(n);
		a->used = 0;
	}
	while (a->used + n > a->cur->size) {
		/* the next kept block if it is big enough, else a new one in front of it */
		struct gt_arena_block *next = a->cur->next;
		if (!next || next->size < n) {
			struct gt_arena_block *b = new_block(n);
			b->next = next;
			a->cur->next = b;
			next = b;
		}
		a->held += a->cur->size - a->used;	/* the tail of a block is given up */
		a->cur = next;
		a->used = 0;
	}
	void *p = a->cur->data + a->used;
	a->used += n;
	a->held += n;
	if (a->held > a->peak)
		a->peak = a->held;
	return p;
}

void gt_arena_pop(struct gt_arena *a, struct gt_arena_mark m)
{
	if (!m.block) {		/* marked before the first allocation */
		a->cur = a->first;
		a->used = 0;
		a->held = 0;
		return;
	}
	a->cur = m.block;
	a->used = m.used;
	a->held = m.held;
}
