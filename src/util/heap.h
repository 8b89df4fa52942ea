/*
 * heap.h - the binary heap, as a template over the element type
 *
 * GT_HEAP_DEFINE(prefix, type, ctx_type, before) defines static functions
 * for a min-heap of @type kept in a plain array (elements by value, the
 * array grown with GT_GROW):
 *
 *	void prefix_push(type **v, uint32_t *n, uint32_t *cap, type x, ctx_type *ctx);
 *	type prefix_pop(type *v, uint32_t *n, ctx_type *ctx);	   // *n > 0
 *
 * @before(ctx, a, b) is true when *a must come out before *b; it must be
 * a strict order, and a total one if the order in which equal elements
 * come out matters (every user here ends its comparison on an id). The
 * top, when *n > 0, is v[0].
 *
 * One algorithm for every heap in Gantry (the job queue, the solver's
 * victims, the replay's events): sift-up and sift-down with swaps, the
 * left child looked at before the right. It is a template rather than a
 * function over void pointers because the solver's heaps are on the hot
 * path of reclaim: the comparison inlines.
 */
#ifndef GT_HEAP_H
#define GT_HEAP_H

#include <stdint.h>

#include "util/mem.h"

#define GT_HEAP_DEFINE(prefix, type, ctx_type, before)                               \
	static inline void prefix##_up(type *v, uint32_t i, ctx_type *ctx)             \
	{                                                                            \
		while (i > 0) {                                                      \
			uint32_t parent = (i - 1) / 2;                               \
			if (!before(ctx, &v[i], &v[parent]))                         \
				break;                                               \
			type t_ = v[i];                                              \
			v[i] = v[parent];                                            \
			v[parent] = t_;                                              \
			i = parent;                                                  \
		}                                                                    \
	}                                                                            \
	static inline void prefix##_down(type *v, uint32_t n, ctx_type *ctx)           \
	{                                                                            \
		for (uint32_t i = 0;;) {                                             \
			uint32_t l = 2 * i + 1, r = l + 1, m = i;                    \
			if (l < n && before(ctx, &v[l], &v[m]))                      \
				m = l;                                               \
			if (r < n && before(ctx, &v[r], &v[m]))                      \
				m = r;                                               \
			if (m == i)                                                  \
				break;                                               \
			type t_ = v[i];                                              \
			v[i] = v[m];                                                 \
			v[m] = t_;                                                   \
			i = m;                                                       \
		}                                                                    \
	}                                                                            \
	static inline __attribute__((unused)) void                                   \
	prefix##_push(type **v, uint32_t *n, uint32_t *cap, type x, ctx_type *ctx)     \
	{                                                                            \
		GT_PUSH(*v, *n, *cap, x);                                            \
		prefix##_up(*v, *n - 1, ctx);                                        \
	}                                                                            \
	static inline __attribute__((unused)) type                                   \
	prefix##_pop(type *v, uint32_t *n, ctx_type *ctx)                             \
	{                                                                            \
		type top_ = v[0];                                                    \
		v[0] = v[--*n];                                                      \
		prefix##_down(v, *n, ctx);                                           \
		return top_;                                                         \
	}

#endif /* GT_HEAP_H */
