/*
 * replay.h - `gantry replay`: a GPU-cluster trace through the real core
 *
 * The contract outside tools rely on is ../shared/docs/REPLAY.md; every
 * flag and JSON key is documented in docs/replay.md.
 */
#ifndef GT_REPLAY_H
#define GT_REPLAY_H

/* Run `gantry replay ARGS` (argv[0] is "replay"); the exit status: 0, 1 or 2. */
int gt_replay_main(int argc, char **argv);

#endif /* GT_REPLAY_H */
