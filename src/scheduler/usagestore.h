/*
 * usagestore.h - the queues' usage history kept in the cluster, across restarts
 *
 * Time-based fair share (core/usage.h) needs the queues' allocations over
 * the usage window, a week by default. KAI keeps them in Prometheus; Gantry
 * keeps them itself, and so that a restart, an upgrade or a new leader does
 * not forget a week of usage, the leader writes the history to a ConfigMap
 * in its namespace every fetchInterval (a minute by default) and when it
 * stops, and reads it back when it starts scheduling:
 *
 *	ConfigMap <namespace>/gantry-usage-<shard>, data["usage.json"]:
 *	{"version": 1, "bucketSeconds": W, "slots": N, "newest": B, "until": T,
 *	 "capacity": {"rate": [g, c, m], "buckets": [[b, g, c, m], ...]},
 *	 "queues": {"<queue>": {"rate": [g, c, m], "buckets": [[b, g, c, m], ...]}}}
 *
 * g, c, m: milli-GPU, milli-CPU and bytes (rates) and those times seconds
 * (buckets), only the buckets that are not zero. The scheduler needs get,
 * create and update on that one ConfigMap (deploy/rbac.yaml).
 */
#ifndef GT_USAGESTORE_H
#define GT_USAGESTORE_H

#include "core/usage.h"
#include "kube/http.h"

/* The ConfigMap's name for shard @shard into @buf. */
void gt_usage_store_name(const char *shard, char *buf, size_t len);
/* @h as the ConfigMap's data: a string to free. */
char *gt_usage_store_encode(const struct gt_usage_history *h);
/* Decode @text into @h (initialised here; release it). 0, or GT_EPARSE with @err. */
int gt_usage_store_decode(const char *text, struct gt_usage_history *h, struct gt_err *err);
/*
 * Read the history from the cluster into @h (initialised here, and fitted
 * to @p). 0 when it was there, GT_ENOTFOUND when not (an empty @h), GT_EIO
 * or GT_EPARSE with @err (an empty @h).
 */
int gt_usage_store_load(struct gt_kube_client *cl, const char *ns, const char *name,
			const struct gt_usage_params *p, int64_t now, struct gt_usage_history *h,
			struct gt_err *err);
/*
 * The largest usage.json written: a ConfigMap holds 1 MiB of data, and its
 * metadata and JSON framing need a little of it.
 */
#define GT_USAGE_STORE_MAX (1024u * 1024u - 8192u)
/*
 * Write @h to the cluster (update, or create the first time). 0, GT_EIO with
 * @err, or GT_EINVAL with @err when it is over GT_USAGE_STORE_MAX.
 */
int gt_usage_store_save(struct gt_kube_client *cl, const char *ns, const char *name,
			const struct gt_usage_history *h, struct gt_err *err);

#endif /* GT_USAGESTORE_H */
