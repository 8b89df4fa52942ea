/*
 * controller.h - KAI's podgroup and queue status controllers, on the cache
 *
 * One thread sleeps on the cache (pods, PodGroups, Queues, PriorityClasses;
 * nodes are read, for a GPU-memory pod's fraction, but their heartbeats make
 * no pass) and, once they are synced and this replica is active, makes a
 * pass after each change (changes within 0.2 s make one pass): every
 * PodGroup's status.resourcesStatus and every Queue's status computed as
 * compute.h says, and a merge patch of the status subresource for each that
 * differs, as KAI's podgroupcontroller and queuecontroller write them on
 * their watch events. A steady cluster writes nothing. A PodGroup whose pods
 * cannot be read (a bad annotation) is left as it is and logged once per
 * message, as KAI's controller fails its reconcile.
 *
 * The queue controller's metrics (queue_info, queue_deserved_gpus,
 * queue_quota_cpu_cores, queue_quota_memory_bytes and queue_allocated_gpus,
 * _cpu_cores and _memory_bytes, labelled queue_name, queue_metadata_name and
 * queue_display_name) come from each pass's Queues, as KAI's come from each
 * reconcile: spec quotas, and the allocation just computed.
 */
#ifndef GT_STATUS_CONTROLLER_H
#define GT_STATUS_CONTROLLER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "kube/cache.h"
#include "kube/http.h"

/* The resources whose changes make a pass (as KAI's controllers watch them). */
#define GT_STATUSCTL_WATCH (GT_KRES_BIT(GT_KRES_PODS) | GT_KRES_BIT(GT_KRES_PODGROUPS) | \
			    GT_KRES_BIT(GT_KRES_QUEUES) | GT_KRES_BIT(GT_KRES_PRIORITYCLASSES))
/* The resources the controllers read (their reflectors must run): nodes are looked up, not watched. */
#define GT_STATUSCTL_KRES (GT_STATUSCTL_WATCH | GT_KRES_BIT(GT_KRES_NODES))

/*
 * More labels on the queue controller's metrics, from Queue labels, as KAI's
 * --queue-label-to-metric-label and --queue-label-to-default-metric-value
 * ("key=value,key=value"): each metric label's value is the Queue's label,
 * else the default, else "". Sorted by Queue label key, as KAI orders them.
 */
struct gt_queue_label_map {
	size_t n;
	char **queue_key, **metric_label, **fallback;	/* fallback[i] NULL: "" */
};

/* 0, or -1 with why (a pair without '=', a label name Prometheus refuses or KAI's own). */
int gt_queue_label_map_parse(const char *to_metric, const char *defaults, struct gt_queue_label_map *m, char *why,
			     size_t why_cap);
void gt_queue_label_map_release(struct gt_queue_label_map *m);

struct gt_statusctl_opts {
	bool podgroups;			/* write PodGroup status.resourcesStatus */
	bool queues;			/* write Queue status, serve the queue metrics */
	/* work only while *@active (NULL: always); whoever changes it wakes the cache */
	const atomic_bool *active;
	const struct gt_queue_label_map *labels;	/* NULL: KAI's three labels only; borrowed */
};

struct gt_statusctl_stats {
	atomic_ulong passes;
	atomic_ulong podgroup_patches, queue_patches;
	atomic_ulong errors;		/* patches refused or unanswered, PodGroups that could not be computed */
};

struct gt_statusctl;

struct gt_statusctl *gt_statusctl_start(struct gt_kube_client *cl, struct gt_cache *cache,
					const struct gt_statusctl_opts *o);
/* Stop and free; after gt_kube_client_stop(), before the reflectors are joined. NULL: nothing. */
void gt_statusctl_stop(struct gt_statusctl *c);
const struct gt_statusctl_stats *gt_statusctl_stats(const struct gt_statusctl *c);
/* The queue controller's metrics and the controller's own counters, Prometheus text. */
void gt_statusctl_write_metrics(struct gt_statusctl *c, FILE *f, const char *prefix);

#endif /* GT_STATUS_CONTROLLER_H */
