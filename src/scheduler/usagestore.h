/*
 * usagestore.h - the queues' usage history kept in the cluster, across restarts
 *
 * Time-based fair share (core/usage.h) needs the queues' allocations over
 * the usage window, a week by default. KAI keeps them in Prometheus; Gantry
 * keeps them itself, and so that a restart, an upgrade or a new leader does
 * not forget a week of usage, the leader writes the history to ConfigMaps
 * in its namespace every fetchInterval (a minute by default) and when it
 * stops, and reads them back when it starts scheduling.
 *
 * A ConfigMap holds 1 MiB, and a queue busy all week takes about 25 kB, so
 * the history is split: a manifest and up to GT_USAGE_STORE_MAX_PARTS parts,
 * each queue in part hash(name) mod n (n a power of two, as small as keeps
 * every part under GT_USAGE_STORE_PART_TARGET):
 *
 *	<base> = gantry-usage-<shard>, data["usage.json"], the manifest:
 *	{"version": 2, "generation": G, "bucketSeconds": W, "slots": N,
 *	 "newest": B, "until": T, "highWater": H,
 *	 "capacity": {"rate": [g, c, m], "buckets": [[b, g, c, m], ...]},
 *	 "parts": [{"slot": "a", "generation": g}, ...]}
 *
 *	<base>-a-<i> or <base>-b-<i>, data["usage.json"], part i:
 *	{"version": 2, "generation": g, "part": i, "parts": n,
 *	 "queues": {"<queue>": {"rate": [g, c, m], "buckets": [[b, g, c, m], ...]}}}
 *
 * g, c, m: milli-GPU, milli-CPU and bytes (rates) and those times seconds
 * (buckets), only the buckets that are not zero.
 *
 * Crash-safe: each part has two slots, a and b. A write puts every part
 * whose content changed into the slot the manifest does not name, stamped
 * with the new generation, and writes the manifest last; a part that did
 * not change is not written (the manifest keeps naming it), since the last
 * write or since the load (its text hashed as read). A restart in
 * the middle of a write finds the old manifest, which names only slots the
 * write did not touch: it loads the old generation whole, never a mix.
 * Once the manifest is written, the parts of an earlier, larger set (index
 * n up to highWater) are deleted; a manifest records highWater until that
 * succeeded, so a crash there is cleaned up by the next write.
 *
 * A manifest of version 1 (one ConfigMap with every queue, what Gantry
 * wrote before the split) is read too, and replaced by the next write.
 *
 * The ConfigMaps' names are bounded (for the Role's resourceNames): <base>
 * and <base>-{a,b}-{0..GT_USAGE_STORE_MAX_PARTS-1}. The scheduler needs
 * get, update and delete on those and create on ConfigMaps
 * (deploy/rbac.yaml).
 */
#ifndef GT_USAGESTORE_H
#define GT_USAGESTORE_H

#include "core/usage.h"
#include "kube/http.h"
#include "util/err.h"

/* The most parts: 128 hold about 3,000 queues busy all week (a week's window), each part under 1 MiB. */
#define GT_USAGE_STORE_MAX_PARTS 128u
/* The part count doubles while a part is over this, and halves while all would stay under half of it. */
#define GT_USAGE_STORE_PART_TARGET (512u * 1024u)
/*
 * The largest usage.json written: a ConfigMap holds 1 MiB of data, and its
 * metadata and JSON framing need a little of it.
 */
#define GT_USAGE_STORE_MAX (1024u * 1024u - 8192u)

/* What the writer knows of the ConfigMaps in the cluster (from its last write, or the load). */
struct gt_usage_store_part {
	uint64_t generation;	/* written at; 0: not known good (written again next time) */
	uint64_t hash;		/* of its queues as written; 0: unknown */
	char slot;		/* 'a' or 'b'; 0: never written */
};

struct gt_usage_store {
	uint64_t generation;	/* the manifest's; 0: there is none */
	uint32_t n_parts;	/* the manifest's part count */
	uint32_t high_water;	/* parts that may still exist from a larger set */
	struct gt_usage_store_part part[GT_USAGE_STORE_MAX_PARTS];
};

/* The manifest's name for shard @shard into @buf. */
void gt_usage_store_name(const char *shard, char *buf, size_t len);
/* Part @i's ConfigMap name in slot @slot ('a' or 'b') of the history at @base. */
void gt_usage_store_part_name(const char *base, char slot, uint32_t i, char *buf, size_t len);

/* One ConfigMap to write (text: its data["usage.json"]) or, text NULL, to delete. */
struct gt_usage_store_write {
	char name[320];
	char *text;
};

/*
 * The writes that put @h into the cluster after @cur, in order: the
 * changed parts, the manifest (at index @manifest), then the deletions of
 * stale parts. @next is what the cluster holds once all of them are done;
 * after a failure at or before the manifest the cluster still holds @cur.
 */
struct gt_usage_store_plan {
	struct gt_usage_store_write *w;
	size_t n, manifest;
	uint32_t queues;	/* how many queues, and the largest part's size (bytes) */
	size_t largest;
	struct gt_usage_store next;
};

/*
 * Plan the write of @h at @base after @cur. 0, or GT_EINVAL with @err when
 * a part would be over GT_USAGE_STORE_MAX even at GT_USAGE_STORE_MAX_PARTS
 * parts (nothing to write).
 */
int gt_usage_store_plan(const struct gt_usage_store *cur, const char *base, const struct gt_usage_history *h,
			struct gt_usage_store_plan *plan, struct gt_err *err);
void gt_usage_store_plan_release(struct gt_usage_store_plan *plan);

/*
 * Read ConfigMap @name's data["usage.json"] into *@text (to free): 0,
 * GT_ENOTFOUND, or another code with @err.
 */
typedef int (*gt_usage_store_fetch_fn)(void *ctx, const char *name, char **text, struct gt_err *err);
/* A part that cannot be used (its queues start with no usage): @msg names the ConfigMap and field. */
typedef void (*gt_usage_store_warn_fn)(void *ctx, const char *msg);

/*
 * Read the history at @base through @fetch into @h (initialised here, and
 * fitted to @p) and what the cluster holds into @st. 0 when it was there
 * (parts that cannot be used are skipped, each told to @warn),
 * GT_ENOTFOUND when not (an empty @h), GT_EIO with @err when the manifest
 * or a part could not be fetched (an empty @h: read again later, for a new
 * history would overwrite the stored one), GT_EPARSE with @err when the
 * manifest cannot be used (an empty @h, and @st set to replace everything).
 */
int gt_usage_store_read(gt_usage_store_fetch_fn fetch, void *ctx, gt_usage_store_warn_fn warn, void *wctx,
			const char *base, const struct gt_usage_params *p, int64_t now,
			struct gt_usage_history *h, struct gt_usage_store *st, struct gt_err *err);

/* gt_usage_store_read from the cluster: ConfigMaps of namespace @ns. */
int gt_usage_store_load(struct gt_kube_client *cl, const char *ns, const char *base,
			const struct gt_usage_params *p, int64_t now, gt_usage_store_warn_fn warn, void *wctx,
			struct gt_usage_history *h, struct gt_usage_store *st, struct gt_err *err);
/*
 * Write @h to namespace @ns after *@st (create or update each part, then
 * the manifest, then delete stale parts), *@st following. 0, GT_EIO with
 * @err (the first write that failed; nothing after it is tried), or
 * GT_EINVAL with @err when it cannot be held. @written (may be NULL): the
 * bytes sent.
 */
int gt_usage_store_save(struct gt_kube_client *cl, const char *ns, const char *base,
			const struct gt_usage_history *h, struct gt_usage_store *st, size_t *written,
			struct gt_err *err);

#endif /* GT_USAGESTORE_H */
