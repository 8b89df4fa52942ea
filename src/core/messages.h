/*
 * messages.h - what an eviction tells the user, in KAI's words
 *
 *   reclaim:       "Pod <ns>/<pod> was preempted by workload <ns>/<job>." and,
 *                  for the two queues at the level where they are siblings,
 *                  "<queue> uses <a> GPUs with a quota of <q> GPUs, fair-share
 *                  of <f> GPUs and queue priority of <p>."
 *   preempt:       "Pod <ns>/<pod> was preempted by higher priority workload <ns>/<job>"
 *   consolidation: "Pod <ns>/<pod> was preempted and rescheduled due to bin
 *                  packing (resource consolidation) procedure"
 *   stale gang:    "Workload doesn't meet the minimum required number of pods
 *                  (<m>), evicting remaining pod: <ns>/<pod>"
 */
#ifndef GT_MESSAGES_H
#define GT_MESSAGES_H

#include <stddef.h>

#include "core/session.h"

/* Write why @pod was evicted in this session into @buf; "" if it was not. */
void gt_eviction_message(const struct gt_session *s, int32_t pod, char *buf, size_t len);

#endif /* GT_MESSAGES_H */
