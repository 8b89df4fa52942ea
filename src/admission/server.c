/*
 * server.c - HTTPS for the webhooks (see server.h)
 */
#include "admission/server.h"

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/addr.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"

#define RETIRED_KEEP_S 600	/* a replaced certificate outlives any handshake that picked it */

/* A certificate chain and key as GnuTLS serves them. */
struct creds {
	gnutls_pcert_st *chain;
	unsigned n;
	gnutls_privkey_t key;
	double retired_at;	/* gt_mono_s() when replaced; 0 while in use */
	struct creds *next;	/* the retired ones, newest first */
};

struct gt_webhook_server {
	struct MHD_Daemon *daemon;
	const struct gt_admission_rules *rules;
	int port;
};

/* The certificate in use and the retired ones: the module's, for GnuTLS's argument-less callback. */
static pthread_mutex_t creds_mu = PTHREAD_MUTEX_INITIALIZER;
static struct creds *current, *retired;
static atomic_bool running;

static void creds_free(struct creds *c)
{
	for (unsigned i = 0; i < c->n; i++)
		gnutls_pcert_deinit(&c->chain[i]);
	gnutls_free(c->chain);
	if (c->key)
		gnutls_privkey_deinit(c->key);
	free(c);
}

static struct creds *creds_load(const char *cert_pem, const char *key_pem, struct gt_err *err)
{
	struct creds *c = gt_xcalloc(1, sizeof(*c));
	gnutls_datum_t cd = { (unsigned char *)cert_pem, (unsigned)strlen(cert_pem) };
	gnutls_datum_t kd = { (unsigned char *)key_pem, (unsigned)strlen(key_pem) };
	gnutls_x509_crt_t *crts = NULL;
	unsigned n = 0;
	if (gnutls_x509_crt_list_import2(&crts, &n, &cd, GNUTLS_X509_FMT_PEM, 0) >= 0 && n &&
	    (c->chain = gnutls_calloc(n, sizeof(*c->chain))) &&
	    gnutls_pcert_import_x509_list(c->chain, crts, &n, 0) >= 0)
		c->n = n;
	for (unsigned i = 0; i < n; i++)
		gnutls_x509_crt_deinit(crts[i]);
	gnutls_free(crts);
	if (c->n && gnutls_privkey_init(&c->key) >= 0 &&
	    gnutls_privkey_import_x509_raw(c->key, &kd, GNUTLS_X509_FMT_PEM, NULL, 0) >= 0)
		return c;
	creds_free(c);
	gt_errf(err, GT_EPARSE, "the serving certificate or key does not parse (GnuTLS)");
	return NULL;
}

/* GnuTLS asks, per handshake, what to present. */
static int pick_cert(gnutls_session_t session, const gnutls_datum_t *req_ca, int n_req,
		     const gnutls_pk_algorithm_t *algos, int n_algos, gnutls_pcert_st **chain, unsigned *n,
		     gnutls_privkey_t *key)
{
	(void)session;
	(void)req_ca;
	(void)n_req;
	(void)algos;
	(void)n_algos;
	pthread_mutex_lock(&creds_mu);
	struct creds *c = current;
	if (c) {
		*chain = c->chain;
		*n = c->n;
		*key = c->key;
	}
	pthread_mutex_unlock(&creds_mu);
	if (!c)
		*n = 0;
	return c ? 0 : -1;
}

int gt_webhook_server_set_cert(struct gt_webhook_server *s, const char *cert_pem, const char *key_pem,
			       struct gt_err *err)
{
	(void)s;
	struct creds *c = creds_load(cert_pem, key_pem, err);
	if (!c)
		return GT_EPARSE;
	double now = gt_mono_s();
	struct creds *stale = NULL;
	pthread_mutex_lock(&creds_mu);
	if (current) {
		current->retired_at = now;
		current->next = retired;
		retired = current;
	}
	current = c;
	/* the retired list is newest first: cut it where they are old enough */
	for (struct creds **p = &retired; *p; p = &(*p)->next)
		if (now - (*p)->retired_at > RETIRED_KEEP_S) {
			stale = *p;
			*p = NULL;
			break;
		}
	pthread_mutex_unlock(&creds_mu);
	while (stale) {
		struct creds *next = stale->next;
		creds_free(stale);
		stale = next;
	}
	return 0;
}

/* --- requests ---------------------------------------------------------------------------- */

struct upload {
	char *buf;
	size_t len, cap;
	bool too_big;
};

static enum MHD_Result send_reply(struct MHD_Connection *conn, int status, const char *ctype, char *body,
				  size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(r, "Content-Type", ctype);
	enum MHD_Result rc = MHD_queue_response(conn, (unsigned)status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result plain(struct MHD_Connection *conn, int status, const char *text)
{
	return send_reply(conn, status, "text/plain; charset=utf-8", gt_xstrdup(text), strlen(text));
}

/* Gather the body; false while more is coming. */
static bool gather(struct upload *u, const char *data, size_t *size)
{
	if (!*size)
		return true;
	if (u->too_big || u->len + *size > GT_ADMISSION_MAX_BODY) {
		u->too_big = true;	/* read and dropped: the answer is a 413 */
	} else {
		GT_GROW(u->buf, u->len + *size + 1, u->cap);
		memcpy(u->buf + u->len, data, *size);
		u->len += *size;
	}
	*size = 0;
	return false;
}

static enum MHD_Result review(struct gt_webhook_server *s, struct MHD_Connection *conn, const char *method,
			      const char *url, struct upload *u)
{
	const char *ctype = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
	struct gt_admission_reply r;
	/* an oversized body is answered as if it were one byte too long: the decision says 413 */
	gt_admission_handle(s->rules, method, url, ctype, u->too_big ? "" : u->buf ? u->buf : "",
			    u->too_big ? GT_ADMISSION_MAX_BODY + 1 : u->len, &r);
	bool refused = strncmp(r.summary, "allowed", 7);
	gt_log(refused ? GT_LOG_INFO : GT_LOG_DEBUG, "admission", "%s %s: %s", method, url, r.summary);
	enum MHD_Result rc = send_reply(conn, r.http_status, r.content_type, r.body, r.len);
	r.body = NULL;	/* MHD frees it */
	gt_admission_reply_release(&r);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				  const char *version, const char *data, size_t *size, void **req_cls)
{
	(void)version;
	struct gt_webhook_server *s = cls;
	if (!*req_cls) {
		*req_cls = gt_xcalloc(1, sizeof(struct upload));
		return MHD_YES;
	}
	if (!gather(*req_cls, data, size))
		return MHD_YES;
	if (!strcmp(method, "GET") && !strcmp(url, "/healthz"))
		return plain(conn, 200, "ok\n");
	if (!strcmp(method, "GET") && !strcmp(url, "/readyz")) {
		pthread_mutex_lock(&creds_mu);
		bool ready = current != NULL;
		pthread_mutex_unlock(&creds_mu);
		return plain(conn, ready ? 200 : 503, ready ? "ok\n" : "no serving certificate yet\n");
	}
	return review(s, conn, method, url, *req_cls);
}

static void on_done(void *cls, struct MHD_Connection *conn, void **req_cls, enum MHD_RequestTerminationCode code)
{
	(void)cls;
	(void)conn;
	(void)code;
	struct upload *u = *req_cls;
	if (u) {
		free(u->buf);
		free(u);
	}
	*req_cls = NULL;
}

/* libmicrohttpd's own complaints (a client that hangs up mid-handshake, ...): debug lines. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	if (!gt_log_enabled(GT_LOG_DEBUG))
		return;
	char buf[512];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	gt_log(GT_LOG_DEBUG, "admission", "https: %s", buf);
}

struct gt_webhook_server *gt_webhook_server_start(const char *addr, const struct gt_admission_rules *rules,
						  struct gt_err *err)
{
	struct sockaddr_in sa;
	if (gt_parse_bind_address("webhook-bind-address", addr, &sa, err))
		return NULL;
	if (atomic_exchange(&running, true)) {
		gt_errf(err, GT_EINVAL, "one webhook server per process");
		return NULL;
	}
	struct gt_webhook_server *s = gt_xcalloc(1, sizeof(*s));
	s->rules = rules;
	s->daemon = MHD_start_daemon(MHD_USE_TLS | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
				     ntohs(sa.sin_port), NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR,
				     (struct sockaddr *)&sa, MHD_OPTION_HTTPS_CERT_CALLBACK, pick_cert,
				     MHD_OPTION_THREAD_POOL_SIZE, 2U, MHD_OPTION_CONNECTION_LIMIT, 256U,
				     MHD_OPTION_CONNECTION_TIMEOUT, 30U, MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL,
				     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_END);
	if (!s->daemon) {
		free(s);
		atomic_store(&running, false);
		gt_errf(err, GT_EIO, "--webhook-bind-address: cannot listen on %s with TLS", addr);
		return NULL;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? info->port : ntohs(sa.sin_port);
	return s;
}

int gt_webhook_server_port(const struct gt_webhook_server *s)
{
	return s->port;
}

void gt_webhook_server_stop(struct gt_webhook_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->daemon);
	pthread_mutex_lock(&creds_mu);
	struct creds *all = current;
	if (all)
		all->next = retired;
	else
		all = retired;
	current = retired = NULL;
	pthread_mutex_unlock(&creds_mu);
	while (all) {
		struct creds *next = all->next;
		creds_free(all);
		all = next;
	}
	free(s);
	atomic_store(&running, false);
}
