#include "core/reason.h"

#include "core/cluster.h"

static const char *const reject_codes[GT_N_REJECT] = {
	[GT_REJECT_NONE] = "",
	[GT_REJECT_GPU] = "GPU",
	[GT_REJECT_GPU_MEMORY] = "GPUMemory",
	[GT_REJECT_CPU] = "CPU",
	[GT_REJECT_MEMORY] = "Memory",
	[GT_REJECT_EXT] = "ExtendedResource",
	[GT_REJECT_PODS] = "PodCount",
	[GT_REJECT_NOT_READY] = "NodeNotReady",
	[GT_REJECT_SELECTOR] = "NodeAffinity",
	[GT_REJECT_TAINT] = "Taint",
	[GT_REJECT_POD_AFFINITY] = "PodAffinity",
	[GT_REJECT_POD_ANTI_AFFINITY] = "PodAntiAffinity",
	[GT_REJECT_GPU_TYPE] = "GPUType",
	[GT_REJECT_GPU_MEMORY_UNKNOWN] = "GPUMemoryUnknown",
	[GT_REJECT_TOPOLOGY] = "Topology",
	[GT_REJECT_HOST_PORTS] = "HostPorts",
	[GT_REJECT_NUMA] = "NUMA",
	[GT_REJECT_VOLUME_NODE_CONFLICT] = "VolumeNodeAffinity",
	[GT_REJECT_VOLUME_BIND_CONFLICT] = "VolumeBindConflict",
	[GT_REJECT_VOLUME_SPACE] = "VolumeCapacity",
	[GT_REJECT_VOLUME_MISSING] = "VolumeMissing",
	[GT_REJECT_DRA] = "ResourceClaim",
	[GT_REJECT_DRA_DEVICES] = "ResourceClaimDevices",
};

static const char *const reason_codes[] = {
#define GT_REASON_CODE(name, code, kai) code,
	GT_REASON_MAP(GT_REASON_CODE)
#undef GT_REASON_CODE
};

static const char *const reason_kai[] = {
#define GT_REASON_KAI(name, code, kai) kai,
	GT_REASON_MAP(GT_REASON_KAI)
#undef GT_REASON_KAI
};

const char *gt_reject_code(enum gt_reject r)
{
	return (unsigned)r < GT_N_REJECT && reject_codes[r] ? reject_codes[r] : "";
}

const char *gt_reason_code(enum gt_reason r)
{
	return (unsigned)r < GT_N_REASONS ? reason_codes[r] : "";
}

const char *gt_reason_kai(enum gt_reason r)
{
	return (unsigned)r < GT_N_REASONS ? reason_kai[r] : "";
}

struct gt_job_why gt_job_why_of(enum gt_reason r)
{
	return (struct gt_job_why){ .reason = r, .pod = GT_NONE, .podset = GT_NONE, .queue = GT_NONE,
				    .qres = GT_NONE };
}
