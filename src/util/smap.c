#include "util/smap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/mem.h"

static char tombstone_mark;
#define TOMBSTONE (&tombstone_mark)

void gt_smap_init(struct gt_smap *m)
{
	memset(m, 0, sizeof(*m));
}

void gt_smap_release(struct gt_smap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key && m->slots[i].key != TOMBSTONE)
			free(m->slots[i].key);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

/* The slot holding @key, or NULL. */
static struct gt_smap_slot *find(const struct gt_smap *m, const char *key)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1;
	for (size_t i = gt_hash_str(key) & mask;; i = (i + 1) & mask) {
		struct gt_smap_slot *s = &m->slots[i];
		if (!s->key)
			return NULL;
		if (s->key != TOMBSTONE && !strcmp(s->key, key))
			return s;
	}
}

static void rehash(struct gt_smap *m, size_t cap)
{
	struct gt_smap_slot *old = m->slots;
	size_t old_cap = m->cap;
	m->slots = gt_xcalloc(cap, sizeof(*m->slots));
	m->cap = cap;
	m->used = m->n;
	for (size_t i = 0; i < old_cap; i++) {
		char *k = old[i].key;
		if (!k || k == TOMBSTONE)
			continue;
		size_t j = gt_hash_str(k) & (cap - 1);
		while (m->slots[j].key)
			j = (j + 1) & (cap - 1);
		m->slots[j] = old[i];
	}
	free(old);
}

void *gt_smap_get(const struct gt_smap *m, const char *key)
{
	struct gt_smap_slot *s = find(m, key);
	return s ? s->val : NULL;
}

void *gt_smap_put(struct gt_smap *m, const char *key, void *val)
{
	struct gt_smap_slot *s = find(m, key);
	if (s) {
		void *old = s->val;
		s->val = val;
		return old;
	}
	/* tombstones count against the load factor: rehashing drops them */
	if ((m->used + 1) * 10 > m->cap * 7) {
		size_t cap = 16;
		while (cap < (m->n + 1) * 2)
			cap *= 2;
		rehash(m, cap);
	}
	size_t mask = m->cap - 1, i = gt_hash_str(key) & mask;
	while (m->slots[i].key && m->slots[i].key != TOMBSTONE)
		i = (i + 1) & mask;
	if (!m->slots[i].key)
		m->used++;
	m->slots[i].key = gt_xstrdup(key);
	m->slots[i].val = val;
	m->n++;
	return NULL;
}

void *gt_smap_del(struct gt_smap *m, const char *key)
{
	struct gt_smap_slot *s = find(m, key);
	if (!s)
		return NULL;
	void *old = s->val;
	free(s->key);
	s->key = TOMBSTONE;
	s->val = NULL;
	m->n--;
	return old;
}

bool gt_smap_next(const struct gt_smap *m, size_t *pos, const char **key, void **val)
{
	for (; *pos < m->cap; (*pos)++) {
		const struct gt_smap_slot *s = &m->slots[*pos];
		if (!s->key || s->key == TOMBSTONE)
			continue;
		if (key)
			*key = s->key;
		if (val)
			*val = s->val;
		(*pos)++;
		return true;
	}
	return false;
}
