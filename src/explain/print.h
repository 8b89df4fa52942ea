/*
 * print.h - an explanation for people (a describe-like block) and for
 * scripts (-o json, docs/explain.md lists the keys)
 */
#ifndef GT_EXPLAIN_PRINT_H
#define GT_EXPLAIN_PRINT_H

#include <jansson.h>
#include <stdio.h>

#include "explain/why.h"

/* @now: the clock the forecast started from (for "in 2 h"). */
void gt_ex_print_text(FILE *f, const struct gt_explanation *e, int64_t now);
json_t *gt_ex_json(const struct gt_explanation *e, int64_t now);

#endif /* GT_EXPLAIN_PRINT_H */
