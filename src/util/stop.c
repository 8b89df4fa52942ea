#include "util/stop.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/clock.h"
#include "util/thread.h"

#define MAX_HOOKS 8

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* the stop came */
	bool requested;
	bool ending;		/* gt_stop_end(): the signal thread is to go */
	bool running;
	pthread_t thread;
	sigset_t sigs, old;
	struct {
		void (*fn)(void *);
		void *arg;
	} hooks[MAX_HOOKS];
	int n_hooks;
	int in_hooks;		/* request()s running hooks now */
} st = { .mu = PTHREAD_MUTEX_INITIALIZER };

static pthread_once_t cv_once = PTHREAD_ONCE_INIT;

static void init_cv(void)
{
	gt_cond_init_mono(&st.cv);
}

/* Set the flag and run the hooks (outside the lock: they take locks of their own). */
static void request(void)
{
	pthread_once(&cv_once, init_cv);
	pthread_mutex_lock(&st.mu);
	st.requested = true;
	pthread_cond_broadcast(&st.cv);
	int n = st.n_hooks;
	st.in_hooks++;
	pthread_mutex_unlock(&st.mu);
	for (int i = 0; i < n; i++)
		st.hooks[i].fn(st.hooks[i].arg);
	pthread_mutex_lock(&st.mu);
	st.in_hooks--;
	pthread_cond_broadcast(&st.cv);
	pthread_mutex_unlock(&st.mu);
}

void gt_stop_hooks_off(void)
{
	pthread_once(&cv_once, init_cv);
	pthread_mutex_lock(&st.mu);
	st.n_hooks = 0;
	while (st.in_hooks)
		pthread_cond_wait(&st.cv, &st.mu);
	pthread_mutex_unlock(&st.mu);
}

static void *wait_signals(void *arg)
{
	(void)arg;
	for (;;) {
		int sig;
		sigwait(&st.sigs, &sig);
		pthread_mutex_lock(&st.mu);
		bool ending = st.ending;
		pthread_mutex_unlock(&st.mu);
		if (ending)
			return NULL;
		request();
	}
}

void gt_stop_start(void)
{
	pthread_once(&cv_once, init_cv);
	pthread_mutex_lock(&st.mu);
	st.requested = st.ending = false;
	st.n_hooks = 0;
	pthread_mutex_unlock(&st.mu);
	sigemptyset(&st.sigs);
	sigaddset(&st.sigs, SIGTERM);
	sigaddset(&st.sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &st.sigs, &st.old);
	gt_thread_start(&st.thread, wait_signals, NULL, "the signal thread");
	st.running = true;
}

void gt_stop_on(void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&st.mu);
	if (st.n_hooks < MAX_HOOKS) {
		st.hooks[st.n_hooks].fn = fn;
		st.hooks[st.n_hooks].arg = arg;
		st.n_hooks++;
	}
	pthread_mutex_unlock(&st.mu);
}

bool gt_stop_requested(void)
{
	pthread_mutex_lock(&st.mu);
	bool r = st.requested;
	pthread_mutex_unlock(&st.mu);
	return r;
}

void gt_stop_request(void)
{
	request();
}

void gt_stop_sleep_until(double until_ms)
{
	pthread_once(&cv_once, init_cv);
	pthread_mutex_lock(&st.mu);
	while (!st.requested && gt_mono_ms() < until_ms)
		gt_cond_wait_until(&st.cv, &st.mu, until_ms / 1000.0);
	pthread_mutex_unlock(&st.mu);
}

void gt_stop_end(void)
{
	if (!st.running)
		return;
	pthread_mutex_lock(&st.mu);
	st.ending = true;
	st.n_hooks = 0;
	pthread_mutex_unlock(&st.mu);
	pthread_kill(st.thread, SIGTERM);
	pthread_join(st.thread, NULL);
	st.running = false;
	pthread_sigmask(SIG_SETMASK, &st.old, NULL);
}
