/*
 * controller.c - the podgrouper controller's machinery
 *
 * A scanner thread decides which pods need work; a worker pool (util/pool.h)
 * does it (reconcile.c). The scanner sleeps on the cache (gt_cache_wait) and
 * scans the cached pods only when the version of pods, PodGroups or
 * PriorityClasses moved, an owner or a Karta changed, a retry fell due or
 * gt_pgctl_settle() asked, so an idle cluster costs nothing. Per pod it
 * remembers the resourceVersion it last worked on (and the one its own patch
 * produced) and the uids of the owners its grouping read, so a pod is worked
 * on again only when it or one of them changed; the queue holds each pod
 * once and never hands it to two workers at once (a pod that changes while
 * being worked on is queued again afterwards), as client-go's work queue.
 *
 * Owners are watched (kube/owners.h): each change that matters to the rules
 * (gt_pg_owner_change_matters: not a status that moved) puts the owner's
 * uid in a set the next scan looks the pods' owners up in. KAI's reconciler
 * does not watch owners (it reads a fresh top owner when a pod changes), so
 * a replica count lowered reaches the PodGroup there only with a pod's next
 * change; here it does at once. A Karta changed brings every pod back, with
 * a new world.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/object.h"
#include "pgctl/metrics.h"
#include "pgctl/reconcile.h"
#include "pgctl/world.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/pool.h"
#include "util/smap.h"
#include "util/thread.h"

#define BACKOFF_MIN_S 1.0	/* KAI's rate limiter: 1 s doubling to 1 min */
#define BACKOFF_MAX_S 60.0
#define SOON_S 0.2		/* after a write conflict */
#define LOST_GRACE_S 3.0	/* a PodGroup we made, missing from the cache this long: gone */
#define WORLD_MIN_AGE_S 0.2	/* under constant churn, rebuild the world at most this often */
#define DEFAULT_WORKERS 10	/* KAI's --max-concurrent-reconciles */

/* controller-runtime's reconcile-time buckets, seconds */
static const double latency_buckets[GT_PGCTL_N_BUCKETS] = {
	0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
	1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
};

/* What the controller remembers of one pod. */
struct podstate {
	char *key;		/* "namespace/name" */
	char *uid;
	char *rv;		/* the resourceVersion last worked on */
	char *rv_written;	/* the one our own patch produced */
	char *pg;		/* the PodGroup it was put in, or "" */
	double done_at;		/* when the last attempt ended */
	double retry_at;	/* 0: no retry due */
	double backoff;
	unsigned failures;
	unsigned mark;		/* the scan that last saw the pod */
	char (*read)[64];	/* the uids of the watched objects its grouping read */
	size_t n_read;
	enum gt_pgctl_skip skip;	/* why it was last left alone, if it was */
	bool queued, busy, dirty;
	struct gt_pgctl *c;
};

/* What the scanner watches in the cache (a wake counts: settles, leadership, quitting). */
#define WATCHED (GT_KRES_BIT(GT_KRES_PODS) | GT_KRES_BIT(GT_KRES_PODGROUPS) | \
		 GT_KRES_BIT(GT_KRES_PRIORITYCLASSES))

struct gt_pgctl {
	struct gt_pgctl_opts o;
	struct gt_pgctl_env env;
	struct gt_pgctl_stats stats;
	char *instance;
	pthread_t scanner;
	struct gt_pool *pool;
	pthread_mutex_t mu;
	pthread_cond_t idle;	/* a pod is done, or a scan */
	struct gt_smap pods;	/* key -> struct podstate */
	int queued, busy;
	struct gt_pgctl_world *world;
	uint64_t world_gen;	/* the cache's version of WATCHED when it was built */
	uint64_t gen;		/* the same at the last scan */
	bool scanned;		/* at least once */
	unsigned mark;
	double next_retry;	/* the earliest retry due, or 0 */
	unsigned long settle_asked, settle_done;
	struct gt_pgctl_recent recent;	/* PodGroups just made */
	struct gt_smap changed;	/* uids of owners changed since the last scan */
	bool requeue_all;	/* every pod again (a Karta changed) */
	bool kartas_changed;	/* and the world with it */
	bool quit;
};

/* ---------------------------------------------------------------- pod states */

static void set_str(char **field, const char *v)
{
	free(*field);
	*field = gt_xstrdup(v ? v : "");
}

static struct podstate *state_new(const char *key)
{
	struct podstate *st = gt_xcalloc(1, sizeof(*st));
	st->key = gt_xstrdup(key);
	set_str(&st->uid, "");
	set_str(&st->rv, "");
	set_str(&st->rv_written, "");
	set_str(&st->pg, "");
	return st;
}

static void state_free(struct podstate *st)
{
	free(st->read);
	free(st->key);
	free(st->uid);
	free(st->rv);
	free(st->rv_written);
	free(st->pg);
	free(st);
}

static void work_task(void *arg, size_t i);

/* Queue @st unless it is queued; a pod being worked on goes again afterwards (locked). */
static void enqueue(struct gt_pgctl *c, struct podstate *st)
{
	if (st->queued)
		return;
	if (st->busy) {
		st->dirty = true;
		return;
	}
	st->queued = true;
	c->queued++;
	atomic_fetch_add(&c->stats.adds, 1);
	gt_pool_submit(c->pool, work_task, st);
}

static bool podgroup_cached(struct gt_pgctl *c, const char *ns, const char *pg)
{
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", ns, pg);
	struct gt_kobj *o = gt_cache_get(c->env.cache, GT_KRES_PODGROUPS, key);
	gt_kobj_unref(o);
	return o != NULL;
}

/* Did an object the pod's grouping read change since? (locked) */
static bool read_changed(const struct podstate *st, const struct gt_smap *changed)
{
	for (size_t i = 0; changed->n && i < st->n_read; i++)
		if (gt_smap_get(changed, st->read[i]))
			return true;
	return false;
}

/*
 * Does the pod need work? Its state if so (locked). @changed: the owners
 * changed since the last scan; @all: every pod of ours needs work.
 */
static struct podstate *consider(struct gt_pgctl *c, const struct gt_kobj *pod, double now,
				 const struct gt_smap *owners_changed, bool all)
{
	const char *sched = gt_kobj_str(pod, "spec.schedulerName");
	if (!sched || strcmp(sched, c->o.cfg->scheduler_name))
		return NULL;
	/* KAI's pod cache holds only the pods --pod-label-selector selects */
	if (!gt_pgctl_selector_match(c->o.pods, pod->doc))
		return NULL;
	struct podstate *st = gt_smap_get(&c->pods, pod->key);
	if (!st) {
		st = state_new(pod->key);
		st->c = c;
		gt_smap_put(&c->pods, pod->key, st);
	}
	st->mark = c->mark;
	if (strcmp(st->uid, pod->uid)) {	/* a new pod under an old name */
		set_str(&st->uid, pod->uid);
		set_str(&st->rv, "");
		set_str(&st->rv_written, "");
		set_str(&st->pg, "");
		st->retry_at = st->backoff = 0;
		st->failures = 0;
		st->n_read = 0;
	}
	if (!gt_pod_is_live_ours(pod->doc, c->o.cfg->scheduler_name))
		return NULL;
	bool owner = all || read_changed(st, owners_changed);
	bool changed = (strcmp(pod->rv, st->rv) && strcmp(pod->rv, st->rv_written)) || owner;
	bool due = st->retry_at && now >= st->retry_at;
	if (due && !changed)
		atomic_fetch_add(&c->stats.retries, 1);
	if (!changed && st->retry_at && !due) {
		if (!c->next_retry || st->retry_at < c->next_retry)
			c->next_retry = st->retry_at;
		return NULL;
	}
	/*
	 * A PodGroup deleted under its pods is made again; one we made a
	 * moment ago may just not be in the cache yet: look again later.
	 */
	bool lost = !changed && !due && *st->pg && !podgroup_cached(c, pod->ns, st->pg);
	if (lost && now - st->done_at < LOST_GRACE_S) {
		double again = st->done_at + LOST_GRACE_S;
		if (!c->next_retry || again < c->next_retry)
			c->next_retry = again;
		return NULL;
	}
	return changed || due || lost ? st : NULL;
}

/* Forget pods the scan did not see (deleted), unless a worker holds them (locked). */
static void forget_gone(struct gt_pgctl *c)
{
	size_t pos = 0;
	const char *key;
	void *v;
	while (gt_smap_next(&c->pods, &pos, &key, &v)) {
		struct podstate *st = v;
		if (st->mark != c->mark && !st->queued && !st->busy)
			state_free(gt_smap_del(&c->pods, key));
	}
}

/* ---------------------------------------------------------------- threads */

/* Are the caches the rules read listed? (Kartas only for the Karta fallback.) */
static bool synced(const struct gt_pgctl *c)
{
	struct gt_cache *cache = c->env.cache;
	return gt_cache_synced(cache, GT_KRES_PODS) && gt_cache_synced(cache, GT_KRES_PODGROUPS) &&
	       gt_cache_synced(cache, GT_KRES_PRIORITYCLASSES) &&
	       (!c->o.cfg->karta_fallback || c->o.owners_by_name ||
		gt_owners_synced(c->env.owners, GT_PGCTL_KARTA_API, "Karta"));
}

static bool ready(const struct gt_pgctl *c)
{
	return synced(c) && (!c->o.active || atomic_load(c->o.active));
}

/*
 * Is the world too old for new work? Under constant churn it is rebuilt at
 * most every WORLD_MIN_AGE_S; the rules then see related objects (a
 * launcher pod, a legacy PodGroup) a moment late, and the change that made
 * them brings the pods concerned back anyway. (locked)
 */
static bool world_stale(const struct gt_pgctl *c, uint64_t gen, double now)
{
	if (!c->world)
		return true;
	double age = now - c->world->built;
	/* past the owner cache's ttl: read the defaults ConfigMap again */
	return age > c->o.owner_ttl_s || (age >= WORLD_MIN_AGE_S && gen != c->world_gen);
}

/* Look at every cached pod; queue those that need work (unlocked; locks). */
static void scan(struct gt_pgctl *c, uint64_t gen)
{
	size_t n, n_todo = 0;
	struct gt_kobj **pods = gt_cache_list(c->env.cache, GT_KRES_PODS, &n);
	struct podstate **todo = gt_xmalloc((n + 1) * sizeof(*todo));
	double now = gt_mono_s();
	pthread_mutex_lock(&c->mu);
	/* what changed until now is this scan's; what changes from now on, the next one's */
	struct gt_smap changed = c->changed;
	gt_smap_init(&c->changed);
	bool kartas = c->kartas_changed, all = c->requeue_all || kartas;
	c->kartas_changed = c->requeue_all = false;
	c->mark++;
	c->next_retry = 0;
	for (size_t i = 0; i < n; i++) {
		struct podstate *st = consider(c, pods[i], now, &changed, all);
		if (st)
			todo[n_todo++] = st;
	}
	forget_gone(c);		/* frees no state of @todo: the scan has just seen them */
	bool rebuild = kartas || (world_stale(c, gen, now) && (n_todo || !c->world));
	pthread_mutex_unlock(&c->mu);
	gt_smap_release(&changed);	/* its values are markers, nothing to free */
	for (size_t i = 0; i < n; i++)
		gt_kobj_unref(pods[i]);
	free(pods);
	/* built unlocked: only this thread frees states, so @todo stays valid */
	struct gt_pgctl_world *w = rebuild ? gt_pgctl_world_build(c->env.cache, c->o.cfg, c->env.owners) : NULL;
	pthread_mutex_lock(&c->mu);
	if (w) {
		gt_pgctl_world_unref(c->world);
		c->world = w;
		c->world_gen = gen;
	}
	for (size_t i = 0; i < n_todo; i++)
		enqueue(c, todo[i]);
	pthread_mutex_unlock(&c->mu);
	free(todo);
}

/* Sleep on the cache until it changes, a retry falls due or someone wakes it (locked; unlocks to wait). */
static void wait_change(struct gt_pgctl *c, uint64_t seen)
{
	double until = c->next_retry;
	pthread_mutex_unlock(&c->mu);
	gt_cache_wait(c->env.cache, WATCHED | GT_KRES_WAKE, seen, until);
	pthread_mutex_lock(&c->mu);
}

static void *scanner(void *arg)
{
	struct gt_pgctl *c = arg;
	pthread_mutex_lock(&c->mu);
	while (!c->quit) {
		/* taken before looking: a change meanwhile ends the wait at once */
		uint64_t seen = gt_cache_version(c->env.cache, WATCHED | GT_KRES_WAKE);
		if (!ready(c)) {
			wait_change(c, seen);
			continue;
		}
		uint64_t gen = gt_cache_version(c->env.cache, WATCHED);
		unsigned long asked = c->settle_asked;
		bool changed = !c->scanned || gen != c->gen || c->changed.n || c->requeue_all || c->kartas_changed;
		bool due = c->next_retry && gt_mono_s() >= c->next_retry;
		if (changed || due || asked != c->settle_done) {
			c->gen = gen;
			c->scanned = true;
			pthread_mutex_unlock(&c->mu);
			scan(c, gen);
			pthread_mutex_lock(&c->mu);
			c->settle_done = asked;
			pthread_cond_broadcast(&c->idle);
			continue;
		}
		wait_change(c, seen);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

const char *const gt_pgctl_skip_names[GT_PGCTL_SKIP_N] = {
	[GT_PGCTL_NOT_SKIPPED] = "",
	[GT_PGCTL_SKIP_ANNOTATED] = "skip-podgrouper",
	[GT_PGCTL_SKIP_OWNER_ANNOTATED] = "owner-skip-podgrouper",
	[GT_PGCTL_SKIP_OWN_PODGROUP] = "own-podgroup",
	[GT_PGCTL_SKIP_NAMESPACE] = "namespace-not-selected",
};

/*
 * A pod left alone is counted and said once for each new reason, not at
 * every update of the pod. No event: KAI records none, and the pods a
 * podgrouper shard does not select are another shard's. (locked)
 */
static void note_skip(struct gt_pgctl *c, struct podstate *st, const struct gt_pgctl_outcome *out)
{
	if (out->skip == st->skip)
		return;
	st->skip = out->skip;
	if (!out->skip)
		return;
	atomic_fetch_add(&c->stats.skipped[out->skip], 1);
	gt_log(out->skip == GT_PGCTL_SKIP_NAMESPACE ? GT_LOG_DEBUG : GT_LOG_INFO, "podgrouper",
	       "pod %s is left without a PodGroup: %s", st->key, out->why);
}

/* Write down how an attempt went (locked). */
static void record(struct gt_pgctl *c, struct podstate *st, const struct gt_kobj *pod,
		   const struct gt_pgctl_outcome *out)
{
	double now = gt_mono_s();
	note_skip(c, st, out);
	set_str(&st->rv, pod->rv);
	set_str(&st->rv_written, out->rv_written);
	set_str(&st->pg, out->pg);
	st->done_at = now;
	if (out->n_read) {
		free(st->read);
		st->read = gt_xmalloc(out->n_read * sizeof(*st->read));
		memcpy(st->read, out->read, out->n_read * sizeof(*st->read));
	}
	st->n_read = out->n_read;
	switch (out->result) {
	case GT_PGR_OK:
		st->failures = 0;
		st->backoff = st->retry_at = 0;
		return;
	case GT_PGR_SOON:
		/* a conflict clears once the watch catches up; one that persists backs off */
		st->backoff = st->backoff ? st->backoff * 2 : SOON_S;
		break;
	case GT_PGR_FAIL:
		st->failures++;
		st->backoff = st->backoff ? st->backoff * 2 : BACKOFF_MIN_S;
		break;
	}
	if (st->backoff > BACKOFF_MAX_S)
		st->backoff = BACKOFF_MAX_S;
	st->retry_at = now + st->backoff;
	if (!c->next_retry || st->retry_at < c->next_retry) {
		c->next_retry = st->retry_at;
		gt_cache_wake(c->env.cache);	/* the scanner sleeps until the earliest retry: now this one */
	}
}

/*
 * Did the pod change while it was worked on, other than by our own patch,
 * whose watch event may well have come meanwhile? (locked)
 */
static bool changed_meanwhile(struct gt_pgctl *c, const struct podstate *st)
{
	struct gt_kobj *now = gt_cache_get(c->env.cache, GT_KRES_PODS, st->key);
	bool changed = now && strcmp(now->rv, st->rv) && strcmp(now->rv, st->rv_written);
	gt_kobj_unref(now);
	return changed;
}

/* A reconcile took @s seconds: into controller-runtime's histogram. */
static void observe(struct gt_pgctl_stats *s, double secs)
{
	size_t b = 0;
	while (b < GT_PGCTL_N_BUCKETS && secs > latency_buckets[b])
		b++;
	atomic_fetch_add(&s->buckets[b], 1);
	atomic_fetch_add(&s->sum_us, (unsigned long)(secs * 1e6));
}

/* Work on @st's pod (unlocked). */
static void work(struct gt_pgctl *c, const char *key, double read_after, struct gt_pgctl_world *w,
		 struct gt_kobj **pod, struct gt_pgctl_outcome *out)
{
	memset(out, 0, sizeof(*out));
	*pod = gt_cache_get(c->env.cache, GT_KRES_PODS, key);
	if (*pod && w) {
		double t0 = gt_mono_s();
		gt_pgctl_reconcile(&c->env, w, *pod, read_after, out);
		observe(&c->stats, gt_mono_s() - t0);
	}
}

/* A pool task: one attempt at @st's pod. */
static void work_task(void *arg, size_t i)
{
	(void)i;
	struct podstate *st = arg;
	struct gt_pgctl *c = st->c;
	pthread_mutex_lock(&c->mu);
	st->queued = st->dirty = false;
	st->busy = true;
	c->queued--;
	c->busy++;
	char *key = gt_xstrdup(st->key);
	/* a retry reads the owners again, once for all the pods retried together */
	double read_after = st->failures ? st->done_at : 0;
	struct gt_pgctl_world *w = gt_pgctl_world_ref(c->world);
	pthread_mutex_unlock(&c->mu);
	struct gt_kobj *pod;
	struct gt_pgctl_outcome out;
	work(c, key, read_after, w, &pod, &out);
	pthread_mutex_lock(&c->mu);
	if (pod)
		record(c, st, pod, &out);
	st->busy = false;
	c->busy--;
	if (st->dirty && (!pod || changed_meanwhile(c, st)))
		enqueue(c, st);
	if (!c->queued && !c->busy)
		pthread_cond_broadcast(&c->idle);
	pthread_mutex_unlock(&c->mu);
	gt_kobj_unref(pod);
	gt_pgctl_world_unref(w);
	free(key);
}

static char *instance_name(void)
{
	char host[256] = "gantry", buf[300];
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	snprintf(buf, sizeof(buf), "%s_%ld", host, (long)getpid());
	return gt_xstrdup(buf);
}

/* ---------------------------------------------------------------- owners */

static bool is_karta(const struct gt_kobj *o)
{
	const char *kind = gt_doc_str(o->doc, "kind"), *api = gt_doc_str(o->doc, "apiVersion");
	return kind && api && !strcmp(kind, "Karta") && !strcmp(api, GT_PGCTL_KARTA_API);
}

/* An owner or a Karta changed (a watch's thread): the next scan brings its pods back. */
static void owner_changed(void *arg, const struct gt_kobj *old, const struct gt_kobj *cur)
{
	struct gt_pgctl *c = arg;
	const struct gt_kobj *o = cur ? cur : old;
	bool karta = is_karta(o);
	if (!karta && (!*o->uid || (old && cur && !gt_pg_owner_change_matters(old->doc, cur->doc))))
		return;
	pthread_mutex_lock(&c->mu);
	if (karta)
		c->kartas_changed = true;
	else
		gt_smap_put(&c->changed, o->uid, c);	/* a marker */
	pthread_mutex_unlock(&c->mu);
	atomic_fetch_add(&c->stats.owner_changes, 1);
	gt_log(GT_LOG_DEBUG, "podgrouper", "%s %s %s: its pods are grouped again", gt_doc_str(o->doc, "kind"),
	       o->key, !old ? "added" : !cur ? "deleted" : "changed");
	gt_cache_wake(c->env.cache);
}

static void owners_synced(void *arg)
{
	struct gt_pgctl *c = arg;
	gt_cache_wake(c->env.cache);
}

/* The owner reads and watches, and the Kartas' watch (KAI's --generic-karta-fallback). */
static struct gt_owners *owners_start(struct gt_pgctl *c, struct gt_kube_client *cl)
{
	struct gt_owners_opts oo = { .ttl_s = c->o.owner_ttl_s, .watch = !c->o.owners_by_name,
				     .page_size = c->o.page_size, .watch_timeout_s = c->o.watch_timeout_s,
				     .on_change = owner_changed, .on_sync = owners_synced, .arg = c };
	struct gt_owners *ow = gt_owners_new(cl, &oo);
	if (c->o.cfg->karta_fallback && !c->o.owners_by_name) {
		static const struct gt_kres_info kartas = { .plural = "kartas", .kind = "Karta",
							    .group_version = GT_PGCTL_KARTA_API,
							    .namespaced = false, .optional = true };
		gt_owners_watch(ow, GT_PGCTL_KARTA_API, &kartas);
	}
	return ow;
}

/* ---------------------------------------------------------------- the API */

struct gt_pgctl *gt_pgctl_start(struct gt_kube_client *cl, struct gt_cache *cache,
				const struct gt_pgctl_opts *o)
{
	struct gt_pgctl *c = gt_xcalloc(1, sizeof(*c));
	c->o = *o;
	c->o.workers = o->workers > 0 ? o->workers : DEFAULT_WORKERS;
	c->o.owner_ttl_s = o->owner_ttl_s > 0 ? o->owner_ttl_s : 30;
	c->o.component = o->component ? o->component : "pod-grouper";	/* KAI's */
	c->instance = instance_name();
	pthread_mutex_init(&c->mu, NULL);
	gt_cond_init_mono(&c->idle);
	gt_smap_init(&c->pods);
	gt_smap_init(&c->changed);
	gt_pgctl_recent_init(&c->recent);
	c->env = (struct gt_pgctl_env){ .cl = cl, .cache = cache, .stats = &c->stats,
					.namespaces = o->namespaces, .recent = &c->recent,
					.component = c->o.component, .instance = c->instance };
	c->env.owners = owners_start(c, cl);
	c->pool = gt_pool_new(c->o.workers, "podgrouper");
	gt_thread_start(&c->scanner, scanner, c, "the podgrouper's scanner");
	gt_log(GT_LOG_INFO, "podgrouper", "grouping pods with schedulerName %s (%d workers; owners %s)",
	       c->o.cfg->scheduler_name, c->o.workers, c->o.owners_by_name ? "read by name" : "watched");
	return c;
}

bool gt_pgctl_settle(struct gt_pgctl *c, double timeout_s)
{
	double until = gt_mono_s() + timeout_s;
	pthread_mutex_lock(&c->mu);
	unsigned long want = ++c->settle_asked;
	pthread_mutex_unlock(&c->mu);
	gt_cache_wake(c->env.cache);	/* the scanner looks at once */
	pthread_mutex_lock(&c->mu);
	bool in_time = true;
	while (!c->quit && in_time && (c->settle_done < want || c->queued || c->busy))
		in_time = gt_cond_wait_until(&c->idle, &c->mu, until);
	bool ok = !c->quit && c->settle_done >= want && !c->queued && !c->busy;
	pthread_mutex_unlock(&c->mu);
	return ok;
}

const struct gt_pgctl_stats *gt_pgctl_stats(const struct gt_pgctl *c)
{
	return &c->stats;
}

void gt_pgctl_owner_counts(const struct gt_pgctl *c, unsigned long *reads, unsigned long *hits)
{
	const struct gt_owners_stats *s = gt_owners_stats(c->env.owners);
	*reads = atomic_load(&s->reads);
	*hits = atomic_load(&s->hits);
}

bool gt_pgctl_ready(const struct gt_pgctl *c)
{
	return synced(c);
}

void gt_pgctl_metrics_write(const struct gt_pgctl *c, FILE *out)
{
	struct gt_pgctl *m = (struct gt_pgctl *)c;	/* the lock only */
	pthread_mutex_lock(&m->mu);
	struct gt_pgctl_gauges g = { .workers = c->o.workers, .queued = c->queued, .busy = c->busy,
				     .active = !c->o.active || atomic_load(c->o.active) };
	pthread_mutex_unlock(&m->mu);
	gt_pgctl_metrics_print(&c->stats, &g, gt_owners_stats(c->env.owners), latency_buckets, out);
}

/* Pods whose turn never came at stop: their states are freed with the map. */
static void drop_task(void *arg)
{
	(void)arg;
}

void gt_pgctl_stop(struct gt_pgctl *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->quit = true;
	pthread_cond_broadcast(&c->idle);
	pthread_mutex_unlock(&c->mu);
	gt_cache_wake(c->env.cache);
	pthread_join(c->scanner, NULL);
	gt_pool_free(c->pool, drop_task);
	size_t pos = 0;
	void *v;
	while (gt_smap_next(&c->pods, &pos, NULL, &v))
		state_free(v);
	gt_smap_release(&c->pods);
	gt_pgctl_world_unref(c->world);
	/* the watches report to @c until they end */
	gt_owners_free(c->env.owners);
	gt_smap_release(&c->changed);
	gt_pgctl_recent_release(&c->recent);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->idle);
	free(c->instance);
	free(c);
}

int gt_pgctl_load_config(const char *path, struct gt_pg_config *cfg, struct gt_err *err)
{
	gt_pg_config_init(cfg);
	if (!path)
		return 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return gt_errf(err, GT_EIO, "cannot open podgrouper configuration %s", path);
	struct gt_doc_list docs = { 0 };
	int rc = gt_doc_parse_file(f, path, &docs, err);
	fclose(f);
	if (!rc && docs.n > 1)
		rc = gt_errf(err, GT_EINVAL, "%s: one configuration document expected, found %zu", path,
			     docs.n);
	if (!rc && docs.n) {
		rc = gt_pg_config_load(cfg, docs.docs[0], err);
		if (rc) {
			char msg[sizeof(err->msg)];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			gt_errf(err, rc, "%s: %s", path, msg);
		}
	}
	gt_doc_list_release(&docs);
	return rc;
}
