/*
 * clock.h - the monotonic clock the long-running commands time things by
 *
 * Outside the core only: the scheduling core takes "now" as an argument.
 */
#ifndef GT_CLOCK_H
#define GT_CLOCK_H

#include <stdint.h>

/* Seconds on CLOCK_MONOTONIC: for intervals and deadlines, not dates. */
double gt_mono_s(void);
/* The same in milliseconds, for latencies. */
double gt_mono_ms(void);
/* Whole milliseconds, in the shape of the core's gt_clock_ms_fn (@ctx unused): time budgets. */
int64_t gt_mono_ms_clock(void *ctx);

#endif /* GT_CLOCK_H */
