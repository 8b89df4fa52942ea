#include "util/quantity.h"

#include <stdbool.h>
#include <string.h>

#include "util/err.h"

typedef __int128 wide;

/* Values beyond 2^63 are rejected; wide intermediates keep the maths exact. */
#define WIDE_LIMIT ((wide)INT64_MAX)

struct suffix {
	const char *text;
	int pow10;	/* decimal exponent */
	int pow1024;	/* binary exponent */
};

static const struct suffix suffixes[] = {
	{ "Ki", 0, 1 }, { "Mi", 0, 2 }, { "Gi", 0, 3 }, { "Ti", 0, 4 },
	{ "Pi", 0, 5 }, { "Ei", 0, 6 }, { "n", -9, 0 }, { "u", -6, 0 },
	{ "m", -3, 0 }, { "", 0, 0 },	{ "k", 3, 0 },	{ "M", 6, 0 },
	{ "G", 9, 0 },	{ "T", 12, 0 }, { "P", 15, 0 }, { "E", 18, 0 },
};

static int parse_suffix(const char *s, int *pow10, int *pow1024)
{
	/* "E" alone is exa and "Ei" exbi; e/E before a number is an exponent */
	if ((*s == 'e' || *s == 'E') && s[1] && s[1] != 'i') {
		const char *p = s + 1;
		int sign = 1;
		if (*p == '+' || *p == '-')
			sign = *p++ == '-' ? -1 : 1;
		if (*p < '0' || *p > '9')
			return GT_EINVAL;
		int e = 0;
		for (; *p >= '0' && *p <= '9'; p++) {
			e = e * 10 + (*p - '0');
			if (e > 1000)
				return GT_EINVAL;
		}
		if (*p)
			return GT_EINVAL;
		*pow10 = sign * e;
		*pow1024 = 0;
		return 0;
	}
	/* suffixes are at most two characters: compared here, not by strcmp() (every quantity comes here) */
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		const char *t = suffixes[i].text;
		if (s[0] == t[0] && (!t[0] || (s[1] == t[1] && (!t[1] || !s[2])))) {
			*pow10 = suffixes[i].pow10;
			*pow1024 = suffixes[i].pow1024;
			return 0;
		}
	}
	return GT_EINVAL;
}

/* ceil(num / 10^k) for num >= 0 */
static wide div_pow10_ceil(wide num, int k)
{
	wide d = 1;
	for (int i = 0; i < k; i++) {
		if (num < d)	/* further division leaves 0 or 1 */
			return num > 0 ? 1 : 0;
		d *= 10;
	}
	return (num + d - 1) / d;
}

int gt_quantity_parse_scaled(const char *s, int scale_pow10, int64_t *out)
{
	if (!s || !*s)
		return GT_EINVAL;
	const char *p = s;
	bool negative = false;
	if (*p == '+' || *p == '-')
		negative = *p++ == '-';
	wide mant = 0;
	int digits = 0, frac_digits = 0;
	bool dot = false;
	for (;; p++) {
		if (*p >= '0' && *p <= '9') {
			/* digits beyond 30 significant ones cannot fit anyway */
			if (mant > WIDE_LIMIT * 1000)
				return GT_EINVAL;
			mant = mant * 10 + (*p - '0');
			digits++;
			if (dot)
				frac_digits++;
		} else if (*p == '.' && !dot) {
			dot = true;
		} else {
			break;
		}
	}
	if (digits == 0)
		return GT_EINVAL;
	int pow10, pow1024;
	if (parse_suffix(p, &pow10, &pow1024))
		return GT_EINVAL;
	for (int i = 0; i < pow1024; i++) {
		mant *= 1024;
		if (mant > WIDE_LIMIT * 1000000)
			return GT_EINVAL;
	}
	int exp = pow10 + scale_pow10 - frac_digits;
	wide v = mant;
	if (exp >= 0) {
		for (int i = 0; i < exp; i++) {
			v *= 10;
			if (v > WIDE_LIMIT)
				return GT_EINVAL;
		}
	} else {
		v = div_pow10_ceil(v, -exp);
	}
	if (v > WIDE_LIMIT)
		return GT_EINVAL;
	/* Kubernetes rounds toward +inf for negatives too; requests are >= 0 */
	*out = negative ? -(int64_t)(mant == 0 ? 0 : v) : (int64_t)v;
	if (negative && exp < 0) {
		/* ceil of a negative: truncate instead of rounding away */
		wide t = mant;
		for (int i = 0; i < -exp; i++)
			t /= 10;
		*out = -(int64_t)t;
	}
	return 0;
}
