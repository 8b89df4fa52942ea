/*
 * test_mem.c - util/mem: what gt_mem_keep_freed() asks of glibc's allocator
 *
 * After it, a block of a few MiB comes from the heap rather than from an
 * mmap of its own, and once freed it stays with the process, so the next
 * cycle's block of the same size faults nothing in. Under a sanitizer the
 * allocator is the sanitizer's (mallopt and mallinfo2 answer nothing), and
 * only the allocation itself is checked there.
 */
#include <malloc.h>

#include "harness.h"
#include "util/sanitizer.h"

const char *gt_suite = "mem";


TEST(freed_blocks_stay_with_the_process)
{
	enum { BLOCK = 16 << 20 };
	gt_mem_keep_freed();
	char *p = gt_xmalloc(BLOCK);
	memset(p, 1, BLOCK);
#ifndef GT_ASAN
	struct mallinfo2 in_use = mallinfo2();
	ASSERT_EQ(0, (long long)in_use.hblkhd);	/* no mmapped block: glibc's default threshold is 128 KiB */
#endif
	free(p);
#ifndef GT_ASAN
	struct mallinfo2 freed = mallinfo2();
	ASSERT_TRUE(freed.fordblks >= (size_t)BLOCK);	/* kept, not trimmed back to the kernel */
	ASSERT_TRUE(freed.arena >= (size_t)BLOCK);
#endif
	char *again = gt_xmalloc(BLOCK);
	again[BLOCK - 1] = 2;
	ASSERT_EQ(2, again[BLOCK - 1]);
	free(again);
}

const struct gt_test gt_tests[] = {
	T(freed_blocks_stay_with_the_process),
	{ 0 }
};
