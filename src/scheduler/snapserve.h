/*
 * snapserve.h - GET /get-snapshot: KAI's snapshot of the scheduler's cache
 *
 * KAI's snapshot plugin serves the scheduler's view of the cluster on
 * 127.0.0.1:<--plugin-server-port> (8081) as a ZIP holding snapshot.json,
 * which its snapshot-tool replays; runbooks get it with
 *	kubectl port-forward -n kai-scheduler deployment/<scheduler> 8081 &
 *	curl -sSf localhost:8081/get-snapshot -o snapshot.zip
 * This serves the same, in the same layout (snapshot/kaisnap.h), from
 * Gantry's cache: every cached pod, node, queue, PodGroup, BindRequest,
 * PriorityClass, Topology, ConfigMap and storage object (claims, volumes,
 * classes, CSI drivers and capacities), and the configuration the last
 * cycle ran with. The lists Gantry does not cache (DRA, NUMA) are null. It is off unless --snapshot-endpoint is given: the snapshot
 * holds every pod spec of the cluster (environment variables included),
 * so it listens on loopback only, where a port-forward or an exec into the
 * scheduler's pod reaches it, as KAI's does.
 */
#ifndef GT_SNAPSERVE_H
#define GT_SNAPSERVE_H

#include "core/cluster.h"
#include "kube/cache.h"
#include "kube/http.h"
#include "util/err.h"

struct gt_snapserve;

struct gt_snapserve_opts {
	int port;
	struct gt_kube_client *cl;	/* asked the server's version (discovery); NULL: none written */
	const char *scheduler_name;
	const char *pool_key;		/* NULL: kai.scheduler/node-pool */
	unsigned actions;
	double schedule_period_s;
};

/* Listen on 127.0.0.1:@o->port (0: any free port). NULL with @err when it cannot. */
struct gt_snapserve *gt_snapserve_start(struct gt_cache *cache, const struct gt_snapserve_opts *o,
					struct gt_err *err);
/* The port it listens on. */
int gt_snapserve_port(const struct gt_snapserve *s);
/* What the last cycle ran with: its configuration and partition (NULL: the whole cluster). */
void gt_snapserve_set(struct gt_snapserve *s, const struct gt_config *cfg, const char *pool_value);
void gt_snapserve_stop(struct gt_snapserve *s);

#endif /* GT_SNAPSERVE_H */
