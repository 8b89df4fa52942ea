/*
 * test_time.c - util/time: RFC 3339 dates both ways, Go durations, strictly
 */
#include <time.h>

#include "harness.h"
#include "util/err.h"
#include "util/time.h"

const char *gt_suite = "time";

#define EPOCH_2026 1767225600	/* 2026-01-01T00:00:00Z */

TEST(rfc3339_parses_offsets_and_fractions)
{
	int64_t v = 0;
	ASSERT_EQ(0, gt_time_parse("2026-01-01T00:00:00Z", &v));
	ASSERT_EQ(EPOCH_2026, v);
	ASSERT_EQ(0, gt_time_parse("2026-01-01T01:00:00+01:00", &v));
	ASSERT_EQ(EPOCH_2026, v);
	ASSERT_EQ(0, gt_time_parse("2025-12-31T19:00:00.250-05:00", &v));
	ASSERT_EQ(EPOCH_2026, v);
	ASSERT_EQ(0, gt_time_parse("2024-02-29T00:00:00Z", &v));
	ASSERT_EQ(1709164800, v);
	ASSERT_EQ(0, gt_time_parse("1969-12-31T23:59:59Z", &v));
	ASSERT_EQ(-1, v);
}

TEST(rfc3339_strict)
{
	static const char *const bad[] = { "2026-01-01", "2026-13-01T00:00:00Z", "2026-01-01T00:00:00",
					   "2026-01-01T00:00:00Zjunk", "2026-02-30T00:00:00Z",
					   "2026-1-1T0:0:0Z", " 2026-01-01T00:00:00Z", "2026-01-01T00:00:00.Z",
					   "2026-01-01T00:00:00+24:00", "2026-01-01T24:00:00Z" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t v;
		if (gt_time_parse(bad[i], &v) == 0) {
			fprintf(stderr, "accepted '%s'\n", bad[i]);
			ASSERT_TRUE(false);
		}
	}
}

TEST(rfc3339_round_trip)
{
	/* years 1 and 999 too: four digits, or the text does not parse back (found by fuzz_time) */
	static const int64_t ts[] = { 0, EPOCH_2026, 1709164800, 4102444799, -62135596800, -30641760000 };
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		char buf[GT_TIME_LEN];
		int64_t back = -7;
		gt_time_format(ts[i], buf, sizeof(buf));
		ASSERT_EQ(0, gt_time_parse(buf, &back));
		ASSERT_EQ(ts[i], back);
	}
	char buf[GT_TIME_LEN];
	gt_time_format(EPOCH_2026, buf, sizeof(buf));
	ASSERT_STR("2026-01-01T00:00:00Z", buf);
	gt_time_format(-62135596800, buf, sizeof(buf));
	ASSERT_STR("0001-01-01T00:00:00Z", buf);
}

/* Written by hand, as snprintf("%04lld-%02d-...") writes it, for any time (years 1 to 9999 and past them). */
TEST(format_as_snprintf_writes_it)
{
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* mostly years 1-9999, some far outside */
		int64_t t = i % 10 ? (int64_t)(x % 315537897600ULL) - 62135596800LL : (int64_t)(x % 4000000000000ULL) - 2000000000000LL;
		char got[GT_TIME_LEN], want[GT_TIME_LEN];
		gt_time_format(t, got, sizeof(got));
		time_t tt = (time_t)t;
		struct tm tm;
		if (!gmtime_r(&tt, &tm))
			continue;
		snprintf(want, sizeof(want), "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long)tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		ASSERT_STR(want, got);
	}
}

TEST(now_has_the_fraction_asked_for)
{
	char buf[GT_TIME_LEN];
	int64_t v;
	static const struct {
		int digits;
		size_t len;
	} cases[] = { { 0, 20 }, { 3, 24 }, { 6, 27 } };
	for (size_t i = 0; i < 3; i++) {
		gt_time_now_rfc3339(buf, sizeof(buf), cases[i].digits);
		ASSERT_EQ(cases[i].len, strlen(buf));
		ASSERT_EQ(0, gt_time_parse(buf, &v));
		ASSERT_TRUE(v > EPOCH_2026 - 86400 * 365);
	}
}

TEST(days_from_civil)
{
	ASSERT_EQ(0, gt_days_from_civil(1970, 1, 1));
	ASSERT_EQ(EPOCH_2026 / 86400, gt_days_from_civil(2026, 1, 1));
	ASSERT_EQ(-1, gt_days_from_civil(1969, 12, 31));
	ASSERT_EQ(gt_days_from_civil(2024, 2, 28) + 1, gt_days_from_civil(2024, 2, 29));
	ASSERT_EQ(gt_days_from_civil(2100, 2, 28) + 1, gt_days_from_civil(2100, 3, 1));
}

TEST(go_durations)
{
	static const struct {
		const char *in;
		double s;
		int64_t whole;
	} durs[] = { { "60s", 60, 60 }, { "1m30s", 90, 90 }, { "1h", 3600, 3600 }, { "1.5h", 5400, 5400 },
		     { "-1s", -1, -1 }, { "0", 0, 0 }, { "1500ms", 1.5, 1 }, { "2h45m", 9900, 9900 },
		     { "-1.5s", -1.5, -1 }, { "250us", 0.00025, 0 }, { "1\xc2\xb5s", 1e-6, 0 } };
	for (size_t i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
		double d = -99;
		int64_t v = -99;
		ASSERT_EQ(0, gt_duration_parse(durs[i].in, &d));
		ASSERT_TRUE(d > durs[i].s - 1e-9 && d < durs[i].s + 1e-9);
		ASSERT_EQ(0, gt_duration_parse_whole(durs[i].in, &v));
		ASSERT_EQ(durs[i].whole, v);
	}
}

TEST(durations_are_go_durations)
{
	static const char *const bad[] = { "", "5", "s", "1x", "1s ", "1d", "infs", "nanh", "9e18h",
					   "1e3s", "0x10s", " 1s", "--1s", "+-1s", "-", "1.s5" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		double v;
		if (gt_duration_parse(bad[i], &v) != GT_EINVAL) {
			fprintf(stderr, "accepted '%s' as %g\n", bad[i], v);
			ASSERT_TRUE(false);
		}
	}
}

TEST(trace_times_without_a_zone)
{
	int64_t v;
	ASSERT_EQ(0, gt_time_parse_civil("1970-01-01 00:00:00", &v));
	ASSERT_EQ(0, v);
	ASSERT_EQ(0, gt_time_parse_civil("2000-03-01 00:00:01", &v));
	ASSERT_EQ(951868801LL, v);
	ASSERT_TRUE(gt_time_parse_civil("2017-10-09T07:01:55", &v) != 0);
	ASSERT_TRUE(gt_time_parse_civil("2017-10-09 07:01:55x", &v) != 0);
	ASSERT_TRUE(gt_time_parse_civil("2017-00-09 07:01:55", &v) != 0);
	ASSERT_TRUE(gt_time_parse_civil("2017-02-29 07:01:55", &v) != 0);
	ASSERT_TRUE(gt_time_parse_civil("2017-10-09 07:01:55Z", &v) != 0);
}

const struct gt_test gt_tests[] = {
	T(rfc3339_parses_offsets_and_fractions),
	T(rfc3339_strict),
	T(rfc3339_round_trip),
	T(format_as_snprintf_writes_it),
	T(now_has_the_fraction_asked_for),
	T(days_from_civil),
	T(go_durations),
	T(durations_are_go_durations),
	T(trace_times_without_a_zone),
	{ 0 }
};
