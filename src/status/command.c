/*
 * command.c - `gantry status-controllers`: KAI's queue and pod-group status
 * controllers as a process of their own
 *
 * For a cluster that runs them apart from the scheduler (another scheduler's
 * cluster, or KAI's layout of one Deployment per controller): reflectors
 * keep pods, PodGroups, Queues, PriorityClasses and nodes cached, the
 * controller (controller.h) writes the status, /metrics serves KAI's queue
 * controller metrics; on SIGTERM/SIGINT everything stops and is freed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/process.h"
#include "scheduler/metrics.h"
#include "status/controller.h"
#include "status/status.h"
#include "util/flags.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/stop.h"

struct opts {
	struct gt_conn_flags conn;
	struct gt_lease_flags lease;
	bool queues, podgroups;
	struct gt_watch_flags watch;
	const char *metrics_ns;
	const char *queue_label_map, *queue_label_defaults;
};

/* 0, 1 after --help, 2 on a bad flag (said on stderr). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){
		.conn = GT_CONN_DEFAULTS, .lease = GT_LEASE_DEFAULTS, .watch = GT_WATCH_DEFAULTS, .queues = true,
		.podgroups = true, .metrics_ns = "kai",
	};
	o->lease.name = "gantry-status-controllers";
	const struct gt_flag flags[] = {
		GT_CONN_FLAGS(&o->conn),
		{ .type = GT_FLAG_SECTION, .help = "Controllers" },
		{ .type = GT_FLAG_BOOL, .name = "queue-controller", .dest = &o->queues,
		  .help = "write Queue status, serve KAI's queue metrics (default true)" },
		{ .type = GT_FLAG_BOOL, .name = "podgroup-controller", .dest = &o->podgroups,
		  .help = "write PodGroup status.resourcesStatus (default true)" },
		{ .type = GT_FLAG_STRING, .name = "queue-label-to-metric-label", .dest = &o->queue_label_map,
		  .arg = "K=L,...", .help = "queue metrics: Queue label K as metric label L, as KAI's" },
		{ .type = GT_FLAG_STRING, .name = "queue-label-to-default-metric-value",
		  .dest = &o->queue_label_defaults, .arg = "K=V,...",
		  .help = "queue metrics: V where a Queue lacks label K (default \"\")" },
		GT_LEASE_FLAGS(&o->lease),
		GT_WATCH_FLAGS(&o->watch),
		{ .type = GT_FLAG_STRING, .name = "metrics-listen-address", .dest = &o->watch.metrics_addr, .arg = "ADDR",
		  .help = "the same, as KAI's queue controller names it" },
		GT_METRICS_NAMESPACE_FLAG(&o->metrics_ns),
	};
	const struct gt_command cmd = {
		.name = "status-controllers", .synopsis = "[flags]",
		.about = "Write Queue and PodGroup status as KAI's queue and pod-group controllers do\n"
			 "(docs/metrics.md); `gantry scheduler` runs them itself unless told not to.",
		.flags = flags, .n_flags = GT_FLAGS_N(flags),
	};
	int rc = gt_flags_parse(&cmd, argc, argv);
	if (!rc && !o->queues && !o->podgroups) {
		fprintf(stderr, "gantry status-controllers: --queue-controller=false and --podgroup-controller=false "
			"leave nothing to do\n");
		return 2;
	}
	return rc ? rc : gt_lease_flags_check("status-controllers", &o->lease);
}

static const enum gt_kres watched[] = { GT_KRES_PODS, GT_KRES_PODGROUPS, GT_KRES_QUEUES, GT_KRES_PRIORITYCLASSES,
					GT_KRES_NODES };
#define N_WATCHED (sizeof(watched) / sizeof(watched[0]))

static void write_metrics(void *ctl, FILE *f, const char *prefix)
{
	gt_statusctl_write_metrics(ctl, f, prefix);
}

int gt_status_controllers_main(int argc, char **argv)
{
	struct opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	gt_log_set_level((enum gt_log_level)o.watch.log_level);
	struct gt_queue_label_map labels;
	char why[256];
	if (gt_queue_label_map_parse(o.queue_label_map, o.queue_label_defaults, &labels, why, sizeof(why))) {
		fprintf(stderr, "gantry status-controllers: %s\n", why);
		return 2;
	}
	struct gt_kube_config kc;
	if (gt_process_load_config("status-controllers", "status", &o.conn, &kc)) {
		gt_queue_label_map_release(&labels);
		return 2;
	}
	gt_stop_start();	/* before any thread starts: they all inherit the blocked signals */
	struct gt_metrics m;
	gt_metrics_init(&m, o.metrics_ns);
	struct gt_process p;
	gt_process_start(&p, &(struct gt_process_opts){ .kc = &kc, .conn = &o.conn, .lease = &o.lease,
						       .watch = &o.watch, .watched = watched, .n_watched = N_WATCHED,
						       .active = &m.leader });
	gt_metrics_of_process(&m, &p);
	struct gt_statusctl *ctl = NULL;
	struct gt_err err = { 0 };
	if (gt_metrics_serve(&m, o.watch.metrics_addr, "status", &err)) {
		fprintf(stderr, "gantry status-controllers: %s\n", err.msg);
		rc = 1;
		goto end;
	}
	struct gt_statusctl_opts so = { .queues = o.queues, .podgroups = o.podgroups, .active = &m.leader,
					.labels = &labels };
	ctl = gt_statusctl_start(p.cl, p.cache, &so);
	gt_metrics_set_extra(&m, write_metrics, ctl);
	rc = gt_process_run(&p, GT_STATUSCTL_KRES, &m.ready);
	const struct gt_statusctl_stats *st = gt_statusctl_stats(ctl);
	gt_log(GT_LOG_INFO, "status", "shutting down%s: %lu passes, %lu PodGroup and %lu Queue status patches, "
	       "%lu errors", gt_stop_requested() ? " (signal)" : "", atomic_load(&st->passes),
	       atomic_load(&st->podgroup_patches), atomic_load(&st->queue_patches), atomic_load(&st->errors));
end:
	gt_metrics_stop(&m);	/* it reads the controller's rows */
	gt_process_quiesce(&p);
	gt_process_stop_client(&p);
	if (ctl)
		gt_statusctl_stop(ctl);
	gt_process_release(&p);
	gt_metrics_release(&m);
	gt_queue_label_map_release(&labels);
	return rc;
}
