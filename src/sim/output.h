/*
 * output.h - what `gantry simulate` prints: JSON for tools, a table for people
 */
#ifndef GT_OUTPUT_H
#define GT_OUTPUT_H

#include <stdio.h>

#include "core/plan.h"
#include "core/session.h"

/* What the cycles did, all of them and the last. */
struct gt_sim_run {
	int cycles;
	uint32_t binds, pipelines, evictions;	/* over every cycle */
	bool wide;				/* -o wide: every column, nothing cut */
};

/*
 * The state the last cycle left, as SIMULATE.md specifies: pods, nodes and
 * queues as session @s left them, what the cycle did as plan @plan says
 * (its fresh GPU groups get their names here, if not yet). JSON, or the
 * same document as YAML when @yaml; a table for people (-o table and wide),
 * headed by what every cycle did.
 */
void gt_output_json(FILE *out, struct gt_cluster *c, const struct gt_session *s, struct gt_plan *plan,
		    const struct gt_sim_run *run, bool yaml);
void gt_output_table(FILE *out, struct gt_cluster *c, const struct gt_session *s, struct gt_plan *plan,
		     const struct gt_sim_run *run);
/* What cycle @cycle did: each bind, pipeline and eviction (with why), for people. */
void gt_output_cycle_log(FILE *out, const struct gt_cluster *c, const struct gt_plan *plan, int cycle);

#endif /* GT_OUTPUT_H */
