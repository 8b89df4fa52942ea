#include "scheduler/metrics.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api/object.h"
#include "core/actions.h"
#include "core/scenario.h"
#include "util/log.h"
#include "util/mem.h"

void gt_metrics_init(struct gt_metrics *m, const char *prefix)
{
	memset(m, 0, sizeof(*m));
	pthread_mutex_init(&m->mu, NULL);
	m->prefix = prefix ? prefix : "kai";
	gt_histogram_init_exp(&m->task_ms, 5, 2, 10);	/* KAI's buckets: 5 ms doubling */
}

void gt_metrics_of_process(struct gt_metrics *m, const struct gt_process *p)
{
	m->api = gt_kube_client_stats(p->cl);
	for (size_t i = 0; i < p->n_refl; i++)
		m->reflectors[p->refl_kind[i]] = gt_reflector_stats(p->refl[i]);
}

static void free_queues(struct gt_metrics *m)
{
	for (size_t i = 0; i < m->n_queues; i++) {
		free(m->queues[i].name);
		free(m->queues[i].display);
	}
	free(m->queues);
	m->queues = NULL;
	m->n_queues = 0;
}

void gt_metrics_release(struct gt_metrics *m)
{
	gt_metrics_stop(m);
	free_queues(m);
	for (size_t i = 0; i < m->n_evicted; i++)
		free(m->evicted[i].labels);
	free(m->evicted);
	free(m->search);
	pthread_mutex_destroy(&m->mu);
}

/* Session units (milli-GPU, milli-CPU, bytes) to KAI's (GPUs, cores, GB). */
static double unit(int r, int64_t v)
{
	return r == GT_QMEM ? (double)v / 1e9 : (double)v / 1000.0;
}

void gt_metrics_set_queues(struct gt_metrics *m, const struct gt_session *s, const struct gt_kube_snapshot *snap)
{
	const struct gt_cluster *c = s->c;
	struct gt_queue_metric *q = gt_xcalloc(c->n_queues + 1, sizeof(*q));
	for (uint32_t i = 0; i < c->n_queues; i++) {
		q[i].name = gt_xstrdup(gt_strtab_str(c->names, c->queues[i].name));
		const struct gt_kobj *o = snap && snap->queue_obj ? snap->queue_obj[i] : NULL;
		const char *dn = o ? gt_doc_str(gt_doc_get(o->doc, "spec"), "displayName") : NULL;
		q[i].display = gt_xstrdup(dn ? dn : "");
		for (int r = 0; r < GT_NQRES; r++) {
			q[i].fair[r] = unit(r, s->queues[i].fair_share[r]);
			q[i].usage[r] = c->queues[i].usage[r];
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

static char *labels_text(const char *const *kv, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (size_t i = 0; i + 1 < n; i += 2) {
		fprintf(f, "%s%s=\"", i ? "," : "", kv[i]);
		gt_prom_label_value(f, kv[i + 1]);
		fputc('"', f);
	}
	fclose(f);
	return buf;
}

static void count_eviction(struct gt_metrics *m, const char *labels)
{
	for (size_t i = 0; i < m->n_evicted; i++)
		if (!strcmp(m->evicted[i].labels, labels)) {
			m->evicted[i].n++;
			return;
		}
	m->evicted = gt_xrealloc(m->evicted, (m->n_evicted + 1) * sizeof(*m->evicted));
	m->evicted[m->n_evicted++] = (struct gt_evicted_metric){ .labels = gt_xstrdup(labels), .n = 1 };
}

void gt_metrics_count_cycle(struct gt_metrics *m, const struct gt_kube_snapshot *snap, const struct gt_plan *plan,
			    const struct gt_writes *w, const char *node_pool_key, int64_t now_ms)
{
	const struct gt_cluster *c = plan->c;
	/* jobs scheduled per action: allocate's bound or pipelined jobs, the victim actions' preemptors */
	uint8_t *by = gt_xcalloc(c->n_jobs + 1, 1);
	for (uint32_t i = 0; i < plan->n_evictions; i++) {
		int32_t j = plan->evictions[i].evictor_job;
		if (j >= 0 && !by[j] && plan->evictions[i].action < GT_N_ACTIONS)	/* not Gantry's own */
			by[j] = (uint8_t)plan->evictions[i].action;
	}
	for (uint32_t i = 0; i < plan->n_binds + plan->n_pipelines; i++) {
		const struct gt_plan_place *pl = i < plan->n_binds ? &plan->binds[i] : &plan->pipelines[i - plan->n_binds];
		int32_t j = c->pods[pl->pod].job;
		if (j >= 0 && !by[j])
			by[j] = GT_ACT_ALLOCATE;
	}
	for (uint32_t i = 0; i < plan->n_binds; i++) {
		const struct gt_kobj *o = snap->pod_obj ? snap->pod_obj[plan->binds[i].pod] : NULL;
		if (o && o->created > 0)
			gt_histogram_observe(&m->task_ms, (double)(now_ms - o->created * 1000));
	}
	unsigned long held = 0;
	double held_gpus = 0;
	for (uint32_t j = 0; j < c->n_jobs; j++)
		if (plan->jobs[j].reserved) {
			held++;
			held_gpus += plan->jobs[j].reserve_held;
		}
	pthread_mutex_lock(&m->mu);
	if (m->reserve_on && m->reserve_last_ms && now_ms > m->reserve_last_ms) {
		m->reserved_gpu_hours += m->reserved_gpus_held * (double)(now_ms - m->reserve_last_ms) / 3.6e6;
		m->backfilled_gpu_hours += m->backfilled_gpus * (double)(now_ms - m->reserve_last_ms) / 3.6e6;
	}
	m->reserve_on |= c->config.reserve.on;
	m->reserve_last_ms = now_ms;
	m->reservations_held = held;
	m->reserved_gpus_held = held_gpus;
	m->backfilled_gpus = (double)plan->backfilled_gpus;
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		if (!by[j])
			continue;
		m->scheduled_by_action[by[j]]++;
		if (by[j] == GT_ACT_PREEMPT)
			m->preemption_attempts++;
	}
	for (size_t i = 0; i < w->n; i++) {
		const struct gt_kop *op = &w->ops[i];
		if (op->kind != GT_KOP_EVICT)
			continue;
		bool pg = op->evict_event_res == GT_KRES_PODGROUPS;
		const char *job = op->job ? strchr(op->job, '/') : NULL;
		/* KAI's nodepool label: the PodGroup's node-pool label, else "default" */
		const struct gt_kobj *pgo = pg ? gt_snapshot_find(snap, GT_KRES_PODGROUPS, op->evict_event_ns,
								 op->evict_event_name) : NULL;
		const char *pool = pgo ? gt_obj_label(pgo->doc, node_pool_key ? node_pool_key : "kai.scheduler/node-pool")
				       : NULL;
		const char *kv[] = { "podgroup", pg ? op->evict_event_name : job ? job + 1 : op->name,
				     "namespace", op->ns, "uid", pg && op->evict_event_uid ? op->evict_event_uid : "",
				     "nodepool", pool && *pool ? pool : "default", "action",
				     gt_action_name(op->action) };
		char *labels = labels_text(kv, sizeof(kv) / sizeof(kv[0]));
		count_eviction(m, labels);
		free(labels);
	}
	pthread_mutex_unlock(&m->mu);
	free(by);
}

/* One metric with one value: its HELP and TYPE lines and the sample. */
static void gauge(FILE *f, const char *p, const char *name, const char *help, double v)
{
	gt_prom_head(f, p, name, "gauge", help);
	fprintf(f, "%s_%s %.3f\n", p, name, v);
}

/* What the scheduling loop published about its last cycle (lock held). */
static void write_cycle(struct gt_metrics *m, FILE *f, const char *p)
{
	gauge(f, p, "e2e_scheduling_latency_milliseconds", "Latency of the last scheduling cycle", m->e2e_ms);
	gauge(f, p, "snapshot_latency_milliseconds", "Decoding the cache into the cycle's cluster", m->snapshot_ms);
	gauge(f, p, "open_session_latency_milliseconds", "Opening the session and computing fair shares",
	      m->open_ms);
	gauge(f, p, "close_session_latency_milliseconds", "Closing the session: building the plan and its writes",
	      m->close_ms);
	gt_prom_head(f, p, "plugin_scheduling_latency_milliseconds", "gauge",
		     "Plugin scheduling latency in milliseconds (Gantry: the fair-share division, KAI's proportion)");
	fprintf(f, "%s_plugin_scheduling_latency_milliseconds{plugin=\"proportion\",OnSession=\"OnSessionOpen\"} %.3f\n",
		p, m->fairshare_ms);
	gauge(f, p, "write_latency_milliseconds", "Carrying out the last cycle's plan", m->write_ms);
	gt_prom_head(f, p, "action_scheduling_latency_milliseconds", "gauge", "Latency of each action in the last cycle");
	for (int a = 1; a < GT_N_ACTIONS; a++)
		fprintf(f, "%s_action_scheduling_latency_milliseconds{action=\"%s\"} %.3f\n", p,
			gt_action_name((enum gt_action)a), m->action_ms[a]);
	gt_prom_counter(f, p, "scheduling_cycles_total", "Scheduling cycles run", m->cycles);
	gt_prom_head(f, p, "skipped_objects", "gauge", "Objects left out of the last snapshot as malformed");
	fprintf(f, "%s_skipped_objects %lu\n", p, m->skipped_objects);
}

/* KAI's three queue labels: queue_name is the display name when there is one (KAI's legacy label). */
static void queue_labels(FILE *f, const struct gt_queue_metric *qm)
{
	fputs("{queue_name=\"", f);
	gt_prom_label_value(f, *qm->display ? qm->display : qm->name);
	fputs("\",queue_metadata_name=\"", f);
	gt_prom_label_value(f, qm->name);
	fputs("\",queue_display_name=\"", f);
	gt_prom_label_value(f, qm->display);
	fputs("\"}", f);
}

/* Each queue's fair share and usage (KAI's), allocation and quota (Gantry's), per resource (lock held). */
static void write_queues(struct gt_metrics *m, FILE *f, const char *p)
{
	static const char *const rn[GT_NQRES] = { "gpu", "cpu_cores", "memory_gb" };
	static const char *const usage[GT_NQRES] = { "queue_gpu_usage", "queue_cpu_usage", "queue_memory_usage" };
	static const char *const fair_help[GT_NQRES] = {
		"GPU Fair share of queue, as a gauge. Values in GPU devices",
		"CPU Fair share of queue, as a gauge. Value is in Cores",
		"Memory Fair share of queue, as a gauge. Value is in GB",
	};
	for (int r = 0; r < GT_NQRES; r++) {
		char name[96];
		snprintf(name, sizeof(name), "queue_fair_share_%s", rn[r]);
		gt_prom_head(f, p, name, "gauge", fair_help[r]);
		for (size_t q = 0; q < m->n_queues; q++) {
			fprintf(f, "%s_%s", p, name);
			queue_labels(f, &m->queues[q]);
			fprintf(f, " %.6g\n", m->queues[q].fair[r]);
		}
	}
	/* the usage the last division weighed (core/usage.h): 0 without usageDBConfig, as KAI's without a database */
	for (int r = 0; r < GT_NQRES; r++) {
		gt_prom_head(f, p, usage[r], "gauge", "Usage of queue, as a gauge");
		for (size_t q = 0; q < m->n_queues; q++) {
			fprintf(f, "%s_%s", p, usage[r]);
			queue_labels(f, &m->queues[q]);
			fprintf(f, " %.6g\n", m->queues[q].usage[r]);
		}
	}
	static const char *const kinds[2] = { "allocated", "deserved" };
	for (int k = 0; k < 2; k++)
		for (int r = 0; r < GT_NQRES; r++) {
			char name[96];
			snprintf(name, sizeof(name), "queue_%s_%s", kinds[k], rn[r]);
			/* the queue controller's metric of this name (same meaning, from Queue status) takes over */
			if (!strcmp(name, "queue_allocated_cpu_cores") && m->extra_has_queue_allocation)
				continue;
			gt_prom_head(f, p, name, "gauge", k ? "Queue quota (-1: unlimited)" : "Queue allocation in the last cycle");
			for (size_t q = 0; q < m->n_queues; q++) {
				const struct gt_queue_metric *qm = &m->queues[q];
				double v = k == 0 ? qm->allocated[r] : qm->deserved[r];
				fprintf(f, "%s_%s{queue_name=\"", p, name);
				gt_prom_label_value(f, qm->name);
				fprintf(f, "\"} %.6g\n", v);
			}
		}
}

/* ---------------------------------------------------------------- the victim search */

/* The actions that search for victims, as KAI labels them. */
static const enum gt_action search_actions[] = { GT_ACT_CONSOLIDATION, GT_ACT_RECLAIM, GT_ACT_PREEMPT };
#define N_SEARCH_ACTIONS (sizeof(search_actions) / sizeof(search_actions[0]))

struct gt_search_metrics {
	unsigned long acted_on[GT_N_ACTIONS], simulated[GT_N_ACTIONS], filtered[GT_N_ACTIONS];
	unsigned long exhausted[GT_N_ACTIONS];
	unsigned long jobs[GT_N_ACTIONS][GT_N_SEARCH_RESULTS][2];	/* [reduced_budget] */
	unsigned long scenarios[GT_N_ACTIONS][GT_N_GENERATORS][GT_N_SCENARIO_STATES];
	struct gt_histogram duration[GT_N_ACTIONS][GT_N_GENERATORS][GT_N_SEARCH_RESULTS];	/* seconds */
	bool timed[GT_N_ACTIONS][GT_N_GENERATORS][GT_N_SEARCH_RESULTS];
	/* the budgets of the last cycle, seconds (0: no limit) */
	double action_s[GT_N_ACTIONS], job_s, generator_s[GT_N_GENERATORS];
};

void gt_metrics_count_search(struct gt_metrics *m, const struct gt_session *s)
{
	const struct gt_search_budgets *b = &s->c->config.search;
	pthread_mutex_lock(&m->mu);
	if (!m->search) {
		m->search = gt_xcalloc(1, sizeof(*m->search));
		for (int a = 0; a < GT_N_ACTIONS; a++)
			for (int g = 0; g < GT_N_GENERATORS; g++)
				for (int r = 0; r < GT_N_SEARCH_RESULTS; r++)	/* KAI's buckets: 1 ms doubling, 16 */
					gt_histogram_init_exp(&m->search->duration[a][g][r], 0.001, 2, 16);
	}
	struct gt_search_metrics *sm = m->search;
	sm->action_s[GT_ACT_RECLAIM] = (double)b->reclaim_ms / 1000.0;
	sm->action_s[GT_ACT_PREEMPT] = (double)b->preempt_ms / 1000.0;
	sm->action_s[GT_ACT_CONSOLIDATION] = (double)b->consolidation_ms / 1000.0;
	sm->job_s = (double)b->job_ms / 1000.0;
	for (int g = 0; g < GT_N_GENERATORS; g++)
		sm->generator_s[g] = (double)b->generator_ms[g] / 1000.0;
	for (int a = 0; a < GT_N_ACTIONS; a++) {
		const struct gt_search_stats *st = &s->search[a];
		sm->acted_on[a] += st->acted_on;
		sm->simulated[a] += st->simulated;
		sm->filtered[a] += st->filtered;
		sm->exhausted[a] += st->action_budget_exhausted;
		for (int r = 0; r < GT_N_SEARCH_RESULTS; r++) {
			sm->jobs[a][r][1] += st->jobs_reduced[r];
			sm->jobs[a][r][0] += st->jobs[r] - st->jobs_reduced[r];
		}
		for (int g = 0; g < GT_N_GENERATORS; g++)
			for (int k = 0; k < GT_N_SCENARIO_STATES; k++)
				sm->scenarios[a][g][k] += st->gen_scenarios[g][k];
		for (const struct gt_search_timing *t = st->timings; t; t = t->next) {
			gt_histogram_observe(&sm->duration[a][t->gen][t->result], (double)t->ms / 1000.0);
			sm->timed[a][t->gen][t->result] = true;
		}
	}
	pthread_mutex_unlock(&m->mu);
}

/* KAI's victim-search series (lock held); nothing before the first cycle. */
static void write_search(struct gt_metrics *m, FILE *f, const char *p)
{
	const struct gt_search_metrics *sm = m->search;
	if (!sm)
		return;
	static const struct {
		const char *name, *help;
		size_t off;
	} per_action[] = {
		{ "podgroups_acted_on_by_action", "Count of podgroups tried per action",
		  offsetof(struct gt_search_metrics, acted_on) },
		{ "scenarios_simulation_by_action", "Count of scenarios simulated per action",
		  offsetof(struct gt_search_metrics, simulated) },
		{ "scenarios_filtered_by_action", "Count of scenarios filtered per action",
		  offsetof(struct gt_search_metrics, filtered) },
		{ "scenario_search_action_budget_exhausted_total",
		  "Count of action-level scenario search budget exhaustion events.",
		  offsetof(struct gt_search_metrics, exhausted) },
	};
	for (size_t k = 0; k < sizeof(per_action) / sizeof(per_action[0]); k++) {
		gt_prom_head(f, p, per_action[k].name, "counter", per_action[k].help);
		const unsigned long *v = (const unsigned long *)((const char *)sm + per_action[k].off);
		for (size_t i = 0; i < N_SEARCH_ACTIONS; i++)
			fprintf(f, "%s_%s{action=\"%s\"} %lu\n", p, per_action[k].name,
				gt_action_name(search_actions[i]), v[search_actions[i]]);
	}
	gt_prom_head(f, p, "scenario_search_jobs_total", "counter", "Count of jobs considered by bounded scenario search.");
	for (size_t i = 0; i < N_SEARCH_ACTIONS; i++)
		for (int r = 0; r < GT_N_SEARCH_RESULTS; r++)
			for (int red = 0; red < 2; red++)
				if (sm->jobs[search_actions[i]][r][red])
					fprintf(f, "%s_scenario_search_jobs_total{action=\"%s\",result=\"%s\","
						"reduced_budget=\"%s\"} %lu\n", p, gt_action_name(search_actions[i]),
						gt_search_result_name((enum gt_search_result)r), red ? "true" : "false",
						sm->jobs[search_actions[i]][r][red]);
	gt_prom_head(f, p, "scenario_search_action_budget_configured_seconds", "gauge",
		     "Configured action scenario search budget in seconds.");
	for (size_t i = 0; i < N_SEARCH_ACTIONS; i++)
		fprintf(f, "%s_scenario_search_action_budget_configured_seconds{action=\"%s\"} %.6g\n", p,
			gt_action_name(search_actions[i]), sm->action_s[search_actions[i]]);
	gt_prom_head(f, p, "scenario_search_job_budget_configured_seconds", "gauge",
		     "Configured per-job scenario search budget in seconds.");
	fprintf(f, "%s_scenario_search_job_budget_configured_seconds %.6g\n", p, sm->job_s);
	gt_prom_head(f, p, "scenario_search_generator_budget_configured_seconds", "gauge",
		     "Configured generator scenario search budget in seconds.");
	for (int g = 0; g < GT_N_GENERATORS; g++)
		fprintf(f, "%s_scenario_search_generator_budget_configured_seconds{generator=\"%s\"} %.6g\n", p,
			gt_generator_name((enum gt_generator)g), sm->generator_s[g]);
	char name[128], labels[256];
	snprintf(name, sizeof(name), "%s_scenario_search_duration_seconds", p);
	gt_prom_head(f, p, "scenario_search_duration_seconds", "histogram", "Elapsed generator-search duration in seconds.");
	for (size_t i = 0; i < N_SEARCH_ACTIONS; i++)
		for (int g = 0; g < GT_N_GENERATORS; g++)
			for (int r = 0; r < GT_N_SEARCH_RESULTS; r++) {
				enum gt_action a = search_actions[i];
				if (!sm->timed[a][g][r])
					continue;
				snprintf(labels, sizeof(labels), "action=\"%s\",generator=\"%s\",result=\"%s\"",
					 gt_action_name(a), gt_generator_name((enum gt_generator)g),
					 gt_search_result_name((enum gt_search_result)r));
				gt_histogram_write(&sm->duration[a][g][r], f, name, NULL, labels);
			}
	gt_prom_head(f, p, "scenario_search_scenarios_total", "counter", "Count of bounded-search scenarios by state.");
	for (size_t i = 0; i < N_SEARCH_ACTIONS; i++)
		for (int g = 0; g < GT_N_GENERATORS; g++)
			for (int k = 0; k < GT_N_SCENARIO_STATES; k++)
				if (sm->scenarios[search_actions[i]][g][k])
					fprintf(f, "%s_scenario_search_scenarios_total{action=\"%s\",generator=\"%s\","
						"state=\"%s\"} %lu\n", p, gt_action_name(search_actions[i]),
						gt_generator_name((enum gt_generator)g),
						gt_scenario_state_name((enum gt_scenario_state)k),
						sm->scenarios[search_actions[i]][g][k]);
}

/* KAI's counters and histograms of what the cycles did (lock held). */
static void write_outcomes(struct gt_metrics *m, FILE *f, const char *p)
{
	char name[128];
	gt_prom_head(f, p, "podgroups_scheduled_by_action", "counter", "Count of podgroups scheduled per action");
	for (int a = 1; a < GT_N_ACTIONS; a++)
		if (a != GT_ACT_STALEGANG)
			fprintf(f, "%s_podgroups_scheduled_by_action{action=\"%s\"} %lu\n", p,
				gt_action_name((enum gt_action)a), m->scheduled_by_action[a]);
	gt_prom_counter(f, p, "total_preemption_attempts", "Total preemption attempts in the cluster till now",
			m->preemption_attempts);
	if (m->reserve_on) {	/* Gantry's own, docs/reservations.md */
		gauge(f, p, "reservations_held", "Reservations for gangs held in the last cycle",
		      (double)m->reservations_held);
		gauge(f, p, "reserved_gpus_held", "GPUs reservations held from other jobs in the last cycle",
		      m->reserved_gpus_held);
		gauge(f, p, "reserved_gpu_hours_total", "GPU-hours reservations held from other jobs since the start",
		      m->reserved_gpu_hours);
		gauge(f, p, "backfilled_gpus", "GPUs on reserved nodes used by jobs that started while the reservation "
		      "was held, in the last cycle", m->backfilled_gpus);
		gauge(f, p, "backfilled_gpu_hours_total", "GPU-hours of jobs backfilling reservations since the start",
		      m->backfilled_gpu_hours);
	}
	snprintf(name, sizeof(name), "%s_task_scheduling_latency_milliseconds", p);
	gt_histogram_write(&m->task_ms, f, name, "Task scheduling latency in milliseconds", NULL);
	gt_prom_head(f, p, "pod_group_evicted_pods_total", "counter", "Total number of pods evicted per pod group");
	for (size_t i = 0; i < m->n_evicted; i++)
		fprintf(f, "%s_pod_group_evicted_pods_total{%s} %lu\n", p, m->evicted[i].labels, m->evicted[i].n);
	/* no usage database, so no queries: an empty histogram, as KAI's would be had it one */
	struct gt_histogram none;
	gt_histogram_init_exp(&none, 5, 2, 10);
	snprintf(name, sizeof(name), "%s_usage_query_latency_milliseconds", p);
	gt_histogram_write(&none, f, name, "Usage database query latency histogram in milliseconds", NULL);
}

static void write_writer(const struct gt_writer_stats *w, FILE *f, const char *p)
{
	char name[128];
	snprintf(name, sizeof(name), "%s_task_bind_latency_milliseconds", p);
	gt_histogram_write(&w->bind_ms, f, name, "Task bind latency histogram in milliseconds", NULL);
	gt_prom_counter(f, p, "pods_bound_total", "Pods bound to nodes", atomic_load(&w->binds));
	gt_prom_counter(f, p, "bind_errors_total", "Binds that failed", atomic_load(&w->bind_errors));
	gt_prom_counter(f, p, "bind_requests_created_total", "BindRequests written for a binder (BindRequest mode)",
			atomic_load(&w->bind_requests));
	gt_prom_head(f, p, "pods_evicted_total", "counter", "Pods evicted, by the action that evicted them");
	for (int a = 1; a < GT_N_ACTIONS; a++)
		fprintf(f, "%s_pods_evicted_total{action=\"%s\"} %lu\n", p, gt_action_name((enum gt_action)a),
			atomic_load(&w->evictions[a]));
	gt_prom_counter(f, p, "evictions_refused_total", "Evictions refused with 429 (disruption budgets)",
			atomic_load(&w->evictions_refused));
	gt_prom_counter(f, p, "status_writes_total", "PodGroup and pod status and annotation patches",
			atomic_load(&w->patches));
	gt_prom_counter(f, p, "events_total", "Events recorded", atomic_load(&w->events));
	gt_prom_counter(f, p, "write_errors_total", "Status, event and eviction writes that failed",
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
	gt_prom_counter(f, p, "api_errors_total", "API requests that got no answer or a server error", errors);
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
		gt_prom_head(f, p, series[k].name, "counter", series[k].help);
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
	if (m->scheduler) {
		write_cycle(m, f, p);
		write_queues(m, f, p);
		write_outcomes(m, f, p);
		write_search(m, f, p);
	}
	void (*extra)(void *, FILE *, const char *) = m->extra;
	void *extra_arg = m->extra_arg;
	void (*binder_extra)(void *, FILE *, const char *) = m->binder_extra;
	void *binder_arg = m->binder_extra_arg;
	pthread_mutex_unlock(&m->mu);
	if (extra)
		extra(extra_arg, f, p);
	if (binder_extra)
		binder_extra(binder_arg, f, p);
	if (m->writer)
		write_writer(m->writer, f, p);
	if (m->api)
		write_api(m->api, f, p);
	write_reflectors(m, f, p);
	gt_prom_head(f, p, "is_leader", "gauge", "1 while this instance holds the leader lease (or runs without election)");
	fprintf(f, "%s_is_leader %d\n", p, atomic_load(&m->leader) ? 1 : 0);
	gt_metrics_extra_fn pg_extra = atomic_load(&m->podgrouper_extra);
	if (pg_extra)
		pg_extra(m->podgrouper_extra_arg, f);
}

static unsigned on_request(void *arg, const char *path, FILE *body, const char **ctype)
{
	struct gt_metrics *m = arg;
	if (!strcmp(path, "/metrics")) {
		gt_metrics_write(m, body);
		*ctype = "text/plain; version=0.0.4";
		return 200;
	}
	return gt_metrics_serve_probes(m, path, body, ctype);
}

unsigned gt_metrics_serve_probes(void *arg, const char *path, FILE *body, const char **ctype)
{
	(void)ctype;
	struct gt_metrics *m = arg;
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

int gt_metrics_serve(struct gt_metrics *m, const char *addr, const char *component, struct gt_err *err)
{
	if (gt_httpd_disabled(addr))
		return 0;
	m->server = gt_httpd_start("metrics-bind-address", addr, on_request, m, err);
	if (!m->server)
		return err->code;
	m->port = gt_httpd_port(m->server);
	gt_log(GT_LOG_INFO, component, "serving /metrics, /healthz and /readyz on port %d", m->port);
	return 0;
}

void gt_metrics_set_extra(struct gt_metrics *m, void (*fn)(void *arg, FILE *f, const char *prefix), void *arg)
{
	pthread_mutex_lock(&m->mu);
	m->extra = fn;
	m->extra_arg = arg;
	pthread_mutex_unlock(&m->mu);
}

void gt_metrics_stop(struct gt_metrics *m)
{
	gt_httpd_stop(m->server);
	m->server = NULL;
}
