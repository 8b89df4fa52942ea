#include "util/mem.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sanitizer.h"
#ifdef GT_ASAN
#include <sanitizer/lsan_interface.h>
#endif

_Noreturn void gt_out_of_memory(size_t n)
{
	/* no stdio: its buffers may be what could not be allocated */
	char msg[80];
	int len = n ? snprintf(msg, sizeof(msg), "gantry: out of memory (%zu bytes)\n", n)
		    : snprintf(msg, sizeof(msg), "gantry: out of memory\n");
	if (len > 0) {
		ssize_t w = write(STDERR_FILENO, msg, (size_t)len);
		(void)w;	/* stderr gone: nowhere left to say it */
	}
#ifdef GT_ASAN
	__lsan_do_leak_check();
#endif
	_exit(1);
}

static void out_of_memory(size_t n)
{
	gt_out_of_memory(n);
}

void *gt_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *gt_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory(n * size);
	return p;
}

void *gt_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory(n);
	return q;
}

char *gt_xstrndup(const char *s, size_t n)
{
	char *d = gt_xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *gt_xstrdup(const char *s)
{
	return gt_xstrndup(s, strlen(s));
}

char *gt_xvasprintf(const char *fmt, va_list ap)
{
	/* formatted once into a buffer on the stack, a second time only when it did not fit
	 * (the podgrouper formats a few strings per pod: the first pass was half its cost) */
	char buf[512];
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n > 0 ? (size_t)n : 0;
	char *s = gt_xmalloc(len + 1);
	if (len < sizeof(buf))
		memcpy(s, n > 0 ? buf : "", len + 1);
	else
		vsnprintf(s, len + 1, fmt, again);
	va_end(again);
	return s;
}

/* glibc's largest mmap threshold (DEFAULT_MMAP_THRESHOLD_MAX on 64 bits); a trim threshold past any heap */
#define KEEP_MMAP_THRESHOLD (32 << 20)
#define KEEP_TRIM_THRESHOLD (1 << 30)

void gt_mem_keep_freed(void)
{
	/* advice: a C library without these options (or a sanitizer's allocator) ignores them */
	(void)mallopt(M_MMAP_THRESHOLD, KEEP_MMAP_THRESHOLD);
	(void)mallopt(M_TRIM_THRESHOLD, KEEP_TRIM_THRESHOLD);
}
