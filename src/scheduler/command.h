/*
 * command.h - `gantry scheduler`: the scheduling loop on a real cluster
 *
 * Reflectors keep the cache in step with the API server; every
 * --schedule-period the leader (or the only instance) decodes a snapshot,
 * runs the actions of the core, turns the session into a plan of writes and
 * carries it out, then sleeps out the period. See docs/kubernetes.md.
 */
#ifndef GT_SCHEDULER_COMMAND_H
#define GT_SCHEDULER_COMMAND_H

/* Run `gantry scheduler ARGS` (argv[0] = "scheduler"); the process exit status. */
int gt_scheduler_main(int argc, char **argv);

#endif /* GT_SCHEDULER_COMMAND_H */
