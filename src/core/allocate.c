/*
 * allocate.c - place pending jobs on free (or freeing) resources
 *
 * PROCEDURE (KAI-SPEC 4.6.1), per job popped in queue-tree order:
 *   Step 1. Pick the tasks to place: what each podset lacks to reach its
 *           minimum, or one more pod for an elastic job already at it.
 *   Step 2. Queue guards: no queue on the path may exceed its limit, and a
 *           non-preemptible job must stay within its quota.
 *   Step 3. Place the tasks one by one on the best node; the first that
 *           fits nowhere rolls the whole attempt back (all or nothing).
 *   Step 4. A gang that needs releasing resources to reach its minimum is
 *           pipelined whole, never bound in part.
 *   Step 5. Commit: allocated pods become Binding; an elastic job with more
 *           pending pods goes back into the queue for another turn.
 * Allocation is never capped by fair share: idle resources are lent out and
 * taken back later by reclaim.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/actions.h"
#include "core/dra.h"
#include "core/fairshare.h"
#include "core/gang.h"
#include "core/order.h"
#include "core/placement.h"
#include "core/reserve.h"
#include "core/signature.h"
#include "core/solver.h"
#include "core/topology.h"
#include "core/volumes.h"
#include "util/mem.h"

static const char *const qres_what[GT_NQRES] = { "GPUs", "CPU cores", "GB of memory" };

static double human_amount(int r, int64_t v)
{
	/* messages speak in GPUs, cores and GB as KAI's do */
	static const double div[GT_NQRES] = { 1000.0, 1000.0, 1e9 };
	return (double)v / div[r];
}

/* Record why queue @why->queue's guard refused @job: its limit, or its quota for a non-preemptible job. */
static void guard_refuses(struct gt_session *s, int32_t job, const struct gt_job_why *why)
{
	const struct gt_cluster *c = s->c;
	const char *qname = gt_strtab_str(c->names, gt_queue_shown_name(&c->queues[why->queue]));
	int r = why->qres;
	const char *what = qres_what[r];
	char msg[512];
	if (why->reason == GT_REASON_OVER_LIMIT)
		snprintf(msg, sizeof(msg),
			 "%s quota has reached the allowable limit of %s. Limit is %g %s, currently %g %s allocated and workload requested %g %s",
			 qname, what, human_amount(r, why->bound), what, human_amount(r, why->allocated), what,
			 human_amount(r, why->requested), what);
	else
		snprintf(msg, sizeof(msg),
			 "Non-preemptible workload is over quota. Workload requested %g %s, but %s quota is %g %s, while %g %s are already allocated for non-preemptible pods. Use a preemptible workload to go over quota.",
			 human_amount(r, why->requested), what, qname, human_amount(r, why->bound), what,
			 human_amount(r, why->allocated), what);
	gt_job_set_why(s, job, why, msg);
}

bool gt_queue_guards_pass(struct gt_session *s, int32_t job, const int64_t req[GT_NQRES],
			  bool record)
{
	const struct gt_cluster *c = s->c;
	const struct gt_job *j = &c->jobs[job];
	for (int32_t q = j->queue; q != GT_NONE; q = c->queues[q].parent) {
		const struct gt_queue *cq = &c->queues[q];
		const struct gt_queue_state *qs = &s->queues[q];
		for (int r = 0; r < GT_NQRES; r++) {
			if (req[r] <= 0)
				continue;
			struct gt_job_why why;
			if (cq->limit[r] >= 0 && cq->limit[r] < qs->allocated[r] + req[r]) {
				why = gt_job_why_of(GT_REASON_OVER_LIMIT);
				why.bound = cq->limit[r];
				why.allocated = qs->allocated[r];
			} else if (!j->preemptible && cq->deserved[r] >= 0 &&
				   cq->deserved[r] < qs->allocated_np[r] + req[r]) {
				why = gt_job_why_of(GT_REASON_NON_PREEMPTIBLE_OVER_QUOTA);
				why.bound = cq->deserved[r];
				why.allocated = qs->allocated_np[r];
			} else {
				continue;
			}
			if (record && c->config.job_messages) {
				why.queue = q;
				why.qres = r;
				why.requested = req[r];
				guard_refuses(s, job, &why);
			}
			return false;
		}
	}
	return true;
}

void gt_job_claim_blocked(struct gt_session *s, int32_t job, int32_t pod, bool prefilter)
{
	if (s->c->pods[pod].claim_missing) {	/* a PersistentVolumeClaim's problem */
		char msg[1400];
		gt_claim_problem_message(s->c, pod, prefilter, msg, sizeof(msg));
		struct gt_job_why why = gt_job_why_of(gt_claim_problem_reason(s->c, pod));
		why.pod = pod;
		gt_job_set_why(s, job, &why, msg);
		return;
	}
	char msg[1024];	/* KAI's dynamicresources pre-filter */
	gt_dra_blocked_message(s->c, pod, msg, sizeof(msg));
	gt_job_set_message(s, job, msg);
}

static void gang_message(struct gt_session *s, int32_t job, int32_t failed_pod, uint32_t placed,
			 const uint32_t rejects[GT_N_REJECT])
{
	char fit_error[512];
	gt_format_fit_error(rejects, fit_error, sizeof(fit_error));
	const struct gt_cluster *c = s->c;
	const struct gt_job *j = &c->jobs[job];
	const struct gt_pod *p = &c->pods[failed_pod];
	const struct gt_podset *ps = &j->podsets[p->podset];
	char msg[1024];
	bool gang = false;
	for (uint32_t i = 0; i < j->n_podsets; i++)
		gang |= j->podsets[i].min_member > 1;
	struct gt_podset_count cnt[GT_MAX_PODSETS];
	gt_job_count(s, job, cnt);
	bool satisfied = cnt[p->podset].active_allocated >= ps->min_member;
	struct gt_job_why why = gt_job_why_of(!gang || satisfied ? GT_REASON_NO_NODE_FITS : GT_REASON_GANG_SHORT);
	why.pod = failed_pod;
	why.podset = p->podset;
	why.found = placed;
	why.required = (uint32_t)ps->min_member;
	memcpy(why.rejects, rejects, sizeof(why.rejects));
	if (!gang || satisfied)
		snprintf(msg, sizeof(msg), "Resources were not found for pod %s/%s due to: %s",
			 gt_strtab_str(c->names, p->ns), gt_strtab_str(c->names, p->name), fit_error);
	else if (j->n_podsets == 1)
		snprintf(msg, sizeof(msg),
			 "Resources were found for %u pods while %d are required for gang scheduling. Additional pods cannot be scheduled due to: %s",
			 placed, ps->min_member, fit_error);
	else
		snprintf(msg, sizeof(msg),
			 "Resources were found for %u pods from all sub-groups while sub-group %s requires %d pods for gang scheduling. Additional pods cannot be scheduled due to: %s",
			 placed, gt_strtab_str(c->names, ps->name), ps->min_member, fit_error);
	gt_job_set_why(s, job, &why, msg);
}

/* Step 4: does some podset reach its minimum only through pipelined pods? */
static bool must_pipeline_whole(const struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	struct gt_podset_count cnt[GT_MAX_PODSETS];
	gt_job_count(s, job, cnt);
	for (uint32_t i = 0; i < j->n_podsets; i++)
		if (cnt[i].pipelined > 0 &&
		    cnt[i].active_allocated - cnt[i].pipelined < j->podsets[i].min_member)
			return true;
	return false;
}

static void pipeline_allocated_since(struct gt_session *s, size_t cp)
{
	size_t n = s->n_ops - cp;
	struct gt_op *ops = gt_xmalloc((n + 1) * sizeof(*ops));
	struct gt_pod_state *after = gt_xmalloc((n + 1) * sizeof(*after));
	memcpy(ops, &s->ops[cp], n * sizeof(*ops));
	for (size_t i = 0; i < n; i++)
		after[i] = s->pods[ops[i].pod];
	gt_stmt_rollback(s, cp);
	for (size_t i = 0; i < n; i++)
		gt_stmt_pipeline(s, ops[i].pod, after[i].node, after[i].groups, after[i].n_groups);
	free(ops);
	free(after);
}

static bool job_was_running(const struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	for (uint32_t i = 0; i < j->n_pods; i++)
		if (gt_status_active_allocated(s->c->pods[j->pods[i]].status))
			return true;
	return false;
}

/* Place @tasks one by one on the best of @nodes; all or nothing. */
static bool place_flat(struct gt_session *s, const struct gt_place_ctx *ctx, int32_t job,
		       const int32_t *tasks, uint32_t n, bool pipeline_only, const int32_t *nodes,
		       uint32_t n_nodes)
{
	size_t cp = gt_stmt_checkpoint(s);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t rejects[GT_N_REJECT] = { 0 };
		struct gt_fit fit;
		/* a simulation wants no reasons: it records no message */
		bool reasons = !pipeline_only && s->c->config.job_messages;
		int32_t node = gt_best_node(s, ctx, tasks[i], nodes, n_nodes, &fit, reasons ? rejects : NULL);
		if (node == GT_NONE) {
			gt_stmt_rollback(s, cp);
			if (reasons)
				gang_message(s, job, tasks[i], i, rejects);
			return false;
		}
		if (pipeline_only || fit.needs_releasing)
			gt_stmt_pipeline(s, tasks[i], node, fit.groups, fit.n_groups);
		else
			gt_stmt_allocate(s, tasks[i], node, fit.groups, fit.n_groups);
	}
	return true;
}

static bool job_has_topology(const struct gt_job *j)
{
	bool any = j->topo.topology != GT_NONE;
	for (uint32_t i = 0; i < j->n_groups; i++)
		any |= j->groups[i].topo.topology != GT_NONE;
	for (uint32_t i = 0; i < j->n_podsets; i++)
		any |= j->podsets[i].topo.topology != GT_NONE;
	return any;
}

struct placing {
	struct gt_session *s;
	int32_t job;
	const int32_t *tasks;
	uint32_t n;
	bool pipeline_only;
	struct gt_place_ctx ctx;	/* the caller's node mask; this job's topology bonus */
	int32_t *buf;	/* scratch for task subsets, one slice per depth */
};

/* The tasks of @pl inside sub-group @group, or of podset @ps when >= 0. */
static uint32_t select_tasks(const struct placing *pl, int32_t group, int32_t ps, int32_t *out)
{
	const struct gt_job *j = &pl->s->c->jobs[pl->job];
	uint32_t n = 0;
	for (uint32_t i = 0; i < pl->n; i++) {
		int32_t tps = pl->s->c->pods[pl->tasks[i]].podset;
		if (ps >= 0 ? tps == ps : gt_gang_podset_under(j, tps, group))
			out[n++] = pl->tasks[i];
	}
	return n;
}

static bool place_in_sets(struct placing *pl, int32_t group, int32_t ps,
			  const struct gt_topology_constraint *topo, const int32_t *nodes,
			  uint32_t n_nodes, uint32_t depth);

/* A sub-group set on one node set: its inner groups, then its podsets. */
static bool place_set_on(struct placing *pl, int32_t group, const int32_t *nodes,
			 uint32_t n_nodes, uint32_t depth)
{
	const struct gt_job *j = &pl->s->c->jobs[pl->job];
	for (uint32_t g = 0; g < j->n_groups; g++)
		if (j->groups[g].parent == group &&
		    !place_in_sets(pl, (int32_t)g, -1, &j->groups[g].topo, nodes, n_nodes, depth + 1))
			return false;
	struct gt_podset_count cnt[GT_MAX_PODSETS];
	uint32_t order[GT_MAX_PODSETS];
	gt_job_count(pl->s, pl->job, cnt);
	gt_sort_podsets(pl->s, pl->job, cnt, order);
	for (uint32_t k = 0; k < j->n_podsets; k++) {
		uint32_t ps = order[k];
		if (j->podsets[ps].group != group)
			continue;
		if (!place_in_sets(pl, group, (int32_t)ps, &j->podsets[ps].topo, nodes, n_nodes, depth + 1))
			return false;
	}
	return true;
}

/* Try each node set the topology offers, with rollback between them. */
static bool place_in_sets(struct placing *pl, int32_t group, int32_t ps,
			  const struct gt_topology_constraint *topo, const int32_t *nodes,
			  uint32_t n_nodes, uint32_t depth)
{
	struct gt_session *s = pl->s;
	int32_t *mine = pl->buf + (size_t)depth * (pl->n + 1);
	uint32_t n = select_tasks(pl, group, ps, mine);
	if (n == 0)
		return true;
	struct gt_nodeset *sets;
	char err[512];
	uint32_t n_sets = gt_topology_subsets(s, &pl->ctx, pl->job, topo, mine, n, nodes, n_nodes, &sets,
					      err, sizeof(err));
	if (!n_sets && !pl->pipeline_only) {
		struct gt_job_why why = gt_job_why_of(GT_REASON_TOPOLOGY);
		gt_job_set_why(s, pl->job, &why, err);
	}
	bool ok = false;
	for (uint32_t i = 0; i < n_sets && !ok; i++) {
		size_t cp = gt_stmt_checkpoint(s);
		ok = ps >= 0 ? place_flat(s, &pl->ctx, pl->job, mine, n, pl->pipeline_only, sets[i].nodes, sets[i].n)
			     : place_set_on(pl, group, sets[i].nodes, sets[i].n, depth);
		if (!ok)
			gt_stmt_rollback(s, cp);
	}
	gt_nodesets_free(sets, n_sets);
	return ok;
}

/*
 * Place @tasks of @job (KAI's AllocateJob): all or nothing, on @nodes (all
 * nodes when NULL), following the job's topology constraints through its
 * sub-group tree. Pipeline-only placements are the solver's simulations.
 * On failure nothing is left in the statement and (outside a simulation)
 * the job's message says why.
 */
bool gt_place_tasks(struct gt_session *s, const struct gt_place_ctx *ctx, int32_t job,
		    const int32_t *tasks, uint32_t n, bool pipeline_only, const int32_t *nodes,
		    uint32_t n_nodes)
{
	const struct gt_job *j = &s->c->jobs[job];
	if (!job_has_topology(j))
		return place_flat(s, ctx, job, tasks, n, pipeline_only, nodes, n_nodes);
	assert(!ctx->node_bonus);	/* a job's bonus is its own topology's */
	int32_t *all = NULL;
	if (!nodes) {
		all = gt_xmalloc((s->c->n_nodes + 1) * sizeof(*all));
		n_nodes = 0;
		for (uint32_t i = 0; i < s->c->n_nodes; i++) {
			uint32_t rank = s->c->nodes[i].name_rank;
			if (!ctx->node_mask || (ctx->node_mask[rank / 64] & (1ULL << (rank % 64))))
				all[n_nodes++] = (int32_t)i;
		}
		nodes = all;
	}
	uint32_t depth_max = j->n_groups + 3;
	struct placing pl = { .s = s, .job = job, .tasks = tasks, .n = n,
			      .pipeline_only = pipeline_only,
			      .ctx = { .node_mask = ctx->node_mask } };
	pl.buf = gt_xmalloc((size_t)(depth_max + 1) * (n + 1) * sizeof(*pl.buf));
	size_t cp = gt_stmt_checkpoint(s);
	bool ok = place_in_sets(&pl, GT_NONE, -1, &j->topo, nodes, n_nodes, 0);
	if (!ok)
		gt_stmt_rollback(s, cp);
	gt_topology_clear_bonus(&pl.ctx);
	free(pl.buf);
	free(all);
	return ok;
}

static void bind_allocated_since(struct gt_session *s, size_t cp)
{
	for (size_t i = cp; i < s->n_ops; i++) {
		int32_t p = s->ops[i].pod;
		if (s->ops[i].kind == GT_OP_ALLOCATE && s->pods[p].status == GT_ALLOCATED)
			s->pods[p].status = GT_BINDING;	/* same books: both count as allocated */
	}
}

static bool attempt_job(struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	int32_t *tasks = gt_xmalloc((j->n_pods + 1) * sizeof(*tasks));
	uint32_t n = gt_tasks_to_allocate(s, job, tasks);
	bool ok = false;
	if (n == 0)
		goto out;
	int32_t blocked = gt_tasks_claim_missing(s, tasks, n);
	if (blocked != GT_NONE) {
		/* KAI's VolumeBinding and dynamicresources pre-filters, before any node is looked at */
		gt_job_claim_blocked(s, job, blocked, true);
		goto out;
	}
	int64_t req[GT_NQRES];
	gt_tasks_queue_res(s, tasks, n, req);
	if (!gt_queue_guards_pass(s, job, req, true))
		goto out;
	bool was_running = job_was_running(s, job);
	size_t cp = gt_stmt_checkpoint(s);
	if (!gt_place_tasks(s, &(struct gt_place_ctx){ 0 }, job, tasks, n, false, NULL, 0))
		goto out;
	bool pipelined = must_pipeline_whole(s, job);
	if (pipelined)
		pipeline_allocated_since(s, cp);
	bind_allocated_since(s, cp);
	gt_stmt_commit(s, cp);
	gt_job_set_message(s, job, NULL);
	if (!was_running && !pipelined)
		s->jobs[job].last_start = s->now;
	ok = true;
out:
	free(tasks);
	return ok;
}

static bool has_pending_pod(const struct gt_session *s, int32_t job)
{
	return s->job_pending[job] > 0;
}

bool gt_job_pending_ready(const struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	return has_pending_pod(s, job) && j->queue != GT_NONE &&
	       s->c->queues[j->queue].n_children == 0 && gt_job_is_ready(s, job);
}

/* Jobs allocate may consider; records why a job is left out. */
static bool allocatable_job(struct gt_session *s, int32_t job)
{
	const struct gt_cluster *c = s->c;
	const struct gt_job *j = &c->jobs[job];
	if (!has_pending_pod(s, job))
		return false;
	if (j->queue == GT_NONE) {
		char msg[300];
		snprintf(msg, sizeof(msg), "Queue '%s' does not exist",
			 gt_strtab_str(c->names, j->queue_name));
		struct gt_job_why why = gt_job_why_of(GT_REASON_QUEUE_MISSING);
		gt_job_set_why(s, job, &why, j->queue_problem ? j->queue_problem : msg);
		return false;
	}
	if (c->queues[j->queue].n_children > 0) {
		char msg[300];
		snprintf(msg, sizeof(msg), "Queue '%s' is not a leaf queue: jobs must use a leaf queue",
			 gt_strtab_str(c->names, j->queue_name));
		struct gt_job_why why = gt_job_why_of(GT_REASON_QUEUE_NOT_LEAF);
		why.queue = j->queue;
		gt_job_set_why(s, job, &why, msg);
		return false;
	}
	if (!gt_job_is_ready(s, job)) {
		struct gt_job_why why = gt_job_why_of(GT_REASON_NOT_ENOUGH_PODS);
		struct gt_podset_count cnt[GT_MAX_PODSETS];
		gt_job_count(s, job, cnt);
		for (uint32_t i = 0; i < j->n_podsets; i++) {
			why.required += (uint32_t)j->podsets[i].min_member;
			why.found += (uint32_t)cnt[i].alive_not_gated;
		}
		gt_job_set_why(s, job, &why, "Job is not ready for scheduling: fewer pods exist than its minimum");
		return false;
	}
	char msg[512];
	if (gt_job_misses_configmaps(s, job, msg, sizeof(msg))) {
		struct gt_job_why why = gt_job_why_of(GT_REASON_MISSING_CONFIGMAPS);
		gt_job_set_why(s, job, &why, msg);
		return false;
	}
	return true;
}

/*
 * Failures known in advance. In one allocate action resources are only
 * taken, never given back, so a task that found no node (or broke a queue
 * guard) finds none later in the action either; nor does any task of a job
 * of the same queue and preemptibility, with the same placement
 * constraints, asking for at least as much of everything. Such a job fails
 * without changing anything, and when every job left in a leaf queue is
 * one, the leaf can go at once (gt_jobq_leaf_alone). Only for plain tasks:
 * whole GPUs or none, no MIG, no topology, no claims, and no pod
 * (anti-)affinity anywhere in the cluster (a placement could then make
 * room). Used only without job messages: a job not tried says nothing.
 *
 * Cost: a witness per (queue, constraints) minimum that failed; a job is
 * checked against its queue's witnesses, O(tasks x witnesses); a new
 * witness rescans its leaf once, O(jobs left there).
 */
#define NV (3 + GT_MAX_EXT)
struct witness {
	int32_t queue;
	bool preemptible;
	uint64_t sig;
	int64_t v[NV];
	int64_t runtime;	/* max run time, INT64_MAX unknown: a shorter job may backfill a hold */
};

/* A job's max run time for the witnesses: one no shorter fails where the witness failed. */
static int64_t witness_runtime(const struct gt_job *j)
{
	return j->max_runtime_s > 0 ? j->max_runtime_s : INT64_MAX;
}

struct doom {
	bool on;
	struct witness *w;
	uint32_t n, cap;
};

static bool plain_task(const struct gt_session *s, int32_t pod)
{
	const struct gt_pod *p = &s->c->pods[pod];
	return p->frac_milli == 0 && p->gpu_mem_mib == 0 && !p->legacy_mig && !p->claim_missing && !p->n_pvcs && !p->dra;
}

static void task_vec(const struct gt_session *s, int32_t pod, int64_t v[NV])
{
	const struct gt_pod *p = &s->c->pods[pod];
	v[0] = p->gpus;
	v[1] = p->cpu_milli;
	v[2] = p->mem_bytes;
	for (int e = 0; e < GT_MAX_EXT; e++)
		v[3 + e] = p->ext[e];
}

static bool vec_le(const int64_t a[NV], const int64_t b[NV])
{
	for (int i = 0; i < NV; i++)
		if (a[i] > b[i])
			return false;
	return true;
}

static void doom_init(struct doom *d, const struct gt_session *s)
{
	memset(d, 0, sizeof(*d));
	if (s->c->config.job_messages)
		return;
	for (uint32_t p = 0; p < s->c->n_pods; p++)
		if (s->c->pods[p].n_pod_affinity)
			return;
	d->on = true;
}

/* The tasks of @job that need a place, if all are plain; else 0. */
static uint32_t plain_tasks(struct gt_session *s, int32_t job, int32_t *tasks)
{
	const struct gt_job *j = &s->c->jobs[job];
	if (job_has_topology(j))
		return 0;
	uint32_t n = gt_tasks_to_allocate(s, job, tasks);
	for (uint32_t i = 0; i < n; i++)
		if (!plain_task(s, tasks[i]))
			return 0;
	return n;
}

static bool doomed(struct gt_session *s, const struct doom *d, int32_t job)
{
	if (!d->on || !d->n || gt_reserve_of(s, job))
		return false;	/* a holder sees GPUs its witnesses could not */
	const struct gt_job *j = &s->c->jobs[job];
	struct gt_arena_mark m = gt_arena_mark(&s->step_arena);
	int32_t *tasks = gt_arena_alloc(&s->step_arena, (j->n_pods + 1) * sizeof(*tasks));
	uint32_t n = plain_tasks(s, job, tasks);
	bool r = false;
	for (uint32_t i = 0; i < n && !r; i++) {
		int64_t v[NV];
		task_vec(s, tasks[i], v);
		uint64_t sig = gt_pod_signature(s->c, tasks[i]);
		for (uint32_t k = 0; k < d->n && !r; k++) {
			const struct witness *w = &d->w[k];
			r = w->queue == j->queue && w->preemptible == j->preemptible && w->sig == sig &&
			    vec_le(w->v, v) && w->runtime <= witness_runtime(j);
		}
	}
	gt_arena_pop(&s->step_arena, m);
	return r;
}

/* @job failed: a single plain task makes a witness. Returns whether it is a new one. */
static bool add_witness(struct gt_session *s, struct doom *d, int32_t job)
{
	if (!d->on)
		return false;
	const struct gt_job *j = &s->c->jobs[job];
	int32_t one[2];
	if (j->n_pods > 1 || plain_tasks(s, job, one) != 1)
		return false;
	struct witness w = { .queue = j->queue, .preemptible = j->preemptible,
			     .sig = gt_pod_signature(s->c, one[0]), .runtime = witness_runtime(j) };
	task_vec(s, one[0], w.v);
	for (uint32_t k = 0; k < d->n; k++)
		if (d->w[k].queue == w.queue && d->w[k].preemptible == w.preemptible &&
		    d->w[k].sig == w.sig && vec_le(d->w[k].v, w.v) && d->w[k].runtime <= w.runtime)
			return false;	/* no news: a smaller one failed already */
	GT_PUSH(d->w, d->n, d->cap, w);
	return true;
}

/* Drop leaf @q if every job left in it is known to fail and nothing else depends on it. */
static void drop_doomed_leaf(struct gt_session *s, struct gt_jobq *jq, const struct doom *d, int32_t q)
{
	const int32_t *jobs;
	uint32_t n = gt_jobq_leaf_jobs(jq, q, &jobs);
	if (!n || !gt_jobq_leaf_alone(jq, q))
		return;
	for (uint32_t i = 0; i < n; i++)
		if (!doomed(s, d, jobs[i]))
			return;
	for (uint32_t i = 0; i < n; i++)
		s->jobs[jobs[i]].attempted = true;
	gt_jobq_drop_leaf(jq, q);
}

void gt_action_allocate(struct gt_session *s)
{
	struct gt_jobq jq;
	gt_jobq_init(&jq, s);
	gt_jobq_limit_depth(&jq, gt_action_queue_depth(s));
	for (uint32_t j = 0; j < s->c->n_jobs; j++)
		if (allocatable_job(s, (int32_t)j))
			gt_jobq_push(&jq, (int32_t)j);
	struct doom d;
	doom_init(&d, s);
	gt_reserve_begin(s);	/* off unless the shard turns reservations on */
	for (int32_t job; (job = gt_jobq_pop(&jq)) != GT_NONE;) {
		s->jobs[job].attempted = true;
		bool head = gt_reserve_popped(s, job);
		if (doomed(s, &d, job)) {
			gt_reserve_failed(s, job, head);
			continue;
		}
		if (attempt_job(s, job)) {
			gt_reserve_placed(s, job);
			if (has_pending_pod(s, job))
				gt_jobq_push(&jq, job);
		} else {
			gt_reserve_failed(s, job, head);
			if (add_witness(s, &d, job))
				drop_doomed_leaf(s, &jq, &d, s->c->jobs[job].queue);
		}
	}
	gt_reserve_end(s);
	free(d.w);
	gt_jobq_release(&jq);
}
