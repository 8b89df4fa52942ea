/*
 * test_podgrouper_kai017.c - what KAI v0.17's podgrouper added: the
 * kai.scheduler annotations it reads (preemption-delay,
 * staleness-grace-period, skip-podgrouper), the kind defaults of skipped
 * wrappers, the update of an existing PodGroup, and the Karta fallback (with
 * the jq its definitions are written in)
 */
#include "api/doc_int.h"
#include "podgrouper/internal.h"
#include "podgrouper/jq.h"
#include "test_podgrouper.h"
#include "util/time.h"

const char *gt_suite = "podgrouper_kai017";

/* ---------------------------------------------------------------- Go durations */

TEST(durations_are_read_and_written_as_go_does)
{
	static const struct {
		const char *in, *out;
	} ok[] = {
		{ "5m", "5m0s" }, { "1h", "1h0m0s" }, { "90s", "1m30s" }, { "1.5s", "1.5s" },
		{ "300ms", "300ms" }, { "1us", "1\xc2\xb5s" }, { "2\xce\xbcs", "2\xc2\xb5s" },
		{ "1500us", "1.5ms" }, { "0", "0s" }, { "-2m30s", "-2m30s" }, { "+7ns", "7ns" },
		{ "1h2m3.004005006s", "1h2m3.004005006s" }, { ".5h", "30m0s" }, { "26h", "26h0m0s" },
		{ "2562047h47m16.854775807s", "2562047h47m16.854775807s" },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int64_t ns;
		char text[GT_DURATION_GO_MAX];
		if (gt_pg_parse_duration(ok[i].in, &ns))
			fprintf(stderr, "not read: %s\n", ok[i].in);
		ASSERT_EQ(0, gt_pg_parse_duration(ok[i].in, &ns));
		gt_duration_format_go(ns, text);
		ASSERT_STR(ok[i].out, text);
	}
	static const char *const bad[] = { "", "5", "5x", ".s", "s", "1e3s", "1..5s", "-",
					   "9999999999h", "2562047h47m16.854775808s" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t ns;
		if (!gt_pg_parse_duration(bad[i], &ns))
			fprintf(stderr, "read: '%s'\n", bad[i]);
		ASSERT_EQ(GT_EINVAL, gt_pg_parse_duration(bad[i], &ns));
	}
}

/* ---------------------------------------------------------------- preemption delay, staleness */

TEST(preemption_delay_and_staleness_grace_reach_the_spec)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Job", .name = "train",
				       .annotations = "kai.scheduler/preemption-delay: 5m, "
						      "kai.scheduler/staleness-grace-period: '-10s'" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "train-a", .owner = "Job train" });
	PGT_OK(&t, "train-a");
	ASSERT_TRUE(t.pg.preemption_delay.set);
	ASSERT_EQ(300000000000LL, t.pg.preemption_delay.ns);
	ASSERT_TRUE(t.pg.staleness_grace.set);	/* negative: no stale-gang eviction */
	ASSERT_EQ(-10000000000LL, t.pg.staleness_grace.ns);
	struct gt_doc *d = gt_podgroup_to_doc(&t.pg);
	ASSERT_STR("5m0s", gt_doc_str(gt_doc_get(d, "spec"), "preemptionDelay"));
	ASSERT_STR("-10s", gt_doc_str(gt_doc_get(d, "spec"), "stalenessGracePeriod"));
	gt_doc_free(d);
	pgt_free(&t);
}

TEST(bad_durations_are_passed_over_for_the_pods)
{
	/* an owner's unreadable (or, for the delay, negative) value gives way to the pod's */
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Job", .name = "j",
				       .annotations = "kai.scheduler/preemption-delay: '-1s', "
						      "kai.scheduler/staleness-grace-period: soon" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "j-a", .owner = "Job j",
				      .annotations = "kai.scheduler/preemption-delay: 30s, "
						     "kai.scheduler/staleness-grace-period: 1m" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "j-b", .owner = "Job j" });
	PGT_OK(&t, "j-a");
	ASSERT_EQ(30000000000LL, t.pg.preemption_delay.ns);
	ASSERT_EQ(60000000000LL, t.pg.staleness_grace.ns);
	PGT_OK(&t, "j-b");
	ASSERT_TRUE(!t.pg.preemption_delay.set);
	ASSERT_TRUE(!t.pg.staleness_grace.set);
	struct gt_doc *d = gt_podgroup_to_doc(&t.pg);
	ASSERT_TRUE(!gt_doc_get(gt_doc_get(d, "spec"), "preemptionDelay"));
	gt_doc_free(d);
	pgt_free(&t);
}

TEST(default_rule_reads_durations_along_the_owner_chain)
{
	/* the default rule asks every owner, nearest first (the ReplicaSet before its Foo) */
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Foo", .name = "foo",
				       .annotations = "kai.scheduler/preemption-delay: 1h" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "ReplicaSet", .name = "rs", .owner = "Foo foo",
				       .annotations = "kai.scheduler/preemption-delay: 2m" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = "ReplicaSet rs" });
	PGT_OK(&t, "p");
	ASSERT_STR("default", t.pg.rule);
	ASSERT_EQ(120000000000LL, t.pg.preemption_delay.ns);
	pgt_free(&t);
}

TEST(knative_revision_podgroup_has_no_delays)
{
	/* KAI builds the Knative PodGroup by hand, without them */
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Service", .name = "svc" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Revision", .name = "svc-1", .owner = "Service svc",
				       .annotations = "kai.scheduler/preemption-delay: 5m" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "svc-1-a", .owner = "Service svc",
				      .labels = "serving.knative.dev/revision: svc-1",
				      .annotations = "kai.scheduler/preemption-delay: 5m" });
	PGT_OK(&t, "svc-1-a");
	ASSERT_STR("knative", t.pg.rule);
	ASSERT_TRUE(!t.pg.preemption_delay.set);
	pgt_free(&t);
}

TEST(grove_takes_the_preemption_delay_of_its_top_owner)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PodCliqueSet", .name = "g",
				       .annotations = "kai.scheduler/preemption-delay: 45s" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PodGang", .name = "g-0", .owner = "PodCliqueSet g",
				       .body = "spec: {podgroups: [{name: a, minReplicas: 1, "
					       "podReferences: [{namespace: team-a, name: g-0-a}]}]}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "g-0-a", .owner = "PodCliqueSet g",
				      .labels = "grove.io/podgang: g-0" });
	PGT_OK(&t, "g-0-a");
	ASSERT_EQ(45000000000LL, t.pg.preemption_delay.ns);
	pgt_free(&t);
}

TEST(an_empty_preemptibility_label_decides)
{
	/* KAI's ParsePreemptibility("") is valid (derive it from the priority) and stops the search */
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "ReplicaSet", .name = "rs",
				       .labels = "kai.scheduler/preemptibility: ''" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = "ReplicaSet rs",
				      .labels = "kai.scheduler/preemptibility: non-preemptible" });
	PGT_OK(&t, "p");
	ASSERT_TRUE(!t.pg.preemptibility);
	pgt_free(&t);
}

/* ---------------------------------------------------------------- skip-podgrouper */

static enum gt_pg_skip skip_of(struct pgt *t, const char *pod_name, const struct gt_doc **by)
{
	if (!t->parsed) {
		const char *y = t->yaml ? t->yaml : "";
		if (gt_doc_parse_string(y, strlen(y), "fixture", &t->docs, &t->err))
			return (enum gt_pg_skip)-1;
		t->parsed = true;
	}
	const struct gt_doc *pod = pgt_find(t, "Pod", pod_name);
	const struct gt_doc *chain[PGT_MAX_OWNERS];
	struct gt_pg_request req = { .pod = pod, .owners = chain,
				     .n_owners = pgt_owners(t, pod, chain) };
	return gt_pg_skip_reason(&req, by);
}

TEST(skip_podgrouper_is_honoured_on_the_pod_and_on_any_owner)
{
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Deployment", .name = "d",
				       .annotations = "kai.scheduler/skip-podgrouper: 'true'" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "ReplicaSet", .name = "rs", .owner = "Deployment d" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Job", .name = "j",
				       .annotations = "kai.scheduler/skip-podgrouper: 'false'" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "under-d", .owner = "ReplicaSet rs" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "self", .owner = "Job j",
				      .annotations = "kai.scheduler/skip-podgrouper: 'true'" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "grouped", .owner = "Job j" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "bare-named", .annotations = "pod-group-name: mine" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "owned-named", .owner = "Job j",
				      .annotations = "pod-group-name: old" });
	const struct gt_doc *by = NULL;
	ASSERT_EQ(GT_PG_SKIP_ANNOTATED, skip_of(&t, "under-d", &by));
	ASSERT_STR("Deployment", gt_doc_str(by, "kind"));
	ASSERT_EQ(GT_PG_SKIP_ANNOTATED, skip_of(&t, "self", &by));
	ASSERT_STR("Pod", gt_doc_str(by, "kind"));
	ASSERT_EQ(GT_PG_GROUP, skip_of(&t, "grouped", NULL));	/* only "true" skips */
	ASSERT_EQ(GT_PG_SKIP_OWN_PODGROUP, skip_of(&t, "bare-named", NULL));
	ASSERT_EQ(GT_PG_GROUP, skip_of(&t, "owned-named", NULL));	/* owned: regrouped */
	pgt_free(&t);
}

TEST(group_all_leaves_pods_of_a_skipped_owner_alone)
{
	const char *yaml =
		"{apiVersion: batch/v1, kind: Job, metadata: {name: j, namespace: ns, uid: u1, "
		"annotations: {kai.scheduler/skip-podgrouper: 'true'}}}\n"
		"---\n{apiVersion: batch/v1, kind: Job, metadata: {name: k, namespace: ns, uid: u2}}\n"
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: j-a, namespace: ns, ownerReferences: "
		"[{apiVersion: batch/v1, kind: Job, name: j, uid: u1}]}, spec: {schedulerName: "
		"kai-scheduler}}\n"
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: k-a, namespace: ns, ownerReferences: "
		"[{apiVersion: batch/v1, kind: Job, name: k, uid: u2}]}, spec: {schedulerName: "
		"kai-scheduler}}\n";
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch b = { 0 };
	struct gt_err err = { 0 };
	struct gt_pg_config cfg;
	gt_pg_config_init(&cfg);
	ASSERT_EQ(0, gt_doc_parse_string(yaml, strlen(yaml), "skip", &docs, &err));
	ASSERT_EQ(0, gt_pg_group_all(&cfg, docs.docs, docs.n, &b, &err));
	ASSERT_EQ(1, b.n_pods);
	ASSERT_STR("pg-k-u2", b.pods[0].podgroup);
	ASSERT_EQ(0, b.n_warnings);
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);
	gt_pg_config_release(&cfg);
}

/* ---------------------------------------------------------------- skipped wrappers */

static int set_defaults(struct pgt *t, const char *types)
{
	char yaml[1024];
	snprintf(yaml, sizeof(yaml), "{apiVersion: v1, kind: ConfigMap, metadata: {name: d, "
		 "namespace: kai-scheduler}, data: {types: '%s'}}", types);
	struct gt_doc_list l = { 0 };
	int rc = gt_doc_parse_string(yaml, strlen(yaml), "cm", &l, &t->err);
	if (!rc)
		rc = gt_pg_config_set_defaults(&t->cfg, l.docs[0], &t->err);
	gt_doc_list_release(&l);
	return rc;
}

TEST(a_skipped_wrapper_lends_its_kind_defaults)
{
	/* skiptopowner.go: the Workflow's kind defaults become the step's labels where it has none */
	struct pgt t;
	pgt_init(&t);
	ASSERT_EQ(0, set_defaults(&t, "[{\"typeName\": \"Workflow\", \"group\": \"argoproj.io\", "
				      "\"priorityName\": \"build\", \"preemptibility\": "
				      "\"non-preemptible\"}]"));
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Workflow", .name = "wf" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "step", .owner = "Workflow wf" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "labelled", .owner = "Workflow wf",
				      .labels = "priorityClassName: inference, "
						"kai.scheduler/preemptibility: preemptible" });
	PGT_OK(&t, "step");
	ASSERT_STR("build", t.pg.priority_class);
	ASSERT_STR("non-preemptible", t.pg.preemptibility);
	ASSERT_STR("build", gt_pg_kvs_get(&t.pg.labels, "priorityClassName"));
	PGT_OK(&t, "labelled");
	ASSERT_STR("inference", t.pg.priority_class);
	ASSERT_STR("preemptible", t.pg.preemptibility);
	pgt_free(&t);
}

TEST(a_skipped_wrappers_labels_are_not_in_the_owner_chain)
{
	/*
	 * KAI passes the owner below a wrapper on in the chain of owners with its own
	 * labels: the default rule, which looks for the priority along the chain, does
	 * not see the Workflow's label (the PodGroup's labels still carry it).
	 */
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Workflow", .name = "wf",
				       .labels = "priorityClassName: build" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "ReplicaSet", .name = "rs", .owner = "Workflow wf" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "p", .owner = "ReplicaSet rs" });
	PGT_OK(&t, "p");
	ASSERT_STR("replicaset", t.pg.rule);
	ASSERT_STR("pg-rs-u-rs", t.pg.name);
	ASSERT_STR("train", t.pg.priority_class);
	ASSERT_STR("build", gt_pg_kvs_get(&t.pg.labels, "priorityClassName"));
	pgt_free(&t);
}

/* ---------------------------------------------------------------- updating a PodGroup */

static struct gt_doc *parse_one(const char *yaml, struct gt_doc_list *l)
{
	struct gt_err err = { 0 };
	memset(l, 0, sizeof(*l));
	if (gt_doc_parse_string(yaml, strlen(yaml), "existing", l, &err) || !l->n) {
		fprintf(stderr, "%s\n", err.msg);
		return NULL;
	}
	return l->docs[0];
}

/* A PyTorchJob of 1 master + @workers workers, grouped. */
static void pytorch(struct pgt *t, int workers, const char *annotations)
{
	char body[200];
	snprintf(body, sizeof(body), "spec: {pytorchReplicaSpecs: {Master: {replicas: 1}, "
		 "Worker: {replicas: %d}}}", workers);
	pgt_obj(t, &(struct pgt_obj){ .kind = "PyTorchJob", .name = "llm", .annotations = annotations,
				      .labels = "kai.scheduler/queue: research, kai.scheduler/node-pool: a",
				      .body = body });
	pgt_pod(t, &(struct pgt_pod){ .name = "llm-master-0", .owner = "PyTorchJob llm",
				     .labels = "kai.scheduler/node-pool: a" });
}

TEST(update_keeps_what_people_and_other_controllers_set)
{
	struct pgt t;
	pgt_init(&t);
	pytorch(&t, 5, NULL);
	PGT_OK(&t, "llm-master-0");
	struct gt_doc_list l;
	const struct gt_doc *existing = parse_one(
		"{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: pg-llm-u-llm, "
		"namespace: team-a, uid: pg-uid, resourceVersion: '42', labels: {kai.scheduler/queue: "
		"moved, team: ml}, annotations: {note: by-hand}, ownerReferences: [{apiVersion: "
		"kubeflow.org/v1, kind: PyTorchJob, name: llm, uid: old}]}, spec: {minMember: 4, "
		"queue: serving, markUnschedulable: false, schedulingBackoff: 3, preemptionDelay: 10m, "
		"stalenessGracePeriod: 1m, topologyConstraint: {topology: dc, requiredTopologyLevel: "
		"rack}, subGroups: [{name: master, minMember: 1}]}, status: {phase: Running}}", &l);
	ASSERT_TRUE(existing != NULL);
	struct gt_doc *u = gt_pg_podgroup_update(&t.cfg, existing, &t.pg);
	const struct gt_doc *spec = gt_doc_get(u, "spec");
	ASSERT_STR("6", gt_doc_str(spec, "minMember"));	/* the podgrouper's */
	ASSERT_STR("5", gt_doc_str(gt_doc_get(spec, "subGroups")->items[1], "minMember"));
	ASSERT_STR("serving", gt_doc_str(spec, "queue"));	/* others' */
	ASSERT_STR("false", gt_doc_str(spec, "markUnschedulable"));
	ASSERT_STR("3", gt_doc_str(spec, "schedulingBackoff"));
	/* no kai.scheduler/topology on the job: the constraint set on the PodGroup stays */
	ASSERT_STR("dc", gt_doc_str(gt_doc_get(spec, "topologyConstraint"), "topology"));
	ASSERT_STR("rack", gt_doc_str(gt_doc_get(spec, "topologyConstraint"), "requiredTopologyLevel"));
	/* KAI v0.17 derives these from the workload's annotations: none here, so they go */
	ASSERT_TRUE(!gt_doc_get(spec, "preemptionDelay"));
	ASSERT_TRUE(!gt_doc_get(spec, "stalenessGracePeriod"));
	const struct gt_doc *labels = gt_doc_path(u, "metadata.labels");
	ASSERT_STR("moved", gt_doc_str(labels, "kai.scheduler/queue"));
	ASSERT_STR("ml", gt_doc_str(labels, "team"));
	ASSERT_TRUE(!gt_doc_get(labels, "kai.scheduler/node-pool"));	/* never added later */
	ASSERT_STR("by-hand", gt_doc_str(gt_doc_path(u, "metadata.annotations"), "note"));
	ASSERT_TRUE(gt_doc_str(gt_doc_path(u, "metadata.annotations"),
			       "kai.scheduler/top-owner-metadata") != NULL);
	ASSERT_STR("u-llm", gt_doc_str(gt_doc_path(u, "metadata.ownerReferences")->items[0], "uid"));
	ASSERT_STR("42", gt_doc_str(gt_doc_get(u, "metadata"), "resourceVersion"));
	ASSERT_STR("Running", gt_doc_str(gt_doc_get(u, "status"), "phase"));
	gt_doc_free(u);
	gt_doc_list_release(&l);
	pgt_free(&t);
}

TEST(update_takes_the_workloads_topology_and_delays)
{
	struct pgt t;
	pgt_init(&t);
	pytorch(&t, 3, "kai.scheduler/topology: zones, kai.scheduler/topology-preferred-placement: "
		       "zone, kai.scheduler/preemption-delay: 90s");
	PGT_OK(&t, "llm-master-0");
	struct gt_doc_list l;
	const struct gt_doc *existing = parse_one(
		"{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: pg-llm-u-llm, "
		"namespace: team-a, labels: {kai.scheduler/node-pool: b}}, spec: {minMember: 4, "
		"preemptionDelay: 10m, topologyConstraint: {topology: dc, requiredTopologyLevel: rack}}}",
		&l);
	struct gt_doc *u = gt_pg_podgroup_update(&t.cfg, existing, &t.pg);
	const struct gt_doc *spec = gt_doc_get(u, "spec");
	ASSERT_STR("zones", gt_doc_str(gt_doc_get(spec, "topologyConstraint"), "topology"));
	ASSERT_STR("zone", gt_doc_str(gt_doc_get(spec, "topologyConstraint"), "preferredTopologyLevel"));
	ASSERT_TRUE(!gt_doc_str(gt_doc_get(spec, "topologyConstraint"), "requiredTopologyLevel"));
	ASSERT_STR("1m30s", gt_doc_str(spec, "preemptionDelay"));
	/* the queue stays the PodGroup's (it had none); a node pool it has stays */
	ASSERT_TRUE(!gt_doc_str(spec, "queue"));
	ASSERT_STR("b", gt_doc_str(gt_doc_path(u, "metadata.labels"), "kai.scheduler/node-pool"));
	ASSERT_STR("research", gt_doc_str(gt_doc_path(u, "metadata.labels"), "kai.scheduler/queue"));
	gt_doc_free(u);
	gt_doc_list_release(&l);
	pgt_free(&t);
}

TEST(group_all_updates_a_shared_podgroup_as_kai_does)
{
	/* the second pod's PodGroup is the first's, updated: its labels add up */
	const char *yaml =
		"{apiVersion: batch/v1, kind: Job, metadata: {name: j, namespace: ns, uid: u1}}\n"
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: a, namespace: ns, labels: {user: ann}, "
		"ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u1}]}, "
		"spec: {schedulerName: kai-scheduler}}\n"
		"---\n{apiVersion: v1, kind: Pod, metadata: {name: b, namespace: ns, labels: {user: bob, "
		"kai.scheduler/queue: later}, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, "
		"uid: u1}]}, spec: {schedulerName: kai-scheduler}}\n";
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch b = { 0 };
	struct gt_err err = { 0 };
	struct gt_pg_config cfg;
	gt_pg_config_init(&cfg);
	ASSERT_EQ(0, gt_doc_parse_string(yaml, strlen(yaml), "shared", &docs, &err));
	ASSERT_EQ(0, gt_pg_group_all(&cfg, docs.docs, docs.n, &b, &err));
	ASSERT_EQ(2, b.n_pods);
	ASSERT_EQ(1, b.n_podgroups);
	const struct gt_doc *pg = b.podgroups[0];
	ASSERT_STR("default-queue", gt_doc_str(gt_doc_get(pg, "spec"), "queue"));
	ASSERT_STR("bob", gt_doc_str(gt_doc_path(pg, "metadata.labels"), "user"));
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);
	gt_pg_config_release(&cfg);
}

/* @yaml parsed and grouped (the default configuration, in @cfg): true when both took it. */
static bool group_text(const char *yaml, size_t len, struct gt_doc_list *docs, struct gt_pg_batch *b,
		       struct gt_pg_config *cfg)
{
	struct gt_err err = { 0 };
	gt_pg_config_init(cfg);
	return !gt_doc_parse_string(yaml, len, "batch", docs, &err) &&
	       !gt_pg_group_all(cfg, docs->docs, docs->n, b, &err);
}

TEST(group_all_makes_a_podgroup_once_for_pods_that_compute_the_same)
{
	/*
	 * 200 pods of one Job compute the same PodGroup: the first makes it (in
	 * the batch's memory), the second compares what it computes with what
	 * the first computed (computed again: a fingerprint is kept from a
	 * PodGroup's second pod on), the rest with the last. None updates it:
	 * an update makes a new PodGroup on the heap.
	 */
	size_t cap = 201 * 256, len = 0;
	char *yaml = gt_xmalloc(cap);
	len += (size_t)snprintf(yaml, cap, "{apiVersion: batch/v1, kind: Job, metadata: {name: j, namespace: ns, "
				"uid: u1}}\n");
	for (int i = 0; i < 200; i++)
		len += (size_t)snprintf(yaml + len, cap - len, "---\n{apiVersion: v1, kind: Pod, metadata: {name: "
					"p%d, namespace: ns, ownerReferences: [{apiVersion: batch/v1, kind: Job, "
					"name: j, uid: u1}]}, spec: {schedulerName: kai-scheduler}}\n", i);
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch b = { 0 };
	struct gt_pg_config cfg;
	ASSERT_TRUE(group_text(yaml, len, &docs, &b, &cfg));
	ASSERT_EQ(200, b.n_pods);
	ASSERT_EQ(1, b.n_podgroups);
	ASSERT_STR("pg-j-u1", b.pods[199].podgroup);
	ASSERT_TRUE(b.memory.n_inputs > 0 && b.podgroups[0]->input == b.memory.inputs[0]);
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);
	gt_pg_config_release(&cfg);
	free(yaml);
}

/* A PodGroup like the default rule makes, with a sub-group and a label. */
static void sample_podgroup(struct gt_podgroup *pg)
{
	memset(pg, 0, sizeof(*pg));
	gt_pg_set(&pg->name, "pg-j-u1");
	gt_pg_set(&pg->namespace, "ns");
	gt_pg_set(&pg->queue, "research");
	pg->min_member = 2;
	gt_pg_kvs_set(&pg->labels, "user", "ann");
	gt_pg_add_subgroup(pg, "workers", 2, NULL);
}

TEST(podgroups_made_in_one_input_share_their_repeating_parts)
{
	/*
	 * Bare pods of two queues: the PodGroups of one queue share one spec and
	 * one labels map; the other queue's are others; each keeps its own name,
	 * owner and top-owner annotation. A sub-group's spec is its own, and a
	 * heap document shares nothing (it owns each node).
	 */
	size_t cap = 8192, len = 0;
	char *yaml = gt_xmalloc(cap);
	for (int i = 0; i < 6; i++)
		len += (size_t)snprintf(yaml + len, cap - len, "---\n{apiVersion: v1, kind: Pod, metadata: {name: "
					"p%d, namespace: ns, uid: u%d, labels: {kai.scheduler/queue: q%d}}, spec: "
					"{schedulerName: kai-scheduler}}\n", i, i, i % 2);
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch b = { 0 };
	struct gt_pg_config cfg;
	ASSERT_TRUE(group_text(yaml, len, &docs, &b, &cfg));
	ASSERT_EQ(6, b.n_podgroups);
	for (size_t i = 0; i < 6; i++) {
		const struct gt_doc *spec = gt_doc_get(b.podgroups[i], "spec");
		const struct gt_doc *md = gt_doc_get(b.podgroups[i], "metadata");
		char queue[8], uid[8];
		snprintf(queue, sizeof(queue), "q%zu", i % 2);
		snprintf(uid, sizeof(uid), "u%zu", i);
		ASSERT_STR(queue, gt_doc_str(spec, "queue"));
		ASSERT_STR(queue, gt_doc_str(gt_doc_get(md, "labels"), "kai.scheduler/queue"));
		const struct gt_doc *refs = gt_doc_get(md, "ownerReferences");
		ASSERT_TRUE(refs && refs->kind == GT_DOC_SEQ && refs->n == 1);
		ASSERT_STR(uid, gt_doc_str(refs->items[0], "uid"));
		const struct gt_doc *same = gt_doc_get(b.podgroups[i % 2], "spec");
		const struct gt_doc *other = gt_doc_get(b.podgroups[1 - i % 2], "spec");
		ASSERT_TRUE(spec == same);
		ASSERT_TRUE(spec != other);
		ASSERT_TRUE(gt_doc_get(md, "labels") == gt_doc_path(b.podgroups[i % 2], "metadata.labels"));
		ASSERT_TRUE(md != gt_doc_get(b.podgroups[(i + 2) % 6], "metadata"));
		ASSERT_TRUE(gt_doc_get(md, "annotations") !=
			    gt_doc_path(b.podgroups[(i + 2) % 6], "metadata.annotations"));
	}
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);
	gt_pg_config_release(&cfg);
	free(yaml);

	/* a sub-group: its own spec, even through the memo; no input: no memo */
	struct gt_podgroup pg;
	sample_podgroup(&pg);
	struct gt_doc_list mem = { 0 };
	struct gt_doc_input *in = gt_doc_list_input(&mem);
	struct gt_pg_doc_memo memo;
	gt_pg_doc_memo_init(&memo);
	struct gt_doc *a = gt_podgroup_to_doc_in(&pg, in, &memo), *c = gt_podgroup_to_doc_in(&pg, in, &memo);
	ASSERT_TRUE(gt_doc_get(a, "spec") != gt_doc_get(c, "spec"));
	ASSERT_TRUE(gt_doc_path(a, "metadata.labels") == gt_doc_path(c, "metadata.labels"));
	gt_pg_clear_subgroups(&pg);
	a = gt_podgroup_to_doc_in(&pg, in, &memo);
	c = gt_podgroup_to_doc_in(&pg, in, &memo);
	ASSERT_TRUE(gt_doc_get(a, "spec") == gt_doc_get(c, "spec"));
	struct gt_doc *h1 = gt_podgroup_to_doc_in(&pg, NULL, &memo), *h2 = gt_podgroup_to_doc_in(&pg, NULL, &memo);
	ASSERT_TRUE(gt_doc_get(h1, "spec") != gt_doc_get(h2, "spec"));
	gt_doc_free(h1);
	gt_doc_free(h2);
	gt_pg_doc_memo_release(&memo);
	gt_doc_list_release(&mem);
	gt_podgroup_release(&pg);
}

static bool same_print(const struct gt_podgroup *a, const struct gt_podgroup *b)
{
	struct gt_pg_fingerprint fa = { 0 }, fb = { 0 };
	gt_pg_podgroup_fingerprint(a, &fa);
	gt_pg_podgroup_fingerprint(b, &fb);
	bool same = fa.len == fb.len && !memcmp(fa.bytes, fb.bytes, fa.len);
	free(fa.bytes);
	free(fb.bytes);
	return same;
}

TEST(fingerprints_tell_podgroups_apart_by_every_field_the_document_has)
{
	struct gt_podgroup a, b;
	sample_podgroup(&a);
	sample_podgroup(&b);
	ASSERT_TRUE(same_print(&a, &b));
	/* what the document does not carry does not count */
	gt_pg_set(&b.pod_subgroup, "workers");
	gt_pg_set(&b.warning, "a Karta was passed over");
	b.min_subgroup = 7;	/* minMember is written, not minSubGroup */
	ASSERT_TRUE(same_print(&a, &b));
	/* text moved from one field to the next is not the same */
	gt_pg_set(&b.name, "pg-j-u1ns");
	gt_pg_set(&b.namespace, NULL);
	ASSERT_TRUE(!same_print(&a, &b));
	gt_podgroup_release(&b);
	/* every field the document has, one at a time */
	for (int field = 0; field < 10; field++) {
		sample_podgroup(&b);
		switch (field) {
		case 0: gt_pg_set(&b.queue, "researc"); break;
		case 1: gt_pg_set(&b.priority_class, "train"); break;
		case 2: b.min_member = 3; break;
		case 3: b.has_min_subgroup = true; b.min_subgroup = 2; break;
		case 4: b.preemption_delay.set = true; break;
		case 5: gt_pg_kvs_set(&b.labels, "user", "bob"); break;
		case 6: gt_pg_kvs_set(&b.annotations, "user", "ann"); break;
		case 7: gt_pg_set(&b.owner.uid, "u2"); break;
		case 8: b.subgroups[0].min_member = 1; break;
		case 9: gt_pg_set(&b.topology.required, "rack"); break;
		}
		if (same_print(&a, &b))
			fprintf(stderr, "field %d not told apart\n", field);
		ASSERT_TRUE(!same_print(&a, &b));
		gt_podgroup_release(&b);
	}
	gt_podgroup_release(&a);
}

/* ---------------------------------------------------------------- jq */

/* Evaluate @expr on the YAML @input; the outputs as text, ", "-joined, or "error: ...". */
static void jq_run(const char *expr, const char *input, char *out, size_t size)
{
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	struct gt_jq *q;
	struct gt_jq_results r;
	char why[300];
	*out = '\0';
	if (gt_doc_parse_string(input, strlen(input), "jq input", &l, &err)) {
		snprintf(out, size, "bad input: %.200s", err.msg);
		return;
	}
	if (gt_jq_parse(expr, &q, why, sizeof(why))) {
		snprintf(out, size, "parse error: %s", why);
	} else if (gt_jq_eval(q, l.n ? l.docs[0] : NULL, &r, why, sizeof(why))) {
		snprintf(out, size, "error: %s", why);
		gt_jq_free(q);
	} else {
		for (size_t i = 0; i < r.n; i++) {
			const struct gt_doc *v = r.v[i];
			const char *text = gt_jq_type(v) == GT_JQ_NULL ? "null"
					   : gt_jq_type(v) == GT_JQ_ARRAY ? "[...]"
					   : gt_jq_type(v) == GT_JQ_OBJECT ? "{...}" : v->scalar;
			snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? ", " : "", text);
		}
		gt_jq_results_release(&r);
		gt_jq_free(q);
	}
	gt_doc_list_release(&l);
}

TEST(jq_subset_evaluates_as_jq_does)
{
	const char *in = "{spec: {replicas: 3, name: w, groups: [{name: a, n: 2}, {name: b}], "
			 "m: {x: 1, y: 2}}, metadata: {labels: {app/role: worker, idx: '7'}}}";
	static const struct {
		const char *expr, *want;
	} cases[] = {
		{ ".spec.replicas", "3" },
		{ ".metadata.labels[\"app/role\"]", "worker" },
		{ ".metadata.labels.\"app/role\"", "worker" },
		{ ".spec.missing", "null" },
		{ ".spec.missing.deeper", "null" },
		{ ".spec.groups[].name", "a, b" },
		{ ".spec.groups[1].name", "b" },
		{ ".spec.groups[-1].name", "b" },
		{ ".spec.groups[].n // 1", "2" },	/* // filters the whole stream */
		{ ".spec.groups | .[] | (.n // 1) * 3", "6, 3" },
		{ ".spec.missing // 4", "4" },
		{ "(.spec.replicas // 1) - 1", "2" },
		{ ".spec.replicas / 2", "1.5" },
		{ ".spec.replicas % 2", "1" },
		{ ".metadata.labels.idx == \"7\"", "true" },
		{ ".metadata.labels.idx == 7", "false" },
		{ ".spec.replicas > 2 and .spec.name == \"w\"", "true" },
		{ ".spec.replicas < 2 or false", "false" },
		{ ".spec.groups[] | select(.n) | .name", "a" },
		{ ".spec.m | to_entries[] | .key", "x, y" },
		{ ".spec.m | keys | length", "2" },
		{ ".spec.name | length", "1" },
		{ "\"a\" + \"b\"", "ab" },
		{ "null + 1", "1" },
		{ ".spec | has(\"name\")", "true" },
		{ ".spec.replicas | not", "false" },
		{ ".spec.groups | type", "array" },
		{ ".metadata.labels.idx | tonumber + 1", "8" },
		{ "-.spec.replicas", "-3" },
		{ ".spec.name?", "w" },
		{ ".spec.name.x?", "" },
		{ ".spec.groups[].name, .spec.name", "a, b, w" },
		{ ".spec.name.x", "error: cannot index string with string" },
		{ ".spec.replicas[]", "error: cannot iterate over number" },
		{ ".spec.replicas / 0", "error: 3 and 0 cannot be divided because the divisor is zero" },
		{ "{a: 1}", "parse error: '{' (variables, object or array construction, formats) is not "
			    "supported at column 1 of '{a: 1}'" },
		{ "if . then 1 else 2 end", "parse error: 'if' is not supported" },
		{ ".a[1:2]", "parse error: slices ([a:b]) are not supported" },
		{ ".. | .a", "parse error: recursive descent (..) is not supported" },
		{ "test(\"x\")", "parse error: 'test' is not supported" },
		{ ".a |", "parse error: the expression ends too early" },
		{ ".a)", "parse error: unexpected ')'" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[400];
		jq_run(cases[i].expr, in, out, sizeof(out));
		if (strncmp(out, cases[i].want, strlen(cases[i].want)))
			fprintf(stderr, "jq '%s'\n", cases[i].expr);
		ASSERT_STR(cases[i].want, strncmp(out, cases[i].want, strlen(cases[i].want)) ? out
											 : cases[i].want);
		if (!*cases[i].want)
			ASSERT_STR("", out);
	}
	/* nesting is bounded, so a hostile Karta cannot exhaust the stack */
	char deep[400] = "", out[400];
	for (int i = 0; i < 100; i++)
		strcat(deep, "(");
	strcat(deep, "1");
	for (int i = 0; i < 100; i++)
		strcat(deep, ")");
	jq_run(deep, in, out, sizeof(out));
	ASSERT_CONTAINS(out, "parse error: nested more than 64 deep");
}

/* ---------------------------------------------------------------- Karta */

/* The Karta of KAI's own e2e test: a CustomJob of a coordinator and workers. */
#define CUSTOMJOB_LABELS                                                                   \
	"run.ai/karta-group: e2e.example.com, run.ai/karta-version: v1, run.ai/karta-kind: CustomJob"
#define CUSTOMJOB_STRUCTURE                                                                \
	"structureDefinition: {rootComponent: {name: customjob, kind: {group: e2e.example.com, " \
	"version: v1, kind: CustomJob}, statusDefinition: {statusMappings: {}}}, childComponents: [" \
	"{name: coordinator, ownerRef: customjob, specDefinition: {podTemplateSpecPath: "         \
	".spec.coordinator.template}, scaleDefinition: {replicasPath: .spec.coordinator.replicas}, " \
	"podSelector: {componentTypeSelector: {keyPath: '.metadata.labels[\"e2e.example.com/role\"]', " \
	"value: coordinator}}}, "                                                                \
	"{name: worker, ownerRef: customjob, specDefinition: {podTemplateSpecPath: "              \
	".spec.worker.template}, scaleDefinition: {replicasPath: '.spec.worker.replicas // 1', "   \
	"minReplicasPath: .spec.worker.minReplicas}, "                                           \
	"podSelector: {componentTypeSelector: {keyPath: '.metadata.labels[\"e2e.example.com/role\"]', " \
	"value: worker}}}]}"

static void karta(struct pgt *t, const char *name, const char *instructions, const char *extra_md)
{
	char body[4096];
	snprintf(body, sizeof(body), "spec: {%s, optimizationInstructions: {gangScheduling: {%s}}}",
		 CUSTOMJOB_STRUCTURE, instructions);
	pgt_obj(t, &(struct pgt_obj){ .kind = "Karta", .name = name,
				      .labels = CUSTOMJOB_LABELS, .body = body,
				      .annotations = extra_md });
}

static void customjob(struct pgt *t, const char *spec)
{
	pgt_obj(t, &(struct pgt_obj){ .kind = "CustomJob", .name = "cj",
				      .labels = "kai.scheduler/queue: research", .body = spec });
	pgt_pod(t, &(struct pgt_pod){ .name = "cj-coordinator-0", .owner = "CustomJob cj",
				     .labels = "e2e.example.com/role: coordinator, job-name: cj" });
	pgt_pod(t, &(struct pgt_pod){ .name = "cj-worker-2", .owner = "CustomJob cj",
				     .labels = "e2e.example.com/role: worker, job-name: cj" });
}

#define CJ_SPEC "spec: {coordinator: {replicas: 1}, worker: {replicas: 3}}"

TEST(karta_pod_group_with_a_subgroup_per_component)
{
	struct pgt t;
	pgt_init(&t);
	karta(&t, "customjobs", "podGroup: {name: customjob, topology: {topologyName: dc, "
				"requiredTopologyLevel: zone}, subGroups: [{componentName: coordinator}, "
				"{componentName: worker, topology: {topologyName: dc, "
				"preferredTopologyLevel: rack}}]}", NULL);
	customjob(&t, CJ_SPEC);
	PGT_OK(&t, "cj-worker-2");
	ASSERT_STR("karta", t.pg.rule);
	ASSERT_STR("pg-u-cj-customjob", t.pg.name);
	ASSERT_STR("CustomJob", t.pg.owner.kind);
	ASSERT_STR("research", t.pg.queue);
	ASSERT_TRUE(t.pg.has_min_subgroup);
	ASSERT_EQ(2, t.pg.min_subgroup);
	ASSERT_EQ(1, pgt_sub_min(&t.pg, "coordinator"));
	ASSERT_EQ(3, pgt_sub_min(&t.pg, "worker"));
	ASSERT_STR("rack", pgt_sub(&t.pg, "worker")->topology.preferred);
	ASSERT_STR("dc", t.pg.topology.topology);
	ASSERT_STR("zone", t.pg.topology.required);
	ASSERT_STR("worker", t.pg.pod_subgroup);
	ASSERT_TRUE(!t.pg.warning);
	PGT_OK(&t, "cj-coordinator-0");
	ASSERT_STR("pg-u-cj-customjob", t.pg.name);
	ASSERT_STR("coordinator", t.pg.pod_subgroup);
	pgt_free(&t);
}

TEST(karta_pod_group_without_subgroups_is_the_whole_workload)
{
	struct pgt t;
	pgt_init(&t);
	karta(&t, "customjobs", "podGroup: {name: all}", NULL);
	/* minReplicas wins over replicas */
	customjob(&t, "spec: {coordinator: {replicas: 1}, worker: {replicas: 8, minReplicas: 2}}");
	PGT_OK(&t, "cj-worker-2");
	ASSERT_STR("pg-u-cj-all", t.pg.name);
	ASSERT_TRUE(!t.pg.has_min_subgroup);
	ASSERT_EQ(3, t.pg.min_member);
	ASSERT_EQ(0, t.pg.n_subgroups);
	pgt_free(&t);
}

TEST(karta_pod_groups_group_by_keys_and_filters)
{
	/* the older instruction: the member the pod belongs to, named by the grouping keys */
	struct pgt t;
	pgt_init(&t);
	karta(&t, "customjobs", "podGroups: [{name: job, members: [{componentName: customjob, "
				"groupByKeyPaths: ['.metadata.labels[\"job-name\"]']}]}]", NULL);
	customjob(&t, "spec: {coordinator: {replicas: 1}, worker: {}}");	/* worker: // 1 */
	PGT_OK(&t, "cj-worker-2");
	ASSERT_STR("pg-u-cj-cj", t.pg.name);
	ASSERT_EQ(2, t.pg.min_member);
	ASSERT_EQ(0, t.pg.n_subgroups);
	pgt_free(&t);

	pgt_init(&t);
	karta(&t, "customjobs", "podGroups: [{name: workers, members: [{componentName: worker, "
				"filters: ['.metadata.labels[\"e2e.example.com/role\"] == \"worker\"']}]}]",
	      NULL);
	customjob(&t, CJ_SPEC);
	PGT_OK(&t, "cj-worker-2");
	ASSERT_STR("pg-u-cj", t.pg.name);
	ASSERT_EQ(3, t.pg.min_member);
	PGT_FAILS(&t, "cj-coordinator-0", "Karta customjobs",
		  "the pod does not match any Karta pod group member definition");
	pgt_free(&t);

	/* grouping keys that make no Kubernetes name */
	pgt_init(&t);
	karta(&t, "customjobs", "podGroups: [{name: job, members: [{componentName: customjob, "
				"groupByKeyPaths: ['.metadata.labels[\"e2e.example.com/role\"] + \"_X\"']}]}]",
	      NULL);
	customjob(&t, CJ_SPEC);
	PGT_FAILS(&t, "cj-worker-2", "invalid Kubernetes name");
	pgt_free(&t);
}

TEST(karta_selector_without_a_value_asks_for_the_key)
{
	/* componentTypeSelector without value (or value: null): the key must exist */
	static const char *const selectors[] = { "{keyPath: .metadata.labels.leader}",
						 "{keyPath: .metadata.labels.leader, value: null}" };
	for (size_t i = 0; i < 2; i++) {
		char body[1400];
		snprintf(body, sizeof(body),
			 "spec: {structureDefinition: {rootComponent: {name: r, kind: {group: "
			 "e2e.example.com, version: v1, kind: CustomJob}, statusDefinition: "
			 "{statusMappings: {}}}, childComponents: [{name: lead, ownerRef: r, "
			 "scaleDefinition: {replicasPath: '1'}, podSelector: {componentTypeSelector: %s}}, "
			 "{name: rest, ownerRef: r, scaleDefinition: {replicasPath: .spec.n}}]}, "
			 "optimizationInstructions: {gangScheduling: {podGroup: {name: g, subGroups: "
			 "[{componentName: lead}, {componentName: rest}]}}}}", selectors[i]);
		struct pgt t;
		pgt_init(&t);
		pgt_obj(&t, &(struct pgt_obj){ .kind = "Karta", .name = "k",
					       .labels = CUSTOMJOB_LABELS, .body = body });
		pgt_obj(&t, &(struct pgt_obj){ .kind = "CustomJob", .name = "cj", .body = "spec: {n: 3}" });
		pgt_pod(&t, &(struct pgt_pod){ .name = "a", .owner = "CustomJob cj",
					      .labels = "leader: 'no'" });
		pgt_pod(&t, &(struct pgt_pod){ .name = "b", .owner = "CustomJob cj" });
		PGT_OK(&t, "a");
		ASSERT_STR("lead", t.pg.pod_subgroup);	/* any value: the key is there */
		ASSERT_EQ(1, pgt_sub_min(&t.pg, "lead"));
		ASSERT_EQ(3, pgt_sub_min(&t.pg, "rest"));
		PGT_OK(&t, "b");
		ASSERT_TRUE(!t.pg.pod_subgroup);
		pgt_free(&t);
	}
}

TEST(karta_instances_are_counted_per_instance)
{
	/* a component with instances (a RayCluster's worker groups): the pod's instance only */
	const char *structure =
		"structureDefinition: {rootComponent: {name: rc, kind: {group: e2e.example.com, version: "
		"v1, kind: CustomJob}, statusDefinition: {statusMappings: {}}}, childComponents: [{name: "
		"workers, ownerRef: rc, specDefinition: {podTemplateSpecPath: '.spec.groups[].template'}, "
		"scaleDefinition: {replicasPath: '.spec.groups[].replicas'}, instanceIdPath: "
		"'.spec.groups[].name', podSelector: {componentTypeSelector: {keyPath: "
		"'.metadata.labels.group'}, componentInstanceSelector: {idPath: '.metadata.labels.group'}}}]}";
	char body[2048];
	snprintf(body, sizeof(body), "spec: {%s, optimizationInstructions: {gangScheduling: {podGroups: "
		 "[{name: g, members: [{componentName: workers, groupByKeyPaths: ['.metadata.labels.group']}]}]}}}",
		 structure);
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Karta", .name = "k",
				       .labels = CUSTOMJOB_LABELS, .body = body });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "CustomJob", .name = "cj",
				       .body = "spec: {groups: [{name: cpu, replicas: 2}, {name: gpu, "
					       "replicas: 5}]}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "gpu-1", .owner = "CustomJob cj",
				      .labels = "group: gpu" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "tpu-1", .owner = "CustomJob cj",
				      .labels = "group: tpu" });
	PGT_OK(&t, "gpu-1");
	ASSERT_STR("pg-u-cj-gpu", t.pg.name);
	ASSERT_EQ(5, t.pg.min_member);
	PGT_FAILS(&t, "tpu-1", "could not match instance id \"tpu\"");
	pgt_free(&t);
}

TEST(karta_is_passed_over_when_invalid_or_ambiguous)
{
	static const struct {
		const char *instructions, *annotations, *warning;
		bool second;
	} cases[] = {
		/* two valid Kartas for one kind: neither */
		{ "podGroup: {name: a}", NULL, "found multiple Kartas", true },
		/* jq Gantry does not evaluate: not valid, with the field named */
		{ "podGroups: [{name: j, members: [{componentName: worker, filters: ['test(\"x\")']}]}]",
		  NULL, "podGroups[0].members[0].filters[0]: 'test' is not supported", false },
		/* a member naming no component */
		{ "podGroups: [{name: j, members: [{componentName: nobody}]}]", NULL,
		  "pod-group member component 'nobody' is not defined", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		karta(&t, "one", cases[i].instructions, NULL);
		if (cases[i].second)
			karta(&t, "two", "podGroup: {name: b}", NULL);
		customjob(&t, CJ_SPEC);
		PGT_OK(&t, "cj-worker-2");
		ASSERT_STR("default", t.pg.rule);
		ASSERT_STR("pg-cj-u-cj", t.pg.name);
		ASSERT_CONTAINS(t.pg.warning, cases[i].warning);
		pgt_free(&t);
	}

	/* a root without statusDefinition is not valid (KAI's KartaValidator) */
	struct pgt t;
	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Karta", .name = "nostatus",
				       .labels = CUSTOMJOB_LABELS,
				       .body = "spec: {structureDefinition: {rootComponent: {name: r, kind: "
					       "{group: e2e.example.com, version: v1, kind: CustomJob}}}, "
					       "optimizationInstructions: {gangScheduling: {podGroup: {name: x}}}}" });
	customjob(&t, CJ_SPEC);
	PGT_OK(&t, "cj-worker-2");
	ASSERT_STR("default", t.pg.rule);
	ASSERT_CONTAINS(t.pg.warning, "Karta nostatus");
	ASSERT_CONTAINS(t.pg.warning, "must have status definition");
	pgt_free(&t);
}

TEST(karta_is_not_used_when_it_does_not_apply)
{
	/* being deleted, without gang instructions, for another kind: silently not used */
	static const char *const kartas[] = {
		"{apiVersion: run.ai/v1alpha1, kind: Karta, metadata: {name: gone, deletionTimestamp: "
		"'2026-01-01T00:00:00Z', labels: {" CUSTOMJOB_LABELS "}}, spec: {" CUSTOMJOB_STRUCTURE
		", optimizationInstructions: {gangScheduling: {podGroup: {name: x}}}}}",
		"{apiVersion: run.ai/v1alpha1, kind: Karta, metadata: {name: nogang, labels: {"
		CUSTOMJOB_LABELS "}}, spec: {" CUSTOMJOB_STRUCTURE "}}",
		"{apiVersion: run.ai/v1alpha1, kind: Karta, metadata: {name: v2, labels: {run.ai/karta-group: "
		"e2e.example.com, run.ai/karta-version: v2, run.ai/karta-kind: CustomJob}}, spec: {"
		CUSTOMJOB_STRUCTURE ", optimizationInstructions: {gangScheduling: {podGroup: {name: x}}}}}",
	};
	for (size_t i = 0; i < 3; i++) {
		struct pgt t;
		pgt_init(&t);
		pgt_yaml(&t, "---\n%s\n", kartas[i]);
		customjob(&t, CJ_SPEC);
		PGT_OK(&t, "cj-worker-2");
		ASSERT_STR("default", t.pg.rule);
		ASSERT_TRUE(!t.pg.warning);
		pgt_free(&t);
	}

	/* --generic-karta-fallback=false, or a kind KAI has a rule for */
	struct pgt t;
	pgt_init(&t);
	t.cfg.karta_fallback = false;
	karta(&t, "customjobs", "podGroup: {name: customjob}", NULL);
	customjob(&t, CJ_SPEC);
	PGT_OK(&t, "cj-worker-2");
	ASSERT_STR("default", t.pg.rule);
	pgt_free(&t);

	pgt_init(&t);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Karta", .name = "pt",
				       .labels = "run.ai/karta-group: kubeflow.org, run.ai/karta-version: v1, "
						 "run.ai/karta-kind: PyTorchJob",
				       .body = "spec: {structureDefinition: {rootComponent: {name: r, kind: "
					       "{group: kubeflow.org, version: v1, kind: PyTorchJob}, "
					       "statusDefinition: {statusMappings: {}}}}, optimizationInstructions: "
					       "{gangScheduling: {podGroup: {name: x}}}}" });
	pgt_obj(&t, &(struct pgt_obj){ .kind = "PyTorchJob", .name = "llm",
				       .body = "spec: {pytorchReplicaSpecs: {Worker: {replicas: 2}}}" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "llm-worker-0", .owner = "PyTorchJob llm" });
	PGT_OK(&t, "llm-worker-0");
	ASSERT_STR("pytorch", t.pg.rule);
	pgt_free(&t);
}

TEST(karta_grouping_errors_name_the_karta)
{
	static const struct {
		const char *instructions, *spec, *want;
	} cases[] = {
		{ "podGroup: {name: x, subGroups: [{componentName: nobody}]}", CJ_SPEC,
		  "subGroups[0]: the component it names is not in the Karta" },
		{ "podGroup: {name: x, subGroups: [{componentName: coordinator}]}",
		  "spec: {worker: {replicas: 3}}",
		  "the component must expose a replica scale definition" },
		{ "podGroup: {name: x, topology: {topologyName: dc}}", CJ_SPEC,
		  "must include preferred or required topology level" },
		{ "podGroup: {name: x}", "spec: {coordinator: {replicas: '1'}, worker: {replicas: 3}}",
		  "component coordinator's scaleDefinition.replicasPath: a result is not an int32" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgt t;
		pgt_init(&t);
		karta(&t, "customjobs", cases[i].instructions, NULL);
		customjob(&t, cases[i].spec);
		PGT_FAILS(&t, "cj-worker-2", "Pod team-a/cj-worker-2 of CustomJob team-a/cj, grouped by "
					     "Karta customjobs", cases[i].want);
		pgt_free(&t);
	}
}

TEST(group_all_finds_kartas_among_the_documents)
{
	struct pgt t;
	pgt_init(&t);
	karta(&t, "customjobs", "podGroup: {name: customjob, subGroups: [{componentName: coordinator}, "
				"{componentName: worker}]}", NULL);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Karta", .name = "broken",
				       .labels = "run.ai/karta-group: e2e.example.com, run.ai/karta-version: "
						 "v1, run.ai/karta-kind: Other",
				       .body = "spec: {structureDefinition: {rootComponent: {name: r, kind: "
					       "{group: e2e.example.com, version: v1, kind: Other}}}, "
					       "optimizationInstructions: {gangScheduling: {podGroup: {name: x}}}}" });
	customjob(&t, CJ_SPEC);
	pgt_obj(&t, &(struct pgt_obj){ .kind = "Other", .name = "o" });
	pgt_pod(&t, &(struct pgt_pod){ .name = "o-a", .owner = "Other o" });
	const char *y = t.yaml;
	struct gt_doc_list docs = { 0 };
	struct gt_pg_batch b = { 0 };
	ASSERT_EQ(0, gt_doc_parse_string(y, strlen(y), "kartas", &docs, &t.err));
	ASSERT_EQ(0, gt_pg_group_all(&t.cfg, docs.docs, docs.n, &b, &t.err));
	ASSERT_EQ(3, b.n_pods);
	ASSERT_EQ(2, b.n_podgroups);
	ASSERT_STR("pg-u-cj-customjob", b.pods[0].podgroup);
	ASSERT_STR("coordinator", b.pods[0].subgroup);
	ASSERT_STR("worker", b.pods[1].subgroup);
	ASSERT_STR("2", gt_doc_str(gt_doc_get(b.podgroups[0], "spec"), "minSubGroup"));
	ASSERT_STR("pg-o-u-o", b.pods[2].podgroup);
	ASSERT_EQ(1, b.n_warnings);	/* the Karta for Other is not valid: said once, for its pod */
	ASSERT_CONTAINS(b.warnings[0], "Pod team-a/o-a: Karta broken");
	gt_pg_batch_release(&b);
	gt_doc_list_release(&docs);
	pgt_free(&t);
}

TEST(configuration_turns_the_karta_fallback_off)
{
	struct pgt t;
	pgt_init(&t);
	ASSERT_TRUE(t.cfg.karta_fallback);
	const char *yaml = "genericKartaFallback: false\n";
	struct gt_doc_list l = { 0 };
	ASSERT_EQ(0, gt_doc_parse_string(yaml, strlen(yaml), "config", &l, &t.err));
	ASSERT_EQ(0, gt_pg_config_load(&t.cfg, l.docs[0], &t.err));
	ASSERT_TRUE(!t.cfg.karta_fallback);
	gt_doc_list_release(&l);
	pgt_free(&t);
}

const struct gt_test gt_tests[] = {
	T(durations_are_read_and_written_as_go_does),
	T(preemption_delay_and_staleness_grace_reach_the_spec),
	T(bad_durations_are_passed_over_for_the_pods),
	T(default_rule_reads_durations_along_the_owner_chain),
	T(knative_revision_podgroup_has_no_delays),
	T(grove_takes_the_preemption_delay_of_its_top_owner),
	T(an_empty_preemptibility_label_decides),
	T(skip_podgrouper_is_honoured_on_the_pod_and_on_any_owner),
	T(group_all_leaves_pods_of_a_skipped_owner_alone),
	T(a_skipped_wrapper_lends_its_kind_defaults),
	T(a_skipped_wrappers_labels_are_not_in_the_owner_chain),
	T(update_keeps_what_people_and_other_controllers_set),
	T(update_takes_the_workloads_topology_and_delays),
	T(group_all_updates_a_shared_podgroup_as_kai_does),
	T(group_all_makes_a_podgroup_once_for_pods_that_compute_the_same),
	T(podgroups_made_in_one_input_share_their_repeating_parts),
	T(fingerprints_tell_podgroups_apart_by_every_field_the_document_has),
	T(jq_subset_evaluates_as_jq_does),
	T(karta_pod_group_with_a_subgroup_per_component),
	T(karta_pod_group_without_subgroups_is_the_whole_workload),
	T(karta_pod_groups_group_by_keys_and_filters),
	T(karta_selector_without_a_value_asks_for_the_key),
	T(karta_instances_are_counted_per_instance),
	T(karta_is_passed_over_when_invalid_or_ambiguous),
	T(karta_is_not_used_when_it_does_not_apply),
	T(karta_grouping_errors_name_the_karta),
	T(group_all_finds_kartas_among_the_documents),
	T(configuration_turns_the_karta_fallback_off),
	{ 0 }
};
