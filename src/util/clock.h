/*
 * clock.h - the monotonic clock the long-running commands time things by,
 * and condition variables that wait on it
 *
 * Outside the core only: the scheduling core takes "now" as an argument.
 */
#ifndef GT_CLOCK_H
#define GT_CLOCK_H

#include <stdint.h>
#include <pthread.h>
#include <stdbool.h>

/* Seconds on CLOCK_MONOTONIC: for intervals and deadlines, not dates. */
double gt_mono_s(void);
/* The same in milliseconds, for latencies. */
double gt_mono_ms(void);
/* Whole milliseconds, in the shape of the core's gt_clock_ms_fn (@ctx unused): time budgets. */
int64_t gt_mono_ms_clock(void *ctx);

/* A condition variable whose timed waits count on CLOCK_MONOTONIC (a clock step moves no deadline). */
void gt_cond_init_mono(pthread_cond_t *cv);
/*
 * Wait on @cv (made by gt_cond_init_mono, @mu held) until signalled or
 * until gt_mono_s() reaches @deadline_s; a deadline <= 0 waits without
 * one. False when the deadline passed. Spurious wakes happen: callers
 * check their condition in a loop.
 */
bool gt_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, double deadline_s);

#endif /* GT_CLOCK_H */
