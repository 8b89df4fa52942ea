/*
 * cron.h - cron expressions, for KAI's "cron" usage windows
 *
 * KAI's time-based fair share can reset its usage window on a cron
 * schedule (usageParams.windowType: cron, cronString). This reads the
 * standard five fields - minute, hour, day of month, month, day of week -
 * with *, lists, ranges, steps and month and weekday names, and the
 * macros @yearly, @annually, @monthly, @weekly, @daily, @midnight and
 * @hourly. As in every cron, when both day fields are restricted a day
 * matching either one fires. Times are UTC.
 */
#ifndef GT_CRON_H
#define GT_CRON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gt_cron {
	uint64_t minutes;	/* bit per minute 0-59 */
	uint32_t hours;		/* 0-23 */
	uint32_t mdays;		/* bit per day 1-31 */
	uint16_t months;	/* bit per month 1-12 */
	uint8_t wdays;		/* bit per weekday, 0 = Sunday */
	bool mday_any, wday_any;	/* the field was '*' */
};

/* 0, or -1 with why in @why (@why_len bytes). */
int gt_cron_parse(const char *expr, struct gt_cron *out, char *why, size_t why_len);
/*
 * The latest minute the schedule fires strictly before @t (Unix seconds),
 * as KAI takes a window's last reset; -1 when it has not fired in the
 * eight years before @t (a schedule such as "0 0 30 2 *" never does).
 */
int64_t gt_cron_prev(const struct gt_cron *c, int64_t t);

#endif /* GT_CRON_H */
