/*
 * test_heap.c - util/heap: the template pops in order, whatever the pushes
 */
#include "harness.h"
#include "util/heap.h"

const char *gt_suite = "heap";

struct item {
	int key;
	int id;
};

/* By key, then id: a total order, as every heap in Gantry has. */
static bool item_before(const int *calls, const struct item *a, const struct item *b)
{
	(void)calls;
	return a->key != b->key ? a->key < b->key : a->id < b->id;
}

GT_HEAP_DEFINE(iheap, struct item, const int, item_before)

static uint64_t rng = 88172645463325252ULL;

static int next_rand(int mod)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (int)(rng % (uint64_t)mod);
}

TEST(pops_in_order)
{
	struct item *v = NULL;
	uint32_t n = 0, cap = 0;
	for (int round = 0; round < 50; round++) {
		int count = 1 + next_rand(300);
		for (int i = 0; i < count; i++)
			iheap_push(&v, &n, &cap, (struct item){ next_rand(20), i }, NULL);
		struct item prev = { -1, -1 };
		/* pop half, push more, pop all: every pop is the least left */
		for (int i = 0; i < count / 2; i++) {
			struct item top = iheap_pop(v, &n, NULL);
			ASSERT_TRUE(!item_before(NULL, &top, &prev));
			prev = top;
		}
		for (int i = 0; i < count / 3; i++)
			iheap_push(&v, &n, &cap, (struct item){ 20 + next_rand(5), 1000 + i }, NULL);
		while (n) {
			struct item top = iheap_pop(v, &n, NULL);
			ASSERT_TRUE(!item_before(NULL, &top, &prev));
			prev = top;
		}
	}
	free(v);
}

TEST(top_is_first)
{
	struct item *v = NULL;
	uint32_t n = 0, cap = 0;
	static const int keys[] = { 5, 3, 9, 3, 1, 7 };
	for (int i = 0; i < 6; i++)
		iheap_push(&v, &n, &cap, (struct item){ keys[i], i }, NULL);
	ASSERT_EQ(6, n);
	ASSERT_EQ(1, v[0].key);
	ASSERT_EQ(1, iheap_pop(v, &n, NULL).key);
	struct item a = iheap_pop(v, &n, NULL), b = iheap_pop(v, &n, NULL);
	ASSERT_EQ(3, a.key);
	ASSERT_EQ(1, a.id);	/* equal keys: the lower id first */
	ASSERT_EQ(3, b.key);
	ASSERT_EQ(3, b.id);
	ASSERT_EQ(3, n);
	free(v);
}

const struct gt_test gt_tests[] = {
	T(pops_in_order),
	T(top_is_first),
	{ 0 }
};
