/*
 * metrics.c - the podgrouper's series, as controller-runtime names them
 */
#include "pgctl/metrics.h"

#include "util/histogram.h"

#define OURS "gantry_podgrouper"	/* the prefix of Gantry's own series */
#define CONTROLLER "pod-grouper"	/* KAI's controller name: the label controller-runtime sets */

static void gauge(FILE *f, const char *name, const char *help, unsigned long v)
{
	gt_prom_head(f, NULL, name, "gauge", help);
	fprintf(f, "%s %lu\n", name, v);
}

/* controller_runtime_*: the reconciler. */
static void reconciler(const struct gt_pgctl_stats *s, const struct gt_pgctl_gauges *g, const double *buckets,
		       FILE *f)
{
	unsigned long fail = atomic_load(&s->failures), soon = atomic_load(&s->requeues);
	unsigned long all = atomic_load(&s->reconciles);
	gt_prom_head(f, NULL, "controller_runtime_reconcile_total", "counter",
		     "Total number of reconciliations per controller");
	fprintf(f, "controller_runtime_reconcile_total{controller=\"%s\",result=\"success\"} %lu\n", CONTROLLER,
		all >= fail + soon ? all - fail - soon : 0);
	fprintf(f, "controller_runtime_reconcile_total{controller=\"%s\",result=\"error\"} %lu\n", CONTROLLER, fail);
	fprintf(f, "controller_runtime_reconcile_total{controller=\"%s\",result=\"requeue\"} %lu\n", CONTROLLER, soon);
	fprintf(f, "controller_runtime_reconcile_total{controller=\"%s\",result=\"requeue_after\"} 0\n", CONTROLLER);
	gt_prom_head(f, NULL, "controller_runtime_reconcile_errors_total", "counter",
		     "Total number of reconciliation errors per controller");
	fprintf(f, "controller_runtime_reconcile_errors_total{controller=\"%s\"} %lu\n", CONTROLLER, fail);
	gt_prom_head(f, NULL, "controller_runtime_reconcile_time_seconds", "histogram",
		     "Length of time per reconciliation per controller");
	unsigned long cum = 0;
	for (int b = 0; b <= GT_PGCTL_N_BUCKETS; b++) {
		cum += atomic_load(&s->buckets[b]);
		if (b < GT_PGCTL_N_BUCKETS)
			fprintf(f, "controller_runtime_reconcile_time_seconds_bucket{controller=\"%s\",le=\"%g\"} %lu\n",
				CONTROLLER, buckets[b], cum);
		else
			fprintf(f, "controller_runtime_reconcile_time_seconds_bucket{controller=\"%s\",le=\"+Inf\"} %lu\n",
				CONTROLLER, cum);
	}
	fprintf(f, "controller_runtime_reconcile_time_seconds_sum{controller=\"%s\"} %.6f\n", CONTROLLER,
		(double)atomic_load(&s->sum_us) / 1e6);
	fprintf(f, "controller_runtime_reconcile_time_seconds_count{controller=\"%s\"} %lu\n", CONTROLLER, cum);
	gt_prom_head(f, NULL, "controller_runtime_max_concurrent_reconciles", "gauge",
		     "Maximum number of concurrent reconciles per controller");
	fprintf(f, "controller_runtime_max_concurrent_reconciles{controller=\"%s\"} %d\n", CONTROLLER, g->workers);
	gt_prom_head(f, NULL, "controller_runtime_active_workers", "gauge",
		     "Number of currently used workers per controller");
	fprintf(f, "controller_runtime_active_workers{controller=\"%s\"} %d\n", CONTROLLER, g->busy);
}

/* workqueue_*: the queue of pods. */
static void workqueue(const struct gt_pgctl_stats *s, const struct gt_pgctl_gauges *g, FILE *f)
{
	gt_prom_head(f, NULL, "workqueue_depth", "gauge", "Current depth of workqueue");
	fprintf(f, "workqueue_depth{controller=\"%s\",name=\"%s\"} %d\n", CONTROLLER, CONTROLLER, g->queued);
	gt_prom_head(f, NULL, "workqueue_adds_total", "counter", "Total number of adds handled by workqueue");
	fprintf(f, "workqueue_adds_total{controller=\"%s\",name=\"%s\"} %lu\n", CONTROLLER, CONTROLLER,
		atomic_load(&s->adds));
	gt_prom_head(f, NULL, "workqueue_retries_total", "counter", "Total number of retries handled by workqueue");
	fprintf(f, "workqueue_retries_total{controller=\"%s\",name=\"%s\"} %lu\n", CONTROLLER, CONTROLLER,
		atomic_load(&s->retries));
}

void gt_pgctl_metrics_print(const struct gt_pgctl_stats *s, const struct gt_pgctl_gauges *g,
			    const struct gt_owners_stats *ow, const double *buckets, FILE *f)
{
	reconciler(s, g, buckets, f);
	workqueue(s, g, f);
	gt_prom_counter(f, OURS, "podgroups_created_total", "PodGroups created", atomic_load(&s->created));
	gt_prom_counter(f, OURS, "podgroups_updated_total", "PodGroups updated (what the podgrouper owns)",
			atomic_load(&s->patched));
	gt_prom_counter(f, OURS, "pods_grouped_total", "Pods annotated with their PodGroup (or sub-group label)",
			atomic_load(&s->grouped));
	gt_prom_head(f, OURS, "pods_skipped_total", "counter",
		     "Pods left without a PodGroup, by reason (a pod counts once for each new reason)");
	for (int r = GT_PGCTL_NOT_SKIPPED + 1; r < GT_PGCTL_SKIP_N; r++)
		fprintf(f, "gantry_podgrouper_pods_skipped_total{reason=\"%s\"} %lu\n", gt_pgctl_skip_names[r],
			atomic_load(&s->skipped[r]));
	gt_prom_counter(f, OURS, "warnings_total", "PodGrouperWarning events recorded",
			atomic_load(&s->warnings));
	gt_prom_counter(f, OURS, "owner_changes_total", "Owner and Karta changes that brought pods back",
			atomic_load(&s->owner_changes));
	gt_prom_counter(f, OURS, "owner_reads_total", "Owners read by name (GET)", atomic_load(&ow->reads));
	gt_prom_counter(f, OURS, "owner_hits_total", "Owner reads answered without a request",
			atomic_load(&ow->hits));
	gt_prom_counter(f, OURS, "owner_watch_events_total", "Watch events of owner kinds and Kartas",
			atomic_load(&ow->events));
	gauge(f, "gantry_podgrouper_owner_kinds_watched", "Owner kinds (and Kartas) listed and watched",
	      atomic_load(&ow->watched));
	gauge(f, "gantry_podgrouper_owner_kinds_by_name",
	      "Owner kinds read by name: the ServiceAccount may not list and watch them", atomic_load(&ow->by_name));
	gauge(f, "gantry_podgrouper_active", "1 while this replica groups pods (leads, or runs without election)",
	      g->active);
}
