/*
 * command.h - `gantry binder`: KAI's binder as a process of its own
 *
 * Carries out the BindRequests a scheduler in BindRequest mode writes
 * (controller.h), with KAI v0.17's binder flags (cmd/binder/app/options.go)
 * under their names; docs/deploy.md.
 */
#ifndef GT_BINDER_COMMAND_H
#define GT_BINDER_COMMAND_H

/* Run `gantry binder ARGS` (argv[0] = "binder"); the process exit status. */
int gt_binder_main(int argc, char **argv);

#endif /* GT_BINDER_COMMAND_H */
