#include "util/flags.h"

#include <stdlib.h>
#include <string.h>

int gt_flag_duration(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s)
		return -1;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m"))
		v *= 60;
	else if (!strcmp(end, "h"))
		v *= 3600;
	else if (*end && strcmp(end, "s"))
		return -1;
	*out = v;
	return 0;
}

bool gt_flag_bool(const char *v, bool *out)
{
	if (!v || !strcmp(v, "true") || !strcmp(v, "1")) {
		*out = true;
		return true;
	}
	if (!strcmp(v, "false") || !strcmp(v, "0")) {
		*out = false;
		return true;
	}
	return false;
}

bool gt_flag_split(const char *arg, char *name, unsigned cap, const char **value)
{
	if (strncmp(arg, "--", 2))
		return false;
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
	if (n >= cap)
		return false;
	memcpy(name, arg, n);
	name[n] = '\0';
	*value = eq ? eq + 1 : NULL;
	return true;
}
