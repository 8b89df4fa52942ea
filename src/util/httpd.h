/*
 * httpd.h - the one HTTP endpoint server: /metrics and the probes
 *
 * Every long-running command serves a few read-only endpoints for the
 * kubelet's probes and for Prometheus (the scheduler's /metrics, /healthz,
 * /readyz; the podgrouper's metrics and probe addresses, which KAI's
 * controller-runtime serves on two ports). This is libmicrohttpd on a
 * thread of its own behind one callback: the command writes the body for a
 * path and says its status; methods other than GET and HEAD get 405.
 *
 * Addresses are written as controller-runtime's flags take them: "host:port"
 * or ":port" (IPv4, "localhost" allowed); port 0 picks a free one (tests);
 * "0" or "" means do not serve (gt_httpd_disabled()).
 */
#ifndef GT_HTTPD_H
#define GT_HTTPD_H

#include <stdbool.h>
#include <stdio.h>

#include "util/err.h"

/*
 * The answer to GET @path: write the body to @body, set *@ctype when it is
 * not "text/plain", return the HTTP status. Runs on the server's thread,
 * for one request at a time.
 */
typedef unsigned (*gt_httpd_handler)(void *arg, const char *path, FILE *body, const char **ctype);

struct gt_httpd;

/* Is @addr the "do not serve" value ("0" or empty)? */
bool gt_httpd_disabled(const char *addr);
/*
 * Serve @handler on @addr until gt_httpd_stop(). NULL with a message
 * naming @flag (the flag that gave the address) when @addr is malformed or
 * cannot be had.
 */
struct gt_httpd *gt_httpd_start(const char *flag, const char *addr, gt_httpd_handler handler, void *arg,
				struct gt_err *err);
/* The port served (the one picked for port 0). */
int gt_httpd_port(const struct gt_httpd *s);
/* Stop serving (requests in flight finish first) and free; NULL is fine. */
void gt_httpd_stop(struct gt_httpd *s);

#endif /* GT_HTTPD_H */
