#include "kube/leader.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/json.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/thread.h"
#include "util/time.h"

struct gt_leader {
	pthread_t thread;
	struct gt_kube_client *cl;
	char *ns, *name, *identity;
	double lease_s, renew_s, retry_s;
	void (*on_change)(void *arg);
	void *arg;
	atomic_bool leader, lost, quit;
	pthread_mutex_t mu;	/* for the wait between attempts */
	pthread_cond_t stop;	/* gt_leader_stop() */
	/* what we last saw of the record, and when (monotonic) */
	char *seen_holder, *seen_renew;
	double seen_at;
	double renewed_at;	/* our last successful renew */
	char *rv;		/* resourceVersion of our last write or read */
	long long transitions;
};

static void path_of(const struct gt_leader *l, bool item, char *buf, size_t len)
{
	snprintf(buf, len, "/apis/coordination.k8s.io/v1/namespaces/%s/leases%s%s", l->ns, item ? "/" : "",
		 item ? l->name : "");
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? gt_xstrdup(v) : NULL;
}

/* Write the lease (create when @rv is NULL). True when the server took it. */
static bool write_lease(struct gt_leader *l, const char *rv, const char *holder, const char *acquire,
			long long transitions, int duration)
{
	char now[48], path[600];
	gt_time_now_rfc3339(now, sizeof(now), 6);
	json_t *md = json_pack("{s:s, s:s}", "name", l->name, "namespace", l->ns);
	if (rv)
		json_object_set_new(md, "resourceVersion", json_string(rv));
	json_t *spec = json_pack("{s:s, s:i, s:s, s:I}", "holderIdentity", holder, "leaseDurationSeconds",
				 duration, "renewTime", now, "leaseTransitions", (json_int_t)transitions);
	json_object_set_new(spec, "acquireTime", json_string(acquire ? acquire : now));
	json_t *lease = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "coordination.k8s.io/v1", "kind",
				  "Lease", "metadata", md, "spec", spec);
	char *body = gt_json_dump_take(lease);
	path_of(l, rv != NULL, path, sizeof(path));
	struct gt_kube_resp r;
	gt_kube_request(l->cl, rv ? GT_VERB_PUT : GT_VERB_POST, rv ? "PUT" : "POST", path, "application/json",
			body, &r);
	free(body);
	bool ok = r.status == 200 || r.status == 201;
	if (ok) {
		json_t *j = json_loads(r.body, 0, NULL);
		set_str(&l->rv, json_string_value(json_object_get(json_object_get(j, "metadata"), "resourceVersion")));
		l->transitions = transitions;
		json_decref(j);
	} else if (r.status != 409) {
		gt_log(GT_LOG_WARN, "leader", "writing lease %s/%s: %s", l->ns, l->name,
		       r.status ? "unexpected status" : r.error);
	}
	gt_kube_resp_release(&r);
	return ok;
}

static void try_acquire_or_renew(struct gt_leader *l)
{
	char path[600];
	path_of(l, true, path, sizeof(path));
	struct gt_kube_resp r;
	gt_kube_request(l->cl, GT_VERB_GET, "GET", path, NULL, NULL, &r);
	double now = gt_mono_s();
	bool was = atomic_load(&l->leader);
	bool ok = false;
	if (r.status == 404) {
		ok = write_lease(l, NULL, l->identity, NULL, 0, (int)l->lease_s);
	} else if (r.status == 200) {
		json_t *j = json_loads(r.body, 0, NULL);
		json_t *spec = json_object_get(j, "spec");
		const char *holder = json_string_value(json_object_get(spec, "holderIdentity"));
		const char *renew = json_string_value(json_object_get(spec, "renewTime"));
		const char *acquire = json_string_value(json_object_get(spec, "acquireTime"));
		const char *rv = json_string_value(json_object_get(json_object_get(j, "metadata"), "resourceVersion"));
		json_int_t dur = json_integer_value(json_object_get(spec, "leaseDurationSeconds"));
		long long transitions = json_integer_value(json_object_get(spec, "leaseTransitions"));
		bool changed = !l->seen_holder || strcmp(l->seen_holder, holder ? holder : "") ||
			       strcmp(l->seen_renew ? l->seen_renew : "", renew ? renew : "");
		if (changed) {
			set_str(&l->seen_holder, holder ? holder : "");
			set_str(&l->seen_renew, renew ? renew : "");
			l->seen_at = now;
		}
		bool mine = holder && !strcmp(holder, l->identity);
		bool free_ = !holder || !*holder;
		bool expired = now > l->seen_at + (double)(dur > 0 ? dur : (json_int_t)l->lease_s);
		if (mine)
			ok = write_lease(l, rv, l->identity, acquire, transitions, (int)l->lease_s);
		else if (free_ || expired)
			ok = write_lease(l, rv, l->identity, NULL, transitions + 1, (int)l->lease_s);
		json_decref(j);
	} else {
		gt_log(GT_LOG_WARN, "leader", "reading lease %s/%s: %s", l->ns, l->name,
		       r.status ? "unexpected status" : r.error);
	}
	gt_kube_resp_release(&r);
	if (ok) {
		l->renewed_at = now;
		if (!was)
			gt_log(GT_LOG_INFO, "leader", "became the leader (lease %s/%s, identity %s)", l->ns, l->name,
			       l->identity);
		atomic_store(&l->leader, true);
	} else if (was && now - l->renewed_at > l->renew_s) {
		gt_log(GT_LOG_ERROR, "leader", "lost the lease %s/%s: not renewed within %.0f s", l->ns, l->name,
		       l->renew_s);
		atomic_store(&l->leader, false);
		atomic_store(&l->lost, true);
	}
	if (l->on_change && was != atomic_load(&l->leader))
		l->on_change(l->arg);
}

static void *run(void *arg)
{
	struct gt_leader *l = arg;
	while (!atomic_load(&l->quit) && !atomic_load(&l->lost)) {
		try_acquire_or_renew(l);
		/* a leader renews every retry period; a candidate asks at the same pace */
		double until = gt_mono_s() + l->retry_s;
		pthread_mutex_lock(&l->mu);
		while (!atomic_load(&l->quit) && gt_cond_wait_until(&l->stop, &l->mu, until))
			;
		pthread_mutex_unlock(&l->mu);
	}
	return NULL;
}

struct gt_leader *gt_leader_start(struct gt_kube_client *cl, const struct gt_leader_opts *o)
{
	struct gt_leader *l = gt_xcalloc(1, sizeof(*l));
	l->cl = cl;
	l->ns = gt_xstrdup(o->ns);
	l->name = gt_xstrdup(o->name);
	l->identity = gt_xstrdup(o->identity);
	l->lease_s = o->lease_s > 0 ? o->lease_s : 15;
	l->renew_s = o->renew_s > 0 ? o->renew_s : 10;
	l->retry_s = o->retry_s > 0 ? o->retry_s : 2;
	l->on_change = o->on_change;
	l->arg = o->arg;
	pthread_mutex_init(&l->mu, NULL);
	gt_cond_init_mono(&l->stop);
	gt_thread_start(&l->thread, run, l, "the leader-election thread");
	return l;
}

bool gt_leader_is_leader(const struct gt_leader *l)
{
	return atomic_load(&l->leader);
}

bool gt_leader_lost(const struct gt_leader *l)
{
	return atomic_load(&l->lost);
}

void gt_leader_stop(struct gt_leader *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	atomic_store(&l->quit, true);
	pthread_cond_broadcast(&l->stop);
	pthread_mutex_unlock(&l->mu);
	pthread_join(l->thread, NULL);
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->stop);
	if (atomic_load(&l->leader) && l->rv) {
		/* hand over at once: an empty holder and a one-second lease */
		if (write_lease(l, l->rv, "", NULL, l->transitions, 1))
			gt_log(GT_LOG_INFO, "leader", "released the lease %s/%s", l->ns, l->name);
	}
	free(l->ns);
	free(l->name);
	free(l->identity);
	free(l->seen_holder);
	free(l->seen_renew);
	free(l->rv);
	free(l);
}

char *gt_leader_identity(void)
{
	char host[256] = "gantry";
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned r = (unsigned)ts.tv_nsec ^ ((unsigned)getpid() << 16);
	FILE *f = fopen("/dev/urandom", "rb");
	if (f) {
		if (fread(&r, sizeof(r), 1, f) != 1)
			r ^= (unsigned)ts.tv_sec;
		fclose(f);
	}
	char buf[300];
	snprintf(buf, sizeof(buf), "%s_%08x", host, r);
	return gt_xstrdup(buf);
}
