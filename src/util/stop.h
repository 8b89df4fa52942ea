/*
 * stop.h - SIGTERM and SIGINT for the long-running commands
 *
 * A command blocks the two signals before it starts its threads (they
 * inherit the mask), then catches them on the main thread, whose loop
 * checks gt_stop_requested() and naps in short steps so that a stop is
 * seen within 50 ms.
 */
#ifndef GT_STOP_H
#define GT_STOP_H

#include <signal.h>
#include <stdbool.h>

/* Forget an earlier stop and block the signals; *@old gets the mask to restore. */
void gt_stop_block(sigset_t *old);
/* From now on a signal on this thread requests the stop; restores @old. */
void gt_stop_catch(const sigset_t *old);
bool gt_stop_requested(void);
/* Sleep until @until_ms (gt_mono_ms()) or a stop. */
void gt_stop_sleep_until(double until_ms);

#endif /* GT_STOP_H */
