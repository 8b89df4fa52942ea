/*
 * process.h - what every controller process of Gantry's has: a client, a
 * cache kept by watches, and, with --leader-elect, a Lease
 *
 * `gantry status-controllers` and `gantry podgrouper` (and any controller
 * after them) start the same way and end in the same order: the client and
 * cache, one reflector per watched kind, the election; a loop that sleeps on
 * the cache (which the lease and a signal wake), publishes leadership and
 * gives up when the lease is lost; then the teardown, endpoints and
 * controller first, since they read what goes after them. The parts a
 * command does its own way (its controller, its endpoints) go between
 * gt_process_start() and gt_process_quiesce().
 */
#ifndef GT_KUBE_PROCESS_H
#define GT_KUBE_PROCESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "kube/cache.h"
#include "kube/config.h"
#include "kube/http.h"
#include "kube/leader.h"
#include "kube/reflector.h"
#include "util/flags.h"

struct gt_process {
	struct gt_kube_client *cl;
	struct gt_cache *cache;
	struct gt_leader *leader;	/* NULL without --leader-elect */
	char *identity;
	/* leading (always, without an election): the controller acts only while it holds */
	atomic_bool *active;
	struct gt_reflector *refl[GT_N_KRES];
	enum gt_kres refl_kind[GT_N_KRES];
	size_t n_refl;
};

struct gt_process_opts {
	struct gt_kube_config *kc;	/* the client takes over its buffers */
	const struct gt_conn_flags *conn;
	const struct gt_lease_flags *lease;
	/* how to list and watch; its namespace holds the Lease unless --leader-elect-resource-namespace says */
	const struct gt_watch_flags *watch;
	const enum gt_kres *watched;
	size_t n_watched;
	atomic_bool *active;		/* published by gt_process_turn() */
};

/*
 * Loads the kubeconfig @conn names and logs it for @component. 0, or 2 with
 * the reason on stderr as "gantry @command: ...".
 */
int gt_process_load_config(const char *command, const char *component, const struct gt_conn_flags *conn,
			   struct gt_kube_config *kc);

/*
 * Connects, watches, elects. Call gt_stop_start() before: every thread
 * started here inherits the blocked signals. A signal wakes the cache.
 */
void gt_process_start(struct gt_process *p, const struct gt_process_opts *o);

/*
 * One turn of a run loop: 1 when the lease was lost (the process must exit,
 * as KAI's do, rather than risk two writers); else publishes leadership,
 * waking the cache's waiters when it changed, and returns 0.
 */
int gt_process_turn(struct gt_process *p);

/*
 * The run loop of a controller that works on threads of its own: turns
 * until a signal (0) or lost leadership (1), sleeping on the cache between
 * turns and keeping @ready to whether the kinds in @kres have synced.
 */
int gt_process_run(struct gt_process *p, unsigned kres, atomic_bool *ready);

/*
 * The first half of the end: no more signal wakes, not leading, the lease
 * released. Then the caller stops its controller and the client
 * (gt_process_stop_client) in the order its controller needs (one that
 * must finish its requests goes first; one whose threads may be blocked in
 * a request goes after), and calls gt_process_release().
 */
void gt_process_quiesce(struct gt_process *p);
/* Ends the client's requests (and so the watches). */
void gt_process_stop_client(struct gt_process *p);
/* Joins the watches and frees what gt_process_start() made, then gt_stop_end(). */
void gt_process_release(struct gt_process *p);

#endif /* GT_KUBE_PROCESS_H */
