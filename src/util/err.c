#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>

int gt_errf(struct gt_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

const char *gt_strerror(int code)
{
	switch (code) {
#define GT_ERR_CASE(name, c, text) \
	case c:                    \
		return text;
		GT_ERR_MAP(GT_ERR_CASE)
#undef GT_ERR_CASE
	}
	return "unknown error";
}
