/*
 * runtime.h - when running pods are expected to end, from what the objects say
 *
 *  - the annotation gantry.dev/expected-runtime (a Go duration: "2h",
 *    "90m") on a pod: it is expected to run that long from its start
 *    (status.startTime); on a PodGroup: each of its pods is;
 *  - spec.activeDeadlineSeconds of a pod: the kubelet stops it that long
 *    after it started;
 *  - spec.activeDeadlineSeconds of the pod's Job (its ownerReferences):
 *    the Job controller stops the Job's pods that long after the Job
 *    started (status.startTime);
 *  - a pod being deleted leaves after its grace period (deletionTimestamp
 *    plus deletionGracePeriodSeconds; 30 s when unsaid).
 * A pod with several says ends at the earliest. The same, per PodGroup, is
 * the run time of its pods that start later (forecast.h).
 */
#ifndef GT_EXPLAIN_RUNTIME_H
#define GT_EXPLAIN_RUNTIME_H

#include <stddef.h>

#include "api/doc.h"
#include "explain/forecast.h"

#define GT_EXPECTED_RUNTIME_ANNOTATION "gantry.dev/expected-runtime"

/* An object the pods name by kind and name (their Job), or NULL. */
typedef const struct gt_doc *(*gt_find_object_fn)(void *arg, const char *kind, const char *ns,
						   const char *name);

struct gt_ends_src {
	const struct gt_cluster *c;
	const struct gt_doc *const *pod_doc;	/* per pod of @c; NULL: not known */
	const struct gt_doc *const *job_doc;	/* per job; NULL: none (a bare pod's) */
	gt_find_object_fn find;			/* may be NULL: no Jobs */
	void *arg;
	int64_t now;
};

struct gt_warnings {
	char **v;
	size_t n, cap;
};

/*
 * Fill @e (gt_ends_init()ed for @src->c) from the objects. A value that is
 * not a duration or a number is a warning naming the object and the field,
 * appended to @w, and is not used.
 */
void gt_ends_read(const struct gt_ends_src *src, struct gt_ends *e, struct gt_warnings *w);
void gt_warnings_release(struct gt_warnings *w);

#endif /* GT_EXPLAIN_RUNTIME_H */
