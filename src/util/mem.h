/*
 * mem.h - allocation that never returns NULL, and one growable-array macro
 *
 * A failed allocation is not a condition Gantry can recover from in a useful
 * way (Kubernetes restarts the pod), so gt_xmalloc() and friends end the
 * process with a message and exit status 1 (an internal error, for every
 * command) instead of returning NULL. The libraries that allocate for Gantry
 * (jansson, set up in main.c; libcurl's handles) end the same way through
 * gt_out_of_memory(). `make torture` fails every allocation in turn to hold
 * this (docs/reliability.md).
 */
#ifndef GT_MEM_H
#define GT_MEM_H

#include <stdarg.h>
#include <stddef.h>

/*
 * "gantry: out of memory (N bytes)" on stderr (@n 0: a library's
 * allocation of a size it does not tell, libyaml's or fopen's), then exit status 1 at once:
 * no atexit handlers, no stdio flush, as other threads may be mid-way
 * through anything. Under AddressSanitizer, LeakSanitizer checks the heap
 * first, so the allocation-failure torture sees a leak on this path too.
 */
_Noreturn void gt_out_of_memory(size_t n);

/* The size of a transparent huge page (x86-64, arm64 with 4 KiB pages). */
#define GT_HUGE_PAGE ((size_t)2 * 1024 * 1024)

/*
 * gt_xmalloc, gt_xcalloc and gt_xrealloc advise a block of two huge pages or
 * more, and what the C library's heap grew by (in steps of 32 MiB after
 * gt_mem_keep_freed()), to be backed by huge pages (gt_mem_advise_huge),
 * so that it faults in a huge page at a time (mem.c says why).
 */
void *gt_xmalloc(size_t n);
void *gt_xcalloc(size_t n, size_t size);
void *gt_xrealloc(void *p, size_t n);
char *gt_xstrdup(const char *s);
char *gt_xstrndup(const char *s, size_t n);
/* printf into a string of its own (the caller frees it), as long as it needs. */
char *gt_xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/*
 * Advise the whole huge pages inside [@p, @p + @n) to be backed by huge
 * pages (transparent huge pages in "madvise" mode, Debian's default): one
 * fault per 2 MiB instead of one per 4 KiB. Advice only: where it is refused
 * the memory is the same.
 */
void gt_mem_advise_huge(void *p, size_t n);

/*
 * For a process that runs cycle after cycle (the scheduler, a replay), or
 * phase after phase (a simulation: a file's text, its documents, the
 * cluster, a cycle's books): the memory one frees is kept for the next
 * instead of going back to the kernel. glibc would otherwise hand the top of
 * its heap, and every block over its mmap threshold, back when freed, and
 * the next cycle or phase would fault it in again: a fifth of a long
 * replay's time was the kernel's. The heap also grows in steps of 32 MiB,
 * advised huge pages (above), and a thread of its own faults each step in
 * ahead of its users (mem.c says why). Call once, at start, before any
 * thread. The process's memory stays at its peak.
 */
void gt_mem_keep_freed(void);

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
