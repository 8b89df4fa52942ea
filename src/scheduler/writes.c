#include "scheduler/writes.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/actions.h"
#include "api/json.h"
#include "util/hash.h"
#include "util/mem.h"
#include "util/time.h"

#define LABEL_MAX 63
#define COND_TYPE "UnschedulableOnNodePool"
#define DEFAULT_RESERVATION_NS "kai-resource-reservation"
#define CM_ANNOTATION "runai/shared-gpu-configmap"
#define CONTAINER_ANNOTATION "gpu-fraction-container-name"

static const char *str(const struct gt_kube_snapshot *snap, uint32_t id)
{
	return gt_strtab_str(&snap->names, id);
}

static struct gt_kop *push(struct gt_kplan *p, enum gt_kop_kind kind, enum gt_kres res,
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

void gt_plan_release(struct gt_kplan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct gt_kop *op = &p->ops[i];
		free(op->ns);
		free(op->name);
		free(op->uid);
		free(op->rv);
		free(op->node);
		for (uint8_t g = 0; g < op->n_groups; g++)
			free(op->groups[g]);
		free(op->job);
		free(op->portion);
		free(op->cm_caps);
		free(op->cm_evar);
		free(op->evict_event_ns);
		free(op->evict_event_name);
		free(op->evict_event_uid);
		free(op->sub);
		free(op->body);
		free(op->reason);
		free(op->message);
	}
	free(p->ops);
	memset(p, 0, sizeof(*p));
}

/* ---------------------------------------------------------------- GPU groups */

static bool label_value_ok(const char *v)
{
	size_t n = strlen(v);
	if (!n || n > LABEL_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = v[i];
		bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
		if (!alnum && ((i == 0 || i + 1 == n) || (ch != '-' && ch != '_' && ch != '.')))
			return false;
	}
	return true;
}

/*
 * Minted ids (past the table as the session opened it) map to names made
 * here: "<node>-gpu<k>" as the simulator names them, or, when that is no
 * valid label value (long node names), "gpu-<hash of node>-<k>".
 */
struct minted {
	uint32_t *ids, *names;
	size_t n, cap;
};

static const char *group_name(struct gt_kube_snapshot *snap, const struct gt_session *s,
			      struct minted *m, uint32_t id, int32_t node)
{
	if (id < s->n_base_names)
		return str(snap, id);
	for (size_t i = 0; i < m->n; i++)
		if (m->ids[i] == id)
			return str(snap, m->names[i]);
	const char *nn = node >= 0 ? str(snap, snap->c.nodes[node].name) : "gpu";
	char buf[300];
	for (unsigned k = 0;; k++) {
		snprintf(buf, sizeof(buf), "%s-gpu%u", nn, k);
		if (!label_value_ok(buf)) {
			snprintf(buf, sizeof(buf), "gpu-%016llx-%u", (unsigned long long)gt_hash_str(nn), k);
		}
		if (gt_strtab_find(&snap->names, buf) < 0)
			break;
	}
	uint32_t nid = gt_strtab_intern(&snap->names, buf);
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 8;
		m->ids = gt_xrealloc(m->ids, m->cap * sizeof(*m->ids));
		m->names = gt_xrealloc(m->names, m->cap * sizeof(*m->names));
	}
	m->ids[m->n] = id;
	m->names[m->n++] = nid;
	return str(snap, nid);
}

/* ---------------------------------------------------------------- messages */

static char *evict_message(const struct gt_kube_snapshot *snap, const struct gt_session *s, int32_t pod)
{
	const struct gt_cluster *c = &snap->c;
	const struct gt_pod *p = &c->pods[pod];
	const struct gt_pod_state *st = &s->pods[pod];
	char buf[1024];
	const char *ns = str(snap, p->ns), *name = str(snap, p->name);
	const struct gt_job *ev = st->evictor_job >= 0 ? &c->jobs[st->evictor_job] : NULL;
	const char *ens = ev ? str(snap, ev->ns) : "", *ename = ev ? str(snap, ev->name) : "";
	switch (st->evicted_by) {
	case GT_ACT_CONSOLIDATION:
		snprintf(buf, sizeof(buf), "Pod %s/%s was preempted and rescheduled due to bin packing "
			 "(resource consolidation) procedure", ns, name);
		break;
	case GT_ACT_RECLAIM:
		snprintf(buf, sizeof(buf), "Pod %s/%s was preempted by workload %s/%s.", ns, name, ens, ename);
		break;
	case GT_ACT_PREEMPT:
		snprintf(buf, sizeof(buf), "Pod %s/%s was preempted by higher priority workload %s/%s", ns,
			 name, ens, ename);
		break;
	case GT_ACT_STALEGANG: {
		int32_t min = p->job >= 0 && p->podset >= 0 ? c->jobs[p->job].podsets[p->podset].min_member : 0;
		snprintf(buf, sizeof(buf), "Workload doesn't meet the minimum required number of pods (%d), "
			 "evicting remaining pod: %s/%s", min, ns, name);
		break;
	}
	default:
		snprintf(buf, sizeof(buf), "Pod %s/%s was evicted by the scheduler", ns, name);
	}
	return gt_xstrdup(buf);
}

/* KAI's UnschedulableReason for a job message. */
static const char *reason_of(const char *msg)
{
	if (!strncmp(msg, "Queue '", 7) && strstr(msg, "does not exist"))
		return "QueueDoesNotExist";
	if (strstr(msg, "quota has reached the allowable limit"))
		return "OverLimit";
	if (!strncmp(msg, "Non-preemptible", 15))
		return "NonPreemptibleOverQuota";
	return "PodSchedulingErrors";
}

/* ---------------------------------------------------------------- jobs */

static bool job_running(const struct gt_session *s, int32_t job)
{
	const struct gt_job *j = &s->c->jobs[job];
	for (uint32_t k = 0; k < j->n_pods; k++)
		if (gt_status_active_allocated(s->pods[j->pods[k]].status))
			return true;
	return false;
}

/* The PodGroup's scheduling conditions for other node pools, and ours (or NULL). */
static json_t *other_conditions(const struct gt_kobj *pg, const char *pool, const struct gt_doc **ours)
{
	json_t *keep = json_array();
	*ours = NULL;
	const struct gt_doc *conds = gt_doc_path(pg->doc, "status.schedulingConditions");
	for (size_t i = 0; conds && conds->kind == GT_DOC_SEQ && i < conds->n; i++) {
		const struct gt_doc *cd = conds->items[i];
		const char *np = gt_doc_str(cd, "nodePool");
		const char *type = gt_doc_str(cd, "type");
		if (type && !strcmp(type, COND_TYPE) && np && !strcmp(np, pool))
			*ours = cd;
		else
			json_array_append_new(keep, gt_kdoc_to_json(cd));
	}
	return keep;
}

static long long next_transition(const struct gt_kobj *pg)
{
	long long max = -1;
	const struct gt_doc *conds = gt_doc_path(pg->doc, "status.schedulingConditions");
	for (size_t i = 0; conds && conds->kind == GT_DOC_SEQ && i < conds->n; i++) {
		const char *t = gt_doc_str(conds->items[i], "transitionID");
		if (t && atoll(t) > max)
			max = atoll(t);
	}
	return max + 1;
}

static void add_event(struct gt_kplan *p, enum gt_kres res, const struct gt_kobj *o, const char *reason,
		      const char *msg, bool warning)
{
	struct gt_kop *op = push(p, GT_KOP_EVENT, res, o);
	op->reason = gt_xstrdup(reason);
	op->message = gt_xstrdup(msg);
	op->warning = warning;
	op->what = "event";
}

static void plan_podgroup(struct gt_kplan *p, const struct gt_kube_snapshot *snap, const struct gt_session *s,
			  const struct gt_plan_opts *o, int32_t j, const struct gt_kobj *pg)
{
	const struct gt_job *job = &snap->c.jobs[j];
	const struct gt_job_state *js = &s->jobs[j];
	char ts[40];
	gt_time_format(o->now, ts, sizeof(ts));
	/* annotations the core keeps across cycles */
	if (js->last_start != job->last_start || js->stale_since != job->stale_since) {
		json_t *ann = json_object();
		char t[40];
		if (js->last_start != job->last_start) {
			gt_time_format(js->last_start, t, sizeof(t));
			json_object_set_new(ann, "kai.scheduler/last-start-timestamp",
					    js->last_start ? json_string(t) : json_null());
		}
		if (js->stale_since != job->stale_since) {
			gt_time_format(js->stale_since, t, sizeof(t));
			json_object_set_new(ann, "kai.scheduler/stale-podgroup-timestamp",
					    js->stale_since ? json_string(t) : json_null());
		}
		struct gt_kop *op = push(p, GT_KOP_PATCH, GT_KRES_PODGROUPS, pg);
		op->sub = gt_xstrdup("");
		op->body = gt_json_dump_take(json_pack("{s:{s:o}}", "metadata", "annotations", ann));
		op->what = "PodGroup annotations";
	}
	const struct gt_doc *ours;
	json_t *keep = other_conditions(pg, o->node_pool, &ours);
	bool running = job_running(s, j);
	const char *msg = js->message;
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
	const char *had = ours ? gt_doc_str(ours, "message") : NULL;
	if (had && !strcmp(had, msg)) {
		json_decref(keep);
		return;
	}
	char tid[32];
	snprintf(tid, sizeof(tid), "%lld", next_transition(pg));
	json_t *cond = json_pack("{s:s, s:s, s:s, s:s, s:[{s:s, s:s}], s:s, s:s, s:s}", "type", COND_TYPE,
				 "nodePool", o->node_pool, "reason", "Unschedulable", "message", msg, "reasons",
				 "reason", reason_of(msg), "message", msg, "transitionID", tid,
				 "lastTransitionTime", ts, "status", "True");
	json_array_append_new(keep, cond);
	struct gt_kop *op = push(p, GT_KOP_PATCH, GT_KRES_PODGROUPS, pg);
	op->sub = gt_xstrdup("status");
	op->body = gt_json_dump_take(json_pack("{s:{s:o}}", "status", "schedulingConditions", keep));
	op->what = "PodGroup status";
	add_event(p, GT_KRES_PODGROUPS, pg, "Unschedulable", msg, false);
}

static void plan_pod_conditions(struct gt_kplan *p, const struct gt_kube_snapshot *snap,
				const struct gt_session *s, const struct gt_plan_opts *o, int32_t j,
				const struct gt_kobj *pg)
{
	const char *msg = s->jobs[j].message;
	if (!msg || job_running(s, j) || !gt_job_pending_ready(s, j))
		return;
	const char *mark = pg ? gt_kobj_str(pg, "spec.markUnschedulable") : NULL;
	if (mark && !strcmp(mark, "false"))
		return;
	char ts[40];
	gt_time_format(o->now, ts, sizeof(ts));
	const struct gt_job *job = &snap->c.jobs[j];
	for (uint32_t k = 0; k < job->n_pods; k++) {
		int32_t pi = job->pods[k];
		const struct gt_pod *pod = &snap->c.pods[pi];
		if (!pod->ours || s->pods[pi].status != GT_PENDING)
			continue;
		const struct gt_kobj *po = gt_snapshot_find(snap, GT_KRES_PODS, str(snap, pod->ns),
							    str(snap, pod->name));
		if (!po)
			continue;
		const struct gt_doc *conds = gt_doc_path(po->doc, "status.conditions");
		bool same = false;
		for (size_t i = 0; conds && conds->kind == GT_DOC_SEQ && i < conds->n; i++) {
			const char *type = gt_doc_str(conds->items[i], "type");
			const char *st = gt_doc_str(conds->items[i], "status");
			const char *m = gt_doc_str(conds->items[i], "message");
			if (type && !strcmp(type, "PodScheduled"))
				same = st && !strcmp(st, "False") && m && !strcmp(m, msg);
		}
		if (same)
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

/*
 * The container the webhook gave the shared-GPU env to: the one named by
 * gpu-fraction-container-name (an init container's index gets an "i", as
 * KAI names its ConfigMap), else the first. Its env says where
 * NVIDIA_VISIBLE_DEVICES is read from.
 */
static const struct gt_doc *gpu_container(const struct gt_kobj *po, char *index, size_t len)
{
	const char *want = gt_doc_str(gt_doc_path(po->doc, "metadata.annotations"), CONTAINER_ANNOTATION);
	static const char *const lists[] = { "spec.containers", "spec.initContainers" };
	for (int l = 0; want && l < 2; l++) {
		const struct gt_doc *cs = gt_doc_path(po->doc, lists[l]);
		for (size_t i = 0; cs && cs->kind == GT_DOC_SEQ && i < cs->n; i++) {
			const char *name = gt_doc_str(cs->items[i], "name");
			if (name && !strcmp(name, want)) {
				snprintf(index, len, "%s%zu", l ? "i" : "", i);
				return cs->items[i];
			}
		}
	}
	snprintf(index, len, "0");
	const struct gt_doc *cs = gt_doc_path(po->doc, "spec.containers");
	return cs && cs->kind == GT_DOC_SEQ && cs->n ? cs->items[0] : NULL;
}

static bool env_from_configmap(const struct gt_doc *container, const char *var)
{
	const struct gt_doc *env = gt_doc_get(container, "env");
	for (size_t i = 0; env && env->kind == GT_DOC_SEQ && i < env->n; i++) {
		const char *name = gt_doc_str(env->items[i], "name");
		if (name && !strcmp(name, var) && gt_doc_path(env->items[i], "valueFrom.configMapKeyRef"))
			return true;
	}
	return false;
}

/* What the reservation flow needs for a shared-GPU bind. */
static void plan_shared(struct gt_kop *op, const struct gt_kube_snapshot *snap, uint32_t pod, int32_t node,
			const struct gt_kobj *po)
{
	const struct gt_pod *p = &snap->c.pods[pod];
	int32_t devices = p->num_devices > 0 ? p->num_devices : 1;
	int64_t milli = gt_pod_accepted_gpu_milli(&snap->c, (int32_t)pod, node) / devices;
	char buf[600], index[32];
	snprintf(buf, sizeof(buf), "%.2f", (double)milli / 1000.0);
	op->shared = true;
	op->portion = gt_xstrdup(buf);
	const char *prefix = gt_doc_str(gt_doc_path(po->doc, "metadata.annotations"), CM_ANNOTATION);
	const struct gt_doc *container = gpu_container(po, index, sizeof(index));
	if (!prefix || !*prefix)
		return;
	snprintf(buf, sizeof(buf), "%.500s-%s", prefix, index);
	op->cm_caps = gt_xstrdup(buf);
	snprintf(buf, sizeof(buf), "%.500s-%s-evar", prefix, index);
	op->cm_evar = gt_xstrdup(buf);
	op->visible_in_caps = container && env_from_configmap(container, "NVIDIA_VISIBLE_DEVICES");
}

/* ---------------------------------------------------------------- deletes */

static void plan_delete(struct gt_kplan *p, enum gt_kres res, const struct gt_kobj *o, int64_t grace,
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
static void plan_reservation_gc(struct gt_kplan *p, const struct gt_kube_snapshot *snap,
				const struct gt_plan_opts *o)
{
	const struct gt_cluster *c = &snap->c;
	const char *ns = o->reservation_ns ? o->reservation_ns : DEFAULT_RESERVATION_NS;
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
		const struct gt_kobj *po = gt_snapshot_find(snap, GT_KRES_PODS, ns, str(snap, pod->name));
		if (in_use || !po || gt_doc_str(gt_doc_get(po->doc, "metadata"), "deletionTimestamp"))
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

static bool announced(const struct gt_plan_opts *o, const char *key)
{
	return o->announced && o->n_announced && bsearch(&key, o->announced, o->n_announced, sizeof(char *), cmp_str);
}

void gt_plan_build(struct gt_kube_snapshot *snap, const struct gt_session *s,
		   const struct gt_plan_opts *o, struct gt_kplan *p, char ***pipelined,
		   size_t *n_pipelined)
{
	memset(p, 0, sizeof(*p));
	struct gt_cluster *c = &snap->c;
	struct minted m = { 0 };
	/* the partition's name where conditions and events name the node pool */
	const char *pool = snap->node_pool && *snap->node_pool ? snap->node_pool : o->node_pool;
	struct gt_plan_opts po_pool = *o;
	po_pool.node_pool = pool;
	o = &po_pool;
	char **pl = NULL;
	size_t n_pl = 0, cap_pl = 0;
	for (uint32_t i = 0; i < c->n_pods; i++) {
		const struct gt_pod *pod = &c->pods[i];
		const struct gt_pod_state *st = &s->pods[i];
		const char *ns = str(snap, pod->ns), *name = str(snap, pod->name);
		const struct gt_kobj *po = gt_snapshot_find(snap, GT_KRES_PODS, ns, name);
		if (!po)
			continue;
		if (st->status == GT_BINDING && pod->status != GT_BINDING && st->node >= 0) {
			struct gt_kop *op = push(p, GT_KOP_BIND, GT_KRES_PODS, po);
			op->node = gt_xstrdup(str(snap, c->nodes[st->node].name));
			for (uint8_t g = 0; g < st->n_groups; g++)
				op->groups[op->n_groups++] = gt_xstrdup(group_name(snap, s, &m, st->groups[g], st->node));
			if (gt_pod_is_shared(pod))
				plan_shared(op, snap, i, st->node, po);
			if (pod->job >= 0) {
				char jk[600];
				snprintf(jk, sizeof(jk), "%s/%s", str(snap, c->jobs[pod->job].ns),
					 str(snap, c->jobs[pod->job].name));
				op->job = gt_xstrdup(jk);
			}
			char msg[900];
			snprintf(msg, sizeof(msg), "Successfully assigned pod %s/%s to node %s at node-pool %s", ns,
				 name, op->node, pool);
			op->reason = gt_xstrdup("Scheduled");
			op->message = gt_xstrdup(msg);
			op->what = "bind";
			p->n_binds++;
		} else if (st->status == GT_RELEASING && st->evicted_by && pod->status != GT_RELEASING) {
			struct gt_kop *op = push(p, GT_KOP_EVICT, GT_KRES_PODS, po);
			op->action = (enum gt_action)st->evicted_by;
			op->message = evict_message(snap, s, (int32_t)i);
			op->reason = gt_xstrdup("Evict");
			op->what = "eviction";
			/* KAI announces an eviction on the PodGroup; a bare pod has none */
			const struct gt_kobj *pg = pod->job >= 0
				? gt_snapshot_find(snap, GT_KRES_PODGROUPS, str(snap, c->jobs[pod->job].ns),
						   str(snap, c->jobs[pod->job].name))
				: NULL;
			const struct gt_kobj *subject = pg ? pg : po;
			op->evict_event_res = pg ? GT_KRES_PODGROUPS : GT_KRES_PODS;
			op->evict_event_ns = gt_xstrdup(subject->ns);
			op->evict_event_name = gt_xstrdup(subject->name);
			op->evict_event_uid = gt_xstrdup(subject->uid);
			p->n_evictions++;
		} else if (st->status == GT_PIPELINED && st->node >= 0) {
			const char *node = str(snap, c->nodes[st->node].name);
			char key[600], msg[900];
			snprintf(key, sizeof(key), "%s@%s", po->uid, node);
			GT_PUSH(pl, n_pl, cap_pl, gt_xstrdup(key));
			if (announced(o, key))
				continue;
			snprintf(msg, sizeof(msg), "Pod %s/%s was pipelined to node %s", ns, name, node);
			add_event(p, GT_KRES_PODS, po, "Pipelined", msg, false);
		}
	}
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		const struct gt_job *job = &c->jobs[j];
		const struct gt_kobj *pg = gt_snapshot_find(snap, GT_KRES_PODGROUPS, str(snap, job->ns),
							    str(snap, job->name));
		if (pg)
			plan_podgroup(p, snap, s, o, (int32_t)j, pg);
		plan_pod_conditions(p, snap, s, o, (int32_t)j, pg);
	}
	for (size_t i = 0; i < snap->n_stale_brs; i++)
		plan_delete(p, GT_KRES_BINDREQUESTS, snap->stale_brs[i], -1, "stale BindRequest");
	plan_reservation_gc(p, snap, o);
	free(m.ids);
	free(m.names);
	if (n_pl)
		qsort(pl, n_pl, sizeof(*pl), cmp_str);
	*pipelined = pl;
	*n_pipelined = n_pl;
}
