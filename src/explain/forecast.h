/*
 * forecast.h - when a waiting job would start: the core run forward on a
 * virtual clock
 *
 * Starting from the cluster as it is, run a cycle; if the job does not
 * start, let the cluster move on as `gantry simulate` does between cycles
 * (binds run, evicted pods come back pending) and jump the clock to the
 * next moment a pod is expected to leave: a running pod's expected end, a
 * releasing pod's grace period. Pods placed on the way end after their
 * job's expected run time, when it is known. The first cycle in which the
 * job is placed whole is its expected start.
 *
 * What it assumes: nothing else arrives, and pods end when the objects say
 * (an annotation is an expectation, an activeDeadlineSeconds a deadline:
 * with a deadline in the chain the start is a latest one). When the job
 * still waits and no pod is expected to leave, there is no estimate, and
 * the forecast says why (how many pods hold room with no known end).
 *
 * PROCEDURE, from t = now:
 *   Step 1. Run a cycle at t with the given actions. Placed whole: start = t.
 *   Step 2. Move the cluster on (sim/simulate.h gt_sim_advance); pods bound
 *           now end at t + their job's run time (or its deadline), if known.
 *   Step 3. If the cycle bound or evicted anything, t += 1 (let it settle);
 *           else t = the earliest expected end (or end of a job's preemption
 *           delay) after t; none: no estimate.
 *   Step 4. Pods whose end has come leave (Succeeded). Back to step 1.
 * Bounded by a number of cycles and a horizon, both said when reached.
 */
#ifndef GT_EXPLAIN_FORECAST_H
#define GT_EXPLAIN_FORECAST_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"

/* Where an expected end comes from. */
enum gt_end_source {
	GT_END_UNKNOWN,
	GT_END_ANNOTATION,	/* gantry.dev/expected-runtime */
	GT_END_POD_DEADLINE,	/* the pod's spec.activeDeadlineSeconds */
	GT_END_JOB_DEADLINE,	/* its Job's spec.activeDeadlineSeconds */
	GT_END_RELEASING,	/* a terminating pod's grace period */
	GT_END_MAX_RUNTIME,	/* its job's maximum run time (gantry.dev/max-runtime, the queue's default) */
	GT_N_END_SOURCES
};

/* "gantry.dev/expected-runtime", "activeDeadlineSeconds (pod)", ... */
const char *gt_end_source_name(enum gt_end_source s);

/* What is known about ends: per pod of the cluster, and per job for pods it starts. */
struct gt_ends {
	int64_t *end;			/* per pod: when it leaves; 0: unknown */
	enum gt_end_source *end_source;
	int64_t *runtime;		/* per job: a pod's run time once started; 0: unknown */
	enum gt_end_source *runtime_source;
	int64_t *deadline;		/* per job: no pod of it runs past this (Unix s); 0: none */
};

void gt_ends_init(struct gt_ends *e, const struct gt_cluster *c);
void gt_ends_release(struct gt_ends *e);

struct gt_forecast {
	bool estimated;
	int64_t start;			/* Unix seconds, when estimated */
	bool upper_bound;		/* a deadline was in the chain: start at the latest */
	uint32_t ended;			/* pods that left before it starts */
	int32_t last_pod;		/* the last of them (GT_NONE): it made the room */
	char last_pod_name[256];	/* "ns/name" of that pod */
	enum gt_end_source last_source;
	uint32_t unknown_pods;		/* no estimate: pods holding room with no known end */
	uint32_t cycles;		/* cycles run */
	char why_not[256];		/* no estimate: why, in a sentence */
};

struct gt_forecast_opts {
	int64_t now;
	unsigned actions;
	uint32_t max_cycles;		/* 0: 5000 */
	int64_t horizon_s;		/* 0: 400 days */
};

/*
 * Forecast when @job starts. Moves @c forward in place (its pods' states,
 * jobs' times) and @ends with it: use both for nothing else afterwards.
 */
void gt_forecast_run(struct gt_cluster *c, struct gt_ends *ends, int32_t job,
		     const struct gt_forecast_opts *o, struct gt_forecast *out);

#endif /* GT_EXPLAIN_FORECAST_H */
