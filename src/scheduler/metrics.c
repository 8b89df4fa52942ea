#include "scheduler/metrics.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/actions.h"
#include "util/mem.h"

void gt_metrics_init(struct gt_metrics *m, const char *prefix)
{
	memset(m, 0, sizeof(*m));
	pthread_mutex_init(&m->mu, NULL);
	m->prefix = prefix ? prefix : "kai";
}

static void free_queues(struct gt_metrics *m)
{
	for (size_t i = 0; i < m->n_queues; i++)
		free(m->queues[i].name);
	free(m->queues);
	m->queues = NULL;
	m->n_queues = 0;
}

void gt_metrics_release(struct gt_metrics *m)
{
	gt_metrics_stop(m);
	free_queues(m);
	pthread_mutex_destroy(&m->mu);
}

/* Session units (milli-GPU, milli-CPU, bytes) to KAI's (GPUs, cores, GB). */
static double unit(int r, int64_t v)
{
	return r == GT_QMEM ? (double)v / 1e9 : (double)v / 1000.0;
}

void gt_metrics_set_queues(struct gt_metrics *m, const struct gt_session *s)
{
	const struct gt_cluster *c = s->c;
	struct gt_queue_metric *q = gt_xcalloc(c->n_queues + 1, sizeof(*q));
	for (uint32_t i = 0; i < c->n_queues; i++) {
		q[i].name = gt_xstrdup(gt_strtab_str(c->names, c->queues[i].name));
		for (int r = 0; r < GT_NQRES; r++) {
			q[i].fair[r] = unit(r, s->queues[i].fair_share[r]);
			q[i].allocated[r] = unit(r, s->queues[i].allocated[r]);
			q[i].deserved[r] = c->queues[i].deserved[r] < 0 ? -1 : unit(r, c->queues[i].deserved[r]);
		}
	}
	pthread_mutex_lock(&m->mu);
	free_queues(m);
	m->queues = q;
	m->n_queues = c->n_queues;
	pthread_mutex_unlock(&m->mu);
}

static void head(FILE *f, const char *p, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s_%s %s\n# TYPE %s_%s %s\n", p, name, help, p, name, type);
}

/* One metric with one value: its HELP and TYPE lines and the sample. */
static void gauge(FILE *f, const char *p, const char *name, const char *help, double v)
{
	head(f, p, name, "gauge", help);
	fprintf(f, "%s_%s %.3f\n", p, name, v);
}

static void counter(FILE *f, const char *p, const char *name, const char *help, unsigned long v)
{
	head(f, p, name, "counter", help);
	fprintf(f, "%s_%s %lu\n", p, name, v);
}

/* What the scheduling loop published about its last cycle (lock held). */
static void write_cycle(struct gt_metrics *m, FILE *f, const char *p)
{
	gauge(f, p, "e2e_scheduling_latency_milliseconds", "Latency of the last scheduling cycle", m->e2e_ms);
	gauge(f, p, "snapshot_latency_milliseconds", "Decoding the cache into the cycle's cluster", m->snapshot_ms);
	gauge(f, p, "open_session_latency_milliseconds", "Opening the session and computing fair shares",
	      m->open_ms);
	gauge(f, p, "write_latency_milliseconds", "Carrying out the last cycle's plan", m->write_ms);
	head(f, p, "action_scheduling_latency_milliseconds", "gauge", "Latency of each action in the last cycle");
	for (int a = 1; a < GT_N_ACTIONS; a++)
		fprintf(f, "%s_action_scheduling_latency_milliseconds{action=\"%s\"} %.3f\n", p,
			gt_action_name((enum gt_action)a), m->action_ms[a]);
	counter(f, p, "scheduling_cycles_total", "Scheduling cycles run", m->cycles);
	head(f, p, "skipped_objects", "gauge", "Objects left out of the last snapshot as malformed");
	fprintf(f, "%s_skipped_objects %lu\n", p, m->skipped_objects);
}

/* Each queue's fair share, allocation and quota, per resource (lock held). */
static void write_queues(struct gt_metrics *m, FILE *f, const char *p)
{
	static const char *const rn[GT_NQRES] = { "gpu", "cpu_cores", "memory_gb" };
	static const char *const kinds[3] = { "fair_share", "allocated", "deserved" };
	for (int k = 0; k < 3; k++)
		for (int r = 0; r < GT_NQRES; r++) {
			char name[96];
			snprintf(name, sizeof(name), "queue_%s_%s", kinds[k], rn[r]);
			head(f, p, name, "gauge", k == 2 ? "Queue quota (-1: unlimited)" : "Queue share in the last cycle");
			for (size_t q = 0; q < m->n_queues; q++) {
				const struct gt_queue_metric *qm = &m->queues[q];
				double v = k == 0 ? qm->fair[r] : k == 1 ? qm->allocated[r] : qm->deserved[r];
				fprintf(f, "%s_%s{queue_name=\"%s\"} %.6g\n", p, name, qm->name, v);
			}
		}
}

static void write_writer(const struct gt_writer_stats *w, FILE *f, const char *p)
{
	counter(f, p, "pods_bound_total", "Pods bound to nodes", atomic_load(&w->binds));
	counter(f, p, "bind_errors_total", "Binds that failed", atomic_load(&w->bind_errors));
	head(f, p, "pods_evicted_total", "counter", "Pods evicted, by the action that evicted them");
	for (int a = 1; a < GT_N_ACTIONS; a++)
		fprintf(f, "%s_pods_evicted_total{action=\"%s\"} %lu\n", p, gt_action_name((enum gt_action)a),
			atomic_load(&w->evictions[a]));
	counter(f, p, "evictions_refused_total", "Evictions refused with 429 (disruption budgets)",
		atomic_load(&w->evictions_refused));
	counter(f, p, "status_writes_total", "PodGroup and pod status and annotation patches",
		atomic_load(&w->patches));
	counter(f, p, "events_total", "Events recorded", atomic_load(&w->events));
	counter(f, p, "write_errors_total", "Status, event and eviction writes that failed",
		atomic_load(&w->patch_errors) + atomic_load(&w->event_errors) + atomic_load(&w->eviction_errors));
}

static void write_api(const struct gt_kube_stats *api, FILE *f, const char *p)
{
	char name[96];
	snprintf(name, sizeof(name), "%s_api_requests_total", p);
	gt_kube_stats_print(api, name, f);
	unsigned long errors = 0;
	for (int v = 0; v < GT_N_VERBS; v++)
		for (int k = GT_CODE_5XX; k < GT_N_CLASSES; k++)
			errors += atomic_load(&api->requests[v][k]);
	counter(f, p, "api_errors_total", "API requests that got no answer or a server error", errors);
}

static void write_reflectors(struct gt_metrics *m, FILE *f, const char *p)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} series[] = {
		{ "watch_events_total", "Watch events applied to the cache", offsetof(struct gt_reflector_stats, events) },
		{ "relists_total", "Complete LISTs of a resource (the first, and after 410 Gone)",
		  offsetof(struct gt_reflector_stats, lists) },
	};
	for (size_t k = 0; k < sizeof(series) / sizeof(series[0]); k++) {
		head(f, p, series[k].name, "counter", series[k].help);
		for (int r = 0; r < GT_N_KRES; r++)
			if (m->reflectors[r])
				fprintf(f, "%s_%s{resource=\"%s\"} %lu\n", p, series[k].name, gt_kres[r].plural,
					atomic_load((const atomic_ulong *)((const char *)m->reflectors[r] + series[k].off)));
	}
}

void gt_metrics_write(struct gt_metrics *m, FILE *f)
{
	const char *p = m->prefix;
	pthread_mutex_lock(&m->mu);
	write_cycle(m, f, p);
	write_queues(m, f, p);
	pthread_mutex_unlock(&m->mu);
	if (m->writer)
		write_writer(m->writer, f, p);
	if (m->api)
		write_api(m->api, f, p);
	write_reflectors(m, f, p);
	head(f, p, "is_leader", "gauge", "1 while this instance holds the leader lease (or runs without election)");
	fprintf(f, "%s_is_leader %d\n", p, atomic_load(&m->leader) ? 1 : 0);
	gt_metrics_extra_fn extra = atomic_load(&m->extra);
	if (extra)
		extra(m->extra_arg, f);
}

static unsigned on_request(void *arg, const char *path, FILE *body, const char **ctype)
{
	struct gt_metrics *m = arg;
	if (!strcmp(path, "/metrics")) {
		gt_metrics_write(m, body);
		*ctype = "text/plain; version=0.0.4";
		return 200;
	}
	if (!strcmp(path, "/healthz") || !strcmp(path, "/livez")) {
		fputs("ok\n", body);
		return 200;
	}
	if (!strcmp(path, "/readyz")) {
		bool ok = atomic_load(&m->ready);
		fputs(ok ? "ok\n" : "caches not synced\n", body);
		return ok ? 200 : 503;
	}
	fputs("not found\n", body);
	return 404;
}

int gt_metrics_serve(struct gt_metrics *m, const char *addr, struct gt_err *err)
{
	m->server = gt_httpd_start("metrics-bind-address", addr, on_request, m, err);
	if (!m->server)
		return err->code;
	m->port = gt_httpd_port(m->server);
	return 0;
}

void gt_metrics_stop(struct gt_metrics *m)
{
	gt_httpd_stop(m->server);
	m->server = NULL;
}
