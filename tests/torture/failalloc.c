/*
 * failalloc.c - make the k-th allocation fail (SQLite's malloc test, for Gantry)
 *
 * Linked into the torture build's executables (`make torture`), so its
 * malloc, calloc, realloc, strdup and strndup come before the C library's
 * and AddressSanitizer's for the program and every shared library it uses
 * (libyaml, jansson, libcurl). Each counts the call and passes it on to the
 * next definition (ASan's, which keeps checking), except that with
 * GANTRY_FAIL_ALLOC=k the k-th call from main on returns NULL with ENOMEM, once: the
 * program must then stop with a message, or carry on correctly.
 * GANTRY_ALLOC_REPORT=FILE writes the number of calls there at exit, so
 * the driver (run-torture) knows how many k there are. free is not touched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *malloc(size_t n);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);
char *strdup(const char *s);
char *strndup(const char *s, size_t n);

static void *(*next_malloc)(size_t);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static unsigned long calls, fail_at;
static int resolving, armed;

/* dlsym may itself calloc before the pointers are set: serve that from here */
static char early[4096];
static size_t early_used;

static void *early_alloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (early_used + n > sizeof(early))
		return NULL;
	void *p = early + early_used;
	early_used += n;
	return p;
}

static void resolve(void)
{
	if (next_malloc || resolving)
		return;
	resolving = 1;
	next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	next_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	next_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	resolving = 0;
}

/*
 * The shared libraries' constructors (libcurl's TLS stack and its kin) run
 * before this executable's: what they allocate is theirs to handle, not
 * Gantry's, and counting starts here, just before main.
 */
__attribute__((constructor)) static void arm(void)
{
	/* read here, not at the first malloc: that can come before the environment is set up */
	const char *k = getenv("GANTRY_FAIL_ALLOC");
	fail_at = k ? strtoul(k, NULL, 10) : 0;
	armed = 1;
}

/* Count one allocation; true if it is the one to fail. */
static int fails(void)
{
	if (!armed)
		return 0;
	if (++calls == fail_at) {
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

void *malloc(size_t n)
{
	resolve();
	if (!next_malloc)
		return early_alloc(n);
	return fails() ? NULL : next_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	resolve();
	if (!next_calloc)
		return early_alloc(n * size);	/* static: already zero */
	return fails() ? NULL : next_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	resolve();
	return fails() ? NULL : next_realloc(p, n);
}

char *strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = malloc(len + 1);	/* counted there */
	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

char *strdup(const char *s)
{
	return strndup(s, strlen(s));
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("GANTRY_ALLOC_REPORT");
	if (!path)
		return;
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%lu\n", calls);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		ssize_t w = write(fd, buf, (size_t)len);
		(void)w;
		close(fd);
	}
}
