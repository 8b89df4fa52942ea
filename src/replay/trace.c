#include "replay/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/csv.h"
#include "util/mem.h"
#include "util/strtab.h"
#include "util/time.h"

static const char *const format_names[GT_N_TRACE_FORMATS] = {
	[GT_TRACE_PHILLY] = "philly",
	[GT_TRACE_OPENB] = "openb",
	[GT_TRACE_ITP] = "itp",
	[GT_TRACE_CRUX] = "crux",
};

enum gt_trace_format gt_trace_format_from_name(const char *name)
{
	int f = gt_name_index(format_names, GT_N_TRACE_FORMATS, name);
	return f < 0 ? GT_N_TRACE_FORMATS : (enum gt_trace_format)f;
}

const char *gt_trace_format_name(enum gt_trace_format f)
{
	return (unsigned)f < GT_N_TRACE_FORMATS ? format_names[f] : "?";
}

const char *gt_qos_name(enum gt_qos q)
{
	static const char *const names[] = { "", "LS", "BE", "Burstable", "Guaranteed" };
	return (unsigned)q < sizeof(names) / sizeof(names[0]) ? names[q] : "";
}

void gt_trace_init(struct gt_trace *t)
{
	memset(t, 0, sizeof(*t));
	gt_strtab_init(&t->tenants);
	gt_strtab_init(&t->specs);
}

void gt_trace_release(struct gt_trace *t)
{
	free(t->path);
	free(t->jobs);
	gt_strtab_release(&t->tenants);
	gt_strtab_release(&t->specs);
	memset(t, 0, sizeof(*t));
}

/* ---------------------------------------------------------------- helpers */

/* Columns a loader needs; a missing one is an error that lists the header. */
static int need_cols(const struct gt_csv *r, const char *const *names, int *cols, int n,
		     struct gt_err *err)
{
	for (int i = 0; i < n; i++) {
		cols[i] = gt_csv_col(r, names[i]);
		if (cols[i] < 0)
			return gt_errf(err, GT_EPARSE, "%s:1: no column '%s' in the header", r->name,
				       names[i]);
	}
	return 0;
}

/* A run time in seconds: non-negative, rounded up so no work is lost. */
static int read_duration(const struct gt_csv *r, int col, int64_t *out, struct gt_err *err)
{
	double v;
	int rc = gt_csv_double(r, col, NULL, &v, err);
	if (rc)
		return rc;
	if (v < 0 || v > 1e12)
		return gt_csv_fail(r, err, col, "must be a duration in seconds (0 or more)");
	*out = (int64_t)ceil(v);
	return 0;
}

static int read_count(const struct gt_csv *r, int col, int64_t min, int64_t max, int64_t *out,
		      struct gt_err *err)
{
	double v;
	int rc = gt_csv_double(r, col, NULL, &v, err);
	if (rc)
		return rc;
	if (v != floor(v) || v < (double)min || v > (double)max) {
		char what[96];
		snprintf(what, sizeof(what), "must be a whole number from %lld to %lld",
			 (long long)min, (long long)max);
		return gt_csv_fail(r, err, col, what);
	}
	*out = (int64_t)v;
	return 0;
}

/* A gang of ceil(gpus / split) pods: a job bigger than a server spans servers. */
static void set_gang(struct gt_rjob *j, int64_t gpus, int32_t split)
{
	j->gpus = (int32_t)gpus;
	j->n_pods = gpus > split ? (int32_t)((gpus + split - 1) / split) : 1;
}

static struct gt_rjob *new_job(struct gt_trace *t, const struct gt_csv *r)
{
	GT_GROW(t->jobs, t->n_jobs + 1, t->cap_jobs);
	struct gt_rjob *j = &t->jobs[t->n_jobs++];
	memset(j, 0, sizeof(*j));
	j->tenant = GT_NONE;
	j->gpu_spec = GT_NONE;
	j->line = (uint32_t)r->line;
	return j;
}

static int32_t intern_tenant(struct gt_trace *t, const char *name)
{
	return *name ? (int32_t)gt_strtab_intern(&t->tenants, name) : GT_NONE;
}

/* ---------------------------------------------------------------- philly */

static int philly_row(struct gt_trace *t, const struct gt_csv *r, const int *col,
		      const struct gt_trace_opts *o, struct gt_err *err)
{
	struct gt_rjob *j = new_job(t, r);
	if (gt_time_parse_civil(r->fields[col[0]], &j->submit))
		return gt_csv_fail(r, err, col[0], "not a time YYYY-MM-DD HH:MM:SS");
	int64_t gpus;
	int rc = read_duration(r, col[1], &j->duration, err);
	if (!rc)
		rc = read_count(r, col[2], 0, 100000, &gpus, err);
	if (rc)
		return rc;
	set_gang(j, gpus, o->gang_split);
	j->tenant = intern_tenant(t, r->fields[col[3]]);
	return 0;
}

/* ---------------------------------------------------------------- openb */

struct openb_cols {
	int cpu, mem, gpu, milli, spec, qos, created, deleted, scheduled;
};

static int openb_qos(const struct gt_csv *r, int col, uint8_t *out, struct gt_err *err)
{
	static const struct {
		const char *name;
		enum gt_qos q;
	} map[] = { { "LS", GT_QOS_LS }, { "BE", GT_QOS_BE }, { "Burstable", GT_QOS_BURSTABLE },
		    { "Guaranteed", GT_QOS_GUARANTEED }, { "", GT_QOS_NONE } };
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(r->fields[col], map[i].name)) {
			*out = (uint8_t)map[i].q;
			return 0;
		}
	return gt_csv_fail(r, err, col, "must be LS, BE, Burstable or Guaranteed");
}

static int openb_times(const struct gt_csv *r, const struct openb_cols *c, struct gt_rjob *j,
		       struct gt_err *err)
{
	int64_t created, deleted, scheduled, none = -1;
	int rc = gt_csv_int(r, c->created, NULL, &created, err);
	if (!rc)
		rc = gt_csv_int(r, c->deleted, NULL, &deleted, err);
	if (!rc)
		rc = gt_csv_int(r, c->scheduled, &none, &scheduled, err);
	if (rc)
		return rc;
	if (created < 0)
		return gt_csv_fail(r, err, c->created, "must not be negative");
	/* a pod never scheduled in the trace ran for no time there: it waited until deleted */
	int64_t from = scheduled >= 0 ? scheduled : created;
	if (deleted < from)
		return gt_csv_fail(r, err, c->deleted, "is before the pod was created or scheduled");
	j->submit = GT_TRACE_EPOCH + created;
	j->duration = deleted - from;
	return 0;
}

static int openb_row(struct gt_trace *t, const struct gt_csv *r, const struct openb_cols *c,
		     struct gt_err *err)
{
	struct gt_rjob *j = new_job(t, r);
	int64_t cpu, mem, gpu, milli;
	int rc = read_count(r, c->cpu, 0, INT64_C(1) << 40, &cpu, err);
	if (!rc)
		rc = read_count(r, c->mem, 0, INT64_C(1) << 30, &mem, err);
	if (!rc)
		rc = read_count(r, c->gpu, 0, 64, &gpu, err);
	if (!rc)
		rc = read_count(r, c->milli, 0, 1000, &milli, err);
	if (rc)
		return rc;
	j->cpu_milli = cpu;
	j->mem_bytes = mem << 20;
	j->n_pods = 1;
	if (gpu == 1 && milli > 0 && milli < 1000) {
		j->frac_milli = (int32_t)milli;
	} else {
		if (gpu > 0 && milli != 1000)
			return gt_csv_fail(r, err, c->milli,
					   "must be 1000 for a pod of several GPUs (a fraction is for one GPU)");
		j->gpus = (int32_t)gpu;
	}
	if (c->spec >= 0 && r->fields[c->spec][0] && (j->gpus || j->frac_milli))
		j->gpu_spec = (int32_t)gt_strtab_intern(&t->specs, r->fields[c->spec]);
	if (c->qos >= 0 && (rc = openb_qos(r, c->qos, &j->qos, err)))
		return rc;
	if (c->created < 0) {
		/* the packing-only variants: arrival order is all there is */
		j->submit = GT_TRACE_EPOCH + t->n_jobs - 1;
		j->duration = -1;
		return 0;
	}
	return openb_times(r, c, j, err);
}

static int openb_columns(const struct gt_csv *r, struct openb_cols *c, bool *has_times,
			 struct gt_err *err)
{
	static const char *const base[] = { "cpu_milli", "memory_mib", "num_gpu", "gpu_milli" };
	int cols[4];
	int rc = need_cols(r, base, cols, 4, err);
	if (rc)
		return rc;
	*c = (struct openb_cols){ cols[0], cols[1], cols[2], cols[3], gt_csv_col(r, "gpu_spec"),
				  gt_csv_col(r, "qos"), gt_csv_col(r, "creation_time"),
				  gt_csv_col(r, "deletion_time"), gt_csv_col(r, "scheduled_time") };
	*has_times = c->created >= 0;
	if (*has_times && (c->deleted < 0 || c->scheduled < 0))
		return gt_errf(err, GT_EPARSE,
			       "%s:1: creation_time needs deletion_time and scheduled_time columns",
			       r->name);
	return 0;
}

/* ---------------------------------------------------------------- itp, crux */

static int itp_row(struct gt_trace *t, const struct gt_csv *r, const int *col,
		   const struct gt_trace_opts *o, struct gt_err *err)
{
	struct gt_rjob *j = new_job(t, r);
	int64_t submit, gpus;
	int rc = read_count(r, col[0], 0, INT64_C(1) << 40, &submit, err);
	if (!rc)
		rc = read_duration(r, col[1], &j->duration, err);
	if (!rc)
		rc = read_count(r, col[2], 0, 100000, &gpus, err);
	if (rc)
		return rc;
	j->submit = GT_TRACE_EPOCH + submit;
	set_gang(j, gpus, o->gang_split);
	return 0;
}

static int crux_row(struct gt_trace *t, const struct gt_csv *r, const int *col,
		    const struct gt_trace_opts *o, struct gt_err *err)
{
	struct gt_rjob *j = new_job(t, r);
	double arrival;
	int64_t gpus;
	int rc = gt_csv_double(r, col[0], NULL, &arrival, err);
	if (!rc && (arrival < 0 || arrival > 1e12))
		rc = gt_csv_fail(r, err, col[0], "must be seconds from the trace's start (0 or more)");
	if (!rc)
		rc = read_count(r, col[1], 0, 100000, &gpus, err);
	if (!rc)
		rc = read_duration(r, col[2], &j->duration, err);
	if (rc)
		return rc;
	j->submit = GT_TRACE_EPOCH + (int64_t)floor(arrival);
	set_gang(j, gpus, o->gang_split);
	return 0;
}

/* ---------------------------------------------------------------- loading */

static int job_cmp(const void *a, const void *b)
{
	const struct gt_rjob *x = a, *y = b;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int load_rows(struct gt_trace *t, struct gt_csv *r, const struct gt_trace_opts *o,
		     struct gt_err *err)
{
	static const char *const philly[] = { "timestamp", "duration", "num_gpus", "cluster" };
	static const char *const itp[] = { "submission_time", "duration", "num_gpu" };
	static const char *const crux[] = { "arrival time (sec)", "size", "duration (sec)" };
	int col[4] = { 0 };
	struct openb_cols oc = { 0 };
	int rc = 0;
	t->has_times = true;
	switch (t->format) {
	case GT_TRACE_PHILLY:
		rc = need_cols(r, philly, col, 4, err);
		break;
	case GT_TRACE_OPENB:
		rc = openb_columns(r, &oc, &t->has_times, err);
		break;
	case GT_TRACE_ITP:
		rc = need_cols(r, itp, col, 3, err);
		break;
	default:
		rc = need_cols(r, crux, col, 3, err);
		break;
	}
	while (!rc && (rc = gt_csv_next(r, err)) == 1) {
		switch (t->format) {
		case GT_TRACE_PHILLY:
			rc = philly_row(t, r, col, o, err);
			break;
		case GT_TRACE_OPENB:
			rc = openb_row(t, r, &oc, err);
			break;
		case GT_TRACE_ITP:
			rc = itp_row(t, r, col, o, err);
			break;
		default:
			rc = crux_row(t, r, col, o, err);
			break;
		}
		if (!rc && t->jobs[t->n_jobs - 1].duration == 0)
			t->zero_duration++;
	}
	return rc;
}

static bool same_philly_row(const struct gt_rjob *a, const struct gt_rjob *b)
{
	return a->submit == b->submit && a->duration == b->duration && a->gpus == b->gpus &&
	       a->tenant == b->tenant;
}

/*
 * Philly's table repeats 65 rows exactly (its README): one job logged twice,
 * replayed once. Jobs are sorted by submit time, so repeats share a run of
 * equal submit times.
 */
static void drop_philly_duplicates(struct gt_trace *t)
{
	uint32_t out = 0, run = 0;
	for (uint32_t i = 0; i < t->n_jobs; i++) {
		const struct gt_rjob *j = &t->jobs[i];
		if (out && t->jobs[out - 1].submit != j->submit)
			run = out;
		bool dup = false;
		for (uint32_t k = run; k < out && !dup; k++)
			dup = same_philly_row(&t->jobs[k], j);
		if (dup)
			t->duplicates++;
		else
			t->jobs[out++] = *j;
	}
	t->n_jobs = out;
}

int gt_trace_load(struct gt_trace *t, enum gt_trace_format format, const char *path,
		  const struct gt_trace_opts *o, struct gt_err *err)
{
	struct gt_trace_opts dflt = { .gang_split = 8 };
	if (!o || o->gang_split <= 0)
		o = &dflt;
	struct gt_csv r;
	t->format = format;
	free(t->path);
	t->path = gt_xstrdup(path);
	int rc = gt_csv_open(&r, path, err);
	if (!rc)
		rc = load_rows(t, &r, o, err);
	gt_csv_close(&r);
	if (rc)
		return rc;
	if (!t->n_jobs)
		return gt_errf(err, GT_EPARSE, "%s: no jobs in the trace", path);
	/* rows are not always in submit order (Philly's are not); file order breaks ties */
	qsort(t->jobs, t->n_jobs, sizeof(*t->jobs), job_cmp);
	if (format == GT_TRACE_PHILLY)
		drop_philly_duplicates(t);
	return 0;
}

/* ---------------------------------------------------------------- VC sizes */

void gt_vc_sizes_free(struct gt_vc_size *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

int gt_vc_sizes_load(const char *path, struct gt_vc_size **out, uint32_t *n, struct gt_err *err)
{
	static const char *const names[] = { "vc", "node num" };
	struct gt_csv r;
	struct gt_vc_size *v = NULL;
	uint32_t len = 0, cap = 0;
	int col[2] = { 0 };
	int rc = gt_csv_open(&r, path, err);
	if (!rc)
		rc = need_cols(&r, names, col, 2, err);
	while (!rc && (rc = gt_csv_next(&r, err)) == 1) {
		int64_t nodes;
		if ((rc = read_count(&r, col[1], 0, 1000000, &nodes, err)))
			break;
		if (!r.fields[col[0]][0]) {
			rc = gt_csv_fail(&r, err, col[0], "empty");
			break;
		}
		struct gt_vc_size s = { gt_xstrdup(r.fields[col[0]]), nodes };
		GT_PUSH(v, len, cap, s);
	}
	gt_csv_close(&r);
	if (rc) {
		gt_vc_sizes_free(v, len);
		return rc;
	}
	*out = v;
	*n = len;
	return 0;
}

/* ---------------------------------------------------------------- openb nodes */

static void add_openb_node(struct gt_cluster *c, const char *name, int64_t cpu, int64_t mem_mib,
			   int64_t gpus, const char *model)
{
	GT_GROW(c->nodes, c->n_nodes + 1, c->cap_nodes);
	struct gt_node *n = &c->nodes[c->n_nodes++];
	memset(n, 0, sizeof(*n));
	n->name = gt_strtab_intern(c->names, name);
	n->ready = true;
	n->cpu_milli = cpu;
	n->mem_bytes = mem_mib << 20;
	n->pods = 256;	/* the trace puts no pod limit on its nodes */
	n->gpus = (int32_t)gpus;
	n->gpu_mem_mib = 100;
	if (*model) {
		n->labels.v = gt_xmalloc(sizeof(*n->labels.v));
		n->labels.v[0] = (struct gt_label){ gt_strtab_intern(c->names, GT_GPU_MODEL_LABEL),
						    gt_strtab_intern(c->names, model) };
		n->labels.n = 1;
	}
}

static bool has_node(const struct gt_cluster *c, const char *name)
{
	int64_t id = gt_strtab_find(c->names, name);
	for (uint32_t n = 0; id >= 0 && n < c->n_nodes; n++)
		if (c->nodes[n].name == (uint32_t)id)
			return true;
	return false;
}

int gt_openb_nodes_load(const char *path, struct gt_cluster *c, struct gt_err *err)
{
	static const char *const names[] = { "sn", "cpu_milli", "memory_mib", "gpu", "model" };
	struct gt_csv r;
	int col[5] = { 0 };
	int rc = gt_csv_open(&r, path, err);
	if (!rc)
		rc = need_cols(&r, names, col, 5, err);
	while (!rc && (rc = gt_csv_next(&r, err)) == 1) {
		int64_t cpu, mem, gpus;
		if ((rc = read_count(&r, col[1], 0, INT64_C(1) << 40, &cpu, err)) ||
		    (rc = read_count(&r, col[2], 0, INT64_C(1) << 30, &mem, err)) ||
		    (rc = read_count(&r, col[3], 0, GT_MAX_DEVICES * 4, &gpus, err)))
			break;
		if (!r.fields[col[0]][0]) {
			rc = gt_csv_fail(&r, err, col[0], "empty");
			break;
		}
		if (has_node(c, r.fields[col[0]])) {
			rc = gt_csv_fail(&r, err, col[0], "a node of that name already exists");
			break;
		}
		add_openb_node(c, r.fields[col[0]], cpu, mem, gpus, r.fields[col[4]]);
	}
	gt_csv_close(&r);
	return rc;
}
