/*
 * podgrouper_cmd.c - `gantry podgrouper`: flags, the caches, signals
 *
 * The process KAI deploys as its podgrouper: reflectors keep pods, PodGroups
 * and PriorityClasses cached, the controller (podgrouper_ctl.h) groups the
 * pods, and on SIGTERM/SIGINT everything stops and is freed. Flags follow
 * KAI's podgrouper; the grouping rules' own settings can also come from a
 * configuration file (--config, docs/podgrouper.md), which the flags override.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kube/cache.h"
#include "kube/config.h"
#include "kube/http.h"
#include "kube/leader.h"
#include "kube/reflector.h"
#include "pgctl/pgctl.h"
#include "util/clock.h"
#include "util/flags.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/stop.h"

#define SETTLE_TIMEOUT_S 60.0

struct opts {
	struct gt_conn_flags conn;
	struct gt_lease_flags lease;
	const char *config;
	const char *scheduler_name, *queue_label, *node_pool_label;
	const char *cm_name, *cm_namespace;
	bool knative_gang, knative_given, search_legacy, search_legacy_given;	/* not given: the configuration's */
	int64_t workers, page_size;
	double owner_ttl_s, watch_timeout_s;
	const char *ns;
	int log_level;
	int64_t cycles;		/* 0: until stopped */
};

/* 0, 1 after --help, 2 on a bad flag (said on stderr). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){
		.conn = GT_CONN_DEFAULTS, .lease = GT_LEASE_DEFAULTS, .workers = 8, .page_size = 500,
		.owner_ttl_s = 30, .watch_timeout_s = 300, .ns = "kai-scheduler", .log_level = GT_LOG_INFO,
	};
	o->lease.name = "gantry-podgrouper";
	const struct gt_flag flags[] = {
		GT_CONN_FLAGS(&o->conn),
		{ .type = GT_FLAG_SECTION, .help = "Grouping" },
		{ .type = GT_FLAG_STRING, .name = "config", .dest = &o->config, .arg = "FILE",
		  .help = "grouping configuration (YAML; custom resource rules)" },
		{ .type = GT_FLAG_STRING, .name = "scheduler-name", .dest = &o->scheduler_name, .arg = "NAME",
		  .min = 1, .help = "group pods with this schedulerName (default kai-scheduler)" },
		{ .type = GT_FLAG_STRING, .name = "queue-label-key", .dest = &o->queue_label, .arg = "KEY",
		  .help = "label naming the queue (default kai.scheduler/queue)" },
		{ .type = GT_FLAG_STRING, .name = "nodepool-label-key", .dest = &o->node_pool_label, .arg = "KEY",
		  .help = "node-pool label copied to PodGroups (default kai.scheduler/node-pool;\n\"\" disables)" },
		{ .type = GT_FLAG_STRING, .name = "default-priorities-configmap-name", .dest = &o->cm_name,
		  .arg = "NAME", .help = "the per-kind priority and preemptibility defaults" },
		{ .type = GT_FLAG_STRING, .name = "default-priorities-configmap-namespace", .dest = &o->cm_namespace,
		  .arg = "NS", .help = "their ConfigMap's namespace (default: --namespace)" },
		{ .type = GT_FLAG_BOOL, .name = "knative-gang-schedule", .dest = &o->knative_gang,
		  .seen = &o->knative_given, .help = "one PodGroup per Knative revision (default true)" },
		{ .type = GT_FLAG_BOOL, .name = "search-legacy-pg", .dest = &o->search_legacy,
		  .seen = &o->search_legacy_given, .help = "keep a Job's legacy PodGroup (default true)" },
		{ .type = GT_FLAG_INT, .name = "max-concurrent-reconciles", .dest = &o->workers, .arg = "N",
		  .min = 1, .max = 256, .help = "pods worked on at once (default 8)" },
		{ .type = GT_FLAG_INT, .name = "workers", .dest = &o->workers, .arg = "N", .min = 1, .max = 256,
		  .help = "the same" },
		{ .type = GT_FLAG_DURATION, .name = "owner-cache-ttl", .dest = &o->owner_ttl_s, .arg = "D",
		  .dmin_open = true, .help = "how long an owner read is trusted (default 30s)" },
		{ .type = GT_FLAG_INT, .name = "cycles", .dest = &o->cycles, .arg = "N", .min = 1, .max = INT64_MAX,
		  .help = "make N passes once the caches are synced, then exit" },
		GT_LEASE_FLAGS(&o->lease),
		{ .type = GT_FLAG_STRING, .name = "namespace", .dest = &o->ns, .arg = "NS",
		  .help = "own namespace: the Lease's unless said (default kai-scheduler)" },
		{ .type = GT_FLAG_SECTION, .help = "Operation" },
		{ .type = GT_FLAG_FUNC, .name = "log-level", .dest = &o->log_level, .arg = "L",
		  .parse = gt_flag_log_level, .help = "error, warn, info or debug (default info)" },
		{ .type = GT_FLAG_INT, .name = "page-size", .dest = &o->page_size, .arg = "N", .min = 1, .max = 100000,
		  .help = "LIST page size (default 500)" },
		{ .type = GT_FLAG_DURATION, .name = "watch-timeout", .dest = &o->watch_timeout_s, .arg = "D", .dmin = 1,
		  .help = "watch timeoutSeconds (default 5m)" },
	};
	const struct gt_command cmd = {
		.name = "podgrouper", .synopsis = "[flags]",
		.about = "Group the pods of every workload into PodGroups, as KAI's podgrouper does\n"
			 "(docs/podgrouper.md).",
		.flags = flags, .n_flags = GT_FLAGS_N(flags),
	};
	int rc = gt_flags_parse(&cmd, argc, argv);
	return rc ? rc : gt_lease_flags_check("podgrouper", &o->lease);
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
		set(&cfg->defaults_cm_namespace, o->ns);
	if (o->knative_given)
		cfg->knative_gang = o->knative_gang;
	if (o->search_legacy_given)
		cfg->search_legacy_pg = o->search_legacy;
}

static const enum gt_kres watched[] = { GT_KRES_PODS, GT_KRES_PODGROUPS, GT_KRES_PRIORITYCLASSES };
#define N_WATCHED (sizeof(watched) / sizeof(watched[0]))
#define WATCHED_MASK (GT_KRES_BIT(GT_KRES_PODS) | GT_KRES_BIT(GT_KRES_PODGROUPS) | \
		      GT_KRES_BIT(GT_KRES_PRIORITYCLASSES))

static void wake_cache(void *cache)
{
	gt_cache_wake(cache);
}

/*
 * Until a signal, lost leadership (1) or --cycles passes (0). The loop
 * sleeps on the cache, which the lease and a signal wake; it publishes
 * leadership to the controller (and wakes it) when it changes.
 */
static int run(const struct opts *o, struct gt_cache *cache, struct gt_pgctl *pg, struct gt_leader *leader,
	       atomic_bool *active)
{
	long done = 0;
	unsigned mask = WATCHED_MASK | GT_KRES_WAKE;
	while (!gt_stop_requested()) {
		uint64_t seen = gt_cache_version(cache, mask);
		if (leader && gt_leader_lost(leader))
			return 1;
		bool lead = !leader || gt_leader_is_leader(leader);
		if (atomic_exchange(active, lead) != lead)
			gt_cache_wake(cache);
		if (o->cycles && lead && gt_cache_all_synced(cache, WATCHED_MASK)) {
			if (!gt_pgctl_settle(pg, SETTLE_TIMEOUT_S))
				gt_log(GT_LOG_WARN, "podgrouper", "pass %ld did not finish in %.0f s", done + 1,
				       SETTLE_TIMEOUT_S);
			if (++done >= o->cycles)
				return 0;
			/* our writes come back through the watches meanwhile */
			gt_stop_sleep_until(gt_mono_ms() + 200);
			continue;
		}
		gt_cache_wait(cache, mask, seen, 0);
	}
	return 0;
}

static void log_summary(struct gt_pgctl *pg)
{
	const struct gt_pgctl_stats *s = gt_pgctl_stats(pg);
	unsigned long reads, hits;
	gt_pgctl_owner_counts(pg, &reads, &hits);
	gt_log(GT_LOG_INFO, "podgrouper", "%lu pods looked at, %lu annotated; PodGroups: %lu created, %lu "
	       "updated; %lu warnings; owners: %lu reads, %lu cache hits",
	       (unsigned long)atomic_load(&s->reconciles), (unsigned long)atomic_load(&s->grouped),
	       (unsigned long)atomic_load(&s->created), (unsigned long)atomic_load(&s->patched),
	       (unsigned long)atomic_load(&s->warnings), reads, hits);
}

int gt_podgrouper_main(int argc, char **argv)
{
	struct opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	gt_log_set_level((enum gt_log_level)o.log_level);
	struct gt_pg_config cfg;
	struct gt_err err = { 0 };
	struct gt_kube_config kc;
	if (gt_pgctl_load_config(o.config, &cfg, &err) ||
	    gt_kube_config_load(o.conn.kubeconfig, o.conn.context, &kc, &err)) {
		fprintf(stderr, "gantry podgrouper: %s\n", err.msg);
		gt_pg_config_release(&cfg);
		return 2;
	}
	apply_flags(&o, &cfg);
	gt_log(GT_LOG_INFO, "podgrouper", "connecting to %s from %s%s", kc.server, kc.source,
	       kc.insecure ? " (TLS NOT verified: insecure-skip-tls-verify)" : "");
	/* before any thread starts: they all inherit the blocked signals */
	gt_stop_start();
	struct gt_kube_client *cl = gt_kube_client_new(&kc, o.conn.qps, (int)o.conn.burst, (long)(o.conn.api_timeout_s * 1000));
	struct gt_cache *cache = gt_cache_new();
	gt_stop_on(wake_cache, cache);
	char *identity = gt_leader_identity();
	struct gt_reflector *refl[N_WATCHED];
	struct gt_reflector_opts ro = { .page_size = (int)o.page_size, .watch_timeout_s = (int)o.watch_timeout_s };
	for (size_t i = 0; i < N_WATCHED; i++)
		refl[i] = gt_reflector_start(cl, cache, watched[i], &ro);
	struct gt_leader *leader = NULL;
	if (o.lease.elect) {
		struct gt_leader_opts lo = { .ns = o.lease.ns ? o.lease.ns : o.ns, .name = o.lease.name,
					     .identity = identity, .lease_s = o.lease.lease_s,
					     .renew_s = o.lease.renew_s, .retry_s = o.lease.retry_s,
					     .on_change = wake_cache, .arg = cache };
		leader = gt_leader_start(cl, &lo);
	}
	atomic_bool active;
	atomic_init(&active, !leader);
	struct gt_pgctl_opts po = { .cfg = &cfg, .workers = (int)o.workers, .owner_ttl_s = o.owner_ttl_s,
				    .active = &active };
	struct gt_pgctl *pg = gt_pgctl_start(cl, cache, &po);

	rc = run(&o, cache, pg, leader, &active);
	gt_log(GT_LOG_INFO, "podgrouper", "shutting down%s", gt_stop_requested() ? " (signal)" : "");
	log_summary(pg);
	atomic_store(&active, false);
	gt_leader_stop(leader);
	gt_kube_client_stop(cl);
	gt_pgctl_stop(pg);
	for (size_t i = 0; i < N_WATCHED; i++)
		gt_reflector_join(refl[i]);
	gt_cache_free(cache);
	gt_kube_client_free(cl);
	gt_pg_config_release(&cfg);
	free(identity);
	gt_stop_end();
	return rc;
}
