/*
 * scenario.h - victim scenarios for one search step (KAI's generators)
 *
 * A step tries to place the first k tasks of a pending job (the "probe")
 * over victims. Its scenarios come from one generator at a time, each fed by
 * an accumulation: victim entries are popped from the victim queue one by
 * one, and each pop adds a batch (the pods the entry gives up: one pod of an
 * elastic job, else all of them) to the potential victims. After each pop
 * three cheap necessary conditions (KAI's accumulated scenario filters) say
 * whether the accumulation could possibly hold the probe at all:
 *   - node affinity: every probe task with a node selector or required node
 *     affinity has a matching node among the feasible and the victims' nodes;
 *   - topology: every sub-group with a required topology level fits, greedily
 *     and largest first, into the domains' free and freeable GPUs;
 *   - idle GPUs: the probe's GPU requests fit, greedily and largest first,
 *     into the nodes with the most free plus freeable GPUs.
 * Only then does a generator derive scenarios from the accumulation:
 *   NodeLocalGreedy  the recorded victims plus, for each node of the newest
 *                    victim job, the potential victim jobs on that node
 *                    (pre-#1537 KAI: one node at a time);
 *   MultiNodeGang    the recorded victims plus the batches on the smallest
 *                    prefix of nodes (sorted by what they would free,
 *                    smallest first) that covers the probe's GPU demand,
 *                    then exponentially longer prefixes (#1537: a victim
 *                    gang is evicted whole, across all its nodes).
 * A scenario is a set of batches; the solver simulates it.
 *
 * Cost per step: each pop costs O(Q) in the victim queue plus O(K) to keep
 * the K nodes with the most room in order (K = probe tasks), plus
 * O(domains) with a topology constraint. Opening a step costs O(N log K)
 * (N nodes) for the idle-GPU filter, O(N) more with node affinity or
 * topology. Deriving scenarios costs O(victims on the node) for
 * NodeLocalGreedy and O(V log V) per accumulation for MultiNodeGang.
 */
#ifndef GT_SCENARIO_H
#define GT_SCENARIO_H

#include <string.h>

#include "core/victimq.h"

/*
 * Per-node, per-job and per-pod scratch the search reuses across steps
 * without clearing it: an entry is valid when its mark is the user's stamp
 * (a new stamp forgets everything in O(1)). Lives as long as the session.
 */
struct gt_marks {
	uint32_t *mark;
	int64_t *val;
	uint32_t stamp;
	uint32_t n;
};

struct gt_search_scratch {
	struct gt_marks node_jobs;	/* accumulation: node -> its first gt_node_job */
	struct gt_marks node_room;	/* idle filter: node -> free + freeable milli-GPU */
	struct gt_marks node_top;	/* idle filter: node -> its place among the top K */
	struct gt_marks job_batches;	/* accumulation: job -> its first batch */
	struct gt_marks job_last;	/* accumulation: job -> its last batch */
	struct gt_marks job_pick;	/* scenarios: job already taken */
	struct gt_marks node_em;	/* MultiNodeGang: node -> its candidate */
	struct gt_marks node_aff;	/* node affinity filter: node already looked at */
	struct gt_marks node_rec;	/* a step: node -> GPU milli-units its recorded victims free */
	struct gt_marks pod_rec;	/* the search: recorded victims */
	struct gt_marks pod_in;		/* the search: victims of the scenario being solved */
	struct gt_marks job_sim;	/* simulation: job already queued */
};

/* The session's scratch, made on first use. */
struct gt_search_scratch *gt_search_scratch(struct gt_session *s);

/* A new stamp: everything marked before is forgotten. */
static inline uint32_t gt_marks_begin(struct gt_marks *m)
{
	if (++m->stamp == 0) {	/* wrapped: the old marks could look current */
		memset(m->mark, 0, m->n * sizeof(*m->mark));
		m->stamp = 1;
	}
	return m->stamp;
}

static inline bool gt_marks_has(const struct gt_marks *m, uint32_t x)
{
	return m->mark[x] == m->stamp;
}

static inline void gt_marks_set(struct gt_marks *m, uint32_t x, int64_t v)
{
	m->mark[x] = m->stamp;
	m->val[x] = v;
}

/* What a step knows (KAI's SolveContext). */
struct gt_step {
	struct gt_session *s;
	struct gt_arena *a;		/* the step's memory */
	int32_t job;			/* the preemptor */
	const int32_t *tasks;		/* the probe: tasks[0..k) */
	uint32_t k;
	const int32_t *recorded;	/* the recorded victims: every pod of their batches */
	uint32_t n_recorded;
	const uint32_t *pod_mark;	/* pod_mark[p] == rec_mark: p is recorded */
	uint32_t rec_mark;
	const uint64_t *feasible;	/* nodes by name rank: feasible ones and the recorded victims' */
	struct gt_victim_filter victims;	/* the action's victim filter */
};

/* Pods one pop of the victim queue gave: acc->pods[first..first+n). */
struct gt_batch {
	int32_t job;
	uint32_t first, n;
	int32_t next_of_job;	/* the job's next batch, or GT_NONE */
};

struct gt_filters;

/* KAI's PodAccumulatedScenarioBuilder: the potential victims so far. */
struct gt_accum {
	const struct gt_step *st;
	struct gt_victimq vq;
	int32_t *pods;
	uint32_t n_pods, cap_pods;
	struct gt_batch *batches;
	uint32_t n_batches, cap_batches;
	/* per node: the jobs with a potential victim there (KAI's potentialVictimsJobsByNode) */
	struct gt_node_job {
		int32_t job, next;
	} *nj;
	uint32_t n_nj, cap_nj;
	uint32_t stamp;		/* marks the session scratch as this accumulation's */
	struct gt_filters *f;
	int64_t feasible_room;	/* feasible nodes' room and recorded victims' GPUs, summed */
	bool exhausted;		/* the victim queue is dry */
};

/* A scenario: batches of the accumulation, on top of the recorded victims. */
struct gt_scenario {
	const uint32_t *batches;
	uint32_t n_batches;
};

const char *gt_generator_name(enum gt_generator g);

struct gt_sub_emitter;

/* One generator over one step. */
struct gt_scenario_gen {
	enum gt_generator kind;
	struct gt_accum acc;
	bool started;
	/* NodeLocalGreedy: the scenarios of the current accumulation */
	struct gt_scenario *pending;
	uint32_t n_pending, next_pending;
	/* MultiNodeGang: the prefixes of the current accumulation */
	struct gt_sub_emitter *em;
};

void gt_scenario_gen_init(struct gt_scenario_gen *g, enum gt_generator kind,
			  const struct gt_step *st);
/* The next scenario worth simulating; false when the generator is exhausted. */
bool gt_scenario_gen_next(struct gt_scenario_gen *g, struct gt_scenario *out);

/* GPU milli-units a pending task asks for, as KAI's GetGpusQuota counts them. */
int64_t gt_task_gpu_quota_milli(const struct gt_session *s, int32_t pod);
/* A node's free plus freeing GPU milli-units (whole and shared). */
int64_t gt_node_room_milli(const struct gt_session *s, int32_t node);

#endif /* GT_SCENARIO_H */
