/*
 * test_concat.c - util/concat: the decoders' field names, joined as
 * snprintf("%s%s...") would join them, truncation included; gt_xconcat,
 * the same join in memory of its own; and gt_xvasprintf (util/mem.h), the
 * other way strings are made from parts
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "util/concat.h"
#include "util/mem.h"

const char *gt_suite = "concat";

TEST(joins_like_snprintf)
{
	char a[64], b[64];
	size_t n = gt_concat(a, sizeof(a), "spec.containers[0].resources", ".", "requests", (char *)NULL);
	int m = snprintf(b, sizeof(b), "%s.%s", "spec.containers[0].resources", "requests");
	ASSERT_STR(b, a);
	ASSERT_EQ((size_t)m, n);
	ASSERT_EQ(0, (int)gt_concat(a, sizeof(a), (char *)NULL));
	ASSERT_STR("", a);
	gt_concat(a, sizeof(a), "", "/", "", (char *)NULL);
	ASSERT_STR("/", a);
}

TEST(truncates_like_snprintf)
{
	/* every buffer size around the joined length: the same text and the same return */
	for (size_t len = 1; len <= 12; len++) {
		char a[16], b[16];
		memset(a, 'x', sizeof(a));
		memset(b, 'x', sizeof(b));
		size_t n = gt_concat(a, len, "team-a", "/", "nb", (char *)NULL);
		int m = snprintf(b, len, "%s/%s", "team-a", "nb");
		ASSERT_EQ((size_t)m, n);
		ASSERT_STR(b, a);
		ASSERT_EQ(b[len], a[len]);	/* nothing written past the buffer */
	}
	char c = 'x';
	ASSERT_EQ(3, (int)gt_concat(&c, 0, "abc", (char *)NULL));
	ASSERT_EQ('x', c);	/* a zero-length buffer is not touched */
}

TEST(precision_by_buffer_length)
{
	/* decode.c's "metadata.labels.%.300s": the buffer cut after 300 characters of the key */
	char key[400], a[400], b[400];
	memset(key, 'k', 350);
	key[350] = '\0';
	gt_concat(a, sizeof("metadata.labels.") + 300, "metadata.labels.", key, (char *)NULL);
	snprintf(b, sizeof(b), "metadata.labels.%.300s", key);
	ASSERT_STR(b, a);
}

static __attribute__((format(printf, 1, 2))) char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = gt_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* Whole at every length: below, at and past the stack buffer it is formatted in first. */
TEST(xvasprintf_at_every_length)
{
	static const int lengths[] = { 0, 1, 510, 511, 512, 513, 4000 };
	for (size_t i = 0; i < sizeof(lengths) / sizeof(*lengths); i++) {
		char *want = malloc((size_t)lengths[i] + 8);
		memset(want, 'x', (size_t)lengths[i]);
		strcpy(want + lengths[i], "-7");
		char *got = xasprintf("%.*s-%d", lengths[i], want, 7);
		ASSERT_STR(want, got);
		free(got);
		free(want);
	}
}

/* gt_xconcat: the same join as gt_concat into a buffer large enough, in memory of its own. */
TEST(xconcat_joins_whole)
{
	char *s = gt_xconcat("pg-", "train", "-", "0f3c", (char *)NULL);
	ASSERT_STR("pg-train-0f3c", s);
	free(s);
	s = gt_xconcat("", (char *)NULL);
	ASSERT_STR("", s);
	free(s);
	char big[3000], want[3100];
	memset(big, 'n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	s = gt_xconcat("ns\n", big, "\n", (char *)NULL);
	gt_concat(want, sizeof(want), "ns\n", big, "\n", (char *)NULL);
	ASSERT_STR(want, s);
	ASSERT_EQ(strlen(big) + 4, strlen(s));
	free(s);
}

const struct gt_test gt_tests[] = {
	T(joins_like_snprintf),
	T(truncates_like_snprintf),
	T(precision_by_buffer_length),
	T(xvasprintf_at_every_length),
	T(xconcat_joins_whole),
	{ 0 }
};
