#include "util/thread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

void gt_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const char *what)
{
	int rc = pthread_create(t, NULL, fn, arg);
	if (!rc)
		return;
	fprintf(stderr, "gantry: cannot start %s: %s\n", what, strerror(rc));
	/* No memory for the thread's stack or its books: the out-of-memory end every
	 * allocation failure has (exit 1). Anything else is a bug in the attributes. */
	if (rc == EAGAIN || rc == ENOMEM)
		gt_out_of_memory(0);
	abort();
}
