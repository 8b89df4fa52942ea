/*
 * simulate.h - `gantry simulate`: the real core on a virtual cluster
 *
 * Loads Kubernetes objects from files, runs scheduling cycles and prints the
 * outcome (../shared/docs/SIMULATE.md is the contract scenario runners rely
 * on). Between cycles the virtual cluster moves on as KAI's harness models a
 * cluster with instant controllers: bound pods run, evicted pods are
 * recreated pending, pipelined pods are pending again.
 */
#ifndef GT_SIMULATE_H
#define GT_SIMULATE_H

#include <stdio.h>

#include "core/session.h"

/* Run `gantry simulate ARGS`; returns the process exit status (0, 1 or 2). */
int gt_simulate_main(int argc, char **argv);

/*
 * Move the cluster on after a cycle (the between-cycles step). New GPU
 * groups the session opened get names, interned into the cluster's table.
 */
void gt_sim_advance(struct gt_cluster *c, const struct gt_session *s);

/* Name of a GPU group id, naming ids the session minted (stable per run). */
const char *gt_sim_group_name(struct gt_cluster *c, const struct gt_session *s, uint32_t id,
			      int32_t node);

#endif /* GT_SIMULATE_H */
