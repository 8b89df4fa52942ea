/*
 * engine_setup.c - a replay from a trace and a cluster, and its teardown
 *
 * The trace's jobs are copied (after --limit), inflated for a packing run,
 * their arrival gaps scaled for --load; every device of every node gets a
 * name for shared-GPU groups; gpu_spec constraints become node selectors;
 * and the options say which of the engine's shortcuts are exact here.
 */
#include "replay/engine_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/strtab.h"

/* ---------------------------------------------------------------- options */

static const char *const placement_names[GT_N_PLACEMENTS] = {
	[GT_PLACE_BINPACK] = "binpack",
	[GT_PLACE_SPREAD] = "spread",
	[GT_PLACE_GPUPACK] = "gpupack",
};

const char *gt_placement_name(enum gt_placement p)
{
	return (unsigned)p < GT_N_PLACEMENTS ? placement_names[p] : "?";
}

enum gt_placement gt_placement_from_name(const char *name)
{
	int p = gt_name_index(placement_names, GT_N_PLACEMENTS, name);
	return p < 0 ? GT_N_PLACEMENTS : (enum gt_placement)p;
}

void gt_placement_apply(struct gt_config *cfg, enum gt_placement p)
{
	cfg->plugins_off &= ~((1u << GT_PLUGIN_NODEPLACEMENT) | (1u << GT_PLUGIN_GPUPACK));
	cfg->gpu_spread = false;
	cfg->gpu_sharing_order = true;
	switch (p) {
	case GT_PLACE_SPREAD:
		/* KAI couples gpu spread with gpuspread and no gpusharingorder */
		cfg->gpu_spread = true;
		cfg->gpu_sharing_order = false;
		break;
	case GT_PLACE_GPUPACK:
		/* fill shared GPUs fullest first, but no node-level packing: first fit */
		cfg->plugins_off |= 1u << GT_PLUGIN_NODEPLACEMENT;
		break;
	default:
		break;
	}
}

void gt_replay_opts_defaults(struct gt_replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->actions = GT_ACTIONS_ALL;
	o->period = 1;
	o->inflate = 1.0;
	o->starvation_s = 86400;
}

/* ---------------------------------------------------------------- setup */

/* Priority class of a job: every job trains (KAI's default) unless qos says otherwise. */
static void job_priority(const struct gt_replay_opts *o, const struct gt_rjob *j,
			 struct rp_job *rj)
{
	rj->priority = 50;
	rj->preemptible = true;
	if (!o->qos_priority)
		return;
	switch (j->qos) {
	case GT_QOS_LS:
		rj->priority = 125;	/* inference */
		rj->preemptible = false;
		break;
	case GT_QOS_GUARANTEED:
		rj->priority = 100;	/* build */
		rj->preemptible = false;
		break;
	case GT_QOS_BURSTABLE:
		rj->priority = 75;	/* build-preemptible */
		break;
	default:
		break;
	}
}

static double trace_gpu_seconds(const struct gt_rjob *v, uint32_t n)
{
	double s = 0;
	for (uint32_t i = 0; i < n; i++)
		s += gt_rjob_gpu_seconds(&v[i]);
	return s;
}

static double trace_request_milli(const struct gt_rjob *v, uint32_t n)
{
	double s = 0;
	for (uint32_t i = 0; i < n; i++)
		s += gt_rp_job_gpus(&v[i]) * 1000.0;
	return s;
}

/* Stretch or squeeze the gaps between arrivals by @factor around the first. */
static void scale_arrivals(struct gt_rjob *v, uint32_t n, double factor)
{
	int64_t t0 = v[0].submit;
	for (uint32_t i = 0; i < n; i++)
		v[i].submit = t0 + (int64_t)llround((double)(v[i].submit - t0) * factor);
}

/*
 * The FGD packing workload: the trace over and over, each pass after the
 * last, until the arrived GPU request reaches @inflate times the trace's.
 */
static struct gt_rjob *inflate_jobs(const struct gt_rjob *v, uint32_t n, double inflate,
				    uint32_t *out_n)
{
	double total = trace_request_milli(v, n), target = total * inflate, sum = 0;
	int64_t span = v[n - 1].submit - v[0].submit + 1;
	struct gt_rjob *out = NULL;
	uint32_t len = 0, cap = 0;
	for (uint32_t pass = 0;; pass++) {
		/* the first pass is the whole trace unless less than it was asked for */
		bool whole = pass == 0 && (inflate >= 1.0 || total <= 0);
		for (uint32_t i = 0; i < n && (whole || sum < target); i++) {
			struct gt_rjob j = v[i];
			j.submit += (int64_t)pass * span;
			GT_PUSH(out, len, cap, j);
			sum += gt_rp_job_gpus(&j) * 1000.0;
		}
		if (total <= 0 || sum >= target)
			break;
	}
	*out_n = len;
	return out;
}

static int expand_jobs(struct gt_replay *r, const struct gt_trace *t, struct gt_err *err)
{
	const struct gt_replay_opts *o = &r->o;
	uint32_t n = o->limit && o->limit < t->n_jobs ? o->limit : t->n_jobs;
	if (!n)
		return gt_errf(err, GT_EINVAL, "%s: no jobs to replay", t->path);
	if (!o->no_departures)
		for (uint32_t i = 0; i < n; i++)
			if (t->jobs[i].duration < 0)
				return gt_errf(err, GT_EINVAL,
					       "%s:%u: the trace has no run times (no time columns): replay it with --no-departures",
					       t->path, t->jobs[i].line);
	if (o->no_departures) {
		r->tj = inflate_jobs(t->jobs, n, o->inflate > 0 ? o->inflate : 1.0, &r->n_jobs);
	} else {
		r->tj = gt_xmalloc(n * sizeof(*r->tj));
		memcpy(r->tj, t->jobs, n * sizeof(*r->tj));
		r->n_jobs = n;
	}
	double factor = 1.0;
	if (o->scale_arrivals > 0)
		factor = 1.0 / o->scale_arrivals;
	r->st.arrival_scale = factor;
	return 0;
}

/* --load: the gap factor that makes the offered load what was asked. */
static void apply_load(struct gt_replay *r)
{
	double span = (double)(r->tj[r->n_jobs - 1].submit - r->tj[0].submit);
	double gpus = (double)r->st.cluster_gpus;
	if (r->o.no_departures || span <= 0 || gpus <= 0)
		return;
	if (r->o.load > 0) {
		double recorded = trace_gpu_seconds(r->tj, r->n_jobs) / (gpus * span);
		r->st.arrival_scale *= recorded / r->o.load;
	}
	if (r->st.arrival_scale != 1.0)
		scale_arrivals(r->tj, r->n_jobs, r->st.arrival_scale);
}

static void offered_load(struct gt_replay *r)
{
	double gpus = (double)r->st.cluster_gpus;
	double span = (double)(r->tj[r->n_jobs - 1].submit - r->tj[0].submit);
	if (gpus <= 0)
		return;
	if (r->o.no_departures)
		r->st.offered_load = trace_request_milli(r->tj, r->n_jobs) / 1000.0 / gpus;
	else if (span > 0)
		r->st.offered_load = trace_gpu_seconds(r->tj, r->n_jobs) / (gpus * span);
}

/* One In selector per gpu_spec over the GPU-model label, and which nodes pass it. */
static void build_specs(struct gt_replay *r, const struct gt_trace *t)
{
	r->n_specs = (uint32_t)t->specs.n_strs;
	r->spec_sel = gt_xcalloc(r->n_specs + 1, sizeof(*r->spec_sel));
	r->spec_ok = gt_xcalloc((size_t)r->n_specs * r->c.n_nodes + 1, 1);
	uint32_t key = gt_strtab_intern(r->names, GT_GPU_MODEL_LABEL);
	for (uint32_t sp = 0; sp < r->n_specs; sp++) {
		char *list = gt_xstrdup(gt_strtab_str(&t->specs, sp));
		struct gt_sel_expr *e = gt_xcalloc(1, sizeof(*e));
		e->key = key;
		e->op = GT_SEL_IN;
		uint32_t cap = 0;
		for (char *save = NULL, *m = strtok_r(list, "|", &save); m; m = strtok_r(NULL, "|", &save))
			GT_PUSH(e->vals, e->n_vals, cap, gt_strtab_intern(r->names, m));
		free(list);
		r->spec_sel[sp] = (struct gt_selector){ .exprs = e, .n_exprs = 1 };
		for (uint32_t n = 0; n < r->c.n_nodes; n++)
			r->spec_ok[(size_t)sp * r->c.n_nodes + n] =
				gt_selector_matches(&r->spec_sel[sp], &r->c.nodes[n].labels, r->names);
	}
	r->rooms = gt_xcalloc(r->n_specs + 1, sizeof(*r->rooms));
	for (uint32_t cls = 0; cls <= r->n_specs; cls++)
		r->rooms[cls].fit = gt_xcalloc((size_t)r->max_node_gpus + 1, sizeof(int64_t));
}

/* Every device of every node gets a name, the label a shared GPU's pods carry. */
static void build_devices(struct gt_replay *r)
{
	uint32_t total = 0;
	r->dev0 = gt_xcalloc(r->c.n_nodes + 1, sizeof(*r->dev0));
	for (uint32_t n = 0; n < r->c.n_nodes; n++) {
		r->dev0[n] = total;
		total += (uint32_t)(r->c.nodes[n].gpus > 0 ? r->c.nodes[n].gpus : 0);
		if (r->c.nodes[n].gpus > r->max_node_gpus)
			r->max_node_gpus = r->c.nodes[n].gpus;
		r->st.cluster_gpus += r->c.nodes[n].gpus > 0 ? r->c.nodes[n].gpus : 0;
	}
	r->dev_names = gt_xcalloc(total + 1, sizeof(*r->dev_names));
	for (uint32_t n = 0; n < r->c.n_nodes; n++)
		for (int32_t d = 0; d < r->c.nodes[n].gpus; d++) {
			char buf[300];
			snprintf(buf, sizeof(buf), "%s-gpu%d",
				 gt_strtab_str(r->names, r->c.nodes[n].name), d);
			r->dev_names[r->dev0[n] + (uint32_t)d] = gt_strtab_intern(r->names, buf);
		}
}

static int check_setup(const struct gt_cluster *c, const struct gt_trace *t,
		       const int32_t *tenant_queue, int32_t default_queue,
		       const struct gt_replay_opts *o, struct gt_err *err)
{
	if (!c->n_nodes)
		return gt_errf(err, GT_EINVAL, "the cluster has no nodes");
	if (c->n_pods || c->n_jobs)
		return gt_errf(err, GT_EINVAL, "the cluster must come without pods or jobs");
	if (o->period < 1)
		return gt_errf(err, GT_EINVAL, "the cycle period must be 1 s or more");
	if (o->fifo && o->qos_priority)
		return gt_errf(err, GT_EINVAL, "strict FIFO orders by arrival only: it does not take qos priorities");
	for (uint32_t i = 0; i <= t->tenants.n_strs; i++) {
		int32_t q = i < t->tenants.n_strs ? tenant_queue[i] : default_queue;
		if (q < 0 || (uint32_t)q >= c->n_queues)
			return gt_errf(err, GT_EINVAL, "tenant %u has no queue", i);
	}
	return 0;
}

static void add_wake(struct gt_replay *r, int64_t v, uint32_t *cap)
{
	if (v <= 0)
		return;
	for (uint32_t i = 0; i < r->n_wake_after; i++)
		if (r->wake_after[i] == v)
			return;
	GT_PUSH(r->wake_after, r->n_wake_after, *cap, v);
}

/* Every min-runtime the core may apply: when one ends, a victim appears. */
static void collect_min_runtimes(struct gt_replay *r)
{
	uint32_t cap = 0;
	add_wake(r, r->c.config.preempt_min_runtime_s, &cap);
	add_wake(r, r->c.config.reclaim_min_runtime_s, &cap);
	for (uint32_t q = 0; q < r->c.n_queues; q++) {
		add_wake(r, r->c.queues[q].preempt_min_runtime_s, &cap);
		add_wake(r, r->c.queues[q].reclaim_min_runtime_s, &cap);
	}
}

/* Do all jobs go to one queue? Then fair share cannot reorder them. */
static bool one_queue(const struct gt_replay *r)
{
	for (uint32_t i = 1; i < r->n_jobs; i++)
		if (r->jobs[i].queue != r->jobs[0].queue)
			return false;
	return true;
}

/*
 * Pods that never leave, one queue, one priority, allocate only: every
 * cycle places the pending pods in arrival order on a cluster that only
 * fills up, and a pod that fits nowhere never will. Which cycle places a
 * pod then changes nothing about where it goes, so cycles may come as
 * rarely as the timeline's resolution: the packing is the same as with a
 * cycle per arrival, only waits are measured more coarsely.
 */
static void coarsen_packing(struct gt_replay *r)
{
	if (!r->o.no_departures || r->o.exact || r->o.actions != (1u << GT_ACT_ALLOCATE) ||
	    !r->single_queue)
		return;
	for (uint32_t i = 1; i < r->n_jobs; i++)
		if (r->jobs[i].priority != r->jobs[0].priority)
			return;
	int64_t coarse = (r->tj[r->n_jobs - 1].submit - r->tj[0].submit) / (GT_TIMELINE_BUCKETS / 2) + 1;
	if (coarse > r->o.period)
		r->o.period = coarse;
}

static char *policy_string(const struct gt_replay_opts *o, const struct gt_config *cfg)
{
	char buf[512];
	size_t off = (size_t)snprintf(buf, sizeof(buf), "actions=");
	bool first = true;
	for (int a = 1; a < GT_N_ACTIONS; a++)
		if (o->actions & (1u << a)) {
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", first ? "" : ",",
						gt_action_name((enum gt_action)a));
			first = false;
		}
	const char *place = cfg->gpu_spread ? "spread"
			    : (cfg->plugins_off & (1u << GT_PLUGIN_NODEPLACEMENT)) ? "gpupack"
										: "binpack";
	off += (size_t)snprintf(buf + off, sizeof(buf) - off,
		 " placement=%s cpu-placement=%s order=%s min-runtime=%llds period=%llds bind-latency=%llds evict-grace=%llds evicted=%s%s",
		 place, cfg->cpu_spread ? "spread" : "binpack", o->fifo ? "fifo" : "kai",
		 (long long)cfg->reclaim_min_runtime_s,
		 (long long)o->period, (long long)o->bind_latency, (long long)o->evict_grace,
		 o->resume ? "resume" : "restart", o->no_departures ? " no-departures" : "");
	/* time-based fair share changes every answer: a run says it had it */
	static const char *const window_name[] = { "sliding", "tumbling", "cron" };
	if (cfg->usage.on && off < sizeof(buf))
		snprintf(buf + off, sizeof(buf) - off, " usage=%s window=%llds half-life=%llds k=%g",
			 window_name[cfg->usage.window], (long long)cfg->usage.window_s,
			 (long long)cfg->usage.half_life_s, cfg->k_value);
	return gt_xstrdup(buf);
}

static void setup_jobs(struct gt_replay *r, const int32_t *tenant_queue, int32_t default_queue)
{
	r->jobs = gt_xcalloc(r->n_jobs, sizeof(*r->jobs));
	uint32_t pods = 0;
	for (uint32_t i = 0; i < r->n_jobs; i++) {
		struct rp_job *rj = &r->jobs[i];
		const struct gt_rjob *j = &r->tj[i];
		rj->queue = j->tenant >= 0 ? tenant_queue[j->tenant] : default_queue;
		job_priority(&r->o, j, rj);
		rj->slot = GT_NONE;
		rj->pod0 = pods;
		rj->first_start = rj->end = -1;
		pods += (uint32_t)j->n_pods;
	}
	r->n_pods = pods;
	r->last_node = gt_xmalloc((pods + 1) * sizeof(*r->last_node));
	memset(r->last_node, 0xff, (pods + 1) * sizeof(*r->last_node));
	r->last_group = gt_xcalloc(pods + 1, sizeof(*r->last_group));
	r->single_queue = one_queue(r);
}

int gt_replay_new(struct gt_replay **out, struct gt_cluster *c, const struct gt_trace *t,
		  const int32_t *tenant_queue, int32_t default_queue,
		  const struct gt_replay_opts *o, struct gt_err *err)
{
	int rc = check_setup(c, t, tenant_queue, default_queue, o, err);
	if (rc)
		return rc;
	struct gt_replay *r = gt_xcalloc(1, sizeof(*r));
	r->o = *o;
	if (r->o.fifo)
		r->o.actions = 1u << GT_ACT_ALLOCATE;	/* nothing to reclaim or preempt in one queue */
	r->c = *c;
	r->c.config.job_messages = false;	/* nobody reads them: the core may skip sure failures */
	gt_cluster_init(c, c->names);	/* the engine owns the arrays now */
	r->names = r->c.names;
	gt_cluster_link(&r->c);
	for (uint32_t q = 0; q < r->c.n_queues; q++)	/* docs/reservations.md: maximum run times */
		r->c.queues[q].enforce_max_runtime |= r->o.enforce_max_runtime;
	r->ns = gt_strtab_intern(r->names, "replay");
	r->podset_name = gt_strtab_intern(r->names, "default");
	rc = expand_jobs(r, t, err);
	if (rc) {
		gt_replay_free(r);
		return rc;
	}
	build_devices(r);
	build_specs(r, t);
	apply_load(r);
	offered_load(r);
	setup_jobs(r, tenant_queue, default_queue);
	collect_min_runtimes(r);
	coarsen_packing(r);
	r->nodes = gt_xcalloc(r->c.n_nodes, sizeof(*r->nodes));
	r->q_alloc_milli = gt_xcalloc(r->c.n_queues + 1, sizeof(int64_t));
	r->q_fair_milli = gt_xcalloc(r->c.n_queues + 1, sizeof(int64_t));
	r->q_alloc_s = gt_xcalloc(r->c.n_queues + 1, sizeof(double));
	r->q_fair_s = gt_xcalloc(r->c.n_queues + 1, sizeof(double));
	for (uint32_t n = 0; n < r->c.n_nodes; n++)
		gt_rp_node_contrib(r, (int32_t)n, 1);
	r->origin = r->tj[0].submit;
	int64_t span = r->tj[r->n_jobs - 1].submit - r->origin;
	gt_timeline_init(&r->st.timeline, GT_N_SIGNALS + 2 * r->c.n_queues, r->origin,
			 span / (GT_TIMELINE_BUCKETS / 2) + 1);
	gt_rp_set_signals(r);
	char buf[1200];
	snprintf(buf, sizeof(buf), "%s:%s", gt_trace_format_name(t->format), t->path);
	r->st.trace = gt_xstrdup(buf);
	r->st.policy = policy_string(&r->o, &r->c.config);
	r->st.jobs = r->n_jobs;
	r->st.pods = r->n_pods;
	r->st.nodes = r->c.n_nodes;
	r->st.first_submit = r->origin;
	r->st.last_submit = r->tj[r->n_jobs - 1].submit;
	r->st.starvation_s = r->o.starvation_s;
	r->st.packing_run = r->o.no_departures;
	*out = r;
	return 0;
}

void gt_replay_free(struct gt_replay *r)
{
	if (!r)
		return;
	struct gt_cluster *c = &r->c;
	for (uint32_t n = 0; r->nodes && n < c->n_nodes; n++)
		free(r->nodes[n].groups);
	/* pods borrow their gpu_spec selector from the engine */
	for (uint32_t i = 0; i < c->n_pods; i++) {
		c->pods[i].affinity_terms = NULL;
		c->pods[i].n_affinity_terms = 0;
	}
	gt_cluster_release(c);
	if (r->usage_started)
		gt_usage_release(&r->usage);
	for (uint32_t sp = 0; sp < r->n_specs; sp++)
		gt_selector_release(&r->spec_sel[sp]);
	free(r->spec_sel);
	free(r->spec_ok);
	for (uint32_t cls = 0; r->rooms && cls <= r->n_specs; cls++)
		free(r->rooms[cls].fit);
	free(r->rooms);
	free(r->nodes);
	free(r->tj);
	free(r->jobs);
	free(r->last_node);
	free(r->last_group);
	free(r->slot_id);
	free(r->dev_names);
	free(r->dev0);
	free(r->heap);
	free(r->wake_after);
	free(r->q_alloc_milli);
	free(r->q_fair_milli);
	free(r->q_alloc_s);
	free(r->q_fair_s);
	free(r->cycle_ms);
	gt_replay_stats_release(&r->st);
	free(r);
}
