/*
 * command.c - `gantry podgrouper`: flags, the caches, the endpoints, signals
 *
 * The process KAI deploys as its podgrouper: reflectors keep pods, PodGroups
 * and PriorityClasses cached, the controller (pgctl.h) groups the pods, a
 * metrics address and a probe address serve /metrics and /healthz, /readyz
 * (controller-runtime's two ports), and on SIGTERM/SIGINT everything stops
 * and is freed. Every flag of KAI v0.17's podgrouper (cmd/podgrouper/app:
 * options.go, and the zap and kubeconfig flags its binary registers) is
 * accepted under its name and with its meaning, or with a warning that says
 * why it changes nothing here; the grouping rules' own settings can also
 * come from a configuration file (--config, docs/podgrouper.md), which the
 * flags override.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kube/process.h"
#include "pgctl/pgctl.h"
#include "util/clock.h"
#include "util/flags.h"
#include "util/httpd.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/num.h"
#include "util/stop.h"

#define SETTLE_TIMEOUT_S 60.0

/* controller-runtime's zap flags: accepted, and said why they change nothing */
struct zap_flags {
	bool devel, devel_given;
	const char *encoder, *stacktrace_level, *time_encoding;
};

struct opts {
	struct gt_conn_flags conn;
	struct gt_lease_flags lease;
	const char *config;
	const char *scheduler_name, *queue_label, *node_pool_label;
	const char *cm_name, *cm_namespace;
	bool knative_gang, knative_given, search_legacy, search_legacy_given;	/* not given: the configuration's */
	bool karta, karta_given;
	const char *pod_selector, *ns_selector;
	int64_t workers;
	double owner_ttl_s;
	struct gt_watch_flags watch;
	const char *probe_addr;
	struct zap_flags zap;
	int64_t cycles;		/* 0: until stopped */
};

/*
 * --zap-log-level: zap's "debug", "info", "error" (and the levels above it),
 * or an integer > 0, a verbosity (more than debug). Into a log level.
 */
static int parse_zap_level(const char *v, void *dest, char *why, size_t why_len)
{
	int64_t n;
	int lvl = gt_log_parse_level(v);
	if (lvl < 0 && (!strcmp(v, "dpanic") || !strcmp(v, "panic") || !strcmp(v, "fatal")))
		lvl = GT_LOG_ERROR;
	if (lvl < 0 && !gt_parse_int(v, &n) && n > 0)
		lvl = GT_LOG_DEBUG;
	if (lvl < 0) {
		snprintf(why, why_len, "must be debug, info, error, panic or an integer > 0");
		return -1;
	}
	*(int *)dest = lvl;
	return 0;
}

#define GROUPING_FLAGS(o)                                                                              \
	{ .type = GT_FLAG_SECTION, .help = "Grouping (KAI's podgrouper flags)" },                     \
	{ .type = GT_FLAG_STRING, .name = "scheduler-name", .dest = &(o)->scheduler_name, .arg = "NAME", \
	  .min = 1, .help = "group pods with this schedulerName (default kai-scheduler)" },             \
	{ .type = GT_FLAG_STRING, .name = "queue-label-key", .dest = &(o)->queue_label, .arg = "KEY",     \
	  .help = "label naming the queue (default kai.scheduler/queue)" },                            \
	{ .type = GT_FLAG_STRING, .name = "nodepool-label-key", .dest = &(o)->node_pool_label, .arg = "KEY", \
	  .help = "node-pool label copied to PodGroups (default kai.scheduler/node-pool;\n\"\" disables)" }, \
	{ .type = GT_FLAG_STRING, .name = "default-priorities-configmap-name", .dest = &(o)->cm_name,    \
	  .arg = "NAME", .help = "the per-kind priority and preemptibility defaults" },                 \
	{ .type = GT_FLAG_STRING, .name = "default-priorities-configmap-namespace",                    \
	  .dest = &(o)->cm_namespace, .arg = "NS", .help = "their ConfigMap's namespace (default: --namespace)" }, \
	{ .type = GT_FLAG_BOOL, .name = "knative-gang-schedule", .dest = &(o)->knative_gang,            \
	  .seen = &(o)->knative_given, .help = "one PodGroup per Knative revision (default true)" },    \
	{ .type = GT_FLAG_BOOL, .name = "search-legacy-pg", .dest = &(o)->search_legacy,                \
	  .seen = &(o)->search_legacy_given, .help = "keep a Job's legacy PodGroup (default true)" },    \
	{ .type = GT_FLAG_BOOL, .name = "generic-karta-fallback", .dest = &(o)->karta,                  \
	  .seen = &(o)->karta_given,                                                                   \
	  .help = "group kinds without a rule by the Karta that describes them\n(default true)" },     \
	{ .type = GT_FLAG_STRING, .name = "pod-label-selector", .dest = &(o)->pod_selector,             \
	  .arg = "K=V,...", .help = "group only the pods with these labels" },                          \
	{ .type = GT_FLAG_STRING, .name = "namespace-label-selector", .dest = &(o)->ns_selector,        \
	  .arg = "K=V,...", .help = "group only the pods of namespaces with these labels\n"             \
				   "(needs get, list, watch on namespaces)" },                           \
	{ .type = GT_FLAG_INT, .name = "max-concurrent-reconciles", .dest = &(o)->workers, .arg = "N",   \
	  .min = 1, .max = 256, .help = "pods worked on at once (default 10)" }

#define GANTRY_FLAGS(o)                                                                                \
	{ .type = GT_FLAG_SECTION, .help = "Grouping (Gantry's)" },                                    \
	{ .type = GT_FLAG_STRING, .name = "config", .dest = &(o)->config, .arg = "FILE",                \
	  .help = "grouping configuration (YAML; custom resource rules)" },                            \
	{ .type = GT_FLAG_INT, .name = "workers", .dest = &(o)->workers, .arg = "N", .min = 1, .max = 256, \
	  .help = "--max-concurrent-reconciles" },                                                      \
	{ .type = GT_FLAG_DURATION, .name = "owner-cache-ttl", .dest = &(o)->owner_ttl_s, .arg = "D",   \
	  .dmin_open = true, .help = "how long an owner read by name is trusted (default 30s)" },      \
	{ .type = GT_FLAG_INT, .name = "cycles", .dest = &(o)->cycles, .arg = "N", .min = 1,              \
	  .max = INT64_MAX, .help = "make N passes once the caches are synced, then exit" }

#define OPERATION_FLAGS(o)                                                                             \
	GT_WATCH_FLAGS(&(o)->watch),                                                                   \
	{ .type = GT_FLAG_STRING, .name = "health-probe-bind-address", .dest = &(o)->probe_addr,        \
	  .arg = "ADDR", .help = "/healthz and /readyz (default :8081; \"0\" disables)" },              \
	{ .type = GT_FLAG_FUNC, .name = "zap-log-level", .dest = &(o)->watch.log_level, .arg = "L",     \
	  .parse = parse_zap_level, .help = "KAI's: debug, info, error, or a verbosity > 0 (debug)" },  \
	{ .type = GT_FLAG_BOOL, .name = "zap-devel", .dest = &(o)->zap.devel, .seen = &(o)->zap.devel_given, \
	  .help = "KAI's; accepted, changes nothing (the log is logfmt)" },                             \
	{ .type = GT_FLAG_STRING, .name = "zap-encoder", .dest = &(o)->zap.encoder, .arg = "E",         \
	  .help = "KAI's; accepted, changes nothing (the log is logfmt)" },                             \
	{ .type = GT_FLAG_STRING, .name = "zap-stacktrace-level", .dest = &(o)->zap.stacktrace_level,   \
	  .arg = "L", .help = "KAI's; accepted, changes nothing (no stack traces)" },                   \
	{ .type = GT_FLAG_STRING, .name = "zap-time-encoding", .dest = &(o)->zap.time_encoding,         \
	  .arg = "E", .help = "KAI's; accepted, changes nothing (times are RFC 3339)" }

/* 0, 1 after --help, 2 on a bad flag (said on stderr). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){
		.conn = GT_CONN_DEFAULTS, .lease = GT_LEASE_DEFAULTS, .watch = GT_WATCH_DEFAULTS, .workers = 10,
		.owner_ttl_s = 30, .probe_addr = ":8081",
	};
	o->lease.name = "gantry-podgrouper";
	const struct gt_flag flags[] = { GT_CONN_FLAGS(&o->conn), GROUPING_FLAGS(o), GANTRY_FLAGS(o),
					 GT_LEASE_FLAGS(&o->lease), OPERATION_FLAGS(o) };
	const struct gt_command cmd = {
		.name = "podgrouper", .synopsis = "[flags]",
		.about = "Group the pods of every workload into PodGroups, as KAI's podgrouper does\n"
			 "(docs/podgrouper.md).",
		.flags = flags, .n_flags = GT_FLAGS_N(flags),
	};
	int rc = gt_flags_parse(&cmd, argc, argv);
	return rc ? rc : gt_lease_flags_check("podgrouper", &o->lease);
}

/* The flags of KAI's that change nothing here, each said once at the start. */
static void warn_inert(const struct opts *o)
{
	const struct zap_flags *z = &o->zap;
	if (z->devel_given)
		gt_log(GT_LOG_WARN, "podgrouper", "--zap-devel=%s changes nothing: Gantry logs logfmt lines at "
		       "--log-level (or --zap-log-level)", z->devel ? "true" : "false");
	if (z->encoder)
		gt_log(GT_LOG_WARN, "podgrouper", "--zap-encoder=%s changes nothing: Gantry logs logfmt lines, "
		       "which people and log pipelines both read", z->encoder);
	if (z->stacktrace_level)
		gt_log(GT_LOG_WARN, "podgrouper", "--zap-stacktrace-level=%s changes nothing: Gantry's log has "
		       "no stack traces", z->stacktrace_level);
	if (z->time_encoding)
		gt_log(GT_LOG_WARN, "podgrouper", "--zap-time-encoding=%s changes nothing: Gantry's log times "
		       "are RFC 3339 in UTC", z->time_encoding);
}

static void set(char **field, const char *v)
{
	if (!v)
		return;
	free(*field);
	*field = gt_xstrdup(v);
}

/* The flags win over the configuration file. */
static void apply_flags(const struct opts *o, struct gt_pg_config *cfg)
{
	set(&cfg->scheduler_name, o->scheduler_name);
	set(&cfg->queue_label, o->queue_label);
	set(&cfg->node_pool_label, o->node_pool_label);
	set(&cfg->defaults_cm_name, o->cm_name);
	set(&cfg->defaults_cm_namespace, o->cm_namespace);
	if (cfg->defaults_cm_name && !cfg->defaults_cm_namespace)
		set(&cfg->defaults_cm_namespace, o->watch.ns);
	if (o->knative_given)
		cfg->knative_gang = o->knative_gang;
	if (o->search_legacy_given)
		cfg->search_legacy_pg = o->search_legacy;
	if (o->karta_given)
		cfg->karta_fallback = o->karta;
}

static const enum gt_kres watched[] = { GT_KRES_PODS, GT_KRES_PODGROUPS, GT_KRES_PRIORITYCLASSES };
#define N_WATCHED (sizeof(watched) / sizeof(watched[0]))
#define WATCHED_MASK (GT_KRES_BIT(GT_KRES_PODS) | GT_KRES_BIT(GT_KRES_PODGROUPS) | \
		      GT_KRES_BIT(GT_KRES_PRIORITYCLASSES))

/*
 * Until a signal, lost leadership (1) or --cycles passes (0). The loop
 * sleeps on the cache, which the lease and a signal wake; it publishes
 * leadership to the controller (and wakes it) when it changes.
 */
static int run(const struct opts *o, struct gt_process *p, struct gt_pgctl *pg)
{
	long done = 0;
	unsigned mask = WATCHED_MASK | GT_KRES_WAKE;
	while (!gt_stop_requested()) {
		uint64_t seen = gt_cache_version(p->cache, mask);
		if (gt_process_turn(p))
			return 1;
		if (o->cycles && atomic_load(p->active) && gt_cache_all_synced(p->cache, WATCHED_MASK)) {
			if (!gt_pgctl_settle(pg, SETTLE_TIMEOUT_S))
				gt_log(GT_LOG_WARN, "podgrouper", "pass %ld did not finish in %.0f s", done + 1,
				       SETTLE_TIMEOUT_S);
			if (++done >= o->cycles)
				return 0;
			/* our writes come back through the watches meanwhile */
			gt_stop_sleep_until(gt_mono_ms() + 200);
			continue;
		}
		gt_cache_wait(p->cache, mask, seen, 0);
	}
	return 0;
}

static void log_summary(struct gt_pgctl *pg)
{
	const struct gt_pgctl_stats *s = gt_pgctl_stats(pg);
	unsigned long reads, hits;
	gt_pgctl_owner_counts(pg, &reads, &hits);
	unsigned long skipped = 0;
	for (int r = 0; r < GT_PGCTL_SKIP_N; r++)
		skipped += atomic_load(&s->skipped[r]);
	gt_log(GT_LOG_INFO, "podgrouper", "%lu pods looked at, %lu annotated, %lu left alone; PodGroups: %lu "
	       "created, %lu updated; %lu warnings; owners: %lu reads by name, %lu answered without one, %lu "
	       "changes", (unsigned long)atomic_load(&s->reconciles), (unsigned long)atomic_load(&s->grouped),
	       skipped, (unsigned long)atomic_load(&s->created),
	       (unsigned long)atomic_load(&s->patched), (unsigned long)atomic_load(&s->warnings), reads, hits,
	       (unsigned long)atomic_load(&s->owner_changes));
}

/* ---------------------------------------------------------------- endpoints */

/* What the endpoints read: the controller, the client's counters, leadership. */
struct endpoints {
	struct gt_pgctl *pg;
	const struct gt_kube_stats *api;
	const atomic_bool *active;
	const char *lease;	/* the Lease's name with --leader-elect, else NULL */
	struct gt_httpd *metrics, *probes;
};

/* --metrics-bind-address: /metrics, as controller-runtime's metrics server (that path only). */
static unsigned serve_metrics(void *arg, const char *path, FILE *body, const char **ctype)
{
	struct endpoints *e = arg;
	if (strcmp(path, "/metrics")) {
		fputs("not found\n", body);
		return 404;
	}
	gt_pgctl_metrics_write(e->pg, body);
	gt_kube_stats_print(e->api, "gantry_podgrouper_api_requests_total", body);
	if (e->lease) {	/* client-go's leader-election gauge */
		fputs("# HELP leader_election_master_status Gauge of if the reporting system is master of the "
		      "relevant lease, 0 indicates backup, 1 indicates master.\n"
		      "# TYPE leader_election_master_status gauge\n", body);
		fprintf(body, "leader_election_master_status{name=\"%s\"} %d\n", e->lease,
			atomic_load(e->active) ? 1 : 0);
	}
	*ctype = "text/plain; version=0.0.4";
	return 200;
}

/*
 * --health-probe-bind-address: /healthz while the process serves; /readyz
 * once the caches the rules read are listed (a standby replica too: it
 * would group at once on taking over). KAI's readyz answers ok from the
 * start; a probe that waits for the caches tells more.
 */
static unsigned serve_probes(void *arg, const char *path, FILE *body, const char **ctype)
{
	(void)ctype;
	struct endpoints *e = arg;
	if (!strcmp(path, "/healthz") || !strcmp(path, "/livez")) {
		fputs("ok\n", body);
		return 200;
	}
	if (!strcmp(path, "/readyz")) {
		bool ok = gt_pgctl_ready(e->pg);
		fputs(ok ? "ok\n" : "caches not synced\n", body);
		return ok ? 200 : 503;
	}
	fputs("not found\n", body);
	return 404;
}

/* Serve both addresses (each may be "0": off). 0, or 1 when one cannot be had (said). */
static int serve(const struct opts *o, struct endpoints *e)
{
	struct gt_err err = { 0 };
	if (!gt_httpd_disabled(o->watch.metrics_addr)) {
		e->metrics = gt_httpd_start("metrics-bind-address", o->watch.metrics_addr, serve_metrics, e, &err);
		if (!e->metrics)
			goto fail;
		gt_log(GT_LOG_INFO, "podgrouper", "serving /metrics on port %d", gt_httpd_port(e->metrics));
	}
	if (!gt_httpd_disabled(o->probe_addr)) {
		e->probes = gt_httpd_start("health-probe-bind-address", o->probe_addr, serve_probes, e, &err);
		if (!e->probes)
			goto fail;
		gt_log(GT_LOG_INFO, "podgrouper", "serving /healthz and /readyz on port %d", gt_httpd_port(e->probes));
	}
	return 0;
fail:
	fprintf(stderr, "gantry podgrouper: %s\n", err.msg);
	return 1;
}

/* ---------------------------------------------------------------- the command */

/* The configurations: the rules', the flags over them, the connection. 0 or 2 (said). */
static int configure(const struct opts *o, struct gt_pg_config *cfg, struct gt_kube_config *kc)
{
	struct gt_err err = { 0 };
	if (gt_pgctl_load_config(o->config, cfg, &err)) {
		fprintf(stderr, "gantry podgrouper: %s\n", err.msg);
		return 2;
	}
	apply_flags(o, cfg);
	warn_inert(o);
	return gt_process_load_config("podgrouper", "podgrouper", &o->conn, kc);
}

int gt_podgrouper_main(int argc, char **argv)
{
	struct opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	gt_log_set_level((enum gt_log_level)o.watch.log_level);
	struct gt_pg_config cfg;
	struct gt_kube_config kc;
	if (configure(&o, &cfg, &kc)) {
		gt_pg_config_release(&cfg);
		return 2;
	}
	struct gt_pgctl_selector pods, namespaces;
	gt_pgctl_selector_parse("pod-label-selector", o.pod_selector, &pods);
	gt_pgctl_selector_parse("namespace-label-selector", o.ns_selector, &namespaces);
	/* before any thread starts: they all inherit the blocked signals */
	gt_stop_start();
	atomic_bool active;
	struct gt_process p;
	gt_process_start(&p, &(struct gt_process_opts){ .kc = &kc, .conn = &o.conn, .lease = &o.lease,
						       .watch = &o.watch, .watched = watched, .n_watched = N_WATCHED,
						       .active = &active });
	struct gt_pgctl_opts po = { .cfg = &cfg, .workers = (int)o.workers, .owner_ttl_s = o.owner_ttl_s,
				    .page_size = (int)o.watch.page_size, .watch_timeout_s = (int)o.watch.watch_timeout_s,
				    .pods = &pods, .namespaces = &namespaces, .active = &active };
	struct gt_pgctl *pg = gt_pgctl_start(p.cl, p.cache, &po);
	struct endpoints ep = { .pg = pg, .api = gt_kube_client_stats(p.cl), .active = &active,
				.lease = p.leader ? o.lease.name : NULL };
	rc = serve(&o, &ep);
	if (!rc)
		rc = run(&o, &p, pg);
	gt_log(GT_LOG_INFO, "podgrouper", "shutting down%s", gt_stop_requested() ? " (signal)" : "");
	log_summary(pg);
	/* the endpoints read the controller: they go first */
	gt_httpd_stop(ep.metrics);
	gt_httpd_stop(ep.probes);
	gt_process_quiesce(&p);
	gt_process_stop_client(&p);
	gt_pgctl_stop(pg);
	gt_process_release(&p);
	gt_pgctl_selector_release(&pods);
	gt_pgctl_selector_release(&namespaces);
	gt_pg_config_release(&cfg);
	return rc;
}
