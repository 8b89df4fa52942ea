/*
 * num.h - whole numbers from text, strictly
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

#endif /* GT_NUM_H */
