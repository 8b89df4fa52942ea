/*
 * test_allocate.c - the allocate action (KAI-SPEC 4.6.1, 6.4, 7): gangs,
 * elastic jobs, queue guards, GPU sharing, placement, and the statement
 */
#include "core/actions.h"
#include "core/placement.h"
#include "testlib.h"

const char *gt_suite = "allocate";

TEST(gang_is_all_or_nothing)
{
	/* room for 2 of a 3-pod gang: nobody moves, nothing is held back */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_gang(&w, "g", "q", 3, 3, "1", NULL);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "g-0"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "g-1"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "g-2"));
	ASSERT_TRUE(tl_node_of(&w, "g-0") == NULL && tl_node_of(&w, "g-1") == NULL);
	ASSERT_CONTAINS(tl_msg(&w, "g"),
			"Resources were found for 2 pods while 3 are required for gang scheduling. "
			"Additional pods cannot be scheduled due to: no nodes with enough resources "
			"were found: 2 node(s) didn't have enough resources: GPUs.");
	ASSERT_EQ(1, tl_idle_gpus(&w, "n1"));
	ASSERT_EQ(1, tl_idle_gpus(&w, "n2"));
	ASSERT_EQ(0, w.s.n_binds);
	ASSERT_EQ(0, w.s.n_pipelines);
	ASSERT_EQ(0, w.s.queues[tl_queue_idx(&w, "q")].allocated[GT_QGPU]);
	ASSERT_EQ(0, w.s.jobs[tl_job_idx(&w, "g")].last_start);
	tl_free(&w);
}

TEST(failed_gang_leaves_room_for_others)
{
	/* the rolled-back gang's tentative places go to the next job */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 2 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	/* older, so it is tried first */
	tl_pg(&w, &(struct tl_pg){ .name = "big", .queue = "q", .min = 3,
				   .created = "2025-12-31T00:00:00Z" });
	for (int i = 0; i < 3; i++) {
		char pod[16];
		snprintf(pod, sizeof(pod), "big-%d", i);
		tl_pod(&w, &(struct tl_pod){ .name = pod, .pg = "big", .gpus = "1" });
	}
	tl_gang(&w, "small", "q", 2, 2, "1", NULL);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "big-0"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "small-0"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "small-1"));
	ASSERT_EQ(0, tl_idle_gpus(&w, "n1"));
	ASSERT_EQ(2, w.s.n_binds);
	ASSERT_EQ(TL_NOW, w.s.jobs[tl_job_idx(&w, "small")].last_start);
	tl_free(&w);
}

TEST(gang_needing_releasing_resources_is_pipelined_whole)
{
	/*
	 * n1 has 2 GPUs, one held by a terminating pod. A 2-pod gang fits one
	 * pod now and one once the GPU is freed: both are pipelined, neither is
	 * bound (a gang is bound all or nothing).
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 2 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pg(&w, &(struct tl_pg){ .name = "old", .queue = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "old-0", .pg = "old", .gpus = "1", .node = "n1",
				     .deleting = true });
	tl_gang(&w, "g", "q", 2, 2, "1", NULL);
	TL_BUILD(&w);
	ASSERT_EQ(GT_RELEASING, w.c.pods[tl_pod_idx(&w, "old-0")].status);
	tl_cycle(&w);
	ASSERT_EQ(GT_PIPELINED, tl_status(&w, "g-0"));
	ASSERT_EQ(GT_PIPELINED, tl_status(&w, "g-1"));
	ASSERT_STR("n1", tl_node_of(&w, "g-0"));
	ASSERT_STR("n1", tl_node_of(&w, "g-1"));
	ASSERT_EQ(0, w.s.n_binds);
	ASSERT_EQ(2, w.s.n_pipelines);
	/* a pipelined job has not started */
	ASSERT_EQ(0, w.s.jobs[tl_job_idx(&w, "g")].last_start);
	/*
	 * within the session a pipelined pod counts toward its queue, as in
	 * KAI, whose Statement.Pipeline fires the proportion AllocateFunc
	 */
	ASSERT_EQ(2000, w.s.queues[tl_queue_idx(&w, "q")].allocated[GT_QGPU]);
	tl_free(&w);
}

TEST(single_pod_waiting_for_releasing_is_pipelined)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "old", .queue = "q", .gpus = "1", .node = "n1",
				     .deleting = true });
	tl_pod(&w, &(struct tl_pod){ .name = "new", .queue = "q", .gpus = "1" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PIPELINED, tl_status(&w, "new"));
	ASSERT_EQ(GT_RELEASING, tl_status(&w, "old"));
	ASSERT_EQ(0, gt_node_releasing_gpus(&w.s, tl_node_idx(&w, "n1")));
	tl_free(&w);
}

TEST(elastic_job_takes_what_fits)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 2 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_gang(&w, "e", "q", 1, 3, "1", NULL);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "e-0"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "e-1"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "e-2"));
	ASSERT_EQ(2, w.s.n_binds);
	ASSERT_CONTAINS(tl_msg(&w, "e"), "Resources were not found for pod default/e-2");
	ASSERT_EQ(2000, w.s.queues[tl_queue_idx(&w, "q")].allocated[GT_QGPU]);
	tl_free(&w);
}

TEST(elastic_jobs_take_turns)
{
	/*
	 * Two elastic jobs in two equal queues, 4 GPUs: after its minimum a job
	 * goes back into the queue for each extra pod, so the queues alternate
	 * and end 2 and 2 instead of first-come 3 and 1.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "qa" });
	tl_queue(&w, &(struct tl_queue){ .name = "qb" });
	tl_gang(&w, "a", "qa", 1, 3, "1", NULL);
	tl_gang(&w, "b", "qb", 1, 3, "1", NULL);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(2000, w.s.queues[tl_queue_idx(&w, "qa")].allocated[GT_QGPU]);
	ASSERT_EQ(2000, w.s.queues[tl_queue_idx(&w, "qb")].allocated[GT_QGPU]);
	tl_free(&w);
}

TEST(limit_refuses_a_job)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_queue(&w, &(struct tl_queue){ .name = "capped", .limit = "2" });
	tl_queue(&w, &(struct tl_queue){ .name = "exact", .limit = "2" });
	tl_pod(&w, &(struct tl_pod){ .name = "three", .queue = "capped", .gpus = "3" });
	/* limit == allocated + request is still within the limit */
	tl_pod(&w, &(struct tl_pod){ .name = "two", .queue = "exact", .gpus = "2" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "three"));
	ASSERT_CONTAINS(tl_msg(&w, "three"),
			"capped quota has reached the allowable limit of GPUs. Limit is 2 GPUs, "
			"currently 0 GPUs allocated and workload requested 3 GPUs");
	ASSERT_EQ(GT_BINDING, tl_status(&w, "two"));
	ASSERT_EQ(6, tl_idle_gpus(&w, "n1"));
	tl_free(&w);
}

TEST(limit_counts_what_is_allocated)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .limit = "3" });
	tl_pod(&w, &(struct tl_pod){ .name = "run", .queue = "q", .gpus = "2", .node = "n1" });
	tl_pod(&w, &(struct tl_pod){ .name = "more", .queue = "q", .gpus = "2" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "more"));
	ASSERT_CONTAINS(tl_msg(&w, "more"), "Limit is 3 GPUs, currently 2 GPUs allocated and "
					    "workload requested 2 GPUs");
	tl_free(&w);
}

TEST(parent_limit_applies_to_children)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_queue(&w, &(struct tl_queue){ .name = "dept", .limit = "2" });
	tl_queue(&w, &(struct tl_queue){ .name = "team", .parent = "dept" });
	tl_pod(&w, &(struct tl_pod){ .name = "three", .queue = "team", .gpus = "3" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "three"));
	ASSERT_CONTAINS(tl_msg(&w, "three"), "dept quota has reached the allowable limit of GPUs");
	tl_free(&w);
}

/* spec.preemptionDelay: a high-priority job may not preempt until the delay
 * after the later of its creation (00:00) and its last eviction has passed
 * (the session is at 01:00). @ann is the PodGroup's annotations body. */
static void preemptor_world(struct tl_world *w, const char *delay, const char *ann)
{
	tl_init(w);
	tl_node(w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(w, &(struct tl_queue){ .name = "q", .quota = "1" });
	tl_pg(w, &(struct tl_pg){ .name = "low", .queue = "q", .prio = "train" });
	tl_pod(w, &(struct tl_pod){ .name = "low-0", .queue = "q", .pg = "low", .node = "n1", .gpus = "1" });
	tl_yaml(w, "---\n{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: high, "
		   "namespace: default, creationTimestamp: '2026-01-01T00:00:00Z', annotations: {%s}}, "
		   "spec: {queue: q, minMember: 1, priorityClassName: inference, preemptionDelay: %s}}\n",
		ann, delay);
	tl_pod(w, &(struct tl_pod){ .name = "high-0", .queue = "q", .pg = "high", .gpus = "1" });
}

TEST(preemption_delay_holds_the_preemptor)
{
	struct tl_world w;
	preemptor_world(&w, "2h", "");
	TL_BUILD(&w);
	tl_cycle_mask(&w, GT_ACTIONS_ALL);
	ASSERT_EQ(GT_RUNNING, tl_status(&w, "low-0"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "high-0"));
	ASSERT_CONTAINS(tl_msg(&w, "high"), "Workload is within its preemption delay window (2h0m0s) and may not "
					    "trigger evictions before 2026-01-01T02:00:00Z");
	tl_free(&w);
}

TEST(preemption_delay_elapsed_preempts)
{
	struct tl_world w;
	preemptor_world(&w, "30m", "");
	TL_BUILD(&w);
	tl_cycle_mask(&w, GT_ACTIONS_ALL);
	ASSERT_EQ(GT_RELEASING, tl_status(&w, "low-0"));
	tl_free(&w);
}

TEST(preemption_delay_rearmed_by_last_eviction)
{
	struct tl_world w;
	preemptor_world(&w, "30m", "kai.scheduler/last-eviction-timestamp: '2026-01-01T00:50:00Z'");
	TL_BUILD(&w);
	tl_cycle_mask(&w, GT_ACTIONS_ALL);
	ASSERT_EQ(GT_RUNNING, tl_status(&w, "low-0"));
	ASSERT_CONTAINS(tl_msg(&w, "high"), "before 2026-01-01T01:20:00Z");
	tl_free(&w);
}

/* spec.minSubGroup: three replicas of two pods, any two replicas make the gang;
 * the node has room for two replicas' pods only. */
TEST(min_subgroup_two_of_three_replicas)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_yaml(&w, "---\n{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: js, "
		    "namespace: default, creationTimestamp: '2026-01-01T00:00:00Z'}, spec: {queue: q, minSubGroup: 2, "
		    "subGroups: [{name: r0}, {name: r1}, {name: r2}, "
		    "{name: r0-pods, parent: r0, minMember: 2}, {name: r1-pods, parent: r1, minMember: 2}, "
		    "{name: r2-pods, parent: r2, minMember: 2}]}}\n");
	static const char *const pods[] = { "r0-a", "r0-b", "r1-a", "r1-b", "r2-a", "r2-b" };
	for (int i = 0; i < 6; i++) {
		char labels[64];
		snprintf(labels, sizeof(labels), "kai.scheduler/subgroup-name: r%d-pods", i / 2);
		tl_pod(&w, &(struct tl_pod){ .name = pods[i], .queue = "q", .pg = "js", .gpus = "1",
					      .labels = labels });
	}
	TL_BUILD(&w);
	tl_cycle(&w);
	int bound = 0;
	for (int i = 0; i < 6; i++)
		bound += tl_status(&w, pods[i]) == GT_BINDING;
	ASSERT_EQ(4, bound);
	/* whole replicas: the two a pod of r0 is with */
	ASSERT_EQ(tl_status(&w, "r0-a"), tl_status(&w, "r0-b"));
	ASSERT_EQ(tl_status(&w, "r2-a"), tl_status(&w, "r2-b"));
	tl_free(&w);
}

/* Topology spec.levels[].alias: a PodGroup may name a level by its alias. */
TEST(topology_level_by_alias)
{
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "---\n{apiVersion: kai.scheduler/v1alpha1, kind: Topology, metadata: {name: dc}, spec: {levels: "
		    "[{nodeLabel: example.com/rack, alias: rack}, {nodeLabel: kubernetes.io/hostname}]}}\n");
	tl_node(&w, &(struct tl_node){ .name = "a1", .gpus = 1, .labels = "example.com/rack: a, kubernetes.io/hostname: a1" });
	tl_node(&w, &(struct tl_node){ .name = "b1", .gpus = 1, .labels = "example.com/rack: b, kubernetes.io/hostname: b1" });
	tl_node(&w, &(struct tl_node){ .name = "b2", .gpus = 1, .labels = "example.com/rack: b, kubernetes.io/hostname: b2" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pg(&w, &(struct tl_pg){ .name = "g", .queue = "q", .min = 2,
				   .spec = "topologyConstraint: {topology: dc, requiredTopologyLevel: rack}" });
	tl_pod(&w, &(struct tl_pod){ .name = "g-0", .queue = "q", .pg = "g", .gpus = "1" });
	tl_pod(&w, &(struct tl_pod){ .name = "g-1", .queue = "q", .pg = "g", .gpus = "1" });
	TL_BUILD(&w);
	ASSERT_EQ(0, w.c.jobs[tl_job_idx(&w, "g")].topo.required_level);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "g-0"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "g-1"));
	ASSERT_TRUE(w.s.pods[tl_pod_idx(&w, "g-0")].node != tl_node_idx(&w, "a1"));
	ASSERT_TRUE(w.s.pods[tl_pod_idx(&w, "g-1")].node != tl_node_idx(&w, "a1"));
	tl_free(&w);
}

/* KAI names a queue by its spec.displayName in messages when it has one. */
TEST(queue_display_name_in_messages)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_yaml(&w, "---\n{apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: team-a}, spec: "
		    "{displayName: Team A, resources: {gpu: {quota: 1, limit: 1}, cpu: {quota: -1, limit: -1}, "
		    "memory: {quota: -1, limit: -1}}}}\n");
	tl_pod(&w, &(struct tl_pod){ .name = "big", .queue = "team-a", .gpus = "2" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "big"));
	ASSERT_CONTAINS(tl_msg(&w, "pg-big-0"), "Team A quota has reached the allowable limit of GPUs");
	tl_free(&w);
}

/* kube-scheduler's NodePorts: two pods asking for host port 8080/TCP do not
 * share a node; another protocol or a port of 0 does not clash. */
TEST(host_ports_spread_pods)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 0 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_yaml(&w, "---\n{apiVersion: v1, kind: Pod, metadata: {name: held, namespace: default, labels: "
		    "{kai.scheduler/queue: q}}, spec: {schedulerName: kai-scheduler, nodeName: n1, containers: "
		    "[{name: c, ports: [{containerPort: 80, hostPort: 8080}]}]}, status: {phase: Running}}\n");
	static const char *const want[] = { "tcp", "udp" };
	for (int i = 0; i < 2; i++)
		tl_yaml(&w, "---\n{apiVersion: v1, kind: Pod, metadata: {name: %s, namespace: default, labels: "
			    "{kai.scheduler/queue: q}}, spec: {schedulerName: kai-scheduler, containers: "
			    "[{name: c, ports: [{containerPort: 80, hostPort: 8080, protocol: %s}]}]}}\n",
			want[i], i ? "UDP" : "TCP");
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "tcp"));
	ASSERT_CONTAINS(tl_msg(&w, "pg-tcp-0"), "node(s) didn't have free ports for the requested pod ports");
	ASSERT_EQ(GT_BINDING, tl_status(&w, "udp"));
	tl_free(&w);
}

/* Pod anti-affinity terms look at their namespaces list, at every namespace with
 * an empty namespaceSelector, else at the pod's own namespace only. */
static int32_t anti_affinity_node(const char *term_ns)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .labels = "kubernetes.io/hostname: n1" });
	tl_node(&w, &(struct tl_node){ .name = "n2", .labels = "kubernetes.io/hostname: n2" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "db", .ns = "other", .queue = "q", .node = "n1", .cpu = "2",
				     .labels = "app: db" });
	char spec[400];
	snprintf(spec, sizeof(spec), "affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
		 "[{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: db}}%s}]}}", term_ns);
	tl_pod(&w, &(struct tl_pod){ .name = "web", .queue = "q", .spec = spec });
	if (tl_build(&w)) {
		fprintf(stderr, "build failed: %s\n", w.err.msg);
		tl_free(&w);
		return -2;
	}
	tl_cycle(&w);
	int32_t node = w.s.pods[tl_pod_idx(&w, "web")].node;
	tl_free(&w);
	return node;
}

TEST(pod_anti_affinity_namespaces)
{
	/* binpack puts web beside db on n1 unless the term sees db */
	int32_t own = anti_affinity_node("");
	int32_t listed = anti_affinity_node(", namespaces: [other]");
	int32_t all = anti_affinity_node(", namespaceSelector: {}");
	ASSERT_TRUE(own >= 0 && listed >= 0 && all >= 0);
	ASSERT_EQ(1, listed);	/* n2: db (namespace other) holds n1 */
	ASSERT_EQ(1, all);
	ASSERT_EQ(0, own);	/* db's namespace is not web's: not seen */
}

/* KAI's podaffinity plugin: preferred (anti-)affinity weights score the nodes. */
static int32_t preferred_node(const char *kind, const char *plugins)
{
	struct tl_world w;
	tl_init(&w);
	if (plugins)
		tl_yaml(&w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default}, "
			    "spec: {plugins: {%s}}}\n", plugins);
	tl_node(&w, &(struct tl_node){ .name = "n1", .labels = "kubernetes.io/hostname: n1" });
	tl_node(&w, &(struct tl_node){ .name = "n2", .labels = "kubernetes.io/hostname: n2" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	/* n1 holds more: binpack alone would choose it */
	tl_pod(&w, &(struct tl_pod){ .name = "big", .queue = "q", .node = "n1", .cpu = "3" });
	tl_pod(&w, &(struct tl_pod){ .name = "cache", .queue = "q", .node = "n2", .labels = "app: cache" });
	char spec[400];
	snprintf(spec, sizeof(spec), "affinity: {%s: {preferredDuringSchedulingIgnoredDuringExecution: "
		 "[{weight: 50, podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: "
		 "{matchLabels: {app: cache}}}}]}}", kind);
	tl_pod(&w, &(struct tl_pod){ .name = "web", .queue = "q", .spec = spec });
	if (tl_build(&w)) {
		fprintf(stderr, "build failed: %s\n", w.err.msg);
		tl_free(&w);
		return -2;
	}
	tl_cycle(&w);
	int32_t node = w.s.pods[tl_pod_idx(&w, "web")].node;
	tl_free(&w);
	return node;
}

TEST(preferred_pod_affinity_scores)
{
	ASSERT_EQ(1, preferred_node("podAffinity", NULL));	/* beside the cache, on n2 */
	ASSERT_EQ(0, preferred_node("podAntiAffinity", NULL));	/* away from it, on n1 */
	ASSERT_EQ(0, preferred_node("podAffinity", "podaffinity: {enabled: false}"));	/* binpack alone */
}

/* KAI's ConfigMap predicate: a pod that mounts or reads a ConfigMap that does not
 * exist waits, with KAI's message; optional ones and the shared-GPU one do not count. */
TEST(configmap_predicate)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_yaml(&w, "---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: present, namespace: default}}\n");
	tl_pod(&w, &(struct tl_pod){ .name = "waits", .queue = "q",
				     .spec = "volumes: [{name: v, configMap: {name: absent}}, {name: u, configMap: "
					     "{name: unmounted}}], initContainers: [{name: i, image: x, envFrom: "
					     "[{configMapRef: {name: present}}], volumeMounts: [{name: v, mountPath: /v}]}]" });
	tl_pod(&w, &(struct tl_pod){ .name = "runs", .queue = "q",
				     .annotations = "runai/shared-gpu-configmap: runs-shared",
				     .spec = "initContainers: [{name: i, image: x, env: [{name: A, valueFrom: "
					     "{configMapKeyRef: {name: maybe, key: k, optional: true}}}, {name: B, "
					     "valueFrom: {configMapKeyRef: {name: runs-shared-0, key: k}}}]}]" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "waits"));
	ASSERT_STR("Missing required configmaps: [absent]", tl_msg(&w, "pg-waits-0"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "runs"));
	tl_free(&w);
}

/* A job that misses a ConfigMap does not evict others for room it could not use. */
TEST(configmap_missing_job_does_not_preempt)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .quota = "1" });
	tl_yaml(&w, "---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: other, namespace: default}}\n");
	tl_pg(&w, &(struct tl_pg){ .name = "low", .queue = "q", .prio = "train" });
	tl_pod(&w, &(struct tl_pod){ .name = "low-0", .queue = "q", .pg = "low", .node = "n1", .gpus = "1" });
	tl_pg(&w, &(struct tl_pg){ .name = "high", .queue = "q", .prio = "build" });
	tl_pod(&w, &(struct tl_pod){ .name = "high-0", .queue = "q", .pg = "high", .gpus = "1",
				     .spec = "initContainers: [{name: i, image: x, envFrom: [{configMapRef: {name: absent}}]}]" });
	TL_BUILD(&w);
	tl_cycle_mask(&w, GT_ACTIONS_ALL);
	ASSERT_EQ(GT_RUNNING, tl_status(&w, "low-0"));
	ASSERT_STR("Missing required configmaps: [absent]", tl_msg(&w, "high"));
	tl_free(&w);
}

/* A JobSet of 100 replicated jobs (a sub-group each, KAI v0.17's shape): more than
 * the 64 sub-groups Gantry once took; any 60 of them make the gang. */
TEST(min_subgroup_hundred_replicas)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 60 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	char *spec = malloc(64 * 1024);
	size_t off = (size_t)snprintf(spec, 64 * 1024, "minSubGroup: 60, subGroups: [");
	for (int r = 0; r < 100; r++)
		off += (size_t)snprintf(spec + off, 64 * 1024 - off, "%s{name: r%d}, {name: r%d-pods, parent: r%d, minMember: 1}",
					r ? ", " : "", r, r, r);
	snprintf(spec + off, 64 * 1024 - off, "]");
	tl_yaml(&w, "---\n{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: js, "
		    "namespace: default, creationTimestamp: '2026-01-01T00:00:00Z'}, spec: {queue: q, %s}}\n", spec);
	free(spec);
	for (int r = 0; r < 100; r++) {
		char name[32], labels[64];
		snprintf(name, sizeof(name), "r%d-0", r);
		snprintf(labels, sizeof(labels), "kai.scheduler/subgroup-name: r%d-pods", r);
		tl_pod(&w, &(struct tl_pod){ .name = name, .queue = "q", .pg = "js", .gpus = "1", .labels = labels });
	}
	TL_BUILD(&w);
	ASSERT_EQ(100, (int)w.c.jobs[tl_job_idx(&w, "js")].n_groups);
	tl_cycle(&w);
	int bound = 0;
	for (int r = 0; r < 100; r++) {
		char name[32];
		snprintf(name, sizeof(name), "r%d-0", r);
		bound += tl_status(&w, name) == GT_BINDING;
	}
	ASSERT_EQ(60, bound);
	tl_free(&w);
}

TEST(non_preemptible_over_quota_is_refused)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .quota = "1" });
	tl_pg(&w, &(struct tl_pg){ .name = "serve", .queue = "q", .prio = "inference" });
	tl_pod(&w, &(struct tl_pod){ .name = "serve-0", .pg = "serve", .gpus = "2" });
	/* a preemptible job of the same size may go over quota */
	tl_pg(&w, &(struct tl_pg){ .name = "train", .queue = "q", .prio = "train" });
	tl_pod(&w, &(struct tl_pod){ .name = "train-0", .pg = "train", .gpus = "2" });
	TL_BUILD(&w);
	ASSERT_TRUE(!w.c.jobs[tl_job_idx(&w, "serve")].preemptible);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "serve-0"));
	ASSERT_CONTAINS(tl_msg(&w, "serve"),
			"Non-preemptible workload is over quota. Workload requested 2 GPUs, but q "
			"quota is 1 GPUs, while 0 GPUs are already allocated for non-preemptible "
			"pods. Use a preemptible workload to go over quota.");
	ASSERT_EQ(GT_BINDING, tl_status(&w, "train-0"));
	tl_free(&w);
}

TEST(non_preemptible_within_quota_is_allocated)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .quota = "2" });
	tl_pg(&w, &(struct tl_pg){ .name = "a", .queue = "q", .prio = "inference" });
	tl_pod(&w, &(struct tl_pod){ .name = "a-0", .pg = "a", .gpus = "1" });
	tl_pg(&w, &(struct tl_pg){ .name = "b", .queue = "q", .prio = "inference",
				   .created = "2026-01-01T00:10:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "b-0", .pg = "b", .gpus = "1" });
	/* the third one would make 3 non-preemptible GPUs on a quota of 2 */
	tl_pg(&w, &(struct tl_pg){ .name = "c", .queue = "q", .prio = "inference",
				   .created = "2026-01-01T00:20:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "c-0", .pg = "c", .gpus = "1" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "a-0"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "b-0"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "c-0"));
	ASSERT_CONTAINS(tl_msg(&w, "c"), "while 2 GPUs are already allocated for non-preemptible pods");
	tl_free(&w);
}

TEST(fractions_share_one_gpu)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 2 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "f1", .queue = "q", .annotations = "gpu-fraction: '0.5'" });
	tl_pod(&w, &(struct tl_pod){ .name = "f2", .queue = "q", .annotations = "gpu-fraction: '0.5'" });
	TL_BUILD(&w);
	tl_cycle(&w);
	int32_t a = tl_pod_idx(&w, "f1"), b = tl_pod_idx(&w, "f2");
	ASSERT_EQ(GT_BINDING, w.s.pods[a].status);
	ASSERT_EQ(GT_BINDING, w.s.pods[b].status);
	ASSERT_EQ(1, w.s.pods[a].n_groups);
	ASSERT_EQ(1, w.s.pods[b].n_groups);
	ASSERT_EQ(w.s.pods[a].groups[0], w.s.pods[b].groups[0]);
	ASSERT_EQ(1, tl_idle_gpus(&w, "n1"));
	ASSERT_EQ(1000, w.s.queues[tl_queue_idx(&w, "q")].allocated[GT_QGPU]);
	tl_free(&w);
}

TEST(whole_gpu_never_lands_on_a_shared_device)
{
	/*
	 * n1 has 2 GPUs; one is shared (a running 0.5 pod in group grp-a). A
	 * new 0.5 pod joins grp-a; of two 1-GPU pods only one fits, on the
	 * other device.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 2 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "s0", .queue = "q", .node = "n1",
				     .labels = "runai-gpu-group: grp-a",
				     .annotations = "gpu-fraction: '0.5'" });
	tl_pod(&w, &(struct tl_pod){ .name = "f", .queue = "q", .annotations = "gpu-fraction: '0.5'" });
	tl_pod(&w, &(struct tl_pod){ .name = "w1", .queue = "q", .gpus = "1" });
	tl_pod(&w, &(struct tl_pod){ .name = "w2", .queue = "q", .gpus = "1" });
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_EQ(1, tl_idle_gpus(&w, "n1"));
	tl_cycle(&w);
	int32_t f = tl_pod_idx(&w, "f");
	ASSERT_EQ(GT_BINDING, w.s.pods[f].status);
	ASSERT_EQ((int64_t)gt_strtab_find(&w.names, "grp-a"), w.s.pods[f].groups[0]);
	ASSERT_EQ(1, (int)(tl_status(&w, "w1") == GT_BINDING) + (int)(tl_status(&w, "w2") == GT_BINDING));
	const char *waiting = tl_status(&w, "w1") == GT_PENDING ? "w1" : "w2";
	ASSERT_EQ(GT_PENDING, tl_status(&w, waiting));
	ASSERT_CONTAINS(tl_msg(&w, waiting), "1 node(s) didn't have enough resources: GPUs");
	ASSERT_EQ(0, tl_idle_gpus(&w, "n1"));
	tl_free(&w);
}

TEST(full_shared_gpu_opens_a_new_device)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 2 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "s0", .queue = "q", .node = "n1",
				     .labels = "runai-gpu-group: grp-a",
				     .annotations = "gpu-fraction: '0.75'" });
	tl_pod(&w, &(struct tl_pod){ .name = "f", .queue = "q", .annotations = "gpu-fraction: '0.5'" });
	TL_BUILD(&w);
	tl_cycle(&w);
	int32_t f = tl_pod_idx(&w, "f");
	ASSERT_EQ(GT_BINDING, w.s.pods[f].status);
	ASSERT_TRUE((int64_t)w.s.pods[f].groups[0] != gt_strtab_find(&w.names, "grp-a"));
	ASSERT_EQ(0, tl_idle_gpus(&w, "n1"));
	tl_free(&w);
}

TEST(gpu_memory_pod_goes_to_a_node_with_memory_label)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "a-unlabelled", .gpus = 4 });
	tl_node(&w, &(struct tl_node){ .name = "b-labelled", .gpus = 1,
				       .labels = "nvidia.com/gpu.memory: '40000'" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "m1", .queue = "q", .annotations = "gpu-memory: '20000'" });
	tl_pod(&w, &(struct tl_pod){ .name = "m2", .queue = "q", .annotations = "gpu-memory: '20000'" });
	TL_BUILD(&w);
	tl_cycle(&w);
	int32_t m1 = tl_pod_idx(&w, "m1"), m2 = tl_pod_idx(&w, "m2");
	ASSERT_EQ(GT_BINDING, w.s.pods[m1].status);
	ASSERT_STR("b-labelled", tl_node_of(&w, "m1"));
	ASSERT_STR("b-labelled", tl_node_of(&w, "m2"));
	ASSERT_EQ(w.s.pods[m1].groups[0], w.s.pods[m2].groups[0]);
	/* 20000 of 40000 MiB is half the device */
	ASSERT_EQ(500, gt_pod_accepted_gpu_milli(&w.c, m1, tl_node_idx(&w, "b-labelled")));
	ASSERT_EQ(1000, w.s.queues[tl_queue_idx(&w, "q")].allocated[GT_QGPU]);
	tl_free(&w);
}

TEST(gpu_memory_pod_without_labelled_node_waits)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_node(&w, &(struct tl_node){ .name = "small", .gpus = 1,
				       .labels = "nvidia.com/gpu.memory: '16000'" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "m", .queue = "q", .annotations = "gpu-memory: '20000'" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "m"));
	ASSERT_CONTAINS(tl_msg(&w, "m"), "1 node(s) didn't have enough resources: GPU memory");
	ASSERT_CONTAINS(tl_msg(&w, "m"),
			"1 node(s) are not gpu nodes or their gpu memory count was not synced yet");
	tl_free(&w);
}

/* n1 and n2 with 4 GPUs each; a running 2-GPU pod on @busy; a pending 1-GPU pod "p". */
static void placement_world(struct tl_world *w, const char *busy, bool spread)
{
	tl_init(w);
	if (spread)
		tl_yaml(w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, "
			   "metadata: {name: default}, spec: {placementStrategy: {gpu: spread, cpu: spread}}}\n");
	tl_node(w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_node(w, &(struct tl_node){ .name = "n2", .gpus = 4 });
	tl_queue(w, &(struct tl_queue){ .name = "q" });
	tl_pod(w, &(struct tl_pod){ .name = "run", .queue = "q", .gpus = "2", .node = busy });
	tl_pod(w, &(struct tl_pod){ .name = "p", .queue = "q", .gpus = "1" });
}

TEST(binpack_prefers_the_fuller_node)
{
	/* the fuller node is n2, so name order would not pick it */
	struct tl_world w;
	placement_world(&w, "n2", false);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "p"));
	ASSERT_STR("n2", tl_node_of(&w, "p"));
	tl_free(&w);
}

TEST(spread_prefers_the_emptier_node)
{
	struct tl_world w;
	placement_world(&w, "n1", true);
	TL_BUILD(&w);
	ASSERT_TRUE(w.c.config.gpu_spread);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "p"));
	ASSERT_STR("n2", tl_node_of(&w, "p"));
	tl_free(&w);
}

TEST(cpu_only_pod_prefers_a_cpu_node)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "a-gpu", .gpus = 4 });
	tl_node(&w, &(struct tl_node){ .name = "b-cpu", .gpus = 0 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "c", .queue = "q", .cpu = "2" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_STR("b-cpu", tl_node_of(&w, "c"));
	tl_free(&w);
}

TEST(taints_reject_nodes_without_toleration)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4,
				       .spec = "taints: [{key: dedicated, value: infer, effect: NoSchedule}]" });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "plain", .queue = "q", .gpus = "1" });
	/* after "plain" n2 has 3 free: a 4-GPU pod fits only the tainted n1 */
	tl_pod(&w, &(struct tl_pod){ .name = "tol", .queue = "q", .gpus = "4",
				     .spec = "tolerations: [{key: dedicated, operator: Equal, "
					     "value: infer, effect: NoSchedule}]" });
	tl_pod(&w, &(struct tl_pod){ .name = "z-big", .queue = "q", .gpus = "3" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_STR("n2", tl_node_of(&w, "plain"));
	ASSERT_STR("n1", tl_node_of(&w, "tol"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "z-big"));
	ASSERT_STR("n2", tl_node_of(&w, "z-big"));
	tl_free(&w);
}

TEST(untolerated_taint_is_the_reason)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4,
				       .spec = "taints: [{key: dedicated, value: infer, effect: NoExecute}]" });
	tl_node(&w, &(struct tl_node){ .name = "soft", .gpus = 4,
				       .spec = "taints: [{key: x, effect: PreferNoSchedule}]" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "p", .queue = "q", .gpus = "1" });
	/* a toleration for another value does not help */
	tl_pod(&w, &(struct tl_pod){ .name = "z-other", .queue = "q", .gpus = "4",
				     .spec = "tolerations: [{key: dedicated, operator: Equal, "
					     "value: train}]" });
	TL_BUILD(&w);
	tl_cycle(&w);
	/* PreferNoSchedule is only a preference */
	ASSERT_STR("soft", tl_node_of(&w, "p"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "z-other"));
	ASSERT_CONTAINS(tl_msg(&w, "z-other"), "1 node(s) had untolerated taint");
	tl_free(&w);
}

TEST(node_selector_and_affinity_are_respected)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4, .labels = "zone: a" });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 4, .labels = "zone: b" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "sel", .queue = "q", .gpus = "1",
				     .spec = "nodeSelector: {zone: b}" });
	tl_pod(&w, &(struct tl_pod){ .name = "aff", .queue = "q", .gpus = "1",
				     .spec = "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
					     "{nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: NotIn, "
					     "values: [b]}]}]}}}" });
	tl_pod(&w, &(struct tl_pod){ .name = "nowhere", .queue = "q", .gpus = "1",
				     .spec = "nodeSelector: {zone: c}" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_STR("n2", tl_node_of(&w, "sel"));
	ASSERT_STR("n1", tl_node_of(&w, "aff"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "nowhere"));
	ASSERT_CONTAINS(tl_msg(&w, "nowhere"), "2 node(s) didn't match Pod's node affinity/selector");
	tl_free(&w);
}

TEST(not_ready_and_cordoned_nodes_are_skipped)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "down", .gpus = 4, .not_ready = true });
	tl_node(&w, &(struct tl_node){ .name = "cordoned", .gpus = 4, .spec = "unschedulable: true" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "p", .queue = "q", .gpus = "1" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p"));
	ASSERT_CONTAINS(tl_msg(&w, "p"), "2 node(s) were not ready or unschedulable");
	tl_free(&w);
}

TEST(gang_grows_past_its_minimum)
{
	/* the gang goes in whole at its minimum, then grows one pod per turn */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_gang(&w, "g", "q", 2, 3, "1", NULL);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(3, w.s.n_binds);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "g-2"));
	ASSERT_STR("", tl_msg(&w, "g"));
	tl_free(&w);
}

TEST(running_job_keeps_its_start_time)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_yaml(&w, "---\n{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: g, "
		    "namespace: default, annotations: {kai.scheduler/last-start-timestamp: "
		    "'2026-01-01T00:10:00Z'}}, spec: {queue: q, minMember: 1}}\n");
	tl_pod(&w, &(struct tl_pod){ .name = "g-0", .pg = "g", .gpus = "1", .node = "n1" });
	tl_pod(&w, &(struct tl_pod){ .name = "g-1", .pg = "g", .gpus = "1" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "g-1"));
	ASSERT_EQ(TL_EPOCH + 600, w.s.jobs[tl_job_idx(&w, "g")].last_start);
	tl_free(&w);
}

TEST(limit_with_fractions)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q", .limit = "1" });
	tl_pod(&w, &(struct tl_pod){ .name = "a", .queue = "q", .annotations = "gpu-fraction: '0.6'" });
	tl_pod(&w, &(struct tl_pod){ .name = "b", .queue = "q", .annotations = "gpu-fraction: '0.6'" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "a"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "b"));
	ASSERT_CONTAINS(tl_msg(&w, "b"), "Limit is 1 GPUs, currently 0.6 GPUs allocated and workload "
					 "requested 0.6 GPUs");
	tl_free(&w);
}

TEST(multi_device_fraction_takes_distinct_gpus)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 2 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "two", .queue = "q",
				     .annotations = "gpu-fraction: '0.5', gpu-fraction-num-devices: '2'" });
	tl_pod(&w, &(struct tl_pod){ .name = "three", .queue = "q",
				     .annotations = "gpu-fraction: '0.5', gpu-fraction-num-devices: '3'" });
	TL_BUILD(&w);
	tl_cycle(&w);
	int32_t two = tl_pod_idx(&w, "two");
	ASSERT_EQ(GT_BINDING, w.s.pods[two].status);
	ASSERT_EQ(2, w.s.pods[two].n_groups);
	ASSERT_TRUE(w.s.pods[two].groups[0] != w.s.pods[two].groups[1]);
	ASSERT_EQ(0, tl_idle_gpus(&w, "n1"));
	ASSERT_EQ(1000, w.s.queues[tl_queue_idx(&w, "q")].allocated[GT_QGPU]);
	/* a node with two GPUs has no three distinct devices */
	ASSERT_EQ(GT_PENDING, tl_status(&w, "three"));
	ASSERT_CONTAINS(tl_msg(&w, "three"), "1 node(s) didn't have enough resources: GPUs");
	tl_free(&w);
}

TEST(spread_opens_a_fresh_gpu_for_a_fraction)
{
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default}, "
		    "spec: {placementStrategy: {gpu: spread}}}\n");
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 2 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "s0", .queue = "q", .node = "n1",
				     .labels = "runai-gpu-group: grp-a",
				     .annotations = "gpu-fraction: '0.5'" });
	tl_pod(&w, &(struct tl_pod){ .name = "f", .queue = "q", .annotations = "gpu-fraction: '0.5'" });
	TL_BUILD(&w);
	tl_cycle(&w);
	int32_t f = tl_pod_idx(&w, "f");
	ASSERT_EQ(GT_BINDING, w.s.pods[f].status);
	ASSERT_TRUE((int64_t)w.s.pods[f].groups[0] != gt_strtab_find(&w.names, "grp-a"));
	ASSERT_EQ(0, tl_idle_gpus(&w, "n1"));
	tl_free(&w);
}

TEST(cpu_and_memory_shortage_reasons)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 0, .cpu = "4", .memory = "8Gi" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "c", .queue = "q", .cpu = "5" });
	tl_pod(&w, &(struct tl_pod){ .name = "m", .queue = "q", .memory = "9Gi" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_STR("Resources were not found for pod default/c due to: no nodes with enough resources "
		   "were found: 1 node(s) didn't have enough resources: CPU cores.", tl_msg(&w, "c"));
	ASSERT_STR("Resources were not found for pod default/m due to: no nodes with enough resources "
		   "were found: 1 node(s) didn't have enough resources: memory.", tl_msg(&w, "m"));
	tl_free(&w);
}

TEST(releasing_cpu_means_pipeline)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 0, .cpu = "4" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "old", .queue = "q", .node = "n1", .deleting = true,
				     .cpu = "3" });
	tl_pod(&w, &(struct tl_pod){ .name = "new", .queue = "q", .cpu = "2" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PIPELINED, tl_status(&w, "new"));
	tl_free(&w);
}

TEST(max_pods_per_node)
{
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "---\n{apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: "
		    "{cpu: '8', memory: 8Gi, pods: '2'}}}\n");
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "r", .queue = "q", .node = "n1" });
	tl_pod(&w, &(struct tl_pod){ .name = "a", .queue = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "b", .queue = "q" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "a"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "b"));
	ASSERT_CONTAINS(tl_msg(&w, "b"), "1 node(s) pod number exceeded");
	tl_free(&w);
}

TEST(pod_anti_affinity_and_affinity)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4, .labels = "kubernetes.io/hostname: n1" });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 4, .labels = "kubernetes.io/hostname: n2" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pg(&w, &(struct tl_pg){ .name = "web", .queue = "q", .min = 2 });
	static const char anti[] = "affinity: {podAntiAffinity: {"
				   "requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: "
				   "kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}";
	static const char near[] = "affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
				   "[{topologyKey: kubernetes.io/hostname, labelSelector: {matchExpressions: "
				   "[{key: app, operator: In, values: [web]}]}}]}}";
	tl_pod(&w, &(struct tl_pod){ .name = "web-0", .pg = "web", .gpus = "1", .labels = "app: web",
				     .spec = anti });
	tl_pod(&w, &(struct tl_pod){ .name = "web-1", .pg = "web", .gpus = "1", .labels = "app: web",
				     .spec = anti });
	/* binpack alone would put web-1 next to web-0; the cache comes later and follows web */
	tl_pod(&w, &(struct tl_pod){ .name = "z-cache", .queue = "q", .gpus = "1", .spec = near,
				     .created = "2026-01-01T00:10:00Z" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "web-0"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "web-1"));
	ASSERT_TRUE(strcmp(tl_node_of(&w, "web-0"), tl_node_of(&w, "web-1")) != 0);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "z-cache"));
	tl_free(&w);
}

TEST(pod_affinity_without_a_partner_waits)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4, .labels = "kubernetes.io/hostname: n1" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "lonely", .queue = "q", .gpus = "1",
				     .spec = "affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
					     "[{topologyKey: kubernetes.io/hostname, labelSelector: "
					     "{matchLabels: {app: db}}}]}}" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "lonely"));
	ASSERT_CONTAINS(tl_msg(&w, "lonely"), "1 node(s) didn't match pod affinity rules");
	tl_free(&w);
}

TEST(nominated_node_is_preferred)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_yaml(&w, "---\n{apiVersion: v1, kind: Pod, metadata: {name: p, labels: {kai.scheduler/queue: q}}, "
		    "spec: {schedulerName: kai-scheduler, containers: [{name: a, resources: {requests: "
		    "{nvidia.com/gpu: '1'}}}]}, status: {phase: Pending, nominatedNodeName: n2}}\n");
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_STR("n2", tl_node_of(&w, "p"));
	tl_free(&w);
}

/* Every piece of node and queue accounting a statement may touch. */
struct books {
	int32_t idle[2], releasing[2];
	uint32_t n_groups[2];
	int64_t cpu[2], rel_cpu[2];
	int64_t alloc[GT_NQRES], alloc_np[GT_NQRES];
};

static void read_books(const struct tl_world *w, int32_t q, struct books *b)
{
	memset(b, 0, sizeof(*b));
	for (int32_t n = 0; n < 2; n++) {
		b->idle[n] = gt_node_idle_gpus(&w->s, n);
		b->releasing[n] = gt_node_releasing_gpus(&w->s, n);
		b->n_groups[n] = w->s.nodes[n].n_groups;
		b->cpu[n] = w->s.nodes[n].used_cpu_milli;
		b->rel_cpu[n] = w->s.nodes[n].rel_cpu_milli;
	}
	memcpy(b->alloc, w->s.queues[q].allocated, sizeof(b->alloc));
	memcpy(b->alloc_np, w->s.queues[q].allocated_np, sizeof(b->alloc_np));
}

TEST(statement_rollback_restores_the_books)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 2 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "run", .queue = "q", .gpus = "1", .node = "n2" });
	tl_pod(&w, &(struct tl_pod){ .name = "whole", .queue = "q", .gpus = "2", .cpu = "3" });
	tl_pod(&w, &(struct tl_pod){ .name = "frac", .queue = "q", .annotations = "gpu-fraction: '0.3'" });
	tl_pod(&w, &(struct tl_pod){ .name = "pipe", .queue = "q", .gpus = "1" });
	TL_BUILD(&w);
	tl_open(&w);
	int32_t q = tl_queue_idx(&w, "q");
	int32_t n1 = tl_node_idx(&w, "n1"), n2 = tl_node_idx(&w, "n2");
	int32_t run = tl_pod_idx(&w, "run"), whole = tl_pod_idx(&w, "whole");
	int32_t frac = tl_pod_idx(&w, "frac"), pipe = tl_pod_idx(&w, "pipe");
	struct books before, during, after;
	read_books(&w, q, &before);
	ASSERT_EQ(4, before.idle[n1]);
	ASSERT_EQ(1, before.idle[n2]);

	size_t cp = gt_stmt_checkpoint(&w.s);
	gt_stmt_allocate(&w.s, whole, n1, NULL, 0);
	struct gt_fit fit;
	gt_fit_resources(&w.s, frac, n1, &fit);
	ASSERT_TRUE(fit.ok && fit.n_groups == 1);
	gt_stmt_allocate(&w.s, frac, n1, fit.groups, fit.n_groups);
	gt_stmt_evict(&w.s, run, GT_NONE);
	gt_stmt_pipeline(&w.s, pipe, n2, NULL, 0);
	read_books(&w, q, &during);
	ASSERT_EQ(1, during.idle[n1]);		/* 4 - 2 whole - 1 shared device */
	ASSERT_EQ(1, during.n_groups[n1]);
	ASSERT_EQ(0, during.releasing[n2]);	/* run's GPU is claimed by pipe */
	ASSERT_EQ(GT_RELEASING, w.s.pods[run].status);
	/* whole + frac + pipe (pipelined counts, as in KAI); run is leaving */
	ASSERT_EQ(3300, during.alloc[GT_QGPU]);

	gt_stmt_rollback(&w.s, cp);
	read_books(&w, q, &after);
	ASSERT_TRUE(!memcmp(&before, &after, sizeof(before)));
	ASSERT_EQ(0, w.s.n_ops);
	ASSERT_EQ(0, w.s.n_binds);
	ASSERT_EQ(0, w.s.n_pipelines);
	ASSERT_EQ(0, w.s.n_evictions);
	ASSERT_EQ(GT_RUNNING, w.s.pods[run].status);
	ASSERT_EQ(n2, w.s.pods[run].node);
	ASSERT_EQ(GT_PENDING, w.s.pods[whole].status);
	ASSERT_EQ(GT_NONE, w.s.pods[whole].node);
	ASSERT_EQ(GT_PENDING, w.s.pods[frac].status);
	ASSERT_EQ(0, w.s.pods[frac].n_groups);
	ASSERT_EQ(GT_PENDING, w.s.pods[pipe].status);
	tl_free(&w);
}

TEST(nested_checkpoints)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4 });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 4 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "a", .queue = "q", .gpus = "1" });
	tl_pod(&w, &(struct tl_pod){ .name = "b", .queue = "q", .gpus = "2" });
	TL_BUILD(&w);
	tl_open(&w);
	int32_t n1 = tl_node_idx(&w, "n1");
	size_t outer = gt_stmt_checkpoint(&w.s);
	gt_stmt_allocate(&w.s, tl_pod_idx(&w, "a"), n1, NULL, 0);
	size_t inner = gt_stmt_checkpoint(&w.s);
	gt_stmt_allocate(&w.s, tl_pod_idx(&w, "b"), n1, NULL, 0);
	ASSERT_EQ(1, gt_node_idle_gpus(&w.s, n1));
	gt_stmt_rollback(&w.s, inner);
	ASSERT_EQ(3, gt_node_idle_gpus(&w.s, n1));
	ASSERT_EQ(GT_ALLOCATED, tl_status(&w, "a"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "b"));
	gt_stmt_rollback(&w.s, outer);
	ASSERT_EQ(4, gt_node_idle_gpus(&w.s, n1));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "a"));
	tl_free(&w);
}

/* A cluster with a bit of everything, for the determinism check. */
static void busy_world(struct tl_world *w)
{
	tl_init(w);
	for (int i = 0; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "node-%d", i);
		tl_node(w, &(struct tl_node){ .name = name, .gpus = 2 + i % 3 });
	}
	tl_queue(w, &(struct tl_queue){ .name = "dept" });
	tl_queue(w, &(struct tl_queue){ .name = "qa", .parent = "dept", .quota = "3", .weight = "2" });
	tl_queue(w, &(struct tl_queue){ .name = "qb", .parent = "dept", .quota = "2" });
	tl_queue(w, &(struct tl_queue){ .name = "qc", .quota = "1", .limit = "4" });
	tl_gang(w, "ga", "qa", 2, 3, "1", NULL);
	tl_gang(w, "gb", "qb", 3, 3, "2", NULL);
	tl_gang(w, "gc", "qc", 1, 5, "1", NULL);
	for (int i = 0; i < 6; i++) {
		char name[16];
		snprintf(name, sizeof(name), "frac-%d", i);
		tl_pod(w, &(struct tl_pod){ .name = name, .queue = i % 2 ? "qa" : "qb",
					    .annotations = "gpu-fraction: '0.3'" });
	}
	tl_pod(w, &(struct tl_pod){ .name = "running", .queue = "qc", .gpus = "1", .node = "node-1" });
}

static bool same_pod_state(const struct gt_pod_state *x, const struct gt_pod_state *y)
{
	if (x->status != y->status || x->node != y->node || x->n_groups != y->n_groups)
		return false;
	for (uint8_t g = 0; g < x->n_groups; g++)
		if (x->groups[g] != y->groups[g])
			return false;
	return true;
}

TEST(determinism)
{
	struct tl_world a, b;
	busy_world(&a);
	TL_BUILD(&a);
	busy_world(&b);
	if (tl_build(&b)) {
		tl_free(&a);
		tl_free(&b);
		ASSERT_TRUE(false);
	}
	tl_cycle(&a);
	tl_cycle(&b);
	ASSERT_EQ(a.c.n_pods, b.c.n_pods);
	bool same = true;
	for (uint32_t i = 0; i < a.c.n_pods; i++)
		same &= same_pod_state(&a.s.pods[i], &b.s.pods[i]);
	for (uint32_t j = 0; j < a.c.n_jobs; j++)
		same &= !strcmp(tl_msg(&a, gt_strtab_str(&a.names, a.c.jobs[j].name)),
				tl_msg(&b, gt_strtab_str(&b.names, b.c.jobs[j].name)));
	/* and the same snapshot run again gives the same outcome as well */
	struct gt_pod_state *first = malloc(a.c.n_pods * sizeof(*first));
	memcpy(first, a.s.pods, a.c.n_pods * sizeof(*first));
	uint32_t binds = a.s.n_binds;
	tl_cycle(&a);
	for (uint32_t i = 0; i < a.c.n_pods; i++)
		same &= same_pod_state(&first[i], &a.s.pods[i]);
	free(first);
	same &= binds == a.s.n_binds && binds > 0;
	tl_free(&a);
	tl_free(&b);
	ASSERT_TRUE(same);
}

TEST(job_not_ready_below_min_member)
{
	/* a gang whose pods do not all exist yet is not attempted */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_gang(&w, "g", "q", 3, 2, "1", NULL);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "g-0"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "g-1"));
	ASSERT_EQ(0, w.s.n_binds);
	tl_free(&w);
}

TEST(job_in_parent_queue_is_not_scheduled)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_queue(&w, &(struct tl_queue){ .name = "dept" });
	tl_queue(&w, &(struct tl_queue){ .name = "team", .parent = "dept" });
	tl_pod(&w, &(struct tl_pod){ .name = "p", .queue = "dept", .gpus = "1" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PENDING, tl_status(&w, "p"));
	ASSERT_CONTAINS(tl_msg(&w, "p"), "dept");
	tl_free(&w);
}

TEST(fit_error_reasons_sorted_and_newline_joined)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4, .labels = "zone: a" });
	tl_node(&w, &(struct tl_node){ .name = "n2", .gpus = 0, .labels = "zone: b" });
	tl_node(&w, &(struct tl_node){ .name = "n3", .gpus = 0, .labels = "zone: b" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "p", .queue = "q", .gpus = "1", .spec = "nodeSelector: {zone: b}" });
	TL_BUILD(&w);
	tl_cycle(&w);
	/* KAI TasksFitErrors.Error(): "<count> <reason>" strings sorted, joined by ". \n" */
	ASSERT_STR("Resources were not found for pod default/p due to: no nodes with enough resources "
		   "were found: 1 node(s) didn't match Pod's node affinity/selector. \n"
		   "2 node(s) didn't have enough resources: GPUs.", tl_msg(&w, "p"));
	tl_free(&w);
}

TEST(fit_error_lists_every_short_resource_of_a_node)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 4, .cpu = "4", .memory = "8Gi" });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "p", .queue = "q", .cpu = "5", .memory = "9Gi", .gpus = "5" });
	TL_BUILD(&w);
	tl_cycle(&w);
	/* KAI NewFitErrorInsufficientResource appends GPUs, CPU cores and memory */
	ASSERT_CONTAINS(tl_msg(&w, "p"), "no nodes with enough resources were found: "
					 "1 node(s) didn't have enough resources: CPU cores. \n"
					 "1 node(s) didn't have enough resources: GPUs. \n"
					 "1 node(s) didn't have enough resources: memory.");
	tl_free(&w);
}

TEST(releasing_pod_slot_means_pipeline)
{
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "---\n{apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: "
		    "{cpu: '8', memory: 8Gi, pods: '1'}}}\n");
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pod(&w, &(struct tl_pod){ .name = "old", .queue = "q", .node = "n1", .deleting = true });
	tl_pod(&w, &(struct tl_pod){ .name = "new", .queue = "q" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_PIPELINED, tl_status(&w, "new"));
	tl_free(&w);
}

/* The --actions list both commands take: names in any order, commas and/or spaces. */
TEST(action_list_parses_and_names_the_bad_one)
{
	unsigned mask;
	char bad[16];
	ASSERT_EQ(0, gt_actions_parse("reclaim, allocate", &mask, bad, sizeof(bad)));
	ASSERT_EQ((1u << GT_ACT_ALLOCATE) | (1u << GT_ACT_RECLAIM), mask);
	ASSERT_EQ(0, gt_actions_parse("allocate,consolidation,reclaim,preempt,stalegangeviction", &mask, bad,
				       sizeof(bad)));
	ASSERT_EQ(GT_ACTIONS_ALL, mask);
	ASSERT_EQ(-1, gt_actions_parse("allocate,backfill", &mask, bad, sizeof(bad)));
	ASSERT_STR("backfill", bad);
	ASSERT_EQ(-1, gt_actions_parse("an-action-name-far-too-long", &mask, bad, sizeof(bad)));
	ASSERT_STR("an-action-name-", bad);
}

const struct gt_test gt_tests[] = {
	T(min_subgroup_hundred_replicas),
	T(configmap_missing_job_does_not_preempt),
	T(configmap_predicate),
	T(preferred_pod_affinity_scores),
	T(pod_anti_affinity_namespaces),
	T(host_ports_spread_pods),
	T(queue_display_name_in_messages),
	T(topology_level_by_alias),
	T(min_subgroup_two_of_three_replicas),
	T(preemption_delay_holds_the_preemptor),
	T(preemption_delay_elapsed_preempts),
	T(preemption_delay_rearmed_by_last_eviction),
	T(action_list_parses_and_names_the_bad_one),
	T(releasing_pod_slot_means_pipeline),
	T(fit_error_lists_every_short_resource_of_a_node),
	T(fit_error_reasons_sorted_and_newline_joined),
	T(gang_is_all_or_nothing),
	T(failed_gang_leaves_room_for_others),
	T(gang_needing_releasing_resources_is_pipelined_whole),
	T(single_pod_waiting_for_releasing_is_pipelined),
	T(elastic_job_takes_what_fits),
	T(elastic_jobs_take_turns),
	T(limit_refuses_a_job),
	T(limit_counts_what_is_allocated),
	T(parent_limit_applies_to_children),
	T(non_preemptible_over_quota_is_refused),
	T(non_preemptible_within_quota_is_allocated),
	T(fractions_share_one_gpu),
	T(whole_gpu_never_lands_on_a_shared_device),
	T(full_shared_gpu_opens_a_new_device),
	T(gpu_memory_pod_goes_to_a_node_with_memory_label),
	T(gpu_memory_pod_without_labelled_node_waits),
	T(binpack_prefers_the_fuller_node),
	T(spread_prefers_the_emptier_node),
	T(cpu_only_pod_prefers_a_cpu_node),
	T(taints_reject_nodes_without_toleration),
	T(untolerated_taint_is_the_reason),
	T(node_selector_and_affinity_are_respected),
	T(not_ready_and_cordoned_nodes_are_skipped),
	T(statement_rollback_restores_the_books),
	T(nested_checkpoints),
	T(determinism),
	T(job_not_ready_below_min_member),
	T(job_in_parent_queue_is_not_scheduled),
	T(gang_grows_past_its_minimum),
	T(running_job_keeps_its_start_time),
	T(limit_with_fractions),
	T(multi_device_fraction_takes_distinct_gpus),
	T(spread_opens_a_fresh_gpu_for_a_fraction),
	T(cpu_and_memory_shortage_reasons),
	T(releasing_cpu_means_pipeline),
	T(max_pods_per_node),
	T(pod_anti_affinity_and_affinity),
	T(pod_affinity_without_a_partner_waits),
	T(nominated_node_is_preferred),
	{ 0 }
};
