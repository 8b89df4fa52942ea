#include "util/concat.h"

#include <stdarg.h>
#include <string.h>

size_t gt_concat(char *buf, size_t len, ...)
{
	va_list ap;
	va_start(ap, len);
	size_t total = 0;
	for (const char *s; (s = va_arg(ap, const char *));) {
		size_t n = strlen(s);
		if (total < len) {
			size_t room = len - 1 - total;
			memcpy(buf + total, s, n < room ? n : room);
		}
		total += n;
	}
	va_end(ap);
	if (len)
		buf[total < len ? total : len - 1] = '\0';
	return total;
}
