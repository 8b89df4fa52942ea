/*
 * num.h - whole numbers from text, strictly, and to text, fast
 *
 * For every integer Gantry reads (object fields, annotations, flags):
 * an optional sign and decimal digits, the whole string, nothing else: no
 * spaces, no "10x", no empty string, no overflow. atoi and friends accept
 * all of those silently; nothing in Gantry uses them.
 */
#ifndef GT_NUM_H
#define GT_NUM_H

#include <stdint.h>

/* 0, or GT_EINVAL (util/err.h) when @s is not such a number or overflows int64. */
int gt_parse_int(const char *s, int64_t *out);
/*
 * A finite number in decimal notation ("2", "-0.5", "1e3"), the whole
 * string: no spaces, hex, "inf" or "nan". 0 or GT_EINVAL.
 */
int gt_parse_number(const char *s, double *out);

/* Room for any int64 in decimal, with its sign (not its NUL). */
#define GT_INT_TEXT 20

/*
 * @v in decimal, written backwards so that it ends just before @end; returns
 * where it starts (no NUL). snprintf took ten times longer, on paths that
 * write a number per pod.
 */
static inline char *gt_decimal(uint64_t v, char *end)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* gt_decimal for a signed @v. */
static inline char *gt_int_text(int64_t v, char *end)
{
	char *p = gt_decimal(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, end);
	if (v < 0)
		*--p = '-';
	return p;
}

#endif /* GT_NUM_H */
