/*
 * result.c - the PodGroup a rule builds, and the documents made from it
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"
#include "util/mem.h"
#include "util/time.h"

void gt_pg_set(char **field, const char *value)
{
	char *copy = value ? gt_xstrdup(value) : NULL;	/* @value may live in *field */
	free(*field);
	*field = copy;
}

void gt_pg_setf(char **field, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = gt_xmalloc((size_t)(n < 0 ? 0 : n) + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
	va_end(ap);
	free(*field);
	*field = s;
}

const char *gt_pg_kvs_get(const struct gt_pg_kvs *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->items[i].key, key))
			return m->items[i].value;
	return NULL;
}

void gt_pg_kvs_set(struct gt_pg_kvs *m, const char *key, const char *value)
{
	for (size_t i = 0; i < m->n; i++) {
		if (!strcmp(m->items[i].key, key)) {
			gt_pg_set(&m->items[i].value, value);
			return;
		}
	}
	struct gt_pg_kv kv = { gt_xstrdup(key), gt_xstrdup(value) };
	GT_PUSH(m->items, m->n, m->cap, kv);
}

void gt_pg_kvs_release(struct gt_pg_kvs *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->items[i].key);
		free(m->items[i].value);
	}
	free(m->items);
	memset(m, 0, sizeof(*m));
}

void gt_pg_set_topology(struct gt_pg_topology *t, const char *topology, const char *required,
			const char *preferred)
{
	gt_pg_set(&t->topology, topology && *topology ? topology : NULL);
	gt_pg_set(&t->required, required && *required ? required : NULL);
	gt_pg_set(&t->preferred, preferred && *preferred ? preferred : NULL);
}

void gt_pg_topology_release(struct gt_pg_topology *t)
{
	gt_pg_set_topology(t, NULL, NULL, NULL);
}

struct gt_pg_subgroup *gt_pg_add_subgroup(struct gt_podgroup *pg, const char *name,
					  int64_t min_member, const char *parent)
{
	GT_GROW(pg->subgroups, pg->n_subgroups + 1, pg->cap_subgroups);
	struct gt_pg_subgroup *sg = &pg->subgroups[pg->n_subgroups++];
	memset(sg, 0, sizeof(*sg));
	sg->name = gt_xstrdup(name);
	sg->min_member = (int32_t)min_member;
	gt_pg_set(&sg->parent, parent);
	return sg;
}

void gt_pg_set_min_subgroup(struct gt_pg_subgroup *sg, int64_t n)
{
	sg->has_min_subgroup = true;
	sg->min_subgroup = (int32_t)n;
	sg->min_member = 0;
}

void gt_pg_clear_subgroups(struct gt_podgroup *pg)
{
	for (size_t i = 0; i < pg->n_subgroups; i++) {
		free(pg->subgroups[i].name);
		free(pg->subgroups[i].parent);
		gt_pg_topology_release(&pg->subgroups[i].topology);
	}
	free(pg->subgroups);
	pg->subgroups = NULL;
	pg->n_subgroups = pg->cap_subgroups = 0;
}

void gt_pg_set_owner(struct gt_pg_owner_ref *o, const struct gt_doc *d)
{
	gt_pg_set(&o->api_version, gt_pg_api_version(d));
	gt_pg_set(&o->kind, gt_pg_kind(d));
	gt_pg_set(&o->name, gt_pg_name(d));
	gt_pg_set(&o->uid, gt_pg_uid(d));
}

void gt_pg_owner_release(struct gt_pg_owner_ref *o)
{
	free(o->api_version);
	free(o->kind);
	free(o->name);
	free(o->uid);
	memset(o, 0, sizeof(*o));
}

/*
 * KAI names a PodGroup pg-<name>-<uid>. Objects from the API server always
 * have a uid; hand-written manifests often do not, and "pg-<name>-" would be
 * an odd name, so the dash goes with the uid.
 */
void gt_pg_name_uid(char **field, const char *name, const char *uid)
{
	if (uid && *uid)
		gt_pg_setf(field, "pg-%s-%s", name, uid);
	else
		gt_pg_setf(field, "pg-%s", name);
}

void gt_pg_default_name(char **field, const struct gt_doc *d)
{
	gt_pg_name_uid(field, gt_pg_name(d), gt_pg_uid(d));
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_topology(const struct gt_pg_topology *a, const struct gt_pg_topology *b)
{
	return same_str(a->topology, b->topology) && same_str(a->required, b->required) &&
	       same_str(a->preferred, b->preferred);
}

static bool same_kvs(const struct gt_pg_kvs *a, const struct gt_pg_kvs *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!same_str(a->items[i].value, gt_pg_kvs_get(b, a->items[i].key)))
			return false;
	return true;
}

static bool same_duration(const struct gt_pg_duration *a, const struct gt_pg_duration *b)
{
	return a->set == b->set && (!a->set || a->ns == b->ns);
}

static bool same_subgroup(const struct gt_pg_subgroup *a, const struct gt_pg_subgroup *b)
{
	return same_str(a->name, b->name) && same_str(a->parent, b->parent) &&
	       a->has_min_subgroup == b->has_min_subgroup &&
	       (a->has_min_subgroup ? a->min_subgroup == b->min_subgroup
				    : a->min_member == b->min_member) &&
	       same_topology(&a->topology, &b->topology);
}

bool gt_pg_podgroup_equal(const struct gt_podgroup *a, const struct gt_podgroup *b)
{
	bool same = same_str(a->name, b->name) && same_str(a->namespace, b->namespace) &&
		    same_str(a->queue, b->queue) && same_str(a->priority_class, b->priority_class) &&
		    same_str(a->preemptibility, b->preemptibility) &&
		    a->has_min_subgroup == b->has_min_subgroup &&
		    (a->has_min_subgroup ? a->min_subgroup == b->min_subgroup
					 : a->min_member == b->min_member) &&
		    same_duration(&a->preemption_delay, &b->preemption_delay) &&
		    same_duration(&a->staleness_grace, &b->staleness_grace) &&
		    same_topology(&a->topology, &b->topology) && same_kvs(&a->labels, &b->labels) &&
		    same_kvs(&a->annotations, &b->annotations) &&
		    same_str(a->owner.api_version, b->owner.api_version) &&
		    same_str(a->owner.kind, b->owner.kind) && same_str(a->owner.name, b->owner.name) &&
		    same_str(a->owner.uid, b->owner.uid) && a->n_subgroups == b->n_subgroups;
	for (size_t i = 0; same && i < a->n_subgroups; i++)
		same = same_subgroup(&a->subgroups[i], &b->subgroups[i]);
	return same;
}

void gt_podgroup_release(struct gt_podgroup *pg)
{
	free(pg->name);
	free(pg->namespace);
	free(pg->queue);
	free(pg->priority_class);
	free(pg->preemptibility);
	free(pg->pod_subgroup);
	free(pg->warning);
	gt_pg_clear_subgroups(pg);
	gt_pg_topology_release(&pg->topology);
	gt_pg_kvs_release(&pg->labels);
	gt_pg_kvs_release(&pg->annotations);
	gt_pg_owner_release(&pg->owner);
	memset(pg, 0, sizeof(*pg));
}

/* ---------------------------------------------------------------- documents */

static struct gt_doc *doc_new(enum gt_doc_kind kind)
{
	struct gt_doc *d = gt_xcalloc(1, sizeof(*d));
	d->kind = kind;
	return d;
}

struct gt_doc *gt_pg_doc_new_map(void)
{
	return doc_new(GT_DOC_MAP);
}

/* Quoted, so that a value like "true" or "1" stays a string when read back. */
struct gt_doc *gt_pg_doc_new_str(const char *s)
{
	struct gt_doc *d = doc_new(GT_DOC_SCALAR);
	d->scalar = gt_xstrdup(s);
	d->quoted = true;
	return d;
}

struct gt_doc *gt_pg_doc_new_seq(void)
{
	return doc_new(GT_DOC_SEQ);
}

struct gt_doc *gt_pg_doc_new_plain(const char *s)
{
	struct gt_doc *d = doc_new(GT_DOC_SCALAR);
	d->scalar = gt_xstrdup(s);
	return d;
}

struct gt_doc *gt_pg_doc_new_int(int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return gt_pg_doc_new_plain(buf);
}

struct gt_doc *gt_pg_doc_copy(const struct gt_doc *d)
{
	if (!d)
		return NULL;
	struct gt_doc *c = doc_new(d->kind);
	c->line = d->line;
	c->quoted = d->quoted;
	if (d->kind == GT_DOC_SCALAR) {
		c->scalar = gt_xstrdup(d->scalar ? d->scalar : "");
		return c;
	}
	for (size_t i = 0; i < d->n; i++) {
		struct gt_doc *item = gt_pg_doc_copy(d->items[i]);
		if (d->kind == GT_DOC_MAP)
			gt_pg_doc_put(c, d->keys[i], item);
		else
			gt_pg_doc_append(c, item);
	}
	return c;
}

static void doc_push(struct gt_doc *d, const char *key, struct gt_doc *value)
{
	GT_GROW(d->items, d->n + 1, d->cap);
	if (d->kind == GT_DOC_MAP) {
		/* doc.c sizes keys by the items' capacity; keep it so */
		d->keys = gt_xrealloc(d->keys, d->cap * sizeof(*d->keys));
		d->keys[d->n] = gt_xstrdup(key);
	}
	d->items[d->n++] = value;
}

void gt_pg_doc_append(struct gt_doc *seq, struct gt_doc *value)
{
	doc_push(seq, NULL, value);
}

void gt_pg_doc_del(struct gt_doc *map, const char *key)
{
	for (size_t i = 0; map && map->kind == GT_DOC_MAP && i < map->n; i++) {
		if (strcmp(map->keys[i], key))
			continue;
		gt_doc_free(map->items[i]);
		free(map->keys[i]);
		memmove(&map->items[i], &map->items[i + 1], (map->n - i - 1) * sizeof(*map->items));
		memmove(&map->keys[i], &map->keys[i + 1], (map->n - i - 1) * sizeof(*map->keys));
		map->n--;
		return;
	}
}

void gt_pg_doc_put(struct gt_doc *map, const char *key, struct gt_doc *value)
{
	for (size_t i = 0; i < map->n; i++) {
		if (!strcmp(map->keys[i], key)) {
			gt_doc_free(map->items[i]);
			map->items[i] = value;
			return;
		}
	}
	doc_push(map, key, value);
}

struct gt_doc *gt_pg_doc_child_map(struct gt_doc *map, const char *key)
{
	for (size_t i = 0; i < map->n; i++)
		if (!strcmp(map->keys[i], key) && map->items[i]->kind == GT_DOC_MAP)
			return map->items[i];
	struct gt_doc *child = gt_pg_doc_new_map();
	gt_pg_doc_put(map, key, child);
	return child;
}

static void put_str(struct gt_doc *map, const char *key, const char *value)
{
	if (value)
		gt_pg_doc_put(map, key, gt_pg_doc_new_str(value));
}

static void put_duration(struct gt_doc *map, const char *key, const struct gt_pg_duration *d)
{
	char text[GT_DURATION_GO_MAX];
	if (!d->set)
		return;
	gt_duration_format_go(d->ns, text);
	gt_pg_doc_put(map, key, gt_pg_doc_new_str(text));
}

static struct gt_doc *kvs_doc(const struct gt_pg_kvs *m)
{
	struct gt_doc *d = gt_pg_doc_new_map();
	for (size_t i = 0; i < m->n; i++)
		put_str(d, m->items[i].key, m->items[i].value);
	return d;
}

static bool has_topology(const struct gt_pg_topology *t)
{
	return t->topology || t->required || t->preferred;
}

static struct gt_doc *topology_doc(const struct gt_pg_topology *t)
{
	struct gt_doc *d = gt_pg_doc_new_map();
	put_str(d, "topology", t->topology);
	put_str(d, "requiredTopologyLevel", t->required);
	put_str(d, "preferredTopologyLevel", t->preferred);
	return d;
}

static struct gt_doc *metadata_doc(const struct gt_podgroup *pg)
{
	struct gt_doc *m = gt_pg_doc_new_map();
	put_str(m, "name", pg->name);
	put_str(m, "namespace", pg->namespace);
	if (pg->labels.n)
		gt_pg_doc_put(m, "labels", kvs_doc(&pg->labels));
	if (pg->annotations.n)
		gt_pg_doc_put(m, "annotations", kvs_doc(&pg->annotations));
	if (pg->owner.kind) {
		struct gt_doc *ref = gt_pg_doc_new_map();
		put_str(ref, "apiVersion", pg->owner.api_version);
		put_str(ref, "kind", pg->owner.kind);
		put_str(ref, "name", pg->owner.name);
		put_str(ref, "uid", pg->owner.uid);
		struct gt_doc *refs = doc_new(GT_DOC_SEQ);
		doc_push(refs, NULL, ref);
		gt_pg_doc_put(m, "ownerReferences", refs);
	}
	return m;
}

static struct gt_doc *subgroups_doc(const struct gt_podgroup *pg)
{
	struct gt_doc *seq = doc_new(GT_DOC_SEQ);
	for (size_t i = 0; i < pg->n_subgroups; i++) {
		const struct gt_pg_subgroup *sg = &pg->subgroups[i];
		struct gt_doc *d = gt_pg_doc_new_map();
		put_str(d, "name", sg->name);
		if (sg->has_min_subgroup)
			gt_pg_doc_put(d, "minSubGroup", gt_pg_doc_new_int(sg->min_subgroup));
		else
			gt_pg_doc_put(d, "minMember", gt_pg_doc_new_int(sg->min_member));
		put_str(d, "parent", sg->parent);
		if (has_topology(&sg->topology))
			gt_pg_doc_put(d, "topologyConstraint", topology_doc(&sg->topology));
		doc_push(seq, NULL, d);
	}
	return seq;
}

struct gt_doc *gt_podgroup_to_doc(const struct gt_podgroup *pg)
{
	struct gt_doc *d = gt_pg_doc_new_map();
	put_str(d, "apiVersion", "scheduling.run.ai/v2alpha2");
	put_str(d, "kind", "PodGroup");
	gt_pg_doc_put(d, "metadata", metadata_doc(pg));
	struct gt_doc *spec = gt_pg_doc_new_map();
	if (pg->has_min_subgroup)
		gt_pg_doc_put(spec, "minSubGroup", gt_pg_doc_new_int(pg->min_subgroup));
	else
		gt_pg_doc_put(spec, "minMember", gt_pg_doc_new_int(pg->min_member));
	put_str(spec, "queue", pg->queue);
	put_str(spec, "priorityClassName", pg->priority_class);
	put_str(spec, "preemptibility", pg->preemptibility);
	put_duration(spec, "preemptionDelay", &pg->preemption_delay);
	put_duration(spec, "stalenessGracePeriod", &pg->staleness_grace);
	if (has_topology(&pg->topology))
		gt_pg_doc_put(spec, "topologyConstraint", topology_doc(&pg->topology));
	if (pg->n_subgroups)
		gt_pg_doc_put(spec, "subGroups", subgroups_doc(pg));
	gt_pg_doc_put(d, "spec", spec);
	return d;
}
