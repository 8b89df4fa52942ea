/*
 * command.c - `gantry binder` (command.h)
 *
 * Reflectors keep BindRequests, pods and nodes cached; the BindRequest
 * controller (controller.h) binds; /metrics, /healthz and /readyz are
 * served on --metrics-bind-address, the probes also on
 * --health-probe-bind-address as KAI's binder serves them; with
 * --leader-elect only the Lease holder binds. On SIGTERM/SIGINT everything
 * stops and is freed.
 */
#include "binder/command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binder/controller.h"
#include "kube/process.h"
#include "scheduler/metrics.h"
#include "util/flags.h"
#include "util/httpd.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/stop.h"

struct opts {
	struct gt_conn_flags conn;
	struct gt_lease_flags lease;
	struct gt_binder_opts resv;
	struct gt_watch_flags watch;
	const char *probe_addr, *metrics_ns;
	const char *scheduler_name, *app_label, *pod_resources, *pod_security, *container_security;
	const char *scale_ns, *plugins, *feature_gates;
	int64_t timeout_s, workers, base_delay, max_delay;
	bool fake_gpu_nodes;
	/* which KAI flags were given (those Gantry does not act on are warned about) */
	bool seen_scheduler, seen_app, seen_res, seen_psc, seen_csc, seen_scale, seen_plugins, seen_gates;
	bool seen_fake, seen_base;
};

static void inert(bool given, const char *flag, const char *why)
{
	if (given)
		gt_log(GT_LOG_WARN, "binder", "--%s is accepted but has no effect: %s", flag, why);
}

/* 0, 1 after --help, 2 on a bad flag (said on stderr). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){
		.conn = GT_CONN_DEFAULTS, .lease = GT_LEASE_DEFAULTS, .watch = GT_WATCH_DEFAULTS,
		.probe_addr = ":8081", .metrics_ns = "kai", .timeout_s = 40, .workers = 10, .base_delay = 1,
		.max_delay = 60, .scheduler_name = "kai-scheduler", .app_label = "kai-resource-reservation",
	};
	o->lease.name = "gantry-binder";
	const struct gt_flag flags[] = {
		GT_CONN_FLAGS(&o->conn),
		{ .type = GT_FLAG_SECTION, .help = "KAI's binder flags (cmd/binder options, same meaning)" },
		{ .type = GT_FLAG_STRING, .name = "resource-reservation-namespace", .dest = &o->resv.ns, .arg = "NS",
		  .min = 1, .help = "reservation pods' namespace (default kai-resource-reservation)" },
		{ .type = GT_FLAG_STRING, .name = "resource-reservation-service-account",
		  .dest = &o->resv.service_account, .arg = "SA", .help = "(default kai-resource-reservation)" },
		{ .type = GT_FLAG_STRING, .name = "resource-reservation-pod-image", .dest = &o->resv.image,
		  .arg = "IMAGE", .min = 1, .help = "the reservation pods' image" },
		{ .type = GT_FLAG_SECONDS, .name = "resource-reservation-allocation-timeout", .dest = &o->timeout_s,
		  .arg = "S", .min = 1, .max = 86400, .help = "wait for a reservation pod's GPU (default 40)" },
		{ .type = GT_FLAG_STRING, .name = "runtime-class-name", .dest = &o->resv.runtime_class, .arg = "RC",
		  .help = "reservation pods' runtimeClassName (default: none)" },
		{ .type = GT_FLAG_INT, .name = "max-concurrent-reconciles", .dest = &o->workers, .arg = "N", .min = 1,
		  .max = 256, .help = "binds at once (default 10)" },
		{ .type = GT_FLAG_SECONDS, .name = "rate-limiter-max-delay", .dest = &o->max_delay, .arg = "S",
		  .min = 1, .max = 86400, .help = "the longest wait before a retry (default 60)" },
		{ .type = GT_FLAG_SECONDS, .name = "rate-limiter-base-delay", .dest = &o->base_delay,
		  .seen = &o->seen_base, .arg = "S", .min = 0, .max = 86400,
		  .help = "(retries wait 2^failedAttempts s, as KAI's BindRequest requeue)" },
		{ .type = GT_FLAG_STRING, .name = "scheduler-name", .dest = &o->scheduler_name,
		  .seen = &o->seen_scheduler, .arg = "NAME", .help = "(KAI's pod watch; BindRequests name their pods)" },
		{ .type = GT_FLAG_STRING, .name = "resource-reservation-app-label", .dest = &o->app_label,
		  .seen = &o->seen_app, .arg = "V", .help = "(kai-resource-reservation; another: warned)" },
		{ .type = GT_FLAG_STRING, .name = "resource-reservation-pod-resources", .dest = &o->pod_resources,
		  .seen = &o->seen_res, .arg = "JSON", .help = "(warned)" },
		{ .type = GT_FLAG_STRING, .name = "resource-reservation-pod-security-context", .dest = &o->pod_security,
		  .seen = &o->seen_psc, .arg = "JSON", .help = "(warned)" },
		{ .type = GT_FLAG_STRING, .name = "resource-reservation-container-security-context",
		  .dest = &o->container_security, .seen = &o->seen_csc, .arg = "JSON", .help = "(warned)" },
		{ .type = GT_FLAG_STRING, .name = "scale-adjust-namespace", .dest = &o->scale_ns, .seen = &o->seen_scale,
		  .arg = "NS", .help = "(warned)" },
		{ .type = GT_FLAG_BOOL, .name = "fake-gpu-nodes", .dest = &o->fake_gpu_nodes, .seen = &o->seen_fake,
		  .help = "(warned)" },
		{ .type = GT_FLAG_STRING, .name = "plugins", .dest = &o->plugins, .seen = &o->seen_plugins,
		  .arg = "JSON", .help = "(warned)" },
		{ .type = GT_FLAG_STRING, .name = "feature-gates", .dest = &o->feature_gates, .seen = &o->seen_gates,
		  .arg = "K=V,...", .help = "(warned)" },
		GT_LEASE_FLAGS(&o->lease),
		GT_WATCH_FLAGS(&o->watch),
		{ .type = GT_FLAG_STRING, .name = "health-probe-bind-address", .dest = &o->probe_addr, .arg = "ADDR",
		  .help = "/healthz and /readyz, as KAI's binder (default :8081; \"0\" disables)" },
		GT_METRICS_NAMESPACE_FLAG(&o->metrics_ns),
	};
	const struct gt_command cmd = {
		.name = "binder", .synopsis = "[flags]",
		.about = "Bind the pods of BindRequests as KAI's binder does, for a scheduler in\n"
			 "BindRequest mode (KAI's, or `gantry scheduler --bind-requests`); docs/deploy.md.",
		.flags = flags, .n_flags = GT_FLAGS_N(flags),
	};
	int rc = gt_flags_parse(&cmd, argc, argv);
	rc = rc ? rc : gt_lease_flags_check("binder", &o->lease);
	if (rc)
		return rc;
	gt_log_set_level((enum gt_log_level)o->watch.log_level);
	o->resv.timeout_s = (double)o->timeout_s;
	o->resv.workers = (int)o->workers;
	inert(o->seen_scheduler, "scheduler-name", "KAI's binder syncs reservation pods on that scheduler's pods' "
	      "events; Gantry's binder syncs them on every pod's and BindRequest's");
	inert(o->seen_app && strcmp(o->app_label, "kai-resource-reservation"), "resource-reservation-app-label",
	      "reservation pods are labelled app=kai-resource-reservation");
	inert(o->seen_res, "resource-reservation-pod-resources", "reservation pods request 1 GPU, 1m CPU, 10Mi");
	inert(o->seen_psc || o->seen_csc, "resource-reservation-*-security-context", "not applied yet");
	inert(o->seen_scale, "scale-adjust-namespace", "Gantry does not look for scaling pods");
	inert(o->seen_fake && o->fake_gpu_nodes, "fake-gpu-nodes", "reservation pods always run their image");
	inert(o->seen_plugins, "plugins", "Gantry's binder has no plugins (DRA and volumes are not bound)");
	inert(o->seen_gates, "feature-gates", "Kubernetes feature gates of a Go binary");
	inert(o->seen_base && o->base_delay != 1, "rate-limiter-base-delay",
	      "a retry waits 2^failedAttempts s, as KAI's BindRequest requeue");
	return 0;
}

static const enum gt_kres watched[] = { GT_KRES_BINDREQUESTS, GT_KRES_PODS, GT_KRES_NODES };
#define N_WATCHED (sizeof(watched) / sizeof(watched[0]))

static void write_metrics(void *ctl, FILE *f, const char *prefix)
{
	gt_brctl_write_metrics(ctl, f, prefix);
}

/* /metrics and the probes. 0, or 1 when an address cannot be had (said). */
static int serve(const struct opts *o, struct gt_metrics *m, struct gt_httpd **probes)
{
	struct gt_err err = { 0 };
	if (gt_metrics_serve(m, o->watch.metrics_addr, "binder", &err))
		goto fail;
	if (!gt_httpd_disabled(o->probe_addr)) {
		*probes = gt_httpd_start("health-probe-bind-address", o->probe_addr, gt_metrics_serve_probes, m, &err);
		if (!*probes)
			goto fail;
		gt_log(GT_LOG_INFO, "binder", "serving /healthz and /readyz on port %d", gt_httpd_port(*probes));
	}
	return 0;
fail:
	fprintf(stderr, "gantry binder: %s\n", err.msg);
	return 1;
}

int gt_binder_main(int argc, char **argv)
{
	struct opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	struct gt_kube_config kc;
	if (gt_process_load_config("binder", "binder", &o.conn, &kc))
		return 2;
	gt_stop_start();	/* before any thread starts: they all inherit the blocked signals */
	struct gt_metrics m;
	gt_metrics_init(&m, o.metrics_ns);
	struct gt_process p;
	gt_process_start(&p, &(struct gt_process_opts){ .kc = &kc, .conn = &o.conn, .lease = &o.lease,
						       .watch = &o.watch, .watched = watched, .n_watched = N_WATCHED,
						       .active = &m.leader });
	gt_metrics_of_process(&m, &p);
	struct gt_httpd *probes = NULL;
	struct gt_brctl *ctl = NULL;
	if (serve(&o, &m, &probes)) {
		rc = 1;
		goto end;
	}
	struct gt_brctl_opts bo = { .reservation = o.resv, .workers = (int)o.workers,
				    .max_delay_s = (double)o.max_delay, .component = "binder",
				    .instance = p.identity, .active = &m.leader, .reservation_gc = true };
	ctl = gt_brctl_start(p.cl, p.cache, &bo);
	gt_metrics_set_extra(&m, write_metrics, ctl);
	rc = gt_process_run(&p, GT_BRCTL_KRES, &m.ready);
	const struct gt_brctl_stats *st = gt_brctl_stats(ctl);
	gt_log(GT_LOG_INFO, "binder", "shutting down%s: %lu BindRequests bound, %lu failed, %lu retried",
	       gt_stop_requested() ? " (signal)" : "", atomic_load(&st->succeeded), atomic_load(&st->failed),
	       atomic_load(&st->retries));
end:
	gt_httpd_stop(probes);
	gt_metrics_stop(&m);	/* it reads the controller's counters */
	gt_process_quiesce(&p);
	if (ctl)
		gt_brctl_stop(ctl);	/* while the client still works: given-up binds say so */
	gt_process_stop_client(&p);
	gt_process_release(&p);
	gt_metrics_release(&m);
	return rc;
}
