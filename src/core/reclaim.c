/*
 * reclaim.c - a queue below its fair share takes back what others borrowed
 *
 * A pending job may reclaim only if its queue stays within its fair share in
 * every resource with the job (and within its quota for a non-preemptible
 * job). Victims are preemptible jobs of other queues. A scenario is valid
 * when (KAI-SPEC 6.6):
 *   - every chunk taken from a victim queue V (the core gang of a victim
 *     job, or one elastic pod) is taken while V's sibling-level queue is
 *     above max(quota, fair share) in some resource (MaintainFairShare), or
 *     while the reclaimer stays within quota and V is above its quota
 *     (GuaranteeDeservedQuota);
 *   - after the reclaim, on every level from the reclaimer's queue up, the
 *     reclaimer's side is not more saturated (allocated / fair share) than
 *     any sibling it took from, once it is above its fair share;
 *   - min-runtime protections hold.
 */
#include <stdlib.h>
#include <string.h>

#include "core/actions.h"
#include "core/fairshare.h"
#include "core/minruntime.h"
#include "core/order.h"
#include "core/solver.h"
#include "core/victimq.h"
#include "util/mem.h"

/* a <= b in every resource, -1 in b meaning unlimited */
static bool le_all(const int64_t a[GT_NQRES], const int64_t b[GT_NQRES])
{
	for (int r = 0; r < GT_NQRES; r++)
		if (b[r] >= 0 && a[r] > b[r])
			return false;
	return true;
}

static void allocatable_share(const struct gt_session *s, const struct gt_queue_state *qs,
			      int32_t q, int64_t out[GT_NQRES])
{
	const struct gt_queue *cq = &s->c->queues[q];
	for (int r = 0; r < GT_NQRES; r++) {
		if (cq->deserved[r] < 0) {
			out[r] = cq->limit[r];
			continue;
		}
		int64_t v = cq->deserved[r] > qs[q].fair_share[r] ? cq->deserved[r] : qs[q].fair_share[r];
		out[r] = cq->limit[r] >= 0 && v > cq->limit[r] ? cq->limit[r] : v;
	}
}

static bool can_reclaim(const struct gt_session *s, int32_t job, const int64_t req[GT_NQRES])
{
	const struct gt_job *j = &s->c->jobs[job];
	const struct gt_queue_state *qs = &s->queues[j->queue];
	int64_t with[GT_NQRES], np[GT_NQRES];
	for (int r = 0; r < GT_NQRES; r++) {
		with[r] = qs->allocated[r] + req[r];
		np[r] = qs->allocated_np[r] + req[r];
	}
	if (!le_all(with, qs->fair_share))
		return false;
	return j->preemptible || le_all(np, s->c->queues[j->queue].deserved);
}

/* The two siblings under the lowest common ancestor of queues @a and @b. */
static void leveled(const struct gt_cluster *c, int32_t a, int32_t b, int32_t *la, int32_t *lb)
{
	int32_t pa[64], pb[64];
	uint32_t na = gt_queue_path(c, a, pa), nb = gt_queue_path(c, b, pb);
	uint32_t n = na < nb ? na : nb;
	*la = pa[0];
	*lb = pb[0];
	for (uint32_t i = 0; i < n; i++) {
		*la = pa[i];
		*lb = pb[i];
		if (pa[i] != pb[i])
			break;
	}
}

struct reclaim_state {
	int64_t (*remaining)[GT_NQRES];	/* per queue, valid when touched */
	bool *touched;
	unsigned *involved;		/* per queue: bit per resource */
};

static void touch(struct reclaim_state *rs, const struct gt_queue_state *qs, int32_t q)
{
	if (rs->touched[q])
		return;
	rs->touched[q] = true;
	memcpy(rs->remaining[q], qs[q].allocated, sizeof(rs->remaining[q]));
}

static unsigned involved_bits(const int64_t v[GT_NQRES])
{
	unsigned bits = 0;
	for (int r = 0; r < GT_NQRES; r++)
		if (v[r] > 0)
			bits |= 1u << r;
	return bits;
}

/* Victim pods in job order (stable): each job's pods one after the other. */
static int32_t *victims_by_job(const struct gt_cluster *c, const int32_t *victims, uint32_t n)
{
	int32_t *out = gt_xmalloc((n + 1) * sizeof(*out));
	memcpy(out, victims, n * sizeof(*victims));
	for (uint32_t i = 1; i < n; i++) {	/* insertion sort: mostly sorted already */
		int32_t x = out[i];
		uint32_t k = i;
		while (k > 0 && c->pods[out[k - 1]].job > c->pods[x].job) {
			out[k] = out[k - 1];
			k--;
		}
		out[k] = x;
	}
	return out;
}

/* One chunk taken from victim queue @vq: check a strategy, then subtract it. */
static bool take_chunk(const struct gt_session *s, const struct gt_queue_state *qs, int32_t q,
		       int32_t vq, const int64_t req[GT_NQRES], const int64_t chunk[GT_NQRES],
		       struct reclaim_state *rs)
{
	const struct gt_cluster *c = s->c;
	int32_t lq, lv;
	leveled(c, q, vq, &lq, &lv);
	touch(rs, qs, lv);
	int64_t share[GT_NQRES], with[GT_NQRES];
	allocatable_share(s, qs, lv, share);
	bool maintain = !le_all(rs->remaining[lv], share);
	for (int r = 0; r < GT_NQRES; r++)
		with[r] = qs[lq].allocated[r] + req[r];
	bool guarantee = le_all(with, c->queues[lq].deserved) &&
			 !le_all(rs->remaining[lv], c->queues[lv].deserved);
	if (!maintain && !guarantee)
		return false;
	unsigned bits = involved_bits(chunk);
	for (int32_t a = vq; a != GT_NONE; a = c->queues[a].parent) {
		touch(rs, qs, a);
		for (int r = 0; r < GT_NQRES; r++)
			rs->remaining[a][r] -= chunk[r];
		rs->involved[a] |= bits;
	}
	return true;
}

/*
 * Step 1 of the validator: every chunk fits a reclaim strategy. A victim
 * job's chunks are its elastic pods one by one (beyond its minimum), then
 * its core (the first minimum pods) together.
 */
static bool chunks_reclaimable(const struct gt_session *s, const struct gt_queue_state *qs,
			       int32_t job, const int64_t req[GT_NQRES], const int32_t *victims,
			       uint32_t n, struct reclaim_state *rs)
{
	const struct gt_cluster *c = s->c;
	int32_t q = c->jobs[job].queue;
	int32_t *v = victims_by_job(c, victims, n);
	bool ok = true;
	for (uint32_t i = 0; i < n && ok;) {
		int32_t vjob = c->pods[v[i]].job;
		int32_t min = 0;
		for (uint32_t p = 0; p < c->jobs[vjob].n_podsets; p++)
			min += c->jobs[vjob].podsets[p].min_member;
		int64_t core[GT_NQRES] = { 0 };
		uint32_t seen = 0;
		for (; i < n && c->pods[v[i]].job == vjob && ok; i++, seen++) {
			int64_t res[GT_NQRES];
			gt_pod_queue_res(s, v[i], s->pods[v[i]].node, res);
			if ((int32_t)seen < min) {
				for (int r = 0; r < GT_NQRES; r++)
					core[r] += res[r];
			} else {
				ok = take_chunk(s, qs, q, c->jobs[vjob].queue, req, res, rs);
			}
		}
		if (ok && involved_bits(core))
			ok = take_chunk(s, qs, q, c->jobs[vjob].queue, req, core, rs);
	}
	free(v);
	return ok;
}

static double saturation(int64_t alloc, int64_t fair)
{
	if (fair == 0)
		return alloc > 0 ? 1e300 : 0;
	if (fair < 0)
		return 0;
	return (double)alloc / (double)fair;
}

/* Step 2: the reclaimer's side never ends more saturated than a sibling it took from. */
static bool within_boundaries(const struct gt_session *s, const struct gt_queue_state *qs,
			      int32_t job, const int64_t req[GT_NQRES], struct reclaim_state *rs)
{
	const struct gt_cluster *c = s->c;
	unsigned req_bits = involved_bits(req);
	double mult = c->config.saturation_multiplier;
	for (int32_t x = c->jobs[job].queue; x != GT_NONE; x = c->queues[x].parent) {
		int64_t rem[GT_NQRES];
		for (int r = 0; r < GT_NQRES; r++)
			rem[r] = (rs->touched[x] ? rs->remaining[x][r] : qs[x].allocated[r]) + req[r];
		for (uint32_t sib = 0; sib < c->n_queues; sib++) {
			if (!rs->touched[sib] || (int32_t)sib == x ||
			    c->queues[sib].parent != c->queues[x].parent)
				continue;
			unsigned bits = rs->involved[sib] | req_bits;
			for (int r = 0; r < GT_NQRES; r++) {
				if (!(bits & (1u << r)))
					continue;
				double rx = saturation(rem[r], qs[x].fair_share[r]);
				double rsib = saturation(rs->remaining[sib][r], qs[sib].fair_share[r]);
				if (rx > 1 && qs[sib].fair_share[r] > 0 && rx * mult >= rsib)
					return false;
			}
		}
		if (c->jobs[job].preemptible)
			continue;
		int64_t np[GT_NQRES];
		for (int r = 0; r < GT_NQRES; r++)
			np[r] = qs[x].allocated_np[r] + req[r];
		if (!le_all(np, c->queues[x].deserved))
			return false;
	}
	return true;
}

static bool reclaim_valid(struct gt_solver *sv, const int32_t *victims, uint32_t n,
			  const int32_t *tasks, uint32_t n_tasks)
{
	struct gt_session *s = sv->s;
	uint32_t nq = s->c->n_queues + 1;
	int64_t req[GT_NQRES];
	gt_tasks_queue_res(s, tasks, n_tasks, req);
	struct reclaim_state rs = {
		.remaining = gt_xcalloc(nq, sizeof(*rs.remaining)),
		.touched = gt_xcalloc(nq, sizeof(*rs.touched)),
		.involved = gt_xcalloc(nq, sizeof(*rs.involved)),
	};
	bool ok = chunks_reclaimable(s, sv->queues_at_start, sv->job, req, victims, n, &rs) &&
		  within_boundaries(s, sv->queues_at_start, sv->job, req, &rs) &&
		  gt_min_runtime_valid(s, sv->job, true, victims, n);
	free(rs.remaining);
	free(rs.touched);
	free(rs.involved);
	return ok;
}

/*
 * The most GPU milli-units chunks from the victim-side sibling @lv may give
 * reclaimer side @lq (INT64_MAX: no bound). take_chunk allows a chunk only
 * while @lv's remaining allocation is above a threshold in some resource:
 * max(quota, fair share) (MaintainFairShare), or its quota when the reclaimer
 * stays within quota (GuaranteeDeservedQuota). Remaining only falls, so when
 * only the GPU can be above, chunks stop once it reaches the lower of the
 * two: everything taken before the last chunk is below alloc - threshold,
 * the last chunk is at most one job.
 */
static int64_t chunk_gpu_bound(struct gt_session *s, const struct gt_queue_state *qs, int32_t lq,
			       int32_t lv, const int64_t req[GT_NQRES])
{
	const struct gt_cluster *c = s->c;
	int64_t share[GT_NQRES], with[GT_NQRES], thr[GT_NQRES];
	allocatable_share(s, qs, lv, share);
	for (int r = 0; r < GT_NQRES; r++)
		with[r] = qs[lq].allocated[r] + req[r];
	bool guarantee = le_all(with, c->queues[lq].deserved);
	for (int r = 0; r < GT_NQRES; r++) {
		int64_t d = c->queues[lv].deserved[r];
		thr[r] = share[r] < 0 ? INT64_MAX : share[r];
		if (guarantee && d >= 0 && d < thr[r])
			thr[r] = d;
		if (r != GT_QGPU && thr[r] != INT64_MAX && qs[lv].allocated[r] > thr[r])
			return INT64_MAX;	/* chunks may be allowed through another resource */
	}
	if (thr[GT_QGPU] == INT64_MAX)
		return INT64_MAX;
	int64_t alloc = qs[lv].allocated[GT_QGPU];
	if (alloc <= thr[GT_QGPU])
		return 0;
	return alloc - thr[GT_QGPU] - 1 + gt_victim_max_job_gpu(s, lv);
}

/* What every victim-side sibling on the reclaimer's path may give, summed. */
static int64_t reclaim_victim_gpu_bound(struct gt_solver *sv, const int64_t req[GT_NQRES])
{
	struct gt_session *s = sv->s;
	const struct gt_cluster *c = s->c;
	int64_t total = 0;
	for (int32_t a = c->jobs[sv->job].queue; a != GT_NONE; a = c->queues[a].parent) {
		int32_t parent = c->queues[a].parent;
		for (uint32_t q = 0; q < c->n_queues; q++) {
			if ((int32_t)q == a || c->queues[q].parent != parent)
				continue;
			int64_t b = chunk_gpu_bound(s, sv->queues_at_start, a, (int32_t)q, req);
			if (b == INT64_MAX || total > INT64_MAX / 2)
				return INT64_MAX;
			total += b;
		}
	}
	return total;
}

static bool reclaim_victim(struct gt_solver *sv, int32_t job)
{
	const struct gt_session *s = sv->s;
	if (s->c->jobs[job].queue == s->c->jobs[sv->job].queue)
		return false;
	return gt_job_is_elastic(s, job) ||
	       !gt_job_protected(s, job, gt_reclaim_min_runtime(s, sv->job, job));
}

/*
 * Victims come from every queue but the reclaimer's, and only from a queue
 * some reclaim strategy could take from (KAI's FilterVictim, judged on the
 * queues as the job's search starts, before any scenario): when the
 * reclaimer's side would go past its deserved quota, the victim's side must
 * be above max(quota, fair share); within quota, the victim's side must be
 * over its quota in a resource the reclaimer asks for, or at it in all of
 * them. A queue that only just holds its fair share gives nothing, not even
 * a pod pipelined earlier in the action.
 */
static bool reclaim_victim_queue(struct gt_solver *sv, int32_t q)
{
	const struct gt_session *s = sv->s;
	const struct gt_cluster *c = s->c;
	int32_t own = c->jobs[sv->job].queue;
	if (own == q)
		return false;
	const struct gt_queue_state *qs = sv->queues_at_start;
	int32_t lq, lv;
	leveled(c, own, q, &lq, &lv);
	int64_t with[GT_NQRES];
	for (int r = 0; r < GT_NQRES; r++)
		with[r] = qs[lq].allocated[r] + sv->req[r];
	if (!le_all(with, c->queues[lq].deserved)) {
		int64_t share[GT_NQRES];
		allocatable_share(s, qs, lv, share);
		return !le_all(qs[lv].allocated, share);
	}
	bool under = false;
	for (int r = 0; r < GT_NQRES; r++) {
		int64_t deserved = c->queues[lv].deserved[r];
		if (sv->req[r] <= 0 || deserved < 0)
			continue;
		if (qs[lv].allocated[r] > deserved)
			return true;
		under |= qs[lv].allocated[r] < deserved;
	}
	return !under;
}

void gt_action_reclaim(struct gt_session *s)
{
	struct gt_queue_state *snapshot = gt_xmalloc((s->c->n_queues + 1) * sizeof(*snapshot));
	struct gt_solver tmpl = { .is_victim = reclaim_victim, .validate = reclaim_valid,
				  .victim_queue = reclaim_victim_queue,
				  .max_victim_jobs = -1, .queues_at_start = snapshot,
				  .victim_gpu_bound = reclaim_victim_gpu_bound };
	gt_solve_each(s, &tmpl, NULL, can_reclaim);
	free(snapshot);
}
