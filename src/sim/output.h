/*
 * output.h - what `gantry simulate` prints: JSON for tools, a table for people
 */
#ifndef GT_OUTPUT_H
#define GT_OUTPUT_H

#include <stdio.h>

#include "core/plan.h"
#include "core/session.h"

/*
 * The state the last cycle left, as SIMULATE.md specifies: pods, nodes and
 * queues as session @s left them, what the cycle did as plan @plan says
 * (its fresh GPU groups get their names here, if not yet). JSON, or the
 * same document as YAML when @yaml; a table for people (-o table and wide).
 */
void gt_output_json(FILE *out, struct gt_cluster *c, const struct gt_session *s, struct gt_plan *plan,
		    int cycles, bool yaml);
void gt_output_table(FILE *out, struct gt_cluster *c, const struct gt_session *s, struct gt_plan *plan,
		     int cycles);
/* What cycle @cycle did: each bind, pipeline and eviction (with why), for people. */
void gt_output_cycle_log(FILE *out, const struct gt_cluster *c, const struct gt_plan *plan, int cycle);

#endif /* GT_OUTPUT_H */
