/*
 * addr.h - the one reader of listen addresses ("host:port")
 *
 * For every flag that says where a server listens (--metrics-bind-address,
 * --webhook-bind-address): "host:port" or ":port" (every address), an IPv4
 * host or "localhost", a port 0..65535 (0: the system picks one).
 */
#ifndef GT_ADDR_H
#define GT_ADDR_H

#include <netinet/in.h>

#include "util/err.h"

/* @addr into @out. 0, or GT_EINVAL with a message naming @flag and the problem. */
int gt_parse_bind_address(const char *flag, const char *addr, struct sockaddr_in *out, struct gt_err *err);

#endif /* GT_ADDR_H */
