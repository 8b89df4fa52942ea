/*
 * decode.h - Kubernetes objects into the core's cluster snapshot
 *
 * Reads Node, Pod, PersistentVolumeClaim, PriorityClass, Queue (scheduling.run.ai/v2), PodGroup
 * (scheduling.run.ai/v2alpha2), Topology (kai.scheduler/v1alpha1) and
 * SchedulingShard (kai.scheduler/v1) objects, as kubectl or the API server
 * print them (a v1 List is unpacked), validates them and builds a
 * struct gt_cluster.
 *
 * Malformed objects (a bad quantity, a gpu-fraction of 1.5, both
 * gpu-fraction and gpu-memory, a PodGroup without a name) are errors that
 * name the object and the field; the caller decides whether to stop. Objects
 * that are well-formed but refer to something missing (a PodGroup whose
 * queue does not exist, a queue whose parent does not exist) load, and the
 * core reports them on the job instead.
 */
#ifndef GT_DECODE_H
#define GT_DECODE_H

#include "api/doc.h"
#include "core/cluster.h"

struct gt_decoder {
	struct gt_doc **objs;	/* borrowed object documents, List items flattened */
	size_t n_objs, cap_objs;
	char **warnings;	/* unknown kinds and such, for stderr */
	size_t n_warnings, cap_warnings;
	const char *scheduler_name;	/* default "kai-scheduler" */
	/*
	 * The input lists every PersistentVolumeClaim (gantry simulate reads
	 * the whole cluster): a pod mounting one it does not hold cannot be
	 * scheduled. Off by default, for front ends that do not read claims.
	 */
	bool claims_listed;
};

void gt_decoder_init(struct gt_decoder *d);
void gt_decoder_release(struct gt_decoder *d);
/* Add the objects of one parsed document (unpacking a v1 List). */
void gt_decoder_add(struct gt_decoder *d, struct gt_doc *doc);
/*
 * Build @c (initialised by the caller with its string table) from every
 * object added. Returns 0, or GT_EINVAL with the first malformed object's
 * message in @err; @c is then released and empty.
 */
int gt_decoder_build(struct gt_decoder *d, struct gt_cluster *c, struct gt_err *err);

/* RFC 3339 time ("2026-01-01T00:00:00Z", offsets allowed) to Unix seconds. */
int gt_parse_time(const char *s, int64_t *out);
/* Go duration ("60s", "1m30s", "-1s", "1h") to seconds (rounded down). */
int gt_parse_duration(const char *s, int64_t *out);
/* The same in milliseconds ("500ms", "2m"). */
int gt_parse_duration_ms(const char *s, int64_t *out);

#endif /* GT_DECODE_H */
