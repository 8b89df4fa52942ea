#include "util/num.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"

int gt_parse_int(const char *s, int64_t *out)
{
	if (!s)
		return GT_EINVAL;
	const char *p = s + (*s == '-' || *s == '+');
	if (*p < '0' || *p > '9')
		return GT_EINVAL;	/* no digits, or space before them */
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end || errno)
		return GT_EINVAL;
	*out = v;
	return 0;
}

int gt_parse_number(const char *s, double *out)
{
	if (!s || !*s || s[strspn(s, "0123456789+-.eE")])
		return GT_EINVAL;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end || errno || !isfinite(v))
		return GT_EINVAL;
	*out = v;
	return 0;
}
