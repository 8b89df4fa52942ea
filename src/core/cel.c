/*
 * cel.c - the DRA selector subset of CEL (see cel.h)
 *
 * Not written yet: every expression is refused at compile time with a clear
 * message, so no caller can take an unevaluated selector for a match.
 */
#include "core/cel.h"

#include <stdio.h>

struct gt_cel_program {
	int unused;
};

gt_cel_program *gt_cel_compile(const char *expr, char *err, size_t errlen)
{
	(void)expr;
	if (err && errlen)
		snprintf(err, errlen, "column 1: CEL selector expressions are not supported yet");
	return NULL;
}

void gt_cel_free(gt_cel_program *program)
{
	(void)program;
}

gt_cel_result gt_cel_eval(const gt_cel_program *program, const gt_cel_device *device,
			  char *err, size_t errlen)
{
	(void)program;
	(void)device;
	if (err && errlen)
		snprintf(err, errlen, "CEL selector expressions are not supported yet");
	return GT_CEL_ERROR;
}
