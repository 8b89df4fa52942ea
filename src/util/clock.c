#include "util/clock.h"

#include <time.h>

double gt_mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double gt_mono_ms(void)
{
	return gt_mono_s() * 1e3;
}

int64_t gt_mono_ms_clock(void *ctx)
{
	(void)ctx;
	return (int64_t)gt_mono_ms();
}
