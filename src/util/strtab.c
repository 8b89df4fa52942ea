#include "util/strtab.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/mem.h"

void gt_strtab_init(struct gt_strtab *t)
{
	memset(t, 0, sizeof(*t));
	gt_arena_init(&t->chars);
}

void gt_strtab_release(struct gt_strtab *t)
{
	gt_arena_release(&t->chars);
	free(t->strs);
	free(t->slots);
	free(t->hashes);
	memset(t, 0, sizeof(*t));
}

static void rehash(struct gt_strtab *t, size_t n_slots)
{
	free(t->slots);
	t->slots = gt_xcalloc(n_slots, sizeof(*t->slots));
	t->n_slots = n_slots;
	for (size_t id = 0; id < t->n_strs; id++) {
		size_t i = t->hashes[id] & (n_slots - 1);
		while (t->slots[i])
			i = (i + 1) & (n_slots - 1);
		t->slots[i] = (uint32_t)id + 1;
	}
}

/* The slot of @s (hash @h): its id + 1 there, or the empty slot where it would go. */
static size_t probe(const struct gt_strtab *t, const char *s, uint32_t h)
{
	size_t i = h & (t->n_slots - 1);
	for (uint32_t id; (id = t->slots[i]); i = (i + 1) & (t->n_slots - 1))
		if (t->hashes[id - 1] == h && strcmp(t->strs[id - 1], s) == 0)
			break;
	return i;
}

int64_t gt_strtab_find(const struct gt_strtab *t, const char *s)
{
	if (!t->n_slots)
		return -1;
	uint32_t id = t->slots[probe(t, s, (uint32_t)gt_hash_bytes(s, strlen(s)))];
	return id ? (int64_t)id - 1 : -1;
}

uint32_t gt_strtab_intern(struct gt_strtab *t, const char *s)
{
	size_t len = strlen(s);
	uint32_t h = (uint32_t)gt_hash_bytes(s, len);	/* once, for the lookup and the insert */
	if ((t->n_strs + 1) * 2 > t->n_slots)
		rehash(t, t->n_slots ? t->n_slots * 2 : 64);
	size_t i = probe(t, s, h);
	if (t->slots[i])
		return t->slots[i] - 1;
	uint32_t id = (uint32_t)t->n_strs;
	size_t cap = t->cap_strs;
	GT_PUSH(t->strs, t->n_strs, t->cap_strs, gt_arena_strndup(&t->chars, s, len));
	if (t->cap_strs != cap)
		t->hashes = gt_xrealloc(t->hashes, t->cap_strs * sizeof(*t->hashes));
	t->hashes[id] = h;
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
