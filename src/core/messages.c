#include "core/messages.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/reserve.h"
#include "util/mem.h"

static const char *str(const struct gt_session *s, uint32_t id)
{
	return gt_strtab_str(s->c->names, id);
}

/* The two siblings under the lowest common ancestor of @a and @b. */
static void sibling_level(const struct gt_cluster *c, int32_t a, int32_t b, int32_t *la,
			  int32_t *lb)
{
	for (int32_t x = a; x != GT_NONE; x = c->queues[x].parent)
		for (int32_t y = b; y != GT_NONE; y = c->queues[y].parent)
			if (c->queues[x].parent == c->queues[y].parent) {
				*la = x;
				*lb = y;
				return;
			}
	*la = a;
	*lb = b;
}

static size_t queue_line(const struct gt_session *s, int32_t q, char *buf, size_t len)
{
	const struct gt_queue *cq = &s->c->queues[q];
	char quota[32];
	if (cq->deserved[GT_QGPU] < 0)
		snprintf(quota, sizeof(quota), "unlimited");
	else
		snprintf(quota, sizeof(quota), "%g GPUs", (double)cq->deserved[GT_QGPU] / 1000);
	int n = snprintf(buf, len,
			 " %s uses %g GPUs with a quota of %s, fair-share of %g GPUs and queue priority of %d.",
			 str(s, gt_queue_shown_name(cq)), (double)s->queues[q].allocated[GT_QGPU] / 1000, quota,
			 (double)s->queues[q].fair_share[GT_QGPU] / 1000, cq->priority);
	return n > 0 ? (size_t)n : 0;
}

void gt_eviction_message(const struct gt_session *s, int32_t pod, char *buf, size_t len)
{
	const struct gt_cluster *c = s->c;
	const struct gt_pod_state *st = &s->pods[pod];
	const struct gt_pod *p = &c->pods[pod];
	buf[0] = '\0';
	if (!st->evicted_by)
		return;
	int32_t ej = st->evictor_job;
	const char *ens = ej >= 0 ? str(s, c->jobs[ej].ns) : "";
	const char *ename = ej >= 0 ? str(s, c->jobs[ej].name) : "";
	switch ((enum gt_action)st->evicted_by) {
	case GT_ACT_RECLAIM: {
		size_t off = (size_t)snprintf(buf, len, "Pod %s/%s was preempted by workload %s/%s.",
					       str(s, p->ns), str(s, p->name), ens, ename);
		int32_t lq, lv;
		if (ej < 0 || p->job < 0 || off >= len)
			return;
		sibling_level(c, c->jobs[ej].queue, c->jobs[p->job].queue, &lq, &lv);
		off += queue_line(s, lq, buf + off, len - off);
		if (off < len)
			queue_line(s, lv, buf + off, len - off);
		return;
	}
	case GT_ACT_PREEMPT:
		snprintf(buf, len, "Pod %s/%s was preempted by higher priority workload %s/%s",
			 str(s, p->ns), str(s, p->name), ens, ename);
		return;
	case GT_ACT_CONSOLIDATION:
		snprintf(buf, len,
			 "Pod %s/%s was preempted and rescheduled due to bin packing (resource consolidation) procedure",
			 str(s, p->ns), str(s, p->name));
		return;
	case GT_ACT_STALEGANG: {
		int32_t min = 0;
		for (uint32_t i = 0; p->job >= 0 && i < c->jobs[p->job].n_podsets; i++)
			min += c->jobs[p->job].podsets[i].min_member;
		snprintf(buf, len,
			 "Workload doesn't meet the minimum required number of pods (%d), evicting remaining pod: %s/%s",
			 min, str(s, p->ns), str(s, p->name));
		return;
	}
	default:
		gt_reserve_eviction_message(s, pod, buf, len);	/* Gantry's own (GT_EVICT_*) */
		return;
	}
}

void gt_job_set_why(struct gt_session *s, int32_t job, const struct gt_job_why *why, const char *msg)
{
	if (!s->c->config.job_messages)
		return;	/* a front end that publishes none (the replay) */
	struct gt_job_state *js = &s->jobs[job];
	free(js->message);
	free(js->why);
	js->message = NULL;
	js->why = NULL;
	if (!msg)
		return;
	js->message = gt_xstrdup(msg);
	js->why = gt_xmalloc(sizeof(*js->why));
	*js->why = why ? *why : gt_job_why_of(GT_REASON_POD_ERROR);
}
