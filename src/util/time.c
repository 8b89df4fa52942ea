#include "util/time.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/err.h"

/* @n decimal digits at @p, no sign, no spaces. */
static bool fixed_digits(const char *p, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (p[i] - '0');
	}
	*out = v;
	return true;
}

static int days_in_month(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : days[m - 1];
}

int64_t gt_days_from_civil(int64_t y, int64_t m, int64_t d)
{
	/* Howard Hinnant's algorithm */
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* "+hh:mm", "-hh:mm" or "Z" at *@p, as seconds east of UTC; moves *@p past it. */
static int zone_offset(const char **p, int64_t *off)
{
	const char *s = *p;
	if (*s == 'Z' || *s == 'z') {
		*off = 0;
		*p = s + 1;
		return 0;
	}
	int oh, om;
	if ((*s != '+' && *s != '-') || !fixed_digits(s + 1, 2, &oh) || s[3] != ':' ||
	    !fixed_digits(s + 4, 2, &om) || oh > 23 || om > 59)
		return GT_EINVAL;
	*off = (*s == '-' ? -1 : 1) * (oh * 3600 + om * 60);
	*p = s + 6;
	return 0;
}

/*
 * "YYYY-MM-DD" @sep "hh:mm:ss" at the start of @s (@sep: the characters
 * allowed between date and time) as seconds since the epoch, the date
 * checked; *@end just past it.
 */
static int civil(const char *s, const char *sep, int64_t *out, const char **end)
{
	int y, mo, da, h, mi, se;
	if (!s || strlen(s) < 19 || !fixed_digits(s, 4, &y) || s[4] != '-' ||
	    !fixed_digits(s + 5, 2, &mo) || s[7] != '-' || !fixed_digits(s + 8, 2, &da) ||
	    !strchr(sep, s[10]) || !fixed_digits(s + 11, 2, &h) || s[13] != ':' ||
	    !fixed_digits(s + 14, 2, &mi) || s[16] != ':' || !fixed_digits(s + 17, 2, &se) ||
	    mo < 1 || mo > 12 || da < 1 || da > days_in_month(y, mo) || h > 23 || mi > 59 ||
	    se > 59)
		return GT_EINVAL;
	*out = gt_days_from_civil(y, mo, da) * 86400 + h * 3600 + mi * 60 + se;
	*end = s + 19;
	return 0;
}

int gt_time_parse(const char *s, int64_t *out)
{
	int64_t t, off;
	const char *p;
	if (civil(s, "Tt", &t, &p))
		return GT_EINVAL;
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return GT_EINVAL;
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	}
	if (zone_offset(&p, &off) || *p)
		return GT_EINVAL;
	*out = t - off;
	return 0;
}

int gt_time_parse_civil(const char *s, int64_t *out)
{
	int64_t t;
	const char *p;
	if (civil(s, " ", &t, &p) || *p)
		return GT_EINVAL;
	*out = t;
	return 0;
}

void gt_time_format(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm)) {	/* a year past int: no date to write */
		snprintf(buf, len, "%s", t < 0 ? "0000-01-01T00:00:00Z" : "9999-12-31T23:59:59Z");
		return;
	}
	/* four digits for every year, as RFC 3339 wants (strftime's %Y writes "1" for year 1) */
	snprintf(buf, len, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long)tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

void gt_time_now_rfc3339(char *buf, size_t len, int frac_digits)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	if (frac_digits == 6)
		snprintf(buf + n, len - n, ".%06ldZ", ts.tv_nsec / 1000);
	else if (frac_digits == 3)
		snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
	else
		snprintf(buf + n, len - n, "Z");
}

int gt_duration_parse(const char *s, double *out_s)
{
	static const struct {
		const char *unit;
		double seconds;
	} units[] = { { "ns", 1e-9 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 }, { "ms", 1e-3 },
		      { "s", 1 }, { "m", 60 }, { "h", 3600 } };
	const size_t n_units = sizeof(units) / sizeof(units[0]);
	if (!s || !*s)
		return GT_EINVAL;
	const char *p = s;
	double sign = 1;
	if (*p == '-' || *p == '+')
		sign = *p++ == '-' ? -1 : 1;
	if (!strcmp(p, "0")) {
		*out_s = 0;
		return 0;
	}
	if (!*p)
		return GT_EINVAL;
	double total = 0;
	while (*p) {
		double whole = 0, frac = 0, scale = 1;
		bool digits = false;
		for (; *p >= '0' && *p <= '9'; p++, digits = true)
			whole = whole * 10 + (*p - '0');
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++, digits = true)
				frac += (*p - '0') * (scale /= 10);
		if (!digits)
			return GT_EINVAL;
		size_t best = n_units;
		for (size_t k = 0; k < n_units; k++)	/* the longest unit that matches */
			if (!strncmp(p, units[k].unit, strlen(units[k].unit)) &&
			    (best == n_units || strlen(units[k].unit) > strlen(units[best].unit)))
				best = k;
		if (best == n_units)
			return GT_EINVAL;
		p += strlen(units[best].unit);
		total += (whole + frac) * units[best].seconds;
		if (total > 100.0 * 365 * 86400)
			return GT_EINVAL;
	}
	*out_s = sign * total;
	return 0;
}
