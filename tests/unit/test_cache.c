/*
 * test_cache.c - kube/cache: API-server JSON into immutable objects; the
 * stores' replace, delete and copy-on-write assumptions
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/json.h"
#include "harness.h"
#include "kube/cache.h"
#include "kubefix.h"
#include "util/clock.h"

const char *gt_suite = "cache";

TEST(server_json_becomes_an_object)
{
	struct gt_kobj *p = make(GT_KRES_PODS, pod_json);
	ASSERT_TRUE(p != NULL);
	ASSERT_STR("team-a/nb-x7k2p", p->key);
	ASSERT_STR("48213", p->rv);
	ASSERT_STR("3f9b2c1e-0d4a-4e7b-9a51-2c6f8e1d0b7a", p->uid);
	ASSERT_EQ(1767225605, p->created);
	/* what the scheduler never reads is not kept */
	ASSERT_TRUE(gt_doc_path(p->doc, "metadata.managedFields") == NULL);
	ASSERT_TRUE(gt_kobj_str(p, "metadata.annotations.kubectl.kubernetes.io/last-applied-configuration") == NULL);
	gt_kobj_unref(p);
	/* a list item: no kind, no apiVersion; they are set from the resource */
	struct gt_kobj *n = make(GT_KRES_NODES, node_json);
	ASSERT_STR("Node", gt_kobj_str(n, "kind"));
	ASSERT_STR("v1", gt_kobj_str(n, "apiVersion"));
	ASSERT_STR("", n->ns);
	ASSERT_STR("gpu-1", n->key);
	gt_kobj_unref(n);
	json_t *j = json_loads("{\"metadata\":{}}", 0, NULL);
	struct gt_err err = { 0 };
	ASSERT_TRUE(gt_kobj_new(GT_KRES_PODS, j, &err) == NULL);
	ASSERT_CONTAINS(err.msg, "Pod without metadata.name");
	json_decref(j);
}

static void set_node(struct gt_doc *doc, void *arg)
{
	static const char *const path[] = { "spec", "nodeName" };
	gt_doc_set(doc, path, 2, arg, true);
}

TEST(cache_replace_delete_assume)
{
	struct gt_cache *c = gt_cache_new();
	add(c, GT_KRES_PODS, pod_json);
	ASSERT_EQ(1, gt_cache_count(c, GT_KRES_PODS));
	struct gt_kobj *held = gt_cache_get(c, GT_KRES_PODS, "team-a/nb-x7k2p");
	ASSERT_TRUE(held != NULL);
	/* a stale resourceVersion: a newer version is the truth, nothing is assumed */
	ASSERT_TRUE(!gt_cache_assume(c, GT_KRES_PODS, "team-a/nb-x7k2p", "1", set_node, "gpu-1"));
	ASSERT_TRUE(!gt_cache_assume(c, GT_KRES_PODS, "team-a/gone", "48213", set_node, "gpu-1"));
	ASSERT_TRUE(gt_cache_assume(c, GT_KRES_PODS, "team-a/nb-x7k2p", "48213", set_node, "gpu-1"));
	struct gt_kobj *now = gt_cache_get(c, GT_KRES_PODS, "team-a/nb-x7k2p");
	ASSERT_STR("gpu-1", gt_kobj_str(now, "spec.nodeName"));
	gt_kobj_unref(now);
	/* copy on write: the old reference still reads the old document */
	ASSERT_TRUE(gt_kobj_str(held, "spec.nodeName") == NULL);
	gt_kobj_unref(held);
	gt_cache_delete(c, GT_KRES_PODS, "team-a/nb-x7k2p");
	gt_cache_delete(c, GT_KRES_PODS, "team-a/nb-x7k2p");
	ASSERT_EQ(0, gt_cache_count(c, GT_KRES_PODS));
	for (int i = 0; i < 300; i++) {
		char name[32];
		snprintf(name, sizeof(name), "p%d", i);
		add(c, GT_KRES_PODS, fmt(BIG_POD, name, name));
	}
	ASSERT_EQ(300, gt_cache_count(c, GT_KRES_PODS));
	for (int i = 0; i < 300; i += 2) {
		char key[40];
		snprintf(key, sizeof(key), "team-a/p%d", i);
		gt_cache_delete(c, GT_KRES_PODS, key);
	}
	ASSERT_EQ(150, gt_cache_count(c, GT_KRES_PODS));
	struct gt_kobj *o = gt_cache_get(c, GT_KRES_PODS, "team-a/p299");
	ASSERT_TRUE(o != NULL);
	gt_kobj_unref(o);
	ASSERT_TRUE(gt_cache_get(c, GT_KRES_PODS, "team-a/p298") == NULL);
	struct gt_kobj *one = make(GT_KRES_PODS, fmt(BIG_POD, "only", "only"));
	gt_cache_replace(c, GT_KRES_PODS, &one, 1);
	ASSERT_EQ(1, gt_cache_count(c, GT_KRES_PODS));
	ASSERT_TRUE(!gt_cache_all_synced(c, GT_KRES_ALL));
	for (int r = 0; r < GT_N_KRES; r++)
		gt_cache_set_synced(c, (enum gt_kres)r, true);
	ASSERT_TRUE(gt_cache_all_synced(c, GT_KRES_ALL));
	gt_cache_free(c);
}

struct waiter_arg {
	struct gt_cache *c;
	uint64_t seen, got;
};

static void *wait_for_pods(void *arg)
{
	struct waiter_arg *a = arg;
	a->got = gt_cache_wait(a->c, GT_KRES_BIT(GT_KRES_PODS), a->seen, gt_mono_s() + 10);
	return NULL;
}

/* Readers wait for a version to move: a change wakes them, nothing is polled, nothing is lost. */
TEST(readers_are_told_of_changes)
{
	struct gt_cache *c = gt_cache_new();
	unsigned pods = GT_KRES_BIT(GT_KRES_PODS), nodes = GT_KRES_BIT(GT_KRES_NODES);
	uint64_t v0 = gt_cache_version(c, pods);
	add(c, GT_KRES_PODS, pod_json);
	uint64_t v1 = gt_cache_version(c, pods);
	ASSERT_TRUE(v1 != v0);
	/* a change the reader has not seen ends its wait at once */
	ASSERT_EQ(v1, gt_cache_wait(c, pods, v0, 0));
	/* other resources do not move this version; a deadline ends the wait */
	add(c, GT_KRES_NODES, node_json);
	double t0 = gt_mono_s();
	ASSERT_EQ(v1, gt_cache_wait(c, pods, v1, t0 + 0.05));
	ASSERT_TRUE(gt_mono_s() - t0 >= 0.04);
	ASSERT_TRUE(gt_cache_version(c, nodes) != 0);
	/* a wake moves only the versions that ask for it */
	uint64_t w0 = gt_cache_version(c, pods | GT_KRES_WAKE);
	gt_cache_wake(c);
	ASSERT_TRUE(gt_cache_version(c, pods | GT_KRES_WAKE) != w0);
	ASSERT_EQ(v1, gt_cache_version(c, pods));
	/* a waiting thread wakes when a pod changes, deletes included */
	struct waiter_arg a = { .c = c, .seen = v1 };
	pthread_t t;
	ASSERT_EQ(0, pthread_create(&t, NULL, wait_for_pods, &a));
	gt_cache_delete(c, GT_KRES_PODS, "team-a/nb-x7k2p");
	pthread_join(t, NULL);
	ASSERT_TRUE(a.got != v1);
	ASSERT_EQ(a.got, gt_cache_version(c, pods));
	/* a sync flag is a change too */
	uint64_t v2 = gt_cache_version(c, pods);
	gt_cache_set_synced(c, GT_KRES_PODS, true);
	ASSERT_TRUE(gt_cache_version(c, pods) != v2);
	ASSERT_TRUE(gt_cache_all_synced(c, pods));
	ASSERT_TRUE(!gt_cache_all_synced(c, pods | nodes));
	gt_cache_free(c);
}

const struct gt_test gt_tests[] = {
	T(server_json_becomes_an_object),
	T(cache_replace_delete_assume),
	T(readers_are_told_of_changes),
	{ NULL, NULL },
};
