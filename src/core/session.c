/*
 * session.c - per-cycle state and the statement (undo log)
 *
 * Node accounting follows KAI's node model: a pod holding resources counts
 * as used; a releasing pod's resources also count as "releasing" (they will
 * be free once it is gone); a pipelined pod claims releasing resources
 * instead of idle ones. A shared GPU group occupies one device as long as a
 * non-pipelined pod sits in it.
 */
#include "core/session.h"

#include <stdlib.h>
#include <string.h>

#include "core/numa.h"
#include "core/order.h"
#include "core/volumes.h"
#include "util/mem.h"

static int64_t mig_gpu_milli(const struct gt_cluster *c, const int64_t *ext)
{
	int64_t v = 0;
	for (uint32_t e = 0; e < c->n_ext; e++)
		v += ext[e] * c->ext_gpu_milli[e];
	return v;
}

int64_t gt_pod_requested_gpu_milli(const struct gt_cluster *c, int32_t pod)
{
	const struct gt_pod *p = &c->pods[pod];
	if (p->frac_milli)
		return (int64_t)p->frac_milli * p->num_devices;
	return (int64_t)p->gpus * 1000;
}

/* Device portion of a GPU-memory request on a node: ceil(mem / nodeMem, 1/100). */
static int64_t memory_portion_milli(int64_t mem_mib, int64_t node_mem_mib)
{
	if (node_mem_mib <= 0)
		node_mem_mib = 100;
	int64_t pct = (mem_mib * 100 + node_mem_mib - 1) / node_mem_mib;
	if (pct > 100)
		pct = 100;
	return pct * 10;
}

/* Portion of one device a shared pod takes on @node. */
static int64_t shared_portion_milli(const struct gt_cluster *c, int32_t pod, int32_t node)
{
	const struct gt_pod *p = &c->pods[pod];
	if (p->frac_milli)
		return p->frac_milli;
	return memory_portion_milli(p->gpu_mem_mib, node >= 0 ? c->nodes[node].gpu_mem_mib : 100);
}

int64_t gt_pod_accepted_gpu_milli(const struct gt_cluster *c, int32_t pod, int32_t node)
{
	const struct gt_pod *p = &c->pods[pod];
	if (gt_pod_is_shared(p))
		return shared_portion_milli(c, pod, node) * p->num_devices;
	return (int64_t)p->gpus * 1000;
}

void gt_pod_queue_res(const struct gt_session *s, int32_t pod, int32_t node,
		      int64_t out[GT_NQRES])
{
	const struct gt_pod *p = &s->c->pods[pod];
	out[GT_QCPU] = p->cpu_milli;
	out[GT_QMEM] = p->mem_bytes;
	if (!gt_pod_is_shared(p) && !p->gpus) {
		out[GT_QGPU] = mig_gpu_milli(s->c, p->ext);
	} else if (node >= 0) {
		out[GT_QGPU] = gt_pod_accepted_gpu_milli(s->c, pod, node);
	} else if (p->gpu_mem_mib) {
		/*
		 * KAI converts a pending GPU-memory request with the cluster's
		 * minimum node GPU memory, which is effectively always 100 MiB
		 * (KAI-SPEC 12.1): 4000 MiB counts as 40 GPUs of demand.
		 */
		out[GT_QGPU] = p->gpu_mem_mib * 10 * p->num_devices;
	} else {
		out[GT_QGPU] = gt_pod_requested_gpu_milli(s->c, pod);
	}
}

static struct gt_gpu_group *find_group(struct gt_node_state *ns, uint32_t id)
{
	for (uint32_t i = 0; i < ns->n_groups; i++)
		if (ns->groups[i].id == id)
			return &ns->groups[i];
	return NULL;
}

static void remove_empty_groups(struct gt_node_state *ns)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < ns->n_groups; i++)
		if (ns->groups[i].n_pods > 0)
			ns->groups[k++] = ns->groups[i];
	ns->n_groups = k;
}

/* Add (@sign = 1) or remove (-1) what @pod holds on @node in @status. */
static void account_place(struct gt_session *s, int32_t pod, int32_t node, enum gt_status status,
			  const uint32_t *groups, uint8_t n_groups, int sign)
{
	if (node < 0 || !gt_status_active_used(status))
		return;
	const struct gt_pod *p = &s->c->pods[pod];
	struct gt_node_state *ns = &s->nodes[node];
	bool pipelined = status == GT_PIPELINED;
	bool releasing = status == GT_RELEASING;
	if (pipelined) {
		ns->rel_cpu_milli -= sign * p->cpu_milli;
		ns->rel_mem_bytes -= sign * p->mem_bytes;
		ns->rel_pods -= sign;
		for (uint32_t e = 0; e < s->c->n_ext; e++)
			ns->rel_ext[e] -= sign * p->ext[e];
	} else {
		ns->used_cpu_milli += sign * p->cpu_milli;
		ns->used_mem_bytes += sign * p->mem_bytes;
		ns->used_pods += sign;
		for (uint32_t e = 0; e < s->c->n_ext; e++)
			ns->used_ext[e] += sign * p->ext[e];
	}
	if (releasing) {
		ns->rel_cpu_milli += sign * p->cpu_milli;
		ns->rel_mem_bytes += sign * p->mem_bytes;
		ns->rel_pods += sign;
		for (uint32_t e = 0; e < s->c->n_ext; e++)
			ns->rel_ext[e] += sign * p->ext[e];
	}
	if (p->reservation)
		return;
	if (!gt_pod_is_shared(p)) {
		if (pipelined)
			ns->whole_pipelined += sign * p->gpus;
		else
			ns->whole_used += sign * p->gpus;
		if (releasing)
			ns->whole_releasing += sign * p->gpus;
		return;
	}
	int64_t portion = shared_portion_milli(s->c, pod, node);
	for (uint8_t i = 0; i < n_groups; i++) {
		struct gt_gpu_group *g = find_group(ns, groups[i]);
		if (!g) {
			struct gt_gpu_group ng = { .id = groups[i] };
			GT_PUSH(ns->groups, ns->n_groups, ns->cap_groups, ng);
			g = &ns->groups[ns->n_groups - 1];
		}
		g->used_milli += sign * portion;
		g->n_pods += sign;
		if (releasing)
			g->releasing_milli += sign * portion;
		if (pipelined)
			g->pipelined_milli += sign * portion;
	}
	if (sign < 0)
		remove_empty_groups(ns);
}

static void index_move(struct gt_node_index *ix, int32_t node, uint32_t rank, int32_t bucket)
{
	if (!ix->by_free || ix->bucket[node] == bucket)
		return;
	uint64_t bit = 1ULL << (rank % 64);
	if (ix->bucket[node] >= 0)
		ix->by_free[ix->bucket[node]][rank / 64] &= ~bit;
	ix->by_free[bucket][rank / 64] |= bit;
	ix->bucket[node] = bucket;
}

/* Recompute a node's derived counters and its place in the index. */
static void refresh_node(struct gt_session *s, int32_t node)
{
	struct gt_node_state *ns = &s->nodes[node];
	int32_t occupied = ns->whole_used;
	int32_t rel = ns->whole_releasing - ns->whole_pipelined;
	int64_t room = 0;
	for (uint32_t i = 0; i < ns->n_groups; i++) {
		const struct gt_gpu_group *g = &ns->groups[i];
		int64_t held = g->used_milli - g->pipelined_milli;
		if (held > 0)
			occupied++;
		if (held > 0 && g->releasing_milli == held && !g->pipelined_milli)
			rel++;		/* every holder is leaving: the device frees */
		else if (held == 0)
			rel--;		/* a pipelined group waits for a freed device */
		/* holders leaving but pipelined pods waiting here: the device stays taken */
		int64_t r = 1000 - g->used_milli + g->releasing_milli;
		room = r > room ? r : room;
	}
	ns->idle_gpus = s->c->nodes[node].gpus - occupied;
	ns->rel_gpus = rel;
	ns->max_room = room;
	struct gt_node_index *ix = &s->index;
	if (!ix->by_free)
		return;
	uint32_t rank = s->c->nodes[node].name_rank;
	int32_t free_gpus = ns->idle_gpus + ns->rel_gpus;
	free_gpus = free_gpus < 0 ? 0 : free_gpus > ix->max_free ? ix->max_free : free_gpus;
	index_move(ix, node, rank, free_gpus);
	int32_t idle = ns->idle_gpus < 0 ? 0 : ns->idle_gpus > ix->max_free ? ix->max_free : ns->idle_gpus;
	if (ix->idle_bucket[node] != idle) {
		uint64_t b = 1ULL << (rank % 64);
		if (ix->idle_bucket[node] >= 0)
			ix->by_idle[ix->idle_bucket[node]][rank / 64] &= ~b;
		ix->by_idle[idle][rank / 64] |= b;
		ix->idle_bucket[node] = idle;
	}
	uint64_t bit = 1ULL << (rank % 64);
	if (room > 0)
		ix->roomy[rank / 64] |= bit;
	else
		ix->roomy[rank / 64] &= ~bit;
	if (gt_node_draws_pods(ns))
		ix->drawing[rank / 64] |= bit;
	else
		ix->drawing[rank / 64] &= ~bit;
}

static void account_node(struct gt_session *s, int32_t pod, const struct gt_pod_state *st,
			 int sign)
{
	if ((st->status == GT_PIPELINED || st->ghost) && st->rel_node >= 0) {
		account_place(s, pod, st->rel_node, GT_RELEASING, st->rel_groups, st->n_rel_groups,
			      sign);
		refresh_node(s, st->rel_node);
	}
	if (st->ghost)
		return;	/* a cancelled pipelined placement holds nothing there */
	account_place(s, pod, st->node, st->status, st->groups, st->n_groups, sign);
	if (st->node >= 0 && gt_status_active_used(st->status))
		refresh_node(s, st->node);
}

static void account_queue(struct gt_session *s, int32_t pod, const struct gt_pod_state *st,
			  int sign)
{
	const struct gt_pod *p = &s->c->pods[pod];
	if (p->job == GT_NONE || !gt_status_queue_counted(st->status))
		return;
	const struct gt_job *j = &s->c->jobs[p->job];
	if (j->queue == GT_NONE)
		return;
	int64_t res[GT_NQRES];
	gt_pod_queue_res(s, pod, st->node, res);
	for (int32_t q = j->queue; q != GT_NONE; q = s->c->queues[q].parent) {
		s->queue_stamp[q] = s->epoch;
		for (int r = 0; r < GT_NQRES; r++) {
			s->queues[q].allocated[r] += sign * res[r];
			if (!j->preemptible)
				s->queues[q].allocated_np[r] += sign * res[r];
		}
	}
}

static void set_pod_state(struct gt_session *s, int32_t pod, const struct gt_pod_state *st)
{
	s->epoch = ++s->epoch_seq;
	int32_t job = s->c->pods[pod].job;
	if (job != GT_NONE) {
		s->job_req_gen[job] = 0;
		s->job_stamp[job] = s->epoch;
		s->job_active[job] += (uint32_t)gt_status_active_allocated(st->status) -
				      (uint32_t)gt_status_active_allocated(s->pods[pod].status);
		if (s->c->pods[pod].ours)
			s->job_pending[job] += (uint32_t)(st->status == GT_PENDING) -
					       (uint32_t)(s->pods[pod].status == GT_PENDING);
	}
	account_node(s, pod, &s->pods[pod], -1);
	account_queue(s, pod, &s->pods[pod], -1);
	gt_numa_account(s, &s->pods[pod], -1);
	gt_volumes_account(s, pod, &s->pods[pod], -1);
	s->pods[pod] = *st;
	account_node(s, pod, st, 1);
	account_queue(s, pod, st, 1);
	gt_numa_account(s, st, 1);
	gt_volumes_account(s, pod, st, 1);
}

static void count_op(struct gt_session *s, enum gt_op_kind kind, int delta)
{
	if (kind == GT_OP_ALLOCATE)
		s->n_binds += delta;
	else if (kind == GT_OP_PIPELINE)
		s->n_pipelines += delta;
	else if (kind == GT_OP_EVICT)
		s->n_evictions += delta;
	else if (kind == GT_OP_UNEVICT)
		s->n_evictions -= delta;	/* taken back: no eviction reaches the cluster */
}

static void push_op(struct gt_session *s, enum gt_op_kind kind, int32_t pod)
{
	struct gt_op op = { .kind = kind, .pod = pod, .before = s->pods[pod],
			    .epoch_before = s->epoch };
	GT_PUSH(s->ops, s->n_ops, s->cap_ops, op);
	count_op(s, kind, 1);
}

void gt_stmt_rollback(struct gt_session *s, size_t checkpoint)
{
	while (s->n_ops > checkpoint) {
		struct gt_op *op = &s->ops[--s->n_ops];
		set_pod_state(s, op->pod, &op->before);
		count_op(s, op->kind, -1);
		s->epoch = op->epoch_before;
	}
}

void gt_stmt_commit(struct gt_session *s, size_t checkpoint)
{
	/*
	 * The ops stay counted; their undo records are dropped, and committed
	 * evictions are real from now on: no later simulation may take one
	 * back or re-place the pod, as others may already count on its room.
	 */
	for (size_t i = checkpoint; i < s->n_ops; i++)
		if (s->ops[i].kind == GT_OP_EVICT)
			s->pods[s->ops[i].pod].virtual_evict = false;
	if (s->n_ops > checkpoint)
		s->n_ops = checkpoint;
}

static void place(struct gt_session *s, int32_t pod, int32_t node, const uint32_t *groups,
		  uint8_t n_groups, enum gt_status status)
{
	struct gt_pod_state st = s->pods[pod];
	if (st.status == GT_RELEASING && st.virtual_evict && st.rel_node < 0 && !st.ghost) {
		/* a victim placed elsewhere: its old place is still being freed */
		st.rel_node = st.node;
		st.n_rel_groups = st.n_groups;
		memcpy(st.rel_groups, st.groups, sizeof(st.rel_groups));
	}
	/* its NUMA zones, chosen on the books without what it held itself */
	gt_numa_account(s, &s->pods[pod], -1);
	st.numa_place = gt_numa_choose(s, pod, node);
	gt_numa_account(s, &s->pods[pod], 1);
	st.status = status;
	st.ghost = false;
	st.node = node;
	st.n_groups = n_groups;
	if (n_groups)
		memcpy(st.groups, groups, n_groups * sizeof(*groups));
	set_pod_state(s, pod, &st);
}

void gt_stmt_allocate(struct gt_session *s, int32_t pod, int32_t node,
		      const uint32_t *groups, uint8_t n_groups)
{
	push_op(s, GT_OP_ALLOCATE, pod);
	place(s, pod, node, groups, n_groups, GT_ALLOCATED);
}

static bool same_groups(const struct gt_pod_state *st, const uint32_t *groups, uint8_t n)
{
	if (st->n_groups != n)
		return false;
	for (uint8_t i = 0; i < n; i++)
		if (st->groups[i] != groups[i])
			return false;
	return true;
}

void gt_stmt_pipeline(struct gt_session *s, int32_t pod, int32_t node,
		      const uint32_t *groups, uint8_t n_groups)
{
	const struct gt_pod_state *cur = &s->pods[pod];
	if (s->simulating && cur->status == GT_RELEASING && cur->virtual_evict &&
	    cur->node == node && (!gt_pod_is_shared(&s->c->pods[pod]) ||
				  same_groups(cur, groups, n_groups))) {
		/* back where it was: the eviction is simply taken back */
		push_op(s, GT_OP_UNEVICT, pod);
		struct gt_pod_state st = *cur;
		st.status = st.before_evict;
		st.virtual_evict = st.before_virtual;
		st.ghost = false;
		st.evicted_by = st.before_evicted_by;
		st.evictor_job = st.before_evictor;
		set_pod_state(s, pod, &st);
		return;
	}
	push_op(s, GT_OP_PIPELINE, pod);
	place(s, pod, node, groups, n_groups, GT_PIPELINED);
}

void gt_stmt_evict(struct gt_session *s, int32_t pod, int32_t evictor_job)
{
	push_op(s, GT_OP_EVICT, pod);
	struct gt_pod_state st = s->pods[pod];
	st.before_evict = st.status;
	st.before_evicted_by = st.evicted_by;
	st.before_virtual = st.virtual_evict;
	st.before_evictor = st.evictor_job;
	st.virtual_evict = true;
	st.ghost = st.status == GT_PIPELINED;
	st.status = GT_RELEASING;
	st.evicted_by = (uint8_t)s->action;
	st.evictor_job = evictor_job;
	set_pod_state(s, pod, &st);
}

void gt_session_evict_now(struct gt_session *s, int32_t pod)
{
	struct gt_pod_state st = s->pods[pod];
	st.before_evict = st.status;
	st.status = GT_RELEASING;
	st.evicted_by = (uint8_t)s->action;
	st.evictor_job = GT_NONE;
	set_pod_state(s, pod, &st);
	s->n_evictions++;
}

uint32_t gt_session_new_group(struct gt_session *s)
{
	return s->next_group++;
}

void gt_job_set_message(struct gt_session *s, int32_t job, const char *msg)
{
	gt_job_set_why(s, job, NULL, msg);
}

static void compute_totals(struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	memset(s->total, 0, sizeof(s->total));
	for (uint32_t n = 0; n < c->n_nodes; n++) {
		if (!c->nodes[n].ready)
			continue;
		s->total[GT_QGPU] += (int64_t)c->nodes[n].gpus * 1000 + mig_gpu_milli(c, c->nodes[n].ext);
		s->total[GT_QCPU] += c->nodes[n].cpu_milli;
		s->total[GT_QMEM] += c->nodes[n].mem_bytes;
	}
	/* pods of other schedulers take their share off the top */
	for (uint32_t i = 0; i < c->n_pods; i++) {
		const struct gt_pod *p = &c->pods[i];
		if (p->ours || p->reservation || p->node < 0 ||
		    !gt_status_active_used(p->status) || !c->nodes[p->node].ready)
			continue;
		s->total[GT_QGPU] -= gt_pod_accepted_gpu_milli(c, (int32_t)i, p->node);
		s->total[GT_QCPU] -= p->cpu_milli;
		s->total[GT_QMEM] -= p->mem_bytes;
	}
}

static void compute_requests(struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	for (uint32_t i = 0; i < c->n_pods; i++) {
		const struct gt_pod *p = &c->pods[i];
		if (p->job == GT_NONE || c->jobs[p->job].queue == GT_NONE)
			continue;
		enum gt_status st = p->status;
		if (!gt_status_allocated(st) && st != GT_PENDING)
			continue;
		int64_t res[GT_NQRES];
		gt_pod_queue_res(s, (int32_t)i, gt_status_allocated(st) ? p->node : GT_NONE, res);
		for (int32_t q = c->jobs[p->job].queue; q != GT_NONE; q = c->queues[q].parent)
			for (int r = 0; r < GT_NQRES; r++)
				s->queues[q].request[r] += res[r];
	}
}

void gt_session_invalidate_requests(struct gt_session *s)
{
	if (++s->req_gen_seq == 0) {	/* wrapped: generation 0 means "not valid" */
		memset(s->job_req_gen, 0, (s->c->n_jobs + 1) * sizeof(*s->job_req_gen));
		s->req_gen_seq = 1;
		s->req_gen_wraps++;
	}
	s->req_gen = s->req_gen_seq;
}

uint64_t gt_session_requests_begin_sim(struct gt_session *s)
{
	uint64_t saved = (uint64_t)s->req_gen_wraps << 32 | s->req_gen;
	gt_session_invalidate_requests(s);
	return saved;
}

void gt_session_requests_end_sim(struct gt_session *s, uint64_t saved)
{
	if ((uint32_t)(saved >> 32) == s->req_gen_wraps)
		s->req_gen = (uint32_t)saved;	/* unchanged jobs' entries hold again */
	else
		gt_session_invalidate_requests(s);	/* cleared meanwhile: a fresh one */
}

static const char *const search_result_names[] = {
#define GT_SEARCH_RESULT_TEXT(name, text) text,
	GT_SEARCH_RESULT_MAP(GT_SEARCH_RESULT_TEXT)
#undef GT_SEARCH_RESULT_TEXT
};

const char *gt_search_result_name(enum gt_search_result r)
{
	return (unsigned)r < GT_N_SEARCH_RESULTS ? search_result_names[r] : "";
}

static const char *const scenario_state_names[] = {
#define GT_SCENARIO_STATE_TEXT(name, text) text,
	GT_SCENARIO_STATE_MAP(GT_SCENARIO_STATE_TEXT)
#undef GT_SCENARIO_STATE_TEXT
};

const char *gt_scenario_state_name(enum gt_scenario_state st)
{
	return (unsigned)st < GT_N_SCENARIO_STATES ? scenario_state_names[st] : "";
}

static void index_init(struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	struct gt_node_index *ix = &s->index;
	struct gt_arena *a = &s->arena;
	ix->n_words = (c->n_nodes + 63) / 64 + 1;
	ix->max_free = 0;
	for (uint32_t n = 0; n < c->n_nodes; n++)
		ix->max_free = c->nodes[n].gpus > ix->max_free ? c->nodes[n].gpus : ix->max_free;
	ix->by_free = gt_arena_calloc(a, (size_t)ix->max_free + 1, sizeof(*ix->by_free));
	ix->by_idle = gt_arena_calloc(a, (size_t)ix->max_free + 1, sizeof(*ix->by_idle));
	for (int32_t b = 0; b <= ix->max_free; b++) {
		ix->by_free[b] = gt_arena_calloc(a, ix->n_words, sizeof(uint64_t));
		ix->by_idle[b] = gt_arena_calloc(a, ix->n_words, sizeof(uint64_t));
	}
	ix->idle_bucket = gt_arena_calloc(a, c->n_nodes + 1, sizeof(*ix->idle_bucket));
	ix->roomy = gt_arena_calloc(a, ix->n_words, sizeof(uint64_t));
	ix->drawing = gt_arena_calloc(a, ix->n_words, sizeof(uint64_t));
	s->fast_scratch = gt_arena_calloc(a, ix->n_words, sizeof(uint64_t));
	ix->node_at_rank = gt_arena_calloc(a, c->n_nodes + 1, sizeof(*ix->node_at_rank));
	ix->bucket = gt_arena_calloc(a, c->n_nodes + 1, sizeof(*ix->bucket));
	for (uint32_t n = 0; n < c->n_nodes; n++) {
		ix->node_at_rank[c->nodes[n].name_rank] = (int32_t)n;
		ix->bucket[n] = -1;
		ix->idle_bucket[n] = -1;
		refresh_node(s, (int32_t)n);
	}
}

void gt_session_open(struct gt_session *s, const struct gt_cluster *c, int64_t now)
{
	memset(s, 0, sizeof(*s));
	s->c = c;
	s->now = now;
	gt_arena_init(&s->arena);
	gt_arena_init(&s->solve_arena);
	gt_arena_init(&s->step_arena);
	struct gt_arena *a = &s->arena;
	s->pods = gt_arena_calloc(a, c->n_pods + 1, sizeof(*s->pods));
	s->nodes = gt_arena_calloc(a, c->n_nodes + 1, sizeof(*s->nodes));
	s->queues = gt_arena_calloc(a, c->n_queues + 1, sizeof(*s->queues));
	s->jobs = gt_arena_calloc(a, c->n_jobs + 1, sizeof(*s->jobs));
	s->job_req = gt_arena_calloc(a, c->n_jobs + 1, sizeof(*s->job_req));
	s->job_req_gen = gt_arena_calloc(a, c->n_jobs + 1, sizeof(*s->job_req_gen));
	s->req_gen = s->req_gen_seq = 1;
	s->job_stamp = gt_arena_calloc(a, c->n_jobs + 1, sizeof(*s->job_stamp));
	s->queue_stamp = gt_arena_calloc(a, c->n_queues + 1, sizeof(*s->queue_stamp));
	s->job_active = gt_arena_calloc(a, c->n_jobs + 1, sizeof(*s->job_active));
	s->job_pending = gt_arena_calloc(a, c->n_jobs + 1, sizeof(*s->job_pending));
	index_init(s);
	s->numa = gt_numa_open(s);
	gt_order_prepare(s);
	gt_volumes_open(s);
	s->n_base_names = (uint32_t)c->names->n_strs;
	s->next_group = s->n_base_names;
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		s->jobs[j].last_start = c->jobs[j].last_start;
		s->jobs[j].stale_since = c->jobs[j].stale_since;
	}
	for (uint32_t i = 0; i < c->n_pods; i++) {
		const struct gt_pod *p = &c->pods[i];
		struct gt_pod_state st = { .status = gt_pod_status_at(p, &c->config, now), .node = p->node,
					   .n_groups = p->n_groups, .evictor_job = GT_NONE,
					   .rel_node = GT_NONE };
		memcpy(st.groups, p->groups, sizeof(st.groups));
		st.numa_place = gt_numa_initial(s, (int32_t)i, p->node);
		s->pods[i] = (struct gt_pod_state){ .status = GT_PENDING, .node = GT_NONE,
						    .evictor_job = GT_NONE, .rel_node = GT_NONE };
		set_pod_state(s, (int32_t)i, &st);
	}
	/* the placeholder above was Pending: count pending pods afresh */
	for (uint32_t i = 0; i < c->n_pods; i++)
		if (c->pods[i].job != GT_NONE)
			s->job_pending[c->pods[i].job] = 0;
	for (uint32_t i = 0; i < c->n_pods; i++)
		if (c->pods[i].job != GT_NONE && c->pods[i].ours && s->pods[i].status == GT_PENDING)
			s->job_pending[c->pods[i].job]++;
	compute_totals(s);
	compute_requests(s);
}

void gt_session_release(struct gt_session *s)
{
	for (uint32_t n = 0; n < s->c->n_nodes; n++)
		free(s->nodes[n].groups);
	for (uint32_t j = 0; j < s->c->n_jobs; j++) {
		free(s->jobs[j].message);
		free(s->jobs[j].why);
	}
	free(s->ops);
	free(s->scratch);
	gt_numa_close(s->numa);
	gt_arena_release(&s->step_arena);
	gt_arena_release(&s->solve_arena);
	gt_arena_release(&s->arena);
	memset(s, 0, sizeof(*s));
}

/* ---------------------------------------------------------------- invariants */

static bool same_node_books(const struct gt_node_state *a, const struct gt_node_state *b, uint32_t n_ext)
{
	if (a->used_cpu_milli != b->used_cpu_milli || a->used_mem_bytes != b->used_mem_bytes ||
	    a->used_pods != b->used_pods || a->rel_cpu_milli != b->rel_cpu_milli ||
	    a->rel_mem_bytes != b->rel_mem_bytes || a->rel_pods != b->rel_pods ||
	    a->whole_used != b->whole_used || a->whole_releasing != b->whole_releasing ||
	    a->whole_pipelined != b->whole_pipelined || a->idle_gpus != b->idle_gpus ||
	    a->rel_gpus != b->rel_gpus || a->max_room != b->max_room || a->n_groups != b->n_groups)
		return false;
	for (uint32_t e = 0; e < n_ext; e++)
		if (a->used_ext[e] != b->used_ext[e] || a->rel_ext[e] != b->rel_ext[e])
			return false;
	for (uint32_t i = 0; i < a->n_groups; i++) {	/* the same groups, in any order */
		const struct gt_gpu_group *g = &a->groups[i], *h = NULL;
		for (uint32_t k = 0; k < b->n_groups && !h; k++)
			if (b->groups[k].id == g->id)
				h = &b->groups[k];
		if (!h || h->used_milli != g->used_milli || h->releasing_milli != g->releasing_milli ||
		    h->pipelined_milli != g->pipelined_milli || h->n_pods != g->n_pods)
			return false;
	}
	return true;
}

/*
 * Only used inside assert() and by tests (SQLite's assert-only checkers): do
 * the session's incremental books - every node's used, releasing and
 * pipelined resources and shared GPUs, the node index, every queue's
 * allocation, every job's active and pending counts - equal what its pods'
 * states give when counted from scratch? O(P + N + Q).
 */
bool gt_session_check(const struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	struct gt_session t;
	memset(&t, 0, sizeof(t));
	t.c = c;
	t.nodes = gt_xcalloc(c->n_nodes + 1, sizeof(*t.nodes));
	t.queues = gt_xcalloc(c->n_queues + 1, sizeof(*t.queues));
	t.queue_stamp = gt_xcalloc(c->n_queues + 1, sizeof(*t.queue_stamp));
	t.pods = gt_xcalloc(c->n_pods + 1, sizeof(*t.pods));
	for (uint32_t n = 0; n < c->n_nodes; n++)
		refresh_node(&t, (int32_t)n);
	for (uint32_t i = 0; i < c->n_pods; i++) {
		account_node(&t, (int32_t)i, &s->pods[i], 1);
		account_queue(&t, (int32_t)i, &s->pods[i], 1);
	}
	bool ok = true;
	for (uint32_t n = 0; n < c->n_nodes && ok; n++) {
		ok = same_node_books(&s->nodes[n], &t.nodes[n], c->n_ext);
		/* the index files the node under its free and idle GPUs */
		int32_t max = s->index.max_free, fr = t.nodes[n].idle_gpus + t.nodes[n].rel_gpus;
		int32_t idle = t.nodes[n].idle_gpus;
		fr = fr < 0 ? 0 : fr > max ? max : fr;
		idle = idle < 0 ? 0 : idle > max ? max : idle;
		ok &= !s->index.by_free || (s->index.bucket[n] == fr && s->index.idle_bucket[n] == idle);
	}
	for (uint32_t q = 0; q < c->n_queues && ok; q++)
		ok = !memcmp(s->queues[q].allocated, t.queues[q].allocated, sizeof(t.queues[q].allocated)) &&
		     !memcmp(s->queues[q].allocated_np, t.queues[q].allocated_np,
			     sizeof(t.queues[q].allocated_np));
	for (uint32_t j = 0; j < c->n_jobs && ok; j++) {
		uint32_t active = 0, pending = 0;
		for (uint32_t i = 0; i < c->jobs[j].n_pods; i++) {
			int32_t p = c->jobs[j].pods[i];
			active += gt_status_active_allocated(s->pods[p].status);
			pending += c->pods[p].ours && s->pods[p].status == GT_PENDING;
		}
		ok = s->job_active[j] == active && s->job_pending[j] == pending;
	}
	for (uint32_t n = 0; n < c->n_nodes; n++)
		free(t.nodes[n].groups);
	free(t.nodes);
	free(t.queues);
	free(t.queue_stamp);
	free(t.pods);
	return ok && gt_numa_check(s);
}
