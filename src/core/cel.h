/*
 * cel.h - DRA selector expressions: the subset of CEL Kubernetes' DRA uses
 *
 * DeviceClasses and ResourceClaims select devices with CEL expressions over
 * one `device` (resource.k8s.io/v1 DeviceSelector.cel.expression):
 *
 *	device.driver == "gpu.nvidia.com" &&
 *	device.attributes["gpu.nvidia.com"].type == "gpu" &&
 *	device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0
 *
 * Gantry compiles such an expression once (gt_cel_compile) and evaluates it
 * against each candidate device (gt_cel_eval). The subset is what real
 * drivers' DeviceClasses and claims use; anything else fails to compile with
 * a message naming the column and the construct, never silently. The
 * supported subset is listed in docs/dra.md, "Selector expressions (CEL)".
 *
 * Pure: no I/O, no clock, no environment.
 */
#ifndef GT_CEL_H
#define GT_CEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A compiled DRA selector expression. Pure: no I/O. */
typedef struct gt_cel_program gt_cel_program;

/*
 * Compiles @expr. On failure returns NULL and writes a one-line message
 * naming the column (1-based, in bytes) into @err ("column 17: unknown
 * function 'foo'").
 */
gt_cel_program *gt_cel_compile(const char *expr, char *err, size_t errlen);
void gt_cel_free(gt_cel_program *program);

typedef enum { GT_CEL_BOOL, GT_CEL_INT, GT_CEL_STRING, GT_CEL_VERSION } gt_cel_attr_kind;

typedef struct {
	const char *name;     /* fully qualified: "gpu.nvidia.com/productName" (the decoder
	                         qualifies a bare name with the driver's name, as Kubernetes does) */
	gt_cel_attr_kind kind;
	bool b;
	int64_t i;
	const char *s;        /* STRING and VERSION (semver text) */
} gt_cel_attribute;

typedef struct {
	const char *name;     /* fully qualified, as attributes */
	int64_t milli;        /* the quantity in milli-units (memory "80Gi" -> 80*2^30*1000) */
} gt_cel_capacity;

typedef struct {
	const char *driver;
	const gt_cel_attribute *attributes; size_t n_attributes;
	const gt_cel_capacity *capacity;    size_t n_capacity;
	bool allow_multiple_allocations;
} gt_cel_device;

typedef enum { GT_CEL_FALSE = 0, GT_CEL_TRUE = 1, GT_CEL_ERROR = -1 } gt_cel_result;

/*
 * Evaluates against one device (`device.driver`, `device.attributes["domain"].id`,
 * `device.capacity["domain"].id`, `device.allowMultipleAllocations`). A runtime error (missing
 * attribute, type mismatch) gives GT_CEL_ERROR with a message in err: Kubernetes treats that as
 * "no match" and reports it. An expression whose value is not a bool is an error too.
 */
gt_cel_result gt_cel_eval(const gt_cel_program *program, const gt_cel_device *device,
                          char *err, size_t errlen);

#endif /* GT_CEL_H */
