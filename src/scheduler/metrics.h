/*
 * metrics.h - /metrics, /healthz and /readyz for the scheduler
 *
 * Prometheus text format (version 0.0.4), names after KAI's with the
 * --metrics-namespace prefix (default "kai"): the cycle's latency end to end
 * and per action, pods bound and evicted, queues' fair share, allocation and
 * deserved quota per resource, API requests by verb and outcome, watch
 * events and relists per resource, leadership (and, with --podgrouper, the
 * podgrouper's: pgctl.h). Served by util/httpd on its own thread; the
 * scheduler loop publishes each cycle's numbers under a lock and the
 * counters kept elsewhere are read as atomics.
 *
 * /healthz is 200 while the process serves; /readyz is 200 once every
 * reflector has listed its resource (a standby that is not the leader is
 * ready too: it would schedule at once on taking over).
 */
#ifndef GT_METRICS_H
#define GT_METRICS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/session.h"
#include "kube/cache.h"
#include "kube/http.h"
#include "kube/reflector.h"
#include "scheduler/writer.h"
#include "util/err.h"
#include "util/httpd.h"

struct gt_queue_metric {
	char *name;
	double fair[GT_NQRES], allocated[GT_NQRES], deserved[GT_NQRES];	/* GPUs, cores, GB */
};

typedef void (*gt_metrics_extra_fn)(void *arg, FILE *out);

struct gt_metrics {
	pthread_mutex_t mu;
	const char *prefix;
	/* the last cycle */
	double e2e_ms, snapshot_ms, open_ms, write_ms;
	double action_ms[GT_N_ACTIONS];
	unsigned long cycles, skipped_objects;
	struct gt_queue_metric *queues;
	size_t n_queues;
	/* counters owned elsewhere (may be NULL) */
	const struct gt_kube_stats *api;
	const struct gt_writer_stats *writer;
	const struct gt_reflector_stats *reflectors[GT_N_KRES];
	atomic_bool ready, leader;
	/*
	 * More series after the scheduler's (the in-process podgrouper's), or
	 * NULL; set @extra_arg first, then @extra, while serving.
	 */
	_Atomic(gt_metrics_extra_fn) extra;
	void *extra_arg;
	struct gt_httpd *server;
	int port;
};

void gt_metrics_init(struct gt_metrics *m, const char *prefix);
void gt_metrics_release(struct gt_metrics *m);
/* Publish the queues of a finished cycle (fair share, allocation, quota). */
void gt_metrics_set_queues(struct gt_metrics *m, const struct gt_session *s);
/* Everything, as Prometheus text. */
void gt_metrics_write(struct gt_metrics *m, FILE *out);
/* Serve on @addr ("host:port", ":port"; port 0 picks one, see m->port). */
int gt_metrics_serve(struct gt_metrics *m, const char *addr, struct gt_err *err);
void gt_metrics_stop(struct gt_metrics *m);

#endif /* GT_METRICS_H */
