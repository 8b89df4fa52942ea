/*
 * concat.h - strings joined into a buffer, without a format to parse
 *
 * The decoders name the field of every value they read (for the message a
 * bad value gets), once per object and field: snprintf's format parsing
 * was a third of decoding a benchmark's cluster. gt_concat() does the same
 * join for plain strings: it copies the arguments up to the NULL that ends
 * them, truncates like snprintf (always terminated, when @len > 0) and
 * returns the length the whole join would have had.
 */
#ifndef GT_CONCAT_H
#define GT_CONCAT_H

#include <stdarg.h>
#include <stddef.h>

size_t gt_concat(char *buf, size_t len, ...) __attribute__((sentinel));
/* The join of @first and the strings after it up to a NULL, in memory of its own (gt_xmalloc). */
char *gt_xconcat(const char *first, ...) __attribute__((sentinel));
char *gt_xvconcat(const char *first, va_list ap);

#endif /* GT_CONCAT_H */
