/*
 * kubefix.h - API objects as the server writes them, for the tests of the
 * scheduler's Kubernetes side (cache, snapshot, writes)
 *
 * Static data and static inline helpers: each test file that includes it
 * uses what it needs.
 */
#ifndef GT_KUBEFIX_H
#define GT_KUBEFIX_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "kube/cache.h"
#include "scheduler/snapshot.h"

/* A pod as `kubectl get pod -o json` prints it: server-set fields and all. */
static const char pod_json[] __attribute__((unused)) =
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"annotations\":{\"gpu-fraction\":\"0.5\","
	"\"pod-group-name\":\"pg-nb-5d8f\","
	"\"kubectl.kubernetes.io/last-applied-configuration\":\"{\\\"apiVersion\\\":\\\"v1\\\"}\\n\"},"
	"\"creationTimestamp\":\"2026-01-01T00:00:05Z\",\"generateName\":\"nb-\",\"labels\":{\"app\":\"notebook\","
	"\"kai.scheduler/queue\":\"research\",\"pod-template-hash\":\"5d8f\"},\"managedFields\":[{\"apiVersion\":\"v1\","
	"\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{}},\"manager\":\"kube-controller-manager\","
	"\"operation\":\"Update\",\"time\":\"2026-01-01T00:00:05Z\"}],\"name\":\"nb-x7k2p\",\"namespace\":\"team-a\","
	"\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"blockOwnerDeletion\":true,\"controller\":true,"
	"\"kind\":\"ReplicaSet\",\"name\":\"nb-5d8f\",\"uid\":\"7c1e\"}],\"resourceVersion\":\"48213\","
	"\"uid\":\"3f9b2c1e-0d4a-4e7b-9a51-2c6f8e1d0b7a\"},\"spec\":{\"containers\":[{\"image\":\"jupyter:1\","
	"\"imagePullPolicy\":\"IfNotPresent\",\"name\":\"nb\",\"ports\":[{\"containerPort\":8888,\"protocol\":\"TCP\"}],"
	"\"resources\":{\"limits\":{\"cpu\":\"2\",\"memory\":\"4Gi\"},\"requests\":{\"cpu\":\"500m\",\"memory\":\"1Gi\"}},"
	"\"terminationMessagePath\":\"/dev/termination-log\",\"volumeMounts\":[{\"mountPath\":\"/var/run/secrets/"
	"kubernetes.io/serviceaccount\",\"name\":\"kube-api-access-abcde\",\"readOnly\":true}]}],"
	"\"dnsPolicy\":\"ClusterFirst\",\"enableServiceLinks\":true,\"preemptionPolicy\":\"PreemptLowerPriority\","
	"\"priority\":0,\"restartPolicy\":\"Always\",\"schedulerName\":\"kai-scheduler\",\"securityContext\":{},"
	"\"serviceAccountName\":\"default\",\"terminationGracePeriodSeconds\":30,\"tolerations\":[{"
	"\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"},{\"effect\":"
	"\"NoExecute\",\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"tolerationSeconds\":300}],"
	"\"volumes\":[{\"name\":\"kube-api-access-abcde\",\"projected\":{\"defaultMode\":420,\"sources\":[{"
	"\"serviceAccountToken\":{\"expirationSeconds\":3607,\"path\":\"token\"}}]}}]},\"status\":{\"conditions\":[{"
	"\"lastProbeTime\":null,\"lastTransitionTime\":\"2026-01-01T00:00:05Z\",\"message\":\"old\",\"reason\":"
	"\"Unschedulable\",\"status\":\"False\",\"type\":\"PodScheduled\"}],\"phase\":\"Pending\",\"qosClass\":\"Burstable\"}}";

static const char node_json[] __attribute__((unused)) =
	"{\"metadata\":{\"name\":\"gpu-1\",\"uid\":\"n-1\",\"resourceVersion\":\"4000\",\"creationTimestamp\":"
	"\"2025-12-01T00:00:00Z\",\"labels\":{\"kubernetes.io/hostname\":\"gpu-1\",\"nvidia.com/gpu.memory\":"
	"\"81559\",\"nvidia.com/gpu.count\":\"8\"},\"annotations\":{\"node.alpha.kubernetes.io/ttl\":\"0\"}},"
	"\"spec\":{\"podCIDR\":\"10.244.1.0/24\",\"taints\":[{\"effect\":\"NoSchedule\",\"key\":\"nvidia.com/gpu\","
	"\"value\":\"present\"}]},\"status\":{\"addresses\":[{\"address\":\"10.0.0.7\",\"type\":\"InternalIP\"}],"
	"\"allocatable\":{\"cpu\":\"95500m\",\"ephemeral-storage\":\"1800Gi\",\"hugepages-1Gi\":\"0\",\"memory\":"
	"\"1584112Mi\",\"nvidia.com/gpu\":\"8\",\"pods\":\"110\"},\"capacity\":{\"cpu\":\"96\",\"memory\":\"1584212Mi\","
	"\"nvidia.com/gpu\":\"8\",\"pods\":\"110\"},\"conditions\":[{\"lastHeartbeatTime\":\"2026-01-01T00:00:00Z\","
	"\"lastTransitionTime\":\"2025-12-01T00:00:00Z\",\"message\":\"kubelet is posting ready status\",\"reason\":"
	"\"KubeletReady\",\"status\":\"True\",\"type\":\"Ready\"}],\"images\":[{\"names\":[\"busybox\"],\"sizeBytes\":"
	"4261550}],\"nodeInfo\":{\"architecture\":\"amd64\",\"kubeletVersion\":\"v1.31.2\"}}}";

static const char queue_json[] __attribute__((unused)) =
	"{\"apiVersion\":\"scheduling.run.ai/v2\",\"kind\":\"Queue\",\"metadata\":{\"name\":\"research\","
	"\"uid\":\"q-1\",\"resourceVersion\":\"7\",\"generation\":1,\"creationTimestamp\":\"2025-12-01T00:00:00Z\"},"
	"\"spec\":{\"resources\":{\"cpu\":{\"limit\":-1,\"overQuotaWeight\":1,\"quota\":-1},\"gpu\":{\"limit\":-1,"
	"\"overQuotaWeight\":1,\"quota\":4.5},\"memory\":{\"limit\":-1,\"overQuotaWeight\":1,\"quota\":-1}}},"
	"\"status\":{\"allocated\":{\"cpu\":\"0\"},\"childQueues\":[]}}";

/* the notebook's PodGroup, as the podgrouper makes one for its ReplicaSet */
static const char nb_pg_json[] __attribute__((unused)) =
	"{\"apiVersion\":\"scheduling.run.ai/v2alpha2\",\"kind\":\"PodGroup\",\"metadata\":{\"name\":"
	"\"pg-nb-5d8f\",\"namespace\":\"team-a\",\"uid\":\"pg-0\",\"resourceVersion\":\"80\","
	"\"creationTimestamp\":\"2026-01-01T00:00:05Z\",\"labels\":{\"kai.scheduler/queue\":\"research\"}},"
	"\"spec\":{\"minMember\":1,\"queue\":\"research\"}}";

static const char pg_json[] __attribute__((unused)) =
	"{\"apiVersion\":\"scheduling.run.ai/v2alpha2\",\"kind\":\"PodGroup\",\"metadata\":{\"name\":\"big\","
	"\"namespace\":\"team-a\",\"uid\":\"pg-1\",\"resourceVersion\":\"90\",\"creationTimestamp\":"
	"\"2026-01-01T00:00:01Z\",\"labels\":{\"kai.scheduler/queue\":\"research\"}},\"spec\":{\"minMember\":2,"
	"\"queue\":\"research\",\"priorityClassName\":\"train\",\"markUnschedulable\":true},\"status\":{"
	"\"schedulingConditions\":[{\"type\":\"UnschedulableOnNodePool\",\"nodePool\":\"other\",\"reason\":"
	"\"Unschedulable\",\"message\":\"elsewhere\",\"transitionID\":\"4\",\"status\":\"True\"}]}}";

static inline struct gt_kobj *make(enum gt_kres r, const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	if (!j) {
		fprintf(stderr, "bad test JSON: %s\n", je.text);
		abort();
	}
	struct gt_err err = { 0 };
	struct gt_kobj *o = gt_kobj_new(r, j, &err);
	json_decref(j);
	return o;
}

static inline void add(struct gt_cache *c, enum gt_kres r, const char *text)
{
	gt_cache_upsert(c, make(r, text));
}

static inline char *fmt(const char *f, const char *a, const char *b)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf), f, a, b);
	return buf;
}

#define BIG_POD "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"team-a\",\"uid\":\"u-%s\",\"resourceVersion\":\"1\"," \
	"\"creationTimestamp\":\"2026-01-01T00:00:02Z\",\"annotations\":{\"pod-group-name\":\"big\"}},\"spec\":{" \
	"\"schedulerName\":\"kai-scheduler\",\"tolerations\":[{\"operator\":\"Exists\"}]," \
	"\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{" \
	"\"nvidia.com/gpu\":\"8\"}}}]},\"status\":{\"phase\":\"Pending\"}}"

#define LOOSE_POD "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"team-a\",\"uid\":\"u-%s\"," \
	"\"labels\":{\"kai.scheduler/queue\":\"research\"}},\"spec\":{\"schedulerName\":\"kai-scheduler\"," \
	"\"tolerations\":[{\"operator\":\"Exists\"}],\"containers\":[{\"name\":\"c\"}]}," \
	"\"status\":{\"phase\":\"Pending\"}}"

static const struct gt_snapshot_opts sopts __attribute__((unused)) = { .scheduler_name = "kai-scheduler",
									 .shard = "default" };

#endif /* GT_KUBEFIX_H */
