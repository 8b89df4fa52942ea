/*
 * thread.h - starting a thread that the process cannot do without
 *
 * Every long-lived thread of Gantry (the signal thread, reflectors, the
 * lease, controllers, pool workers) is started here: a process that cannot
 * start one has nothing sensible to fall back on, so it says which and
 * aborts, as an allocation failure does (util/mem.h).
 */
#ifndef GT_THREAD_H
#define GT_THREAD_H

#include <pthread.h>

/* Start @fn(@arg) in *@t; "gantry: cannot start @what" and abort() when it cannot. */
void gt_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const char *what);

#endif /* GT_THREAD_H */
