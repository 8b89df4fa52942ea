/*
 * decode_storage.c - PersistentVolumeClaim, PersistentVolume, StorageClass,
 * CSIDriver and CSIStorageCapacity into the cluster's storage (core/volumes.h)
 *
 * Claims are decoded before pods (a pod names the claims it mounts); the
 * other kinds after them, and gt_dec_storage_link() joins everything by
 * name once all are in: a claim to its class, volume and selected node, a
 * volume to the claim of its claimRef, a class to its CSIDriver, and each
 * pod's unbound claims to what keeps it from every node (an Immediate
 * class, or a class that does not exist).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/decode_int.h"
#include "api/quantity.h"
#include "core/volumes.h"
#include "util/mem.h"

#define ANN_SELECTED_NODE "volume.kubernetes.io/selected-node"
#define NO_PROVISIONER "kubernetes.io/no-provisioner"

static int storage_quantity(struct gt_dec *x, const struct gt_doc *o, const char *field, const char *val,
			    int64_t *out)
{
	*out = 0;
	if (!val)
		return 0;
	if (gt_quantity_parse(val, out) || *out < 0)
		return gt_dec_fail(x, o, field, "not a storage quantity", val);
	return 0;
}

/* spec.storageClassName, else the beta annotation older claims and volumes carry, else "". */
static const char *class_name(const struct gt_doc *o)
{
	const char *cls = gt_doc_str(gt_doc_get(o, "spec"), "storageClassName");
	if (!cls)
		cls = gt_obj_annotation(o, "volume.beta.kubernetes.io/storage-class");
	return cls ? cls : "";
}

int gt_dec_claim(struct gt_dec *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	struct gt_pvc v = { .ns = gt_dec_intern(x, gt_obj_ns(o)), .name = gt_dec_intern(x, gt_obj_name(o)),
			    .storage_class = GT_NONE, .volume = GT_NONE, .selected_node = GT_NONE };
	v.class_name = gt_dec_intern(x, class_name(o));
	int rc = storage_quantity(x, o, "spec.resources.requests.storage",
				  gt_doc_str(gt_doc_path(o, "spec.resources.requests"), "storage"), &v.request_bytes);
	if (rc)
		return rc;
	const char *vol = gt_doc_str(gt_doc_get(o, "spec"), "volumeName");
	if (vol && *vol) {
		v.has_volume = true;
		v.volume_name = gt_dec_intern(x, vol);
	}
	const char *sel = gt_obj_annotation(o, ANN_SELECTED_NODE);
	if (sel && *sel) {
		v.has_selected_node = true;
		v.selected_node = gt_dec_lookup(x, x->node_by_name, sel);
	}
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", gt_obj_ns(o), gt_obj_name(o));
	gt_dec_set_lookup(x, &x->claim_by_name, key, (int32_t)c->n_pvcs);
	GT_PUSH(c->pvcs, c->n_pvcs, c->cap_pvcs, v);
	return 0;
}

/* Node selector terms (nodeSelectorTerms, or allowedTopologies' matchLabelExpressions). */
static int node_terms(struct gt_dec *x, const struct gt_doc *o, const struct gt_doc *terms, const char *field,
		      const char *exprs_key, struct gt_selector **out, uint32_t *n_out)
{
	*out = NULL;
	*n_out = 0;
	if (!terms || terms->kind != GT_DOC_SEQ || !terms->n)
		return 0;
	*out = gt_xcalloc(terms->n, sizeof(**out));
	char f[400];
	for (size_t i = 0; i < terms->n; i++) {
		snprintf(f, sizeof(f), "%s[%zu]", field, i);
		const struct gt_doc *exprs = gt_doc_get(terms->items[i], exprs_key);
		int rc;
		if (!strcmp(exprs_key, "matchLabelExpressions")) {
			/* {key, values}: an In requirement each */
			size_t n = exprs && exprs->kind == GT_DOC_SEQ ? exprs->n : 0;
			struct gt_selector *s = &(*out)[(*n_out)++];
			s->exprs = gt_xcalloc(n + 1, sizeof(*s->exprs));
			rc = 0;
			for (size_t k = 0; k < n; k++) {
				const char *key = gt_doc_str(exprs->items[k], "key");
				const struct gt_doc *vals = gt_doc_get(exprs->items[k], "values");
				if (!key || !vals || vals->kind != GT_DOC_SEQ) {
					snprintf(f, sizeof(f), "%s[%zu].%s[%zu]", field, i, exprs_key, k);
					rc = gt_dec_fail(x, o, f, "needs key and values", NULL);
					break;
				}
				struct gt_sel_expr *e = &s->exprs[s->n_exprs++];
				e->key = gt_dec_intern(x, key);
				e->op = GT_SEL_IN;
				e->vals = gt_xcalloc(vals->n + 1, sizeof(*e->vals));
				for (size_t m = 0; m < vals->n; m++)
					e->vals[e->n_vals++] = gt_dec_intern(x, vals->items[m]->scalar ? vals->items[m]->scalar : "");
			}
		} else {
			rc = gt_dec_selector(x, o, exprs, NULL, f, &(*out)[(*n_out)++]);
		}
		if (rc)
			return rc;
	}
	return 0;
}

static void release_terms(struct gt_selector *t, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		gt_selector_release(&t[i]);
	free(t);
}

int gt_dec_pv(struct gt_dec *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	struct gt_pv v = { .name = gt_dec_intern(x, gt_obj_name(o)), .claim = GT_NONE };
	v.class_name = gt_dec_intern(x, class_name(o));
	int rc = storage_quantity(x, o, "spec.capacity.storage", gt_doc_str(gt_doc_path(o, "spec.capacity"), "storage"),
				  &v.capacity_bytes);
	static const char terms[] = "spec.nodeAffinity.required.nodeSelectorTerms";
	rc = rc ? rc : node_terms(x, o, gt_doc_path(o, terms), terms, "matchExpressions", &v.affinity, &v.n_affinity);
	if (rc) {
		release_terms(v.affinity, v.n_affinity);
		return rc;
	}
	const struct gt_doc *ref = gt_doc_path(o, "spec.claimRef");
	const char *ref_name = gt_doc_str(ref, "name");
	if (ref_name) {
		const char *ref_ns = gt_doc_str(ref, "namespace");
		char key[600];
		snprintf(key, sizeof(key), "%s/%s", ref_ns ? ref_ns : "", ref_name);
		v.claimed = true;
		v.claim = gt_dec_lookup(x, x->claim_by_name, key);
	}
	const char *phase = gt_doc_str(gt_doc_get(o, "status"), "phase");
	v.available = !phase || !strcmp(phase, "Available") || !strcmp(phase, "Pending");
	GT_PUSH(c->pvs, c->n_pvs, c->cap_pvs, v);
	return 0;
}

int gt_dec_storage_class(struct gt_dec *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	const char *prov = gt_doc_str(o, "provisioner");
	const char *mode = gt_doc_str(o, "volumeBindingMode");
	if (mode && strcmp(mode, "Immediate") && strcmp(mode, "WaitForFirstConsumer"))
		return gt_dec_fail(x, o, "volumeBindingMode", "must be Immediate or WaitForFirstConsumer, not", mode);
	struct gt_storage_class sc = { .name = gt_dec_intern(x, gt_obj_name(o)),
				       .provisioner = gt_dec_intern(x, prov ? prov : "") };
	sc.wait_for_consumer = mode && !strcmp(mode, "WaitForFirstConsumer");
	sc.no_provisioner = prov && !strcmp(prov, NO_PROVISIONER);
	int rc = node_terms(x, o, gt_doc_get(o, "allowedTopologies"), "allowedTopologies", "matchLabelExpressions",
			    &sc.topologies, &sc.n_topologies);
	if (rc) {
		release_terms(sc.topologies, sc.n_topologies);
		return rc;
	}
	GT_PUSH(c->storage_classes, c->n_storage_classes, c->cap_storage_classes, sc);
	return 0;
}

int gt_dec_csi_driver(struct gt_dec *x, const struct gt_doc *o)
{
	const char *cap = gt_doc_str(gt_doc_get(o, "spec"), "storageCapacity");
	if (cap && strcmp(cap, "true") && strcmp(cap, "false"))
		return gt_dec_fail(x, o, "spec.storageCapacity", "must be true or false, not", cap);
	struct gt_dec_csi_driver d = { .name = gt_dec_intern(x, gt_obj_name(o)), .capacity = cap && !strcmp(cap, "true") };
	GT_PUSH(x->csi_drivers, x->n_csi_drivers, x->cap_csi_drivers, d);
	return 0;
}

int gt_dec_csi_capacity(struct gt_dec *x, const struct gt_doc *o)
{
	struct gt_cluster *c = x->c;
	const char *cls = gt_doc_str(o, "storageClassName");
	if (!cls || !*cls)
		return gt_dec_fail(x, o, "storageClassName", "is missing", NULL);
	struct gt_csi_capacity cap = { .ns = gt_dec_intern(x, gt_obj_ns(o)), .name = gt_dec_intern(x, gt_obj_name(o)),
				       .class_name = gt_dec_intern(x, cls) };
	int rc = storage_quantity(x, o, "capacity", gt_doc_str(o, "capacity"), &cap.capacity_bytes);
	rc = rc ? rc : storage_quantity(x, o, "maximumVolumeSize", gt_doc_str(o, "maximumVolumeSize"),
					&cap.max_volume_bytes);
	const struct gt_doc *topo = gt_doc_get(o, "nodeTopology");
	rc = rc ? rc : gt_dec_selector(x, o, gt_doc_get(topo, "matchExpressions"), gt_doc_get(topo, "matchLabels"),
				      "nodeTopology", &cap.topology);
	if (rc) {
		gt_selector_release(&cap.topology);
		return rc;
	}
	GT_PUSH(c->csi_capacities, c->n_csi_capacities, c->cap_csi_capacities, cap);
	return 0;
}

/* ---------------------------------------------------------------- links */

static int32_t class_index(const struct gt_cluster *c, uint32_t name)
{
	for (uint32_t i = 0; i < c->n_storage_classes; i++)
		if (c->storage_classes[i].name == name)
			return (int32_t)i;
	return GT_NONE;
}

/* Why unbound claim @v keeps a pod from every node, or -1 when it does not. */
static int claim_problem(const struct gt_cluster *c, const struct gt_pvc *v)
{
	if (v->has_volume)
		return -1;
	if (v->storage_class != GT_NONE)
		return c->storage_classes[v->storage_class].wait_for_consumer ? -1 : GT_CLAIM_UNBOUND_IMMEDIATE;
	/* no class: Immediate (kube-scheduler's rule); a named class that is not there: an error */
	return v->class_name == 0 || !*gt_strtab_str(c->names, v->class_name) ? GT_CLAIM_UNBOUND_IMMEDIATE
									       : GT_CLAIM_CLASS_MISSING;
}

void gt_dec_storage_link(struct gt_dec *x, bool known)
{
	struct gt_cluster *c = x->c;
	if (!known) {
		/* no StorageClass or PersistentVolume in the input: the claims cannot be judged */
		for (uint32_t i = 0; i < c->n_pods; i++) {
			struct gt_pod *p = &c->pods[i];
			if (p->n_pvcs && gt_pod_volumes_unbound(c, (int32_t)i) && !x->storage_warned) {
				x->storage_warned = true;
				gt_dec_warn(x, "pod %s mounts a PersistentVolumeClaim not bound yet and the input has no "
					    "StorageClasses or PersistentVolumes: volume binding is not checked (add them, "
					    "e.g. kubectl get pv,storageclasses,csidrivers,csistoragecapacities -A -o yaml)%s",
					    gt_strtab_str(x->names, p->name), "");
			}
			free(p->pvcs);
			p->pvcs = NULL;
			p->n_pvcs = 0;
		}
		return;
	}
	for (uint32_t i = 0; i < c->n_storage_classes; i++) {
		struct gt_storage_class *sc = &c->storage_classes[i];
		for (size_t d = 0; d < x->n_csi_drivers; d++)
			if (x->csi_drivers[d].name == sc->provisioner)
				sc->capacity_tracked = x->csi_drivers[d].capacity;
	}
	/* volumes by name: an id-indexed table, claims and volumes may be many */
	size_t n_ids = x->names->n_strs + 1;
	int32_t *pv_by_name = gt_xmalloc(n_ids * sizeof(*pv_by_name));
	for (size_t i = 0; i < n_ids; i++)
		pv_by_name[i] = GT_NONE;
	for (uint32_t i = 0; i < c->n_pvs; i++)
		pv_by_name[c->pvs[i].name] = (int32_t)i;
	for (uint32_t i = 0; i < c->n_pvcs; i++) {
		struct gt_pvc *v = &c->pvcs[i];
		v->storage_class = class_index(c, v->class_name);
		if (v->has_volume)
			v->volume = v->volume_name < n_ids ? pv_by_name[v->volume_name] : GT_NONE;
	}
	free(pv_by_name);
	for (uint32_t i = 0; i < c->n_pods; i++) {
		struct gt_pod *p = &c->pods[i];
		for (uint32_t k = 0; k < p->n_pvcs && !p->claim_missing; k++) {
			const struct gt_pvc *v = &c->pvcs[p->pvcs[k]];
			int problem = claim_problem(c, v);
			if (problem < 0)
				continue;
			p->claim_missing = true;
			p->claim_problem = (uint8_t)problem;
			p->missing_claim = problem == GT_CLAIM_CLASS_MISSING ? v->class_name : v->name;
		}
	}
}
