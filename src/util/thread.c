#include "util/thread.h"

#include <stdio.h>
#include <stdlib.h>

void gt_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const char *what)
{
	if (pthread_create(t, NULL, fn, arg)) {
		fprintf(stderr, "gantry: cannot start %s\n", what);
		abort();
	}
}
