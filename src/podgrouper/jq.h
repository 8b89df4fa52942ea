/*
 * jq.h - the part of jq that Karta definitions are written in
 *
 * A Karta (run.ai/v1alpha1) describes a workload kind with jq expressions:
 * where a component's replica count lives in the workload
 * (".spec.worker.replicas // 1"), which pod label names its role
 * (".metadata.labels[\"example.com/role\"]"), how to name its gangs. KAI
 * evaluates them with gojq; Gantry evaluates this subset over its parsed
 * documents, and refuses anything else with a message that names it:
 *
 *   paths       .  .a  ."a"  .["a"]  .[0]  .[]  .a[]  .a?  .[.k]
 *   literals    "text" (escapes, no interpolation)  1  2.5  true  false  null
 *   operators   |  ,  //  or  and  == != < <= > >=  + - * / %  unary -  ( )
 *   functions   select(f)  has(k)  not  type  length  keys  to_entries
 *               tostring  tonumber  ascii_downcase  empty  values
 *
 * Values are documents (api/doc.h): NULL is jq's null; a quoted scalar is a
 * string; a plain one is null, a boolean, a number or (when it reads as
 * none of these) a string; maps and sequences are objects and arrays.
 */
#ifndef GT_PODGROUPER_JQ_H
#define GT_PODGROUPER_JQ_H

#include <stdbool.h>
#include <stddef.h>

#include "api/doc.h"

struct gt_jq;

/* Parse @src: 0 and *@out, or GT_EINVAL with the reason (and where) in @why. */
int gt_jq_parse(const char *src, struct gt_jq **out, char *why, size_t why_size);
void gt_jq_free(struct gt_jq *q);

/*
 * The outputs of one evaluation, in jq's order. Each value is NULL (null), a
 * node of the input, or one the evaluation made, which lives as long as the
 * results do.
 */
struct gt_jq_results {
	const struct gt_doc **v;
	size_t n, cap;
	struct gt_doc **made;
	size_t n_made, cap_made;
};

/* Run @q on @input: 0, or GT_EINVAL with jq's kind of error in @why (@r then holds nothing). */
int gt_jq_eval(const struct gt_jq *q, const struct gt_doc *input, struct gt_jq_results *r,
	       char *why, size_t why_size);
void gt_jq_results_release(struct gt_jq_results *r);

enum gt_jq_type { GT_JQ_NULL, GT_JQ_FALSE, GT_JQ_TRUE, GT_JQ_NUMBER, GT_JQ_STRING, GT_JQ_ARRAY,
		  GT_JQ_OBJECT };

enum gt_jq_type gt_jq_type(const struct gt_doc *v);
/* A number's value: true and *@out, or false for anything else. */
bool gt_jq_number(const struct gt_doc *v, double *out);

#endif /* GT_PODGROUPER_JQ_H */
