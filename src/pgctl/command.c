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
	const char *kubeconfig, *context, *config;
	const char *scheduler_name, *queue_label, *node_pool_label;
	const char *cm_name, *cm_namespace;
	int knative_gang, search_legacy;	/* -1: as the configuration says */
	double qps, api_timeout_s;
	int burst, workers, page_size;
	double owner_ttl_s, watch_timeout_s;
	bool leader_elect;
	const char *ns, *lease_name;
	double lease_s, renew_s, retry_s;
	int log_level;
	long cycles;		/* 0: until stopped */
};

static void usage(FILE *f)
{
	fputs("usage: gantry podgrouper [flags]\n"
	      "Groups the pods of every workload into PodGroups, as KAI's podgrouper does.\n"
	      "Connection:\n"
	      "  --kubeconfig FILE            kubeconfig (else KUBECONFIG, in-cluster, ~/.kube/config)\n"
	      "  --context NAME               kubeconfig context (default: current-context)\n"
	      "  --qps N, --burst N           API client rate limit (default 50, 300; --qps 0: none)\n"
	      "  --api-timeout D              per-request timeout (default 30s)\n"
	      "Grouping:\n"
	      "  --config FILE                grouping configuration (YAML; custom resource rules)\n"
	      "  --scheduler-name NAME        group pods with this schedulerName (default kai-scheduler)\n"
	      "  --queue-label-key KEY        label naming the queue (default kai.scheduler/queue)\n"
	      "  --nodepool-label-key KEY     node-pool label copied to PodGroups (default\n"
	      "                               kai.scheduler/node-pool; \"\" disables)\n"
	      "  --default-priorities-configmap-name NAME, --default-priorities-configmap-namespace NS\n"
	      "                               the per-kind priority and preemptibility defaults\n"
	      "  --knative-gang-schedule[=BOOL]   one PodGroup per Knative revision (default true)\n"
	      "  --search-legacy-pg[=BOOL]    keep a Job's legacy PodGroup (default true)\n"
	      "  --max-concurrent-reconciles N    pods worked on at once (default 8)\n"
	      "  --owner-cache-ttl D          how long an owner read is trusted (default 30s)\n"
	      "  --cycles N                   make N passes once the caches are synced, then exit\n"
	      "Leader election:\n"
	      "  --leader-elect[=BOOL]        elect a leader on a Lease (default false)\n"
	      "  --namespace NS               the Lease's namespace (default kai-scheduler)\n"
	      "  --leader-elect-resource-name NAME      (default gantry-podgrouper)\n"
	      "  --leader-elect-lease-duration D, --leader-elect-renew-deadline D,\n"
	      "  --leader-elect-retry-period D          (defaults 15s, 10s, 2s)\n"
	      "Operation:\n"
	      "  --log-level L                error, warn, info or debug (default info)\n"
	      "  --page-size N                LIST page size (default 500)\n"
	      "  --watch-timeout D            watch timeoutSeconds (default 5m)\n", f);
}

static bool positive_duration(const char *v, double *out)
{
	return !gt_flag_duration(v, out) && *out > 0;
}

/* A flag with a value; false when the name is unknown or the value bad (*@known says which). */
static bool value_flag(struct opts *o, const char *flag, const char *v, bool *known)
{
	char *end;
	*known = true;
	if (!strcmp(flag, "--kubeconfig"))
		o->kubeconfig = v;
	else if (!strcmp(flag, "--context"))
		o->context = v;
	else if (!strcmp(flag, "--config"))
		o->config = v;
	else if (!strcmp(flag, "--scheduler-name"))
		o->scheduler_name = v;
	else if (!strcmp(flag, "--queue-label-key"))
		o->queue_label = v;
	else if (!strcmp(flag, "--nodepool-label-key"))
		o->node_pool_label = v;
	else if (!strcmp(flag, "--default-priorities-configmap-name"))
		o->cm_name = v;
	else if (!strcmp(flag, "--default-priorities-configmap-namespace"))
		o->cm_namespace = v;
	else if (!strcmp(flag, "--qps"))
		return (o->qps = strtod(v, &end)) >= 0 && end != v && !*end;
	else if (!strcmp(flag, "--burst"))
		return (o->burst = atoi(v)) > 0;
	else if (!strcmp(flag, "--api-timeout"))
		return positive_duration(v, &o->api_timeout_s);
	else if (!strcmp(flag, "--max-concurrent-reconciles") || !strcmp(flag, "--workers"))
		return (o->workers = atoi(v)) > 0 && o->workers <= 256;
	else if (!strcmp(flag, "--owner-cache-ttl"))
		return positive_duration(v, &o->owner_ttl_s);
	else if (!strcmp(flag, "--cycles"))
		return (o->cycles = atol(v)) > 0;
	else if (!strcmp(flag, "--namespace"))
		o->ns = v;
	else if (!strcmp(flag, "--leader-elect-resource-name"))
		o->lease_name = v;
	else if (!strcmp(flag, "--leader-elect-lease-duration"))
		return positive_duration(v, &o->lease_s);
	else if (!strcmp(flag, "--leader-elect-renew-deadline"))
		return positive_duration(v, &o->renew_s);
	else if (!strcmp(flag, "--leader-elect-retry-period"))
		return positive_duration(v, &o->retry_s);
	else if (!strcmp(flag, "--log-level"))
		return (o->log_level = gt_log_parse_level(v)) >= 0;
	else if (!strcmp(flag, "--page-size"))
		return (o->page_size = atoi(v)) > 0;
	else if (!strcmp(flag, "--watch-timeout"))
		return !gt_flag_duration(v, &o->watch_timeout_s) && o->watch_timeout_s >= 1;
	else
		*known = false;
	return *known;
}

/* A boolean flag; false when @flag is none. */
static bool bool_flag(struct opts *o, const char *flag, const char *v, bool *ok)
{
	bool b = false;
	if (strcmp(flag, "--leader-elect") && strcmp(flag, "--knative-gang-schedule") &&
	    strcmp(flag, "--search-legacy-pg"))
		return false;
	*ok = gt_flag_bool(v, &b);
	if (!strcmp(flag, "--leader-elect"))
		o->leader_elect = b;
	else if (!strcmp(flag, "--knative-gang-schedule"))
		o->knative_gang = b;
	else
		o->search_legacy = b;
	return true;
}

/* 0, 2 on a bad flag (said on stderr), -1 after --help. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){
		.knative_gang = -1, .search_legacy = -1, .qps = 50, .api_timeout_s = 30, .burst = 300,
		.workers = 8, .page_size = 500, .owner_ttl_s = 30, .watch_timeout_s = 300,
		.ns = "kai-scheduler", .lease_name = "gantry-podgrouper", .lease_s = 15, .renew_s = 10,
		.retry_s = 2, .log_level = GT_LOG_INFO,
	};
	for (int i = 1; i < argc; i++) {
		char flag[128];
		const char *v;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return -1;
		}
		if (!gt_flag_split(argv[i], flag, sizeof(flag), &v)) {
			fprintf(stderr, "gantry podgrouper: unexpected argument '%s'\n", argv[i]);
			return 2;
		}
		bool ok = true, known;
		if (bool_flag(o, flag, v, &ok)) {
			if (!ok) {
				fprintf(stderr, "gantry podgrouper: %s takes true or false, not '%s'\n", flag, v);
				return 2;
			}
			continue;
		}
		if (!v && i + 1 < argc)
			v = argv[++i];
		ok = value_flag(o, flag, v ? v : "", &known);
		if (!known) {
			fprintf(stderr, "gantry podgrouper: unknown flag '%s'\n", flag);
			usage(stderr);
			return 2;
		}
		if (!v) {
			fprintf(stderr, "gantry podgrouper: %s needs a value\n", flag);
			return 2;
		}
		if (!ok) {
			fprintf(stderr, "gantry podgrouper: %s: bad value '%s'\n", flag, v);
			return 2;
		}
	}
	if (o->leader_elect && o->renew_s >= o->lease_s) {
		fprintf(stderr, "gantry podgrouper: --leader-elect-renew-deadline must be shorter than the "
			"lease duration\n");
		return 2;
	}
	return 0;
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
	if (o->knative_gang >= 0)
		cfg->knative_gang = o->knative_gang;
	if (o->search_legacy >= 0)
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
		return rc < 0 ? 0 : rc;
	gt_log_set_level((enum gt_log_level)o.log_level);
	struct gt_pg_config cfg;
	struct gt_err err = { 0 };
	struct gt_kube_config kc;
	if (gt_pgctl_load_config(o.config, &cfg, &err) ||
	    gt_kube_config_load(o.kubeconfig, o.context, &kc, &err)) {
		fprintf(stderr, "gantry podgrouper: %s\n", err.msg);
		gt_pg_config_release(&cfg);
		return 2;
	}
	apply_flags(&o, &cfg);
	gt_log(GT_LOG_INFO, "podgrouper", "connecting to %s from %s%s", kc.server, kc.source,
	       kc.insecure ? " (TLS NOT verified: insecure-skip-tls-verify)" : "");
	/* before any thread starts: they all inherit the blocked signals */
	gt_stop_start();
	struct gt_kube_client *cl = gt_kube_client_new(&kc, o.qps, o.burst, (long)(o.api_timeout_s * 1000));
	struct gt_cache *cache = gt_cache_new();
	gt_stop_on(wake_cache, cache);
	char *identity = gt_leader_identity();
	struct gt_reflector *refl[N_WATCHED];
	struct gt_reflector_opts ro = { .page_size = o.page_size, .watch_timeout_s = (int)o.watch_timeout_s };
	for (size_t i = 0; i < N_WATCHED; i++)
		refl[i] = gt_reflector_start(cl, cache, watched[i], &ro);
	struct gt_leader *leader = NULL;
	if (o.leader_elect) {
		struct gt_leader_opts lo = { .ns = o.ns, .name = o.lease_name, .identity = identity,
					     .lease_s = o.lease_s, .renew_s = o.renew_s, .retry_s = o.retry_s,
					     .on_change = wake_cache, .arg = cache };
		leader = gt_leader_start(cl, &lo);
	}
	atomic_bool active;
	atomic_init(&active, !leader);
	struct gt_pgctl_opts po = { .cfg = &cfg, .workers = o.workers, .owner_ttl_s = o.owner_ttl_s,
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
