/*
 * kai_benchmarks.h - every benchmark of KAI v0.17, as a cluster and a verdict
 *
 * KAI's benchmark files, ported shape for shape (sizes, node CPU/memory,
 * priorities, queue quotas and weights, anti-affinity and topology
 * variants, min-runtime):
 *   pkg/scheduler/actions/benchmark_test.go
 *   pkg/scheduler/actions/reclaim/reclaim_benchmark_test.go
 *   pkg/scheduler/actions/reclaim/reclaim_missing_pvc_benchmark_test.go
 *   pkg/scheduler/actions/integration_tests/reclaim/reclaim_benchmark_test.go
 * Each shape writes its cluster as Kubernetes objects (kai_fakes.h) and
 * names the actions KAI's benchmark runs on one session. After the cycle,
 * kb_verdict() says whether Gantry's outcome satisfies what KAI's benchmark
 * asserts (its cache mocks' bounds on binds, evictions and pipelines, where
 * 0 means none may happen, and its explicit checks) and matches what KAI
 * itself does on the shape (../shared/docs/KAI-BENCH.md), where that is
 * known: the same pods pipelined and released, no more jobs moved.
 */
#ifndef GT_KAI_BENCHMARKS_H
#define GT_KAI_BENCHMARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/session.h"
#include "kai_fakes.h"

/* KAI's cache-mock bounds: at most this many; 0 means the call must not happen. */
struct kb_bounds {
	uint32_t binds, evictions, pipelines;
};

struct kb_shape {
	const char *name;	/* KAI's benchmark name without "Benchmark" and size */
	const char *size;	/* KAI's size suffix: "Small", "100Node", ... */
	const char *file;	/* KAI's benchmark file */
	unsigned actions;	/* mask of enum gt_action, in KAI's order */
	uint32_t nodes;
	uint32_t param;		/* jobs, or the variant */
	void (*build)(const struct kb_shape *sh, struct kf_manifest *m);
	struct kb_bounds bounds;
	/* KAI's explicit checks and its outcome; NULL when it asserts bounds only */
	bool (*check)(const struct kb_shape *sh, const struct gt_session *s, char *why, size_t len);
	const char *kai_outcome;	/* what KAI does, in words ("" when KAI-BENCH says nothing) */
	/*
	 * Pods KAI evicts on the shape (KAI-BENCH.md; or 0 where no eviction
	 * can happen: allocate alone, or no pending pod), -1 where unknown.
	 * Gantry must not evict more.
	 */
	int32_t kai_evictions;
};

/* What reaches the cluster, counted from the core's plan (core/plan.h). */
struct kb_ops {
	uint32_t binds, evictions, pipelines;
};
void kb_ops(const struct gt_session *s, struct kb_ops *out);

/* Every shape, in KAI's file order; *n gets the count. */
const struct kb_shape *kb_shapes(size_t *n);

/* Write @sh's cluster into @m (initialised by this call). */
void kb_build(const struct kb_shape *sh, struct kf_manifest *m);

/* Pods of jobs named @prefix... in status @st. */
uint32_t kb_count(const struct gt_session *s, const char *prefix, enum gt_status st);

/*
 * Does the outcome in @s satisfy KAI's assertions for @sh and match KAI's
 * outcome? On false, @why says what differs.
 */
bool kb_verdict(const struct kb_shape *sh, const struct gt_session *s, char *why, size_t len);

#endif /* GT_KAI_BENCHMARKS_H */
