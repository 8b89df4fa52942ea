/*
 * test_placement.c - where a task goes: fit, predicates, node order, the index
 *
 * gt_best_node() has a fast path over the node index (nodes by free GPUs)
 * and a full scan that scores every node; these tests pin the order KAI's
 * scores give (binpack: fewest free GPUs; fits now before fits once pods
 * leave; a shared GPU with room first; names break ties), check that the
 * fast path and the full scan agree, that a node mask restricts the choice,
 * and the wording of fit errors.
 */
#include <string.h>

#include "core/placement.h"
#include "testlib.h"

const char *gt_suite = "placement";

static int32_t best_in(struct tl_world *w, const struct gt_place_ctx *ctx, const char *pod,
		       bool exhaustive)
{
	struct gt_fit fit;
	w->c.config.exhaustive_placement = exhaustive;
	int32_t n = gt_best_node(&w->s, ctx, tl_pod_idx(w, pod), NULL, 0, &fit, NULL);
	w->c.config.exhaustive_placement = false;
	return n;
}

static int32_t best(struct tl_world *w, const char *pod, bool exhaustive)
{
	return best_in(w, &(struct gt_place_ctx){ 0 }, pod, exhaustive);
}

static const char *node_name(struct tl_world *w, int32_t n)
{
	return n < 0 ? "(none)" : gt_strtab_str(&w->names, w->c.nodes[n].name);
}

static const char *best_name(struct tl_world *w, const char *pod, bool exhaustive)
{
	return node_name(w, best(w, pod, exhaustive));
}

TEST(binpack_takes_the_fullest_node_then_the_first_name)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "b-half", .gpus = 8 });
	tl_node(&w, &(struct tl_node){ .name = "a-empty", .gpus = 8 });
	tl_node(&w, &(struct tl_node){ .name = "c-half", .gpus = 8 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "r1", .queue = "q", .gpus = "4", .node = "b-half" });
	tl_pod(&w, &(struct tl_pod){ .name = "r2", .queue = "q", .gpus = "4", .node = "c-half" });
	tl_pod(&w, &(struct tl_pod){ .name = "p", .queue = "q", .gpus = "2" });
	tl_pod(&w, &(struct tl_pod){ .name = "big", .queue = "q", .gpus = "6" });
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_STR("b-half", best_name(&w, "p", false));
	ASSERT_STR("b-half", best_name(&w, "p", true));
	ASSERT_STR("a-empty", best_name(&w, "big", false));	/* only it has room */
	ASSERT_STR("a-empty", best_name(&w, "big", true));
	tl_free(&w);
}

/* Room that frees only when releasing pods leave comes after room free now. */
TEST(fits_now_before_fits_once_pods_leave)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "a-leaving", .gpus = 4 });
	tl_node(&w, &(struct tl_node){ .name = "b-free", .gpus = 4 });
	tl_node(&w, &(struct tl_node){ .name = "c-leaving", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "gone1", .queue = "q", .gpus = "4", .node = "a-leaving", .deleting = true });
	tl_pod(&w, &(struct tl_pod){ .name = "gone2", .queue = "q", .gpus = "2", .node = "c-leaving", .deleting = true });
	tl_pod(&w, &(struct tl_pod){ .name = "stay", .queue = "q", .gpus = "2", .node = "c-leaving" });
	tl_pod(&w, &(struct tl_pod){ .name = "stay2", .queue = "q", .gpus = "2", .node = "b-free" });
	tl_pod(&w, &(struct tl_pod){ .name = "p", .queue = "q", .gpus = "2" });
	tl_pod(&w, &(struct tl_pod){ .name = "p3", .queue = "q", .gpus = "3" });
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_STR("b-free", best_name(&w, "p", false));
	ASSERT_STR("b-free", best_name(&w, "p", true));
	/* nothing fits 3 now: the node with the fewest free (free + freeing) GPUs that will */
	ASSERT_STR("a-leaving", best_name(&w, "p3", false));
	ASSERT_STR("a-leaving", best_name(&w, "p3", true));
	struct gt_fit fit;
	gt_best_node(&w.s, &(struct gt_place_ctx){ 0 }, tl_pod_idx(&w, "p3"), NULL, 0, &fit, NULL);
	ASSERT_TRUE(fit.needs_releasing);
	tl_free(&w);
}

TEST(a_shared_gpu_with_room_comes_first)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "a", .gpus = 2 });
	tl_node(&w, &(struct tl_node){ .name = "b", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "share", .queue = "q", .node = "a",
				     .annotations = "gpu-fraction: '0.5'", .labels = "runai-gpu-group: g" });
	tl_pod(&w, &(struct tl_pod){ .name = "p", .queue = "q", .annotations = "gpu-fraction: '0.5'" });
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_STR("a", best_name(&w, "p", false));	/* b has fewer free GPUs, a has the shared one */
	ASSERT_STR("a", best_name(&w, "p", true));
	struct gt_fit fit;
	gt_best_node(&w.s, &(struct gt_place_ctx){ 0 }, tl_pod_idx(&w, "p"), NULL, 0, &fit, NULL);
	ASSERT_EQ(1, fit.n_groups);
	ASSERT_EQ((int64_t)gt_strtab_find(&w.names, "g"), fit.groups[0]);
	tl_free(&w);
}

/* The solver's simulations place only on the feasible nodes: the mask. */
TEST(node_mask_limits_the_choice)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "a", .gpus = 8 });
	tl_node(&w, &(struct tl_node){ .name = "b", .gpus = 8 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "p", .queue = "q", .gpus = "1" });
	TL_BUILD(&w);
	tl_open(&w);
	uint64_t mask[4] = { 0 };
	uint32_t rank = w.c.nodes[tl_node_idx(&w, "b")].name_rank;
	mask[rank / 64] |= 1ULL << (rank % 64);
	const struct gt_place_ctx only_b = { .node_mask = mask };
	ASSERT_STR("b", node_name(&w, best_in(&w, &only_b, "p", false)));
	ASSERT_STR("b", node_name(&w, best_in(&w, &only_b, "p", true)));
	ASSERT_STR("a", best_name(&w, "p", false));
	tl_free(&w);
}

/* A topology's preference is a bonus in node order, for the one placement it is passed to. */
TEST(node_bonus_outweighs_binpack)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "a", .gpus = 8 });
	tl_node(&w, &(struct tl_node){ .name = "b", .gpus = 8 });
	tl_node(&w, &(struct tl_node){ .name = "c", .gpus = 8 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "r", .queue = "q", .gpus = "4", .node = "a",
				     .phase = "Running" });
	tl_pod(&w, &(struct tl_pod){ .name = "p", .queue = "q", .gpus = "1" });
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_STR("a", best_name(&w, "p", false));	/* binpack: the fullest node */
	int64_t bonus[4] = { 0 };
	bonus[tl_node_idx(&w, "c")] = 10000LL * 1000;
	const struct gt_place_ctx prefer_c = { .node_bonus = bonus };
	ASSERT_STR("c", node_name(&w, best_in(&w, &prefer_c, "p", false)));
	ASSERT_STR("c", node_name(&w, best_in(&w, &prefer_c, "p", true)));
	ASSERT_STR("a", best_name(&w, "p", false));	/* the session kept nothing */
	tl_free(&w);
}

/* The index and the full scan agree on every pod of a mixed cluster. */
TEST(fast_path_and_full_scan_agree)
{
	struct tl_world w;
	tl_init(&w);
	static const char *const sizes[] = { "1", "2", "3", "4", "8" };
	for (int n = 0; n < 12; n++) {
		char name[16];
		snprintf(name, sizeof(name), "node-%02d", n);
		tl_node(&w, &(struct tl_node){ .name = name, .gpus = n % 3 ? 8 : 4 });
	}
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	for (int i = 0; i < 20; i++) {
		char name[16], node[16];
		snprintf(name, sizeof(name), "run-%02d", i);
		snprintf(node, sizeof(node), "node-%02d", (i * 5) % 12);
		tl_pod(&w, &(struct tl_pod){ .name = name, .queue = "q", .gpus = sizes[i % 3], .node = node,
					     .deleting = i % 7 == 0 });
	}
	for (int i = 0; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "want-%d", i);
		tl_pod(&w, &(struct tl_pod){ .name = name, .queue = "q", .gpus = sizes[i] });
	}
	TL_BUILD(&w);
	tl_open(&w);
	for (int i = 0; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "want-%d", i);
		ASSERT_EQ(best(&w, name, true), best(&w, name, false));
	}
	tl_free(&w);
}

TEST(fit_error_names_every_reason_sorted)
{
	uint32_t rejects[GT_N_REJECT] = { 0 };
	rejects[GT_REJECT_GPU] = 3;
	rejects[GT_REJECT_CPU] = 2;
	rejects[GT_REJECT_TAINT] = 1;
	char buf[512];
	gt_format_fit_error(rejects, buf, sizeof(buf));
	ASSERT_STR("no nodes with enough resources were found: 1 node(s) had untolerated taint. \n"
		   "2 node(s) didn't have enough resources: CPU cores. \n"
		   "3 node(s) didn't have enough resources: GPUs.", buf);
}

TEST(node_affinity_ok_reads_selector_and_terms)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "a", .gpus = 1, .labels = "zone: x" });
	tl_node(&w, &(struct tl_node){ .name = "b", .gpus = 1, .labels = "zone: y" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "sel", .queue = "q", .spec = "nodeSelector: {zone: y}" });
	tl_pod(&w, &(struct tl_pod){ .name = "aff", .queue = "q",
				     .spec = "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
					     "{nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [x]}]}]}}}" });
	TL_BUILD(&w);
	const struct gt_cluster *c = &w.c;
	const struct gt_pod *sel = &c->pods[tl_pod_idx(&w, "sel")], *aff = &c->pods[tl_pod_idx(&w, "aff")];
	const struct gt_node *a = &c->nodes[tl_node_idx(&w, "a")], *b = &c->nodes[tl_node_idx(&w, "b")];
	ASSERT_TRUE(!gt_node_affinity_ok(c, sel, a));
	ASSERT_TRUE(gt_node_affinity_ok(c, sel, b));
	ASSERT_TRUE(gt_node_affinity_ok(c, aff, a));
	ASSERT_TRUE(!gt_node_affinity_ok(c, aff, b));
	tl_free(&w);
}

const struct gt_test gt_tests[] = {
	T(binpack_takes_the_fullest_node_then_the_first_name),
	T(fits_now_before_fits_once_pods_leave),
	T(a_shared_gpu_with_room_comes_first),
	T(node_mask_limits_the_choice),
	T(node_bonus_outweighs_binpack),
	T(fast_path_and_full_scan_agree),
	T(fit_error_names_every_reason_sorted),
	T(node_affinity_ok_reads_selector_and_terms),
	{ 0 }
};
