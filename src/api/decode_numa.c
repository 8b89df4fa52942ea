/*
 * decode_numa.c - NodeResourceTopology objects and what a pod asks its
 * node's kubelet to align (core/numa.h)
 *
 * A NodeResourceTopology (topology.node.k8s.io/v1alpha2, the NFD topology
 * updater's or the Resource Topology Exporter's) is named after its node:
 * attributes topologyManagerPolicy and topologyManagerScope (or the older
 * topologyPolicies enum) and zones of type Node, each with resources
 * [{name, capacity, allocatable, available}]. Other zone types (sockets,
 * dies) are not what the kubelet aligns and are left out, as KAI does; so
 * are resources the cluster's nodes do not have.
 */
#include "api/decode_int.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "core/numa.h"
#include "util/mem.h"

#define PREDICTED "kai.scheduler/numa-placement-predicted"
#define OBSERVED "kai.scheduler/numa-placement-observed"

/* The zone resource @name stands for, or -1 when no node of the cluster has it. */
static int numa_res(const struct gt_cluster *c, const struct gt_strtab *names, const char *name)
{
	if (!strcmp(name, "cpu"))
		return GT_NUMA_CPU;
	if (!strcmp(name, "memory"))
		return GT_NUMA_MEM;
	if (!strcmp(name, "nvidia.com/gpu"))
		return GT_NUMA_GPU;
	for (uint32_t e = 0; e < c->n_ext; e++)
		if (!strcmp(gt_strtab_str(names, c->ext_names[e]), name))
			return GT_NUMA_EXT + (int)e;
	return -1;
}

static int numa_quantity(int r, const char *val, int64_t *v)
{
	int rc = r == GT_NUMA_CPU ? gt_quantity_parse_milli(val, v) : gt_quantity_parse(val, v);
	return rc ? rc : *v < 0 ? GT_EINVAL : 0;
}

static const struct {
	const char *name;
	enum gt_numa_policy policy;
} policies[] = {
	{ "none", GT_NUMA_POLICY_NONE }, { "best-effort", GT_NUMA_BEST_EFFORT },
	{ "restricted", GT_NUMA_RESTRICTED }, { "single-numa-node", GT_NUMA_SINGLE_NODE },
};

/* The deprecated topologyPolicies enum: policy and scope in one. */
static const struct {
	const char *name;
	enum gt_numa_policy policy;
	enum gt_numa_scope scope;
} legacy[] = {
	{ "SingleNUMANodePodLevel", GT_NUMA_SINGLE_NODE, GT_NUMA_SCOPE_POD },
	{ "SingleNUMANodeContainerLevel", GT_NUMA_SINGLE_NODE, GT_NUMA_SCOPE_CONTAINER },
	{ "RestrictedPodLevel", GT_NUMA_RESTRICTED, GT_NUMA_SCOPE_POD },
	{ "Restricted", GT_NUMA_RESTRICTED, GT_NUMA_SCOPE_CONTAINER },
	{ "RestrictedContainerLevel", GT_NUMA_RESTRICTED, GT_NUMA_SCOPE_CONTAINER },
	{ "BestEffortPodLevel", GT_NUMA_BEST_EFFORT, GT_NUMA_SCOPE_POD },
	{ "BestEffort", GT_NUMA_BEST_EFFORT, GT_NUMA_SCOPE_CONTAINER },
	{ "BestEffortContainerLevel", GT_NUMA_BEST_EFFORT, GT_NUMA_SCOPE_CONTAINER },
	{ "None", GT_NUMA_POLICY_NONE, GT_NUMA_SCOPE_CONTAINER },
};

static void policy_and_scope(struct gt_dec *x, const struct gt_doc *o, struct gt_numa_node *t)
{
	const struct gt_doc *attrs = gt_doc_get(o, "attributes");
	const char *policy = NULL, *scope = NULL;
	for (size_t i = 0; attrs && attrs->kind == GT_DOC_SEQ && i < attrs->n; i++) {
		const char *name = gt_doc_str(attrs->items[i], "name");
		const char *value = gt_doc_str(attrs->items[i], "value");
		if (name && !strcmp(name, "topologyManagerPolicy"))
			policy = value;
		else if (name && !strcmp(name, "topologyManagerScope"))
			scope = value;
	}
	t->policy = GT_NUMA_POLICY_NONE;
	t->scope = GT_NUMA_SCOPE_CONTAINER;	/* the kubelet's default */
	if (policy && *policy) {
		size_t k = 0;
		while (k < sizeof(policies) / sizeof(policies[0]) && strcmp(policies[k].name, policy))
			k++;
		if (k < sizeof(policies) / sizeof(policies[0]))
			t->policy = policies[k].policy;
		else
			gt_dec_note(x, o, "attributes.topologyManagerPolicy",
				    "'%s' is not a Topology Manager policy (none, best-effort, restricted, "
				    "single-numa-node): the node's zones are not aligned, as KAI does", policy);
		if (scope && !strcmp(scope, "pod"))
			t->scope = GT_NUMA_SCOPE_POD;
		else if (scope && *scope && strcmp(scope, "container"))
			gt_dec_note(x, o, "attributes.topologyManagerScope",
				    "'%s' is not a Topology Manager scope (container, pod): container is used", scope);
		return;
	}
	const struct gt_doc *tp = gt_doc_get(o, "topologyPolicies");
	const char *old = tp && tp->kind == GT_DOC_SEQ && tp->n && tp->items[0]->kind == GT_DOC_SCALAR ? tp->items[0]->scalar
											     : NULL;
	for (size_t k = 0; old && k < sizeof(legacy) / sizeof(legacy[0]); k++)
		if (!strcmp(legacy[k].name, old)) {
			t->policy = legacy[k].policy;
			t->scope = legacy[k].scope;
			return;
		}
	if (old)
		gt_dec_note(x, o, "topologyPolicies[0]", "'%s' is not a Topology Manager policy: the node's zones "
			    "are not aligned, as KAI does", old);
}

static int zone_resources(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *res, size_t zi,
			  struct gt_numa_zone *z, uint32_t *aware)
{
	for (size_t k = 0; res && res->kind == GT_DOC_SEQ && k < res->n; k++) {
		const char *name = gt_doc_str(res->items[k], "name");
		int r = name ? numa_res(x->c, x->names, name) : -1;
		if (r < 0)
			continue;	/* no node has it: nothing asks for it */
		static const char *const fields[] = { "allocatable", "available" };
		struct gt_numa_vec *dst[] = { &z->allocatable, &z->available };
		for (int f = 0; f < 2; f++) {
			const char *val = gt_doc_str(res->items[k], fields[f]);
			int64_t v = 0;
			if (val && numa_quantity(r, val, &v)) {
				char field[160];
				snprintf(field, sizeof(field), "zones[%zu].resources[%zu].%s", zi, k, fields[f]);
				return gt_dec_fail(x, o, field, "not a valid quantity", val);
			}
			dst[f]->v[r] = v;
		}
		*aware |= 1u << r;
	}
	return 0;
}

int gt_dec_nrt(struct gt_dec *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	int32_t node = gt_dec_lookup(x, x->node_by_name, gt_obj_name(o));
	if (node == GT_NONE)
		return 0;	/* a node outside the input (another pool): KAI has no topology for it either */
	struct gt_numa_node t = { .node = node };
	policy_and_scope(x, o, &t);
	const struct gt_doc *zones = gt_doc_get(o, "zones");
	for (size_t i = 0; zones && zones->kind == GT_DOC_SEQ && i < zones->n; i++) {
		const struct gt_doc *zd = zones->items[i];
		const char *type = gt_doc_str(zd, "type"), *name = gt_doc_str(zd, "name");
		if (!type || strcmp(type, "Node"))
			continue;	/* the kubelet aligns NUMA nodes only */
		char field[96];
		snprintf(field, sizeof(field), "zones[%zu].name", i);
		if (!name || !*name) {
			free(t.zones);
			return gt_dec_fail(x, o, field, "is missing", NULL);
		}
		if (t.n_zones == GT_NUMA_MAX_ZONES) {
			free(t.zones);
			return gt_dec_fail(x, o, "zones", "has more NUMA zones of type Node than Gantry models (at most "
					   GT_STR(GT_NUMA_MAX_ZONES) ")", NULL);
		}
		struct gt_numa_zone z = { .id = gt_dec_intern(x, name) };
		int rc = zone_resources(x, o, gt_doc_get(zd, "resources"), i, &z, &t.aware);
		if (rc) {
			free(t.zones);
			return rc;
		}
		uint32_t cap = t.n_zones;
		GT_PUSH(t.zones, t.n_zones, cap, z);
	}
	if (!t.n_zones)
		return 0;	/* no NUMA node reported: nothing to align */
	gt_numa_node_finish(&t, x->names);
	GT_PUSH(c->numa_nodes, c->n_numa_nodes, c->cap_numa_nodes, t);
	return 0;
}

/* ---------------------------------------------------------------- pods */

/* A quantity field of a container's resources (cpu in milli-units), -1 if absent or bad. */
static int64_t res_value(const struct gt_doc *res, const char *which, const char *name)
{
	const char *v = gt_doc_str(gt_doc_get(res, which), name);
	int64_t q;
	if (!v || (!strcmp(name, "cpu") ? gt_quantity_parse_milli(v, &q) : gt_quantity_parse(v, &q)))
		return -1;
	return q;
}

/*
 * Kubernetes' Guaranteed QoS, for a pod whose status does not say (a
 * manifest never admitted): every container has CPU and memory limits and
 * requests equal to them (a missing request defaults to its limit).
 */
static bool computed_guaranteed(const struct gt_doc *o)
{
	static const char *const lists[] = { "initContainers", "containers" };
	bool any = false;
	for (int l = 0; l < 2; l++) {
		const struct gt_doc *cs = gt_doc_get(gt_doc_get(o, "spec"), lists[l]);
		for (size_t i = 0; cs && cs->kind == GT_DOC_SEQ && i < cs->n; i++) {
			const struct gt_doc *res = gt_doc_get(cs->items[i], "resources");
			for (int k = 0; k < 2; k++) {
				const char *name = k ? "memory" : "cpu";
				int64_t lim = res_value(res, "limits", name), req = res_value(res, "requests", name);
				if (lim <= 0 || (req >= 0 && req != lim))
					return false;
			}
			any = true;
		}
	}
	return any;
}

/* The kubelet's CPU manager pins whole cores of a Guaranteed pod only: fractional CPU stays shared. */
static int64_t aligned_cpu(bool guaranteed, int64_t milli)
{
	return guaranteed && milli % 1000 == 0 ? milli : 0;
}

static void unit_of(const struct gt_pod *one, bool guaranteed, uint32_t n_ext, struct gt_numa_vec *u)
{
	memset(u, 0, sizeof(*u));
	u->v[GT_NUMA_CPU] = aligned_cpu(guaranteed, one->cpu_milli);
	u->v[GT_NUMA_MEM] = one->mem_bytes;
	u->v[GT_NUMA_GPU] = one->gpus;
	for (uint32_t e = 0; e < n_ext && e < GT_MAX_EXT; e++)
		u->v[GT_NUMA_EXT + e] = one->ext[e];
}

/*
 * Container scope's units: app containers and sidecars run together (and
 * share the zones), each plain init container runs alone. The pod scope's
 * one unit is the pod's request with only aligned CPU counted, init
 * containers as kube-scheduler counts them.
 */
static int numa_units(struct gt_dec *x, const struct gt_doc *o, const struct gt_pod *p, struct gt_numa_pod *np)
{
	const struct gt_doc *spec = gt_doc_get(o, "spec");
	const struct gt_doc *cs = gt_doc_get(spec, "containers"), *inits = gt_doc_get(spec, "initContainers");
	size_t n_c = cs && cs->kind == GT_DOC_SEQ ? cs->n : 0, n_i = inits && inits->kind == GT_DOC_SEQ ? inits->n : 0;
	unit_of(p, np->guaranteed, x->c->n_ext, &np->pod);
	if (n_c + n_i <= 1)
		return 0;	/* one container: its unit is the pod's */
	np->units = gt_xcalloc(n_c + n_i, sizeof(*np->units));
	int64_t sidecar_cpu = 0, init_peak = 0, long_running = 0;
	for (size_t i = 0; i < n_i; i++) {	/* sidecars first: they run beside the app containers */
		struct gt_pod one = { 0 };
		int rc = gt_dec_container_request(x, o, "initContainers", i, &one);
		if (rc)
			return rc;
		const char *restart = gt_doc_str(inits->items[i], "restartPolicy");
		int64_t cpu = aligned_cpu(np->guaranteed, one.cpu_milli);
		if (restart && !strcmp(restart, "Always")) {
			unit_of(&one, np->guaranteed, x->c->n_ext, &np->units[np->n_concurrent++]);
			sidecar_cpu += cpu;
		} else {
			init_peak = sidecar_cpu + cpu > init_peak ? sidecar_cpu + cpu : init_peak;
		}
	}
	long_running = sidecar_cpu;
	for (size_t i = 0; i < n_c; i++) {
		struct gt_pod one = { 0 };
		int rc = gt_dec_container_request(x, o, "containers", i, &one);
		if (rc)
			return rc;
		unit_of(&one, np->guaranteed, x->c->n_ext, &np->units[np->n_concurrent++]);
		long_running += np->units[np->n_concurrent - 1].v[GT_NUMA_CPU];
	}
	for (size_t i = 0; i < n_i; i++) {
		const char *restart = gt_doc_str(inits->items[i], "restartPolicy");
		if (restart && !strcmp(restart, "Always"))
			continue;
		struct gt_pod one = { 0 };
		int rc = gt_dec_container_request(x, o, "initContainers", i, &one);
		if (rc)
			return rc;
		unit_of(&one, np->guaranteed, x->c->n_ext, &np->units[np->n_concurrent + np->n_serial++]);
	}
	np->pod.v[GT_NUMA_CPU] = long_running > init_peak ? long_running : init_peak;
	return 0;
}

/*
 * A placement annotation: [{"zone": "node-0", "amount": {"cpu": "3"}}].
 * Missing: no record. Unreadable or empty: a warning and no record, as KAI
 * does (an incompatible placement exporter should not stop scheduling).
 */
static void numa_record(struct gt_dec *x, const struct gt_doc *o, const char *key, struct gt_numa_pod *np)
{
	const char *raw = gt_obj_annotation(o, key);
	if (!raw || !*raw)
		return;
	char field[96];
	snprintf(field, sizeof(field), "metadata.annotations.%s", key);
	json_error_t je;
	json_t *j = json_loads(raw, 0, &je);
	const char *bad = NULL;
	if (!json_is_array(j) || !json_array_size(j))
		bad = json_is_array(j) ? "is an empty placement" : "is not a JSON list of {zone, amount}";
	size_t i;
	json_t *item;
	json_array_foreach(bad ? NULL : j, i, item) {
		const char *zone = json_string_value(json_object_get(item, "zone"));
		json_t *amount = json_object_get(item, "amount");
		if (!zone || !*zone || !json_is_object(amount)) {
			bad = "has an entry without zone or amount";
			break;
		}
		struct gt_numa_share sh = { .zone = gt_dec_intern(x, zone) };
		const char *res;
		json_t *q;
		json_object_foreach(amount, res, q) {
			int r = numa_res(x->c, x->names, res);
			int64_t v;
			if (r < 0)
				continue;
			if (!json_is_string(q) || numa_quantity(r, json_string_value(q), &v)) {
				bad = "has an amount that is not a quantity";
				break;
			}
			sh.amount.v[r] = v;
		}
		if (bad)
			break;
		uint32_t cap = np->n_record;
		GT_PUSH(np->record, np->n_record, cap, sh);
	}
	json_decref(j);
	if (bad) {
		free(np->record);
		np->record = NULL;
		np->n_record = 0;
		gt_dec_note(x, o, field, "%s (an incompatible NUMA placement exporter?): the pod's NUMA zones are "
			    "unknown and not counted", bad);
	}
}

int gt_dec_pod_numa(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p)
{
	const char *qos = gt_doc_str(gt_doc_get(o, "status"), "qosClass");
	bool guaranteed = qos ? !strcmp(qos, "Guaranteed") : computed_guaranteed(o);
	bool devices = p->gpus > 0;
	for (uint32_t e = 0; e < GT_MAX_EXT; e++)
		devices |= p->ext[e] > 0;
	bool recorded = gt_obj_annotation(o, OBSERVED) || gt_obj_annotation(o, PREDICTED);
	if (!guaranteed && !devices && !recorded)
		return 0;	/* nothing any kubelet aligns */
	struct gt_numa_pod *np = gt_xcalloc(1, sizeof(*np));
	np->guaranteed = guaranteed;
	int rc = numa_units(x, o, p, np);
	if (rc) {
		gt_numa_pod_free(np);
		return rc;
	}
	/* the exporter's observation is the truth; the binder's prediction stands in until it comes */
	numa_record(x, o, OBSERVED, np);
	if (!np->n_record)
		numa_record(x, o, PREDICTED, np);
	p->numa = np;
	return 0;
}
