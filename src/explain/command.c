#include "explain/explain.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/json.h"
#include "api/object.h"
#include "core/actions.h"
#include "explain/print.h"
#include "explain/source.h"
#include "explain/why.h"
#include "util/mem.h"
#include "util/time.h"

#define PREFIX "gantry explain"

struct opts {
	struct ex_source_opts src;
	const char *ns;		/* -n; NULL: "default" for a target, every namespace without one */
	unsigned actions;
	int64_t now;
	bool now_given;
	int output;		/* enum gt_output */
	struct gt_strings args;	/* [TYPE NAME | TYPE/NAME] */
};

static int parse_now(const char *v, void *dest, char *why, size_t why_len)
{
	if (!gt_time_parse(v, dest))
		return 0;
	snprintf(why, why_len, "must be an RFC 3339 time such as 2026-01-01T09:00:00Z");
	return -1;
}

/* 0: go on; 1: --help printed; 2: a bad argument (said). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .src = { .conn = GT_CONN_DEFAULTS, .scheduler_name = "kai-scheduler",
				     .shard = "default", .require_podgroup = true },
			    .actions = GT_ACTIONS_ALL };
	const struct gt_flag flags[] = {
		{ .type = GT_FLAG_SECTION, .help = "What" },
		{ .type = GT_FLAG_STRING, .name = "namespace", .short_name = 'n', .dest = &o->ns, .arg = "NS",
		  .help = "the namespace of the pod or PodGroup (default: default; without a\n"
			  "target: every namespace)" },
		{ .type = GT_FLAG_SECTION, .help = "Objects from files (else from the cluster)" },
		{ .type = GT_FLAG_STRINGS, .name = "filename", .short_name = 'f', .dest = &o->src.files,
		  .arg = "FILE", .help = "Kubernetes objects, as gantry simulate reads them (repeatable; - for stdin)" },
		{ .type = GT_FLAG_BOOL, .name = "recursive", .short_name = 'R', .dest = &o->src.recursive,
		  .help = "read directories given to -f recursively" },
		{ .type = GT_FLAG_FUNC, .name = "now", .dest = &o->now, .arg = "TIME", .parse = parse_now,
		  .seen = &o->now_given, .help = "the clock, RFC 3339 (default: the current time)" },
		GT_CONN_FLAGS(&o->src.conn),
		{ .type = GT_FLAG_STRING, .name = "scheduler-name", .dest = &o->src.scheduler_name, .arg = "NAME",
		  .min = 1, .help = "the scheduler's name in pods (default kai-scheduler)" },
		{ .type = GT_FLAG_STRING, .name = "shard", .dest = &o->src.shard, .arg = "NAME", .min = 1,
		  .help = "the SchedulingShard the scheduler reads (default default)" },
		{ .type = GT_FLAG_STRING, .name = "node-pool", .dest = &o->src.node_pool, .arg = "V",
		  .help = "the node pool it serves (default: the shard's)" },
		{ .type = GT_FLAG_BOOL, .name = "require-podgroup", .dest = &o->src.require_podgroup,
		  .help = "pods without a PodGroup wait for the podgrouper, as with KAI\n"
			  "and gantry scheduler --podgrouper (default true)" },
		{ .type = GT_FLAG_SECTION, .help = "Scheduling" },
		{ .type = GT_FLAG_FUNC, .name = "actions", .dest = &o->actions, .arg = "LIST",
		  .parse = gt_actions_flag, .help = "the scheduler's actions (default: all five)" },
		{ .type = GT_FLAG_SECTION, .help = "Output" },
		GT_OUTPUT_FLAG(&o->output),
	};
	const struct gt_command cmd = {
		.name = "explain", .synopsis = "[TYPE NAME | TYPE/NAME] [-n NS] [-f FILE...] [flags]",
		.about = "Why a pod, PodGroup or queue waits: the reason (a code and KAI's message), its place\n"
			 "in its queue, what would let it start, and when it is expected to start.\n"
			 "TYPE: pod (po), podgroup (pg) or queue (q). Without a target: every job that\n"
			 "waits. Objects come from -f, else from the cluster (docs/explain.md).",
		.flags = flags, .n_flags = GT_FLAGS_N(flags), .positional = &o->args,
	};
	return gt_flags_parse(&cmd, argc, argv);
}

/* ---------------------------------------------------------------- the target */

struct target {
	const char *kind;	/* "Pod", "PodGroup", "Queue"; NULL: every waiting job */
	char *name;
};

static const char *kind_of(const char *type)
{
	static const struct {
		const char *names[4];
		const char *kind;
	} kinds[] = { { { "pod", "pods", "po", NULL }, "Pod" },
		      { { "podgroup", "podgroups", "pg", NULL }, "PodGroup" },
		      { { "queue", "queues", "q", NULL }, "Queue" } };
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t i = 0; kinds[k].names[i]; i++)
			if (!strcmp(type, kinds[k].names[i]))
				return kinds[k].kind;
	return NULL;
}

/* TYPE NAME or TYPE/NAME, kubectl's forms. 0 or 2 (said). */
static int parse_target(const struct opts *o, struct target *t)
{
	const struct gt_strings *a = &o->args;
	*t = (struct target){ 0 };
	if (!a->n)
		return 0;
	const char *slash = strchr(a->v[0], '/');
	char *type = slash ? gt_xstrndup(a->v[0], (size_t)(slash - a->v[0])) : gt_xstrdup(a->v[0]);
	const char *name = slash ? slash + 1 : a->n > 1 ? a->v[1] : NULL;
	t->kind = kind_of(type);
	free(type);
	if (!t->kind) {
		fprintf(stderr, PREFIX ": unknown type '%s': pod (po), podgroup (pg) or queue (q)\n", a->v[0]);
		return 2;
	}
	if (!name || !*name || a->n > (slash ? 1u : 2u)) {
		fprintf(stderr, PREFIX ": give one target: TYPE NAME or TYPE/NAME\n");
		return 2;
	}
	t->name = gt_xstrdup(name);
	return 0;
}

/* ---------------------------------------------------------------- what only the objects know */

struct run {
	const struct opts *o;
	struct ex_source src;
	struct gt_session s;
	struct gt_plan plan;
	struct gt_ex_ctx x;
	int64_t now;
};

static int32_t pod_entity(const struct run *r, const struct gt_doc *obj)
{
	for (uint32_t i = 0; i < r->src.c->n_pods; i++)
		if (r->src.pod_doc[i] == obj)
			return (int32_t)i;
	return GT_NONE;
}

static void explain_rejected(struct gt_explanation *e, const char *kind, const char *ns, const char *name,
			     const char *why)
{
	char msg[1200];
	snprintf(msg, sizeof(msg), "The object is malformed and left out whole: %s", why);
	gt_ex_set(e, kind, ns, name, "Waiting", GT_EX_REJECTED, msg, "FixObject", name,
		  "fix the field named above; until then the scheduler ignores the object");
}

/* A pod of ours the cluster has no job for: its PodGroup is missing, malformed, or not made yet. */
static void explain_no_podgroup(const struct run *r, const struct gt_doc *pod, struct gt_explanation *e)
{
	const char *pg = gt_pod_group_name(pod), *ns = gt_obj_ns(pod);
	const struct gt_doc *pgo = pg ? ex_source_find(&r->src, "PodGroup", ns, pg) : NULL;
	const char *rej = ex_source_rejection(&r->src, pgo);
	char msg[1400], hint[400];
	if (rej) {
		snprintf(msg, sizeof(msg), "Its PodGroup %s is malformed and left out: %s", pg, rej);
		snprintf(hint, sizeof(hint), "fix PodGroup %s/%s", ns, pg);
		gt_ex_set(e, "Pod", ns, gt_obj_name(pod), "Waiting", GT_EX_NO_PODGROUP, msg, "FixObject", pg, hint);
	} else if (pg) {
		snprintf(msg, sizeof(msg), "Its PodGroup %s (annotation " GT_POD_GROUP_ANNOTATION ") does not exist %s",
			 pg, r->src.where);
		snprintf(hint, sizeof(hint), "create PodGroup %s/%s, or let the podgrouper make it", ns, pg);
		gt_ex_set(e, "Pod", ns, gt_obj_name(pod), "Waiting", GT_EX_NO_PODGROUP, msg, "CreatePodGroup", pg,
			  hint);
	} else {
		gt_ex_set(e, "Pod", ns, gt_obj_name(pod), "Waiting", GT_EX_NO_PODGROUP,
			  "It has no PodGroup yet: the podgrouper makes one from its owner, and until then "
			  "the scheduler leaves it alone (as KAI does)",
			  "CreatePodGroup", NULL,
			  "run a podgrouper (gantry scheduler --podgrouper, gantry podgrouper or KAI's), "
			  "or annotate the pod with " GT_POD_GROUP_ANNOTATION);
	}
}

static int explain_pod(const struct run *r, const char *ns, const char *name, struct gt_explanation *e)
{
	const struct gt_doc *pod = ex_source_find(&r->src, "Pod", ns, name);
	if (!pod) {
		fprintf(stderr, PREFIX ": pod %s/%s not found %s\n", ns, name, r->src.where);
		return 2;
	}
	const char *rej = ex_source_rejection(&r->src, pod);
	const char *sched = gt_doc_str(gt_doc_get(pod, "spec"), "schedulerName");
	int32_t p = pod_entity(r, pod);
	if (rej) {
		explain_rejected(e, "Pod", ns, name, rej);
	} else if (!gt_pod_is_ours(pod, r->o->src.scheduler_name)) {
		char msg[600], hint[300];
		snprintf(msg, sizeof(msg), "Its spec.schedulerName is %s: that scheduler places it, not this one (%s)",
			 sched ? sched : "unset (default-scheduler)", r->o->src.scheduler_name);
		snprintf(hint, sizeof(hint), "set spec.schedulerName: %s in the pod (its template)",
			 r->o->src.scheduler_name);
		gt_ex_set(e, "Pod", ns, name, sched && gt_pod_node(pod) ? "Running" : "Waiting",
			  GT_EX_NOT_OUR_SCHEDULER, msg, "SetSchedulerName", NULL, hint);
	} else if (gt_pod_is_finished(pod)) {
		gt_ex_set(e, "Pod", ns, name, "Finished", GT_EX_FINISHED, NULL, NULL, NULL, NULL);
	} else if (p == GT_NONE || r->src.c->pods[p].job == GT_NONE) {
		explain_no_podgroup(r, pod, e);
	} else {
		gt_ex_pod(&r->x, p, e);
	}
	return 0;
}

static int explain_podgroup(const struct run *r, const char *ns, const char *name, struct gt_explanation *e)
{
	const struct gt_doc *pg = ex_source_find(&r->src, "PodGroup", ns, name);
	const char *rej = ex_source_rejection(&r->src, pg);
	if (rej) {
		explain_rejected(e, "PodGroup", ns, name, rej);
		return 0;
	}
	const struct gt_cluster *c = r->src.c;
	for (uint32_t j = 0; j < c->n_jobs; j++)
		if ((pg && r->src.job_doc[j] == pg) ||
		    (!pg && !strcmp(gt_strtab_str(c->names, c->jobs[j].name), name) &&
		     !strcmp(gt_strtab_str(c->names, c->jobs[j].ns), ns))) {
			gt_ex_job(&r->x, (int32_t)j, e);
			return 0;
		}
	fprintf(stderr, PREFIX ": podgroup %s/%s not found %s%s\n", ns, name, r->src.where,
		pg ? " (it has no pods)" : "");
	return 2;
}

static int explain_queue(const struct run *r, const char *name, struct gt_explanation *e)
{
	const struct gt_cluster *c = r->src.c;
	for (uint32_t q = 0; q < c->n_queues; q++)
		if (!strcmp(gt_strtab_str(c->names, c->queues[q].name), name)) {
			gt_ex_queue(&r->x, (int32_t)q, e);
			return 0;
		}
	const char *rej = ex_source_rejection(&r->src, ex_source_find(&r->src, "Queue", NULL, name));
	if (rej) {
		explain_rejected(e, "Queue", NULL, name, rej);
		return 0;
	}
	fprintf(stderr, PREFIX ": queue %s not found %s\n", name, r->src.where);
	return 2;
}

/* ---------------------------------------------------------------- the forecast */

/* When the job starts, if it waits for room. Moves the cluster on: the last thing done with it. */
static void forecast(struct run *r, struct gt_explanation *e)
{
	if (!gt_ex_wants_forecast(e))
		return;
	struct gt_ends ends;
	struct gt_warnings w = { 0 };
	gt_ends_init(&ends, r->src.c);
	struct gt_ends_src es = { .c = r->src.c, .pod_doc = r->src.pod_doc, .job_doc = r->src.job_doc,
				  .find = ex_source_find_job, .arg = &r->src, .now = r->now };
	gt_ends_read(&es, &ends, &w);
	for (size_t i = 0; i < w.n; i++)
		fprintf(stderr, PREFIX ": warning: %s\n", w.v[i]);
	gt_warnings_release(&w);
	struct gt_forecast_opts fo = { .now = r->now, .actions = r->o->actions };
	gt_forecast_run(r->src.c, &ends, e->job, &fo, &e->forecast);
	e->forecast_run = true;
	gt_ends_release(&ends);
}

/* ---------------------------------------------------------------- output */

static void print_all(const struct run *r, struct gt_explanation *ex, size_t n, bool many)
{
	if (r->o->output == GT_OUT_JSON || r->o->output == GT_OUT_YAML) {
		json_t *doc;
		if (many) {
			doc = json_array();
			for (size_t i = 0; i < n; i++)
				json_array_append_new(doc, gt_ex_json(&ex[i], r->now));
			doc = json_pack("{s:o}", "items", doc);
		} else {
			doc = gt_ex_json(&ex[0], r->now);
		}
		if (r->o->output == GT_OUT_YAML) {
			gt_json_print_yaml(stdout, doc);
		} else {
			json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
			fputc('\n', stdout);
		}
		json_decref(doc);
		return;
	}
	if (many && !n)
		printf("No job waits.\n");
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc('\n', stdout);
		gt_ex_print_text(stdout, &ex[i], r->now);
	}
	if (many && n)
		printf("\n(the expected start of one: gantry explain podgroup NAME -n NAMESPACE)\n");
}

/*
 * Every job that waits (in namespace @ns when given), in the cluster's order,
 * then each pod of ours the core never saw: malformed, or without its PodGroup.
 */
static size_t explain_waiting(const struct run *r, const char *ns, struct gt_explanation **out)
{
	const struct gt_cluster *c = r->src.c;
	struct gt_explanation *ex = gt_xcalloc(c->n_jobs + r->src.n_objs + 1, sizeof(*ex));
	size_t n = 0;
	for (uint32_t j = 0; j < c->n_jobs; j++) {
		if (ns && strcmp(gt_strtab_str(c->names, c->jobs[j].ns), ns))
			continue;
		gt_ex_job(&r->x, (int32_t)j, &ex[n]);
		if (!strcmp(ex[n].state, "Waiting"))
			n++;
		else
			gt_ex_release(&ex[n]);
	}
	for (size_t i = 0; i < r->src.n_objs; i++) {
		const struct gt_doc *o = r->src.objs[i];
		if (strcmp(gt_obj_kind(o), "Pod") || (ns && strcmp(gt_obj_ns(o), ns)) ||
		    !gt_pod_is_ours(o, r->o->src.scheduler_name) || gt_pod_is_finished(o) || gt_pod_node(o))
			continue;
		int32_t p = pod_entity(r, o);
		if (p != GT_NONE && r->src.c->pods[p].job != GT_NONE && !ex_source_rejection(&r->src, o))
			continue;	/* explained with its job */
		if (explain_pod(r, gt_obj_ns(o), gt_obj_name(o), &ex[n]))
			continue;
		if (!strcmp(ex[n].state, "Waiting"))
			n++;
		else
			gt_ex_release(&ex[n]);
	}
	*out = ex;
	return n;
}

static int explain(struct run *r, const struct target *t)
{
	const char *ns = r->o->ns ? r->o->ns : "default";
	struct gt_explanation *ex = NULL;
	size_t n = 1;
	int rc = 0;
	if (!t->kind) {
		n = explain_waiting(r, r->o->ns, &ex);
	} else {
		ex = gt_xcalloc(1, sizeof(*ex));
		rc = !strcmp(t->kind, "Pod")	  ? explain_pod(r, ns, t->name, ex)
		     : !strcmp(t->kind, "Queue") ? explain_queue(r, t->name, ex)
						   : explain_podgroup(r, ns, t->name, ex);
		if (rc)
			n = 0;
	}
	gt_plan_release(&r->plan);	/* the forecast moves the cluster on: nothing else reads it after */
	gt_session_release(&r->s);
	if (t->kind && !rc)
		forecast(r, &ex[0]);
	if (!rc)
		print_all(r, ex, n, !t->kind);
	for (size_t i = 0; i < n; i++)
		gt_ex_release(&ex[i]);
	free(ex);
	return rc;
}

int gt_explain_main(int argc, char **argv)
{
	struct opts o;
	struct target t = { 0 };
	int rc = parse_args(argc, argv, &o);
	if (!rc)
		rc = parse_target(&o, &t);
	if (rc) {
		free(o.src.files.v);
		free(o.args.v);
		return rc == 1 ? 0 : rc;
	}
	struct run r = { .o = &o, .now = o.now_given ? o.now : (int64_t)time(NULL) };
	rc = ex_source_open(&r.src, &o.src);
	if (!rc) {
		gt_cycle_run(&r.s, r.src.c, r.now, o.actions);
		gt_plan_build(&r.plan, &r.s, NULL);
		r.x = (struct gt_ex_ctx){ .c = r.src.c, .s = &r.s, .plan = &r.plan };
		rc = explain(&r, &t);
	}
	ex_source_release(&r.src);
	free(t.name);
	free(o.src.files.v);
	free(o.args.v);
	return rc;
}
