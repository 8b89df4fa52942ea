#include "scheduler/binder.h"

#include <gnutls/crypto.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/gpushare.h"
#include "api/json.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/pool.h"
#include "util/stop.h"
#include "util/thread.h"

#define DEFAULT_IMAGE "ghcr.io/nvidia/kai-scheduler/resource-reservation:latest"
#define DEFAULT_RUNTIME ""	/* KAI v0.17's binder: no runtime class unless told */
#define DEFAULT_TIMEOUT_S 40.0
#define DEFAULT_WORKERS 4
#define NS_RECHECK_S 60.0
#define GPU_ANNOTATION "run.ai/reserve_for_gpu_index"
#define GROUP_LABEL "runai-gpu-group"

/* One GPU group's reservation pod, shared by every bind that needs the group now. */
struct resv {
	char *group, *node;
	char *pod;		/* the reservation pod, once found or created */
	char *uuid;		/* its GPU, once it reported it */
	char *error;		/* why the group cannot be had */
	char *tolerations;	/* the first bind's pod's tolerations (JSON), for the pod it creates */
	bool busy;		/* a worker is finding or creating the pod */
	bool created;		/* we created the pod: ours to delete if it never reports */
	bool used;		/* a pod was bound on it: never ours to delete */
	double deadline;	/* for the annotation */
	int refs;
	struct resv *next;
};

enum step { STEP_RESERVE, STEP_FINISH, STEP_FAIL };

struct job {
	struct gt_binder *b;
	struct gt_kop op;	/* a deep copy */
	gt_binder_done_fn done;	/* NULL: nobody waits for the outcome */
	void *done_arg;
	char *why;		/* a failure's reason, for @done */
	char key[600];		/* "ns/name" of the pod */
	struct resv *r[GT_MAX_DEVICES];
	enum step step;
	struct job *next;
};

struct gt_binder {
	struct gt_kw kw;
	struct gt_cache *cache;
	struct gt_binder_counters n;
	struct gt_binder_opts o;
	struct gt_pool *pool;	/* runs the bind steps */
	pthread_t waiter;	/* moves parked binds on when the cache says their pods reported */
	pthread_mutex_t mu;	/* everything below */
	pthread_cond_t idle;	/* a bind is done */
	struct job *parked;	/* waiting for their reservation pods */
	struct resv *resvs;
	char **held;		/* groups whose idle reservation pod is being deleted (gt_binder_delete_idle) */
	size_t n_held, cap_held;
	pthread_cond_t unheld;	/* a group was let go */
	size_t pending;
	bool quit;
	/* AUTO mode: did the namespace exist when last looked at, and when to look again */
	bool ns_seen, ns_known;
	double ns_check_at;
	unsigned seed;
};

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? gt_xstrdup(v) : NULL;
}

/* ---------------------------------------------------------------- jobs */

/* The reservation of @group on @node, shared with the binds already after it; lock held. */
static struct resv *attach(struct gt_binder *b, const char *group, const char *node, const char *tolerations)
{
	/* a reservation that failed is not shared with later binds: they try afresh */
	for (struct resv *r = b->resvs; r; r = r->next)
		if (!strcmp(r->group, group) && !r->error) {
			r->refs++;
			return r;
		}
	struct resv *r = gt_xcalloc(1, sizeof(*r));
	r->group = gt_xstrdup(group);
	r->node = gt_xstrdup(node);
	r->tolerations = tolerations ? gt_xstrdup(tolerations) : NULL;
	r->refs = 1;
	r->next = b->resvs;
	b->resvs = r;
	return r;
}

/* Lock held. */
static void detach(struct gt_binder *b, struct resv *r)
{
	if (--r->refs > 0)
		return;
	for (struct resv **p = &b->resvs; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			break;
		}
	free(r->group);
	free(r->node);
	free(r->pod);
	free(r->uuid);
	free(r->error);
	free(r->tolerations);
	free(r);
}

static void push(struct job **list, struct job *j)
{
	j->next = *list;
	*list = j;
}

/* Done with @j, whichever way (@bound: the pod is bound); lock not held. */
static void finish_job(struct gt_binder *b, struct job *j, bool bound)
{
	if (j->done)
		j->done(j->done_arg, bound, bound ? NULL : j->why ? j->why : "the bind was rolled back");
	free(j->why);
	pthread_mutex_lock(&b->mu);
	for (uint8_t g = 0; g < j->op.n_groups; g++)
		detach(b, j->r[g]);
	b->pending--;
	pthread_cond_broadcast(&b->idle);
	pthread_mutex_unlock(&b->mu);
	gt_kop_release(&j->op);
	free(j);
}

/* ---------------------------------------------------------------- the namespace */

bool gt_binder_active(struct gt_binder *b)
{
	if (b->o.mode != GT_RESERVE_AUTO)
		return b->o.mode == GT_RESERVE_ON;
	pthread_mutex_lock(&b->mu);
	double now = gt_mono_s();
	bool ask = !b->ns_known || now >= b->ns_check_at, seen = b->ns_seen;
	if (ask)
		b->ns_check_at = now + NS_RECHECK_S;	/* meanwhile the others use the last answer */
	pthread_mutex_unlock(&b->mu);
	if (!ask)
		return seen;
	char path[400];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s", b->o.ns);
	struct gt_kube_resp r;
	gt_kube_call(b->kw.cl, GT_VERB_GET, "GET", path, NULL, NULL, &r);
	/* only a clear 404 says there is no reservation namespace; denied or unreachable, assume KAI's setup */
	bool exists = r.status != 404;
	if (!r.status || (r.status != 200 && r.status != 404))
		gt_log(GT_LOG_DEBUG, "binder", "namespace %s: %s; assuming it exists", b->o.ns, gt_kube_why(&r));
	gt_kube_resp_release(&r);
	pthread_mutex_lock(&b->mu);
	bool changed = !b->ns_known || b->ns_seen != exists;
	b->ns_known = true;
	b->ns_seen = exists;
	pthread_mutex_unlock(&b->mu);
	if (changed && exists)
		gt_log(GT_LOG_INFO, "binder", "GPU sharing: shared pods get reservation pods in namespace %s",
		       b->o.ns);
	else if (changed)
		gt_log(GT_LOG_WARN, "binder", "GPU sharing: namespace %s does not exist; shared-GPU pods are "
		       "labelled with their GPU group and bound without a reservation pod, so their containers "
		       "get no NVIDIA_VISIBLE_DEVICES", b->o.ns);
	return exists;
}

/* ---------------------------------------------------------------- reservation pods */

/*
 * The reservation pod's name, as KAI v0.17 derives it: "gpu-reservation-" and
 * the first 8 bytes of SHA-256("<node>/<group>") in hex, so that concurrent
 * or retried creates for one group (two binders, a restart) meet on one
 * object instead of holding two GPUs.
 */
void gt_binder_reservation_name(const char *node, const char *group, char out[GT_RESERVATION_NAME_LEN])
{
	char key[1024];
	unsigned char sum[32];
	int n = snprintf(key, sizeof(key), "%s/%s", node, group);
	if (gnutls_hash_fast(GNUTLS_DIG_SHA256, key, (size_t)n, sum) < 0) {
		fprintf(stderr, "gantry: SHA-256 is not available from GnuTLS\n");
		abort();
	}
	int len = snprintf(out, GT_RESERVATION_NAME_LEN, "gpu-reservation-");
	for (int i = 0; i < 8; i++)
		len += snprintf(out + len, GT_RESERVATION_NAME_LEN - (size_t)len, "%02x", sum[i]);
}

static json_t *reservation_pod(const struct gt_binder *b, const char *name, const struct resv *r)
{
	json_t *res = json_pack("{s:{s:s, s:s, s:s}, s:{s:s, s:s, s:s}}", "limits", "nvidia.com/gpu", "1", "cpu",
				"50m", "memory", "100Mi", "requests", "nvidia.com/gpu", "1", "cpu", "1m", "memory",
				"10Mi");
	json_t *env = json_pack("[{s:s, s:{s:{s:s}}}, {s:s, s:{s:{s:s}}}]", "name", "POD_NAME", "valueFrom",
				"fieldRef", "fieldPath", "metadata.name", "name", "POD_NAMESPACE", "valueFrom",
				"fieldRef", "fieldPath", "metadata.namespace");
	json_t *container = json_pack("{s:s, s:s, s:s, s:o, s:o}", "name", "resource-reservation", "image",
				      b->o.image, "imagePullPolicy", "IfNotPresent", "resources", res, "env", env);
	json_t *spec = json_pack("{s:s, s:[o]}", "nodeName", r->node, "containers", container);
	/* the fractional pod's tolerations, so that the GPU can be held on a tainted node it may use */
	json_t *tol = r->tolerations ? json_loads(r->tolerations, 0, NULL) : NULL;
	if (json_is_array(tol) && json_array_size(tol))
		json_object_set(spec, "tolerations", tol);
	json_decref(tol);
	if (*b->o.runtime_class)
		json_object_set_new(spec, "runtimeClassName", json_string(b->o.runtime_class));
	if (*b->o.service_account)
		json_object_set_new(spec, "serviceAccountName", json_string(b->o.service_account));
	return json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s, s:s}, s:{s:s}}, s:o}", "apiVersion", "v1", "kind",
			 "Pod", "metadata", "name", name, "namespace", b->o.ns, "labels", "app", GT_RESERVATION,
			 GROUP_LABEL, r->group, "annotations", "karpenter.sh/do-not-disrupt", "true", "spec", spec);
}

/*
 * The group's reservation pod on the server, as KAI looks it up (label
 * runai-gpu-group in the reservation namespace). 1 found (@name, @uuid set;
 * @uuid NULL until it reported), 0 none, -1 error (@err).
 */
static int find_reservation(struct gt_binder *b, const struct resv *r, char **name, char **uuid, char **err)
{
	char sel[400], enc[1200], path[1600];
	snprintf(sel, sizeof(sel), GROUP_LABEL "=%s", r->group);
	gt_kube_urlencode(sel, enc, sizeof(enc));
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods?labelSelector=%s", b->o.ns, enc);
	struct gt_kube_resp resp;
	gt_kube_call(b->kw.cl, GT_VERB_LIST, "GET", path, NULL, NULL, &resp);
	if (resp.status != 200) {
		char msg[600];
		snprintf(msg, sizeof(msg), "cannot list reservation pods in %s: %s", b->o.ns, gt_kube_why(&resp));
		*err = gt_xstrdup(msg);
		gt_kube_resp_release(&resp);
		return -1;
	}
	json_t *list = json_loadb(resp.body, resp.len, 0, NULL);
	gt_kube_resp_release(&resp);
	size_t i;
	json_t *item;
	int found = 0;
	json_array_foreach(json_object_get(list, "items"), i, item) {
		json_t *md = json_object_get(item, "metadata");
		/* the label selector again: a server that ignored it must not hand us another group's pod */
		const char *g = json_string_value(json_object_get(json_object_get(md, "labels"), GROUP_LABEL));
		if (!g || strcmp(g, r->group))
			continue;
		if (json_object_get(md, "deletionTimestamp")) {
			/* its name is the group's (one per node and group): a new one can be made once it is gone */
			char msg[800];
			snprintf(msg, sizeof(msg), "the reservation pod %s/%s of GPU group %s is being deleted",
				 b->o.ns, json_string_value(json_object_get(md, "name")), r->group);
			*err = gt_xstrdup(msg);
			found = -1;
			break;
		}
		const char *node = json_string_value(json_object_get(json_object_get(item, "spec"), "nodeName"));
		const char *pod = json_string_value(json_object_get(md, "name"));
		if (!node || strcmp(node, r->node)) {
			char msg[800];
			snprintf(msg, sizeof(msg), "the reservation pod %s/%s of GPU group %s is on node %s, not %s",
				 b->o.ns, pod ? pod : "?", r->group, node ? node : "(none)", r->node);
			*err = gt_xstrdup(msg);
			found = -1;
			break;
		}
		const char *id = json_string_value(json_object_get(json_object_get(md, "annotations"), GPU_ANNOTATION));
		*name = gt_xstrdup(pod ? pod : "");
		*uuid = id && *id ? gt_xstrdup(id) : NULL;
		found = 1;
		break;
	}
	json_decref(list);
	return found;
}

/*
 * Create the group's reservation pod; its name, or NULL with @err. A pod of
 * that name already there (another binder, an earlier attempt) is the
 * group's: it is used, as KAI uses it (@created false).
 */
static char *create_reservation(struct gt_binder *b, const struct resv *r, bool *created, char **err)
{
	char path[400], name[GT_RESERVATION_NAME_LEN];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods", b->o.ns);
	gt_binder_reservation_name(r->node, r->group, name);
	char *body = gt_json_dump_take(reservation_pod(b, name, r));
	struct gt_kube_resp resp;
	gt_kube_call(b->kw.cl, GT_VERB_POST, "POST", path, "application/json", body, &resp);
	free(body);
	long st = resp.status;
	*created = st == 201 || st == 200;
	if (*created || st == 409) {
		gt_kube_resp_release(&resp);
		gt_log(GT_LOG_INFO, "binder", "%s reservation pod %s/%s for GPU group %s on node %s",
		       *created ? "created" : "reusing the existing", b->o.ns, name, r->group, r->node);
		return gt_xstrdup(name);
	}
	char msg[800];
	snprintf(msg, sizeof(msg), "cannot create reservation pod %s/%s: %s", b->o.ns, name, gt_kube_why(&resp));
	*err = gt_xstrdup(msg);
	gt_kube_resp_release(&resp);
	return NULL;
}

/* Delete reservation pod @pod (when @uid, only that one); the HTTP status, 0 when unreachable. */
static long delete_reservation_as(struct gt_binder *b, const char *pod, const char *uid, const char *then)
{
	char path[600], body[300];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s", b->o.ns, pod);
	int n = snprintf(body, sizeof(body), "{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\",\"gracePeriodSeconds\":0");
	if (uid)
		n += snprintf(body + n, sizeof(body) - (size_t)n, ",\"preconditions\":{\"uid\":\"%s\"}", uid);
	snprintf(body + n, sizeof(body) - (size_t)n, "}");
	struct gt_kube_resp resp;
	gt_kube_call(b->kw.cl, GT_VERB_DELETE, "DELETE", path, "application/json", body, &resp);
	long st = resp.status;
	if (st != 200 && st != 202 && st != 404 && !(uid && st == 409))
		gt_log(GT_LOG_WARN, "binder", "delete reservation pod %s/%s: %s (%s)", b->o.ns, pod, gt_kube_why(&resp),
		       then);
	else if (st != 404 && st != 409)
		gt_log(GT_LOG_INFO, "binder", "deleted reservation pod %s/%s", b->o.ns, pod);
	gt_kube_resp_release(&resp);
	return st;
}

static void delete_reservation(struct gt_binder *b, const char *pod)
{
	delete_reservation_as(b, pod, NULL, "the plan's garbage collection will try again");
}

/* Find or create @r's reservation pod (a worker, lock not held, r->busy is ours). */
static void reserve(struct gt_binder *b, struct resv *r)
{
	char *name = NULL, *uuid = NULL, *err = NULL;
	int found = find_reservation(b, r, &name, &uuid, &err);
	bool created = false;
	if (found == 0)
		name = create_reservation(b, r, &created, &err);
	pthread_mutex_lock(&b->mu);
	r->busy = false;
	r->pod = name;
	r->uuid = uuid;
	r->error = err;
	r->created = created;
	r->deadline = gt_mono_s() + b->o.timeout_s;
	pthread_mutex_unlock(&b->mu);
}

/* ---------------------------------------------------------------- the pod */

/* A ConfigMap of the pod: created (1), updated (0), or not (-1, logged). */
static int upsert_configmap(struct gt_binder *b, const struct gt_kop *op, const char *name, json_t *data)
{
	char path[800];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps", op->ns);
	json_t *cm = json_pack("{s:s, s:s, s:{s:s, s:s, s:[{s:s, s:s, s:s, s:s}]}, s:O}", "apiVersion", "v1",
			       "kind", "ConfigMap", "metadata", "name", name, "namespace", op->ns, "ownerReferences",
			       "apiVersion", "v1", "kind", "Pod", "name", op->name, "uid", op->uid, "data", data);
	char *body = gt_json_dump_take(cm);
	struct gt_kube_resp r;
	gt_kube_call(b->kw.cl, GT_VERB_POST, "POST", path, "application/json", body, &r);
	free(body);
	int rc = r.status == 201 || r.status == 200 ? 1 : -1;
	if (r.status == 409) {
		/* left by an earlier attempt or made by hand: bring its data up to date */
		gt_kube_resp_release(&r);
		snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps/%s", op->ns, name);
		body = gt_json_dump_take(json_pack("{s:O}", "data", data));
		gt_kube_call(b->kw.cl, GT_VERB_PATCH, "PATCH", path, "application/merge-patch+json", body, &r);
		free(body);
		rc = r.status == 200 ? 0 : -1;
	}
	if (rc < 0)
		gt_log(GT_LOG_WARN, "binder", "bind pod %s/%s: ConfigMap %s/%s: %s", op->ns, op->name, op->ns, name,
		       gt_kube_why(&r));
	gt_kube_resp_release(&r);
	return rc;
}

static void delete_configmap(struct gt_binder *b, const struct gt_kop *op, const char *name)
{
	char path[800];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps/%s", op->ns, name);
	struct gt_kube_resp r;
	gt_kube_call(b->kw.cl, GT_VERB_DELETE, "DELETE", path, NULL, NULL, &r);
	if (r.status != 200 && r.status != 202 && r.status != 404)
		gt_log(GT_LOG_WARN, "binder", "roll back pod %s/%s: delete ConfigMap %s: %s (it goes with the "
		       "pod, its owner)", op->ns, op->name, name, gt_kube_why(&r));
	gt_kube_resp_release(&r);
}

/* The shared-GPU ConfigMaps; @created[0..1] say which this call made. False on failure. */
static bool write_configmaps(struct gt_binder *b, const struct job *j, bool created[2])
{
	const struct gt_kop *op = &j->op;
	char uuids[GT_MAX_DEVICES * 100] = "";
	for (uint8_t g = 0; g < op->n_groups; g++) {
		size_t n = strlen(uuids);
		snprintf(uuids + n, sizeof(uuids) - n, "%s%s", g ? "," : "", j->r[g]->uuid);
	}
	json_t *caps = json_pack("{s:s, s:s}", "GPU_PORTION", op->portion, "RUNAI_NUM_OF_GPUS", op->portion);
	json_t *evar = json_object();
	json_object_set_new(op->visible_in_caps ? caps : evar, "NVIDIA_VISIBLE_DEVICES", json_string(uuids));
	int a = upsert_configmap(b, op, op->cm_caps, caps);
	int e = a < 0 ? -1 : upsert_configmap(b, op, op->cm_evar, evar);
	json_decref(caps);
	json_decref(evar);
	created[0] = a == 1;
	created[1] = e == 1;
	return a >= 0 && e >= 0;
}

/* Label, ConfigMaps, bind; roll back what was done when a step fails. True when bound. */
static bool bind_pod(struct gt_binder *b, const struct job *j)
{
	const struct gt_kop *op = &j->op;
	bool created[2] = { false, false };
	if (!gt_kw_patch_groups(&b->kw, op, false))
		return false;
	bool ok = !op->cm_caps || write_configmaps(b, j, created);
	ok = ok && gt_kw_bind(&b->kw, op);
	if (ok)
		return true;
	for (int i = 0; i < 2; i++)
		if (created[i])
			delete_configmap(b, op, i ? op->cm_evar : op->cm_caps);
	gt_kw_patch_groups(&b->kw, op, true);
	gt_log(GT_LOG_INFO, "binder", "pod %s/%s: bind rolled back (labels%s); the next cycle places it again",
	       op->ns, op->name, created[0] || created[1] ? ", ConfigMaps" : "");
	return false;
}

/*
 * A bind failed: the reservation pods it made that no pod was bound on go
 * now, when the reservation failed (it never reported; KAI deletes it too)
 * or no other bind waits on it, so that the retry finds the GPU free
 * rather than racing the plan's garbage collection. Each goes once.
 */
static void release_reservations(struct gt_binder *b, struct job *j)
{
	char *doomed[GT_MAX_DEVICES];
	int n = 0;
	pthread_mutex_lock(&b->mu);
	for (uint8_t g = 0; g < j->op.n_groups; g++) {
		struct resv *r = j->r[g];
		if (r->created && !r->used && r->pod && (r->error || r->refs == 1)) {
			doomed[n++] = r->pod;
			r->pod = NULL;
			r->created = false;
		}
	}
	pthread_mutex_unlock(&b->mu);
	for (int i = 0; i < n; i++) {
		delete_reservation(b, doomed[i]);
		free(doomed[i]);
	}
}

static void step_finish(struct gt_binder *b, struct job *j)
{
	const struct gt_kop *op = &j->op;
	double t0 = gt_mono_ms();
	bool bound = bind_pod(b, j);
	if (b->n.bind_ms)
		gt_histogram_observe(b->n.bind_ms, gt_mono_ms() - t0);
	if (bound) {
		atomic_fetch_add(b->n.binds, 1);
		pthread_mutex_lock(&b->mu);
		for (uint8_t g = 0; g < op->n_groups; g++)
			j->r[g]->used = true;
		pthread_mutex_unlock(&b->mu);
		char gpus[GT_MAX_DEVICES * 100] = "";
		for (uint8_t g = 0; g < op->n_groups; g++) {
			size_t n = strlen(gpus);
			snprintf(gpus + n, sizeof(gpus) - n, "%s%s", g ? "," : "", j->r[g]->uuid);
		}
		gt_log(GT_LOG_DEBUG, "binder", "bound pod %s/%s to node %s, GPU %s", op->ns, op->name, op->node, gpus);
		/* the in-flight entry stays until the pod's watch event shows it bound */
		bool ok = gt_kw_event(&b->kw, GT_KRES_PODS, op->ns, op->name, op->uid, op->reason, op->message, false);
		atomic_fetch_add(ok ? b->n.events : b->n.event_errors, 1);
	} else {
		atomic_fetch_add(b->n.errors, 1);
		release_reservations(b, j);
		gt_cache_inflight_drop(b->cache, j->key, op->uid);
	}
	finish_job(b, j, bound);
}

/* A group failed: give the bind up. */
static void step_fail(struct gt_binder *b, struct job *j)
{
	const struct gt_kop *op = &j->op;
	char why[800] = "";
	pthread_mutex_lock(&b->mu);
	for (uint8_t g = 0; g < op->n_groups && !*why; g++)
		if (j->r[g]->error)
			snprintf(why, sizeof(why), "%s", j->r[g]->error);
	pthread_mutex_unlock(&b->mu);
	release_reservations(b, j);
	gt_log(GT_LOG_WARN, "binder", "bind pod %s/%s to node %s: %s; the next cycle places it again", op->ns,
	       op->name, op->node, why);
	atomic_fetch_add(b->n.errors, 1);
	gt_cache_inflight_drop(b->cache, j->key, op->uid);
	j->why = gt_xstrdup(why);
	finish_job(b, j, false);
}

/* Is @group held for an idle reservation pod's deletion? Lock held. */
static bool held(const struct gt_binder *b, const char *group)
{
	for (size_t i = 0; i < b->n_held; i++)
		if (!strcmp(b->held[i], group))
			return true;
	return false;
}

/* Hold @group against new reservations; false when a bind has it now. */
static bool hold_group(struct gt_binder *b, const char *group)
{
	pthread_mutex_lock(&b->mu);
	bool busy = held(b, group);
	for (struct resv *r = b->resvs; r && !busy; r = r->next)
		busy = !strcmp(r->group, group);
	if (!busy)
		GT_PUSH(b->held, b->n_held, b->cap_held, gt_xstrdup(group));
	pthread_mutex_unlock(&b->mu);
	return !busy;
}

static void unhold_group(struct gt_binder *b, const char *group)
{
	pthread_mutex_lock(&b->mu);
	for (size_t i = 0; i < b->n_held; i++)
		if (!strcmp(b->held[i], group)) {
			free(b->held[i]);
			b->held[i] = b->held[--b->n_held];
			break;
		}
	pthread_cond_broadcast(&b->unheld);
	pthread_mutex_unlock(&b->mu);
}

enum gt_resv_delete gt_binder_delete_idle(struct gt_binder *b, const char *group, const char *pod, const char *uid)
{
	if (!hold_group(b, group))
		return GT_RESV_BUSY;
	long st = delete_reservation_as(b, pod, uid, "the next sync tries again");
	unhold_group(b, group);
	if (st == 200 || st == 202)
		return GT_RESV_DELETED;
	return st == 404 || st == 409 ? GT_RESV_GONE : GT_RESV_ERROR;
}

static void step_reserve(struct gt_binder *b, struct job *j)
{
	for (uint8_t g = 0; g < j->op.n_groups; g++) {
		struct resv *r = j->r[g];
		pthread_mutex_lock(&b->mu);
		while (held(b, r->group) && !b->quit)
			pthread_cond_wait(&b->unheld, &b->mu);
		bool mine = !r->pod && !r->busy && !r->error;
		if (mine)
			r->busy = true;
		pthread_mutex_unlock(&b->mu);
		if (mine)
			reserve(b, r);
	}
	pthread_mutex_lock(&b->mu);
	push(&b->parked, j);
	pthread_mutex_unlock(&b->mu);
	gt_cache_wake(b->cache);	/* the waiter looks at once: the pod may have reported already */
}

static void run_step(struct gt_binder *b, struct job *j)
{
	static void (*const run[])(struct gt_binder *, struct job *) = {
		[STEP_RESERVE] = step_reserve, [STEP_FINISH] = step_finish, [STEP_FAIL] = step_fail,
	};
	run[j->step](b, j);
}

/* ---------------------------------------------------------------- waiting */

/* The GPU UUID the reservation pod reported, from the cache (the pods watch), or NULL. */
static char *reported_uuid(struct gt_binder *b, const char *pod)
{
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", b->o.ns, pod);
	struct gt_kobj *o = gt_cache_get(b->cache, GT_KRES_PODS, key);
	if (!o)
		return NULL;
	const char *id = gt_doc_str(gt_doc_path(o->doc, "metadata.annotations"), GPU_ANNOTATION);
	char *out = id && *id ? gt_xstrdup(id) : NULL;
	gt_kobj_unref(o);
	return out;
}

/* Where a parked bind stands: STEP_RESERVE still waiting, STEP_FINISH ready, STEP_FAIL failed. Lock held. */
static enum step judge(struct gt_binder *b, struct job *j, double now, bool *again)
{
	enum step verdict = STEP_FINISH;
	for (uint8_t g = 0; g < j->op.n_groups; g++) {
		struct resv *r = j->r[g];
		if (r->error)
			return STEP_FAIL;
		if (!r->pod) {
			/* nobody is finding it (its finder gave up, or it was deleted): this bind does */
			*again |= !r->busy;
			verdict = STEP_RESERVE;
			continue;
		}
		if (!r->uuid)
			r->uuid = reported_uuid(b, r->pod);
		if (r->uuid)
			continue;
		if (now > r->deadline) {
			char msg[800];
			snprintf(msg, sizeof(msg), "the reservation pod %s/%s of GPU group %s did not report its GPU "
				 "(annotation " GPU_ANNOTATION ") within %.0f s", b->o.ns, r->pod, r->group,
				 b->o.timeout_s);
			set_str(&r->error, msg);
			return STEP_FAIL;
		}
		verdict = STEP_RESERVE;
	}
	return verdict;
}

static void run_task(void *arg, size_t i)
{
	(void)i;
	struct job *j = arg;
	run_step(j->b, j);
}

/*
 * Move the parked binds whose reservations are ready (or failed) to the
 * pool; lock held. Returns the earliest deadline of those still waiting,
 * or 0 when none waits.
 */
static double poll_parked(struct gt_binder *b)
{
	double now = gt_mono_s(), next = 0;
	struct job **p = &b->parked;
	while (*p) {
		struct job *j = *p;
		bool again = false;
		enum step s = judge(b, j, now, &again);
		if (s == STEP_RESERVE && !again) {
			for (uint8_t g = 0; g < j->op.n_groups; g++)
				if (j->r[g]->pod && !j->r[g]->uuid && (!next || j->r[g]->deadline < next))
					next = j->r[g]->deadline;
			p = &j->next;
			continue;
		}
		*p = j->next;
		j->step = s;
		gt_pool_submit(b->pool, run_task, j);
	}
	return next;
}

/* The waiter: a parked bind moves on when its reservation pod's watch event comes, or at its deadline. */
static void *waiter(void *arg)
{
	struct gt_binder *b = arg;
	unsigned mask = GT_KRES_BIT(GT_KRES_PODS) | GT_KRES_WAKE;
	pthread_mutex_lock(&b->mu);
	while (!b->quit) {
		uint64_t seen = gt_cache_version(b->cache, mask);
		double next = b->parked ? poll_parked(b) : 0;
		pthread_mutex_unlock(&b->mu);
		gt_cache_wait(b->cache, mask, seen, next);
		pthread_mutex_lock(&b->mu);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

/* ---------------------------------------------------------------- life */

struct gt_binder *gt_binder_new(const struct gt_kw *kw, struct gt_cache *cache,
				struct gt_binder_counters counters, const struct gt_binder_opts *o)
{
	struct gt_binder *b = gt_xcalloc(1, sizeof(*b));
	b->kw = *kw;
	b->cache = cache;
	b->n = counters;
	b->o = *o;
	b->o.ns = o->ns ? o->ns : GT_RESERVATION;
	b->o.image = o->image ? o->image : DEFAULT_IMAGE;
	b->o.service_account = o->service_account ? o->service_account : GT_RESERVATION;
	b->o.runtime_class = o->runtime_class ? o->runtime_class : DEFAULT_RUNTIME;
	b->o.timeout_s = o->timeout_s > 0 ? o->timeout_s : DEFAULT_TIMEOUT_S;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	b->seed = (unsigned)ts.tv_nsec ^ ((unsigned)getpid() << 16);
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->idle, NULL);
	pthread_cond_init(&b->unheld, NULL);
	b->pool = gt_pool_new(o->workers > 0 ? o->workers : DEFAULT_WORKERS, "binder");
	gt_thread_start(&b->waiter, waiter, b, "the binder's waiter");
	return b;
}

void gt_binder_submit(struct gt_binder *b, const struct gt_kop *op)
{
	gt_binder_submit_then(b, op, NULL, NULL);
}

void gt_binder_submit_then(struct gt_binder *b, const struct gt_kop *op, gt_binder_done_fn done, void *arg)
{
	struct job *j = gt_xcalloc(1, sizeof(*j));
	j->done = done;
	j->done_arg = arg;
	gt_kop_copy(&j->op, op);
	snprintf(j->key, sizeof(j->key), "%s/%s", op->ns, op->name);
	/* before anything is written: from now on the snapshot sees the pod Binding */
	gt_cache_inflight_put(b->cache, j->key, op->uid, op->node, op->groups, op->n_groups);
	pthread_mutex_lock(&b->mu);
	for (uint8_t g = 0; g < op->n_groups; g++)
		j->r[g] = attach(b, op->groups[g], op->node, op->tolerations);
	j->step = STEP_RESERVE;
	j->b = b;
	b->pending++;
	pthread_mutex_unlock(&b->mu);
	gt_pool_submit(b->pool, run_task, j);
}

size_t gt_binder_pending(struct gt_binder *b)
{
	pthread_mutex_lock(&b->mu);
	size_t n = b->pending;
	pthread_mutex_unlock(&b->mu);
	return n;
}

/* A bind given up at shutdown: nothing was applied to its pod (labels come last). */
static void cancel(struct gt_binder *b, struct job *j)
{
	for (uint8_t g = 0; g < j->op.n_groups; g++) {
		struct resv *r = j->r[g];
		if (r->created && !r->used && r->pod) {
			delete_reservation(b, r->pod);
			set_str(&r->pod, NULL);
			r->created = false;
		}
	}
	gt_log(GT_LOG_INFO, "binder", "bind pod %s/%s given up at shutdown: it was waiting for its reservation pod",
	       j->op.ns, j->op.name);
	gt_cache_inflight_drop(b->cache, j->key, j->op.uid);
	j->why = gt_xstrdup("given up at shutdown while waiting for the reservation pod");
	finish_job(b, j, false);
}

void gt_binder_wait_idle(struct gt_binder *b)
{
	pthread_mutex_lock(&b->mu);
	while (b->pending && !gt_stop_requested())
		pthread_cond_wait(&b->idle, &b->mu);
	pthread_mutex_unlock(&b->mu);
}

void gt_binder_wake(struct gt_binder *b)
{
	pthread_mutex_lock(&b->mu);
	pthread_cond_broadcast(&b->idle);
	pthread_mutex_unlock(&b->mu);
}

static void cancel_dropped(void *arg)
{
	struct job *j = arg;
	cancel(j->b, j);
}

void gt_binder_free(struct gt_binder *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&b->mu);
	b->quit = true;
	pthread_cond_broadcast(&b->unheld);
	pthread_mutex_unlock(&b->mu);
	gt_cache_wake(b->cache);
	pthread_join(b->waiter, NULL);
	/* steps in progress finish; binds not started and those waiting are given up */
	gt_pool_free(b->pool, cancel_dropped);
	for (struct job *j = b->parked, *next; j; j = next) {
		next = j->next;
		cancel(b, j);
	}
	b->parked = NULL;
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->idle);
	pthread_cond_destroy(&b->unheld);
	for (size_t i = 0; i < b->n_held; i++)
		free(b->held[i]);
	free(b->held);
	free(b);
}
