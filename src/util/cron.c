#include "util/cron.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/time.h"

static const char *const month_names[] = { "jan", "feb", "mar", "apr", "may", "jun",
					   "jul", "aug", "sep", "oct", "nov", "dec" };
static const char *const wday_names[] = { "sun", "mon", "tue", "wed", "thu", "fri", "sat" };

struct field {
	const char *what;
	int lo, hi;
	const char *const *names;	/* names for lo.., or NULL */
	int n_names;
};

/* A number or a name at *@p; moves *@p past it. */
static int value(const struct field *f, const char **p, int *out)
{
	const char *s = *p;
	if (*s >= '0' && *s <= '9') {
		int v = 0;
		for (; *s >= '0' && *s <= '9' && v < 1000; s++)
			v = v * 10 + (*s - '0');
		*out = v;
		*p = s;
		return 0;
	}
	for (int i = 0; f->names && i < f->n_names; i++)
		if (!strncasecmp(s, f->names[i], 3)) {
			*out = f->lo + i;
			*p = s + 3;
			return 0;
		}
	return -1;
}

/* One comma-separated element: *, N, N-M, each optionally /STEP. */
static int element(const struct field *f, const char *s, uint64_t *bits, bool *any)
{
	int lo = f->lo, hi = f->hi, step = 1;
	const char *p = s;
	if (*p == '*' || *p == '?') {
		p++;
		*any = *p == '\0';
	} else {
		if (value(f, &p, &lo))
			return -1;
		hi = lo;
		if (*p == '-') {
			p++;
			if (value(f, &p, &hi))
				return -1;
		}
	}
	if (*p == '/') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		step = 0;
		for (; *p >= '0' && *p <= '9' && step < 1000; p++)
			step = step * 10 + (*p - '0');
		if (s[0] != '*' && hi == lo)
			hi = f->hi;	/* "5/15": from 5 on */
	}
	/* Sunday may be written 7 */
	if (f->lo == 0 && f->hi == 6 && hi == 7)
		hi = 6, *bits |= 1;
	if (*p || step < 1 || lo < f->lo || hi > f->hi || lo > hi)
		return -1;
	for (int v = lo; v <= hi; v += step)
		*bits |= (uint64_t)1 << v;
	return 0;
}

static int field_parse(const struct field *f, const char *text, uint64_t *bits, bool *any,
		       char *why, size_t why_len)
{
	char buf[128];
	*bits = 0;
	*any = false;
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, ",");
		if (!n || n >= sizeof(buf) || (memcpy(buf, p, n), buf[n] = '\0', element(f, buf, bits, any))) {
			snprintf(why, why_len, "bad %s field '%s'", f->what, text);
			return -1;
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

int gt_cron_parse(const char *expr, struct gt_cron *out, char *why, size_t why_len)
{
	static const struct {
		const char *name, *expr;
	} macros[] = { { "@yearly", "0 0 1 1 *" }, { "@annually", "0 0 1 1 *" }, { "@monthly", "0 0 1 * *" },
		       { "@weekly", "0 0 * * 0" }, { "@daily", "0 0 * * *" }, { "@midnight", "0 0 * * *" },
		       { "@hourly", "0 * * * *" } };
	static const struct field fields[5] = {
		{ "minute", 0, 59, NULL, 0 }, { "hour", 0, 23, NULL, 0 }, { "day-of-month", 1, 31, NULL, 0 },
		{ "month", 1, 12, month_names, 12 }, { "day-of-week", 0, 6, wday_names, 7 },
	};
	for (size_t i = 0; expr && i < sizeof(macros) / sizeof(macros[0]); i++)
		if (!strcmp(expr, macros[i].name))
			expr = macros[i].expr;
	char text[5][128];
	int n = 0;
	for (const char *p = expr ? expr : ""; *p;) {
		p += strspn(p, " \t");
		size_t len = strcspn(p, " \t");
		if (!len)
			break;
		if (n == 5 || len >= sizeof(text[0])) {
			n = 6;
			break;
		}
		memcpy(text[n], p, len);
		text[n++][len] = '\0';
		p += len;
	}
	if (n != 5) {
		snprintf(why, why_len, "'%s' is not a cron expression of five fields (minute hour day-of-month month "
			 "day-of-week) or @hourly, @daily, @weekly, @monthly, @yearly", expr ? expr : "");
		return -1;
	}
	uint64_t bits[5];
	bool any[5];
	for (int i = 0; i < 5; i++)
		if (field_parse(&fields[i], text[i], &bits[i], &any[i], why, why_len))
			return -1;
	*out = (struct gt_cron){ .minutes = bits[0], .hours = (uint32_t)bits[1], .mdays = (uint32_t)bits[2],
				 .months = (uint16_t)bits[3], .wdays = (uint8_t)bits[4],
				 .mday_any = any[2], .wday_any = any[4] };
	return 0;
}

static bool day_matches(const struct gt_cron *c, int64_t days)
{
	int64_t y;
	int m, d;
	gt_civil_from_days(days, &y, &m, &d);
	if (!(c->months >> m & 1))
		return false;
	int wday = (int)(((days % 7) + 7 + 4) % 7);	/* 1970-01-01 was a Thursday */
	bool md = c->mdays >> d & 1, wd = c->wdays >> wday & 1;
	if (c->mday_any || c->wday_any)
		return c->mday_any ? wd : md;
	return md || wd;
}

int64_t gt_cron_prev(const struct gt_cron *c, int64_t t)
{
	int64_t minute = t % 60 ? t / 60 : t / 60 - 1;	/* the last whole minute strictly before t */
	if (t < 0)
		return -1;
	for (int64_t day = minute / 1440, first = day; day >= 0 && first - day <= 8 * 366; day--) {
		if (!day_matches(c, day))
			continue;
		int64_t last = day == first ? minute % 1440 : 1439;
		for (int64_t mi = last; mi >= 0; mi--)
			if (c->hours >> (mi / 60) & 1 && c->minutes >> (mi % 60) & 1)
				return (day * 1440 + mi) * 60;
	}
	return -1;
}
