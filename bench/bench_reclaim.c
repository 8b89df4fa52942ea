/*
 * bench_reclaim.c - KAI's reclaim benchmark, and a full cycle on a mixed cluster
 *
 * Reclaim (the shape of KAI's integration_tests/reclaim benchmark): N nodes
 * x 8 GPUs, 8N running 1-GPU train jobs in queue-0 (quota 0: all of it
 * borrowed), one pending job of N/10 tasks x 8 GPUs in queue-1 (quota 8N).
 * The reclaim action must free N/10 whole nodes for it. KAI bounds binds,
 * evictions and pipelines by 4N each.
 *
 * Full cycle: all five actions on a 500-node mixed cluster: half the
 * nodes busy with borrowed 1-GPU and fractional jobs of an over-quota
 * queue, pending gangs, single GPUs and fractions in queues under their
 * quota, a few higher-priority jobs that preempt.
 *
 * Usage: bench_reclaim [--sizes 10,100,500,1000] [--full-nodes 500] [--repeat R]
 * Output: one line per run with the cycle time and the counts of operations,
 * which are machine-independent; for an instruction count run it under
 * valgrind --tool=callgrind --toggle-collect=gt_cycle_run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchlib.h"
#include "core/actions.h"

static void build_reclaim(struct gt_cluster *c, uint32_t n)
{
	uint32_t ns = gt_strtab_intern(c->names, "bench");
	bench_add_nodes(c, n, 8);
	struct gt_queue *q0 = bench_add_queue(c, "queue-0", GT_NONE, BENCH_BASE_TIME - 100);
	q0->deserved[GT_QGPU] = 0;
	struct gt_queue *q1 = bench_add_queue(c, "queue-1", GT_NONE, BENCH_BASE_TIME - 99);
	q1->deserved[GT_QGPU] = (int64_t)n * 8 * 1000;
	for (uint32_t i = 0; i < 8 * n; i++) {
		int32_t job = (int32_t)c->n_jobs;
		bench_add_job(c, ns, 0, BENCH_BASE_TIME - 8 * n + i, 1);
		struct gt_pod *p = bench_add_pod(c, ns, job, 1, 0, 1000, INT64_C(1) << 30);
		p->status = GT_RUNNING;
		p->node = (int32_t)(i / 8);
		c->jobs[job].last_start = BENCH_BASE_TIME - 3600;
	}
	uint32_t tasks = n / 10 ? n / 10 : 1;
	int32_t job = (int32_t)c->n_jobs;
	bench_add_job(c, ns, 1, BENCH_BASE_TIME, (int32_t)tasks);
	for (uint32_t t = 0; t < tasks; t++)
		bench_add_pod(c, ns, job, 8, 0, 1000, INT64_C(1) << 30);
	gt_cluster_link(c);
}

/* 500-node mix: see the header. */
static void build_mixed(struct gt_cluster *c, uint32_t n)
{
	uint32_t ns = gt_strtab_intern(c->names, "bench");
	bench_add_nodes(c, n, 8);
	struct gt_queue *root = bench_add_queue(c, "org", GT_NONE, BENCH_BASE_TIME - 100);
	(void)root;
	const char *names[] = { "borrower", "team-a", "team-b", "team-c" };
	const int64_t quota[] = { 0, 3 * n, 3 * n, 2 * n };
	for (int q = 0; q < 4; q++)
		bench_add_queue(c, names[q], 0, BENCH_BASE_TIME - 90 + q)->deserved[GT_QGPU] =
			quota[q] * 1000;
	uint32_t rng = 12345;
	/* the borrower fills half the cluster with 1-GPU and half-GPU pods */
	for (uint32_t node = 0; node < n / 2; node++) {
		for (int g = 0; g < 8; g++) {
			int32_t job = (int32_t)c->n_jobs;
			bench_add_job(c, ns, 1, BENCH_BASE_TIME - 100000 + (int64_t)c->n_jobs, 1);
			struct gt_pod *p = bench_add_pod(c, ns, job, 1, 0, 1000, INT64_C(1) << 30);
			p->status = GT_RUNNING;
			p->node = (int32_t)node;
			c->jobs[job].last_start = BENCH_BASE_TIME - 7200;
		}
	}
	/* pending work in the teams: gangs of 4x8, single GPUs, fractions */
	for (uint32_t i = 0; i < n * 3; i++) {
		rng = rng * 1103515245u + 12345u;
		int32_t queue = 2 + (int32_t)((rng >> 16) % 3);
		int32_t job = (int32_t)c->n_jobs;
		uint32_t kind = (rng >> 8) % 10;
		if (kind == 0) {
			bench_add_job(c, ns, queue, BENCH_BASE_TIME - 1000 + i, 4);
			for (int k = 0; k < 4; k++)
				bench_add_pod(c, ns, job, 8, 0, 8000, INT64_C(64) << 30);
		} else if (kind < 6) {
			bench_add_job(c, ns, queue, BENCH_BASE_TIME - 1000 + i, 1);
			bench_add_pod(c, ns, job, 1, 0, 1000, INT64_C(8) << 30);
		} else {
			bench_add_job(c, ns, queue, BENCH_BASE_TIME - 1000 + i, 1);
			bench_add_pod(c, ns, job, 0, kind < 8 ? 500 : 250, 500, INT64_C(4) << 30);
		}
		if (kind == 9)
			c->jobs[job].priority = 100, c->jobs[job].preemptible = false;
	}
	gt_cluster_link(c);
}

static void report(const char *what, const struct gt_session *s, double dt, uint32_t nodes)
{
	uint32_t pipelined = 0, releasing = 0, binding = 0;
	for (uint32_t i = 0; i < s->c->n_pods; i++) {
		enum gt_status st = s->pods[i].status;
		pipelined += st == GT_PIPELINED;
		releasing += st == GT_RELEASING;
		binding += st == GT_BINDING;
	}
	printf("%s nodes=%u gpus=%u pods=%u: cycle=%.4f s binds=%u evictions=%u pipelines=%u "
	       "(pods binding=%u pipelined=%u releasing=%u) plan=%016" PRIx64 "\n",
	       what, nodes, nodes * 8, s->c->n_pods, dt, s->n_binds, s->n_evictions,
	       s->n_pipelines, binding, pipelined, releasing, bench_plan_digest(s));
	fflush(stdout);
}

static void run(const char *what, uint32_t n, unsigned mask, uint32_t repeat,
		void (*build)(struct gt_cluster *, uint32_t))
{
	struct gt_strtab names;
	struct gt_cluster c;
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	build(&c, n);
	double best = 0;
	for (uint32_t r = 0; r < repeat; r++) {
		struct gt_session s;
		double t = bench_now_s();
		gt_cycle_run(&s, &c, BENCH_BASE_TIME, mask);
		double dt = bench_now_s() - t;
		if (r == 0 || dt < best)
			best = dt;
		if (r + 1 == repeat)
			report(what, &s, best, n);
		gt_session_release(&s);
	}
	gt_cluster_release(&c);
	gt_strtab_release(&names);
}

int main(int argc, char **argv)
{
	const char *sizes = "10,100,500,1000";
	uint32_t full_nodes = 500, repeat = 1;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--sizes"))
			sizes = argv[i + 1];
		else if (!strcmp(argv[i], "--full-nodes"))
			full_nodes = (uint32_t)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--repeat"))
			repeat = (uint32_t)strtoul(argv[i + 1], NULL, 10);
		else {
			fprintf(stderr, "usage: bench_reclaim [--sizes N,N,...] [--full-nodes N] [--repeat R]\n");
			return 2;
		}
	}
	if (!repeat)
		repeat = 1;
	for (const char *p = sizes; *p;) {
		char *end;
		unsigned long n = strtoul(p, &end, 10);
		if (end == p)
			break;
		run("reclaim", (uint32_t)n, 1u << GT_ACT_RECLAIM, repeat, build_reclaim);
		p = *end ? end + 1 : end;
	}
	if (full_nodes)
		run("full-cycle", full_nodes, GT_ACTIONS_ALL, repeat, build_mixed);
	return 0;
}
