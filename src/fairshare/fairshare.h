/*
 * fairshare.h - `gantry fairshare`: KAI's two fair-share simulators on the core
 *
 * KAI ships cmd/fairshare-simulator (POST /simulate: total resources and
 * queues in, each queue's fair share out, as the proportion plugin divides
 * them) and cmd/time-based-fairshare-simulator (queues and job submissions
 * over time in, allocation and fair share per queue per cycle out as CSV).
 * Gantry answers the same requests with the same JSON and CSV, computed by
 * the scheduling core itself (core/fairshare.h, core/usage.h): there is no
 * second implementation of the division. docs/fairshare.md is the user's
 * guide.
 */
#ifndef GT_FAIRSHARE_CMD_H
#define GT_FAIRSHARE_CMD_H

#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

/* Run `gantry fairshare ARGS`; the process exit status. */
int gt_fairshare_main(int argc, char **argv);

/*
 * Answer one /simulate request (@body, @len bytes of JSON): the response
 * JSON KAI's service writes (a map from queue uid to {gpu, cpu, memory},
 * keys sorted, a newline at the end) in *@out (free it). Fields Gantry does
 * not act on are said on @diag (may be NULL) as "<prefix>: warning: ...".
 * 0, or GT_EPARSE / GT_EINVAL with @err naming the field.
 */
int gt_fairshare_answer(const char *body, size_t len, char **out, FILE *diag, const char *prefix,
			struct gt_err *err);

/*
 * Run KAI's time-based simulator configuration (YAML text @cfg, named
 * @name in messages) and write the CSV (Time,QueueID,Allocation,FairShare)
 * to @csv. 0, or GT_EPARSE / GT_EINVAL with @err naming the field.
 */
int gt_fairshare_over_time(const char *cfg, size_t len, const char *name, FILE *csv, FILE *diag,
			   struct gt_err *err);

/* @v as Go's encoding/json writes a float64: the shortest text that reads back as @v. */
void gt_go_float(double v, char *buf, size_t len);

#endif /* GT_FAIRSHARE_CMD_H */
