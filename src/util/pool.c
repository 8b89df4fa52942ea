#include "util/pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/mem.h"
#include "util/thread.h"

struct task {
	gt_pool_fn fn;
	void *arg;
	size_t i;
	size_t *done;		/* gt_pool_for's counter, or NULL (a submitted task: freed after) */
	struct task *next;
};

struct gt_pool {
	pthread_mutex_t mu;
	pthread_cond_t work;	/* a task was queued, or quit */
	pthread_cond_t done;	/* a gt_pool_for task finished */
	struct task *head, *tail;
	bool quit;
	pthread_t *threads;
	int n_threads;
};

static void enqueue(struct gt_pool *p, struct task *t)
{
	t->next = NULL;
	if (p->tail)
		p->tail->next = t;
	else
		p->head = t;
	p->tail = t;
}

static void *worker(void *arg)
{
	struct gt_pool *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && !p->head)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->quit)
			break;
		struct task *t = p->head;
		p->head = t->next;
		if (!p->head)
			p->tail = NULL;
		pthread_mutex_unlock(&p->mu);
		t->fn(t->arg, t->i);
		pthread_mutex_lock(&p->mu);
		if (t->done) {
			++*t->done;
			pthread_cond_broadcast(&p->done);
		} else {
			free(t);
		}
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

size_t gt_pool_cpus(size_t max)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus > 1 ? (size_t)cpus : 1;
	return n > max ? (max ? max : 1) : n;
}

struct gt_pool *gt_pool_new(int n_threads, const char *what)
{
	char name[96];
	snprintf(name, sizeof(name), "the %s threads", what);
	struct gt_pool *p = gt_xcalloc(1, sizeof(*p));
	p->n_threads = n_threads > 0 ? n_threads : 1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->threads = gt_xcalloc((size_t)p->n_threads, sizeof(*p->threads));
	for (int i = 0; i < p->n_threads; i++)
		gt_thread_start(&p->threads[i], worker, p, name);
	return p;
}

void gt_pool_submit(struct gt_pool *p, gt_pool_fn fn, void *arg)
{
	struct task *t = gt_xcalloc(1, sizeof(*t));
	t->fn = fn;
	t->arg = arg;
	pthread_mutex_lock(&p->mu);
	enqueue(p, t);
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->mu);
}

void gt_pool_for(struct gt_pool *p, size_t n, gt_pool_fn fn, void *arg)
{
	if (!n)
		return;
	struct task *ts = gt_xcalloc(n, sizeof(*ts));
	size_t done = 0;
	pthread_mutex_lock(&p->mu);
	for (size_t i = 0; i < n; i++) {
		ts[i] = (struct task){ .fn = fn, .arg = arg, .i = i, .done = &done };
		enqueue(p, &ts[i]);
	}
	pthread_cond_broadcast(&p->work);
	while (done < n)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
	free(ts);
}

void gt_pool_free(struct gt_pool *p, void (*dropped)(void *arg))
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->n_threads; i++)
		pthread_join(p->threads[i], NULL);
	/* the workers are gone: what is left in the queue is ours alone */
	for (struct task *t = p->head, *next; t; t = next) {
		next = t->next;
		if (dropped)
			dropped(t->arg);
		free(t);
	}
	free(p->threads);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	free(p);
}
