#include "util/strtab.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/mem.h"

void gt_strtab_init(struct gt_strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void gt_strtab_release(struct gt_strtab *t)
{
	for (size_t i = 0; i < t->n_strs; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static void rehash(struct gt_strtab *t, size_t n_slots)
{
	free(t->slots);
	t->slots = gt_xcalloc(n_slots, sizeof(*t->slots));
	t->n_slots = n_slots;
	for (size_t id = 0; id < t->n_strs; id++) {
		size_t i = gt_hash_str(t->strs[id]) & (n_slots - 1);
		while (t->slots[i])
			i = (i + 1) & (n_slots - 1);
		t->slots[i] = (uint32_t)id + 1;
	}
}

int64_t gt_strtab_find(const struct gt_strtab *t, const char *s)
{
	if (!t->n_slots)
		return -1;
	size_t i = gt_hash_str(s) & (t->n_slots - 1);
	while (t->slots[i]) {
		uint32_t id = t->slots[i] - 1;
		if (strcmp(t->strs[id], s) == 0)
			return id;
		i = (i + 1) & (t->n_slots - 1);
	}
	return -1;
}

uint32_t gt_strtab_intern(struct gt_strtab *t, const char *s)
{
	int64_t found = gt_strtab_find(t, s);
	if (found >= 0)
		return (uint32_t)found;
	if ((t->n_strs + 1) * 2 > t->n_slots)
		rehash(t, t->n_slots ? t->n_slots * 2 : 64);
	uint32_t id = (uint32_t)t->n_strs;
	GT_PUSH(t->strs, t->n_strs, t->cap_strs, gt_xstrdup(s));
	size_t i = gt_hash_str(s) & (t->n_slots - 1);
	while (t->slots[i])
		i = (i + 1) & (t->n_slots - 1);
	t->slots[i] = id + 1;
	return id;
}

int gt_name_index(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (names[i] && !strcmp(names[i], s))
			return i;
	return -1;
}
