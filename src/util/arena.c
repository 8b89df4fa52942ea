#include "util/arena.h"

#include <stdint.h>
#include <stdlib.h>

#include "util/mem.h"

/*
 * Blocks grow with the request and double from BLOCK_MIN to BLOCK_MAX. A
 * block of GT_HUGE_PAGE or more is allocated aligned to GT_HUGE_PAGE and advised
 * to be backed by huge pages (transparent huge pages in "madvise" mode, the
 * usual default): one fault per 2 MiB instead of one per 4 KiB. The advice
 * may be refused; the block is the same memory either way.
 */
/* a page: the many small arenas (a string table of a few names, a decoder's table of one kind)
 * each touched 64 KiB blocks of their own, one page fault apiece in the timed part of a small run */
#define BLOCK_MIN ((size_t)4 * 1024)
#define BLOCK_MAX ((size_t)8 * 1024 * 1024)

struct gt_arena_block {
	struct gt_arena_block *next;
	size_t size;
	void *base;		/* what was allocated (a huge block starts after it, aligned) */
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
		free(b->base);
	}
	memset(a, 0, sizeof(*a));
}

/*
 * @bytes (a multiple of GT_HUGE_PAGE) at an address aligned to GT_HUGE_PAGE, taken
 * from gt_xmalloc (so every allocation fails in turn under `make torture`,
 * and the whole pages inside are advised huge) with a page to spare: the
 * spare is address space, never touched.
 */
static struct gt_arena_block *huge_block(size_t bytes)
{
	unsigned char *base = gt_xmalloc(bytes + GT_HUGE_PAGE);
	uintptr_t at = ((uintptr_t)base + GT_HUGE_PAGE - 1) & ~(uintptr_t)(GT_HUGE_PAGE - 1);
	struct gt_arena_block *b = (struct gt_arena_block *)(base + (at - (uintptr_t)base));
	b->base = base;
	return b;
}

static struct gt_arena_block *new_block(struct gt_arena *a, size_t n)
{
	size_t grow = a->next_block ? a->next_block : BLOCK_MIN;
	size_t size = n > grow ? n : grow;
	a->next_block = grow < BLOCK_MAX ? grow * 2 : BLOCK_MAX;
	size_t bytes = sizeof(struct gt_arena_block) + size;
	struct gt_arena_block *b;
	if (bytes >= GT_HUGE_PAGE && bytes <= SIZE_MAX / 2) {
		bytes = (bytes + GT_HUGE_PAGE - 1) & ~(GT_HUGE_PAGE - 1);	/* the rest of the last page is the block's */
		size = bytes - sizeof(struct gt_arena_block);
		b = huge_block(bytes);
	} else {
		b = gt_xmalloc(bytes);
		b->base = b;
	}
	b->next = NULL;
	b->size = size;
	return b;
}

/* Fill @b next. */
static void fill(struct gt_arena *a, struct gt_arena_block *b, size_t used)
{
	a->cur = b;
	a->cur_data = b ? b->data : NULL;
	a->cur_size = b ? b->size : 0;
	a->used = used;
}

void *gt_arena_alloc_slow(struct gt_arena *a, size_t n)
{
	if (!a->cur) {
		a->first = new_block(a, n);
		fill(a, a->first, 0);
	}
	while (a->used + n > a->cur->size) {
		/* the next kept block if it is big enough, else a new one in front of it */
		struct gt_arena_block *next = a->cur->next;
		if (!next || next->size < n) {
			struct gt_arena_block *b = new_block(a, n);
			b->next = next;
			a->cur->next = b;
			next = b;
		}
		a->held += a->cur->size - a->used;	/* the tail of a block is given up */
		fill(a, next, 0);
	}
	return gt_arena_alloc(a, n);	/* the block being filled has room now */
}

void gt_arena_pop(struct gt_arena *a, struct gt_arena_mark m)
{
	if (!m.block) {		/* marked before the first allocation */
		fill(a, a->first, 0);
		a->held = 0;
		return;
	}
	fill(a, m.block, m.used);
	a->held = m.held;
}
