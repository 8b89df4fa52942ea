#include "util/clock.h"

#include <errno.h>
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

void gt_cond_init_mono(pthread_cond_t *cv)
{
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &a);
	pthread_condattr_destroy(&a);
}

bool gt_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, double deadline_s)
{
	if (deadline_s <= 0) {
		pthread_cond_wait(cv, mu);
		return true;
	}
	struct timespec ts;
	ts.tv_sec = (time_t)deadline_s;
	ts.tv_nsec = (long)((deadline_s - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_cond_timedwait(cv, mu, &ts) != ETIMEDOUT;
}
