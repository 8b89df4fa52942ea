/*
 * bench_allocate.c - throughput of one allocate cycle on a generated cluster
 *
 * Builds a struct gt_cluster in memory through the core's structs (no YAML,
 * no decoder), runs gt_cycle_run() with only the allocate action and reports
 * how many pods were placed and how long the cycle took.
 *
 * The cluster:
 *   - N nodes, each 8 GPUs (80 GB class: gpu.memory 81500 MiB, synced),
 *     128000 milli-CPU, 1 TiB memory, 110 pods, ready;
 *   - one parent queue over Q leaf queues; the leaves' deserved GPUs are
 *     spread unevenly (weights 1..4) in whole GPUs and sum to the cluster's
 *     GPUs; over-quota weight 1, every limit -1, CPU/memory deserved -1;
 *   - P pending pods of ours (no node, distinct creation times), as jobs:
 *       ~54% of jobs: one pod asking for 1 whole GPU,
 *       ~25%: one pod with gpu-fraction 0.25 (frac_milli 250, 1 device),
 *       ~20%: one pod with gpu-fraction 0.5  (frac_milli 500, 1 device),
 *       ~0.7%: an 8-pod gang of 8 GPUs per pod (one podset, min_member 8),
 *     jobs spread over the leaves at random. The mix asks for about 1.07
 *     GPUs per pod, so 50000 pods ask for ~1.33x the GPUs of 5000 nodes: the
 *     cluster fills up and the tail of the backlog fails, as in production
 *     (about 36000 pods fit entirely, if the failure path is not wanted).
 * Everything comes from a fixed-seed xorshift64 generator: the same flags
 * give the same cluster and, the core being deterministic, the same plan.
 *
 * Usage:
 *   build/bench/bench_allocate                 500 x 5000 first, then 5000 x 50000
 *   build/bench/bench_allocate --nodes 1000 --pods 10000 --queues 50 --repeat 3
 *   flags: --nodes N --pods P --queues Q --repeat R --seed S
 *   (any of --nodes/--pods/--queues runs only that one size)
 *
 * Output, one line per size (the best of R runs):
 *   allocate nodes=5000 gpus=40000 pods=50000 queues=50: placed=NNN cycle=X.XXX s placements/s=NNN
 * plus '#' lines with the setup (jobs, demanded GPUs) and the plan (binding,
 * pipelined, GPUs placed, jobs left with a "why not" message).
 *
 * Wall-clock time depends on the machine. For a machine-independent figure
 * count instructions with callgrind (perf's hardware counters are often not
 * available in containers; `perf stat -e instructions true` tells):
 *
 *   make build/bench/bench_allocate
 *   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
 *       build/bench/bench_allocate --nodes 500 --pods 5000 --queues 50
 *   callgrind_annotate /tmp/cg.out | head -40            # self cost per function
 *   callgrind_annotate --inclusive=yes /tmp/cg.out | head -40
 *   callgrind_annotate --tree=caller /tmp/cg.out | less   # who calls the hot spots
 *
 * Callgrind runs ~50x slower than native: keep the size small (500 x 5000).
 * The count includes building the cluster; to count only the cycle add
 * --toggle-collect=gt_cycle_run to the valgrind command line.
 * The bench frees everything: `valgrind --leak-check=full` should be clean.
 *
 * The bench is outside the pure core, so it may read the clock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/actions.h"
#include "core/cluster.h"
#include "core/session.h"
#include "util/mem.h"
#include "util/strtab.h"

#include "shapes/snapshot_build.h"

#define GPUS_PER_NODE 8
#define GANG_SIZE 8
#define GANG_GPUS 8

struct params {
	uint32_t nodes, pods, queues, repeat;
	uint64_t seed;
	bool exhaustive;	/* --exhaustive: score every node */
};

struct setup {
	uint32_t jobs, gangs, singles, halves, quarters;
	int64_t demand_gpu_milli;
};

static uint64_t rng_state;

static uint32_t rng_below(uint32_t n)
{
	return bench_rng_below(&rng_state, n);
}

/* ---------------------------------------------------------------- building */

/* Queue 0 is the parent; 1..nq are the leaves. */
static void add_queues(struct gt_cluster *c, uint32_t nq, int64_t total_gpus)
{
	struct gt_queue *root = bench_add_queue(c, "bench-root", GT_NONE, BENCH_BASE_TIME - 100000);
	root->deserved[GT_QGPU] = total_gpus * 1000;
	uint32_t *w = gt_xcalloc(nq + 1, sizeof(*w));
	uint64_t sum_w = 0;
	for (uint32_t i = 0; i < nq; i++)
		sum_w += w[i] = 1 + rng_below(4);
	int64_t given = 0;
	for (uint32_t i = 0; i < nq; i++) {
		char name[32];
		snprintf(name, sizeof(name), "queue-%03u", i);
		struct gt_queue *q = bench_add_queue(c, name, 0, BENCH_BASE_TIME - 50000 + i);
		int64_t gpus = (int64_t)((uint64_t)total_gpus * w[i] / sum_w);
		if (i == nq - 1)
			gpus = total_gpus - given;	/* the rounding remainder: sum is exact */
		given += gpus;
		q->deserved[GT_QGPU] = gpus * 1000;
	}
	free(w);
}

static void build_cluster(struct gt_cluster *c, const struct params *pr, struct setup *su)
{
	const int64_t gib = INT64_C(1) << 30;
	memset(su, 0, sizeof(*su));
	rng_state = pr->seed ? pr->seed : 1;
	bench_add_nodes(c, pr->nodes, GPUS_PER_NODE);
	add_queues(c, pr->queues, (int64_t)pr->nodes * GPUS_PER_NODE);

	uint32_t ns = gt_strtab_intern(c->names, "bench");
	/* at most one job per pod */
	c->pods = gt_xcalloc(pr->pods ? pr->pods : 1, sizeof(*c->pods));
	c->cap_pods = pr->pods ? pr->pods : 1;
	c->jobs = gt_xcalloc(pr->pods ? pr->pods : 1, sizeof(*c->jobs));
	c->cap_jobs = pr->pods ? pr->pods : 1;

	while (c->n_pods < pr->pods) {
		uint32_t left = pr->pods - c->n_pods;
		int32_t queue = 1 + (int32_t)rng_below(pr->queues);
		uint32_t r = rng_below(1000);
		int64_t created = BENCH_BASE_TIME + c->n_pods;
		int32_t job = (int32_t)c->n_jobs;
		if (r < 7 && left >= GANG_SIZE) {
			bench_add_job(c, ns, queue, created, GANG_SIZE);
			for (int k = 0; k < GANG_SIZE; k++)
				bench_add_pod(c, ns, job, GANG_GPUS, 0, 16000, 128 * gib);
			su->gangs++;
			su->demand_gpu_milli += GANG_SIZE * GANG_GPUS * 1000;
		} else if (r < 207) {
			bench_add_job(c, ns, queue, created, 1);
			bench_add_pod(c, ns, job, 0, 500, 1000, 8 * gib);
			su->halves++;
			su->demand_gpu_milli += 500;
		} else if (r < 457) {
			bench_add_job(c, ns, queue, created, 1);
			bench_add_pod(c, ns, job, 0, 250, 500, 4 * gib);
			su->quarters++;
			su->demand_gpu_milli += 250;
		} else {
			bench_add_job(c, ns, queue, created, 1);
			bench_add_pod(c, ns, job, 1, 0, 2000, 16 * gib);
			su->singles++;
			su->demand_gpu_milli += 1000;
		}
	}
	su->jobs = c->n_jobs;
	gt_cluster_link(c);
}

/* ---------------------------------------------------------------- running */

struct outcome {
	uint32_t binding, pipelined, jobs_waiting;
	int64_t gpu_milli;
	uint64_t digest;	/* every pod's status, node and GPU groups */
};

static void count_outcome(const struct gt_session *s, const struct gt_cluster *c,
			  struct outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->digest = bench_plan_digest(s);
	for (uint32_t i = 0; i < c->n_pods; i++) {
		enum gt_status st = s->pods[i].status;
		if (st != GT_BINDING && st != GT_PIPELINED)
			continue;
		if (st == GT_BINDING)
			o->binding++;
		else
			o->pipelined++;
		o->gpu_milli += gt_pod_accepted_gpu_milli(c, (int32_t)i, s->pods[i].node);
	}
	for (uint32_t j = 0; j < c->n_jobs; j++)
		if (s->jobs[j].message)
			o->jobs_waiting++;
}

static void run_size(const struct params *pr)
{
	struct gt_strtab names;
	struct gt_cluster c;
	struct setup su;
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	double t0 = bench_now_s();
	build_cluster(&c, pr, &su);
	c.config.exhaustive_placement = pr->exhaustive;
	double t_build = bench_now_s() - t0;
	int64_t gpus = (int64_t)pr->nodes * GPUS_PER_NODE;
	printf("# setup nodes=%u pods=%u queues=%u jobs=%u (single=%u half=%u quarter=%u gangs=%u of %dx%d GPUs) "
	       "demand=%.1f GPUs (%.2fx capacity) build=%.3f s\n",
	       pr->nodes, pr->pods, pr->queues, su.jobs, su.singles, su.halves, su.quarters,
	       su.gangs, GANG_SIZE, GANG_GPUS, (double)su.demand_gpu_milli / 1000.0,
	       gpus ? (double)su.demand_gpu_milli / 1000.0 / (double)gpus : 0.0, t_build);
	fflush(stdout);

	int64_t now = BENCH_BASE_TIME + pr->pods + 1000;
	double best = 0;
	struct outcome out = { 0 };
	for (uint32_t rep = 0; rep < pr->repeat; rep++) {
		struct gt_session s;
		double t = bench_now_s();
		gt_cycle_run(&s, &c, now, 1u << GT_ACT_ALLOCATE);
		double dt = bench_now_s() - t;
		count_outcome(&s, &c, &out);
		gt_session_release(&s);
		if (rep == 0 || dt < best)
			best = dt;
		if (pr->repeat > 1) {
			printf("#   run %u: cycle=%.3f s\n", rep + 1, dt);
			fflush(stdout);
		}
	}
	uint32_t placed = out.binding + out.pipelined;
	printf("allocate nodes=%u gpus=%" PRId64 " pods=%u queues=%u: placed=%u cycle=%.3f s placements/s=%.0f\n",
	       pr->nodes, gpus, pr->pods, pr->queues, placed, best,
	       best > 0 ? (double)placed / best : 0.0);
	printf("#   binding=%u pipelined=%u gpus_placed=%.2f (%.1f%% of capacity) jobs_waiting=%u plan=%016" PRIx64 "%s%s\n",
	       out.binding, out.pipelined, (double)out.gpu_milli / 1000.0,
	       gpus ? 100.0 * (double)out.gpu_milli / 1000.0 / (double)gpus : 0.0,
	       out.jobs_waiting, out.digest, pr->exhaustive ? " (every node scored)" : "",
	       pr->repeat > 1 ? " (cycle: best of the runs)" : "");
	fflush(stdout);

	gt_cluster_release(&c);
	gt_strtab_release(&names);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	struct bench_size z = { .nodes = 5000, .pods = 50000, .queues = 50, .repeat = 1, .seed = BENCH_SEED_DEFAULT };
	bool exhaustive = false;
	const struct gt_flag flags[] = {
		BENCH_SIZE_FLAGS(&z),
		{ .type = GT_FLAG_BOOL, .name = "exhaustive", .dest = &exhaustive,
		  .help = "score every node: the index must not change the plan" },
	};
	const struct gt_command cmd = {
		.name = "bench_allocate", .synopsis = "[flags]",
		.about = "One allocate cycle on a generated cluster. No size flag: 500 nodes x 5000 pods,\n"
			 "then 5000 nodes x 50000 pods (50 queues).",
		.flags = flags, .n_flags = GT_FLAGS_N(flags),
	};
	int rc = gt_flags_parse(&cmd, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	struct params pr = { .nodes = (uint32_t)z.nodes, .pods = (uint32_t)z.pods, .queues = (uint32_t)z.queues,
			     .repeat = (uint32_t)z.repeat, .seed = (uint64_t)z.seed, .exhaustive = exhaustive };
	if (!z.sized) {
		struct params small = pr;
		small.nodes = 500;
		small.pods = 5000;
		run_size(&small);
	}
	run_size(&pr);
	return 0;
}
