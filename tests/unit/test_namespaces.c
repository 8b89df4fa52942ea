/*
 * test_namespaces.c - pod (anti-)affinity namespaceSelector judged on the
 * Namespace objects' labels (core/namespaces.h), and said when the input has
 * no Namespaces
 */
#include "core/namespaces.h"
#include "testlib.h"

const char *gt_suite = "namespaces";

#define AFFINITY(kind, sel)                                                                        \
	"affinity: {" kind ": {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: "  \
	"{matchLabels: {app: db}}, topologyKey: kubernetes.io/hostname, namespaceSelector: " sel "}]}}"

static void world(struct tl_world *w, bool with_namespaces)
{
	tl_init(w);
	tl_node(w, &(struct tl_node){ .name = "node-a", .labels = "kubernetes.io/hostname: node-a" });
	tl_node(w, &(struct tl_node){ .name = "node-b", .labels = "kubernetes.io/hostname: node-b" });
	tl_queue(w, &(struct tl_queue){ .name = "q" });
	if (with_namespaces)
		tl_yaml(w, "---\n{apiVersion: v1, kind: Namespace, metadata: {name: ml-a, labels: {team: ml}}}\n"
			   "---\n{apiVersion: v1, kind: Namespace, metadata: {name: web, labels: {team: web}}}\n"
			   "---\n{apiVersion: v1, kind: Namespace, metadata: {name: default}}\n");
	/* a db pod of team ml on node-b, one of team web on node-a */
	tl_pod(w, &(struct tl_pod){ .ns = "ml-a", .name = "db-ml", .queue = "q", .labels = "app: db", .node = "node-b" });
	tl_pod(w, &(struct tl_pod){ .ns = "web", .name = "db-web", .queue = "q", .labels = "app: db", .node = "node-a" });
}

TEST(selector_picks_namespaces_by_label)
{
	struct tl_world w;
	world(&w, true);
	tl_pod(&w, &(struct tl_pod){ .name = "near-ml", .queue = "q", .spec = AFFINITY("podAffinity", "{matchLabels: {team: ml}}") });
	tl_pod(&w, &(struct tl_pod){ .name = "away-ml", .queue = "q", .spec = AFFINITY("podAntiAffinity", "{matchLabels: {team: ml}}") });
	TL_BUILD(&w);
	ASSERT_EQ(3, w.c.n_namespaces);
	tl_cycle(&w);
	ASSERT_STR("node-b", tl_node_of(&w, "near-ml"));
	ASSERT_STR("node-a", tl_node_of(&w, "away-ml"));
	tl_free(&w);
}

TEST(expressions_and_the_name_label)
{
	struct tl_world w;
	world(&w, true);
	/* kubernetes.io/metadata.name is every namespace's own, set when the input leaves it out */
	tl_pod(&w, &(struct tl_pod){ .name = "by-name", .queue = "q",
				     .spec = AFFINITY("podAffinity", "{matchExpressions: [{key: kubernetes.io/metadata.name, "
								     "operator: In, values: [web]}]}") });
	tl_pod(&w, &(struct tl_pod){ .name = "not-ml", .queue = "q",
				     .spec = AFFINITY("podAffinity", "{matchExpressions: [{key: team, operator: NotIn, "
								     "values: [ml]}, {key: team, operator: Exists}]}") });
	tl_pod(&w, &(struct tl_pod){ .name = "nobody", .queue = "q", .spec = AFFINITY("podAffinity", "{matchLabels: {team: none}}") });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_STR("node-a", tl_node_of(&w, "by-name"));
	ASSERT_STR("node-a", tl_node_of(&w, "not-ml"));
	/* no namespace matches: no pod matches the term, and it is not self-affine: nowhere */
	ASSERT_EQ(GT_PENDING, tl_status(&w, "nobody"));
	ASSERT_TRUE(strstr(tl_msg(&w, "nobody"), "didn't match pod affinity rules") != NULL);
	int32_t p = tl_pod_idx(&w, "by-name");
	int64_t web = gt_strtab_find(&w.names, "web"), none = gt_strtab_find(&w.names, "team");
	ASSERT_TRUE(gt_term_covers_namespace(&w.c, &w.c.pods[p].pod_affinity[0], (uint32_t)web));
	ASSERT_TRUE(gt_namespace_labels(&w.c, (uint32_t)none) == NULL);
	tl_free(&w);
}

TEST(without_namespaces_it_is_said_and_the_own_namespace_stands_in)
{
	struct tl_world w;
	world(&w, false);
	tl_pod(&w, &(struct tl_pod){ .ns = "ml-a", .name = "near", .queue = "q", .spec = AFFINITY("podAffinity", "{matchLabels: {team: web}}") });
	TL_BUILD(&w);
	bool said = false;
	for (size_t i = 0; i < w.dec.n_warnings; i++)
		said |= strstr(w.dec.warnings[i], "namespaceSelector with labels needs the Namespace objects") != NULL;
	ASSERT_TRUE(said);
	int32_t p = tl_pod_idx(&w, "near");
	ASSERT_TRUE(!w.c.pods[p].pod_affinity[0].has_ns_selector);
	tl_cycle(&w);
	/* its own namespace ml-a: the ml db pod on node-b */
	ASSERT_STR("node-b", tl_node_of(&w, "near"));
	tl_free(&w);
}

TEST(the_scheduler_lists_namespaces_even_when_there_are_none)
{
	struct tl_world w;
	world(&w, false);
	w.dec.namespaces_listed = true;
	tl_pod(&w, &(struct tl_pod){ .name = "p", .queue = "q", .spec = AFFINITY("podAffinity", "{matchLabels: {team: ml}}") });
	TL_BUILD(&w);
	int32_t p = tl_pod_idx(&w, "p");
	ASSERT_TRUE(w.c.pods[p].pod_affinity[0].has_ns_selector);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p"));	/* no namespace has labels: nothing matches */
	tl_free(&w);
}

const struct gt_test gt_tests[] = {
	T(selector_picks_namespaces_by_label),
	T(expressions_and_the_name_label),
	T(without_namespaces_it_is_said_and_the_own_namespace_stands_in),
	T(the_scheduler_lists_namespaces_even_when_there_are_none),
	{ NULL, NULL },
};
