/*
 * leader.h - leader election on a coordination.k8s.io/v1 Lease
 *
 * client-go's algorithm: every retry period, read the Lease; create it if
 * missing; take it over when its holder has not renewed it for
 * leaseDurationSeconds as observed by *our* clock (the time we last saw the
 * record change, never the timestamps written in it: clocks differ between
 * nodes); renew it while we hold it. Every write carries the
 * resourceVersion read, so of two candidates only one wins (409 for the
 * other). A leader that cannot renew within the renew deadline has lost:
 * gt_leader_lost() turns true and the scheduler exits, as KAI's does, rather
 * than risk two schedulers writing. On shutdown the leader releases the
 * Lease (empty holder) so a standby takes over at once.
 */
#ifndef GT_KUBE_LEADER_H
#define GT_KUBE_LEADER_H

#include <stdbool.h>

#include "kube/http.h"

struct gt_leader_opts {
	const char *ns, *name;		/* the Lease */
	const char *identity;
	double lease_s, renew_s, retry_s;	/* 15, 10, 2 */
	/* called (from the election's thread) when this process becomes or stops being the leader */
	void (*on_change)(void *arg);
	void *arg;
};

struct gt_leader;

/* This process's identity in the Lease: "<host>_<8 random hex digits>", to free(). */
char *gt_leader_identity(void);

struct gt_leader *gt_leader_start(struct gt_kube_client *cl, const struct gt_leader_opts *o);
bool gt_leader_is_leader(const struct gt_leader *l);
/* Held the lease and could not renew it in time. */
bool gt_leader_lost(const struct gt_leader *l);
/* Stop the thread (before gt_kube_client_stop), release the lease if held, free. */
void gt_leader_stop(struct gt_leader *l);

#endif /* GT_KUBE_LEADER_H */
