/*
 * fuzz_cel.c - DRA selector expressions: gt_cel_compile, then gt_cel_eval
 *
 * The input is the expression (cut at its first NUL). A compile either
 * succeeds or fails with a message naming a column; a compiled program is
 * evaluated against three devices (NVIDIA's GPU and MIG slice, and one with
 * nothing), twice each: the same answer both times, an error always with a
 * message.
 */
#include "core/cel.h"
#include "fuzz.h"

static const gt_cel_attribute gpu_attrs[] = {
	{ .name = "gpu.nvidia.com/type", .kind = GT_CEL_STRING, .s = "gpu" },
	{ .name = "gpu.nvidia.com/productName", .kind = GT_CEL_STRING, .s = "NVIDIA A100-SXM4-40GB" },
	{ .name = "gpu.nvidia.com/driverVersion", .kind = GT_CEL_VERSION, .s = "550.54.15" },
	{ .name = "gpu.nvidia.com/badVersion", .kind = GT_CEL_VERSION, .s = "5.x" },
	{ .name = "gpu.nvidia.com/index", .kind = GT_CEL_INT, .i = INT64_MAX },
	{ .name = "gpu.nvidia.com/minor", .kind = GT_CEL_INT, .i = INT64_MIN },
	{ .name = "gpu.nvidia.com/mig", .kind = GT_CEL_BOOL, .b = false },
	{ .name = "resource.kubernetes.io/pcieRoot", .kind = GT_CEL_STRING, .s = "pci0000:00" },
	{ .name = "nodomain", .kind = GT_CEL_STRING, .s = "" },
};
static const gt_cel_capacity gpu_caps[] = {
	{ .name = "gpu.nvidia.com/memory", .milli = INT64_C(40) * 1073741824 * 1000 },
	{ .name = "gpu.nvidia.com/huge", .milli = INT64_MAX },
	{ .name = "gpu.nvidia.com/negative", .milli = INT64_MIN },
};
static const gt_cel_attribute mig_attrs[] = {
	{ .name = "gpu.nvidia.com/type", .kind = GT_CEL_STRING, .s = "mig" },
	{ .name = "gpu.nvidia.com/profile", .kind = GT_CEL_STRING, .s = "1g.5gb" },
	{ .name = "gpu.nvidia.com/driverVersion", .kind = GT_CEL_VERSION, .s = "1.0.0-rc.1+build" },
};
static const gt_cel_capacity mig_caps[] = {
	{ .name = "gpu.nvidia.com/memory", .milli = INT64_C(5) * 1073741824 * 1000 },
};
static const gt_cel_device devices[] = {
	{ .driver = "gpu.nvidia.com", .attributes = gpu_attrs,
	  .n_attributes = sizeof(gpu_attrs) / sizeof(gpu_attrs[0]), .capacity = gpu_caps,
	  .n_capacity = sizeof(gpu_caps) / sizeof(gpu_caps[0]) },
	{ .driver = "gpu.nvidia.com", .attributes = mig_attrs, .n_attributes = 3, .capacity = mig_caps,
	  .n_capacity = 1, .allow_multiple_allocations = true },
	{ .driver = NULL },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *expr = fuzz_string(data, size);
	char err[256], again[256];
	memset(err, 0, sizeof(err));
	gt_cel_program *p = gt_cel_compile(expr, err, sizeof(err));
	if (!p) {
		FUZZ_CHECK(!strncmp(err, "column ", 7));
		free(expr);
		return 0;
	}
	FUZZ_CHECK(err[0] == '\0');
	for (size_t d = 0; d < sizeof(devices) / sizeof(devices[0]); d++) {
		gt_cel_result r = gt_cel_eval(p, &devices[d], err, sizeof(err));
		gt_cel_result r2 = gt_cel_eval(p, &devices[d], again, sizeof(again));
		FUZZ_CHECK(r == GT_CEL_TRUE || r == GT_CEL_FALSE || r == GT_CEL_ERROR);
		FUZZ_CHECK(r == r2);
		if (r == GT_CEL_ERROR)
			FUZZ_CHECK(!strncmp(err, "column ", 7) && !strcmp(err, again));
	}
	gt_cel_free(p);
	free(expr);
	return 0;
}
