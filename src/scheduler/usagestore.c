#include "scheduler/usagestore.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define DATA_KEY "usage.json"

void gt_usage_store_name(const char *shard, char *buf, size_t len)
{
	snprintf(buf, len, "gantry-usage-%s", shard);
}

static json_t *triple(const double *v)
{
	json_t *a = json_array();
	for (int r = 0; r < GT_NQRES; r++)
		json_array_append_new(a, json_real(v[r]));
	return a;
}

/* The ring's buckets that hold something, oldest first, as [bucket, g, c, m]. */
static json_t *buckets(const struct gt_usage_history *h, const double *ring)
{
	json_t *a = json_array();
	for (int64_t b = h->newest - h->n_slots + 1; b <= h->newest; b++) {
		int64_t s = b % h->n_slots;
		const double *v = ring + (size_t)(s < 0 ? s + h->n_slots : s) * GT_NQRES;
		if (!v[0] && !v[1] && !v[2])
			continue;
		json_t *e = json_array();
		json_array_append_new(e, json_integer(b));
		for (int r = 0; r < GT_NQRES; r++)
			json_array_append_new(e, json_real(v[r]));
		json_array_append_new(a, e);
	}
	return a;
}

static json_t *series(const struct gt_usage_history *h, const double *rate, const double *ring)
{
	json_t *o = json_object();
	json_object_set_new(o, "rate", triple(rate));
	json_object_set_new(o, "buckets", buckets(h, ring));
	return o;
}

char *gt_usage_store_encode(const struct gt_usage_history *h)
{
	json_t *root = json_object(), *queues = json_object();
	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(root, "bucketSeconds", json_integer(h->bucket_s));
	json_object_set_new(root, "slots", json_integer(h->n_slots));
	json_object_set_new(root, "newest", json_integer(h->newest));
	json_object_set_new(root, "until", json_integer(h->until));
	json_object_set_new(root, "capacity", series(h, h->cap_rate, h->cap));
	for (uint32_t i = 0; i < h->n_queues; i++)
		json_object_set_new(queues, h->queues[i].name, series(h, h->queues[i].rate, h->queues[i].sum));
	json_object_set_new(root, "queues", queues);
	char *s = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
	json_decref(root);
	return s;
}

static int read_triple(json_t *a, double *out)
{
	if (!json_is_array(a) || json_array_size(a) != GT_NQRES)
		return -1;
	for (int r = 0; r < GT_NQRES; r++) {
		json_t *v = json_array_get(a, (size_t)r);
		if (!json_is_number(v))
			return -1;
		out[r] = json_number_value(v);
	}
	return 0;
}

static int read_series(json_t *o, const struct gt_usage_history *h, double *rate, double *ring)
{
	if (read_triple(json_object_get(o, "rate"), rate))
		return -1;
	json_t *list = json_object_get(o, "buckets");
	if (!json_is_array(list))
		return -1;
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *e = json_array_get(list, i);
		if (!json_is_array(e) || json_array_size(e) != GT_NQRES + 1 || !json_is_integer(json_array_get(e, 0)))
			return -1;
		int64_t b = json_integer_value(json_array_get(e, 0));
		if (b > h->newest || b <= h->newest - h->n_slots)
			continue;	/* outside the ring: long gone */
		int64_t s = b % h->n_slots;
		double *v = ring + (size_t)(s < 0 ? s + h->n_slots : s) * GT_NQRES;
		for (int r = 0; r < GT_NQRES; r++) {
			json_t *x = json_array_get(e, (size_t)r + 1);
			if (!json_is_number(x))
				return -1;
			v[r] = json_number_value(x);
		}
	}
	return 0;
}

int gt_usage_store_decode(const char *text, struct gt_usage_history *h, struct gt_err *err)
{
	memset(h, 0, sizeof(*h));
	json_error_t je;
	json_t *root = json_loads(text, 0, &je);
	json_t *w = json_object_get(root, "bucketSeconds"), *n = json_object_get(root, "slots");
	if (!root || json_integer_value(json_object_get(root, "version")) != 1 || !json_is_integer(w) ||
	    !json_is_integer(n) || json_integer_value(w) < 1 || json_integer_value(n) < 2 ||
	    json_integer_value(n) > 1000000) {
		json_decref(root);
		return gt_errf(err, GT_EPARSE, "%s: not a usage history of version 1", DATA_KEY);
	}
	struct gt_usage_params p = { .window_s = json_integer_value(w) * (json_integer_value(n) - 2) };
	gt_usage_init(h, &p, 0);
	int rc = 0;
	if (h->bucket_s != json_integer_value(w) || h->n_slots != json_integer_value(n)) {
		/* the same sizes, whatever rule made them: take them as written */
		free(h->cap);
		h->bucket_s = json_integer_value(w);
		h->n_slots = (uint32_t)json_integer_value(n);
		h->cap = gt_xcalloc((size_t)h->n_slots * GT_NQRES, sizeof(double));
	}
	h->newest = json_integer_value(json_object_get(root, "newest"));
	h->until = json_integer_value(json_object_get(root, "until"));
	if (read_series(json_object_get(root, "capacity"), h, h->cap_rate, h->cap))
		rc = gt_errf(err, GT_EPARSE, "%s: capacity: malformed", DATA_KEY);
	const char *name;
	json_t *q;
	json_object_foreach(json_object_get(root, "queues"), name, q) {
		if (rc)
			break;
		struct gt_usage_queue *uq = gt_usage_queue(h, name);
		if (read_series(q, h, uq->rate, uq->sum))
			rc = gt_errf(err, GT_EPARSE, "%s: queue %s: malformed", DATA_KEY, name);
	}
	json_decref(root);
	if (rc) {
		gt_usage_release(h);
		memset(h, 0, sizeof(*h));
	}
	return rc;
}

int gt_usage_store_load(struct gt_kube_client *cl, const char *ns, const char *name,
			const struct gt_usage_params *p, int64_t now, struct gt_usage_history *h,
			struct gt_err *err)
{
	char path[512];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps/%s", ns, name);
	struct gt_kube_resp r = { 0 };
	int rc = 0;
	gt_kube_call(cl, GT_VERB_GET, "GET", path, NULL, NULL, &r);
	if (r.status == 404) {
		rc = GT_ENOTFOUND;
	} else if (r.status != 200) {
		rc = gt_errf(err, GT_EIO, "cannot read ConfigMap %s/%s: %s", ns, name, gt_kube_why(&r));
	} else {
		json_t *cm = json_loadb(r.body, r.len, 0, NULL);
		const char *text = json_string_value(json_object_get(json_object_get(cm, "data"), DATA_KEY));
		if (!text)
			rc = gt_errf(err, GT_EPARSE, "ConfigMap %s/%s has no data.%s", ns, name, DATA_KEY);
		else if (!gt_usage_store_decode(text, h, err))
			gt_usage_configure(h, p, now);
		else
			rc = GT_EPARSE;
		json_decref(cm);
	}
	gt_kube_resp_release(&r);
	if (rc)
		gt_usage_init(h, p, now);
	return rc;
}

int gt_usage_store_save(struct gt_kube_client *cl, const char *ns, const char *name,
			const struct gt_usage_history *h, struct gt_err *err)
{
	char *text = gt_usage_store_encode(h);
	size_t len = strlen(text);
	if (len > GT_USAGE_STORE_MAX) {
		/* the API server would refuse it (a ConfigMap holds 1 MiB): say why, plainly */
		free(text);
		return gt_errf(err, GT_EINVAL,
			       "the usage history of %u queues is %zu kB, more than ConfigMap %s/%s can hold "
			       "(1 MiB): it is kept in memory only and a restart loses it",
			       h->n_queues, len / 1024, ns, name);
	}
	json_t *cm = json_object(), *meta = json_object(), *data = json_object(), *labels = json_object();
	json_object_set_new(cm, "apiVersion", json_string("v1"));
	json_object_set_new(cm, "kind", json_string("ConfigMap"));
	json_object_set_new(meta, "name", json_string(name));
	json_object_set_new(meta, "namespace", json_string(ns));
	json_object_set_new(labels, "app.kubernetes.io/part-of", json_string("gantry"));
	json_object_set_new(meta, "labels", labels);
	json_object_set_new(cm, "metadata", meta);
	json_object_set_new(data, DATA_KEY, json_string(text));
	json_object_set_new(cm, "data", data);
	char *body = json_dumps(cm, JSON_COMPACT);
	json_decref(cm);
	free(text);
	char path[512];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps/%s", ns, name);
	struct gt_kube_resp r = { 0 };
	gt_kube_call(cl, GT_VERB_PUT, "PUT", path, "application/json", body, &r);
	if (r.status == 404) {	/* the first time: create it */
		gt_kube_resp_release(&r);
		snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps", ns);
		gt_kube_call(cl, GT_VERB_POST, "POST", path, "application/json", body, &r);
	}
	int rc = r.status == 200 || r.status == 201 ? 0 :
		 gt_errf(err, GT_EIO, "cannot write ConfigMap %s/%s: %s", ns, name, gt_kube_why(&r));
	gt_kube_resp_release(&r);
	free(body);
	return rc;
}
