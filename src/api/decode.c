/*
 * decode.c - a build: the objects in dependency order, each decoded whole
 * or rejected whole, the entity-to-object maps, the name lookups
 */
#include "api/decode_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/num.h"

void gt_decoder_init(struct gt_decoder *d)
{
	memset(d, 0, sizeof(*d));
	d->scheduler_name = "kai-scheduler";
}

static void free_results(struct gt_decoder *d)
{
	for (size_t i = 0; i < d->n_rejections; i++) {
		free(d->rejections[i].what);
		free(d->rejections[i].field);
		free(d->rejections[i].message);
	}
	free(d->rejections);
	free(d->node_obj);
	free(d->pod_obj);
	free(d->job_obj);
	free(d->queue_obj);
	d->rejections = NULL;
	d->n_rejections = d->cap_rejections = 0;
	d->node_obj = d->pod_obj = d->job_obj = d->queue_obj = NULL;
}

void gt_decoder_release(struct gt_decoder *d)
{
	for (size_t i = 0; i < d->n_warnings; i++)
		free(d->warnings[i]);
	free(d->warnings);
	free(d->objs);
	free(d->bindings);
	free_results(d);
	memset(d, 0, sizeof(*d));
}

void gt_decoder_add(struct gt_decoder *d, struct gt_doc *doc)
{
	if (!doc || doc->kind != GT_DOC_MAP)
		return;
	if (!strcmp(gt_obj_kind(doc), "List")) {
		const struct gt_doc *items = gt_doc_get(doc, "items");
		for (size_t i = 0; items && items->kind == GT_DOC_SEQ && i < items->n; i++)
			gt_decoder_add(d, items->items[i]);
		return;
	}
	GT_PUSH(d->objs, d->n_objs, d->cap_objs, doc);
}

void gt_decoder_bind(struct gt_decoder *d, const struct gt_binding *b)
{
	GT_PUSH(d->bindings, d->n_bindings, d->cap_bindings, *b);
}

/* ---------------------------------------------------------------- reporting */

void gt_dec_warn(struct gt_dec *x, const char *fmt, const char *a, const char *b)
{
	char buf[512];
	snprintf(buf, sizeof(buf), fmt, a, b);
	struct gt_decoder *d = x->d;
	GT_PUSH(d->warnings, d->n_warnings, d->cap_warnings, gt_xstrdup(buf));
}

int gt_dec_fail(struct gt_dec *x, const struct gt_doc *o, const char *field, const char *what,
		const char *value)
{
	struct gt_decoder *d = x->d;
	const char *ns = gt_doc_str(gt_doc_get(o, "metadata"), "namespace");
	char obj[600], msg[900];
	snprintf(obj, sizeof(obj), "%s %s%s%s", gt_obj_kind(o), ns ? ns : "", ns ? "/" : "", gt_obj_name(o));
	snprintf(msg, sizeof(msg), "%s%s%s%s", what, value ? " '" : "", value ? value : "", value ? "'" : "");
	struct gt_rejection r = { .obj = x->obj, .line = o->line, .what = gt_xstrdup(obj),
				  .field = gt_xstrdup(field), .message = gt_xstrdup(msg) };
	GT_PUSH(d->rejections, d->n_rejections, d->cap_rejections, r);
	return GT_EINVAL;
}

void gt_rejection_format(const struct gt_rejection *r, char *buf, size_t len)
{
	char line[32] = "";
	if (r->line > 0)
		snprintf(line, sizeof(line), " (line %d)", r->line);
	snprintf(buf, len, "%s%s: field %s: %s", r->what, line, r->field, r->message);
}

size_t gt_decoder_report(const struct gt_decoder *d, FILE *f, const char *prefix)
{
	for (size_t i = 0; i < d->n_rejections; i++) {
		char msg[1600];
		gt_rejection_format(&d->rejections[i], msg, sizeof(msg));
		fprintf(f, "%s: %s\n", prefix, msg);
	}
	for (size_t i = 0; i < d->n_warnings; i++)
		fprintf(f, "%s: warning: %s\n", prefix, d->warnings[i]);
	return d->n_rejections;
}

/* ---------------------------------------------------------------- lookups */

uint32_t gt_dec_intern(struct gt_dec *x, const char *s)
{
	return gt_strtab_intern(x->names, s);
}

static void grow_lookup(struct gt_dec *x)
{
	size_t need = x->names->n_strs + 1;
	if (need <= x->n_lookup)
		return;
	size_t n = need * 2;
	int32_t **arrs[] = { &x->queue_by_name, &x->node_by_name, &x->topo_by_name,
			     &x->prio_by_name, &x->prio_value };
	for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]); i++) {
		*arrs[i] = gt_xrealloc(*arrs[i], n * sizeof(int32_t));
		memset(*arrs[i] + x->n_lookup, 0, (n - x->n_lookup) * sizeof(int32_t));
	}
	x->n_lookup = n;
}

int32_t gt_dec_lookup(struct gt_dec *x, const int32_t *tab, const char *name)
{
	int64_t id = gt_strtab_find(x->names, name);
	if (id < 0 || (size_t)id >= x->n_lookup)
		return GT_NONE;
	return tab[id] - 1;
}

void gt_dec_set_lookup(struct gt_dec *x, int32_t **tab, const char *name, int32_t idx)
{
	uint32_t id = gt_dec_intern(x, name);
	grow_lookup(x);
	(*tab)[id] = idx + 1;
}

void gt_dec_source(struct gt_dec *x, int kind, uint32_t idx, int32_t obj)
{
	int32_t **maps[] = { &x->d->node_obj, &x->d->pod_obj, &x->d->job_obj, &x->d->queue_obj };
	GT_GROW(*maps[kind], idx + 1, x->cap_entity_obj[kind]);
	(*maps[kind])[idx] = obj;
}

/* ---------------------------------------------------------------- values */

const char *const gt_dec_taint_effects[GT_TAINT_ANY] = { "NoSchedule", "PreferNoSchedule", "NoExecute" };
const char *const gt_dec_selector_ops[GT_SEL_LT + 1] = { "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt" };

int gt_dec_check_name(struct gt_dec *x, const struct gt_doc *o, const int32_t *tab, const char *what)
{
	const char *name = gt_obj_name(o);
	char dup[64];
	snprintf(dup, sizeof(dup), "duplicate %s", what);
	if (!*name)
		return gt_dec_fail(x, o, "metadata.name", "is missing", NULL);
	if (gt_dec_lookup(x, tab, name) != GT_NONE)
		return gt_dec_fail(x, o, "metadata.name", dup, name);
	return 0;
}

int gt_dec_number(const char *s, double *out)
{
	double v;
	if (gt_parse_number(s, &v) || fabs(v) > 1e15)
		return GT_EINVAL;
	*out = v;
	return 0;
}

bool gt_dec_bool(const char *s, bool dflt)
{
	if (!s)
		return dflt;
	return !strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "yes");
}

void gt_dec_labels(struct gt_dec *x, const struct gt_doc *map, struct gt_labels *out)
{
	if (!map || map->kind != GT_DOC_MAP)
		return;
	out->v = gt_xmalloc((map->n + 1) * sizeof(*out->v));
	out->n = 0;
	for (size_t i = 0; i < map->n; i++) {
		const struct gt_doc *v = map->items[i];
		out->v[out->n++] = (struct gt_label){
			.key = gt_dec_intern(x, map->keys[i]),
			.val = gt_dec_intern(x, v->kind == GT_DOC_SCALAR ? v->scalar : ""),
		};
	}
	gt_labels_sort(out);
}

/* A MIG profile's compute slices ("nvidia.com/mig-3g.40gb": 3), 0 for any other name. */
static int64_t mig_gpu_milli(const char *res)
{
	static const char prefix[] = "nvidia.com/mig-";
	if (strncmp(res, prefix, sizeof(prefix) - 1))
		return 0;
	const char *p = res + sizeof(prefix) - 1;
	int64_t g = 0, m = 0;
	for (; *p >= '0' && *p <= '9' && g < 1000; p++)
		g = g * 10 + (*p - '0');
	if (*p++ != 'g' || *p++ != '.')
		return 0;
	const char *digits = p;
	for (; *p >= '0' && *p <= '9' && m < 100000; p++)
		m = m * 10 + (*p - '0');
	/* as KAI counts it: toward GPU quotas by its compute slices */
	return p > digits && !strcmp(p, "gb") && g > 0 ? g * 1000 : 0;
}

int gt_dec_ext_index(struct gt_dec *x, const char *res)
{
	struct gt_cluster *c = x->c;
	uint32_t id = gt_dec_intern(x, res);
	for (uint32_t i = 0; i < c->n_ext; i++)
		if (c->ext_names[i] == id)
			return (int)i;
	if (c->n_ext >= GT_MAX_EXT)
		return -1;
	c->ext_names[c->n_ext] = id;
	c->ext_gpu_milli[c->n_ext] = mig_gpu_milli(res);
	return (int)c->n_ext++;
}

bool gt_dec_is_extended(const char *res)
{
	return strcmp(res, "cpu") && strcmp(res, "memory") && strcmp(res, "pods") &&
	       strcmp(res, "nvidia.com/gpu") && strcmp(res, "ephemeral-storage") &&
	       strncmp(res, "hugepages-", 10) && strchr(res, '/') != NULL;
}

/* ---------------------------------------------------------------- the build */

/* Dependencies first: classes, shard, topologies, queues, nodes, groups, pods. */
static const char *const kind_order[] = { "PriorityClass", "SchedulingShard", "Topology",
					  "Queue", "Node", "PodGroup", "ConfigMap", "Pod" };
#define N_KINDS (sizeof(kind_order) / sizeof(kind_order[0]))

static int decode_one(struct gt_dec *x, size_t kind, const struct gt_doc *o)
{
	static int (*const decode[N_KINDS])(struct gt_dec *, const struct gt_doc *) = {
		gt_dec_priority_class, gt_dec_shard, gt_dec_topology, gt_dec_queue,
		gt_dec_node, gt_dec_podgroup, gt_dec_configmap, gt_dec_pod,
	};
	return decode[kind](x, o);
}

/* One line for all unknown kinds: workload owners (Jobs, PyTorchJobs, ...) are common input. */
static void warn_unknown_kinds(struct gt_dec *x)
{
	struct gt_decoder *d = x->d;
	char kinds[1024] = "";
	size_t off = 0, n_unknown = 0;
	for (size_t i = 0; i < d->n_objs; i++) {
		const char *kind = gt_obj_kind(d->objs[i]);
		bool known = false, seen = false;
		for (size_t k = 0; k < N_KINDS; k++)
			known |= !strcmp(kind, kind_order[k]);
		if (known)
			continue;
		n_unknown++;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(kind, gt_obj_kind(d->objs[k]));
		if (!seen && off < sizeof(kinds))
			off += (size_t)snprintf(kinds + off, sizeof(kinds) - off, "%s%s", off ? ", " : "",
						*kind ? kind : "(no kind)");
	}
	if (n_unknown) {
		char count[32];
		snprintf(count, sizeof(count), "%zu", n_unknown);
		gt_dec_warn(x, "ignoring %s objects of kinds the scheduler does not read (%s); pods are grouped "
			    "from their owners among them", count, kinds);
	}
}

static void decode_all(struct gt_dec *x)
{
	struct gt_decoder *d = x->d;
	struct gt_doc **queues = gt_xmalloc((d->n_objs + 1) * sizeof(*queues));
	size_t n_queues = 0;
	for (size_t k = 0; k < N_KINDS; k++) {
		for (size_t i = 0; i < d->n_objs; i++) {
			if (strcmp(gt_obj_kind(d->objs[i]), kind_order[k]))
				continue;
			x->obj = i;
			if (!decode_one(x, k, d->objs[i]) && !strcmp(kind_order[k], "Queue"))
				queues[n_queues++] = d->objs[i];
		}
		if (!strcmp(kind_order[k], "Queue"))
			gt_dec_queue_parents(x, queues, n_queues);
	}
	warn_unknown_kinds(x);
	free(queues);
}

int gt_dec_by_pod(const void *a, const void *b)
{
	const struct gt_binding *x = a, *y = b;
	return x->pod < y->pod ? -1 : x->pod > y->pod;
}

/* Pods that need ConfigMaps while the input has none: said once, the predicate left out. */
static void warn_unchecked_configmaps(struct gt_dec *x)
{
	if (x->c->configmaps_known)
		return;
	for (uint32_t i = 0; i < x->c->n_pods; i++)
		if (x->c->pods[i].n_configmaps) {
			gt_dec_warn(x, "pod %s needs ConfigMaps and the input has none: the ConfigMap predicate is "
				    "not applied (add the ConfigMaps, e.g. kubectl get configmaps -A -o yaml)%s",
				    gt_strtab_str(x->names, x->c->pods[i].name), "");
			return;
		}
}

int gt_decoder_build(struct gt_decoder *d, struct gt_cluster *c, struct gt_err *err)
{
	free_results(d);
	struct gt_dec x = { .d = d, .c = c, .names = c->names };
	grow_lookup(&x);
	if (d->n_bindings)
		qsort(d->bindings, d->n_bindings, sizeof(*d->bindings), gt_dec_by_pod);
	c->configmaps_known = d->configmaps_complete;
	decode_all(&x);
	gt_cluster_sort_configmaps(c);
	warn_unchecked_configmaps(&x);
	free(x.queue_by_name);
	free(x.node_by_name);
	free(x.topo_by_name);
	free(x.prio_by_name);
	free(x.prio_value);
	free(x.job_by_key);
	free(x.orphan_queue);
	gt_cluster_link(c);
	if (!d->n_rejections)
		return 0;
	char msg[sizeof(err->msg)];
	gt_rejection_format(&d->rejections[0], msg, sizeof(msg));
	return gt_errf(err, GT_EINVAL, "%s", msg);
}
