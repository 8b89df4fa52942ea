/*
 * result.c - the PodGroup a rule builds, and the documents made from it
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "podgrouper/internal.h"
#include "util/concat.h"
#include "util/mem.h"
#include "util/num.h"
#include "util/strtab.h"
#include "util/time.h"

/* *@field = @s (taken over), the old value freed after: @s may have been made from it. */
static void take(char **field, char *s)
{
	free(*field);
	*field = s;
}

void gt_pg_set(char **field, const char *value)
{
	take(field, value ? gt_xstrdup(value) : NULL);
}

void gt_pg_setf(char **field, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	take(field, gt_xvasprintf(fmt, ap));
	va_end(ap);
}

void gt_pg_setj(char **field, const char *first, ...)
{
	va_list ap;
	va_start(ap, first);
	take(field, gt_xvconcat(first, ap));
	va_end(ap);
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
		gt_pg_setj(field, "pg-", name, "-", uid, (char *)NULL);
	else
		gt_pg_setj(field, "pg-", name, (char *)NULL);
}

void gt_pg_default_name(char **field, const struct gt_doc *d)
{
	gt_pg_name_uid(field, gt_pg_name(d), gt_pg_uid(d));
}

/*
 * The fingerprint, and the text the parts shared by PodGroups are looked up
 * by (gt_pg_doc_memo): each field in a fixed order, a string as its length,
 * ':' and its text ('-' when absent), a number in decimal and ';'. So two
 * are the same only for the same fields, and the text holds no NUL: it is
 * kept NUL-terminated for the memo's string table.
 */
static void print_bytes(struct gt_pg_fingerprint *f, const void *p, size_t n)
{
	GT_GROW(f->bytes, f->len + n + 1, f->cap);
	memcpy(f->bytes + f->len, p, n);
	f->len += n;
	f->bytes[f->len] = '\0';
}

static void print_str(struct gt_pg_fingerprint *f, const char *s)
{
	char len[GT_INT_TEXT + 2];
	len[GT_INT_TEXT + 1] = '\0';
	len[GT_INT_TEXT] = ':';
	const char *at = s ? gt_int_text((int64_t)strlen(s), len + GT_INT_TEXT) : "-";
	print_bytes(f, at, strlen(at));
	if (s)
		print_bytes(f, s, strlen(s));
}

static void print_int(struct gt_pg_fingerprint *f, int64_t v)
{
	char buf[GT_INT_TEXT + 2];
	buf[GT_INT_TEXT + 1] = '\0';
	buf[GT_INT_TEXT] = ';';
	const char *at = gt_int_text(v, buf + GT_INT_TEXT);
	print_bytes(f, at, strlen(at));
}

static void print_topology(struct gt_pg_fingerprint *f, const struct gt_pg_topology *t)
{
	print_str(f, t->topology);
	print_str(f, t->required);
	print_str(f, t->preferred);
}

static void print_kvs(struct gt_pg_fingerprint *f, const struct gt_pg_kvs *m)
{
	print_int(f, (int64_t)m->n);
	for (size_t i = 0; i < m->n; i++) {
		print_str(f, m->items[i].key);
		print_str(f, m->items[i].value);
	}
}

static void print_duration(struct gt_pg_fingerprint *f, const struct gt_pg_duration *d)
{
	print_int(f, d->set);
	print_int(f, d->set ? d->ns : 0);
}

/* The minimum a document writes: minSubGroup for a parent, minMember otherwise. */
static void print_minimum(struct gt_pg_fingerprint *f, bool has_min_subgroup, int64_t min_subgroup,
			  int64_t min_member)
{
	print_int(f, has_min_subgroup);
	print_int(f, has_min_subgroup ? min_subgroup : min_member);
}

void gt_pg_podgroup_fingerprint(const struct gt_podgroup *pg, struct gt_pg_fingerprint *f)
{
	f->len = 0;
	print_str(f, pg->name);
	print_str(f, pg->namespace);
	print_str(f, pg->queue);
	print_str(f, pg->priority_class);
	print_str(f, pg->preemptibility);
	print_minimum(f, pg->has_min_subgroup, pg->min_subgroup, pg->min_member);
	print_duration(f, &pg->preemption_delay);
	print_duration(f, &pg->staleness_grace);
	print_topology(f, &pg->topology);
	print_kvs(f, &pg->labels);
	print_kvs(f, &pg->annotations);
	print_str(f, pg->owner.api_version);
	print_str(f, pg->owner.kind);
	print_str(f, pg->owner.name);
	print_str(f, pg->owner.uid);
	print_int(f, (int64_t)pg->n_subgroups);
	for (size_t i = 0; i < pg->n_subgroups; i++) {
		const struct gt_pg_subgroup *sg = &pg->subgroups[i];
		print_str(f, sg->name);
		print_str(f, sg->parent);
		print_minimum(f, sg->has_min_subgroup, sg->min_subgroup, sg->min_member);
		print_topology(f, &sg->topology);
	}
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

/* The podgrouper's documents are api/doc.h's, made and changed there. */
struct gt_doc *gt_pg_doc_new_map(void)
{
	return gt_doc_new(GT_DOC_MAP);
}

/* Quoted, so that a value like "true" or "1" stays a string when read back. */
struct gt_doc *gt_pg_doc_new_str(const char *s)
{
	return gt_doc_new_scalar(s, true);
}

struct gt_doc *gt_pg_doc_new_seq(void)
{
	return gt_doc_new(GT_DOC_SEQ);
}

struct gt_doc *gt_pg_doc_new_plain(const char *s)
{
	return gt_doc_new_scalar(s, false);
}

struct gt_doc *gt_pg_doc_new_int(int64_t v)
{
	char buf[GT_INT_TEXT + 1];
	buf[GT_INT_TEXT] = '\0';
	return gt_pg_doc_new_plain(gt_int_text(v, buf + GT_INT_TEXT));
}

struct gt_doc *gt_pg_doc_copy(const struct gt_doc *d)
{
	return d ? gt_doc_copy(d) : NULL;
}

void gt_pg_doc_append(struct gt_doc *seq, struct gt_doc *value)
{
	gt_doc_append(seq, value);
}

void gt_pg_doc_del(struct gt_doc *map, const char *key)
{
	gt_doc_del(map, key);
}

void gt_pg_doc_put(struct gt_doc *map, const char *key, struct gt_doc *value)
{
	gt_doc_put(map, key, value);
}

struct gt_doc *gt_pg_doc_child_map(struct gt_doc *map, const char *key)
{
	return gt_doc_child_map(map, key);
}

/*
 * The PodGroup document is made in @in (gt_doc_list_input) or, when @in is
 * NULL, on the heap: its nodes through these.
 */
static struct gt_doc *new_map(struct gt_doc_input *in)
{
	return gt_doc_new_in(in, GT_DOC_MAP);
}

/*
 * Values that repeat from PodGroup to PodGroup (apiVersion, kind, namespace,
 * queue, priority, sizes, labels...) are one shared node in @in, which the
 * PodGroups there only read: for 50,000 pods' PodGroups a third less memory
 * to fault in. A name or uid is the PodGroup's own (put_own).
 */
static void put_str(struct gt_doc_input *in, struct gt_doc *map, const char *key, const char *value)
{
	if (value)	/* quoted, as gt_pg_doc_new_str makes it */
		gt_doc_put(map, key, gt_doc_shared_scalar_in(in, value, true));
}

static void put_own(struct gt_doc_input *in, struct gt_doc *map, const char *key, const char *value)
{
	if (value)
		gt_doc_put(map, key, gt_doc_new_scalar_in(in, value, true));
}

static void put_int(struct gt_doc_input *in, struct gt_doc *map, const char *key, int64_t v)
{
	char buf[GT_INT_TEXT + 1];
	buf[GT_INT_TEXT] = '\0';
	gt_doc_put(map, key, gt_doc_shared_scalar_in(in, gt_int_text(v, buf + GT_INT_TEXT), false));
}

static void put_duration(struct gt_doc_input *in, struct gt_doc *map, const char *key,
			 const struct gt_pg_duration *d)
{
	char text[GT_DURATION_GO_MAX];
	if (!d->set)
		return;
	gt_duration_format_go(d->ns, text);
	put_str(in, map, key, text);
}

/* ---------------------------------------------------------------- parts shared by PodGroups */

void gt_pg_doc_memo_init(struct gt_pg_doc_memo *m)
{
	memset(m, 0, sizeof(*m));
	gt_strtab_init(&m->texts);
}

void gt_pg_doc_memo_release(struct gt_pg_doc_memo *m)
{
	gt_strtab_release(&m->texts);
	free(m->parts);
	free(m->text.bytes);
	memset(m, 0, sizeof(*m));
}

/* m->text started afresh for a part of @kind, its fields to be printed after. */
static struct gt_pg_fingerprint *memo_begin(struct gt_pg_doc_memo *m, const char *kind)
{
	m->text.len = 0;
	print_str(&m->text, kind);
	return &m->text;
}

/* The part m->text says, made by an earlier call, or NULL: then the caller makes it and keeps it (memo_keep). */
static struct gt_doc *memo_find(struct gt_pg_doc_memo *m)
{
	uint32_t id = gt_strtab_intern(&m->texts, m->text.bytes);	/* a new text takes the next id */
	return id < m->n_parts ? m->parts[id] : NULL;
}

static struct gt_doc *memo_keep(struct gt_pg_doc_memo *m, struct gt_doc *part)
{
	GT_PUSH(m->parts, m->n_parts, m->cap_parts, part);
	return part;
}

/* ---------------------------------------------------------------- the document */

static struct gt_doc *kvs_doc(struct gt_doc_input *in, const struct gt_pg_kvs *m)
{
	struct gt_doc *d = new_map(in);
	for (size_t i = 0; i < m->n; i++) {
		/* the top owner's name and uid: its PodGroup's own, never another's */
		if (!strcmp(m->items[i].key, GT_PG_TOP_OWNER_METADATA))
			put_own(in, d, m->items[i].key, m->items[i].value);
		else
			put_str(in, d, m->items[i].key, m->items[i].value);
	}
	return d;
}

/* @pg's labels, shared through @memo when there is one. */
static struct gt_doc *labels_doc(struct gt_doc_input *in, const struct gt_podgroup *pg,
				 struct gt_pg_doc_memo *memo)
{
	if (!memo)
		return kvs_doc(in, &pg->labels);
	print_kvs(memo_begin(memo, "labels"), &pg->labels);
	struct gt_doc *d = memo_find(memo);
	return d ? d : memo_keep(memo, kvs_doc(in, &pg->labels));
}

static bool has_topology(const struct gt_pg_topology *t)
{
	return t->topology || t->required || t->preferred;
}

static struct gt_doc *topology_doc(struct gt_doc_input *in, const struct gt_pg_topology *t)
{
	struct gt_doc *d = new_map(in);
	put_str(in, d, "topology", t->topology);
	put_str(in, d, "requiredTopologyLevel", t->required);
	put_str(in, d, "preferredTopologyLevel", t->preferred);
	return d;
}

static struct gt_doc *metadata_doc(struct gt_doc_input *in, const struct gt_podgroup *pg,
				   struct gt_pg_doc_memo *memo)
{
	struct gt_doc *m = new_map(in);
	put_own(in, m, "name", pg->name);
	put_str(in, m, "namespace", pg->namespace);
	if (pg->labels.n)
		gt_doc_put(m, "labels", labels_doc(in, pg, memo));
	if (pg->annotations.n)
		gt_doc_put(m, "annotations", kvs_doc(in, &pg->annotations));
	if (pg->owner.kind) {
		struct gt_doc *ref = new_map(in);
		put_str(in, ref, "apiVersion", pg->owner.api_version);
		put_str(in, ref, "kind", pg->owner.kind);
		put_own(in, ref, "name", pg->owner.name);
		put_own(in, ref, "uid", pg->owner.uid);
		struct gt_doc *refs = gt_doc_new_in(in, GT_DOC_SEQ);
		gt_doc_append(refs, ref);
		gt_doc_put(m, "ownerReferences", refs);
	}
	return m;
}

static struct gt_doc *subgroups_doc(struct gt_doc_input *in, const struct gt_podgroup *pg)
{
	struct gt_doc *seq = gt_doc_new_in(in, GT_DOC_SEQ);
	for (size_t i = 0; i < pg->n_subgroups; i++) {
		const struct gt_pg_subgroup *sg = &pg->subgroups[i];
		struct gt_doc *d = new_map(in);
		put_str(in, d, "name", sg->name);
		if (sg->has_min_subgroup)
			put_int(in, d, "minSubGroup", sg->min_subgroup);
		else
			put_int(in, d, "minMember", sg->min_member);
		put_str(in, d, "parent", sg->parent);
		if (has_topology(&sg->topology))
			gt_doc_put(d, "topologyConstraint", topology_doc(in, &sg->topology));
		gt_doc_append(seq, d);
	}
	return seq;
}

static struct gt_doc *spec_doc(struct gt_doc_input *in, const struct gt_podgroup *pg)
{
	struct gt_doc *spec = new_map(in);
	if (pg->has_min_subgroup)
		put_int(in, spec, "minSubGroup", pg->min_subgroup);
	else
		put_int(in, spec, "minMember", pg->min_member);
	put_str(in, spec, "queue", pg->queue);
	put_str(in, spec, "priorityClassName", pg->priority_class);
	put_str(in, spec, "preemptibility", pg->preemptibility);
	put_duration(in, spec, "preemptionDelay", &pg->preemption_delay);
	put_duration(in, spec, "stalenessGracePeriod", &pg->staleness_grace);
	if (has_topology(&pg->topology))
		gt_doc_put(spec, "topologyConstraint", topology_doc(in, &pg->topology));
	if (pg->n_subgroups)
		gt_doc_put(spec, "subGroups", subgroups_doc(in, pg));
	return spec;
}

/* @pg's spec, shared through @memo when there is one and it has no sub-groups (those are a job's own). */
static struct gt_doc *shared_spec_doc(struct gt_doc_input *in, const struct gt_podgroup *pg,
				      struct gt_pg_doc_memo *memo)
{
	if (!memo || pg->n_subgroups)
		return spec_doc(in, pg);
	/* what spec_doc reads of @pg, as the fingerprint prints it */
	struct gt_pg_fingerprint *f = memo_begin(memo, "spec");
	print_minimum(f, pg->has_min_subgroup, pg->min_subgroup, pg->min_member);
	print_str(f, pg->queue);
	print_str(f, pg->priority_class);
	print_str(f, pg->preemptibility);
	print_duration(f, &pg->preemption_delay);
	print_duration(f, &pg->staleness_grace);
	print_topology(f, &pg->topology);
	struct gt_doc *d = memo_find(memo);
	return d ? d : memo_keep(memo, spec_doc(in, pg));
}

struct gt_doc *gt_podgroup_to_doc_in(const struct gt_podgroup *pg, struct gt_doc_input *in,
				     struct gt_pg_doc_memo *memo)
{
	if (!in)
		memo = NULL;	/* a heap document owns each of its nodes */
	struct gt_doc *d = new_map(in);
	put_str(in, d, "apiVersion", "scheduling.run.ai/v2alpha2");
	put_str(in, d, "kind", "PodGroup");
	gt_doc_put(d, "metadata", metadata_doc(in, pg, memo));
	gt_doc_put(d, "spec", shared_spec_doc(in, pg, memo));
	return d;
}

struct gt_doc *gt_podgroup_to_doc(const struct gt_podgroup *pg)
{
	return gt_podgroup_to_doc_in(pg, NULL, NULL);
}
