/*
 * stop.h - SIGTERM and SIGINT for the long-running commands
 *
 * A command calls gt_stop_start() first, before it starts any thread: the
 * two signals are blocked in it and in every thread it starts afterwards,
 * and one thread of this module waits for them with sigwait(). A signal
 * then sets the stop flag, wakes gt_stop_sleep_until() and calls the hooks
 * registered with gt_stop_on(), which wake whatever else the command's
 * threads wait on (the cache's readers, the binder): nothing polls for a
 * stop.
 */
#ifndef GT_STOP_H
#define GT_STOP_H

#include <stdbool.h>

/* Forget an earlier stop, block the signals, start waiting for them. */
void gt_stop_start(void);
/* On a stop, call @fn(@arg) from the signal thread (at most 8 hooks). */
void gt_stop_on(void (*fn)(void *arg), void *arg);
bool gt_stop_requested(void);
/* Ask for the stop as a signal would (a command that is done, tests). */
void gt_stop_request(void);
/*
 * No hook runs once this returns (those running are waited for): call it
 * before freeing what the hooks wake. The main thread sees the stop flag
 * before the signal thread has run every hook.
 */
void gt_stop_hooks_off(void);
/* Sleep until @until_ms (gt_mono_ms()) or a stop. */
void gt_stop_sleep_until(double until_ms);
/* Stop waiting for signals, forget the hooks and unblock the signals again. */
void gt_stop_end(void);

#endif /* GT_STOP_H */
