/*
 * mem.h - allocation that never returns NULL, and one growable-array macro
 *
 * Outside of tests a failed allocation is not a condition Gantry can recover
 * from in a useful way (Kubernetes restarts the pod), so gt_xmalloc() and
 * friends abort with a message instead of returning NULL.
 */
#ifndef GT_MEM_H
#define GT_MEM_H

#include <stddef.h>

void *gt_xmalloc(size_t n);
void *gt_xcalloc(size_t n, size_t size);
void *gt_xrealloc(void *p, size_t n);
char *gt_xstrdup(const char *s);
char *gt_xstrndup(const char *s, size_t n);

/*
 * Make room for at least @need elements in the array @arr whose capacity is
 * @cap (both lvalues). Amortised O(1); the array may move.
 */
#define GT_GROW(arr, need, cap)                                              \
	do {                                                                 \
		if ((size_t)(need) > (size_t)(cap)) {                        \
			size_t gt_nc_ = (cap) ? (size_t)(cap) * 2 : 8;       \
			while (gt_nc_ < (size_t)(need))                      \
				gt_nc_ *= 2;                                 \
			(arr) = gt_xrealloc((arr), gt_nc_ * sizeof(*(arr))); \
			(cap) = gt_nc_;                                      \
		}                                                            \
	} while (0)

/* Append @val to @arr of length @len and capacity @cap. */
#define GT_PUSH(arr, len, cap, val)                 \
	do {                                        \
		GT_GROW(arr, (len) + 1, cap);       \
		(arr)[(len)++] = (val);             \
	} while (0)

#endif /* GT_MEM_H */
