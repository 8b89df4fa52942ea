/*
 * http.h - the API-server client: libcurl, TLS, auth, QPS limits
 *
 * One client per process, shared by every thread. Requests borrow an easy
 * handle from a pool (each keeps its connections and TLS sessions alive
 * between requests) and return it; watch streams own a handle for their
 * life. TLS is verified unless the kubeconfig says
 * insecure-skip-tls-verify; HTTP/2 is used where the server offers it (ALPN).
 *
 * Every buffer is capped: a response body at GT_KUBE_MAX_BODY, a watch line
 * at GT_KUBE_MAX_LINE; past the cap the request fails rather than grow.
 * Plain requests pass a token bucket (--qps, --burst) as client-go's do;
 * watch streams do not, they are long-lived.
 *
 * gt_kube_client_stop() makes every request and stream in flight return
 * within about a second (libcurl's progress callback), for shutdown.
 */
#ifndef GT_KUBE_HTTP_H
#define GT_KUBE_HTTP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kube/config.h"
#include "util/err.h"

#define GT_KUBE_MAX_BODY (64u << 20)
#define GT_KUBE_MAX_LINE (16u << 20)

enum gt_kube_verb { GT_VERB_GET, GT_VERB_LIST, GT_VERB_WATCH, GT_VERB_POST, GT_VERB_PUT,
		    GT_VERB_PATCH, GT_VERB_DELETE, GT_N_VERBS };
/* Outcome classes for the request counters: 2xx, 3xx, 4xx, 5xx, no response. */
enum gt_kube_class { GT_CODE_2XX, GT_CODE_3XX, GT_CODE_4XX, GT_CODE_5XX, GT_CODE_NONE, GT_N_CLASSES };

struct gt_kube_stats {
	atomic_ulong requests[GT_N_VERBS][GT_N_CLASSES];
};

struct gt_kube_client;

struct gt_kube_resp {
	long status;		/* HTTP status; 0 when no response arrived */
	char *body;		/* NUL-terminated */
	size_t len;
	char error[256];	/* transport error, when status is 0 */
};

/* Takes ownership of @cfg (it is emptied). @qps <= 0: no limit. */
struct gt_kube_client *gt_kube_client_new(struct gt_kube_config *cfg, double qps, int burst,
					  long timeout_ms);
void gt_kube_client_free(struct gt_kube_client *c);
const struct gt_kube_config *gt_kube_client_config(const struct gt_kube_client *c);
const struct gt_kube_stats *gt_kube_client_stats(const struct gt_kube_client *c);
void gt_kube_client_stop(struct gt_kube_client *c);
bool gt_kube_client_stopping(const struct gt_kube_client *c);
/* Wait @s seconds or until gt_kube_client_stop(), whichever comes first; false once stopping. */
bool gt_kube_client_nap(struct gt_kube_client *c, double s);

/*
 * @method on @path (from "/api" or "/apis"), with an optional @body of
 * @ctype. Returns 0 when a response arrived (whatever its status), GT_EIO
 * when none did (resp->error says why). Release @r either way.
 */
int gt_kube_request(struct gt_kube_client *c, enum gt_kube_verb verb, const char *method,
		    const char *path, const char *ctype, const char *body, struct gt_kube_resp *r);
void gt_kube_resp_release(struct gt_kube_resp *r);

/*
 * gt_kube_request() retried twice with backoff (0.1 s, 0.4 s) when no
 * response arrived or the server answered 5xx: for writes that are
 * idempotent (merge patches, creates that meet 409, binds checked after a
 * 409). Release @r either way.
 */
void gt_kube_call(struct gt_kube_client *c, enum gt_kube_verb verb, const char *method, const char *path,
		  const char *ctype, const char *body, struct gt_kube_resp *r);
/*
 * Why @r failed, for a log line: the transport error, or "HTTP <code>: " and
 * the Status message the server sent. Valid until the calling thread's next
 * call.
 */
const char *gt_kube_why(const struct gt_kube_resp *r);

/*
 * A streaming GET (watch): @on_line gets each complete line (without the
 * newline); a nonzero return ends the stream. Returns 0 when the stream
 * ended (server closed it, the callback stopped it, or a stop), GT_EIO on a
 * transport error; r->status is the HTTP status and, when it is not 200,
 * r->body holds the (capped) error body.
 */
typedef int (*gt_kube_line_fn)(void *arg, const char *line, size_t len);
int gt_kube_stream(struct gt_kube_client *c, const char *path, long timeout_s, gt_kube_line_fn on_line,
		   void *arg, struct gt_kube_resp *r);

/*
 * The counters as Prometheus series @name{verb, code} (code: the class,
 * "2xx" ... "error"), with their HELP and TYPE; series still at 0 are left out.
 */
void gt_kube_stats_print(const struct gt_kube_stats *s, const char *name, FILE *f);

/* Percent-encode @s for a query parameter into @out (capped at @cap). */
void gt_kube_urlencode(const char *s, char *out, size_t cap);

#endif /* GT_KUBE_HTTP_H */
