/*
 * change.c - which changes of an owner the grouping rules can see
 *
 * The controller watches the pods' owners and groups a changed owner's pods
 * again. An owner's status moves all the time (a Job's counts with every
 * pod that starts or ends, a Deployment's with every replica that becomes
 * ready); grouping 1,000 pods again for each would be waste, since the rules
 * read the spec and the metadata. Of the status they read only where a
 * RayJob's or a RayService's RayCluster is (rules_ray.c).
 */
#include <string.h>

#include "podgrouper/internal.h"

/* Status fields the rules read, as dotted paths under status. */
static const char *const status_read[] = {
	"rayClusterName",
	"activeServiceStatus.rayClusterName",
	"pendingServiceStatus.rayClusterName",
};

/* Metadata that changes without anything the rules read changing. */
static bool bookkeeping(const char *key)
{
	return !strcmp(key, "resourceVersion") || !strcmp(key, "generation") || !strcmp(key, "managedFields");
}

static bool same(const struct gt_doc *a, const struct gt_doc *b);

/* Maps alike, but for the keys @skip says to leave out. */
static bool same_map(const struct gt_doc *a, const struct gt_doc *b, bool (*skip)(const char *key))
{
	size_t na = 0, nb = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (skip && skip(a->keys[i]))
			continue;
		na++;
		if (!same(a->items[i], gt_doc_get(b, a->keys[i])))
			return false;
	}
	for (size_t i = 0; i < b->n; i++)
		nb += !(skip && skip(b->keys[i]));
	return na == nb;
}

static bool same(const struct gt_doc *a, const struct gt_doc *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case GT_DOC_SCALAR:
		return a->quoted == b->quoted && !strcmp(a->scalar, b->scalar);
	case GT_DOC_MAP:
		return same_map(a, b, NULL);
	case GT_DOC_SEQ:
		if (a->n != b->n)
			return false;
		for (size_t i = 0; i < a->n; i++)
			if (!same(a->items[i], b->items[i]))
				return false;
		return true;
	}
	return false;
}

static bool status_or_metadata(const char *key)
{
	return !strcmp(key, "status") || !strcmp(key, "metadata");
}

bool gt_pg_owner_change_matters(const struct gt_doc *old, const struct gt_doc *cur)
{
	if (!old || !cur || old->kind != GT_DOC_MAP || cur->kind != GT_DOC_MAP)
		return true;
	if (!same_map(old, cur, status_or_metadata))
		return true;
	const struct gt_doc *om = gt_doc_get(old, "metadata"), *cm = gt_doc_get(cur, "metadata");
	if (!om || !cm || om->kind != GT_DOC_MAP || cm->kind != GT_DOC_MAP)
		return !same(om, cm);
	if (!same_map(om, cm, bookkeeping))
		return true;
	const struct gt_doc *os = gt_doc_get(old, "status"), *cs = gt_doc_get(cur, "status");
	for (size_t i = 0; i < sizeof(status_read) / sizeof(status_read[0]); i++)
		if (!same(gt_doc_path(os, status_read[i]), gt_doc_path(cs, status_read[i])))
			return true;
	return false;
}
