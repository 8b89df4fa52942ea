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

#include "core/plan.h"

/* Run `gantry simulate ARGS`; returns the process exit status (0, 1 or 2). */
int gt_simulate_main(int argc, char **argv);

/*
 * Move the cluster on after a cycle (the between-cycles step), as the plan
 * says: bound pods run (fresh GPU groups get their names, interned into the
 * cluster's table), evicted pods are recreated pending (unless their
 * PodGroup is being deleted), pipelined pods are pending again.
 */
void gt_sim_advance(struct gt_cluster *c, struct gt_plan *plan);

#endif /* GT_SIMULATE_H */
