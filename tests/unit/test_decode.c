/*
 * test_decode.c - Kubernetes objects into the cluster snapshot: strict
 * validation with messages that name the object and field, and objects that
 * refer to something missing loading fine and being reported on the job
 */
#include "core/actions.h"
#include "testlib.h"

const char *gt_suite = "decode";

/*
 * Build a world of one node, one queue and whatever @extra adds; expect
 * @extra to be rejected (GT_EINVAL, one rejection, about the last object)
 * with a message containing every string of @want (NULL-terminated), and
 * everything else decoded. Returns false (after printing) if not.
 */
static bool fails_with(const char *extra, const char *const *want)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_yaml(&w, "---\n%s\n", extra);
	int rc = tl_build(&w);
	bool ok = rc == GT_EINVAL;
	for (const char *const *s = want; ok && *s; s++)
		ok = strstr(w.err.msg, *s) != NULL;
	/* the bad object is left out whole (no entity comes from it), the others are decoded */
	ok = ok && w.dec.n_rejections == 1 && w.dec.rejections[0].obj == w.dec.n_objs - 1;
	int32_t bad = (int32_t)w.dec.n_objs - 1;
	ok = ok && w.c.n_nodes >= 1 && w.c.n_queues >= 1;
	for (uint32_t i = 0; ok && i < w.c.n_nodes; i++)
		ok = w.dec.node_obj[i] != bad;
	for (uint32_t i = 0; ok && i < w.c.n_pods; i++)
		ok = w.dec.pod_obj[i] != bad;
	for (uint32_t i = 0; ok && i < w.c.n_jobs; i++)
		ok = w.dec.job_obj[i] != bad;
	for (uint32_t i = 0; ok && i < w.c.n_queues; i++)
		ok = w.dec.queue_obj[i] != bad;
	if (!ok) {
		fprintf(stderr, "rc %d, message \"%s\"; expected:", rc, w.err.msg);
		for (const char *const *s = want; *s; s++)
			fprintf(stderr, " \"%s\"", *s);
		fprintf(stderr, "\n");
	}
	tl_free(&w);
	return ok;
}

#define POD_WITH(ann, req)                                                               \
	"{apiVersion: v1, kind: Pod, metadata: {name: bad-pod, namespace: team-a, "      \
	"annotations: {" ann "}}, spec: {schedulerName: kai-scheduler, containers: "    \
	"[{name: c, resources: {requests: {" req "}}}]}}"

TEST(gpu_fraction_above_one)
{
	static const char *const want[] = { "Pod", "team-a/bad-pod",
					    "metadata.annotations.gpu-fraction", "'1.5'", NULL };
	ASSERT_TRUE(fails_with(POD_WITH("gpu-fraction: '1.5'", "cpu: '1'"), want));
}

TEST(gpu_fraction_not_a_number)
{
	static const char *const want[] = { "team-a/bad-pod", "metadata.annotations.gpu-fraction",
					    "'abc'", NULL };
	ASSERT_TRUE(fails_with(POD_WITH("gpu-fraction: abc", "cpu: '1'"), want));
}

TEST(gpu_fraction_zero)
{
	static const char *const want[] = { "team-a/bad-pod", "metadata.annotations.gpu-fraction",
					    NULL };
	ASSERT_TRUE(fails_with(POD_WITH("gpu-fraction: '0'", "cpu: '1'"), want));
}

TEST(fraction_and_memory_together)
{
	static const char *const want[] = { "team-a/bad-pod", "metadata.annotations",
					    "GPU fraction and GPU memory", NULL };
	ASSERT_TRUE(fails_with(POD_WITH("gpu-fraction: '0.5', gpu-memory: '4000'", "cpu: '1'"),
			       want));
}

TEST(fraction_and_whole_gpu_together)
{
	static const char *const want[] = { "team-a/bad-pod", "gpu-fraction", NULL };
	ASSERT_TRUE(fails_with(POD_WITH("gpu-fraction: '0.5'", "nvidia.com/gpu: '1'"), want));
}

TEST(gpu_memory_negative)
{
	static const char *const want[] = { "team-a/bad-pod", "metadata.annotations.gpu-memory",
					    "'-5'", NULL };
	ASSERT_TRUE(fails_with(POD_WITH("gpu-memory: '-5'", "cpu: '1'"), want));
}

TEST(bad_cpu_quantity)
{
	static const char *const want[] = { "team-a/bad-pod",
					    "spec.containers[].resources.requests.cpu", "'12Kb'",
					    NULL };
	ASSERT_TRUE(fails_with(POD_WITH("a: b", "cpu: 12Kb"), want));
}

TEST(bad_memory_quantity)
{
	static const char *const want[] = { "team-a/bad-pod",
					    "spec.containers[].resources.requests.memory", "'1 Gi'",
					    NULL };
	ASSERT_TRUE(fails_with(POD_WITH("a: b", "memory: '1 Gi'"), want));
}

TEST(half_a_whole_gpu)
{
	static const char *const want[] = { "team-a/bad-pod",
					    "spec.containers[].resources.requests.nvidia.com/gpu",
					    "'0.5'", NULL };
	ASSERT_TRUE(fails_with(POD_WITH("a: b", "nvidia.com/gpu: '0.5'"), want));
}

TEST(podgroup_bad_preemptibility)
{
	static const char *const want[] = { "PodGroup", "team-a/pg", "spec.preemptibility",
					    "'sometimes'", NULL };
	ASSERT_TRUE(fails_with("{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, "
			       "metadata: {name: pg, namespace: team-a}, "
			       "spec: {queue: q, minMember: 1, preemptibility: sometimes}}",
			       want));
}

TEST(queue_bad_quota)
{
	static const char *const want[] = { "Queue", "bad-q", "spec.resources.gpu.quota", "'x'",
					    NULL };
	ASSERT_TRUE(fails_with("{apiVersion: scheduling.run.ai/v2, kind: Queue, "
			       "metadata: {name: bad-q}, "
			       "spec: {resources: {gpu: {quota: x, limit: -1, overQuotaWeight: 1}}}}",
			       want));
}

TEST(node_bad_allocatable)
{
	static const char *const want[] = { "Node", "n2", "status.allocatable.nvidia.com/gpu",
					    "'two'", NULL };
	ASSERT_TRUE(fails_with("{apiVersion: v1, kind: Node, metadata: {name: n2}, "
			       "status: {allocatable: {cpu: '4', nvidia.com/gpu: two}}}",
			       want));
}

TEST(error_names_the_line)
{
	/* the object's line in the stream, so a user finds it in a long file */
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n"
		    "apiVersion: v1\n"
		    "kind: Pod\n"
		    "metadata: {name: p, annotations: {gpu-fraction: '2'}}\n"
		    "spec: {schedulerName: kai-scheduler}\n");
	ASSERT_EQ(GT_EINVAL, tl_build(&w));
	ASSERT_CONTAINS(w.err.msg, "line 5");
	tl_free(&w);
}

TEST(missing_queue_is_reported_on_the_job)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pg(&w, &(struct tl_pg){ .name = "lost", .queue = "x" });
	tl_pod(&w, &(struct tl_pod){ .name = "lost-0", .pg = "lost", .gpus = "1" });
	tl_pg(&w, &(struct tl_pg){ .name = "fine", .queue = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "fine-0", .pg = "fine", .gpus = "1" });
	TL_BUILD(&w);
	ASSERT_EQ(2, w.c.n_jobs);
	ASSERT_EQ(GT_NONE, w.c.jobs[tl_job_idx(&w, "lost")].queue);
	tl_cycle(&w);
	ASSERT_STR("Queue 'x' does not exist", tl_msg(&w, "lost"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "lost-0"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "fine-0"));
	ASSERT_STR("", tl_msg(&w, "fine"));
	tl_free(&w);
}

TEST(missing_queue_of_a_bare_pod)
{
	/* a pod without a PodGroup takes its queue from the label */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "bare", .queue = "nope", .gpus = "1" });
	tl_pod(&w, &(struct tl_pod){ .name = "ok", .queue = "q", .gpus = "1" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_STR("Queue 'nope' does not exist", tl_msg(&w, "bare"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "bare"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "ok"));
	tl_free(&w);
}

TEST(queue_with_missing_parent)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "orphan", .parent = "gone", .quota = "2" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pg(&w, &(struct tl_pg){ .name = "o", .queue = "orphan" });
	tl_pod(&w, &(struct tl_pod){ .name = "o-0", .pg = "o", .gpus = "1" });
	tl_pg(&w, &(struct tl_pg){ .name = "fine", .queue = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "fine-0", .pg = "fine", .gpus = "1" });
	TL_BUILD(&w);
	bool warned = false;
	for (size_t i = 0; i < w.dec.n_warnings; i++)
		warned |= strstr(w.dec.warnings[i], "orphan") && strstr(w.dec.warnings[i], "gone");
	ASSERT_TRUE(warned);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "o-0"));
	ASSERT_CONTAINS(tl_msg(&w, "o"), "orphan");
	ASSERT_EQ(GT_BINDING, tl_status(&w, "fine-0"));
	tl_free(&w);
}

TEST(unknown_kinds_are_ignored_with_a_warning)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_yaml(&w, "---\n{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}}\n"
		    "---\n{apiVersion: v1, kind: Service, metadata: {name: svc}, spec: {}}\n");
	TL_BUILD(&w);
	ASSERT_EQ(1, w.c.n_nodes);
	/* one line for all of them: workload owners are ordinary input */
	ASSERT_EQ(1, w.dec.n_warnings);
	ASSERT_CONTAINS(w.dec.warnings[0], "ignoring 2 objects");
	ASSERT_CONTAINS(w.dec.warnings[0], "Deployment, Service");
	tl_free(&w);
}

/* ---------------------------------------------------------------- reporting, not stopping */

/* Every bad object is reported, each left out whole; everything else is decoded. */
TEST(bad_objects_are_reported_together)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_yaml(&w, "---\n{apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: lots}}}\n");
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_queue(&w, &(struct tl_queue){ .name = "broken", .quota = "-2" });
	tl_pod(&w, &(struct tl_pod){ .name = "bad", .queue = "q", .annotations = "gpu-fraction: '1.5'" });
	tl_pod(&w, &(struct tl_pod){ .name = "good", .queue = "q", .gpus = "1" });
	ASSERT_EQ(GT_EINVAL, tl_build(&w));
	ASSERT_EQ(3, w.dec.n_rejections);
	/* in dependency order: queues, nodes, pods; each names object and field */
	ASSERT_STR("Queue broken", w.dec.rejections[0].what);
	ASSERT_STR("spec.resources.gpu.quota", w.dec.rejections[0].field);
	ASSERT_STR("Node n2", w.dec.rejections[1].what);
	ASSERT_STR("status.allocatable.cpu", w.dec.rejections[1].field);
	ASSERT_STR("not a valid quantity 'lots'", w.dec.rejections[1].message);
	ASSERT_STR("Pod default/bad", w.dec.rejections[2].what);
	ASSERT_EQ(1, w.dec.rejections[1].obj);	/* the second object added */
	/* the first rejection is the build's error too */
	ASSERT_CONTAINS(w.err.msg, "Queue broken");
	ASSERT_EQ(1, w.c.n_nodes);
	ASSERT_EQ(1, w.c.n_queues);
	ASSERT_EQ(1, w.c.n_pods);
	ASSERT_STR("good", gt_strtab_str(&w.names, w.c.pods[0].name));
	ASSERT_EQ(0, w.c.jobs[w.c.pods[0].job].queue);
	/* every entity knows its object; a bare pod's job has none */
	ASSERT_EQ(0, w.dec.node_obj[0]);
	ASSERT_EQ(2, w.dec.queue_obj[0]);
	ASSERT_EQ(5, w.dec.pod_obj[0]);
	ASSERT_EQ(GT_NONE, w.dec.job_obj[0]);
	char line[600];
	gt_rejection_format(&w.dec.rejections[2], line, sizeof(line));
	ASSERT_CONTAINS(line, "Pod default/bad (line ");
	ASSERT_CONTAINS(line, "): field metadata.annotations.gpu-fraction: must be");
	tl_free(&w);
}

/* A shard with one bad field changes nothing: no half of it applies. */
TEST(rejected_shard_changes_nothing)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_yaml(&w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default}, "
		    "spec: {placementStrategy: {gpu: spread}, plugins: {proportion: {arguments: {kValue: x}}}}}\n");
	ASSERT_EQ(GT_EINVAL, tl_build(&w));
	ASSERT_STR("spec.plugins.proportion.arguments.kValue", w.dec.rejections[0].field);
	ASSERT_TRUE(!w.c.config.gpu_spread);
	ASSERT_TRUE(w.c.config.gpu_sharing_order);
	ASSERT_EQ(1, w.c.n_nodes);
	tl_free(&w);
}

/* A rejected PodGroup is as good as missing: its pods wait for it, and say so. */
TEST(rejected_podgroup_leaves_its_pods_waiting)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pg(&w, &(struct tl_pg){ .name = "pg", .queue = "q", .spec = "subGroups: [{name: a, parent: b}]" });
	tl_pod(&w, &(struct tl_pod){ .name = "p", .pg = "pg", .gpus = "1" });
	ASSERT_EQ(GT_EINVAL, tl_build(&w));
	ASSERT_EQ(1, w.dec.n_rejections);
	ASSERT_STR("spec.subGroups[].parent", w.dec.rejections[0].field);
	ASSERT_EQ(0, w.c.n_jobs);
	ASSERT_EQ(1, w.c.n_pods);
	ASSERT_EQ(GT_NONE, w.c.pods[0].job);
	bool said = false;
	for (size_t i = 0; i < w.dec.n_warnings; i++)
		said |= strstr(w.dec.warnings[i], "PodGroup 'pg' does not exist") != NULL;
	ASSERT_TRUE(said);
	tl_free(&w);
}

/* A pod being bound (gt_decoder_bind) decodes Binding on its node, with the groups given. */
TEST(pods_being_bound_decode_binding)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 2 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "grouped", .queue = "q", .annotations = "gpu-fraction: '0.5'" });
	tl_pod(&w, &(struct tl_pod){ .name = "own", .queue = "q", .annotations = "gpu-fraction: '0.5'" });
	tl_pod(&w, &(struct tl_pod){ .name = "elsewhere", .queue = "q", .gpus = "1" });
	tl_pod(&w, &(struct tl_pod){ .name = "free", .queue = "q", .gpus = "1" });
	const char *text = w.yaml;
	ASSERT_EQ(0, gt_doc_parse_string(text, strlen(text), "test.yaml", &w.docs, &w.err));
	for (size_t i = 0; i < w.docs.n; i++)
		gt_decoder_add(&w.dec, w.docs.docs[i]);
	gt_decoder_bind(&w.dec, &(struct gt_binding){ .pod = w.docs.docs[2], .node = "n1",
						      .groups = { "n1-gpu7" }, .n_groups = 1 });
	gt_decoder_bind(&w.dec, &(struct gt_binding){ .pod = w.docs.docs[3], .node = "n1" });
	gt_decoder_bind(&w.dec, &(struct gt_binding){ .pod = w.docs.docs[4], .node = "gone" });
	ASSERT_EQ(0, gt_decoder_build(&w.dec, &w.c, &w.err));
	const struct gt_pod *p = &w.c.pods[tl_pod_idx(&w, "grouped")];
	ASSERT_EQ(GT_BINDING, p->status);
	ASSERT_EQ(tl_node_idx(&w, "n1"), p->node);
	ASSERT_EQ(1, p->n_groups);
	ASSERT_STR("n1-gpu7", gt_strtab_str(&w.names, p->groups[0]));
	/* a shared pod bound with no group named holds a device of its own, as ever */
	p = &w.c.pods[tl_pod_idx(&w, "own")];
	ASSERT_EQ(GT_BINDING, p->status);
	ASSERT_STR("default/own-own-gpu", gt_strtab_str(&w.names, p->groups[0]));
	/* a node the snapshot does not have: left pending */
	ASSERT_EQ(GT_PENDING, w.c.pods[tl_pod_idx(&w, "elsewhere")].status);
	ASSERT_EQ(GT_PENDING, w.c.pods[tl_pod_idx(&w, "free")].status);
	tl_free(&w);
}

TEST(node_gpu_memory_label)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "h100", .gpus = 8,
				       .labels = "nvidia.com/gpu.memory: '81559'" });
	/* at or above 1 TiB counted in MiB the value is bytes: 80 GiB */
	tl_node(&w, &(struct tl_node){ .name = "bytes", .gpus = 8,
				       .labels = "nvidia.com/gpu.memory: '85899345920'" });
	tl_node(&w, &(struct tl_node){ .name = "plain", .gpus = 8 });
	TL_BUILD(&w);
	const struct gt_node *n = &w.c.nodes[tl_node_idx(&w, "h100")];
	ASSERT_EQ(81500, n->gpu_mem_mib);
	ASSERT_TRUE(n->gpu_mem_synced);
	n = &w.c.nodes[tl_node_idx(&w, "bytes")];
	ASSERT_EQ(81900, n->gpu_mem_mib);
	ASSERT_TRUE(n->gpu_mem_synced);
	n = &w.c.nodes[tl_node_idx(&w, "plain")];
	ASSERT_TRUE(!n->gpu_mem_synced);
	tl_free(&w);
}

TEST(pod_requests)
{
	struct tl_world w;
	tl_init(&w);
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "whole", .queue = "q", .gpus = "2", .cpu = "1500m",
				     .memory = "2Gi" });
	tl_pod(&w, &(struct tl_pod){ .name = "frac", .queue = "q",
				     .annotations = "gpu-fraction: '0.25', gpu-fraction-num-devices: '2'" });
	tl_pod(&w, &(struct tl_pod){ .name = "one", .queue = "q",
				     .annotations = "gpu-fraction: '1'" });
	tl_pod(&w, &(struct tl_pod){ .name = "mem", .queue = "q",
				     .annotations = "gpu-memory: '4000'" });
	TL_BUILD(&w);
	const struct gt_pod *p = &w.c.pods[tl_pod_idx(&w, "whole")];
	ASSERT_EQ(2, p->gpus);
	ASSERT_EQ(1500, p->cpu_milli);
	ASSERT_EQ(2LL << 30, p->mem_bytes);
	ASSERT_TRUE(!gt_pod_is_shared(p));
	p = &w.c.pods[tl_pod_idx(&w, "frac")];
	ASSERT_EQ(250, p->frac_milli);
	ASSERT_EQ(2, p->num_devices);
	ASSERT_EQ(0, p->gpus);
	ASSERT_EQ(500, gt_pod_requested_gpu_milli(&w.c, tl_pod_idx(&w, "frac")));
	/* a fraction of 1 is a whole GPU */
	p = &w.c.pods[tl_pod_idx(&w, "one")];
	ASSERT_EQ(1, p->gpus);
	ASSERT_EQ(0, p->frac_milli);
	p = &w.c.pods[tl_pod_idx(&w, "mem")];
	ASSERT_EQ(4000, p->gpu_mem_mib);
	ASSERT_TRUE(gt_pod_is_shared(p));
	tl_free(&w);
}

TEST(priority_and_preemptibility)
{
	struct tl_world w;
	tl_init(&w);
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_yaml(&w, "---\n{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, "
		    "metadata: {name: urgent}, value: 1000}\n");
	tl_pg(&w, &(struct tl_pg){ .name = "train", .queue = "q", .prio = "train" });
	tl_pg(&w, &(struct tl_pg){ .name = "serve", .queue = "q", .prio = "inference" });
	tl_pg(&w, &(struct tl_pg){ .name = "build", .queue = "q", .prio = "build" });
	tl_pg(&w, &(struct tl_pg){ .name = "urgent", .queue = "q", .prio = "urgent" });
	tl_pg(&w, &(struct tl_pg){ .name = "forced", .queue = "q", .prio = "inference",
				   .preemptibility = "preemptible" });
	tl_pg(&w, &(struct tl_pg){ .name = "kept", .queue = "q", .prio = "train",
				   .preemptibility = "non-preemptible" });
	tl_pg(&w, &(struct tl_pg){ .name = "plain", .queue = "q" });
	TL_BUILD(&w);
	static const struct {
		const char *job;
		int prio;
		bool preemptible;
	} want[] = {
		{ "train", 50, true },	   { "serve", 125, false }, { "build", 100, false },
		{ "urgent", 1000, false }, { "forced", 125, true }, { "kept", 50, false },
		{ "plain", 50, true },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct gt_job *j = &w.c.jobs[tl_job_idx(&w, want[i].job)];
		if (j->priority != want[i].prio || j->preemptible != want[i].preemptible) {
			fprintf(stderr, "%s: priority %d preemptible %d\n", want[i].job, j->priority,
				j->preemptible);
			ASSERT_TRUE(false);
		}
	}
	tl_free(&w);
}

TEST(pod_states_from_the_manifest)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "pending", .queue = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "running", .queue = "q", .node = "n1" });
	tl_pod(&w, &(struct tl_pod){ .name = "bound", .queue = "q", .node = "n1", .phase = "Pending" });
	tl_pod(&w, &(struct tl_pod){ .name = "leaving", .queue = "q", .node = "n1", .deleting = true });
	tl_pod(&w, &(struct tl_pod){ .name = "done", .queue = "q", .node = "n1", .phase = "Succeeded",
				     .gpus = "2" });
	tl_pod(&w, &(struct tl_pod){ .name = "gated", .queue = "q",
				     .spec = "schedulingGates: [{name: wait}]" });
	TL_BUILD(&w);
	static const struct {
		const char *pod;
		enum gt_status st;
		bool on_node;
	} want[] = {
		{ "pending", GT_PENDING, false }, { "running", GT_RUNNING, true },
		{ "bound", GT_BOUND, true },	  { "leaving", GT_RELEASING, true },
		{ "done", GT_SUCCEEDED, true },	  { "gated", GT_GATED, false },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct gt_pod *p = &w.c.pods[tl_pod_idx(&w, want[i].pod)];
		if (p->status != want[i].st || (p->node != GT_NONE) != want[i].on_node) {
			fprintf(stderr, "%s: %s on node %d\n", want[i].pod, gt_status_name(p->status),
				p->node);
			ASSERT_TRUE(false);
		}
	}
	/* a finished pod keeps its node for the record but holds nothing there */
	tl_open(&w);
	ASSERT_EQ(4, tl_idle_gpus(&w, "n1"));
	tl_free(&w);
}

/* Native sidecars (init containers with restartPolicy Always), as kube-scheduler
 * counts them: they add to the regular containers and to every later init container. */
TEST(sidecar_init_containers)
{
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "---\n{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {schedulerName: kai-scheduler, "
		    "initContainers: [{name: side, restartPolicy: Always, resources: {requests: {cpu: '1', memory: 1Gi}}}, "
		    "{name: setup, resources: {requests: {cpu: '3', memory: 1Gi}}}], "
		    "containers: [{name: a, resources: {requests: {cpu: '2', memory: 4Gi}}}]}}\n");
	TL_BUILD(&w);
	const struct gt_pod *p = &w.c.pods[0];
	ASSERT_EQ(4000, p->cpu_milli);		/* setup 3 beside the sidecar's 1 > a 2 + sidecar 1 */
	ASSERT_EQ(5LL << 30, p->mem_bytes);	/* a 4Gi + sidecar 1Gi > setup 1Gi + sidecar 1Gi */
	tl_free(&w);
}

TEST(init_containers_and_limits)
{
	/*
	 * Requests default to limits; init containers run one at a time, so
	 * the pod needs the larger of their maximum and the containers' sum.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "---\n{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {schedulerName: kai-scheduler, "
		    "initContainers: [{name: i, resources: {requests: {cpu: '4', memory: 1Gi}}}], "
		    "containers: [{name: a, resources: {requests: {cpu: '1', memory: 2Gi}, "
		    "limits: {nvidia.com/gpu: '2'}}}, "
		    "{name: b, resources: {limits: {cpu: '2', nvidia.com/gpu: '1'}}}]}}\n");
	TL_BUILD(&w);
	const struct gt_pod *p = &w.c.pods[0];
	ASSERT_EQ(4000, p->cpu_milli);
	ASSERT_EQ(2LL << 30, p->mem_bytes);
	ASSERT_EQ(3, p->gpus);
	tl_free(&w);
}

/* KAI's getTaskStatus: a Running pod deleted longer ago than the threshold is
 * StuckInReleasing in the session; its resources are not counted on for pipelining. */
static enum gt_status leaving_pod_status(const char *shard_args)
{
	struct tl_world w;
	tl_init(&w);
	if (shard_args)
		tl_yaml(&w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default}, "
			    "spec: {args: {%s}}}\n", shard_args);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	/* deleted at 00:59:30, the session is at 01:00 */
	tl_pod(&w, &(struct tl_pod){ .name = "leaving", .queue = "q", .node = "n1", .deleting = true,
				     .gpus = "1" });
	if (tl_build(&w)) {
		fprintf(stderr, "build failed: %s\n", w.err.msg);
		tl_free(&w);
		return GT_N_STATUS;
	}
	tl_open(&w);
	enum gt_status st = w.s.pods[tl_pod_idx(&w, "leaving")].status;
	tl_free(&w);
	return st;
}

TEST(stuck_in_releasing_by_threshold)
{
	ASSERT_EQ(GT_RELEASING, leaving_pod_status(NULL));	/* default 2m */
	ASSERT_EQ(GT_RELEASING, leaving_pod_status("stuck-in-releasing-threshold: 31s"));
	ASSERT_EQ(GT_STUCK_RELEASING, leaving_pod_status("stuck-in-releasing-threshold: 29s"));
}

TEST(min_subgroup_more_than_members)
{
	static const char *const want[] = { "PodGroup", "spec.minSubGroup", "'3'", NULL };
	ASSERT_TRUE(fails_with("{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: g}, "
			       "spec: {queue: q, minSubGroup: 3, subGroups: [{name: a}, {name: b}]}}",
			       want));
}

TEST(min_subgroup_without_subgroups)
{
	static const char *const want[] = { "PodGroup", "spec.minSubGroup", "needs spec.subGroups", NULL };
	ASSERT_TRUE(fails_with("{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: g}, "
			       "spec: {queue: q, minSubGroup: 1}}",
			       want));
}

TEST(topology_alias_names_two_levels)
{
	static const char *const want[] = { "Topology", "spec.levels[].alias", "'zone'", NULL };
	ASSERT_TRUE(fails_with("{apiVersion: kai.scheduler/v1alpha1, kind: Topology, metadata: {name: t}, spec: "
			       "{levels: [{nodeLabel: zone}, {nodeLabel: example.com/rack, alias: zone}]}}",
			       want));
}

/* KAI v0.17: a resource key not written is 0; a missing limit is a limit of 0. */
TEST(queue_missing_keys_are_zero_as_in_kai)
{
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "---\n{apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: q}, spec: {resources: "
		    "{gpu: {quota: 2, limit: -1}, memory: {quota: -1, limit: -1, overQuotaWeight: 1}}}}\n");
	TL_BUILD(&w);
	const struct gt_queue *q = &w.c.queues[0];
	ASSERT_EQ(2000, q->deserved[GT_QGPU]);
	ASSERT_EQ(-1, q->limit[GT_QGPU]);
	ASSERT_TRUE(q->weight[GT_QGPU] == 0);
	ASSERT_EQ(0, q->deserved[GT_QCPU]);
	ASSERT_EQ(0, q->limit[GT_QCPU]);
	ASSERT_EQ(-1, q->limit[GT_QMEM]);
	tl_free(&w);
}

/* SchedulingShard spec.actions: an action with enabled: false does not run. */
TEST(shard_actions_switch_off)
{
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default}, "
		    "spec: {actions: {reclaim: {enabled: false}, preempt: {enabled: true}}, "
		    "args: {allow-consolidating-reclaim: 'false'}}}\n");
	TL_BUILD(&w);
	ASSERT_EQ(1u << GT_ACT_RECLAIM, w.c.config.actions_off);
	ASSERT_TRUE(!w.c.config.allow_consolidating_reclaim);
	/* a flag given to the scheduler wins over the shard */
	struct gt_config_overrides ov = { .has_allow_consolidating_reclaim = true,
					  .allow_consolidating_reclaim = true,
					  .has_stuck_releasing = true, .stuck_releasing_s = 30 };
	gt_config_override(&w.c.config, &ov);
	ASSERT_TRUE(w.c.config.allow_consolidating_reclaim);
	ASSERT_EQ(30, w.c.config.stuck_releasing_s);
	ASSERT_EQ(60, w.c.config.staleness_grace_s);
	tl_free(&w);
}

TEST(shard_unknown_action)
{
	static const char *const want[] = { "SchedulingShard", "spec.actions", "'defrag'", NULL };
	ASSERT_TRUE(fails_with("{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: s}, "
			       "spec: {actions: {defrag: {enabled: true}}}}",
			       want));
}

TEST(preferred_affinity_bad_weight)
{
	static const char *const want[] = { "Pod", "preferredDuringSchedulingIgnoredDuringExecution[].weight", "'0'",
					    NULL };
	ASSERT_TRUE(fails_with("{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {schedulerName: kai-scheduler, "
			       "affinity: {podAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 0, "
			       "podAffinityTerm: {topologyKey: zone}}]}}, containers: [{name: c}]}}",
			       want));
}

TEST(scheduling_shard)
{
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default}, "
		    "spec: {placementStrategy: {gpu: spread, cpu: binpack}, "
		    "args: {default-staleness-grace-period: 2m, max-consolidation-preemptees: '4'}}}\n");
	TL_BUILD(&w);
	ASSERT_TRUE(w.c.config.gpu_spread);
	ASSERT_TRUE(!w.c.config.cpu_spread);
	ASSERT_EQ(120, w.c.config.staleness_grace_s);
	ASSERT_EQ(4, w.c.config.max_consolidation_preemptees);
	tl_free(&w);
}

TEST(scheduling_shard_bad_strategy)
{
	static const char *const want[] = { "SchedulingShard", "spec.placementStrategy.gpu", "'pack'",
					    NULL };
	ASSERT_TRUE(fails_with("{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: s}, "
			       "spec: {placementStrategy: {gpu: pack}}}",
			       want));
}

TEST(scheduling_shard_bad_duration)
{
	static const char *const want[] = { "SchedulingShard", "default-staleness-grace-period",
					    "'soon'", NULL };
	ASSERT_TRUE(fails_with("{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: s}, "
			       "spec: {args: {default-staleness-grace-period: soon}}}",
			       want));
}

TEST(duplicate_names)
{
	static const char *const node[] = { "Node", "n1", "duplicate", NULL };
	ASSERT_TRUE(fails_with("{apiVersion: v1, kind: Node, metadata: {name: n1}}", node));
	static const char *const queue[] = { "Queue", "duplicate", "'q'", NULL };
	ASSERT_TRUE(fails_with("{apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: q}}", queue));
}

TEST(podgroup_needs_a_queue)
{
	static const char *const want[] = { "PodGroup", "pg", "spec.queue", NULL };
	ASSERT_TRUE(fails_with("{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, "
			       "metadata: {name: pg}, spec: {minMember: 1}}",
			       want));
}

TEST(subgroup_label_must_name_a_subgroup)
{
	static const char *const want[] = { "Pod", "kai.scheduler/subgroup-name", "'nope'", NULL };
	ASSERT_TRUE(fails_with("{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, "
			       "metadata: {name: pg}, spec: {queue: q, "
			       "subGroups: [{name: a, minMember: 1}]}}\n"
			       "---\n"
			       "{apiVersion: v1, kind: Pod, metadata: {name: p, "
			       "labels: {kai.scheduler/subgroup-name: nope}, "
			       "annotations: {pod-group-name: pg}}, spec: {schedulerName: kai-scheduler}}",
			       want));
}

TEST(queue_quota_inf_nan_rejected)
{
	static const char *const bad[] = { "inf", "nan", "infinity", "-inf" };
	for (size_t i = 0; i < 4; i++) {
		struct tl_world w;
		tl_init(&w);
		tl_queue(&w, &(struct tl_queue){ .name = "q", .quota = bad[i] });
		int rc = tl_build(&w);
		bool ok = rc == GT_EINVAL && strstr(w.err.msg, "spec.resources.gpu.quota");
		tl_free(&w);
		if (!ok) {
			fprintf(stderr, "quota '%s' accepted\n", bad[i]);
			ASSERT_TRUE(false);
		}
	}
	struct tl_world w;
	tl_init(&w);
	tl_queue(&w, &(struct tl_queue){ .name = "q", .weight = "nan" });
	int rc = tl_build(&w);
	tl_free(&w);
	ASSERT_EQ(GT_EINVAL, rc);
}

const struct gt_test gt_tests[] = {
	T(queue_quota_inf_nan_rejected),
	T(gpu_fraction_above_one),
	T(gpu_fraction_not_a_number),
	T(gpu_fraction_zero),
	T(fraction_and_memory_together),
	T(fraction_and_whole_gpu_together),
	T(gpu_memory_negative),
	T(bad_cpu_quantity),
	T(bad_memory_quantity),
	T(half_a_whole_gpu),
	T(podgroup_bad_preemptibility),
	T(queue_bad_quota),
	T(node_bad_allocatable),
	T(error_names_the_line),
	T(missing_queue_is_reported_on_the_job),
	T(missing_queue_of_a_bare_pod),
	T(queue_with_missing_parent),
	T(unknown_kinds_are_ignored_with_a_warning),
	T(bad_objects_are_reported_together),
	T(rejected_shard_changes_nothing),
	T(rejected_podgroup_leaves_its_pods_waiting),
	T(pods_being_bound_decode_binding),
	T(node_gpu_memory_label),
	T(pod_requests),
	T(priority_and_preemptibility),
	T(pod_states_from_the_manifest),
	T(subgroup_label_must_name_a_subgroup),
	T(sidecar_init_containers),
	T(init_containers_and_limits),
	T(stuck_in_releasing_by_threshold),
	T(min_subgroup_more_than_members),
	T(min_subgroup_without_subgroups),
	T(topology_alias_names_two_levels),
	T(queue_missing_keys_are_zero_as_in_kai),
	T(shard_actions_switch_off),
	T(shard_unknown_action),
	T(preferred_affinity_bad_weight),
	T(scheduling_shard),
	T(scheduling_shard_bad_strategy),
	T(scheduling_shard_bad_duration),
	T(duplicate_names),
	T(podgroup_needs_a_queue),
	{ 0 }
};
