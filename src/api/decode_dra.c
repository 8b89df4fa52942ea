/*
 * decode_dra.c - DRA objects (resource.k8s.io/v1) into the cluster's DRA model (core/dra.h)
 *
 * DeviceClass, ResourceSlice, ResourceClaimTemplate and ResourceClaim are decoded in that
 * order, after the nodes and before the pods; each pod's spec.resourceClaims is read with the
 * pod (gt_dec_pod_dra), and gt_dec_dra_finish then ties them together: the selectors are
 * evaluated on every device (core/cel.h), stale pool generations are dropped, each class a
 * claim asks for becomes an extended-resource column, and each claim gets its consumers and
 * its carrier (core/dra.h says why).
 *
 * A malformed object (a request without a name, a count that is no positive integer, an
 * allocation mode Kubernetes does not know) is a rejection naming its field. Something
 * well-formed that Gantry cannot schedule (a selector it cannot evaluate, a constraint other
 * than matchAttribute) is a warning, and the pods using it wait with the reason: never a
 * silent match. Claims the counts cannot judge exactly (allocationMode All, firstAvailable,
 * matchAttribute, selectors that split a node's devices, admin access, network-attached
 * devices) are marked searched (core/dra.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/decode_int.h"
#include "api/json.h"
#include "api/quantity.h"
#include "core/cel.h"
#include "core/order.h"
#include "util/arena.h"
#include "util/hash.h"
#include "util/mem.h"

/* What a device carries for the selectors, and its pool's generation. */
struct dev_extra {
	gt_cel_device cel;
	int64_t generation;
};

/* A selector list: the compiled programs, or why there are none. */
struct progs {
	gt_cel_program **v;
	uint32_t n;
	const char *problem;	/* interned */
};

struct gt_dec_dra {
	struct gt_arena arena;
	struct dev_extra *devs;		/* parallel to c->dra.devices */
	uint32_t cap_devs;
	struct gt_smap device_by_key;	/* "driver/pool/device" -> index + 1 */
	struct gt_smap class_by_name;	/* name -> index + 1 */
	struct gt_smap claim_by_key;	/* "ns/name" -> index + 1 */
	struct gt_smap templates;	/* "ns/name" -> its spec.spec (borrowed doc) */
	struct progs *class_progs;	/* parallel to c->dra.classes */
	uint32_t cap_class_progs;
	/* per claim: per request, its own selectors; the claim's problem */
	struct progs **request_progs;
	const char **claim_problem;
	uint32_t cap_claims, cap_problems;
	/* per pod index: the claims it uses (GT_NONE: missing, said in problem) */
	struct gt_dra_use *uses;
	uint32_t n_uses, cap_uses;
};

static struct gt_dec_dra *scratch(struct gt_dec *x)
{
	if (!x->dra) {
		x->dra = gt_xcalloc(1, sizeof(*x->dra));
		gt_arena_init(&x->dra->arena);
		gt_smap_init(&x->dra->device_by_key);
		gt_smap_init(&x->dra->class_by_name);
		gt_smap_init(&x->dra->claim_by_key);
		gt_smap_init(&x->dra->templates);
	}
	return x->dra;
}

static const char *keep(struct gt_dec *x, const char *s)
{
	return gt_strtab_str(x->names, gt_dec_intern(x, s));
}

static int check_version(struct gt_dec *x, const struct gt_doc *o)
{
	const char *v = gt_doc_str(o, "apiVersion");
	if (v && (!strcmp(v, "resource.k8s.io/v1") || !strcmp(v, "resource.k8s.io/v1beta2")))
		return 0;
	return gt_dec_fail(x, o, "apiVersion",
			   "is not resource.k8s.io/v1 (or v1beta2, the same shape): Gantry reads those; not", v ? v : "");
}

/* Compile selectors[].cel.expression of @sel (a sequence, may be NULL) at @field. */
static int compile_selectors(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *sel, const char *field,
			     struct progs *out)
{
	memset(out, 0, sizeof(*out));
	if (!sel || gt_doc_is_null(sel))
		return 0;
	if (sel->kind != GT_DOC_SEQ)
		return gt_dec_fail(x, o, field, "must be a list of selectors", NULL);
	out->v = gt_xcalloc(sel->n + 1, sizeof(*out->v));
	for (size_t i = 0; i < sel->n; i++) {
		char f[700];
		snprintf(f, sizeof(f), "%s[%zu].cel.expression", field, i);
		const char *expr = gt_doc_str(gt_doc_get(sel->items[i], "cel"), "expression");
		if (!expr)
			return gt_dec_fail(x, o, f, "is missing (a selector is a CEL expression)", NULL);
		char err[256] = "";
		gt_cel_program *prog = gt_cel_compile(expr, err, sizeof(err));
		if (!prog) {
			char msg[600];
			snprintf(msg, sizeof(msg), "selector '%s' cannot be evaluated by Gantry (%s): nothing is "
				 "selected with it", expr, err);
			gt_dec_note(x, o, f, "%s", msg);
			snprintf(msg, sizeof(msg), "%s %s: selector '%s' cannot be evaluated by Gantry (%s)",
				 gt_obj_kind(o), gt_obj_name(o), expr, err);
			if (!out->problem)
				out->problem = keep(x, msg);
			continue;
		}
		out->v[out->n++] = prog;
	}
	return 0;
}

static void free_progs(struct progs *p)
{
	for (uint32_t i = 0; p && i < p->n; i++)
		gt_cel_free(p->v[i]);
	if (p)
		free(p->v);
}

/* ---------------------------------------------------------------- DeviceClass */

int gt_dec_device_class(struct gt_dec *x, const struct gt_doc *o)
{
	int rc = check_version(x, o);
	if (rc)
		return rc;
	struct gt_dec_dra *s = scratch(x);
	struct gt_dra *d = &x->c->dra;
	const struct gt_doc *spec = gt_doc_get(o, "spec");
	struct gt_dra_class cl = { .name = gt_dec_intern(x, gt_obj_name(o)), .ext = GT_NONE };
	const char *ext = gt_doc_str(spec, "extendedResourceName");
	if (ext) {
		cl.has_ext_resource = true;
		cl.ext_resource = gt_dec_intern(x, ext);
	}
	struct progs p;
	rc = compile_selectors(x, o, gt_doc_get(spec, "selectors"), "spec.selectors", &p);
	if (rc) {
		free_progs(&p);
		return rc;
	}
	cl.problem = p.problem;
	if (gt_doc_get(spec, "config"))
		gt_dec_note(x, o, "spec.config", "the driver configuration is not copied into the claims Gantry "
			    "allocates%s", "");
	GT_GROW(s->class_progs, d->n_classes + 1, s->cap_class_progs);
	s->class_progs[d->n_classes] = p;
	gt_smap_put(&s->class_by_name, gt_obj_name(o), (void *)(uintptr_t)(d->n_classes + 1));
	GT_PUSH(d->classes, d->n_classes, d->cap_classes, cl);
	return 0;
}

/* ---------------------------------------------------------------- ResourceSlice */

static int64_t attr_int(const char *s, bool *ok)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	*ok = *s && !*end;
	return v;
}

/* A device's attributes and capacity for the selectors, names qualified with the driver. */
static int device_extra(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *dev, const char *field,
			const char *driver, struct dev_extra *e)
{
	struct gt_arena *a = &x->dra->arena;
	const struct gt_doc *attrs = gt_doc_get(dev, "attributes"), *caps = gt_doc_get(dev, "capacity");
	size_t na = attrs && attrs->kind == GT_DOC_MAP ? attrs->n : 0, nc = caps && caps->kind == GT_DOC_MAP ? caps->n : 0;
	gt_cel_attribute *av = gt_arena_calloc(a, na + 1, sizeof(*av));
	gt_cel_capacity *cv = gt_arena_calloc(a, nc + 1, sizeof(*cv));
	char f[512], q[512];
	for (size_t i = 0; i < na; i++) {
		const struct gt_doc *v = attrs->items[i];
		const char *k = attrs->keys[i];
		snprintf(q, sizeof(q), "%s%s%s", strchr(k, '/') ? "" : driver, strchr(k, '/') ? "" : "/", k);
		gt_cel_attribute *at = &av[i];
		at->name = keep(x, q);
		const char *sv;
		bool ok = true;
		if ((sv = gt_doc_str(v, "bool"))) {
			at->kind = GT_CEL_BOOL;
			at->b = !strcmp(sv, "true");
			ok = at->b || !strcmp(sv, "false");
		} else if ((sv = gt_doc_str(v, "int"))) {
			at->kind = GT_CEL_INT;
			at->i = attr_int(sv, &ok);
		} else if ((sv = gt_doc_str(v, "string"))) {
			at->kind = GT_CEL_STRING;
			at->s = keep(x, sv);
		} else if ((sv = gt_doc_str(v, "version"))) {
			at->kind = GT_CEL_VERSION;
			at->s = keep(x, sv);
		} else {
			ok = false;
		}
		if (!ok) {
			snprintf(f, sizeof(f), "%s.attributes.%s", field, k);
			return gt_dec_fail(x, o, f, "must hold one of bool, int, string or version", NULL);
		}
	}
	for (size_t i = 0; i < nc; i++) {
		const char *k = caps->keys[i];
		const char *val = gt_doc_str(caps->items[i], "value");
		snprintf(f, sizeof(f), "%s.capacity.%s.value", field, k);
		if (!val || gt_quantity_parse_milli(val, &cv[i].milli))
			return gt_dec_fail(x, o, f, "must be a quantity", val);
		snprintf(q, sizeof(q), "%s%s%s", strchr(k, '/') ? "" : driver, strchr(k, '/') ? "" : "/", k);
		cv[i].name = keep(x, q);
	}
	e->cel = (gt_cel_device){ .driver = keep(x, driver), .attributes = av, .n_attributes = na,
				  .capacity = cv, .n_capacity = nc,
				  .allow_multiple_allocations = gt_dec_bool(gt_doc_str(dev, "allowMultipleAllocations"), false) };
	return 0;
}

/* Does node @n satisfy the matchFields of a node selector term (metadata.name In / NotIn)? */
static int fields_match(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *fields, const char *field,
			const struct gt_node *n, bool *ok)
{
	*ok = true;
	for (size_t i = 0; fields && fields->kind == GT_DOC_SEQ && i < fields->n; i++) {
		const char *key = gt_doc_str(fields->items[i], "key"), *op = gt_doc_str(fields->items[i], "operator");
		const struct gt_doc *vals = gt_doc_get(fields->items[i], "values");
		if (!key || strcmp(key, "metadata.name") || !op || (strcmp(op, "In") && strcmp(op, "NotIn"))) {
			char f[300];
			snprintf(f, sizeof(f), "%.250s.matchFields[%zu]", field, i);
			return gt_dec_fail(x, o, f, "must be metadata.name with In or NotIn", NULL);
		}
		bool in = false;
		for (size_t v = 0; vals && vals->kind == GT_DOC_SEQ && v < vals->n; v++)
			in |= vals->items[v]->kind == GT_DOC_SCALAR &&
			      !strcmp(vals->items[v]->scalar, gt_strtab_str(x->names, n->name));
		*ok &= !strcmp(op, "In") ? in : !in;
	}
	return 0;
}

/*
 * The nodes that can use the devices of @at (a slice's spec, or a device with
 * perDeviceNodeSelection): allNodes, or a nodeSelector of one term (as the API allows),
 * matched on the nodes' labels and names. *out: a new reach, or GT_NONE when @at says neither.
 */
static int slice_reach(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *at, const char *field,
		       int32_t *out)
{
	struct gt_dra *d = &x->c->dra;
	*out = GT_NONE;
	struct gt_dra_reach r = { .all = gt_dec_bool(gt_doc_str(at, "allNodes"), false) };
	const struct gt_doc *sel = gt_doc_get(at, "nodeSelector");
	if (!r.all && (!sel || gt_doc_is_null(sel))) {
		gt_dec_note(x, o, field, "neither nodeName, allNodes nor a nodeSelector: its devices are left out%s", "");
		return 0;
	}
	if (!r.all) {
		const struct gt_doc *terms = gt_doc_get(sel, "nodeSelectorTerms");
		char f[300];
		snprintf(f, sizeof(f), "%s.nodeSelector.nodeSelectorTerms", field);
		if (!terms || terms->kind != GT_DOC_SEQ || terms->n != 1)
			return gt_dec_fail(x, o, f, "must hold exactly one term (as resource.k8s.io allows)", NULL);
		const struct gt_doc *term = terms->items[0];
		snprintf(f, sizeof(f), "%s.nodeSelector.nodeSelectorTerms[0]", field);
		struct gt_selector ls = { 0 };
		int rc = gt_dec_selector(x, o, gt_doc_get(term, "matchExpressions"), NULL, f, &ls);
		r.nodes = gt_xcalloc(x->c->n_nodes + 1, 1);
		for (uint32_t n = 0; !rc && n < x->c->n_nodes; n++) {
			bool ok;
			rc = fields_match(x, o, gt_doc_get(term, "matchFields"), f, &x->c->nodes[n], &ok);
			r.nodes[n] = !rc && ok && gt_selector_matches(&ls, &x->c->nodes[n].labels, x->names);
		}
		gt_selector_release(&ls);
		if (rc) {
			free(r.nodes);
			return rc;
		}
		json_t *j = gt_doc_to_json(term);
		char *text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
		r.has_selector = true;
		r.selector = gt_dec_intern(x, text ? text : "{}");
		free(text);
		json_decref(j);
	}
	*out = (int32_t)d->n_reaches;
	GT_PUSH(d->reaches, d->n_reaches, d->cap_reaches, r);
	return 0;
}

int gt_dec_resource_slice(struct gt_dec *x, const struct gt_doc *o)
{
	int rc = check_version(x, o);
	if (rc)
		return rc;
	struct gt_dec_dra *s = scratch(x);
	struct gt_dra *d = &x->c->dra;
	const struct gt_doc *spec = gt_doc_get(o, "spec");
	const char *driver = gt_doc_str(spec, "driver");
	if (!driver || !*driver)
		return gt_dec_fail(x, o, "spec.driver", "is missing", NULL);
	const char *pool = gt_doc_str(gt_doc_get(spec, "pool"), "name");
	if (!pool || !*pool)
		return gt_dec_fail(x, o, "spec.pool.name", "is missing", NULL);
	int64_t generation = 0;
	const char *gen = gt_doc_str(gt_doc_get(spec, "pool"), "generation");
	if (gen && gt_quantity_parse(gen, &generation))
		return gt_dec_fail(x, o, "spec.pool.generation", "must be an integer", gen);
	const char *node_name = gt_doc_str(spec, "nodeName");
	int32_t node = node_name ? gt_dec_lookup(x, x->node_by_name, node_name) : GT_NONE;
	const struct gt_doc *devs = gt_doc_get(spec, "devices");
	if (devs && devs->kind != GT_DOC_SEQ && !gt_doc_is_null(devs))
		return gt_dec_fail(x, o, "spec.devices", "must be a list", NULL);
	size_t n = devs && devs->kind == GT_DOC_SEQ ? devs->n : 0;
	struct dev_extra *extra = gt_xcalloc(n + 1, sizeof(*extra));
	for (size_t i = 0; i < n; i++) {
		char f[64];
		snprintf(f, sizeof(f), "spec.devices[%zu]", i);
		const char *dn = gt_doc_str(devs->items[i], "name");
		if (!dn || !*dn) {
			free(extra);
			snprintf(f, sizeof(f), "spec.devices[%zu].name", i);
			return gt_dec_fail(x, o, f, "is missing", NULL);
		}
		if ((rc = device_extra(x, o, devs->items[i], f, driver, &extra[i]))) {
			free(extra);
			return rc;
		}
		extra[i].generation = generation;
		if (gt_doc_get(devs->items[i], "taints") || gt_doc_get(devs->items[i], "consumesCounters") ||
		    gt_doc_get(devs->items[i], "bindingConditions"))
			gt_dec_note(x, o, f, "device taints, counters and binding conditions are not acted on by "
				    "Gantry%s", "");
	}
	/* where the devices can be used from: a node, or a reach (network-attached) */
	int32_t reach = GT_NONE;
	bool per_device = gt_dec_bool(gt_doc_str(spec, "perDeviceNodeSelection"), false);
	if (node_name && node == GT_NONE && n) {
		gt_dec_note(x, o, "spec.nodeName", "node %s is not in the cluster; its devices are left out", node_name);
		n = 0;
	} else if (!node_name && !per_device) {
		rc = slice_reach(x, o, spec, "spec", &reach);
		if (rc) {
			free(extra);
			return rc;
		}
		if (reach == GT_NONE)
			n = 0;
	}
	int32_t *dev_node = gt_xmalloc((n + 1) * sizeof(*dev_node)), *dev_reach = gt_xmalloc((n + 1) * sizeof(*dev_reach));
	for (size_t i = 0; i < n; i++) {
		dev_node[i] = node;
		dev_reach[i] = reach;
		if (!per_device || node_name)
			continue;
		char f[64];
		snprintf(f, sizeof(f), "spec.devices[%zu]", i);
		const char *dn_node = gt_doc_str(devs->items[i], "nodeName");
		if (dn_node) {
			dev_node[i] = gt_dec_lookup(x, x->node_by_name, dn_node);
			if (dev_node[i] == GT_NONE)
				gt_dec_note(x, o, f, "node %s is not in the cluster; the device is left out", dn_node);
		} else if ((rc = slice_reach(x, o, devs->items[i], f, &dev_reach[i]))) {
			free(dev_node);
			free(dev_reach);
			free(extra);
			return rc;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const char *dn = gt_doc_str(devs->items[i], "name");
		char key[900];
		snprintf(key, sizeof(key), "%s/%s/%s", driver, pool, dn);
		uint32_t idx = d->n_devices;
		struct gt_dra_device dev = { .name = gt_dec_intern(x, dn), .driver = gt_dec_intern(x, driver),
					     .pool = gt_dec_intern(x, pool), .node = dev_node[i], .reach = dev_reach[i] };
		GT_PUSH(d->devices, d->n_devices, d->cap_devices, dev);
		GT_GROW(s->devs, d->n_devices, s->cap_devs);
		s->devs[idx] = extra[i];
		uintptr_t prev = (uintptr_t)gt_smap_get(&s->device_by_key, key);
		if (!prev || s->devs[prev - 1].generation <= generation)
			gt_smap_put(&s->device_by_key, key, (void *)(uintptr_t)(idx + 1));
	}
	free(dev_node);
	free(dev_reach);
	free(extra);
	return 0;
}

/* ---------------------------------------------------------------- claims */

int gt_dec_claim_template(struct gt_dec *x, const struct gt_doc *o)
{
	int rc = check_version(x, o);
	if (rc)
		return rc;
	const struct gt_doc *spec = gt_doc_path(o, "spec.spec");
	if (!spec || spec->kind != GT_DOC_MAP)
		return gt_dec_fail(x, o, "spec.spec", "is missing (the ResourceClaim spec to make)", NULL);
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", gt_obj_ns(o), gt_obj_name(o));
	gt_smap_put(&scratch(x)->templates, key, (void *)spec);
	return 0;
}

/* A request's way to be had (exactly, or a firstAvailable subrequest @ex at @field) into @out. */
static int claim_alt(struct gt_dec *x, const struct gt_doc *o, const char *field, const struct gt_doc *ex,
		     struct gt_dra_alt *out, struct progs *progs, const char **problem)
{
	char f[600];
	const char *cls = gt_doc_str(ex, "deviceClassName");
	snprintf(f, sizeof(f), "%s.deviceClassName", field);
	if (!cls || !*cls)
		return gt_dec_fail(x, o, f, "is missing", NULL);
	uintptr_t ci = (uintptr_t)gt_smap_get(&x->dra->class_by_name, cls);
	out->cls = ci ? (int32_t)(ci - 1) : GT_NONE;
	out->count = 1;
	const char *mode = gt_doc_str(ex, "allocationMode");
	snprintf(f, sizeof(f), "%s.allocationMode", field);
	if (mode && strcmp(mode, "ExactCount") && strcmp(mode, "All"))
		return gt_dec_fail(x, o, f, "must be ExactCount or All, not", mode);
	out->all = mode && !strcmp(mode, "All");
	const char *count = gt_doc_str(ex, "count");
	snprintf(f, sizeof(f), "%s.count", field);
	if (count && (gt_quantity_parse(count, &out->count) || out->count < 1 || out->count > 1000000 ||
		      strpbrk(count, ".eEkKmMgGiTP")))
		return gt_dec_fail(x, o, f, "must be a whole number of devices, at least 1, not", count);
	out->admin = gt_dec_bool(gt_doc_str(ex, "adminAccess"), false);
	snprintf(f, sizeof(f), "%s.selectors", field);
	int rc = compile_selectors(x, o, gt_doc_get(ex, "selectors"), f, progs);
	if (!rc && progs->problem && !*problem)
		*problem = progs->problem;
	if (!rc && gt_doc_get(ex, "tolerations"))
		gt_dec_note(x, o, field, "device tolerations are not acted on by Gantry%s", "");
	if (!rc && gt_doc_get(ex, "capacity"))
		gt_dec_note(x, o, field, "capacity requests (consumable capacity) are not acted on by Gantry%s", "");
	return rc;
}

/* How many ways of being had the requests of @reqs have (one each, or its subrequests). */
static size_t alt_slots(const struct gt_doc *reqs)
{
	size_t n = 0;
	for (size_t i = 0; reqs && reqs->kind == GT_DOC_SEQ && i < reqs->n; i++) {
		const struct gt_doc *fa = gt_doc_get(reqs->items[i], "firstAvailable");
		n += fa && fa->kind == GT_DOC_SEQ && fa->n ? fa->n : 1;
	}
	return n;
}

/* One request of spec.devices.requests[]; its selectors' programs from @progs on. */
static int claim_request(struct gt_dec *x, const struct gt_doc *o, const char *field, const struct gt_doc *rq,
			 struct gt_dra_request *out, struct progs *progs, const char **problem)
{
	char f[512];
	const char *name = gt_doc_str(rq, "name");
	snprintf(f, sizeof(f), "%s.name", field);
	if (!name || !*name)
		return gt_dec_fail(x, o, f, "is missing", NULL);
	*out = (struct gt_dra_request){ .name = gt_dec_intern(x, name), .cls = GT_NONE, .count = 1 };
	const struct gt_doc *fa = gt_doc_get(rq, "firstAvailable");
	if (fa && !gt_doc_is_null(fa)) {
		snprintf(f, sizeof(f), "%s.firstAvailable", field);
		if (fa->kind != GT_DOC_SEQ || !fa->n)
			return gt_dec_fail(x, o, f, "must be a list of subrequests", NULL);
		out->first_available = true;
		out->alts = gt_xcalloc(fa->n + 1, sizeof(*out->alts));
		for (size_t i = 0; i < fa->n; i++) {
			char sf[480], full[600];
			snprintf(sf, sizeof(sf), "%.400s.firstAvailable[%zu]", field, i);
			const char *sub = gt_doc_str(fa->items[i], "name");
			if (!sub || !*sub) {
				snprintf(f, sizeof(f), "%s.name", sf);
				return gt_dec_fail(x, o, f, "is missing", NULL);
			}
			struct gt_dra_alt *al = &out->alts[i];
			al->name = gt_dec_intern(x, sub);
			snprintf(full, sizeof(full), "%s/%s", name, sub);
			al->full_name = gt_dec_intern(x, full);
			out->n_alts = (uint32_t)i + 1;
			int rc = claim_alt(x, o, sf, fa->items[i], al, &progs[i], problem);
			if (rc)
				return rc;
		}
		return 0;
	}
	const struct gt_doc *ex = gt_doc_get(rq, "exactly");
	if (!ex)	/* v1beta1's flat request: deviceClassName at the request */
		ex = rq;
	out->alts = gt_xcalloc(1, sizeof(*out->alts));
	out->n_alts = 1;
	struct gt_dra_alt *al = &out->alts[0];
	al->name = al->full_name = out->name;
	snprintf(f, sizeof(f), "%s.exactly", field);
	int rc = claim_alt(x, o, f, ex, al, progs, problem);
	out->cls = al->cls;
	out->count = al->count;
	out->admin = al->admin;
	out->all = al->all;
	return rc;
}

/* spec.devices.constraints: matchAttribute ones into @k; another kind is the claim's problem. */
static int claim_constraints(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *cons, const char *at,
			     struct gt_dra_claim *k, const char **problem)
{
	if (!cons || gt_doc_is_null(cons))
		return 0;
	char f[300];
	snprintf(f, sizeof(f), "%s.devices.constraints", at);
	if (cons->kind != GT_DOC_SEQ)
		return gt_dec_fail(x, o, f, "must be a list", NULL);
	k->constraints = gt_xcalloc(cons->n + 1, sizeof(*k->constraints));
	for (size_t i = 0; i < cons->n; i++) {
		const struct gt_doc *c = cons->items[i];
		const char *attr = gt_doc_str(c, "matchAttribute");
		if (!attr) {
			if (!*problem)
				*problem = keep(x, "a constraint other than matchAttribute is not supported by Gantry");
			continue;
		}
		if (!strchr(attr, '/')) {
			snprintf(f, sizeof(f), "%s.devices.constraints[%zu].matchAttribute", at, i);
			return gt_dec_fail(x, o, f, "must be a fully qualified name (domain/name), not", attr);
		}
		struct gt_dra_constraint *kc = &k->constraints[k->n_constraints++];
		kc->attribute = gt_dec_intern(x, attr);
		const struct gt_doc *rq = gt_doc_get(c, "requests");
		size_t n = rq && rq->kind == GT_DOC_SEQ ? rq->n : 0;
		kc->requests = gt_xcalloc(n + 1, sizeof(*kc->requests));
		for (size_t j = 0; j < n; j++) {
			const char *name = rq->items[j]->kind == GT_DOC_SCALAR ? rq->items[j]->scalar : NULL;
			if (name)
				kc->requests[kc->n_requests++] = gt_dec_intern(x, name);
		}
	}
	return 0;
}

/* spec.devices of a claim (or a template's spec.spec.devices) into @k; its problem in @problem. */
static int claim_spec(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *spec, const char *at,
		      struct gt_dra_claim *k, struct progs **progs_out, const char **problem)
{
	const struct gt_doc *devices = gt_doc_get(spec, "devices");
	const struct gt_doc *reqs = gt_doc_get(devices, "requests");
	char f[200];
	snprintf(f, sizeof(f), "%s.devices.requests", at);
	if (reqs && reqs->kind != GT_DOC_SEQ)
		return gt_dec_fail(x, o, f, "must be a list", NULL);
	size_t n = reqs ? reqs->n : 0;
	k->requests = gt_xcalloc(n + 1, sizeof(*k->requests));
	struct progs *progs = gt_xcalloc(alt_slots(reqs) + 1, sizeof(*progs));
	*progs_out = progs;
	for (size_t i = 0, slot = 0; i < n; i++) {
		char rf[256];
		snprintf(rf, sizeof(rf), "%.200s[%zu]", f, i);
		int rc = claim_request(x, o, rf, reqs->items[i], &k->requests[i], &progs[slot], problem);
		k->n_requests = (uint32_t)i + 1;
		if (rc)
			return rc;
		slot += k->requests[i].n_alts;
		const char *cls = gt_doc_str(gt_doc_get(reqs->items[i], "exactly"), "deviceClassName");
		for (const char *c = cls; c && *c && !k->gpu; c++)	/* KAI: "gpu" in any case */
			k->gpu = !strncasecmp(c, "gpu", 3);
	}
	int rc = claim_constraints(x, o, gt_doc_get(devices, "constraints"), at, k, problem);
	if (rc)
		return rc;
	const struct gt_doc *config = gt_doc_get(devices, "config");
	if (config && config->kind == GT_DOC_SEQ && config->n)
		gt_dec_note(x, o, f, "spec.devices.config is not copied into the allocation by Gantry%s", "");
	return 0;
}

/* The programs' slots of claim @k (its requests' alternatives). */
static uint32_t claim_slots(const struct gt_dra_claim *k)
{
	uint32_t n = 0;
	for (uint32_t r = 0; r < k->n_requests; r++)
		n += k->requests[r].n_alts ? k->requests[r].n_alts : 1;
	return n;
}

static void progs_release(struct progs *p, uint32_t n)
{
	for (uint32_t i = 0; p && i < n; i++)
		free_progs(&p[i]);
	free(p);
}

/* Add claim @k to the cluster with its scratch. */
static int32_t add_claim(struct gt_dec *x, struct gt_dra_claim *k, struct progs *progs, const char *problem)
{
	struct gt_dec_dra *s = x->dra;
	struct gt_dra *d = &x->c->dra;
	uint32_t idx = d->n_claims;
	GT_GROW(s->request_progs, idx + 1, s->cap_claims);
	GT_GROW(s->claim_problem, idx + 1, s->cap_problems);
	s->request_progs[idx] = progs;
	s->claim_problem[idx] = problem;
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", gt_strtab_str(x->names, k->ns), gt_strtab_str(x->names, k->name));
	gt_smap_put(&s->claim_by_key, key, (void *)(uintptr_t)(idx + 1));
	GT_PUSH(d->claims, d->n_claims, d->cap_claims, *k);
	return (int32_t)idx;
}

/* status.allocation and status.reservedFor of a claim. */
static int claim_status(struct gt_dec *x, const struct gt_doc *o, struct gt_dra_claim *k, const char **problem)
{
	const struct gt_doc *st = gt_doc_get(o, "status");
	const struct gt_doc *results = gt_doc_path(st, "allocation.devices.results");
	k->node = GT_NONE;
	if (gt_doc_get(st, "allocation")) {
		k->allocated = true;
		size_t n = results && results->kind == GT_DOC_SEQ ? results->n : 0;
		k->alloc_devices = gt_xmalloc((n + 1) * sizeof(*k->alloc_devices));
		k->alloc_requests = gt_xmalloc((n + 1) * sizeof(*k->alloc_requests));
		k->alloc_alts = gt_xcalloc(n + 1, sizeof(*k->alloc_alts));
		for (size_t i = 0; i < n; i++) {
			const struct gt_doc *r = results->items[i];
			char f[128], key[900];
			snprintf(f, sizeof(f), "status.allocation.devices.results[%zu]", i);
			const char *rq = gt_doc_str(r, "request"), *drv = gt_doc_str(r, "driver"),
				   *pool = gt_doc_str(r, "pool"), *dev = gt_doc_str(r, "device");
			if (!rq || !drv || !pool || !dev)
				return gt_dec_fail(x, o, f, "needs request, driver, pool and device", NULL);
			uint32_t ri = 0;
			char base[256];
			snprintf(base, sizeof(base), "%s", rq);
			char *slash = strchr(base, '/');	/* "request/subrequest" */
			if (slash)
				*slash = 0;
			uint32_t rid = gt_dec_intern(x, base);
			while (ri < k->n_requests && k->requests[ri].name != rid)
				ri++;
			if (ri == k->n_requests)
				ri = 0;	/* KAI's fakes name results after the claim: count them on the first request */
			for (uint32_t a = 0; slash && ri < k->n_requests && a < k->requests[ri].n_alts; a++)
				if (!strcmp(gt_strtab_str(x->names, k->requests[ri].alts[a].name), slash + 1))
					k->alloc_alts[k->n_alloc] = a;
			snprintf(key, sizeof(key), "%s/%s/%s", drv, pool, dev);
			uintptr_t di = (uintptr_t)gt_smap_get(&x->dra->device_by_key, key);
			k->alloc_devices[k->n_alloc] = di ? (int32_t)(di - 1) : GT_NONE;
			k->alloc_requests[k->n_alloc++] = ri;
			if (!di && !*problem)
				*problem = keep(x, "it is allocated a device no ResourceSlice publishes");
			if (di && k->node == GT_NONE)
				k->node = x->c->dra.devices[di - 1].node;
		}
		bool any = false;
		for (uint32_t i = 0; i < k->n_alloc; i++)
			any |= k->alloc_devices[i] >= 0;
		if (!any && n && !*problem)
			*problem = keep(x, "its allocation names no device a ResourceSlice publishes");
	}
	const struct gt_doc *rf = gt_doc_get(st, "reservedFor");
	if (rf && rf->kind == GT_DOC_SEQ) {
		k->reserved_names = gt_xmalloc((rf->n + 1) * sizeof(*k->reserved_names));
		for (size_t i = 0; i < rf->n; i++) {
			const char *res = gt_doc_str(rf->items[i], "resource"), *name = gt_doc_str(rf->items[i], "name");
			if (!name) {
				char f[64];
				snprintf(f, sizeof(f), "status.reservedFor[%zu].name", i);
				return gt_dec_fail(x, o, f, "is missing", NULL);
			}
			/* another resource than pods counts toward the limit, and is no pod */
			k->reserved_names[k->n_reserved++] =
				!res || !strcmp(res, "pods") ? gt_dec_intern(x, name) : gt_dec_intern(x, "");
		}
	}
	return 0;
}

int gt_dec_resource_claim(struct gt_dec *x, const struct gt_doc *o)
{
	int rc = check_version(x, o);
	if (rc)
		return rc;
	scratch(x);
	struct gt_dra_claim k = { .ns = gt_dec_intern(x, gt_obj_ns(o)), .name = gt_dec_intern(x, gt_obj_name(o)),
				  .carrier = GT_NONE, .node = GT_NONE };
	const char *uid = gt_doc_str(gt_doc_get(o, "metadata"), "uid");
	k.uid = gt_dec_intern(x, uid ? uid : "");
	const char *q = gt_obj_label(o, "kai.scheduler/queue");
	if (q) {
		k.has_queue_label = true;
		k.queue_label = gt_dec_intern(x, q);
	}
	const char *problem = NULL;
	struct progs *progs = NULL;
	rc = claim_spec(x, o, gt_doc_get(o, "spec"), "spec", &k, &progs, &problem);
	rc = rc ? rc : claim_status(x, o, &k, &problem);
	if (rc) {
		progs_release(progs, claim_slots(&k));
		gt_dra_claim_release(&k);
		return rc;
	}
	/* made by the resourceclaim controller for one pod (its owner) */
	const struct gt_doc *owners = gt_doc_path(o, "metadata.annotations");
	k.from_template = gt_doc_str(owners, "resource.kubernetes.io/pod-claim-name") != NULL;
	if (problem)
		gt_dec_note(x, o, NULL, "%s; the pods using it are not scheduled", problem);
	add_claim(x, &k, progs, problem);
	return 0;
}

/* ---------------------------------------------------------------- pods */

/* The name Kubernetes' resourceclaim controller gives a claim from a template: generateName
 * "<pod>-<claim>-" (each cut as it does) and five characters; here from a hash, not at random. */
static void template_claim_name(const char *pod, const char *claim, const char *ns, char *out, size_t cap)
{
	static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
	char key[600];
	snprintf(key, sizeof(key), "%s/%s/%s", ns, pod, claim);
	uint64_t h = gt_hash_str(key);
	char suffix[6];
	for (int i = 0; i < 5; i++, h /= 27)
		suffix[i] = alphabet[h % 27];
	suffix[5] = 0;
	int pl = (int)strlen(pod) > 28 ? 28 : (int)strlen(pod);
	int cl = (int)strlen(claim) > 28 ? 28 : (int)strlen(claim);
	snprintf(out, cap, "%.*s-%.*s-%s", pl, pod, cl, claim, suffix);
}

/* A claim made from template @tmpl for the pod, as the controller would (simulate). */
static int32_t make_template_claim(struct gt_dec *x, const struct gt_doc *o, const char *tmpl_name,
				   const char *claim_field, const char *pod_claim, const char **problem)
{
	char key[600], name[300];
	snprintf(key, sizeof(key), "%s/%s", gt_obj_ns(o), tmpl_name);
	const struct gt_doc *spec = gt_smap_get(&x->dra->templates, key);
	if (!spec) {
		char msg[600];
		snprintf(msg, sizeof(msg), "ResourceClaimTemplate %s/%s does not exist", gt_obj_ns(o), tmpl_name);
		*problem = keep(x, msg);
		return GT_NONE;
	}
	template_claim_name(gt_obj_name(o), pod_claim, gt_obj_ns(o), name, sizeof(name));
	snprintf(key, sizeof(key), "%s/%s", gt_obj_ns(o), name);
	uintptr_t have = (uintptr_t)gt_smap_get(&x->dra->claim_by_key, key);
	if (have)
		return (int32_t)(have - 1);
	struct gt_dra_claim k = { .ns = gt_dec_intern(x, gt_obj_ns(o)), .name = gt_dec_intern(x, name),
				  .uid = gt_dec_intern(x, ""), .carrier = GT_NONE, .node = GT_NONE,
				  .from_template = true };
	const char *claim_problem = NULL;
	struct progs *progs = NULL;
	int rc = claim_spec(x, o, spec, claim_field, &k, &progs, &claim_problem);
	if (rc) {
		progs_release(progs, claim_slots(&k));
		gt_dra_claim_release(&k);
		return -2;
	}
	return add_claim(x, &k, progs, claim_problem);
}

int gt_dec_pod_dra(struct gt_dec *x, const struct gt_doc *o, uint32_t pod)
{
	const struct gt_doc *rcs = gt_doc_path(o, "spec.resourceClaims");
	if (!rcs || gt_doc_is_null(rcs))
		return 0;
	if (rcs->kind != GT_DOC_SEQ)
		return gt_dec_fail(x, o, "spec.resourceClaims", "must be a list", NULL);
	if (!rcs->n)
		return 0;
	struct gt_dec_dra *s = scratch(x);
	struct gt_dra_use u = { .claims = gt_xmalloc(rcs->n * sizeof(*u.claims)) };
	const struct gt_doc *statuses = gt_doc_path(o, "status.resourceClaimStatuses");
	for (size_t i = 0; i < rcs->n; i++) {
		char f[128];
		const struct gt_doc *rc = rcs->items[i];
		const char *name = gt_doc_str(rc, "name"), *claim = gt_doc_str(rc, "resourceClaimName"),
			   *tmpl = gt_doc_str(rc, "resourceClaimTemplateName");
		snprintf(f, sizeof(f), "spec.resourceClaims[%zu]", i);
		if (!name || !*name || (!claim == !tmpl)) {
			free(u.claims);
			return gt_dec_fail(x, o, f, name && *name ? "needs exactly one of resourceClaimName and "
				"resourceClaimTemplateName" : "needs a name", NULL);
		}
		if (tmpl) {	/* the controller names the claim in the pod's status */
			for (size_t j = 0; statuses && statuses->kind == GT_DOC_SEQ && j < statuses->n; j++) {
				const char *sn = gt_doc_str(statuses->items[j], "name");
				if (sn && !strcmp(sn, name))
					claim = gt_doc_str(statuses->items[j], "resourceClaimName");
			}
		}
		int32_t idx = GT_NONE;
		if (claim) {
			char key[600];
			snprintf(key, sizeof(key), "%s/%s", gt_obj_ns(o), claim);
			uintptr_t k = (uintptr_t)gt_smap_get(&s->claim_by_key, key);
			idx = k ? (int32_t)(k - 1) : GT_NONE;
			if (!k && !u.problem) {
				char msg[700];
				snprintf(msg, sizeof(msg), "resource claim %s/%s does not exist", gt_obj_ns(o), claim);
				u.problem = keep(x, msg);
			}
		} else if (x->d->dra_make_claims) {
			char cf[160];
			snprintf(cf, sizeof(cf), "ResourceClaimTemplate %s spec.spec", tmpl);
			idx = make_template_claim(x, o, tmpl, cf, name, &u.problem);
			if (idx == -2) {
				free(u.claims);
				return GT_EINVAL;
			}
		} else if (!u.problem) {
			char msg[700];
			snprintf(msg, sizeof(msg), "the claim of %s from ResourceClaimTemplate %s is not made yet "
				 "(no status.resourceClaimStatuses entry)", name, tmpl);
			u.problem = keep(x, msg);
		}
		if (idx != GT_NONE)
			u.claims[u.n_claims++] = idx;
	}
	GT_GROW(s->uses, pod + 1, s->cap_uses);
	for (uint32_t i = s->n_uses; i < pod; i++)
		s->uses[i] = (struct gt_dra_use){ 0 };
	s->uses[pod] = u;
	s->n_uses = pod + 1;
	return 0;
}

/* ---------------------------------------------------------------- tying it together */

static bool eval_all(const struct progs *p, const gt_cel_device *dev)
{
	for (uint32_t i = 0; i < p->n; i++) {
		char err[128];
		if (gt_cel_eval(p->v[i], dev, err, sizeof(err)) != GT_CEL_TRUE)
			return false;	/* an error is no match, as in Kubernetes */
	}
	return true;
}

/* Newest generation per pool: older slices' devices are left out (moved to no node). */
static void drop_stale(struct gt_dec *x)
{
	struct gt_dra *d = &x->c->dra;
	struct gt_dec_dra *s = x->dra;
	struct gt_smap newest;
	gt_smap_init(&newest);
	char key[700];
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < d->n_devices; i++) {
			snprintf(key, sizeof(key), "%s/%s", gt_strtab_str(x->names, d->devices[i].driver),
				 gt_strtab_str(x->names, d->devices[i].pool));
			intptr_t g = (intptr_t)gt_smap_get(&newest, key) - 1;
			if (pass == 0 && s->devs[i].generation > g)
				gt_smap_put(&newest, key, (void *)(intptr_t)(s->devs[i].generation + 1));
			if (pass == 1 && s->devs[i].generation < g)
				d->devices[i].node = d->devices[i].reach = GT_NONE;
		}
	gt_smap_release(&newest);
}

static void class_devices(struct gt_dec *x)
{
	struct gt_dra *d = &x->c->dra;
	struct gt_dec_dra *s = x->dra;
	for (uint32_t c = 0; c < d->n_classes; c++) {
		struct gt_dra_class *cl = &d->classes[c];
		if (cl->problem)
			continue;
		cl->devices = gt_xmalloc((d->n_devices + 1) * sizeof(*cl->devices));
		for (uint32_t i = 0; i < d->n_devices; i++)
			if ((d->devices[i].node != GT_NONE || d->devices[i].reach != GT_NONE) &&
			    eval_all(&s->class_progs[c], &s->devs[i].cel))
				cl->devices[cl->n_devices++] = (int32_t)i;
	}
}

/*
 * The candidates of a request's way to be had: its class's devices its own selectors keep.
 * For an exactly request, keeping all of some nodes' devices and none of the others' limits
 * it to those nodes (counts stay exact); keeping some of a node's devices makes its claim
 * searched (core/dra.h).
 */
static void alt_candidates(struct gt_dec *x, struct gt_dra_claim *k, struct gt_dra_request *rq,
			   struct gt_dra_alt *al, const struct progs *p)
{
	const struct gt_dra_class *cl = &x->c->dra.classes[al->cls];
	uint32_t n_nodes = x->c->n_nodes;
	al->devices = gt_xmalloc((cl->n_devices + 1) * sizeof(*al->devices));
	int8_t *keeps = gt_xmalloc(n_nodes + 1);	/* per node: -1 no device yet, 0 none kept, 1 all kept */
	memset(keeps, -1, n_nodes + 1);
	bool split = false, all = true, network = false;
	for (uint32_t i = 0; i < cl->n_devices; i++) {
		int32_t n = x->c->dra.devices[cl->devices[i]].node;
		int8_t kept = !p->n || eval_all(p, &x->dra->devs[cl->devices[i]].cel);
		if (kept)
			al->devices[al->n_devices++] = cl->devices[i];
		if (n == GT_NONE) {	/* network-attached: counted on every node that reaches it */
			network |= kept;
			continue;
		}
		split |= keeps[n] >= 0 && keeps[n] != kept;
		keeps[n] = kept;
		all &= kept;
	}
	k->network |= network;
	if (split || network || rq->first_available || al->all || al->admin)	/* (admin: asks the counts for nothing) */
		k->searched = true;
	else if (!all && !rq->node_limited) {
		rq->node_limited = true;
		rq->nodes = gt_xmalloc((n_nodes + 1) * sizeof(*rq->nodes));
		for (uint32_t n = 0; n < n_nodes; n++)
			if (keeps[n] == 1)
				rq->nodes[rq->n_nodes++] = (int32_t)n;
	}
	free(keeps);
}

static int32_t class_column(struct gt_dec *x, int32_t cls)
{
	struct gt_cluster *c = x->c;
	struct gt_dra_class *cl = &c->dra.classes[cls];
	if (cl->ext != GT_NONE)
		return cl->ext;
	char name[400];
	snprintf(name, sizeof(name), "dra:%s", gt_strtab_str(x->names, cl->name));
	int e = gt_dec_ext_index(x, name);
	if (e < 0)
		return GT_NONE;
	cl->ext = e;
	const char *n = gt_strtab_str(x->names, cl->name);
	bool gpu = false;
	for (const char *p = n; *p && !gpu; p++)
		gpu = !strncasecmp(p, "gpu", 3);
	c->ext_gpu_milli[e] = gpu ? 1000 : 0;	/* KAI counts a DRA GPU as one GPU */
	c->ext_dra[e] = true;
	for (uint32_t i = 0; i < cl->n_devices; i++) {
		const struct gt_dra_device *dv = &c->dra.devices[cl->devices[i]];
		if (dv->node != GT_NONE) {
			c->nodes[dv->node].ext[e]++;
			continue;
		}
		/* network-attached: on every node that reaches it (the device search decides) */
		const struct gt_dra_reach *r = &c->dra.reaches[dv->reach];
		for (uint32_t m = 0; m < c->n_nodes; m++)
			c->nodes[m].ext[e] += r->all || r->nodes[m];
	}
	return e;
}

static const char *claim_blocker(struct gt_dec *x, uint32_t ki)
{
	struct gt_dra *d = &x->c->dra;
	struct gt_dra_claim *k = &d->claims[ki];
	if (x->dra->claim_problem[ki])
		return x->dra->claim_problem[ki];
	k->searched |= k->n_constraints > 0;
	for (uint32_t r = 0, slot = 0; r < k->n_requests; r++) {
		struct gt_dra_request *rq = &k->requests[r];
		for (uint32_t a = 0; a < rq->n_alts; a++, slot++) {
			struct gt_dra_alt *al = &rq->alts[a];
			char msg[600];
			if (al->cls == GT_NONE) {
				if (k->allocated)
					continue;
				snprintf(msg, sizeof(msg), "its request %s asks for a DeviceClass that does not exist",
					 gt_strtab_str(x->names, al->full_name));
				return keep(x, msg);
			}
			const struct gt_dra_class *cl = &d->classes[al->cls];
			if (cl->problem)
				return cl->problem;
			alt_candidates(x, k, rq, al, &x->dra->request_progs[ki][slot]);
			if (!al->admin && class_column(x, al->cls) == GT_NONE)
				return keep(x, "too many extended resources and device classes (at most " GT_STR(GT_MAX_EXT) ")");
		}
	}
	return NULL;
}

/* Every device's attributes as (qualified name, typed value) pairs, for matchAttribute. */
static void device_attributes(struct gt_dec *x)
{
	struct gt_dra *d = &x->c->dra;
	for (uint32_t i = 0; i < d->n_devices; i++) {
		const gt_cel_device *cd = &x->dra->devs[i].cel;
		struct gt_dra_device *dv = &d->devices[i];
		dv->attrs = gt_xmalloc((2 * cd->n_attributes + 1) * sizeof(*dv->attrs));
		for (size_t a = 0; a < cd->n_attributes; a++) {
			const gt_cel_attribute *at = &cd->attributes[a];
			char v[600];
			switch (at->kind) {	/* a value equals another of its own type only */
			case GT_CEL_BOOL:
				snprintf(v, sizeof(v), "bool:%s", at->b ? "true" : "false");
				break;
			case GT_CEL_INT:
				snprintf(v, sizeof(v), "int:%lld", (long long)at->i);
				break;
			case GT_CEL_VERSION:
				snprintf(v, sizeof(v), "version:%s", at->s);
				break;
			default:
				snprintf(v, sizeof(v), "string:%s", at->s);
				break;
			}
			dv->attrs[2 * dv->n_attrs] = gt_dec_intern(x, at->name);
			dv->attrs[2 * dv->n_attrs++ + 1] = gt_dec_intern(x, v) + 1;	/* 0: no such attribute */
		}
	}
}

/* The carrier of every claim, and what it asks for or the node gives up. */
static void carriers(struct gt_dec *x)
{
	struct gt_cluster *c = x->c;
	struct gt_dra *d = &c->dra;
	for (uint32_t ki = 0; ki < d->n_claims; ki++) {
		struct gt_dra_claim *k = &d->claims[ki];
		if (x->dra->claim_problem[ki])
			continue;
		/* an unallocated claim goes with the consumer placed first: the first in task order */
		for (uint32_t j = 0; j < k->n_consumers; j++) {
			const struct gt_pod *p = &c->pods[k->consumers[j]];
			bool holds = p->node != GT_NONE && gt_status_active_used(p->status);
			bool there = k->node != GT_NONE ? p->node == k->node : gt_dra_claim_usable_from(d, k, p->node);
			if (!(k->allocated ? holds && there : gt_status_alive(p->status)))
				continue;
			if (k->carrier == GT_NONE || gt_task_static_cmp(c, k->consumers[j], k->carrier) < 0)
				k->carrier = k->consumers[j];
			if (k->allocated)
				break;	/* one that holds it is as good as another */
		}
		/* what it holds: its allocated devices, or per request what it surely takes */
		int64_t take[GT_MAX_EXT] = { 0 };
		if (k->allocated) {
			for (uint32_t a = 0; a < k->n_alloc; a++) {
				const struct gt_dra_request *rq = &k->requests[k->alloc_requests[a]];
				const struct gt_dra_alt *al = &rq->alts[k->alloc_alts[a] < rq->n_alts ? k->alloc_alts[a] : 0];
				if (k->alloc_devices[a] >= 0 && !al->admin && al->cls != GT_NONE && d->classes[al->cls].ext != GT_NONE)
					take[d->classes[al->cls].ext]++;
			}
		} else {
			for (uint32_t r = 0; r < k->n_requests; r++) {
				const struct gt_dra_request *rq = &k->requests[r];
				/* KAI's bookkeeping: nothing for firstAvailable, one device for All */
				if (rq->first_available || rq->admin || rq->cls == GT_NONE || d->classes[rq->cls].ext == GT_NONE)
					continue;
				take[d->classes[rq->cls].ext] += rq->all ? 1 : rq->count;
			}
		}
		for (uint32_t e = 0; e < GT_MAX_EXT; e++) {
			if (!take[e])
				continue;
			if (k->carrier != GT_NONE)
				c->pods[k->carrier].ext[e] += take[e];
			else if (k->allocated && k->node != GT_NONE)
				c->nodes[k->node].ext[e] -= take[e];	/* taken while allocated, held by no pod here */
		}
	}
}

/* KAI's check of a shared GPU claim's queue label (not for claims made from templates). */
static const char *queue_blocker(struct gt_dec *x, const struct gt_dra_claim *k, const struct gt_pod *p)
{
	if (k->from_template || !k->gpu || p->job == GT_NONE)
		return NULL;
	const struct gt_job *j = &x->c->jobs[p->job];
	char msg[700];
	const char *kn = gt_strtab_str(x->names, k->name);
	if (!k->has_queue_label)
		snprintf(msg, sizeof(msg), "DRA claim %s is a shared GPU claim but does not have a queue label "
			 "(kai.scheduler/queue)", kn);
	else if (k->queue_label != j->queue_name)
		snprintf(msg, sizeof(msg), "DRA claim %s is a shared GPU claim with wrong queue label (expected "
			 "queue: %s, claim queue label: %s)", kn, gt_strtab_str(x->names, j->queue_name),
			 gt_strtab_str(x->names, k->queue_label));
	else
		return NULL;
	return keep(x, msg);
}

void gt_dec_dra_finish(struct gt_dec *x)
{
	struct gt_dec_dra *s = x->dra;
	struct gt_cluster *c = x->c;
	struct gt_dra *d = &c->dra;
	if (!s)
		return;
	drop_stale(x);
	class_devices(x);
	bool any = false;
	for (uint32_t i = 0; i < s->n_uses && i < c->n_pods; i++)
		any |= s->uses[i].n_claims || s->uses[i].problem;
	if (any) {
		d->uses = gt_xcalloc(c->n_pods + 1, sizeof(*d->uses));
		d->n_uses = c->n_pods;
		for (uint32_t i = 0; i < s->n_uses && i < c->n_pods; i++) {
			d->uses[i] = s->uses[i];
			s->uses[i].claims = NULL;
		}
	}
	bool constraints = false;
	for (uint32_t ki = 0; ki < d->n_claims; ki++) {
		const char *b = claim_blocker(x, ki);
		if (b && !s->claim_problem[ki])
			s->claim_problem[ki] = b;
		d->search |= d->claims[ki].searched && !s->claim_problem[ki];
		constraints |= d->claims[ki].n_constraints > 0;
	}
	if (constraints)
		device_attributes(x);
	for (uint32_t i = 0; i < d->n_uses; i++) {
		struct gt_dra_use *u = &d->uses[i];
		struct gt_pod *p = &c->pods[i];
		if (!u->n_claims && !u->problem)
			continue;
		p->dra = true;
		if (u->problem && p->ours && !gt_status_active_used(p->status))
			gt_dec_warn(x, "pod %s cannot be scheduled: %s", gt_strtab_str(x->names, p->name), u->problem);
		for (uint32_t j = 0; j < u->n_claims; j++) {
			struct gt_dra_claim *k = &d->claims[u->claims[j]];
			GT_PUSH(k->consumers, k->n_consumers, k->cap_consumers, (int32_t)i);
			const char *why = s->claim_problem[u->claims[j]];
			char msg[900];
			if (why) {
				snprintf(msg, sizeof(msg), "resource claim %s: %s", gt_strtab_str(x->names, k->name), why);
				why = keep(x, msg);
			} else {
				why = queue_blocker(x, k, p);
			}
			if (why && !u->problem) {
				u->problem = why;
				if (p->ours && !gt_status_active_used(p->status))
					gt_dec_warn(x, "pod %s cannot be scheduled: %s", gt_strtab_str(x->names, p->name), why);
			}
		}
	}
	carriers(x);
	/* KEP-5004: a class's extendedResourceName is had from its devices on nodes that lack it */
	for (uint32_t ci = 0; ci < d->n_classes; ci++) {
		const struct gt_dra_class *cl = &d->classes[ci];
		if (!cl->has_ext_resource)
			continue;
		if (!strcmp(gt_strtab_str(x->names, cl->ext_resource), "nvidia.com/gpu")) {
			/* the GPU resource itself: whole GPUs, on nodes without device-plugin GPUs */
			int32_t *gpus = gt_xcalloc(c->n_nodes + 1, sizeof(*gpus));
			for (uint32_t i = 0; i < cl->n_devices; i++)
				if (d->devices[cl->devices[i]].node != GT_NONE)
					gpus[d->devices[cl->devices[i]].node]++;
			for (uint32_t n = 0; n < c->n_nodes; n++)
				if (!c->nodes[n].gpus)
					c->nodes[n].gpus = gpus[n];
			free(gpus);
			continue;
		}
		int e = GT_NONE;
		for (uint32_t i = 0; i < c->n_ext; i++)
			if (c->ext_names[i] == cl->ext_resource)
				e = (int)i;
		if (e == GT_NONE)
			continue;	/* no pod asks for it */
		int64_t *have = gt_xcalloc(c->n_nodes + 1, sizeof(*have));
		for (uint32_t i = 0; i < cl->n_devices; i++)
			if (d->devices[cl->devices[i]].node != GT_NONE)	/* (network-attached ones not) */
				have[d->devices[cl->devices[i]].node]++;
		for (uint32_t n = 0; n < c->n_nodes; n++)
			if (!c->nodes[n].ext[e])	/* a device plugin's resource wins where there is one */
				c->nodes[n].ext[e] = have[n];
		free(have);
	}
}

void gt_dec_dra_release(struct gt_dec *x)
{
	struct gt_dec_dra *s = x->dra;
	if (!s)
		return;
	struct gt_dra *d = &x->c->dra;
	for (uint32_t i = 0; i < d->n_classes && s->class_progs; i++)
		free_progs(&s->class_progs[i]);
	free(s->class_progs);
	for (uint32_t i = 0; i < d->n_claims && s->request_progs; i++)
		progs_release(s->request_progs[i], claim_slots(&d->claims[i]));
	free(s->request_progs);
	free(s->claim_problem);
	for (uint32_t i = 0; i < s->n_uses; i++)
		free(s->uses[i].claims);
	free(s->uses);
	free(s->devs);
	gt_smap_release(&s->device_by_key);
	gt_smap_release(&s->class_by_name);
	gt_smap_release(&s->claim_by_key);
	gt_smap_release(&s->templates);
	gt_arena_release(&s->arena);
	free(s);
	x->dra = NULL;
}
