/*
 * output.h - a replay's results for tools (JSON), people (a table) and
 * comparisons (two JSON results side by side); the HTML report is in
 * report.c. docs/replay.md documents every JSON key; the keys that
 * ../shared/docs/REPLAY.md lists are a contract with outside tools.
 */
#ifndef GT_REPLAY_OUTPUT_H
#define GT_REPLAY_OUTPUT_H

#include <jansson.h>
#include <stdio.h>

#include "replay/metrics.h"
#include "util/err.h"
#include "util/time.h"	/* gt_format_duration */

/* The results as one JSON object (new reference). */
json_t *gt_replay_stats_json(const struct gt_replay_stats *st);
void gt_replay_print_json(FILE *f, const struct gt_replay_stats *st, bool yaml);
void gt_replay_print_table(FILE *f, const struct gt_replay_stats *st);
/* Two `-o json` results side by side. 0, or GT_EIO / GT_EPARSE with @err. */
int gt_replay_compare(FILE *f, const char *a, const char *b, struct gt_err *err);
/* The self-contained HTML report. 0, or GT_EIO with @err. */
int gt_replay_write_report(const char *path, const struct gt_replay_stats *st,
			   struct gt_err *err);
/* The same into @f, opened already (left open; @path names it in messages). */
int gt_replay_write_report_to(FILE *f, const char *path, const struct gt_replay_stats *st, struct gt_err *err);

#endif /* GT_REPLAY_OUTPUT_H */
