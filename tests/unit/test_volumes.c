/*
 * test_volumes.c - volume binding (core/volumes.h): bound claims follow their
 * volume's node affinity, WaitForFirstConsumer claims find a static volume or
 * a provisioner with room where the pod goes, Immediate claims wait, and the
 * cycle books what it decided across pods and takes it back on rollback
 */
#include "core/plan.h"
#include "core/volumes.h"
#include "testlib.h"

const char *gt_suite = "volumes";

static void world(struct tl_world *w)
{
	tl_init(w);
	w->dec.claims_listed = true;
	tl_node(w, &(struct tl_node){ .name = "node-a", .labels = "zone: a, kubernetes.io/hostname: node-a" });
	tl_node(w, &(struct tl_node){ .name = "node-b", .labels = "zone: b, kubernetes.io/hostname: node-b" });
	tl_node(w, &(struct tl_node){ .name = "node-c", .labels = "zone: b, kubernetes.io/hostname: node-c" });
	tl_queue(w, &(struct tl_queue){ .name = "q" });
	tl_yaml(w, "---\n{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: local}, "
		   "provisioner: kubernetes.io/no-provisioner, volumeBindingMode: WaitForFirstConsumer}\n"
		   "---\n{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: fast}, "
		   "provisioner: fast.csi, volumeBindingMode: WaitForFirstConsumer}\n"
		   "---\n{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: standard}, "
		   "provisioner: std.csi, volumeBindingMode: Immediate}\n"
		   "---\n{apiVersion: storage.k8s.io/v1, kind: CSIDriver, metadata: {name: fast.csi}, "
		   "spec: {storageCapacity: true}}\n");
}

static void pv(struct tl_world *w, const char *name, const char *cls, const char *size, const char *host,
	       const char *extra)
{
	tl_yaml(w, "---\n{apiVersion: v1, kind: PersistentVolume, metadata: {name: %s}, spec: {storageClassName: %s, "
		   "capacity: {storage: %s}%s%s%s%s}, status: {phase: Available}}\n",
		name, cls, size, host ? ", nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: "
					  "[{key: kubernetes.io/hostname, operator: In, values: ["
				      : "",
		host ? host : "", host ? "]}]}]}}" : "", extra ? extra : "");
}

static void pvc(struct tl_world *w, const char *name, const char *cls, const char *size, const char *extra_spec,
		const char *annotations)
{
	tl_yaml(w, "---\n{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: %s, namespace: default, "
		   "annotations: {%s}}, spec: {storageClassName: %s, resources: {requests: {storage: %s}}%s%s}}\n",
		name, annotations ? annotations : "", cls, size, extra_spec ? ", " : "", extra_spec ? extra_spec : "");
}

static void pod_with(struct tl_world *w, const char *name, const char *claim)
{
	char spec[300];
	snprintf(spec, sizeof(spec), "volumes: [{name: data, persistentVolumeClaim: {claimName: %s}}]", claim);
	tl_pod(w, &(struct tl_pod){ .name = name, .queue = "q", .spec = spec });
}

static enum gt_reject check_on(struct tl_world *w, const char *pod, const char *node)
{
	return gt_volumes_check(&w->s, tl_pod_idx(w, pod), tl_node_idx(w, node));
}

TEST(bound_claim_follows_its_volume)
{
	struct tl_world w;
	world(&w);
	pv(&w, "pv-b", "local", "10Gi", "node-b", ", claimRef: {namespace: default, name: data}");
	pvc(&w, "data", "local", "5Gi", "volumeName: pv-b", NULL);
	pod_with(&w, "p", "data");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(GT_REJECT_VOLUME_NODE_CONFLICT, check_on(&w, "p", "node-a"));
	ASSERT_EQ(GT_REJECT_NONE, check_on(&w, "p", "node-b"));
	tl_cycle(&w);
	ASSERT_STR("node-b", tl_node_of(&w, "p"));
	/* bound: nothing to write, nothing to wait for */
	struct gt_plan plan;
	gt_plan_build(&plan, &w.s, NULL);
	ASSERT_EQ(0, plan.n_volumes);
	ASSERT_TRUE(!gt_pod_volumes_unbound(&w.c, tl_pod_idx(&w, "p")));
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(claim_bound_to_a_missing_volume_fits_nowhere)
{
	struct tl_world w;
	world(&w);
	pvc(&w, "data", "local", "5Gi", "volumeName: gone", NULL);
	pod_with(&w, "p", "data");
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p"));
	ASSERT_TRUE(strstr(tl_msg(&w, "p"), "3 node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"));
	tl_free(&w);
}

TEST(static_volumes_smallest_first_one_claim_each)
{
	struct tl_world w;
	world(&w);
	pv(&w, "big", "local", "50Gi", "node-a", NULL);
	pv(&w, "small", "local", "10Gi", "node-a", NULL);
	pv(&w, "tiny", "local", "1Gi", "node-b", NULL);	/* too small */
	pvc(&w, "c1", "local", "5Gi", NULL, NULL);
	pvc(&w, "c2", "local", "5Gi", NULL, NULL);
	pvc(&w, "c3", "local", "5Gi", NULL, NULL);
	pod_with(&w, "p1", "c1");
	pod_with(&w, "p2", "c2");
	pod_with(&w, "p3", "c3");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(GT_REJECT_VOLUME_BIND_CONFLICT, check_on(&w, "p1", "node-b"));
	tl_cycle(&w);
	ASSERT_STR("node-a", tl_node_of(&w, "p1"));
	ASSERT_STR("node-a", tl_node_of(&w, "p2"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p3"));
	ASSERT_TRUE(strstr(tl_msg(&w, "p3"), "node(s) didn't find available persistent volumes to bind") != NULL);
	/* the plan writes each claim's volume once, the smaller to the first pod */
	struct gt_plan plan;
	gt_plan_build(&plan, &w.s, NULL);
	ASSERT_EQ(2, plan.n_volumes);
	ASSERT_STR("small", gt_strtab_str(&w.names, w.c.pvs[plan.volumes[0].pv].name));
	ASSERT_STR("big", gt_strtab_str(&w.names, w.c.pvs[plan.volumes[1].pv].name));
	ASSERT_TRUE(gt_pod_volumes_unbound(&w.c, tl_pod_idx(&w, "p1")));
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(prebound_volume_first_and_no_write)
{
	struct tl_world w;
	world(&w);
	pv(&w, "any", "local", "10Gi", "node-a", NULL);
	pv(&w, "mine", "local", "10Gi", "node-c", ", claimRef: {namespace: default, name: c1}");
	pvc(&w, "c1", "local", "5Gi", NULL, NULL);
	pod_with(&w, "p1", "c1");
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_STR("node-c", tl_node_of(&w, "p1"));
	struct gt_plan plan;
	gt_plan_build(&plan, &w.s, NULL);
	ASSERT_EQ(0, plan.n_volumes);	/* its claimRef is written: the PV controller binds them */
	gt_plan_release(&plan);
	tl_free(&w);
}

TEST(provisioning_follows_allowed_topologies_and_selected_node)
{
	struct tl_world w;
	world(&w);
	tl_yaml(&w, "---\n{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: zonal}, "
		    "provisioner: zonal.csi, volumeBindingMode: WaitForFirstConsumer, allowedTopologies: "
		    "[{matchLabelExpressions: [{key: zone, values: [b]}]}]}\n");
	pvc(&w, "c1", "zonal", "5Gi", NULL, NULL);
	pvc(&w, "c2", "zonal", "5Gi", NULL, "volume.kubernetes.io/selected-node: node-c");
	pod_with(&w, "p1", "c1");
	pod_with(&w, "p2", "c2");
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(GT_REJECT_VOLUME_BIND_CONFLICT, check_on(&w, "p1", "node-a"));
	ASSERT_EQ(GT_REJECT_NONE, check_on(&w, "p1", "node-b"));
	ASSERT_EQ(GT_REJECT_VOLUME_BIND_CONFLICT, check_on(&w, "p2", "node-b"));
	tl_cycle(&w);
	ASSERT_STR("node-b", tl_node_of(&w, "p1"));
	ASSERT_STR("node-c", tl_node_of(&w, "p2"));
	struct gt_plan plan;
	gt_plan_build(&plan, &w.s, NULL);
	/* c1 gets its selected node; c2's provisioning has begun: nothing more to write */
	ASSERT_EQ(1, plan.n_volumes);
	ASSERT_EQ(GT_NONE, plan.volumes[0].pv);
	ASSERT_STR("node-b", gt_strtab_str(&w.names, w.c.nodes[plan.volumes[0].node].name));
	gt_plan_release(&plan);
	tl_free(&w);
}

static void capacity_world(struct tl_world *w, bool booked)
{
	world(w);
	if (booked)
		tl_yaml(w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default}, "
			   "spec: {args: {schedule-csi-storage: 'true'}}}\n");
	tl_yaml(w, "---\n{apiVersion: storage.k8s.io/v1, kind: CSIStorageCapacity, metadata: {name: cap-a, "
		   "namespace: kube-system}, storageClassName: fast, capacity: 100Gi, nodeTopology: "
		   "{matchLabels: {zone: a}}}\n");
	pvc(w, "c1", "fast", "80Gi", NULL, NULL);
	pvc(w, "c2", "fast", "80Gi", NULL, NULL);
	pod_with(w, "p1", "c1");
	pod_with(w, "p2", "c2");
}

TEST(capacity_booked_across_pods_with_schedule_csi_storage)
{
	struct tl_world w;
	capacity_world(&w, true);
	TL_BUILD(&w);
	ASSERT_TRUE(w.c.config.csi_storage);
	tl_open(&w);
	/* zone b reports no capacity of the class */
	ASSERT_EQ(GT_REJECT_VOLUME_SPACE, check_on(&w, "p1", "node-b"));
	tl_cycle(&w);
	ASSERT_STR("node-a", tl_node_of(&w, "p1"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p2"));
	ASSERT_TRUE(strstr(tl_msg(&w, "p2"), "3 node(s) did not have enough free storage") != NULL);
	ASSERT_EQ(80LL << 30, w.s.volumes->capacity_used[0]);
	tl_free(&w);
}

TEST(capacity_per_pod_without_schedule_csi_storage)
{
	struct tl_world w;
	capacity_world(&w, false);
	TL_BUILD(&w);
	tl_cycle(&w);
	/* kube-scheduler's check: each claim alone against the reported capacity */
	ASSERT_STR("node-a", tl_node_of(&w, "p1"));
	ASSERT_STR("node-a", tl_node_of(&w, "p2"));
	tl_free(&w);
}

TEST(rollback_gives_back_volumes)
{
	struct tl_world w;
	world(&w);
	pv(&w, "v1", "local", "10Gi", "node-a", NULL);
	pvc(&w, "c1", "local", "5Gi", NULL, NULL);
	tl_pg(&w, &(struct tl_pg){ .name = "gang", .queue = "q", .min = 2 });
	tl_pod(&w, &(struct tl_pod){ .name = "g1", .pg = "gang", .queue = "q",
				     .spec = "volumes: [{name: d, persistentVolumeClaim: {claimName: c1}}]" });
	tl_pod(&w, &(struct tl_pod){ .name = "g2", .pg = "gang", .queue = "q", .cpu = "1000" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "g1"));
	ASSERT_EQ(GT_NONE, w.s.volumes->pv_taken[0]);
	ASSERT_EQ(0u, w.s.volumes->users[0]);
	ASSERT_TRUE(gt_session_check(&w.s));
	tl_free(&w);
}

TEST(immediate_unbound_claim_waits_with_a_reason)
{
	struct tl_world w;
	world(&w);
	pvc(&w, "web", "standard", "1Gi", NULL, NULL);
	pvc(&w, "odd", "no-such-class", "1Gi", NULL, NULL);
	pod_with(&w, "p1", "web");
	pod_with(&w, "p2", "odd");
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p1"));
	ASSERT_TRUE(strstr(tl_msg(&w, "p1"), "VolumeBinding: pod has unbound immediate PersistentVolumeClaims") != NULL);
	ASSERT_EQ(GT_REASON_CLAIM_UNBOUND_IMMEDIATE, w.s.jobs[tl_job_idx(&w, "p1")].why->reason);
	ASSERT_STR("UnboundImmediateClaim", gt_reason_code(GT_REASON_CLAIM_UNBOUND_IMMEDIATE));
	ASSERT_TRUE(strstr(tl_msg(&w, "p2"), "storageclass.storage.k8s.io \"no-such-class\" not found") != NULL);
	tl_free(&w);
}

TEST(missing_claim_keeps_its_message_and_gets_a_code)
{
	struct tl_world w;
	world(&w);
	pod_with(&w, "p1", "nope");
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_TRUE(strstr(tl_msg(&w, "p1"), "VolumeBinding: persistentvolumeclaim \"nope\" not found.") != NULL);
	ASSERT_EQ(GT_REASON_CLAIM_NOT_FOUND, w.s.jobs[tl_job_idx(&w, "p1")].why->reason);
	tl_free(&w);
}

TEST(without_storage_objects_claims_are_not_judged)
{
	struct tl_world w;
	tl_init(&w);
	w.dec.claims_listed = true;
	tl_node(&w, &(struct tl_node){ .name = "n1" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	pvc(&w, "c1", "fast", "5Gi", NULL, NULL);
	pod_with(&w, "p1", "c1");
	TL_BUILD(&w);
	bool warned = false;
	for (size_t i = 0; i < w.dec.n_warnings; i++)
		warned |= strstr(w.dec.warnings[i], "volume binding is not checked") != NULL;
	ASSERT_TRUE(warned);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "p1"));
	tl_free(&w);
}

TEST(bad_storage_objects_are_named)
{
	struct tl_world w;
	world(&w);
	tl_yaml(&w, "---\n{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: bad}, "
		    "provisioner: x, volumeBindingMode: Later}\n");
	pvc(&w, "c1", "fast", "lots", NULL, NULL);
	ASSERT_EQ(GT_EINVAL, tl_build(&w));
	ASSERT_EQ(2, w.dec.n_rejections);
	char msg[600];
	gt_rejection_format(&w.dec.rejections[0], msg, sizeof(msg));
	ASSERT_TRUE(strstr(msg, "PersistentVolumeClaim default/c1: field spec.resources.requests.storage") != NULL);
	gt_rejection_format(&w.dec.rejections[1], msg, sizeof(msg));
	ASSERT_TRUE(strstr(msg, "field volumeBindingMode") && strstr(msg, "'Later'"));
	tl_free(&w);
}

const struct gt_test gt_tests[] = {
	T(bound_claim_follows_its_volume),
	T(claim_bound_to_a_missing_volume_fits_nowhere),
	T(static_volumes_smallest_first_one_claim_each),
	T(prebound_volume_first_and_no_write),
	T(provisioning_follows_allowed_topologies_and_selected_node),
	T(capacity_booked_across_pods_with_schedule_csi_storage),
	T(capacity_per_pod_without_schedule_csi_storage),
	T(rollback_gives_back_volumes),
	T(immediate_unbound_claim_waits_with_a_reason),
	T(missing_claim_keeps_its_message_and_gets_a_code),
	T(without_storage_objects_claims_are_not_judged),
	T(bad_storage_objects_are_named),
	{ NULL, NULL },
};
