/*
 * harness.h - a small unit-test harness: TEST(), ASSERT_*() and a runner
 *
 * Each tests/unit/test_<module>.c defines TEST(name) functions and lists
 * them in a GT_TESTS table; harness.c runs them, prints one line per
 * failure with file and line and both values, and ends with
 * "<suite>: N passed, N failed".
 */
#ifndef GT_HARNESS_H
#define GT_HARNESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

struct gt_test {
	const char *name;
	void (*fn)(void);
};

extern int gt_test_failures;	/* failures in the running test */

#define TEST(name) static void test_##name(void)
#define T(name) { #name, test_##name }

/*
 * Append printf-formatted text to the growing buffer *@buf (*@n bytes used,
 * *@cap allocated): the fixtures write their manifests with it.
 */
static inline __attribute__((format(printf, 4, 0))) void
gt_test_vappendf(char **buf, size_t *n, size_t *cap, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int len = vsnprintf(NULL, 0, fmt, ap);
	if (len < 0)
		abort();
	size_t need = *n + (size_t)len + 1;
	if (need > *cap) {
		*cap = need * 2;
		*buf = gt_xrealloc(*buf, *cap);	/* out of memory: a message, as in Gantry */
	}
	vsnprintf(*buf + *n, (size_t)len + 1, fmt, again);
	va_end(again);
	*n += (size_t)len;
}

/* Each test file defines these two. */
extern const struct gt_test gt_tests[];
extern const char *gt_suite;

#define ASSERT_TRUE(cond)                                                            \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
			gt_test_failures++;                                          \
			return;                                                      \
		}                                                                    \
	} while (0)

#define ASSERT_EQ(expected, actual)                                                  \
	do {                                                                         \
		long long e_ = (long long)(expected), a_ = (long long)(actual);      \
		if (e_ != a_) {                                                      \
			fprintf(stderr, "%s:%d: `%s == %s` (%lld != %lld)\n", __FILE__,   \
				__LINE__, #expected, #actual, e_, a_);               \
			gt_test_failures++;                                          \
			return;                                                      \
		}                                                                    \
	} while (0)

#define ASSERT_STR(expected, actual)                                                 \
	do {                                                                         \
		const char *e_ = (expected), *a_ = (actual);                          \
		if (!a_ || strcmp(e_, a_)) {                                         \
			fprintf(stderr, "%s:%d: `%s` is \"%s\", expected \"%s\"\n",        \
				__FILE__, __LINE__, #actual, a_ ? a_ : "(null)", e_);      \
			gt_test_failures++;                                          \
			return;                                                      \
		}                                                                    \
	} while (0)

#define ASSERT_CONTAINS(haystack, needle)                                            \
	do {                                                                         \
		const char *h_ = (haystack), *n_ = (needle);                          \
		if (!h_ || !strstr(h_, n_)) {                                        \
			fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n",        \
				__FILE__, __LINE__, h_ ? h_ : "(null)", n_);               \
			gt_test_failures++;                                          \
			return;                                                      \
		}                                                                    \
	} while (0)

#endif /* GT_HARNESS_H */
