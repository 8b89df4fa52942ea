/*
 * why.h - why a job waits, as codes and facts, and what would let it start
 *
 * Reads one cycle's outcome (the session after its actions, and its plan)
 * and turns it into an explanation of one job: its state, a reason code, KAI's
 * message, the nodes refused per predicate, its place among the waiting jobs
 * of its queue, and hints: the least that would let it start (free N GPUs on
 * one node, raise a queue's limit by X). Reason codes are the core's
 * (core/reason.h: set where the message is made) or, for what the core does
 * not decide, the front end's own, below. Pure: no I/O; the caller says
 * what only the objects know (a pod of another scheduler, a pod whose
 * PodGroup is missing) with gt_ex_set().
 *
 * Ownership: an explanation owns its strings and arrays; release it with
 * gt_ex_release().
 */
#ifndef GT_EXPLAIN_WHY_H
#define GT_EXPLAIN_WHY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/plan.h"
#include "core/reason.h"
#include "explain/forecast.h"

/* The front end's codes, beside the core's (docs/explain.md lists them all). */
#define GT_EX_NOT_OUR_SCHEDULER "NotOurScheduler"	/* spec.schedulerName is another's */
#define GT_EX_NO_PODGROUP "NoPodGroup"			/* the pod's PodGroup does not exist (yet) */
#define GT_EX_REJECTED "ObjectRejected"			/* the object is malformed: left out whole */
#define GT_EX_GATED "SchedulingGated"			/* spec.schedulingGates */
#define GT_EX_RELEASING "WaitingForReleasingPods"	/* placed (pipelined) where pods are leaving */
#define GT_EX_NO_DECISION "NoDecision"			/* waits, and no action said why */
#define GT_EX_EVICTED "Evicted"				/* evicted this cycle: its pods are leaving */
#define GT_EX_TERMINATING "Terminating"			/* its pods are being deleted */
#define GT_EX_SCHEDULED "Scheduled"			/* placed this cycle: binds next */
#define GT_EX_RUNNING "Running"
#define GT_EX_FINISHED "Finished"
#define GT_EX_QUEUE "Queue"				/* a queue: see its members */

/* Something that would let the job start. */
struct gt_ex_hint {
	const char *action;	/* FreeResources, RaiseLimit, RaiseQuota, MakePreemptible,
				   CreateQueue, UseLeafQueue, CreatePods, CreateConfigMaps, RelaxConstraints,
				   SetSchedulerName, CreatePodGroup, FixObject, Wait */
	char *object;		/* the node, queue or object it is about; NULL */
	const char *resource;	/* "gpu", "cpu", "memory", "pods"; NULL */
	double amount;		/* in GPUs, CPU cores, bytes or pods; 0: none */
	char *text;		/* for people: "free 2 GPUs on node-a (6 of 8 in use)" */
};

/* A waiting job of a queue, in queue order. */
struct gt_ex_member {
	char *ns, *name;
	const char *reason;
	char *message;
};

struct gt_explanation {
	const char *kind;	/* "Pod", "PodGroup", "Queue" */
	char *ns, *name;	/* ns NULL for a queue */
	char *queue;		/* the job's queue as written; NULL for none */
	int32_t job;		/* GT_NONE: none */
	const char *state;	/* "Waiting", "Starting", "Running", "Releasing", "Finished" */
	const char *reason;	/* a code (never NULL) */
	const char *kai_reason;	/* KAI's UnschedulableReason on the PodGroup; NULL: none written */
	char *message;		/* KAI's words, or ours for the front end's codes */
	bool has_rejects;
	uint32_t rejects[GT_N_REJECT];	/* nodes refused, per predicate */
	uint32_t found, required;	/* GangShort: pods placed / needed; NotEnoughPods: exist / needed */
	uint32_t position, waiting;	/* its place among its queue's waiting jobs (1-based); 0: none */
	struct gt_ex_hint *hints;
	uint32_t n_hints, cap_hints;
	char **waits_for;	/* WaitingForReleasingPods: "ns/name" of the pods leaving */
	uint32_t n_waits_for, cap_waits_for;
	struct gt_ex_member *members;	/* a queue: its waiting jobs, in order */
	uint32_t n_members, cap_members;
	bool has_standing;	/* a queue: what it deserves and holds, in GPUs (-1: unlimited) */
	double quota_gpus, limit_gpus, fair_share_gpus, allocated_gpus;
	int32_t priority;
	char *no_forecast;	/* why no start can be expected as things are; NULL: forecast */
	bool forecast_run;	/* a forecast was run (forecast.h) */
	struct gt_forecast forecast;
};

/* What the explanation reads: one cycle's outcome, kept alive by the caller. */
struct gt_ex_ctx {
	const struct gt_cluster *c;
	const struct gt_session *s;	/* after the actions */
	const struct gt_plan *plan;
};

/* Explain job @job (a PodGroup) as the cycle left it. */
void gt_ex_job(const struct gt_ex_ctx *x, int32_t job, struct gt_explanation *e);
/* Explain pod @pod: its job's explanation, with the pod's own state where it differs. */
void gt_ex_pod(const struct gt_ex_ctx *x, int32_t pod, struct gt_explanation *e);
/* Explain queue @q: its standing, and its waiting jobs in order with their reasons. */
void gt_ex_queue(const struct gt_ex_ctx *x, int32_t q, struct gt_explanation *e);
/*
 * An explanation the front end makes from the objects alone (@reason one of
 * the GT_EX_* codes), with one hint (@action, @object, @hint_text; @action
 * NULL: none).
 */
void gt_ex_set(struct gt_explanation *e, const char *kind, const char *ns, const char *name,
	       const char *state, const char *reason, const char *message, const char *action,
	       const char *object, const char *hint_text);
void gt_ex_release(struct gt_explanation *e);

/* Does the job's explanation call for a forecast (it waits, and room could come free)? */
bool gt_ex_wants_forecast(const struct gt_explanation *e);

#endif /* GT_EXPLAIN_WHY_H */
