#include "util/addr.h"

#include <arpa/inet.h>
#include <string.h>

#include "util/num.h"

int gt_parse_bind_address(const char *flag, const char *addr, struct sockaddr_in *out, struct gt_err *err)
{
	const char *colon = strrchr(addr, ':');
	if (!colon)
		return gt_errf(err, GT_EINVAL, "--%s: '%s' is not host:port", flag, addr);
	char host[64];
	size_t hl = (size_t)(colon - addr);
	if (hl >= sizeof(host))
		return gt_errf(err, GT_EINVAL, "--%s: host too long in '%s'", flag, addr);
	memcpy(host, addr, hl);
	host[hl] = '\0';
	int64_t port;
	if (gt_parse_int(colon + 1, &port) || port < 0 || port > 65535)
		return gt_errf(err, GT_EINVAL, "--%s: bad port in '%s'", flag, addr);
	*out = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	if (!*host || !strcmp(host, "0.0.0.0"))
		out->sin_addr.s_addr = htonl(INADDR_ANY);
	else if (inet_pton(AF_INET, !strcmp(host, "localhost") ? "127.0.0.1" : host, &out->sin_addr) != 1)
		return gt_errf(err, GT_EINVAL, "--%s: '%s' is not an IPv4 address", flag, host);
	return 0;
}
