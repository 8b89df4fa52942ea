/*
 * test_pool.c - util/pool (every task runs once, batches wait for all,
 * tasks not started at stop are handed back) and util/stop (a stop wakes
 * sleepers and runs the hooks)
 */
#include <pthread.h>
#include <stdatomic.h>

#include "harness.h"
#include "util/clock.h"
#include "util/pool.h"
#include "util/stop.h"

const char *gt_suite = "pool";

static void count(void *arg, size_t i)
{
	atomic_int *hits = arg;
	atomic_fetch_add(&hits[i], 1);
}

TEST(for_runs_every_index_once_and_waits)
{
	struct gt_pool *p = gt_pool_new(4, "test");
	static atomic_int hits[1000];
	for (int round = 0; round < 3; round++)
		gt_pool_for(p, 1000, count, hits);
	for (int i = 0; i < 1000; i++)
		ASSERT_EQ(3, atomic_load(&hits[i]));
	gt_pool_for(p, 0, count, hits);	/* nothing to do: returns */
	gt_pool_free(p, NULL);
}

struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool open;
	atomic_int started, ran;
};

static void blocked(void *arg, size_t i)
{
	(void)i;
	struct gate *g = arg;
	atomic_fetch_add(&g->started, 1);
	pthread_mutex_lock(&g->mu);
	while (!g->open)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
	atomic_fetch_add(&g->ran, 1);
}

static atomic_int dropped;

static void on_drop(void *arg)
{
	(void)arg;
	atomic_fetch_add(&dropped, 1);
}

static void *free_pool(void *p)
{
	gt_pool_free(p, on_drop);
	return NULL;
}

/* One worker held by a task: the ones behind it are handed back at stop, not run. */
TEST(tasks_not_started_are_handed_back)
{
	struct gt_pool *p = gt_pool_new(1, "test");
	struct gate g = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
	gt_pool_submit(p, blocked, &g);
	while (!atomic_load(&g.started))
		gt_stop_sleep_until(gt_mono_ms() + 1);
	for (int i = 0; i < 4; i++)
		gt_pool_submit(p, blocked, &g);
	pthread_t t;
	ASSERT_EQ(0, pthread_create(&t, NULL, free_pool, p));
	gt_stop_sleep_until(gt_mono_ms() + 200);	/* the stop is asked before the first task ends */
	pthread_mutex_lock(&g.mu);
	g.open = true;
	pthread_cond_broadcast(&g.cv);
	pthread_mutex_unlock(&g.mu);
	pthread_join(t, NULL);
	ASSERT_EQ(1, atomic_load(&g.ran));
	ASSERT_EQ(4, atomic_load(&dropped));
}

static atomic_int hooked;

static void hook(void *arg)
{
	(void)arg;
	atomic_fetch_add(&hooked, 1);
}

TEST(a_stop_wakes_sleepers_and_runs_hooks)
{
	gt_stop_start();
	gt_stop_on(hook, NULL);
	ASSERT_TRUE(!gt_stop_requested());
	double t0 = gt_mono_ms();
	gt_stop_sleep_until(t0 + 20);
	ASSERT_TRUE(gt_mono_ms() - t0 >= 19);
	gt_stop_request();
	ASSERT_TRUE(gt_stop_requested());
	ASSERT_EQ(1, atomic_load(&hooked));
	t0 = gt_mono_ms();
	gt_stop_sleep_until(t0 + 10000);	/* stopped: returns at once */
	ASSERT_TRUE(gt_mono_ms() - t0 < 1000);
	gt_stop_end();
}

const struct gt_test gt_tests[] = {
	T(for_runs_every_index_once_and_waits),
	T(tasks_not_started_are_handed_back),
	T(a_stop_wakes_sleepers_and_runs_hooks),
	{ 0 }
};
