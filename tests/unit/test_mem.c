/*
 * test_mem.c - util/mem: what gt_mem_keep_freed() asks of glibc's allocator
 *
 * After it, a block of a few MiB comes from the heap rather than from an
 * mmap of its own, and once freed it stays with the process, so the next
 * cycle's block of the same size faults nothing in. Under a sanitizer or
 * valgrind the allocator is theirs (mallopt and mallinfo2 answer nothing),
 * and only the allocation itself is checked there (glibc_heap).
 *
 * And what gt_xmalloc advises: the kernel notes MADV_HUGEPAGE on the
 * mapping ("hg" among its VmFlags in /proc/self/smaps), whether or not it
 * has a huge page to give; and after gt_mem_keep_freed, what the heap grows
 * by becomes resident without being touched (faulted in ahead).
 */
#define _DEFAULT_SOURCE	/* sbrk */
#include <dirent.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "util/sanitizer.h"

const char *gt_suite = "mem";

/*
 * Is the allocator glibc's, with its heap? Under a sanitizer (GT_ASAN) or
 * valgrind, malloc is theirs: its blocks are mapped apart, mallinfo2 and
 * the heap's end say nothing of them, and only the allocations themselves
 * are checked.
 */
static bool glibc_heap(void)
{
#ifdef GT_ASAN
	return false;
#else
	extern char end;	/* past the program's data: glibc's heap starts above it */
	char *p = malloc(1024);
	bool in = p && p > &end && (uintptr_t)p < (uintptr_t)sbrk(0);
	free(p);
	return in;
#endif
}


TEST(freed_blocks_stay_with_the_process)
{
	enum { BLOCK = 16 << 20 };
	gt_mem_keep_freed();
	bool glibc = glibc_heap();
	char *p = gt_xmalloc(BLOCK);
	memset(p, 1, BLOCK);
	if (glibc)	/* no mmapped block: glibc's default threshold is 128 KiB */
		ASSERT_EQ(0, (long long)mallinfo2().hblkhd);
	free(p);
	if (glibc) {
		struct mallinfo2 freed = mallinfo2();
		ASSERT_TRUE(freed.fordblks >= (size_t)BLOCK);	/* kept, not trimmed back to the kernel */
		ASSERT_TRUE(freed.arena >= (size_t)BLOCK);
	}
	char *again = gt_xmalloc(BLOCK);
	again[BLOCK - 1] = 2;
	ASSERT_EQ(2, again[BLOCK - 1]);
	free(again);
	/* past glibc's largest mmap threshold (32 MiB) too: a file's text, then the documents in its memory */
	char *text = gt_xmalloc(4 * BLOCK);
	if (glibc)
		ASSERT_EQ(0, (long long)mallinfo2().hblkhd);
	free(text);
}

/* Is the mapping that holds @at advised huge pages? (false when none holds it) */
static bool advised_huge(uintptr_t at)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return false;
	char line[512];
	bool inside = false, huge = false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long from, to;
		size_t first = strcspn(line, " ");	/* a mapping's line starts "from-to ", a field's "Name: " */
		if (memchr(line, '-', first) && line[first - 1] != ':' && sscanf(line, "%lx-%lx", &from, &to) == 2)
			inside = at >= from && at < to;
		else if (inside && !strncmp(line, "VmFlags:", 8)) {
			huge = strstr(line, " hg") != NULL;
			break;
		}
	}
	fclose(f);
	return huge;
}

TEST(large_blocks_are_advised_huge_pages_before_they_are_touched)
{
	enum { BLOCK = 8 << 20 };
	char *p = gt_xmalloc(BLOCK);
	uintptr_t first_whole = ((uintptr_t)p + GT_HUGE_PAGE - 1) & ~(uintptr_t)(GT_HUGE_PAGE - 1);
	ASSERT_TRUE(advised_huge(first_whole));
	p = gt_xrealloc(p, 3 * BLOCK);	/* grown: wherever it went, advised again */
	first_whole = ((uintptr_t)p + GT_HUGE_PAGE - 1) & ~(uintptr_t)(GT_HUGE_PAGE - 1);
	ASSERT_TRUE(advised_huge(first_whole + 2 * BLOCK));
	free(p);
	/* a small block is not advised on its own: it shares its pages */
	char *small = gt_xmalloc(4096);
	free(small);
}

TEST(what_the_heap_grows_by_is_advised_huge_pages)
{
	if (!glibc_heap())
		return;	/* no heap that grows: nothing to advise */
	gt_mem_keep_freed();	/* the heap grows in steps a huge page fits in */
	uintptr_t start = (uintptr_t)sbrk(0);
	char **blocks = NULL;
	size_t n = 0, cap = 0;
	while ((uintptr_t)sbrk(0) < start + (64u << 20))
		GT_PUSH(blocks, n, cap, gt_xmalloc(1024));
	/* past the first huge page of the growth, the heap is advised */
	uintptr_t inside = (start + 2 * GT_HUGE_PAGE) & ~(uintptr_t)(GT_HUGE_PAGE - 1);
	ASSERT_TRUE(advised_huge(inside + GT_HUGE_PAGE));
	for (size_t i = 0; i < n; i++)
		free(blocks[i]);
	free(blocks);
}

/* The process's resident memory in bytes (statm's second field). */
static size_t resident(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long size = 0, pages = 0;
	if (f && fscanf(f, "%lu %lu", &size, &pages) != 2)
		pages = 0;
	if (f)
		fclose(f);
	return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

TEST(what_the_heap_grows_by_is_faulted_in_ahead)
{
	if (!glibc_heap())
		return;	/* no heap that grows: nothing to fault in ahead */
	enum { BLOCK = 48 << 20 };
	gt_mem_keep_freed();
	/* can this kernel populate at all (Linux 5.14)? The thread asks the same of it */
	char *probe = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(probe != MAP_FAILED);
	bool can = madvise(probe, 4096, MADV_POPULATE_WRITE) == 0;
	munmap(probe, 4096);
	/* larger than all the heap has free (the tests before freed some): the heap must grow */
	size_t before = resident(), n = mallinfo2().fordblks + BLOCK;
	uintptr_t end = (uintptr_t)sbrk(0);
	char *p = gt_xmalloc(n);	/* not touched here */
	size_t grown = (uintptr_t)sbrk(0) - end, after = before;
	ASSERT_TRUE(grown >= BLOCK);
	for (int i = 0; i < 200 && after < before + grown / 2; i++) {
		usleep(10000);
		after = resident();
	}
	if (can)
		ASSERT_TRUE(after >= before + grown / 2);
	else	/* advice the kernel cannot take: the memory is as it was */
		ASSERT_TRUE(after < before + grown / 2);
	free(p);
	/* the thread that did it takes no SIGTERM or SIGINT, though this one does (util/stop.h) */
	size_t others = 0;
	DIR *tasks = opendir("/proc/self/task");
	ASSERT_TRUE(tasks != NULL);
	for (struct dirent *e; (e = readdir(tasks));) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == getpid())
			continue;
		char path[300], line[256];
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		FILE *f = fopen(path, "r");
		unsigned long long blocked = 0;
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "SigBlk: %llx", &blocked) == 1)
				break;
		if (f)
			fclose(f);
		ASSERT_TRUE(blocked & (1ull << (SIGTERM - 1)));
		ASSERT_TRUE(blocked & (1ull << (SIGINT - 1)));
		others++;
	}
	closedir(tasks);
	ASSERT_EQ(1, others);	/* it runs whether or not the kernel can populate */
}

const struct gt_test gt_tests[] = {
	T(freed_blocks_stay_with_the_process),
	T(large_blocks_are_advised_huge_pages_before_they_are_touched),
	T(what_the_heap_grows_by_is_advised_huge_pages),
	T(what_the_heap_grows_by_is_faulted_in_ahead),
	{ 0 }
};
