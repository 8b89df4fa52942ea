/*
 * fastdouble - a fast API-server double, for the bind benchmark only
 *
 * tests/kube/apiserver-double is faithful but Python: a few hundred binds a
 * second. This one serves just what `gantry scheduler` needs to bind a
 * generated cluster, from one epoll thread with HTTP/1.1 keep-alive, so
 * that the benchmark measures the scheduler rather than the double:
 *
 *   GET  /api/v1/{nodes,pods}                       LIST (limit/continue) and WATCH
 *   GET  /apis/scheduling.run.ai/v2/queues          one queue "q"
 *   GET  .../podgroups, .../priorityclasses         empty lists, WATCH
 *   POST /api/v1/namespaces/NS/pods/NAME/binding    sets spec.nodeName; 409 if bound
 *   POST /api/v1/namespaces/NS/events               201, counted, not kept
 *   POST /api/v1/namespaces/NS/pods                 creates a pod (the latency benchmark)
 *   PATCH .../pods/NAME, .../pods/NAME/status       merges the patch (labels, annotations,
 *                                                   conditions of fractional and waiting pods)
 *   GET  /_stats                                    binds, conflicts, requests, connections
 *                                                   accepted, first/last bind times
 *   GET  /_binds                                    per pod: created and bound (seconds on
 *                                                   the double's monotonic clock), node
 *
 * Everything else is 404 (the optional CRDs count as not installed). The
 * cluster: --nodes nodes with --gpus GPUs each, one queue, --pods pending
 * pods of one GPU each; or, with --fixture, the Nodes, Pods, Queues,
 * PodGroups and PriorityClasses of a JSON List (the real-server benchmark
 * feeds both the same objects). Buffers are capped: a request at 1 MiB, a
 * connection's unsent output at 256 MiB (a watcher that far behind is cut).
 *
 * usage: fastdouble (--nodes N --pods M [--gpus G] | --fixture FILE) [--port P] [--port-file F]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_REQUEST (1u << 20)
#define MAX_PENDING_OUT (256u << 20)
#define BOOKMARK_S 5.0
#define MAX_EVENTS 256

enum res { R_NODES, R_PODS, R_QUEUES, R_PODGROUPS, R_PRIOCLASSES, R_CONFIGMAPS, R_PVCS, R_PVS, R_STORAGECLASSES,
	   R_CSIDRIVERS, R_CSICAPS, R_NAMESPACES, N_RES };

static const struct {
	const char *path, *kind, *api_version;
} RES[N_RES] = {
	[R_NODES] = { "/api/v1/nodes", "Node", "v1" },
	[R_PODS] = { "/api/v1/pods", "Pod", "v1" },
	[R_QUEUES] = { "/apis/scheduling.run.ai/v2/queues", "Queue", "scheduling.run.ai/v2" },
	[R_PODGROUPS] = { "/apis/scheduling.run.ai/v2alpha2/podgroups", "PodGroup", "scheduling.run.ai/v2alpha2" },
	[R_PRIOCLASSES] = { "/apis/scheduling.k8s.io/v1/priorityclasses", "PriorityClass", "scheduling.k8s.io/v1" },
	[R_CONFIGMAPS] = { "/api/v1/configmaps", "ConfigMap", "v1" },
	[R_PVCS] = { "/api/v1/persistentvolumeclaims", "PersistentVolumeClaim", "v1" },
	[R_PVS] = { "/api/v1/persistentvolumes", "PersistentVolume", "v1" },
	[R_STORAGECLASSES] = { "/apis/storage.k8s.io/v1/storageclasses", "StorageClass", "storage.k8s.io/v1" },
	[R_CSIDRIVERS] = { "/apis/storage.k8s.io/v1/csidrivers", "CSIDriver", "storage.k8s.io/v1" },
	[R_CSICAPS] = { "/apis/storage.k8s.io/v1/csistoragecapacities", "CSIStorageCapacity", "storage.k8s.io/v1" },
	[R_NAMESPACES] = { "/api/v1/namespaces", "Namespace", "v1" },
};

struct buf {
	char *p;
	size_t len, cap, off;	/* off: consumed from the front */
};

struct event {
	long rv;
	char *line;		/* {"type":...,"object":...}\n */
	size_t len;
};

struct conn {
	int fd;
	struct buf in, out;
	bool watching, closing;
	enum res watch_res;
	long watch_rv;		/* last rv sent */
	double watch_deadline, next_bookmark;
	struct conn *next;
};

/* a pod's key ("ns/name") to its index, open addressing; times for /_binds */
struct pod_slot {
	char *key;
	size_t idx;
};

struct store {
	json_t **objs[N_RES];
	size_t n[N_RES], cap[N_RES];
	struct pod_slot *slots;
	size_t n_slots;		/* a power of two, at least twice the pods */
	double *created_at, *bound_at;
	size_t cap_times;
	struct event *log[N_RES];
	size_t n_log[N_RES], cap_log[N_RES];
	long rv;
	long binds, conflicts, events, requests, connections;
	double first_bind, last_bind;
	int epfd;
	struct conn *conns;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fprintf(stderr, "fastdouble: out of memory\n");
		exit(1);
	}
	return q;
}

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		while (cap < b->len + n)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void buf_printf(struct buf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	buf_add(b, tmp, n < (int)sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void buf_compact(struct buf *b)
{
	if (!b->off)
		return;
	memmove(b->p, b->p + b->off, b->len - b->off);
	b->len -= b->off;
	b->off = 0;
}

/* ---------------------------------------------------------------- the cluster */

static void stamp(struct store *s, json_t *obj)
{
	char rv[32];
	snprintf(rv, sizeof(rv), "%ld", ++s->rv);
	json_object_set_new(json_object_get(obj, "metadata"), "resourceVersion", json_string(rv));
}

static json_t *make_node(int i, int gpus)
{
	char name[64], g[16];
	snprintf(name, sizeof(name), "node-%05d", i);
	snprintf(g, sizeof(g), "%d", gpus);
	json_t *alloc = json_pack("{s:s, s:s, s:s, s:s}", "cpu", "256", "memory", "1Ti", "nvidia.com/gpu", g, "pods",
				  "500");
	return json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s, s:s}}, s:{s:O, s:o, s:[{s:s, s:s}]}}", "apiVersion", "v1",
			 "kind", "Node", "metadata", "name", name, "uid", name, "labels", "kubernetes.io/hostname",
			 name, "nvidia.com/gpu.memory", "40960", "status", "allocatable", alloc, "capacity", alloc,
			 "conditions", "type", "Ready", "status", "True");
}

static json_t *make_pod(int i)
{
	char name[64], uid[64], created[64];
	snprintf(name, sizeof(name), "p-%06d", i);
	snprintf(uid, sizeof(uid), "00000000-0000-0000-0000-%012d", i);
	snprintf(created, sizeof(created), "2026-01-01T00:%02d:%02dZ", (i / 60) % 60, i % 60);
	json_t *req = json_pack("{s:s, s:s, s:s}", "cpu", "100m", "memory", "128Mi", "nvidia.com/gpu", "1");
	return json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s, s:{s:s}}, s:{s:s, s:[{s:s, s:s, s:{s:O, s:o}}]}, "
			 "s:{s:s}}", "apiVersion", "v1", "kind", "Pod", "metadata", "name", name, "namespace",
			 "default", "uid", uid, "creationTimestamp", created, "labels", "kai.scheduler/queue", "q",
			 "spec", "schedulerName", "kai-scheduler", "containers", "name", "main", "image", "busybox",
			 "resources", "requests", req, "limits", req, "status", "phase", "Pending");
}

static json_t *make_queue(void)
{
	return json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:{s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}}}}",
			 "apiVersion", "scheduling.run.ai/v2", "kind", "Queue", "metadata", "name", "q", "uid", "q",
			 "spec", "resources", "gpu", "quota", -1, "limit", -1, "overQuotaWeight", 1, "cpu", "quota", -1,
			 "limit", -1, "overQuotaWeight", 1, "memory", "quota", -1, "limit", -1, "overQuotaWeight", 1);
}

static void add_obj(struct store *s, enum res r, json_t *obj);
static void index_pods(struct store *s);

static void generate(struct store *s, int nodes, int pods, int gpus)
{
	for (int i = 0; i < nodes; i++)
		add_obj(s, R_NODES, make_node(i, gpus));
	for (int i = 0; i < pods; i++)
		add_obj(s, R_PODS, make_pod(i));
	add_obj(s, R_QUEUES, make_queue());
	index_pods(s);
}

static uint64_t fnv1a(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = a; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ '/') * 1099511628211ull;
	for (const char *p = b; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static struct pod_slot *pod_slot(struct store *s, const char *ns, const char *name)
{
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", ns, name);
	for (size_t i = fnv1a(ns, name) & (s->n_slots - 1);; i = (i + 1) & (s->n_slots - 1))
		if (!s->slots[i].key || !strcmp(s->slots[i].key, key))
			return &s->slots[i];
}

static const char *str_at(json_t *o, const char *a, const char *b)
{
	return json_string_value(json_object_get(json_object_get(o, a), b));
}

static void index_pods(struct store *s);

/* Adds @obj (a reference is taken over) to resource @r; pods are indexed and timed. */
static void add_obj(struct store *s, enum res r, json_t *obj)
{
	if (s->n[r] == s->cap[r]) {
		s->cap[r] = s->cap[r] ? s->cap[r] * 2 : 1024;
		s->objs[r] = xrealloc(s->objs[r], s->cap[r] * sizeof(json_t *));
	}
	stamp(s, obj);
	s->objs[r][s->n[r]++] = obj;
	if (r != R_PODS)
		return;
	if (s->n[R_PODS] > s->cap_times) {
		s->cap_times = s->cap_times ? s->cap_times * 2 : 1024;
		s->created_at = xrealloc(s->created_at, s->cap_times * sizeof(double));
		s->bound_at = xrealloc(s->bound_at, s->cap_times * sizeof(double));
	}
	s->created_at[s->n[R_PODS] - 1] = now_s();
	s->bound_at[s->n[R_PODS] - 1] = 0;
	if (2 * s->n[R_PODS] > s->n_slots)
		index_pods(s);
	else {
		struct pod_slot *sl = pod_slot(s, str_at(obj, "metadata", "namespace"), str_at(obj, "metadata", "name"));
		char key[600];
		snprintf(key, sizeof(key), "%s/%s", str_at(obj, "metadata", "namespace"), str_at(obj, "metadata", "name"));
		sl->key = strdup(key);
		sl->idx = s->n[R_PODS] - 1;
	}
}

/* (Re)builds the pod index at four times the pods. */
static void index_pods(struct store *s)
{
	for (size_t i = 0; i < s->n_slots; i++)
		free(s->slots[i].key);
	free(s->slots);
	s->n_slots = 1024;
	while (s->n_slots < 4 * s->n[R_PODS])
		s->n_slots *= 2;
	s->slots = calloc(s->n_slots, sizeof(*s->slots));
	if (!s->slots) {
		fprintf(stderr, "fastdouble: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < s->n[R_PODS]; i++) {
		json_t *o = s->objs[R_PODS][i];
		const char *ns = str_at(o, "metadata", "namespace"), *name = str_at(o, "metadata", "name");
		char key[600];
		snprintf(key, sizeof(key), "%s/%s", ns, name);
		struct pod_slot *sl = pod_slot(s, ns, name);
		sl->key = strdup(key);
		sl->idx = i;
	}
}

static json_t *find_pod(struct store *s, const char *ns, const char *name, size_t *idx)
{
	if (!s->n_slots)
		return NULL;
	struct pod_slot *sl = pod_slot(s, ns, name);
	if (!sl->key)
		return NULL;
	*idx = sl->idx;
	return s->objs[R_PODS][sl->idx];
}

/* The objects of a JSON List file, by kind; other kinds are refused. */
static int load_fixture(struct store *s, const char *path)
{
	json_error_t err;
	json_t *list = json_load_file(path, 0, &err);
	if (!list) {
		fprintf(stderr, "fastdouble: %s:%d: %s\n", path, err.line, err.text);
		return -1;
	}
	size_t i;
	json_t *o;
	json_array_foreach(json_object_get(list, "items"), i, o) {
		const char *kind = json_string_value(json_object_get(o, "kind"));
		int r;
		for (r = 0; r < N_RES; r++)
			if (kind && !strcmp(kind, RES[r].kind))
				break;
		if (r == N_RES) {
			fprintf(stderr, "fastdouble: %s: item %zu: kind %s is not served\n", path, i, kind ? kind : "(none)");
			json_decref(list);
			return -1;
		}
		add_obj(s, (enum res)r, json_incref(o));
	}
	json_decref(list);
	index_pods(s);
	return 0;
}

/* ---------------------------------------------------------------- connections */

static void conn_want_write(struct store *s, struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.ptr = c };
	epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

static void conn_close(struct store *s, struct conn *c)
{
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	for (struct conn **p = &s->conns; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	free(c->in.p);
	free(c->out.p);
	free(c);
}

/* Write what can be written; false when the connection is gone. */
static bool conn_flush(struct store *s, struct conn *c)
{
	while (c->out.off < c->out.len) {
		ssize_t n = write(c->fd, c->out.p + c->out.off, c->out.len - c->out.off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			buf_compact(&c->out);
			conn_want_write(s, c);
			return true;
		}
		if (n <= 0) {
			conn_close(s, c);
			return false;
		}
		c->out.off += (size_t)n;
	}
	c->out.off = c->out.len = 0;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
	epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev);
	if (c->closing) {
		conn_close(s, c);
		return false;
	}
	return true;
}

static void respond(struct conn *c, int code, const char *reason, const char *body, size_t len)
{
	buf_printf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n", code,
		   reason, len);
	buf_add(&c->out, body, len);
}

static void respond_json(struct conn *c, int code, const char *reason, json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	respond(c, code, reason, s, strlen(s));
	free(s);
}

static void respond_status(struct conn *c, int code, const char *reason, const char *msg)
{
	respond_json(c, code, reason, json_pack("{s:s, s:s, s:s, s:s, s:i}", "kind", "Status", "apiVersion", "v1",
						"status", "Failure", "message", msg, "code", code));
}

static void chunk(struct conn *c, const char *data, size_t len)
{
	buf_printf(&c->out, "%zx\r\n", len);
	buf_add(&c->out, data, len);
	buf_add(&c->out, "\r\n", 2);
}

/* ---------------------------------------------------------------- API */

static const char *query(const char *q, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);
	for (const char *p = q; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, "&");
			snprintf(out, len, "%.*s", (int)n, p + kl + 1);
			return out;
		}
	}
	return NULL;
}

static void list(struct store *s, struct conn *c, enum res r, const char *q)
{
	char v[64];
	size_t limit = query(q, "limit", v, sizeof(v)) ? (size_t)atol(v) : 0;
	size_t from = query(q, "continue", v, sizeof(v)) ? (size_t)atol(v) : 0;
	size_t to = limit && from + limit < s->n[r] ? from + limit : s->n[r];
	char rv[32];
	snprintf(rv, sizeof(rv), "%ld", s->rv);
	struct buf b = { 0 };
	buf_printf(&b, "{\"kind\":\"%sList\",\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":\"%s\"",
		   RES[r].kind, RES[r].api_version, rv);
	if (to < s->n[r])
		buf_printf(&b, ",\"continue\":\"%zu\"", to);
	buf_add(&b, "},\"items\":[", 11);
	for (size_t i = from; i < to; i++) {
		char *o = json_dumps(s->objs[r][i], JSON_COMPACT);
		if (i > from)
			buf_add(&b, ",", 1);
		buf_add(&b, o, strlen(o));
		free(o);
	}
	buf_add(&b, "]}", 2);
	respond(c, 200, "OK", b.p, b.len);
	free(b.p);
}

/* Send @c every event of its resource after its resourceVersion. */
static void watch_catch_up(struct store *s, struct conn *c)
{
	struct event *log = s->log[c->watch_res];
	size_t n = s->n_log[c->watch_res], lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (log[mid].rv <= c->watch_rv)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < n; i++)
		chunk(c, log[i].line, log[i].len);
	if (lo < n)
		c->watch_rv = log[n - 1].rv;
}

static void watch(struct store *s, struct conn *c, enum res r, const char *q)
{
	char v[64];
	c->watching = true;
	c->watch_res = r;
	c->watch_rv = query(q, "resourceVersion", v, sizeof(v)) ? atol(v) : s->rv;
	double timeout = query(q, "timeoutSeconds", v, sizeof(v)) ? atof(v) : 300;
	c->watch_deadline = now_s() + timeout;
	c->next_bookmark = now_s() + BOOKMARK_S;
	buf_printf(&c->out, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
	watch_catch_up(s, c);
}

static void record(struct store *s, enum res r, const char *type, json_t *obj)
{
	json_t *ev = json_pack("{s:s, s:O}", "type", type, "object", obj);
	char *line = json_dumps(ev, JSON_COMPACT);
	json_decref(ev);
	size_t len = strlen(line);
	line = xrealloc(line, len + 2);
	line[len++] = '\n';
	line[len] = '\0';
	if (s->n_log[r] == s->cap_log[r]) {
		s->cap_log[r] = s->cap_log[r] ? s->cap_log[r] * 2 : 1024;
		s->log[r] = xrealloc(s->log[r], s->cap_log[r] * sizeof(*s->log[r]));
	}
	s->log[r][s->n_log[r]++] = (struct event){ s->rv, line, len };
	for (struct conn *c = s->conns; c; c = c->next)
		if (c->watching && c->watch_res == r) {
			watch_catch_up(s, c);
			conn_want_write(s, c);
		}
}

/* The binding's target node, from the body; then the pod is bound. */
static void do_bind(struct store *s, struct conn *c, const char *ns, const char *name, const char *body,
		    size_t len)
{
	size_t idx;
	json_t *p = find_pod(s, ns, name, &idx);
	if (!p)
		return respond_status(c, 404, "Not Found", "pod not found");
	json_t *spec = json_object_get(p, "spec");
	if (json_object_get(spec, "nodeName")) {
		s->conflicts++;
		return respond_status(c, 409, "Conflict", "pod is already assigned to a node");
	}
	json_t *b = json_loadb(body, len, 0, NULL);
	const char *node = json_string_value(json_object_get(json_object_get(b, "target"), "name"));
	if (!node) {
		json_decref(b);
		return respond_status(c, 400, "Bad Request", "binding target.name is required");
	}
	json_object_set_new(spec, "nodeName", json_string(node));
	json_decref(b);
	stamp(s, p);
	record(s, R_PODS, "MODIFIED", p);
	double t = now_s();
	s->bound_at[idx] = t;
	if (!s->binds++)
		s->first_bind = t;
	s->last_bind = t;
	static const char ok[] = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Success\",\"code\":201}";
	respond(c, 201, "Created", ok, sizeof(ok) - 1);
}

static void stats(struct store *s, struct conn *c)
{
	respond_json(c, 200, "OK", json_pack("{s:i, s:i, s:i, s:i, s:i, s:f, s:f}", "binds", (json_int_t)s->binds,
					    "conflicts", (json_int_t)s->conflicts, "events", (json_int_t)s->events,
					    "requests", (json_int_t)s->requests, "connections",
					    (json_int_t)s->connections, "first_bind", s->first_bind, "last_bind",
					    s->last_bind));
}

static void binds(struct store *s, struct conn *c)
{
	struct buf b = { 0 };
	buf_add(&b, "[", 1);
	for (size_t i = 0; i < s->n[R_PODS]; i++) {
		json_t *p = s->objs[R_PODS][i];
		const char *node = str_at(p, "spec", "nodeName");
		buf_printf(&b, "%s{\"namespace\":\"%s\",\"name\":\"%s\",\"created\":%.6f,\"bound\":%.6f,\"node\":\"%s\"}",
			   i ? "," : "", str_at(p, "metadata", "namespace"), str_at(p, "metadata", "name"),
			   s->created_at[i], s->bound_at[i], node ? node : "");
	}
	buf_add(&b, "]", 1);
	respond(c, 200, "OK", b.p, b.len);
	free(b.p);
}

/* PATCH of a pod or its status: merged in (objects recursively, as a merge patch does). */
static void patch_pod(struct store *s, struct conn *c, const char *ns, const char *name, const char *body, size_t len)
{
	size_t idx;
	json_t *p = find_pod(s, ns, name, &idx);
	if (!p)
		return respond_status(c, 404, "Not Found", "pod not found");
	json_t *patch = json_loadb(body, len, 0, NULL);
	if (!json_is_object(patch)) {
		json_decref(patch);
		return respond_status(c, 400, "Bad Request", "a JSON merge patch is required");
	}
	json_object_update_recursive(p, patch);
	json_decref(patch);
	stamp(s, p);
	record(s, R_PODS, "MODIFIED", p);
	respond_json(c, 200, "OK", json_incref(p));
}

/* POST of a pod: it gets a uid, a resourceVersion and Pending, as the API server gives them. */
static void create_pod(struct store *s, struct conn *c, const char *ns, const char *body, size_t len)
{
	json_t *p = json_loadb(body, len, 0, NULL);
	const char *name = p ? str_at(p, "metadata", "name") : NULL;
	if (!name) {
		json_decref(p);
		return respond_status(c, 400, "Bad Request", "a pod with metadata.name is required");
	}
	size_t idx;
	if (find_pod(s, ns, name, &idx)) {
		json_decref(p);
		return respond_status(c, 409, "Conflict", "pod already exists");
	}
	char uid[64];
	snprintf(uid, sizeof(uid), "f0000000-0000-4000-8000-%012ld", s->rv + 1);
	json_t *md = json_object_get(p, "metadata");
	json_object_set_new(md, "namespace", json_string(ns));
	json_object_set_new(md, "uid", json_string(uid));
	json_object_set_new(md, "creationTimestamp", json_string("2026-01-01T01:00:00Z"));
	json_object_set_new(p, "status", json_pack("{s:s}", "phase", "Pending"));
	add_obj(s, R_PODS, p);
	record(s, R_PODS, "ADDED", p);
	respond_json(c, 201, "Created", json_incref(p));
}

static void route(struct store *s, struct conn *c, const char *method, char *target, const char *body, size_t len)
{
	s->requests++;
	char *q = strchr(target, '?');
	if (q)
		*q++ = '\0';
	const char *qs = q ? q : "";
	char v[8];
	if (!strcmp(method, "GET") && !strcmp(target, "/_stats"))
		return stats(s, c);
	if (!strcmp(method, "GET") && !strcmp(target, "/_binds"))
		return binds(s, c);
	for (int r = 0; r < N_RES && !strcmp(method, "GET"); r++)
		if (!strcmp(target, RES[r].path)) {
			const char *w = query(qs, "watch", v, sizeof(v));
			if (w && (!strcmp(w, "1") || !strcmp(w, "true")))
				return watch(s, c, (enum res)r, qs);
			return list(s, c, (enum res)r, qs);
		}
	char ns[256], name[256], sub[64];
	if (!strcmp(method, "POST") &&
	    sscanf(target, "/api/v1/namespaces/%255[^/]/pods/%255[^/]/%63s", ns, name, sub) == 3 &&
	    !strcmp(sub, "binding"))
		return do_bind(s, c, ns, name, body, len);
	if (!strcmp(method, "PATCH") &&
	    (sscanf(target, "/api/v1/namespaces/%255[^/]/pods/%255[^/]/%63s", ns, name, sub) == 3 ?
		     !strcmp(sub, "status") :
		     sscanf(target, "/api/v1/namespaces/%255[^/]/pods/%255s", ns, name) == 2))
		return patch_pod(s, c, ns, name, body, len);
	if (!strcmp(method, "POST") && sscanf(target, "/api/v1/namespaces/%255[^/]/%63s", ns, sub) == 2 &&
	    !strcmp(sub, "pods"))
		return create_pod(s, c, ns, body, len);
	if (!strcmp(method, "POST") && sscanf(target, "/api/v1/namespaces/%255[^/]/%63s", ns, sub) == 2 &&
	    !strcmp(sub, "events")) {
		s->events++;
		static const char ok[] = "{\"kind\":\"Event\",\"apiVersion\":\"v1\"}";
		return respond(c, 201, "Created", ok, sizeof(ok) - 1);
	}
	respond_status(c, 404, "Not Found", "the server could not find the requested resource");
}

/* ---------------------------------------------------------------- HTTP */

/* The end of the request head ("\r\n\r\n") in @p, or NULL. */
static char *find_head_end(char *p, size_t n)
{
	return p ? memmem(p, n, "\r\n\r\n", 4) : NULL;
}

/* Handle every complete request in @c's input; false when the connection went. */
static bool serve_input(struct store *s, struct conn *c)
{
	while (!c->watching && c->in.len > c->in.off) {
		char *start = c->in.p + c->in.off;
		size_t avail = c->in.len - c->in.off;
		char *end = find_head_end(start, avail);
		if (!end)
			break;
		size_t head = (size_t)(end - start) + 4;
		*end = '\0';
		size_t body_len = 0;
		bool close_after = false;
		for (char *h = strstr(start, "\r\n"); h; h = strstr(h + 2, "\r\n"))
			if (!strncasecmp(h + 2, "Content-Length:", 15))
				body_len = (size_t)atol(h + 17);
			else if (!strncasecmp(h + 2, "Connection: close", 17))
				close_after = true;
		if (head + body_len > MAX_REQUEST) {
			conn_close(s, c);
			return false;
		}
		if (avail < head + body_len) {
			*end = '\r';
			break;
		}
		/* only once the request is whole: a head without its body must not close the connection */
		c->closing = c->closing || close_after;
		char method[16], target[4096];
		if (sscanf(start, "%15s %4095s", method, target) != 2) {
			conn_close(s, c);
			return false;
		}
		route(s, c, method, target, start + head, body_len);
		c->in.off += head + body_len;
	}
	buf_compact(&c->in);
	return true;
}

static void on_readable(struct store *s, struct conn *c)
{
	for (;;) {
		char tmp[65536];
		ssize_t n = read(c->fd, tmp, sizeof(tmp));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0 || c->in.len + (size_t)n > MAX_REQUEST) {
			conn_close(s, c);
			return;
		}
		buf_add(&c->in, tmp, (size_t)n);
	}
	if (serve_input(s, c))
		conn_flush(s, c);
}

static void accept_all(struct store *s, int lfd)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		struct conn *c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			return;
		}
		c->fd = fd;
		s->connections++;
		c->next = s->conns;
		s->conns = c;
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
		epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev);
	}
}

/* Bookmarks, watch timeouts, watchers too far behind. */
static void tick(struct store *s)
{
	double t = now_s();
	for (struct conn *c = s->conns, *next; c; c = next) {
		next = c->next;
		if (!c->watching)
			continue;
		if (c->out.len - c->out.off > MAX_PENDING_OUT) {
			conn_close(s, c);
			continue;
		}
		if (t >= c->watch_deadline) {
			chunk(c, "", 0);	/* the terminating chunk: the connection serves requests again */
			c->watching = false;
			conn_flush(s, c);
			continue;
		}
		if (t >= c->next_bookmark) {
			char bm[256];
			int n = snprintf(bm, sizeof(bm), "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"%s\",\"apiVersion\":"
					 "\"%s\",\"metadata\":{\"resourceVersion\":\"%ld\"}}}\n", RES[c->watch_res].kind,
					 RES[c->watch_res].api_version, s->rv);
			chunk(c, bm, (size_t)n);
			c->next_bookmark = t + BOOKMARK_S;
			conn_flush(s, c);
		}
	}
}

static int listen_on(int port, int *bound_port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 512)) {
		perror("fastdouble: listen");
		exit(1);
	}
	socklen_t al = sizeof(a);
	getsockname(fd, (struct sockaddr *)&a, &al);
	*bound_port = ntohs(a.sin_port);
	return fd;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	int nodes = 1000, pods = 10000, gpus = 16, port = 0;
	const char *port_file = NULL, *fixture = NULL;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--nodes"))
			nodes = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--pods"))
			pods = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--gpus"))
			gpus = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--port"))
			port = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--port-file"))
			port_file = argv[i + 1];
		else if (!strcmp(argv[i], "--fixture"))
			fixture = argv[i + 1];
	}
	if (argc < 2 || nodes <= 0 || pods < 0 || gpus <= 0 || pods > 999999) {
		fprintf(stderr, "usage: fastdouble (--nodes N --pods M [--gpus G] | --fixture FILE) [--port P] "
			"[--port-file F]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	struct store s = { .rv = 100 };
	if (fixture) {
		if (load_fixture(&s, fixture))
			return 2;
		nodes = (int)s.n[R_NODES];
		pods = (int)s.n[R_PODS];
	} else {
		generate(&s, nodes, pods, gpus);
	}
	int bound_port, lfd = listen_on(port, &bound_port);
	s.epfd = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event lev = { .events = EPOLLIN, .data.ptr = NULL };
	epoll_ctl(s.epfd, EPOLL_CTL_ADD, lfd, &lev);
	if (port_file) {
		char tmp[4096];
		snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
		FILE *f = fopen(tmp, "w");
		if (!f || fprintf(f, "%d\n", bound_port) < 0 || fclose(f) || rename(tmp, port_file)) {
			perror("fastdouble: port file");
			return 1;
		}
	}
	fprintf(stderr, "fastdouble: %d nodes, %d pods on 127.0.0.1:%d\n", nodes, pods, bound_port);
	double next_tick = now_s() + 0.2;
	while (!stop) {
		struct epoll_event evs[MAX_EVENTS];
		int n = epoll_wait(s.epfd, evs, MAX_EVENTS, 200);
		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			if (!c) {
				accept_all(&s, lfd);
				continue;
			}
			if (evs[i].events & (EPOLLHUP | EPOLLERR)) {
				conn_close(&s, c);
				continue;
			}
			if ((evs[i].events & EPOLLOUT) && !conn_flush(&s, c))
				continue;
			if (evs[i].events & EPOLLIN)
				on_readable(&s, c);
		}
		if (now_s() >= next_tick) {
			tick(&s);
			next_tick = now_s() + 0.2;
		}
	}
	while (s.conns)
		conn_close(&s, s.conns);
	close(lfd);
	close(s.epfd);
	for (int r = 0; r < N_RES; r++) {
		for (size_t i = 0; i < s.n[r]; i++)
			json_decref(s.objs[r][i]);
		free(s.objs[r]);
		for (size_t i = 0; i < s.n_log[r]; i++)
			free(s.log[r][i].line);
		free(s.log[r]);
	}
	for (size_t i = 0; i < s.n_slots; i++)
		free(s.slots[i].key);
	free(s.slots);
	free(s.created_at);
	free(s.bound_at);
	return 0;
}
