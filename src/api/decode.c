/*
 * decode.c - a build: the objects in dependency order, each decoded whole
 * or rejected whole, the entity-to-object maps, the name lookups
 */
#include "api/decode_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/json.h"
#include "util/concat.h"
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
	for (size_t i = 0; i < d->n_conf_shards; i++)
		gt_doc_free(d->conf_shards[i]);
	free(d->conf_shards);
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

/*
 * The node a field path reaches in @o, as far as it goes: map keys (which
 * may hold dots themselves: "metadata.labels.nvidia.com/gpu.memory", the
 * longest key that matches wins) and "[i]" indices. The place to point at
 * when the field is wrong, or the nearest enclosing one when it is missing.
 */
static const struct gt_doc *field_node(const struct gt_doc *o, const char *field)
{
	const struct gt_doc *d = o;
	const char *p = field;
	while (*p && d) {
		if (*p == '[') {
			char *end;
			unsigned long i = strtoul(p + 1, &end, 10);
			if (end == p + 1 || *end != ']' || d->kind != GT_DOC_SEQ || i >= d->n)
				break;
			d = d->items[i];
			p = end + 1;
		} else {
			/* the longest key at p that ends where a segment can end */
			size_t len = strlen(p);
			const struct gt_doc *next = NULL;
			for (size_t k = len; k > 0 && !next; k--)
				if ((k == len || p[k] == '.' || p[k] == '[') && (next = gt_doc_getn(d, p, k)))
					len = k;
			if (!next)
				break;
			d = next;
			p += len;
		}
		if (*p == '.')
			p++;
	}
	return d;
}

/* "Pod team-a/nb" */
static void object_name(const struct gt_doc *o, char *buf, size_t len)
{
	const char *ns = gt_doc_str(gt_doc_get(o, "metadata"), "namespace");
	const char *name = gt_obj_name(o);
	snprintf(buf, len, "%s %s%s%s", *gt_obj_kind(o) ? gt_obj_kind(o) : "object", ns ? ns : "", ns ? "/" : "",
		 *name ? name : "(no name)");
}

/* "file:line:col: " for the field @field of @o, "" when @o was not read from a file. */
static void place(const struct gt_doc *o, const char *field, char *buf, size_t len)
{
	const struct gt_doc *at = field ? field_node(o, field) : o;
	if (gt_doc_source(o) && at->line > 0 && at->col > 0)
		snprintf(buf, len, "%s:%d:%d: ", gt_doc_source(o), at->line, at->col);
	else if (gt_doc_source(o) && at->line > 0)	/* JSON parsed whole: the line of its object */
		snprintf(buf, len, "%s:%d: ", gt_doc_source(o), at->line);
	else
		*buf = '\0';
}

void gt_dec_warn(struct gt_dec *x, const char *fmt, const char *a, const char *b)
{
	char buf[512];
	snprintf(buf, sizeof(buf), fmt, a, b);
	struct gt_decoder *d = x->d;
	GT_PUSH(d->warnings, d->n_warnings, d->cap_warnings, gt_xstrdup(buf));
}

void gt_dec_note(struct gt_dec *x, const struct gt_doc *o, const char *field, const char *fmt, ...)
{
	char at[600], name[600], msg[1000], buf[2400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	place(o, field, at, sizeof(at));
	object_name(o, name, sizeof(name));
	snprintf(buf, sizeof(buf), "%s%s: %s%s%s%s", at, name, field ? "field " : "", field ? field : "",
		 field ? ": " : "", msg);
	struct gt_decoder *d = x->d;
	GT_PUSH(d->warnings, d->n_warnings, d->cap_warnings, gt_xstrdup(buf));
}

int gt_dec_fail(struct gt_dec *x, const struct gt_doc *o, const char *field, const char *what,
		const char *value)
{
	struct gt_decoder *d = x->d;
	char obj[600], msg[900];
	object_name(o, obj, sizeof(obj));
	snprintf(msg, sizeof(msg), "%s%s%.300s%s", what, value ? " '" : "", value ? value : "", value ? "'" : "");
	const struct gt_doc *at = field_node(o, field);
	struct gt_rejection r = { .obj = x->obj, .source = gt_doc_source(o), .line = at->line, .col = at->col,
				  .what = gt_xstrdup(obj), .field = gt_xstrdup(field), .message = gt_xstrdup(msg) };
	GT_PUSH(d->rejections, d->n_rejections, d->cap_rejections, r);
	return GT_EINVAL;
}

void gt_rejection_format(const struct gt_rejection *r, char *buf, size_t len)
{
	char at[600] = "";
	if (r->source && r->line > 0 && r->col > 0)
		snprintf(at, sizeof(at), "%s:%d:%d: ", r->source, r->line, r->col);
	else if (r->source && r->line > 0)	/* JSON parsed whole: the line of its object */
		snprintf(at, sizeof(at), "%s:%d: ", r->source, r->line);
	snprintf(buf, len, "%s%s: field %s: %s", at, r->what, r->field, r->message);
}

size_t gt_decoder_report(const struct gt_decoder *d, FILE *f, const char *prefix)
{
	for (size_t i = 0; i < d->n_rejections; i++) {
		char msg[2400];
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
			     &x->prio_by_name, &x->prio_value, &x->claim_by_name };
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

/* Kubernetes' limits: names are DNS subdomains, namespaces DNS labels (validation.go). */
#define MAX_NAME 253
#define MAX_NAMESPACE 63

/* A string no Kubernetes name holds: empty, or with a control character, a space or a '/'. */
static const char *bad_name_char(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p == 0x7f || *p == '/')
			return "holds a space, a '/' or a control character";
	return NULL;
}

/* Labels as the API server takes them: "[prefix/]name" keys, values of at most 63 characters. */
static int check_labels(struct gt_dec *x, const struct gt_doc *o)
{
	const struct gt_doc *labels = gt_doc_path(o, "metadata.labels");
	if (!labels || gt_doc_is_null(labels))
		return 0;
	if (labels->kind != GT_DOC_MAP)
		return gt_dec_fail(x, o, "metadata.labels", "must be a map of strings", NULL);
	for (size_t i = 0; i < labels->n; i++) {
		const char *k = labels->keys[i], *slash = strrchr(k, '/');
		const struct gt_doc *v = labels->items[i];
		size_t name_len = strlen(slash ? slash + 1 : k), prefix_len = slash ? (size_t)(slash - k) : 0;
		const char *why = NULL;
		char buf[200];
		if (!name_len || name_len > 63 || prefix_len > MAX_NAME || bad_name_char(slash ? slash + 1 : k)) {
			snprintf(buf, sizeof(buf), "is no label key: [prefix/]name, the name 1-63 characters, the "
				 "prefix at most %d", MAX_NAME);
			why = buf;
		} else if (v->kind != GT_DOC_SCALAR) {
			why = "must be a string";
		} else if (strlen(v->scalar) > 63) {
			snprintf(buf, sizeof(buf), "is %zu characters long: a label value is at most 63",
				 strlen(v->scalar));
			why = buf;
		}
		if (why) {	/* the field's name only for the message: objects have many labels */
			char field[400];
			snprintf(field, sizeof(field), "metadata.labels.%.300s", k);
			return gt_dec_fail(x, o, field, why, NULL);
		}
	}
	return 0;
}

void gt_dec_ns_key(char *buf, size_t len, const char *ns, const char *name)
{
	size_t a = strlen(ns), b = strlen(name);
	if (a > len - 1)
		a = len - 1;
	memcpy(buf, ns, a);
	if (a < len - 1)
		buf[a++] = '/';
	if (b > len - 1 - a)
		b = len - 1 - a;
	memcpy(buf + a, name, b);
	buf[a + b] = '\0';
}

/*
 * What every object must be, whatever its kind: named, within Kubernetes'
 * limits, the first of its kind with that name (in its namespace). 0, or
 * the rejection's code.
 */
static int check_object(struct gt_dec *x, const struct gt_doc *o, size_t kind, bool namespaced)
{
	const char *name = gt_obj_name(o), *ns = gt_obj_ns(o), *why;
	char msg[160];
	if (!*name)
		return gt_dec_fail(x, o, "metadata.name", "is missing", NULL);
	if (strlen(name) > MAX_NAME) {
		snprintf(msg, sizeof(msg), "is %zu characters long: Kubernetes allows at most %d", strlen(name),
			 MAX_NAME);
		return gt_dec_fail(x, o, "metadata.name", msg, NULL);
	}
	if (kind == 8 && strchr(name, '/') && !bad_name_char(strchr(name, '/') + 1))
		/* KAI's DRA tests name a DeviceClass "nvidia.com/gpu", which no API server takes */
		gt_dec_note(x, o, "metadata.name", "a '/' makes '%s' no valid Kubernetes name; decoded anyway", name);
	else if ((why = bad_name_char(name)))
		return gt_dec_fail(x, o, "metadata.name", why, name);
	if (namespaced && strlen(ns) > MAX_NAMESPACE) {
		snprintf(msg, sizeof(msg), "is %zu characters long: Kubernetes allows at most %d", strlen(ns),
			 MAX_NAMESPACE);
		return gt_dec_fail(x, o, "metadata.namespace", msg, NULL);
	}
	if (namespaced && (why = bad_name_char(ns)))
		return gt_dec_fail(x, o, "metadata.namespace", why, ns);
	int rc = check_labels(x, o);
	if (rc)
		return rc;
	char key[MAX_NAME + MAX_NAMESPACE + 2];
	gt_dec_ns_key(key, sizeof(key), namespaced ? ns : "", name);
	struct gt_dec_seen *seen = &x->seen[kind];
	uint32_t id = gt_strtab_intern(&seen->keys, key);
	if (id < seen->n) {
		const struct gt_doc *first = x->d->objs[seen->first[id]];
		char at[600] = "", dup[1200];
		if (gt_doc_source(first))
			snprintf(at, sizeof(at), " (the first is at %s:%d)", gt_doc_source(first), first->line);
		snprintf(dup, sizeof(dup), "duplicate %s '%s'%s%s; this one is left out", gt_obj_kind(o), name,
			 namespaced ? " in its namespace" : "", at);
		return gt_dec_fail(x, o, "metadata.name", dup, NULL);
	}
	GT_GROW(seen->first, id + 1, seen->cap);
	seen->first[id] = (int32_t)x->obj;
	seen->n = id + 1;
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

/* Dependencies first: classes, shard, topologies, queues, nodes, groups, ConfigMaps, claims,
 * pods, NUMA topologies; then the storage the claims are linked to afterwards (N_KINDS in decode_int.h). */
static const char *const kind_order[N_KINDS] = { "PriorityClass", "SchedulingShard", "Topology", "Queue", "Node",
						 "PodGroup", "ConfigMap", "PersistentVolumeClaim",
						 "DeviceClass", "ResourceSlice", "ResourceClaimTemplate", "ResourceClaim",
						 "Pod", "NodeResourceTopology", "PersistentVolume", "StorageClass", "CSIDriver",
						 "CSIStorageCapacity", "Namespace" };

static int decode_one(struct gt_dec *x, size_t kind, const struct gt_doc *o)
{
	static int (*const decode[N_KINDS])(struct gt_dec *, const struct gt_doc *) = {
		gt_dec_priority_class, gt_dec_shard, gt_dec_topology, gt_dec_queue,
		gt_dec_node, gt_dec_podgroup, gt_dec_configmap, gt_dec_claim,
		gt_dec_device_class, gt_dec_resource_slice, gt_dec_claim_template, gt_dec_resource_claim,
		gt_dec_pod, gt_dec_nrt,
		gt_dec_pv, gt_dec_storage_class, gt_dec_csi_driver, gt_dec_csi_capacity,
		gt_dec_namespace,
	};
	/* by kind_order: PodGroup, ConfigMap, PersistentVolumeClaim, ResourceClaimTemplate,
	 * ResourceClaim, Pod, CSIStorageCapacity */
	static const bool namespaced[N_KINDS] = { [5] = true, [6] = true, [7] = true, [10] = true, [11] = true,
						  [12] = true, [17] = true };
	int rc = check_object(x, o, kind, namespaced[kind]);
	return rc ? rc : decode[kind](x, o);
}

/* One line for all unknown kinds: workload owners (Jobs, PyTorchJobs, ...) are common input. */
static void warn_unknown_kinds(struct gt_dec *x, const int8_t *kinds_of)
{
	struct gt_decoder *d = x->d;
	char kinds[1024] = "";
	size_t off = 0, n_unknown = 0;
	for (size_t i = 0; i < d->n_objs; i++) {
		if (kinds_of[i] >= 0)
			continue;
		const char *kind = gt_obj_kind(d->objs[i]);
		bool seen = false;
		n_unknown++;
		for (size_t k = 0; k < i && !seen; k++)
			seen = kinds_of[k] < 0 && !strcmp(kind, gt_obj_kind(d->objs[k]));
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

/* A SchedulingShard with @d's configuration file's fields over @shard's spec (NULL: a new default one). */
static struct gt_doc *conf_shard(struct gt_decoder *d, const struct gt_doc *shard)
{
	json_t *j = shard ? gt_doc_to_json(shard)
			  : json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "kai.scheduler/v1", "kind", "SchedulingShard",
				      "metadata", "name", "default");
	json_t *spec = json_object_get(j, "spec");
	if (!json_is_object(spec)) {
		spec = json_object();
		json_object_set_new(j, "spec", spec);
	}
	json_object_update(spec, (json_t *)d->conf_spec);
	struct gt_doc *m = gt_doc_from_json(j);
	json_decref(j);
	GT_PUSH(d->conf_shards, d->n_conf_shards, d->cap_conf_shards, m);
	return m;
}

/* --scheduler-conf: every shard of the input takes the file's fields; without one, a default one does. */
static void apply_conf(struct gt_decoder *d)
{
	if (!d->conf_spec)
		return;
	size_t n = d->n_objs;
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		const char *kind = gt_obj_kind(d->objs[i]);
		if (kind && !strcmp(kind, "SchedulingShard")) {
			d->objs[i] = conf_shard(d, d->objs[i]);
			any = true;
		}
	}
	if (!any)
		gt_decoder_add(d, conf_shard(d, NULL));
}

static void decode_all(struct gt_dec *x)
{
	struct gt_decoder *d = x->d;
	/* each object's kind once (a List's items are objects already) */
	int8_t *kinds_of = gt_xmalloc((d->n_objs + 1) * sizeof(*kinds_of));
	size_t *of_kind = gt_xmalloc((d->n_objs + 1) * sizeof(*of_kind)), n_of[N_KINDS] = { 0 }, start[N_KINDS];
	for (size_t i = 0; i < d->n_objs; i++) {
		kinds_of[i] = (int8_t)gt_name_index(kind_order, N_KINDS, gt_obj_kind(d->objs[i]));
		if (kinds_of[i] >= 0)
			n_of[kinds_of[i]]++;
	}
	for (size_t k = 0, at = 0; k < N_KINDS; at += n_of[k++])
		start[k] = at;
	size_t fill[N_KINDS];
	memcpy(fill, start, sizeof(fill));
	for (size_t i = 0; i < d->n_objs; i++)
		if (kinds_of[i] >= 0)
			of_kind[fill[kinds_of[i]]++] = i;
	/* room for every Node (4), PodGroup (5) and Pod (12) at once: grown a doubling at a time,
	 * 50,000 pods were copied about twice over */
	struct gt_cluster *c = x->c;
	GT_GROW(c->nodes, c->n_nodes + n_of[4], c->cap_nodes);
	GT_GROW(c->jobs, c->n_jobs + n_of[5], c->cap_jobs);
	GT_GROW(c->pods, c->n_pods + n_of[12], c->cap_pods);
	struct gt_doc **queues = gt_xmalloc((d->n_objs + 1) * sizeof(*queues));
	size_t n_queues = 0;
	for (size_t k = 0; k < N_KINDS; k++) {
		if (k == 3)
			gt_dec_queue_cycles(x, of_kind + start[k], n_of[k]);
		for (size_t j = start[k]; j < start[k] + n_of[k]; j++) {
			size_t i = of_kind[j];
			x->obj = i;
			if (!decode_one(x, k, d->objs[i]) && k == 3)
				queues[n_queues++] = d->objs[i];
		}
		if (k == 3)
			gt_dec_queue_parents(x, queues, n_queues);
	}
	warn_unknown_kinds(x, kinds_of);
	gt_dec_pods_not_ours(x);
	free(queues);
	free(kinds_of);
	free(of_kind);
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
	apply_conf(d);
	decode_all(&x);
	gt_dec_storage_link(&x, d->storage_listed || c->n_storage_classes || c->n_pvs);
	gt_dec_namespaces_link(&x, d->namespaces_listed || c->n_namespaces);
	gt_dec_dra_finish(&x);
	gt_dec_dra_release(&x);
	gt_cluster_sort_configmaps(c);
	warn_unchecked_configmaps(&x);
	free(x.queue_by_name);
	free(x.node_by_name);
	free(x.topo_by_name);
	free(x.prio_by_name);
	free(x.prio_value);
	free(x.job_by_key);
	free(x.claim_by_name);
	free(x.csi_drivers);
	free(x.orphan_queue);
	for (size_t k = 0; k < N_KINDS; k++) {
		gt_strtab_release(&x.seen[k].keys);
		free(x.seen[k].first);
	}
	gt_dec_queues_release(&x);
	gt_dec_pods_not_ours_release(&x);
	gt_dec_owner_jobs_release(&x);
	gt_cluster_link(c);
	if (!d->n_rejections)
		return 0;
	char msg[sizeof(err->msg)];
	gt_rejection_format(&d->rejections[0], msg, sizeof(msg));
	return gt_errf(err, GT_EINVAL, "%s", msg);
}
