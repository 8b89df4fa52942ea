/*
 * keeper.c - the Secret, the served certificate and the configurations (see keeper.h)
 */
#include "admission/keeper.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/json.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/thread.h"
#include "util/time.h"

#define RETRY_S 5.0		/* after an API error */
#define REAPPLY_S 600.0		/* configurations put back this often even when nothing changed */
#define NEW_CA_GRACE_S 3.0	/* between a new bundle applied and a certificate of its new CA served */
#define FIELD_MANAGER "gantry-admission"

struct gt_keeper {
	struct gt_kube_client *cl;
	const struct gt_keeper_opts *o;
	pthread_t thread;
	atomic_bool ready;
	char *owner_uid;		/* the owning ClusterRole's, once read */
	bool owner_warned;
	char *applied_bundle;		/* the caBundle the configurations carry */
	double applied_at, bundle_changed_at;
	char *served;			/* the serving certificate in use */
};

static const char *const KEYS[] = { "ca.crt", "ca.key", "tls.crt", "tls.key" };

static char **slot(struct gt_tls_material *m, size_t i)
{
	char **slots[] = { &m->ca_crt, &m->ca_key, &m->tls_crt, &m->tls_key };
	return slots[i];
}

/* --- the Secret ------------------------------------------------------------------------------ */

static void secret_path(const struct gt_keeper *k, char *path, size_t len, bool named)
{
	snprintf(path, len, "/api/v1/namespaces/%s/secrets%s%s", k->o->ns, named ? "/" : "", named ? k->o->secret : "");
}

/* 1 read (@m filled, the object in *@obj), 0 absent, -1 an error (logged). */
static int read_secret(struct gt_keeper *k, struct gt_tls_material *m, json_t **obj)
{
	char path[600];
	secret_path(k, path, sizeof(path), true);
	struct gt_kube_resp r;
	gt_kube_call(k->cl, GT_VERB_GET, "GET", path, NULL, NULL, &r);
	int rc = r.status == 404 ? 0 : -1;
	*obj = r.status == 200 ? json_loads(r.body, 0, NULL) : NULL;
	if (*obj) {
		json_t *data = json_object_get(*obj, "data");
		for (size_t i = 0; i < 4; i++) {
			const char *b64 = json_string_value(json_object_get(data, KEYS[i]));
			unsigned char *raw;
			size_t len;
			if (b64 && !gt_base64_decode(b64, &raw, &len))
				*slot(m, i) = (char *)raw;
		}
		rc = 1;
	} else if (rc < 0) {
		gt_log(GT_LOG_WARN, "admission", "read Secret %s/%s: %s", k->o->ns, k->o->secret, gt_kube_why(&r));
	}
	gt_kube_resp_release(&r);
	return rc;
}

/* Write @m into Secret @obj (NULL: create it). 0 written, 1 someone else wrote first (read again), -1 failed. */
static int write_secret(struct gt_keeper *k, const struct gt_tls_material *m, json_t *obj)
{
	json_t *o = obj ? json_deep_copy(obj) :
		    json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:{s:s, s:s}}}", "apiVersion", "v1", "kind", "Secret",
			      "type", "kubernetes.io/tls", "metadata", "name", k->o->secret, "namespace", k->o->ns,
			      "labels", "app.kubernetes.io/name", "gantry", "app.kubernetes.io/component", "admission");
	json_t *data = json_object_get(o, "data");
	if (!json_is_object(data)) {
		data = json_object();
		json_object_set_new(o, "data", data);
	}
	for (size_t i = 0; i < 4; i++) {
		const char *v = *slot((struct gt_tls_material *)m, i);
		char *b64 = gt_base64_encode((const unsigned char *)(v ? v : ""), v ? strlen(v) : 0);
		json_object_set_new(data, KEYS[i], json_string(b64));
		free(b64);
	}
	char path[600];
	secret_path(k, path, sizeof(path), obj != NULL);
	char *body = gt_json_dump_take(o);
	struct gt_kube_resp r;
	if (obj)
		gt_kube_call(k->cl, GT_VERB_PUT, "PUT", path, "application/json", body, &r);
	else
		gt_kube_call(k->cl, GT_VERB_POST, "POST", path, "application/json", body, &r);
	free(body);
	int rc = r.status == 200 || r.status == 201 ? 0 : r.status == 409 ? 1 : -1;
	if (rc < 0)
		gt_log(GT_LOG_WARN, "admission", "write Secret %s/%s: %s", k->o->ns, k->o->secret, gt_kube_why(&r));
	gt_kube_resp_release(&r);
	return rc;
}

/* --- the configurations ------------------------------------------------------------------- */

/* The owning ClusterRole's uid, read once (a failure is warned about once and tried again). */
static void look_up_owner(struct gt_keeper *k)
{
	const char *name = k->o->reg.owner_name;
	if (!name || k->owner_uid)
		return;
	char path[400];
	snprintf(path, sizeof(path), "/apis/rbac.authorization.k8s.io/v1/clusterroles/%s", name);
	struct gt_kube_resp r;
	gt_kube_call(k->cl, GT_VERB_GET, "GET", path, NULL, NULL, &r);
	json_t *j = r.status == 200 ? json_loads(r.body, 0, NULL) : NULL;
	const char *uid = json_string_value(json_object_get(json_object_get(j, "metadata"), "uid"));
	if (uid)
		k->owner_uid = gt_xstrdup(uid);
	else if (!k->owner_warned)
		gt_log(GT_LOG_WARN, "admission", "ClusterRole %s, the webhook configurations' owner: %s; they are "
		       "registered without an owner (uninstalling will not remove them) until it can be read", name,
		       gt_kube_why(&r));
	k->owner_warned |= !uid;
	json_decref(j);
	gt_kube_resp_release(&r);
}

static bool apply_one(struct gt_keeper *k, const char *resource, json_t *cfg)
{
	const char *name = json_string_value(json_object_get(json_object_get(cfg, "metadata"), "name"));
	char path[600];
	snprintf(path, sizeof(path), "/apis/admissionregistration.k8s.io/v1/%s/%s?fieldManager=%s&force=true", resource,
		 name, FIELD_MANAGER);
	char *body = gt_json_dump_take(cfg);
	struct gt_kube_resp r;
	gt_kube_call(k->cl, GT_VERB_PATCH, "PATCH", path, "application/apply-patch+yaml", body, &r);
	free(body);
	bool ok = r.status == 200 || r.status == 201;
	if (!ok)
		gt_log(GT_LOG_WARN, "admission", "apply %s %s: %s", resource, name, gt_kube_why(&r));
	gt_kube_resp_release(&r);
	return ok;
}

static bool apply_configurations(struct gt_keeper *k, const char *bundle)
{
	struct gt_registration reg = k->o->reg;
	reg.owner_uid = k->owner_uid;
	return apply_one(k, "mutatingwebhookconfigurations", gt_registration_mutating(&reg, bundle)) &&
	       apply_one(k, "validatingwebhookconfigurations", gt_registration_validating(&reg, bundle));
}

/* Bring the configurations to @bundle when it changed, at start and every REAPPLY_S. False on failure. */
static bool register_bundle(struct gt_keeper *k, const char *bundle, double now)
{
	bool changed = !k->applied_bundle || strcmp(k->applied_bundle, bundle);
	bool had_owner = k->owner_uid != NULL;
	look_up_owner(k);
	if (!changed && now - k->applied_at < REAPPLY_S && had_owner == (k->owner_uid != NULL))
		return true;
	if (!apply_configurations(k, bundle))
		return false;
	if (changed) {
		gt_log(GT_LOG_INFO, "admission", "webhook configurations %s and %s registered with a caBundle of %zu "
		       "CA certificate(s)", k->o->reg.mutating_name, k->o->reg.validating_name, gt_cert_count(bundle));
		if (k->applied_bundle)
			k->bundle_changed_at = now;
		free(k->applied_bundle);
		k->applied_bundle = gt_xstrdup(bundle);
	}
	k->applied_at = now;
	return true;
}

/* --- one look ------------------------------------------------------------------------------ */

/* Serve @m's certificate if it is not already: 0, or seconds to wait (a new CA's grace), -1 on failure. */
static double serve(struct gt_keeper *k, const struct gt_tls_material *m, double now)
{
	if (k->served && !strcmp(k->served, m->tls_crt))
		return 0;
	if (k->bundle_changed_at && now - k->bundle_changed_at < NEW_CA_GRACE_S)
		return NEW_CA_GRACE_S - (now - k->bundle_changed_at);
	struct gt_err err = { 0 };
	if (gt_webhook_server_set_cert(k->o->server, m->tls_crt, m->tls_key, &err)) {
		gt_log(GT_LOG_ERROR, "admission", "Secret %s/%s: %s", k->o->ns, k->o->secret, err.msg);
		return -1;
	}
	int64_t nb = 0, na = 0;
	char until[40] = "?";
	if (!gt_cert_validity(m->tls_crt, &nb, &na))
		gt_time_format(na, until, sizeof(until));
	gt_log(GT_LOG_INFO, "admission", "serving the certificate of Secret %s/%s, valid until %s", k->o->ns,
	       k->o->secret, until);
	free(k->served);
	k->served = gt_xstrdup(m->tls_crt);
	return 0;
}

/* Make or renew what the policy says: 0 nothing to do, 1 written (read it back), -1 failed. */
static int renew(struct gt_keeper *k, struct gt_tls_material *m, json_t *obj, int64_t now, int64_t *due_at)
{
	char why[200];
	enum gt_tls_action a = gt_tls_plan(m, &k->o->policy, now, due_at, why, sizeof(why));
	if (a == GT_TLS_KEEP)
		return 0;
	gt_log(GT_LOG_INFO, "admission", "Secret %s/%s: %s: making a new %s", k->o->ns, k->o->secret, why,
	       a == GT_TLS_NEW_CA ? "CA and serving certificate" : "serving certificate");
	struct gt_err err = { 0 };
	if (gt_tls_renew(m, a, &k->o->policy, now, &err)) {
		gt_log(GT_LOG_ERROR, "admission", "%s", err.msg);
		return -1;
	}
	return write_secret(k, m, obj) < 0 ? -1 : 1;
}

/* Seconds until the next look. */
static double look(struct gt_keeper *k)
{
	struct gt_tls_material m = { 0 };
	json_t *obj = NULL;
	int64_t now = (int64_t)time(NULL), due_at = 0;
	double wait = k->o->check_s;
	int found = read_secret(k, &m, &obj);
	if (found < 0 || (found == 0 && !k->o->self_signed)) {
		if (found == 0)
			gt_log(GT_LOG_WARN, "admission", "Secret %s/%s does not exist (--tls-self-signed=false: it is "
			       "made by someone else)", k->o->ns, k->o->secret);
		wait = RETRY_S;
		goto out;
	}
	if (k->o->self_signed) {
		int rc = renew(k, &m, obj, now, &due_at);
		if (rc) {
			wait = rc < 0 ? RETRY_S : 0;	/* written: read back what is there now */
			goto out;
		}
	}
	const char *bundle = m.ca_crt ? m.ca_crt : m.tls_crt;
	if (!bundle || !m.tls_crt || !m.tls_key) {
		gt_log(GT_LOG_WARN, "admission", "Secret %s/%s has no tls.crt and tls.key", k->o->ns, k->o->secret);
		wait = RETRY_S;
		goto out;
	}
	double mono = gt_mono_s();
	if (k->o->register_webhooks && !register_bundle(k, bundle, mono)) {
		wait = RETRY_S;
		goto out;
	}
	double hold = serve(k, &m, mono);
	if (hold)
		wait = hold < 0 ? RETRY_S : hold;
	else
		atomic_store(&k->ready, true);
	if (due_at && (double)(due_at - now) + 1 < wait)
		wait = (double)(due_at - now) + 1;
out:
	json_decref(obj);
	gt_tls_material_release(&m);
	return wait;
}

static void *run(void *arg)
{
	struct gt_keeper *k = arg;
	while (!gt_kube_client_stopping(k->cl)) {
		double wait = look(k);
		if (wait > 0 && !gt_kube_client_nap(k->cl, wait))
			break;
	}
	return NULL;
}

struct gt_keeper *gt_keeper_start(struct gt_kube_client *cl, const struct gt_keeper_opts *o)
{
	struct gt_keeper *k = gt_xcalloc(1, sizeof(*k));
	k->cl = cl;
	k->o = o;
	gt_thread_start(&k->thread, run, k, "the certificates' keeper thread");
	return k;
}

bool gt_keeper_ready(const struct gt_keeper *k)
{
	return k && atomic_load(&((struct gt_keeper *)k)->ready);
}

void gt_keeper_stop(struct gt_keeper *k)
{
	if (!k)
		return;
	pthread_join(k->thread, NULL);
	free(k->owner_uid);
	free(k->applied_bundle);
	free(k->served);
	free(k);
}
