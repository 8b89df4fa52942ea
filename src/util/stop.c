#include "util/stop.h"

#include <pthread.h>
#include <time.h>

#include "util/clock.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

void gt_stop_block(sigset_t *old)
{
	stop_requested = 0;
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, old);
}

void gt_stop_catch(const sigset_t *old)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

bool gt_stop_requested(void)
{
	return stop_requested;
}

void gt_stop_sleep_until(double until_ms)
{
	for (;;) {
		double left = until_ms - gt_mono_ms();
		if (left <= 0 || stop_requested)
			return;
		double step = left > 50 ? 50 : left;
		struct timespec ts = { 0, (long)(step * 1e6) };
		nanosleep(&ts, NULL);
	}
}
