/*
 * zipio.h - one member of a ZIP archive in memory, read and written (libzip)
 *
 * KAI's snapshot plugin answers with a ZIP holding one snapshot.json; its
 * snapshot-tool reads that member back. These are the two operations.
 */
#ifndef GT_ZIPIO_H
#define GT_ZIPIO_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* Does @data start like a ZIP archive ("PK\3\4", or "PK\5\6" for an empty one)? */
bool gt_zip_looks_like(const char *data, size_t len);
/*
 * Member @name of the archive @data (@len bytes) into *@out (NUL-terminated,
 * length *@out_len; free it). GT_ENOTFOUND when the archive has no such
 * member; GT_EPARSE, with libzip's reason, when @data is not a readable
 * archive or the member is damaged (a truncated download).
 */
int gt_zip_read(const char *data, size_t len, const char *name, char **out, size_t *out_len,
		struct gt_err *err);
/* An archive holding @data (@len bytes) as member @name, deflated, into *@out (free it). */
int gt_zip_write(const char *name, const char *data, size_t len, char **out, size_t *out_len,
		 struct gt_err *err);

#endif /* GT_ZIPIO_H */
