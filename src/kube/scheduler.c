#include "kube/scheduler.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/actions.h"
#include "core/fairshare.h"
#include "kube/cache.h"
#include "kube/config.h"
#include "kube/http.h"
#include "kube/flags.h"
#include "kube/leader.h"
#include "kube/log.h"
#include "kube/metrics.h"
#include "kube/plan.h"
#include "kube/podgrouper_ctl.h"
#include "kube/reflector.h"
#include "kube/snapshot.h"
#include "kube/stop.h"
#include "kube/writer.h"
#include "util/clock.h"
#include "util/mem.h"

struct opts {
	const char *kubeconfig, *context;
	const char *scheduler_name, *ns, *shard;
	const char *node_pool, *node_pool_key;	/* NULL: the shard's partition, else the whole cluster */
	struct gt_binder_opts reservation;
	double period_s;
	unsigned actions;
	double qps;
	int burst, workers, page_size;
	double watch_timeout_s, api_timeout_s;
	bool leader_elect;
	double lease_s, renew_s, retry_s;
	const char *lease_name, *lease_ns;
	const char *metrics_addr, *metrics_ns;
	int log_level;
	long cycles;		/* 0: until stopped */
	bool evict_by_delete;
	double grace_s;		/* < 0: the pod's own */
	bool podgrouper;	/* run the podgrouper controller in this process */
	const char *podgrouper_config;
	int require_podgroup;	/* -1: as podgrouper */
};

static void usage(FILE *f)
{
	fputs("usage: gantry scheduler [flags]\n"
	      "Connection:\n"
	      "  --kubeconfig FILE            kubeconfig (else KUBECONFIG, in-cluster, ~/.kube/config)\n"
	      "  --context NAME               kubeconfig context (default: current-context)\n"
	      "  --qps N, --burst N           API client rate limit (default 50, 300; --qps 0: none)\n"
	      "  --api-timeout D              per-request timeout (default 30s)\n"
	      "Scheduling:\n"
	      "  --scheduler-name NAME        schedule pods with this schedulerName (default kai-scheduler)\n"
	      "  --namespace NS               own namespace, for the leader lease (default kai-scheduler)\n"
	      "  --shard NAME                 SchedulingShard to read (default default)\n"
	      "  --schedule-period D          cycle period (default 1s)\n"
	      "  --actions LIST               allocate,consolidation,reclaim,preempt,stalegangeviction\n"
	      "  --write-workers N            concurrent writes (default 16)\n"
	      "  --evict-by-delete            DELETE victims instead of the Eviction API\n"
	      "  --eviction-grace-period D    grace period for evictions (default: the pod's own)\n"
	      "  --cycles N                   run N cycles once caches are synced, then exit (default: run)\n"
	      "  --node-pool V                serve the node pool V: nodes, queues, PodGroups labelled\n"
	      "                               <key>=V (\"\": unlabelled ones; default: the shard's\n"
	      "                               partitionLabelValue, else the whole cluster)\n"
	      "  --nodepool-label-key KEY     node-pool label (default kai.scheduler/node-pool)\n"
	      "  --podgrouper[=BOOL]          also group pods into PodGroups, as `gantry podgrouper` (default false)\n"
	      "  --podgrouper-config FILE     the podgrouper's configuration (docs/podgrouper.md)\n"
	      "  --require-podgroup[=BOOL]    schedule only pods whose PodGroup exists, as KAI does\n"
	      "                               (default: true with --podgrouper, else false)\n"
	      "GPU sharing:\n"
	      "  --gpu-sharing-reservation M  auto, true or false: reservation pods for shared GPUs\n"
	      "                               (auto: when their namespace exists)\n"
	      "  --resource-reservation-namespace NS       (default kai-resource-reservation)\n"
	      "  --resource-reservation-service-account SA (default kai-resource-reservation)\n"
	      "  --resource-reservation-pod-image IMAGE\n"
	      "  --resource-reservation-runtime-class RC   (default nvidia)\n"
	      "  --resource-reservation-allocation-timeout D  wait for a reservation pod's GPU (default 40s)\n"
	      "Leader election:\n"
	      "  --leader-elect[=BOOL]        elect a leader on a Lease (default false)\n"
	      "  --leader-elect-lease-duration D, --leader-elect-renew-deadline D,\n"
	      "  --leader-elect-retry-period D          (defaults 15s, 10s, 2s)\n"
	      "  --leader-elect-resource-name NAME      (default: the scheduler name)\n"
	      "  --leader-elect-resource-namespace NS   (default: --namespace)\n"
	      "Operation:\n"
	      "  --metrics-bind-address ADDR  /metrics, /healthz, /readyz (default :8080; \"0\" disables)\n"
	      "  --metrics-namespace P        metric name prefix (default kai)\n"
	      "  --log-level L                error, warn, info or debug (default info)\n"
	      "  --page-size N                LIST page size (default 500)\n"
	      "  --watch-timeout D            watch timeoutSeconds (default 5m)\n", f);
}

static int parse_reserve_mode(const char *v, enum gt_reserve_mode *out)
{
	bool b;
	if (!strcmp(v, "auto"))
		*out = GT_RESERVE_AUTO;
	else if (gt_flag_bool(v, &b))
		*out = b ? GT_RESERVE_ON : GT_RESERVE_OFF;
	else
		return -1;
	return 0;
}

/* 0, 2 on a bad flag (said on stderr), -1 after --help. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){
		.scheduler_name = "kai-scheduler", .ns = "kai-scheduler", .shard = "default",
		.period_s = 1, .actions = GT_ACTIONS_ALL, .qps = 50, .burst = 300,
		.workers = 16, .page_size = 500, .watch_timeout_s = 300, .api_timeout_s = 30,
		.lease_s = 15, .renew_s = 10, .retry_s = 2, .metrics_addr = ":8080", .metrics_ns = "kai",
		.log_level = GT_LOG_INFO, .grace_s = -1, .require_podgroup = -1,
	};
	for (int i = 1; i < argc; i++) {
		char flag[128];
		const char *a = argv[i], *v = NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		}
		if (strncmp(a, "--", 2)) {
			fprintf(stderr, "gantry scheduler: unexpected argument '%s'\n", a);
			return 2;
		}
		if (!gt_flag_split(a, flag, sizeof(flag), &v)) {
			fprintf(stderr, "gantry scheduler: unknown flag '%s'\n", a);
			return 2;
		}
		/* boolean flags take no separate value */
		if (!strcmp(flag, "--leader-elect") || !strcmp(flag, "--evict-by-delete") ||
		    !strcmp(flag, "--podgrouper") || !strcmp(flag, "--require-podgroup")) {
			bool b;
			if (!gt_flag_bool(v, &b)) {
				fprintf(stderr, "gantry scheduler: %s takes true or false, not '%s'\n", flag, v);
				return 2;
			}
			if (!strcmp(flag, "--leader-elect"))
				o->leader_elect = b;
			else if (!strcmp(flag, "--podgrouper"))
				o->podgrouper = b;
			else if (!strcmp(flag, "--require-podgroup"))
				o->require_podgroup = b;
			else
				o->evict_by_delete = b;
			continue;
		}
		if (!v) {
			if (i + 1 >= argc) {
				fprintf(stderr, "gantry scheduler: %s needs a value\n", flag);
				return 2;
			}
			v = argv[++i];
		}
		bool bad = false;
		if (!strcmp(flag, "--kubeconfig"))
			o->kubeconfig = v;
		else if (!strcmp(flag, "--context"))
			o->context = v;
		else if (!strcmp(flag, "--scheduler-name"))
			o->scheduler_name = v;
		else if (!strcmp(flag, "--namespace"))
			o->ns = v;
		else if (!strcmp(flag, "--shard"))
			o->shard = v;
		else if (!strcmp(flag, "--schedule-period"))
			bad = gt_flag_duration(v, &o->period_s) || o->period_s <= 0;
		else if (!strcmp(flag, "--actions")) {
			char what[64];
			if (gt_actions_parse(v, &o->actions, what, sizeof(what))) {
				fprintf(stderr, "gantry scheduler: --actions: unknown action '%s'\n", what);
				return 2;
			}
		} else if (!strcmp(flag, "--qps")) {
			char *end;
			o->qps = strtod(v, &end);
			bad = end == v || *end || o->qps < 0;
		}
		else if (!strcmp(flag, "--burst"))
			bad = (o->burst = atoi(v)) <= 0;
		else if (!strcmp(flag, "--write-workers") || !strcmp(flag, "--num-of-status-recording-workers"))
			bad = (o->workers = atoi(v)) <= 0 || o->workers > 256;
		else if (!strcmp(flag, "--page-size"))
			bad = (o->page_size = atoi(v)) <= 0;
		else if (!strcmp(flag, "--watch-timeout"))
			bad = gt_flag_duration(v, &o->watch_timeout_s) || o->watch_timeout_s < 1;
		else if (!strcmp(flag, "--api-timeout"))
			bad = gt_flag_duration(v, &o->api_timeout_s) || o->api_timeout_s <= 0;
		else if (!strcmp(flag, "--leader-elect-lease-duration"))
			bad = gt_flag_duration(v, &o->lease_s) || o->lease_s <= 0;
		else if (!strcmp(flag, "--leader-elect-renew-deadline"))
			bad = gt_flag_duration(v, &o->renew_s) || o->renew_s <= 0;
		else if (!strcmp(flag, "--leader-elect-retry-period"))
			bad = gt_flag_duration(v, &o->retry_s) || o->retry_s <= 0;
		else if (!strcmp(flag, "--leader-elect-resource-name"))
			o->lease_name = v;
		else if (!strcmp(flag, "--leader-elect-resource-namespace"))
			o->lease_ns = v;
		else if (!strcmp(flag, "--metrics-bind-address") || !strcmp(flag, "--listen-address"))
			o->metrics_addr = v;	/* KAI's deployments say --listen-address */
		else if (!strcmp(flag, "--metrics-namespace"))
			o->metrics_ns = v;
		else if (!strcmp(flag, "--log-level"))
			bad = (o->log_level = gt_log_parse_level(v)) < 0;
		else if (!strcmp(flag, "--cycles"))
			bad = (o->cycles = atol(v)) <= 0;
		else if (!strcmp(flag, "--eviction-grace-period"))
			bad = gt_flag_duration(v, &o->grace_s) || o->grace_s < 0;
		else if (!strcmp(flag, "--node-pool") || !strcmp(flag, "--partition-label-value"))
			o->node_pool = v;	/* KAI's shards pass --partition-label-value */
		else if (!strcmp(flag, "--nodepool-label-key"))
			bad = !*(o->node_pool_key = v);
		else if (!strcmp(flag, "--gpu-sharing-reservation"))
			bad = parse_reserve_mode(v, &o->reservation.mode);
		else if (!strcmp(flag, "--resource-reservation-namespace"))
			bad = !*(o->reservation.ns = v);
		else if (!strcmp(flag, "--resource-reservation-service-account"))
			o->reservation.service_account = v;
		else if (!strcmp(flag, "--resource-reservation-pod-image"))
			bad = !*(o->reservation.image = v);
		else if (!strcmp(flag, "--resource-reservation-runtime-class"))
			o->reservation.runtime_class = v;
		else if (!strcmp(flag, "--resource-reservation-allocation-timeout"))
			bad = gt_flag_duration(v, &o->reservation.timeout_s) || o->reservation.timeout_s <= 0;
		else if (!strcmp(flag, "--podgrouper-config"))
			o->podgrouper_config = v;
		else {
			fprintf(stderr, "gantry scheduler: unknown flag '%s'\n", flag);
			usage(stderr);
			return 2;
		}
		if (bad) {
			fprintf(stderr, "gantry scheduler: %s: bad value '%s'\n", flag, v);
			return 2;
		}
	}
	if (o->leader_elect && o->renew_s >= o->lease_s) {
		fprintf(stderr, "gantry scheduler: --leader-elect-renew-deadline must be shorter than the lease duration\n");
		return 2;
	}
	return 0;
}

struct sched {
	struct opts o;
	struct gt_kube_client *cl;
	struct gt_cache *cache;
	struct gt_writer *writer;
	struct gt_metrics metrics;
	char **announced;	/* pipelined pods already announced */
	size_t n_announced;
};

static void free_announced(struct sched *S)
{
	for (size_t i = 0; i < S->n_announced; i++)
		free(S->announced[i]);
	free(S->announced);
	S->announced = NULL;
	S->n_announced = 0;
}

/*
 * One cycle. The actions run one by one, as gt_cycle_run() runs them (in
 * enum order, the session's action set before each), only so that each can
 * be timed for /metrics.
 */
static void cycle(struct sched *S)
{
	double t0 = gt_mono_ms();
	struct gt_snapshot_opts so = { .scheduler_name = S->o.scheduler_name, .shard = S->o.shard,
				       .grouped_only = S->o.require_podgroup < 0 ? S->o.podgrouper
						       : S->o.require_podgroup };
	struct gt_kube_snapshot snap;
	struct gt_err err = { 0 };
	struct gt_node_pool pool = { .value = S->o.node_pool, .key = S->o.node_pool_key };
	if (gt_snapshot_take_pool(S->cache, &so, &pool, &snap, &err)) {
		gt_log(GT_LOG_ERROR, "scheduler", "cycle skipped: %s", err.msg);
		pthread_mutex_lock(&S->metrics.mu);
		S->metrics.cycle_errors++;
		pthread_mutex_unlock(&S->metrics.mu);
		return;
	}
	double t1 = gt_mono_ms();
	int64_t now = (int64_t)time(NULL);
	snap.c.config.clock_ms = gt_mono_ms_clock;	/* the victim search's time budgets */
	struct gt_session s;
	gt_session_open(&s, &snap.c, now);
	gt_fairshare_compute(&s);
	double t2 = gt_mono_ms(), action_ms[GT_N_ACTIONS] = { 0 };
	for (int a = 1; a < GT_N_ACTIONS; a++) {
		if (!(S->o.actions & (1u << a)))
			continue;
		double ta = gt_mono_ms();
		gt_action_run(&s, (enum gt_action)a);
		action_ms[a] = gt_mono_ms() - ta;
	}
	struct gt_plan_opts po = { .node_pool = "default", .reservation_ns = S->o.reservation.ns, .now = now,
				   .announced = S->announced, .n_announced = S->n_announced };
	struct gt_kplan plan;
	char **pipelined;
	size_t n_pipelined;
	gt_plan_build(&snap, &s, &po, &plan, &pipelined, &n_pipelined);
	free_announced(S);
	S->announced = pipelined;
	S->n_announced = n_pipelined;
	double t3 = gt_mono_ms();
	gt_writer_run(S->writer, &plan);
	double t4 = gt_mono_ms();
	gt_metrics_set_queues(&S->metrics, &s);
	pthread_mutex_lock(&S->metrics.mu);
	S->metrics.cycles++;
	S->metrics.snapshot_ms = t1 - t0;
	S->metrics.open_ms = t2 - t1;
	S->metrics.write_ms = t4 - t3;
	S->metrics.e2e_ms = t4 - t0;
	memcpy(S->metrics.action_ms, action_ms, sizeof(action_ms));
	S->metrics.skipped_objects = snap.n_skipped;
	pthread_mutex_unlock(&S->metrics.mu);
	enum gt_log_level lvl = plan.n_binds || plan.n_evictions ? GT_LOG_INFO : GT_LOG_DEBUG;
	gt_log(lvl, "scheduler", "cycle: %u nodes, %u pods, %u jobs; %zu binds, %zu evictions, %u pipelined, "
	       "%zu writes; decode %.1f ms, actions %.1f ms, writes %.1f ms",
	       snap.c.n_nodes, snap.c.n_pods, snap.c.n_jobs, plan.n_binds, plan.n_evictions, s.n_pipelines,
	       plan.n, t1 - t0, t3 - t2, t4 - t3);
	gt_plan_release(&plan);
	gt_session_release(&s);
	gt_snapshot_release(&snap);
}

int gt_scheduler_main(int argc, char **argv)
{
	struct sched S = { 0 };
	int rc = parse_args(argc, argv, &S.o);
	if (rc)
		return rc < 0 ? 0 : rc;
	gt_log_set_level((enum gt_log_level)S.o.log_level);
	struct gt_kube_config cfg;
	struct gt_err err = { 0 };
	struct gt_pg_config pg_cfg;
	struct gt_pgctl *pgctl = NULL;
	if (gt_pgctl_load_config(S.o.podgrouper_config, &pg_cfg, &err) ||
	    gt_kube_config_load(S.o.kubeconfig, S.o.context, &cfg, &err)) {
		fprintf(stderr, "gantry scheduler: %s\n", err.msg);
		gt_pg_config_release(&pg_cfg);
		return 2;
	}
	/* the podgrouper groups the pods this scheduler schedules */
	free(pg_cfg.scheduler_name);
	pg_cfg.scheduler_name = gt_xstrdup(S.o.scheduler_name);
	gt_log(GT_LOG_INFO, "scheduler", "connecting to %s from %s%s", cfg.server, cfg.source,
	       cfg.insecure ? " (TLS NOT verified: insecure-skip-tls-verify)" : "");
	char *identity = gt_leader_identity();
	S.cl = gt_kube_client_new(&cfg, S.o.qps, S.o.burst, (long)(S.o.api_timeout_s * 1000));
	S.cache = gt_cache_new();
	gt_metrics_init(&S.metrics, S.o.metrics_ns);
	S.metrics.api = gt_kube_client_stats(S.cl);
	atomic_store(&S.metrics.leader, !S.o.leader_elect);
	if (strcmp(S.o.metrics_addr, "0") && *S.o.metrics_addr) {
		if (gt_metrics_serve(&S.metrics, S.o.metrics_addr, &err)) {
			fprintf(stderr, "gantry scheduler: %s\n", err.msg);
			rc = 1;
			goto out_early;
		}
		gt_log(GT_LOG_INFO, "scheduler", "serving /metrics, /healthz and /readyz on port %d", S.metrics.port);
	}
	/* worker threads inherit this mask: the signals land on the main thread */
	sigset_t old;
	gt_stop_block(&old);
	struct gt_reflector *refl[GT_N_KRES];
	struct gt_reflector_opts ro = { .page_size = S.o.page_size, .watch_timeout_s = (int)S.o.watch_timeout_s };
	for (int r = 0; r < GT_N_KRES; r++) {
		refl[r] = gt_reflector_start(S.cl, S.cache, (enum gt_kres)r, &ro);
		S.metrics.reflectors[r] = gt_reflector_stats(refl[r]);
	}
	struct gt_writer_opts wo = { .workers = S.o.workers, .evict_by_delete = S.o.evict_by_delete,
				     .grace_period_s = S.o.grace_s < 0 ? -1 : (int64_t)S.o.grace_s,
				     .component = S.o.scheduler_name, .instance = identity,
				     .reservation = S.o.reservation };
	S.writer = gt_writer_new(S.cl, S.cache, &wo);
	S.metrics.writer = gt_writer_stats(S.writer);
	struct gt_leader *leader = NULL;
	if (S.o.leader_elect) {
		struct gt_leader_opts lo = { .ns = S.o.lease_ns ? S.o.lease_ns : S.o.ns,
					     .name = S.o.lease_name ? S.o.lease_name : S.o.scheduler_name,
					     .identity = identity, .lease_s = S.o.lease_s, .renew_s = S.o.renew_s,
					     .retry_s = S.o.retry_s };
		leader = gt_leader_start(S.cl, &lo);
	}
	if (S.o.podgrouper) {
		struct gt_pgctl_opts po = { .cfg = &pg_cfg, .reflectors = S.metrics.reflectors,
					    .active = &S.metrics.leader };
		pgctl = gt_pgctl_start(S.cl, S.cache, &po);
	}
	gt_stop_catch(&old);

	long done = 0;
	bool was_ready = false;
	while (!gt_stop_requested()) {
		if (leader && gt_leader_lost(leader)) {
			rc = 1;
			break;
		}
		bool ready = gt_cache_all_synced(S.cache);
		atomic_store(&S.metrics.ready, ready);
		if (ready && !was_ready)
			gt_log(GT_LOG_INFO, "scheduler", "caches synced; scheduling pods with schedulerName %s",
			       S.o.scheduler_name);
		was_ready = ready;
		bool lead = !leader || gt_leader_is_leader(leader);
		atomic_store(&S.metrics.leader, lead);
		if (!ready || !lead) {
			gt_stop_sleep_until(gt_mono_ms() + 50);
			continue;
		}
		double start = gt_mono_ms();
		cycle(&S);
		if (S.o.cycles && ++done >= S.o.cycles)
			break;
		gt_stop_sleep_until(start + S.o.period_s * 1000);
	}
	/* a one-shot run (--cycles) sees its shared-GPU binds through; a signal gives them up */
	while (S.o.cycles && !gt_stop_requested() && gt_writer_binds_in_flight(S.writer))
		gt_stop_sleep_until(gt_mono_ms() + 50);
	gt_log(GT_LOG_INFO, "scheduler", "shutting down%s", gt_stop_requested() ? " (signal)" : "");
	/* /metrics reads the writer's and reflectors' counters: stop serving first */
	gt_metrics_stop(&S.metrics);
	gt_writer_free(S.writer);
	gt_leader_stop(leader);
	gt_kube_client_stop(S.cl);
	gt_pgctl_stop(pgctl);
	for (int r = 0; r < GT_N_KRES; r++)
		gt_reflector_join(refl[r]);
	free_announced(&S);
out_early:
	gt_metrics_release(&S.metrics);
	gt_cache_free(S.cache);
	gt_kube_client_free(S.cl);
	gt_pg_config_release(&pg_cfg);
	free(identity);
	return rc;
}
