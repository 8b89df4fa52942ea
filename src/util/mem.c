#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n)
{
	/* stderr is the only channel left; abort so a core dump shows where */
	(void)n;
	abort();
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
