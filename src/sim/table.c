#include "sim/table.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define MARKER "\xe2\x80\xa6"	/* …: one column wide, three bytes */

/* Columns a string takes: UTF-8 continuation bytes take none. */
static int width_of(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* @v on one line, cut to @cap columns with the marker when longer (cap 0: never). */
static char *cell(const char *v, int cap)
{
	size_t n = strlen(v);
	char *out = gt_xmalloc(n + sizeof(MARKER) + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] == '\n' || v[i] == '\r') {
			while (i + 1 < n && (v[i + 1] == '\n' || v[i + 1] == '\r' || v[i + 1] == ' '))
				i++;
			if (k && out[k - 1] != ' ')
				out[k++] = ' ';
			continue;
		}
		out[k++] = v[i];
	}
	out[k] = '\0';
	if (cap > 1 && width_of(out) > cap) {
		/* cap - 1 columns of the value, then the marker; ASCII names: bytes are columns */
		size_t keep = 0;
		for (int w = 0; out[keep] && w < cap - 1; keep++)
			w += ((unsigned char)out[keep] & 0xC0) != 0x80;
		while (((unsigned char)out[keep] & 0xC0) == 0x80)
			keep++;
		memcpy(out + keep, MARKER, sizeof(MARKER));
	}
	return out;
}

void gt_table_init(struct gt_table *t, const struct gt_table_col *cols, uint32_t n_cols, bool wide)
{
	*t = (struct gt_table){ .cols = cols, .n_cols = n_cols, .wide = wide };
}

void gt_table_row(struct gt_table *t, const char *const *values)
{
	GT_GROW(t->cells, (t->n_rows + 1) * t->n_cols, t->cap_cells);
	for (uint32_t c = 0; c < t->n_cols; c++)
		t->cells[t->n_rows * t->n_cols + c] = cell(values[c] ? values[c] : "-", t->wide ? 0 : t->cols[c].cap);
	t->n_rows++;
}

static bool shown(const struct gt_table *t, uint32_t c)
{
	return t->wide || !t->cols[c].wide_only;
}

static void pad(FILE *f, const char *v, int width, bool right, bool last)
{
	int gap = width - width_of(v);
	if (right)
		fprintf(f, "%*s%s", gap > 0 ? gap : 0, "", v);
	else if (last)
		fputs(v, f);
	else
		fprintf(f, "%s%*s", v, gap > 0 ? gap : 0, "");
}

void gt_table_print(const struct gt_table *t, FILE *f)
{
	int *w = gt_xcalloc(t->n_cols + 1, sizeof(*w));
	uint32_t last = 0;
	for (uint32_t c = 0; c < t->n_cols; c++) {
		if (!shown(t, c))
			continue;
		last = c;
		w[c] = width_of(t->cols[c].header);
		for (size_t r = 0; r < t->n_rows; r++) {
			int cw = width_of(t->cells[r * t->n_cols + c]);
			w[c] = cw > w[c] ? cw : w[c];
		}
	}
	for (size_t r = 0; r <= t->n_rows; r++) {
		const char *const *row = r ? (const char *const *)&t->cells[(r - 1) * t->n_cols] : NULL;
		uint32_t end = last;	/* no trailing blanks: the row ends at its last value */
		while (row && end > 0 && (!shown(t, end) || !*row[end]))
			end--;
		bool first = true;
		for (uint32_t c = 0; c <= end; c++) {
			if (!shown(t, c))
				continue;
			if (!first)
				fputs("   ", f);
			first = false;
			pad(f, row ? row[c] : t->cols[c].header, w[c], t->cols[c].right, c == end);
		}
		fputc('\n', f);
	}
	free(w);
}

void gt_table_release(struct gt_table *t)
{
	for (size_t i = 0; i < t->n_rows * t->n_cols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

void gt_put_one_line(FILE *f, const char *s)
{
	char *one = cell(s, 0);
	fputs(one, f);
	free(one);
}
