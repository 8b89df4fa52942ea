#include "scheduler/usagestore.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/mem.h"

#define DATA_KEY "usage.json"

void gt_usage_store_name(const char *shard, char *buf, size_t len)
{
	snprintf(buf, len, "gantry-usage-%s", shard);
}

void gt_usage_store_part_name(const char *base, char slot, uint32_t i, char *buf, size_t len)
{
	snprintf(buf, len, "%s-%c-%u", base, slot, i);
}

/* ---------------------------------------------------------------- encoding */

/*
 * A sum as JSON: an integer when it is one (allocations in milli-units and
 * bytes over whole seconds nearly always are), exact and several times
 * quicker to print than a real; otherwise a real to 17 digits, which reads
 * back as the same double (so a part read and written again is the same
 * text, and is not written again: stored_hash).
 */
static json_t *number(double v)
{
	if (v > -9007199254740992.0 && v < 9007199254740992.0 && v == (double)(json_int_t)v)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *triple(const double *v)
{
	json_t *a = json_array();
	for (int r = 0; r < GT_NQRES; r++)
		json_array_append_new(a, number(v[r]));
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
			json_array_append_new(e, number(v[r]));
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

static char *dump(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
	json_decref(j);
	return s;
}

/* A queue's place: its name's hash, mixed so that the low bits (the part) spread. */
static uint32_t part_of(const char *queue, uint32_t n_parts)
{
	return (uint32_t)(gt_hash_mix(gt_hash_str(queue), 0) & (n_parts - 1));
}

/* Each queue's `"name":{series}` text, in name order (so a part's text does not depend on insertion). */
struct entry {
	const char *name;
	char *text;
	size_t len;
	uint32_t part;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

static struct entry *entries(const struct gt_usage_history *h)
{
	struct entry *e = gt_xcalloc(h->n_queues + 1, sizeof(*e));
	for (uint32_t i = 0; i < h->n_queues; i++) {
		const struct gt_usage_queue *q = &h->queues[i];
		char *key = dump(json_string(q->name)), *val = dump(series(h, q->rate, q->sum));
		size_t kl = strlen(key), vl = strlen(val);
		e[i].name = q->name;
		e[i].len = kl + 1 + vl;
		e[i].text = gt_xmalloc(e[i].len + 1);
		memcpy(e[i].text, key, kl);
		e[i].text[kl] = ':';
		memcpy(e[i].text + kl + 1, val, vl + 1);
		free(key);
		free(val);
	}
	qsort(e, h->n_queues, sizeof(*e), by_name);
	return e;
}

/* The largest part's queues (bytes) with @n parts. */
static size_t largest_part(struct entry *e, uint32_t n_queues, uint32_t n)
{
	size_t *sz = gt_xcalloc(n, sizeof(*sz)), max = 0;
	for (uint32_t i = 0; i < n_queues; i++) {
		size_t *s = &sz[part_of(e[i].name, n)];
		*s += e[i].len + 1;
		if (*s > max)
			max = *s;
	}
	free(sz);
	return max;
}

/* The framing of a part around its queues, with room for the largest numbers. */
#define PART_FRAME 128u

/* Part @i's queues as `{...}` (what says whether it changed). */
static char *part_queues(const struct entry *e, uint32_t n_queues, uint32_t i)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fputc('{', f);
	bool first = true;
	for (uint32_t q = 0; q < n_queues; q++) {
		if (e[q].part != i)
			continue;
		if (!first)
			fputc(',', f);
		fwrite(e[q].text, 1, e[q].len, f);
		first = false;
	}
	fputc('}', f);
	fclose(f);
	return buf;
}

static char *part_text(const char *queues, uint64_t gen, uint32_t i, uint32_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fprintf(f, "{\"generation\":%llu,\"part\":%u,\"parts\":%u,\"queues\":%s,\"version\":2}",
		(unsigned long long)gen, i, n, queues);
	fclose(f);
	return buf;
}

static char *manifest_text(const struct gt_usage_history *h, const struct gt_usage_store *next)
{
	json_t *root = json_object(), *parts = json_array();
	json_object_set_new(root, "version", json_integer(2));
	json_object_set_new(root, "generation", json_integer((json_int_t)next->generation));
	json_object_set_new(root, "bucketSeconds", json_integer(h->bucket_s));
	json_object_set_new(root, "slots", json_integer(h->n_slots));
	json_object_set_new(root, "newest", json_integer(h->newest));
	json_object_set_new(root, "until", json_integer(h->until));
	json_object_set_new(root, "highWater", json_integer(next->high_water));
	json_object_set_new(root, "capacity", series(h, h->cap_rate, h->cap));
	for (uint32_t i = 0; i < next->n_parts; i++) {
		char slot[2] = { next->part[i].slot, 0 };
		json_array_append_new(parts, json_pack("{s:s, s:I}", "slot", slot, "generation",
						       (json_int_t)next->part[i].generation));
	}
	json_object_set_new(root, "parts", parts);
	return dump(root);
}

/* ---------------------------------------------------------------- planning a write */

static void add_write(struct gt_usage_store_plan *plan, size_t *cap, const char *name, char *text)
{
	if (plan->n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		plan->w = gt_xrealloc(plan->w, *cap * sizeof(*plan->w));
	}
	struct gt_usage_store_write *w = &plan->w[plan->n++];
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->text = text;
}

/*
 * The part count: from the last one, doubled while a part is over the
 * target and halved while every part would stay under half of it (so a
 * history near a boundary does not move all its queues at every write).
 */
static uint32_t part_count(struct entry *e, uint32_t n_queues, uint32_t last)
{
	uint32_t n = last ? last : 1;
	while (n < GT_USAGE_STORE_MAX_PARTS && largest_part(e, n_queues, n) + PART_FRAME > GT_USAGE_STORE_PART_TARGET)
		n *= 2;
	while (n > 1 && largest_part(e, n_queues, n / 2) + PART_FRAME <= GT_USAGE_STORE_PART_TARGET / 2)
		n /= 2;
	return n;
}

int gt_usage_store_plan(const struct gt_usage_store *cur, const char *base, const struct gt_usage_history *h,
			struct gt_usage_store_plan *plan, struct gt_err *err)
{
	memset(plan, 0, sizeof(*plan));
	struct entry *e = entries(h);
	uint32_t n = part_count(e, h->n_queues, cur->n_parts);
	plan->queues = h->n_queues;
	plan->largest = largest_part(e, h->n_queues, n) + PART_FRAME;
	if (plan->largest > GT_USAGE_STORE_MAX) {
		/* the API server would refuse it (a ConfigMap holds 1 MiB): say why, plainly */
		for (uint32_t i = 0; i < h->n_queues; i++)
			free(e[i].text);
		free(e);
		return gt_errf(err, GT_EINVAL,
			       "the usage history of %u queues needs a part of %zu kB even split over %u "
			       "ConfigMaps %s-{a,b}-N, more than a ConfigMap can hold (1 MiB): it is kept in "
			       "memory only and a restart loses it",
			       h->n_queues, plan->largest / 1024, n, base);
	}
	for (uint32_t i = 0; i < h->n_queues; i++)
		e[i].part = part_of(e[i].name, n);
	struct gt_usage_store *next = &plan->next;
	*next = *cur;
	next->generation = cur->generation + 1;
	next->n_parts = n;
	/* parts that may exist beyond the new set: deleted once the manifest no longer names them */
	uint32_t stale_to = cur->high_water > cur->n_parts ? cur->high_water : cur->n_parts;
	next->high_water = stale_to > n ? stale_to : n;
	size_t cap = 0;
	char name[320];
	for (uint32_t i = 0; i < n; i++) {
		char *queues = part_queues(e, h->n_queues, i);
		uint64_t hash = gt_hash_mix(gt_hash_str(queues), n) | 1;	/* never 0: 0 is unknown (as stored_hash) */
		struct gt_usage_store_part *p = &next->part[i];
		bool named = i < cur->n_parts && cur->part[i].slot;
		if (named && n == cur->n_parts && cur->part[i].generation && cur->part[i].hash == hash) {
			free(queues);	/* unchanged: the manifest keeps naming it */
			continue;
		}
		/* the slot the current manifest does not name, so a crash before the manifest keeps it whole */
		p->slot = named && cur->part[i].slot == 'a' ? 'b' : 'a';
		p->generation = next->generation;
		p->hash = hash;
		gt_usage_store_part_name(base, p->slot, i, name, sizeof(name));
		add_write(plan, &cap, name, part_text(queues, next->generation, i, n));
		free(queues);
	}
	for (uint32_t i = n; i < GT_USAGE_STORE_MAX_PARTS; i++)
		next->part[i] = (struct gt_usage_store_part){ 0 };
	plan->manifest = plan->n;
	add_write(plan, &cap, base, manifest_text(h, next));
	for (uint32_t i = n; i < stale_to; i++)
		for (char slot = 'a'; slot <= 'b'; slot++) {
			gt_usage_store_part_name(base, slot, i, name, sizeof(name));
			add_write(plan, &cap, name, NULL);
		}
	for (uint32_t i = 0; i < h->n_queues; i++)
		free(e[i].text);
	free(e);
	return 0;
}

void gt_usage_store_plan_release(struct gt_usage_store_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++)
		free(plan->w[i].text);
	free(plan->w);
	memset(plan, 0, sizeof(*plan));
}

/* ---------------------------------------------------------------- reading */

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

/* A series into @rate and @ring: 0, or the field that is wrong. */
static const char *read_series(json_t *o, const struct gt_usage_history *h, double *rate, double *ring)
{
	if (!json_is_object(o))
		return "";
	if (read_triple(json_object_get(o, "rate"), rate))
		return ".rate";
	json_t *list = json_object_get(o, "buckets");
	if (!json_is_array(list))
		return ".buckets";
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *e = json_array_get(list, i);
		if (!json_is_array(e) || json_array_size(e) != GT_NQRES + 1 || !json_is_integer(json_array_get(e, 0)))
			return ".buckets";
		for (int r = 1; r <= GT_NQRES; r++)
			if (!json_is_number(json_array_get(e, (size_t)r)))
				return ".buckets";
	}
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *e = json_array_get(list, i);
		int64_t b = json_integer_value(json_array_get(e, 0));
		if (b > h->newest || b <= h->newest - h->n_slots)
			continue;	/* outside the ring: long gone */
		int64_t s = b % h->n_slots;
		double *v = ring + (size_t)(s < 0 ? s + h->n_slots : s) * GT_NQRES;
		for (int r = 0; r < GT_NQRES; r++)
			v[r] = json_number_value(json_array_get(e, (size_t)r + 1));
	}
	return NULL;
}

/* The manifest's (or a version 1 history's) buckets and clock into an empty @h. */
static int read_header(json_t *root, const char *name, struct gt_usage_history *h, struct gt_err *err)
{
	json_t *w = json_object_get(root, "bucketSeconds"), *n = json_object_get(root, "slots");
	const char *bad = !json_is_integer(w) || json_integer_value(w) < 1		   ? "bucketSeconds"
			  : !json_is_integer(n) || json_integer_value(n) < 2 ||
					  json_integer_value(n) > 1000000 ? "slots"
			  : !json_is_integer(json_object_get(root, "newest"))	   ? "newest"
			  : !json_is_integer(json_object_get(root, "until"))	   ? "until"
										   : NULL;
	if (bad)
		return gt_errf(err, GT_EPARSE, "ConfigMap %s: data.%s: %s is missing or out of range", name,
			       DATA_KEY, bad);
	struct gt_usage_params p = { .window_s = json_integer_value(w) * (json_integer_value(n) - 2) };
	gt_usage_init(h, &p, 0);
	if (h->bucket_s != json_integer_value(w) || h->n_slots != json_integer_value(n)) {
		/* the same sizes, whatever rule made them: take them as written */
		free(h->cap);
		h->bucket_s = json_integer_value(w);
		h->n_slots = (uint32_t)json_integer_value(n);
		h->cap = gt_xcalloc((size_t)h->n_slots * GT_NQRES, sizeof(double));
	}
	h->newest = json_integer_value(json_object_get(root, "newest"));
	h->until = json_integer_value(json_object_get(root, "until"));
	const char *f = read_series(json_object_get(root, "capacity"), h, h->cap_rate, h->cap);
	if (f)
		return gt_errf(err, GT_EPARSE, "ConfigMap %s: data.%s: capacity%s is malformed", name, DATA_KEY, f);
	return 0;
}

/*
 * @queues (an object of series) into @h. A queue's series is read whole or
 * not at all: into a scratch queue first, so a bad one leaves @h as it was.
 */
static int read_queues(json_t *queues, const char *name, struct gt_usage_history *h, struct gt_err *err)
{
	if (!json_is_object(queues))
		return gt_errf(err, GT_EPARSE, "ConfigMap %s: data.%s: queues is not an object", name, DATA_KEY);
	double *ring = gt_xcalloc((size_t)h->n_slots * GT_NQRES, sizeof(double)), rate[GT_NQRES];
	const char *q;
	json_t *s;
	int rc = 0;
	json_object_foreach(queues, q, s) {
		const char *f = read_series(s, h, rate, ring);
		if (f) {
			rc = gt_errf(err, GT_EPARSE, "ConfigMap %s: data.%s: queues.%s%s is malformed", name, DATA_KEY,
				     q, f);
			break;
		}
		struct gt_usage_queue *uq = gt_usage_queue(h, q);
		memcpy(uq->rate, rate, sizeof(rate));
		memcpy(uq->sum, ring, (size_t)h->n_slots * GT_NQRES * sizeof(double));
		memset(ring, 0, (size_t)h->n_slots * GT_NQRES * sizeof(double));
	}
	free(ring);
	return rc;
}

/*
 * The hash a write compares with (gt_usage_store_plan) of a part as read:
 * that of its queues' text when the part is exactly as Gantry writes it,
 * so that a part whose queues did not change since is not written again
 * after a restart; 0 (unknown: written again) when it is not. @text is cut.
 */
static uint64_t stored_hash(char *text, uint64_t gen, uint32_t i, uint32_t n)
{
	char head[128];
	static const char tail[] = ",\"version\":2}";
	int hl = snprintf(head, sizeof(head), "{\"generation\":%llu,\"part\":%u,\"parts\":%u,\"queues\":",
			  (unsigned long long)gen, i, n);
	size_t len = strlen(text), tl = sizeof(tail) - 1;
	if (len < (size_t)hl + tl || strncmp(text, head, (size_t)hl) || strcmp(text + len - tl, tail))
		return 0;
	text[len - tl] = 0;
	return gt_hash_mix(gt_hash_str(text + hl), n) | 1;
}

/*
 * Part @i the manifest names, into @h; a part that cannot be used is told to
 * @warn and skipped. GT_EIO with @eio when it could not be read at all (the
 * whole read is tried again: skipping it would lose its queues for good).
 */
static int read_part(gt_usage_store_fetch_fn fetch, void *ctx, gt_usage_store_warn_fn warn, void *wctx,
		      const char *base, uint32_t i, uint32_t n, struct gt_usage_store_part *sp,
		     struct gt_usage_history *h, struct gt_err *eio)
{
	char name[320];
	gt_usage_store_part_name(base, sp->slot, i, name, sizeof(name));
	struct gt_err err = { 0 };
	char *text = NULL;
	int rc = fetch(ctx, name, &text, &err);
	if (rc == GT_EIO)
		return gt_errf(eio, GT_EIO, "%s", err.msg);
	if (rc == GT_ENOTFOUND)
		gt_errf(&err, GT_ENOTFOUND, "ConfigMap %s is missing", name);
	json_t *root = NULL;
	if (!rc) {
		json_error_t je;
		root = json_loads(text, 0, &je);
		json_t *g = json_object_get(root, "generation");
		if (!root)
			rc = gt_errf(&err, GT_EPARSE, "ConfigMap %s: data.%s: not JSON (%s)", name, DATA_KEY, je.text);
		else if (json_integer_value(json_object_get(root, "version")) != 2)
			rc = gt_errf(&err, GT_EPARSE, "ConfigMap %s: data.%s: version is not 2", name, DATA_KEY);
		else if (!json_is_integer(g) || (uint64_t)json_integer_value(g) != sp->generation)
			rc = gt_errf(&err, GT_EPARSE,
				     "ConfigMap %s: data.%s: generation is %lld, the manifest %s names generation %llu",
				     name, DATA_KEY, json_is_integer(g) ? (long long)json_integer_value(g) : -1LL, base,
				     (unsigned long long)sp->generation);
		else if (!json_is_integer(json_object_get(root, "part")) ||
			 json_integer_value(json_object_get(root, "part")) != i ||
			 json_integer_value(json_object_get(root, "parts")) != n)
			rc = gt_errf(&err, GT_EPARSE, "ConfigMap %s: data.%s: part/parts is not %u of %u", name,
				     DATA_KEY, i, n);
		else
			rc = read_queues(json_object_get(root, "queues"), name, h, &err);
	}
	if (rc) {
		char msg[700];
		snprintf(msg, sizeof(msg), "%s: its queues start with no usage", err.msg);
		warn(wctx, msg);
		sp->generation = 0;	/* written again at the next write, into the other slot */
	} else {
		sp->hash = stored_hash(text, sp->generation, i, n);
	}
	json_decref(root);
	free(text);
	return 0;
}

int gt_usage_store_read(gt_usage_store_fetch_fn fetch, void *ctx, gt_usage_store_warn_fn warn, void *wctx,
			const char *base, const struct gt_usage_params *p, int64_t now,
			struct gt_usage_history *h, struct gt_usage_store *st, struct gt_err *err)
{
	memset(h, 0, sizeof(*h));
	memset(st, 0, sizeof(*st));
	char *text = NULL;
	int rc = fetch(ctx, base, &text, err);
	json_t *root = NULL;
	if (!rc) {
		json_error_t je;
		root = json_loads(text, 0, &je);
		json_int_t version = json_integer_value(json_object_get(root, "version"));
		json_t *parts = json_object_get(root, "parts"), *gen = json_object_get(root, "generation");
		json_t *hw = json_object_get(root, "highWater");
		if (!root)
			rc = gt_errf(err, GT_EPARSE, "ConfigMap %s: data.%s: not JSON (%s)", base, DATA_KEY, je.text);
		else if (version != 1 && version != 2)
			rc = gt_errf(err, GT_EPARSE, "ConfigMap %s: data.%s: version is not 1 or 2", base, DATA_KEY);
		else if (version == 2 && (!json_is_integer(gen) || json_integer_value(gen) < 1))
			rc = gt_errf(err, GT_EPARSE, "ConfigMap %s: data.%s: generation is missing", base, DATA_KEY);
		else if (version == 2 && (!json_is_array(parts) || json_array_size(parts) < 1 ||
					  json_array_size(parts) > GT_USAGE_STORE_MAX_PARTS))
			rc = gt_errf(err, GT_EPARSE, "ConfigMap %s: data.%s: parts is not a list of 1 to %u", base,
				     DATA_KEY, GT_USAGE_STORE_MAX_PARTS);
		else if (version == 2 && hw && (!json_is_integer(hw) || json_integer_value(hw) < 0 ||
						json_integer_value(hw) > GT_USAGE_STORE_MAX_PARTS))
			rc = gt_errf(err, GT_EPARSE, "ConfigMap %s: data.%s: highWater is out of range", base, DATA_KEY);
		else
			rc = read_header(root, base, h, err);
		if (!rc && version == 1) {
			/* one ConfigMap with every queue: what Gantry wrote before the split */
			rc = read_queues(json_object_get(root, "queues"), base, h, err);
		} else if (!rc) {
			st->generation = (uint64_t)json_integer_value(gen);
			st->n_parts = (uint32_t)json_array_size(parts);
			st->high_water = (uint32_t)json_integer_value(hw);
			for (uint32_t i = 0; i < st->n_parts && !rc; i++) {
				json_t *e = json_array_get(parts, i), *g = json_object_get(e, "generation");
				const char *slot = json_string_value(json_object_get(e, "slot"));
				if (!slot || (strcmp(slot, "a") && strcmp(slot, "b")) || !json_is_integer(g) ||
				    json_integer_value(g) < 1)
					rc = gt_errf(err, GT_EPARSE, "ConfigMap %s: data.%s: parts[%u] needs a slot a "
						     "or b and a generation", base, DATA_KEY, i);
				else
					st->part[i] = (struct gt_usage_store_part){
						.generation = (uint64_t)json_integer_value(g), .slot = slot[0] };
			}
			for (uint32_t i = 0; i < st->n_parts && !rc; i++)
				rc = read_part(fetch, ctx, warn, wctx, base, i, st->n_parts, &st->part[i], h, err);
		}
	}
	json_decref(root);
	free(text);
	if (rc) {
		if (h->cap)
			gt_usage_release(h);
		gt_usage_init(h, p, now);
		if (rc != GT_ENOTFOUND && rc != GT_EIO) {
			/* the manifest is unusable: the next write starts a new one, parts in slot a */
			memset(st, 0, sizeof(*st));
			st->high_water = GT_USAGE_STORE_MAX_PARTS;
		}
		return rc;
	}
	gt_usage_configure(h, p, now);
	return 0;
}

/* ---------------------------------------------------------------- the cluster */

struct kube_ctx {
	struct gt_kube_client *cl;
	const char *ns;
};

static int kube_fetch(void *ctx, const char *name, char **text, struct gt_err *err)
{
	struct kube_ctx *k = ctx;
	char path[512];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps/%s", k->ns, name);
	struct gt_kube_resp r = { 0 };
	int rc = 0;
	gt_kube_call(k->cl, GT_VERB_GET, "GET", path, NULL, NULL, &r);
	if (r.status == 404) {
		rc = GT_ENOTFOUND;
	} else if (r.status != 200) {
		rc = gt_errf(err, GT_EIO, "cannot read ConfigMap %s/%s: %s", k->ns, name, gt_kube_why(&r));
	} else {
		json_t *cm = json_loadb(r.body, r.len, 0, NULL);
		const char *s = json_string_value(json_object_get(json_object_get(cm, "data"), DATA_KEY));
		if (s)
			*text = gt_xstrdup(s);
		else
			rc = gt_errf(err, GT_EPARSE, "ConfigMap %s/%s has no data.%s", k->ns, name, DATA_KEY);
		json_decref(cm);
	}
	gt_kube_resp_release(&r);
	return rc;
}

int gt_usage_store_load(struct gt_kube_client *cl, const char *ns, const char *base,
			const struct gt_usage_params *p, int64_t now, gt_usage_store_warn_fn warn, void *wctx,
			struct gt_usage_history *h, struct gt_usage_store *st, struct gt_err *err)
{
	struct kube_ctx k = { cl, ns };
	return gt_usage_store_read(kube_fetch, &k, warn, wctx, base, p, now, h, st, err);
}

/* Create or update ConfigMap @name with @text; or, @text NULL, delete it (gone already is fine). */
static int kube_put(struct gt_kube_client *cl, const char *ns, const char *name, const char *text,
		    size_t *written, struct gt_err *err)
{
	char path[512];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps/%s", ns, name);
	struct gt_kube_resp r = { 0 };
	if (!text) {
		gt_kube_call(cl, GT_VERB_DELETE, "DELETE", path, NULL, NULL, &r);
		int rc = r.status == 200 || r.status == 202 || r.status == 404 ? 0 :
			 gt_errf(err, GT_EIO, "cannot delete ConfigMap %s/%s: %s", ns, name, gt_kube_why(&r));
		gt_kube_resp_release(&r);
		return rc;
	}
	json_t *cm = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
			       "metadata", "name", name, "namespace", ns, "labels", "app.kubernetes.io/part-of",
			       "gantry", "data", DATA_KEY, text);
	char *body = json_dumps(cm, JSON_COMPACT);
	json_decref(cm);
	gt_kube_call(cl, GT_VERB_PUT, "PUT", path, "application/json", body, &r);
	if (r.status == 404) {	/* the first time: create it */
		gt_kube_resp_release(&r);
		snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps", ns);
		gt_kube_call(cl, GT_VERB_POST, "POST", path, "application/json", body, &r);
	}
	if (written)
		*written += strlen(body);
	int rc = r.status == 200 || r.status == 201 ? 0 :
		 gt_errf(err, GT_EIO, "cannot write ConfigMap %s/%s: %s", ns, name, gt_kube_why(&r));
	gt_kube_resp_release(&r);
	free(body);
	return rc;
}

int gt_usage_store_save(struct gt_kube_client *cl, const char *ns, const char *base,
			const struct gt_usage_history *h, struct gt_usage_store *st, size_t *written,
			struct gt_err *err)
{
	struct gt_usage_store_plan plan;
	int rc = gt_usage_store_plan(st, base, h, &plan, err);
	if (rc)
		return rc;
	size_t done = 0;
	for (; done < plan.n; done++)
		if ((rc = kube_put(cl, ns, plan.w[done].name, plan.w[done].text, written, err)))
			break;
	/*
	 * A failure before the manifest leaves the cluster's manifest as it
	 * was (naming none of the slots just written): *st stays, and the next
	 * write goes to the same slots again. Once the manifest is in, the
	 * cluster holds the new generation; the stale parts are gone unless a
	 * delete failed (then the next manifest still says highWater).
	 */
	if (done > plan.manifest) {
		*st = plan.next;
		if (!rc)
			st->high_water = st->n_parts;
	}
	gt_usage_store_plan_release(&plan);
	return rc;
}
