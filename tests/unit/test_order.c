/*
 * test_order.c - who goes first (KAI-SPEC 4.4, 6.5): jobs, tasks, sub-groups
 * and queues
 */
#include "core/order.h"
#include "testlib.h"

const char *gt_suite = "order";

/* A PriorityClass below 100, so its jobs stay preemptible and quotas do not interfere. */
static void priority_class(struct tl_world *w, const char *name, int value)
{
	tl_yaml(w, "---\n{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, "
		   "metadata: {name: %s}, value: %d}\n", name, value);
}

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

TEST(job_order_priority_then_age)
{
	struct tl_world w;
	tl_init(&w);
	priority_class(&w, "high", 80);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pg(&w, &(struct tl_pg){ .name = "old-low", .queue = "q", .prio = "train",
				   .created = "2025-01-01T00:00:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "old-low-0", .pg = "old-low", .gpus = "1" });
	tl_pg(&w, &(struct tl_pg){ .name = "new-high", .queue = "q", .prio = "high",
				   .created = "2026-01-01T00:30:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "new-high-0", .pg = "new-high", .gpus = "1" });
	tl_pg(&w, &(struct tl_pg){ .name = "older", .queue = "q", .prio = "train",
				   .created = "2024-01-01T00:00:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "older-0", .pg = "older", .gpus = "1" });
	TL_BUILD(&w);
	tl_open(&w);
	int32_t low = tl_job_idx(&w, "old-low"), high = tl_job_idx(&w, "new-high");
	int32_t older = tl_job_idx(&w, "older");
	ASSERT_EQ(-1, sign(gt_job_cmp(&w.s, high, low)));
	ASSERT_EQ(1, sign(gt_job_cmp(&w.s, low, high)));
	ASSERT_EQ(-1, sign(gt_job_cmp(&w.s, high, older)));
	/* same priority: the older job first */
	ASSERT_EQ(-1, sign(gt_job_cmp(&w.s, older, low)));
	ASSERT_EQ(1, sign(gt_job_cmp(&w.s, low, older)));
	ASSERT_EQ(0, gt_job_cmp(&w.s, low, low));
	/* one GPU: the higher-priority job gets it although it is the newest */
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "new-high-0"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "older-0"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "old-low-0"));
	tl_free(&w);
}

TEST(job_order_same_priority_older_wins_the_gpu)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	/* the names are chosen so that name order would pick the other one */
	tl_pg(&w, &(struct tl_pg){ .name = "a-new", .queue = "q", .created = "2026-01-01T00:20:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "a-new-0", .pg = "a-new", .gpus = "1" });
	tl_pg(&w, &(struct tl_pg){ .name = "b-old", .queue = "q", .created = "2026-01-01T00:10:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "b-old-0", .pg = "b-old", .gpus = "1" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "b-old-0"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "a-new-0"));
	tl_free(&w);
}

TEST(job_order_elastic_below_min_first)
{
	/*
	 * Same priority. "above" (oldest) runs 2 pods over a minimum of 1,
	 * "at" runs exactly its minimum, "below" (newest) runs nothing: the
	 * elastic plugin puts below before at before above.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pg(&w, &(struct tl_pg){ .name = "above", .queue = "q", .created = "2025-01-01T00:00:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "above-0", .pg = "above", .gpus = "1", .node = "n1" });
	tl_pod(&w, &(struct tl_pod){ .name = "above-1", .pg = "above", .gpus = "1", .node = "n1" });
	tl_pod(&w, &(struct tl_pod){ .name = "above-2", .pg = "above", .gpus = "1" });
	tl_pg(&w, &(struct tl_pg){ .name = "at", .queue = "q", .created = "2025-06-01T00:00:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "at-0", .pg = "at", .gpus = "1", .node = "n1" });
	tl_pod(&w, &(struct tl_pod){ .name = "at-1", .pg = "at", .gpus = "1" });
	tl_pg(&w, &(struct tl_pg){ .name = "below", .queue = "q", .created = "2025-12-01T00:00:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "below-0", .pg = "below", .gpus = "1" });
	TL_BUILD(&w);
	tl_open(&w);
	int32_t above = tl_job_idx(&w, "above"), at = tl_job_idx(&w, "at");
	int32_t below = tl_job_idx(&w, "below");
	ASSERT_EQ(-1, sign(gt_job_cmp(&w.s, below, at)));
	ASSERT_EQ(-1, sign(gt_job_cmp(&w.s, at, above)));
	ASSERT_EQ(-1, sign(gt_job_cmp(&w.s, below, above)));
	ASSERT_EQ(1, sign(gt_job_cmp(&w.s, above, below)));
	/* the job queue pops them in that order */
	struct gt_jobq jq;
	gt_jobq_init(&jq, &w.s);
	gt_jobq_push(&jq, above);
	gt_jobq_push(&jq, at);
	gt_jobq_push(&jq, below);
	int32_t first = gt_jobq_pop(&jq), second = gt_jobq_pop(&jq), third = gt_jobq_pop(&jq);
	bool empty = gt_jobq_empty(&jq) && gt_jobq_pop(&jq) == GT_NONE;
	gt_jobq_release(&jq);
	ASSERT_EQ(below, first);
	ASSERT_EQ(at, second);
	ASSERT_EQ(above, third);
	ASSERT_TRUE(empty);
	tl_free(&w);
}

TEST(task_order)
{
	/*
	 * One job: the kubeflow master first, then task-priority 10, then 5,
	 * then the unlabelled ones, older first.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pg(&w, &(struct tl_pg){ .name = "job", .queue = "q", .min = 5 });
	tl_pod(&w, &(struct tl_pod){ .name = "a-plain", .pg = "job", .gpus = "1",
				     .created = "2026-01-01T00:05:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "b-five", .pg = "job", .gpus = "1",
				     .labels = "kai.scheduler/task-priority: '5'" });
	tl_pod(&w, &(struct tl_pod){ .name = "c-ten", .pg = "job", .gpus = "1",
				     .labels = "kai.scheduler/task-priority: '10'" });
	tl_pod(&w, &(struct tl_pod){ .name = "d-old", .pg = "job", .gpus = "1",
				     .created = "2025-01-01T00:00:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "z-master", .pg = "job", .gpus = "1",
				     .created = "2026-01-01T00:30:00Z",
				     .labels = "training.kubeflow.org/job-role: master" });
	TL_BUILD(&w);
	tl_open(&w);
	int32_t job = tl_job_idx(&w, "job");
	int32_t out[8];
	ASSERT_EQ(5, gt_tasks_to_allocate(&w.s, job, out));
	static const char *const want[] = { "z-master", "c-ten", "b-five", "d-old", "a-plain" };
	for (int i = 0; i < 5; i++)
		ASSERT_STR(want[i], gt_strtab_str(&w.names, w.c.pods[out[i]].name));
	ASSERT_EQ(-1, sign(gt_task_cmp(&w.s, tl_pod_idx(&w, "c-ten"), tl_pod_idx(&w, "b-five"))));
	ASSERT_EQ(1, sign(gt_task_cmp(&w.s, tl_pod_idx(&w, "a-plain"), tl_pod_idx(&w, "b-five"))));
	tl_free(&w);
}

TEST(task_order_decides_which_pod_of_an_elastic_job_runs)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pg(&w, &(struct tl_pg){ .name = "job", .queue = "q", .min = 1 });
	tl_pod(&w, &(struct tl_pod){ .name = "a", .pg = "job", .gpus = "1" });
	tl_pod(&w, &(struct tl_pod){ .name = "b", .pg = "job", .gpus = "1",
				     .labels = "kai.scheduler/task-priority: '3'" });
	tl_pod(&w, &(struct tl_pod){ .name = "c", .pg = "job", .gpus = "1",
				     .labels = "kai.scheduler/task-priority: '7'" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "c"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "a"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "b"));
	tl_free(&w);
}

TEST(ray_head_first)
{
	struct tl_world w;
	tl_init(&w);
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pg(&w, &(struct tl_pg){ .name = "ray", .queue = "q", .min = 2 });
	tl_pod(&w, &(struct tl_pod){ .name = "a-worker", .pg = "ray", .labels = "ray.io/node-type: worker" });
	tl_pod(&w, &(struct tl_pod){ .name = "b-head", .pg = "ray", .labels = "ray.io/node-type: head" });
	TL_BUILD(&w);
	tl_open(&w);
	int32_t out[4];
	ASSERT_EQ(2, gt_tasks_to_allocate(&w.s, tl_job_idx(&w, "ray"), out));
	ASSERT_EQ(tl_pod_idx(&w, "b-head"), out[0]);
	tl_free(&w);
}

/*
 * A PodGroup "sg" with two sub-groups: "workers" (minMember 2, pods w-0..w-2)
 * and "ps" (minMember @ps_min, pods ps-0..ps-2).
 */
static void subgroup_world(struct tl_world *w, int gpus, int ps_min)
{
	char spec[160];
	tl_init(w);
	tl_node(w, &(struct tl_node){ .name = "n1", .gpus = gpus });
	tl_queue(w, &(struct tl_queue){ .name = "q" });
	snprintf(spec, sizeof(spec), "subGroups: [{name: workers, minMember: 2}, {name: ps, minMember: %d}]",
		 ps_min);
	tl_pg(w, &(struct tl_pg){ .name = "sg", .queue = "q", .spec = spec });
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "w-%d", i);
		tl_pod(w, &(struct tl_pod){ .name = name, .pg = "sg", .gpus = "1",
					    .labels = "kai.scheduler/subgroup-name: workers" });
		snprintf(name, sizeof(name), "ps-%d", i);
		tl_pod(w, &(struct tl_pod){ .name = name, .pg = "sg", .gpus = "1",
					    .labels = "kai.scheduler/subgroup-name: ps" });
	}
}

static bool tasks_are(const struct tl_world *w, const int32_t *out, uint32_t n,
		      const char *const *want, uint32_t n_want)
{
	bool ok = n == n_want;
	for (uint32_t i = 0; ok && i < n; i++)
		ok = !strcmp(gt_strtab_str(&w->names, w->c.pods[out[i]].name), want[i]);
	if (!ok) {
		fprintf(stderr, "tasks:");
		for (uint32_t i = 0; i < n; i++)
			fprintf(stderr, " %s", gt_strtab_str(&w->names, w->c.pods[out[i]].name));
		fprintf(stderr, "\n");
	}
	return ok;
}

TEST(tasks_to_allocate_with_subgroups)
{
	struct tl_world w;
	subgroup_world(&w, 8, 1);
	TL_BUILD(&w);
	int32_t job = tl_job_idx(&w, "sg");
	ASSERT_EQ(2, w.c.jobs[job].n_podsets);
	tl_open(&w);
	int32_t out[8];
	/* every sub-group below its minimum gives what it lacks; "ps" sorts first by name */
	uint32_t n = gt_tasks_to_allocate(&w.s, job, out);
	static const char *const first[] = { "ps-0", "w-0", "w-1" };
	ASSERT_TRUE(tasks_are(&w, out, n, first, 3));
	/* the request the queue guards see is the sum of those tasks */
	int64_t req[GT_NQRES];
	gt_tasks_queue_res(&w.s, out, n, req);
	ASSERT_EQ(3000, req[GT_QGPU]);

	/* with w-0 placed, workers lacks one: ps-0 and w-1 */
	int32_t n1 = tl_node_idx(&w, "n1");
	gt_stmt_allocate(&w.s, tl_pod_idx(&w, "w-0"), n1, NULL, 0);
	n = gt_tasks_to_allocate(&w.s, job, out);
	static const char *const second[] = { "ps-0", "w-1" };
	ASSERT_TRUE(tasks_are(&w, out, n, second, 2));

	/*
	 * Everyone at or above minimum: one more task from the sub-group with
	 * the lower allocated/minimum ratio - workers at 2/2 before ps at 2/1,
	 * although ps sorts first by name.
	 */
	gt_stmt_allocate(&w.s, tl_pod_idx(&w, "w-1"), n1, NULL, 0);
	gt_stmt_allocate(&w.s, tl_pod_idx(&w, "ps-0"), n1, NULL, 0);
	gt_stmt_allocate(&w.s, tl_pod_idx(&w, "ps-1"), n1, NULL, 0);
	n = gt_tasks_to_allocate(&w.s, job, out);
	static const char *const third[] = { "w-2" };
	ASSERT_TRUE(tasks_are(&w, out, n, third, 1));
	tl_free(&w);
}

TEST(subgroup_gang_message)
{
	/* 2 GPUs for a job needing 1 ps + 2 workers: nothing runs */
	struct tl_world w;
	subgroup_world(&w, 2, 1);
	TL_BUILD(&w);
	tl_cycle(&w);
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "w-%d", i);
		ASSERT_EQ(GT_PENDING, tl_status(&w, name));
		snprintf(name, sizeof(name), "ps-%d", i);
		ASSERT_EQ(GT_PENDING, tl_status(&w, name));
	}
	ASSERT_CONTAINS(tl_msg(&w, "sg"), "Resources were found for 2 pods from all sub-groups while "
					  "sub-group workers requires 2 pods for gang scheduling. "
					  "Additional pods cannot be scheduled due to: ");
	ASSERT_EQ(2, tl_idle_gpus(&w, "n1"));
	tl_free(&w);
}

TEST(subgroup_job_scheduled_when_it_fits)
{
	/* 3 GPUs: exactly the minimums (2 workers + 1 ps) are bound */
	struct tl_world w;
	subgroup_world(&w, 3, 1);
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(3, w.s.n_binds);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "w-0"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "w-1"));
	ASSERT_EQ(GT_BINDING, tl_status(&w, "ps-0"));
	tl_free(&w);
}

TEST(job_not_ready_when_a_subgroup_lacks_pods)
{
	/* ps wants 4 members but only 3 pods exist */
	struct tl_world w;
	subgroup_world(&w, 8, 4);
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_TRUE(!gt_job_is_ready(&w.s, tl_job_idx(&w, "sg")));
	tl_cycle(&w);
	ASSERT_EQ(0, w.s.n_binds);
	tl_free(&w);
}

TEST(queue_order_starved_queue_first)
{
	/*
	 * One GPU, two queues: "starved" stays within its quota with the job,
	 * "greedy" has no quota. Starved goes first although greedy, its job
	 * and its name all come first otherwise.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "starved", .quota = "2",
					 .created = "2025-06-01T00:00:00Z" });
	tl_queue(&w, &(struct tl_queue){ .name = "greedy", .created = "2025-01-01T00:00:00Z" });
	tl_pg(&w, &(struct tl_pg){ .name = "js", .queue = "starved", .created = "2026-01-01T00:30:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "js-0", .pg = "js", .gpus = "1" });
	tl_pg(&w, &(struct tl_pg){ .name = "jg", .queue = "greedy", .created = "2025-01-01T00:00:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "jg-0", .pg = "jg", .gpus = "1" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "js-0"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "jg-0"));
	tl_free(&w);
}

TEST(queue_order_priority)
{
	/* neither queue within quota: the higher queue priority goes first */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 1 });
	tl_queue(&w, &(struct tl_queue){ .name = "a-low", .priority = 50,
					 .created = "2025-01-01T00:00:00Z" });
	tl_queue(&w, &(struct tl_queue){ .name = "b-high", .priority = 150,
					 .created = "2025-06-01T00:00:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "lo", .queue = "a-low", .gpus = "1" });
	tl_pod(&w, &(struct tl_pod){ .name = "hi", .queue = "b-high", .gpus = "1" });
	TL_BUILD(&w);
	tl_open(&w);
	int32_t lo = tl_queue_idx(&w, "a-low"), hi = tl_queue_idx(&w, "b-high");
	ASSERT_EQ(-1, sign(gt_queue_cmp(&w.s, hi, lo, tl_job_idx(&w, "hi"), tl_job_idx(&w, "lo"))));
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "hi"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "lo"));
	tl_free(&w);
}

TEST(queue_order_lower_dominant_share_first)
{
	/*
	 * Equal queues (quota 0, priority 100); "busy" already runs 2 GPUs.
	 * The one GPU left goes to "idle", whose share with the job is lower.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 3 });
	tl_queue(&w, &(struct tl_queue){ .name = "busy", .created = "2025-01-01T00:00:00Z" });
	tl_queue(&w, &(struct tl_queue){ .name = "idle", .created = "2025-06-01T00:00:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "run", .queue = "busy", .gpus = "2", .node = "n1" });
	tl_pod(&w, &(struct tl_pod){ .name = "more", .queue = "busy", .gpus = "1",
				     .created = "2025-01-01T00:00:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "first", .queue = "idle", .gpus = "1" });
	TL_BUILD(&w);
	tl_cycle(&w);
	ASSERT_EQ(GT_BINDING, tl_status(&w, "first"));
	ASSERT_EQ(GT_PENDING, tl_status(&w, "more"));
	tl_free(&w);
}

TEST(queue_order_unlimited_allocatable_share_is_largest)
{
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 2 });
	tl_yaml(&w, "---\n{apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: qa, "
		    "creationTimestamp: '2025-01-01T00:00:00Z'}, spec: {resources: {"
		    "gpu: {quota: 0, limit: -1, overQuotaWeight: 1}, cpu: {quota: -1, limit: -1, overQuotaWeight: 1}, "
		    "memory: {quota: -1, limit: -1, overQuotaWeight: 1}}}}\n"
		    "---\n{apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: qb, "
		    "creationTimestamp: '2025-06-01T00:00:00Z'}, spec: {resources: {"
		    "gpu: {quota: 0, limit: -1, overQuotaWeight: 1}, cpu: {quota: 4000, limit: -1, overQuotaWeight: 1}, "
		    "memory: {quota: -1, limit: -1, overQuotaWeight: 1}}}}\n");
	tl_pod(&w, &(struct tl_pod){ .name = "ja", .queue = "qa", .gpus = "1" });
	tl_pod(&w, &(struct tl_pod){ .name = "jb", .queue = "qb", .gpus = "1" });
	TL_BUILD(&w);
	tl_open(&w);
	int32_t qa = tl_queue_idx(&w, "qa"), qb = tl_queue_idx(&w, "qb");
	ASSERT_EQ(-1, gt_queue_allocatable_share(&w.s, qa, GT_QCPU));
	ASSERT_EQ(4000, gt_queue_allocatable_share(&w.s, qb, GT_QCPU));
	/* rule 7 with -1 as +inf: qb's share is smaller, so qb goes first */
	ASSERT_TRUE(gt_queue_cmp(&w.s, qa, qb, tl_job_idx(&w, "ja"), tl_job_idx(&w, "jb")) > 0);
	ASSERT_TRUE(gt_queue_cmp(&w.s, qb, qa, tl_job_idx(&w, "jb"), tl_job_idx(&w, "ja")) < 0);
	tl_free(&w);
}

TEST(task_priority_label_presence_orders)
{
	struct tl_world w;
	tl_init(&w);
	tl_queue(&w, &(struct tl_queue){ .name = "q" });
	tl_pg(&w, &(struct tl_pg){ .name = "job", .queue = "q", .min = 2 });
	tl_pod(&w, &(struct tl_pod){ .name = "a-old", .pg = "job", .created = "2025-01-01T00:00:00Z" });
	tl_pod(&w, &(struct tl_pod){ .name = "b-odd", .pg = "job", .labels = "kai.scheduler/task-priority: high" });
	TL_BUILD(&w);
	tl_open(&w);
	ASSERT_TRUE(gt_task_cmp(&w.s, tl_pod_idx(&w, "b-odd"), tl_pod_idx(&w, "a-old")) < 0);
	tl_free(&w);
}

TEST(victim_order_kept_keys_agree_with_fresh_ones)
{
	/*
	 * The victim queue keeps each queue's key while the queue's allocation
	 * and what it gave up are the values the key was made from. Change
	 * them at random, within a few values so that they often come back,
	 * and the choice with kept keys must be the one made with keys
	 * computed afresh.
	 */
	struct tl_world w;
	tl_init(&w);
	tl_node(&w, &(struct tl_node){ .name = "n1", .gpus = 8 });
	const char *names[] = { "qa", "qb", "qc", "qd" };
	const char *quotas[] = { "0", "2", "3", "1" };
	for (int i = 0; i < 4; i++)
		tl_queue(&w, &(struct tl_queue){ .name = names[i], .quota = quotas[i],
						 .priority = i == 3 ? 150 : 0 });
	TL_BUILD(&w);
	tl_open(&w);
	int32_t qs[4];
	for (int i = 0; i < 4; i++)
		qs[i] = tl_queue_idx(&w, names[i]);
	struct gt_arena a;
	gt_arena_init(&a);
	struct gt_queue_key_memo *kept = gt_queue_key_memos_in(&a, w.c.n_queues);
	int64_t subs[4][GT_NQRES] = { { 0 } };
	uint64_t x = 88172645463325252u;
	uint32_t changed_choice = 0, last = UINT32_MAX;
	for (int round = 0; round < 3000; round++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int i = (int)(x % 4);
		if (x >> 8 & 1)
			w.s.queues[qs[i]].allocated[GT_QGPU] = (int64_t)((x >> 16) % 5) * 1000;
		else
			subs[i][GT_QGPU] = (int64_t)((x >> 24) % 3) * 1000;
		struct gt_queue_key_memo *fresh = gt_queue_key_memos_in(&a, w.c.n_queues);
		uint32_t want = gt_queue_gives_first(&w.s, qs, (const int64_t(*)[GT_NQRES])subs, 4, fresh);
		ASSERT_EQ(want, gt_queue_gives_first(&w.s, qs, (const int64_t(*)[GT_NQRES])subs, 4, kept));
		changed_choice += want != last;
		last = want;
	}
	ASSERT_TRUE(changed_choice > 100);	/* the choice moved: the test compared something */
	gt_arena_release(&a);
	tl_free(&w);
}

const struct gt_test gt_tests[] = {
	T(task_priority_label_presence_orders),
	T(queue_order_unlimited_allocatable_share_is_largest),
	T(victim_order_kept_keys_agree_with_fresh_ones),
	T(job_order_priority_then_age),
	T(job_order_same_priority_older_wins_the_gpu),
	T(job_order_elastic_below_min_first),
	T(task_order),
	T(task_order_decides_which_pod_of_an_elastic_job_runs),
	T(ray_head_first),
	T(tasks_to_allocate_with_subgroups),
	T(subgroup_gang_message),
	T(subgroup_job_scheduled_when_it_fits),
	T(job_not_ready_when_a_subgroup_lacks_pods),
	T(queue_order_starved_queue_first),
	T(queue_order_priority),
	T(queue_order_lower_dominant_share_first),
	{ 0 }
};
