/*
 * fuzz_quantity.c - Kubernetes quantities and strict numbers
 *
 * The first byte picks the scale (0..9: units, milli, ... as the decoder
 * asks for them); the rest is the text for gt_quantity_parse_scaled,
 * gt_parse_int and gt_parse_number. An accepted quantity is checked
 * against the parse one scale down: rounding up never makes it smaller.
 */
#include "api/quantity.h"
#include "fuzz.h"
#include "util/num.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int scale = data[0] % 10;
	char *s = fuzz_string(data + 1, size - 1);
	int64_t q, lower;
	/* ceil(x*10^k) >= 10*ceil(x*10^(k-1)) - 9 */
	if (gt_quantity_parse_scaled(s, scale, &q) == 0 && scale > 0 &&
	    gt_quantity_parse_scaled(s, scale - 1, &lower) == 0 && lower > 0 && lower <= INT64_MAX / 10)
		FUZZ_CHECK(q >= lower * 10 - 9);
	int64_t i;
	double d;
	(void)gt_parse_int(s, &i);
	if (gt_parse_number(s, &d) == 0)
		FUZZ_CHECK(d == d);	/* "nan" is refused */
	free(s);
	return 0;
}
