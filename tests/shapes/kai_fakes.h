/*
 * kai_fakes.h - Kubernetes objects with the defaults of KAI's test fakes
 *
 * KAI v0.17's scheduler tests and benchmarks describe a cluster with Go
 * structs (test_utils/{nodes_fake,jobs_fake,tasks_fake}, TestQueueBasic)
 * and turn them into sessions through its production code. These builders
 * write the same cluster as Kubernetes objects, one YAML flow mapping per
 * document, for Gantry's decoder (the path a real manifest takes), with the
 * fakes' defaults made explicit:
 *
 *   Node    allocatable 20000 cores, 20G memory, 110 pods, the GPUs asked;
 *           labels nvidia.com/gpu.count, nvidia.com/gpu.memory=100 (KAI's
 *           DefaultGpuMemory), mig-enabled=false, kai.scheduler/type=<name>.
 *   Queue   GPU quota / limit (-1 unless given) / over-quota weight as given;
 *           CPU and memory unlimited with weight 1; created KF_NOW + i min.
 *   Department (a parent queue) weight = its GPU quota (the fake's quirk);
 *           without departments, every queue sits under "default"
 *           (quota -1, limit -1, weight -1).
 *   Job     a PodGroup whose minMember is its task count, priority class
 *           "kf-priority-<p>" of value p (KAI's PriorityTrainNumber is 50),
 *           created KF_NOW - (jobs - i) minutes (i = index after the stable
 *           sort by priority, descending), last started a minute before
 *           KF_NOW when a task is running.
 *   Task    requests 1 CPU and 1G memory unless told, the job's GPUs.
 *
 * KF_NOW is the virtual clock the cycle runs at (gantry simulate --now).
 * The same conversion is what ../shared/tools/kai-scenarios does for KAI's
 * scenario tests; the bench and the unit tests share these builders.
 */
#ifndef GT_KAI_FAKES_H
#define GT_KAI_FAKES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KF_NOW_TEXT "2026-01-01T00:00:00Z"
#define KF_NOW INT64_C(1767225600)

/* A growing manifest: multi-document YAML. */
struct kf_manifest {
	char *text;
	size_t len, cap;
	uint32_t n_jobs_written;	/* for creation times */
	uint32_t n_jobs_total;		/* jobs the manifest will hold (set before the first job) */
};

void kf_init(struct kf_manifest *m, uint32_t n_jobs_total);
void kf_release(struct kf_manifest *m);
void kf_printf(struct kf_manifest *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The SchedulingShard of KAI's test harness: binpack, predicates on unless
 * @no_predicates, stale gangs evicted at once, consolidation with no cap on
 * victim jobs (the harness's OverrideMaxNumberConsolidationPreemptees(-1)).
 */
struct kf_shard {
	bool no_predicates;
	const char *extra;	/* more spec, flow-map body */
};
void kf_shard(struct kf_manifest *m, const struct kf_shard *s);

struct kf_node {
	const char *name;
	int gpus;
	const char *cpu;	/* allocatable CPU quantity; default "20000" (cores) */
	const char *labels;	/* extra labels, flow-map body */
};
void kf_node(struct kf_manifest *m, const struct kf_node *n);

struct kf_queue {
	const char *name;
	const char *parent;	/* NULL: "default" */
	double gpu_quota;
	double gpu_limit;	/* 0: -1 (unlimited), as the fake's MaxAllowedGPUs */
	double gpu_weight;
	const char *cpu_quota;	/* default "-1" */
	int priority;		/* 0: unset */
	const char *reclaim_min_runtime;
	uint32_t index;		/* position among queues: created KF_NOW + index minutes */
};
void kf_queue(struct kf_manifest *m, const struct kf_queue *q);
/* A department: a parent queue whose over-quota weight is its quota. */
void kf_department(struct kf_manifest *m, const char *name, double gpu_quota, uint32_t index);
/* The fake's default department "default" (quota, limit and weight -1). */
void kf_default_department(struct kf_manifest *m);
/* A PriorityClass kf-priority-<value>. */
void kf_priority_class(struct kf_manifest *m, int value);

struct kf_task {
	const char *node;	/* NULL: pending */
	bool running;		/* on @node: Running */
};

struct kf_job {
	const char *name;
	const char *ns;		/* default "default" */
	const char *queue;
	int priority;		/* default 50 (train) */
	int gpus;		/* per task */
	const char *cpu;	/* per task; default "1" */
	uint32_t n_tasks;
	const struct kf_task *tasks;	/* NULL: all pending */
	const char *task_node;	/* with tasks NULL: every task runs here */
	const char *pvc;	/* each pod mounts this claim */
	const char *anti_affinity_label;	/* "k: v": pods repel each other ... */
	const char *anti_affinity_key;	/* ... per domain of this node label */
	const char *topology;	/* required topology constraint on the job ... */
	const char *topology_level;	/* ... at this level */
};
/* The PodGroup and its pods; the n-th job written gets the n-th creation time. */
void kf_job(struct kf_manifest *m, const struct kf_job *j);

#endif /* GT_KAI_FAKES_H */
