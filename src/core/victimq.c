/*
 * victimq.c - the victim queue over an action-long index
 *
 * Cost: building the index is O(J log J) once per action (J jobs); a
 * committed solution re-orders the jobs it touched, O(jobs of that queue)
 * each. A search step's queue costs O(Q) to start (Q queues) and per pop
 * O(Q) queue comparisons plus the candidates it skips; a skipped job is one
 * that is not a victim of this preemptor (its own queue for reclaim, not
 * lower priority for preempt, protected by min-runtime) or holds nothing.
 */
#include "core/victimq.h"

#include <stdlib.h>
#include <string.h>

#include "core/gang.h"
#include "core/order.h"
#include "util/heap.h"
#include "util/mem.h"

/* ---------------------------------------------------------------- keys */

/* KAI's elastic order over @pods: 0 below min, 1 at, 2 above. */
static int8_t elastic_state(const struct gt_session *s, int32_t job, const int32_t *pods, uint32_t n)
{
	const struct gt_job *j = &s->c->jobs[job];
	int32_t cnt[GT_MAX_PODSETS];
	memset(cnt, 0, j->n_podsets * sizeof(*cnt));
	for (uint32_t i = 0; i < n; i++)
		if (gt_status_active_allocated(s->pods[pods[i]].status))
			cnt[s->c->pods[pods[i]].podset]++;
	if (!gt_gang_met(j, cnt))
		return 0;
	int8_t state = 1;
	for (uint32_t i = 0; i < j->n_podsets; i++)
		if (cnt[i] > j->podsets[i].min_member)
			state = 2;
	return state;
}

/*
 * Job order over entries: priority, elastic state, age, then the job
 * index. <0 when @a is allocated before @b; the victim queue pops the
 * *last* in this order first.
 */
static int key_cmp(const struct gt_victim_key *a, const struct gt_victim_key *b)
{
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	if (a->elastic != b->elastic)
		return a->elastic < b->elastic ? -1 : 1;
	if (a->created != b->created)
		return a->created < b->created ? -1 : 1;
	return a->job < b->job ? -1 : a->job > b->job;
}

/* Does @a give up before @b? */
static bool gives_first(const struct gt_victim_key *a, const struct gt_victim_key *b)
{
	return key_cmp(a, b) > 0;
}

/* The key of the job's active pods now; its pods are read without a copy. */
static struct gt_victim_key job_key(const struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	return (struct gt_victim_key){ .priority = j->priority,
				       .elastic = (int8_t)gt_job_elastic_state(s, job),
				       .created = j->created, .job = job };
}

/* GPU milli-units @job's active pods hold. */
static int64_t job_gpu(const struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	int64_t sum = 0;
	for (uint32_t i = 0; i < j->n_pods; i++) {
		const struct gt_pod_state *st = &s->pods[j->pods[i]];
		if (!gt_status_active_allocated(st->status))
			continue;
		int64_t res[GT_NQRES];
		gt_pod_queue_res(s, j->pods[i], st->node, res);
		sum += res[GT_QGPU];
	}
	return sum;
}

/* Keep the queue's most GPU held by one job up to date (it only has to be a bound). */
static void note_job_gpu(struct gt_session *s, int32_t job)
{
	int32_t q = s->c->jobs[job].queue;
	int64_t g = job_gpu(s, job);
	if (g > s->victims.max_job_gpu[q])
		s->victims.max_job_gpu[q] = g;
}

static bool in_index(const struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	return j->queue != GT_NONE && j->preemptible && s->c->queues[j->queue].n_children == 0;
}

/* ---------------------------------------------------------------- the index */

static int order_cmp(const void *pa, const void *pb)
{
	const struct gt_victim_key *a = pa, *b = pb;
	return -key_cmp(a, b);	/* the first to give up first */
}

void gt_victim_index_prepare(struct gt_session *s)
{
	struct gt_victim_index *ix = &s->victims;
	const struct gt_cluster *c = s->c;
	if (ix->built)
		return;
	uint32_t nq = c->n_queues;
	if (!ix->order) {
		ix->order = gt_arena_calloc(&s->arena, nq + 1, sizeof(*ix->order));
		ix->n_order = gt_arena_calloc(&s->arena, nq + 1, sizeof(*ix->n_order));
		ix->start = gt_arena_calloc(&s->arena, nq + 1, sizeof(*ix->start));
		ix->key = gt_arena_calloc(&s->arena, c->n_jobs + 1, sizeof(*ix->key));
		ix->pos = gt_arena_calloc(&s->arena, c->n_jobs + 1, sizeof(*ix->pos));
		ix->max_job_gpu = gt_arena_calloc(&s->arena, nq + 1, sizeof(*ix->max_job_gpu));
		for (uint32_t j = 0; j < c->n_jobs; j++)
			if (in_index(s, (int32_t)j))
				ix->n_order[c->jobs[j].queue]++;
		for (uint32_t q = 0; q < nq; q++)
			ix->order[q] = gt_arena_alloc(&s->arena, (ix->n_order[q] + 1) * sizeof(int32_t));
	}
	struct gt_victim_key *tmp = gt_xmalloc((c->n_jobs + 1) * sizeof(*tmp));
	uint32_t *fill = gt_xcalloc(nq + 1, sizeof(*fill));
	uint32_t *first = gt_xcalloc(nq + 1, sizeof(*first));
	for (uint32_t q = 1; q < nq; q++)
		first[q] = first[q - 1] + ix->n_order[q - 1];
	memset(ix->max_job_gpu, 0, (nq + 1) * sizeof(*ix->max_job_gpu));
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		if (!in_index(s, (int32_t)j))
			continue;
		int32_t q = c->jobs[j].queue;
		ix->key[j] = job_key(s, (int32_t)j);
		tmp[first[q] + fill[q]++] = ix->key[j];
		note_job_gpu(s, (int32_t)j);
	}
	for (uint32_t q = 0; q < nq; q++) {
		qsort(tmp + first[q], ix->n_order[q], sizeof(*tmp), order_cmp);
		for (uint32_t i = 0; i < ix->n_order[q]; i++) {
			int32_t job = tmp[first[q] + i].job;
			ix->order[q][i] = job;
			ix->pos[job] = i;
		}
		ix->start[q] = 0;
	}
	free(tmp);
	free(fill);
	free(first);
	ix->built = true;
}

int64_t gt_victim_max_job_gpu(struct gt_session *s, int32_t q)
{
	gt_victim_index_prepare(s);
	const struct gt_queue *cq = &s->c->queues[q];
	int64_t m = cq->n_children ? 0 : s->victims.max_job_gpu[q];
	for (uint32_t i = 0; i < cq->n_children; i++) {
		int64_t v = gt_victim_max_job_gpu(s, cq->children[i]);
		m = v > m ? v : m;
	}
	return m;
}

void gt_victim_index_reset(struct gt_session *s)
{
	s->victims.built = false;
}

void gt_victim_index_update(struct gt_session *s, int32_t job)
{
	struct gt_victim_index *ix = &s->victims;
	if (!ix->built || !in_index(s, job))
		return;
	note_job_gpu(s, job);
	struct gt_victim_key k = job_key(s, job);
	if (!key_cmp(&k, &ix->key[job]))
		return;
	int32_t q = s->c->jobs[job].queue;
	int32_t *o = ix->order[q];
	uint32_t n = ix->n_order[q], at = ix->pos[job];
	/* take it out, then find its new place among the rest (binary search) */
	memmove(o + at, o + at + 1, (n - at - 1) * sizeof(*o));
	ix->key[job] = k;
	uint32_t lo = 0, hi = n - 1;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (gives_first(&ix->key[o[mid]], &k))
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(o + lo + 1, o + lo, (n - 1 - lo) * sizeof(*o));
	o[lo] = job;
	uint32_t from = lo < at ? lo : at, to = lo < at ? at : lo;
	for (uint32_t i = from; i <= to; i++)
		ix->pos[o[i]] = i;
	if (lo < ix->start[q])
		ix->start[q] = lo;
}

/*
 * Can @job never be a victim again in this action? No pod holds anything
 * and none is pending (a committed eviction is final; only a pending pod
 * could be placed by a later solution).
 */
static bool gone_for_the_action(const struct gt_session *s, int32_t job)
{
	if (s->job_active[job])
		return false;
	const struct gt_job *j = &s->c->jobs[job];
	for (uint32_t i = 0; i < j->n_pods; i++)
		if (s->pods[j->pods[i]].status == GT_PENDING)
			return false;
	return true;
}

/* ---------------------------------------------------------------- one step's queue */

void gt_victimq_init(struct gt_victimq *vq, struct gt_session *s, struct gt_arena *a,
		     int32_t preemptor, const struct gt_victim_filter *f)
{
	const struct gt_cluster *c = s->c;
	uint32_t nq = c->n_queues + 1;
	gt_victim_index_prepare(s);
	memset(vq, 0, sizeof(*vq));
	vq->s = s;
	vq->a = a;
	vq->preemptor = preemptor;
	vq->admit = f->admit;
	vq->admit_ctx = f->ctx;
	vq->below_priority = f->below_priority;
	vq->max_jobs = f->max_jobs;
	vq->cursor = gt_arena_alloc(a, nq * sizeof(*vq->cursor));
	vq->head = gt_arena_alloc(a, nq * sizeof(*vq->head));
	vq->has_head = gt_arena_calloc(a, nq, sizeof(*vq->has_head));
	vq->heap = gt_arena_calloc(a, nq, sizeof(*vq->heap));
	vq->n_heap = gt_arena_calloc(a, nq, sizeof(*vq->n_heap));
	vq->cap_heap = gt_arena_calloc(a, nq, sizeof(*vq->cap_heap));
	vq->popped = gt_arena_calloc(a, nq, sizeof(*vq->popped));
	vq->keys = gt_queue_key_memos_in(a, c->n_queues);
	vq->roots = gt_arena_alloc(a, nq * sizeof(*vq->roots));
	struct gt_victim_index *ix = &s->victims;
	for (uint32_t q = 0; q < c->n_queues; q++) {
		while (ix->start[q] < ix->n_order[q] && gone_for_the_action(s, ix->order[q][ix->start[q]]))
			ix->start[q]++;
		vq->cursor[q] = ix->start[q];
		if (f->admit_queue && !f->admit_queue(f->ctx, (int32_t)q))
			vq->cursor[q] = ix->n_order[q];	/* no candidate here */
		if (c->queues[q].parent == GT_NONE)
			vq->roots[vq->n_roots++] = (int32_t)q;
	}
}

static void fill_entry(const struct gt_session *s, struct gt_victim_entry *e, int32_t job)
{
	e->key = (struct gt_victim_key){ .priority = s->c->jobs[job].priority,
					 .elastic = elastic_state(s, job, e->pods, e->n),
					 .created = s->c->jobs[job].created, .job = job };
	memset(e->allocated, 0, sizeof(e->allocated));
	for (uint32_t i = 0; i < e->n; i++) {
		const struct gt_pod_state *st = &s->pods[e->pods[i]];
		if (!gt_status_allocated(st->status))
			continue;
		int64_t res[GT_NQRES];
		gt_pod_queue_res(s, e->pods[i], st->node, res);
		for (int r = 0; r < GT_NQRES; r++)
			e->allocated[r] += res[r];
	}
}

/* The next candidate at leaf @q's cursor, made into an entry; false if none. */
static bool cursor_head(struct gt_victimq *vq, int32_t q)
{
	if (vq->has_head[q])
		return true;
	struct gt_session *s = vq->s;
	const struct gt_victim_index *ix = &s->victims;
	if (vq->max_jobs >= 0 && vq->admitted > vq->max_jobs)
		return false;
	while (vq->cursor[q] < ix->n_order[q]) {
		int32_t job = ix->order[q][vq->cursor[q]];
		if (ix->key[job].priority >= vq->below_priority) {
			vq->cursor[q] = ix->n_order[q];	/* the rest are of higher priority still */
			break;
		}
		vq->cursor[q]++;
		if (job == vq->preemptor || !s->job_active[job] || !vq->admit(vq->admit_ctx, job))
			continue;
		const struct gt_job *j = &s->c->jobs[job];
		struct gt_victim_entry *e = &vq->head[q];
		e->pods = gt_arena_alloc(vq->a, (s->job_active[job] + 1) * sizeof(*e->pods));
		e->n = 0;
		for (uint32_t i = 0; i < j->n_pods; i++)
			if (gt_status_active_allocated(s->pods[j->pods[i]].status))
				e->pods[e->n++] = j->pods[i];
		fill_entry(s, e, job);
		vq->has_head[q] = true;
		return true;
	}
	return false;
}

/* Leaf @q's next entry (cursor or pushed back), NULL if empty; *from_heap says which. */
static struct gt_victim_entry *leaf_next(struct gt_victimq *vq, int32_t q, bool *from_heap)
{
	bool cur = cursor_head(vq, q);
	bool heap = vq->n_heap[q] > 0;
	*from_heap = heap && (!cur || gives_first(&vq->heap[q][0].key, &vq->head[q].key));
	if (*from_heap)
		return &vq->heap[q][0];
	return cur ? &vq->head[q] : NULL;
}

static int32_t best_under(struct gt_victimq *vq, int32_t q);

/* Of the sibling queues @qs, the one that gives up first (the reverse of allocation order). */
static int32_t best_among(struct gt_victimq *vq, const int32_t *qs, uint32_t n)
{
	/* on the stack for the usual few siblings (the arena is not ours to pop: cursors take from it) */
	enum { FEW = 32 };
	int32_t few_leaves[FEW], few_sibs[FEW];
	int64_t few_subs[FEW][GT_NQRES];
	bool few = n <= FEW;
	int32_t *leaves = few ? few_leaves : gt_xmalloc(n * sizeof(*leaves));
	int32_t *sibs = few ? few_sibs : gt_xmalloc(n * sizeof(*sibs));
	int64_t(*subs)[GT_NQRES] = few ? few_subs : gt_xmalloc(n * sizeof(*subs));
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		int32_t leaf = best_under(vq, qs[i]);
		if (leaf == GT_NONE)
			continue;
		bool fh;
		const struct gt_victim_entry *head = leaf_next(vq, leaf, &fh);
		for (int r = 0; r < GT_NQRES; r++)
			subs[k][r] = head->allocated[r] + vq->popped[leaf][r];
		leaves[k] = leaf;
		sibs[k++] = qs[i];
	}
	/* victim order: whoever allocation would serve last gives first */
	int32_t best = k ? leaves[gt_queue_gives_first(vq->s, sibs, (const int64_t(*)[GT_NQRES])subs, k, vq->keys)] : GT_NONE;
	if (!few) {
		free(leaves);
		free(sibs);
		free(subs);
	}
	return best;
}

static int32_t best_under(struct gt_victimq *vq, int32_t q)
{
	const struct gt_queue *cq = &vq->s->c->queues[q];
	if (!cq->n_children) {
		bool fh;
		return leaf_next(vq, q, &fh) ? q : GT_NONE;
	}
	return best_among(vq, cq->children, cq->n_children);
}

static bool entry_gives_first(const void *ctx, const struct gt_victim_entry *a,
			      const struct gt_victim_entry *b)
{
	(void)ctx;
	return gives_first(&a->key, &b->key);
}

/* Pushed back entries: the one that gives up first on top. Pushes grow the arena (GT_ARENA_PUSH). */
GT_HEAP_DEFINE(entry_heap, struct gt_victim_entry, const void, entry_gives_first)

bool gt_victimq_pop(struct gt_victimq *vq, struct gt_victim_entry *out)
{
	int32_t leaf = best_among(vq, vq->roots, vq->n_roots);
	if (leaf == GT_NONE)
		return false;
	bool from_heap;
	struct gt_victim_entry *e = leaf_next(vq, leaf, &from_heap);
	*out = *e;
	if (from_heap) {
		entry_heap_pop(vq->heap[leaf], &vq->n_heap[leaf], NULL);
	} else {
		vq->has_head[leaf] = false;
		vq->admitted++;
	}
	for (int r = 0; r < GT_NQRES; r++)
		vq->popped[leaf][r] += out->allocated[r];
	return true;
}

void gt_victimq_push(struct gt_victimq *vq, int32_t job, const int32_t *pods, uint32_t n)
{
	const struct gt_session *s = vq->s;
	int32_t q = s->c->jobs[job].queue;
	struct gt_victim_entry e = { .n = n };
	e.pods = gt_arena_alloc(vq->a, (n + 1) * sizeof(*e.pods));
	memcpy(e.pods, pods, n * sizeof(*pods));
	fill_entry(s, &e, job);
	GT_ARENA_PUSH(vq->a, vq->heap[q], vq->n_heap[q], vq->cap_heap[q], e);
	entry_heap_up(vq->heap[q], vq->n_heap[q] - 1, NULL);
}

uint32_t gt_victim_tasks_to_evict(const struct gt_session *s, const struct gt_victim_entry *e,
				  int32_t *out, bool *more)
{
	const struct gt_job *j = &s->c->jobs[e->key.job];
	struct gt_podset_count cnt[GT_MAX_PODSETS];
	memset(cnt, 0, j->n_podsets * sizeof(*cnt));	/* not the whole array: 10 KB a call */
	uint32_t active = 0;
	for (uint32_t i = 0; i < e->n; i++)
		if (gt_status_active_allocated(s->pods[e->pods[i]].status)) {
			cnt[s->c->pods[e->pods[i]].podset].active_allocated++;
			active++;
		}
	uint32_t order[GT_MAX_PODSETS];
	gt_sort_podsets(s, e->key.job, cnt, order);
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
