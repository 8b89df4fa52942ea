#include "explain/source.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/json.h"
#include "api/manifest.h"
#include "api/object.h"
#include "kube/cache.h"
#include "kube/config.h"
#include "kube/http.h"
#include "kube/reflector.h"
#include "podgrouper/podgrouper.h"
#include "scheduler/snapshot.h"
#include "util/clock.h"
#include "util/mem.h"

#define PREFIX "gantry explain"
#define MAX_JOB_READS 1000	/* a pod's Job is read by name: bounded */

struct ex_source_impl {
	struct gt_strtab names;
	struct gt_cluster c;
	/* files */
	struct gt_doc_list docs;
	struct gt_pg_batch pg;
	struct gt_decoder dec;
	bool have_dec;
	/* a cluster */
	struct gt_kube_client *cl;
	struct gt_cache *cache;
	struct gt_reflector *refl[GT_N_KRES];	/* watching until released: the client stays up for Jobs */
	struct gt_kube_snapshot snap;
	bool have_snap;
	struct gt_doc_list jobs;	/* Jobs read by name */
	size_t job_reads;
	bool jobs_refused;
};

/* ---------------------------------------------------------------- files */

static int group_pods(struct ex_source_impl *m)
{
	struct gt_pg_config cfg;
	struct gt_err err = { 0 };
	gt_pg_config_init(&cfg);
	int rc = gt_pg_group_all(&cfg, m->docs.docs, m->docs.n, &m->pg, &err);
	if (rc)
		fprintf(stderr, PREFIX ": %s\n", err.msg);
	gt_pg_batch_apply(&m->pg);
	for (size_t i = 0; i < m->pg.n_warnings; i++)
		fprintf(stderr, PREFIX ": warning: %s\n", m->pg.warnings[i]);
	gt_pg_config_release(&cfg);
	return rc ? 2 : 0;
}

static void list_rejections(struct ex_source *src, const struct gt_decoder *d)
{
	src->rejected = gt_xcalloc(d->n_rejections + 1, sizeof(*src->rejected));
	for (size_t i = 0; i < d->n_rejections; i++) {
		char text[1024];
		gt_rejection_format(&d->rejections[i], text, sizeof(text));
		src->rejected[i] = (struct ex_rejection){ .obj = d->objs[d->rejections[i].obj],
							  .text = gt_xstrdup(text) };
	}
	src->n_rejected = d->n_rejections;
}

static int open_files(struct ex_source *src, const struct ex_source_opts *o)
{
	struct ex_source_impl *m = src->impl;
	struct gt_err err = { 0 };
	if (gt_manifests_load(o->files.v, o->files.n, o->recursive, &m->docs, stderr, PREFIX, &err)) {
		fprintf(stderr, PREFIX ": %s\n", err.msg);
		return 2;
	}
	if (group_pods(m))
		return 2;
	gt_decoder_init(&m->dec);
	m->dec.claims_listed = true;	/* the input is the whole cluster, as simulate reads it */
	m->have_dec = true;
	for (size_t i = 0; i < m->pg.n_podgroups; i++)
		gt_decoder_add(&m->dec, m->pg.podgroups[i]);
	for (size_t i = 0; i < m->docs.n; i++)
		gt_decoder_add(&m->dec, m->docs.docs[i]);
	gt_decoder_build(&m->dec, &m->c, &err);
	/* a malformed object is left out and said; the rest is explained */
	gt_decoder_report(&m->dec, stderr, PREFIX);
	list_rejections(src, &m->dec);
	src->objs = (const struct gt_doc **)m->dec.objs;
	src->n_objs = m->dec.n_objs;
	src->pod_doc = gt_xcalloc(m->c.n_pods + 1, sizeof(*src->pod_doc));
	src->job_doc = gt_xcalloc(m->c.n_jobs + 1, sizeof(*src->job_doc));
	for (uint32_t i = 0; i < m->c.n_pods; i++)
		src->pod_doc[i] = m->dec.pod_obj[i] >= 0 ? m->dec.objs[m->dec.pod_obj[i]] : NULL;
	for (uint32_t i = 0; i < m->c.n_jobs; i++)
		src->job_doc[i] = m->dec.job_obj[i] >= 0 ? m->dec.objs[m->dec.job_obj[i]] : NULL;
	src->where = "in the input";
	return 0;
}

/* ---------------------------------------------------------------- a cluster */

/*
 * List every resource once: reflectors until all are synced. Their watches
 * go on until the source is released, and change nothing that was read: the
 * snapshot holds its own references. 0 or 2 (said).
 */
static int list_all(struct ex_source_impl *m, const struct ex_source_opts *o)
{
	struct gt_reflector_opts ro = { .page_size = 500, .watch_timeout_s = 60 };
	for (int r = 0; r < GT_N_KRES; r++)
		m->refl[r] = gt_reflector_start(m->cl, m->cache, (enum gt_kres)r, &ro);
	double deadline = gt_mono_s() + 2 * o->conn.api_timeout_s;
	uint64_t seen = gt_cache_version(m->cache, GT_KRES_ALL);
	while (!gt_cache_all_synced(m->cache, GT_KRES_ALL) && gt_mono_s() < deadline)
		seen = gt_cache_wait(m->cache, GT_KRES_ALL, seen, deadline);
	if (gt_cache_all_synced(m->cache, GT_KRES_ALL))
		return 0;
	fprintf(stderr, PREFIX ": could not list");
	for (int r = 0; r < GT_N_KRES; r++)
		if (!gt_cache_synced(m->cache, (enum gt_kres)r))
			fprintf(stderr, " %s", gt_kres[r].plural);
	fprintf(stderr, " within %.0f s (see the messages above)\n", 2 * o->conn.api_timeout_s);
	return 2;
}

static size_t count_objs(const struct gt_kube_snapshot *s)
{
	size_t n = 0;
	for (int r = 0; r < GT_N_KRES; r++)
		n += s->n[r];
	return n;
}

static void adopt_snapshot(struct ex_source *src, struct ex_source_impl *m)
{
	struct gt_kube_snapshot *s = &m->snap;
	src->c = &s->c;
	src->objs = gt_xcalloc(count_objs(s) + 1, sizeof(*src->objs));
	for (int r = 0; r < GT_N_KRES; r++)
		for (size_t i = 0; i < s->n[r]; i++)
			src->objs[src->n_objs++] = s->objs[r][i]->doc;
	src->pod_doc = gt_xcalloc(s->c.n_pods + 1, sizeof(*src->pod_doc));
	src->job_doc = gt_xcalloc(s->c.n_jobs + 1, sizeof(*src->job_doc));
	for (uint32_t i = 0; i < s->c.n_pods; i++)
		src->pod_doc[i] = s->pod_obj[i] ? s->pod_obj[i]->doc : NULL;
	for (uint32_t i = 0; i < s->c.n_jobs; i++)
		src->job_doc[i] = s->job_obj[i] ? s->job_obj[i]->doc : NULL;
	src->rejected = gt_xcalloc(s->n_rejected + 1, sizeof(*src->rejected));
	for (size_t i = 0; i < s->n_rejected; i++) {
		src->rejected[i] = (struct ex_rejection){ .obj = s->rejected[i].obj->doc,
							  .text = gt_xstrdup(s->rejected[i].text) };
		fprintf(stderr, PREFIX ": warning: %s %s/%s left out: %s\n", gt_obj_kind(s->rejected[i].obj->doc),
			s->rejected[i].obj->ns, s->rejected[i].obj->name, s->rejected[i].text);
	}
	src->n_rejected = s->n_rejected;
	src->where = "on the cluster";
}

static int open_cluster(struct ex_source *src, const struct ex_source_opts *o)
{
	struct ex_source_impl *m = src->impl;
	struct gt_kube_config cfg;
	struct gt_err err = { 0 };
	if (gt_kube_config_load(o->conn.kubeconfig, o->conn.context, &cfg, &err)) {
		fprintf(stderr, PREFIX ": %s\n", err.msg);
		return 2;
	}
	m->cl = gt_kube_client_new(&cfg, o->conn.qps, (int)o->conn.burst, (long)(o->conn.api_timeout_s * 1000));
	m->cache = gt_cache_new();
	if (list_all(m, o))
		return 2;
	struct gt_snapshot_opts so = { .scheduler_name = o->scheduler_name, .shard = o->shard,
				       .grouped_only = o->require_podgroup };
	struct gt_node_pool pool = { .value = o->node_pool, .key = NULL };
	gt_snapshot_take(m->cache, &so, &pool, &m->snap);
	m->have_snap = true;
	adopt_snapshot(src, m);
	src->from_cluster = true;
	return 0;
}

/* ---------------------------------------------------------------- the source */

int ex_source_open(struct ex_source *src, const struct ex_source_opts *o)
{
	memset(src, 0, sizeof(*src));
	struct ex_source_impl *m = src->impl = gt_xcalloc(1, sizeof(*m));
	gt_strtab_init(&m->names);
	gt_cluster_init(&m->c, &m->names);
	src->c = &m->c;
	return o->files.n ? open_files(src, o) : open_cluster(src, o);
}

void ex_source_release(struct ex_source *src)
{
	struct ex_source_impl *m = src->impl;
	for (size_t i = 0; i < src->n_rejected; i++)
		free(src->rejected[i].text);
	free(src->rejected);
	free(src->pod_doc);
	free(src->job_doc);
	if (m && m->have_snap) {
		free(src->objs);
		gt_snapshot_release(&m->snap);
	}
	if (m && m->cl) {
		gt_kube_client_stop(m->cl);
		for (int r = 0; r < GT_N_KRES; r++)
			if (m->refl[r])
				gt_reflector_join(m->refl[r]);
	}
	if (m) {
		if (m->have_dec)
			gt_decoder_release(&m->dec);
		gt_pg_batch_release(&m->pg);
		gt_doc_list_release(&m->docs);
		gt_doc_list_release(&m->jobs);
		gt_cluster_release(&m->c);
		gt_strtab_release(&m->names);
		gt_cache_free(m->cache);
		gt_kube_client_free(m->cl);
		free(m);
	}
	memset(src, 0, sizeof(*src));
}

const struct gt_doc *ex_source_find(const struct ex_source *src, const char *kind, const char *ns,
				    const char *name)
{
	for (size_t i = 0; i < src->n_objs; i++) {
		const struct gt_doc *o = src->objs[i];
		if (!strcmp(gt_obj_kind(o), kind) && !strcmp(gt_obj_name(o), name) &&
		    (!ns || !strcmp(gt_obj_ns(o), ns)))
			return o;
	}
	return NULL;
}

const char *ex_source_rejection(const struct ex_source *src, const struct gt_doc *obj)
{
	for (size_t i = 0; obj && i < src->n_rejected; i++)
		if (src->rejected[i].obj == obj)
			return src->rejected[i].text;
	return NULL;
}

/* GET one Job from the cluster, once. */
static const struct gt_doc *read_job(struct ex_source_impl *m, const char *ns, const char *name)
{
	for (size_t i = 0; i < m->jobs.n; i++)
		if (!strcmp(gt_obj_name(m->jobs.docs[i]), name) && !strcmp(gt_obj_ns(m->jobs.docs[i]), ns))
			return m->jobs.docs[i];
	if (m->jobs_refused || m->job_reads >= MAX_JOB_READS)
		return NULL;
	m->job_reads++;
	char path[700];
	snprintf(path, sizeof(path), "/apis/batch/v1/namespaces/%s/jobs/%s", ns, name);
	struct gt_kube_resp r;
	const struct gt_doc *out = NULL;
	if (!gt_kube_request(m->cl, GT_VERB_GET, "GET", path, NULL, NULL, &r) && r.status == 200) {
		json_t *j = json_loads(r.body, 0, NULL);
		if (j) {
			GT_PUSH(m->jobs.docs, m->jobs.n, m->jobs.cap, gt_doc_from_json(j));
			out = m->jobs.docs[m->jobs.n - 1];
			json_decref(j);
		}
	} else if (r.status == 401 || r.status == 403) {
		m->jobs_refused = true;
		fprintf(stderr, PREFIX ": warning: cannot read Jobs (%s): their activeDeadlineSeconds are not used\n",
			gt_kube_why(&r));
	}
	gt_kube_resp_release(&r);
	return out;
}

const struct gt_doc *ex_source_find_job(void *arg, const char *kind, const char *ns, const char *name)
{
	struct ex_source *src = arg;
	const struct gt_doc *o = ex_source_find(src, kind, ns, name);
	if (o || !src->from_cluster)
		return o;
	return read_job(src->impl, ns, name);
}
