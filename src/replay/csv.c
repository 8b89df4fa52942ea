#include "replay/csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/num.h"

/*
 * Read the next non-blank line into r->buf, without its line end. 1, 0 at EOF,
 * -1 on a read error (errno says which). getline's -1 is not always the end: a
 * failed allocation must not read as a shorter trace.
 */
static int read_line(struct gt_csv *r)
{
	for (;;) {
		errno = 0;
		ssize_t len = getline(&r->buf, &r->cap, r->f);
		if (len < 0 && errno == ENOMEM)
			gt_out_of_memory(0);
		if (len < 0)
			return ferror(r->f) ? -1 : 0;
		r->line++;
		while (len > 0 && (r->buf[len - 1] == '\n' || r->buf[len - 1] == '\r'))
			r->buf[--len] = '\0';
		if (len > 0)
			return 1;
	}
}

static int split(struct gt_csv *r, struct gt_err *err)
{
	r->n = 0;
	char *p = r->buf;
	if (strchr(p, '"'))
		return gt_errf(err, GT_EPARSE, "%s:%ld: quoted fields are not supported", r->name,
			       r->line);
	for (;;) {
		if (r->n == GT_CSV_MAX_FIELDS)
			return gt_errf(err, GT_EPARSE, "%s:%ld: more than %d fields", r->name, r->line,
				       GT_CSV_MAX_FIELDS);
		r->fields[r->n++] = p;
		char *comma = strchr(p, ',');
		if (!comma)
			return 0;
		*comma = '\0';
		p = comma + 1;
	}
}

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	size_t k = strspn(s, " \t");
	memmove(s, s + k, n - k + 1);
}

int gt_csv_init(struct gt_csv *r, FILE *f, const char *name, struct gt_err *err)
{
	memset(r, 0, sizeof(*r));
	r->f = f;
	r->name = name;
	int got = read_line(r);
	if (got < 0)
		return gt_errf(err, GT_EIO, "%s: cannot read: %s", name, strerror(errno));
	if (!got)
		return gt_errf(err, GT_EPARSE, "%s: empty file: expected a header line", name);
	int rc = split(r, err);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < r->n; i++) {
		char *h = r->fields[i];
		if (i == 0 && h[0] == '#')
			h++;	/* RFold-style "#job id" */
		r->header[i] = gt_xstrdup(h);
		trim(r->header[i]);
	}
	r->n_header = r->n;
	return 0;
}

int gt_csv_open(struct gt_csv *r, const char *path, struct gt_err *err)
{
	FILE *f = fopen(path, "r");
	if (!f && errno == ENOMEM)
		gt_out_of_memory(0);	/* fopen's FILE: ours, not the trace's problem */
	if (!f) {
		memset(r, 0, sizeof(*r));
		return gt_errf(err, GT_EIO, "%s: cannot open: %s", path, strerror(errno));
	}
	int rc = gt_csv_init(r, f, path, err);
	r->own = true;
	return rc;
}

void gt_csv_close(struct gt_csv *r)
{
	if (r->own && r->f)
		fclose(r->f);
	for (uint32_t i = 0; i < r->n_header; i++)
		free(r->header[i]);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

int gt_csv_next(struct gt_csv *r, struct gt_err *err)
{
	int got = read_line(r);
	if (got < 0)
		return gt_errf(err, GT_EIO, "%s:%ld: cannot read: %s", r->name, r->line + 1, strerror(errno));
	if (!got)
		return 0;
	int rc = split(r, err);
	if (rc)
		return rc;
	if (r->n != r->n_header)
		return gt_errf(err, GT_EPARSE, "%s:%ld: %u fields, the header has %u", r->name,
			       r->line, r->n, r->n_header);
	return 1;
}

int gt_csv_col(const struct gt_csv *r, const char *name)
{
	for (uint32_t i = 0; i < r->n_header; i++)
		if (!strcmp(r->header[i], name))
			return (int)i;
	return -1;
}

int gt_csv_fail(const struct gt_csv *r, struct gt_err *err, int col, const char *what)
{
	const char *h = col >= 0 && (uint32_t)col < r->n_header ? r->header[col] : "?";
	const char *v = col >= 0 && (uint32_t)col < r->n ? r->fields[col] : "";
	return gt_errf(err, GT_EPARSE, "%s:%ld: column '%s': %s: '%s'", r->name, r->line, h, what, v);
}

/*
 * An empty field: the default when there is one (*@rc 0), else an error
 * (*@rc). True when the field is empty.
 */
static bool empty_field(const struct gt_csv *r, int col, bool has_dflt, int *rc, struct gt_err *err)
{
	if (*r->fields[col])
		return false;
	*rc = has_dflt ? 0 : gt_csv_fail(r, err, col, "empty");
	return true;
}

int gt_csv_double(const struct gt_csv *r, int col, const double *dflt, double *out,
		  struct gt_err *err)
{
	int rc;
	if (empty_field(r, col, dflt != NULL, &rc, err)) {
		if (dflt)
			*out = *dflt;
		return rc;
	}
	double v;
	if (gt_parse_number(r->fields[col], &v))
		return gt_csv_fail(r, err, col, "not a number");
	*out = v;
	return 0;
}

int gt_csv_int(const struct gt_csv *r, int col, const int64_t *dflt, int64_t *out,
	       struct gt_err *err)
{
	int rc;
	if (empty_field(r, col, dflt != NULL, &rc, err)) {
		if (dflt)
			*out = *dflt;
		return rc;
	}
	if (gt_parse_int(r->fields[col], out))
		return gt_csv_fail(r, err, col, "not an integer");
	return 0;
}
