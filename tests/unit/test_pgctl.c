/*
 * test_pgctl.c - the podgrouper controller's pure parts: KAI's label
 * selectors (--pod-label-selector, --namespace-label-selector) and which
 * owner changes bring an owner's pods back (gt_pg_owner_change_matters)
 */
#include <stddef.h>

#include "api/doc.h"
#include "harness.h"
#include "pgctl/pgctl.h"
#include "podgrouper/podgrouper.h"
#include "util/log.h"

const char *gt_suite = "pgctl";

static struct gt_doc *yaml(const char *text)
{
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	if (gt_doc_parse_string(text, strlen(text), "test", &l, &err) || l.n != 1) {
		fprintf(stderr, "bad fixture: %s\n", err.msg);
		abort();
	}
	struct gt_doc *d = l.docs[0];
	l.n = 0;
	gt_doc_list_release(&l);
	return d;
}

TEST(selector_as_kai_parses_it)
{
	struct gt_pgctl_selector sel;
	gt_log_set_level(GT_LOG_ERROR);	/* the dropped pair is warned about; not here */
	/* KAI: pairs split at ",", each at its first "=", trimmed; a pair without "=" dropped */
	gt_pgctl_selector_parse("pod-label-selector", " team = vision ,bogus,, tier=a=b", &sel);
	ASSERT_EQ(2, (int)sel.n);
	ASSERT_STR("team", sel.labels[0].key);
	ASSERT_STR("vision", sel.labels[0].value);
	ASSERT_STR("tier", sel.labels[1].key);
	ASSERT_STR("a=b", sel.labels[1].value);
	struct gt_doc *in = yaml("metadata: {labels: {team: vision, tier: a=b, x: y}}");
	struct gt_doc *out = yaml("metadata: {labels: {team: vision}}");
	struct gt_doc *none = yaml("metadata: {name: p}");
	ASSERT_TRUE(gt_pgctl_selector_match(&sel, in));
	ASSERT_TRUE(!gt_pgctl_selector_match(&sel, out));
	ASSERT_TRUE(!gt_pgctl_selector_match(&sel, none));
	gt_pgctl_selector_release(&sel);
	/* empty (or no flag): everything */
	gt_pgctl_selector_parse("namespace-label-selector", "", &sel);
	ASSERT_EQ(0, (int)sel.n);
	ASSERT_TRUE(gt_pgctl_selector_match(&sel, none));
	ASSERT_TRUE(gt_pgctl_selector_match(NULL, none));
	gt_pgctl_selector_release(&sel);
	gt_pgctl_selector_parse("pod-label-selector", NULL, &sel);
	ASSERT_EQ(0, (int)sel.n);
	gt_doc_free(in);
	gt_doc_free(out);
	gt_doc_free(none);
}

#define DEPLOYMENT                                                                                  \
	"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, uid: u1, resourceVersion: '%s', " \
	"generation: %s, labels: {%s}, annotations: {%s}}\nspec: {replicas: %s}\nstatus: {%s}\n"

TEST(owner_changes_that_matter)
{
	static const struct {
		const char *rv, *gen, *labels, *annotations, *replicas, *status;
		bool matters;
		const char *why;
	} cases[] = {
		{ "2", "1", "app: d", "", "3", "replicas: 3", false, "the same object" },
		{ "3", "1", "app: d", "", "3", "readyReplicas: 2, replicas: 3", false, "status only" },
		{ "3", "2", "app: d", "", "3", "replicas: 3", false, "generation only" },
		{ "3", "2", "app: d", "", "5", "replicas: 3", true, "a new replica count" },
		{ "3", "1", "app: d, kai.scheduler/queue: q", "", "3", "replicas: 3", true, "a label" },
		{ "3", "1", "app: d", "kai.scheduler/gang-replicas: 'true'", "3", "replicas: 3", true,
		  "an annotation" },
		{ "3", "1", "", "", "3", "replicas: 3", true, "a label removed" },
		{ "3", "1", "app: d", "", "3", "rayClusterName: rc-2", true, "the RayCluster a RayJob names" },
		{ "3", "1", "app: d", "", "3", "activeServiceStatus: {rayClusterName: rc}", true,
		  "a RayService's active cluster" },
	};
	char text[1024];
	snprintf(text, sizeof(text), DEPLOYMENT, "2", "1", "app: d", "", "3", "replicas: 3");
	struct gt_doc *old = yaml(text);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), DEPLOYMENT, cases[i].rv, cases[i].gen, cases[i].labels,
			 cases[i].annotations, cases[i].replicas, cases[i].status);
		struct gt_doc *cur = yaml(text);
		if (gt_pg_owner_change_matters(old, cur) != cases[i].matters) {
			fprintf(stderr, "case %zu (%s): expected %s\n", i, cases[i].why,
				cases[i].matters ? "matters" : "does not matter");
			gt_test_failures++;
		}
		ASSERT_EQ(cases[i].matters, gt_pg_owner_change_matters(cur, old));	/* symmetric */
		gt_doc_free(cur);
	}
	/* a key added to the spec, managedFields and an added owner reference */
	struct gt_doc *more = yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, uid: u1, "
				   "resourceVersion: '9', generation: 1, labels: {app: d}, annotations: {}, "
				   "managedFields: [{manager: kubectl}]}\nspec: {replicas: 3, paused: true}\n"
				   "status: {replicas: 3}\n");
	ASSERT_TRUE(gt_pg_owner_change_matters(old, more));
	struct gt_doc *managed = yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, uid: u1, "
				      "resourceVersion: '9', generation: 1, labels: {app: d}, annotations: {}, "
				      "managedFields: [{manager: kubectl}]}\nspec: {replicas: 3}\n"
				      "status: {replicas: 3}\n");
	ASSERT_TRUE(!gt_pg_owner_change_matters(old, managed));
	struct gt_doc *owned = yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, uid: u1, "
				    "resourceVersion: '9', generation: 1, labels: {app: d}, annotations: {}, "
				    "ownerReferences: [{kind: X, name: x}]}\nspec: {replicas: 3}\n"
				    "status: {replicas: 3}\n");
	ASSERT_TRUE(gt_pg_owner_change_matters(old, owned));
	ASSERT_TRUE(gt_pg_owner_change_matters(old, NULL));
	gt_doc_free(more);
	gt_doc_free(managed);
	gt_doc_free(owned);
	gt_doc_free(old);
}

const struct gt_test gt_tests[] = {
	T(selector_as_kai_parses_it),
	T(owner_changes_that_matter),
	{ 0 }
};
