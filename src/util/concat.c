#include "util/concat.h"

#include <stdarg.h>
#include <string.h>

#include "util/mem.h"

/*
 * @first and the strings of @ap up to a NULL, joined into @buf as snprintf
 * would (truncated, terminated when @len > 0; @buf untouched when @len is
 * 0); the length of the whole join.
 */
static size_t join(char *buf, size_t len, const char *first, va_list ap)
{
	size_t total = 0;
	for (const char *s = first; s; s = va_arg(ap, const char *)) {
		size_t n = strlen(s);
		if (total < len) {
			size_t room = len - 1 - total;
			memcpy(buf + total, s, n < room ? n : room);
		}
		total += n;
	}
	if (len)
		buf[total < len ? total : len - 1] = '\0';
	return total;
}

size_t gt_concat(char *buf, size_t len, ...)
{
	va_list ap;
	va_start(ap, len);
	size_t total = join(buf, len, va_arg(ap, const char *), ap);
	va_end(ap);
	return total;
}

char *gt_xvconcat(const char *first, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	size_t total = join(NULL, 0, first, ap);	/* measured, then written */
	char *out = gt_xmalloc(total + 1);
	join(out, total + 1, first, again);
	va_end(again);
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
