/*
 * serve.h - KAI's fairshare-simulator as an HTTP service (libmicrohttpd)
 */
#ifndef GT_FAIRSHARE_SERVE_H
#define GT_FAIRSHARE_SERVE_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Answer POST /simulate on @addr (HOST:PORT; ":8080" for every address)
 * until SIGTERM or SIGINT. The exit status: 0 after a signal, 1 when the
 * address cannot be had, 2 when it is malformed (said on @diag).
 */
int gt_fairshare_serve(const char *addr, bool cors, FILE *diag);

#endif /* GT_FAIRSHARE_SERVE_H */
