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

#include "util/mem.h"
#include "util/num.h"

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

/* @addr into @sa; 0, or GT_EINVAL naming @flag. */
static int parse_addr(const char *flag, const char *addr, struct sockaddr_in *sa, struct gt_err *err)
{
	const char *colon = strrchr(addr, ':');
	if (!colon)
		return gt_errf(err, GT_EINVAL, "--%s: '%s' is not host:port", flag, addr);
	char host[64];
	size_t hl = (size_t)(colon - addr);
	if (hl >= sizeof(host))
		return gt_errf(err, GT_EINVAL, "--%s: host too long in '%s'", flag, addr);
	memcpy(host, addr, hl);
	host[hl] = '\0';
	int64_t port;
	if (gt_parse_int(colon + 1, &port) || port < 0 || port > 65535)
		return gt_errf(err, GT_EINVAL, "--%s: bad port in '%s'", flag, addr);
	*sa = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	if (!*host || !strcmp(host, "0.0.0.0"))
		sa->sin_addr.s_addr = htonl(INADDR_ANY);
	else if (inet_pton(AF_INET, !strcmp(host, "localhost") ? "127.0.0.1" : host, &sa->sin_addr) != 1)
		return gt_errf(err, GT_EINVAL, "--%s: '%s' is not an IPv4 address", flag, host);
	return 0;
}

struct gt_httpd *gt_httpd_start(const char *flag, const char *addr, gt_httpd_handler handler, void *arg,
				struct gt_err *err)
{
	struct sockaddr_in sa;
	if (parse_addr(flag, addr, &sa, err))
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
