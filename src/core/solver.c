/*
 * solver.c - the victim search for one pending job (KAI v0.17's JobSolver)
 *
 * PROCEDURE gt_solve():
 *   Step 1. The tasks to allocate t1..tn, the feasible nodes (all of them if
 *           a task needs no GPU, else nodes with free or freeing GPUs), the
 *           job's time budget.
 *   Step 2. For each enabled generator, from no recorded victims: probe
 *           k = 1, 2, 4, ... then binary search for the largest k that
 *           solves (search_max_k); then solve k = n from that probe's
 *           victims (solve_with_generator).
 *   Step 3. Accept only if the job now satisfies its gang and has more
 *           active pods than before; else roll everything back.
 *
 * COST MODEL. N nodes, P pods, J jobs, Q queues; for the pending job n
 * tasks, and V the victims a scenario evicts.
 *   - Starting a job's search: O(n log n + N/64) (tasks; feasible nodes as
 *     a bitmap from the node index), independent of P and J: the victim
 *     queue is an index kept for the whole action (victimq.h), scratch is
 *     stamped, not cleared, and memory comes from arenas.
 *   - Probes: at most 2 log2(n) + 2 per generator (doubling, then halving,
 *     then the full job), two generators.
 *   - A probe: O(N log K) to open (K = its k), then pops of the victim
 *     queue, each O(Q + K) (scenario.h), until the filters pass; after that
 *     each pop yields O(1) new scenarios (NodeLocalGreedy: one per node of
 *     the newest victim job; MultiNodeGang: the prefixes not seen before -
 *     equal ones are skipped by fingerprint without simulating).
 *   - A scenario: O(V log V) to fingerprint; if new, a simulation: O(V)
 *     evictions and rollbacks, placing the k tasks (the node index makes a
 *     GPU placement O(N/64 x GPUs per node)), and placing each victim job
 *     again, O(1) for a single pod whose like already found no node.
 * So a job costs O(log n x pops x (Q + K)) plus its simulations; pops are
 * bounded by the victims the queue holds, simulations by distinct
 * scenarios. What does not grow: nothing is proportional to J or P per job,
 * which is what makes thousands of single-GPU reclaims cheap, and a failed
 * scenario is never simulated twice. Where the bound comes from in the
 * worst case: a job that can never run (KAI's "unschedulable distributed"
 * shapes) still walks every victim once per probe and simulates each new
 * prefix once: O(log n x V_total x V) - the same walk KAI makes, without
 * its constant factors - and the action, job and generator time budgets
 * (budget.h) cap it when a front end supplies a clock.
 */
#include "core/solver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/actions.h"
#include "core/order.h"
#include "core/scenario.h"
#include "core/signature.h"
#include "core/volumes.h"
#include "util/hash.h"
#include "util/mem.h"

/* A batch of the recorded victims: pods rec_pods[first..first+n) of job. */
struct rec_batch {
	int32_t job;
	uint32_t first, n;
};

/* A scenario that was simulated and failed (KAI's scenario fingerprint, kept whole). */
struct failed_fp {
	bool used;		/* the slot holds one */
	uint64_t hash;
	uint32_t k;
	const int32_t *rec, *pot;	/* the pods, as sets */
	uint32_t n_rec, n_pot;
};

/* One job's search. */
struct search {
	struct gt_solver *sv;
	struct gt_session *s;
	struct gt_search_scratch *x;
	struct gt_search_stats *stats;
	int32_t *tasks;
	uint32_t n;
	uint64_t *base_feasible;	/* by name rank */
	/* the recorded victims of the generator attempt (solve arena) */
	struct rec_batch *rec;
	uint32_t n_rec;
	int32_t *rec_pods;
	uint32_t n_rec_pods;
	uint64_t rec_hash;		/* their set hash, for fingerprints */
	/* scenarios simulated and failed, for the whole job (KAI's failedScenarios) */
	struct failed_fp *failed;
	uint32_t n_failed, cap_failed;	/* open addressing, cap a power of 2 */
	struct gt_job_budget job_budget;
	struct gt_deadline gen_deadline;
	enum gt_generator gen;		/* the generator searching now (the metrics' label) */
	int64_t free_room;		/* every node's free and freeing GPUs; < 0 until needed */
};

/* The statement and memory a probe works in. */
struct probe {
	struct search *sr;
	struct gt_step st;
	uint64_t *feasible;	/* by name rank: base, recorded victims' nodes, and the scenario's */
	int32_t *victims;	/* scratch: the pods of the scenario being solved */
	uint32_t n_victims, cap_victims;
};

/* ---------------------------------------------------------------- feasible nodes */

static void set_rank(uint64_t *bits, const struct gt_session *s, int32_t node)
{
	uint32_t rank = s->c->nodes[node].name_rank;
	bits[rank / 64] |= 1ULL << (rank % 64);
}

static bool has_rank(const uint64_t *bits, const struct gt_session *s, int32_t node)
{
	uint32_t rank = s->c->nodes[node].name_rank;
	return bits[rank / 64] & (1ULL << (rank % 64));
}

/*
 * KAI's FeasibleNodesForJob: every node if a task needs no GPU; else the
 * nodes with free or freeing whole GPUs, or a shared GPU not full. From the
 * node index: O(N/64 x GPUs per node + nodes with shared GPUs).
 */
static void base_feasible_nodes(struct search *sr)
{
	struct gt_session *s = sr->s;
	const struct gt_node_index *ix = &s->index;
	uint64_t *out = sr->base_feasible;
	bool any_cpu_only = false;
	for (uint32_t i = 0; i < sr->n; i++) {
		const struct gt_pod *p = &s->c->pods[sr->tasks[i]];
		any_cpu_only |= p->gpus == 0 && !gt_pod_is_shared(p);
	}
	if (any_cpu_only) {
		for (uint32_t n = 0; n < s->c->n_nodes; n++)
			set_rank(out, s, (int32_t)n);
		return;
	}
	for (uint32_t w = 0; w < ix->n_words; w++) {
		uint64_t m = 0;
		for (int32_t b = 1; b <= ix->max_free; b++)
			m |= ix->by_free[b][w];
		out[w] = m;
		/* nodes with shared GPUs: one that is not full makes the node feasible */
		for (uint64_t bits = ix->roomy[w] & ~m; bits; bits &= bits - 1) {
			int32_t node = ix->node_at_rank[w * 64 + (uint32_t)__builtin_ctzll(bits)];
			for (uint32_t g = 0; g < s->nodes[node].n_groups; g++)
				if (s->nodes[node].groups[g].used_milli < 1000) {
					set_rank(out, s, node);
					break;
				}
		}
	}
}

/* ---------------------------------------------------------------- fingerprints */

/* A hash of a set of pods: a sum of mixed ids, the same in any order (no sort). */
static uint64_t hash_set(const int32_t *pods, uint32_t n)
{
	uint64_t h = gt_hash_mix(0x5CE7A210ULL, n);
	for (uint32_t i = 0; i < n; i++)
		h += gt_hash_mix(0x9D2C5680ULL, (uint32_t)pods[i]);
	return h;
}

/* Do @a and @b (each without repeats) hold the same pods? O(n) with the pod marks. */
static bool same_set(struct gt_search_scratch *x, const int32_t *a, const int32_t *b, uint32_t n)
{
	gt_marks_begin(&x->pod_in);
	for (uint32_t i = 0; i < n; i++)
		gt_marks_set(&x->pod_in, (uint32_t)a[i], 1);
	for (uint32_t i = 0; i < n; i++)
		if (!gt_marks_has(&x->pod_in, (uint32_t)b[i]))
			return false;
	return true;
}

static bool same_fp(struct gt_search_scratch *x, const struct failed_fp *f, const struct failed_fp *g)
{
	return f->hash == g->hash && f->k == g->k && f->n_rec == g->n_rec && f->n_pot == g->n_pot &&
	       (f->rec == g->rec || same_set(x, f->rec, g->rec, f->n_rec)) &&
	       same_set(x, f->pot, g->pot, f->n_pot);
}

/* The scenario's key: the probe's k, the recorded and the potential victims, as sets. */
static struct failed_fp fingerprint(struct probe *pb, const struct gt_scenario *sc,
				    const struct gt_accum *acc)
{
	struct search *sr = pb->sr;
	uint32_t n = 0;
	for (uint32_t b = 0; b < sc->n_batches; b++)
		n += acc->batches[sc->batches[b]].n;
	int32_t *pot = gt_arena_alloc(&sr->s->step_arena, (n + 1) * sizeof(*pot));
	n = 0;
	for (uint32_t b = 0; b < sc->n_batches; b++) {
		const struct gt_batch *bt = &acc->batches[sc->batches[b]];
		memcpy(pot + n, acc->pods + bt->first, bt->n * sizeof(*pot));
		n += bt->n;
	}
	struct failed_fp f = { .k = pb->st.k, .rec = sr->rec_pods, .n_rec = sr->n_rec_pods,
			       .pot = pot, .n_pot = n };
	f.hash = gt_hash_mix(gt_hash_mix(sr->rec_hash, pb->st.k), hash_set(pot, n));
	return f;
}

static bool failed_before(const struct search *sr, const struct failed_fp *f)
{
	if (!sr->cap_failed)
		return false;
	for (uint32_t i = (uint32_t)f->hash & (sr->cap_failed - 1);; i = (i + 1) & (sr->cap_failed - 1)) {
		if (!sr->failed[i].used)
			return false;
		if (same_fp(sr->x, &sr->failed[i], f))
			return true;
	}
}

static void remember_failed(struct search *sr, const struct failed_fp *f)
{
	struct gt_arena *a = &sr->s->solve_arena;
	if (2 * (sr->n_failed + 1) > sr->cap_failed) {
		uint32_t cap = sr->cap_failed ? 2 * sr->cap_failed : 64;
		struct failed_fp *t = gt_arena_calloc(a, cap, sizeof(*t));
		for (uint32_t i = 0; i < sr->cap_failed; i++) {
			const struct failed_fp *e = &sr->failed[i];
			if (!e->used)
				continue;
			uint32_t k = (uint32_t)e->hash & (cap - 1);
			while (t[k].used)
				k = (k + 1) & (cap - 1);
			t[k] = *e;
		}
		sr->failed = t;
		sr->cap_failed = cap;
	}
	/* the potential victims live in the step's memory: keep a copy for the job */
	struct failed_fp g = *f;
	int32_t *pot = gt_arena_alloc(a, (f->n_pot + 1) * sizeof(*pot));
	memcpy(pot, f->pot, f->n_pot * sizeof(*pot));
	g.pot = pot;
	g.used = true;
	uint32_t k = (uint32_t)g.hash & (sr->cap_failed - 1);
	while (sr->failed[k].used)
		k = (k + 1) & (sr->cap_failed - 1);
	sr->failed[k] = g;
	sr->n_failed++;
}

/* ---------------------------------------------------------------- simulation */

static bool same_labels(const struct gt_labels *a, const struct gt_labels *b)
{
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->v[i].key != b->v[i].key || a->v[i].val != b->v[i].val)
			return false;
	return true;
}

static bool same_tolerations(const struct gt_pod *a, const struct gt_pod *b)
{
	if (a->n_tolerations != b->n_tolerations)
		return false;
	for (uint32_t i = 0; i < a->n_tolerations; i++) {
		const struct gt_toleration *x = &a->tolerations[i], *y = &b->tolerations[i];
		if (x->key != y->key || x->val != y->val || x->exists != y->exists || x->effect != y->effect)
			return false;
	}
	return true;
}

/*
 * A victim's single pod whose placement depends only on what is compared
 * below: whole GPUs or none, no pod (anti-)affinity of its own, no node
 * affinity terms, no topology in its job.
 */
static bool plain_single(const struct gt_session *s, int32_t pod)
{
	const struct gt_pod *p = &s->c->pods[pod];
	const struct gt_job *j = &s->c->jobs[p->job];
	if (gt_pod_is_shared(p) || p->legacy_mig || p->reservation || p->n_pod_affinity ||
	    p->n_affinity_terms || j->topo.topology != GT_NONE || j->n_groups)
		return false;
	for (uint32_t i = 0; i < j->n_podsets; i++)
		if (j->podsets[i].topo.topology != GT_NONE)
			return false;
	return true;
}

/* Would @b find a node wherever @a does (both plain_single, same queue)? */
static bool same_needs(const struct gt_session *s, int32_t a, int32_t b)
{
	const struct gt_pod *x = &s->c->pods[a], *y = &s->c->pods[b];
	return s->c->jobs[x->job].queue == s->c->jobs[y->job].queue && x->cpu_milli == y->cpu_milli &&
	       x->mem_bytes == y->mem_bytes && x->gpus == y->gpus && x->num_devices == y->num_devices &&
	       !memcmp(x->ext, y->ext, sizeof(x->ext)) && same_labels(&x->labels, &y->labels) &&
	       same_labels(&x->node_selector, &y->node_selector) && same_tolerations(x, y);
}

/*
 * KAI's TryToVirtuallyAllocatePreemptorAndGetVictims: the preemptor's probe
 * tasks and the victim jobs placed again in queue order, pipeline only, on
 * the feasible nodes. False if the preemptor does not fit.
 */
static bool simulate(struct probe *pb)
{
	struct search *sr = pb->sr;
	struct gt_session *s = sr->s;
	struct gt_arena *a = &s->step_arena;
	struct gt_jobq jq;
	gt_jobq_init_in(&jq, s, a);
	gt_jobq_push(&jq, sr->sv->job);
	gt_marks_begin(&sr->x->job_sim);
	for (uint32_t i = 0; i < pb->n_victims; i++) {
		int32_t job = s->c->pods[pb->victims[i]].job;
		if (!gt_marks_has(&sr->x->job_sim, (uint32_t)job)) {
			gt_marks_set(&sr->x->job_sim, (uint32_t)job, 1);
			gt_jobq_push(&jq, job);
		}
	}
	bool placed = false, failed = false;
	/*
	 * Once the pending job is placed, the victims' re-placement only takes
	 * room: a single pod that found no node fails again for any later pod
	 * with the same needs. Remember the last such pod and skip its likes.
	 */
	int32_t unplaceable = GT_NONE;
	struct gt_arena_mark m = gt_arena_mark(a);
	const struct gt_place_ctx feasible = { .node_mask = pb->feasible };
	s->simulating = true;
	uint64_t req_gen = gt_session_requests_begin_sim(s);	/* victims count as tasks now */
	for (int32_t job; !failed && (job = gt_jobq_pop(&jq)) != GT_NONE;) {
		int64_t req[GT_NQRES];
		if (job == sr->sv->job) {
			gt_tasks_queue_res(s, pb->st.tasks, pb->st.k, req);
			failed = !gt_queue_guards_pass(s, job, req, false) ||
				 !gt_place_tasks(s, &feasible, job, pb->st.tasks, pb->st.k, true, NULL, 0);
			placed = !failed;
			continue;
		}
		int32_t *tasks = gt_arena_alloc(a, (s->c->jobs[job].n_pods + 1) * sizeof(*tasks));
		uint32_t n = gt_tasks_to_allocate(s, job, tasks);
		gt_tasks_queue_res(s, tasks, n, req);
		bool single = n == 1 && plain_single(s, tasks[0]);
		if (n && gt_queue_guards_pass(s, job, req, false) &&
		    !(single && unplaceable != GT_NONE && same_needs(s, unplaceable, tasks[0])) &&
		    !gt_place_tasks(s, &feasible, job, tasks, n, true, NULL, 0) && single)
			unplaceable = tasks[0];
	}
	s->simulating = false;
	gt_session_requests_end_sim(s, req_gen);
	gt_arena_pop(a, m);
	return placed;
}

/*
 * KAI's byPodSolver.solve: evict the recorded and the scenario's victims,
 * make their nodes feasible, simulate, let the action judge. On failure
 * everything is rolled back; on success the statement holds the solution.
 */
static bool run_scenario(struct probe *pb, const struct gt_scenario *sc, const struct gt_accum *acc)
{
	struct search *sr = pb->sr;
	struct gt_session *s = sr->s;
	struct gt_arena *a = &s->step_arena;
	pb->n_victims = 0;
	for (uint32_t i = 0; i < sr->n_rec_pods; i++)
		GT_ARENA_PUSH(a, pb->victims, pb->n_victims, pb->cap_victims, sr->rec_pods[i]);
	for (uint32_t b = 0; b < sc->n_batches; b++) {
		const struct gt_batch *bt = &acc->batches[sc->batches[b]];
		for (uint32_t i = 0; i < bt->n; i++)
			GT_ARENA_PUSH(a, pb->victims, pb->n_victims, pb->cap_victims, acc->pods[bt->first + i]);
	}
	if (!pb->n_victims)
		return false;	/* nothing to evict: not a scenario */
	size_t cp = gt_stmt_checkpoint(s);
	int32_t *added = gt_arena_alloc(a, (pb->n_victims + 1) * sizeof(*added));
	uint32_t n_added = 0;
	for (uint32_t i = 0; i < pb->n_victims; i++) {
		int32_t pod = pb->victims[i], node = s->pods[pod].node;
		if (s->pods[pod].status == GT_RELEASING)
			continue;
		gt_stmt_evict(s, pod, sr->sv->job);
		if (node >= 0 && !has_rank(pb->feasible, s, node)) {
			set_rank(pb->feasible, s, node);
			added[n_added++] = node;
		}
	}
	bool ok = simulate(pb);
	if (ok && sr->sv->validate) {
		int32_t *preempted = gt_arena_alloc(a, (pb->n_victims + 1) * sizeof(*preempted));
		uint32_t n = 0;
		for (uint32_t i = 0; i < pb->n_victims; i++)
			if (s->pods[pb->victims[i]].status == GT_RELEASING)
				preempted[n++] = pb->victims[i];
		ok = sr->sv->validate(sr->sv, preempted, n, pb->st.tasks, pb->st.k);
		sr->stats->validator_rejected += !ok;
		sr->stats->gen_scenarios[sr->gen][GT_SCENARIO_REJECTED] += !ok;
	}
	if (!ok) {
		gt_stmt_rollback(s, cp);
		for (uint32_t i = 0; i < n_added; i++) {
			uint32_t rank = s->c->nodes[added[i]].name_rank;
			pb->feasible[rank / 64] &= ~(1ULL << (rank % 64));
		}
	}
	return ok;
}

/* A pod the solution evicts or moves. */
static bool is_victim_now(const struct gt_session *s, int32_t pod)
{
	enum gt_status st = s->pods[pod].status;
	return st == GT_RELEASING || st == GT_PIPELINED;
}

static bool batch_has_victim(const struct gt_session *s, const int32_t *pods, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (is_victim_now(s, pods[i]))
			return true;
	return false;
}

/*
 * KAI's recorded victims after a solved probe: the batches (recorded or
 * potential) with at least one pod evicted or moved, every pod of them.
 */
static void record_solution(struct probe *pb, const struct gt_scenario *sc, const struct gt_accum *acc)
{
	struct search *sr = pb->sr;
	struct gt_session *s = sr->s;
	struct gt_arena *a = &s->solve_arena;
	uint32_t cap_b = sr->n_rec + sc->n_batches + 1, cap_p = sr->n_rec_pods + 1;
	for (uint32_t b = 0; b < sc->n_batches; b++)
		cap_p += acc->batches[sc->batches[b]].n;
	struct rec_batch *rec = gt_arena_alloc(a, cap_b * sizeof(*rec));
	int32_t *pods = gt_arena_alloc(a, cap_p * sizeof(*pods));
	uint32_t nb = 0, np = 0;
	for (uint32_t b = 0; b < sr->n_rec; b++) {
		const struct rec_batch *r = &sr->rec[b];
		if (!batch_has_victim(s, sr->rec_pods + r->first, r->n))
			continue;
		rec[nb++] = (struct rec_batch){ r->job, np, r->n };
		memcpy(pods + np, sr->rec_pods + r->first, r->n * sizeof(*pods));
		np += r->n;
	}
	for (uint32_t b = 0; b < sc->n_batches; b++) {
		const struct gt_batch *bt = &acc->batches[sc->batches[b]];
		if (!batch_has_victim(s, acc->pods + bt->first, bt->n))
			continue;
		rec[nb++] = (struct rec_batch){ bt->job, np, bt->n };
		memcpy(pods + np, acc->pods + bt->first, bt->n * sizeof(*pods));
		np += bt->n;
	}
	sr->rec = rec;
	sr->n_rec = nb;
	sr->rec_pods = pods;
	sr->n_rec_pods = np;
}

/* The recorded victims as the next probes see them: marks and their set hash. */
static void publish_recorded(struct search *sr)
{
	gt_marks_begin(&sr->x->pod_rec);
	for (uint32_t i = 0; i < sr->n_rec_pods; i++)
		gt_marks_set(&sr->x->pod_rec, (uint32_t)sr->rec_pods[i], 1);
	sr->rec_hash = hash_set(sr->rec_pods, sr->n_rec_pods);
}

/* ---------------------------------------------------------------- probes */

static bool admit_victim(void *ctx, int32_t job)
{
	struct gt_solver *sv = ctx;
	return sv->is_victim(sv, job);
}

static bool admit_victim_queue(void *ctx, int32_t q)
{
	struct gt_solver *sv = ctx;
	return sv->victim_queue(sv, q);
}

static struct gt_victim_filter victim_filter(struct search *sr)
{
	struct gt_solver *sv = sr->sv;
	return (struct gt_victim_filter){
		.admit = admit_victim,
		.admit_queue = sv->victim_queue ? admit_victim_queue : NULL,
		.ctx = sv,
		.below_priority = sv->lower_priority_only ? sr->s->c->jobs[sv->job].priority : INT32_MAX,
		.max_jobs = sv->max_victim_jobs,
	};
}

/*
 * Is there any job the preemptor may take from? A scenario without a victim
 * is no scenario (KAI's byPodSolver gives up on it), so without one the
 * search is over before it starts: a backlog of same-priority jobs asks
 * preempt for nothing. O(Q) plus the candidates skipped.
 */
static bool any_candidate(struct search *sr)
{
	struct gt_arena *a = &sr->s->step_arena;
	struct gt_arena_mark m = gt_arena_mark(a);
	struct gt_victim_filter f = victim_filter(sr);
	struct gt_victimq vq;
	struct gt_victim_entry e;
	gt_victimq_init(&vq, sr->s, a, sr->sv->job, &f);
	bool any = gt_victimq_pop(&vq, &e);
	gt_arena_pop(a, m);
	return any;
}

/*
 * Can no victim set make the first @k tasks valid? Their GPUs must come from
 * free or freeing GPUs or from victims that end evicted, and the action's
 * validator caps the latter (gt_victim_gpu_bound). O(N) once per job.
 */
static bool beyond_any_victims(struct search *sr, uint32_t k)
{
	struct gt_session *s = sr->s;
	if (!sr->sv->victim_gpu_bound || s->c->config.exhaustive_search)
		return false;
	int64_t need = 0;
	for (uint32_t i = 0; i < k; i++)
		need += gt_task_gpu_quota_milli(s, sr->tasks[i]);
	if (need <= 0)
		return false;
	int64_t req[GT_NQRES];
	gt_tasks_queue_res(s, sr->tasks, k, req);
	int64_t bound = sr->sv->victim_gpu_bound(sr->sv, req);
	if (bound == INT64_MAX)
		return false;
	if (sr->free_room < 0) {
		sr->free_room = 0;
		for (uint32_t n = 0; n < s->c->n_nodes; n++)
			sr->free_room += gt_node_room_milli(s, (int32_t)n);
	}
	return need > sr->free_room + bound;
}

/*
 * KAI's solvePartialJob: the first @k tasks over the generator's scenarios.
 * GT_SEARCH_SOLVED leaves the solution in the statement when @keep, else
 * rolls it back; the victims are recorded either way.
 */
static enum gt_search_result probe(struct search *sr, enum gt_generator gen, uint32_t k, bool keep)
{
	struct gt_session *s = sr->s;
	if (beyond_any_victims(sr, k)) {
		sr->stats->pruned++;
		return GT_SEARCH_EXHAUSTED;	/* KAI reaches the same end by trying every scenario */
	}
	struct gt_arena *a = &s->step_arena;
	struct gt_arena_mark m = gt_arena_mark(a);
	struct probe pb = { .sr = sr };
	pb.feasible = gt_arena_alloc(a, s->index.n_words * sizeof(*pb.feasible));
	memcpy(pb.feasible, sr->base_feasible, s->index.n_words * sizeof(*pb.feasible));
	for (uint32_t i = 0; i < sr->n_rec_pods; i++)
		if (s->pods[sr->rec_pods[i]].node >= 0)
			set_rank(pb.feasible, s, s->pods[sr->rec_pods[i]].node);
	pb.st = (struct gt_step){
		.s = s, .a = a, .job = sr->sv->job, .tasks = sr->tasks, .k = k,
		.recorded = sr->rec_pods, .n_recorded = sr->n_rec_pods,
		.pod_mark = sr->x->pod_rec.mark, .rec_mark = sr->x->pod_rec.stamp,
		.feasible = pb.feasible,
		.victims = victim_filter(sr),
	};
	size_t cp = gt_stmt_checkpoint(s);
	struct gt_scenario_gen g;
	gt_scenario_gen_init(&g, gen, &pb.st);
	enum gt_search_result r = GT_SEARCH_EXHAUSTED;
	for (;;) {
		if (gt_deadline_passed(&s->c->config, &sr->job_budget.deadline)) {
			r = GT_SEARCH_DEADLINE;
			break;
		}
		if (gt_deadline_passed(&s->c->config, &sr->gen_deadline))
			break;	/* this generator's time is up: as if it had no more scenarios */
		struct gt_scenario sc;
		if (!gt_scenario_gen_next(&g, &sc))
			break;
		sr->stats->emitted++;
		sr->stats->gen_scenarios[gen][GT_SCENARIO_EMITTED]++;
		struct failed_fp f = fingerprint(&pb, &sc, &g.acc);
		if (failed_before(sr, &f)) {
			sr->stats->duplicate++;
			sr->stats->gen_scenarios[gen][GT_SCENARIO_DUPLICATE]++;
			continue;
		}
		sr->stats->simulated++;
		sr->stats->gen_scenarios[gen][GT_SCENARIO_SIMULATED]++;
		if (run_scenario(&pb, &sc, &g.acc)) {
			record_solution(&pb, &sc, &g.acc);
			if (!keep)
				gt_stmt_rollback(s, cp);
			r = GT_SEARCH_SOLVED;
			break;
		}
		remember_failed(sr, &f);
	}
	gt_arena_pop(a, m);
	if (r == GT_SEARCH_SOLVED)
		publish_recorded(sr);
	return r;
}

static bool stops_search(enum gt_search_result r)
{
	return r == GT_SEARCH_DEADLINE || r == GT_SEARCH_NOT_ATTEMPTED || r == GT_SEARCH_NO_GENERATOR;
}

/*
 * KAI's searchMaxSolvableK: the largest k whose probe solves, by doubling
 * then bisecting: O(log n) probes. 0 when k = 1 fails or the search must
 * stop (*last says why).
 */
static uint32_t search_max_k(struct search *sr, enum gt_generator gen, enum gt_search_result *last)
{
	uint32_t lo = 0, hi, k = 1;
	*last = GT_SEARCH_EXHAUSTED;
	for (;;) {
		enum gt_search_result r = probe(sr, gen, k, false);
		if (stops_search(r)) {
			*last = r;
			return 0;
		}
		if (r != GT_SEARCH_SOLVED) {
			*last = r;
			hi = k;
			break;
		}
		lo = k;
		if (k == sr->n)
			return sr->n;
		k = 2 * k > sr->n ? sr->n : 2 * k;
	}
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		enum gt_search_result r = probe(sr, gen, mid, false);
		if (stops_search(r)) {
			*last = r;
			return 0;
		}
		if (r == GT_SEARCH_SOLVED) {
			lo = mid;
		} else {
			*last = r;
			hi = mid;
		}
	}
	return lo;
}

/* KAI's solvePendingJobWithGenerator: one generator owns the whole progression. */
static enum gt_search_result search_with_generator(struct search *sr, enum gt_generator gen)
{
	sr->rec = NULL;
	sr->n_rec = 0;
	sr->rec_pods = NULL;
	sr->n_rec_pods = 0;
	publish_recorded(sr);
	sr->gen_deadline = gt_budget_generator_begin(&sr->job_budget, gen);
	enum gt_search_result last;
	if (!search_max_k(sr, gen, &last))
		return last;
	return probe(sr, gen, sr->n, true);
}

/* The same, timed on the front end's clock when there is one (kai_scenario_search_duration_seconds). */
static enum gt_search_result solve_with_generator(struct search *sr, enum gt_generator gen)
{
	const struct gt_config *cfg = &sr->s->c->config;
	sr->gen = gen;
	int64_t t0 = cfg->clock_ms ? cfg->clock_ms(cfg->clock_ctx) : 0;
	enum gt_search_result r = search_with_generator(sr, gen);
	if (cfg->clock_ms) {
		struct gt_search_timing *t = gt_arena_alloc(&sr->s->arena, sizeof(*t));
		*t = (struct gt_search_timing){ .next = sr->stats->timings, .gen = gen, .result = r,
						.ms = cfg->clock_ms(cfg->clock_ctx) - t0 };
		sr->stats->timings = t;
	}
	return r;
}

/* ---------------------------------------------------------------- the job */

/* The gang minimum is met by active pods, pipelined ones counted (core/gang.h). */
static bool gang_satisfied(const struct gt_session *s, int32_t job, uint32_t *active_out)
{
	const struct gt_job *j = &s->c->jobs[job];
	struct gt_podset_count cnt[GT_MAX_PODSETS];
	gt_job_count(s, job, cnt);
	*active_out = 0;
	for (uint32_t i = 0; i < j->n_podsets; i++)
		*active_out += (uint32_t)cnt[i].active_used;
	return gt_gang_met_counts(j, cnt, GT_COUNT(active_used));
}

static enum gt_search_result solve_job(struct search *sr, bool *solved)
{
	struct gt_session *s = sr->s;
	const struct gt_config *cfg = &s->c->config;
	*solved = false;
	if (!sr->n)
		return GT_SEARCH_EXHAUSTED;	/* KAI: nothing to allocate, counted as not attempted */
	struct gt_action_budget unlimited;
	const struct gt_action_budget *ab = sr->sv->budget;
	if (!ab) {
		gt_budget_action_begin(&unlimited, cfg, s->action);
		ab = &unlimited;
	}
	gt_budget_job_begin(&sr->job_budget, ab);
	if (gt_deadline_passed(cfg, &sr->job_budget.deadline))
		return GT_SEARCH_NOT_ATTEMPTED;
	if (!any_candidate(sr))
		return GT_SEARCH_EXHAUSTED;	/* every scenario needs a victim: none is possible */
	uint32_t active_before, active_after;
	gang_satisfied(s, sr->sv->job, &active_before);
	size_t cp = gt_stmt_checkpoint(s);
	bool any = false;
	for (int g = 0; g < GT_N_GENERATORS; g++) {
		if (cfg->search.generator_off[g])
			continue;
		any = true;
		enum gt_search_result r = solve_with_generator(sr, (enum gt_generator)g);
		if (r == GT_SEARCH_SOLVED) {
			*solved = gang_satisfied(s, sr->sv->job, &active_after) && active_after > active_before;
			if (!*solved)
				gt_stmt_rollback(s, cp);
			return r;
		}
		if (stops_search(r))
			return r;
	}
	return any ? GT_SEARCH_EXHAUSTED : GT_SEARCH_NO_GENERATOR;
}

bool gt_solve(struct gt_solver *sv)
{
	struct gt_session *s = sv->s;
	struct gt_arena *a = &s->solve_arena;
	struct gt_arena_mark m = gt_arena_mark(a);
	const struct gt_job *j = &s->c->jobs[sv->job];
	struct search sr = { .sv = sv, .s = s, .x = gt_search_scratch(s),
			     .stats = &s->search[s->action], .free_room = -1 };
	sr.tasks = gt_arena_alloc(a, (j->n_pods + 1) * sizeof(*sr.tasks));
	sr.n = gt_tasks_to_allocate(s, sv->job, sr.tasks);
	sr.base_feasible = gt_arena_calloc(a, s->index.n_words, sizeof(*sr.base_feasible));
	base_feasible_nodes(&sr);
	bool solved;
	sv->result = solve_job(&sr, &solved);
	sr.stats->jobs[sr.n ? sv->result : GT_SEARCH_NOT_ATTEMPTED]++;
	sr.stats->reduced_budget += sr.job_budget.reduced;
	if (sr.job_budget.reduced)
		sr.stats->jobs_reduced[sr.n ? sv->result : GT_SEARCH_NOT_ATTEMPTED]++;
	gt_arena_pop(a, m);
	return solved;
}

/* ---------------------------------------------------------------- the action's loop */

/* After a committed solution: the jobs it touched take their new place in the victim index. */
static void reindex_touched(struct gt_session *s, size_t cp)
{
	struct gt_marks *seen = &gt_search_scratch(s)->job_pick;
	gt_marks_begin(seen);
	for (size_t i = cp; i < s->n_ops; i++) {
		int32_t job = s->c->pods[s->ops[i].pod].job;
		if (job == GT_NONE || gt_marks_has(seen, (uint32_t)job))
			continue;
		gt_marks_set(seen, (uint32_t)job, 1);
		gt_victim_index_update(s, job);
	}
}

/*
 * KAI's victim-invariant pre-predicate: a task that no eviction can help (it
 * mounts a PersistentVolumeClaim that does not exist) keeps its job out of
 * the search, with the reason on the job.
 */
static void victim_invariant_failure(struct gt_session *s, int32_t job, int32_t pod)
{
	gt_job_claim_blocked(s, job, pod, false);
}

/* The job's tasks to allocate: their queue resources into @req; a pod that mounts a missing claim, or GT_NONE. */
static int32_t job_request(struct gt_session *s, int32_t job, int64_t req[GT_NQRES])
{
	struct gt_arena_mark m = gt_arena_mark(&s->step_arena);
	int32_t *tasks = gt_arena_alloc(&s->step_arena, (s->c->jobs[job].n_pods + 1) * sizeof(*tasks));
	uint32_t n = gt_tasks_to_allocate(s, job, tasks);
	gt_tasks_queue_res(s, tasks, n, req);
	int32_t blocked = gt_tasks_claim_missing(s, tasks, n);
	gt_arena_pop(&s->step_arena, m);
	return blocked;
}

/* The action's loop state, for one job at a time. */
struct each {
	struct gt_session *s;
	const struct gt_solver *tmpl;
	bool (*gate)(const struct gt_session *s, int32_t job, const int64_t req[GT_NQRES]);
	struct gt_action_budget budget;
	bool signatures;
	struct gt_failed_jobs failed;
};

/*
 * One job of the action's loop. @hopeless: tmpl->no_victim said so, and
 * the search is not run: the counts are what it would have left. Returns
 * false when the action must stop.
 */
static bool each_job(struct each *e, int32_t job, bool hopeless)
{
	struct gt_session *s = e->s;
	int32_t fq = s->action == GT_ACT_CONSOLIDATION ? GT_NONE : s->c->jobs[job].queue;
	uint64_t sig = 0;
	/* reclaim gates first (KAI's CanReclaimResources), the others after the pre-filter */
	bool gate_first = s->action == GT_ACT_RECLAIM;
	int64_t req[GT_NQRES];
	if (gate_first && e->gate) {
		job_request(s, job, req);
		if (!e->gate(s, job, req))
			return true;
	}
	if (e->signatures) {
		sig = gt_job_signature(s, job);
		if (!gt_failed_jobs_easier(&e->failed, s, fq, sig, job)) {
			s->search[s->action].signature_skipped++;
			return true;
		}
	}
	int32_t blocked = job_request(s, job, req);
	if (blocked != GT_NONE) {
		victim_invariant_failure(s, job, blocked);
		return true;
	}
	bool ok = gate_first || !e->gate || e->gate(s, job, req);
	if (ok && hopeless) {
		/* what gt_solve counts for a job no victim can help: exhausted, or nothing to allocate */
		s->search[s->action].acted_on++;
		struct gt_arena_mark m = gt_arena_mark(&s->step_arena);
		int32_t *tasks = gt_arena_alloc(&s->step_arena, (s->c->jobs[job].n_pods + 1) * sizeof(*tasks));
		bool any = gt_tasks_to_allocate(s, job, tasks) > 0;
		gt_arena_pop(&s->step_arena, m);
		s->search[s->action].jobs[any ? GT_SEARCH_EXHAUSTED : GT_SEARCH_NOT_ATTEMPTED]++;
	} else if (ok) {
		s->search[s->action].acted_on++;	/* KAI's IncPodgroupsConsideredByAction */
		struct gt_solver sv = *e->tmpl;
		sv.s = s;
		sv.job = job;
		memcpy(sv.req, req, sizeof(sv.req));
		sv.budget = &e->budget;
		if (sv.queues_at_start)	/* OnJobSolutionStart: the queues as they are now */
			memcpy(sv.queues_at_start, s->queues, s->c->n_queues * sizeof(*s->queues));
		size_t cp = gt_stmt_checkpoint(s);
		if (gt_solve(&sv)) {
			reindex_touched(s, cp);
			gt_stmt_commit(s, cp);
			return true;
		}
		if (sv.result == GT_SEARCH_DEADLINE || sv.result == GT_SEARCH_NOT_ATTEMPTED) {
			/* KAI stops the action when a search runs out of time */
			if (gt_deadline_passed(&s->c->config, &e->budget.deadline))
				s->search[s->action].action_budget_exhausted++;
			return false;
		}
	}
	if (e->signatures)
		gt_failed_jobs_update(&e->failed, s, fq, sig, job);
	return true;
}

/*
 * Leaf queues whose every candidate no victim can help (tmpl->no_victim),
 * marked in @aside, when leaving them out of the job queue cannot change
 * the order of the other jobs: the queue tree picks a leaf by comparing
 * siblings by their head jobs (a total order), so dropping a leaf changes
 * only what its ancestors show their own siblings. Every ancestor must have
 * no sibling with candidates. Their jobs' searches change nothing (a failed
 * search is rolled back, and their queue holds no victim for anyone in this
 * action), and signatures are remembered per queue, so they are counted
 * apart, each leaf in job order.
 */
static void leaves_aside(struct gt_session *s, const struct gt_solver *tmpl, const int32_t *cand,
			 uint32_t n, bool *aside)
{
	const struct gt_cluster *c = s->c;
	struct gt_arena_mark m = gt_arena_mark(&s->step_arena);
	uint32_t *has = gt_arena_calloc(&s->step_arena, c->n_queues + 1, sizeof(*has));
	bool *hopeful = gt_arena_calloc(&s->step_arena, c->n_queues + 1, sizeof(*hopeful));
	struct gt_solver probe_sv = *tmpl;
	probe_sv.s = s;
	for (uint32_t i = 0; i < n; i++) {
		int32_t q = c->jobs[cand[i]].queue;
		if (q == GT_NONE)
			continue;
		probe_sv.job = cand[i];
		if (!tmpl->no_victim(&probe_sv, cand[i]))
			hopeful[q] = true;
		for (int32_t a = q; a != GT_NONE; a = c->queues[a].parent)
			has[a]++;
	}
	for (uint32_t q = 0; q < c->n_queues; q++) {
		aside[q] = false;
		if (!has[q] || hopeful[q] || c->queues[q].n_children)
			continue;
		bool alone = true;
		for (int32_t a = c->queues[q].parent; a != GT_NONE && alone; a = c->queues[a].parent) {
			int32_t up = c->queues[a].parent;
			for (uint32_t k = 0; k < c->n_queues && alone; k++)
				alone = (int32_t)k == a || c->queues[k].parent != up || !has[k];
		}
		aside[q] = alone;
	}
	gt_arena_pop(&s->step_arena, m);
}

/*
 * The first job from @j on with a pending pod, or n_jobs. Every action
 * walks every job for its candidates and most have no pending pod (a
 * running cluster: thousands running, a few waiting), so the counts are
 * read eight at a time and a job is looked at only where one is not zero.
 */
static uint32_t next_pending(const struct gt_session *s, uint32_t j)
{
	const uint32_t *p = s->job_pending, n = s->c->n_jobs;
	for (; j + 8 <= n; j += 8)
		if (p[j] | p[j + 1] | p[j + 2] | p[j + 3] | p[j + 4] | p[j + 5] | p[j + 6] | p[j + 7])
			break;
	while (j < n && !p[j])
		j++;
	return j;
}

void gt_solve_each(struct gt_session *s, const struct gt_solver *tmpl,
		   bool (*candidate)(const struct gt_session *s, int32_t job),
		   bool (*gate)(const struct gt_session *s, int32_t job, const int64_t req[GT_NQRES]))
{
	struct each e = { .s = s, .tmpl = tmpl, .gate = gate,
			  .signatures = s->c->config.scheduling_signatures };
	gt_budget_action_begin(&e.budget, &s->c->config, s->action);
	gt_victim_index_reset(s);
	uint32_t n_candidates = 0;
	int32_t *cand = gt_xmalloc((s->c->n_jobs + 1) * sizeof(*cand));
	for (uint32_t j = next_pending(s, 0); j < s->c->n_jobs; j = next_pending(s, j + 1))
		if (gt_job_pending_ready(s, (int32_t)j) && gt_job_may_trigger_evictions(s, (int32_t)j) &&
		    (!candidate || candidate(s, (int32_t)j)))
			cand[n_candidates++] = (int32_t)j;
	/* no victim for a whole leaf: counted apart (a clock's budgets would see the time, so not then) */
	bool *aside = gt_xcalloc(s->c->n_queues + 1, sizeof(*aside));
	if (tmpl->no_victim && !s->c->config.clock_ms)
		leaves_aside(s, tmpl, cand, n_candidates, aside);
	/* KAI's smallest failed jobs: per queue for preempt and reclaim, one set for consolidation */
	if (e.signatures)
		gt_failed_jobs_init(&e.failed, &s->arena, n_candidates);
	struct gt_jobq jq;
	gt_jobq_init(&jq, s);
	gt_jobq_limit_depth(&jq, gt_action_queue_depth(s));
	/*
	 * Counting them is for the search metrics and the jobs' messages; a
	 * front end that publishes no messages (the replay) reads neither.
	 */
	bool count_aside = s->c->config.job_messages;
	for (uint32_t q = 0; q < s->c->n_queues && count_aside; q++) {
		if (!aside[q])
			continue;
		for (uint32_t i = 0; i < n_candidates; i++)
			if (s->c->jobs[cand[i]].queue == (int32_t)q)
				gt_jobq_push(&jq, cand[i]);
		for (int32_t job; (job = gt_jobq_pop_leaf(&jq, (int32_t)q)) != GT_NONE;)
			each_job(&e, job, true);
	}
	for (uint32_t i = 0; i < n_candidates; i++) {
		int32_t q = s->c->jobs[cand[i]].queue;
		if (q == GT_NONE || !aside[q])
			gt_jobq_push(&jq, cand[i]);
	}
	for (int32_t job; (job = gt_jobq_pop(&jq)) != GT_NONE;)
		if (!each_job(&e, job, false))
			break;
	gt_jobq_release(&jq);
	free(aside);
	free(cand);
	gt_victim_index_reset(s);
}
