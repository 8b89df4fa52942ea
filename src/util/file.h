/*
 * file.h - a whole file in memory
 */
#ifndef GT_FILE_H
#define GT_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

/*
 * The whole of @path ("-": standard input) into *@out, NUL-terminated,
 * *@len bytes (free it). 0, or GT_EIO with @err naming the file and why.
 */
int gt_file_read(const char *path, char **out, size_t *len, struct gt_err *err);

/*
 * The rest of @f into *@out, NUL-terminated, *@len bytes (free it): 0, or
 * the errno of a failed read (nothing is returned then).
 */
int gt_file_slurp(FILE *f, char **out, size_t *len);

#endif /* GT_FILE_H */
