#include "scheduler/command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "admission/admission.h"
#include "binder/controller.h"
#include "core/actions.h"
#include "core/fairshare.h"
#include "core/reserve.h"
#include "core/usage.h"
#include "kube/cache.h"
#include "kube/config.h"
#include "kube/http.h"
#include "kube/leader.h"
#include "kube/process.h"
#include "kube/reflector.h"
#include "pgctl/pgctl.h"
#include "scheduler/kai_flags.h"
#include "scheduler/kaiconfig.h"
#include "scheduler/metrics.h"
#include "scheduler/snapserve.h"
#include "scheduler/snapshot.h"
#include "scheduler/usagestore.h"
#include "scheduler/writer.h"
#include "scheduler/writes.h"
#include "status/controller.h"
#include "util/clock.h"
#include "util/flags.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/stop.h"
#include "util/version.h"

struct opts {
	struct gt_conn_flags conn;
	struct gt_lease_flags lease;
	struct gt_watch_flags watch;
	const char *scheduler_name, *shard;
	const char *node_pool, *node_pool_key;	/* NULL: the shard's partition, else the whole cluster */
	struct gt_binder_opts reservation;
	double period_s;
	unsigned actions;
	int64_t workers;
	const char *metrics_ns;
	int64_t cycles;		/* 0: until stopped */
	bool evict_by_delete;
	double grace_s;		/* < 0: the pod's own */
	bool podgrouper;	/* run the podgrouper controller in this process */
	const char *podgrouper_config;
	bool require_podgroup, require_podgroup_given;	/* not given: as --podgrouper */
	bool snapshot_endpoint;	/* serve GET /get-snapshot on kai.plugin_server_port */
	bool admission;		/* serve the admission webhooks in this process */
	struct gt_admission_opts adm;
	struct gt_kai_flags kai;
	struct gt_config_overrides overrides;	/* from kai */
	struct gt_kai_conf conf;	/* --scheduler-conf (zero without it) */
	bool actions_given;
	bool queue_controller, podgroup_controller;	/* KAI's status controllers in this process */
	const char *queue_label_map, *queue_label_defaults;	/* the queue metrics' extra labels */
	bool bind_requests;	/* write BindRequests instead of binding (KAI's scheduler's way) */
	bool binder;		/* run the BindRequest controller (`gantry binder`) in this process */
	bool scheduler_name_given;
};

static int parse_reserve_mode(const char *v, void *dest, char *why, size_t why_len)
{
	enum gt_reserve_mode *out = dest;
	if (!strcmp(v, "auto"))
		*out = GT_RESERVE_AUTO;
	else if (!strcmp(v, "true"))
		*out = GT_RESERVE_ON;
	else if (!strcmp(v, "false"))
		*out = GT_RESERVE_OFF;
	else {
		snprintf(why, why_len, "must be auto, true or false");
		return -1;
	}
	return 0;
}

/* Scheduling and operation flags; the connection and lease groups come from util/flags.h. */
#define SCHEDULING_FLAGS(o)                                                                          \
	{ .type = GT_FLAG_SECTION, .help = "Scheduling" },                                          \
	{ .type = GT_FLAG_STRING, .name = "scheduler-name", .dest = &(o)->scheduler_name, .arg = "NAME", \
	  .seen = &(o)->scheduler_name_given, .min = 1, .help = "schedule pods with this schedulerName (default kai-scheduler)" },       \
	{ .type = GT_FLAG_STRING, .name = "shard", .dest = &(o)->shard, .arg = "NAME",               \
	  .help = "SchedulingShard to read (default default)" },                                     \
	{ .type = GT_FLAG_DURATION, .name = "schedule-period", .dest = &(o)->period_s, .arg = "D",   \
	  .dmin_open = true, .help = "cycle period (default 1s)" },                                  \
	{ .type = GT_FLAG_FUNC, .name = "actions", .dest = &(o)->actions, .arg = "LIST",             \
	  .seen = &(o)->actions_given, .parse = gt_actions_flag, .help = "allocate,consolidation,reclaim,preempt,stalegangeviction" }, \
	{ .type = GT_FLAG_INT, .name = "write-workers", .dest = &(o)->workers, .arg = "N", .min = 1,  \
	  .max = 256, .help = "concurrent writes (default 16)" },                                    \
	{ .type = GT_FLAG_INT, .name = "num-of-status-recording-workers", .dest = &(o)->workers,      \
	  .arg = "N", .min = 1, .max = 256, .help = "the same, as KAI names it" },                   \
	{ .type = GT_FLAG_BOOL, .name = "evict-by-delete", .dest = &(o)->evict_by_delete,            \
	  .help = "DELETE victims instead of the Eviction API" },                                    \
	{ .type = GT_FLAG_DURATION, .name = "eviction-grace-period", .dest = &(o)->grace_s,          \
	  .arg = "D", .help = "grace period for evictions (default: the pod's own)" },               \
	{ .type = GT_FLAG_INT, .name = "cycles", .dest = &(o)->cycles, .arg = "N", .min = 1,          \
	  .max = INT64_MAX, .help = "run N cycles once caches are synced, then exit (default: run)" }, \
	{ .type = GT_FLAG_STRING, .name = "node-pool", .dest = &(o)->node_pool, .arg = "V",           \
	  .help = "serve the node pool V: nodes, queues, PodGroups labelled <key>=V (\"\":\n"          \
		  "unlabelled ones; default: the shard's partitionLabelValue, else all)" },           \
	{ .type = GT_FLAG_STRING, .name = "partition-label-value", .dest = &(o)->node_pool,           \
	  .arg = "V", .help = "the same, as KAI's shards pass it" },                                 \
	{ .type = GT_FLAG_STRING, .name = "nodepool-label-key", .dest = &(o)->node_pool_key,          \
	  .arg = "KEY", .min = 1, .help = "node-pool label (default kai.scheduler/node-pool)" },     \
	{ .type = GT_FLAG_BOOL, .name = "podgrouper", .dest = &(o)->podgrouper,                      \
	  .help = "also group pods into PodGroups, as `gantry podgrouper` (default false)" },       \
	{ .type = GT_FLAG_STRING, .name = "podgrouper-config", .dest = &(o)->podgrouper_config,      \
	  .arg = "FILE", .help = "the podgrouper's configuration (docs/podgrouper.md)" },            \
	{ .type = GT_FLAG_BOOL, .name = "admission", .dest = &(o)->admission,                        \
	  .help = "also serve the admission webhooks, as `gantry admission` (default false)" },    \
	{ .type = GT_FLAG_BOOL, .name = "require-podgroup", .dest = &(o)->require_podgroup,          \
	  .seen = &(o)->require_podgroup_given,                                                     \
	  .help = "schedule only pods whose PodGroup exists, as KAI does\n"                          \
		  "(default: true with --podgrouper, else false)" },                                  \
	{ .type = GT_FLAG_BOOL, .name = "queue-controller", .dest = &(o)->queue_controller,          \
	  .help = "write Queue status and serve KAI's queue metrics, as KAI's\n"                    \
		  "queuecontroller (default true; false where KAI's runs)" },                         \
	{ .type = GT_FLAG_BOOL, .name = "podgroup-controller", .dest = &(o)->podgroup_controller,    \
	  .help = "write PodGroup status.resourcesStatus, as KAI's podgroupcontroller\n"            \
		  "(default true; false where KAI's runs)" },                                         \
	{ .type = GT_FLAG_STRING, .name = "queue-label-to-metric-label", .dest = &(o)->queue_label_map, \
	  .arg = "K=L,...", .help = "queue metrics: Queue label K as metric label L, as KAI's" },   \
	{ .type = GT_FLAG_STRING, .name = "queue-label-to-default-metric-value",                     \
	  .dest = &(o)->queue_label_defaults, .arg = "K=V,...",                                     \
	  .help = "queue metrics: V where a Queue lacks label K (default \"\")" }

#define SHARING_FLAGS(o)                                                                             \
	{ .type = GT_FLAG_SECTION, .help = "GPU sharing" },                                         \
	{ .type = GT_FLAG_FUNC, .name = "gpu-sharing-reservation", .dest = &(o)->reservation.mode,   \
	  .arg = "MODE", .parse = parse_reserve_mode,                                               \
	  .help = "auto, true or false: reservation pods for shared GPUs\n"                          \
		  "(auto: when their namespace exists)" },                                            \
	{ .type = GT_FLAG_STRING, .name = "resource-reservation-namespace",                          \
	  .dest = &(o)->reservation.ns, .arg = "NS", .min = 1,                                      \
	  .help = "(default kai-resource-reservation)" },                                           \
	{ .type = GT_FLAG_STRING, .name = "resource-reservation-service-account",                    \
	  .dest = &(o)->reservation.service_account, .arg = "SA",                                   \
	  .help = "(default kai-resource-reservation)" },                                           \
	{ .type = GT_FLAG_STRING, .name = "resource-reservation-pod-image",                          \
	  .dest = &(o)->reservation.image, .arg = "IMAGE", .min = 1, .help = "the reservation pods' image" }, \
	{ .type = GT_FLAG_STRING, .name = "resource-reservation-runtime-class",                      \
	  .dest = &(o)->reservation.runtime_class, .arg = "RC", .help = "(default: none, as KAI v0.17)" },       \
	{ .type = GT_FLAG_DURATION, .name = "resource-reservation-allocation-timeout",               \
	  .dest = &(o)->reservation.timeout_s, .arg = "D", .dmin_open = true,                       \
	  .help = "wait for a reservation pod's GPU (default 40s)" }

#define BINDING_FLAGS(o)                                                                             \
	{ .type = GT_FLAG_SECTION, .help = "Binding (docs/deploy.md)" },                            \
	{ .type = GT_FLAG_BOOL, .name = "bind-requests", .dest = &(o)->bind_requests,                \
	  .help = "write a BindRequest per bind for a binder (KAI's or `gantry binder`)\n"          \
		  "instead of binding (default false: the scheduler binds)" },                       \
	{ .type = GT_FLAG_BOOL, .name = "binder", .dest = &(o)->binder,                              \
	  .help = "also bind BindRequests in this process, as `gantry binder` (default false)" }

#define OPERATION_FLAGS(o)                                                                           \
	GT_WATCH_FLAGS(&(o)->watch),                                                                 \
	{ .type = GT_FLAG_STRING, .name = "listen-address", .dest = &(o)->watch.metrics_addr,        \
	  .arg = "ADDR", .help = "the same as --metrics-bind-address, as KAI's deployments say it" }, \
	GT_METRICS_NAMESPACE_FLAG(&(o)->metrics_ns),                                                 \
	{ .type = GT_FLAG_BOOL, .name = "snapshot-endpoint", .dest = &(o)->snapshot_endpoint,       \
	  .help = "serve GET /get-snapshot, KAI's snapshot plugin, on 127.0.0.1; it holds\n"         \
		  "every cached object, pod specs included, on KAI's --plugin-server-port\n"        \
		  "(docs/snapshots.md; default false)" }

/* 0, 1 after --help, 2 on a bad flag (said on stderr). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){
		.conn = GT_CONN_DEFAULTS, .lease = GT_LEASE_DEFAULTS,
		.watch = GT_WATCH_DEFAULTS, .scheduler_name = "kai-scheduler", .shard = "default",
		.period_s = 1, .actions = GT_ACTIONS_ALL, .workers = 16, .metrics_ns = "kai", .grace_s = -1, .adm = GT_ADMISSION_DEFAULTS, .kai = GT_KAI_FLAGS_DEFAULTS,
		.queue_controller = true, .podgroup_controller = true,
	};
	const struct gt_flag flags[] = { GT_CONN_FLAGS(&o->conn), SCHEDULING_FLAGS(o), SHARING_FLAGS(o),
					 GT_ADMISSION_FLAGS(&o->adm), GT_LEASE_FLAGS(&o->lease), OPERATION_FLAGS(o),
					 BINDING_FLAGS(o),
					 GT_KAI_FLAGS(&o->kai) };
	const struct gt_command cmd = {
		.name = "scheduler", .synopsis = "[flags]",
		.about = "Schedule a real cluster (kubeconfig or in-cluster), as KAI's scheduler does\n"
			 "(docs/kubernetes.md).",
		.flags = flags, .n_flags = GT_FLAGS_N(flags),
	};
	int rc = gt_flags_parse(&cmd, argc, argv);
	rc = rc ? rc : gt_lease_flags_check("scheduler", &o->lease);
	o->kai.plugin_server_used = o->snapshot_endpoint;
	if (!rc && !o->admission && (o->adm.given || o->adm.runtime_class_given || o->adm.runtime_class_deprecated_given))
		fprintf(stderr, "gantry scheduler: warning: admission flags without --admission have no effect\n");
	rc = rc ? rc : gt_admission_opts_check("scheduler", &o->adm);
	rc = rc ? rc : gt_kai_flags_apply(&o->kai, &o->overrides, &o->watch.log_level, &o->conf);
	if (!rc && o->conf.spec) {
		/* KAI's scheduler runs the file's actions; --actions as well: both must name one */
		if (o->actions_given && (o->actions & o->conf.actions) != o->actions)
			gt_log(GT_LOG_WARN, "scheduler", "--actions and --scheduler-conf's actions differ: running only "
			       "those both name");
		o->actions = o->actions_given ? o->actions & o->conf.actions : o->conf.actions;
	}
	return rc;
}

struct sched {
	struct opts o;
	struct gt_kube_client *cl;
	struct gt_cache *cache;
	struct gt_writer *writer;
	struct gt_metrics metrics;
	struct gt_reflector *refl[GT_N_KRES];
	struct gt_leader *leader;	/* NULL: no election */
	struct gt_pgctl *pgctl;		/* NULL: no podgrouper in this process */
	struct gt_admission *admission;	/* NULL: no webhooks in this process */
	struct gt_statusctl *statusctl;	/* NULL: no status controllers in this process */
	struct gt_brctl *brctl;		/* NULL: no binder in this process */
	struct gt_kai_config kcfg;	/* KAI's kai-config, when there is one (its strings back S->o's) */
	struct gt_queue_label_map qlabels;
	struct gt_pg_config pg_cfg;
	char *identity;
	char **announced;	/* pipelined pods already announced */
	size_t n_announced;
	struct gt_snapserve *snapserve;	/* NULL: no --snapshot-endpoint */
	/* time-based fair share: the usage history, loaded from its ConfigMap once */
	struct gt_usage_history usage;
	struct gt_usage_store usage_store;	/* what the cluster holds of it */
	bool usage_loaded;
	int64_t usage_saved;	/* when it was last written */
	bool usage_save_failing;	/* the last write failed (said once) */
	bool usage_load_failing;	/* the read failed (said once); tried again every cycle */
};

/* The usage history to the cluster, so that the next leader or a restart keeps it. */
static void usage_save(struct sched *S, int64_t now)
{
	char name[300];
	struct gt_err err = { 0 };
	gt_usage_store_name(S->o.shard, name, sizeof(name));
	/* a write that keeps failing is said when it starts failing and when it works again */
	if (gt_usage_store_save(S->cl, S->o.watch.ns, name, &S->usage, &S->usage_store, NULL, &err)) {
		if (!S->usage_save_failing)
			gt_log(GT_LOG_WARN, "usage", "%s", err.msg);
		S->usage_save_failing = true;
	} else if (S->usage_save_failing) {
		gt_log(GT_LOG_INFO, "usage", "the usage history is written to ConfigMap %s/%s and its %u parts again",
		       S->o.watch.ns, name, S->usage_store.n_parts);
		S->usage_save_failing = false;
	}
	S->usage_saved = now;
}

/* A part of the stored usage history that cannot be used. */
static void usage_warn(void *sched, const char *msg)
{
	gt_log(GT_LOG_WARN, "usage", "namespace %s: %s", ((struct sched *)sched)->o.watch.ns, msg);
}

/*
 * Time-based fair share (the shard's usageDBConfig): the history read back
 * from its ConfigMap at the first cycle that needs it, integrated up to
 * now and applied to the queues before fair shares are computed.
 */
static void usage_before(struct sched *S, struct gt_cluster *c, int64_t now)
{
	if (!c->config.usage.on)
		return;
	if (!S->usage_loaded) {
		char name[300];
		struct gt_err err = { 0 };
		gt_usage_store_name(S->o.shard, name, sizeof(name));
		if (S->usage.cap)	/* an empty history from a read that failed */
			gt_usage_release(&S->usage);
		int rc = gt_usage_store_load(S->cl, S->o.watch.ns, name, &c->config.usage, now, usage_warn, S,
					     &S->usage, &S->usage_store, &err);
		if (rc == GT_EIO) {
			/*
			 * The API server did not answer: a new history now would overwrite
			 * the stored one at the next write. Read again next cycle, and
			 * meanwhile divide with no usage (said once).
			 */
			if (!S->usage_load_failing)
				gt_log(GT_LOG_WARN, "usage", "%s: fair shares without the usage history until it can be "
				       "read (tried again every cycle)", err.msg);
			S->usage_load_failing = true;
		} else {
			if (rc && rc != GT_ENOTFOUND)
				gt_log(GT_LOG_WARN, "usage", "starting a new usage history: %s", err.msg);
			else if (rc)
				gt_log(GT_LOG_INFO, "usage", "time-based fair share: a new usage history in ConfigMap %s/%s",
				       S->o.watch.ns, name);
			else
				gt_log(GT_LOG_INFO, "usage", "time-based fair share: the usage history in ConfigMap %s/%s "
				       "(generation %llu, %u parts, %u queues)", S->o.watch.ns, name,
				       (unsigned long long)S->usage_store.generation, S->usage_store.n_parts,
				       S->usage.n_queues);
			S->usage_loaded = true;
			S->usage_saved = now;
		}
	}
	gt_usage_configure(&S->usage, &c->config.usage, now);
	gt_usage_advance(&S->usage, now);
	gt_usage_apply(&S->usage, &c->config.usage, c, now);
}

static void usage_after(struct sched *S, const struct gt_session *s, int64_t now)
{
	if (!s->c->config.usage.on)
		return;
	gt_usage_set_rates(&S->usage, s);
	if (S->usage_loaded && now - S->usage_saved >= s->c->config.usage.fetch_interval_s)
		usage_save(S, now);
}

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
				       .grouped_only = S->o.require_podgroup_given ? S->o.require_podgroup
										  : S->o.podgrouper,
				       .overrides = &S->o.overrides, .conf_spec = S->o.conf.spec };
	struct gt_kube_snapshot snap;
	struct gt_node_pool pool = { .value = S->o.node_pool, .key = S->o.node_pool_key };
	gt_snapshot_take(S->cache, &so, &pool, &snap);
	double t1 = gt_mono_ms();
	int64_t now = (int64_t)time(NULL);
	snap.c.config.clock_ms = gt_mono_ms_clock;	/* the victim search's time budgets */
	usage_before(S, &snap.c, now);
	if (S->snapserve)
		gt_snapserve_set(S->snapserve, &snap.c.config, snap.node_pool);
	struct gt_session s;
	gt_session_open(&s, &snap.c, now);
	double t_fair = gt_mono_ms();
	gt_fairshare_compute(&s);
	gt_max_runtime_evict(&s);	/* as gt_cycle_run() does */
	double t2 = gt_mono_ms(), action_ms[GT_N_ACTIONS] = { 0 };
	for (int a = 1; a < GT_N_ACTIONS; a++) {
		if (!(S->o.actions & ~snap.c.config.actions_off & (1u << a)))
			continue;
		double ta = gt_mono_ms();
		gt_action_run(&s, (enum gt_action)a);
		action_ms[a] = gt_mono_ms() - ta;
	}
	double t_close = gt_mono_ms();
	usage_after(S, &s, now);
	struct gt_plan plan;
	gt_plan_build(&plan, &s, NULL);
	struct gt_writes_opts wo = { .node_pool = "default", .reservation_ns = S->o.reservation.ns, .now = now,
				     .binder_owns_reservations = S->o.bind_requests, .announced = S->announced, .n_announced = S->n_announced };
	struct gt_writes writes;
	char **pipelined;
	size_t n_pipelined;
	gt_writes_build(&snap, &plan, &wo, &writes, &pipelined, &n_pipelined);
	free_announced(S);
	S->announced = pipelined;
	S->n_announced = n_pipelined;
	double t3 = gt_mono_ms();
	gt_writer_run(S->writer, &writes);
	double t4 = gt_mono_ms();
	gt_metrics_set_queues(&S->metrics, &s, &snap);
	gt_metrics_count_search(&S->metrics, &s);
	gt_metrics_count_cycle(&S->metrics, &snap, &plan, &writes, S->o.node_pool_key, now * 1000);
	pthread_mutex_lock(&S->metrics.mu);
	S->metrics.cycles++;
	S->metrics.snapshot_ms = t1 - t0;
	S->metrics.open_ms = t2 - t1;
	S->metrics.fairshare_ms = t2 - t_fair;
	S->metrics.close_ms = t4 - t_close;
	S->metrics.write_ms = t4 - t3;
	S->metrics.e2e_ms = t4 - t0;
	memcpy(S->metrics.action_ms, action_ms, sizeof(action_ms));
	S->metrics.skipped_objects = snap.n_rejected;
	pthread_mutex_unlock(&S->metrics.mu);
	enum gt_log_level lvl = writes.n_binds || writes.n_evictions ? GT_LOG_INFO : GT_LOG_DEBUG;
	gt_log(lvl, "scheduler", "cycle: %u nodes, %u pods, %u jobs; %zu binds, %zu evictions, %u pipelined, "
	       "%zu writes; decode %.1f ms, actions %.1f ms, writes %.1f ms",
	       snap.c.n_nodes, snap.c.n_pods, snap.c.n_jobs, writes.n_binds, writes.n_evictions, plan.n_pipelines,
	       writes.n, t1 - t0, t3 - t2, t4 - t3);
	gt_writes_release(&writes);
	gt_plan_release(&plan);
	gt_session_release(&s);
	gt_snapshot_release(&snap);
}

static void wake_cache(void *cache)
{
	gt_cache_wake(cache);
}

/* Publish readiness and leadership; a change wakes the cache's readers (the podgrouper waits on it). */
static bool may_schedule(struct sched *S, struct gt_leader *leader, bool *was_ready)
{
	bool ready = gt_cache_all_synced(S->cache, GT_KRES_ALL);
	atomic_store(&S->metrics.ready, ready);
	if (ready && !*was_ready)
		gt_log(GT_LOG_INFO, "scheduler", "caches synced; scheduling pods with schedulerName %s",
		       S->o.scheduler_name);
	*was_ready = ready;
	bool lead = !leader || gt_leader_is_leader(leader);
	if (atomic_exchange(&S->metrics.leader, lead) != lead)
		gt_cache_wake(S->cache);
	return ready && lead;
}

/*
 * Cycles every --schedule-period while synced and leading, until a signal,
 * --cycles cycles (0) or a lost lease (1). Waiting to be ready or to lead
 * is a wait on the cache, which the reflectors, the lease and a signal wake.
 */
static int run(struct sched *S, struct gt_leader *leader)
{
	long done = 0;
	bool was_ready = false;
	unsigned mask = GT_KRES_ALL | GT_KRES_WAKE;
	while (!gt_stop_requested()) {
		uint64_t seen = gt_cache_version(S->cache, mask);
		if (leader && gt_leader_lost(leader))
			return 1;
		if (!may_schedule(S, leader, &was_ready)) {
			gt_cache_wait(S->cache, mask, seen, 0);
			continue;
		}
		double start = gt_mono_ms();
		cycle(S);
		if (S->o.cycles && ++done >= S->o.cycles)
			break;
		gt_stop_sleep_until(start + S->o.period_s * 1000);
	}
	return 0;
}

/* The configurations: the podgrouper's (for --podgrouper) and the connection's. 0 or 2 (said). */
static int configure(struct sched *S, struct gt_kube_config *cfg)
{
	struct gt_err err = { 0 };
	char why[256];
	if (gt_pgctl_load_config(S->o.podgrouper_config, &S->pg_cfg, &err)) {
		fprintf(stderr, "gantry scheduler: %s\n", err.msg);
		return 2;
	}
	if (gt_queue_label_map_parse(S->o.queue_label_map, S->o.queue_label_defaults, &S->qlabels, why, sizeof(why))) {
		fprintf(stderr, "gantry scheduler: %s\n", why);
		return 2;
	}
	if (gt_process_load_config("scheduler", "scheduler", &S->o.conn, cfg))
		return 2;
	/* the podgrouper groups the pods this scheduler schedules */
	free(S->pg_cfg.scheduler_name);
	S->pg_cfg.scheduler_name = gt_xstrdup(S->o.scheduler_name);
	return 0;
}

/* --snapshot-endpoint: KAI's /get-snapshot on loopback. 0, or 1 when the port cannot be had (said). */
static int serve_snapshots(struct sched *S)
{
	if (!S->o.snapshot_endpoint)
		return 0;
	struct gt_snapserve_opts so = { .port = (int)S->o.kai.plugin_server_port, .cl = S->cl,
					.scheduler_name = S->o.scheduler_name,
					.pool_key = S->o.node_pool_key, .actions = S->o.actions,
					.schedule_period_s = S->o.period_s };
	struct gt_err err = { 0 };
	S->snapserve = gt_snapserve_start(S->cache, &so, &err);
	if (!S->snapserve) {
		fprintf(stderr, "gantry scheduler: %s\n", err.msg);
		return 1;
	}
	gt_log(GT_LOG_INFO, "scheduler", "serving GET /get-snapshot on 127.0.0.1:%d (every cached object)",
	       gt_snapserve_port(S->snapserve));
	return 0;
}

/* The client, the cache and /metrics. 0, or 1 when the metrics port cannot be had (said). */
static int connect_api(struct sched *S, struct gt_kube_config *cfg)
{
	S->cl = gt_kube_client_new(cfg, S->o.conn.qps, (int)S->o.conn.burst, (long)(S->o.conn.api_timeout_s * 1000));
	S->cache = gt_cache_new();
	gt_stop_on(wake_cache, S->cache);
	gt_metrics_init(&S->metrics, S->o.metrics_ns);
	S->metrics.scheduler = true;
	S->metrics.api = gt_kube_client_stats(S->cl);
	atomic_store(&S->metrics.leader, !S->o.lease.elect);
	struct gt_err err = { 0 };
	if (gt_metrics_serve(&S->metrics, S->o.watch.metrics_addr, "scheduler", &err)) {
		fprintf(stderr, "gantry scheduler: %s\n", err.msg);
		return 1;
	}
	return serve_snapshots(S);
}

/* Replace *@dst with @v (the pg config owns its strings). */
static void set_owned(char **dst, const char *v)
{
	free(*dst);
	*dst = gt_xstrdup(v);
}

/*
 * KAI's kai-config Config, when there is one: its settings where no flag
 * says otherwise, and a warning for each it carries that Gantry does not
 * act on (kaiconfig.h).
 */
static void read_kai_config(struct sched *S)
{
	struct gt_kube_resp r;
	gt_kube_call(S->cl, GT_VERB_GET, "GET", "/apis/kai.scheduler/v1/configs/kai-config", NULL, NULL, &r);
	if (r.status != 200) {
		if (r.status != 404)	/* 404: no such Config (or no such kind): nothing to read */
			gt_log(GT_LOG_WARN, "scheduler", "kai-config: cannot be read (%s); its settings are not applied",
			       gt_kube_why(&r));
		gt_kube_resp_release(&r);
		return;
	}
	json_t *obj = json_loadb(r.body, r.len, 0, NULL);
	gt_kube_resp_release(&r);
	struct gt_kai_config *k = &S->kcfg;
	gt_kai_config_read(obj, k);
	json_decref(obj);
	for (size_t i = 0; i < k->n_warnings; i++)
		gt_log(GT_LOG_WARN, "scheduler", "%s", k->warnings[i]);
	struct opts *o = &S->o;
	if (k->scheduler_name && !o->scheduler_name_given) {
		o->scheduler_name = k->scheduler_name;
		set_owned(&S->pg_cfg.scheduler_name, k->scheduler_name);
	}
	if (k->node_pool_label_key && !o->node_pool_key) {
		o->node_pool_key = k->node_pool_label_key;
		if (!strcmp(S->pg_cfg.node_pool_label, GT_NODE_POOL_LABEL))	/* the podgrouper's default */
			set_owned(&S->pg_cfg.node_pool_label, k->node_pool_label_key);
	}
	if (k->queue_label_key && !strcmp(S->pg_cfg.queue_label, "kai.scheduler/queue"))
		set_owned(&S->pg_cfg.queue_label, k->queue_label_key);
	if (k->resv_ns && !o->reservation.ns)
		o->reservation.ns = k->resv_ns;
	if (k->resv_sa && !o->reservation.service_account)
		o->reservation.service_account = k->resv_sa;
	if (k->resv_runtime_class && !o->reservation.runtime_class)
		o->reservation.runtime_class = k->resv_runtime_class;
	if (k->resv_timeout_s && o->reservation.timeout_s <= 0)
		o->reservation.timeout_s = (double)k->resv_timeout_s;
	if ((k->queue_label_to_metric_label || k->queue_label_defaults) && !o->queue_label_map &&
	    !o->queue_label_defaults) {
		char why[256];
		struct gt_queue_label_map m;
		if (gt_queue_label_map_parse(k->queue_label_to_metric_label, k->queue_label_defaults, &m, why,
					     sizeof(why))) {
			gt_log(GT_LOG_WARN, "scheduler", "kai-config: spec.queueController: %s; left out", why);
		} else {
			gt_queue_label_map_release(&S->qlabels);
			S->qlabels = m;
		}
	}
	for (size_t i = 0; o->admission && !o->adm.namespace_labels.n && i < k->n_namespace_labels; i++)
		GT_PUSH(o->adm.namespace_labels.v, o->adm.namespace_labels.n, o->adm.namespace_labels.cap,
			k->namespace_labels[i]);
	for (size_t i = 0; o->admission && !o->adm.pod_labels.n && i < k->n_pod_labels; i++)
		GT_PUSH(o->adm.pod_labels.v, o->adm.pod_labels.n, o->adm.pod_labels.cap, k->pod_labels[i]);
	gt_log(GT_LOG_INFO, "scheduler", "kai-config: read; its settings apply where no flag says otherwise "
	       "(a change needs a restart)");
}

/* The admission webhooks, with --admission. 0, or 1 when their port cannot be had (said). */
static int start_admission(struct sched *S)
{
	if (!S->o.admission)
		return 0;
	struct gt_err err = { 0 };
	S->admission = gt_admission_start(S->cl, S->o.watch.ns, S->o.scheduler_name, &S->o.adm, &err);
	if (!S->admission)
		fprintf(stderr, "gantry scheduler: %s\n", err.msg);
	return S->admission ? 0 : 1;
}

/* The podgrouper's series on the scheduler's /metrics. */
static void pgctl_metrics(void *pgctl, FILE *out)
{
	gt_pgctl_metrics_write(pgctl, out);
}

static void write_status_metrics(void *ctl, FILE *f, const char *prefix)
{
	gt_statusctl_write_metrics(ctl, f, prefix);
}

static void write_binder_metrics(void *ctl, FILE *f, const char *prefix)
{
	gt_brctl_write_metrics(ctl, f, prefix);
}

/* The threads: reflectors, the writer (and binder), the election, the podgrouper. */
static void start(struct sched *S)
{
	struct gt_reflector_opts ro = { .page_size = (int)S->o.watch.page_size,
					.watch_timeout_s = (int)S->o.watch.watch_timeout_s };
	for (int r = 0; r < GT_N_KRES; r++) {
		S->refl[r] = gt_reflector_start(S->cl, S->cache, (enum gt_kres)r, &ro);
		S->metrics.reflectors[r] = gt_reflector_stats(S->refl[r]);
	}
	struct gt_writer_opts wo = { .workers = (int)S->o.workers, .evict_by_delete = S->o.evict_by_delete,
				     .grace_period_s = S->o.grace_s < 0 ? -1 : (int64_t)S->o.grace_s,
				     .component = S->o.scheduler_name, .instance = S->identity,
				     .reservation = S->o.reservation, .bind_requests = S->o.bind_requests,
				     .pool_key = S->o.node_pool_key ? S->o.node_pool_key : "kai.scheduler/node-pool",
				     .pool_value = S->o.node_pool };
	S->writer = gt_writer_new(S->cl, S->cache, &wo);
	S->metrics.writer = gt_writer_stats(S->writer);
	gt_stop_on(gt_writer_wake, S->writer);
	if (S->o.lease.elect) {
		struct gt_leader_opts lo = { .ns = S->o.lease.ns ? S->o.lease.ns : S->o.watch.ns,
					     .name = S->o.lease.name ? S->o.lease.name : S->o.scheduler_name,
					     .identity = S->identity, .lease_s = S->o.lease.lease_s,
					     .renew_s = S->o.lease.renew_s, .retry_s = S->o.lease.retry_s,
					     .on_change = wake_cache, .arg = S->cache };
		S->leader = gt_leader_start(S->cl, &lo);
	}
	if (S->o.podgrouper) {
		struct gt_pgctl_opts po = { .cfg = &S->pg_cfg, .active = &S->metrics.leader,
					    .page_size = (int)S->o.watch.page_size,
					    .watch_timeout_s = (int)S->o.watch.watch_timeout_s };
		S->pgctl = gt_pgctl_start(S->cl, S->cache, &po);
		S->metrics.podgrouper_extra_arg = S->pgctl;
		atomic_store(&S->metrics.podgrouper_extra, pgctl_metrics);
	}
	if (S->o.binder) {
		/* one cleanup of idle reservation pods: the binder's in BindRequest mode, else the plan's */
		struct gt_brctl_opts bo = { .reservation = S->o.reservation, .component = "binder",
					    .instance = S->identity, .active = &S->metrics.leader,
					    .reservation_gc = S->o.bind_requests };
		S->brctl = gt_brctl_start(S->cl, S->cache, &bo);
		pthread_mutex_lock(&S->metrics.mu);	/* /metrics is already served */
		S->metrics.binder_extra_arg = S->brctl;
		S->metrics.binder_extra = write_binder_metrics;
		pthread_mutex_unlock(&S->metrics.mu);
	}
	if (S->o.queue_controller || S->o.podgroup_controller) {
		struct gt_statusctl_opts so = { .podgroups = S->o.podgroup_controller, .queues = S->o.queue_controller,
						.active = &S->metrics.leader, .labels = &S->qlabels };
		S->statusctl = gt_statusctl_start(S->cl, S->cache, &so);
		pthread_mutex_lock(&S->metrics.mu);	/* /metrics is already served */
		S->metrics.extra_arg = S->statusctl;
		S->metrics.extra_has_queue_allocation = S->o.queue_controller;
		S->metrics.extra = write_status_metrics;
		pthread_mutex_unlock(&S->metrics.mu);
	}
}

/* Everything start() started, in the order that lets each finish. */
static void stop(struct sched *S)
{
	gt_log(GT_LOG_INFO, "scheduler", "shutting down%s", gt_stop_requested() ? " (signal)" : "");
	/* the signal thread may still be waking the writer: let it finish before the writer goes */
	gt_stop_hooks_off();
	/* /metrics reads the writer's and reflectors' counters: stop serving first */
	gt_metrics_stop(&S->metrics);
	gt_snapserve_stop(S->snapserve);
	S->snapserve = NULL;
	if (S->usage_loaded && !(S->leader && gt_leader_lost(S->leader)))	/* a new leader owns it now */
		usage_save(S, (int64_t)time(NULL));
	gt_writer_free(S->writer);
	gt_brctl_stop(S->brctl);	/* while the client still works: given-up binds say so */
	gt_leader_stop(S->leader);
	gt_kube_client_stop(S->cl);
	gt_pgctl_stop(S->pgctl);
	gt_admission_stop(S->admission);
	gt_statusctl_stop(S->statusctl);
	for (int r = 0; r < GT_N_KRES; r++)
		gt_reflector_join(S->refl[r]);
	free_announced(S);
}

int gt_scheduler_main(int argc, char **argv)
{
	struct sched S = { 0 };
	int rc = parse_args(argc, argv, &S.o);
	if (rc) {
		gt_admission_opts_release(&S.o.adm);
		gt_kai_conf_release(&S.o.conf);
		return rc == 1 ? 0 : rc;
	}
	gt_log_set_level((enum gt_log_level)S.o.watch.log_level);
	gt_mem_keep_freed();
	if (S.o.kai.version)	/* KAI's --version: the version at start */
		gt_log(GT_LOG_INFO, "scheduler", "gantry %s", GANTRY_VERSION);
	struct gt_kube_config cfg;
	rc = configure(&S, &cfg);	/* initialises S.pg_cfg whatever happens */
	if (rc) {
		gt_pg_config_release(&S.pg_cfg);
		gt_admission_opts_release(&S.o.adm);
		gt_queue_label_map_release(&S.qlabels);
		gt_kai_conf_release(&S.o.conf);
		return rc;
	}
	S.identity = gt_leader_identity();
	gt_stop_start();	/* before any thread starts: they all inherit the blocked signals */
	rc = connect_api(&S, &cfg);
	if (!rc)
		read_kai_config(&S);
	if (!rc)
		rc = start_admission(&S);
	if (!rc) {
		start(&S);
		rc = run(&S, S.leader);
		/* a one-shot run (--cycles) sees its shared-GPU binds through; a signal gives them up */
		if (S.o.cycles)
			gt_writer_wait_binds(S.writer);
		stop(&S);
	}
	gt_metrics_release(&S.metrics);
	gt_snapserve_stop(S.snapserve);	/* when start() was never reached */
	if (S.usage.cap)
		gt_usage_release(&S.usage);
	gt_cache_free(S.cache);
	gt_kube_client_free(S.cl);
	gt_pg_config_release(&S.pg_cfg);
	gt_admission_opts_release(&S.o.adm);
	gt_queue_label_map_release(&S.qlabels);
	gt_kai_conf_release(&S.o.conf);
	gt_kai_config_release(&S.kcfg);
	free(S.identity);
	gt_stop_end();
	return rc;
}
