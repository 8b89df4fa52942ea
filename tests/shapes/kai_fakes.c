/*
 * kai_fakes.c - writes KAI's test-fake clusters as Kubernetes objects
 *
 * One flow mapping per document keeps the text small and printf-friendly;
 * see kai_fakes.h for the defaults and where they come from.
 */
#include "kai_fakes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

void kf_init(struct kf_manifest *m, uint32_t n_jobs_total)
{
	memset(m, 0, sizeof(*m));
	m->n_jobs_total = n_jobs_total;
}

void kf_release(struct kf_manifest *m)
{
	free(m->text);
	memset(m, 0, sizeof(*m));
}

void kf_printf(struct kf_manifest *m, const char *fmt, ...)
{
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0)
		abort();
	GT_GROW(m->text, m->len + (size_t)len + 1, m->cap);
	vsnprintf(m->text + m->len, (size_t)len + 1, fmt, again);
	va_end(again);
	m->len += (size_t)len;
}

/* An RFC 3339 time @offset_s from KF_NOW (minutes resolution is all the fakes use). */
static void rfc3339(int64_t offset_s, char out[64])
{
	int64_t t = KF_NOW + offset_s;
	int64_t days = t / 86400, rem = t % 86400;
	if (rem < 0) {
		rem += 86400;
		days--;
	}
	/* civil from days (Howard Hinnant's algorithm) */
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = yoe + era * 400;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int64_t d = doy - (153 * mp + 2) / 5 + 1;
	int64_t mo = mp < 10 ? mp + 3 : mp - 9;
	y += mo <= 2;
	snprintf(out, 64, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ", (long long)y, (long long)mo,
		 (long long)d, (long long)(rem / 3600), (long long)(rem / 60 % 60), (long long)(rem % 60));
}

void kf_shard(struct kf_manifest *m, const struct kf_shard *s)
{
	kf_printf(m, "---\n{apiVersion: kai.scheduler/v1, kind: SchedulingShard, metadata: {name: default}, "
		     "spec: {placementStrategy: {gpu: binpack, cpu: binpack}, "
		     "args: {default-staleness-grace-period: 0s, max-consolidation-preemptees: '-1', "
		     "use-scheduling-signatures: 'false'}");
	if (s && s->no_predicates)
		kf_printf(m, ", plugins: {predicates: {enabled: false}}");
	if (s && s->extra)
		kf_printf(m, ", %s", s->extra);
	kf_printf(m, "}}\n");
}

void kf_node(struct kf_manifest *m, const struct kf_node *n)
{
	const char *cpu = n->cpu ? n->cpu : "20000";
	kf_printf(m, "---\n{apiVersion: v1, kind: Node, metadata: {name: %s, labels: {"
		     "nvidia.com/gpu.count: '%d', nvidia.com/gpu.memory: '100', "
		     "node-role.kubernetes.io/mig-enabled: 'false', kai.scheduler/type: %s%s%s}}, "
		     "status: {allocatable: {cpu: '%s', memory: '20000000000', nvidia.com/gpu: '%d', pods: '110'}, "
		     "capacity: {cpu: '30000', memory: '30000000000', nvidia.com/gpu: '%d', pods: '110'}, "
		     "conditions: [{type: Ready, status: 'True'}]}}\n",
		  n->name, n->gpus, n->name, n->labels ? ", " : "", n->labels ? n->labels : "", cpu,
		  n->gpus, n->gpus);
}

static void queue_object(struct kf_manifest *m, const char *name, const char *parent,
			 double quota, double limit, double weight, const char *cpu_quota,
			 int priority, const char *min_runtime, uint32_t index)
{
	char created[64];
	rfc3339((int64_t)index * 60, created);
	kf_printf(m, "---\n{apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: %s, "
		     "creationTimestamp: '%s'}, spec: {", name, created);
	if (parent)
		kf_printf(m, "parentQueue: %s, ", parent);
	if (priority)
		kf_printf(m, "priority: %d, ", priority);
	if (min_runtime)
		kf_printf(m, "reclaimMinRuntime: %s, ", min_runtime);
	kf_printf(m, "resources: {gpu: {quota: %g, limit: %g, overQuotaWeight: %g}, "
		     "cpu: {quota: %s, limit: -1, overQuotaWeight: 1}, "
		     "memory: {quota: -1, limit: -1, overQuotaWeight: 1}}}}\n",
		  quota, limit, weight, cpu_quota ? cpu_quota : "-1");
}

void kf_queue(struct kf_manifest *m, const struct kf_queue *q)
{
	queue_object(m, q->name, q->parent ? q->parent : "default", q->gpu_quota,
		     q->gpu_limit != 0 ? q->gpu_limit : -1, q->gpu_weight, q->cpu_quota, q->priority,
		     q->reclaim_min_runtime, q->index);
}

void kf_department(struct kf_manifest *m, const char *name, double gpu_quota, uint32_t index)
{
	queue_object(m, name, NULL, gpu_quota, -1, gpu_quota, NULL, 0, NULL, index);
}

void kf_default_department(struct kf_manifest *m)
{
	queue_object(m, "default", NULL, -1, -1, -1, NULL, 0, NULL, 0);
}

void kf_priority_class(struct kf_manifest *m, int value)
{
	kf_printf(m, "---\n{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, "
		     "metadata: {name: priority-%d}, value: %d}\n", value, value);
}

static void pod_object(struct kf_manifest *m, const struct kf_job *j, uint32_t i,
		       const char *created, int priority)
{
	const struct kf_task *t = j->tasks ? &j->tasks[i] : NULL;
	const char *node = t ? t->node : j->task_node;
	bool running = t ? t->running : j->task_node != NULL;
	const char *ns = j->ns ? j->ns : "default";
	kf_printf(m, "---\n{apiVersion: v1, kind: Pod, metadata: {name: %s-%u, namespace: %s, "
		     "creationTimestamp: '%s', labels: {kai.scheduler/queue: %s%s%s}, "
		     "annotations: {pod-group-name: %s}}, spec: {schedulerName: kai-scheduler, "
		     "priorityClassName: priority-%d, ",
		  j->name, i, ns, created, j->queue, j->anti_affinity_label ? ", " : "",
		  j->anti_affinity_label ? j->anti_affinity_label : "", j->name, priority);
	if (node && running)
		kf_printf(m, "nodeName: %s, ", node);
	if (j->pvc)
		kf_printf(m, "volumes: [{name: pvc-0, persistentVolumeClaim: {claimName: %s}}], ",
			  j->pvc);
	if (j->anti_affinity_label)
		kf_printf(m, "affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
			     "[{labelSelector: {matchLabels: {%s}}, topologyKey: %s}]}}, ",
			  j->anti_affinity_label, j->anti_affinity_key);
	kf_printf(m, "containers: [{name: main, image: busybox, resources: {requests: {cpu: '%s', "
		     "memory: '1000000000'", j->cpu ? j->cpu : "1");
	if (j->gpus)
		kf_printf(m, ", nvidia.com/gpu: '%d'", j->gpus);
	kf_printf(m, "}}}]}, status: {phase: %s}}\n", node && running ? "Running" : "Pending");
}

void kf_job(struct kf_manifest *m, const struct kf_job *j)
{
	int priority = j->priority ? j->priority : 50;
	char created[64], started[64];
	/* the fake's creation time: older the earlier the job is in its list */
	uint32_t left = m->n_jobs_total > m->n_jobs_written ? m->n_jobs_total - m->n_jobs_written : 1;
	rfc3339(-60 * (int64_t)left, created);
	rfc3339(-60, started);
	m->n_jobs_written++;
	bool any_running = j->task_node != NULL;
	for (uint32_t i = 0; j->tasks && i < j->n_tasks; i++)
		any_running |= j->tasks[i].node && j->tasks[i].running;
	kf_printf(m, "---\n{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: %s, "
		     "namespace: %s, creationTimestamp: '%s'",
		  j->name, j->ns ? j->ns : "default", created);
	if (any_running)
		kf_printf(m, ", annotations: {kai.scheduler/last-start-timestamp: '%s'}", started);
	kf_printf(m, "}, spec: {queue: %s, minMember: %u, priorityClassName: priority-%d", j->queue,
		  j->n_tasks, priority);
	if (j->topology)
		kf_printf(m, ", topologyConstraint: {topology: %s, requiredTopologyLevel: %s}",
			  j->topology, j->topology_level);
	kf_printf(m, "}}\n");
	for (uint32_t i = 0; i < j->n_tasks; i++)
		pod_object(m, j, i, created, priority);
}
