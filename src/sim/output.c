#include "sim/output.h"

#include <stdlib.h>
#include <string.h>

#include "api/emit.h"
#include "core/numa.h"
#include "sim/table.h"
#include "util/mem.h"
#include "util/time.h"

static const char *str(const struct gt_cluster *c, uint32_t id)
{
	return gt_strtab_str(c->names, id);
}

static double gpus(int64_t milli)
{
	return (double)milli / 1000.0;
}

static void key(struct gt_emitter *w, const char *k)
{
	gt_emit_key(w, k, strlen(k));
}

static void pod_emit(struct gt_emitter *w, struct gt_cluster *c, const struct gt_session *s, struct gt_plan *plan,
		     uint32_t i)
{
	const struct gt_pod *p = &c->pods[i];
	const struct gt_pod_state *st = &s->pods[i];
	gt_emit_object(w);
	gt_emit_kstr(w, "namespace", str(c, p->ns));
	gt_emit_kstr(w, "name", str(c, p->name));
	gt_emit_kstr_or_null(w, "podGroup", p->job >= 0 ? str(c, c->jobs[p->job].name) : NULL);
	gt_emit_kstr(w, "status", gt_status_name(st->status));
	bool placed = st->node >= 0 && gt_status_active_used(st->status);
	bool on_node = st->node >= 0 && st->status != GT_PENDING && st->status != GT_GATED;
	gt_emit_kstr_or_null(w, "node", on_node ? str(c, c->nodes[st->node].name) : NULL);
	key(w, "gpuGroups");
	gt_emit_array(w);
	for (uint8_t g = 0; placed && g < st->n_groups; g++) {
		const char *name = str(c, gt_plan_group_name(plan, st->groups[g], st->node));
		gt_emit_string(w, name, strlen(name));
	}
	gt_emit_close(w);
	gt_emit_kreal(w, "gpus", gpus(gt_pod_requested_gpu_milli(c, (int32_t)i)));
	gt_emit_kreal(w, "gpusAccepted", placed ? gpus(gt_pod_accepted_gpu_milli(c, (int32_t)i, st->node)) : 0);
	gt_emit_kint(w, "cpuMillis", p->cpu_milli);
	gt_emit_kint(w, "memoryBytes", p->mem_bytes);
	if (s->numa) {	/* extension: the NUMA zones it holds, by index (core/numa.h) */
		key(w, "numaZones");
		gt_emit_array(w);
		uint32_t n;
		const struct gt_numa_share *sh = gt_numa_shares(s, st->numa_place, &n);
		for (uint32_t z = 0; placed && z < n; z++)
			gt_emit_int(w, sh[z].zone);
		gt_emit_close(w);
	}
	const struct gt_plan_evict *ev = gt_plan_eviction_of(plan, (int32_t)i);
	if (ev)
		gt_emit_kstr(w, "message", ev->message);
	gt_emit_close(w);
}

static void qres_emit(struct gt_emitter *w, const char *k, const int64_t v[GT_NQRES])
{
	key(w, k);
	gt_emit_object(w);
	gt_emit_kreal(w, "gpu", gpus(v[GT_QGPU]));
	gt_emit_kint(w, "cpuMillis", v[GT_QCPU]);
	gt_emit_kint(w, "memoryBytes", v[GT_QMEM]);
	gt_emit_close(w);
}

static void node_emit(struct gt_emitter *w, const struct gt_cluster *c, const struct gt_session *s, uint32_t n)
{
	gt_emit_object(w);
	int32_t idle = gt_node_idle_gpus(s, (int32_t)n);
	gt_emit_kstr(w, "name", str(c, c->nodes[n].name));
	gt_emit_kint(w, "idleGPUs", idle);
	gt_emit_kint(w, "releasingGPUs", gt_node_releasing_gpus(s, (int32_t)n));
	gt_emit_kint(w, "usedGPUs", c->nodes[n].gpus - idle);
	const struct gt_numa_node *t = gt_numa_topology(s, (int32_t)n);
	if (t) {	/* extension: what each NUMA zone has free, by zone index (core/numa.h) */
		key(w, "numaZonesAvailable");
		gt_emit_array(w);
		for (uint32_t z = 0; z < t->n_zones; z++) {
			gt_emit_object(w);
			const struct gt_numa_vec *fr = gt_numa_free(s, (int32_t)n, z);
			for (int r = 0; r < GT_NUMA_NRES; r++) {
				char q[32];
				if (!(t->aware & (1u << r)) || !gt_numa_res_name(c, (enum gt_numa_res)r))
					continue;
				gt_numa_quantity((enum gt_numa_res)r, fr->v[r], q, sizeof(q));
				gt_emit_kstr(w, gt_numa_res_name(c, (enum gt_numa_res)r), q);
			}
			gt_emit_close(w);
		}
		gt_emit_close(w);
	}
	gt_emit_close(w);
}

/* A time as SIMULATE.md has it: RFC 3339, or null for none. */
static void time_emit(struct gt_emitter *w, const char *k, int64_t t)
{
	char ts[GT_TIME_LEN];
	if (t)
		gt_time_format(t, ts, sizeof(ts));
	gt_emit_kstr_or_null(w, k, t ? ts : NULL);
}

static void podgroup_emit(struct gt_emitter *w, const struct gt_cluster *c, const struct gt_plan *plan, uint32_t j)
{
	const struct gt_job *job = &c->jobs[j];
	const struct gt_plan_job *pj = &plan->jobs[j];
	gt_emit_object(w);
	gt_emit_kstr(w, "namespace", str(c, job->ns));
	gt_emit_kstr(w, "name", str(c, job->name));
	gt_emit_kstr(w, "queue", str(c, job->queue_name));
	key(w, "scheduled");
	gt_emit_bool(w, pj->scheduled);
	time_emit(w, "lastStartTimestamp", pj->last_start);
	if (pj->stale_since)	/* kai.scheduler/stale-podgroup-timestamp */
		time_emit(w, "staleTimestamp", pj->stale_since);
	if (pj->reserved) {	/* extension: its reservation (docs/reservations.md) */
		key(w, "reservation");
		gt_emit_object(w);
		gt_emit_kint(w, "gpus", pj->reserve_gpus);
		gt_emit_kint(w, "nodes", pj->reserve_nodes);
		gt_emit_kint(w, "held", pj->reserve_held);
		if (pj->reserve_start == INT64_MAX)
			gt_emit_kstr_or_null(w, "expectedStart", NULL);
		else
			time_emit(w, "expectedStart", pj->reserve_start);
		time_emit(w, "since", pj->reserved_since);
		gt_emit_close(w);
	}
	if (pj->max_runtime_evicted) {	/* extension: evicted past its maximum run time (docs/reservations.md) */
		key(w, "maxRunTimeExceeded");
		gt_emit_bool(w, true);
	}
	gt_emit_kstr(w, "message", pj->message && !pj->scheduled ? pj->message : "");
	/* extension: the reason code behind the message (core/reason.h; docs/explain.md lists them) */
	if (pj->why && !pj->scheduled)
		gt_emit_kstr(w, "reason", gt_reason_code(pj->why->reason));
	gt_emit_close(w);
}

static void queue_emit(struct gt_emitter *w, const struct gt_cluster *c, const struct gt_session *s, uint32_t q)
{
	const struct gt_queue *cq = &c->queues[q];
	gt_emit_object(w);
	gt_emit_kstr(w, "name", str(c, cq->name));
	gt_emit_kstr_or_null(w, "parent", cq->parent >= 0 ? str(c, c->queues[cq->parent].name) : NULL);
	qres_emit(w, "fairShare", s->queues[q].fair_share);
	qres_emit(w, "allocated", s->queues[q].allocated);
	qres_emit(w, "deserved", cq->deserved);
	gt_emit_close(w);
}

/* ---------------------------------------------------------------- DRA claims */

/* A claim after the last cycle: its node and devices (allocated before, or by the cycle), and
 * the pods it is reserved for. */
struct claim_view {
	int32_t node;
	const int32_t *devices;
	const uint32_t *requests, *alts;
	uint32_t n_devices;
	const struct gt_plan_claim *e;	/* the cycle's entry, or NULL */
};

static struct claim_view claim_view(const struct gt_cluster *c, const struct gt_plan *plan, uint32_t k)
{
	const struct gt_dra_claim *kc = &c->dra.claims[k];
	struct claim_view v = { .node = kc->node, .devices = kc->alloc_devices, .requests = kc->alloc_requests,
				.alts = kc->alloc_alts, .n_devices = kc->n_alloc };
	for (uint32_t i = 0; i < plan->n_claims; i++)
		if (plan->claims[i].claim == (int32_t)k)
			v.e = &plan->claims[i];
	if (v.e && v.e->allocate) {
		v.node = v.e->node;
		v.devices = v.e->devices;
		v.requests = v.e->requests;
		v.alts = v.e->alts;
		v.n_devices = v.e->n_devices;
	}
	return v;
}

static void claim_emit(struct gt_emitter *w, const struct gt_cluster *c, const struct gt_plan *plan, uint32_t k)
{
	const struct gt_dra_claim *kc = &c->dra.claims[k];
	struct claim_view v = claim_view(c, plan, k);
	gt_emit_object(w);
	gt_emit_kstr(w, "namespace", str(c, kc->ns));
	gt_emit_kstr(w, "name", str(c, kc->name));
	gt_emit_kstr_or_null(w, "node", v.node >= 0 ? str(c, c->nodes[v.node].name) : NULL);
	key(w, "allocatedThisCycle");
	gt_emit_bool(w, v.e && v.e->allocate);
	key(w, "devices");
	gt_emit_array(w);
	for (uint32_t i = 0; i < v.n_devices; i++) {
		if (v.devices[i] < 0)
			continue;
		const struct gt_dra_device *d = &c->dra.devices[v.devices[i]];
		char name[600];
		uint32_t alt = v.alts ? v.alts[i] : 0;
		gt_emit_object(w);
		gt_emit_kstr(w, "request", gt_dra_result_name(c, kc, v.requests[i], alt, name, sizeof(name)));
		gt_emit_kstr(w, "driver", str(c, d->driver));
		gt_emit_kstr(w, "pool", str(c, d->pool));
		gt_emit_kstr(w, "device", str(c, d->name));
		if (kc->requests[v.requests[i]].alts && kc->requests[v.requests[i]].alts[alt].admin) {
			key(w, "adminAccess");
			gt_emit_bool(w, true);
		}
		gt_emit_close(w);
	}
	gt_emit_close(w);
	key(w, "reservedFor");
	gt_emit_array(w);
	for (uint32_t i = 0; i < kc->n_reserved; i++) {
		const char *n = str(c, kc->reserved_names[i]);
		gt_emit_string(w, n, strlen(n));
	}
	for (uint32_t i = 0; v.e && i < v.e->n_pods; i++) {
		const char *n = str(c, c->pods[v.e->pods[i]].name);
		gt_emit_string(w, n, strlen(n));
	}
	gt_emit_close(w);
	gt_emit_close(w);
}

static void table_claims(FILE *out, const struct gt_cluster *c, const struct gt_plan *plan)
{
	if (!c->dra.n_claims)
		return;
	fprintf(out, "\nRESOURCE CLAIMS (DRA)\n");
	for (uint32_t k = 0; k < c->dra.n_claims; k++) {
		const struct gt_dra_claim *kc = &c->dra.claims[k];
		struct claim_view v = claim_view(c, plan, k);
		fprintf(out, "  %s/%s: ", str(c, kc->ns), str(c, kc->name));
		if (v.node < 0) {
			fprintf(out, "not allocated\n");
			continue;
		}
		fprintf(out, "%s on %s:", v.e && v.e->allocate ? "allocated this cycle" : "allocated",
			str(c, c->nodes[v.node].name));
		for (uint32_t i = 0; i < v.n_devices; i++)
			if (v.devices[i] >= 0)
				fprintf(out, " %s/%s", str(c, c->dra.devices[v.devices[i]].pool),
					str(c, c->dra.devices[v.devices[i]].name));
		fprintf(out, "; reserved for %u pod(s)\n", kc->n_reserved + (v.e ? v.e->n_pods : 0));
	}
}

/* An "operations" object: what a cycle, or the whole run, bound, evicted and pipelined. */
static void operations_emit(struct gt_emitter *w, const char *name, uint32_t binds, uint32_t evictions,
			    uint32_t pipelines)
{
	key(w, name);
	gt_emit_object(w);
	gt_emit_kint(w, "binds", binds);
	gt_emit_kint(w, "evictions", evictions);
	gt_emit_kint(w, "pipelines", pipelines);
	gt_emit_close(w);
}

void gt_output_json(FILE *out, struct gt_cluster *c, const struct gt_session *s, struct gt_plan *plan,
		    const struct gt_sim_run *run, bool yaml)
{
	/* written as it is made: a tree of 50,000 pods cost more than its text */
	struct gt_emitter *w = gt_emitter_new(out, yaml, 1);
	gt_emit_object(w);
	gt_emit_kint(w, "cycles", run->cycles);
	operations_emit(w, "operations", plan->n_binds, plan->n_evictions, plan->n_pipelines);
	/* extension: the same over every cycle */
	operations_emit(w, "operationsAllCycles", run->binds, run->evictions, run->pipelines);
	key(w, "pods");
	gt_emit_array(w);
	for (uint32_t i = 0; i < c->n_pods; i++)
		pod_emit(w, c, s, plan, i);
	gt_emit_close(w);
	key(w, "nodes");
	gt_emit_array(w);
	for (uint32_t n = 0; n < c->n_nodes; n++)
		node_emit(w, c, s, n);
	gt_emit_close(w);
	key(w, "podGroups");
	gt_emit_array(w);
	for (uint32_t j = 0; j < c->n_jobs; j++)
		podgroup_emit(w, c, plan, j);
	gt_emit_close(w);
	key(w, "queues");
	gt_emit_array(w);
	for (uint32_t q = 0; q < c->n_queues; q++)
		queue_emit(w, c, s, q);
	gt_emit_close(w);
	if (c->dra.n_claims) {	/* extension: DRA claims after the last cycle (docs/dra.md) */
		key(w, "resourceClaims");
		gt_emit_array(w);
		for (uint32_t k = 0; k < c->dra.n_claims; k++)
			claim_emit(w, c, plan, k);
		gt_emit_close(w);
	}
	gt_emit_close(w);
	gt_emitter_free(w);
	if (!yaml)
		fputc('\n', out);
}

/* ---------------------------------------------------------------- tables */

/*
 * GPUs a pod holds, as its queue counts them: whole GPUs and fractions as
 * asked, a GPU-memory request as its share of the device it got (pending:
 * the memory it asks, the share is the node's to say).
 */
static void pod_gpus(const struct gt_cluster *c, const struct gt_pod_state *st, uint32_t i, char *buf,
		     size_t len)
{
	const struct gt_pod *p = &c->pods[i];
	bool placed = st->node >= 0 && gt_status_active_used(st->status);
	if (p->gpu_mem_mib > 0 && !placed)
		snprintf(buf, len, "%lldMi mem", (long long)p->gpu_mem_mib * (p->num_devices > 0 ? p->num_devices : 1));
	else if (p->gpu_mem_mib > 0)
		snprintf(buf, len, "%g", gpus(gt_pod_accepted_gpu_milli(c, (int32_t)i, st->node)));
	else
		snprintf(buf, len, "%g", gpus(gt_pod_requested_gpu_milli(c, (int32_t)i)));
}

static const char *queue_of(const struct gt_cluster *c, const struct gt_pod *p)
{
	return p->job >= 0 ? str(c, c->jobs[p->job].queue_name) : NULL;
}

static void table_pods(FILE *out, struct gt_cluster *c, const struct gt_session *s, struct gt_plan *plan,
		       bool wide)
{
	static const struct gt_table_col cols[] = {
		{ "POD", 44, false, false }, { "PODGROUP", 32, false, false }, { "QUEUE", 20, false, false },
		{ "STATUS", 0, false, false }, { "NODE", 24, false, false }, { "GPUS", 0, true, false },
		{ "GPU-GROUPS", 32, false, false }, { "CPU", 0, true, true }, { "MEMORY", 0, true, true },
	};
	struct gt_table t;
	gt_table_init(&t, cols, sizeof(cols) / sizeof(cols[0]), wide);
	for (uint32_t i = 0; i < c->n_pods; i++) {
		const struct gt_pod_state *st = &s->pods[i];
		const struct gt_pod *p = &c->pods[i];
		char name[300], g[512] = "", gp[48], cpu[32], mem[32];
		snprintf(name, sizeof(name), "%s/%s", str(c, p->ns), str(c, p->name));
		bool placed = st->node >= 0 && gt_status_active_used(st->status);
		size_t off = 0;
		for (uint8_t k = 0; placed && k < st->n_groups && off < sizeof(g); k++)
			off += (size_t)snprintf(g + off, sizeof(g) - off, "%s%s", k ? "," : "",
						str(c, gt_plan_group_name(plan, st->groups[k], st->node)));
		pod_gpus(c, st, i, gp, sizeof(gp));
		snprintf(cpu, sizeof(cpu), "%g", (double)p->cpu_milli / 1000);
		snprintf(mem, sizeof(mem), "%.1fGi", (double)p->mem_bytes / (1024.0 * 1024 * 1024));
		const char *row[] = { name, p->job >= 0 ? str(c, c->jobs[p->job].name) : NULL, queue_of(c, p),
				      gt_status_name(st->status), placed ? str(c, c->nodes[st->node].name) : NULL,
				      gp, g[0] ? g : "", cpu, mem };
		gt_table_row(&t, row);
	}
	gt_table_print(&t, out);
	gt_table_release(&t);
}

static const char *const taint_effects[] = { "NoSchedule", "PreferNoSchedule", "NoExecute", "" };

/* kubectl's STATUS: Ready or NotReady, and SchedulingDisabled when cordoned. */
static void node_status(const struct gt_node *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", n->ready ? "Ready" : "NotReady", n->unschedulable ? ",SchedulingDisabled" : "");
}

static void node_taints(const struct gt_cluster *c, const struct gt_node *n, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < n->n_taints && off < len; i++) {
		const struct gt_taint *tn = &n->taints[i];
		const char *val = str(c, tn->val);
		off += (size_t)snprintf(buf + off, len - off, "%s%s%s%s:%s", i ? "," : "", str(c, tn->key),
					*val ? "=" : "", val, taint_effects[tn->effect]);
	}
}

static void table_nodes(FILE *out, struct gt_cluster *c, const struct gt_session *s, bool wide)
{
	static const struct gt_table_col cols[] = {
		{ "NODE", 30, false, false }, { "STATUS", 0, false, false }, { "GPUS", 0, true, false },
		{ "IDLE", 0, true, false }, { "RELEASING", 0, true, false }, { "SHARED", 0, true, false },
		{ "TAINTS", 40, false, false },
	};
	struct gt_table t;
	gt_table_init(&t, cols, sizeof(cols) / sizeof(cols[0]), wide);
	for (uint32_t n = 0; n < c->n_nodes; n++) {
		const struct gt_node *nd = &c->nodes[n];
		char status[64], g[16], idle[16], rel[16], shared[16], taints[1024];
		node_status(nd, status, sizeof(status));
		snprintf(g, sizeof(g), "%d", nd->gpus);
		snprintf(idle, sizeof(idle), "%d", gt_node_idle_gpus(s, (int32_t)n));
		snprintf(rel, sizeof(rel), "%d", gt_node_releasing_gpus(s, (int32_t)n));
		snprintf(shared, sizeof(shared), "%u", s->nodes[n].n_groups);
		node_taints(c, nd, taints, sizeof(taints));
		const char *row[] = { str(c, nd->name), status, g, idle, rel, shared, taints[0] ? taints : "<none>" };
		gt_table_row(&t, row);
	}
	fputc('\n', out);
	gt_table_print(&t, out);
	gt_table_release(&t);
}

static void gpus_or_unlimited(int64_t milli, char *buf, size_t len)
{
	if (milli < 0)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%g", gpus(milli));
}

static void table_queues(FILE *out, struct gt_cluster *c, const struct gt_session *s, bool wide)
{
	static const struct gt_table_col cols[] = {
		{ "QUEUE", 24, false, false }, { "PARENT", 24, false, false }, { "PRIORITY", 0, true, false },
		{ "DESERVED", 0, true, false }, { "LIMIT", 0, true, false }, { "FAIR-SHARE", 0, true, false },
		{ "ALLOCATED", 0, true, false },
	};
	struct gt_table t;
	gt_table_init(&t, cols, sizeof(cols) / sizeof(cols[0]), wide);
	for (uint32_t q = 0; q < c->n_queues; q++) {
		const struct gt_queue *cq = &c->queues[q];
		char prio[16], des[32], lim[32], fair[32], alloc[32];
		snprintf(prio, sizeof(prio), "%d", cq->priority);
		gpus_or_unlimited(cq->deserved[GT_QGPU], des, sizeof(des));
		gpus_or_unlimited(cq->limit[GT_QGPU], lim, sizeof(lim));
		snprintf(fair, sizeof(fair), "%g", gpus(s->queues[q].fair_share[GT_QGPU]));
		snprintf(alloc, sizeof(alloc), "%g", gpus(s->queues[q].allocated[GT_QGPU]));
		const char *row[] = { str(c, cq->name), cq->parent >= 0 ? str(c, c->queues[cq->parent].name) : NULL,
				      prio, des, lim, fair, alloc };
		gt_table_row(&t, row);
	}
	fputc('\n', out);
	gt_table_print(&t, out);
	gt_table_release(&t);
	fprintf(out, "(deserved, limit, fair share and allocated are in GPUs; a GPU-memory pod counts its share)\n");
}

static void table_waiting(FILE *out, struct gt_cluster *c, const struct gt_plan *plan)
{
	bool header = false;
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		const struct gt_plan_job *pj = &plan->jobs[j];
		if (!pj->message || pj->scheduled)
			continue;
		if (!header)
			fprintf(out, "\nWAITING AND WHY (gantry explain podgroup NAME -n NAMESPACE says more)\n");
		header = true;
		fprintf(out, "  %s/%s (queue %s) %s: ", str(c, c->jobs[j].ns), str(c, c->jobs[j].name),
			str(c, c->jobs[j].queue_name), pj->why ? gt_reason_code(pj->why->reason) : "");
		gt_put_one_line(out, pj->message);
		fputc('\n', out);
	}
}

void gt_output_table(FILE *out, struct gt_cluster *c, const struct gt_session *s, struct gt_plan *plan,
		     const struct gt_sim_run *run)
{
	fprintf(out, "%d cycle%s: %u bound, %u pipelined, %u evicted", run->cycles, run->cycles == 1 ? "" : "s",
		run->binds, run->pipelines, run->evictions);
	if (run->cycles > 1)
		fprintf(out, " (the last cycle: %u bound, %u pipelined, %u evicted)", plan->n_binds,
			plan->n_pipelines, plan->n_evictions);
	fprintf(out, "\n\n");
	table_pods(out, c, s, plan, run->wide);
	table_nodes(out, c, s, run->wide);
	table_queues(out, c, s, run->wide);
	table_claims(out, c, plan);
	table_waiting(out, c, plan);
}

void gt_output_cycle_log(FILE *out, const struct gt_cluster *c, const struct gt_plan *plan, int cycle)
{
	fprintf(out, "--- cycle %d: %u bound, %u pipelined, %u evicted\n", cycle, plan->n_binds,
		plan->n_pipelines, plan->n_evictions);
	/* in pod order, as the plan lists them: a moved victim says both where it goes and why */
	uint32_t b = 0, pl = 0, e = 0;
	while (b < plan->n_binds || pl < plan->n_pipelines || e < plan->n_evictions) {
		int32_t pb = b < plan->n_binds ? plan->binds[b].pod : INT32_MAX;
		int32_t pp = pl < plan->n_pipelines ? plan->pipelines[pl].pod : INT32_MAX;
		int32_t pe = e < plan->n_evictions ? plan->evictions[e].pod : INT32_MAX;
		int32_t pod = pb < pp ? (pb < pe ? pb : pe) : (pp < pe ? pp : pe);
		const struct gt_pod *p = &c->pods[pod];
		if (pod == pb)
			fprintf(out, "  bind      %s/%s -> %s\n", str(c, p->ns), str(c, p->name),
				str(c, c->nodes[plan->binds[b++].node].name));
		if (pod == pp)
			fprintf(out, "  pipeline  %s/%s -> %s (starts when the evicted pods are gone)\n",
				str(c, p->ns), str(c, p->name), str(c, c->nodes[plan->pipelines[pl++].node].name));
		if (pod == pe) {
			const struct gt_plan_evict *ev = &plan->evictions[e++];
			fprintf(out, "  evict     %s/%s on %s: ", str(c, p->ns), str(c, p->name),
				ev->node >= 0 ? str(c, c->nodes[ev->node].name) : "-");
			gt_put_one_line(out, ev->message);
			fputc('\n', out);
		}
	}
}
