/*
 * plan.h - what a cycle decided, said once for every front end
 *
 * gt_plan_build() reads a session after its actions and lists what they
 * call for, in pod order:
 *
 *  - binds: pods placed to run (Binding), with their node and GPU groups;
 *  - pipelines: pods placed on room that releasing pods will free;
 *  - evictions: pods the actions evicted, with the action, the job that
 *    takes their room and KAI's message. A victim the solver moved to
 *    another node (consolidation) is evicted *and* pipelined there: its
 *    controller recreates it, and it is expected to land where the plan
 *    says;
 *  - per job: why it is not scheduled (KAI's message, and the reason
 *    code and facts behind it), its last-start and staleness times,
 *    and three facts every front end asks (scheduled, running, waiting
 *    with its gang ready).
 *
 * The simulator, the replay and the Kubernetes scheduler read this and
 * nothing else about the outcome; none of them compares pod states again.
 *
 * GPU groups. A bind or pipeline names each group it uses by the session's
 * id: an existing group's interned name, or an id past the string table as
 * the session opened it, for a group (one physical GPU) the cycle opened.
 * Such a fresh group is "the k-th new group on node n" until a front end
 * asks its name; gt_plan_group_name() then makes one by the one rule of
 * Gantry: "<node>-gpu<i>" for the smallest i whose name is not taken (and,
 * if that is no valid label value, "gpu-<FNV of node>-<i>"), interns it and
 * remembers it, so every later question about the group gets the same
 * answer. What "taken" means is the front end's hook: by default a name is
 * taken once interned (the simulator, the scheduler); the replay, whose
 * device names are interned up front, says which are in use on the node.
 * Names are made only when asked: a bind a front end does not carry out
 * (the replay's strict FIFO) names nothing.
 *
 * Ownership: the plan owns its arrays and copies of the messages; it reads
 * the cluster (borrowed, must outlive it) and interns into the cluster's
 * string table. The session may be released once the plan is built.
 */
#ifndef GT_PLAN_H
#define GT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/session.h"

/* A pod placed on a node: a bind or a pipeline. (The pod comes first: gt_plan_*_of search by it.) */
struct gt_plan_place {
	int32_t pod;
	int32_t node;
	uint8_t n_groups;
	uint32_t groups[GT_MAX_DEVICES];	/* session group ids: gt_plan_group_name() */
	/* the NUMA zones it is predicted to use (core/numa.h), zone = the zone's interned name:
	 * what KAI writes as kai.scheduler/numa-placement-predicted; NULL, 0: none */
	struct gt_numa_share *numa;
	uint32_t n_numa;
};

struct gt_plan_evict {
	int32_t pod;
	int32_t node;			/* where the pod ran */
	enum gt_action action;
	int32_t evictor_job;		/* the job that takes its room; GT_NONE (stale gang) */
	char *message;			/* KAI's words (core/messages.h) */
};

struct gt_plan_job {
	char *message;			/* why it is not scheduled; NULL when the cycle said nothing */
	struct gt_job_why *why;		/* the same as codes (core/reason.h); NULL with the message */
	int64_t last_start;		/* kai.scheduler/last-start-timestamp after the cycle, 0: never */
	int64_t stale_since;		/* kai.scheduler/stale-podgroup-timestamp, 0: not stale */
	int64_t last_eviction;		/* kai.scheduler/last-eviction-timestamp after the cycle, 0: never */
	bool scheduled;			/* every podset has its minimum allocated, one pod at least */
	bool running;			/* some pod is allocated (Allocated..Running) */
	bool pending_ready;		/* it waits with enough pods for its gang (actions.h) */
	/* its reservation (core/reserve.h): since when (0: none; the front end gives it back),
	 * and this cycle's, when it holds one: expected start, GPUs, nodes */
	int64_t reserved_since;
	bool reserved;
	int64_t reserve_start;		/* INT64_MAX: when running pods end (no run time known) */
	int32_t reserve_gpus;
	int32_t reserve_held;		/* of those, held from others now */
	uint32_t reserve_nodes;
	/* evicted this cycle for running past its maximum run time (gt_max_runtime_evict) */
	bool max_runtime_evicted;
};

/*
 * A volume decision a bind needs written before the pod is bound
 * (core/volumes.h): a static volume bound to the claim (its claimRef), or
 * the claim provisioned for the node (its selected-node annotation). One
 * per claim; the pods of a bind whose claims are not all bound wait
 * (gt_pod_volumes_unbound) until the PV controller has bound them.
 */
struct gt_plan_volume {
	int32_t pod;		/* the first bind that mounts the claim */
	int32_t pvc;
	int32_t pv;		/* the volume chosen, GT_NONE: provision on @node */
	int32_t node;
};

/* Is the name @name for a new group on @node taken? (a front end's hook) */
typedef bool (*gt_group_taken_fn)(void *arg, int32_t node, const char *name);

struct gt_plan_opts {
	gt_group_taken_fn taken;	/* NULL: taken once interned in the cluster's table */
	void *arg;
};

struct gt_plan {
	const struct gt_cluster *c;
	int64_t now;
	struct gt_plan_place *binds;
	uint32_t n_binds;
	struct gt_plan_place *pipelines;
	uint32_t n_pipelines;
	struct gt_plan_evict *evictions;
	uint32_t n_evictions;
	struct gt_plan_volume *volumes;	/* in bind order */
	uint32_t n_volumes;
	struct gt_plan_job *jobs;	/* one per job of the cluster */
	/* fresh groups: session id - base_names indexes these */
	uint32_t base_names;
	uint32_t n_fresh;
	uint32_t *fresh_name;		/* its interned name + 1; 0 until asked */
	struct gt_plan_opts o;
	/* DRA: the claims the binds use that the cycle allocates or reserves (core/dra.h) */
	struct gt_plan_claim *claims;
	uint32_t n_claims;
	/* GPUs of running pods that backfill reservations (gt_reserve_backfilled_gpus) */
	int64_t backfilled_gpus;
};

/* The plan of @s (after its actions). @o may be NULL. Release with gt_plan_release(). */
void gt_plan_build(struct gt_plan *p, const struct gt_session *s, const struct gt_plan_opts *o);
void gt_plan_release(struct gt_plan *p);

/* Is @id (a session group id) a group this cycle opened? */
static inline bool gt_plan_group_is_fresh(const struct gt_plan *p, uint32_t id)
{
	return id >= p->base_names && id - p->base_names < p->n_fresh;
}

/* The interned name of group @id on @node: its own, or a fresh group's (made on first ask). */
uint32_t gt_plan_group_name(struct gt_plan *p, uint32_t id, int32_t node);

/* The eviction / the bind of @pod in @p, or NULL. O(log n). */
const struct gt_plan_evict *gt_plan_eviction_of(const struct gt_plan *p, int32_t pod);
const struct gt_plan_place *gt_plan_bind_of(const struct gt_plan *p, int32_t pod);

#endif /* GT_PLAN_H */
