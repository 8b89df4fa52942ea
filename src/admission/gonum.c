/*
 * gonum.c - annotation values read the way KAI's Go code reads them
 *
 * KAI checks gpu-fraction with strconv.ParseFloat and gpu-memory and
 * gpu-fraction-num-devices with strconv.ParseUint(s, 10, 64). Their
 * grammars differ from Gantry's own strict readers (util/num.h): Go's float
 * syntax has hexadecimal mantissas ("0x1p-1"), "inf" and "nan", and "_"
 * between digits; ParseUint takes no sign and goes to 2^64-1. Which
 * message a user gets for a bad value depends on them (a "nan" fraction
 * passes ParseFloat and is refused by the quantity check, with another
 * message), so they are written out here, after the Go language
 * specification's floating-point literals and strconv's documentation.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "admission/internal.h"
#include "util/mem.h"

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* How many leading bytes of @s match @word, ignoring case. */
static size_t prefix_nocase(const char *s, const char *word)
{
	size_t n = 0;
	while (s[n] && word[n] && lower((unsigned char)s[n]) == word[n])
		n++;
	return n;
}

/* "inf", "infinity" (signed or not) and "nan" (unsigned), the whole string. */
static bool special(const char *s, double *out)
{
	const char *p = s;
	int sign = 1;
	if (*p == '+' || *p == '-') {
		sign = *p == '-' ? -1 : 1;
		p++;
	}
	size_t n = prefix_nocase(p, "infinity");
	if ((n == 3 || n == 8) && !p[n]) {
		*out = sign * __builtin_inf();
		return true;
	}
	if (p == s && prefix_nocase(p, "nan") == 3 && !p[3]) {
		*out = __builtin_nan("");
		return true;
	}
	return false;
}

/*
 * Underscores only between digits, or between a base prefix and a digit
 * (strconv's underscoreOK).
 */
static bool underscores_ok(const char *s, size_t len)
{
	char saw = '^';	/* ^ start, 0 digit or prefix, _ underscore, ! other */
	size_t i = 0;
	bool hex = false;
	if (len && (s[0] == '+' || s[0] == '-')) {
		s++;
		len--;
	}
	if (len >= 2 && s[0] == '0' && (lower(s[1]) == 'b' || lower(s[1]) == 'o' || lower(s[1]) == 'x')) {
		i = 2;
		saw = '0';
		hex = lower(s[1]) == 'x';
	}
	for (; i < len; i++) {
		int c = (unsigned char)s[i];
		if (isdigit(c) || (hex && isxdigit(c))) {
			saw = '0';
		} else if (c == '_') {
			if (saw != '0')
				return false;
			saw = '_';
		} else {
			if (saw == '_')
				return false;
			saw = '!';
		}
	}
	return saw != '_';
}

/* The syntax of a decimal or hexadecimal float (strconv's readFloat), the whole of @s. */
static bool float_syntax(const char *s)
{
	size_t i = 0, len = strlen(s);
	bool hex = false, digits = false, dot = false, underscores = false;
	if (i < len && (s[i] == '+' || s[i] == '-'))
		i++;
	if (i + 2 < len && s[i] == '0' && lower(s[i + 1]) == 'x') {
		hex = true;
		i += 2;
	}
	for (; i < len; i++) {
		int c = (unsigned char)s[i];
		if (c == '_')
			underscores = true;
		else if (c == '.' && !dot)
			dot = true;
		else if (isdigit(c) || (hex && isxdigit(c)))
			digits = true;
		else
			break;
	}
	if (!digits)
		return false;
	if (i < len && lower(s[i]) == (hex ? 'p' : 'e')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= len || !isdigit((unsigned char)s[i]))
			return false;
		for (; i < len && (isdigit((unsigned char)s[i]) || s[i] == '_'); i++)
			underscores |= s[i] == '_';
	} else if (hex) {
		return false;	/* a hexadecimal mantissa needs its 'p' exponent */
	}
	return i == len && (!underscores || underscores_ok(s, len));
}

bool go_parse_float(const char *s, double *out)
{
	if (special(s, out))
		return true;
	if (!float_syntax(s))
		return false;
	/* the value: the same text without its underscores, which strtod reads alike (C locale) */
	char *clean = gt_xstrdup(s), *w = clean;
	for (const char *r = s; *r; r++)
		if (*r != '_')
			*w++ = *r;
	*w = '\0';
	char *end;
	*out = strtod(clean, &end);
	bool ok = *end == '\0';
	free(clean);
	return ok;
}

/* A binary or decimal SI suffix, or none. */
static bool si_suffix(const char *s)
{
	static const char *const suffixes[] = { "", "n", "u", "m", "k", "M", "G", "T", "P", "E",
						"Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (!strcmp(s, suffixes[i]))
			return true;
	return false;
}

bool k8s_quantity_syntax(const char *s)
{
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p);)
			p++;
	if (!*s)
		return false;
	if ((*p == 'e' || *p == 'E') && p[1]) {
		const char *q = p + 1;
		if (*q == '+' || *q == '-')
			q++;
		if (*q && strspn(q, "0123456789") == strlen(q))
			return true;
	}
	return si_suffix(p);
}

bool go_parse_uint(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

void go_quote(const char *s, char *out, size_t cap)
{
	static const char hexd[] = "0123456789abcdef";
	size_t o = 0;
	if (cap < 3) {
		if (cap)
			out[0] = '\0';
		return;
	}
	out[o++] = '"';
	for (; *s && o + 5 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c == '\n' || c == '\t' || c == '\r') {
			out[o++] = '\\';
			out[o++] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		} else if (c < 0x20 || c == 0x7f) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hexd[c >> 4];
			out[o++] = hexd[c & 15];
		} else {
			out[o++] = (char)c;
		}
	}
	out[o++] = '"';
	out[o] = '\0';
}
