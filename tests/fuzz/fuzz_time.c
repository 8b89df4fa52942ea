/*
 * fuzz_time.c - RFC 3339 times, civil dates and Go durations
 *
 * The text goes through every time and duration parser Gantry has; an
 * accepted RFC 3339 time of a four-digit year (UTC) is formatted and parsed
 * again and must come back the same.
 */
#include "fuzz.h"
#include "podgrouper/podgrouper.h"
#include "util/time.h"

#define YEAR_0 INT64_C(-62167219200)		/* 0000-01-01T00:00:00Z */
#define YEAR_10000 INT64_C(253402300800)	/* 10000-01-01T00:00:00Z */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	int64_t t, again, ns;
	double secs;
	if (gt_time_parse(s, &t) == 0 && t >= YEAR_0 && t < YEAR_10000) {
		char buf[GT_TIME_LEN];
		gt_time_format(t, buf, sizeof(buf));
		FUZZ_CHECK(gt_time_parse(buf, &again) == 0 && again == t);
	}
	(void)gt_time_parse_civil(s, &t);
	(void)gt_duration_parse(s, &secs);
	(void)gt_duration_parse_whole(s, &t);
	if (gt_pg_parse_duration(s, &ns) == 0) {
		char buf[GT_DURATION_GO_MAX];
		gt_duration_format_go(ns, buf);
	}
	free(s);
	return 0;
}
