#include "util/time.h"

#include <math.h>
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

void gt_civil_from_days(int64_t days, int64_t *y, int *m, int *d)
{
	/* Howard Hinnant's algorithm, the inverse of gt_days_from_civil() */
	days += 719468;
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	int64_t doe = days - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
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
	long long year = (long long)tm.tm_year + 1900;
	if (year < 0 || year > 9999 || len < GT_TIME_LEN) {
		snprintf(buf, len, "%04lld-%02d-%02dT%02d:%02d:%02dZ", year, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
			 tm.tm_min, tm.tm_sec);
		return;
	}
	/* the same by hand: simulate writes one per PodGroup, and snprintf was most of its output's time */
	const int parts[] = { (int)(year / 100), (int)(year % 100), tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			      tm.tm_sec };
	static const char after[] = { 0, '-', '-', 'T', ':', ':', 'Z' };	/* none after the century */
	char *p = buf;
	for (int i = 0; i < 7; i++) {
		*p++ = (char)('0' + parts[i] / 10);
		*p++ = (char)('0' + parts[i] % 10);
		if (after[i])
			*p++ = after[i];
	}
	*p = '\0';
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

int gt_duration_parse_prom(const char *s, int64_t *out_s)
{
	/* largest first, each at most once: Prometheus' own rule */
	static const struct {
		const char *unit;
		int64_t ms;
	} units[] = { { "y", 365LL * 86400000 }, { "w", 7LL * 86400000 }, { "d", 86400000 },
		      { "h", 3600000 }, { "m", 60000 }, { "s", 1000 }, { "ms", 1 } };
	const size_t n_units = sizeof(units) / sizeof(units[0]);
	if (!s || !*s)
		return GT_EINVAL;
	if (!strcmp(s, "0")) {
		*out_s = 0;
		return 0;
	}
	const char *p = s;
	size_t next = 0;	/* the smallest unit index still allowed */
	int64_t total_ms = 0;
	while (*p) {
		int64_t v = 0;
		const char *digits = p;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (v > 1000000000)
				return GT_EINVAL;
			v = v * 10 + (*p - '0');
		}
		if (p == digits)
			return GT_EINVAL;
		size_t k = n_units;
		for (size_t i = next; i < n_units; i++) {	/* "ms" before "m" when both match */
			size_t n = strlen(units[i].unit);
			if (!strncmp(p, units[i].unit, n) && (p[n] < 'a' || p[n] > 'z'))
				k = i;
		}
		if (k == n_units)
			return GT_EINVAL;
		p += strlen(units[k].unit);
		total_ms += v * units[k].ms;
		if (total_ms > 100LL * 365 * 86400000)
			return GT_EINVAL;
		next = k + 1;
	}
	*out_s = total_ms / 1000;
	return 0;
}

void gt_format_duration(double s, char *buf, size_t len)
{
	double a = fabs(s);
	if (a < 120)
		snprintf(buf, len, "%.0f s", s);
	else if (a < 7200)
		snprintf(buf, len, "%.1f min", s / 60);
	else if (a < 3 * 86400)
		snprintf(buf, len, "%.1f h", s / 3600);
	else
		snprintf(buf, len, "%.1f d", s / 86400);
}

/* Write @v right-aligned ending before @w; return the new start. */
static char *put_int(char *w, uint64_t v)
{
	do {
		*--w = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return w;
}

/* The @prec low digits of *@v as ".ddd" without trailing zeros (nothing when all are 0). */
static char *put_frac(char *w, uint64_t *v, int prec)
{
	bool print = false;
	for (int i = 0; i < prec; i++) {
		uint64_t digit = *v % 10;
		print = print || digit != 0;
		if (print)
			*--w = (char)('0' + digit);
		*v /= 10;
	}
	if (print)
		*--w = '.';
	return w;
}

void gt_duration_format_go(int64_t ns, char buf[GT_DURATION_GO_MAX])
{
	char tmp[GT_DURATION_GO_MAX];
	char *end = tmp + sizeof(tmp), *w = end;
	bool neg = ns < 0;
	uint64_t u = neg ? 0 - (uint64_t)ns : (uint64_t)ns;
	if (u < 1000000000ULL) {
		/* below a second: the largest of ns, µs, ms with a fraction */
		int prec = 0;
		*--w = 's';
		if (u == 0) {
			*--w = '0';
		} else {
			if (u < 1000) {
				*--w = 'n';
			} else if (u < 1000000) {
				prec = 3;
				w -= 2;
				memcpy(w, "\xc2\xb5", 2);
			} else {
				prec = 6;
				*--w = 'm';
			}
			w = put_frac(w, &u, prec);
			w = put_int(w, u);
		}
	} else {
		*--w = 's';
		w = put_frac(w, &u, 9);
		w = put_int(w, u % 60);
		u /= 60;
		if (u > 0) {
			*--w = 'm';
			w = put_int(w, u % 60);
			u /= 60;
			if (u > 0) {
				*--w = 'h';
				w = put_int(w, u);
			}
		}
	}
	if (neg)
		*--w = '-';
	size_t len = (size_t)(end - w);
	memcpy(buf, w, len);
	buf[len] = '\0';
}
