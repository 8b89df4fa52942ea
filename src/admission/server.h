/*
 * server.h - the webhooks over HTTPS (libmicrohttpd with GnuTLS)
 *
 * POST <webhook path> goes to gt_admission_handle() (webhooks.h), whose
 * answer is sent as is; GET /healthz is 200 while the process serves, GET
 * /readyz 200 once a certificate is served. Bodies are read up to
 * GT_ADMISSION_MAX_BODY; past it the rest is discarded and the answer is
 * 413.
 *
 * The certificate is picked per TLS handshake (GnuTLS's retrieve
 * callback), so gt_webhook_server_set_cert() changes it for the next
 * connection without a restart or a dropped request; connections already
 * up keep theirs. A replaced certificate is kept (not freed) for ten
 * minutes, far past any handshake that could still be using it.
 *
 * One server per process: GnuTLS's callback carries no argument of ours,
 * so the certificate in use is the module's.
 */
#ifndef GT_ADMISSION_SERVER_H
#define GT_ADMISSION_SERVER_H

#include "admission/webhooks.h"
#include "util/err.h"

struct gt_webhook_server;

/*
 * Listen on @addr ("host:port", ":port"; port 0 picks one) for @rules
 * (borrowed: it outlives the server). Handshakes fail until a certificate is
 * set. NULL with the reason in @err (a second server, a port in use).
 */
struct gt_webhook_server *gt_webhook_server_start(const char *addr, const struct gt_admission_rules *rules,
						  struct gt_err *err);
/* The port listened on. */
int gt_webhook_server_port(const struct gt_webhook_server *s);
/* Serve @cert_pem (the chain) with @key_pem from the next handshake on. 0, or an error in @err. */
int gt_webhook_server_set_cert(struct gt_webhook_server *s, const char *cert_pem, const char *key_pem,
			       struct gt_err *err);
void gt_webhook_server_stop(struct gt_webhook_server *s);

#endif /* GT_ADMISSION_SERVER_H */
