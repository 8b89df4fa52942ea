/*
 * snapshot_build.h - building cluster snapshots in memory, without YAML
 *
 * The property tests and bench/bench_allocate fill a struct gt_cluster
 * directly, through the core's structs, where the decoder is not what is
 * being tested or measured. (KAI's benchmark shapes go through the decoder:
 * kai_fakes.h.) Every function is static inline so that a program takes
 * only what it uses.
 */
#ifndef GT_SNAPSHOT_BUILD_H
#define GT_SNAPSHOT_BUILD_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/cluster.h"
#include "core/session.h"
#include "util/flags.h"
#include "util/mem.h"

#define BENCH_BASE_TIME INT64_C(1767225600)	/* 2026-01-01T00:00:00Z */

static inline double bench_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds (user + system) of the waited-for children so far: a benchmark's `gantry` runs. */
static inline double bench_children_cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* The largest peak resident memory, KiB, of the waited-for children so far. */
static inline long bench_children_peak_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	return ru.ru_maxrss;
}

/*
 * The size of a generated cluster and how often to measure it, as the
 * benches' flags give it (util/flags.h rules). @sized: a size was given, so
 * only that size runs.
 */
struct bench_size {
	int64_t nodes, pods, queues, repeat, seed;
	bool sized;
};

/* the seed the published figures were measured with (a uint64, kept in the flag's int64) */
#define BENCH_SEED_DEFAULT ((int64_t)UINT64_C(0x9E3779B97F4A7C15))

#define BENCH_SIZE_FLAGS(z)                                                                      \
	{ .type = GT_FLAG_SECTION, .help = "Size" },                                             \
	{ .type = GT_FLAG_INT, .name = "nodes", .dest = &(z)->nodes, .seen = &(z)->sized,         \
	  .arg = "N", .min = 1, .max = 1000000, .help = "nodes of 8 GPUs" },                      \
	{ .type = GT_FLAG_INT, .name = "pods", .dest = &(z)->pods, .seen = &(z)->sized,           \
	  .arg = "P", .min = 1, .max = 10000000, .help = "pending pods" },                        \
	{ .type = GT_FLAG_INT, .name = "queues", .dest = &(z)->queues, .seen = &(z)->sized,       \
	  .arg = "Q", .min = 1, .max = 100000, .help = "leaf queues (default 50)" },              \
	{ .type = GT_FLAG_INT, .name = "repeat", .dest = &(z)->repeat, .arg = "R", .min = 1,      \
	  .max = 1000, .help = "measure R times, report the best (default 1)" },                  \
	{ .type = GT_FLAG_INT, .name = "seed", .dest = &(z)->seed, .arg = "S", .min = 1,          \
	  .max = INT64_MAX, .help = "the generator's seed: the same seed, the same cluster" }

/* xorshift64 (Marsaglia): tiny, deterministic, good enough for a mix. @state must not be 0. */
static inline uint64_t bench_rng_next(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

static inline uint32_t bench_rng_below(uint64_t *state, uint32_t n)
{
	return n ? (uint32_t)(bench_rng_next(state) % n) : 0;
}

static inline uint32_t bench_intern(struct gt_strtab *names, const char *fmt, uint32_t i)
{
	char buf[64];
	snprintf(buf, sizeof(buf), fmt, i);
	return gt_strtab_intern(names, buf);
}

/* @n nodes of @gpus GPUs (80 GB class), 128 cores, 1 TiB, 110 pods, ready. */
static inline void bench_add_nodes(struct gt_cluster *c, uint32_t n, int32_t gpus)
{
	c->nodes = gt_xcalloc(n ? n : 1, sizeof(*c->nodes));
	c->cap_nodes = n ? n : 1;
	for (uint32_t i = 0; i < n; i++) {
		struct gt_node *nd = &c->nodes[c->n_nodes++];
		nd->name = bench_intern(c->names, "node-%05u", i);
		nd->ready = true;
		nd->cpu_milli = 128000;
		nd->mem_bytes = INT64_C(1) << 40;
		nd->pods = 110;
		nd->gpus = gpus;
		nd->gpu_mem_mib = 81500;
		nd->gpu_mem_synced = true;
	}
}

/* A queue with unlimited quota and limits and weight 1 everywhere. */
static inline struct gt_queue *bench_add_queue(struct gt_cluster *c, const char *name,
					       int32_t parent, int64_t created)
{
	GT_GROW(c->queues, c->n_queues + 1, c->cap_queues);
	struct gt_queue *q = &c->queues[c->n_queues++];
	memset(q, 0, sizeof(*q));
	q->name = gt_strtab_intern(c->names, name);
	q->parent = parent;
	q->priority = 100;
	q->created = created;
	q->preempt_min_runtime_s = q->reclaim_min_runtime_s = -1;
	for (int r = 0; r < GT_NQRES; r++) {
		q->deserved[r] = -1;
		q->limit[r] = -1;
		q->weight[r] = 1.0;
	}
	return q;
}

/* A job of one podset; priority 50 (train: preemptible), as KAI's grouper defaults. */
static inline struct gt_job *bench_add_job(struct gt_cluster *c, uint32_t ns, int32_t queue,
					   int64_t created, int32_t min_member)
{
	GT_GROW(c->jobs, c->n_jobs + 1, c->cap_jobs);
	struct gt_job *j = &c->jobs[c->n_jobs];
	memset(j, 0, sizeof(*j));
	j->ns = ns;
	j->name = bench_intern(c->names, "job-%06u", c->n_jobs);
	j->queue = queue;
	j->queue_name = c->queues[queue].name;
	j->priority = 50;
	j->preemptible = true;
	j->topo = (struct gt_topology_constraint){ GT_NONE, GT_NONE, GT_NONE };
	j->created = created;
	j->podsets = gt_xcalloc(1, sizeof(*j->podsets));
	j->podsets[0] = (struct gt_podset){
		.name = gt_strtab_intern(c->names, "default"),
		.min_member = min_member,
		.group = GT_NONE,
		.topo = { GT_NONE, GT_NONE, GT_NONE },
	};
	j->n_podsets = 1;
	c->n_jobs++;
	return j;
}

/* A pending pod of ours in @job; place it with bench_run_on() to make it run. */
static inline struct gt_pod *bench_add_pod(struct gt_cluster *c, uint32_t ns, int32_t job,
					   int32_t gpus, int32_t frac_milli, int64_t cpu_milli,
					   int64_t mem_bytes)
{
	GT_GROW(c->pods, c->n_pods + 1, c->cap_pods);
	uint32_t i = c->n_pods++;
	struct gt_pod *p = &c->pods[i];
	memset(p, 0, sizeof(*p));
	p->ns = ns;
	p->name = bench_intern(c->names, "pod-%06u", i);
	p->job = job;
	p->ours = true;
	p->status = GT_PENDING;
	p->node = GT_NONE;
	p->cpu_milli = cpu_milli;
	p->mem_bytes = mem_bytes;
	p->gpus = gpus;
	p->frac_milli = frac_milli;
	p->num_devices = 1;
	p->created = BENCH_BASE_TIME + i;
	p->nominated_node = -1;
	return p;
}

static inline uint64_t bench_fnv(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ULL;
	return h;
}

/*
 * A digest of the plan: every pod's status, node and GPU groups. A group
 * this session made is counted by its first use in pod order, not by its id:
 * the id is a counter that a victim search trying more placements advances
 * further, while the plan names a new group after its node
 * (gt_plan_group_name), so two plans that share devices alike are one plan.
 */
static inline uint64_t bench_plan_digest(const struct gt_session *s)
{
	uint64_t h = 1469598103934665603ULL;
	uint32_t *first_use = gt_xcalloc((size_t)s->next_group + 1, sizeof(*first_use));
	uint32_t used = 0;
	for (uint32_t i = 0; i < s->c->n_pods; i++) {
		h = bench_fnv(h, ((uint64_t)s->pods[i].status << 32) | (uint32_t)s->pods[i].node);
		for (uint8_t g = 0; g < s->pods[i].n_groups; g++) {
			uint32_t id = s->pods[i].groups[g];
			bool made = id >= s->n_base_names && id < s->next_group;
			if (made && !first_use[id])
				first_use[id] = ++used;
			h = bench_fnv(h, made ? (1ULL << 32) | first_use[id] : id);
		}
	}
	free(first_use);
	return h;
}

#endif /* GT_SNAPSHOT_BUILD_H */
