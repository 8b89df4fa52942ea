/*
 * solver.c - victims and a placement for one pending job (KAI-SPEC 4.7)
 *
 * PROCEDURE gt_solve():
 *   Step 1. The tasks to allocate t1..tn and the nodes worth trying (all of
 *           them if a task needs no GPU, else nodes with free or freeing GPUs).
 *   Step 2. For k = 1..n solve the partial job t1..tk (solve_partial), each
 *           time starting from the victims recorded for k-1. The statements
 *           of k < n are rolled back; only the full solution stays.
 *   Step 3. Accept only if the real job now satisfies its gang and has more
 *           active pods than before.
 *
 * Victim enumeration is the queue tree in victim mode: at every level the
 * child queue that should give up resources first (the reverse of the
 * allocation order, judged after the victims already taken from it), and
 * in a leaf the lowest-priority, newest job first.
 */
#include "core/solver.h"

#include <stdlib.h>
#include <string.h>

#include "core/actions.h"
#include "core/gang.h"
#include "core/order.h"
#include "util/heap.h"
#include "util/mem.h"

struct victim_entry {
	int32_t job;
	int32_t *pods;		/* candidate pods still with this job */
	uint32_t n;
	/* order key, fixed when the entry is pushed (KAI orders a clone by its own pods) */
	int32_t priority;
	int elastic;
	int64_t created;
	int64_t allocated[GT_NQRES];
	bool owned;		/* pods is this entry's own (else the template's) */
};

/* Per leaf queue, a heap of entries: the first to give up on top. */
struct victim_heap {
	struct victim_entry *e;
	uint32_t n, cap;
};

struct victim_queue {
	struct gt_solver *sv;
	struct victim_heap *leaf;	/* per queue */
	int64_t (*popped)[GT_NQRES];	/* per queue: allocation of victims taken */
	int32_t *roots;		/* the top-level queues */
	uint32_t n_roots;
	bool owns_roots;	/* the template does; its copies share them */
	uint32_t n_entries;
	int32_t n_jobs_admitted;
};

/* A group of potential victims: what one pop of the victim queue gave. */
struct group {
	int32_t job;
	int32_t *pods;
	uint32_t n;
};

struct partial {
	struct gt_solver *sv;
	const int32_t *tasks;	/* the partial job: t1..tk */
	uint32_t k;
	int32_t *recorded;	/* victims of the solution for k-1 */
	uint32_t n_recorded;
	struct group *groups;	/* potential victims, in the order they came */
	uint32_t n_groups, cap_groups;
	bool *feasible;		/* per node */
	int32_t *victims;	/* scratch: the victims of one try */
	int64_t *scratch_free;	/* scratch: free milli-GPUs per node */
	uint64_t *mask_bits;	/* scratch: the feasible nodes by name rank */
	bool *is_recorded;	/* per pod: in recorded */
	uint32_t *job_stamp;	/* per job: last simulation that queued it */
	uint32_t stamp;
	uint32_t n_victims, cap_victims;
};

/* ---------------------------------------------------------------- victim queue */

static void entry_allocated(const struct gt_session *s, const struct victim_entry *e,
			    int64_t out[GT_NQRES])
{
	memset(out, 0, GT_NQRES * sizeof(*out));
	for (uint32_t i = 0; i < e->n; i++) {
		const struct gt_pod_state *st = &s->pods[e->pods[i]];
		if (!gt_status_allocated(st->status))
			continue;
		int64_t res[GT_NQRES];
		gt_pod_queue_res(s, e->pods[i], st->node, res);
		for (int r = 0; r < GT_NQRES; r++)
			out[r] += res[r];
	}
}

/* KAI's elastic order over what an entry still holds: 0 below min, 1 at, 2 above. */
static int entry_elastic_state(const struct gt_session *s, const struct victim_entry *e)
{
	const struct gt_job *j = &s->c->jobs[e->job];
	int32_t cnt[GT_MAX_PODSETS] = { 0 };
	for (uint32_t i = 0; i < e->n; i++)
		if (gt_status_active_allocated(s->pods[e->pods[i]].status))
			cnt[s->c->pods[e->pods[i]].podset]++;
	if (!gt_gang_met(j, cnt))
		return 0;
	int state = 1;
	for (uint32_t i = 0; i < j->n_podsets; i++)
		if (cnt[i] > j->podsets[i].min_member)
			state = 2;
	return state;
}

/*
 * Job order over entries: priority, elastic state, age, then the job
 * index. The victim queue pops the *last* in this order first.
 */
static int entry_cmp(const struct victim_entry *a, const struct victim_entry *b)
{
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	if (a->elastic != b->elastic)
		return a->elastic < b->elastic ? -1 : 1;
	if (a->created != b->created)
		return a->created < b->created ? -1 : 1;
	return a->job < b->job ? -1 : a->job > b->job;
}

/* Heap order: the entry that gives up first (largest in entry_cmp) on top. */
static bool heap_above(const void *ctx, const struct victim_entry *a, const struct victim_entry *b)
{
	(void)ctx;
	return entry_cmp(a, b) > 0;
}

GT_HEAP_DEFINE(vheap, struct victim_entry, const void, heap_above)

static void vq_push(struct victim_queue *vq, int32_t job, const int32_t *pods, uint32_t n)
{
	const struct gt_session *s = vq->sv->s;
	const struct gt_job *j = &s->c->jobs[job];
	struct victim_entry e = { .job = job, .n = n, .priority = j->priority, .created = j->created,
				  .owned = true };
	e.pods = gt_xmalloc((n + 1) * sizeof(*e.pods));
	memcpy(e.pods, pods, n * sizeof(*pods));
	e.elastic = entry_elastic_state(s, &e);
	entry_allocated(s, &e, e.allocated);
	vheap_push(&vq->leaf[j->queue].e, &vq->leaf[j->queue].n, &vq->leaf[j->queue].cap, e, NULL);
	vq->n_entries++;
}

static void vq_init(struct victim_queue *vq, struct gt_solver *sv)
{
	struct gt_session *s = sv->s;
	const struct gt_cluster *c = s->c;
	memset(vq, 0, sizeof(*vq));
	vq->sv = sv;
	vq->popped = gt_xcalloc(c->n_queues + 1, sizeof(*vq->popped));
	vq->leaf = gt_xcalloc(c->n_queues + 1, sizeof(*vq->leaf));
	vq->roots = gt_xmalloc((c->n_queues + 1) * sizeof(*vq->roots));
	vq->owns_roots = true;
	for (uint32_t q = 0; q < c->n_queues; q++)
		if (c->queues[q].parent == GT_NONE)
			vq->roots[vq->n_roots++] = (int32_t)q;
	int32_t *buf = NULL;
	uint32_t cap = 0;
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		const struct gt_job *job = &c->jobs[j];
		if ((int32_t)j == sv->job || job->queue == GT_NONE || !job->preemptible ||
		    !s->job_active[j] || !sv->is_victim(sv, (int32_t)j))
			continue;
		if (sv->max_victim_jobs >= 0 && vq->n_jobs_admitted > sv->max_victim_jobs)
			continue;
		vq->n_jobs_admitted++;
		GT_GROW(buf, job->n_pods + 1, cap);
		uint32_t n = 0;
		for (uint32_t i = 0; i < job->n_pods; i++)
			if (gt_status_active_allocated(s->pods[job->pods[i]].status))
				buf[n++] = job->pods[i];
		vq_push(vq, (int32_t)j, buf, n);
	}
	free(buf);
}

/*
 * A fresh victim queue equal to @tmpl (KAI builds one per partial job; the
 * candidates are the same each time, so they are found once per solve and
 * copied). The copy shares the template's pod lists.
 */
static void vq_copy(struct victim_queue *vq, const struct victim_queue *tmpl)
{
	uint32_t nq = tmpl->sv->s->c->n_queues;
	*vq = *tmpl;
	vq->owns_roots = false;
	vq->popped = gt_xcalloc(nq + 1, sizeof(*vq->popped));
	vq->leaf = gt_xcalloc(nq + 1, sizeof(*vq->leaf));
	for (uint32_t q = 0; q < nq; q++) {
		const struct victim_heap *h = &tmpl->leaf[q];
		if (!h->n)
			continue;
		vq->leaf[q].e = gt_xmalloc(h->n * sizeof(*h->e));
		memcpy(vq->leaf[q].e, h->e, h->n * sizeof(*h->e));
		for (uint32_t i = 0; i < h->n; i++)
			vq->leaf[q].e[i].owned = false;
		vq->leaf[q].n = vq->leaf[q].cap = h->n;
	}
}

static void vq_release(struct victim_queue *vq)
{
	for (uint32_t q = 0; q < vq->sv->s->c->n_queues; q++) {
		for (uint32_t i = 0; i < vq->leaf[q].n; i++)
			if (vq->leaf[q].e[i].owned)
				free(vq->leaf[q].e[i].pods);
		free(vq->leaf[q].e);
	}
	free(vq->leaf);
	free(vq->popped);
	if (vq->owns_roots)
		free(vq->roots);
	memset(vq, 0, sizeof(*vq));
}

/* The leaf a descent chose; GT_NONE when the subtree holds no entry. */
struct pick {
	int32_t leaf;
};

/* What the victims of @pk's leaf (taken so far and its next one) remove. */
static void pick_sub(const struct victim_queue *vq, struct pick pk, int64_t out[GT_NQRES])
{
	const struct victim_entry *head = &vq->leaf[pk.leaf].e[0];
	for (int r = 0; r < GT_NQRES; r++)
		out[r] = head->allocated[r] + vq->popped[pk.leaf][r];
}

static struct pick best_under(const struct victim_queue *vq, int32_t q);

/* Of the sibling queues @qs, the one that gives up first (the reverse of allocation order). */
static struct pick best_among(const struct victim_queue *vq, const int32_t *qs, uint32_t n)
{
	const struct gt_session *s = vq->sv->s;
	struct pick best = { GT_NONE };
	int32_t best_q = GT_NONE;
	for (uint32_t i = 0; i < n; i++) {
		struct pick p = best_under(vq, qs[i]);
		if (p.leaf == GT_NONE)
			continue;
		if (best.leaf != GT_NONE) {
			int64_t lsub[GT_NQRES], rsub[GT_NQRES];
			pick_sub(vq, p, lsub);
			pick_sub(vq, best, rsub);
			/* victim order: whoever allocation would serve last gives first */
			if (gt_queue_cmp_victims(s, qs[i], best_q, lsub, rsub) < 0)
				continue;
		}
		best = p;
		best_q = qs[i];
	}
	return best;
}

static struct pick best_under(const struct victim_queue *vq, int32_t q)
{
	const struct gt_queue *cq = &vq->sv->s->c->queues[q];
	if (!cq->n_children)
		return (struct pick){ vq->leaf[q].n ? q : GT_NONE };
	return best_among(vq, cq->children, cq->n_children);
}

static bool vq_pop(struct victim_queue *vq, struct victim_entry *out)
{
	if (!vq->n_entries)
		return false;
	struct pick best = best_among(vq, vq->roots, vq->n_roots);
	if (best.leaf == GT_NONE)
		return false;
	*out = vheap_pop(vq->leaf[best.leaf].e, &vq->leaf[best.leaf].n, NULL);
	vq->n_entries--;
	for (int r = 0; r < GT_NQRES; r++)
		vq->popped[best.leaf][r] += out->allocated[r];
	return true;
}

/*
 * KAI's GetTasksToEvict over an entry: one pod (the last in task order) if
 * some podset is above its minimum - an elastic job shrinks first - else
 * every pod. Returns the count; *more says the entry keeps pods.
 */
static uint32_t tasks_to_evict(const struct gt_session *s, const struct victim_entry *e,
			       int32_t *out, bool *more)
{
	const struct gt_job *j = &s->c->jobs[e->job];
	struct gt_podset_count cnt[GT_MAX_PODSETS];
	memset(cnt, 0, sizeof(cnt));
	uint32_t active = 0;
	for (uint32_t i = 0; i < e->n; i++)
		if (gt_status_active_allocated(s->pods[e->pods[i]].status)) {
			cnt[s->c->pods[e->pods[i]].podset].active_allocated++;
			active++;
		}
	uint32_t order[GT_MAX_PODSETS];
	gt_sort_podsets(s, e->job, cnt, order);
	bool above = false;
	for (uint32_t i = 0; i < j->n_podsets; i++)
		above |= cnt[i].active_allocated > j->podsets[i].min_member;
	uint32_t n = 0;
	for (uint32_t oi = j->n_podsets; oi-- > 0;) {	/* reverse podset order */
		uint32_t ps = order[oi];
		bool one = cnt[ps].active_allocated > j->podsets[ps].min_member;
		int32_t worst = GT_NONE;
		for (uint32_t i = 0; i < e->n; i++) {
			int32_t p = e->pods[i];
			if ((uint32_t)s->c->pods[p].podset != ps ||
			    !gt_status_active_allocated(s->pods[p].status))
				continue;
			if (!one)
				out[n++] = p;
			else if (worst == GT_NONE || gt_task_cmp(s, p, worst) > 0)
				worst = p;
		}
		if (one && worst != GT_NONE)
			out[n++] = worst;
		if (above)
			break;	/* a single podset gives when one is above its minimum */
	}
	*more = n < active;
	return n;
}

/* ---------------------------------------------------------------- simulation */

static bool in_list(const int32_t *v, uint32_t n, int32_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/*
 * Place victims and preemptor again in queue order, pipeline only. A victim
 * that cannot be placed stays evicted; the preemptor must be placed.
 */
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

static bool simulate(struct partial *pt)
{
	struct gt_solver *sv = pt->sv;
	struct gt_session *s = sv->s;
	/* the feasible nodes as a bitmap by name rank: placement's fast path takes it */
	memset(pt->mask_bits, 0, s->index.n_words * sizeof(*pt->mask_bits));
	for (uint32_t n = 0; n < s->c->n_nodes; n++)
		if (pt->feasible[n]) {
			uint32_t rank = s->c->nodes[n].name_rank;
			pt->mask_bits[rank / 64] |= 1ULL << (rank % 64);
		}
	struct gt_jobq jq;
	gt_jobq_init(&jq, s);
	gt_jobq_push(&jq, sv->job);
	pt->stamp++;	/* marks the jobs pushed in this simulation */
	for (uint32_t i = 0; i < pt->n_victims; i++) {
		int32_t job = s->c->pods[pt->victims[i]].job;
		if (pt->job_stamp[job] != pt->stamp) {
			pt->job_stamp[job] = pt->stamp;
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
	s->simulating = true;
	s->node_mask = pt->mask_bits;
	gt_session_invalidate_requests(s);	/* victims count as tasks now */
	for (int32_t job; !failed && (job = gt_jobq_pop(&jq)) != GT_NONE;) {
		int64_t req[GT_NQRES];
		if (job == sv->job) {
			gt_tasks_queue_res(s, pt->tasks, pt->k, req);
			failed = !gt_queue_guards_pass(s, job, req, false) ||
				 !gt_place_tasks(s, job, pt->tasks, pt->k, true, NULL, 0);
			placed = !failed;
			continue;
		}
		int32_t *tasks = gt_xmalloc((s->c->jobs[job].n_pods + 1) * sizeof(*tasks));
		uint32_t n = gt_tasks_to_allocate(s, job, tasks);
		gt_tasks_queue_res(s, tasks, n, req);
		bool single = n == 1 && plain_single(s, tasks[0]);
		if (n && gt_queue_guards_pass(s, job, req, false) &&
		    !(single && unplaceable != GT_NONE && same_needs(s, unplaceable, tasks[0])) &&
		    !gt_place_tasks(s, job, tasks, n, true, NULL, 0) && single)
			unplaceable = tasks[0];
		free(tasks);
	}
	s->simulating = false;
	s->node_mask = NULL;
	gt_session_invalidate_requests(s);
	gt_jobq_release(&jq);
	return placed;
}

/* Simulate the evictions in pt->victims, then let the action judge. */
static bool run_scenario(struct partial *pt)
{
	struct gt_session *s = pt->sv->s;
	if (!simulate(pt))
		return false;
	int32_t *preempted = gt_xmalloc((pt->n_victims + 1) * sizeof(*preempted));
	uint32_t n = 0;
	for (uint32_t i = 0; i < pt->n_victims; i++)
		if (s->pods[pt->victims[i]].status == GT_RELEASING)
			preempted[n++] = pt->victims[i];
	bool ok = !pt->sv->validate ||
		  pt->sv->validate(pt->sv, preempted, n, pt->tasks, pt->k);
	free(preempted);
	return ok;
}

/* Each pod is evicted once per try (evict() skips releasing pods): no duplicates. */
static void add_victim(struct partial *pt, int32_t pod)
{
	GT_PUSH(pt->victims, pt->n_victims, pt->cap_victims, pod);
}

static void evict(struct partial *pt, int32_t pod)
{
	struct gt_session *s = pt->sv->s;
	if (s->pods[pod].status == GT_RELEASING)
		return;
	int32_t node = s->pods[pod].node;
	gt_stmt_evict(s, pod, pt->sv->job);
	if (node >= 0)
		pt->feasible[node] = true;
	add_victim(pt, pod);
}

static bool group_on_node(const struct gt_session *s, const struct group *g, int32_t node)
{
	for (uint32_t i = 0; i < g->n; i++)
		if (s->pods[g->pods[i]].node == node)
			return true;
	return false;
}

/*
 * Try the scenario: recorded victims, plus - node by node of the newest
 * group - every potential victim group that touches that node.
 */
static bool try_scenario(struct partial *pt, const struct group *latest)
{
	struct gt_session *s = pt->sv->s;
	size_t cp0 = gt_stmt_checkpoint(s);
	bool *feasible0 = gt_xmalloc(s->c->n_nodes + 1);
	memcpy(feasible0, pt->feasible, s->c->n_nodes);
	pt->n_victims = 0;
	for (uint32_t i = 0; i < pt->n_recorded; i++)
		evict(pt, pt->recorded[i]);
	bool ok = false;
	if (!latest) {
		ok = pt->n_recorded > 0 && run_scenario(pt);
		goto out;
	}
	/* the newest group's nodes, in name order (KAI's order is a Go map's) */
	int32_t *nodes = gt_xmalloc((latest->n + 1) * sizeof(*nodes));
	uint32_t nn = 0;
	for (uint32_t i = 0; i < latest->n; i++) {
		int32_t node = s->pods[latest->pods[i]].node;
		if (node < 0 || in_list(nodes, nn, node))
			continue;
		uint32_t k = nn++;
		while (k > 0 && s->c->nodes[nodes[k - 1]].name_rank > s->c->nodes[node].name_rank) {
			nodes[k] = nodes[k - 1];
			k--;
		}
		nodes[k] = node;
	}
	bool *feasible1 = gt_xmalloc(s->c->n_nodes + 1);
	memcpy(feasible1, pt->feasible, s->c->n_nodes);
	uint32_t n_base_victims = pt->n_victims;
	for (uint32_t ni = 0; ni < nn && !ok; ni++) {
		size_t cp1 = gt_stmt_checkpoint(s);
		for (uint32_t g = 0; g < pt->n_groups; g++)
			if (group_on_node(s, &pt->groups[g], nodes[ni]))
				for (uint32_t i = 0; i < pt->groups[g].n; i++)
					evict(pt, pt->groups[g].pods[i]);
		ok = run_scenario(pt);
		if (!ok) {
			gt_stmt_rollback(s, cp1);
			memcpy(pt->feasible, feasible1, s->c->n_nodes);
			pt->n_victims = n_base_victims;
		}
	}
	free(feasible1);
	free(nodes);
out:
	if (!ok) {
		gt_stmt_rollback(s, cp0);
		memcpy(pt->feasible, feasible0, s->c->n_nodes);
	}
	free(feasible0);
	return ok;
}

static void release_groups(struct partial *pt)
{
	for (uint32_t g = 0; g < pt->n_groups; g++)
		free(pt->groups[g].pods);
	free(pt->groups);
	pt->groups = NULL;
	pt->n_groups = pt->cap_groups = 0;
}

/* Pop the next victim group; false when the queue is dry. */
static bool next_group(struct partial *pt, struct victim_queue *vq, bool *added)
{
	struct gt_session *s = pt->sv->s;
	struct victim_entry e;
	*added = false;
	if (!vq_pop(vq, &e))
		return false;
	int32_t *take = gt_xmalloc((e.n + 1) * sizeof(*take));
	bool more;
	uint32_t n = tasks_to_evict(s, &e, take, &more);
	bool recorded = false;
	for (uint32_t i = 0; i < n; i++)
		recorded |= pt->is_recorded[take[i]];
	int32_t *rest = gt_xmalloc((e.n + 1) * sizeof(*rest));
	uint32_t nr = 0;
	for (uint32_t i = 0; i < e.n; i++) {
		int32_t p = e.pods[i];
		bool gone = recorded ? pt->is_recorded[p] : in_list(take, n, p);
		if (!gone)
			rest[nr++] = p;
	}
	if (nr && (recorded || more))
		vq_push(vq, e.job, rest, nr);
	free(rest);
	if (recorded || n == 0) {
		free(take);
	} else {
		struct group g = { .job = e.job, .pods = take, .n = n };
		GT_PUSH(pt->groups, pt->n_groups, pt->cap_groups, g);
		*added = true;
	}
	if (e.owned)
		free(e.pods);
	return true;
}

/*
 * KAI's accumulated idle-GPU filter: could the nodes, with what is free or
 * freeing plus everything the scenario's victims hold, take the partial
 * job's whole-GPU tasks at all (first fit, largest task first)? A scenario
 * that fails this needs no simulation.
 */
static bool idle_gpus_suffice(struct partial *pt)
{
	struct gt_session *s = pt->sv->s;
	const struct gt_cluster *c = s->c;
	int64_t want[64];
	uint32_t n_want = 0;
	for (uint32_t i = 0; i < pt->k; i++) {
		const struct gt_pod *p = &c->pods[pt->tasks[i]];
		if (gt_pod_is_shared(p) || n_want == 64)
			return true;	/* fractions: leave it to the simulation */
		if (p->gpus > 0)
			want[n_want++] = p->gpus * 1000LL;
	}
	if (!n_want)
		return true;
	/* milli-GPUs; a victim's fraction counts in full: an upper bound is safe */
	int64_t *free_gpus = pt->scratch_free;
	for (uint32_t n = 0; n < c->n_nodes; n++) {
		free_gpus[n] = 1000LL * (gt_node_idle_gpus(s, (int32_t)n) +
					 gt_node_releasing_gpus(s, (int32_t)n));
		for (uint32_t g = 0; g < s->nodes[n].n_groups; g++)	/* unused parts of shared GPUs */
			free_gpus[n] += 1000 - s->nodes[n].groups[g].used_milli +
					s->nodes[n].groups[g].releasing_milli;
	}
	for (uint32_t i = 0; i < pt->n_recorded; i++) {
		int32_t pod = pt->recorded[i];
		const struct gt_pod_state *st = &s->pods[pod];
		if (st->node >= 0 && st->status != GT_RELEASING)
			free_gpus[st->node] += gt_pod_accepted_gpu_milli(c, pod, st->node);
	}
	for (uint32_t g = 0; g < pt->n_groups; g++)
		for (uint32_t i = 0; i < pt->groups[g].n; i++) {
			int32_t pod = pt->groups[g].pods[i];
			int32_t node = s->pods[pod].node;
			if (node >= 0)
				free_gpus[node] += gt_pod_accepted_gpu_milli(c, pod, node);
		}
	for (uint32_t i = 1; i < n_want; i++)	/* largest first */
		for (uint32_t k = i; k > 0 && want[k - 1] < want[k]; k--) {
			int64_t t = want[k];
			want[k] = want[k - 1];
			want[k - 1] = t;
		}
	for (uint32_t i = 0; i < n_want; i++) {
		uint32_t n = 0;
		while (n < c->n_nodes && free_gpus[n] < want[i])
			n++;
		if (n == c->n_nodes)
			return false;
		free_gpus[n] -= want[i];
	}
	return true;
}

static bool solve_partial(struct partial *pt, const bool *base_feasible,
			  const struct victim_queue *tmpl)
{
	struct gt_session *s = pt->sv->s;
	memcpy(pt->feasible, base_feasible, s->c->n_nodes);
	for (uint32_t i = 0; i < pt->n_recorded; i++) {
		int32_t node = s->pods[pt->recorded[i]].node;
		if (node >= 0)
			pt->feasible[node] = true;
	}
	if (idle_gpus_suffice(pt) && try_scenario(pt, NULL))
		return true;
	struct victim_queue vq;
	vq_copy(&vq, tmpl);
	bool ok = false, added;
	while (!ok && next_group(pt, &vq, &added))
		if (added && idle_gpus_suffice(pt))
			ok = try_scenario(pt, &pt->groups[pt->n_groups - 1]);
	vq_release(&vq);
	release_groups(pt);
	return ok;
}

/* Every podset has at least its minimum of active pods (pipelined count). */
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

static void base_feasible_nodes(const struct gt_session *s, const int32_t *tasks, uint32_t n,
				bool *out)
{
	bool any_cpu_only = false;
	for (uint32_t i = 0; i < n; i++) {
		const struct gt_pod *p = &s->c->pods[tasks[i]];
		any_cpu_only |= p->gpus == 0 && !gt_pod_is_shared(p);
	}
	for (uint32_t node = 0; node < s->c->n_nodes; node++) {
		bool ok = any_cpu_only || gt_node_idle_gpus(s, (int32_t)node) +
						  gt_node_releasing_gpus(s, (int32_t)node) > 0;
		for (uint32_t g = 0; !ok && g < s->nodes[node].n_groups; g++)
			ok = s->nodes[node].groups[g].used_milli < 1000;
		out[node] = ok;
	}
}

void gt_solve_each(struct gt_session *s, const struct gt_solver *tmpl,
		   bool (*candidate)(const struct gt_session *s, int32_t job),
		   bool (*gate)(const struct gt_session *s, int32_t job, const int64_t req[GT_NQRES]))
{
	struct gt_jobq jq;
	gt_jobq_init(&jq, s);
	for (uint32_t j = 0; j < s->c->n_jobs; j++)
		if (gt_job_pending_ready(s, (int32_t)j) && gt_job_may_trigger_evictions(s, (int32_t)j) &&
		    (!candidate || candidate(s, (int32_t)j)))
			gt_jobq_push(&jq, (int32_t)j);
	for (int32_t job; (job = gt_jobq_pop(&jq)) != GT_NONE;) {
		int32_t *tasks = gt_xmalloc((s->c->jobs[job].n_pods + 1) * sizeof(*tasks));
		int64_t req[GT_NQRES];
		gt_tasks_queue_res(s, tasks, gt_tasks_to_allocate(s, job, tasks), req);
		free(tasks);
		if (gate && !gate(s, job, req))
			continue;
		struct gt_solver sv = *tmpl;
		sv.s = s;
		sv.job = job;
		if (sv.queues_at_start)	/* OnJobSolutionStart: the queues as they are now */
			memcpy(sv.queues_at_start, s->queues, s->c->n_queues * sizeof(*s->queues));
		size_t cp = gt_stmt_checkpoint(s);
		if (gt_solve(&sv))
			gt_stmt_commit(s, cp);
	}
	gt_jobq_release(&jq);
}

bool gt_solve(struct gt_solver *sv)
{
	struct gt_session *s = sv->s;
	const struct gt_job *j = &s->c->jobs[sv->job];
	int32_t *tasks = gt_xmalloc((j->n_pods + 1) * sizeof(*tasks));
	uint32_t n = gt_tasks_to_allocate(s, sv->job, tasks);
	uint32_t active_before;
	gang_satisfied(s, sv->job, &active_before);
	size_t cp = gt_stmt_checkpoint(s);
	uint32_t n_nodes = s->c->n_nodes;
	bool *base = gt_xmalloc(n_nodes + 1);
	base_feasible_nodes(s, tasks, n, base);
	struct partial pt = { .sv = sv, .tasks = tasks };
	pt.feasible = gt_xmalloc(n_nodes + 1);
	pt.scratch_free = gt_xmalloc((n_nodes + 1) * sizeof(*pt.scratch_free));
	pt.mask_bits = gt_xcalloc(s->index.n_words, sizeof(*pt.mask_bits));
	pt.is_recorded = gt_xcalloc(s->c->n_pods + 1, sizeof(*pt.is_recorded));
	pt.job_stamp = gt_xcalloc(s->c->n_jobs + 1, sizeof(*pt.job_stamp));
	bool solved = n > 0;
	struct victim_queue tmpl;
	vq_init(&tmpl, sv);
	for (uint32_t k = 1; k <= n && solved; k++) {
		size_t cpk = gt_stmt_checkpoint(s);
		pt.k = k;
		solved = solve_partial(&pt, base, &tmpl);
		if (!solved)
			break;
		/* the victims of this solution: evicted ones and moved ones */
		for (uint32_t i = 0; i < pt.n_recorded; i++)
			pt.is_recorded[pt.recorded[i]] = false;
		free(pt.recorded);
		pt.recorded = gt_xmalloc((pt.n_victims + 1) * sizeof(*pt.recorded));
		pt.n_recorded = 0;
		for (uint32_t i = 0; i < pt.n_victims; i++) {
			enum gt_status st = s->pods[pt.victims[i]].status;
			if (st == GT_RELEASING || st == GT_PIPELINED) {
				pt.recorded[pt.n_recorded++] = pt.victims[i];
				pt.is_recorded[pt.victims[i]] = true;
			}
		}
		if (k < n)
			gt_stmt_rollback(s, cpk);
	}
	vq_release(&tmpl);
	uint32_t active_after;
	if (solved && !(gang_satisfied(s, sv->job, &active_after) && active_after > active_before))
		solved = false;
	if (!solved)
		gt_stmt_rollback(s, cp);
	free(pt.recorded);
	free(pt.victims);
	free(pt.feasible);
	free(pt.scratch_free);
	free(pt.mask_bits);
	free(pt.is_recorded);
	free(pt.job_stamp);
	free(base);
	free(tasks);
	return solved;
}
