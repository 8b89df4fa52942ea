/*
 * test_smap.c - the string map: put, get, replace, remove, iterate, and
 * many keys coming and going (the podgrouper's pods and owners)
 */
#include <stdint.h>
#include <stdio.h>

#include "harness.h"
#include "util/smap.h"

const char *gt_suite = "smap";

TEST(put_get_replace_remove)
{
	struct gt_smap m;
	gt_smap_init(&m);
	int a = 1, b = 2;
	ASSERT_TRUE(gt_smap_get(&m, "x") == NULL);
	ASSERT_TRUE(gt_smap_del(&m, "x") == NULL);
	ASSERT_TRUE(gt_smap_put(&m, "team-a/p", &a) == NULL);
	ASSERT_TRUE(gt_smap_get(&m, "team-a/p") == &a);
	ASSERT_TRUE(gt_smap_put(&m, "team-a/p", &b) == &a);	/* the value it replaces */
	ASSERT_EQ(1, m.n);
	ASSERT_TRUE(gt_smap_del(&m, "team-a/p") == &b);
	ASSERT_TRUE(gt_smap_get(&m, "team-a/p") == NULL);
	ASSERT_EQ(0, m.n);
	gt_smap_release(&m);
}

/* Keys come and go far beyond the table's size: tombstones do not fill it up. */
TEST(churn)
{
	struct gt_smap m;
	gt_smap_init(&m);
	char key[32];
	for (intptr_t i = 0; i < 20000; i++) {
		snprintf(key, sizeof(key), "ns/pod-%ld", (long)i);
		gt_smap_put(&m, key, (void *)(i + 1));
		if (i >= 10) {
			snprintf(key, sizeof(key), "ns/pod-%ld", (long)(i - 10));
			ASSERT_TRUE(gt_smap_del(&m, key) == (void *)(i - 9));
		}
	}
	ASSERT_EQ(10, m.n);
	ASSERT_TRUE(m.cap <= 64);
	snprintf(key, sizeof(key), "ns/pod-%d", 19995);
	ASSERT_TRUE(gt_smap_get(&m, key) == (void *)19996);
	gt_smap_release(&m);
}

/* Removing while iterating visits every key once. */
TEST(iterate_and_remove)
{
	struct gt_smap m;
	gt_smap_init(&m);
	char key[32];
	for (intptr_t i = 0; i < 100; i++) {
		snprintf(key, sizeof(key), "k%ld", (long)i);
		gt_smap_put(&m, key, (void *)i);
	}
	size_t pos = 0, seen = 0;
	intptr_t sum = 0;
	const char *k;
	void *v;
	while (gt_smap_next(&m, &pos, &k, &v)) {
		seen++;
		sum += (intptr_t)v;
		if ((intptr_t)v % 2)
			gt_smap_del(&m, k);
	}
	ASSERT_EQ(100, seen);
	ASSERT_EQ(4950, sum);
	ASSERT_EQ(50, m.n);
	ASSERT_TRUE(gt_smap_get(&m, "k3") == NULL);
	ASSERT_TRUE(gt_smap_get(&m, "k4") == (void *)4);
	gt_smap_release(&m);
}

const struct gt_test gt_tests[] = {
	T(put_get_replace_remove),
	T(churn),
	T(iterate_and_remove),
	{ NULL, NULL },
};
