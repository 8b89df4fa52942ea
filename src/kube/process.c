/*
 * process.c - the start, the turn and the end of a controller process
 */
#include "kube/process.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/err.h"
#include "util/stop.h"

static void wake_cache(void *cache)
{
	gt_cache_wake(cache);
}

int gt_process_load_config(const char *command, const char *component, const struct gt_conn_flags *conn,
			   struct gt_kube_config *kc)
{
	struct gt_err err = { 0 };
	if (gt_kube_config_load(conn->kubeconfig, conn->context, kc, &err)) {
		fprintf(stderr, "gantry %s: %s\n", command, err.msg);
		return 2;
	}
	gt_kube_config_log(component, kc);
	return 0;
}

void gt_process_start(struct gt_process *p, const struct gt_process_opts *o)
{
	*p = (struct gt_process){ .active = o->active };
	p->cl = gt_kube_client_new(o->kc, o->conn->qps, (int)o->conn->burst, (long)(o->conn->api_timeout_s * 1000));
	p->cache = gt_cache_new();
	gt_stop_on(wake_cache, p->cache);
	p->identity = gt_leader_identity();
	struct gt_reflector_opts ro = { .page_size = (int)o->watch->page_size,
					.watch_timeout_s = (int)o->watch->watch_timeout_s };
	for (size_t i = 0; i < o->n_watched; i++) {
		p->refl_kind[p->n_refl] = o->watched[i];
		p->refl[p->n_refl++] = gt_reflector_start(p->cl, p->cache, o->watched[i], &ro);
	}
	if (o->lease->elect) {
		struct gt_leader_opts lo = { .ns = o->lease->ns ? o->lease->ns : o->watch->ns, .name = o->lease->name,
					     .identity = p->identity, .lease_s = o->lease->lease_s,
					     .renew_s = o->lease->renew_s, .retry_s = o->lease->retry_s,
					     .on_change = wake_cache, .arg = p->cache };
		p->leader = gt_leader_start(p->cl, &lo);
	}
	atomic_store(p->active, !p->leader);
}

int gt_process_turn(struct gt_process *p)
{
	if (p->leader && gt_leader_lost(p->leader))
		return 1;
	bool lead = !p->leader || gt_leader_is_leader(p->leader);
	if (atomic_exchange(p->active, lead) != lead)
		gt_cache_wake(p->cache);
	return 0;
}

int gt_process_run(struct gt_process *p, unsigned kres, atomic_bool *ready)
{
	unsigned mask = kres | GT_KRES_WAKE;
	while (!gt_stop_requested()) {
		uint64_t seen = gt_cache_version(p->cache, mask);
		if (gt_process_turn(p))
			return 1;
		atomic_store(ready, gt_cache_all_synced(p->cache, kres));
		gt_cache_wait(p->cache, mask, seen, 0);
	}
	return 0;
}

void gt_process_quiesce(struct gt_process *p)
{
	gt_stop_hooks_off();	/* the signal thread may still be waking the cache: not once it starts going */
	atomic_store(p->active, false);
	gt_leader_stop(p->leader);
	p->leader = NULL;
}

void gt_process_stop_client(struct gt_process *p)
{
	gt_kube_client_stop(p->cl);
}

void gt_process_release(struct gt_process *p)
{
	for (size_t i = 0; i < p->n_refl; i++)
		gt_reflector_join(p->refl[i]);
	gt_cache_free(p->cache);
	gt_kube_client_free(p->cl);
	free(p->identity);
	*p = (struct gt_process){ 0 };
	gt_stop_end();
}
