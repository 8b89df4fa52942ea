/*
 * status.h - `gantry status-controllers`
 *
 * KAI's queue and pod-group status controllers (controller.h) in a process
 * of their own, with /metrics serving the queue controller's metrics.
 * `gantry scheduler` runs the same controllers in-process by default.
 */
#ifndef GT_STATUS_STATUS_H
#define GT_STATUS_STATUS_H

/* Run `gantry status-controllers ARGS` (argv[0] = "status-controllers"); the process exit status. */
int gt_status_controllers_main(int argc, char **argv);

#endif /* GT_STATUS_STATUS_H */
