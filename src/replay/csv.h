/*
 * csv.h - a streaming reader for the traces' comma-separated tables
 *
 * One row at a time from a FILE: the reader keeps a single line buffer, so a
 * million-row trace costs one line of memory. The traces are plain CSV with
 * no quoted fields (a double quote is reported as an error rather than
 * guessed at), a header line (possibly starting with '#'), CRLF or LF line
 * ends and perhaps blank lines, which are skipped.
 *
 * Errors name the file, the line and, through gt_csv_fail(), the column:
 * "philly.csv:12: column 'duration': not a number: 'abc'".
 */
#ifndef GT_REPLAY_CSV_H
#define GT_REPLAY_CSV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"

#define GT_CSV_MAX_FIELDS 64

struct gt_csv {
	FILE *f;
	bool own;		/* opened by gt_csv_open: closed by gt_csv_close */
	const char *name;	/* for messages */
	long line;		/* 1-based line of the current row */
	char *buf;
	size_t cap;
	char *fields[GT_CSV_MAX_FIELDS];
	uint32_t n;		/* fields of the current row */
	char *header[GT_CSV_MAX_FIELDS];	/* owned copies of the header cells */
	uint32_t n_header;
};

/* Open @path and read its header. 0 or GT_EIO / GT_EPARSE with @err set. */
int gt_csv_open(struct gt_csv *r, const char *path, struct gt_err *err);
/* Same over an open stream (not closed by gt_csv_close). */
int gt_csv_init(struct gt_csv *r, FILE *f, const char *name, struct gt_err *err);
void gt_csv_close(struct gt_csv *r);

/*
 * Next data row: 1 when there is one (fields in r->fields), 0 at the end,
 * GT_EPARSE (with @err) on a malformed line: a quote, too many fields, or
 * a field count different from the header's; GT_EIO when the file cannot be read.
 */
int gt_csv_next(struct gt_csv *r, struct gt_err *err);

/* Column index of header @name (exact, after trimming a leading '#'), or -1. */
int gt_csv_col(const struct gt_csv *r, const char *name);

/* Message "file:line: column 'x': what: 'value'" into @err; returns GT_EPARSE. */
int gt_csv_fail(const struct gt_csv *r, struct gt_err *err, int col, const char *what);

/* Field @col as a number. Empty fields are errors unless @dflt is given (non-NULL). */
int gt_csv_double(const struct gt_csv *r, int col, const double *dflt, double *out,
		  struct gt_err *err);
int gt_csv_int(const struct gt_csv *r, int col, const int64_t *dflt, int64_t *out,
	       struct gt_err *err);

#endif /* GT_REPLAY_CSV_H */
