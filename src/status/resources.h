/*
 * resources.h - resource lists as KAI's status controllers sum and write them
 *
 * A resource list is a Kubernetes ResourceList: resource name to quantity.
 * KAI's podgroup and queue controllers add such lists together
 * (resource.Quantity.Add) and write them into status. Here each quantity is
 * held exactly to the thousandth (milli-units, rounded up as Kubernetes'
 * MilliValue() does: "1.5m" CPU is 2m) with the format Kubernetes keeps for
 * it: a sum takes the format of the quantity that started it, as
 * Quantity.Add keeps the receiver's. Written back, a quantity is in
 * Kubernetes' canonical form for its format: "1500m", "2", "1536Mi", "1G".
 */
#ifndef GT_STATUS_RESOURCES_H
#define GT_STATUS_RESOURCES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/doc.h"

/* How Kubernetes writes a quantity back: decimal SI (m, k, M, ...) or binary SI (Ki, Mi, ...). */
enum gt_qfmt { GT_QFMT_DECIMAL, GT_QFMT_BINARY };

struct gt_rq {
	char *name;
	int64_t milli;
	enum gt_qfmt fmt;
};

struct gt_rlist {
	struct gt_rq *v;	/* sorted by name */
	size_t n, cap;
};

void gt_rlist_release(struct gt_rlist *l);
/* Add @milli of @name (a new name takes @fmt; an existing one keeps its own). */
void gt_rlist_add(struct gt_rlist *l, const char *name, int64_t milli, enum gt_qfmt fmt);
/* Add every quantity of @o to @l. */
void gt_rlist_add_list(struct gt_rlist *l, const struct gt_rlist *o);
/* The quantity of @name, or 0 (and *@found false). */
int64_t gt_rlist_get(const struct gt_rlist *l, const char *name, bool *found);
/* The same names with the same values (formats aside). */
bool gt_rlist_equal(const struct gt_rlist *a, const struct gt_rlist *b);

/* One quantity string: its milli-value and format. 0 or GT_EINVAL. */
int gt_quantity_read(const char *s, int64_t *milli, enum gt_qfmt *fmt);
/* Kubernetes' canonical text of @milli in @fmt into @buf ("1500m", "1536Mi"). */
void gt_quantity_format(int64_t milli, enum gt_qfmt fmt, char *buf, size_t cap);

/*
 * Add the resource-list map @d (a document's "requests", a status list)
 * to @l. A value that is no quantity is left out and named in @bad (its key,
 * when @bad is not NULL and still empty). NULL or an empty @d adds nothing.
 */
void gt_rlist_add_doc(struct gt_rlist *l, const struct gt_doc *d, const char **bad);
/* The list as a JSON object of canonical strings. */
json_t *gt_rlist_to_json(const struct gt_rlist *l);

#endif /* GT_STATUS_RESOURCES_H */
