/*
 * smap.h - a string-keyed hash map of pointers, with removal
 *
 * For the long-running controllers, whose keys come and go (pods, cached
 * owners): gt_strtab interns for the life of the table, this map forgets.
 * Open addressing with linear probing; a removed key leaves a tombstone,
 * so removing while iterating is safe (inserting is not). Keys are copied;
 * values are the caller's.
 */
#ifndef GT_SMAP_H
#define GT_SMAP_H

#include <stdbool.h>
#include <stddef.h>

struct gt_smap_slot {
	char *key;		/* NULL: empty; the tombstone marker: removed */
	void *val;
};

struct gt_smap {
	struct gt_smap_slot *slots;
	size_t cap;		/* power of two, or 0 before the first insert */
	size_t n;		/* live keys */
	size_t used;		/* live keys and tombstones */
};

void gt_smap_init(struct gt_smap *m);
/* Free the keys and the table; the values are the caller's to free first. */
void gt_smap_release(struct gt_smap *m);
void *gt_smap_get(const struct gt_smap *m, const char *key);
/* Set @key to @val; returns the value it replaces, or NULL. */
void *gt_smap_put(struct gt_smap *m, const char *key, void *val);
/* Remove @key; returns its value, or NULL. */
void *gt_smap_del(struct gt_smap *m, const char *key);
/*
 * Iterate: size_t pos = 0; while (gt_smap_next(m, &pos, &key, &val)) ...
 * @key and @val may be NULL.
 */
bool gt_smap_next(const struct gt_smap *m, size_t *pos, const char **key, void **val);

#endif /* GT_SMAP_H */
