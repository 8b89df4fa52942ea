/*
 * test_file.c - util/file: a whole file in memory, byte for byte
 *
 * A regular file of 16 MiB or more is read in parts by several threads at
 * once (file.c says why); a smaller one, a pipe, or what is left of a file
 * already read from, in one piece. Each must come out the same: every
 * byte in place, the length, a NUL after it.
 */
#include <stdint.h>
#include <unistd.h>

#include "harness.h"
#include "util/file.h"

const char *gt_suite = "file";

/* Byte @i of a test file: no run of it repeats at a short period, so a part read to the wrong place shows. */
static char byte_at(size_t i)
{
	uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15u;
	return (char)(x >> 56);
}

/* A file of @n such bytes, its path in @path (unlink it). */
static void make_file(char *path, size_t cap, size_t n)
{
	snprintf(path, cap, "/tmp/gantry-test-file-XXXXXX");
	int fd = mkstemp(path);
	ASSERT_TRUE(fd >= 0);
	FILE *f = fdopen(fd, "wb");
	ASSERT_TRUE(f != NULL);
	for (size_t i = 0; i < n; i++)
		fputc(byte_at(i), f);
	ASSERT_EQ(0, fclose(f));
}

/* Does @buf hold bytes @from .. @from + @n of the test file, then a NUL? */
static bool holds(const char *buf, size_t from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i] != byte_at(from + i))
			return false;
	return buf[n] == '\0';
}

static void read_whole(size_t n)
{
	char path[64];
	make_file(path, sizeof(path), n);
	char *buf = NULL;
	size_t len = 0;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_file_read(path, &buf, &len, &err));
	ASSERT_EQ(n, len);
	ASSERT_TRUE(holds(buf, 0, n));
	free(buf);
	unlink(path);
}

TEST(a_small_file_is_read_whole)
{
	read_whole(1);
	read_whole(100000);
}

TEST(a_large_file_is_read_whole_in_parts)
{
	read_whole((40u << 20) + 12345);	/* parts of unequal length on any number of processors */
}

TEST(what_is_left_of_a_file_already_read_from_is_read)
{
	enum { SKIP = 5000 };
	size_t n = (24u << 20) + 7;
	char path[64];
	make_file(path, sizeof(path), n);
	FILE *f = fopen(path, "rb");
	ASSERT_TRUE(f != NULL);
	char first[SKIP];
	ASSERT_EQ(SKIP, fread(first, 1, SKIP, f));	/* stdio has read ahead of this: its buffer holds more */
	char *buf = NULL;
	size_t len = 0;
	ASSERT_EQ(0, gt_file_slurp(f, &buf, &len));
	ASSERT_EQ(n - SKIP, len);
	ASSERT_TRUE(holds(buf, SKIP, n - SKIP));
	fclose(f);
	free(buf);
	unlink(path);
}

TEST(a_missing_file_is_named)
{
	char *buf = NULL;
	size_t len = 0;
	struct gt_err err = { 0 };
	ASSERT_TRUE(gt_file_read("/nonexistent/gantry-test", &buf, &len, &err) != 0);
	ASSERT_CONTAINS(err.msg, "cannot open '/nonexistent/gantry-test'");
	ASSERT_TRUE(buf == NULL);
}

const struct gt_test gt_tests[] = {
	T(a_small_file_is_read_whole),
	T(a_large_file_is_read_whole_in_parts),
	T(what_is_left_of_a_file_already_read_from_is_read),
	T(a_missing_file_is_named),
	{ 0 }
};
