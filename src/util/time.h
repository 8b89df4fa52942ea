/*
 * time.h - dates as Kubernetes writes them (RFC 3339) and Go durations
 *
 * Times are whole seconds since the Unix epoch (int64_t), in UTC; the
 * scheduling core takes them as arguments and never reads a clock. Only
 * gt_time_now_rfc3339() reads the wall clock, for the timestamps Gantry
 * writes (events, leases, log lines).
 */
#ifndef GT_TIME_H
#define GT_TIME_H

#include <stddef.h>
#include <stdint.h>

/* Room for any timestamp below, with its NUL. */
#define GT_TIME_LEN 40

/*
 * "2026-01-01T00:00:00Z", "2026-01-01T01:00:00.5+01:00" (offsets and a
 * fraction allowed; the fraction is dropped) to Unix seconds. 0 or
 * GT_EINVAL (not the whole string, an impossible date, ...).
 */
int gt_time_parse(const char *s, int64_t *out);
/* "2017-10-09 07:01:55" (no zone: UTC; the job traces' form) to Unix seconds. 0 or GT_EINVAL. */
int gt_time_parse_civil(const char *s, int64_t *out);
/* @t as "2026-01-01T00:00:00Z". */
void gt_time_format(int64_t t, char *buf, size_t len);
/* The wall clock now, RFC 3339 UTC with @frac_digits (0, 3 or 6) of the second. */
void gt_time_now_rfc3339(char *buf, size_t len, int frac_digits);
/* Days from 1970-01-01 to the proleptic Gregorian date @y-@m-@d. */
int64_t gt_days_from_civil(int64_t y, int64_t m, int64_t d);

/*
 * A Go duration (time.ParseDuration: an optional sign, then numbers with an
 * optional fraction, each followed by ns, us, µs, ms, s, m or h; "0" alone
 * is zero) in seconds; at most 100 years. 0 or GT_EINVAL.
 */
int gt_duration_parse(const char *s, double *out_s);

/* The same in whole seconds, the fraction dropped (toward zero). */
static inline int gt_duration_parse_whole(const char *s, int64_t *out)
{
	double v;
	int rc = gt_duration_parse(s, &v);
	if (!rc)
		*out = (int64_t)v;
	return rc;
}

#define GT_DURATION_GO_MAX 40	/* the longest text gt_duration_format_go() writes, with NUL */
/* @ns as Go's time.Duration.String() writes it ("1h0m0s", "1.5s", "300ms", "0s"):
 * how KAI's messages and objects print a duration. */
void gt_duration_format_go(int64_t ns, char buf[GT_DURATION_GO_MAX]);

#endif /* GT_TIME_H */
