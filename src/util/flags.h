/*
 * flags.h - flag values the long-running commands share
 *
 * `gantry podgrouper` and `gantry scheduler` take durations and booleans the
 * way KAI's Go flags do: "500ms", "1.5s", "2m", "1h" (or plain seconds), and
 * "--flag", "--flag=true", "--flag=false".
 */
#ifndef GT_FLAGS_H
#define GT_FLAGS_H

#include <stdbool.h>

/* A duration in seconds: 0, or -1 when @s is not one. */
int gt_flag_duration(const char *s, double *out);
/* A boolean flag's value (@v NULL: the flag alone, true). False when @v is not one. */
bool gt_flag_bool(const char *v, bool *out);
/*
 * Split "--name=value" into @name (capped at @cap) and *@value (NULL when
 * there is no '='). False when @arg is no "--" flag or the name is too long.
 */
bool gt_flag_split(const char *arg, char *name, unsigned cap, const char **value);

#endif /* GT_FLAGS_H */
