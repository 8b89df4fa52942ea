/*
 * test_usagestore.c - the usage history in ConfigMaps (scheduler/usagestore):
 * its split into parts, the generation a reader takes, a write cut short
 * (a crash) at every point, stale parts, bad parts. The cluster is a table
 * of ConfigMap name -> data["usage.json"] that a plan's writes are applied
 * to, as many of them as a test lets through.
 */
#include <jansson.h>
#include <math.h>

#include "core/usage.h"
#include "harness.h"
#include "scheduler/usagestore.h"
#include "util/mem.h"

const char *gt_suite = "usagestore";

#define T0 1767225600	/* 2026-01-01T00:00:00Z */
#define BASE "gantry-usage-default"

/* ---------------------------------------------------------------- a cluster of ConfigMaps */

struct cms {
	char *name[1024];
	char *text[1024];
	size_t n;
	size_t written;		/* bytes written, all told */
	char warnings[8192];
	int n_warnings;
	const char *unreachable;	/* this one answers with an I/O error */
};

static char **cm_slot(struct cms *c, const char *name, bool add)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return &c->text[i];
	if (!add)
		return NULL;
	c->name[c->n] = gt_xstrdup(name);
	c->text[c->n] = NULL;
	return &c->text[c->n++];
}

static int cm_fetch(void *ctx, const char *name, char **text, struct gt_err *err)
{
	struct cms *c = ctx;
	if (c->unreachable && !strcmp(c->unreachable, name))
		return gt_errf(err, GT_EIO, "cannot read ConfigMap kai-scheduler/%s: connection refused", name);
	char **t = cm_slot(ctx, name, false);
	if (!t || !*t)
		return GT_ENOTFOUND;
	*text = gt_xstrdup(*t);
	return 0;
}

static void cm_warn(void *ctx, const char *msg)
{
	struct cms *c = ctx;
	size_t l = strlen(c->warnings);
	snprintf(c->warnings + l, sizeof(c->warnings) - l, "%s\n", msg);
	c->n_warnings++;
}

static void cm_put(struct cms *c, const char *name, const char *text)
{
	char **t = cm_slot(c, name, true);
	free(*t);
	*t = text ? gt_xstrdup(text) : NULL;
	c->written += text ? strlen(text) : 0;
}

static bool cm_exists(struct cms *c, const char *name)
{
	char **t = cm_slot(c, name, false);
	return t && *t;
}

static size_t cm_count(struct cms *c)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		n += c->text[i] != NULL;
	return n;
}

static void cm_free(struct cms *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->name[i]);
		free(c->text[i]);
	}
	memset(c, 0, sizeof(*c));
}

/*
 * Plan @h's write after *@st and apply its first @upto writes (all: -1), as
 * gt_usage_store_save does with the API server: *@st follows when the
 * manifest got in. Returns the plan's write count.
 */
static size_t save(struct cms *c, struct gt_usage_store *st, const struct gt_usage_history *h, long upto)
{
	struct gt_usage_store_plan plan;
	struct gt_err err = { 0 };
	if (gt_usage_store_plan(st, BASE, h, &plan, &err)) {
		fprintf(stderr, "plan: %s\n", err.msg);
		gt_test_failures++;
		return 0;
	}
	size_t n = plan.n, done = upto < 0 || (size_t)upto > plan.n ? plan.n : (size_t)upto;
	for (size_t i = 0; i < done; i++)
		cm_put(c, plan.w[i].name, plan.w[i].text);
	if (done > plan.manifest) {
		*st = plan.next;
		if (done == plan.n)
			st->high_water = st->n_parts;
	}
	gt_usage_store_plan_release(&plan);
	return n;
}

static int load(struct cms *c, struct gt_usage_history *h, struct gt_usage_store *st, int64_t now)
{
	struct gt_usage_params p = { .on = true, .window_s = 7 * 86400, .window = GT_WINDOW_SLIDING };
	struct gt_err err = { 0 };
	int rc = gt_usage_store_read(cm_fetch, c, cm_warn, c, BASE, &p, now, h, st, &err);
	if (rc && rc != GT_ENOTFOUND)
		fprintf(stderr, "load: %s\n", err.msg);
	return rc;
}

/* ---------------------------------------------------------------- histories */

/*
 * A week's window is 514 buckets of 1182 s; a queue allocated all week has a
 * non-zero sum in each, about 25 kB of JSON. @queues queues busy from T0 for
 * @minutes, each at its own rates.
 */
static void busy(struct gt_usage_history *h, int queues, int minutes)
{
	struct gt_usage_params p = { .on = true, .window_s = 7 * 86400, .window = GT_WINDOW_SLIDING };
	gt_usage_init(h, &p, T0);
	gt_usage_advance(h, T0);
	h->cap_rate[GT_QGPU] = 8000.0 * queues;
	for (int q = 0; q < queues; q++) {
		char name[32];
		snprintf(name, sizeof(name), "team-%04d", q);
		struct gt_usage_queue *u = gt_usage_queue(h, name);
		u->rate[GT_QGPU] = 8000 + 37.0 * q;
		u->rate[1] = 64000 + q;
		u->rate[2] = 1e12 / 3 + q;
	}
	for (int m = 1; m <= minutes; m++)
		gt_usage_advance(h, T0 + 60LL * m);
}

/* Whether @b holds what @a does: the same clock, buckets and queues. */
static bool same(const struct gt_usage_history *a, const struct gt_usage_history *b)
{
	if (a->bucket_s != b->bucket_s || a->n_slots != b->n_slots || a->newest != b->newest ||
	    a->until != b->until || a->n_queues != b->n_queues) {
		fprintf(stderr, "history: %u queues until %lld, expected %u until %lld\n", b->n_queues,
			(long long)b->until, a->n_queues, (long long)a->until);
		return false;
	}
	size_t n = (size_t)a->n_slots * GT_NQRES;
	for (size_t k = 0; k < n; k++)
		if (fabs(a->cap[k] - b->cap[k]) > 1e-11 * fabs(a->cap[k]))
			return false;
	for (uint32_t i = 0; i < a->n_queues; i++) {
		const struct gt_usage_queue *qa = &a->queues[i];
		const struct gt_usage_queue *qb = gt_usage_queue((struct gt_usage_history *)b, qa->name);
		for (size_t k = 0; k < n; k++)
			if (fabs(qa->sum[k] - qb->sum[k]) > 1e-11 * fabs(qa->sum[k])) {
				fprintf(stderr, "queue %s bucket %zu: %g, expected %g\n", qa->name, k, qb->sum[k], qa->sum[k]);
				return false;
			}
		for (int r = 0; r < GT_NQRES; r++)
			if (fabs(qa->rate[r] - qb->rate[r]) > 1e-11 * fabs(qa->rate[r]))
				return false;
	}
	return true;
}

/* ---------------------------------------------------------------- tests */

/*
 * 1,000 queues busy all week (about 25 MB of history) are split into parts
 * that each stay well under a ConfigMap's 1 MiB, and read back the same.
 */
TEST(thousand_busy_queues_split_and_read_back)
{
	struct gt_usage_history h, back;
	struct gt_usage_store st = { 0 }, got;
	struct cms c = { 0 };
	busy(&h, 1000, 7 * 24 * 60);
	struct gt_usage_store_plan plan;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_usage_store_plan(&st, BASE, &h, &plan, &err));
	size_t total = 0, largest = 0;
	for (size_t i = 0; i < plan.n; i++) {
		size_t l = strlen(plan.w[i].text);
		total += l;
		largest = l > largest ? l : largest;
		ASSERT_TRUE(l <= GT_USAGE_STORE_PART_TARGET);
	}
	ASSERT_TRUE(total > 20u * 1024 * 1024);	/* the history is far over one ConfigMap */
	ASSERT_TRUE(largest < GT_USAGE_STORE_MAX * 3 / 4);
	ASSERT_EQ(plan.n - 1, plan.manifest);	/* the manifest last */
	ASSERT_STR(BASE, plan.w[plan.manifest].name);
	ASSERT_STR(BASE "-a-0", plan.w[0].name);
	ASSERT_EQ(plan.next.n_parts, (uint32_t)plan.manifest);
	ASSERT_TRUE(plan.next.n_parts >= 64 && plan.next.n_parts <= GT_USAGE_STORE_MAX_PARTS);
	gt_usage_store_plan_release(&plan);
	save(&c, &st, &h, -1);
	ASSERT_EQ(0, load(&c, &back, &got, h.until));
	ASSERT_TRUE(same(&h, &back));
	ASSERT_EQ(st.generation, got.generation);
	ASSERT_EQ(st.n_parts, got.n_parts);
	ASSERT_EQ(0, c.n_warnings);
	/* a restart that finds the history as it left it writes the manifest only */
	ASSERT_EQ(1u, save(&c, &got, &back, -1));
	gt_usage_release(&h);
	gt_usage_release(&back);
	cm_free(&c);
}

/* Few queues, one part; the part count grows by doubling and comes back down with hysteresis. */
TEST(part_count_follows_the_size)
{
	struct gt_usage_history h;
	struct gt_usage_store st = { 0 };
	struct cms c = { 0 };
	busy(&h, 10, 7 * 24 * 60);
	ASSERT_EQ(2u, save(&c, &st, &h, -1));	/* one part and the manifest */
	ASSERT_EQ(1u, st.n_parts);
	ASSERT_TRUE(cm_exists(&c, BASE "-a-0"));
	gt_usage_release(&h);
	busy(&h, 100, 7 * 24 * 60);	/* 2.5 MB: 8 parts of about 320 kB */
	save(&c, &st, &h, -1);
	ASSERT_EQ(8u, st.n_parts);
	ASSERT_EQ(8u, st.high_water);
	gt_usage_release(&h);
	busy(&h, 8, 7 * 24 * 60);	/* 200 kB: one part again */
	size_t n = save(&c, &st, &h, -1);
	ASSERT_EQ(1u, st.n_parts);
	ASSERT_EQ(1u + 1 + 2 * 7, n);	/* part 0, the manifest, parts 1..7 deleted in both slots */
	for (uint32_t i = 1; i < 8; i++) {
		char name[320];
		gt_usage_store_part_name(BASE, 'a', i, name, sizeof(name));
		ASSERT_TRUE(!cm_exists(&c, name));
	}
	ASSERT_EQ(3u, cm_count(&c));	/* the manifest, part 0 in slot a and (the older) in b */
	gt_usage_release(&h);
	cm_free(&c);
}

/* A part whose queues did not change is not written again; a changed one goes to the other slot. */
TEST(only_changed_parts_are_written)
{
	struct gt_usage_history h;
	struct gt_usage_store st = { 0 };
	struct cms c = { 0 };
	busy(&h, 100, 7 * 24 * 60);
	save(&c, &st, &h, -1);
	uint32_t n = st.n_parts;
	ASSERT_TRUE(n >= 2);
	size_t before = c.written;
	ASSERT_EQ(1u, save(&c, &st, &h, -1));	/* nothing moved: the manifest only */
	ASSERT_TRUE(c.written - before < 20000);
	for (uint32_t q = 0; q < 100; q++)	/* every queue idle but one */
		memset(h.queues[q].rate, 0, sizeof(h.queues[q].rate));
	h.queues[7].rate[GT_QGPU] = 1000;
	save(&c, &st, &h, -1);	/* the rates changed: every part */
	gt_usage_advance(&h, h.until + 60);
	struct gt_usage_store was = st;
	ASSERT_EQ(2u, save(&c, &st, &h, -1));	/* team-0007's part and the manifest */
	int moved = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (st.part[i].generation == was.part[i].generation) {
			ASSERT_EQ(was.part[i].slot, st.part[i].slot);
			continue;
		}
		moved++;
		ASSERT_EQ(was.generation + 1, st.part[i].generation);
		ASSERT_TRUE(st.part[i].slot != was.part[i].slot);
	}
	ASSERT_EQ(1, moved);
	gt_usage_release(&h);
	cm_free(&c);
}

/*
 * A write cut short at any point before its manifest leaves the old
 * generation whole: the reader loads it, never a mix; cut after the
 * manifest, the new one. The new parts went to the slots the old manifest
 * does not name.
 */
TEST(torn_write_loads_the_old_generation)
{
	struct gt_usage_history h1, h2, back;
	struct gt_usage_store st = { 0 }, got;
	struct cms c = { 0 };
	busy(&h1, 100, 7 * 24 * 60);
	save(&c, &st, &h1, -1);
	struct gt_usage_store st1 = st;
	busy(&h2, 100, 7 * 24 * 60 + 60);	/* later: every part differs */
	for (uint32_t q = 0; q < 100; q++)
		h2.queues[q].rate[GT_QGPU] += 1;
	size_t n = 0;
	for (long cut = 0;; cut++) {
		struct cms c2 = { 0 };
		for (size_t i = 0; i < c.n; i++)
			cm_put(&c2, c.name[i], c.text[i]);
		struct gt_usage_store s = st1;
		n = save(&c2, &s, &h2, cut);
		ASSERT_EQ(0, load(&c2, &back, &got, h2.until));
		bool torn = s.generation == st1.generation;	/* the manifest did not get in */
		ASSERT_TRUE(same(torn ? &h1 : &h2, &back));
		ASSERT_EQ(torn ? st1.generation : st1.generation + 1, got.generation);
		ASSERT_EQ(0, c2.n_warnings);
		gt_usage_release(&back);
		/* a torn write is finished by the next one, from what the reader found */
		if (torn) {
			save(&c2, &got, &h2, -1);
			ASSERT_EQ(0, load(&c2, &back, &got, h2.until));
			ASSERT_TRUE(same(&h2, &back));
			gt_usage_release(&back);
		}
		cm_free(&c2);
		if ((size_t)cut >= n)
			break;
	}
	ASSERT_TRUE(n >= 5);
	gt_usage_release(&h1);
	gt_usage_release(&h2);
	cm_free(&c);
}

/* A crash between the manifest and the deletions: the next write deletes what is left. */
TEST(stale_parts_deleted_after_a_crash)
{
	struct gt_usage_history h, back;
	struct gt_usage_store st = { 0 }, got;
	struct cms c = { 0 };
	busy(&h, 100, 7 * 24 * 60);
	save(&c, &st, &h, -1);
	save(&c, &st, &h, -1);
	ASSERT_EQ(8u, st.n_parts);
	gt_usage_release(&h);
	busy(&h, 3, 60);
	struct gt_usage_store_plan plan;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_usage_store_plan(&st, BASE, &h, &plan, &err));
	size_t manifest = plan.manifest;
	gt_usage_store_plan_release(&plan);
	save(&c, &st, &h, (long)manifest + 1);	/* the manifest in, no deletion */
	ASSERT_TRUE(cm_exists(&c, BASE "-a-7"));
	ASSERT_EQ(0, load(&c, &back, &got, h.until));
	ASSERT_TRUE(same(&h, &back));
	ASSERT_EQ(8u, got.high_water);
	save(&c, &got, &back, -1);
	ASSERT_TRUE(!cm_exists(&c, BASE "-a-7"));
	ASSERT_TRUE(!cm_exists(&c, BASE "-b-7"));
	ASSERT_TRUE(!cm_exists(&c, BASE "-b-1"));
	ASSERT_EQ(1u, got.high_water);
	gt_usage_release(&h);
	gt_usage_release(&back);
	cm_free(&c);
}

/*
 * A part that cannot be used - not JSON, another generation than the
 * manifest names, a malformed queue, missing - is warned about by
 * ConfigMap and field; its queues start with no usage, the others load,
 * and the next write puts it right in the other slot.
 */
TEST(bad_parts_are_warned_about_and_skipped)
{
	struct gt_usage_history h, back;
	struct gt_usage_store st = { 0 }, got;
	struct cms c = { 0 };
	busy(&h, 100, 7 * 24 * 60);
	save(&c, &st, &h, -1);
	ASSERT_EQ(8u, st.n_parts);
	char **p1 = cm_slot(&c, BASE "-a-1", false), **p2 = cm_slot(&c, BASE "-a-2", false);
	char **p3 = cm_slot(&c, BASE "-a-3", false);
	free(*p1);
	*p1 = gt_xstrdup("{\"version\": 2, \"generation\": 1, \"part\": 1");
	char *g = strstr(*p2, "\"generation\":1,");
	g[13] = '7';	/* generation 7 */
	json_t *part = json_loads(*p3, 0, NULL);
	const char *q;
	json_t *series;
	json_object_foreach(json_object_get(part, "queues"), q, series) {
		json_object_set_new(series, "buckets", json_pack("[[i, s, i, i]]", 1, "x", 2, 3));
		break;
	}
	free(*p3);
	*p3 = json_dumps(part, 0);
	json_decref(part);
	cm_put(&c, BASE "-a-4", NULL);
	ASSERT_EQ(0, load(&c, &back, &got, h.until));
	ASSERT_EQ(4, c.n_warnings);
	ASSERT_CONTAINS(c.warnings, "ConfigMap " BASE "-a-1: data.usage.json: not JSON");
	ASSERT_CONTAINS(c.warnings, "ConfigMap " BASE "-a-2: data.usage.json: generation is 7, the manifest " BASE
				    " names generation 1");
	ASSERT_CONTAINS(c.warnings, "ConfigMap " BASE "-a-3: data.usage.json: queues.team-");
	ASSERT_CONTAINS(c.warnings, ".buckets is malformed");
	ASSERT_CONTAINS(c.warnings, "ConfigMap " BASE "-a-4 is missing: its queues start with no usage");
	ASSERT_TRUE(back.n_queues > 40 && back.n_queues < 100);
	for (uint32_t i = 1; i <= 4; i++)
		ASSERT_EQ(0u, got.part[i].generation);
	ASSERT_EQ(1u, got.part[0].generation);
	/* the next write puts the four right, in slot b; the others, read as written, stay */
	size_t n = save(&c, &got, &h, -1);
	ASSERT_EQ(5u, n);
	for (uint32_t i = 0; i < 8; i++)
		ASSERT_EQ(i >= 1 && i <= 4 ? 'b' : 'a', got.part[i].slot);
	c.n_warnings = 0;
	gt_usage_release(&back);
	ASSERT_EQ(0, load(&c, &back, &got, h.until));
	ASSERT_EQ(0, c.n_warnings);
	ASSERT_TRUE(same(&h, &back));
	gt_usage_release(&h);
	gt_usage_release(&back);
	cm_free(&c);
}

/* A manifest that cannot be used starts a new history, with the reason; nothing there is no error. */
TEST(bad_manifest_starts_a_new_history)
{
	struct gt_usage_history h;
	struct gt_usage_store st;
	struct cms c = { 0 };
	ASSERT_EQ(GT_ENOTFOUND, load(&c, &h, &st, T0));
	ASSERT_EQ(0u, h.n_queues);
	gt_usage_release(&h);
	cm_put(&c, BASE, "{\"version\": 3}");
	struct gt_usage_params p = { .on = true, .window_s = 3600, .window = GT_WINDOW_SLIDING };
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EPARSE, gt_usage_store_read(cm_fetch, &c, cm_warn, &c, BASE, &p, T0, &h, &st, &err));
	ASSERT_STR("ConfigMap " BASE ": data.usage.json: version is not 1 or 2", err.msg);
	gt_usage_release(&h);
	cm_put(&c, BASE, "{\"version\": 2, \"generation\": 4, \"bucketSeconds\": 10, \"slots\": 362, "
			 "\"newest\": 1, \"until\": 10, \"capacity\": {\"rate\": [0, 0, 0], \"buckets\": []}, "
			 "\"parts\": [{\"slot\": \"c\", \"generation\": 4}]}");
	ASSERT_EQ(GT_EPARSE, gt_usage_store_read(cm_fetch, &c, cm_warn, &c, BASE, &p, T0, &h, &st, &err));
	ASSERT_CONTAINS(err.msg, "parts[0] needs a slot a or b and a generation");
	/* the next write replaces everything that may be there */
	ASSERT_EQ(GT_USAGE_STORE_MAX_PARTS, st.high_water);
	gt_usage_release(&h);
	cm_free(&c);
}

/*
 * A part the API server does not answer for fails the whole read (to be
 * tried again): skipping it would write a history without its queues.
 */
TEST(an_unreachable_part_fails_the_read)
{
	struct gt_usage_history h, back;
	struct gt_usage_store st = { 0 }, got;
	struct cms c = { 0 };
	busy(&h, 100, 7 * 24 * 60);
	save(&c, &st, &h, -1);
	c.unreachable = BASE "-a-5";
	struct gt_usage_params p = { .on = true, .window_s = 7 * 86400, .window = GT_WINDOW_SLIDING };
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EIO, gt_usage_store_read(cm_fetch, &c, cm_warn, &c, BASE, &p, h.until, &back, &got, &err));
	ASSERT_STR("cannot read ConfigMap kai-scheduler/" BASE "-a-5: connection refused", err.msg);
	ASSERT_EQ(0u, back.n_queues);
	ASSERT_EQ(0, c.n_warnings);
	gt_usage_release(&back);
	c.unreachable = NULL;
	ASSERT_EQ(0, load(&c, &back, &got, h.until));
	ASSERT_TRUE(same(&h, &back));
	gt_usage_release(&back);
	gt_usage_release(&h);
	cm_free(&c);
}

/* What Gantry wrote before the split (version 1, one ConfigMap) is read, and replaced by parts. */
TEST(version_1_is_read_and_replaced)
{
	struct gt_usage_history h;
	struct gt_usage_store st;
	struct cms c = { 0 };
	cm_put(&c, BASE, "{\"version\":1,\"bucketSeconds\":1,\"slots\":602,\"newest\":1767225900,"
			 "\"until\":1767225900,\"capacity\":{\"rate\":[8000,0,0],\"buckets\":[[1767225899,8000,0,0]]},"
			 "\"queues\":{\"a\":{\"rate\":[2000,0,0],\"buckets\":[[1767225899,2000,0,0]]}}}");
	ASSERT_EQ(0, load(&c, &h, &st, T0 + 300));
	ASSERT_EQ(1u, h.n_queues);
	ASSERT_EQ(0u, st.generation);
	ASSERT_TRUE(gt_usage_queue(&h, "a")->rate[GT_QGPU] == 2000);
	save(&c, &st, &h, -1);
	ASSERT_TRUE(cm_exists(&c, BASE "-a-0"));
	ASSERT_CONTAINS(*cm_slot(&c, BASE, false), "\"version\":2");
	gt_usage_release(&h);
	cm_free(&c);
}

/* A history that no split can hold is refused with the reason, before any write. */
TEST(what_no_split_can_hold_is_refused)
{
	struct gt_usage_history h;
	struct gt_usage_params p = { .on = true, .window_s = 3600, .window = GT_WINDOW_SLIDING };
	gt_usage_init(&h, &p, T0);
	char *name = gt_xmalloc(GT_USAGE_STORE_MAX + 1);	/* one queue larger than a ConfigMap */
	memset(name, 'q', GT_USAGE_STORE_MAX);
	name[GT_USAGE_STORE_MAX] = 0;
	gt_usage_queue(&h, name);
	free(name);
	struct gt_usage_store st = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EINVAL, gt_usage_store_save(NULL, "kai-scheduler", BASE, &h, &st, NULL, &err));
	ASSERT_CONTAINS(err.msg, "the usage history of 1 queues needs a part of 1016 kB even split over 128 "
				 "ConfigMaps " BASE "-{a,b}-N, more than a ConfigMap can hold (1 MiB)");
	ASSERT_EQ(0u, st.generation);
	gt_usage_release(&h);
}

const struct gt_test gt_tests[] = {
	T(thousand_busy_queues_split_and_read_back),
	T(part_count_follows_the_size),
	T(only_changed_parts_are_written),
	T(torn_write_loads_the_old_generation),
	T(stale_parts_deleted_after_a_crash),
	T(bad_parts_are_warned_about_and_skipped),
	T(bad_manifest_starts_a_new_history),
	T(an_unreachable_part_fails_the_read),
	T(version_1_is_read_and_replaced),
	T(what_no_split_can_hold_is_refused),
	{ 0 },
};
