/*
 * decode_pod.c - pods: requests, GPU sharing, placement constraints, state,
 * and the job each belongs to
 */
#include "api/decode_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/gpushare.h"
#include "api/quantity.h"
#include "util/concat.h"
#include "util/mem.h"
#include "util/strtab.h"
#include "util/time.h"

/* A quantity of resource @name: milli-units for cpu, units otherwise. */
static int quantity(const char *name, const char *val, int64_t *v)
{
	int rc = !strcmp(name, "cpu") ? gt_quantity_parse_milli(val, v) : gt_quantity_parse(val, v);
	return rc || *v < 0 ? GT_EINVAL : 0;
}

/*
 * Where in the pod a container's resources are: "spec.<list>[<i>].resources".
 * The field's name is written only for a message, not for every resource of
 * every container (a large cluster has hundreds of thousands).
 */
struct res_at {
	const char *list;
	size_t i;
};

static int res_fail(struct gt_dec *x, const struct gt_doc *o, const struct res_at *at, const char *part,
		    const char *name, const char *why, const char *val)
{
	char f[400];
	snprintf(f, sizeof(f), "spec.%s[%zu].resources.%s.%s", at->list, at->i, part, name);
	return gt_dec_fail(x, o, f, why, val);
}

/* @res, the container's requests or limits (@part), into @p. */
static int add_request(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p,
		       const struct gt_doc *res, const struct res_at *at, const char *part, bool max_not_sum)
{
	for (size_t i = 0; res && res->kind == GT_DOC_MAP && i < res->n; i++) {
		const char *name = res->keys[i];
		const char *val = res->items[i]->kind == GT_DOC_SCALAR ? res->items[i]->scalar : "";
		int64_t v;
		if (quantity(name, val, &v))
			return res_fail(x, o, at, part, name, "not a valid quantity", val);
		int64_t *dst = NULL;
		if (!strcmp(name, "cpu"))
			dst = &p->cpu_milli;
		else if (!strcmp(name, "memory"))
			dst = &p->mem_bytes;
		else if (!strcmp(name, "nvidia.com/gpu")) {
			int64_t whole;
			if (gt_quantity_parse_milli(val, &whole) || whole % 1000)
				return res_fail(x, o, at, part, name, "must be a whole number of GPUs (use the gpu-fraction annotation for a part of one)", val);
			if (v > INT32_MAX)
				return res_fail(x, o, at, part, name, "is more GPUs than a pod can ask for", val);
			int64_t cur = p->gpus;
			int64_t sum = max_not_sum ? (v > cur ? v : cur) : cur + v;
			p->gpus = (int32_t)(sum > INT32_MAX ? INT32_MAX : sum);
			continue;
		} else if (gt_dec_is_extended(name)) {
			int e = gt_dec_ext_index(x, name);
			if (e >= 0)
				dst = &p->ext[e];
		}
		if (!dst)
			continue;
		*dst = max_not_sum ? (v > *dst ? v : *dst) : *dst + v;
		if (*dst < 0)
			return res_fail(x, o, at, part, name, "adds up to more than Gantry can count", val);
	}
	return 0;
}

/*
 * A container's limits, as the API server checks them: each a quantity,
 * and no request above its limit.
 */
static int check_limits(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *req,
			const struct gt_doc *lim, const struct res_at *at)
{
	for (size_t i = 0; lim && lim->kind == GT_DOC_MAP && i < lim->n; i++) {
		const char *name = lim->keys[i];
		const char *val = lim->items[i]->kind == GT_DOC_SCALAR ? lim->items[i]->scalar : "";
		int64_t l, r;
		if (quantity(name, val, &l))
			return res_fail(x, o, at, "limits", name, "not a valid quantity", val);
		const char *rs = gt_doc_str(req, name);
		if (rs && !quantity(name, rs, &r) && r > l) {
			char why[200];
			snprintf(why, sizeof(why), "is more than its limit (%s), which the API server refuses:", val);
			return res_fail(x, o, at, "requests", name, why, rs);
		}
	}
	return 0;
}

/*
 * One container's resources into @p (@init: an init container, which runs
 * alone, so the pod needs the largest). Requests default to the limits,
 * as Kubernetes fills them in; the message names the one that is wrong.
 */
static int container(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p, const struct gt_doc *list_doc,
		     const char *list, size_t i, bool init)
{
	const struct gt_doc *c = list_doc->items[i];
	const struct gt_doc *res = gt_doc_get(c, "resources");
	const struct gt_doc *req = gt_doc_get(res, "requests"), *lim = gt_doc_get(res, "limits");
	struct res_at at = { list, i };
	int rc = check_limits(x, o, req, lim, &at);
	if (rc)
		return rc;
	rc = add_request(x, o, p, req ? req : lim, &at, req ? "requests" : "limits", init);
	if (rc || init)
		return rc;
	/* extended resources may be given as limits only */
	if (req && lim && gt_doc_get(lim, "nvidia.com/gpu") && !gt_doc_get(req, "nvidia.com/gpu")) {
		struct gt_pod tmp = { 0 };
		rc = add_request(x, o, &tmp, lim, &at, "limits", false);
		if (rc)
			return rc;
		p->gpus += tmp.gpus;
	}
	return 0;
}

int gt_dec_container_request(struct gt_dec *x, const struct gt_doc *o, const char *list, size_t i,
			     struct gt_pod *out)
{
	return container(x, o, out, gt_doc_get(gt_doc_path(o, "spec"), list), list, i, true);
}

/* Requests of @b added to @a, or @a raised to @b per resource. */
static void request_add(struct gt_pod *a, const struct gt_pod *b)
{
	a->cpu_milli += b->cpu_milli;
	a->mem_bytes += b->mem_bytes;
	a->gpus += b->gpus;
	for (int e = 0; e < GT_MAX_EXT; e++)
		a->ext[e] += b->ext[e];
}

static void request_max(struct gt_pod *a, const struct gt_pod *b)
{
	a->cpu_milli = b->cpu_milli > a->cpu_milli ? b->cpu_milli : a->cpu_milli;
	a->mem_bytes = b->mem_bytes > a->mem_bytes ? b->mem_bytes : a->mem_bytes;
	a->gpus = b->gpus > a->gpus ? b->gpus : a->gpus;
	for (int e = 0; e < GT_MAX_EXT; e++)
		a->ext[e] = b->ext[e] > a->ext[e] ? b->ext[e] : a->ext[e];
}

static int pod_resources(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p)
{
	const struct gt_doc *containers = gt_doc_path(o, "spec.containers");
	for (size_t i = 0; containers && containers->kind == GT_DOC_SEQ && i < containers->n; i++) {
		int rc = container(x, o, p, containers, "containers", i, false);
		if (rc)
			return rc;
	}
	/*
	 * Init containers, as kube-scheduler counts them: plain ones run one at
	 * a time, each beside the sidecars started before it; a sidecar (an init
	 * container with restartPolicy Always) keeps running, so it adds to the
	 * pod's regular containers too. The pod needs the larger of the two.
	 */
	struct gt_pod sidecars = { 0 }, init_peak = { 0 };
	const struct gt_doc *inits = gt_doc_path(o, "spec.initContainers");
	for (size_t i = 0; inits && inits->kind == GT_DOC_SEQ && i < inits->n; i++) {
		struct gt_pod one = { 0 };
		int rc = container(x, o, &one, inits, "initContainers", i, true);
		if (rc)
			return rc;
		const char *restart = gt_doc_str(inits->items[i], "restartPolicy");
		if (restart && !strcmp(restart, "Always")) {
			request_add(p, &one);
			request_add(&sidecars, &one);
			one = sidecars;
		} else {
			request_add(&one, &sidecars);
		}
		request_max(&init_peak, &one);
	}
	request_max(p, &init_peak);
	return 0;
}

static int gpu_sharing(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p)
{
	const char *frac = gt_obj_annotation(o, "gpu-fraction");
	const char *mem = gt_obj_annotation(o, "gpu-memory");
	const char *ndev = gt_obj_annotation(o, "gpu-fraction-num-devices");
	if (frac && !*frac)
		frac = NULL;	/* KAI's own fakes write an empty annotation */
	if (mem && !strcmp(mem, "0"))
		mem = NULL;
	p->num_devices = 1;
	if (frac && mem)
		return gt_dec_fail(x, o, "metadata.annotations", "cannot request both GPU fraction and GPU memory", NULL);
	if (frac) {
		int64_t m;
		if (gt_quantity_parse_milli(frac, &m) || m <= 0 || m > 1000)
			return gt_dec_fail(x, o, "metadata.annotations.gpu-fraction",
				    "must be a number greater than 0 and at most 1, not", frac);
		if (p->gpus > 0)
			return gt_dec_fail(x, o, "metadata.annotations.gpu-fraction",
				    "cannot have both a GPU fraction and a whole GPU request", NULL);
		if (m == 1000)
			p->gpus = 1;	/* KAI treats a fraction of 1 as a whole GPU */
		else
			p->frac_milli = (int32_t)m;
	}
	if (mem) {
		int64_t v;
		if (gt_parse_int(mem, &v) || v <= 0)
			return gt_dec_fail(x, o, "metadata.annotations.gpu-memory",
				    "must be a positive integer (MiB), not", mem);
		if (p->gpus > 0)
			return gt_dec_fail(x, o, "metadata.annotations.gpu-memory",
				    "cannot request both GPU and GPU memory", NULL);
		p->gpu_mem_mib = v;
	}
	if (ndev) {
		int64_t v;
		if (gt_parse_int(ndev, &v) || v <= 0 || v > GT_MAX_DEVICES)
			return gt_dec_fail(x, o, "metadata.annotations.gpu-fraction-num-devices",
				    "must be a positive integer of at most 16, not", ndev);
		if (!p->frac_milli && !p->gpu_mem_mib && v > 1)
			return gt_dec_fail(x, o, "metadata.annotations.gpu-fraction-num-devices",
				    "cannot request multiple fractional devices without a fraction or gpu-memory", NULL);
		p->num_devices = (int32_t)v;
	}
	return 0;
}

static int read_selector_exprs(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *exprs,
			       const struct gt_doc *match_labels, const char *field, struct gt_selector *out)
{
	size_t n = (exprs && exprs->kind == GT_DOC_SEQ ? exprs->n : 0) +
		   (match_labels && match_labels->kind == GT_DOC_MAP ? match_labels->n : 0);
	out->exprs = gt_xcalloc(n + 1, sizeof(*out->exprs));
	for (size_t i = 0; match_labels && match_labels->kind == GT_DOC_MAP && i < match_labels->n; i++) {
		struct gt_sel_expr *e = &out->exprs[out->n_exprs++];
		e->key = gt_dec_intern(x, match_labels->keys[i]);
		e->op = GT_SEL_IN;
		e->vals = gt_xmalloc(sizeof(*e->vals));
		e->vals[0] = gt_dec_intern(x, match_labels->items[i]->scalar ? match_labels->items[i]->scalar : "");
		e->n_vals = 1;
	}
	char f[600];
	for (size_t i = 0; exprs && exprs->kind == GT_DOC_SEQ && i < exprs->n; i++) {
		const struct gt_doc *ed = exprs->items[i];
		const char *key = gt_doc_str(ed, "key"), *op = gt_doc_str(ed, "operator");
		snprintf(f, sizeof(f), "%s.matchExpressions[%zu]", field, i);
		if (!key || !op)
			return gt_dec_fail(x, o, f, "needs key and operator", NULL);
		struct gt_sel_expr *e = &out->exprs[out->n_exprs++];
		e->key = gt_dec_intern(x, key);
		int opi = gt_name_index(gt_dec_selector_ops, GT_SEL_LT + 1, op);
		if (opi < 0) {
			snprintf(f, sizeof(f), "%s.matchExpressions[%zu].operator", field, i);
			return gt_dec_fail(x, o, f, "unknown operator", op);
		}
		e->op = (enum gt_sel_op)opi;
		const struct gt_doc *vals = gt_doc_get(ed, "values");
		if (vals && vals->kind == GT_DOC_SEQ) {
			e->vals = gt_xcalloc(vals->n + 1, sizeof(*e->vals));
			for (size_t k = 0; k < vals->n; k++)
				e->vals[e->n_vals++] = gt_dec_intern(x, vals->items[k]->scalar ? vals->items[k]->scalar : "");
			if ((e->op == GT_SEL_GT || e->op == GT_SEL_LT) &&
			    (vals->n != 1 || !vals->items[0]->scalar || gt_parse_int(vals->items[0]->scalar, &e->num))) {
				snprintf(f, sizeof(f), "%s.matchExpressions[%zu].values", field, i);
				return gt_dec_fail(x, o, f, "Gt and Lt take one integer", NULL);
			}
		}
	}
	return 0;
}

int gt_dec_selector(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *exprs,
		    const struct gt_doc *match_labels, const char *field, struct gt_selector *out)
{
	return read_selector_exprs(x, o, exprs, match_labels, field, out);
}

/* containers[].ports[].hostPort: the node must have the port free (NodePorts). */
static int host_ports(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p)
{
	const struct gt_doc *containers = gt_doc_path(o, "spec.containers");
	for (size_t i = 0; containers && containers->kind == GT_DOC_SEQ && i < containers->n; i++) {
		const struct gt_doc *ports = gt_doc_get(containers->items[i], "ports");
		for (size_t k = 0; ports && ports->kind == GT_DOC_SEQ && k < ports->n; k++) {
			const char *hp = gt_doc_str(ports->items[k], "hostPort");
			int64_t port;
			if (!hp)
				continue;
			if (gt_parse_int(hp, &port) || port < 0 || port > 65535)
				return gt_dec_fail(x, o, "spec.containers[].ports[].hostPort", "not a port number", hp);
			if (port == 0)
				continue;	/* 0: no host port, as in Kubernetes */
			const char *proto = gt_doc_str(ports->items[k], "protocol");
			const char *ip = gt_doc_str(ports->items[k], "hostIP");
			p->host_ports = gt_xrealloc(p->host_ports, (p->n_host_ports + 1) * sizeof(*p->host_ports));
			p->host_ports[p->n_host_ports++] = (struct gt_host_port){
				.host_ip = ip && *ip && strcmp(ip, "0.0.0.0") ? gt_dec_intern(x, ip) : GT_ANY_HOST_IP,
				.protocol = gt_dec_intern(x, proto && *proto ? proto : "TCP"),
				.port = (int32_t)port,
			};
		}
	}
	return 0;
}

/*
 * The namespaces a pod (anti-)affinity term looks at, as Kubernetes reads
 * them: those listed in namespaces, every namespace when namespaceSelector is
 * empty ({}), the pod's own when neither is given. A namespaceSelector with
 * labels is judged on the Namespace objects' labels (without any in the input:
 * said, and the listed namespaces, or the pod's own, stand in).
 */
static int term_namespaces(struct gt_dec *x, const struct gt_doc *o, const struct gt_pod *p,
			   const struct gt_doc *t, struct gt_pod_affinity_term *term)
{
	const struct gt_doc *list = gt_doc_get(t, "namespaces");
	const struct gt_doc *nsel = gt_doc_get(t, "namespaceSelector");
	size_t n = list && list->kind == GT_DOC_SEQ ? list->n : 0;
	term->namespaces = gt_xcalloc(n + 1, sizeof(*term->namespaces));
	for (size_t i = 0; i < n; i++) {
		const char *ns = list->items[i]->kind == GT_DOC_SCALAR ? list->items[i]->scalar : NULL;
		if (!ns || !*ns)
			return gt_dec_fail(x, o, "spec.affinity.podAffinity[].namespaces[]", "is not a name", NULL);
		term->namespaces[term->n_namespaces++] = gt_dec_intern(x, ns);
	}
	if (nsel && nsel->kind == GT_DOC_MAP) {
		const struct gt_doc *ml = gt_doc_get(nsel, "matchLabels");
		const struct gt_doc *me = gt_doc_get(nsel, "matchExpressions");
		bool empty = (!ml || (ml->kind == GT_DOC_MAP && ml->n == 0)) &&
			     (!me || (me->kind == GT_DOC_SEQ && me->n == 0));
		if (empty) {
			term->all_namespaces = true;
		} else {
			/* judged on the Namespaces' labels (gt_dec_namespaces_link) */
			int rc = read_selector_exprs(x, o, me, ml, "spec.affinity.podAffinity[].namespaceSelector",
						     &term->ns_selector);
			if (rc)
				return rc;
			term->has_ns_selector = true;
		}
	}
	if (!term->n_namespaces && !term->has_ns_selector)
		term->namespaces[term->n_namespaces++] = p->ns;
	return 0;
}

/* One pod (anti-)affinity term @t, required (@weight 0) or preferred. */
static int affinity_term(struct gt_dec *x, const struct gt_doc *o, const struct gt_pod *p, const struct gt_doc *t,
			 bool anti, int32_t weight, const char *field, struct gt_pod_affinity_term *term)
{
	memset(term, 0, sizeof(*term));
	const char *tk = gt_doc_str(t, "topologyKey");
	char f[400];
	if (!tk) {
		snprintf(f, sizeof(f), "%s.topologyKey", field);
		return gt_dec_fail(x, o, f, "is missing", NULL);
	}
	term->anti = anti;
	term->weight = weight;
	term->topology_key = gt_dec_intern(x, tk);
	int rc = term_namespaces(x, o, p, t, term);
	if (rc)
		return rc;
	const struct gt_doc *sel = gt_doc_get(t, "labelSelector");
	snprintf(f, sizeof(f), "%s.labelSelector", field);
	return read_selector_exprs(x, o, gt_doc_get(sel, "matchExpressions"), gt_doc_get(sel, "matchLabels"), f,
				   &term->selector);
}

static int pod_placement(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p)
{
	const struct gt_doc *spec = gt_doc_get(o, "spec");
	gt_dec_labels(x, gt_doc_get(spec, "nodeSelector"), &p->node_selector);
	static const char node_terms[] =
		"affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
	const struct gt_doc *terms = gt_doc_path(spec, node_terms);
	char f[600];
	if (terms && terms->kind == GT_DOC_SEQ && terms->n) {
		p->affinity_terms = gt_xcalloc(terms->n, sizeof(*p->affinity_terms));
		for (size_t i = 0; i < terms->n; i++) {
			snprintf(f, sizeof(f), "spec.%s[%zu]", node_terms, i);
			int rc = read_selector_exprs(x, o, gt_doc_get(terms->items[i], "matchExpressions"),
						     NULL, f, &p->affinity_terms[p->n_affinity_terms++]);
			if (rc)
				return rc;
		}
	}
	const struct gt_doc *tols = gt_doc_get(spec, "tolerations");
	if (tols && tols->kind == GT_DOC_SEQ && tols->n) {
		p->tolerations = gt_xcalloc(tols->n, sizeof(*p->tolerations));
		for (size_t i = 0; i < tols->n; i++) {
			const struct gt_doc *t = tols->items[i];
			const char *key = gt_doc_str(t, "key"), *op = gt_doc_str(t, "operator");
			const char *val = gt_doc_str(t, "value"), *eff = gt_doc_str(t, "effect");
			struct gt_toleration *tol = &p->tolerations[p->n_tolerations++];
			tol->key = key && *key ? (int64_t)gt_dec_intern(x, key) : -1;
			tol->exists = op && !strcmp(op, "Exists");
			tol->val = gt_dec_intern(x, val ? val : "");
			int e = gt_name_index(gt_dec_taint_effects, GT_TAINT_ANY, eff);
			/* an effect that is none of the three counts as the strictest */
			tol->effect = !eff || !*eff ? GT_TAINT_ANY : e < 0 ? GT_TAINT_NO_EXECUTE : (enum gt_taint_effect)e;
		}
	}
	int rc = host_ports(x, o, p);
	if (rc)
		return rc;
	/* the paths as literals: no snprintf for every pod */
	static const char *const required[] = {
		"affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution",
		"affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution",
	};
	static const char *const preferred[] = {
		"affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution",
		"affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution",
	};
	for (int k = 0; k < 2; k++) {
		const char *path = required[k];
		const struct gt_doc *pts = gt_doc_path(spec, path);
		for (size_t i = 0; pts && pts->kind == GT_DOC_SEQ && i < pts->n; i++) {
			GT_GROW(p->pod_affinity, p->n_pod_affinity + 1, p->cap_pod_affinity);
			struct gt_pod_affinity_term *term = &p->pod_affinity[p->n_pod_affinity++];
			snprintf(f, sizeof(f), "spec.%s[%zu]", path, i);
			rc = affinity_term(x, o, p, pts->items[i], k == 1, 0, f, term);
			if (rc)
				return rc;
		}
		path = preferred[k];
		pts = gt_doc_path(spec, path);
		for (size_t i = 0; pts && pts->kind == GT_DOC_SEQ && i < pts->n; i++) {
			const char *w = gt_doc_str(pts->items[i], "weight");
			int64_t weight;
			snprintf(f, sizeof(f), "spec.%s[%zu].weight", path, i);
			if (!w || gt_parse_int(w, &weight) || weight < 1 || weight > 100)
				return gt_dec_fail(x, o, f, "must be a whole number from 1 to 100, not", w ? w : "(none)");
			GT_GROW(p->preferred_affinity, p->n_preferred_affinity + 1, p->cap_preferred_affinity);
			struct gt_pod_affinity_term *term = &p->preferred_affinity[p->n_preferred_affinity++];
			snprintf(f, sizeof(f), "spec.%s[%zu].podAffinityTerm", path, i);
			rc = affinity_term(x, o, p, gt_doc_get(pts->items[i], "podAffinityTerm"), k == 1,
					   (int32_t)weight, f, term);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static void pod_gpu_groups(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p)
{
	const struct gt_doc *labels = gt_doc_path(o, "metadata.labels");
	for (size_t i = 0; labels && labels->kind == GT_DOC_MAP && i < labels->n; i++) {
		const char *k = labels->keys[i];
		const char *v = labels->items[i]->scalar;
		if (!v || p->n_groups >= GT_MAX_DEVICES)
			continue;
		if (!strcmp(k, "runai-gpu-group") || !strncmp(k, "runai-gpu-group/", 16))
			p->groups[p->n_groups++] = gt_dec_intern(x, v);
	}
}

static enum gt_status pod_status(const struct gt_doc *o, bool on_node)
{
	const char *phase = gt_doc_str(gt_doc_get(o, "status"), "phase");
	bool deleting = gt_doc_str(gt_doc_get(o, "metadata"), "deletionTimestamp") != NULL;
	if (phase && !strcmp(phase, "Succeeded"))
		return GT_SUCCEEDED;
	if (phase && !strcmp(phase, "Failed"))
		return GT_FAILED;
	if (deleting && on_node)
		return GT_RELEASING;
	if (phase && !strcmp(phase, "Running"))
		return on_node ? GT_RUNNING : GT_PENDING;
	if (on_node)
		return GT_BOUND;
	const struct gt_doc *gates = gt_doc_path(o, "spec.schedulingGates");
	if (gates && gates->kind == GT_DOC_SEQ && gates->n)
		return GT_GATED;
	return GT_PENDING;
}

/* The binding given for @o (gt_decoder_bind), or NULL. O(log bindings). */
static const struct gt_binding *binding_of(const struct gt_dec *x, const struct gt_doc *o)
{
	const struct gt_decoder *d = x->d;
	struct gt_binding key = { .pod = o };
	return d->n_bindings ? bsearch(&key, d->bindings, d->n_bindings, sizeof(key), gt_dec_by_pod) : NULL;
}

/* Where the pod is, with which GPU groups, and its state. */
static int pod_state(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p)
{
	const struct gt_binding *b = binding_of(x, o);
	int32_t bound_to = b ? gt_dec_lookup(x, x->node_by_name, b->node) : GT_NONE;
	const char *node = gt_pod_node(o);
	if (node) {
		p->node = gt_dec_lookup(x, x->node_by_name, node);
		if (p->node == GT_NONE)
			gt_dec_warn(x, "pod %s: spec.nodeName '%s' is not a known node; treated as unscheduled",
				    gt_obj_name(o), node);
	}
	/* a finished pod keeps its node for the record; it holds nothing there */
	p->status = pod_status(o, p->node != GT_NONE);
	const char *phase = gt_doc_str(gt_doc_get(o, "status"), "phase");
	const char *deleted = gt_doc_str(gt_doc_get(o, "metadata"), "deletionTimestamp");
	if (p->status == GT_RELEASING && phase && !strcmp(phase, "Running") && deleted &&
	    gt_time_parse(deleted, &p->deleted_at))
		return gt_dec_fail(x, o, "metadata.deletionTimestamp", "not an RFC 3339 time", deleted);
	pod_gpu_groups(x, o, p);
	if (bound_to != GT_NONE && p->node == GT_NONE) {
		/* being bound: Binding on its node with its groups, the binder's work in progress */
		p->status = GT_BINDING;
		p->node = bound_to;
		p->n_groups = 0;
		for (uint8_t g = 0; g < b->n_groups; g++)
			p->groups[p->n_groups++] = gt_dec_intern(x, b->groups[g]);
	}
	if (gt_pod_is_shared(p) && gt_status_active_used(p->status) && p->n_groups == 0) {
		/* a shared pod with no group label holds a device of its own */
		char g[300];
		snprintf(g, sizeof(g), "%s/%s-own-gpu", gt_obj_ns(o), gt_obj_name(o));
		p->groups[p->n_groups++] = gt_dec_intern(x, g);
	}
	const char *nominated = gt_doc_str(gt_doc_get(o, "status"), "nominatedNodeName");
	if (nominated)
		p->nominated_node = gt_dec_lookup(x, x->node_by_name, nominated);
	return 0;
}

/* Task order: the task-priority label, and the roles KAI starts first. */
static void pod_order(const struct gt_doc *o, struct gt_pod *p)
{
	const char *tp = gt_obj_label(o, "kai.scheduler/task-priority");
	int64_t v;
	if (tp) {
		/* KAI orders labelled pods first; a value that is no integer comes last of them */
		p->has_task_prio = true;
		p->task_prio = gt_parse_int(tp, &v) || v < INT32_MIN || v > INT32_MAX ? INT32_MIN : (int32_t)v;
	}
	const char *role = gt_obj_label(o, "training.kubeflow.org/job-role");
	const char *ray = gt_obj_label(o, "ray.io/node-type");
	p->role_first = (role && (!strcmp(role, "master") || !strcmp(role, "launcher"))) ||
			(ray && !strcmp(ray, "head"));
}

/*
 * The pod's job and podset: the PodGroup it names, or a job of its own for
 * a bare pod of ours. A PodGroup that does not exist leaves it without one.
 */
static int pod_job(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p)
{
	const char *pg = gt_pod_group_name(o);
	const char *sg = gt_obj_label(o, "kai.scheduler/subgroup-name");
	if (pg) {
		p->job = gt_dec_find_job(x, gt_obj_ns(o), pg);
		if (p->job == GT_NONE && p->ours)
			gt_dec_note(x, o, "metadata.annotations.pod-group-name",
				    "PodGroup '%s' does not exist; the pod waits for it", pg);
	} else if (p->ours && !x->d->no_implicit_jobs) {
		if (sg && strcmp(sg, "default"))	/* a bare pod's job has the default podset only */
			return gt_dec_fail(x, o, "metadata.labels.kai.scheduler/subgroup-name",
					   "names no sub-group of its PodGroup", sg);
		p->job = gt_dec_implicit_job(x, o, p->created);
	}
	if (p->job == GT_NONE)
		return 0;
	struct gt_job *j = &x->c->jobs[p->job];
	uint32_t want = gt_dec_intern(x, sg ? sg : "default");
	p->podset = -1;
	for (uint32_t i = 0; i < j->n_podsets; i++)
		if (j->podsets[i].name == want)
			p->podset = (int32_t)i;
	if (p->podset >= 0)
		return 0;
	if (sg && j->n_podsets && strcmp(sg, "default"))
		return gt_dec_fail(x, o, "metadata.labels.kai.scheduler/subgroup-name",
				   "names no sub-group of its PodGroup", sg);
	int rc = gt_dec_add_podset(x, o, j, "default", 0, NULL);
	if (!rc)
		p->podset = (int32_t)j->n_podsets - 1;
	return rc;
}

/* ---------------------------------------------------------------- run-time limits */

/* The input's batch Job named by @o's ownerReferences, or NULL (the index is made on first use). */
static const struct gt_doc *owner_job(struct gt_dec *x, const struct gt_doc *o)
{
	const struct gt_doc *refs = gt_doc_path(o, "metadata.ownerReferences"), *job = NULL;
	for (size_t i = 0; refs && refs->kind == GT_DOC_SEQ && i < refs->n && !job; i++) {
		const char *kind = gt_doc_str(refs->items[i], "kind"), *name = gt_doc_str(refs->items[i], "name");
		if (!kind || strcmp(kind, "Job") || !name)
			continue;
		if (!x->owner_jobs) {
			x->owner_jobs = gt_xcalloc(1, sizeof(*x->owner_jobs));
			gt_smap_init(x->owner_jobs);
			for (size_t k = 0; k < x->d->n_objs; k++) {
				const struct gt_doc *d = x->d->objs[k];
				const char *api = gt_doc_str(d, "apiVersion");
				if (strcmp(gt_obj_kind(d), "Job") || !api || strcmp(api, "batch/v1"))
					continue;
				char key[512];
				gt_dec_ns_key(key, sizeof(key), gt_obj_ns(d), gt_obj_name(d));
				gt_smap_put(x->owner_jobs, key, (void *)d);
			}
		}
		char key[512];
		gt_dec_ns_key(key, sizeof(key), gt_obj_ns(o), name);
		job = gt_smap_get(x->owner_jobs, key);
	}
	return job;
}

void gt_dec_owner_jobs_release(struct gt_dec *x)
{
	if (x->owner_jobs)
		gt_smap_release(x->owner_jobs);
	free(x->owner_jobs);
	x->owner_jobs = NULL;
}

/* spec.activeDeadlineSeconds of @o, 0 when absent; a bad one is said and not used. */
static int64_t active_deadline(struct gt_dec *x, const struct gt_doc *o)
{
	const char *v = gt_doc_str(gt_doc_get(o, "spec"), "activeDeadlineSeconds");
	int64_t d = 0;
	if (v && (gt_parse_int(v, &d) || d <= 0)) {
		gt_dec_note(x, o, "spec.activeDeadlineSeconds", "not a positive whole number: '%s' (not used as "
			    "a maximum run time)", v);
		return 0;
	}
	return d;
}

/*
 * A pod's activeDeadlineSeconds and its owner Job's (when the input holds
 * the Job) are maximum run times of its job (docs/reservations.md): the
 * shortest of those and the PodGroup's own is kept.
 */
static void pod_max_runtime(struct gt_dec *x, const struct gt_doc *o, const struct gt_pod *p)
{
	if (p->job == GT_NONE)
		return;
	int64_t d = active_deadline(x, o);
	const struct gt_doc *owner = owner_job(x, o);
	int64_t jd = owner ? active_deadline(x, owner) : 0;
	if (jd && (!d || jd < d))
		d = jd;
	struct gt_job *j = &x->c->jobs[p->job];
	if (d && (!j->max_runtime_s || d < j->max_runtime_s))
		j->max_runtime_s = d;
}

/* ---------------------------------------------------------------- needed ConfigMaps */

static const char *const container_lists[] = { "initContainers", "containers", "ephemeralContainers" };

/* @ref ({name, optional}) as a ConfigMap @p needs, unless optional or the shared-GPU one. */
static void need_configmap(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p, const struct gt_doc *ref)
{
	const char *name = gt_doc_str(ref, "name");
	if (!name || !*name || gt_dec_bool(gt_doc_str(ref, "optional"), false))
		return;
	/* the ConfigMaps Gantry (or KAI's binder) makes for a shared GPU are not waited for */
	const char *shared = gt_obj_annotation(o, "runai/shared-gpu-configmap");
	if (shared && !strncmp(name, shared, strlen(shared)))
		return;
	uint32_t id = gt_dec_intern(x, name);
	for (uint32_t i = 0; i < p->n_configmaps; i++)
		if (p->configmaps[i] == id)
			return;
	p->configmaps = gt_xrealloc(p->configmaps, (p->n_configmaps + 1) * sizeof(*p->configmaps));
	p->configmaps[p->n_configmaps++] = id;
}

static bool volume_mounted(const struct gt_doc *spec, const char *volume)
{
	for (size_t l = 0; l < 3; l++) {
		const struct gt_doc *cs = gt_doc_get(spec, container_lists[l]);
		for (size_t i = 0; cs && cs->kind == GT_DOC_SEQ && i < cs->n; i++) {
			const struct gt_doc *mounts = gt_doc_get(cs->items[i], "volumeMounts");
			for (size_t m = 0; mounts && mounts->kind == GT_DOC_SEQ && m < mounts->n; m++) {
				const char *n = gt_doc_str(mounts->items[m], "name");
				if (n && !strcmp(n, volume))
					return true;
			}
		}
	}
	return false;
}

/*
 * The ConfigMaps a pod cannot start without, as KAI's ConfigMap predicate
 * lists them: mounted configMap volumes (and projected ones), env
 * configMapKeyRef and envFrom configMapRef of every container; optional
 * references are not needed.
 */
static void pod_configmaps(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p)
{
	const struct gt_doc *spec = gt_doc_get(o, "spec");
	const struct gt_doc *vols = gt_doc_get(spec, "volumes");
	for (size_t i = 0; vols && vols->kind == GT_DOC_SEQ && i < vols->n; i++) {
		const struct gt_doc *v = vols->items[i];
		const char *vname = gt_doc_str(v, "name");
		if (!vname || !volume_mounted(spec, vname))
			continue;
		if (gt_doc_get(v, "configMap"))
			need_configmap(x, o, p, gt_doc_get(v, "configMap"));
		const struct gt_doc *srcs = gt_doc_path(v, "projected.sources");
		for (size_t k = 0; srcs && srcs->kind == GT_DOC_SEQ && k < srcs->n; k++)
			if (gt_doc_get(srcs->items[k], "configMap"))
				need_configmap(x, o, p, gt_doc_get(srcs->items[k], "configMap"));
	}
	for (size_t l = 0; l < 3; l++) {
		const struct gt_doc *cs = gt_doc_get(spec, container_lists[l]);
		for (size_t i = 0; cs && cs->kind == GT_DOC_SEQ && i < cs->n; i++) {
			const struct gt_doc *env = gt_doc_get(cs->items[i], "env");
			for (size_t e = 0; env && env->kind == GT_DOC_SEQ && e < env->n; e++) {
				const struct gt_doc *ref = gt_doc_path(env->items[e], "valueFrom.configMapKeyRef");
				if (ref)
					need_configmap(x, o, p, ref);
			}
			const struct gt_doc *from = gt_doc_get(cs->items[i], "envFrom");
			for (size_t e = 0; from && from->kind == GT_DOC_SEQ && e < from->n; e++) {
				const struct gt_doc *ref = gt_doc_get(from->items[e], "configMapRef");
				if (ref)
					need_configmap(x, o, p, ref);
			}
		}
	}
}

/*
 * The PersistentVolumeClaims the pod mounts (a generic ephemeral volume's is
 * "<pod>-<volume>"), when the front end lists claims (gt_decoder.claims_listed):
 * the first the input does not hold keeps it from every node (KAI's
 * VolumeBinding pre-filter: 'persistentvolumeclaim "x" not found').
 */
static void pod_claims(struct gt_dec *x, const struct gt_doc *o, struct gt_pod *p)
{
	const struct gt_doc *vols = gt_doc_path(o, "spec.volumes");
	for (size_t i = 0; x->d->claims_listed && vols && vols->kind == GT_DOC_SEQ && i < vols->n; i++) {
		const char *claim = gt_doc_str(gt_doc_get(vols->items[i], "persistentVolumeClaim"), "claimName");
		char key[1300], eph[600];
		if (!claim && gt_doc_get(vols->items[i], "ephemeral") && gt_doc_str(vols->items[i], "name")) {
			snprintf(eph, sizeof(eph), "%s-%s", gt_obj_name(o), gt_doc_str(vols->items[i], "name"));
			claim = eph;
		}
		if (!claim)
			continue;
		snprintf(key, sizeof(key), "%s/%s", gt_obj_ns(o), claim);
		int32_t v = gt_dec_lookup(x, x->claim_by_name, key);
		if (v == GT_NONE) {
			if (!p->claim_missing) {
				p->claim_missing = true;
				p->claim_problem = GT_CLAIM_NOT_FOUND;
				p->missing_claim = gt_dec_intern(x, claim);
			}
			continue;
		}
		bool twice = false;
		for (uint32_t k = 0; k < p->n_pvcs; k++)
			twice |= p->pvcs[k] == v;
		if (twice)
			continue;
		p->pvcs = gt_xrealloc(p->pvcs, (p->n_pvcs + 1) * sizeof(*p->pvcs));
		p->pvcs[p->n_pvcs++] = v;
	}
}

/* A pending pod another scheduler places: counted, to be said once (gt_dec_pods_not_ours). */
static void foreign(struct gt_dec *x, const struct gt_doc *o)
{
	const char *sched = gt_doc_str(gt_doc_get(o, "spec"), "schedulerName");
	sched = sched ? sched : "";
	struct gt_dec_foreign *f = NULL;
	for (size_t i = 0; i < x->n_foreign && !f; i++)
		if (!strcmp(x->foreign[i].scheduler, sched))
			f = &x->foreign[i];
	if (!f) {
		struct gt_dec_foreign nf = { .scheduler = gt_xstrdup(sched) };
		GT_PUSH(x->foreign, x->n_foreign, x->cap_foreign, nf);
		f = &x->foreign[x->n_foreign - 1];
	}
	if (f->n++ < 4) {
		size_t off = strlen(f->names);
		snprintf(f->names + off, sizeof(f->names) - off, "%s%s/%s", off ? ", " : "", gt_obj_ns(o),
			 gt_obj_name(o));
	}
}

void gt_dec_pods_not_ours(struct gt_dec *x)
{
	for (size_t i = 0; i < x->n_foreign; i++) {
		const struct gt_dec_foreign *f = &x->foreign[i];
		char msg[900];
		bool one = f->n == 1;
		if (*f->scheduler)
			snprintf(msg, sizeof(msg), "%zu pending pod%s name%s schedulerName '%.80s', not '%s': Gantry "
				 "leaves %s to that scheduler (%s%s)", f->n, one ? "" : "s", one ? "s" : "", f->scheduler,
				 x->d->scheduler_name, one ? "it" : "them", f->names, f->n > 4 ? ", ..." : "");
		else
			snprintf(msg, sizeof(msg), "%zu pending pod%s ha%s no schedulerName, so Kubernetes gives %s "
				 "default-scheduler, not '%s', and Gantry leaves %s alone (%s%s); set spec.schedulerName: "
				 "%s to have Gantry schedule %s", f->n, one ? "" : "s", one ? "s" : "ve", one ? "it" : "them",
				 x->d->scheduler_name, one ? "it" : "them", f->names, f->n > 4 ? ", ..." : "",
				 x->d->scheduler_name, one ? "it" : "them");
		gt_dec_warn(x, "%s%s", msg, "");
	}
}

void gt_dec_pods_not_ours_release(struct gt_dec *x)
{
	for (size_t i = 0; i < x->n_foreign; i++)
		free(x->foreign[i].scheduler);
	free(x->foreign);
	x->foreign = NULL;
	x->n_foreign = 0;
}

int gt_dec_pod(struct gt_dec *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	const char *name = gt_obj_name(o);
	struct gt_pod p = { .ns = gt_dec_intern(x, gt_obj_ns(o)), .name = gt_dec_intern(x, name),
			    .job = GT_NONE, .node = GT_NONE, .nominated_node = -1 };
	p.ours = gt_pod_is_ours(o, x->d->scheduler_name);
	const char *app = gt_obj_label(o, "app");
	p.reservation = app && !strcmp(app, GT_RESERVATION);
	const char *cs = gt_doc_str(gt_doc_get(o, "metadata"), "creationTimestamp");
	if (cs && gt_time_parse(cs, &p.created))
		return gt_dec_fail(x, o, "metadata.creationTimestamp", "not an RFC 3339 time", cs);
	const char *uid = gt_doc_str(gt_doc_get(o, "metadata"), "uid");
	p.uid = uid && *uid ? gt_dec_intern(x, uid) + 1 : 0;
	gt_dec_labels(x, gt_doc_path(o, "metadata.labels"), &p.labels);
	pod_claims(x, o, &p);
	int rc = pod_resources(x, o, &p);
	rc = rc ? rc : gpu_sharing(x, o, &p);
	rc = rc ? rc : pod_placement(x, o, &p);
	rc = rc ? rc : pod_state(x, o, &p);
	rc = rc ? rc : gt_dec_pod_numa(x, o, &p);
	if (!rc)
		pod_configmaps(x, o, &p);
	if (!rc) {
		pod_order(o, &p);
		/* another scheduler's pending pod is not ours to place: no job */
		if (p.ours || p.node != GT_NONE)
			rc = pod_job(x, o, &p);
		else if (p.status == GT_PENDING)
			foreign(x, o);
		/* a PodGroup that has had its one attempt in this pool: its pending pods are left alone */
		if (!rc && p.job != GT_NONE && c->jobs[p.job].attempt_spent && p.status == GT_PENDING)
			p.ours = false;
		if (!rc)
			pod_max_runtime(x, o, &p);
	}
	rc = rc ? rc : gt_dec_pod_dra(x, o, c->n_pods);
	if (rc) {
		gt_pod_release(&p);
		return rc;
	}
	if (p.job != GT_NONE && gt_obj_is_deleting(o) && p.node == GT_NONE)
		c->jobs[p.job].deleting = true;
	gt_dec_source(x, 1, c->n_pods, (int32_t)x->obj);
	GT_PUSH(c->pods, c->n_pods, c->cap_pods, p);
	return 0;
}

/* ---------------------------------------------------------------- ConfigMaps */

int gt_dec_configmap(struct gt_dec *x, const struct gt_doc *o)
{
	const char *name = gt_obj_name(o);
	if (!*name)
		return gt_dec_fail(x, o, "metadata.name", "is missing", NULL);
	char key[512];
	snprintf(key, sizeof(key), "%s/%s", gt_obj_ns(o), name);
	struct gt_cluster *c = x->c;
	GT_PUSH(c->configmaps, c->n_configmaps, c->cap_configmaps, gt_dec_intern(x, key));
	c->configmaps_known = true;
	return 0;
}
