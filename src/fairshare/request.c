/*
 * request.c - KAI's fairshare-simulator request and response, on the core
 *
 * The request (cmd/fairshare-simulator/main.go, SimulateRequest):
 *	{"totalResource": {"GPU": 100, "CPU": 16000, "Memory": 32000000},
 *	 "queues": [{"uid": "queue1", "priority": 0, "creationTimestamp": "...",
 *	             "resourceShare": {"gpu": {"deserved": 10, "request": 100,
 *	                                       "overQuotaWeight": 3, "maxAllowed": -1}}}]}
 * GPUs in devices, CPU in millicores, memory in bytes. Defaults are KAI's
 * (resource_share_defaults.go): a resource's deserved 0 (GPU) or -1,
 * unlimited (CPU and memory when their section is absent), maxAllowed -1,
 * overQuotaWeight 1, request 100000; priority 0. KAI's service divides the
 * total among all the queues as siblings (parentQueue does not nest them)
 * with kValue 0; so does this. Two fields of Gantry's own, for trying
 * time-based fair share: "kValue" beside "queues", and "usage" (a fraction
 * of the cluster) beside a resource's "deserved".
 *
 * Struct fields match case-insensitively, as Go's encoding/json matches
 * them; totalResource's keys are a map's and match exactly, as in KAI.
 */
#include "fairshare/fairshare.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/fairshare.h"
#include "util/mem.h"
#include "util/time.h"

/* KAI's units to Gantry's: milli-GPU, milli-CPU, bytes. */
static const double scale[GT_NQRES] = { 1000, 1, 1 };
static const char *const res_key[GT_NQRES] = { "gpu", "cpu", "memory" };
static const char *const total_key[GT_NQRES + 1] = { "GPU", "CPU", "Memory", NULL };

void gt_go_float(double v, char *buf, size_t len)
{
	double a = fabs(v);
	bool expo = a != 0 && (a < 1e-6 || a >= 1e21);
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, expo ? "%.*e" : "%.*g", expo ? prec - 1 : prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (!expo && strchr(buf, 'e')) {	/* %g chose an exponent Go would not write */
		for (int dec = 0; dec <= 20; dec++) {
			snprintf(buf, len, "%.*f", dec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
	}
	char *e = strchr(buf, 'e');
	if (e && e[1] == '+' && e[2] == '0')	/* Go: 1e+21, 1e-07 */
		memmove(e + 2, e + 3, strlen(e + 3) + 1);
}

/* The member of @obj whose key equals @key ignoring case, as Go decodes struct fields. */
static json_t *field(json_t *obj, const char *key)
{
	const char *k;
	json_t *v;
	json_t *exact = json_object_get(obj, key);
	if (exact)
		return exact;
	json_object_foreach(obj, k, v)
		if (!strcasecmp(k, key))
			return v;
	return NULL;
}

/* Warn about the keys of @obj that are not in @known (NULL-terminated). */
static void unknown_keys(json_t *obj, const char *const *known, const char *where, FILE *diag,
			 const char *prefix, bool exact)
{
	const char *k;
	json_t *v;
	json_object_foreach(obj, k, v) {
		bool ok = false;
		for (size_t i = 0; known[i] && !ok; i++)
			ok = exact ? !strcmp(k, known[i]) : !strcasecmp(k, known[i]);
		if (!ok && diag)
			fprintf(diag, "%s: warning: %s.%s is not a field KAI's fairshare-simulator reads; ignored\n",
				prefix, where, k);
	}
}

static int number(json_t *v, const char *where, double *out, struct gt_err *err)
{
	if (!v || json_is_null(v))
		return 1;
	if (!json_is_number(v))
		return gt_errf(err, GT_EINVAL, "%s: must be a number", where);
	*out = json_number_value(v);
	return 0;
}

/* One resource's section of a queue's resourceShare into @q and the session's request. */
static int queue_resource(json_t *sec, int r, const char *where, struct gt_queue *q, int64_t *request,
			  FILE *diag, const char *prefix, struct gt_err *err)
{
	static const char *const known[] = { "deserved", "fairShare", "maxAllowed", "overQuotaWeight",
					     "allocated", "allocatedNotPreemptible", "request", "absoluteUsage",
					     "vacantAdjustedUsage", "usage", NULL };
	/* KAI's defaults; an absent CPU or memory section deserves everything */
	double des = sec || r == GT_QGPU ? 0 : -1, lim = -1, w = 1, req = 100000, use = 0, ignored = 0;
	char f[256];
	if (sec && !json_is_null(sec)) {
		if (!json_is_object(sec))
			return gt_errf(err, GT_EINVAL, "%s: must be an object", where);
		unknown_keys(sec, known, where, diag, prefix, false);
		const char *names[] = { "deserved", "maxAllowed", "overQuotaWeight", "request", "usage" };
		double *dest[] = { &des, &lim, &w, &req, &use };
		for (size_t i = 0; i < 5; i++) {
			snprintf(f, sizeof(f), "%s.%s", where, names[i]);
			if (number(field(sec, names[i]), f, dest[i], err) < 0)
				return GT_EINVAL;
		}
		snprintf(f, sizeof(f), "%s.fairShare", where);
		if (!number(field(sec, "fairShare"), f, &ignored, err) && ignored != 0 && diag)
			fprintf(diag, "%s: warning: %s: a starting fair share is not supported; the division starts "
				"from 0\n", prefix, f);
	}
	q->deserved[r] = des < 0 ? -1 : llround(des * scale[r]);
	q->limit[r] = lim < 0 ? -1 : llround(lim * scale[r]);
	q->weight[r] = w;
	q->usage[r] = use;
	*request = req > 0 ? llround(req * scale[r]) : 0;
	return 0;
}

static int parse_queue(json_t *jq, size_t i, struct gt_cluster *c, int64_t (*request)[GT_NQRES],
		       FILE *diag, const char *prefix, struct gt_err *err)
{
	static const char *const known[] = { "uid", "name", "parentQueue", "childQueues", "creationTimestamp",
					     "priority", "resourceShare", NULL };
	char where[96];
	snprintf(where, sizeof(where), "queues[%zu]", i);
	if (!json_is_object(jq))
		return gt_errf(err, GT_EINVAL, "%s: must be an object", where);
	unknown_keys(jq, known, where, diag, prefix, false);
	json_t *uid = field(jq, "uid");
	if (!json_is_string(uid) || !*json_string_value(uid))
		return gt_errf(err, GT_EINVAL, "%s.uid: must be a non-empty string (the response is keyed by it)",
			       where);
	struct gt_queue q = { .name = gt_strtab_intern(c->names, json_string_value(uid)), .parent = GT_NONE,
			      .preempt_min_runtime_s = -1, .reclaim_min_runtime_s = -1 };
	for (uint32_t k = 0; k < c->n_queues; k++)
		if (c->queues[k].name == q.name)
			return gt_errf(err, GT_EINVAL, "%s.uid: '%s' is given twice", where, json_string_value(uid));
	json_t *parent = field(jq, "parentQueue");
	if (json_is_string(parent) && *json_string_value(parent) && diag)
		fprintf(diag, "%s: warning: %s.parentQueue: KAI's fairshare-simulator divides the total among all "
			"the queues of a request as siblings; so does this\n", prefix, where);
	double prio = 0;
	snprintf(where + strlen(where), sizeof(where) - strlen(where), ".priority");
	if (number(field(jq, "priority"), where, &prio, err) < 0)
		return GT_EINVAL;
	q.priority = (int32_t)prio;
	/* KAI stamps a queue without a time with now: later than any given, in request order */
	q.created = INT64_MAX / 2 + (int64_t)i;
	json_t *ts = field(jq, "creationTimestamp");
	if (json_is_string(ts) && gt_time_parse(json_string_value(ts), &q.created))
		q.created = INT64_MAX / 2 + (int64_t)i;
	json_t *share = field(jq, "resourceShare");
	for (int r = 0; r < GT_NQRES; r++) {
		snprintf(where, sizeof(where), "queues[%zu].resourceShare.%s", i, res_key[r]);
		if (queue_resource(share ? field(share, res_key[r]) : NULL, r, where, &q, &request[c->n_queues][r],
				   diag, prefix, err))
			return GT_EINVAL;
	}
	GT_PUSH(c->queues, c->n_queues, c->cap_queues, q);
	return 0;
}

static char *response(const struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	uint32_t *order = gt_xmalloc((c->n_queues + 1) * sizeof(*order));
	for (uint32_t i = 0; i < c->n_queues; i++)	/* Go writes a map's keys sorted */
		order[i] = i;
	for (uint32_t a = 1; a < c->n_queues; a++)
		for (uint32_t b = a; b > 0 && strcmp(gt_strtab_str(c->names, c->queues[order[b - 1]].name),
						     gt_strtab_str(c->names, c->queues[order[b]].name)) > 0; b--) {
			uint32_t t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fputc('{', f);
	for (uint32_t i = 0; i < c->n_queues; i++) {
		uint32_t q = order[i];
		json_t *key = json_string(gt_strtab_str(c->names, c->queues[q].name));
		char *k = json_dumps(key, JSON_ENCODE_ANY);
		fprintf(f, "%s%s:{", i ? "," : "", k);
		free(k);
		json_decref(key);
		static const int out_order[GT_NQRES] = { GT_QGPU, GT_QCPU, GT_QMEM };
		for (int j = 0; j < GT_NQRES; j++) {
			int r = out_order[j];
			char num[64];
			gt_go_float((double)s->queues[q].fair_share[r] / scale[r], num, sizeof(num));
			fprintf(f, "%s\"%s\":%s", j ? "," : "", res_key[r], num);
		}
		fputc('}', f);
	}
	fputs("}\n", f);
	fclose(f);
	free(order);
	return buf;
}

int gt_fairshare_answer(const char *body, size_t len, char **out, FILE *diag, const char *prefix,
			struct gt_err *err)
{
	json_error_t je;
	json_t *root = json_loadb(body, len, 0, &je);
	if (!root)
		return gt_errf(err, GT_EPARSE, "not JSON: line %d: %s", je.line, je.text);
	int rc = 0;
	struct gt_strtab names;
	struct gt_cluster c;
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	c.config.k_value = 0;	/* KAI's service divides with kValue 0 */
	int64_t (*request)[GT_NQRES] = NULL;
	json_t *queues = field(root, "queues"), *total = field(root, "totalResource");
	static const char *const known[] = { "totalResource", "queues", "kValue", NULL };
	if (!json_is_object(root)) {
		rc = gt_errf(err, GT_EINVAL, "the request must be a JSON object with totalResource and queues");
		goto out;
	}
	unknown_keys(root, known, "request", diag, prefix, false);
	if (queues && !json_is_null(queues) && !json_is_array(queues)) {
		rc = gt_errf(err, GT_EINVAL, "queues: must be a list");
		goto out;
	}
	if (total && !json_is_null(total) && !json_is_object(total)) {
		rc = gt_errf(err, GT_EINVAL, "totalResource: must be an object such as {\"GPU\": 8}");
		goto out;
	}
	if (number(field(root, "kValue"), "kValue", &c.config.k_value, err) < 0) {
		rc = GT_EINVAL;
		goto out;
	}
	request = gt_xcalloc(json_array_size(queues) + 1, sizeof(*request));
	for (size_t i = 0; i < json_array_size(queues) && !rc; i++)
		rc = parse_queue(json_array_get(queues, i), i, &c, request, diag, prefix, err);
	if (rc)
		goto out;
	int64_t totals[GT_NQRES] = { 0 };
	if (json_is_object(total)) {
		unknown_keys(total, total_key, "totalResource", diag, prefix, true);
		for (int r = 0; r < GT_NQRES; r++) {
			double v = 0;
			char where[64];
			snprintf(where, sizeof(where), "totalResource.%s", total_key[r]);
			if (number(json_object_get(total, total_key[r]), where, &v, err) < 0) {
				rc = GT_EINVAL;
				goto out;
			}
			totals[r] = v > 0 ? llround(v * scale[r]) : 0;
		}
	}
	gt_cluster_link(&c);
	struct gt_session s;
	gt_session_open(&s, &c, 0);
	memcpy(s.total, totals, sizeof(totals));
	for (uint32_t q = 0; q < c.n_queues; q++)
		memcpy(s.queues[q].request, request[q], sizeof(request[q]));
	gt_fairshare_compute(&s);
	*out = response(&s);
	gt_session_release(&s);
out:
	free(request);
	gt_cluster_release(&c);
	gt_strtab_release(&names);
	json_decref(root);
	return rc;
}
