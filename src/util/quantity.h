/*
 * quantity.h - Kubernetes resource quantities, parsed strictly
 *
 * Grammar (k8s.io/apimachinery resource.Quantity):
 *   quantity ::= sign? digits ('.' digits?)? suffix?  |  sign? '.' digits suffix?
 *   suffix   ::= binarySI (Ki Mi Gi Ti Pi Ei) | decimalSI (n u m "" k M G T P E)
 *              | decimalExponent ('e' | 'E' sign? digits)
 * The value is exact (decimal mantissa and exponent) and rounded *up* to the
 * requested unit, as Kubernetes' Value()/MilliValue() do: "1.5m" CPU is 2
 * milli-cores, "0.5" GPUs is 500 milli-GPUs. Anything else - spaces, a
 * second sign, "1.5.2", "12Kb", an empty string, overflow of int64 - is
 * rejected.
 */
#ifndef GT_UTIL_QUANTITY_H
#define GT_UTIL_QUANTITY_H

#include <stdint.h>

/* Parse @s and write ceil(value * 10^@scale_pow10) to @out. 0 or GT_EINVAL. */
int gt_quantity_parse_scaled(const char *s, int scale_pow10, int64_t *out);

/* Whole units (bytes, pods, devices), rounded up. */
static inline int gt_quantity_parse(const char *s, int64_t *out)
{
	return gt_quantity_parse_scaled(s, 0, out);
}

/* Thousandths (milli-CPU, milli-GPU), rounded up. */
static inline int gt_quantity_parse_milli(const char *s, int64_t *out)
{
	return gt_quantity_parse_scaled(s, 3, out);
}

#endif /* GT_UTIL_QUANTITY_H */
