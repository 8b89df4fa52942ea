#include "kube/snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/decode.h"
#include "kube/log.h"
#include "util/mem.h"

/* Passes over a refused object before the cycle gives up. */
#define MAX_REBUILDS 64

static int by_key(const void *a, const void *b)
{
	const struct gt_kobj *x = *(struct gt_kobj *const *)a, *y = *(struct gt_kobj *const *)b;
	return strcmp(x->key, y->key);
}

static int by_age(const void *a, const void *b)
{
	const struct gt_kobj *x = *(struct gt_kobj *const *)a, *y = *(struct gt_kobj *const *)b;
	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Finished pods of other schedulers hold nothing anywhere: skip their decoding. */
/* Bound, or in a PodGroup the snapshot holds (the PodGroups are listed and sorted). */
static bool has_podgroup(const struct gt_kube_snapshot *s, const struct gt_kobj *o)
{
	const char *node = gt_kobj_str(o, "spec.nodeName");
	if (node && *node)
		return true;
	const char *pg = gt_doc_str(gt_doc_path(o->doc, "metadata.annotations"), "pod-group-name");
	return pg && gt_snapshot_find(s, GT_KRES_PODGROUPS, o->ns, pg);
}

static bool wanted(const struct gt_kube_snapshot *s, const struct gt_kobj *o,
		   const struct gt_snapshot_opts *opt)
{
	if (o->res == GT_KRES_SHARDS)
		return !strcmp(o->name, opt->shard);
	if (o->res == GT_KRES_BINDREQUESTS)
		return false;
	if (o->res != GT_KRES_PODS)
		return true;
	const char *phase = gt_kobj_str(o, "status.phase");
	const char *sched = gt_kobj_str(o, "spec.schedulerName");
	bool finished = phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"));
	bool ours = sched && !strcmp(sched, opt->scheduler_name);
	if (finished)
		return ours;
	return !(opt->grouped_only && ours && !has_podgroup(s, o));
}

/* The line number a decoder message names, or -1. */
static int line_of(const char *msg)
{
	const char *p = strstr(msg, "(line ");
	int line;
	if (!p || sscanf(p, "(line %d)", &line) != 1)
		return -1;
	return line;
}

int gt_snapshot_take(struct gt_cache *cache, const struct gt_snapshot_opts *o,
		     struct gt_kube_snapshot *s, struct gt_err *err)
{
	memset(s, 0, sizeof(*s));
	gt_strtab_init(&s->names);
	gt_cluster_init(&s->c, &s->names);
	struct gt_kobj **feed = NULL;
	size_t n_feed = 0, cap_feed = 0;
	for (int r = 0; r < GT_N_KRES; r++) {
		s->objs[r] = gt_cache_list(cache, (enum gt_kres)r, &s->n[r]);
		qsort(s->objs[r], s->n[r], sizeof(*s->objs[r]), by_key);
	}
	for (int r = 0; r < GT_N_KRES; r++)
		for (size_t i = 0; i < s->n[r]; i++)
			if (wanted(s, s->objs[r][i], o))
				GT_PUSH(feed, n_feed, cap_feed, s->objs[r][i]);
	if (n_feed)
		qsort(feed, n_feed, sizeof(*feed), by_age);
	int rc = 0;
	for (int pass = 0;; pass++) {
		struct gt_decoder d;
		gt_decoder_init(&d);
		d.scheduler_name = o->scheduler_name;
		for (size_t i = 0; i < n_feed; i++)
			if (!atomic_load(&feed[i]->bad))
				gt_decoder_add(&d, feed[i]->doc);
		gt_cluster_init(&s->c, &s->names);
		struct gt_err derr = { 0 };
		rc = gt_decoder_build(&d, &s->c, &derr);
		if (!rc && gt_log_enabled(GT_LOG_DEBUG))
			for (size_t i = 0; i < d.n_warnings; i++)
				gt_log(GT_LOG_DEBUG, "snapshot", "%s", d.warnings[i]);
		gt_decoder_release(&d);
		if (!rc)
			break;
		int line = line_of(derr.msg);
		struct gt_kobj *culprit = NULL;
		for (size_t i = 0; line > 0 && i < n_feed && !culprit; i++)
			if (feed[i]->serial == line && !atomic_load(&feed[i]->bad))
				culprit = feed[i];
		if (!culprit || pass == MAX_REBUILDS) {
			rc = gt_errf(err, GT_EINVAL, "cannot decode the cluster: %s", derr.msg);
			break;
		}
		/* the decoder's "(line N)" is the object's serial: meaningless to a reader */
		const char *what = strstr(derr.msg, "): ");
		gt_log(GT_LOG_WARN, "snapshot", "skipping %s %s: %s", gt_kres[culprit->res].kind, culprit->key,
		       what ? what + 3 : derr.msg);
		atomic_store(&culprit->bad, true);
	}
	for (size_t i = 0; i < n_feed; i++)
		s->n_skipped += atomic_load(&feed[i]->bad);
	free(feed);
	if (rc) {
		gt_snapshot_release(s);
		return rc;
	}
	return 0;
}

void gt_snapshot_release(struct gt_kube_snapshot *s)
{
	gt_cluster_release(&s->c);
	for (int r = 0; r < GT_N_KRES; r++) {
		for (size_t i = 0; i < s->n[r]; i++)
			gt_kobj_unref(s->objs[r][i]);
		free(s->objs[r]);
	}
	gt_strtab_release(&s->names);
	memset(s, 0, sizeof(*s));
}

struct gt_kobj *gt_snapshot_find(const struct gt_kube_snapshot *s, enum gt_kres r, const char *ns,
				 const char *name)
{
	char key[600];
	if (gt_kres[r].namespaced)
		snprintf(key, sizeof(key), "%s/%s", ns ? ns : "default", name);
	else
		snprintf(key, sizeof(key), "%s", name);
	size_t lo = 0, hi = s->n[r];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->objs[r][mid]->key, key);
		if (!c)
			return s->objs[r][mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
