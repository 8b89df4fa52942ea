/*
 * pool.h - a fixed pool of worker threads running tasks in FIFO order
 *
 * The one worker pool of Gantry: the scheduler's writer runs a cycle's
 * writes on it (gt_pool_for), the binder its bind steps and the podgrouper
 * its pods (gt_pool_submit). Tasks run outside any lock of the pool; a task
 * may submit more. The pool makes no promise about which thread runs a
 * task, only that tasks start in the order they were submitted.
 */
#ifndef GT_POOL_H
#define GT_POOL_H

#include <stddef.h>

struct gt_pool;

typedef void (*gt_pool_fn)(void *arg, size_t i);

/* How many workers are worth starting for work that splits freely: the processors online, 1 to @max. */
size_t gt_pool_cpus(size_t max);
/* @n_threads workers (at least 1); @what names them in the message if they cannot start. */
struct gt_pool *gt_pool_new(int n_threads, const char *what);
/* Run @fn(@arg, 0) on a worker, after the tasks already submitted. Returns at once. */
void gt_pool_submit(struct gt_pool *p, gt_pool_fn fn, void *arg);
/* Run @fn(@arg, i) for every i in [0, @n) on the workers; returns when all have run. */
void gt_pool_for(struct gt_pool *p, size_t n, gt_pool_fn fn, void *arg);
/*
 * Stop: tasks running finish, tasks not started are not run; @dropped
 * (may be NULL) gets the argument of each of those submitted with
 * gt_pool_submit, to free or cancel it. Joins the workers and frees @p.
 */
void gt_pool_free(struct gt_pool *p, void (*dropped)(void *arg));

#endif /* GT_POOL_H */
