/*
 * test_properties.c - invariants over random clusters, every cycle
 *
 * Seeded random clusters (nodes of 4 or 8 GPUs, a two-level queue tree with
 * random quotas, limits and priorities, gangs, elastic jobs, fractions,
 * CPU-only pods, non-preemptible jobs) run through all five actions for
 * several cycles, with new jobs arriving between cycles. After every cycle:
 *   - no gang is bound in part: a job with a pod binding has every podset at
 *     its minimum without counting pipelined pods;
 *   - no queue is above a limit;
 *   - no pod of a non-preemptible job was evicted;
 *   - no node is over-committed once its releasing pods are gone (CPU,
 *     memory, whole GPUs and shared GPUs, each shared GPU at most full);
 *   - the session's books equal a recount from the pods' states after every
 *     action (gt_session_check);
 *   - the same snapshot gives the same plan twice, the same plan with
 *     every node scored (the node index changes nothing), the same plan
 *     without job messages (allocate's proven failures skipped), and the same plan
 *     when the victim search also tries the probes its bound rules out (the
 *     bound is sound). Plans compare by placement and device sharing, not by
 *     the session's ids of new GPU groups (bench_plan_digest).
 *
 * 1,200 seeds (GT_PROPERTY_SEEDS sets another count): seed 1141 was the first to show a search that tried more
 * probes minting other group ids for the same placement. 10,000 seeds pass
 * too (seed 4985 showed a gang pod moved twice in one reclaim: check_gangs).
 */
#include <stdlib.h>
#include <string.h>

#include "shapes/snapshot_build.h"
#include "core/actions.h"
#include "core/fairshare.h"
#include "core/order.h"
#include "harness.h"
#include "sim/simulate.h"

const char *gt_suite = "properties";

static uint64_t rng;

static uint32_t below(uint32_t n)
{
	return bench_rng_below(&rng, n);
}

static void random_queues(struct gt_cluster *c)
{
	uint32_t n_parents = 1 + below(2);
	for (uint32_t p = 0; p < n_parents; p++) {
		char name[32];
		snprintf(name, sizeof(name), "dept-%u", p);
		struct gt_queue *q = bench_add_queue(c, name, GT_NONE, BENCH_BASE_TIME - 1000 + p);
		q->deserved[GT_QGPU] = below(2) ? -1 : (int64_t)below(40) * 1000;
		q->priority = below(3) ? 100 : 200;
	}
	uint32_t n_leaves = 2 + below(3);
	for (uint32_t l = 0; l < n_leaves; l++) {
		char name[32];
		snprintf(name, sizeof(name), "team-%u", l);
		struct gt_queue *q = bench_add_queue(c, name, (int32_t)(l % n_parents),
						     BENCH_BASE_TIME - 900 + l);
		q->deserved[GT_QGPU] = (int64_t)below(16) * 1000;
		q->weight[GT_QGPU] = below(4);
		if (!below(4))
			q->limit[GT_QGPU] = (int64_t)(4 + below(20)) * 1000;
		q->priority = below(4) ? 100 : 150;
	}
}

static int32_t random_leaf(const struct gt_cluster *c)
{
	int32_t leaves[16], n = 0;
	for (uint32_t q = 0; q < c->n_queues; q++)
		if (c->queues[q].parent != GT_NONE)
			leaves[n++] = (int32_t)q;
	return leaves[below((uint32_t)n)];
}

/* A few new jobs; pods pending. */
static void arrivals(struct gt_cluster *c, int64_t now, uint32_t n_jobs)
{
	uint32_t ns = gt_strtab_intern(c->names, "prop");
	static const int32_t priorities[] = { 50, 50, 75, 100, 125 };
	for (uint32_t i = 0; i < n_jobs; i++) {
		int32_t queue = random_leaf(c);
		int32_t job = (int32_t)c->n_jobs;
		uint32_t kind = below(10);
		uint32_t pods = kind < 3 ? 2 + below(3) : kind < 4 ? 3 : 1;
		int32_t min = kind == 3 ? 1 : (int32_t)pods;	/* kind 3: elastic */
		struct gt_job *j = bench_add_job(c, ns, queue, now + i, min);
		j->priority = priorities[below(5)];
		j->preemptible = j->priority < 100;
		for (uint32_t k = 0; k < pods; k++) {
			if (kind == 9)
				bench_add_pod(c, ns, job, 0, 0, 500 + 500 * below(4), INT64_C(1) << 30);
			else if (kind >= 7)
				bench_add_pod(c, ns, job, 0, below(2) ? 500 : 250, 500, INT64_C(1) << 30);
			else
				bench_add_pod(c, ns, job, 1 + (int32_t)below(kind < 3 ? 4 : 2), 0, 1000,
					      INT64_C(2) << 30);
			c->pods[c->n_pods - 1].created = now + i;
		}
	}
	gt_cluster_link(c);
}

static void random_cluster(struct gt_cluster *c)
{
	uint32_t n_nodes = 4 + below(12);
	bench_add_nodes(c, n_nodes, 8);
	for (uint32_t n = 0; n < n_nodes; n++)
		if (below(3) == 0)
			c->nodes[n].gpus = 4;
	c->config.staleness_grace_s = 0;
	c->config.max_consolidation_preemptees = 16;
	random_queues(c);
	arrivals(c, BENCH_BASE_TIME, 6 + below(10));
}

/* ---------------------------------------------------------------- invariants */

/*
 * @bound_once: pods that were Binding at the end of some action of this
 * cycle. A pod moved twice (a victim pipelined elsewhere, then moved again
 * by a later reclaimer) keeps only the status before its last move, so
 * before_evict alone cannot say it was bound with its gang.
 */
static int check_gangs(const struct gt_session *s, const bool *bound_once)
{
	const struct gt_cluster *c = s->c;
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		const struct gt_job *job = &c->jobs[j];
		int32_t held[GT_MAX_PODSETS] = { 0 };
		bool binding = false;
		for (uint32_t i = 0; i < job->n_pods; i++) {
			const struct gt_pod_state *ps = &s->pods[job->pods[i]];
			enum gt_status st = ps->status;
			/* a pod bound now and then moved by a later action was bound with its gang */
			if (ps->evicted_by && ps->before_evict != GT_PIPELINED)
				st = ps->before_evict;
			else if (ps->evicted_by && bound_once[job->pods[i]])
				st = GT_BINDING;
			binding |= st == GT_BINDING;
			if (st == GT_BINDING || st == GT_RUNNING || st == GT_BOUND)
				held[c->pods[job->pods[i]].podset]++;
		}
		for (uint32_t p = 0; binding && p < job->n_podsets; p++)
			if (held[p] < job->podsets[p].min_member) {
				fprintf(stderr, "job %u bound in part: podset %u has %d of %d\n", j, p,
					held[p], job->podsets[p].min_member);
				return 1;
			}
	}
	return 0;
}

static int check_limits(const struct gt_session *s)
{
	for (uint32_t q = 0; q < s->c->n_queues; q++)
		for (int r = 0; r < GT_NQRES; r++) {
			int64_t lim = s->c->queues[q].limit[r];
			if (lim >= 0 && s->queues[q].allocated[r] > lim) {
				fprintf(stderr, "queue %u over its limit: %lld > %lld\n", q,
					(long long)s->queues[q].allocated[r], (long long)lim);
				return 1;
			}
		}
	return 0;
}

static int check_evictions(const struct gt_session *s)
{
	for (uint32_t i = 0; i < s->c->n_pods; i++) {
		const struct gt_pod *p = &s->c->pods[i];
		if (s->pods[i].status == GT_RELEASING && s->pods[i].evicted_by && p->job >= 0 &&
		    !s->c->jobs[p->job].preemptible && s->pods[i].evicted_by != GT_ACT_STALEGANG) {
			fprintf(stderr, "pod %u of a non-preemptible job was evicted\n", i);
			return 1;
		}
	}
	return 0;
}

/* What each node holds once its releasing pods are gone. */
static int check_nodes(const struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	for (uint32_t n = 0; n < c->n_nodes; n++) {
		int64_t cpu = 0, gpus = 0;
		int64_t group_milli[64] = { 0 };
		uint32_t group_id[64], n_groups = 0;
		for (uint32_t i = 0; i < c->n_pods; i++) {
			const struct gt_pod_state *st = &s->pods[i];
			if (st->node != (int32_t)n || !gt_status_active_allocated(st->status))
				continue;
			cpu += c->pods[i].cpu_milli;
			gpus += c->pods[i].gpus;
			for (uint8_t g = 0; g < st->n_groups; g++) {
				uint32_t k = 0;
				while (k < n_groups && group_id[k] != st->groups[g])
					k++;
				if (k == n_groups && n_groups < 64)
					group_id[n_groups++] = st->groups[g];
				if (k < 64)
					group_milli[k] += c->pods[i].frac_milli;
			}
		}
		for (uint32_t k = 0; k < n_groups; k++)
			if (group_milli[k] > 1000) {
				fprintf(stderr, "node %u: a shared GPU holds %lld milli-GPU\n", n,
					(long long)group_milli[k]);
				return 1;
			}
		if (cpu > c->nodes[n].cpu_milli || gpus + n_groups > c->nodes[n].gpus) {
			fprintf(stderr, "node %u over-committed: cpu %lld/%lld, gpus %lld+%u/%d\n", n,
				(long long)cpu, (long long)c->nodes[n].cpu_milli, (long long)gpus,
				n_groups, c->nodes[n].gpus);
			return 1;
		}
	}
	return 0;
}

/*
 * @quiet: no job messages, as the replay runs the core; allocate then skips
 * the jobs it can prove would fail (allocate.c), which must change nothing.
 */
static uint64_t plan_of(const struct gt_cluster *c, int64_t now, bool exhaustive, bool search_all,
			bool quiet)
{
	struct gt_cluster copy = *c;
	copy.config.exhaustive_placement = exhaustive;
	copy.config.exhaustive_search = search_all;
	copy.config.job_messages = !quiet;
	struct gt_session s;
	gt_cycle_run(&s, &copy, now, GT_ACTIONS_ALL);
	uint64_t h = bench_plan_digest(&s);
	gt_session_release(&s);
	return h;
}

static int run_seed(uint64_t seed, uint32_t cycles)
{
	struct gt_strtab names;
	struct gt_cluster c;
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	rng = seed * 2654435761u + 1;
	random_cluster(&c);
	int64_t now = BENCH_BASE_TIME + 60;
	int bad = 0;
	for (uint32_t cycle = 0; cycle < cycles && !bad; cycle++) {
		uint64_t first = plan_of(&c, now, false, false, false);
		if (first != plan_of(&c, now, false, false, false) ||
		    first != plan_of(&c, now, true, false, false) ||
		    first != plan_of(&c, now, false, true, false) ||
		    first != plan_of(&c, now, false, false, true)) {
			fprintf(stderr, "plans differ for the same snapshot\n");
			bad = 1;
			break;
		}
		struct gt_session s;
		gt_session_open(&s, &c, now);
		gt_fairshare_compute(&s);
		bad = !gt_session_check(&s);
		bool *bound_once = gt_xcalloc(c.n_pods + 1, sizeof(*bound_once));
		for (int a = 1; a < GT_N_ACTIONS && !bad; a++) {
			gt_action_run(&s, (enum gt_action)a);
			for (uint32_t i = 0; i < c.n_pods; i++)
				bound_once[i] |= s.pods[i].status == GT_BINDING;
			/* the incremental books equal a recount after every action */
			if (!gt_session_check(&s)) {
				fprintf(stderr, "books differ from a recount after %s\n",
					gt_action_name((enum gt_action)a));
				bad = 1;
			}
		}
		bad = bad || check_gangs(&s, bound_once) || check_limits(&s) || check_evictions(&s) ||
		      check_nodes(&s);
		free(bound_once);
		struct gt_plan plan;
		gt_plan_build(&plan, &s, NULL);
		gt_sim_advance(&c, &plan);
		gt_plan_release(&plan);
		gt_session_release(&s);
		now += 30;
		if (cycle % 2 == 1)
			arrivals(&c, now, 2 + below(5));
	}
	if (bad)
		fprintf(stderr, "seed %llu failed\n", (unsigned long long)seed);
	gt_cluster_release(&c);
	gt_strtab_release(&names);
	return bad;
}

/* GT_PROPERTY_SEEDS: fewer seeds where each costs fifty times as much (`make valgrind`). */
static uint64_t seeds(void)
{
	const char *v = getenv("GT_PROPERTY_SEEDS");
	long n = v ? strtol(v, NULL, 10) : 0;
	return n > 0 ? (uint64_t)n : 1200;
}

TEST(invariants_hold_on_random_clusters)
{
	int failed = 0;
	for (uint64_t seed = 1, n = seeds(); seed <= n; seed++)
		failed += run_seed(seed, 10);
	ASSERT_EQ(0, failed);
}

const struct gt_test gt_tests[] = { T(invariants_hold_on_random_clusters), { 0 } };
