/*
 * test_dra.c - DRA (resource.k8s.io/v1): decoding with messages naming object and field, claims
 * allocated on the node that has their devices, devices taken by other claims, shared claims
 * following their node, KAI's consumer limit and queue label, GPU claims in queue quotas, the
 * plan's claim allocations, template claims, stale pool generations
 */
#include "core/actions.h"
#include "core/plan.h"
#include "testlib.h"

const char *gt_suite = "dra";

#define CLASS "---\n{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: gpu.example.com}, " \
	"spec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]}}\n"

/* A slice of @n devices "gpu-0".. on @node (pool @node, generation @gen). */
static void slice(struct tl_world *w, const char *name, const char *node, int n, int gen)
{
	tl_yaml(w, "---\n{apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: %s}, spec: {driver: "
		   "gpu.example.com, nodeName: %s, pool: {name: %s, generation: %d, resourceSliceCount: 1}, devices: [",
		name, node, node, gen);
	for (int i = 0; i < n; i++)
		tl_yaml(w, "%s{name: gpu-%d, attributes: {index: {int: %d}, model: {string: %s}}, capacity: {memory: "
			   "{value: 40Gi}}}", i ? ", " : "", i, i, i == 0 ? "a100" : "h100");
	tl_yaml(w, "]}}\n");
}

/* A claim of @count devices of the class, request "gpu", queue label q; @more: more of its YAML. */
static void claim(struct tl_world *w, const char *name, int count, const char *more)
{
	tl_yaml(w, "---\n{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: %s, namespace: "
		   "default, labels: {kai.scheduler/queue: q}}, spec: {devices: {requests: [{name: gpu, exactly: "
		   "{deviceClassName: gpu.example.com, allocationMode: ExactCount, count: %d}}]}}%s%s}\n",
		name, count, more ? ", " : "", more ? more : "");
}

/* A pod of job @pg in queue q using claim @c (@tmpl: from that template instead). */
static void claim_pod(struct tl_world *w, const char *name, const char *pg, const char *c, const char *node)
{
	char spec[300];
	snprintf(spec, sizeof(spec), "resourceClaims: [{name: gpu, resourceClaimName: %s}]", c);
	tl_pod(w, &(struct tl_pod){ .name = name, .pg = pg, .queue = "q", .spec = spec, .node = node });
}

static void frame(struct tl_world *w)
{
	tl_init(w);
	tl_node(w, &(struct tl_node){ .name = "n1" });
	tl_node(w, &(struct tl_node){ .name = "n2" });
	tl_queue(w, &(struct tl_queue){ .name = "q", .quota = "-1" });
	tl_yaml(w, CLASS);
}

static bool warned(const struct tl_world *w, const char *text)
{
	for (size_t i = 0; i < w->dec.n_warnings; i++)
		if (strstr(w->dec.warnings[i], text))
			return true;
	return false;
}

/* Rejections name the object and the field. */
static void expect_rejection(const char *extra, const char *field)
{
	struct tl_world w;
	frame(&w);
	tl_yaml(&w, "%s", extra);
	int rc = tl_build(&w);
	bool ok = rc == GT_EINVAL && w.dec.n_rejections == 1 && strstr(w.err.msg, field);
	if (!ok)
		fprintf(stderr, "rc %d, %zu rejections, \"%s\"; expected field %s\n", rc, w.dec.n_rejections, w.err.msg,
			field);
	tl_free(&w);
	ASSERT_TRUE(ok);
}

TEST(malformed_objects_are_rejected_naming_the_field)
{
	expect_rejection("---\n{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c, namespace: "
			 "default}, spec: {devices: {requests: [{exactly: {deviceClassName: x}}]}}}\n",
			 "spec.devices.requests[0].name");
	expect_rejection("---\n{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c, namespace: "
			 "default}, spec: {devices: {requests: [{name: r, exactly: {deviceClassName: x, count: 0}}]}}}\n",
			 "spec.devices.requests[0].exactly.count");
	expect_rejection("---\n{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c, namespace: "
			 "default}, spec: {devices: {requests: [{name: r, exactly: {deviceClassName: x, allocationMode: "
			 "Some}}]}}}\n", "spec.devices.requests[0].exactly.allocationMode");
	expect_rejection("---\n{apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: s}, spec: "
			 "{nodeName: n1, pool: {name: p}}}\n", "ResourceSlice s: field spec.driver");
	expect_rejection("---\n{apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: s}, spec: "
			 "{driver: d, nodeName: n1, pool: {name: p}, devices: [{name: a, attributes: {x: {float: 1}}}]}}\n",
			 "spec.devices[0].attributes.x");
	expect_rejection("---\n{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default}, spec: "
			 "{schedulerName: kai-scheduler, resourceClaims: [{name: g, resourceClaimName: a, "
			 "resourceClaimTemplateName: b}], containers: [{name: c}]}}\n", "spec.resourceClaims[0]");
	expect_rejection("---\n{apiVersion: resource.k8s.io/v1alpha3, kind: DeviceClass, metadata: {name: old}}\n",
			 "apiVersion");
}

TEST(claim_is_allocated_where_its_devices_are)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n2-gpus", "n2", 2, 1);
	claim(&w, "c1", 2, NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "p", "j", "c1", NULL);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_STR("n2", tl_node_of(&w, "p"));
	struct gt_plan plan;
	gt_plan_build(&plan, &w.s, NULL);
	ASSERT_EQ(1, plan.n_claims);
	const struct gt_plan_claim *e = &plan.claims[0];
	ASSERT_TRUE(e->allocate && !e->short_of_devices);
	ASSERT_EQ(2, e->n_devices);
	ASSERT_STR("gpu-0", gt_strtab_str(&w.names, w.c.dra.devices[e->devices[0]].name));
	ASSERT_STR("gpu-1", gt_strtab_str(&w.names, w.c.dra.devices[e->devices[1]].name));
	ASSERT_EQ(1, e->n_pods);
	ASSERT_EQ(tl_pod_idx(&w, "p"), e->pods[0]);
	/* a GPU class: the claim's devices count as GPUs in the queue */
	ASSERT_EQ(2000, w.s.queues[tl_queue_idx(&w, "q")].allocated[GT_QGPU]);
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(devices_of_an_allocated_claim_are_taken)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 1, 1);
	claim(&w, "held", 1, "status: {allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, "
		  "pool: n1, device: gpu-0}]}}, reservedFor: [{resource: pods, name: runner, uid: u1}]}");
	claim(&w, "wanted", 1, NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "run", .queue = "q", .preemptibility = "non-preemptible" });
	claim_pod(&w, "runner", "run", "held", "n1");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "p", "j", "wanted", NULL);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p"));
	ASSERT_CONTAINS(tl_msg(&w, "j"), "enough free devices for the pod's resource claims");
	tl_free(&w);
}

TEST(shared_claim_goes_where_it_is_allocated)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 1, 1);
	slice(&w, "n2-gpus", "n2", 1, 1);
	/* allocated on n1, its first consumer gone: its device stays taken, a new consumer follows it */
	claim(&w, "shared", 1, "status: {allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, "
		  "pool: n1, device: gpu-0}]}}}");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q", .min = 2 });
	claim_pod(&w, "a", "j", "shared", NULL);
	claim_pod(&w, "b", "j", "shared", NULL);
	TL_BUILD(&w);
	ASSERT_EQ(0, w.c.nodes[tl_node_idx(&w, "n1")].ext[w.c.dra.classes[0].ext]);
	tl_cycle(&w);
	ASSERT_STR("n1", tl_node_of(&w, "a"));
	ASSERT_STR("n1", tl_node_of(&w, "b"));
	struct gt_plan plan;
	gt_plan_build(&plan, &w.s, NULL);
	ASSERT_EQ(1, plan.n_claims);
	ASSERT_TRUE(!plan.claims[0].allocate);
	ASSERT_EQ(2, plan.claims[0].n_pods);	/* reservedFor gets both */
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(unallocated_shared_claim_is_allocated_once)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 1, 1);
	slice(&w, "n2-gpus", "n2", 1, 1);
	claim(&w, "shared", 1, NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q", .min = 2 });
	claim_pod(&w, "a", "j", "shared", NULL);
	claim_pod(&w, "b", "j", "shared", NULL);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_TRUE(tl_node_of(&w, "a") && tl_node_of(&w, "b"));
	ASSERT_STR(tl_node_of(&w, "a"), tl_node_of(&w, "b"));
	/* one device for both, counted once in the queue */
	ASSERT_EQ(1000, w.s.queues[tl_queue_idx(&w, "q")].allocated[GT_QGPU]);
	tl_free(&w);
}

TEST(claim_at_its_consumer_limit_waits)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 1, 1);
	char status[256 * 48 + 200];
	size_t n = (size_t)snprintf(status, sizeof(status), "status: {allocation: {devices: {results: [{request: gpu, "
				    "driver: gpu.example.com, pool: n1, device: gpu-0}]}}, reservedFor: [");
	for (int i = 0; i < 256; i++)
		n += (size_t)snprintf(status + n, sizeof(status) - n, "%s{resource: pods, name: o%d, uid: u%d}",
				      i ? ", " : "", i, i);
	snprintf(status + n, sizeof(status) - n, "]}");
	claim(&w, "full", 1, status);
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "p", "j", "full", NULL);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p"));
	ASSERT_CONTAINS(tl_msg(&w, "j"), "resource claims");
	char why[256];
	ASSERT_TRUE(!gt_dra_check(&w.s, tl_pod_idx(&w, "p"), tl_node_idx(&w, "n1"), why, sizeof(why)));
	ASSERT_CONTAINS(why, "maximum number of consumers (256)");
	tl_free(&w);
}

TEST(shared_gpu_claim_of_another_queue_is_refused)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 1, 1);
	tl_yaml(&w, "---\n{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: other, namespace: "
		    "default, labels: {kai.scheduler/queue: elsewhere}}, spec: {devices: {requests: [{name: gpu, "
		    "exactly: {deviceClassName: gpu.example.com}}]}}}\n");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "p", "j", "other", NULL);
	TL_BUILD(&w);
	ASSERT_TRUE(warned(&w, "DRA claim other is a shared GPU claim with wrong queue label (expected queue: q, "
			   "claim queue label: elsewhere)"));
	tl_cycle_mask(&w, GT_ACTIONS_ALL);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p"));
	/* KAI's pre-filter words on the job, before any node is looked at */
	ASSERT_STR("Resources were not found for pod default/p due to: pod default/p cannot be scheduled: DRA claim "
		   "other is a shared GPU claim with wrong queue label (expected queue: q, claim queue label: elsewhere)",
		   tl_msg(&w, "j"));
	tl_free(&w);
}

TEST(what_gantry_cannot_model_waits_with_a_reason)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 2, 1);
	/* a request selector that keeps only some of the class's devices */
	tl_yaml(&w, "---\n{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: h100, namespace: "
		    "default, labels: {kai.scheduler/queue: q}}, spec: {devices: {requests: [{name: gpu, exactly: "
		    "{deviceClassName: gpu.example.com, selectors: [{cel: {expression: "
		    "'device.attributes[\"gpu.example.com\"].model == \"h100\"'}}]}}]}}}\n");
	tl_yaml(&w, "---\n{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: pair, namespace: "
		    "default, labels: {kai.scheduler/queue: q}}, spec: {devices: {requests: [{name: gpu, exactly: "
		    "{deviceClassName: gpu.example.com, count: 2}}], constraints: [{matchAttribute: "
		    "gpu.example.com/model}]}}}\n");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "p", "j", "h100", NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "k", .queue = "q" });
	claim_pod(&w, "r", "k", "pair", NULL);
	TL_BUILD(&w);
	ASSERT_TRUE(warned(&w, "pod p cannot be scheduled: resource claim h100: a request whose selectors keep some "
			   "but not all of a node's devices"));
	ASSERT_TRUE(warned(&w, "pod r cannot be scheduled: resource claim pair: constraints (matchAttribute) are "
			   "not supported"));
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "r"));
	tl_free(&w);
}

TEST(request_selector_keeping_whole_nodes_limits_the_nodes)
{
	struct tl_world w;
	frame(&w);
	/* n1's devices are all "a100" (gpu-0 of each slice), n2's slice has an h100 too: keep n1 only */
	slice(&w, "n1-gpus", "n1", 1, 1);
	slice(&w, "n2-gpus", "n2", 1, 1);
	tl_yaml(&w, "---\n{apiVersion: v1, kind: Node, metadata: {name: n3}, status: {allocatable: {cpu: '64', memory: "
		    "512Gi, pods: '110'}, conditions: [{type: Ready, status: 'True'}]}}\n");
	tl_yaml(&w, "---\n{apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: n3-gpus}, spec: {driver: "
		    "gpu.example.com, nodeName: n3, pool: {name: n3}, devices: [{name: h-0, attributes: {model: {string: "
		    "h100}}}, {name: h-1, attributes: {model: {string: h100}}}]}}\n");
	tl_yaml(&w, "---\n{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: h100, namespace: "
		    "default, labels: {kai.scheduler/queue: q}}, spec: {devices: {requests: [{name: gpu, exactly: "
		    "{deviceClassName: gpu.example.com, count: 1, selectors: [{cel: {expression: "
		    "'device.attributes[\"gpu.example.com\"].model == \"h100\"'}}]}}]}}}\n");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "p", "j", "h100", NULL);
	TL_BUILD(&w);
	ASSERT_TRUE(w.c.dra.claims[0].requests[0].node_limited);
	ASSERT_EQ(1, w.c.dra.claims[0].requests[0].n_nodes);
	tl_cycle(&w);
	ASSERT_STR("n3", tl_node_of(&w, "p"));
	struct gt_plan plan;
	gt_plan_build(&plan, &w.s, NULL);
	ASSERT_EQ(1, plan.n_claims);
	ASSERT_EQ(1, plan.claims[0].n_devices);	/* n1 and n2 have a free device too, of the wrong model */
	ASSERT_STR("h-0", gt_strtab_str(&w.names, w.c.dra.devices[plan.claims[0].devices[0]].name));
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(selector_that_does_not_compile_selects_nothing)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 1, 1);
	tl_yaml(&w, "---\n{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: odd}, spec: "
		    "{selectors: [{cel: {expression: 'device.driver.frobnicate()'}}]}}\n");
	tl_yaml(&w, "---\n{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c, namespace: "
		    "default}, spec: {devices: {requests: [{name: x, exactly: {deviceClassName: odd}}]}}}\n");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "p", "j", "c", NULL);
	TL_BUILD(&w);
	ASSERT_TRUE(warned(&w, "DeviceClass odd: field spec.selectors[0].cel.expression: selector"));
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p"));
	tl_free(&w);
}

TEST(stale_pool_generation_is_left_out)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "old", "n1", 2, 1);
	slice(&w, "new", "n1", 1, 2);
	claim(&w, "c1", 2, NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "p", "j", "c1", NULL);
	TL_BUILD(&w);
	ASSERT_EQ(1, w.c.nodes[tl_node_idx(&w, "n1")].ext[w.c.dra.classes[0].ext]);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p"));
	tl_free(&w);
}

TEST(template_claim_made_when_no_controller_runs)
{
	struct tl_world w;
	frame(&w);
	w.dec.dra_make_claims = true;
	slice(&w, "n1-gpus", "n1", 1, 1);
	tl_yaml(&w, "---\n{apiVersion: resource.k8s.io/v1, kind: ResourceClaimTemplate, metadata: {name: one-gpu, "
		    "namespace: default}, spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: "
		    "gpu.example.com}}]}}}}\n");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "p", .pg = "j", .queue = "q",
				     .spec = "resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]" });
	TL_BUILD(&w);
	ASSERT_EQ(1, w.c.dra.n_claims);
	const char *name = gt_strtab_str(&w.names, w.c.dra.claims[0].name);
	ASSERT_TRUE(!strncmp(name, "p-gpu-", 6) && strlen(name) == 11);
	ASSERT_TRUE(w.c.dra.claims[0].from_template);
	tl_cycle(&w);
	ASSERT_STR("n1", tl_node_of(&w, "p"));
	tl_free(&w);
}

TEST(template_claim_not_made_yet_waits)
{
	struct tl_world w;
	frame(&w);
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "p", .pg = "j", .queue = "q",
				     .spec = "resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]" });
	TL_BUILD(&w);
	ASSERT_TRUE(warned(&w, "from ResourceClaimTemplate one-gpu is not made yet"));
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p"));
	tl_free(&w);
}

TEST(extended_resource_backed_by_a_device_class)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1" });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .quota = "-1" });
	tl_yaml(&w, "---\n{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: gpu.example.com}, spec: "
		    "{extendedResourceName: example.com/gpu, selectors: [{cel: {expression: "
		    "'device.driver == \"gpu.example.com\"'}}]}}\n");
	slice(&w, "n1-gpus", "n1", 2, 1);
	const char *const pods[][3] = { { "p", "j", "2" }, { "r", "k", "1" } };
	for (int i = 0; i < 2; i++) {
		tl_pg(&w, &(struct tl_pg){ .name = pods[i][1], .queue = "q" });
		tl_yaml(&w, "---\n{apiVersion: v1, kind: Pod, metadata: {name: %s, namespace: default, creationTimestamp: "
			    "'2026-01-01T00:00:00Z', annotations: {pod-group-name: %s}}, spec: {schedulerName: "
			    "kai-scheduler, containers: [{name: main, resources: {requests: {cpu: '1', example.com/gpu: "
			    "'%s'}}}]}, status: {phase: Pending}}\n", pods[i][0], pods[i][1], pods[i][2]);
	}
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_STR("n1", tl_node_of(&w, "p"));	/* the node lists no example.com/gpu: its 2 devices lend it */
	ASSERT_EQ(GT_PENDING, tl_status(&w, "r"));
	tl_free(&w);
}

const struct gt_test gt_tests[] = {
	T(malformed_objects_are_rejected_naming_the_field),
	T(claim_is_allocated_where_its_devices_are),
	T(devices_of_an_allocated_claim_are_taken),
	T(shared_claim_goes_where_it_is_allocated),
	T(unallocated_shared_claim_is_allocated_once),
	T(claim_at_its_consumer_limit_waits),
	T(shared_gpu_claim_of_another_queue_is_refused),
	T(what_gantry_cannot_model_waits_with_a_reason),
	T(request_selector_keeping_whole_nodes_limits_the_nodes),
	T(selector_that_does_not_compile_selects_nothing),
	T(stale_pool_generation_is_left_out),
	T(template_claim_made_when_no_controller_runs),
	T(template_claim_not_made_yet_waits),
	T(extended_resource_backed_by_a_device_class),
	{ 0 }
};
