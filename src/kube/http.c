#include "kube/http.h"

#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"
#include "util/histogram.h"
#include "util/log.h"
#include "util/mem.h"

#define TOKEN_REREAD_S 60
#define CALL_ATTEMPTS 3
#define STREAM_ERROR_BODY_CAP (64u << 10)

struct gt_kube_client {
	struct gt_kube_config cfg;
	long timeout_ms;
	pthread_mutex_t mu;	/* pool, token, limiter */
	CURL **pool;
	size_t n_pool, cap_pool;
	char *token;
	time_t token_read;
	double qps, tokens;
	int burst;
	double last_refill;	/* gt_mono_s() */
	atomic_bool stopping;
	pthread_mutex_t nap_mu;	/* for gt_kube_client_nap() */
	pthread_cond_t quit;	/* broadcast by gt_kube_client_stop() */
	struct gt_kube_stats stats;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init_once(void)
{
	/* before any thread makes a handle: libcurl's global init is not thread-safe */
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

struct gt_kube_client *gt_kube_client_new(struct gt_kube_config *cfg, double qps, int burst,
					  long timeout_ms)
{
	pthread_once(&curl_once, curl_init_once);
	struct gt_kube_client *c = gt_xcalloc(1, sizeof(*c));
	c->cfg = *cfg;
	memset(cfg, 0, sizeof(*cfg));
	c->timeout_ms = timeout_ms > 0 ? timeout_ms : 30000;
	pthread_mutex_init(&c->mu, NULL);
	pthread_mutex_init(&c->nap_mu, NULL);
	gt_cond_init_mono(&c->quit);
	c->qps = qps;
	c->burst = burst > 0 ? burst : 1;
	c->tokens = c->burst;
	c->last_refill = gt_mono_s();
	if (c->cfg.token)
		c->token = gt_xstrdup(c->cfg.token);
	return c;
}

void gt_kube_client_free(struct gt_kube_client *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_pool; i++)
		curl_easy_cleanup(c->pool[i]);
	free(c->pool);
	free(c->token);
	gt_kube_config_release(&c->cfg);
	pthread_mutex_destroy(&c->mu);
	pthread_mutex_destroy(&c->nap_mu);
	pthread_cond_destroy(&c->quit);
	free(c);
}

const struct gt_kube_config *gt_kube_client_config(const struct gt_kube_client *c)
{
	return &c->cfg;
}

const struct gt_kube_stats *gt_kube_client_stats(const struct gt_kube_client *c)
{
	return &c->stats;
}

void gt_kube_client_stop(struct gt_kube_client *c)
{
	pthread_mutex_lock(&c->nap_mu);
	atomic_store(&c->stopping, true);
	pthread_cond_broadcast(&c->quit);
	pthread_mutex_unlock(&c->nap_mu);
}

bool gt_kube_client_nap(struct gt_kube_client *c, double s)
{
	if (s > 0) {
		double until = gt_mono_s() + s;
		pthread_mutex_lock(&c->nap_mu);
		while (!atomic_load(&c->stopping) && gt_cond_wait_until(&c->quit, &c->nap_mu, until))
			;
		pthread_mutex_unlock(&c->nap_mu);
	}
	return !atomic_load(&c->stopping);
}

bool gt_kube_client_stopping(const struct gt_kube_client *c)
{
	return atomic_load(&c->stopping);
}

void gt_kube_resp_release(struct gt_kube_resp *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}

void gt_kube_urlencode(const char *s, char *out, size_t cap)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;
	for (; *s && o + 4 < cap; s++) {
		unsigned char ch = (unsigned char)*s;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '_' || ch == '.' || ch == '~') {
			out[o++] = (char)ch;
		} else {
			out[o++] = '%';
			out[o++] = hex[ch >> 4];
			out[o++] = hex[ch & 15];
		}
	}
	out[o] = '\0';
}

void gt_kube_stats_print(const struct gt_kube_stats *s, const char *name, FILE *f)
{
	static const char *const verbs[GT_N_VERBS] = { "get", "list", "watch", "create", "update", "patch",
						      "delete" };
	static const char *const classes[GT_N_CLASSES] = { "2xx", "3xx", "4xx", "5xx", "error" };
	gt_prom_head(f, NULL, name, "counter", "API server requests by verb and outcome");
	for (int v = 0; v < GT_N_VERBS; v++)
		for (int k = 0; k < GT_N_CLASSES; k++) {
			unsigned long n = atomic_load(&s->requests[v][k]);
			if (n)
				fprintf(f, "%s{verb=\"%s\",code=\"%s\"} %lu\n", name, verbs[v], classes[k], n);
		}
}

/* ---------------------------------------------------------------- limiter */

static void rate_wait(struct gt_kube_client *c)
{
	if (c->qps <= 0)
		return;
	pthread_mutex_lock(&c->mu);
	double now = gt_mono_s();
	double elapsed = now - c->last_refill;
	c->last_refill = now;
	c->tokens += elapsed * c->qps;
	if (c->tokens > c->burst)
		c->tokens = c->burst;
	/* reserve a token now, possibly going negative: waiters queue up fairly */
	c->tokens -= 1;
	double wait = c->tokens < 0 ? -c->tokens / c->qps : 0;
	pthread_mutex_unlock(&c->mu);
	gt_kube_client_nap(c, wait);
}

/* ---------------------------------------------------------------- handles */

static CURL *acquire(struct gt_kube_client *c)
{
	CURL *h = NULL;
	pthread_mutex_lock(&c->mu);
	if (c->n_pool)
		h = c->pool[--c->n_pool];
	pthread_mutex_unlock(&c->mu);
	if (!h)
		h = curl_easy_init();
	if (!h)
		gt_out_of_memory(0);	/* curl_easy_init fails only so */
	curl_easy_reset(h);
	return h;
}

static void release(struct gt_kube_client *c, CURL *h)
{
	pthread_mutex_lock(&c->mu);
	GT_PUSH(c->pool, c->n_pool, c->cap_pool, h);
	pthread_mutex_unlock(&c->mu);
}

/* The bearer token, re-read from its file now and then. Caller frees. */
static char *current_token(struct gt_kube_client *c)
{
	pthread_mutex_lock(&c->mu);
	time_t now = time(NULL);
	if (c->cfg.token_file && (!c->token || now - c->token_read >= TOKEN_REREAD_S)) {
		FILE *f = fopen(c->cfg.token_file, "r");
		if (f) {
			char buf[8192];
			size_t n = fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
			while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
				n--;
			buf[n] = '\0';
			free(c->token);
			c->token = gt_xstrdup(buf);
			c->token_read = now;
		} else if (!c->token) {
			gt_log(GT_LOG_ERROR, "http", "cannot read token file %s", c->cfg.token_file);
		}
	}
	char *t = c->token && *c->token ? gt_xstrdup(c->token) : NULL;
	pthread_mutex_unlock(&c->mu);
	return t;
}

static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt;
	(void)dn;
	(void)ut;
	(void)un;
	return gt_kube_client_stopping(arg) ? 1 : 0;
}

static struct curl_slist *setup(struct gt_kube_client *c, CURL *h, const char *path, const char *ctype,
				char *errbuf)
{
	const struct gt_kube_config *cfg = &c->cfg;
	char url[10240];
	snprintf(url, sizeof(url), "%s%s", cfg->server, path);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "gantry/0.1");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, c);
	if (cfg->insecure) {
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
	} else if (cfg->ca_data) {
		struct curl_blob b = { cfg->ca_data, cfg->ca_len, CURL_BLOB_COPY };
		curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &b);
	} else if (cfg->ca_file) {
		curl_easy_setopt(h, CURLOPT_CAINFO, cfg->ca_file);
	}
	if (cfg->cert_data) {
		struct curl_blob b = { cfg->cert_data, cfg->cert_len, CURL_BLOB_COPY };
		curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &b);
		curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
	} else if (cfg->cert_file) {
		curl_easy_setopt(h, CURLOPT_SSLCERT, cfg->cert_file);
	}
	if (cfg->key_data) {
		struct curl_blob b = { cfg->key_data, cfg->key_len, CURL_BLOB_COPY };
		curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &b);
		curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
	} else if (cfg->key_file) {
		curl_easy_setopt(h, CURLOPT_SSLKEY, cfg->key_file);
	}
	struct curl_slist *hdr = curl_slist_append(NULL, "Accept: application/json");
	hdr = curl_slist_append(hdr, "Expect:");
	if (ctype) {
		char ct[128];
		snprintf(ct, sizeof(ct), "Content-Type: %s", ctype);
		hdr = curl_slist_append(hdr, ct);
	}
	char *tok = current_token(c);
	if (tok) {
		size_t n = strlen(tok) + 32;
		char *auth = gt_xmalloc(n);
		snprintf(auth, n, "Authorization: Bearer %s", tok);
		hdr = curl_slist_append(hdr, auth);
		free(auth);
		free(tok);
	}
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	return hdr;
}

static void count(struct gt_kube_client *c, enum gt_kube_verb verb, long status)
{
	enum gt_kube_class k = status >= 200 && status < 300 ? GT_CODE_2XX
			       : status >= 300 && status < 400 ? GT_CODE_3XX
			       : status >= 400 && status < 500 ? GT_CODE_4XX
			       : status >= 500 ? GT_CODE_5XX : GT_CODE_NONE;
	atomic_fetch_add(&c->stats.requests[verb][k], 1);
}

/* ---------------------------------------------------------------- requests */

struct body_buf {
	CURL *h;		/* to ask for Content-Length; NULL: do not */
	char *data;
	size_t len, cap, limit;
	bool overflow;
};

/*
 * The first allocation: the whole body when the server said how long it
 * is (a LIST page of megabytes is not grown by doubling, page fault after
 * page fault), else a little; most write responses are a few hundred bytes.
 */
static size_t first_cap(const struct body_buf *b, size_t need)
{
	curl_off_t cl = -1;
	if (b->h && curl_easy_getinfo(b->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK && cl > 0 &&
	    (size_t)cl < b->limit && (size_t)cl + 1 >= need)
		return (size_t)cl + 1;
	return need > 2048 ? need : 2048;
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct body_buf *b = arg;
	size_t n = size * nmemb;
	if (b->len + n + 1 > b->limit) {
		b->overflow = true;
		return 0;
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : first_cap(b, b->len + n + 1);
		while (cap < b->len + n + 1)
			cap *= 2;
		b->data = gt_xrealloc(b->data, cap);
		b->cap = cap;
	}
	memcpy(b->data + b->len, ptr, n);
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

int gt_kube_request(struct gt_kube_client *c, enum gt_kube_verb verb, const char *method,
		    const char *path, const char *ctype, const char *body, struct gt_kube_resp *r)
{
	memset(r, 0, sizeof(*r));
	if (gt_kube_client_stopping(c)) {
		snprintf(r->error, sizeof(r->error), "shutting down");
		return GT_EIO;
	}
	rate_wait(c);
	CURL *h = acquire(c);
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdr = setup(c, h, path, body ? ctype : NULL, errbuf);
	struct body_buf b = { .h = h, .limit = GT_KUBE_MAX_BODY };
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	} else if (!strcmp(method, "GET")) {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	}
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
	CURLcode cc = curl_easy_perform(h);
	int rc = 0;
	if (cc != CURLE_OK) {
		snprintf(r->error, sizeof(r->error), "%s %s: %s", method, path,
			 b.overflow ? "response larger than the cap" : errbuf[0] ? errbuf : curl_easy_strerror(cc));
		free(b.data);
		b.data = NULL;
		b.len = 0;
		rc = GT_EIO;
	} else {
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
	}
	curl_slist_free_all(hdr);
	release(c, h);
	r->body = b.data ? b.data : gt_xstrdup("");
	r->len = b.len;
	count(c, verb, r->status);
	return rc;
}

/* ---------------------------------------------------------------- streams */

struct stream {
	CURL *h;
	gt_kube_line_fn fn;
	void *arg;
	char *line;
	size_t len, cap;
	bool stopped, overflow;
	long status;
	struct body_buf err;	/* the body of a non-200 answer */
};

static size_t on_stream(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct stream *s = arg;
	size_t n = size * nmemb;
	if (!s->status)
		curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &s->status);
	if (s->status != 200)
		return on_body(ptr, size, nmemb, &s->err);
	for (size_t i = 0; i < n; i++) {
		char ch = ptr[i];
		if (ch == '\n') {
			if (s->len) {
				s->line[s->len] = '\0';
				if (s->fn(s->arg, s->line, s->len)) {
					s->stopped = true;
					return 0;
				}
			}
			s->len = 0;
			continue;
		}
		if (s->len + 2 > s->cap) {
			if (s->cap >= GT_KUBE_MAX_LINE) {
				s->overflow = true;
				return 0;
			}
			s->cap = s->cap ? s->cap * 2 : 65536;
			s->line = gt_xrealloc(s->line, s->cap);
		}
		s->line[s->len++] = ch;
	}
	return n;
}

int gt_kube_stream(struct gt_kube_client *c, const char *path, long timeout_s, gt_kube_line_fn on_line,
		   void *arg, struct gt_kube_resp *r)
{
	memset(r, 0, sizeof(*r));
	if (gt_kube_client_stopping(c)) {
		snprintf(r->error, sizeof(r->error), "shutting down");
		return GT_EIO;
	}
	CURL *h = acquire(c);
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdr = setup(c, h, path, NULL, errbuf);
	struct stream s = { .h = h, .fn = on_line, .arg = arg, .err = { .limit = STREAM_ERROR_BODY_CAP } };
	curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_stream);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
	/* the server ends the watch at timeoutSeconds; this only catches a server that does not */
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (timeout_s + 30) * 1000L);
	CURLcode cc = curl_easy_perform(h);
	int rc = 0;
	if (!s.status)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &s.status);
	r->status = s.status;
	if (cc != CURLE_OK && !s.stopped && !gt_kube_client_stopping(c)) {
		snprintf(r->error, sizeof(r->error), "watch %s: %s", path,
			 s.overflow ? "event larger than the cap" : errbuf[0] ? errbuf : curl_easy_strerror(cc));
		rc = GT_EIO;
	}
	curl_slist_free_all(hdr);
	release(c, h);
	free(s.line);
	r->body = s.err.data ? s.err.data : gt_xstrdup("");
	r->len = s.err.len;
	count(c, GT_VERB_WATCH, rc ? 0 : r->status);
	return rc;
}

/* ---------------------------------------------------------------- retries */

void gt_kube_call(struct gt_kube_client *c, enum gt_kube_verb verb, const char *method, const char *path,
		  const char *ctype, const char *body, struct gt_kube_resp *r)
{
	for (int attempt = 0;; attempt++) {
		gt_kube_request(c, verb, method, path, ctype, body, r);
		bool transient = r->status == 0 || r->status >= 500;
		if (!transient || attempt + 1 == CALL_ATTEMPTS || gt_kube_client_stopping(c))
			return;
		gt_log(GT_LOG_DEBUG, "http", "%s %s: %s; retrying", method, path,
		       r->status ? "server error" : r->error);
		gt_kube_resp_release(r);
		gt_kube_client_nap(c, 0.1 * (double)(1 << (2 * attempt)));
	}
}

const char *gt_kube_why(const struct gt_kube_resp *r)
{
	static _Thread_local char buf[400];
	if (!r->status)
		return r->error;
	json_t *j = json_loadb(r->body ? r->body : "", r->len, 0, NULL);
	const char *m = json_string_value(json_object_get(j, "message"));
	snprintf(buf, sizeof(buf), "HTTP %ld: %s", r->status, m ? m : r->body ? r->body : "");
	json_decref(j);
	return buf;
}
