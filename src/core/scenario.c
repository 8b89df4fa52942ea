/*
 * scenario.c - accumulated victims, their filters, and the two generators
 *
 * See scenario.h for what each part decides and what it costs. Units are
 * milli-GPUs throughout (KAI counts GPUs in float64; whole GPUs and
 * fractions in thousandths compare the same, exactly).
 */
#include "core/scenario.h"

#include <stdlib.h>
#include <string.h>

#include "core/gang.h"
#include "core/order.h"
#include "core/placement.h"
#include "util/mem.h"

static const char *const generator_names[GT_N_GENERATORS] = {
	[GT_GEN_NODE_LOCAL_GREEDY] = "NodeLocalGreedy",
	[GT_GEN_MULTI_NODE_GANG] = "MultiNodeGang",
};

const char *gt_generator_name(enum gt_generator g)
{
	return (unsigned)g < GT_N_GENERATORS ? generator_names[g] : "";
}

/* ---------------------------------------------------------------- scratch */

static void marks_init(struct gt_arena *a, struct gt_marks *m, uint32_t n)
{
	m->n = n + 1;
	m->mark = gt_arena_calloc(a, m->n, sizeof(*m->mark));
	m->val = gt_arena_alloc(a, m->n * sizeof(*m->val));
	m->stamp = 0;
}

struct gt_search_scratch *gt_search_scratch(struct gt_session *s)
{
	if (s->search_scratch)
		return s->search_scratch;
	const struct gt_cluster *c = s->c;
	struct gt_search_scratch *x = gt_arena_calloc(&s->arena, 1, sizeof(*x));
	marks_init(&s->arena, &x->node_jobs, c->n_nodes);
	marks_init(&s->arena, &x->node_room, c->n_nodes);
	marks_init(&s->arena, &x->node_top, c->n_nodes);
	marks_init(&s->arena, &x->job_batches, c->n_jobs);
	marks_init(&s->arena, &x->job_last, c->n_jobs);
	marks_init(&s->arena, &x->job_pick, c->n_jobs);
	marks_init(&s->arena, &x->node_em, c->n_nodes);
	marks_init(&s->arena, &x->node_aff, c->n_nodes);
	marks_init(&s->arena, &x->node_rec, c->n_nodes);
	marks_init(&s->arena, &x->pod_rec, c->n_pods);
	marks_init(&s->arena, &x->pod_in, c->n_pods);
	marks_init(&s->arena, &x->job_sim, c->n_jobs);
	s->search_scratch = x;
	return x;
}

/* ---------------------------------------------------------------- GPU amounts */

int64_t gt_task_gpu_quota_milli(const struct gt_session *s, int32_t pod)
{
	const struct gt_pod *p = &s->c->pods[pod];
	if (p->gpu_mem_mib && !p->frac_milli)
		return 0;	/* a GPU-memory request has no device portion until placed */
	int64_t res[GT_NQRES];
	gt_pod_queue_res(s, pod, GT_NONE, res);	/* whole, fraction x devices, or MIG slices */
	return res[GT_QGPU];
}

int64_t gt_node_room_milli(const struct gt_session *s, int32_t node)
{
	int64_t room = 1000LL * (gt_node_idle_gpus(s, node) + gt_node_releasing_gpus(s, node));
	const struct gt_node_state *ns = &s->nodes[node];
	for (uint32_t g = 0; g < ns->n_groups; g++)	/* unused parts of shared GPUs */
		room += 1000 - ns->groups[g].used_milli + ns->groups[g].releasing_milli;
	for (uint32_t e = 0; e < s->c->n_ext; e++)	/* MIG slices, as GPU portions */
		if (s->c->ext_gpu_milli[e])
			room += (s->c->nodes[node].ext[e] - ns->used_ext[e] + ns->rel_ext[e]) *
				s->c->ext_gpu_milli[e];
	return room;
}

/* GPU milli-units a victim gives back on its node (KAI's AcceptedGpuRequirement). */
static int64_t victim_gpu_milli(const struct gt_session *s, int32_t pod)
{
	int64_t res[GT_NQRES];
	gt_pod_queue_res(s, pod, s->pods[pod].node, res);
	return res[GT_QGPU];
}

static int cmp_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x > y ? -1 : x < y;
}

/*
 * KAI's greedyMatchRequirements: each requirement (largest first) takes the
 * first holder (most room first) with enough room left. Requirements and
 * holders' rooms are sorted descending; a zero requirement ends the match.
 * A run of equal requirements resumes at the holder the last one took (the
 * holders before it had too little for it then and have no more now), so a
 * run costs O(holders), not O(holders x run). @used is all zero on entry
 * and is left so.
 */
static bool greedy_match(const int64_t *req, uint32_t n_req, const int64_t *room, uint32_t n_room,
			 int64_t *used)
{
	uint32_t last = 0, touched = 0;
	bool ok = true;
	for (uint32_t i = 0; i < n_req && ok; i++) {
		if (req[i] == 0)
			break;
		uint32_t h = i > 0 && req[i] == req[i - 1] ? last : 0;
		ok = false;
		for (; h < n_room; h++) {
			if (room[h] < req[i])
				break;	/* holders are sorted: none further can hold it */
			if (room[h] - used[h] >= req[i]) {
				used[h] += req[i];
				touched = h + 1 > touched ? h + 1 : touched;
				last = h;
				ok = true;
				break;
			}
		}
	}
	memset(used, 0, touched * sizeof(*used));
	return ok;
}

/* ---------------------------------------------------------------- filters */

/* KAI's AccumulatedIdleGpus: the K nodes with the most room, kept in order. */
struct idle_filter {
	int64_t *req;		/* the probe's GPU requests, largest first */
	uint32_t n_req;
	bool trivial;		/* no GPU request: always passes */
	int32_t *top;		/* up to K nodes, most room first */
	uint32_t n_top;
	int64_t *room;		/* room of each top node */
	int64_t *used;		/* scratch for the match, all zero between matches */
};

/* KAI's TopologyAwareIdleGpus: free + freeable GPUs per domain of each required level. */
struct topo_key {
	uint32_t label;			/* node label key of the level */
	uint32_t n_dom;
	int64_t *cap;			/* per domain */
	uint32_t *order;		/* domains, most room first */
	uint32_t *at;			/* domain -> its place in order */
	int32_t *node_dom;		/* node -> domain, GT_NONE when unlabelled */
	int64_t *req;			/* requirements of the sub-groups at this level, largest first */
	uint32_t n_req;
};

struct topo_filter {
	struct topo_key *keys;
	uint32_t n_keys;
	int64_t *room, *used;
};

/* KAI's NodeAffinitiesFilter: every task with a node affinity has a node it may use. */
struct affinity_filter {
	int32_t *tasks;
	bool *ok;
	uint32_t n, n_unmet;
};

struct gt_filters {
	struct idle_filter idle;
	struct topo_filter *topo;
	struct affinity_filter *aff;
};

static int64_t room_of(struct gt_accum *acc, int32_t node)
{
	struct gt_marks *m = &gt_search_scratch(acc->st->s)->node_room;
	if (!gt_marks_has(m, (uint32_t)node))
		gt_marks_set(m, (uint32_t)node, gt_node_room_milli(acc->st->s, node));
	return m->val[node];
}

static void idle_init(struct gt_accum *acc)
{
	const struct gt_step *st = acc->st;
	const struct gt_session *s = st->s;
	struct idle_filter *f = &acc->f->idle;
	struct gt_search_scratch *x = gt_search_scratch(st->s);
	f->req = gt_arena_alloc(st->a, (st->k + 1) * sizeof(*f->req));
	f->n_req = st->k;
	f->trivial = true;
	for (uint32_t i = 0; i < st->k; i++) {
		f->req[i] = gt_task_gpu_quota_milli(s, st->tasks[i]);
		f->trivial &= f->req[i] == 0;
	}
	qsort(f->req, f->n_req, sizeof(*f->req), cmp_desc);
	uint32_t k = f->n_req;
	f->top = gt_arena_alloc(st->a, (k + 1) * sizeof(*f->top));
	f->room = gt_arena_alloc(st->a, (k + 1) * sizeof(*f->room));
	f->used = gt_arena_calloc(st->a, k + 1, sizeof(*f->used));
	f->n_top = 0;
	gt_marks_begin(&x->node_top);
	if (f->trivial)
		return;
	/* the K nodes with the most room: insertion into a sorted array of K */
	for (uint32_t n = 0; n < s->c->n_nodes; n++) {
		int64_t r = room_of(acc, (int32_t)n);
		if (f->n_top == k && r <= f->room[k - 1])
			continue;
		uint32_t i = f->n_top < k ? f->n_top++ : k - 1;
		while (i > 0 && f->room[i - 1] < r) {
			f->top[i] = f->top[i - 1];
			f->room[i] = f->room[i - 1];
			i--;
		}
		f->top[i] = (int32_t)n;
		f->room[i] = r;
	}
	for (uint32_t i = 0; i < f->n_top; i++)
		gt_marks_set(&x->node_top, (uint32_t)f->top[i], i);
}

/* Node @node has @freed more room: keep the top K (and their rooms) in order. */
static void idle_add(struct gt_accum *acc, int32_t node, int64_t freed)
{
	struct idle_filter *f = &acc->f->idle;
	struct gt_marks *top = &gt_search_scratch(acc->st->s)->node_top;
	struct gt_marks *rm = &gt_search_scratch(acc->st->s)->node_room;
	int64_t r = room_of(acc, node) + freed;
	rm->val[node] = r;
	if (f->trivial || freed <= 0)
		return;
	uint32_t i;
	if (gt_marks_has(top, (uint32_t)node)) {
		i = (uint32_t)top->val[node];
	} else {
		if (f->n_top == f->n_req && (f->n_top == 0 || r <= f->room[f->n_top - 1]))
			return;
		if (f->n_top < f->n_req) {
			i = f->n_top++;
		} else {
			i = f->n_top - 1;
			top->mark[f->top[i]] = 0;	/* the last one drops out */
		}
	}
	while (i > 0 && f->room[i - 1] < r) {
		f->top[i] = f->top[i - 1];
		f->room[i] = f->room[i - 1];
		top->val[f->top[i]] = i;
		i--;
	}
	f->top[i] = node;
	f->room[i] = r;
	gt_marks_set(top, (uint32_t)node, i);
}

static bool idle_ok(struct gt_accum *acc)
{
	struct idle_filter *f = &acc->f->idle;
	return f->trivial || greedy_match(f->req, f->n_req, f->room, f->n_top, f->used);
}

/* GPU requests of the partial job's pods (its active ones and the probe) under @group. */
static int64_t group_request(const struct gt_step *st, int32_t group)
{
	const struct gt_session *s = st->s;
	const struct gt_job *j = &s->c->jobs[st->job];
	int64_t sum = 0;
	for (uint32_t i = 0; i < j->n_pods; i++) {
		int32_t p = j->pods[i];
		if (gt_status_active_allocated(s->pods[p].status) &&
		    gt_gang_podset_under(j, s->c->pods[p].podset, group))
			sum += gt_task_gpu_quota_milli(s, p);
	}
	for (uint32_t i = 0; i < st->k; i++)
		if (gt_gang_podset_under(j, s->c->pods[st->tasks[i]].podset, group))
			sum += gt_task_gpu_quota_milli(s, st->tasks[i]);
	return sum;
}

static struct topo_key *topo_key_for(struct gt_accum *acc, struct topo_filter *tf, uint32_t label)
{
	for (uint32_t i = 0; i < tf->n_keys; i++)
		if (tf->keys[i].label == label)
			return &tf->keys[i];
	const struct gt_step *st = acc->st;
	const struct gt_cluster *c = st->s->c;
	struct topo_key *k = &tf->keys[tf->n_keys++];
	memset(k, 0, sizeof(*k));
	k->label = label;
	k->node_dom = gt_arena_alloc(st->a, (c->n_nodes + 1) * sizeof(*k->node_dom));
	k->cap = gt_arena_calloc(st->a, c->n_nodes + 1, sizeof(*k->cap));
	int64_t *vals = gt_arena_alloc(st->a, (c->n_nodes + 1) * sizeof(*vals));
	/* domains in order of first appearance (KAI's come from a Go map: any order is KAI's) */
	for (uint32_t n = 0; n < c->n_nodes; n++) {
		int64_t v = gt_labels_get(&c->nodes[n].labels, label);
		k->node_dom[n] = GT_NONE;
		if (v < 0)
			continue;
		uint32_t d = 0;
		while (d < k->n_dom && vals[d] != v)
			d++;
		if (d == k->n_dom)
			vals[k->n_dom++] = v;
		k->node_dom[n] = (int32_t)d;
		k->cap[d] += room_of(acc, (int32_t)n);
	}
	k->order = gt_arena_alloc(st->a, (k->n_dom + 1) * sizeof(*k->order));
	k->at = gt_arena_alloc(st->a, (k->n_dom + 1) * sizeof(*k->at));
	for (uint32_t d = 0; d < k->n_dom; d++)
		k->order[d] = d;
	for (uint32_t i = 1; i < k->n_dom; i++)
		for (uint32_t m = i; m > 0 && k->cap[k->order[m - 1]] < k->cap[k->order[m]]; m--) {
			uint32_t t = k->order[m];
			k->order[m] = k->order[m - 1];
			k->order[m - 1] = t;
		}
	for (uint32_t d = 0; d < k->n_dom; d++)
		k->at[k->order[d]] = d;
	k->req = gt_arena_alloc(st->a, (st->s->c->jobs[st->job].n_groups + 2) * sizeof(*k->req));
	return k;
}

static void topo_require(struct gt_accum *acc, struct topo_filter *tf,
			 const struct gt_topology_constraint *tc, int32_t group)
{
	const struct gt_cluster *c = acc->st->s->c;
	if (tc->topology == GT_NONE || tc->required_level == GT_NONE)
		return;
	uint32_t label = c->topologies[tc->topology].levels[tc->required_level];
	struct topo_key *k = topo_key_for(acc, tf, label);
	k->req[k->n_req++] = group_request(acc->st, group);
}

static void topo_init(struct gt_accum *acc)
{
	const struct gt_step *st = acc->st;
	const struct gt_job *j = &st->s->c->jobs[st->job];
	uint32_t n_constraints = (j->topo.required_level != GT_NONE) + 0u;
	for (uint32_t g = 0; g < j->n_groups; g++)
		n_constraints += j->groups[g].topo.required_level != GT_NONE;
	if (!n_constraints)
		return;
	struct topo_filter *tf = gt_arena_calloc(st->a, 1, sizeof(*tf));
	tf->keys = gt_arena_alloc(st->a, n_constraints * sizeof(*tf->keys));
	topo_require(acc, tf, &j->topo, GT_NONE);
	for (uint32_t g = 0; g < j->n_groups; g++)
		topo_require(acc, tf, &j->groups[g].topo, (int32_t)g);
	uint32_t most = 1;
	for (uint32_t i = 0; i < tf->n_keys; i++) {
		qsort(tf->keys[i].req, tf->keys[i].n_req, sizeof(int64_t), cmp_desc);
		most = tf->keys[i].n_dom > most ? tf->keys[i].n_dom : most;
	}
	tf->room = gt_arena_alloc(st->a, (most + 1) * sizeof(*tf->room));
	tf->used = gt_arena_calloc(st->a, most + 1, sizeof(*tf->used));
	acc->f->topo = tf;
}

static void topo_add(struct gt_accum *acc, int32_t node, int64_t freed)
{
	struct topo_filter *tf = acc->f->topo;
	if (!tf || freed <= 0)
		return;
	for (uint32_t i = 0; i < tf->n_keys; i++) {
		struct topo_key *k = &tf->keys[i];
		int32_t d = k->node_dom[node];
		if (d == GT_NONE)
			continue;
		k->cap[d] += freed;
		for (uint32_t at = k->at[d]; at > 0 && k->cap[k->order[at - 1]] < k->cap[d]; at--) {
			uint32_t other = k->order[at - 1];
			k->order[at - 1] = (uint32_t)d;
			k->order[at] = other;
			k->at[other] = at;
			k->at[d] = at - 1;
		}
	}
}

static bool topo_ok(struct gt_accum *acc)
{
	struct topo_filter *tf = acc->f->topo;
	for (uint32_t i = 0; tf && i < tf->n_keys; i++) {
		struct topo_key *k = &tf->keys[i];
		for (uint32_t d = 0; d < k->n_dom; d++)
			tf->room[d] = k->cap[k->order[d]];
		if (!greedy_match(k->req, k->n_req, tf->room, k->n_dom, tf->used))
			return false;
	}
	return true;
}

static void aff_look(struct gt_accum *acc, int32_t node)
{
	struct affinity_filter *af = acc->f->aff;
	const struct gt_cluster *c = acc->st->s->c;
	for (uint32_t i = 0; i < af->n && af->n_unmet; i++)
		if (!af->ok[i] && gt_node_affinity_ok(c, &c->pods[af->tasks[i]], &c->nodes[node])) {
			af->ok[i] = true;
			af->n_unmet--;
		}
}

static void aff_init(struct gt_accum *acc)
{
	const struct gt_step *st = acc->st;
	const struct gt_cluster *c = st->s->c;
	uint32_t n = 0;
	for (uint32_t i = 0; i < st->k; i++) {
		const struct gt_pod *p = &c->pods[st->tasks[i]];
		n += p->node_selector.n > 0 || p->n_affinity_terms > 0;
	}
	if (!n)
		return;
	struct affinity_filter *af = gt_arena_calloc(st->a, 1, sizeof(*af));
	af->tasks = gt_arena_alloc(st->a, n * sizeof(*af->tasks));
	af->ok = gt_arena_calloc(st->a, n, sizeof(*af->ok));
	for (uint32_t i = 0; i < st->k; i++) {
		const struct gt_pod *p = &c->pods[st->tasks[i]];
		if (p->node_selector.n > 0 || p->n_affinity_terms > 0)
			af->tasks[af->n++] = st->tasks[i];
	}
	af->n_unmet = af->n;
	acc->f->aff = af;
	struct gt_marks *seen = &gt_search_scratch(st->s)->node_aff;
	gt_marks_begin(seen);
	for (uint32_t w = 0; w < st->s->index.n_words; w++)
		for (uint64_t bits = st->feasible[w]; bits && af->n_unmet; bits &= bits - 1) {
			uint32_t rank = w * 64 + (uint32_t)__builtin_ctzll(bits);
			int32_t node = st->s->index.node_at_rank[rank];
			gt_marks_set(seen, (uint32_t)node, 1);
			aff_look(acc, node);
		}
}

static void aff_add(struct gt_accum *acc, int32_t node)
{
	struct gt_marks *seen = &gt_search_scratch(acc->st->s)->node_aff;
	if (!acc->f->aff || gt_marks_has(seen, (uint32_t)node))
		return;
	gt_marks_set(seen, (uint32_t)node, 1);
	aff_look(acc, node);
}

/* A victim pod joins the accumulation: every filter learns what it frees. */
static void filters_add(struct gt_accum *acc, int32_t pod)
{
	int32_t node = acc->st->s->pods[pod].node;
	if (node < 0)
		return;
	int64_t freed = victim_gpu_milli(acc->st->s, pod);
	idle_add(acc, node, freed);
	topo_add(acc, node, freed);
	if (acc->f->aff)
		aff_add(acc, node);
}

/* KAI's filter order: node affinity, topology, idle GPUs. */
static bool filters_ok(struct gt_accum *acc)
{
	bool ok = !(acc->f->aff && acc->f->aff->n_unmet) && topo_ok(acc) && idle_ok(acc);
	if (!ok)	/* KAI's IncScenarioFilteredByAction */
		acc->st->s->search[acc->st->s->action].filtered++;
	return ok;
}

/* ---------------------------------------------------------------- accumulation */

/* What the recorded victims on @node free: computed once per step (accum_init). */
static int64_t recorded_freed(const struct gt_step *st, int32_t node)
{
	const struct gt_marks *m = &gt_search_scratch(st->s)->node_rec;
	return gt_marks_has(m, (uint32_t)node) ? m->val[node] : 0;
}

static void accum_init(struct gt_accum *acc, const struct gt_step *st)
{
	memset(acc, 0, sizeof(*acc));
	acc->st = st;
	struct gt_search_scratch *x = gt_search_scratch(st->s);
	acc->stamp = gt_marks_begin(&x->node_jobs);
	gt_marks_begin(&x->job_batches);
	gt_marks_begin(&x->job_last);
	gt_marks_begin(&x->node_room);
	gt_victimq_init(&acc->vq, st->s, st->a, st->job, &st->victims);
	acc->f = gt_arena_calloc(st->a, 1, sizeof(*acc->f));
	gt_marks_begin(&x->node_rec);
	for (uint32_t i = 0; i < st->n_recorded; i++) {
		int32_t pod = st->recorded[i], node = st->s->pods[pod].node;
		if (node < 0)
			continue;
		int64_t prev = gt_marks_has(&x->node_rec, (uint32_t)node) ? x->node_rec.val[node] : 0;
		gt_marks_set(&x->node_rec, (uint32_t)node, prev + victim_gpu_milli(st->s, pod));
	}
	for (uint32_t w = 0; w < st->s->index.n_words; w++)
		for (uint64_t bits = st->feasible[w]; bits; bits &= bits - 1) {
			int32_t node = st->s->index.node_at_rank[w * 64 + (uint32_t)__builtin_ctzll(bits)];
			acc->feasible_room += gt_node_room_milli(st->s, node) + recorded_freed(st, node);
		}
	aff_init(acc);
	idle_init(acc);
	topo_init(acc);
	for (uint32_t i = 0; i < st->n_recorded; i++)
		filters_add(acc, st->recorded[i]);
}

static void add_batch(struct gt_accum *acc, int32_t job, const int32_t *pods, uint32_t n)
{
	const struct gt_step *st = acc->st;
	struct gt_search_scratch *x = gt_search_scratch(st->s);
	uint32_t b = acc->n_batches;
	struct gt_batch batch = { .job = job, .first = acc->n_pods, .n = n, .next_of_job = GT_NONE };
	GT_ARENA_PUSH(st->a, acc->batches, acc->n_batches, acc->cap_batches, batch);
	for (uint32_t i = 0; i < n; i++) {
		GT_ARENA_PUSH(st->a, acc->pods, acc->n_pods, acc->cap_pods, pods[i]);
		filters_add(acc, pods[i]);
		/* the node knows the job (once) */
		int32_t node = st->s->pods[pods[i]].node;
		if (node < 0)
			continue;
		int32_t head = gt_marks_has(&x->node_jobs, (uint32_t)node) ? (int32_t)x->node_jobs.val[node] : GT_NONE;
		bool known = false;
		for (int32_t e = head; e != GT_NONE && !known; e = acc->nj[e].next)
			known = acc->nj[e].job == job;
		if (known)
			continue;
		struct gt_node_job nj = { .job = job, .next = head };
		gt_marks_set(&x->node_jobs, (uint32_t)node, acc->n_nj);
		GT_ARENA_PUSH(st->a, acc->nj, acc->n_nj, acc->cap_nj, nj);
	}
	/* the job knows its batches, in order */
	if (gt_marks_has(&x->job_last, (uint32_t)job))
		acc->batches[x->job_last.val[job]].next_of_job = (int32_t)b;
	else
		gt_marks_set(&x->job_batches, (uint32_t)job, b);
	gt_marks_set(&x->job_last, (uint32_t)job, b);
}

enum pop_result { POP_EMPTY, POP_ADDED, POP_SKIPPED };

/*
 * KAI's addNextPotentialVictims: pop the next entry; a batch of it joins
 * the potential victims unless it touches a recorded victim (then what is
 * not recorded goes back to the queue); an elastic entry's rest goes back.
 */
static enum pop_result accum_pop(struct gt_accum *acc)
{
	const struct gt_step *st = acc->st;
	const struct gt_session *s = st->s;
	struct gt_victim_entry e;
	if (!gt_victimq_pop(&acc->vq, &e)) {
		acc->exhausted = true;
		return POP_EMPTY;
	}
	int32_t *take = gt_arena_alloc(st->a, (e.n + 1) * sizeof(*take));
	int32_t *rest = gt_arena_alloc(st->a, (e.n + 1) * sizeof(*rest));
	bool more;
	uint32_t n = gt_victim_tasks_to_evict(s, &e, take, &more);
	bool recorded = false;
	for (uint32_t i = 0; i < n; i++)
		recorded |= st->pod_mark[take[i]] == st->rec_mark;
	uint32_t nr = 0;
	for (uint32_t i = 0; i < e.n; i++) {
		int32_t p = e.pods[i];
		bool gone = false;
		if (recorded)
			gone = st->pod_mark[p] == st->rec_mark;
		for (uint32_t t = 0; !recorded && t < n && !gone; t++)
			gone = take[t] == p;
		if (!gone)
			rest[nr++] = p;
	}
	if (nr && (recorded || more))
		gt_victimq_push(&acc->vq, e.key.job, rest, nr);
	if (recorded || !n)
		return POP_SKIPPED;
	add_batch(acc, e.key.job, take, n);
	return POP_ADDED;
}

/*
 * KAI's iterateAccumulated: with @advance, pop first; then pop until the
 * accumulation passes the filters. False when the queue runs dry.
 */
static bool accum_next_valid(struct gt_accum *acc, bool advance)
{
	for (;;) {
		if (advance) {
			enum pop_result r = accum_pop(acc);
			if (r == POP_EMPTY)
				return false;
			if (r == POP_SKIPPED)
				continue;
		}
		advance = true;
		if (filters_ok(acc))
			return true;
	}
}

/* ---------------------------------------------------------------- NodeLocalGreedy */

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return x < y ? -1 : x > y;
}

/* Every batch of the jobs with a potential victim on @node, and how many jobs. */
static uint32_t node_local_batches(struct gt_accum *acc, int32_t node, uint32_t *out,
				   int32_t *jobs_out, uint32_t *n_jobs)
{
	struct gt_search_scratch *x = gt_search_scratch(acc->st->s);
	*n_jobs = 0;
	if (!gt_marks_has(&x->node_jobs, (uint32_t)node))
		return 0;
	uint32_t n = 0;
	for (int32_t e = (int32_t)x->node_jobs.val[node]; e != GT_NONE; e = acc->nj[e].next) {
		int32_t job = acc->nj[e].job;
		jobs_out[(*n_jobs)++] = job;
		for (int32_t b = (int32_t)x->job_batches.val[job]; b != GT_NONE; b = acc->batches[b].next_of_job)
			out[n++] = (uint32_t)b;
	}
	return n;
}

/*
 * KAI's nodeLocalScenarios: the recorded victims alone when nothing is
 * potential; else, per node of the newest victim job (in name order), the
 * potential victim jobs on that node, whole (each distinct set once).
 */
static void node_local_scenarios(struct gt_scenario_gen *g)
{
	struct gt_accum *acc = &g->acc;
	const struct gt_step *st = acc->st;
	const struct gt_session *s = st->s;
	g->n_pending = g->next_pending = 0;
	if (!acc->n_batches) {
		if (st->n_recorded) {
			g->pending = gt_arena_alloc(st->a, sizeof(*g->pending));
			g->pending[g->n_pending++] = (struct gt_scenario){ NULL, 0 };
		}
		return;
	}
	const struct gt_job *latest = &s->c->jobs[acc->batches[acc->n_batches - 1].job];
	int32_t *nodes = gt_arena_alloc(st->a, (latest->n_pods + 1) * sizeof(*nodes));
	uint32_t nn = 0;
	for (uint32_t i = 0; i < latest->n_pods; i++) {
		int32_t node = s->pods[latest->pods[i]].node;
		if (node < 0)
			continue;
		uint32_t k = nn;
		bool dup = false;
		for (uint32_t m = 0; m < nn && !dup; m++)
			dup = nodes[m] == node;
		if (dup)
			continue;
		while (k > 0 && s->c->nodes[nodes[k - 1]].name_rank > s->c->nodes[node].name_rank) {
			nodes[k] = nodes[k - 1];
			k--;
		}
		nodes[k] = node;
		nn++;
	}
	g->pending = gt_arena_alloc(st->a, (nn + 1) * sizeof(*g->pending));
	int32_t **seen = gt_arena_alloc(st->a, (nn + 1) * sizeof(*seen));
	uint32_t *seen_n = gt_arena_alloc(st->a, (nn + 1) * sizeof(*seen_n));
	for (uint32_t i = 0; i < nn; i++) {
		uint32_t *bs = gt_arena_alloc(st->a, (acc->n_batches + 1) * sizeof(*bs));
		int32_t *jobs = gt_arena_alloc(st->a, (acc->n_batches + 1) * sizeof(*jobs));
		uint32_t n_jobs;
		uint32_t nb = node_local_batches(acc, nodes[i], bs, jobs, &n_jobs);
		if (!nb)
			continue;
		/* the victims are whole jobs: the same jobs, the same scenario */
		qsort(jobs, n_jobs, sizeof(*jobs), cmp_i32);
		bool dup = false;
		for (uint32_t k = 0; k < g->n_pending && !dup; k++)
			dup = seen_n[k] == n_jobs && !memcmp(seen[k], jobs, n_jobs * sizeof(*jobs));
		if (dup)
			continue;
		seen[g->n_pending] = jobs;
		seen_n[g->n_pending] = n_jobs;
		g->pending[g->n_pending++] = (struct gt_scenario){ bs, nb };
	}
}

static bool node_local_next(struct gt_scenario_gen *g, struct gt_scenario *out)
{
	for (;;) {
		if (g->next_pending < g->n_pending) {
			*out = g->pending[g->next_pending++];
			return true;
		}
		if (!accum_next_valid(&g->acc, g->started))
			return false;
		g->started = true;
		node_local_scenarios(g);
	}
}

/* ---------------------------------------------------------------- MultiNodeGang */

/* A node with potential victims, as the sub-scenario emitter sees it. */
struct em_node {
	int32_t node;
	uint32_t first_seen;	/* index of its first potential victim */
	int64_t cap;		/* room + recorded and potential victims' GPUs there */
	uint32_t *batches;	/* batches with a pod here, in order */
	uint32_t n_batches, cap_batches;
};

/* KAI's subScenarioEmitter over one accumulation. */
struct gt_sub_emitter {
	struct em_node *nodes;
	uint32_t *sorted;	/* viable candidates: index into nodes */
	uint32_t n_sorted;
	uint32_t next_k, dk;
	uint32_t *picked;	/* per batch: stamp of the emission that took it */
	uint32_t emission;
};

/* The emitter's sort key: room, then where the node first showed up. */
struct em_key {
	int64_t cap;
	uint32_t first_seen, idx;
};

static int em_cmp(const void *pa, const void *pb)
{
	const struct em_key *a = pa, *b = pb;
	if (a->cap != b->cap)
		return a->cap < b->cap ? -1 : 1;
	return a->first_seen < b->first_seen ? -1 : a->first_seen > b->first_seen;
}

/*
 * KAI's newSubScenarioEmitter: nodes with potential victims, with the room
 * each would have; the viable ones (room for the smallest task) sorted by
 * room, smallest first; the first prefix whose room, with what feasible
 * nodes without victims already have, covers the probe's GPU demand.
 */
static struct gt_sub_emitter *em_new(struct gt_accum *acc)
{
	const struct gt_step *st = acc->st;
	const struct gt_session *s = st->s;
	struct gt_search_scratch *x = gt_search_scratch(st->s);
	struct gt_sub_emitter *em = gt_arena_calloc(st->a, 1, sizeof(*em));
	int64_t demand = 0, min_task = -1;
	for (uint32_t i = 0; i < st->k; i++) {
		int64_t q = gt_task_gpu_quota_milli(s, st->tasks[i]);
		demand += q;
		min_task = min_task < 0 || q < min_task ? q : min_task;
	}
	gt_marks_begin(&x->node_em);
	em->nodes = gt_arena_alloc(st->a, (acc->n_pods + 1) * sizeof(*em->nodes));
	uint32_t n_nodes = 0;
	for (uint32_t b = 0; b < acc->n_batches; b++) {
		const struct gt_batch *bt = &acc->batches[b];
		for (uint32_t i = 0; i < bt->n; i++) {
			int32_t pod = acc->pods[bt->first + i];
			int32_t node = s->pods[pod].node;
			if (node < 0)
				continue;
			struct em_node *en;
			if (!gt_marks_has(&x->node_em, (uint32_t)node)) {
				gt_marks_set(&x->node_em, (uint32_t)node, n_nodes);
				en = &em->nodes[n_nodes++];
				memset(en, 0, sizeof(*en));
				en->node = node;
				en->first_seen = bt->first + i;
				en->cap = recorded_freed(st, node) + gt_node_room_milli(s, node);
			}
			en = &em->nodes[x->node_em.val[node]];
			en->cap += victim_gpu_milli(s, pod);
			if (!en->n_batches || en->batches[en->n_batches - 1] != b)
				GT_ARENA_PUSH(st->a, en->batches, en->n_batches, en->cap_batches, b);
		}
	}
	/* feasible nodes without potential victims: what they hold already counts */
	int64_t baseline = acc->feasible_room;
	for (uint32_t i = 0; i < n_nodes; i++) {
		uint32_t rank = s->c->nodes[em->nodes[i].node].name_rank;
		if (st->feasible[rank / 64] & (1ULL << (rank % 64)))
			baseline -= gt_node_room_milli(s, em->nodes[i].node) +
				    recorded_freed(st, em->nodes[i].node);
	}
	struct em_key *keys = gt_arena_alloc(st->a, (n_nodes + 1) * sizeof(*keys));
	uint32_t nk = 0;
	for (uint32_t i = 0; i < n_nodes; i++)
		if (min_task <= 0 || em->nodes[i].cap >= min_task)
			keys[nk++] = (struct em_key){ em->nodes[i].cap, em->nodes[i].first_seen, i };
	qsort(keys, nk, sizeof(*keys), em_cmp);
	em->sorted = gt_arena_alloc(st->a, (nk + 1) * sizeof(*em->sorted));
	for (uint32_t i = 0; i < nk; i++)
		em->sorted[em->n_sorted++] = keys[i].idx;
	int64_t remaining = demand - baseline;
	uint32_t min_k = 0;
	if (remaining > 0) {
		int64_t cum = 0;
		min_k = em->n_sorted + 1;
		for (uint32_t i = 0; i < em->n_sorted; i++) {
			cum += em->nodes[em->sorted[i]].cap;
			if (cum >= remaining) {
				min_k = i + 1;
				break;
			}
		}
	}
	em->next_k = min_k;
	em->dk = 1;
	em->picked = gt_arena_calloc(st->a, acc->n_batches + 1, sizeof(*em->picked));
	return em;
}

/* The next prefix's batches; false when no prefix is left worth trying. */
static bool em_next(struct gt_accum *acc, struct gt_sub_emitter *em, struct gt_scenario *out)
{
	if (em->next_k > em->n_sorted)
		return false;
	uint32_t k = em->next_k;
	uint32_t *bs = gt_arena_alloc(acc->st->a, (acc->n_batches + 1) * sizeof(*bs));
	uint32_t nb = 0;
	em->emission++;
	for (uint32_t i = 0; i < k; i++) {
		const struct em_node *en = &em->nodes[em->sorted[i]];
		for (uint32_t b = 0; b < en->n_batches; b++)
			if (em->picked[en->batches[b]] != em->emission) {
				em->picked[en->batches[b]] = em->emission;
				bs[nb++] = en->batches[b];
			}
	}
	if (k >= em->n_sorted) {
		em->next_k = em->n_sorted + 1;
	} else {
		em->next_k = k + em->dk < em->n_sorted ? k + em->dk : em->n_sorted;
		em->dk *= 2;
	}
	*out = (struct gt_scenario){ bs, nb };
	return true;
}

/* KAI's PodAccumulatedScenarioBuilder.iterate under the MultiNodeGang generator. */
static bool multi_node_next(struct gt_scenario_gen *g, struct gt_scenario *out)
{
	struct gt_accum *acc = &g->acc;
	bool advance = g->started;
	g->started = true;
	for (;;) {
		if (g->em) {
			if (em_next(acc, g->em, out))
				return true;
			g->em = NULL;
		}
		if (!accum_next_valid(acc, advance))
			return false;
		advance = true;
		if (!acc->n_batches) {
			*out = (struct gt_scenario){ NULL, 0 };	/* the recorded victims alone */
			return true;
		}
		g->em = em_new(acc);
	}
}

/* ---------------------------------------------------------------- generators */

void gt_scenario_gen_init(struct gt_scenario_gen *g, enum gt_generator kind,
			  const struct gt_step *st)
{
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	accum_init(&g->acc, st);
}

bool gt_scenario_gen_next(struct gt_scenario_gen *g, struct gt_scenario *out)
{
	return g->kind == GT_GEN_NODE_LOCAL_GREEDY ? node_local_next(g, out) : multi_node_next(g, out);
}
