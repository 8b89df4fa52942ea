/*
 * internal.h - what the files of src/admission share, and nobody else
 *
 * A webhook reads the reviewed object (a jansson tree, borrowed from the
 * review) and fills a struct verdict: allowed or not, the status code and
 * KAI's message, warnings, and for the mutating webhook the object as it
 * should be (the JSON Patch is computed from it, patch.c).
 */
#ifndef GT_ADMISSION_INTERNAL_H
#define GT_ADMISSION_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "admission/webhooks.h"

enum review_op { OP_CREATE, OP_UPDATE, OP_DELETE, OP_CONNECT };

/* An AdmissionReview's request, borrowed from the parsed body (review.c). */
struct review {
	json_t *root;			/* the whole body; owns everything below */
	const char *api_version;	/* echoed in the answer */
	const char *uid;
	const char *group, *version, *kind;	/* request.kind */
	const char *ns, *name;		/* request.namespace, request.name ("" when absent) */
	enum review_op op;
	json_t *object, *old_object;	/* NULL when absent or null */
};

struct verdict {
	bool allowed;
	int code;			/* status.code: 200, 400, 403 */
	char *message;			/* NULL: none */
	char **warnings;
	size_t n_warnings, cap_warnings;
	json_t *patched;		/* mutating webhooks: the object after the change, or NULL */
};

void verdict_allow(struct verdict *v);
/* Denied, as controller-runtime answers a webhook's error: 403 Forbidden with @fmt as the message. */
void verdict_deny(struct verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The request itself is bad (controller-runtime's Errored): allowed false, @code, the message. */
void verdict_error(struct verdict *v, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void verdict_warn(struct verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void verdict_release(struct verdict *v);

/* review.c: 0, or -1 with the reason in @why (the review's uid is in @r when it could be read). */
int review_decode(const char *body, size_t len, struct review *r, char *why, size_t why_len);
/* The AdmissionReview answering @r (@r may be NULL when nothing of it could be read), to free(). */
char *review_encode(const struct review *r, const struct verdict *v, size_t *len);
void review_release(struct review *r);

/* The webhooks. @r->object is the object under review (checked not NULL for CREATE and UPDATE). */
void pod_mutate(const struct gt_admission_rules *rules, const struct review *r, struct verdict *v);
void pod_validate(const struct gt_admission_rules *rules, const struct review *r, struct verdict *v);
void topology_validate(const struct review *r, struct verdict *v);
void queue_validate(const struct review *r, struct verdict *v);
void podgroup_validate(const struct review *r, struct verdict *v);

/* patch.c: the RFC 6902 operations that turn @from into @to (an empty array when equal). */
json_t *json_patch_diff(const json_t *from, const json_t *to);

/* gonum.c: numbers as KAI's Go code reads annotation values. */
/* strconv.ParseFloat(s, 64): the whole string, Go's syntax (decimal, hex, inf, nan, "_"). */
bool go_parse_float(const char *s, double *out);
/*
 * The syntax resource.ParseQuantity takes: sign? digits ('.' digits?)? or
 * sign? '.' digits, then an SI suffix or e/E and a signed integer; any
 * number of digits (the value is not bounded here: gt_quantity_parse()
 * reads values, this only tells what Go refuses to read).
 */
bool k8s_quantity_syntax(const char *s);
/* strconv.ParseUint(s, 10, 64). */
bool go_parse_uint(const char *s, uint64_t *out);
/* Go's %q of a string: double quotes, with \" \\ and escapes for control bytes, into @out. */
void go_quote(const char *s, char *out, size_t cap);

/* review.c: reading objects that may have any shape. */
/* The object at @key of @o, or NULL when @o is not an object or the value is not one. */
json_t *obj_get_object(const json_t *o, const char *key);
json_t *obj_get_array(const json_t *o, const char *key);
/* The string at @key, or NULL when absent or not a string. */
const char *obj_get_string(const json_t *o, const char *key);

#endif /* GT_ADMISSION_INTERNAL_H */
