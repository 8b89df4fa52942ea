/*
 * test_dra.c - DRA (resource.k8s.io/v1): decoding with messages naming object and field, claims
 * allocated on the node that has their devices, devices taken by other claims, shared claims
 * following their node, KAI's consumer limit and queue label, GPU claims in queue quotas, the
 * plan's claim allocations, template claims, stale pool generations
 */
#include "core/actions.h"
#include "core/dra.h"
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

/* A slice on @node of devices given as YAML ("{name: a, attributes: {...}}, ..."). */
static void slice_of(struct tl_world *w, const char *node, const char *devices)
{
	tl_yaml(w, "---\n{apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: %s-devs}, spec: {driver: "
		   "gpu.example.com, nodeName: %s, pool: {name: %s, generation: 1, resourceSliceCount: 1}, devices: [%s]}}\n",
		node, node, node, devices);
}

/* A claim with the YAML @devices as its spec.devices. */
static void claim_spec_of(struct tl_world *w, const char *name, const char *devices)
{
	tl_yaml(w, "---\n{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: %s, namespace: "
		   "default, labels: {kai.scheduler/queue: q}}, spec: {devices: %s}}\n", name, devices);
}

/* The same with @status as its status. */
static void claim_status_of(struct tl_world *w, const char *name, const char *devices, const char *status)
{
	tl_yaml(w, "---\n{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: %s, namespace: "
		   "default, labels: {kai.scheduler/queue: q}}, spec: {devices: %s}, status: %s}\n", name, devices, status);
}

/* The device names the plan allocates to claim @name, space-separated, into @out. */
static const char *plan_devices(const struct tl_world *w, const struct gt_plan *p, const char *name, char *out,
				size_t cap)
{
	out[0] = 0;
	for (uint32_t i = 0; i < p->n_claims; i++) {
		const struct gt_plan_claim *e = &p->claims[i];
		if (strcmp(gt_strtab_str(&w->names, w->c.dra.claims[e->claim].name), name))
			continue;
		for (uint32_t d = 0; d < e->n_devices; d++) {
			size_t n = strlen(out);
			snprintf(out + n, cap - n, "%s%s", n ? " " : "",
				 gt_strtab_str(&w->names, w->c.dra.devices[e->devices[d]].name));
		}
	}
	return out;
}

#define A100_ONLY "{requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, selectors: [{cel: " \
	"{expression: 'device.attributes[\"gpu.example.com\"].model == \"a100\"'}}]}}]}"

/* A request selector that keeps some of a node's devices: the devices are searched, with the others' claims. */
TEST(request_selector_splitting_a_node_is_searched)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 3, 1);	/* gpu-0 a100, gpu-1 and gpu-2 h100 */
	claim(&w, "any", 1, NULL);
	claim_spec_of(&w, "a100", A100_ONLY);
	claim_spec_of(&w, "a100-too", A100_ONLY);
	tl_pg(&w, &(struct tl_pg){ .name = "j1", .queue = "q" });
	claim_pod(&w, "first", "j1", "any", NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "j2", .queue = "q" });
	claim_pod(&w, "second", "j2", "a100", NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "j3", .queue = "q" });
	claim_pod(&w, "third", "j3", "a100-too", NULL);
	TL_BUILD(&w);
	ASSERT_EQ(0, w.dec.n_warnings);
	ASSERT_TRUE(w.c.dra.search && w.c.dra.claims[1].searched && !w.c.dra.claims[0].searched);
	tl_cycle(&w);
	ASSERT_STR("n1", tl_node_of(&w, "first"));
	ASSERT_STR("n1", tl_node_of(&w, "second"));
	/* one free device left by the counts, but it is an h100 */
	ASSERT_EQ(GT_PENDING, tl_status(&w, "third"));
	char why[300] = "";
	ASSERT_TRUE(!gt_dra_check(&w.s, tl_pod_idx(&w, "third"), tl_node_idx(&w, "n1"), why, sizeof(why)));
	ASSERT_CONTAINS(why, "no devices of the node satisfy");
	struct gt_plan plan;
	char got[200];
	gt_plan_build(&plan, &w.s, NULL);
	/* "first" came first, yet the only a100 goes to the claim that needs it */
	ASSERT_STR("gpu-1", plan_devices(&w, &plan, "any", got, sizeof(got)));
	ASSERT_STR("gpu-0", plan_devices(&w, &plan, "a100", got, sizeof(got)));
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(allocation_mode_all_takes_every_matching_device)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 3, 1);
	slice(&w, "n2-gpus", "n2", 2, 1);
	/* n2's gpu-1 is held: All cannot be had there */
	claim(&w, "held", 1, "status: {allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, "
		  "pool: n2, device: gpu-1}]}}, reservedFor: [{resource: pods, name: runner, uid: u1}]}");
	const char *all = "{requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, allocationMode: All}}]}";
	claim_spec_of(&w, "every", all);
	claim_spec_of(&w, "every-too", all);
	tl_pg(&w, &(struct tl_pg){ .name = "run", .queue = "q", .preemptibility = "non-preemptible" });
	claim_pod(&w, "runner", "run", "held", "n2");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "p", "j", "every", NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "k", .queue = "q" });
	claim_pod(&w, "r", "k", "every-too", NULL);
	TL_BUILD(&w);
	ASSERT_EQ(0, w.dec.n_warnings);
	/* KAI's bookkeeping: an All request counts one device (one GPU) until it is allocated */
	ASSERT_EQ(1, w.c.pods[tl_pod_idx(&w, "p")].ext[w.c.dra.classes[0].ext]);
	tl_cycle(&w);
	ASSERT_STR("n1", tl_node_of(&w, "p"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "r"));	/* n1 all taken, n2 has one held */
	struct gt_plan plan;
	char got[200];
	gt_plan_build(&plan, &w.s, NULL);
	ASSERT_STR("gpu-0 gpu-1 gpu-2", plan_devices(&w, &plan, "every", got, sizeof(got)));
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(allocated_all_claim_holds_all_its_devices)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 3, 1);
	claim_status_of(&w, "every", "{requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, allocationMode: "
			"All}}]}", "{allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, pool: n1, "
			"device: gpu-0}, {request: gpu, driver: gpu.example.com, pool: n1, device: gpu-1}, {request: gpu, "
			"driver: gpu.example.com, pool: n1, device: gpu-2}]}}, reservedFor: [{resource: pods, name: p, uid: u}]}");
	claim(&w, "one", 1, NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q", .preemptibility = "non-preemptible" });
	claim_pod(&w, "p", "j", "every", "n1");
	tl_pg(&w, &(struct tl_pg){ .name = "k", .queue = "q" });
	claim_pod(&w, "r", "k", "one", NULL);
	TL_BUILD(&w);
	ASSERT_EQ(3, w.c.pods[tl_pod_idx(&w, "p")].ext[w.c.dra.classes[0].ext]);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "r"));
	tl_free(&w);
}

#define NUMA_DEVICES "{name: g0, attributes: {numa: {int: 0}}}, {name: g1, attributes: {numa: {int: 1}}}, " \
	"{name: g2, attributes: {numa: {int: 1}}}, {name: g3, attributes: {model: {string: x}}}"

/* matchAttribute: the first device's value is kept while it can be; else the search backtracks. */
TEST(match_attribute_keeps_the_devices_together)
{
	struct tl_world w;
	frame(&w);
	slice_of(&w, "n1", NUMA_DEVICES);
	claim_spec_of(&w, "pair", "{requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, count: 2}}], "
		      "constraints: [{matchAttribute: gpu.example.com/numa}]}");
	claim_spec_of(&w, "pair-too", "{requests: [{name: a, exactly: {deviceClassName: gpu.example.com}}, {name: b, "
		      "exactly: {deviceClassName: gpu.example.com}}], constraints: [{requests: [a, b], matchAttribute: "
		      "gpu.example.com/numa}]}");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "p", "j", "pair", NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "k", .queue = "q" });
	claim_pod(&w, "r", "k", "pair-too", NULL);
	TL_BUILD(&w);
	ASSERT_EQ(0, w.dec.n_warnings);
	tl_cycle(&w);
	ASSERT_STR("n1", tl_node_of(&w, "p"));
	/* two devices free by the counts (g0, g3), but g3 has no numa and g0 is alone on its node */
	ASSERT_EQ(GT_PENDING, tl_status(&w, "r"));
	struct gt_plan plan;
	char got[200];
	gt_plan_build(&plan, &w.s, NULL);
	ASSERT_STR("g1 g2", plan_devices(&w, &plan, "pair", got, sizeof(got)));
	gt_plan_release(&plan);
	tl_free(&w);
}

/* The search stops after GT_DRA_SEARCH_STEPS candidates: no fit, said as such. */
TEST(device_search_is_bounded)
{
	struct tl_world w;
	frame(&w);
	char devs[8000] = "";
	for (int i = 0; i < 40; i++) {
		size_t n = strlen(devs);
		snprintf(devs + n, sizeof(devs) - n, "%s{name: g%d, attributes: {numa: {int: 0}, model: {string: a100}}}",
			 i ? ", " : "", i);
	}
	strcat(devs, ", {name: h, attributes: {numa: {int: 1}, model: {string: h100}}}");
	slice_of(&w, "n1", devs);
	/* ten a100s and the h100 on one numa node: every way of choosing the ten fails at the h100 */
	claim_spec_of(&w, "never", "{requests: [{name: a, exactly: {deviceClassName: gpu.example.com, count: 10, "
		      "selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].model == \"a100\"'}}]}}, "
		      "{name: h, exactly: {deviceClassName: gpu.example.com, selectors: [{cel: {expression: "
		      "'device.attributes[\"gpu.example.com\"].model == \"h100\"'}}]}}], constraints: [{matchAttribute: "
		      "gpu.example.com/numa}]}");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "p", "j", "never", NULL);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p"));
	char why[300] = "";
	ASSERT_TRUE(!gt_dra_check(&w.s, tl_pod_idx(&w, "p"), tl_node_idx(&w, "n1"), why, sizeof(why)));
	ASSERT_CONTAINS(why, "gave up after 20000 candidates");
	tl_free(&w);
}

/* firstAvailable: the first subrequest that can be had wins; results name "request/subrequest". */
TEST(first_available_takes_the_first_subrequest_that_fits)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 3, 1);
	claim_spec_of(&w, "flexible", "{requests: [{name: gpu, firstAvailable: [{name: eight, deviceClassName: "
		      "gpu.example.com, count: 8}, {name: h100s, deviceClassName: gpu.example.com, count: 2, selectors: "
		      "[{cel: {expression: 'device.attributes[\"gpu.example.com\"].model == \"h100\"'}}]}, {name: any, "
		      "deviceClassName: gpu.example.com}]}]}");
	claim_spec_of(&w, "then", "{requests: [{name: gpu, firstAvailable: [{name: two, deviceClassName: "
		      "gpu.example.com, count: 2}, {name: one, deviceClassName: gpu.example.com}]}]}");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "p", "j", "flexible", NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "k", .queue = "q" });
	claim_pod(&w, "r", "k", "then", NULL);
	TL_BUILD(&w);
	ASSERT_EQ(0, w.dec.n_warnings);
	/* KAI counts no device for a firstAvailable request until it is allocated */
	ASSERT_EQ(0, w.c.pods[tl_pod_idx(&w, "p")].ext[w.c.dra.classes[0].ext]);
	tl_cycle(&w);
	ASSERT_STR("n1", tl_node_of(&w, "p"));
	ASSERT_STR("n1", tl_node_of(&w, "r"));
	struct gt_plan plan;
	char got[200], name[100];
	gt_plan_build(&plan, &w.s, NULL);
	ASSERT_STR("gpu-1 gpu-2", plan_devices(&w, &plan, "flexible", got, sizeof(got)));
	ASSERT_STR("gpu-0", plan_devices(&w, &plan, "then", got, sizeof(got)));	/* two left none: one */
	for (uint32_t i = 0; i < plan.n_claims; i++) {
		const struct gt_plan_claim *e = &plan.claims[i];
		const struct gt_dra_claim *k = &w.c.dra.claims[e->claim];
		const char *want = e->claim == 0 ? "gpu/h100s" : "gpu/one";
		ASSERT_STR(want, gt_dra_result_name(&w.c, k, e->requests[0], e->alts[0], name, sizeof(name)));
	}
	gt_plan_release(&plan);
	tl_free(&w);
}

/* An allocation naming "request/subrequest" counts the subrequest's devices. */
TEST(allocated_subrequest_is_read)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 2, 1);
	claim_status_of(&w, "flexible", "{requests: [{name: gpu, firstAvailable: [{name: two, deviceClassName: "
			"gpu.example.com, count: 2}, {name: one, deviceClassName: gpu.example.com}]}]}", "{allocation: "
			"{devices: {results: [{request: gpu/one, driver: gpu.example.com, pool: n1, device: gpu-1}]}}, "
			"reservedFor: [{resource: pods, name: p, uid: u}]}");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q", .preemptibility = "non-preemptible" });
	claim_pod(&w, "p", "j", "flexible", "n1");
	TL_BUILD(&w);
	const struct gt_dra_claim *k = &w.c.dra.claims[0];
	ASSERT_EQ(1, k->n_alloc);
	ASSERT_EQ(1, k->alloc_alts[0]);
	ASSERT_EQ(1, w.c.pods[0].ext[w.c.dra.classes[0].ext]);
	tl_free(&w);
}

/* adminAccess: the device another claim holds is seen, not taken; the result says adminAccess. */
TEST(admin_access_sees_a_held_device)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 1, 1);
	claim(&w, "held", 1, "status: {allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, "
		  "pool: n1, device: gpu-0}]}}, reservedFor: [{resource: pods, name: runner, uid: u1}]}");
	claim_spec_of(&w, "monitor", "{requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, "
		      "adminAccess: true}}]}");
	tl_pg(&w, &(struct tl_pg){ .name = "run", .queue = "q", .preemptibility = "non-preemptible" });
	claim_pod(&w, "runner", "run", "held", "n1");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "m", "j", "monitor", NULL);
	TL_BUILD(&w);
	ASSERT_EQ(0, w.c.pods[tl_pod_idx(&w, "m")].ext[w.c.dra.classes[0].ext]);
	tl_cycle(&w);
	ASSERT_STR("n1", tl_node_of(&w, "m"));
	/* the counts ask nothing of it: the search keeps it off a node without the device */
	ASSERT_TRUE(!gt_dra_check(&w.s, tl_pod_idx(&w, "m"), tl_node_idx(&w, "n2"), NULL, 0));
	struct gt_plan plan;
	char got[200];
	gt_plan_build(&plan, &w.s, NULL);
	ASSERT_STR("gpu-0", plan_devices(&w, &plan, "monitor", got, sizeof(got)));
	const struct gt_plan_claim *e = &plan.claims[0];
	ASSERT_TRUE(w.c.dra.claims[e->claim].requests[e->requests[0]].alts[e->alts[0]].admin);
	gt_plan_release(&plan);
	tl_free(&w);
}

/* A network-attached pool: a slice of @devices ("{name: a}, ...") with @where (allNodes or nodeSelector). */
static void network_slice(struct tl_world *w, const char *name, const char *where, const char *devices)
{
	tl_yaml(w, "---\n{apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: %s}, spec: {driver: "
		   "gpu.example.com, %s, pool: {name: %s, generation: 1, resourceSliceCount: 1}, devices: [%s]}}\n",
		name, where, name, devices);
}

/* Network-attached devices: usable from the nodes their slice reaches, held across nodes. */
TEST(network_attached_pool_is_shared_by_its_nodes)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .labels = "zone: a" });
	tl_node(&w, &(struct tl_node){ .name = "n2", .labels = "zone: b" });
	tl_node(&w, &(struct tl_node){ .name = "n3", .labels = "zone: b" });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .quota = "-1" });
	tl_yaml(&w, CLASS);
	network_slice(&w, "fabric", "allNodes: true", "{name: net-0}");
	network_slice(&w, "zone-b", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, "
		      "values: [b]}], matchFields: [{key: metadata.name, operator: NotIn, values: [n3]}]}]}",
		      "{name: b-0, attributes: {model: {string: h100}}}");
	claim(&w, "first", 1, NULL);
	claim(&w, "second", 1, NULL);
	claim_spec_of(&w, "zoned", "{requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, selectors: [{cel: "
		      "{expression: 'device.attributes[\"gpu.example.com\"].model == \"h100\"'}}]}}]}");
	tl_pg(&w, &(struct tl_pg){ .name = "j1", .queue = "q" });
	claim_pod(&w, "z", "j1", "zoned", NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "j2", .queue = "q" });
	claim_pod(&w, "p", "j2", "first", NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "j3", .queue = "q" });
	claim_pod(&w, "r", "j3", "second", NULL);
	TL_BUILD(&w);
	ASSERT_EQ(0, w.dec.n_warnings);
	ASSERT_EQ(2, w.c.dra.n_reaches);
	ASSERT_TRUE(w.c.dra.claims[0].network && w.c.dra.claims[0].searched);
	/* the node columns count what each node reaches */
	int32_t e = w.c.dra.classes[0].ext;
	ASSERT_EQ(1, w.c.nodes[tl_node_idx(&w, "n1")].ext[e]);
	ASSERT_EQ(2, w.c.nodes[tl_node_idx(&w, "n2")].ext[e]);
	ASSERT_EQ(1, w.c.nodes[tl_node_idx(&w, "n3")].ext[e]);
	tl_cycle(&w);
	ASSERT_STR("n2", tl_node_of(&w, "z"));	/* zone b, and not n3 */
	ASSERT_TRUE(tl_node_of(&w, "p") != NULL);
	/* the fabric's one device is p's, whichever node r would go to */
	ASSERT_EQ(GT_PENDING, tl_status(&w, "r"));
	struct gt_plan plan;
	char got[200];
	gt_plan_build(&plan, &w.s, NULL);
	ASSERT_STR("b-0", plan_devices(&w, &plan, "zoned", got, sizeof(got)));
	ASSERT_STR("net-0", plan_devices(&w, &plan, "first", got, sizeof(got)));
	gt_plan_release(&plan);
	tl_free(&w);
}

/* The plan searches claims on different nodes together when network-attached devices tie them. */
TEST(plan_searches_across_nodes_for_network_devices)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .labels = "pin: one" });
	tl_node(&w, &(struct tl_node){ .name = "n2", .labels = "pin: two" });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .quota = "-1" });
	tl_yaml(&w, CLASS);
	/* the fabric's device comes first in slice order: n1's claim would take it first */
	network_slice(&w, "fabric", "allNodes: true", "{name: net-0, attributes: {kind: {string: net}}}");
	slice_of(&w, "n1", "{name: gpu-0, attributes: {kind: {string: local}}}");
	claim(&w, "a", 1, NULL);
	claim_spec_of(&w, "b", "{requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, selectors: [{cel: "
		      "{expression: 'device.attributes[\"gpu.example.com\"].kind == \"net\"'}}]}}]}");
	tl_pg(&w, &(struct tl_pg){ .name = "ja", .queue = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "pa", .pg = "ja", .queue = "q",
				     .spec = "nodeSelector: {pin: one}, resourceClaims: [{name: gpu, resourceClaimName: a}]" });
	tl_pg(&w, &(struct tl_pg){ .name = "jb", .queue = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "pb", .pg = "jb", .queue = "q",
				     .spec = "nodeSelector: {pin: two}, resourceClaims: [{name: gpu, resourceClaimName: b}]" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_STR("n1", tl_node_of(&w, "pa"));
	ASSERT_STR("n2", tl_node_of(&w, "pb"));
	struct gt_plan plan;
	char got[200];
	gt_plan_build(&plan, &w.s, NULL);
	ASSERT_STR("gpu-0", plan_devices(&w, &plan, "a", got, sizeof(got)));
	ASSERT_STR("net-0", plan_devices(&w, &plan, "b", got, sizeof(got)));
	for (uint32_t i = 0; i < plan.n_claims; i++)
		ASSERT_TRUE(!plan.claims[i].short_of_devices);
	gt_plan_release(&plan);
	tl_free(&w);
}

/* A claim allocated network-attached devices goes where they can be used; its devices stay taken. */
TEST(allocated_network_claim_follows_its_reach)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .labels = "zone: a" });
	tl_node(&w, &(struct tl_node){ .name = "n2", .labels = "zone: b" });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .quota = "-1" });
	tl_yaml(&w, CLASS);
	network_slice(&w, "zone-b", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, "
		      "values: [b]}]}]}", "{name: b-0}");
	claim(&w, "shared", 1, "status: {allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, pool: "
	      "zone-b, device: b-0}]}, nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, "
	      "values: [b]}]}]}}}");
	claim(&w, "other", 1, NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "a", "j", "shared", NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "k", .queue = "q" });
	claim_pod(&w, "b", "k", "other", NULL);
	TL_BUILD(&w);
	ASSERT_EQ(0, w.dec.n_warnings);
	tl_cycle(&w);
	ASSERT_STR("n2", tl_node_of(&w, "a"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "b"));
	char why[300] = "";
	ASSERT_TRUE(!gt_dra_check(&w.s, tl_pod_idx(&w, "a"), tl_node_idx(&w, "n1"), why, sizeof(why)));
	ASSERT_CONTAINS(why, "allocated devices node n1 cannot reach");
	tl_free(&w);
}

/* What Gantry does not act on waits with a reason: a constraint other than matchAttribute. */
TEST(unknown_constraint_waits_with_a_reason)
{
	struct tl_world w;
	frame(&w);
	slice(&w, "n1-gpus", "n1", 2, 1);
	claim_spec_of(&w, "odd", "{requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, count: 2}}], "
		      "constraints: [{distinctAttribute: gpu.example.com/index}]}");
	tl_pg(&w, &(struct tl_pg){ .name = "j", .queue = "q" });
	claim_pod(&w, "p", "j", "odd", NULL);
	TL_BUILD(&w);
	ASSERT_TRUE(warned(&w, "pod p cannot be scheduled: resource claim odd: a constraint other than matchAttribute"));
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p"));
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
	T(request_selector_splitting_a_node_is_searched),
	T(allocation_mode_all_takes_every_matching_device),
	T(allocated_all_claim_holds_all_its_devices),
	T(match_attribute_keeps_the_devices_together),
	T(device_search_is_bounded),
	T(first_available_takes_the_first_subrequest_that_fits),
	T(allocated_subrequest_is_read),
	T(admin_access_sees_a_held_device),
	T(unknown_constraint_waits_with_a_reason),
	T(network_attached_pool_is_shared_by_its_nodes),
	T(allocated_network_claim_follows_its_reach),
	T(plan_searches_across_nodes_for_network_devices),
	T(request_selector_keeping_whole_nodes_limits_the_nodes),
	T(selector_that_does_not_compile_selects_nothing),
	T(stale_pool_generation_is_left_out),
	T(template_claim_made_when_no_controller_runs),
	T(template_claim_not_made_yet_waits),
	T(extended_resource_backed_by_a_device_class),
	{ 0 }
};
