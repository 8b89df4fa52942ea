/*
 * gpushare.h - where a shared-GPU pod's container reads its device from
 *
 * KAI's admission webhook gives a fractional or GPU-memory pod's container
 * its environment from two ConfigMaps it names after the annotation
 * runai/shared-gpu-configmap and the container's index ("<prefix>-<i>" and
 * "<prefix>-<i>-evar"; an init container's index gets an "i"); the binder
 * creates them with the device's UUID once the pod's GPU is known. The
 * container is the one annotation gpu-fraction-container-name names, else
 * the first.
 */
#ifndef GT_GPUSHARE_H
#define GT_GPUSHARE_H

#include <stdbool.h>
#include <stddef.h>

#include "api/doc.h"

/*
 * The reservation pods that hold shared GPUs (KAI's resource-reservation):
 * their namespace, service account and app label all have this name.
 */
#define GT_RESERVATION "kai-resource-reservation"

struct gt_gpushare_cms {
	char caps[600];			/* the capabilities ConfigMap */
	char evar[600];			/* the direct-env one */
	bool visible_in_caps;		/* the container reads NVIDIA_VISIBLE_DEVICES from a ConfigMap */
};

/*
 * The GPU groups a pod's labels put it in, as KAI's binder labels a shared
 * pod and its reservation pod: runai-gpu-group=<group>, and
 * runai-gpu-group/<group>=<group> per device of a multi-device fraction.
 * At most @cap into @out (borrowed from @pod), each once; how many.
 */
#define GT_GPU_GROUP_LABEL "runai-gpu-group"
size_t gt_gpushare_pod_groups(const struct gt_doc *pod, const char **out, size_t cap);

/* The ConfigMaps of shared-GPU pod @pod; false when the webhook named none. */
bool gt_gpushare_configmaps(const struct gt_doc *pod, struct gt_gpushare_cms *out);

/*
 * The shared pod's spec.tolerations as JSON text (free it), or NULL when it
 * has none: its GPU's reservation pod carries them, as KAI v0.17's does.
 */
char *gt_pod_tolerations_json(const struct gt_doc *pod);

#endif /* GT_GPUSHARE_H */
