#include "scheduler/snapserve.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/kaisnap.h"
#include "snapshot/zipio.h"
#include "util/log.h"
#include "util/mem.h"

struct gt_snapserve {
	struct MHD_Daemon *daemon;
	int port;
	struct gt_cache *cache;
	struct gt_snapserve_opts o;
	char *scheduler_name, *pool_key;
	pthread_mutex_t mu;	/* guards what the last cycle set */
	struct gt_config cfg;
	char *pool_value;
};

/* KAI's lists the cache holds. */
static const struct {
	enum gt_kres res;
	enum gt_kaisnap_list list;
} cached[] = {
	{ GT_KRES_PODS, GT_KAISNAP_PODS }, { GT_KRES_NODES, GT_KAISNAP_NODES },
	{ GT_KRES_QUEUES, GT_KAISNAP_QUEUES }, { GT_KRES_PODGROUPS, GT_KAISNAP_PODGROUPS },
	{ GT_KRES_BINDREQUESTS, GT_KAISNAP_BINDREQUESTS },
	{ GT_KRES_PRIORITYCLASSES, GT_KAISNAP_PRIORITYCLASSES }, { GT_KRES_TOPOLOGIES, GT_KAISNAP_TOPOLOGIES },
	{ GT_KRES_CONFIGMAPS, GT_KAISNAP_CONFIGMAPS }, { GT_KRES_NRTS, GT_KAISNAP_NRTS },
	{ GT_KRES_PVS, GT_KAISNAP_PVS }, { GT_KRES_PVCS, GT_KAISNAP_PVCS },
	{ GT_KRES_CSICAPACITIES, GT_KAISNAP_CSICAPS }, { GT_KRES_STORAGECLASSES, GT_KAISNAP_STORAGECLASSES },
	{ GT_KRES_CSIDRIVERS, GT_KAISNAP_CSIDRIVERS },
	{ GT_KRES_RESOURCECLAIMS, GT_KAISNAP_RESOURCECLAIMS }, { GT_KRES_RESOURCESLICES, GT_KAISNAP_RESOURCESLICES },
	{ GT_KRES_DEVICECLASSES, GT_KAISNAP_DEVICECLASSES },
};
#define N_CACHED (sizeof(cached) / sizeof(cached[0]))

/* The API server's gitVersion ("v1.37.2"), or NULL when it cannot be had (said). Free it. */
static char *server_version(struct gt_kube_client *cl)
{
	if (!cl)
		return NULL;
	struct gt_kube_resp r;
	char *v = NULL;
	if (!gt_kube_request(cl, GT_VERB_GET, "GET", "/version", NULL, NULL, &r) && r.status == 200) {
		json_t *o = json_loads(r.body, 0, NULL);
		const char *g = json_string_value(json_object_get(o, "gitVersion"));
		v = g ? gt_xstrdup(g) : NULL;
		json_decref(o);
	}
	if (!v)
		gt_log(GT_LOG_WARN, "snapshot", "GET /version: %s; the snapshot has no discovery",
		       r.status == 200 ? "no gitVersion" : gt_kube_why(&r));
	gt_kube_resp_release(&r);
	return v;
}

/* snapshot.json from the cache as it is now, zipped. 0 or an error. */
static int snapshot_zip(struct gt_snapserve *s, char **zip, size_t *zip_len, struct gt_err *err)
{
	struct gt_kobj **objs[N_CACHED];
	size_t n_objs[N_CACHED];
	const struct gt_doc **lists[GT_KAISNAP_N_LISTS] = { 0 };
	size_t n[GT_KAISNAP_N_LISTS] = { 0 };
	for (size_t i = 0; i < N_CACHED; i++) {
		objs[i] = gt_cache_list(s->cache, cached[i].res, &n_objs[i]);
		lists[cached[i].list] = gt_xcalloc(n_objs[i] + 1, sizeof(**lists));
		for (size_t k = 0; k < n_objs[i]; k++)
			lists[cached[i].list][k] = objs[i][k]->doc;
		n[cached[i].list] = n_objs[i];
	}
	struct gt_kaisnap_meta m = { .actions = s->o.actions, .scheduler_name = s->scheduler_name,
				     .pool_key = s->pool_key, .schedule_period_s = s->o.schedule_period_s };
	pthread_mutex_lock(&s->mu);
	struct gt_config cfg = s->cfg;
	char *pool = s->pool_value ? gt_xstrdup(s->pool_value) : NULL;
	pthread_mutex_unlock(&s->mu);
	m.config = &cfg;
	m.pool_value = pool;
	char *version = server_version(s->o.cl);
	m.server_version = version;
	char *json;
	size_t json_len;
	gt_kai_snapshot_write(&m, (const struct gt_doc *const *const *)lists, n, &json, &json_len);
	int rc = gt_zip_write(GT_KAISNAP_MEMBER, json, json_len, zip, zip_len, err);
	free(json);
	free(pool);
	free(version);
	for (size_t i = 0; i < N_CACHED; i++) {
		for (size_t k = 0; k < n_objs[i]; k++)
			gt_kobj_unref(objs[i][k]);
		free(objs[i]);
		free(lists[cached[i].list]);
	}
	return rc;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, char *body, size_t len,
			     const char *ctype)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(r, "Content-Type", ctype);
	if (status == 200)
		MHD_add_response_header(r, "Content-Disposition", "attachment; filename=snapshot.zip");
	enum MHD_Result rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **req_cls)
{
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)req_cls;
	struct gt_snapserve *s = cls;
	if (strcmp(url, "/get-snapshot"))
		return reply(conn, 404, gt_xstrdup("404 page not found\n"), 19, "text/plain; charset=utf-8");
	if (strcmp(method, "GET"))
		return reply(conn, 405, gt_xstrdup("method not allowed\n"), 19, "text/plain");
	/*
	 * Before every list is synced the cache holds part of the cluster (pods
	 * but no nodes yet, say): a snapshot of it would be wrong, not small.
	 * KAI's plugin serves only from a session, after its caches synced.
	 */
	if (!gt_cache_all_synced(s->cache, GT_KRES_ALL)) {
		static const char msg[] = "the scheduler's caches are not synced yet; try again\n";
		return reply(conn, 503, gt_xstrdup(msg), sizeof(msg) - 1, "text/plain; charset=utf-8");
	}
	char *zip;
	size_t len;
	struct gt_err err = { 0 };
	if (snapshot_zip(s, &zip, &len, &err)) {
		gt_log(GT_LOG_ERROR, "snapshot", "cannot make a snapshot: %s", err.msg);
		return reply(conn, 500, gt_xstrdup("cannot make a snapshot\n"), 23, "text/plain");
	}
	gt_log(GT_LOG_INFO, "snapshot", "served a snapshot of %zu bytes", len);
	return reply(conn, 200, zip, len, "application/zip");
}

struct gt_snapserve *gt_snapserve_start(struct gt_cache *cache, const struct gt_snapserve_opts *o,
					struct gt_err *err)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)o->port) };
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);	/* as KAI: 127.0.0.1 only */
	struct gt_snapserve *s = gt_xcalloc(1, sizeof(*s));
	s->cache = cache;
	s->o = *o;
	s->scheduler_name = gt_xstrdup(o->scheduler_name);
	s->pool_key = o->pool_key ? gt_xstrdup(o->pool_key) : NULL;
	gt_config_defaults(&s->cfg);
	pthread_mutex_init(&s->mu, NULL);
	s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, (uint16_t)o->port, NULL,
				     NULL, on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				     MHD_OPTION_CONNECTION_LIMIT, 4U, MHD_OPTION_CONNECTION_TIMEOUT, 60U,
				     MHD_OPTION_END);
	if (!s->daemon) {
		gt_errf(err, GT_EIO, "--plugin-server-port: cannot listen on 127.0.0.1:%d", o->port);
		gt_snapserve_stop(s);
		return NULL;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? info->port : o->port;
	return s;
}

int gt_snapserve_port(const struct gt_snapserve *s)
{
	return s->port;
}

void gt_snapserve_set(struct gt_snapserve *s, const struct gt_config *cfg, const char *pool_value)
{
	pthread_mutex_lock(&s->mu);
	s->cfg = *cfg;
	free(s->pool_value);
	s->pool_value = pool_value ? gt_xstrdup(pool_value) : NULL;
	pthread_mutex_unlock(&s->mu);
}

void gt_snapserve_stop(struct gt_snapserve *s)
{
	if (!s)
		return;
	if (s->daemon)
		MHD_stop_daemon(s->daemon);
	pthread_mutex_destroy(&s->mu);
	free(s->scheduler_name);
	free(s->pool_key);
	free(s->pool_value);
	free(s);
}
