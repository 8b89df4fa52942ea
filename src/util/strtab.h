/*
 * strtab.h - string interning: every distinct string gets a dense id
 *
 * The API layer interns names, label keys and label values once at ingest so
 * that the scheduling core compares integers, never strings. Ids are
 * assigned in first-seen order (0, 1, 2, ...) and are stable for the life of
 * the table. Lookup and insert are O(1) expected (open addressing, gt_hash_bytes).
 */
#ifndef GT_STRTAB_H
#define GT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"

struct gt_strtab {
	char **strs;		/* id -> its string, in chars */
	size_t n_strs, cap_strs;
	uint32_t *slots;	/* open-addressing table of id+1; 0 = empty */
	size_t n_slots;		/* power of two */
	uint32_t *hashes;	/* id -> its hash (low bits): probes compare it before the string */
	/*
	 * the strings, freed together: a large cluster's names were tens of
	 * thousands of heap blocks, faulted in page by page
	 */
	struct gt_arena chars;
};

void gt_strtab_init(struct gt_strtab *t);
void gt_strtab_release(struct gt_strtab *t);
/* Id of @s, adding a copy of it if new. */
uint32_t gt_strtab_intern(struct gt_strtab *t, const char *s);
/* Id of @s, or -1 if it was never interned. */
int64_t gt_strtab_find(const struct gt_strtab *t, const char *s);
/*
 * Index of @s among @names[0..@n) (NULL entries never match), or -1 (also
 * for a NULL @s): the one lookup behind every enum's name table.
 */
int gt_name_index(const char *const *names, int n, const char *s);

static inline const char *gt_strtab_str(const struct gt_strtab *t, uint32_t id)
{
	return t->strs[id];
}

#endif /* GT_STRTAB_H */
