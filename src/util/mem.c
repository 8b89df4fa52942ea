/* madvise and MADV_HUGEPAGE are not POSIX */
#define _DEFAULT_SOURCE
#include "util/mem.h"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
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

void gt_mem_advise_huge(void *p, size_t n)
{
	uintptr_t from = ((uintptr_t)p + GT_HUGE_PAGE - 1) & ~(uintptr_t)(GT_HUGE_PAGE - 1);
	uintptr_t to = ((uintptr_t)p + n) & ~(uintptr_t)(GT_HUGE_PAGE - 1);
	if (to > from)	/* advice: refused (no transparent huge pages), the memory is the same */
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
}

/*
 * Fresh memory costs more here than the work done in it: a machine of this
 * project's kind (a paravirtualised guest) faults a 4 KiB page in for about
 * 10 us, so a simulation of 50,000 pods spent a third of its time in page
 * faults. Two kinds of fresh memory are advised huge pages (one fault per
 * 2 MiB) before they are touched:
 * - a block large enough to hold two huge pages (a file's text, a cluster's
 *   pods, a cycle's books, an arena's large blocks): its whole pages;
 * - glibc's heap, where the small blocks are: after gt_mem_keep_freed() it
 *   grows by at least HEAP_PAD at a time (M_TOP_PAD), and the first
 *   allocation through here after it grew advises what it grew by, nearly
 *   all of it still untouched. glibc would do the same with the
 *   glibc.malloc.hugetlb=1 tunable, which only the environment can set.
 *   Other processes (the tests, the benchmarks' children, the small
 *   commands) keep glibc's defaults: the pad would also freeze glibc's
 *   mmap threshold, and a small process's blocks of 128 KiB and more would
 *   then be mapped and faulted in afresh each time.
 * Advice only: without transparent huge pages, under a sanitizer's allocator
 * (no heap) or with another C library, the memory is the same.
 */
#define HEAP_PAD (32 << 20)

/* The end of the heap when last looked at (any thread may look: the one that sees it move advises). */
static _Atomic uintptr_t heap_end;

/*
 * Faulting in ahead. Clearing a fresh page is most of what it costs here,
 * and the kernel clears pages on two processors about 1.5 times as fast as
 * on one. After gt_mem_keep_freed, a thread of its own asks the kernel to
 * fault in each step the heap grows by (MADV_POPULATE_WRITE, a huge page at
 * a time, lowest first: where the heap's users go next) while the thread
 * that grew it goes on; a simulation's podgrouper and decoder, one thread,
 * take about 110 MB of fresh heap at 50,000 pods. Populating changes no
 * byte (a page there already is left as it is; one the other thread is
 * faulting in is faulted in once), so it takes no lock against the heap's
 * users. It costs the part of the last step nothing used (at most HEAP_PAD),
 * so a heap is faulted in ahead only once it has grown past two steps.
 * Advice: without the thread, or before Linux 5.14, each page is faulted in
 * where it is first touched, as before.
 */
#ifdef MADV_POPULATE_WRITE
static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	uintptr_t from, to;	/* grown and not populated yet; from == to: nothing */
	bool on, started, failed;
} ahead = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

static void *populate_ahead(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&ahead.lock);
	for (;;) {
		while (ahead.from == ahead.to)
			pthread_cond_wait(&ahead.wake, &ahead.lock);
		uintptr_t from = ahead.from, to = ahead.to - from > GT_HUGE_PAGE ? from + GT_HUGE_PAGE : ahead.to;
		ahead.from = to;
		pthread_mutex_unlock(&ahead.lock);
		(void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
		pthread_mutex_lock(&ahead.lock);
	}
	return NULL;
}

static void populate_later(uintptr_t from, uintptr_t to)
{
	pthread_mutex_lock(&ahead.lock);
	if (ahead.on && !ahead.started && !ahead.failed) {
		/*
		 * Not gt_thread_start: without this thread the process loses time,
		 * nothing else. It is started with every signal blocked, whichever
		 * thread grew the heap: a SIGTERM is for the signal thread
		 * (util/stop.h), never for this one.
		 */
		pthread_attr_t attr;
		pthread_t t;
		sigset_t all, was;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &was);
		ahead.failed = pthread_attr_init(&attr) != 0;
		if (!ahead.failed) {
			ahead.failed = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) ||
				       pthread_create(&t, &attr, populate_ahead, NULL);
			pthread_attr_destroy(&attr);
		}
		pthread_sigmask(SIG_SETMASK, &was, NULL);
		ahead.started = !ahead.failed;
	}
	if (ahead.started) {
		if (ahead.from == ahead.to)	/* else the steps before are still being done: this one follows */
			ahead.from = from;
		ahead.to = to;
		pthread_cond_signal(&ahead.wake);
	}
	pthread_mutex_unlock(&ahead.lock);
}
#else
static void populate_later(uintptr_t from, uintptr_t to)
{
	(void)from;
	(void)to;
}
#endif

/* Where the heap ended at the first look (the heap before it is glibc's start-up). */
static _Atomic uintptr_t heap_start;

static void advise_heap_growth(void)
{
	uintptr_t end = (uintptr_t)sbrk(0), was = atomic_load_explicit(&heap_end, memory_order_relaxed);
	if (end == was || !atomic_compare_exchange_strong(&heap_end, &was, end))
		return;
	if (!was) {	/* the first look only notes where the heap ends */
		atomic_store(&heap_start, end);
		return;
	}
	if (end > was) {
		gt_mem_advise_huge((void *)was, end - was);
		/* a small simulation (one of KAI's benchmarks) would pay for a pad it never uses */
		if (end - atomic_load(&heap_start) >= 2 * HEAP_PAD)
			populate_later(was, end);
	}
}

static void *fresh(void *p, size_t n)
{
	if (n >= 2 * GT_HUGE_PAGE)
		gt_mem_advise_huge(p, n);
	advise_heap_growth();
	return p;
}

void *gt_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return fresh(p, n);
}

void *gt_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory(n * size);
	return fresh(p, n * size);
}

void *gt_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory(n);
	return fresh(q, n);
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

/* a trim threshold past any heap */
#define KEEP_TRIM_THRESHOLD (1 << 30)

void gt_mem_keep_freed(void)
{
	/*
	 * Every block from the heap, however large (no mmap of its own, which
	 * free would unmap), and the heap never trimmed. Advice: a C library
	 * without these options (or a sanitizer's allocator) ignores them.
	 */
	(void)mallopt(M_MMAP_MAX, 0);
	(void)mallopt(M_TRIM_THRESHOLD, KEEP_TRIM_THRESHOLD);
	(void)mallopt(M_TOP_PAD, HEAP_PAD);	/* growth in steps whole huge pages fit in (above) */
#ifdef MADV_POPULATE_WRITE
	ahead.on = true;
#endif
}
