#include "explain/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/object.h"
#include "util/mem.h"
#include "util/num.h"
#include "util/time.h"

#define DEFAULT_GRACE_S 30

static void warn(struct gt_warnings *w, const struct gt_doc *o, const char *field, const char *why,
		 const char *value)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s %s/%s: %s: %s: '%s' (not used for the expected start)", gt_obj_kind(o),
		 gt_obj_ns(o), gt_obj_name(o), field, why, value);
	GT_PUSH(w->v, w->n, w->cap, gt_xstrdup(buf));
}

void gt_warnings_release(struct gt_warnings *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof(*w));
}

static const char *runtime_annotation(const struct gt_doc *o)
{
	return o ? gt_obj_annotation(o, GT_EXPECTED_RUNTIME_ANNOTATION) : NULL;
}

/* The annotation's run time in seconds; 0 when absent or bad (said, when @w). */
static int64_t annotated_runtime(const struct gt_doc *o, struct gt_warnings *w)
{
	const char *v = runtime_annotation(o);
	int64_t s;
	if (!v)
		return 0;
	if (gt_duration_parse_whole(v, &s) || s <= 0) {
		if (w)
			warn(w, o, "metadata.annotations." GT_EXPECTED_RUNTIME_ANNOTATION,
			     "must be a positive duration such as 2h or 90m", v);
		return 0;
	}
	return s;
}

/* Does a pod of job @j carry the annotation @v (the podgrouper copies it to the PodGroup)? */
static bool a_pod_says(const struct gt_ends_src *src, int32_t j, const char *v)
{
	const struct gt_job *job = &src->c->jobs[j];
	for (uint32_t k = 0; v && k < job->n_pods; k++) {
		const char *pv = runtime_annotation(src->pod_doc[job->pods[k]]);
		if (pv && !strcmp(pv, v))
			return true;
	}
	return false;
}

/* spec.activeDeadlineSeconds; 0 when absent or bad (said). */
static int64_t deadline_seconds(const struct gt_doc *o, struct gt_warnings *w)
{
	const char *v = o ? gt_doc_str(gt_doc_get(o, "spec"), "activeDeadlineSeconds") : NULL;
	int64_t s;
	if (!v)
		return 0;
	if (gt_parse_int(v, &s) || s <= 0) {
		warn(w, o, "spec.activeDeadlineSeconds", "must be a positive whole number", v);
		return 0;
	}
	return s;
}

static int64_t time_at(const struct gt_doc *o, const char *path, int64_t fallback)
{
	const struct gt_doc *d = o ? gt_doc_path(o, path) : NULL;
	int64_t t;
	if (d && d->kind == GT_DOC_SCALAR && !gt_time_parse(d->scalar, &t))
		return t;
	return fallback;
}

/* The pod's Job (its controller owner of kind Job), if the caller can find it. */
static const struct gt_doc *job_of(const struct gt_ends_src *src, const struct gt_doc *pod)
{
	const struct gt_doc *refs = gt_doc_path(pod, "metadata.ownerReferences");
	for (size_t i = 0; src->find && refs && refs->kind == GT_DOC_SEQ && i < refs->n; i++) {
		const char *kind = gt_doc_str(refs->items[i], "kind"), *name = gt_doc_str(refs->items[i], "name");
		if (kind && name && !strcmp(kind, "Job"))
			return src->find(src->arg, "Job", gt_obj_ns(pod), name);
	}
	return NULL;
}

/* When the pod's Job stops it; 0: never. */
static int64_t job_deadline(const struct gt_ends_src *src, const struct gt_doc *pod, struct gt_warnings *w)
{
	const struct gt_doc *job = job_of(src, pod);
	int64_t ads = deadline_seconds(job, w);
	if (!ads)
		return 0;
	return time_at(job, "status.startTime", time_at(job, "metadata.creationTimestamp", src->now)) + ads;
}

static void earliest(int64_t *end, enum gt_end_source *src, int64_t at, enum gt_end_source why)
{
	if (at > 0 && (!*end || at < *end)) {
		*end = at;
		*src = why;
	}
}

static void releasing_end(const struct gt_ends_src *src, int32_t p, const struct gt_doc *pod, struct gt_ends *e)
{
	int64_t grace = DEFAULT_GRACE_S;
	const char *g = pod ? gt_doc_str(gt_doc_get(pod, "metadata"), "deletionGracePeriodSeconds") : NULL;
	if (g && (gt_parse_int(g, &grace) || grace < 0))
		grace = DEFAULT_GRACE_S;
	int64_t end = time_at(pod, "metadata.deletionTimestamp", src->now) + grace;
	e->end[p] = end > src->now ? end : src->now + 1;
	e->end_source[p] = GT_END_RELEASING;
}

/* A running pod: its own annotation, its PodGroup's, its deadline, its Job's deadline. */
static void running_end(const struct gt_ends_src *src, int32_t p, const struct gt_doc *pod, struct gt_ends *e,
			struct gt_warnings *w)
{
	int32_t job = src->c->pods[p].job;
	int64_t start = time_at(pod, "status.startTime", time_at(pod, "metadata.creationTimestamp", src->now));
	int64_t run = annotated_runtime(pod, w);
	if (!run && job != GT_NONE && e->runtime_source[job] == GT_END_ANNOTATION)
		run = e->runtime[job];
	if (run)
		earliest(&e->end[p], &e->end_source[p], start + run, GT_END_ANNOTATION);
	int64_t ads = deadline_seconds(pod, w);
	if (ads)
		earliest(&e->end[p], &e->end_source[p], start + ads, GT_END_POD_DEADLINE);
	earliest(&e->end[p], &e->end_source[p], job_deadline(src, pod, w), GT_END_JOB_DEADLINE);
	/* the job's maximum run time (the decoder's: its PodGroup's, its queue's default), from its last start */
	const struct gt_job *jb = job != GT_NONE ? &src->c->jobs[job] : NULL;
	if (jb && jb->max_runtime_s > 0)
		earliest(&e->end[p], &e->end_source[p], (jb->last_start > 0 ? jb->last_start : start) + jb->max_runtime_s,
			 GT_END_MAX_RUNTIME);
}

/* What a pod of the job that starts later runs: the PodGroup's or its pods' annotation, else a deadline. */
static void job_runtime(const struct gt_ends_src *src, int32_t j, struct gt_ends *e, struct gt_warnings *w)
{
	const struct gt_job *job = &src->c->jobs[j];
	const struct gt_doc *pg = src->job_doc[j];
	/* a value copied from a pod is said once, on the pod */
	int64_t pg_run = annotated_runtime(pg, a_pod_says(src, j, runtime_annotation(pg)) ? NULL : w);
	int64_t run = 0, ads = 0;
	for (uint32_t k = 0; k < job->n_pods; k++) {
		const struct gt_doc *pod = src->pod_doc[job->pods[k]];
		if (!pod || gt_status_active_used(src->c->pods[job->pods[k]].status))
			continue;	/* a running pod's values are read (and said) with its end */
		int64_t r = annotated_runtime(pod, w);
		run = r > run ? r : run;	/* the gang runs as long as its longest pod */
		int64_t a = deadline_seconds(pod, w);
		ads = a && (!ads || a < ads) ? a : ads;
		int64_t dl = job_deadline(src, pod, w);
		if (dl && (!e->deadline[j] || dl < e->deadline[j]))
			e->deadline[j] = dl;
	}
	run = pg_run ? pg_run : run;
	if (run) {
		e->runtime[j] = run;
		e->runtime_source[j] = GT_END_ANNOTATION;
	} else if (ads) {
		e->runtime[j] = ads;
		e->runtime_source[j] = GT_END_POD_DEADLINE;
	} else if (job->max_runtime_s > 0) {
		e->runtime[j] = job->max_runtime_s;
		e->runtime_source[j] = GT_END_MAX_RUNTIME;
	}
}

void gt_ends_read(const struct gt_ends_src *src, struct gt_ends *e, struct gt_warnings *w)
{
	const struct gt_cluster *c = src->c;
	for (uint32_t j = 0; j < c->n_jobs; j++)
		job_runtime(src, (int32_t)j, e, w);
	for (uint32_t p = 0; p < c->n_pods; p++) {
		const struct gt_doc *pod = src->pod_doc[p];
		if (c->pods[p].status == GT_RELEASING)
			releasing_end(src, (int32_t)p, pod, e);
		else if (gt_status_active_used(c->pods[p].status) && pod)
			running_end(src, (int32_t)p, pod, e, w);
	}
}
