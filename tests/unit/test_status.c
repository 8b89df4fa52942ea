/*
 * test_status.c - the PodGroup and Queue status KAI's controllers write (src/status)
 */
#include "harness.h"

#include "api/json.h"
#include "status/compute.h"
#include "status/controller.h"
#include "status/resources.h"

const char *gt_suite = "status";

static struct gt_doc_list docs;

/* The documents of @yaml, kept until the end of the run (the tests borrow them). */
static struct gt_doc **parse(const char *yaml, size_t *n)
{
	size_t before = docs.n;
	struct gt_err err = { 0 };
	if (gt_doc_parse_string(yaml, strlen(yaml), "test", &docs, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	*n = docs.n - before;
	return docs.docs + before;
}

static char *patch_text(json_t *p)
{
	return p ? gt_json_dump_take(p) : strdup("(none)");
}

static const char *fmt(int64_t milli, enum gt_qfmt f)
{
	static char buf[8][48];
	static int k;
	char *b = buf[k++ % 8];
	gt_quantity_format(milli, f, b, 48);
	return b;
}

TEST(quantities_are_written_in_kubernetes_canonical_form)
{
	ASSERT_STR("1500m", fmt(1500, GT_QFMT_DECIMAL));
	ASSERT_STR("2", fmt(2000, GT_QFMT_DECIMAL));
	ASSERT_STR("0", fmt(0, GT_QFMT_BINARY));
	ASSERT_STR("2G", fmt(2000000000000, GT_QFMT_DECIMAL));
	ASSERT_STR("1536Mi", fmt(1536LL * 1024 * 1024 * 1000, GT_QFMT_BINARY));
	ASSERT_STR("1Gi", fmt(1024LL * 1024 * 1024 * 1000, GT_QFMT_BINARY));
	/* a binary quantity under 1024, or not whole, is written in decimal SI, as Kubernetes does */
	ASSERT_STR("1k", fmt(1000000, GT_QFMT_BINARY));
	ASSERT_STR("500m", fmt(500, GT_QFMT_BINARY));
	int64_t m;
	enum gt_qfmt f;
	ASSERT_EQ(0, gt_quantity_read("512Mi", &m, &f));
	ASSERT_EQ(GT_QFMT_BINARY, f);
	ASSERT_EQ(0, gt_quantity_read("1.5", &m, &f));
	ASSERT_EQ(1500, m);
	ASSERT_EQ(GT_QFMT_DECIMAL, f);
	ASSERT_TRUE(gt_quantity_read("12Kb", &m, &f) != 0);
}

TEST(a_sum_keeps_the_format_of_its_first_quantity)
{
	struct gt_rlist l = { 0 };
	gt_rlist_add(&l, "memory", 1024LL * 1024 * 1024 * 1000, GT_QFMT_BINARY);
	gt_rlist_add(&l, "memory", 512LL * 1024 * 1024 * 1000, GT_QFMT_DECIMAL);
	gt_rlist_add(&l, "cpu", 500, GT_QFMT_DECIMAL);
	gt_rlist_add(&l, "cpu", 1000, GT_QFMT_DECIMAL);
	char *s = gt_json_dump_take(gt_rlist_to_json(&l));
	ASSERT_STR("{\"cpu\":\"1500m\",\"memory\":\"1536Mi\"}", s);
	free(s);
	gt_rlist_release(&l);
}

static const char *PODS =
	"kind: Pod\nmetadata: {name: running, namespace: ns, annotations: {pod-group-name: pg}}\n"
	"spec: {nodeName: n1, containers: [{name: a, resources: {requests: {cpu: '1', memory: 1Gi, nvidia.com/gpu: '2'}}},\n"
	"                     {name: b, resources: {requests: {cpu: 250m}}}],\n"
	"       initContainers: [{name: i, resources: {requests: {cpu: '8'}}}]}\n"
	"status: {phase: Running}\n"
	"---\n"
	"kind: Pod\nmetadata: {name: waiting, namespace: ns, annotations: {pod-group-name: pg}}\n"
	"spec: {containers: [{name: a, resources: {requests: {cpu: 500m, memory: 512Mi}}}]}\n"
	"status: {phase: Pending}\n"
	"---\n"
	"kind: Pod\nmetadata: {name: bound-not-running, namespace: ns, annotations: {pod-group-name: pg}}\n"
	"spec: {nodeName: n1, containers: [{name: a, resources: {requests: {cpu: '2'}}}]}\n"
	"status: {phase: Pending, conditions: [{type: PodScheduled, status: 'True'}]}\n"
	"---\n"
	"kind: Pod\nmetadata: {name: done, namespace: ns, annotations: {pod-group-name: pg}}\n"
	"spec: {containers: [{name: a, resources: {requests: {cpu: '64'}}}]}\n"
	"status: {phase: Succeeded}\n"
	"---\n"
	"kind: Pod\nmetadata: {name: half, namespace: ns, annotations: {pod-group-name: pg, gpu-fraction: '0.5',\n"
	"  gpu-fraction-num-devices: '2', received-resource-type: Fraction}}\n"
	"spec: {nodeName: n1, containers: [{name: a, resources: {requests: {cpu: 100m}}}]}\n"
	"status: {phase: Running}\n"
	"---\n"
	"kind: Pod\nmetadata: {name: mem, namespace: ns, annotations: {pod-group-name: pg, gpu-memory: '10240',\n"
	"  received-resource-type: Fraction}}\n"
	"spec: {nodeName: n1, containers: [{name: a, resources: {requests: {cpu: 100m}}}]}\n"
	"status: {phase: Running}\n"
	"---\n"
	"kind: Node\nmetadata: {name: n1, labels: {nvidia.com/gpu.memory: '40960'}}\n";

static char *list_text(const struct gt_rlist *l)
{
	return gt_json_dump_take(gt_rlist_to_json(l));
}

TEST(podgroup_requested_and_allocated_follow_the_pods_phases)
{
	size_t n;
	struct gt_doc **d = parse(PODS, &n);
	ASSERT_EQ(7, n);
	struct gt_pg_status st = { 0 };
	char why[256];
	for (size_t i = 0; i < 6; i++)
		ASSERT_EQ(0, gt_status_add_pod(&st, d[i], d[6], why, sizeof(why)));
	/* requested: Pending and Running pods; init containers and finished pods count for nothing;
	   the fraction pod asks 0.5 x 2 devices, the memory pod 10240 of GPU memory */
	char *req = list_text(&st.requested);
	ASSERT_STR("{\"cpu\":\"3950m\",\"memory\":\"1536Mi\",\"nvidia.com/gpu\":\"3\","
		   "\"run.ai/gpu.memory\":\"10240\"}", req);
	/* allocated: Running, and Pending with PodScheduled=True; the fraction pod holds its 0.5
	   (KAI counts the received fraction once), the memory pod 10240/40960 of a GPU */
	char *alloc = list_text(&st.allocated);
	ASSERT_STR("{\"cpu\":\"3450m\",\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"2750m\"}", alloc);
	free(req);
	free(alloc);
	gt_pg_status_release(&st);
}

TEST(a_pod_kai_cannot_read_fails_the_podgroup_with_the_field_named)
{
	size_t n;
	struct gt_doc **d = parse(
		"kind: Pod\nmetadata: {name: bad, namespace: ns, annotations: {gpu-fraction: half}}\n"
		"spec: {containers: []}\nstatus: {phase: Pending}\n"
		"---\n"
		"kind: Pod\nmetadata: {name: nolabel, namespace: ns, annotations: {gpu-memory: '100',\n"
		"  received-resource-type: Fraction}}\n"
		"spec: {nodeName: bare, containers: []}\nstatus: {phase: Running}\n"
		"---\n"
		"kind: Node\nmetadata: {name: bare}\n",
		&n);
	struct gt_pg_status st = { 0 };
	char why[256];
	ASSERT_EQ(-1, gt_status_add_pod(&st, d[0], NULL, why, sizeof(why)));
	ASSERT_CONTAINS(why, "metadata.annotations.gpu-fraction");
	ASSERT_EQ(-1, gt_status_add_pod(&st, d[1], d[2], why, sizeof(why)));
	ASSERT_CONTAINS(why, "nvidia.com/gpu.memory");
	gt_pg_status_release(&st);
}

TEST(preemptibility_is_the_specs_else_priority_below_100)
{
	size_t n;
	struct gt_doc **d = parse("kind: PodGroup\nspec: {preemptibility: non-preemptible}\n---\n"
				  "kind: PodGroup\nspec: {preemptibility: preemptible}\n---\nkind: PodGroup\nspec: {}\n",
				  &n);
	ASSERT_TRUE(!gt_status_preemptible(d[0], 10));
	ASSERT_TRUE(gt_status_preemptible(d[1], 1000));
	ASSERT_TRUE(gt_status_preemptible(d[2], 99));
	ASSERT_TRUE(!gt_status_preemptible(d[2], 100));
}

TEST(podgroup_patch_lists_only_changes_and_nulls_what_went)
{
	size_t n;
	struct gt_doc **d = parse(
		"kind: PodGroup\nmetadata: {name: pg}\nstatus: {resourcesStatus: {requested: {cpu: '1', memory: 1Gi},\n"
		"  allocated: {cpu: 1000m, memory: 1024Mi}, allocatedNonPreemptible: {cpu: '1'}}}\n",
		&n);
	struct gt_pg_status st = { 0 };
	gt_rlist_add(&st.requested, "cpu", 1000, GT_QFMT_DECIMAL);
	gt_rlist_add(&st.requested, "memory", 1024LL * 1024 * 1024 * 1000, GT_QFMT_BINARY);
	gt_rlist_add(&st.allocated, "cpu", 1000, GT_QFMT_DECIMAL);
	/* same values in another format: nothing to write, for every list */
	st.preemptible = true;
	gt_rlist_add(&st.allocated, "memory", 1024LL * 1024 * 1024 * 1000, GT_QFMT_BINARY);
	char *s = patch_text(gt_status_pg_patch(d[0], &st));
	ASSERT_STR("(none)", s);
	free(s);
	/* non-preemptible: allocatedNonPreemptible gains memory; allocated loses nothing */
	st.preemptible = false;
	s = patch_text(gt_status_pg_patch(d[0], &st));
	ASSERT_STR("{\"status\":{\"resourcesStatus\":{\"allocatedNonPreemptible\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}}",
		   s);
	free(s);
	/* the pods went: every list emptied is null */
	struct gt_pg_status none = { 0 };
	s = patch_text(gt_status_pg_patch(d[0], &none));
	ASSERT_STR("{\"status\":{\"resourcesStatus\":{\"requested\":null,\"allocated\":null,"
		   "\"allocatedNonPreemptible\":null}}}", s);
	free(s);
	/* a resource gone from a list is nulled in it */
	struct gt_pg_status cpu_only = { 0 };
	cpu_only.preemptible = true;
	gt_rlist_add(&cpu_only.requested, "cpu", 1000, GT_QFMT_DECIMAL);
	gt_rlist_add(&cpu_only.allocated, "cpu", 2000, GT_QFMT_DECIMAL);
	s = patch_text(gt_status_pg_patch(d[0], &cpu_only));
	ASSERT_STR("{\"status\":{\"resourcesStatus\":{\"requested\":{\"cpu\":\"1\",\"memory\":null},"
		   "\"allocated\":{\"cpu\":\"2\",\"memory\":null}}}}", s);
	free(s);
	gt_pg_status_release(&cpu_only);
	gt_pg_status_release(&st);
}

static const char *TREE =
	"kind: Queue\nmetadata: {name: root}\nspec: {}\nstatus: {childQueues: [old]}\n"
	"---\n"
	"kind: Queue\nmetadata: {name: team-b}\nspec: {parentQueue: root}\n"
	"---\n"
	"kind: Queue\nmetadata: {name: team-a}\nspec: {parentQueue: root}\n"
	"status: {allocated: {nvidia.com/gpu: '2', cpu: '2'}, requested: {nvidia.com/gpu: '2', cpu: '2'}}\n"
	"---\n"
	"kind: Queue\nmetadata: {name: lonely}\nspec: {}\nstatus: {allocated: {cpu: '1'}, childQueues: [x]}\n"
	"---\n"
	"kind: PodGroup\nmetadata: {name: a1, namespace: ns}\nspec: {queue: team-a}\n"
	"status: {resourcesStatus: {allocated: {nvidia.com/gpu: '2', cpu: '2'}, requested: {nvidia.com/gpu: '2', cpu: '2'}}}\n"
	"---\n"
	"kind: PodGroup\nmetadata: {name: b1, namespace: ns}\nspec: {queue: team-b}\n"
	"status: {resourcesStatus: {allocated: {nvidia.com/gpu: 500m}, allocatedNonPreemptible: {nvidia.com/gpu: 500m},\n"
	"  requested: {nvidia.com/gpu: '1'}}}\n"
	"---\n"
	"kind: PodGroup\nmetadata: {name: b2, namespace: ns}\nspec: {queue: team-b}\n"
	"status: {resourcesStatus: {requested: {nvidia.com/gpu: '4'}}}\n"
	"---\n"
	"kind: PodGroup\nmetadata: {name: nowhere, namespace: ns}\nspec: {queue: missing}\n"
	"status: {resourcesStatus: {requested: {nvidia.com/gpu: '64'}}}\n";

TEST(queue_status_sums_its_podgroups_and_children)
{
	size_t n;
	struct gt_doc **d = parse(TREE, &n);
	ASSERT_EQ(8, n);
	const struct gt_doc *qs[4] = { d[0], d[1], d[2], d[3] };
	const struct gt_doc *pgs[4] = { d[4], d[5], d[6], d[7] };
	struct gt_queue_status st[4];
	gt_status_queues(qs, 4, pgs, 4, st);
	char *s = list_text(&st[0].allocated);
	ASSERT_STR("{\"cpu\":\"2\",\"nvidia.com/gpu\":\"2500m\"}", s);
	free(s);
	s = list_text(&st[0].requested);
	ASSERT_STR("{\"cpu\":\"2\",\"nvidia.com/gpu\":\"7\"}", s);
	free(s);
	s = list_text(&st[0].nonpreemptible);
	ASSERT_STR("{\"nvidia.com/gpu\":\"500m\"}", s);
	free(s);
	ASSERT_EQ(2, st[0].n_children);
	ASSERT_STR("team-a", st[0].children[0]);
	ASSERT_STR("team-b", st[0].children[1]);
	/* team-a already says what it holds: no patch; root's childQueues and lists change */
	char *p = patch_text(gt_status_queue_patch(d[2], &st[2]));
	ASSERT_STR("(none)", p);
	free(p);
	p = patch_text(gt_status_queue_patch(d[0], &st[0]));
	ASSERT_STR("{\"status\":{\"allocated\":{\"cpu\":\"2\",\"nvidia.com/gpu\":\"2500m\"},"
		   "\"allocatedNonPreemptible\":{\"nvidia.com/gpu\":\"500m\"},"
		   "\"requested\":{\"cpu\":\"2\",\"nvidia.com/gpu\":\"7\"},\"childQueues\":[\"team-a\",\"team-b\"]}}",
		   p);
	free(p);
	/* a queue with nothing any more: its lists and children are null */
	p = patch_text(gt_status_queue_patch(d[3], &st[3]));
	ASSERT_STR("{\"status\":{\"allocated\":null,\"childQueues\":null}}", p);
	free(p);
	for (int i = 0; i < 4; i++)
		gt_queue_status_release(&st[i]);
}

TEST(a_parent_loop_ends)
{
	size_t n;
	struct gt_doc **d = parse("kind: Queue\nmetadata: {name: a}\nspec: {parentQueue: b}\n---\n"
				  "kind: Queue\nmetadata: {name: b}\nspec: {parentQueue: a}\n",
				  &n);
	const struct gt_doc *qs[2] = { d[0], d[1] };
	struct gt_queue_status st[2];
	gt_status_queues(qs, 2, NULL, 0, st);
	ASSERT_EQ(1, st[0].n_children);
	ASSERT_EQ(1, st[1].n_children);
	for (int i = 0; i < 2; i++)
		gt_queue_status_release(&st[i]);
}

TEST(queue_label_map_as_kai_parses_it)
{
	struct gt_queue_label_map m;
	char why[256];
	ASSERT_EQ(0, gt_queue_label_map_parse("tier=queue_tier,team=queue_team", "tier=standard,other=x", &m, why,
					      sizeof(why)));
	ASSERT_EQ(2, m.n);
	/* ordered by the Queue label key, as KAI orders the extra labels */
	ASSERT_STR("team", m.queue_key[0]);
	ASSERT_STR("queue_team", m.metric_label[0]);
	ASSERT_TRUE(m.fallback[0] == NULL);
	ASSERT_STR("queue_tier", m.metric_label[1]);
	ASSERT_STR("standard", m.fallback[1]);
	gt_queue_label_map_release(&m);
	ASSERT_EQ(0, gt_queue_label_map_parse(NULL, "", &m, why, sizeof(why)));
	ASSERT_EQ(0, m.n);
	ASSERT_EQ(-1, gt_queue_label_map_parse("team", NULL, &m, why, sizeof(why)));
	ASSERT_CONTAINS(why, "invalid map item: \"team\"");
	ASSERT_EQ(-1, gt_queue_label_map_parse("team=queue_name", NULL, &m, why, sizeof(why)));
	ASSERT_CONTAINS(why, "queue_name");
	ASSERT_EQ(-1, gt_queue_label_map_parse("team=bad-label", NULL, &m, why, sizeof(why)));
	ASSERT_EQ(-1, gt_queue_label_map_parse("a=same,b=same", NULL, &m, why, sizeof(why)));
	ASSERT_CONTAINS(why, "both give label same");
}

static void cleanup(void) __attribute__((destructor));
static void cleanup(void)
{
	gt_doc_list_release(&docs);
}

const struct gt_test gt_tests[] = {
	T(quantities_are_written_in_kubernetes_canonical_form),
	T(a_sum_keeps_the_format_of_its_first_quantity),
	T(podgroup_requested_and_allocated_follow_the_pods_phases),
	T(a_pod_kai_cannot_read_fails_the_podgroup_with_the_field_named),
	T(preemptibility_is_the_specs_else_priority_below_100),
	T(podgroup_patch_lists_only_changes_and_nulls_what_went),
	T(queue_status_sums_its_podgroups_and_children),
	T(a_parent_loop_ends),
	T(queue_label_map_as_kai_parses_it),
	{ 0 }
};
