/*
 * kai_benchmarks.c - KAI v0.17's benchmark topologies and their verdicts
 *
 * The builders follow KAI's createBenchmarkTopology*, the unschedulable
 * distributed job's params, the missing-PVC params, and the large-job and
 * many-single-GPU reclaim params line by line; comments give KAI's numbers.
 */
#include "kai_benchmarks.h"

#include <stdio.h>
#include <string.h>

#include "core/actions.h"
#include "core/plan.h"

#define A(x) (1u << GT_ACT_##x)
#define ALL_FIVE GT_ACTIONS_ALL

/* ---------------------------------------------------------------- benchmark_test.go */

/* The four queues under two departments every createBenchmarkTopology* shares. */
static void four_queues(struct kf_manifest *m, uint32_t nodes)
{
	double total = nodes * 8.0;
	kf_department(m, "dept-a", total / 2, 0);
	kf_department(m, "dept-b", total / 2, 1);
	static const char *const parent[] = { "dept-a", "dept-a", "dept-b", "dept-b" };
	for (uint32_t q = 0; q < 4; q++) {
		char name[16];
		snprintf(name, sizeof(name), "queue-%u", q);
		kf_queue(m, &(struct kf_queue){ .name = name, .parent = parent[q],
						.gpu_quota = total / 4, .gpu_weight = 1, .index = q });
	}
}

static void gpu_nodes(struct kf_manifest *m, uint32_t n, const char *fmt)
{
	for (uint32_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), fmt, i);
		kf_node(m, &(struct kf_node){ .name = name, .gpus = 8 });
	}
}

enum job_mix { ALL_PENDING, ALL_RUNNING, HALF_RUNNING };

/* createBenchmarkTopology / ...WithRunningJobs / ...WithMixedJobs */
static void build_four_queue_jobs(const struct kb_shape *sh, struct kf_manifest *m, enum job_mix mix)
{
	kf_shard(m, NULL);
	gpu_nodes(m, sh->nodes, "node-%u");
	four_queues(m, sh->nodes);
	kf_priority_class(m, 50);
	for (uint32_t i = 0; i < sh->param; i++) {
		char name[32], queue[16], node[32];
		snprintf(name, sizeof(name), "job-%u", i);
		snprintf(queue, sizeof(queue), "queue-%u", i % 4);
		snprintf(node, sizeof(node), "node-%u", i % sh->nodes);
		bool running = mix == ALL_RUNNING || (mix == HALF_RUNNING && i % 2 == 0);
		kf_job(m, &(struct kf_job){ .name = name, .queue = queue, .gpus = 1, .n_tasks = 1,
					    .task_node = running ? node : NULL });
	}
}

static void build_pending(const struct kb_shape *sh, struct kf_manifest *m)
{
	build_four_queue_jobs(sh, m, ALL_PENDING);
}

static void build_running(const struct kb_shape *sh, struct kf_manifest *m)
{
	build_four_queue_jobs(sh, m, ALL_RUNNING);
}

static void build_mixed(const struct kb_shape *sh, struct kf_manifest *m)
{
	build_four_queue_jobs(sh, m, HALF_RUNNING);
}

/* createBenchmarkTopologyWithManyQueues(50, 200, 20) */
static void build_many_queues(const struct kb_shape *sh, struct kf_manifest *m)
{
	const uint32_t n_queues = 20, n_depts = (n_queues + 3) / 4;
	double total = sh->nodes * 8.0;
	kf_shard(m, NULL);
	gpu_nodes(m, sh->nodes, "node-%u");
	for (uint32_t d = 0; d < n_depts; d++) {
		char name[16];
		snprintf(name, sizeof(name), "dept-%u", d);
		kf_department(m, name, total / n_depts, d);
	}
	for (uint32_t q = 0; q < n_queues; q++) {
		char name[16], parent[16];
		snprintf(name, sizeof(name), "queue-%u", q);
		snprintf(parent, sizeof(parent), "dept-%u", q % n_depts);
		kf_queue(m, &(struct kf_queue){ .name = name, .parent = parent,
						.gpu_quota = total / n_queues, .gpu_weight = 1,
						.index = q });
	}
	kf_priority_class(m, 50);
	for (uint32_t i = 0; i < sh->param; i++) {
		char name[32], queue[16];
		snprintf(name, sizeof(name), "job-%u", i);
		snprintf(queue, sizeof(queue), "queue-%u", i % n_queues);
		kf_job(m, &(struct kf_job){ .name = name, .queue = queue, .gpus = 1, .n_tasks = 1 });
	}
}

/* createBenchmarkTopologyWithGangJobs(50, 100, 4) */
static void build_gangs(const struct kb_shape *sh, struct kf_manifest *m)
{
	kf_shard(m, NULL);
	gpu_nodes(m, sh->nodes, "node-%u");
	four_queues(m, sh->nodes);
	kf_priority_class(m, 50);
	for (uint32_t i = 0; i < sh->param; i++) {
		char name[32], queue[16];
		snprintf(name, sizeof(name), "job-%u", i);
		snprintf(queue, sizeof(queue), "queue-%u", i % 4);
		kf_job(m, &(struct kf_job){ .name = name, .queue = queue, .gpus = 1, .n_tasks = 4 });
	}
}

/* ---------------------------------------------------------------- reclaim_benchmark_test.go */

enum { DIST_PROPORTION, DIST_ANTI_AFFINITY, DIST_TOPOLOGY };
#define DIST_RACK_KEY "benchmark.kai.scheduler/rack"
#define DIST_PODS 10

/*
 * buildUnschedulableDistributedReclaimBenchmarkTopology: N nodes x 8 GPUs
 * full of 8N one-GPU jobs of queue-0, one pending job of 10 x 8 GPUs in
 * queue-1 that can never run: queue-0's quota leaves queue-1 one GPU short
 * (proportion), or its pods repel each other across 9 racks
 * (anti-affinity), or it needs one rack of at most 9 nodes (topology).
 */
static void build_distributed(const struct kb_shape *sh, struct kf_manifest *m)
{
	uint32_t n = sh->nodes, mode = sh->param;
	uint32_t racks = mode == DIST_ANTI_AFFINITY ? DIST_PODS - 1 : mode == DIST_TOPOLOGY ? DIST_PODS + 2 : 0;
	double q0 = n * 8.0 - DIST_PODS * 8 + (mode == DIST_PROPORTION ? 1 : 0);
	kf_shard(m, NULL);
	for (uint32_t i = 0; i < n; i++) {
		char name[32], labels[64];
		snprintf(name, sizeof(name), "node%u", i);
		if (racks)
			snprintf(labels, sizeof(labels), DIST_RACK_KEY ": rack-%u", i % racks);
		kf_node(m, &(struct kf_node){ .name = name, .gpus = 8, .labels = racks ? labels : NULL });
	}
	if (mode == DIST_TOPOLOGY)
		kf_printf(m, "---\n{apiVersion: kai.scheduler/v1alpha1, kind: Topology, metadata: "
			     "{name: benchmark-topology}, spec: {levels: [{nodeLabel: " DIST_RACK_KEY "}]}}\n");
	kf_default_department(m);
	kf_queue(m, &(struct kf_queue){ .name = "queue-0", .gpu_quota = q0, .index = 0 });
	kf_queue(m, &(struct kf_queue){ .name = "queue-1", .gpu_quota = DIST_PODS * 8, .index = 1 });
	kf_priority_class(m, 50);
	for (uint32_t i = 0; i < 8 * n; i++) {
		char name[32], node[32];
		snprintf(name, sizeof(name), "running-job-%u", i);
		snprintf(node, sizeof(node), "node%u", i % n);
		kf_job(m, &(struct kf_job){ .name = name, .queue = "queue-0", .gpus = 1, .n_tasks = 1,
					    .task_node = node });
	}
	struct kf_job dj = { .name = "unschedulable-distributed-job", .queue = "queue-1", .gpus = 8,
			     .n_tasks = DIST_PODS };
	if (mode == DIST_ANTI_AFFINITY) {
		dj.anti_affinity_label = "benchmark.kai.scheduler/job: distributed-reclaimer";
		dj.anti_affinity_key = DIST_RACK_KEY;
	}
	if (mode == DIST_TOPOLOGY) {
		dj.topology = "benchmark-topology";
		dj.topology_level = DIST_RACK_KEY;
	}
	kf_job(m, &dj);
}

/* reclaim_missing_pvc_benchmark_test.go: 1500 CPU nodes, 7370 running jobs, 3 blocked ones */
static const char *const scale_cpu[] = { "0.5", "0.75", "1", "1.25", "1.5", "1.75", "2", "2.25",
					 "2.5", "2.75", "3", "3.25", "3.5", "3.75", "4", "4.25",
					 "4.5", "4.75", "5" };

static void build_missing_pvc(const struct kb_shape *sh, struct kf_manifest *m)
{
	kf_shard(m, NULL);
	for (uint32_t i = 0; i < sh->nodes; i++) {
		char name[32];
		snprintf(name, sizeof(name), "cpu-node-%04u", i);
		kf_node(m, &(struct kf_node){ .name = name, .gpus = 0, .cpu = "80" });
	}
	kf_default_department(m);
	/* DeservedCPUs 500000 (millicores), MaxAllowedGPUs 0 (unlimited), priorities 100 and 210 */
	kf_queue(m, &(struct kf_queue){ .name = "test-cpu", .cpu_quota = "500000", .priority = 100,
					.index = 0 });
	kf_queue(m, &(struct kf_queue){ .name = "reclaim-cpu", .cpu_quota = "-1", .priority = 210,
					.index = 1 });
	kf_priority_class(m, 50);
	for (uint32_t i = 0; i < sh->param; i++) {
		char name[40], node[32];
		snprintf(name, sizeof(name), "occupied-cpu-job-%04u", i);
		snprintf(node, sizeof(node), "cpu-node-%04u", i % sh->nodes);
		kf_job(m, &(struct kf_job){ .name = name, .ns = "runai-test", .queue = "test-cpu",
					    .cpu = scale_cpu[i % (sizeof(scale_cpu) / sizeof(*scale_cpu))],
					    .n_tasks = 1, .task_node = node });
	}
	for (uint32_t i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof(name), "missing-pvc-job-%u", i);
		kf_job(m, &(struct kf_job){ .name = name, .ns = "runai-reclaim", .queue = "reclaim-cpu",
					    .cpu = "0.5", .n_tasks = 1, .pvc = "busybox-missing-pvc" });
	}
}

/* ---------------------------------------------------------------- integration_tests/reclaim */

/* buildLargeJobReclaimTopology: 8N one-GPU jobs of queue-0 (quota 0), N/2 x 8 GPUs pending in queue-1 */
static void build_large_jobs(const struct kb_shape *sh, struct kf_manifest *m)
{
	uint32_t n = sh->nodes;
	kf_shard(m, NULL);
	gpu_nodes(m, n, "node%u");
	kf_default_department(m);
	kf_queue(m, &(struct kf_queue){ .name = "queue-0", .gpu_quota = 0, .index = 0 });
	kf_queue(m, &(struct kf_queue){ .name = "queue-1", .gpu_quota = n * 8.0, .index = 1 });
	kf_priority_class(m, 50);
	for (uint32_t i = 0; i < 8 * n; i++) {
		char name[32], node[32];
		snprintf(name, sizeof(name), "running-job-%u", i);
		snprintf(node, sizeof(node), "node%u", i % n);
		kf_job(m, &(struct kf_job){ .name = name, .queue = "queue-0", .gpus = 1, .n_tasks = 1,
					    .task_node = node });
	}
	kf_job(m, &(struct kf_job){ .name = "very-large-job", .queue = "queue-1", .gpus = 8,
				    .n_tasks = n / 2 });
}

/* buildManySingleGPUJobsReclaimTopology: 8N running one-GPU jobs, 8N pending ones; param 1: min-runtime */
static void build_many_single(const struct kb_shape *sh, struct kf_manifest *m)
{
	uint32_t n = sh->nodes;
	kf_shard(m, NULL);
	gpu_nodes(m, n, "node%u");
	kf_default_department(m);
	kf_queue(m, &(struct kf_queue){ .name = "many-single-gpu-running-queue", .index = 0,
					.reclaim_min_runtime = sh->param ? "30s" : NULL });
	kf_queue(m, &(struct kf_queue){ .name = "many-single-gpu-pending-queue",
					.gpu_quota = n * 8.0, .index = 1 });
	kf_priority_class(m, 50);
	for (uint32_t i = 0; i < 8 * n; i++) {
		char name[48], node[32];
		snprintf(name, sizeof(name), "many-single-gpu-running-job-%u", i);
		snprintf(node, sizeof(node), "node%u", i % n);
		kf_job(m, &(struct kf_job){ .name = name, .queue = "many-single-gpu-running-queue",
					    .gpus = 1, .n_tasks = 1, .task_node = node });
	}
	for (uint32_t i = 0; i < 8 * n; i++) {
		char name[48];
		snprintf(name, sizeof(name), "many-single-gpu-pending-job-%u", i);
		kf_job(m, &(struct kf_job){ .name = name, .queue = "many-single-gpu-pending-queue",
					    .gpus = 1, .n_tasks = 1 });
	}
}

/* ---------------------------------------------------------------- verdicts */

static bool name_has_prefix(const struct gt_session *s, uint32_t name, const char *prefix)
{
	return !strncmp(gt_strtab_str(s->c->names, name), prefix, strlen(prefix));
}

uint32_t kb_count(const struct gt_session *s, const char *prefix, enum gt_status st)
{
	uint32_t n = 0;
	for (uint32_t j = 0; j < s->c->n_jobs; j++) {
		const struct gt_job *job = &s->c->jobs[j];
		if (!name_has_prefix(s, job->name, prefix))
			continue;
		for (uint32_t i = 0; i < job->n_pods; i++)
			n += s->pods[job->pods[i]].status == st;
	}
	return n;
}

/* Pods that ran at the start and are pipelined now: moved by consolidation. */
static uint32_t moved_pods(const struct gt_session *s)
{
	uint32_t n = 0;
	for (uint32_t p = 0; p < s->c->n_pods; p++)
		n += s->pods[p].status == GT_PIPELINED && s->c->pods[p].status == GT_RUNNING;
	return n;
}

static bool failf(char *why, size_t len, const char *fmt, uint32_t a, uint32_t b)
{
	snprintf(why, len, fmt, a, b);
	return false;
}

/* assertVeryLargeJobReclaimed: nothing pending, N/2 pipelined, 8 victims per task; KAI: the same */
static bool check_large_jobs(const struct kb_shape *sh, const struct gt_session *s, char *why,
			     size_t len)
{
	uint32_t tasks = sh->nodes / 2;
	uint32_t pending = kb_count(s, "very-large-job", GT_PENDING);
	uint32_t pipelined = kb_count(s, "very-large-job", GT_PIPELINED);
	uint32_t releasing = kb_count(s, "running-job-", GT_RELEASING);
	if (pending)
		return failf(why, len, "%u tasks still pending%.0u", pending, 0);
	if (pipelined != tasks)
		return failf(why, len, "%u tasks pipelined, KAI %u", pipelined, tasks);
	if (releasing != 8 * tasks)
		return failf(why, len, "%u victims releasing, KAI %u", releasing, 8 * tasks);
	return true;
}

/* KAI: every running job gives its one pod, every pending job is pipelined, nothing bound */
static bool check_many_single(const struct kb_shape *sh, const struct gt_session *s, char *why,
			      size_t len)
{
	uint32_t jobs = 8 * sh->nodes;
	uint32_t releasing = kb_count(s, "many-single-gpu-running-job-", GT_RELEASING);
	uint32_t pipelined = kb_count(s, "many-single-gpu-pending-job-", GT_PIPELINED);
	if (releasing != jobs)
		return failf(why, len, "%u running jobs releasing, KAI %u", releasing, jobs);
	if (pipelined != jobs)
		return failf(why, len, "%u pending jobs pipelined, KAI %u", pipelined, jobs);
	return true;
}

/* KAI: the distributed job stays pending (the bounds forbid any operation) */
static bool check_distributed(const struct kb_shape *sh, const struct gt_session *s, char *why,
			      size_t len)
{
	(void)sh;
	uint32_t pending = kb_count(s, "unschedulable-distributed-job", GT_PENDING);
	if (pending != DIST_PODS)
		return failf(why, len, "%u of %u pods still pending", pending, DIST_PODS);
	return true;
}

/* TestMissingPVC...: pending, with the volume binding error; KAI: no eviction, no pipeline */
static bool check_missing_pvc(const struct kb_shape *sh, const struct gt_session *s, char *why,
			      size_t len)
{
	(void)sh;
	uint32_t pending = kb_count(s, "missing-pvc-job-", GT_PENDING);
	if (pending != 3)
		return failf(why, len, "%u of %u blocked jobs pending", pending, 3);
	for (uint32_t j = 0; j < s->c->n_jobs; j++) {
		if (!name_has_prefix(s, s->c->jobs[j].name, "missing-pvc-job-"))
			continue;
		const char *msg = s->jobs[j].message;
		if (!msg || !strstr(msg, "persistentvolumeclaim \"busybox-missing-pvc\" not found"))
			return failf(why, len, "job %u has no missing-PVC message%.0u", j, 0);
	}
	return true;
}

/* KAI moves 1 job (Small) or 2 (Medium) and pipelines every pending job */
static bool check_consolidation(const struct kb_shape *sh, const struct gt_session *s, char *why,
				size_t len)
{
	uint32_t want_moved = sh->nodes == 10 ? 1 : 2;
	uint32_t pending_jobs = sh->param / 2;
	uint32_t moved = moved_pods(s);
	uint32_t pipelined = kb_count(s, "job-", GT_PIPELINED) - moved;
	if (moved > want_moved)
		return failf(why, len, "%u running jobs moved, KAI %u", moved, want_moved);
	struct kb_ops ops;	/* a moved pod leaves its node: an eviction there */
	kb_ops(s, &ops);
	if (ops.evictions != moved)
		return failf(why, len, "%u evictions for %u moved pods", ops.evictions, moved);
	if (pipelined != pending_jobs)
		return failf(why, len, "%u pending jobs pipelined, KAI %u", pipelined, pending_jobs);
	return true;
}

void kb_ops(const struct gt_session *s, struct kb_ops *out)
{
	struct gt_plan p;
	gt_plan_build(&p, s, NULL);
	*out = (struct kb_ops){ p.n_binds, p.n_evictions, p.n_pipelines };
	gt_plan_release(&p);
}

/* KAI's mocks count calls that reach the cluster: the plan's operations, not the session's steps. */
static bool within_bounds(const struct kb_shape *sh, const struct kb_ops *ops, char *why, size_t len)
{
	const struct kb_bounds *b = &sh->bounds;
	if (ops->binds > b->binds)
		return failf(why, len, "%u binds, KAI's mock allows %u", ops->binds, b->binds);
	if (ops->evictions > b->evictions)
		return failf(why, len, "%u evictions, KAI's mock allows %u", ops->evictions, b->evictions);
	if (ops->pipelines > b->pipelines)
		return failf(why, len, "%u pipelines, KAI's mock allows %u", ops->pipelines, b->pipelines);
	if (sh->kai_evictions >= 0 && ops->evictions > (uint32_t)sh->kai_evictions)
		return failf(why, len, "%u evictions, KAI makes %u", ops->evictions, (uint32_t)sh->kai_evictions);
	return true;
}

bool kb_verdict(const struct kb_shape *sh, const struct gt_session *s, char *why, size_t len)
{
	snprintf(why, len, "ok");
	struct kb_ops ops;
	kb_ops(s, &ops);
	if (!within_bounds(sh, &ops, why, len))
		return false;
	return !sh->check || sh->check(sh, s, why, len);
}

void kb_build(const struct kb_shape *sh, struct kf_manifest *m)
{
	uint32_t jobs = sh->param;
	if (sh->build == build_distributed)
		jobs = 8 * sh->nodes + 1;
	else if (sh->build == build_missing_pvc)
		jobs = sh->param + 3;
	else if (sh->build == build_large_jobs)
		jobs = 8 * sh->nodes + 1;
	else if (sh->build == build_many_single)
		jobs = 16 * sh->nodes;
	kf_init(m, jobs);
	sh->build(sh, m);
}

/* ---------------------------------------------------------------- the table */

#define BENCH "pkg/scheduler/actions/benchmark_test.go"
#define RECLAIM "pkg/scheduler/actions/reclaim/reclaim_benchmark_test.go"
#define PVC "pkg/scheduler/actions/reclaim/reclaim_missing_pvc_benchmark_test.go"
#define INTEG "pkg/scheduler/actions/integration_tests/reclaim/reclaim_benchmark_test.go"

/* mock bounds of createBenchmarkTopology*: binds 2J; + evictions J; + pipelines 2J */
#define B_PENDING(j) { 2 * (j), 0, 0 }
#define B_RUNNING(j) { 2 * (j), (j), 0 }
#define B_MIXED(j) { 2 * (j), (j), 2 * (j) }
#define B_GANG { 100 * 4 * 2, 0, 0 }	/* NumberOfCacheBinds: jobs x tasks x 2 */

#define SIMPLE(nm, sz, act, n, j, bld, bnd, kev) { nm, sz, BENCH, act, n, j, bld, bnd, NULL, "", kev }
#define DIST(sz, n, mode) { "ReclaimUnschedulableDistributedJob", sz, RECLAIM, A(RECLAIM), n, mode, \
			    build_distributed, { 0, 0, 0 }, check_distributed, \
			    "the job stays pending, no operation at all", 0 }
#define LARGE(sz, n) { "ReclaimLargeJobs", sz, INTEG, A(RECLAIM), n, 0, build_large_jobs, \
		       { 4 * (n), 10 * (n), 10 * (n) }, check_large_jobs, \
		       "all N/2 tasks pipelined, 4N victims releasing", 4 * (n) }
#define SINGLE(nm, sz, n, mr) { nm, sz, INTEG, ALL_FIVE, n, mr, build_many_single, \
				{ 0, 8 * (n), 8 * (n) }, check_many_single, \
				"8N releasing, 8N pipelined, no binds", 8 * (n) }

static const struct kb_shape shapes[] = {
	SIMPLE("AllocateAction", "SmallCluster", A(ALLOCATE), 10, 50, build_pending, B_PENDING(50), 0),
	SIMPLE("AllocateAction", "MediumCluster", A(ALLOCATE), 50, 200, build_pending, B_PENDING(200), 0),
	SIMPLE("AllocateAction", "LargeCluster", A(ALLOCATE), 100, 500, build_pending, B_PENDING(500), 0),
	SIMPLE("ReclaimAction", "SmallCluster", A(RECLAIM), 10, 50, build_running, B_RUNNING(50), 0),
	SIMPLE("ReclaimAction", "MediumCluster", A(RECLAIM), 50, 200, build_running, B_RUNNING(200), 0),
	SIMPLE("PreemptAction", "SmallCluster", A(PREEMPT), 10, 50, build_mixed, B_MIXED(50), -1),
	SIMPLE("PreemptAction", "MediumCluster", A(PREEMPT), 50, 200, build_mixed, B_MIXED(200), -1),
	{ "ConsolidationAction", "SmallCluster", BENCH, A(CONSOLIDATION), 10, 50, build_mixed,
	  B_MIXED(50), check_consolidation, "moves 1 running job, 26 pods pipelined", 1 },
	{ "ConsolidationAction", "MediumCluster", BENCH, A(CONSOLIDATION), 50, 200, build_mixed,
	  B_MIXED(200), check_consolidation, "moves 2 running jobs, 102 pods pipelined", 2 },
	SIMPLE("FullSchedulingCycle", "SmallCluster", ALL_FIVE, 10, 50, build_mixed, B_MIXED(50), -1),
	SIMPLE("FullSchedulingCycle", "MediumCluster", ALL_FIVE, 50, 200, build_mixed, B_MIXED(200), -1),
	SIMPLE("FullSchedulingCycle", "LargeCluster", ALL_FIVE, 100, 500, build_mixed, B_MIXED(500), -1),
	SIMPLE("ManyQueues", "MediumCluster", A(ALLOCATE), 50, 200, build_many_queues, B_PENDING(200), 0),
	SIMPLE("GangScheduling", "MediumCluster", A(ALLOCATE), 50, 100, build_gangs, B_GANG, 0),
	DIST("10Node", 10, DIST_PROPORTION),
	DIST("50Node", 50, DIST_PROPORTION),
	DIST("100Node", 100, DIST_PROPORTION),
	DIST("AntiAffinity100Node", 100, DIST_ANTI_AFFINITY),
	DIST("Topology100Node", 100, DIST_TOPOLOGY),
	DIST("200Node", 200, DIST_PROPORTION),
	DIST("500Node", 500, DIST_PROPORTION),
	DIST("1000Node", 1000, DIST_PROPORTION),
	{ "ReclaimWithMissingPVCJobs", "", PVC, A(RECLAIM), 1500, 7370, build_missing_pvc,
	  { 0, 0, 0 }, check_missing_pvc,
	  "the 3 jobs stay pending with the PVC's fit error, no eviction or pipeline", 0 },
	LARGE("10Node", 10),
	LARGE("50Node", 50),
	LARGE("100Node", 100),
	LARGE("200Node", 200),
	LARGE("500Node", 500),
	LARGE("1000Node", 1000),
	SINGLE("ReclaimManySingleGPUJobsFullCycle", "10Node", 10, 0),
	SINGLE("ReclaimManySingleGPUJobsFullCycle", "50Node", 50, 0),
	SINGLE("ReclaimManySingleGPUJobsFullCycle", "100Node", 100, 0),
	SINGLE("ReclaimManySingleGPUJobsFullCycle", "200Node", 200, 0),
	SINGLE("ReclaimManySingleGPUJobsFullCycle", "500Node", 500, 0),
	SINGLE("ReclaimManySingleGPUJobsFullCycleWithMinRuntime", "500Node", 500, 1),
};

const struct kb_shape *kb_shapes(size_t *n)
{
	*n = sizeof(shapes) / sizeof(shapes[0]);
	return shapes;
}
