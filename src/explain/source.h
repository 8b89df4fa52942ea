/*
 * source.h - the objects `gantry explain` reads: files, or a cluster read once
 *
 * Either way the result is the same: the cluster the core schedules (decoded
 * as `gantry simulate` decodes files, or as `gantry scheduler` snapshots its
 * cache), every object by kind and name, the object of each pod and job,
 * the objects the decoder left out with why, and a way to find a pod's Job
 * (for its activeDeadlineSeconds).
 *
 *  - files (-f, kubectl's rules): loaded, grouped by the podgrouper as the
 *    simulator groups them, decoded; a malformed object is said on stderr
 *    and left out, and the explanation goes on with the rest;
 *  - a cluster (--kubeconfig, KUBECONFIG, in-cluster, ~/.kube/config): every
 *    resource the scheduler reads is listed once (reflectors until synced,
 *    then stopped), snapshotted as the scheduler does (node pool, shard,
 *    BindRequests); Jobs are read by name, only for pods that name one.
 */
#ifndef GT_EXPLAIN_SOURCE_H
#define GT_EXPLAIN_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "api/decode.h"
#include "core/cluster.h"
#include "explain/runtime.h"
#include "util/flags.h"

struct ex_source_opts {
	struct gt_strings files;	/* -f: files mode when any */
	bool recursive;
	struct gt_conn_flags conn;	/* else the cluster */
	const char *scheduler_name;	/* default kai-scheduler */
	const char *shard;		/* default "default" */
	const char *node_pool;		/* NULL: the shard's */
	bool require_podgroup;		/* leave out pods without a PodGroup, as KAI (cluster only) */
};

struct ex_rejection {
	const struct gt_doc *obj;
	char *text;			/* "field F: why" */
};

struct ex_source_impl;

struct ex_source {
	struct gt_cluster *c;
	const struct gt_doc **pod_doc;	/* per pod of c */
	const struct gt_doc **job_doc;	/* per job; NULL: a bare pod's */
	const struct gt_doc **objs;	/* every object read */
	size_t n_objs;
	struct ex_rejection *rejected;
	size_t n_rejected;
	bool from_cluster;
	const char *where;		/* "in the input", "on the cluster" */
	struct ex_source_impl *impl;
};

/* Read the objects. 0, or 2 with the reason said on stderr. */
int ex_source_open(struct ex_source *src, const struct ex_source_opts *o);
void ex_source_release(struct ex_source *src);

/* The object of @kind @ns/@name (@ns NULL for cluster-scoped kinds), or NULL. */
const struct gt_doc *ex_source_find(const struct ex_source *src, const char *kind, const char *ns,
				    const char *name);
/* Why the object was left out, or NULL when it was not. */
const char *ex_source_rejection(const struct ex_source *src, const struct gt_doc *obj);
/* A pod's Job by name (gt_find_object_fn for runtime.h; @arg is the source). */
const struct gt_doc *ex_source_find_job(void *arg, const char *kind, const char *ns, const char *name);

#endif /* GT_EXPLAIN_SOURCE_H */
