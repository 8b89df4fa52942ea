#include "util/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define FIRST_BLOCK (16u << 10)
#define LARGEST_BLOCK (1u << 20)	/* past this, more blocks rather than bigger ones */

struct gt_arena_block {
	struct gt_arena_block *next;
	alignas(max_align_t) char data[];
};

void gt_arena_init(struct gt_arena *a)
{
	memset(a, 0, sizeof(*a));
	a->next_size = FIRST_BLOCK;
}

void gt_arena_release(struct gt_arena *a)
{
	for (struct gt_arena_block *b = a->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	gt_arena_init(a);
}

void gt_arena_reset(struct gt_arena *a)
{
	struct gt_arena_block *keep = a->blocks;
	if (!keep)
		return;
	for (struct gt_arena_block *b = keep->next, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	keep->next = NULL;
	a->cur = keep->data;
}

/* @n bytes at a multiple of @align (a power of two) from the start of a block. */
static void *take(struct gt_arena *a, size_t n, size_t align)
{
	size_t pad = (size_t)(-(uintptr_t)a->cur & (align - 1));
	if (a->cur && (size_t)(a->end - a->cur) >= n + pad) {
		void *p = a->cur + pad;
		a->cur += pad + n;
		return p;
	}
	if (!a->next_size)
		a->next_size = FIRST_BLOCK;
	if (n > a->next_size / 4 && a->blocks) {
		/* a large piece gets a block of its own, behind the current one */
		struct gt_arena_block *b = gt_xmalloc(sizeof(*b) + n);
		b->next = a->blocks->next;
		a->blocks->next = b;
		return b->data;
	}
	size_t size = n > a->next_size ? n : a->next_size;
	struct gt_arena_block *b = gt_xmalloc(sizeof(*b) + size);
	b->next = a->blocks;
	a->blocks = b;
	a->cur = b->data + n;
	a->end = b->data + size;
	if (a->next_size < LARGEST_BLOCK)
		a->next_size *= 2;
	return b->data;
}

void *gt_arena_alloc(struct gt_arena *a, size_t n)
{
	return take(a, n, alignof(max_align_t));
}

char *gt_arena_strndup(struct gt_arena *a, const char *s, size_t n)
{
	char *d = take(a, n + 1, 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}
