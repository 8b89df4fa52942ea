/*
 * httpd.c - the endpoint server on libmicrohttpd
 */
#include "util/httpd.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "util/addr.h"
#include "util/mem.h"

struct gt_httpd {
	struct MHD_Daemon *daemon;
	gt_httpd_handler handler;
	void *arg;
	int port;
};

bool gt_httpd_disabled(const char *addr)
{
	return !addr || !*addr || !strcmp(addr, "0");
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, char *body, size_t len,
			     const char *ctype)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(r, "Content-Type", ctype);
	enum MHD_Result rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req_cls)
{
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)req_cls;
	struct gt_httpd *s = cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(conn, 405, gt_xstrdup("method not allowed\n"), 19, "text/plain");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return MHD_NO;
	const char *ctype = "text/plain";
	unsigned status = s->handler(s->arg, url, f, &ctype);
	fclose(f);
	return reply(conn, status, buf, len, ctype);
}

struct gt_httpd *gt_httpd_start(const char *flag, const char *addr, gt_httpd_handler handler, void *arg,
				struct gt_err *err)
{
	struct sockaddr_in sa;
	if (gt_parse_bind_address(flag, addr, &sa, err))
		return NULL;
	struct gt_httpd *s = gt_xcalloc(1, sizeof(*s));
	s->handler = handler;
	s->arg = arg;
	s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
				     ntohs(sa.sin_port), NULL, NULL, on_request, s,
				     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				     MHD_OPTION_CONNECTION_LIMIT, 64U,
				     MHD_OPTION_CONNECTION_TIMEOUT, 10U, MHD_OPTION_END);
	if (!s->daemon) {
		free(s);
		gt_errf(err, GT_EIO, "--%s: cannot listen on %s", flag, addr);
		return NULL;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? info->port : ntohs(sa.sin_port);
	return s;
}

int gt_httpd_port(const struct gt_httpd *s)
{
	return s->port;
}

void gt_httpd_stop(struct gt_httpd *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->daemon);
	free(s);
}
