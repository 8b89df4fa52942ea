/*
 * table.h - aligned text tables for people, as kubectl prints them
 *
 * Each column is as wide as its widest value, up to its cap: a longer value
 * is cut and ends with a marker (…), so a 60-character PodGroup name keeps the
 * columns in line; -o wide (@wide) cuts nothing and shows the columns marked
 * wide_only too. A value is one line: newlines in it become spaces.
 */
#ifndef GT_SIM_TABLE_H
#define GT_SIM_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gt_table_col {
	const char *header;
	int cap;		/* longest value shown before it is cut (0: never cut) */
	bool right;		/* numbers: aligned right */
	bool wide_only;		/* shown with -o wide only */
};

struct gt_table {
	const struct gt_table_col *cols;
	uint32_t n_cols;
	bool wide;
	char **cells;		/* row-major, n_cols per row; owned */
	size_t n_rows, cap_cells;
};

void gt_table_init(struct gt_table *t, const struct gt_table_col *cols, uint32_t n_cols, bool wide);
/* Add a row of @t->n_cols values (copied; NULL is "-"). */
void gt_table_row(struct gt_table *t, const char *const *values);
void gt_table_print(const struct gt_table *t, FILE *f);
void gt_table_release(struct gt_table *t);

/* Write @s to @f on one line: each run of newlines (and the spaces after) becomes one space. */
void gt_put_one_line(FILE *f, const char *s);

#endif /* GT_SIM_TABLE_H */
