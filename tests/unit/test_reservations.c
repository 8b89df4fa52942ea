/*
 * test_reservations.c - binder/reservations: which GPU reservation pods are
 * idle, as KAI v0.17's binder's resource-reservation sync judges them
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/gpushare.h"
#include "binder/reservations.h"
#include "harness.h"
#include "kube/cache.h"
#include "kubefix.h"

const char *gt_suite = "reservations";

#define RESV_NS "kai-resource-reservation"

/* A reservation pod of @group (deleting: with a deletionTimestamp). */
static struct gt_kobj *resv(const char *name, const char *group, bool deleting)
{
	char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"" RESV_NS "\",\"uid\":\"r-%s\",%s"
		 "\"labels\":{\"app\":\"kai-resource-reservation\",\"runai-gpu-group\":\"%s\"}},"
		 "\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"Running\"}}",
		 name, name, deleting ? "\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"," : "", group);
	return make(GT_KRES_PODS, buf);
}

/* A fractional pod in namespace @ns with labels @labels (JSON members), @node ("" none) and @phase. */
static struct gt_kobj *frac(const char *ns, const char *name, const char *labels, const char *node,
			    const char *phase)
{
	char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\",\"uid\":\"u-%s\",\"labels\":{%s},"
		 "\"annotations\":{\"gpu-fraction\":\"0.5\"}},\"spec\":{\"schedulerName\":\"kai-scheduler\"%s%s%s},"
		 "\"status\":{\"phase\":\"%s\"}}",
		 name, ns, name, labels, *node ? ",\"nodeName\":\"" : "", node, *node ? "\"" : "", phase);
	return make(GT_KRES_PODS, buf);
}

/* A BindRequest for pod @pod (uid u-@pod) selecting @group, with status @status (JSON members). */
static struct gt_kobj *br(const char *pod, const char *group, const char *status)
{
	char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"scheduling.run.ai/v1alpha2\",\"kind\":\"BindRequest\",\"metadata\":{\"name\":\"%s\","
		 "\"namespace\":\"team-a\",\"uid\":\"b-%s\",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
		 "\"name\":\"%s\",\"uid\":\"u-%s\"}]},\"spec\":{\"podName\":\"%s\",\"selectedNode\":\"n1\","
		 "\"selectedGPUGroups\":[\"%s\"],\"receivedResourceType\":\"Fraction\",\"backoffLimit\":2},"
		 "\"status\":{%s}}",
		 pod, pod, pod, pod, pod, group, status);
	return make(GT_KRES_BINDREQUESTS, buf);
}

struct world {
	struct gt_kobj *pods[16], *brs[8];
	size_t n_pods, n_brs;
	struct gt_inflight ifl[4];
	size_t n_ifl;
};

static void world_free(struct world *w)
{
	for (size_t i = 0; i < w->n_pods; i++)
		gt_kobj_unref(w->pods[i]);
	for (size_t i = 0; i < w->n_brs; i++)
		gt_kobj_unref(w->brs[i]);
}

/* The idle reservation pods' names, sorted, joined by spaces. */
static const char *idle_names(const struct gt_resv_verdict *r)
{
	static char out[512];
	const char *names[16];
	size_t n = 0;
	for (size_t i = 0; i < r->n_idle && n < 16; i++)
		names[n++] = r->idle[i].pod->name;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	out[0] = 0;
	for (size_t i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? " " : "", names[i]);
	return out;
}

static void judge(struct world *w, struct gt_resv_verdict *r)
{
	struct gt_resv_view v = { .pods = w->pods, .n_pods = w->n_pods, .brs = w->brs, .n_brs = w->n_brs,
				  .inflight = w->ifl, .n_inflight = w->n_ifl };
	gt_resv_judge(&v, r);
}

TEST(a_group_without_a_live_fractional_pod_is_idle)
{
	struct world w = { 0 };
	w.pods[w.n_pods++] = resv("r-run", "g-run", false);
	w.pods[w.n_pods++] = frac("team-a", "runs", "\"runai-gpu-group\":\"g-run\"", "n1", "Running");
	/* a pod bound but not started yet (Pending on its node), and one terminating: still on the GPU */
	w.pods[w.n_pods++] = resv("r-pend", "g-pend", false);
	w.pods[w.n_pods++] = frac("team-a", "starts", "\"runai-gpu-group\":\"g-pend\"", "n1", "Pending");
	/* a multi-device fraction: runai-gpu-group/<group> per device */
	w.pods[w.n_pods++] = resv("r-multi", "g-m2", false);
	w.pods[w.n_pods++] = frac("team-a", "multi", "\"runai-gpu-group/g-m1\":\"g-m1\",\"runai-gpu-group/g-m2\":\"g-m2\"",
				  "n1", "Running");
	/* the last pod of the group finished, or there never was one */
	w.pods[w.n_pods++] = resv("r-done", "g-done", false);
	w.pods[w.n_pods++] = frac("team-a", "done", "\"runai-gpu-group\":\"g-done\"", "n1", "Succeeded");
	w.pods[w.n_pods++] = frac("team-a", "failed", "\"runai-gpu-group\":\"g-done\"", "n1", "Failed");
	w.pods[w.n_pods++] = resv("r-none", "g-none", false);
	/* being deleted already: not again */
	w.pods[w.n_pods++] = resv("r-going", "g-going", true);
	/* another reservation pod of the same group does not keep it: only fractional pods do */
	w.pods[w.n_pods++] = resv("r-twin", "g-none", false);
	struct gt_resv_verdict r;
	judge(&w, &r);
	ASSERT_STR("r-done r-none r-twin", idle_names(&r));
	ASSERT_EQ(6, r.n_reservations);
	ASSERT_EQ(0, r.n_kept_binding);
	for (size_t i = 0; i < r.n_idle; i++)
		if (!strcmp(r.idle[i].pod->name, "r-done"))
			ASSERT_STR("g-done", r.idle[i].group);
	gt_resv_verdict_release(&r);
	world_free(&w);
}

TEST(a_pod_in_the_reservation_namespace_is_no_fractional_pod)
{
	struct world w = { 0 };
	w.pods[w.n_pods++] = resv("r-a", "g-a", false);
	w.pods[w.n_pods++] = frac(RESV_NS, "odd", "\"runai-gpu-group\":\"g-a\"", "n1", "Running");
	struct gt_resv_verdict r;
	judge(&w, &r);
	/* KAI counts every pod of that namespace as a reservation pod: "odd" is one, of g-a, and idle too */
	ASSERT_STR("odd r-a", idle_names(&r));
	gt_resv_verdict_release(&r);
	world_free(&w);
}

TEST(a_bind_on_the_way_keeps_its_reservation_pod)
{
	struct world w = { 0 };
	/* a BindRequest not carried out yet */
	w.pods[w.n_pods++] = resv("r-br", "g-br", false);
	w.pods[w.n_pods++] = frac("team-a", "waits", "", "", "Pending");
	w.brs[w.n_brs++] = br("waits", "g-br", "");
	/* Succeeded, but the cache has not seen its pod bound (nor labelled) yet */
	w.pods[w.n_pods++] = resv("r-ok", "g-ok", false);
	w.pods[w.n_pods++] = frac("team-a", "lagging", "", "", "Pending");
	w.brs[w.n_brs++] = br("lagging", "g-ok", "\"phase\":\"Succeeded\"");
	/* failed with a retry to come (backoffLimit 2 > failedAttempts 1) */
	w.pods[w.n_pods++] = resv("r-retry", "g-retry", false);
	w.pods[w.n_pods++] = frac("team-a", "retried", "", "", "Pending");
	w.brs[w.n_brs++] = br("retried", "g-retry", "\"phase\":\"Failed\",\"failedAttempts\":1");
	/* failed for good, or its pod is gone: the reservation pod goes */
	w.pods[w.n_pods++] = resv("r-dead", "g-dead", false);
	w.pods[w.n_pods++] = frac("team-a", "dead", "", "", "Pending");
	w.brs[w.n_brs++] = br("dead", "g-dead", "\"phase\":\"Failed\",\"failedAttempts\":2");
	w.pods[w.n_pods++] = resv("r-orphan", "g-orphan", false);
	w.brs[w.n_brs++] = br("ghost", "g-orphan", "");
	/* a bind of this process in flight (pod not bound yet); and one whose pod is bound: over */
	w.pods[w.n_pods++] = resv("r-fly", "g-fly", false);
	w.pods[w.n_pods++] = frac("team-a", "flies", "", "", "Pending");
	w.pods[w.n_pods++] = resv("r-landed", "g-landed", false);
	w.pods[w.n_pods++] = frac("team-a", "landed", "", "n1", "Running");
	char *fly[] = { "g-fly" }, *landed[] = { "g-landed" };
	w.ifl[w.n_ifl++] = (struct gt_inflight){ .key = "team-a/flies", .uid = "u-flies", .node = "n1", .groups = fly,
						 .n_groups = 1 };
	w.ifl[w.n_ifl++] = (struct gt_inflight){ .key = "team-a/landed", .uid = "u-landed", .node = "n1",
						 .groups = landed, .n_groups = 1 };
	/* and one whose pod was re-created under its name (another uid): over */
	w.ifl[w.n_ifl++] = (struct gt_inflight){ .key = "team-a/waits", .uid = "u-old", .node = "n1", .groups = fly,
						 .n_groups = 1 };
	struct gt_resv_verdict r;
	judge(&w, &r);
	ASSERT_STR("r-dead r-landed r-orphan", idle_names(&r));
	ASSERT_EQ(4, r.n_kept_binding);
	ASSERT_TRUE(!r.inflight_done[0]);
	ASSERT_TRUE(r.inflight_done[1]);
	ASSERT_TRUE(r.inflight_done[2]);
	gt_resv_verdict_release(&r);
	world_free(&w);
}

TEST(no_reservation_pods_still_ends_finished_binds)
{
	/* no GPU is held by a reservation pod (the namespace is not there): a finished bind is still over */
	struct world w = { 0 };
	w.pods[w.n_pods++] = frac("team-a", "landed", "\"runai-gpu-group\":\"g\"", "n1", "Running");
	char *groups[] = { "g" };
	w.ifl[w.n_ifl++] = (struct gt_inflight){ .key = "team-a/landed", .uid = "u-landed", .node = "n1",
						 .groups = groups, .n_groups = 1 };
	struct gt_resv_verdict r;
	judge(&w, &r);
	ASSERT_EQ(0, r.n_idle);
	ASSERT_EQ(0, r.n_reservations);
	ASSERT_TRUE(r.inflight_done[0]);
	gt_resv_verdict_release(&r);
	w.n_ifl = 0;
	judge(&w, &r);
	ASSERT_EQ(0, r.n_idle);
	gt_resv_verdict_release(&r);
	world_free(&w);
}

TEST(pod_groups_from_labels)
{
	struct gt_kobj *p = frac("team-a", "p", "\"runai-gpu-group\":\"a\",\"runai-gpu-group/a\":\"a\","
				 "\"runai-gpu-group/b\":\"b\",\"runai-gpu-groupie\":\"x\",\"runai-gpu-group/c\":\"\"",
				 "n1", "Running");
	const char *g[4];
	size_t n = gt_gpushare_pod_groups(p->doc, g, 4);
	ASSERT_EQ(2, n);
	ASSERT_STR("a", g[0]);
	ASSERT_STR("b", g[1]);
	ASSERT_EQ(1, gt_gpushare_pod_groups(p->doc, g, 1));
	gt_kobj_unref(p);
}

const struct gt_test gt_tests[] = {
	T(a_group_without_a_live_fractional_pod_is_idle),
	T(a_pod_in_the_reservation_namespace_is_no_fractional_pod),
	T(a_bind_on_the_way_keeps_its_reservation_pod),
	T(no_reservation_pods_still_ends_finished_binds),
	T(pod_groups_from_labels),
	{ NULL, NULL },
};
