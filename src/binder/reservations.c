#include "binder/reservations.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/bindrequest.h"
#include "api/gpushare.h"
#include "api/object.h"
#include "core/cluster.h"
#include "util/mem.h"
#include "util/smap.h"

enum use { HELD = 1, BINDING = 2 };

static const char wanted;	/* by_key's value for a pod named but not (yet) found */

/* The pod under @key in @by_key, or NULL. */
static const struct gt_kobj *pod_at(const struct gt_smap *by_key, const char *key)
{
	const void *p = gt_smap_get(by_key, key);
	return p == &wanted ? NULL : p;
}

static void mark(struct gt_smap *groups, const char *group, enum use u)
{
	uintptr_t was = (uintptr_t)gt_smap_get(groups, group);
	if (!(was & u))
		gt_smap_put(groups, group, (void *)(was | u));
}

void gt_resv_judge(const struct gt_resv_view *v, struct gt_resv_verdict *out)
{
	*out = (struct gt_resv_verdict){ 0 };
	const char *ns = v->ns ? v->ns : GT_RESERVATION;
	out->inflight_done = gt_xcalloc(v->n_inflight + 1, sizeof(*out->inflight_done));
	size_t n_resv = 0;
	for (size_t i = 0; i < v->n_pods; i++)
		n_resv += !strcmp(v->pods[i]->ns, ns);
	if (!n_resv && !v->n_inflight)
		return;	/* no GPU is shared: nothing to judge */
	/* the pods the BindRequests and binds in flight name (few): looked up in the one pass */
	struct gt_smap groups, by_key;
	gt_smap_init(&groups);
	gt_smap_init(&by_key);
	char key[600];
	for (size_t i = 0; i < v->n_brs; i++) {
		snprintf(key, sizeof(key), "%s/%s", v->brs[i]->ns, gt_br_pod_name(v->brs[i]->doc));
		gt_smap_put(&by_key, key, (void *)&wanted);
	}
	for (size_t i = 0; i < v->n_inflight; i++)
		gt_smap_put(&by_key, v->inflight[i].key, (void *)&wanted);
	const char *g[GT_MAX_DEVICES];
	for (size_t i = 0; i < v->n_pods; i++) {
		const struct gt_kobj *p = v->pods[i];
		if (by_key.n && gt_smap_get(&by_key, p->key) == &wanted)
			gt_smap_put(&by_key, p->key, (void *)p);
		if (!strcmp(p->ns, ns))
			continue;
		size_t n = gt_gpushare_pod_groups(p->doc, g, GT_MAX_DEVICES);
		if (!n || gt_pod_is_finished(p->doc))
			continue;
		for (size_t k = 0; k < n; k++)
			mark(&groups, g[k], HELD);
	}
	for (size_t i = 0; i < v->n_brs; i++) {
		const struct gt_doc *br = v->brs[i]->doc;
		snprintf(key, sizeof(key), "%s/%s", v->brs[i]->ns, gt_br_pod_name(br));
		const struct gt_kobj *pod = pod_at(&by_key, key);
		if (gt_br_state(br, pod ? pod->doc : NULL, pod ? pod->uid : NULL) != GT_BR_LIVE)
			continue;
		size_t n = gt_br_groups(br, g, GT_MAX_DEVICES);
		for (size_t k = 0; k < n; k++)
			mark(&groups, g[k], BINDING);
	}
	for (size_t i = 0; i < v->n_inflight; i++) {
		const struct gt_inflight *e = &v->inflight[i];
		const struct gt_kobj *pod = pod_at(&by_key, e->key);
		if (!pod || strcmp(pod->uid, e->uid) || gt_pod_node(pod->doc)) {
			out->inflight_done[i] = true;
			continue;
		}
		for (uint8_t k = 0; k < e->n_groups; k++)
			mark(&groups, e->groups[k], BINDING);
	}
	size_t cap = 0;
	for (size_t i = 0; i < v->n_pods; i++) {
		const struct gt_kobj *p = v->pods[i];
		if (strcmp(p->ns, ns) || gt_obj_is_deleting(p->doc))
			continue;
		const char *group = gt_obj_label(p->doc, GT_GPU_GROUP_LABEL);
		if (!group || !*group)
			continue;
		out->n_reservations++;
		uintptr_t use = (uintptr_t)gt_smap_get(&groups, group);
		if (use & HELD)
			continue;
		if (use & BINDING) {
			out->n_kept_binding++;
			continue;
		}
		GT_PUSH(out->idle, out->n_idle, cap, ((struct gt_resv_idle){ .pod = p, .group = group }));
	}
	gt_smap_release(&groups);
	gt_smap_release(&by_key);
}

void gt_resv_verdict_release(struct gt_resv_verdict *r)
{
	free(r->idle);
	free(r->inflight_done);
	*r = (struct gt_resv_verdict){ 0 };
}
