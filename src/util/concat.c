#include "util/concat.h"

#include <stdarg.h>
#include <string.h>

#include "util/mem.h"

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

char *gt_xvconcat(const char *first, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	size_t total = strlen(first);
	for (const char *s; (s = va_arg(ap, const char *));)
		total += strlen(s);
	char *out = gt_xmalloc(total + 1), *p = out;
	for (const char *s = first; s; s = va_arg(again, const char *)) {
		size_t n = strlen(s);
		memcpy(p, s, n);
		p += n;
	}
	va_end(again);
	*p = '\0';
	return out;
}

char *gt_xconcat(const char *first, ...)
{
	va_list ap;
	va_start(ap, first);
	char *out = gt_xvconcat(first, ap);
	va_end(ap);
	return out;
}
