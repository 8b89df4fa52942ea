#include "explain/why.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/actions.h"
#include "core/order.h"
#include "core/placement.h"
#include "util/heap.h"
#include "util/mem.h"

static const char *str(const struct gt_ex_ctx *x, uint32_t id)
{
	return gt_strtab_str(x->c->names, id);
}

static void add_hint(struct gt_explanation *e, const char *action, const char *object,
		     const char *resource, double amount, const char *text)
{
	GT_GROW(e->hints, e->n_hints + 1, e->cap_hints);
	e->hints[e->n_hints++] = (struct gt_ex_hint){ .action = action, .object = object ? gt_xstrdup(object) : NULL,
						      .resource = resource, .amount = amount,
						      .text = gt_xstrdup(text) };
}

static void set_names(struct gt_explanation *e, const char *kind, const char *ns, const char *name)
{
	e->kind = kind;
	e->ns = ns ? gt_xstrdup(ns) : NULL;
	e->name = gt_xstrdup(name);
}

/* ---------------------------------------------------------------- the job's state */

static bool pod_of_job_pipelined(const struct gt_plan *plan, const struct gt_job *j)
{
	for (uint32_t i = 0; i < plan->n_pipelines; i++)
		for (uint32_t k = 0; k < j->n_pods; k++)
			if (plan->pipelines[i].pod == j->pods[k])
				return true;
	return false;
}

/* The releasing pods on the nodes where @job is pipelined. */
static void list_releasing(const struct gt_ex_ctx *x, int32_t job, struct gt_explanation *e)
{
	const struct gt_job *j = &x->c->jobs[job];
	for (uint32_t p = 0; p < x->c->n_pods; p++) {
		if (x->s->pods[p].status != GT_RELEASING)
			continue;
		bool there = false;
		for (uint32_t i = 0; i < x->plan->n_pipelines && !there; i++)
			for (uint32_t k = 0; k < j->n_pods && !there; k++)
				there = x->plan->pipelines[i].pod == j->pods[k] &&
					x->plan->pipelines[i].node == x->s->pods[p].node;
		if (!there)
			continue;
		char name[256];
		snprintf(name, sizeof(name), "%s/%s", str(x, x->c->pods[p].ns), str(x, x->c->pods[p].name));
		GT_PUSH(e->waits_for, e->n_waits_for, e->cap_waits_for, gt_xstrdup(name));
	}
}

static bool all_finished(const struct gt_ex_ctx *x, const struct gt_job *j)
{
	for (uint32_t k = 0; k < j->n_pods; k++)
		if (gt_status_alive(x->s->pods[j->pods[k]].status) ||
		    x->s->pods[j->pods[k]].status == GT_RELEASING)
			return false;
	return j->n_pods > 0;
}

/* Are @j's pods all leaving (deleted, in their grace period), none alive? */
static bool all_releasing(const struct gt_ex_ctx *x, const struct gt_job *j)
{
	bool any = false;
	for (uint32_t k = 0; k < j->n_pods; k++) {
		enum gt_status st = x->s->pods[j->pods[k]].status;
		if (gt_status_alive(st))
			return false;
		any |= st == GT_RELEASING;
	}
	return any;
}

/* Do @j's pods wait only on their scheduling gates (some gated, none pending)? */
static bool only_gated(const struct gt_ex_ctx *x, const struct gt_job *j)
{
	bool gated = false;
	for (uint32_t k = 0; k < j->n_pods; k++) {
		enum gt_status st = x->s->pods[j->pods[k]].status;
		if (st == GT_PENDING)
			return false;
		gated |= st == GT_GATED;
	}
	return gated;
}

static void explain_gated(struct gt_explanation *e)
{
	e->reason = GT_EX_GATED;
	e->message = gt_xstrdup("The pod has scheduling gates (spec.schedulingGates): no scheduler takes it "
				"until they are removed");
	add_hint(e, "Wait", NULL, NULL, 0, "remove its scheduling gates (whoever set them does, when it is ready)");
}

static bool bound_now(const struct gt_ex_ctx *x, const struct gt_job *j)
{
	for (uint32_t k = 0; k < j->n_pods; k++)
		if (gt_plan_bind_of(x->plan, j->pods[k]))
			return true;
	return false;
}

/* KAI's message of the first eviction of @j's pods this cycle, or NULL. */
static const char *eviction_of(const struct gt_ex_ctx *x, const struct gt_job *j)
{
	for (uint32_t k = 0; k < j->n_pods; k++) {
		const struct gt_plan_evict *ev = gt_plan_eviction_of(x->plan, j->pods[k]);
		if (ev)
			return ev->message;
	}
	return NULL;
}

/* State and reason; false when the job does not wait (nothing more to explain). */
static bool job_state(const struct gt_ex_ctx *x, int32_t job, struct gt_explanation *e)
{
	const struct gt_job *j = &x->c->jobs[job];
	const struct gt_plan_job *pj = &x->plan->jobs[job];
	e->state = "Waiting";
	const char *evicted = eviction_of(x, j);
	if (evicted) {
		e->state = "Releasing";
		e->reason = GT_EX_EVICTED;
		e->message = gt_xstrdup(evicted);
		return false;
	}
	if (pod_of_job_pipelined(x->plan, j)) {
		e->reason = GT_EX_RELEASING;
		list_releasing(x, job, e);
		char msg[512];
		snprintf(msg, sizeof(msg), "Placed where %u pod(s) are still leaving: it is bound once they are gone",
			 e->n_waits_for);
		e->message = gt_xstrdup(msg);
		add_hint(e, "Wait", NULL, NULL, 0, "nothing to do: it starts once the releasing pods are gone");
		return true;
	}
	if (pj->scheduled) {
		e->state = bound_now(x, j) ? "Starting" : "Running";
		e->reason = bound_now(x, j) ? GT_EX_SCHEDULED : GT_EX_RUNNING;
		if (bound_now(x, j))
			e->message = gt_xstrdup("Placed whole in this cycle: its pods are bound now");
		return false;
	}
	if (all_finished(x, j)) {
		e->state = "Finished";
		e->reason = GT_EX_FINISHED;
		return false;
	}
	if (all_releasing(x, j)) {
		e->state = "Releasing";
		e->reason = GT_EX_TERMINATING;
		e->message = gt_xstrdup("Its pods are being deleted: they leave at the end of their grace period");
		return false;
	}
	if (!pj->why && !j->n_pods) {
		/* the core has nothing to place: its pods are missing, or were left out as malformed */
		e->reason = gt_reason_code(GT_REASON_NOT_ENOUGH_PODS);
		e->message = gt_xstrdup("It has no pods: none exists, or each was left out as malformed");
		add_hint(e, "CreatePods", NULL, NULL, 0, "create its pods, or fix the ones left out (said above)");
		e->no_forecast = gt_xstrdup("it cannot start until it has pods");
		return true;
	}
	if (!pj->why && only_gated(x, j)) {
		explain_gated(e);
		return true;
	}
	if (!pj->why) {
		e->reason = GT_EX_NO_DECISION;
		e->message = gt_xstrdup("No action said why in this cycle (is allocate among the actions?)");
		return true;
	}
	e->reason = gt_reason_code(pj->why->reason);
	e->kai_reason = gt_reason_kai(pj->why->reason);
	e->message = gt_xstrdup(pj->message);
	e->found = pj->why->found;
	e->required = pj->why->required;
	for (int r = 1; r < GT_N_REJECT; r++)
		e->has_rejects |= pj->why->rejects[r] > 0;
	memcpy(e->rejects, pj->why->rejects, sizeof(e->rejects));
	return true;
}

/* ---------------------------------------------------------------- queue order */

static bool job_before(const struct gt_session *s, const int32_t *a, const int32_t *b)
{
	return gt_job_cmp(s, *a, *b) < 0;
}

GT_HEAP_DEFINE(jobheap, int32_t, const struct gt_session, job_before)

/* The waiting jobs of leaf queue @q in the core's job order (its jobq's heap order); returns how many. */
static uint32_t waiting_in_queue(const struct gt_ex_ctx *x, int32_t q, int32_t *out)
{
	int32_t *heap = NULL;
	uint32_t n = 0, cap = 0;
	for (uint32_t j = 0; j < x->c->n_jobs; j++)
		if (x->c->jobs[j].queue == q && x->plan->jobs[j].pending_ready && !x->plan->jobs[j].scheduled)
			jobheap_push(&heap, &n, &cap, (int32_t)j, x->s);
	uint32_t k = 0;
	while (n)
		out[k++] = jobheap_pop(heap, &n, x->s);
	free(heap);
	return k;
}

static void queue_place(const struct gt_ex_ctx *x, int32_t job, struct gt_explanation *e)
{
	int32_t q = x->c->jobs[job].queue;
	if (q == GT_NONE || !x->plan->jobs[job].pending_ready)
		return;
	int32_t *order = gt_xmalloc((x->c->n_jobs + 1) * sizeof(*order));
	e->waiting = waiting_in_queue(x, q, order);
	for (uint32_t i = 0; i < e->waiting; i++)
		if (order[i] == job)
			e->position = i + 1;
	free(order);
}

/* ---------------------------------------------------------------- room: free N GPUs on one node */

struct room {
	int64_t gpus, cpu_milli, mem_bytes, pods;	/* free on the node */
};

struct shortfall {
	int64_t gpus, cpu_milli, mem_bytes, pods;
};

/* Free whole devices, or for a shared request devices with room for its portion. */
static int64_t free_devices(const struct gt_ex_ctx *x, int32_t pod, int32_t node)
{
	const struct gt_pod *p = &x->c->pods[pod];
	int64_t idle = gt_node_idle_gpus(x->s, node);
	if (!gt_pod_is_shared(p))
		return idle;
	int64_t portion = gt_pod_accepted_gpu_milli(x->c, pod, node) / (p->num_devices > 0 ? p->num_devices : 1);
	const struct gt_node_state *ns = &x->s->nodes[node];
	for (uint32_t g = 0; g < ns->n_groups; g++)
		idle += ns->groups[g].n_pods > 0 && 1000 - ns->groups[g].used_milli >= portion;
	return idle;
}

static int64_t devices_needed(const struct gt_pod *p)
{
	return gt_pod_is_shared(p) ? (p->num_devices > 0 ? p->num_devices : 1) : p->gpus;
}

static struct room room_of(const struct gt_ex_ctx *x, int32_t pod, int32_t node)
{
	const struct gt_node *n = &x->c->nodes[node];
	const struct gt_node_state *ns = &x->s->nodes[node];
	return (struct room){ .gpus = free_devices(x, pod, node), .cpu_milli = n->cpu_milli - ns->used_cpu_milli,
			      .mem_bytes = n->mem_bytes - ns->used_mem_bytes, .pods = n->pods - ns->used_pods };
}

static int64_t short_of(int64_t need, int64_t have)
{
	return need > have ? need - (have > 0 ? have : 0) : 0;
}

static struct shortfall shortfall_on(const struct gt_pod *p, const struct room *r)
{
	return (struct shortfall){ .gpus = short_of(devices_needed(p), r->gpus),
				   .cpu_milli = short_of(p->cpu_milli, r->cpu_milli),
				   .mem_bytes = short_of(p->mem_bytes, r->mem_bytes),
				   .pods = short_of(1, r->pods) };
}

/* Less to free goes first: GPUs, then CPU, then memory, then pods. */
static int shortfall_cmp(const struct shortfall *a, const struct shortfall *b)
{
	const int64_t av[] = { a->gpus, a->cpu_milli, a->mem_bytes, a->pods };
	const int64_t bv[] = { b->gpus, b->cpu_milli, b->mem_bytes, b->pods };
	for (int i = 0; i < 4; i++)
		if (av[i] != bv[i])
			return av[i] < bv[i] ? -1 : 1;
	return 0;
}

static void describe_shortfall(const struct shortfall *s, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	if (s->gpus)
		off += (size_t)snprintf(buf + off, len - off, "%lld GPU%s", (long long)s->gpus, s->gpus == 1 ? "" : "s");
	if (s->cpu_milli && off < len)
		off += (size_t)snprintf(buf + off, len - off, "%s%g CPU cores", off ? " and " : "",
					(double)s->cpu_milli / 1000);
	if (s->mem_bytes && off < len)
		off += (size_t)snprintf(buf + off, len - off, "%s%.1f GiB of memory", off ? " and " : "",
					(double)s->mem_bytes / (1024.0 * 1024 * 1024));
	if (s->pods && off < len)
		snprintf(buf + off, len - off, "%sa pod slot", off ? " and " : "");
}

static void hint_free(const struct gt_ex_ctx *x, struct gt_explanation *e, int32_t node,
		      const struct shortfall *s, uint32_t pods)
{
	char what[160], text[400];
	describe_shortfall(s, what, sizeof(what));
	const struct gt_node *n = &x->c->nodes[node];
	int32_t idle = gt_node_idle_gpus(x->s, node);
	snprintf(text, sizeof(text), "free %s on node %s (%d of %d GPUs idle)%s", what, str(x, n->name), idle,
		 n->gpus, pods > 1 ? ", for several of its pods" : "");
	const char *res = s->gpus ? "gpu" : s->cpu_milli ? "cpu" : s->mem_bytes ? "memory" : NULL;
	double amount = s->gpus ? (double)s->gpus : s->cpu_milli ? (double)s->cpu_milli / 1000 : (double)s->mem_bytes;
	add_hint(e, "FreeResources", str(x, n->name), res, amount, text);
}

/* The pods it still needs, greedily on the nodes that need the least freed. */
static void hint_room(const struct gt_ex_ctx *x, int32_t pod, uint32_t pods_needed, struct gt_explanation *e)
{
	const struct gt_pod *p = &x->c->pods[pod];
	uint32_t n_nodes = x->c->n_nodes;
	struct room *rooms = gt_xcalloc(n_nodes + 1, sizeof(*rooms));
	bool *usable = gt_xcalloc(n_nodes + 1, sizeof(*usable));
	uint32_t n_usable = 0;
	for (uint32_t n = 0; n < n_nodes; n++) {
		usable[n] = gt_check_predicates(x->s, pod, (int32_t)n) == GT_REJECT_NONE;
		n_usable += usable[n];
		rooms[n] = room_of(x, pod, (int32_t)n);
	}
	int32_t last = GT_NONE;
	struct shortfall acc = { 0 };
	uint32_t acc_pods = 0;
	for (uint32_t k = 0; k < pods_needed && n_usable; k++) {
		int32_t best = GT_NONE;
		struct shortfall bs = { 0 };
		for (uint32_t n = 0; n < n_nodes; n++) {
			if (!usable[n])
				continue;
			struct shortfall sf = shortfall_on(p, &rooms[n]);
			if (best == GT_NONE || shortfall_cmp(&sf, &bs) < 0)
				best = (int32_t)n, bs = sf;
		}
		if (last != GT_NONE && best != last && (acc.gpus || acc.cpu_milli || acc.mem_bytes || acc.pods))
			hint_free(x, e, last, &acc, acc_pods);
		if (best != last)
			acc = (struct shortfall){ 0 }, acc_pods = 0;
		acc.gpus += bs.gpus;
		acc.cpu_milli += bs.cpu_milli;
		acc.mem_bytes += bs.mem_bytes;
		acc.pods += bs.pods;
		acc_pods++;
		last = best;
		/* the pod takes its room there: what it needs is gone from the node */
		struct room *r = &rooms[best];
		r->gpus = r->gpus + bs.gpus - devices_needed(p);
		r->cpu_milli = r->cpu_milli + bs.cpu_milli - p->cpu_milli;
		r->mem_bytes = r->mem_bytes + bs.mem_bytes - p->mem_bytes;
		r->pods = r->pods + bs.pods - 1;
	}
	if (last != GT_NONE && (acc.gpus || acc.cpu_milli || acc.mem_bytes || acc.pods))
		hint_free(x, e, last, &acc, acc_pods);
	if (!n_usable) {
		add_hint(e, "RelaxConstraints", NULL, NULL, 0,
			 "no node passes the pod's constraints (selector, affinity, taints, readiness): "
			 "change them or make a node match");
		e->no_forecast = gt_xstrdup("no node passes its constraints: freeing room does not help");
	}
	free(rooms);
	free(usable);
}

/* ---------------------------------------------------------------- hints per reason */

static const char *const qres_key[GT_NQRES] = { "gpu", "cpu", "memory" };

static double human(int r, int64_t v)
{
	return r == GT_QMEM ? (double)v : (double)v / 1000;
}

static void fmt_amount(int r, int64_t v, char *buf, size_t len)
{
	if (r == GT_QMEM)
		snprintf(buf, len, "%.1f GiB of memory", (double)v / (1024.0 * 1024 * 1024));
	else
		snprintf(buf, len, "%g %s%s", (double)v / 1000, r == GT_QGPU ? "GPU" : "CPU core", v == 1000 ? "" : "s");
}

static void hint_queue_bound(const struct gt_ex_ctx *x, const struct gt_job_why *w, struct gt_explanation *e)
{
	if (w->queue == GT_NONE || w->qres < 0 || w->qres >= GT_NQRES)
		return;
	const char *q = str(x, x->c->queues[w->queue].name);
	int64_t over = w->allocated + w->requested - w->bound;
	char amount[64], from[64], to[64], text[400];
	fmt_amount(w->qres, over, amount, sizeof(amount));
	fmt_amount(w->qres, w->bound, from, sizeof(from));
	fmt_amount(w->qres, w->bound + over, to, sizeof(to));
	if (w->requested > w->bound) {
		snprintf(text, sizeof(text), "it asks for more than queue %s's %s alone: it cannot start until that is raised",
			 q, w->reason == GT_REASON_OVER_LIMIT ? "limit" : "quota");
		e->no_forecast = gt_xstrdup(text);
	}
	if (w->reason == GT_REASON_OVER_LIMIT) {
		int n = snprintf(text, sizeof(text), "raise queue %s's limit by %s (from %s to %s)", q, amount, from, to);
		if (w->requested <= w->bound && n > 0 && (size_t)n < sizeof(text))
			snprintf(text + n, sizeof(text) - (size_t)n, ", or wait until its running jobs free %s", amount);
		add_hint(e, "RaiseLimit", q, qres_key[w->qres], human(w->qres, over), text);
		return;
	}
	snprintf(text, sizeof(text), "raise queue %s's quota by %s (from %s to %s)", q, amount, from, to);
	add_hint(e, "RaiseQuota", q, qres_key[w->qres], human(w->qres, over), text);
	add_hint(e, "MakePreemptible", NULL, NULL, 0,
		 "or make the workload preemptible (a preemptible job may go over its queue's quota)");
}

static void hint_not_leaf(const struct gt_ex_ctx *x, const struct gt_job_why *w, struct gt_explanation *e)
{
	if (w->queue == GT_NONE)
		return;
	const struct gt_queue *q = &x->c->queues[w->queue];
	char text[512];
	size_t off = (size_t)snprintf(text, sizeof(text), "use a leaf queue under %s:", str(x, q->name));
	for (uint32_t i = 0; i < q->n_children && off < sizeof(text); i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%s %s", i ? "," : "",
					str(x, x->c->queues[q->children[i]].name));
	add_hint(e, "UseLeafQueue", str(x, q->name), NULL, 0, text);
}

static void job_hints(const struct gt_ex_ctx *x, int32_t job, struct gt_explanation *e)
{
	const struct gt_job_why *w = x->plan->jobs[job].why;
	char text[400];
	if (!w)
		return;
	switch (w->reason) {
	case GT_REASON_NO_NODE_FITS:
	case GT_REASON_GANG_SHORT:
		if (w->pod != GT_NONE)
			hint_room(x, w->pod, w->reason == GT_REASON_GANG_SHORT && w->required > w->found
						     ? w->required - w->found : 1, e);
		return;
	case GT_REASON_TOPOLOGY:
		add_hint(e, "FreeResources", NULL, NULL, 0,
			 "free room for the whole gang inside one domain of its required topology level");
		return;
	case GT_REASON_OVER_LIMIT:
	case GT_REASON_NON_PREEMPTIBLE_OVER_QUOTA:
		hint_queue_bound(x, w, e);
		return;
	case GT_REASON_QUEUE_MISSING:
		snprintf(text, sizeof(text), "create queue %s, or name an existing leaf queue (the PodGroup's "
			 "spec.queue, or a bare pod's kai.scheduler/queue label)", str(x, x->c->jobs[job].queue_name));
		add_hint(e, "CreateQueue", str(x, x->c->jobs[job].queue_name), NULL, 0, text);
		e->no_forecast = gt_xstrdup("it cannot start until its queue exists");
		return;
	case GT_REASON_QUEUE_NOT_LEAF:
		hint_not_leaf(x, w, e);
		e->no_forecast = gt_xstrdup("it cannot start until it names a leaf queue");
		return;
	case GT_REASON_NOT_ENOUGH_PODS:
		snprintf(text, sizeof(text), "%u more pod(s) must exist: its gang needs %u and %u exist",
			 w->required - w->found, w->required, w->found);
		add_hint(e, "CreatePods", NULL, "pods", (double)(w->required - w->found), text);
		e->no_forecast = gt_xstrdup("it cannot start until its gang's pods exist");
		return;
	case GT_REASON_PREEMPTION_DELAY:
		if (w->pod != GT_NONE)
			hint_room(x, w->pod, 1, e);
		add_hint(e, "Wait", NULL, NULL, 0,
			 "or wait until its preemption delay is over (the message says when): then it may evict to make room");
		return;
	case GT_REASON_MISSING_CONFIGMAPS:
		add_hint(e, "CreateConfigMaps", NULL, NULL, 0, "create the ConfigMaps its pods mount or read (the message names them)");
		e->no_forecast = gt_xstrdup("it cannot start until its ConfigMaps exist");
		return;
	case GT_REASON_CLAIM_NOT_FOUND:
		add_hint(e, "CreateClaims", NULL, NULL, 0, "create the PersistentVolumeClaim its pod mounts (the message names it)");
		e->no_forecast = gt_xstrdup("it cannot start until its PersistentVolumeClaims exist");
		return;
	case GT_REASON_CLAIM_UNBOUND_IMMEDIATE:
		add_hint(e, "BindClaims", NULL, NULL, 0,
			 "its Immediate claim waits for a volume: create a matching PersistentVolume, or give the claim a "
			 "StorageClass that provisions (or one with volumeBindingMode WaitForFirstConsumer)");
		e->no_forecast = gt_xstrdup("it cannot start until its claims are bound");
		return;
	default:
		return;
	}
}

/* ---------------------------------------------------------------- entry points */

void gt_ex_job(const struct gt_ex_ctx *x, int32_t job, struct gt_explanation *e)
{
	const struct gt_job *j = &x->c->jobs[job];
	memset(e, 0, sizeof(*e));
	set_names(e, "PodGroup", str(x, j->ns), str(x, j->name));
	e->queue = gt_xstrdup(str(x, j->queue_name));
	e->job = job;
	if (!job_state(x, job, e))
		return;
	queue_place(x, job, e);
	job_hints(x, job, e);
}

void gt_ex_pod(const struct gt_ex_ctx *x, int32_t pod, struct gt_explanation *e)
{
	const struct gt_pod *p = &x->c->pods[pod];
	const struct gt_pod_state *st = &x->s->pods[pod];
	if (p->job != GT_NONE)
		gt_ex_job(x, p->job, e);
	else
		memset(e, 0, sizeof(*e)), e->job = GT_NONE;
	free(e->name);
	free(e->ns);
	set_names(e, "Pod", str(x, p->ns), str(x, p->name));
	if (st->status == GT_GATED) {
		gt_ex_set(e, "Pod", NULL, NULL, "Waiting", GT_EX_GATED,
			  "The pod has scheduling gates (spec.schedulingGates): no scheduler takes it until they are removed",
			  "Wait", NULL, "remove its scheduling gates (whoever set them does, when it is ready)");
		return;
	}
	/* an elastic job may run while this pod of it waits, and a pod of a waiting job may be done;
	   a pipelined pod still waits (for the pods leaving where it is placed) */
	bool pod_waits = st->status == GT_PENDING || st->status == GT_PIPELINED;
	if (!strcmp(e->state, "Running") && pod_waits) {
		e->state = "Waiting";
		e->reason = GT_EX_NO_DECISION;
	} else if (!pod_waits && !strcmp(e->state, "Waiting") && !gt_plan_bind_of(x->plan, pod)) {
		e->state = gt_status_alive(st->status) ? "Running" : "Finished";
		e->reason = gt_status_alive(st->status) ? GT_EX_RUNNING : GT_EX_FINISHED;
	}
}

void gt_ex_queue(const struct gt_ex_ctx *x, int32_t q, struct gt_explanation *e)
{
	memset(e, 0, sizeof(*e));
	e->job = GT_NONE;
	set_names(e, "Queue", NULL, str(x, x->c->queues[q].name));
	e->state = "";
	e->reason = GT_EX_QUEUE;
	const struct gt_queue *cq = &x->c->queues[q];
	e->has_standing = true;
	e->quota_gpus = cq->deserved[GT_QGPU] < 0 ? -1 : (double)cq->deserved[GT_QGPU] / 1000;
	e->limit_gpus = cq->limit[GT_QGPU] < 0 ? -1 : (double)cq->limit[GT_QGPU] / 1000;
	e->fair_share_gpus = (double)x->s->queues[q].fair_share[GT_QGPU] / 1000;
	e->allocated_gpus = (double)x->s->queues[q].allocated[GT_QGPU] / 1000;
	e->priority = cq->priority;
	int32_t *order = gt_xmalloc((x->c->n_jobs + 1) * sizeof(*order));
	uint32_t n = waiting_in_queue(x, q, order);
	for (uint32_t i = 0; i < n; i++) {
		struct gt_explanation je;
		gt_ex_job(x, order[i], &je);
		struct gt_ex_member m = { .ns = je.ns, .name = je.name, .reason = je.reason,
					  .message = je.message };
		je.ns = je.name = je.message = NULL;
		GT_PUSH(e->members, e->n_members, e->cap_members, m);
		gt_ex_release(&je);
	}
	e->waiting = n;
	free(order);
}

void gt_ex_set(struct gt_explanation *e, const char *kind, const char *ns, const char *name,
	       const char *state, const char *reason, const char *message, const char *action,
	       const char *object, const char *hint_text)
{
	if (name) {
		free(e->ns);
		free(e->name);
		set_names(e, kind, ns, name);
	}
	e->state = state;
	e->reason = reason;
	e->kai_reason = NULL;
	free(e->message);
	e->message = message ? gt_xstrdup(message) : NULL;
	e->has_rejects = false;
	e->position = e->waiting = 0;
	for (uint32_t i = 0; i < e->n_hints; i++) {
		free(e->hints[i].object);
		free(e->hints[i].text);
	}
	e->n_hints = 0;
	if (action)
		add_hint(e, action, object, NULL, 0, hint_text);
	free(e->no_forecast);
	e->no_forecast = NULL;
	if (!strcmp(state, "Waiting")) {
		char why[512];
		snprintf(why, sizeof(why), "it waits on its objects, not on room (%s)",
			 hint_text ? "see To start" : reason);
		e->no_forecast = gt_xstrdup(why);
	}
}

void gt_ex_release(struct gt_explanation *e)
{
	free(e->ns);
	free(e->name);
	free(e->queue);
	free(e->message);
	for (uint32_t i = 0; i < e->n_hints; i++) {
		free(e->hints[i].object);
		free(e->hints[i].text);
	}
	free(e->hints);
	for (uint32_t i = 0; i < e->n_waits_for; i++)
		free(e->waits_for[i]);
	free(e->waits_for);
	for (uint32_t i = 0; i < e->n_members; i++) {
		free(e->members[i].ns);
		free(e->members[i].name);
		free(e->members[i].message);
	}
	free(e->members);
	free(e->no_forecast);
	memset(e, 0, sizeof(*e));
}

bool gt_ex_wants_forecast(const struct gt_explanation *e)
{
	static const char *const room[] = { "NoNodeFits", "GangShort", "TopologyNotSatisfied", "OverLimit",
					    "PreemptionDelayNotElapsed",
					    "NonPreemptibleOverQuota", GT_EX_RELEASING, GT_EX_NO_DECISION,
					    "PodSchedulingErrors" };
	if (e->job == GT_NONE || strcmp(e->state, "Waiting") || e->no_forecast)
		return false;
	for (size_t i = 0; i < sizeof(room) / sizeof(room[0]); i++)
		if (!strcmp(e->reason, room[i]))
			return true;
	return false;
}
