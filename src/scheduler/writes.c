#include "scheduler/writes.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/gpushare.h"
#include "api/json.h"
#include "api/object.h"
#include "api/status.h"
#include "core/numa.h"
#include "core/volumes.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/num.h"
#include "util/time.h"

/* The PodGroup condition (and event reason) of a job evicted past its maximum run time. */
#define GT_MAX_RUNTIME_CONDITION "MaxRunTimeExceeded"


static const char *str(const struct gt_kube_snapshot *snap, uint32_t id)
{
	return gt_strtab_str(&snap->names, id);
}

static struct gt_kop *push(struct gt_writes *p, enum gt_kop_kind kind, enum gt_kres res,
			   const struct gt_kobj *o)
{
	GT_GROW(p->ops, p->n + 1, p->cap);
	struct gt_kop *op = &p->ops[p->n++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->res = res;
	op->ns = gt_xstrdup(o->ns);
	op->name = gt_xstrdup(o->name);
	op->uid = gt_xstrdup(o->uid);
	op->rv = gt_xstrdup(o->rv);
	return op;
}

/* Every string an op owns, for copying and freeing them all alike. */
static void op_strings(struct gt_kop *op, char ***out, size_t *n)
{
	char **s[] = { &op->ns, &op->name, &op->uid, &op->rv, &op->node, &op->job, &op->portion, &op->cm_caps,
		       &op->cm_evar, &op->evict_event_ns, &op->evict_event_name, &op->evict_event_uid,
		       &op->sub, &op->body, &op->reason, &op->message, &op->tolerations };
	*n = sizeof(s) / sizeof(s[0]);
	memcpy(out, s, sizeof(s));
}

#define N_OP_STRINGS 17

void gt_kop_copy(struct gt_kop *dst, const struct gt_kop *src)
{
	*dst = *src;
	char **strs[N_OP_STRINGS];
	size_t n;
	op_strings(dst, strs, &n);
	for (size_t i = 0; i < n; i++)
		*strs[i] = *strs[i] ? gt_xstrdup(*strs[i]) : NULL;
	for (uint8_t g = 0; g < dst->n_groups; g++)
		dst->groups[g] = gt_xstrdup(src->groups[g]);
	if (src->n_claims) {
		dst->claim_names = gt_xmalloc(src->n_claims * sizeof(char *));
		dst->claim_bodies = gt_xmalloc(src->n_claims * sizeof(char *));
		for (uint8_t i = 0; i < src->n_claims; i++) {
			dst->claim_names[i] = gt_xstrdup(src->claim_names[i]);
			dst->claim_bodies[i] = gt_xstrdup(src->claim_bodies[i]);
		}
	}
}

void gt_kop_release(struct gt_kop *op)
{
	char **strs[N_OP_STRINGS];
	size_t n;
	op_strings(op, strs, &n);
	for (size_t i = 0; i < n; i++)
		free(*strs[i]);
	for (uint8_t g = 0; g < op->n_groups; g++)
		free(op->groups[g]);
	for (uint8_t i = 0; i < op->n_claims; i++) {
		free(op->claim_names[i]);
		free(op->claim_bodies[i]);
	}
	free(op->claim_names);
	free(op->claim_bodies);
}

void gt_writes_release(struct gt_writes *p)
{
	for (size_t i = 0; i < p->n; i++)
		gt_kop_release(&p->ops[i]);
	free(p->ops);
	memset(p, 0, sizeof(*p));
}

/* ---------------------------------------------------------------- jobs */

static void add_event(struct gt_writes *p, enum gt_kres res, const struct gt_kobj *o, const char *reason,
		      const char *msg, bool warning)
{
	struct gt_kop *op = push(p, GT_KOP_EVENT, res, o);
	op->reason = gt_xstrdup(reason);
	op->message = gt_xstrdup(msg);
	op->warning = warning;
	op->what = "event";
}

/*
 * A job evicted past its maximum run time (docs/reservations.md): the
 * PodGroup's status.conditions gets (or renews) MaxRunTimeExceeded, other
 * conditions kept, and an event says it.
 */
static void plan_max_runtime(struct gt_writes *p, const struct gt_kube_snapshot *snap, const struct gt_plan *plan,
			     const struct gt_writes_opts *o, int32_t j, const struct gt_kobj *pg)
{
	if (!plan->jobs[j].max_runtime_evicted)
		return;
	const struct gt_job *job = &snap->c.jobs[j];
	char d[64], started[GT_TIME_LEN], ts[GT_TIME_LEN], msg[400];
	gt_duration_format_go(job->max_runtime_s * 1000000000LL, d);
	gt_time_format(plan->jobs[j].last_start, started, sizeof(started));
	gt_time_format(o->now, ts, sizeof(ts));
	snprintf(msg, sizeof(msg), "Evicted: ran past its maximum run time of %s (started %s); its queue enforces it",
		 d, started);
	json_t *conds = json_array();
	const struct gt_doc *had = gt_doc_path(pg->doc, "status.conditions");
	int64_t tid = 0;
	for (size_t i = 0; had && had->kind == GT_DOC_SEQ && i < had->n; i++) {
		const char *type = gt_doc_str(had->items[i], "type");
		const char *t = gt_doc_str(had->items[i], "transitionID");
		int64_t id;
		if (t && !gt_parse_int(t, &id) && id >= tid)
			tid = id + 1;
		if (!type || strcmp(type, GT_MAX_RUNTIME_CONDITION))
			json_array_append_new(conds, gt_doc_to_json(had->items[i]));
	}
	char tids[32];
	snprintf(tids, sizeof(tids), "%lld", (long long)tid);
	json_array_append_new(conds, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", GT_MAX_RUNTIME_CONDITION,
					       "status", "True", "reason", GT_MAX_RUNTIME_CONDITION, "message", msg,
					       "transitionID", tids, "lastTransitionTime", ts));
	struct gt_kop *op = push(p, GT_KOP_PATCH, GT_KRES_PODGROUPS, pg);
	op->sub = gt_xstrdup("status");
	op->body = gt_json_dump_take(json_pack("{s:{s:o}}", "status", "conditions", conds));
	op->what = "PodGroup status";
	add_event(p, GT_KRES_PODGROUPS, pg, GT_MAX_RUNTIME_CONDITION, msg, true);
}

static void plan_podgroup(struct gt_writes *p, const struct gt_kube_snapshot *snap, const struct gt_plan *plan,
			  const struct gt_writes_opts *o, int32_t j, const struct gt_kobj *pg)
{
	plan_max_runtime(p, snap, plan, o, j, pg);
	const struct gt_job *job = &snap->c.jobs[j];
	const struct gt_plan_job *pj = &plan->jobs[j];
	char ts[GT_TIME_LEN];
	gt_time_format(o->now, ts, sizeof(ts));
	/* annotations the core keeps across cycles */
	if (pj->last_start != job->last_start || pj->stale_since != job->stale_since ||
	    pj->last_eviction != job->last_eviction || pj->reserved_since != job->reserved_since) {
		json_t *ann = json_object();
		char t[GT_TIME_LEN];
		if (pj->last_start != job->last_start) {
			gt_time_format(pj->last_start, t, sizeof(t));
			json_object_set_new(ann, "kai.scheduler/last-start-timestamp",
					    pj->last_start ? json_string(t) : json_null());
		}
		if (pj->stale_since != job->stale_since) {
			gt_time_format(pj->stale_since, t, sizeof(t));
			json_object_set_new(ann, "kai.scheduler/stale-podgroup-timestamp",
					    pj->stale_since ? json_string(t) : json_null());
		}
		if (pj->last_eviction != job->last_eviction) {
			gt_time_format(pj->last_eviction, t, sizeof(t));
			json_object_set_new(ann, "kai.scheduler/last-eviction-timestamp",
					    pj->last_eviction ? json_string(t) : json_null());
		}
		if (pj->reserved_since != job->reserved_since) {	/* docs/reservations.md */
			gt_time_format(pj->reserved_since, t, sizeof(t));
			json_object_set_new(ann, "gantry.dev/reserved-since",
					    pj->reserved_since ? json_string(t) : json_null());
		}
		struct gt_kop *op = push(p, GT_KOP_PATCH, GT_KRES_PODGROUPS, pg);
		op->sub = gt_xstrdup("");
		op->body = gt_json_dump_take(json_pack("{s:{s:o}}", "metadata", "annotations", ann));
		op->what = "PodGroup annotations";
	}
	const struct gt_doc *ours;
	json_t *keep = gt_pg_other_conditions(pg->doc, o->node_pool, &ours);
	bool running = pj->running;
	const char *msg = pj->message;
	if (running || !msg) {
		if (ours && running) {
			/* scheduled: the "unschedulable" condition no longer holds */
			struct gt_kop *op = push(p, GT_KOP_PATCH, GT_KRES_PODGROUPS, pg);
			op->sub = gt_xstrdup("status");
			op->body = gt_json_dump_take(json_pack("{s:{s:o}}", "status", "schedulingConditions", keep));
			op->what = "PodGroup status";
		} else {
			json_decref(keep);
		}
		return;
	}
	char prefixed[2048];
	if (job->single_attempt) {	/* KAI names the pool of a PodGroup's one attempt */
		snprintf(prefixed, sizeof(prefixed), "Node-Pool '%s': %s", o->node_pool, msg);
		msg = prefixed;
	}
	const char *had = ours ? gt_doc_str(ours, "message") : NULL;
	if (had && !strcmp(had, msg)) {
		json_decref(keep);
		return;
	}
	char tid[32];
	snprintf(tid, sizeof(tid), "%lld", (long long)gt_pg_next_transition(pg->doc));
	json_t *cond = json_pack("{s:s, s:s, s:s, s:s, s:[{s:s, s:s}], s:s, s:s, s:s}", "type", GT_POOL_CONDITION,
				 "nodePool", o->node_pool, "reason", "Unschedulable", "message", msg, "reasons",
				 "reason", gt_reason_kai(pj->why ? pj->why->reason : GT_REASON_POD_ERROR), "message", msg, "transitionID", tid,
				 "lastTransitionTime", ts, "status", "True");
	json_array_append_new(keep, cond);
	struct gt_kop *op = push(p, GT_KOP_PATCH, GT_KRES_PODGROUPS, pg);
	op->sub = gt_xstrdup("status");
	op->body = gt_json_dump_take(json_pack("{s:{s:o}}", "status", "schedulingConditions", keep));
	op->what = "PodGroup status";
	add_event(p, GT_KRES_PODGROUPS, pg, "Unschedulable", msg, false);
}

static void plan_pod_conditions(struct gt_writes *p, const struct gt_kube_snapshot *snap,
				const struct gt_plan *plan, const struct gt_writes_opts *o, int32_t j,
				const struct gt_kobj *pg)
{
	const struct gt_plan_job *pj = &plan->jobs[j];
	const char *msg = pj->message;
	if (!msg || pj->running || !pj->pending_ready)
		return;
	if (pg && !gt_pg_marks_pods(pg->doc))
		return;
	char ts[GT_TIME_LEN];
	gt_time_format(o->now, ts, sizeof(ts));
	const struct gt_job *job = &snap->c.jobs[j];
	for (uint32_t k = 0; k < job->n_pods; k++) {
		int32_t pi = job->pods[k];
		const struct gt_pod *pod = &snap->c.pods[pi];
		if (!pod->ours || pod->status != GT_PENDING)
			continue;	/* not running: no pod of the job was placed */
		const struct gt_kobj *po = snap->pod_obj[pi];
		if (!po || gt_pod_unschedulable_says(po->doc, msg))
			continue;
		struct gt_kop *op = push(p, GT_KOP_PATCH, GT_KRES_PODS, po);
		op->sub = gt_xstrdup("status");
		op->strategic = 1;
		op->body = gt_json_dump_take(json_pack("{s:{s:[{s:s, s:s, s:s, s:s, s:s, s:n}]}}", "status", "conditions",
					  "type", "PodScheduled", "status", "False", "reason", "Unschedulable",
					  "message", msg, "lastTransitionTime", ts, "lastProbeTime"));
		op->what = "pod condition";
		add_event(p, GT_KRES_PODS, po, "Unschedulable", msg, true);
	}
}

/* ---------------------------------------------------------------- shared GPUs */

/* What the reservation flow needs for a shared-GPU bind. */
static void plan_shared(struct gt_kop *op, const struct gt_kube_snapshot *snap, uint32_t pod, int32_t node,
			const struct gt_kobj *po)
{
	const struct gt_pod *p = &snap->c.pods[pod];
	int32_t devices = p->num_devices > 0 ? p->num_devices : 1;
	int64_t milli = gt_pod_accepted_gpu_milli(&snap->c, (int32_t)pod, node) / devices;
	char buf[32];
	snprintf(buf, sizeof(buf), "%.2f", (double)milli / 1000.0);
	op->shared = true;
	op->portion = gt_xstrdup(buf);
	op->tolerations = gt_pod_tolerations_json(po->doc);
	struct gt_gpushare_cms cms;
	if (!gt_gpushare_configmaps(po->doc, &cms))
		return;
	op->cm_caps = gt_xstrdup(cms.caps);
	op->cm_evar = gt_xstrdup(cms.evar);
	op->visible_in_caps = cms.visible_in_caps;
}

/* ---------------------------------------------------------------- deletes */

static void plan_delete(struct gt_writes *p, enum gt_kres res, const struct gt_kobj *o, int64_t grace,
			const char *what)
{
	struct gt_kop *op = push(p, GT_KOP_DELETE, res, o);
	op->grace_s = grace;
	op->what = what;
	p->n_deletes++;
}

/*
 * Reservation pods whose GPU group no active pod holds: the group's last
 * fractional pod is gone (or was never bound), the GPU goes back to the
 * node. A group in use by a pod being bound counts (the snapshot made such
 * pods Binding), so a reservation pod made for a bind in flight stays.
 */
static void plan_reservation_gc(struct gt_writes *p, const struct gt_kube_snapshot *snap,
				const struct gt_writes_opts *o)
{
	const struct gt_cluster *c = &snap->c;
	const char *ns = o->reservation_ns ? o->reservation_ns : GT_RESERVATION;
	bool *used = NULL;
	for (uint32_t i = 0; i < c->n_pods; i++) {
		const struct gt_pod *pod = &c->pods[i];
		if (!pod->reservation || !pod->n_groups || strcmp(str(snap, pod->ns), ns))
			continue;
		if (!used) {
			used = gt_xcalloc(snap->names.n_strs + 1, sizeof(*used));
			for (uint32_t k = 0; k < c->n_pods; k++)
				for (uint8_t g = 0; !c->pods[k].reservation && g < c->pods[k].n_groups; g++)
					if (gt_status_active_used(c->pods[k].status))
						used[c->pods[k].groups[g]] = true;
		}
		bool in_use = false;
		for (uint8_t g = 0; g < pod->n_groups; g++)
			in_use |= used[pod->groups[g]];
		const struct gt_kobj *po = snap->pod_obj[i];
		if (in_use || !po || gt_obj_is_deleting(po->doc))
			continue;
		plan_delete(p, GT_KRES_PODS, po, 0, "reservation pod");
	}
	free(used);
}

/* ---------------------------------------------------------------- pods */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool announced(const struct gt_writes_opts *o, const char *key)
{
	return o->announced && o->n_announced && bsearch(&key, o->announced, o->n_announced, sizeof(char *), cmp_str);
}

/*
 * The NUMA zones the core predicts for a bound pod, as KAI's binder writes
 * them before the bind: kai.scheduler/numa-placement-predicted, the JSON
 * list [{"zone": "<NRT zone name>", "amount": {"cpu": "3"}}]. The next
 * cycles charge the pod's zones from it until the placement exporter's
 * observed annotation replaces it.
 */
static void plan_numa(struct gt_writes *p, const struct gt_kube_snapshot *snap, const struct gt_plan_place *b,
		      const struct gt_kobj *po)
{
	const struct gt_cluster *c = &snap->c;
	json_t *list = json_array();
	for (uint32_t i = 0; i < b->n_numa; i++) {
		json_t *amount = json_object();
		for (int r = 0; r < GT_NUMA_NRES; r++) {
			const char *name = gt_numa_res_name(c, (enum gt_numa_res)r);
			char q[32];
			if (!name || b->numa[i].amount.v[r] <= 0)
				continue;
			gt_numa_quantity((enum gt_numa_res)r, b->numa[i].amount.v[r], q, sizeof(q));
			json_object_set_new(amount, name, json_string(q));
		}
		json_array_append_new(list, json_pack("{s:s, s:o}", "zone", str(snap, b->numa[i].zone), "amount",
						      amount));
	}
	char *text = gt_json_dump_take(list);
	json_t *ann = json_pack("{s:s}", "kai.scheduler/numa-placement-predicted", text);
	free(text);
	struct gt_kop *op = push(p, GT_KOP_PATCH, GT_KRES_PODS, po);
	op->sub = gt_xstrdup("");
	op->body = gt_json_dump_take(json_pack("{s:{s:o}}", "metadata", "annotations", ann));
	op->what = "pod NUMA placement";
}

/* The ResourceClaim object @k of the snapshot, or NULL. */
static const struct gt_kobj *claim_object(const struct gt_kube_snapshot *snap, const struct gt_dra_claim *k)
{
	const char *ns = str(snap, k->ns), *name = str(snap, k->name);
	for (size_t i = 0; i < snap->n[GT_KRES_RESOURCECLAIMS]; i++) {
		const struct gt_kobj *o = snap->objs[GT_KRES_RESOURCECLAIMS][i];
		if (!strcmp(o->ns, ns) && !strcmp(o->name, name))
			return o;
	}
	return NULL;
}

/* Add the requirements of @from's @key not yet in @to's. */
static void merge_requirements(json_t *to, const json_t *from, const char *key)
{
	json_t *have = json_object_get(to, key), *add = json_object_get(from, key);
	size_t i, j;
	json_t *r, *h;
	json_array_foreach(add, i, r) {
		bool dup = false;
		json_array_foreach(have, j, h)
			dup |= json_equal(h, r);
		if (!dup)
			json_array_append(have, r);
	}
}

/*
 * status.allocation.nodeSelector as kube-scheduler makes it: a device on a node pins the claim
 * to that node; network-attached devices give their slices' selector terms merged into one
 * term; devices usable from all nodes give none (NULL).
 */
static json_t *allocation_node_selector(const struct gt_kube_snapshot *snap, const struct gt_plan_claim *e)
{
	const struct gt_dra *d = &snap->c.dra;
	json_t *term = json_pack("{s:[], s:[]}", "matchExpressions", "matchFields");
	for (uint32_t i = 0; i < e->n_devices; i++) {
		const struct gt_dra_device *dev = &d->devices[e->devices[i]];
		if (dev->node >= 0) {
			json_decref(term);
			return json_pack("{s:[{s:[{s:s, s:s, s:[s]}]}]}", "nodeSelectorTerms", "matchFields", "key",
					 "metadata.name", "operator", "In", "values", str(snap, snap->c.nodes[dev->node].name));
		}
		if (dev->reach < 0 || !d->reaches[dev->reach].has_selector)
			continue;
		json_t *t = json_loads(str(snap, d->reaches[dev->reach].selector), 0, NULL);
		merge_requirements(term, t, "matchExpressions");
		merge_requirements(term, t, "matchFields");
		json_decref(t);
	}
	static const char *const keys[] = { "matchExpressions", "matchFields" };
	for (int k = 0; k < 2; k++)
		if (!json_array_size(json_object_get(term, keys[k])))
			json_object_del(term, keys[k]);
	if (!json_object_size(term)) {
		json_decref(term);
		return NULL;	/* available everywhere */
	}
	return json_pack("{s:[o]}", "nodeSelectorTerms", term);
}

/*
 * The status a claim gets at this bind, as kube-scheduler writes it: the allocation (its
 * devices, and a node selector on the node's name) when the cycle allocates it, and
 * reservedFor with every pod the cycle binds to it. NULL when it cannot be written.
 */
static char *claim_status_patch(const struct gt_kube_snapshot *snap, const struct gt_plan_claim *e,
				const struct gt_kobj *ko)
{
	const struct gt_cluster *c = &snap->c;
	const struct gt_dra *d = &c->dra;
	const struct gt_dra_claim *k = &d->claims[e->claim];
	json_t *status = json_object();
	if (e->allocate) {
		json_t *results = json_array();
		for (uint32_t i = 0; i < e->n_devices; i++) {
			const struct gt_dra_device *dev = &d->devices[e->devices[i]];
			char name[600];
			json_t *r = json_pack("{s:s, s:s, s:s, s:s}", "request",
					      gt_dra_result_name(c, k, e->requests[i], e->alts[i], name, sizeof(name)),
					      "driver", str(snap, dev->driver), "pool", str(snap, dev->pool), "device",
					      str(snap, dev->name));
			if (k->requests[e->requests[i]].alts[e->alts[i]].admin)
				json_object_set_new(r, "adminAccess", json_true());
			json_array_append_new(results, r);
		}
		json_t *alloc = json_pack("{s:{s:o}}", "devices", "results", results);
		json_t *sel = allocation_node_selector(snap, e);
		if (sel)
			json_object_set_new(alloc, "nodeSelector", sel);
		json_object_set_new(status, "allocation", alloc);
	}
	json_t *reserved = json_array();
	const struct gt_doc *have = gt_doc_path(ko->doc, "status.reservedFor");
	for (size_t i = 0; have && have->kind == GT_DOC_SEQ && i < have->n; i++) {
		const struct gt_doc *r = have->items[i];
		json_t *ref = json_object();
		static const char *const keys[] = { "apiGroup", "resource", "name", "uid" };
		for (size_t j = 0; j < 4; j++)
			if (gt_doc_str(r, keys[j]))
				json_object_set_new(ref, keys[j], json_string(gt_doc_str(r, keys[j])));
		json_array_append_new(reserved, ref);
	}
	for (uint32_t i = 0; i < e->n_pods; i++) {
		const struct gt_kobj *po = snap->pod_obj[e->pods[i]];
		if (!po)
			continue;
		json_array_append_new(reserved, json_pack("{s:s, s:s, s:s}", "resource", "pods", "name", po->name,
							  "uid", po->uid));
	}
	json_object_set_new(status, "reservedFor", reserved);
	json_t *patch = json_pack("{s:{s:s}, s:o}", "metadata", "resourceVersion", ko->rv, "status", status);
	return gt_json_dump_take(patch);
}

/* The claims pod @pod uses that the bind writes; false when one cannot be written (no bind). */
static bool plan_claims(struct gt_kop *op, const struct gt_kube_snapshot *snap, const struct gt_plan *plan,
			int32_t pod)
{
	for (uint32_t i = 0; i < plan->n_claims; i++) {
		const struct gt_plan_claim *e = &plan->claims[i];
		bool mine = false;
		for (uint32_t j = 0; j < e->n_pods; j++)
			mine |= e->pods[j] == pod;
		if (!mine && !e->allocate)
			continue;
		const struct gt_dra_claim *k = &snap->c.dra.claims[e->claim];
		const struct gt_dra_use *u = &snap->c.dra.uses[pod];
		bool uses = false;
		for (uint32_t j = 0; j < u->n_claims; j++)
			uses |= u->claims[j] == e->claim;
		if (!uses)
			continue;
		const struct gt_kobj *ko = claim_object(snap, k);
		if (e->short_of_devices || !ko) {
			gt_log(GT_LOG_WARN, "writes", "pod %s/%s not bound: its resource claim %s %s",
			       str(snap, snap->c.pods[pod].ns), str(snap, snap->c.pods[pod].name), str(snap, k->name),
			       ko ? "lacks free devices on the node" : "is not in the cache");
			return false;
		}
		op->claim_names = gt_xrealloc(op->claim_names, (op->n_claims + 1u) * sizeof(char *));
		op->claim_bodies = gt_xrealloc(op->claim_bodies, (op->n_claims + 1u) * sizeof(char *));
		op->claim_names[op->n_claims] = gt_xstrdup(ko->name);
		op->claim_bodies[op->n_claims++] = claim_status_patch(snap, e, ko);
	}
	return true;
}

static void plan_bind(struct gt_writes *p, struct gt_kube_snapshot *snap, struct gt_plan *plan,
		      const struct gt_plan_place *b, const struct gt_kobj *po, const char *pool)
{
	const struct gt_cluster *c = &snap->c;
	const struct gt_pod *pod = &c->pods[b->pod];
	struct gt_kop dra_op = { 0 };
	if (pod->dra && !plan_claims(&dra_op, snap, plan, b->pod)) {
		gt_kop_release(&dra_op);
		return;
	}
	if (b->n_numa)
		plan_numa(p, snap, b, po);
	struct gt_kop *op = push(p, GT_KOP_BIND, GT_KRES_PODS, po);
	op->claim_names = dra_op.claim_names;
	op->claim_bodies = dra_op.claim_bodies;
	op->n_claims = dra_op.n_claims;
	op->node = gt_xstrdup(str(snap, c->nodes[b->node].name));
	for (uint8_t g = 0; g < b->n_groups; g++)
		op->groups[op->n_groups++] = gt_xstrdup(str(snap, gt_plan_group_name(plan, b->groups[g], b->node)));
	if (gt_pod_is_shared(pod))
		plan_shared(op, snap, (uint32_t)b->pod, b->node, po);
	if (pod->job >= 0) {
		char jk[600];
		snprintf(jk, sizeof(jk), "%s/%s", str(snap, c->jobs[pod->job].ns), str(snap, c->jobs[pod->job].name));
		op->job = gt_xstrdup(jk);
	}
	char msg[900];
	snprintf(msg, sizeof(msg), "Successfully assigned pod %s/%s to node %s at node-pool %s", po->ns,
		 po->name, op->node, pool);
	op->reason = gt_xstrdup("Scheduled");
	op->message = gt_xstrdup(msg);
	op->what = "bind";
	p->n_binds++;
}

/*
 * What kube-scheduler's volume binder writes before a bind: a static
 * volume's claimRef (the PV controller then binds the claim to it), or the
 * claim's selected-node annotation (its provisioner then makes the volume
 * there). The pod is bound in a later cycle, once its claims are bound.
 */
static void plan_volumes(struct gt_writes *p, const struct gt_kube_snapshot *snap, const struct gt_plan *plan)
{
	const struct gt_cluster *c = &snap->c;
	for (uint32_t i = 0; i < plan->n_volumes; i++) {
		const struct gt_plan_volume *v = &plan->volumes[i];
		const struct gt_pvc *pvc = &c->pvcs[v->pvc];
		const struct gt_kobj *claim = gt_snapshot_find(snap, GT_KRES_PVCS, str(snap, pvc->ns), str(snap, pvc->name));
		if (!claim)
			continue;
		if (v->pv == GT_NONE) {
			struct gt_kop *op = push(p, GT_KOP_PATCH, GT_KRES_PVCS, claim);
			op->sub = gt_xstrdup("");
			op->body = gt_json_dump_take(json_pack("{s:{s:{s:s}}}", "metadata", "annotations",
							       "volume.kubernetes.io/selected-node",
							       str(snap, c->nodes[v->node].name)));
			op->what = "claim's selected node";
			continue;
		}
		const struct gt_kobj *vol = gt_snapshot_find(snap, GT_KRES_PVS, NULL, str(snap, c->pvs[v->pv].name));
		if (!vol)
			continue;
		struct gt_kop *op = push(p, GT_KOP_PATCH, GT_KRES_PVS, vol);
		op->sub = gt_xstrdup("");
		op->body = gt_json_dump_take(json_pack(
			"{s:{s:{s:s, s:s, s:s, s:s, s:s}}, s:{s:{s:s}}}", "spec", "claimRef", "kind",
			"PersistentVolumeClaim", "apiVersion", "v1", "namespace", claim->ns, "name", claim->name, "uid",
			claim->uid ? claim->uid : "", "metadata", "annotations", "pv.kubernetes.io/bound-by-controller",
			"yes"));
		op->what = "volume's claimRef";
	}
}

static void plan_evict(struct gt_writes *p, const struct gt_kube_snapshot *snap, const struct gt_plan_evict *ev,
		       const struct gt_kobj *po)
{
	const struct gt_cluster *c = &snap->c;
	const struct gt_pod *pod = &c->pods[ev->pod];
	struct gt_kop *op = push(p, GT_KOP_EVICT, GT_KRES_PODS, po);
	op->action = ev->action;
	op->message = gt_xstrdup(ev->message);
	op->reason = gt_xstrdup("Evict");
	op->what = "eviction";
	/* KAI announces an eviction on the PodGroup; a bare pod has none */
	const struct gt_kobj *pg = pod->job >= 0 ? snap->job_obj[pod->job] : NULL;
	const struct gt_kobj *subject = pg ? pg : po;
	op->evict_event_res = pg ? GT_KRES_PODGROUPS : GT_KRES_PODS;
	op->evict_event_ns = gt_xstrdup(subject->ns);
	op->evict_event_name = gt_xstrdup(subject->name);
	op->evict_event_uid = gt_xstrdup(subject->uid);
	p->n_evictions++;
}

/* A Pipelined event, once per pod and node; @pl collects the keys pipelined now. */
static void plan_pipelined(struct gt_writes *p, const struct gt_kube_snapshot *snap, const struct gt_writes_opts *o,
			   const struct gt_plan_place *pp, const struct gt_kobj *po, char ***pl, size_t *n_pl,
			   size_t *cap_pl)
{
	const char *node = str(snap, snap->c.nodes[pp->node].name);
	char key[600], msg[900];
	snprintf(key, sizeof(key), "%s@%s", po->uid, node);
	GT_PUSH(*pl, *n_pl, *cap_pl, gt_xstrdup(key));
	if (announced(o, key))
		return;
	snprintf(msg, sizeof(msg), "Pod %s/%s was pipelined to node %s", po->ns, po->name, node);
	add_event(p, GT_KRES_PODS, po, "Pipelined", msg, false);
}

static const struct gt_kobj *pod_object(const struct gt_kube_snapshot *snap, int32_t pod)
{
	return snap->pod_obj[pod];
}

/* A Warning event on each object the decoder rejected, the first time it does. */
static void plan_rejections(struct gt_writes *p, const struct gt_kube_snapshot *snap)
{
	for (size_t i = 0; i < snap->n_rejected; i++) {
		const struct gt_snapshot_rejection *r = &snap->rejected[i];
		if (!r->first)
			continue;
		char msg[1400];
		snprintf(msg, sizeof(msg), "left out of scheduling: %s", r->text);
		add_event(p, r->obj->res, r->obj, "InvalidObject", msg, true);
	}
}

void gt_writes_build(struct gt_kube_snapshot *snap, struct gt_plan *plan, const struct gt_writes_opts *o,
		     struct gt_writes *p, char ***pipelined, size_t *n_pipelined)
{
	memset(p, 0, sizeof(*p));
	struct gt_cluster *c = &snap->c;
	/* the partition's name where conditions and events name the node pool */
	const char *pool = snap->node_pool && *snap->node_pool ? snap->node_pool : o->node_pool;
	struct gt_writes_opts po_pool = *o;
	po_pool.node_pool = pool;
	o = &po_pool;
	for (uint32_t i = 0; i < plan->n_binds; i++) {
		const struct gt_kobj *po = pod_object(snap, plan->binds[i].pod);
		/* a pod whose claims are not bound yet waits for the PV controller (plan_volumes) */
		if (po && !gt_pod_volumes_unbound(c, plan->binds[i].pod))
			plan_bind(p, snap, plan, &plan->binds[i], po, pool);
	}
	plan_volumes(p, snap, plan);
	for (uint32_t i = 0; i < plan->n_evictions; i++) {
		const struct gt_kobj *po = pod_object(snap, plan->evictions[i].pod);
		if (po)
			plan_evict(p, snap, &plan->evictions[i], po);
	}
	char **pl = NULL;
	size_t n_pl = 0, cap_pl = 0;
	for (uint32_t i = 0; i < plan->n_pipelines; i++) {
		const struct gt_kobj *po = pod_object(snap, plan->pipelines[i].pod);
		if (po)
			plan_pipelined(p, snap, o, &plan->pipelines[i], po, &pl, &n_pl, &cap_pl);
	}
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		const struct gt_kobj *pg = snap->job_obj[j];
		if (pg)
			plan_podgroup(p, snap, plan, o, (int32_t)j, pg);
		plan_pod_conditions(p, snap, plan, o, (int32_t)j, pg);
	}
	for (size_t i = 0; i < snap->n_stale_brs; i++)
		plan_delete(p, GT_KRES_BINDREQUESTS, snap->stale_brs[i], -1, "stale BindRequest");
	if (!o->binder_owns_reservations)
		plan_reservation_gc(p, snap, o);
	plan_rejections(p, snap);
	if (n_pl)
		qsort(pl, n_pl, sizeof(*pl), cmp_str);
	*pipelined = pl;
	*n_pipelined = n_pl;
}
