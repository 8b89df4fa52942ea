/*
 * serve.c - `gantry fairshare --serve ADDR`: KAI's fairshare-simulator service
 *
 * POST /simulate with the request JSON answers 200 and the response JSON
 * (application/json), 400 and the reason on a bad request, 405 on another
 * method; with --enable-cors, OPTIONS answers 200 and every answer carries
 * KAI's CORS headers. Bodies are capped at 8 MiB.
 */
#include "fairshare/serve.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "fairshare/fairshare.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/num.h"
#include "util/stop.h"

#define MAX_BODY (8u << 20)

struct upload {
	char *buf;
	size_t len;
	bool too_big;
};

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, char *body, const char *ctype,
			     bool cors)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(r, "Content-Type", ctype);
	if (cors) {
		MHD_add_response_header(r, "Access-Control-Allow-Origin", "*");
		MHD_add_response_header(r, "Access-Control-Allow-Methods", "POST, OPTIONS");
		MHD_add_response_header(r, "Access-Control-Allow-Headers", "Content-Type");
	}
	enum MHD_Result rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result answer(struct MHD_Connection *conn, struct upload *u, bool cors)
{
	if (u->too_big)
		return reply(conn, 413, gt_xstrdup("request body over 8 MiB\n"), "text/plain", cors);
	char *out = NULL;
	struct gt_err err = { 0 };
	if (gt_fairshare_answer(u->buf ? u->buf : "", u->len, &out, NULL, "", &err)) {
		char *msg = gt_xmalloc(strlen(err.msg) + 2);
		sprintf(msg, "%s\n", err.msg);
		return reply(conn, 400, msg, "text/plain; charset=utf-8", cors);
	}
	return reply(conn, 200, out, "application/json", cors);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				  const char *version, const char *data, size_t *data_size, void **req_cls)
{
	(void)version;
	bool cors = *(const bool *)cls;
	if (!*req_cls) {	/* the headers: the body, if any, comes in the next calls */
		*req_cls = gt_xcalloc(1, sizeof(struct upload));
		return MHD_YES;
	}
	struct upload *u = *req_cls;
	if (*data_size) {
		if (u->len + *data_size > MAX_BODY) {
			u->too_big = true;
		} else {
			u->buf = gt_xrealloc(u->buf, u->len + *data_size + 1);
			memcpy(u->buf + u->len, data, *data_size);
			u->len += *data_size;
			u->buf[u->len] = '\0';
		}
		*data_size = 0;
		return MHD_YES;
	}
	if (strcmp(url, "/simulate"))
		return reply(conn, 404, gt_xstrdup("404 page not found\n"), "text/plain; charset=utf-8", cors);
	if (cors && !strcmp(method, "OPTIONS"))
		return reply(conn, 200, gt_xstrdup(""), "text/plain", cors);
	if (strcmp(method, "POST"))
		return reply(conn, 405, gt_xstrdup("Only POST allowed\n"), "text/plain; charset=utf-8", cors);
	return answer(conn, u, cors);
}

static void on_done(void *cls, struct MHD_Connection *conn, void **req_cls, enum MHD_RequestTerminationCode why)
{
	(void)cls;
	(void)conn;
	(void)why;
	struct upload *u = *req_cls;
	if (u)
		free(u->buf);
	free(u);
	*req_cls = NULL;
}

int gt_fairshare_serve(const char *addr, bool cors, FILE *diag)
{
	const char *colon = strrchr(addr, ':');
	char host[64] = "";
	int64_t port;
	if (!colon || (size_t)(colon - addr) >= sizeof(host) || gt_parse_int(colon + 1, &port) || port < 0 ||
	    port > 65535) {
		fprintf(diag, "gantry fairshare: --serve: '%s' is not HOST:PORT (:8080 for every address)\n", addr);
		return 2;
	}
	memcpy(host, addr, (size_t)(colon - addr));
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	if (!*host || !strcmp(host, "0.0.0.0"))
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
	else if (inet_pton(AF_INET, !strcmp(host, "localhost") ? "127.0.0.1" : host, &sa.sin_addr) != 1) {
		fprintf(diag, "gantry fairshare: --serve: '%s' is not an IPv4 address\n", host);
		return 2;
	}
	gt_stop_start();
	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
						(uint16_t)port, NULL, NULL, on_request, &cors,
						MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
						MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL,
						MHD_OPTION_CONNECTION_LIMIT, 64U,
						MHD_OPTION_CONNECTION_TIMEOUT, 10U, MHD_OPTION_END);
	if (!d) {
		fprintf(diag, "gantry fairshare: --serve: cannot listen on %s\n", addr);
		gt_stop_end();
		return 1;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	gt_log(GT_LOG_INFO, "fairshare", "serving POST /simulate on %s:%d (CORS %s)", *host ? host : "",
	       info ? info->port : (int)port, cors ? "on" : "off");
	while (!gt_stop_requested())
		gt_stop_sleep_until(gt_mono_ms() + 3600e3);
	MHD_stop_daemon(d);
	gt_stop_end();
	return 0;
}
