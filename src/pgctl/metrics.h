/*
 * metrics.h - the podgrouper's Prometheus series
 *
 * KAI's podgrouper exports no series of its own (metrics.tsv lists none):
 * what its /metrics shows is controller-runtime's, for the controller
 * "pod-grouper" and its work queue. Gantry writes the same names with the
 * same meanings where it has the same thing, and its own under
 * gantry_podgrouper_ (docs/podgrouper.md lists them all).
 */
#ifndef GT_PGCTL_METRICS_H
#define GT_PGCTL_METRICS_H

#include <stdbool.h>
#include <stdio.h>

#include "kube/owners.h"
#include "pgctl/pgctl.h"

/* What the controller is doing now. */
struct gt_pgctl_gauges {
	int workers;		/* --max-concurrent-reconciles */
	int queued, busy;	/* pods waiting for a worker, pods being worked on */
	bool active;		/* this replica groups (leads, or runs without election) */
};

/* The series, in Prometheus text format; @buckets: the histogram's upper bounds. */
void gt_pgctl_metrics_print(const struct gt_pgctl_stats *s, const struct gt_pgctl_gauges *g,
			    const struct gt_owners_stats *ow, const double *buckets, FILE *f);

#endif /* GT_PGCTL_METRICS_H */
