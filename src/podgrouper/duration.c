/*
 * duration.c - Go durations, to the nanosecond
 *
 * KAI reads kai.scheduler/preemption-delay and staleness-grace-period with
 * time.ParseDuration and writes them into the PodGroup as metav1.Duration,
 * whose JSON is time.Duration.String(): "5m" on the workload becomes "5m0s"
 * in the spec. Gantry writes the same text, so a PodGroup KAI made and one
 * Gantry made compare equal and an update writes nothing.
 *
 * (api/decode.c's gt_parse_duration reads scheduler settings in whole
 * seconds; here the nanoseconds must survive to be written back.)
 */
#include <stdint.h>
#include <string.h>

#include "podgrouper/internal.h"

#define NS_PER_S 1000000000ULL
#define MAX_NS ((uint64_t)INT64_MAX)

static const struct {
	const char *name;
	uint64_t ns;
} units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 } /* U+00B5 */, { "\xce\xbcs", 1000 } /* U+03BC */,
	{ "ms", 1000000 }, { "s", NS_PER_S }, { "m", 60 * NS_PER_S }, { "h", 3600 * NS_PER_S },
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The leading digits of *@p as an integer; false on overflow. */
static bool leading_int(const char **p, uint64_t *v)
{
	for (*v = 0; is_digit(**p); (*p)++) {
		if (*v > (UINT64_MAX - 9) / 10)
			return false;
		*v = *v * 10 + (uint64_t)(**p - '0');
	}
	return true;
}

/* Digits after the point: as many as fit, the rest read and dropped (as Go does). */
static void leading_fraction(const char **p, uint64_t *f, double *scale)
{
	bool overflow = false;
	*f = 0;
	*scale = 1;
	for (; is_digit(**p); (*p)++) {
		if (overflow)
			continue;
		if (*f > (UINT64_MAX >> 1) / 10) {
			overflow = true;
			continue;
		}
		*f = *f * 10 + (uint64_t)(**p - '0');
		*scale *= 10;
	}
}

/* One "<number><unit>" element of @p into *@ns; false when it is not one. */
static bool element(const char **p, uint64_t *ns)
{
	const char *start = *p;
	uint64_t v, f = 0;
	double scale = 1;
	if (!leading_int(p, &v))
		return false;
	bool pre = *p != start, post = false;
	if (**p == '.') {
		(*p)++;
		const char *frac = *p;
		leading_fraction(p, &f, &scale);
		post = *p != frac;
	}
	if (!pre && !post)
		return false;
	size_t len = 0;
	while ((*p)[len] && (*p)[len] != '.' && !is_digit((*p)[len]))
		len++;
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		if (strlen(units[u].name) != len || strncmp(*p, units[u].name, len))
			continue;
		*p += len;
		if (v > (MAX_NS + 1) / units[u].ns)
			return false;
		v *= units[u].ns;
		if (f > 0) {
			v += (uint64_t)((double)f * ((double)units[u].ns / scale));
			if (v > MAX_NS + 1)
				return false;
		}
		*ns = v;
		return true;
	}
	return false;	/* no unit, or one Go does not know */
}

int gt_pg_parse_duration(const char *s, int64_t *ns)
{
	if (!s)
		return GT_EINVAL;
	bool neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	if (!strcmp(s, "0")) {
		*ns = 0;
		return 0;
	}
	if (!*s)
		return GT_EINVAL;
	uint64_t total = 0;
	while (*s) {
		uint64_t v;
		if (!element(&s, &v) || total + v > MAX_NS + 1)
			return GT_EINVAL;
		total += v;
	}
	if (!neg && total > MAX_NS)
		return GT_EINVAL;
	*ns = neg ? (int64_t)(0 - total) : (int64_t)total;	/* -2^63 is representable */
	return 0;
}
