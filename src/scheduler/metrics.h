/*
 * metrics.h - /metrics, /healthz and /readyz for the scheduler
 *
 * Prometheus text format (version 0.0.4), with the --metrics-namespace
 * prefix (default "kai"). KAI v0.17's scheduler metrics by their names,
 * types and labels (../shared/docs/kai-v017/metrics.tsv, every one; docs/metrics.md):
 * e2e, open- and close-session, plugin and action latencies, the task
 * scheduling and bind latency histograms, podgroups scheduled and acted on
 * by action, preemption attempts, the victim search's scenarios and
 * budgets (kai_scenario_search_*), queues' fair share and usage
 * (queue_name: the display name when set, queue_metadata_name,
 * queue_display_name), pods evicted per PodGroup.
 * Gantry's own: snapshot and write latencies, cycles, skipped objects,
 * queue allocation and quota from the scheduler's view, pods bound and
 * evicted, API requests by verb and outcome, watch events and relists per
 * resource, leadership. The status controllers in the same process add
 * KAI's queue-controller metrics (status/controller.h) through @extra, and
 * the in-process podgrouper its own (pgctl.h) through @podgrouper_extra.
 * Served by util/httpd on its own thread; the scheduler loop publishes
 * each cycle's numbers under a lock and the counters kept elsewhere are
 * read as atomics.
 *
 * /healthz is 200 while the process serves; /readyz is 200 once every
 * reflector has listed its resource (a standby that is not the leader is
 * ready too: it would schedule at once on taking over).
 */
#ifndef GT_METRICS_H
#define GT_METRICS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/session.h"
#include "kube/cache.h"
#include "kube/http.h"
#include "kube/process.h"
#include "kube/reflector.h"
#include "core/plan.h"
#include "scheduler/snapshot.h"
#include "scheduler/writer.h"
#include "scheduler/writes.h"
#include "util/err.h"
#include "util/httpd.h"
#include "util/histogram.h"

struct gt_search_metrics;

struct gt_queue_metric {
	char *name, *display;
	double fair[GT_NQRES], allocated[GT_NQRES], deserved[GT_NQRES];	/* GPUs, cores, GB */
	double usage[GT_NQRES];	/* historical usage, a fraction of the cluster over the window (KAI's GetUsage) */
};

typedef void (*gt_metrics_extra_fn)(void *arg, FILE *out);

/* One series of pod_group_evicted_pods_total: its label text and count. */
struct gt_evicted_metric {
	char *labels;
	unsigned long n;
};

struct gt_metrics {
	pthread_mutex_t mu;
	const char *prefix;
	bool scheduler;		/* a scheduler's metrics (else only @extra's and the process's) */
	/* the last cycle */
	double e2e_ms, snapshot_ms, open_ms, fairshare_ms, close_ms, write_ms;
	double action_ms[GT_N_ACTIONS];
	unsigned long cycles, skipped_objects;
	struct gt_queue_metric *queues;
	size_t n_queues;
	/* since the start */
	unsigned long scheduled_by_action[GT_N_ACTIONS], preemption_attempts;
	struct gt_evicted_metric *evicted;
	size_t n_evicted;
	struct gt_histogram task_ms;	/* creation to bind decision, per pod bound */
	struct gt_search_metrics *search;	/* the victim search's (KAI's scenario search metrics); NULL: none yet */
	/* reservations (docs/reservations.md), written only while the shard turns them on */
	bool reserve_on;
	unsigned long reservations_held;	/* the last cycle's */
	double reserved_gpus_held;		/* GPUs they held from other jobs */
	double reserved_gpu_hours;		/* held GPUs x time, since the start */
	double backfilled_gpus;			/* GPUs of pods backfilling them (core/reserve.h) */
	double backfilled_gpu_hours;		/* backfilled GPUs x time, since the start */
	int64_t reserve_last_ms;
	/* more series (the status controllers'), written after the scheduler's; the extra owns any lock */
	void (*extra)(void *arg, FILE *f, const char *prefix);
	void *extra_arg;
	bool extra_has_queue_allocation;	/* @extra serves queue_allocated_cpu_cores: Gantry's own steps aside */
	/* counters owned elsewhere (may be NULL) */
	const struct gt_kube_stats *api;
	const struct gt_writer_stats *writer;
	const struct gt_reflector_stats *reflectors[GT_N_KRES];
	atomic_bool ready, leader;
	/*
	 * More series after the scheduler's (the in-process podgrouper's), or
	 * NULL; set @podgrouper_extra_arg first, then @podgrouper_extra, while serving.
	 */
	_Atomic(gt_metrics_extra_fn) podgrouper_extra;
	void *podgrouper_extra_arg;
	/* the in-process binder's series (binder/controller.h), or NULL; set like @extra, under @mu */
	void (*binder_extra)(void *arg, FILE *f, const char *prefix);
	void *binder_extra_arg;
	struct gt_httpd *server;
	int port;
};

void gt_metrics_init(struct gt_metrics *m, const char *prefix);
/*
 * /healthz and /livez (200 while serving), /readyz (200 once m->ready), 404 else: the probes
 * /metrics' server answers too, for a process that serves them on an address of their own
 * (a util/httpd.h handler; @arg is the struct gt_metrics).
 */
unsigned gt_metrics_serve_probes(void *arg, const char *path, FILE *body, const char **ctype);
/* The API client's and the watches' counters of a controller process (kube/process.h), for /metrics. */
void gt_metrics_of_process(struct gt_metrics *m, const struct gt_process *p);
void gt_metrics_release(struct gt_metrics *m);
/* Publish the queues of a finished cycle (fair share, allocation, quota); names from @snap's objects. */
void gt_metrics_set_queues(struct gt_metrics *m, const struct gt_session *s, const struct gt_kube_snapshot *snap);
/*
 * Count a cycle's outcome: podgroups scheduled per action (binds and
 * pipelines of allocate, preemptors of the victim actions), preemption
 * attempts that succeeded, each bound pod's age (task latency), each
 * eviction per PodGroup, labelled with its node pool (@node_pool_key, NULL:
 * kai.scheduler/node-pool; "default" when unlabelled, as KAI labels it).
 */
void gt_metrics_count_cycle(struct gt_metrics *m, const struct gt_kube_snapshot *snap, const struct gt_plan *plan,
			    const struct gt_writes *w, const char *node_pool_key, int64_t now_ms);
/*
 * Count what the victim search did in session @s (core/session.h's
 * gt_search_stats, per action) and the budgets it ran with: KAI's
 * podgroups_acted_on_by_action, scenarios_simulation_by_action,
 * scenarios_filtered_by_action and kai_scenario_search_*.
 */
void gt_metrics_count_search(struct gt_metrics *m, const struct gt_session *s);
/* Everything, as Prometheus text. */
void gt_metrics_write(struct gt_metrics *m, FILE *out);
/*
 * Serve /metrics and the probes on @addr ("host:port", ":port"; port 0 picks
 * one, see m->port) and say so in @component's log; nothing when @addr is
 * disabled ("0" or empty). 0, or the error in @err.
 */
int gt_metrics_serve(struct gt_metrics *m, const char *addr, const char *component, struct gt_err *err);
/* Write @fn(@arg)'s series after the others' (the status controllers', a binder's); /metrics may be served. */
void gt_metrics_set_extra(struct gt_metrics *m, void (*fn)(void *arg, FILE *f, const char *prefix), void *arg);
void gt_metrics_stop(struct gt_metrics *m);

#endif /* GT_METRICS_H */
