/*
 * test_cel.c - core/cel: DRA selector expressions, compiled and evaluated
 *
 * Expressions come from real DeviceClasses and claims: NVIDIA's DRA driver
 * (gpu.nvidia.com, MIG, compute domains), Kubernetes' DRA examples and the
 * API's own documentation (resource.k8s.io/v1 CELDeviceSelector). Errors are
 * asserted with their message and column.
 */
#include "core/cel.h"
#include "harness.h"

const char *gt_suite = "cel";

#define GI (INT64_C(1) << 30)

/* An NVIDIA A100 as NVIDIA's DRA driver publishes it (names qualified by the decoder). */
static const gt_cel_attribute a100_attrs[] = {
	{ .name = "gpu.nvidia.com/type", .kind = GT_CEL_STRING, .s = "gpu" },
	{ .name = "gpu.nvidia.com/productName", .kind = GT_CEL_STRING, .s = "NVIDIA A100-SXM4-40GB" },
	{ .name = "gpu.nvidia.com/brand", .kind = GT_CEL_STRING, .s = "Nvidia" },
	{ .name = "gpu.nvidia.com/architecture", .kind = GT_CEL_STRING, .s = "Ampere" },
	{ .name = "gpu.nvidia.com/cudaComputeCapability", .kind = GT_CEL_VERSION, .s = "8.0.0" },
	{ .name = "gpu.nvidia.com/driverVersion", .kind = GT_CEL_VERSION, .s = "550.54.15" },
	{ .name = "gpu.nvidia.com/cudaDriverVersion", .kind = GT_CEL_VERSION, .s = "12.4.0" },
	{ .name = "gpu.nvidia.com/index", .kind = GT_CEL_INT, .i = 3 },
	{ .name = "gpu.nvidia.com/minor", .kind = GT_CEL_INT, .i = 3 },
	{ .name = "gpu.nvidia.com/uuid", .kind = GT_CEL_STRING, .s = "GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c" },
	{ .name = "gpu.nvidia.com/mig", .kind = GT_CEL_BOOL, .b = false },
	{ .name = "resource.kubernetes.io/pcieRoot", .kind = GT_CEL_STRING, .s = "pci0000:00" },
};
static const gt_cel_capacity a100_caps[] = {
	{ .name = "gpu.nvidia.com/memory", .milli = 40 * GI * 1000 },
	{ .name = "gpu.nvidia.com/multiprocessors", .milli = 108 * 1000 },
};
static const gt_cel_device a100 = {
	.driver = "gpu.nvidia.com",
	.attributes = a100_attrs, .n_attributes = sizeof(a100_attrs) / sizeof(a100_attrs[0]),
	.capacity = a100_caps, .n_capacity = sizeof(a100_caps) / sizeof(a100_caps[0]),
};

/* A MIG slice of it. */
static const gt_cel_attribute mig_attrs[] = {
	{ .name = "gpu.nvidia.com/type", .kind = GT_CEL_STRING, .s = "mig" },
	{ .name = "gpu.nvidia.com/profile", .kind = GT_CEL_STRING, .s = "1g.5gb" },
	{ .name = "gpu.nvidia.com/productName", .kind = GT_CEL_STRING, .s = "NVIDIA A100-SXM4-40GB" },
	{ .name = "gpu.nvidia.com/parentIndex", .kind = GT_CEL_INT, .i = 0 },
	{ .name = "gpu.nvidia.com/driverVersion", .kind = GT_CEL_VERSION, .s = "550.54.15" },
};
static const gt_cel_capacity mig_caps[] = {
	{ .name = "gpu.nvidia.com/memory", .milli = 5 * GI * 1000 },
	{ .name = "gpu.nvidia.com/multiprocessors", .milli = 14 * 1000 },
};
static const gt_cel_device mig = {
	.driver = "gpu.nvidia.com",
	.attributes = mig_attrs, .n_attributes = sizeof(mig_attrs) / sizeof(mig_attrs[0]),
	.capacity = mig_caps, .n_capacity = sizeof(mig_caps) / sizeof(mig_caps[0]),
	.allow_multiple_allocations = true,
};

/* The example driver of kubernetes-sigs/dra-example-driver. */
static const gt_cel_attribute example_attrs[] = {
	{ .name = "gpu.example.com/model", .kind = GT_CEL_STRING, .s = "LATEST-GPU-MODEL" },
	{ .name = "gpu.example.com/index", .kind = GT_CEL_INT, .i = 0 },
	{ .name = "gpu.example.com/driverVersion", .kind = GT_CEL_VERSION, .s = "1.0.0" },
	{ .name = "gpu.example.com/uuid", .kind = GT_CEL_STRING, .s = "gpu-18db0e85-99e9-c746-8531-ffeb86328b39" },
};
static const gt_cel_capacity example_caps[] = {
	{ .name = "gpu.example.com/memory", .milli = 80 * GI * 1000 },
};
static const gt_cel_device example = {
	.driver = "gpu.example.com",
	.attributes = example_attrs, .n_attributes = sizeof(example_attrs) / sizeof(example_attrs[0]),
	.capacity = example_caps, .n_capacity = sizeof(example_caps) / sizeof(example_caps[0]),
};

static const gt_cel_device bare = { .driver = "nothing.example.com" };

/* @expr compiled (it must) and evaluated against @dev; the message in @err */
static gt_cel_result run(const char *expr, const gt_cel_device *dev, char *err, size_t errlen)
{
	char cerr[256];
	gt_cel_program *p = gt_cel_compile(expr, cerr, sizeof(cerr));
	if (!p) {
		fprintf(stderr, "compile failed: %s: %s\n", expr, cerr);
		snprintf(err, errlen, "compile: %.200s", cerr);
		return (gt_cel_result)-2;
	}
	gt_cel_result r = gt_cel_eval(p, dev, err, errlen);
	gt_cel_free(p);
	return r;
}

static int is(const char *expr, const gt_cel_device *dev)
{
	char err[256];
	gt_cel_result r = run(expr, dev, err, sizeof(err));
	if (r == GT_CEL_ERROR)
		fprintf(stderr, "eval error: %s: %s\n", expr, err);
	return (int)r;
}

#define IS_TRUE(expr, dev) ASSERT_EQ(GT_CEL_TRUE, is(expr, dev))
#define IS_FALSE(expr, dev) ASSERT_EQ(GT_CEL_FALSE, is(expr, dev))

/* compiling @expr fails with exactly @msg */
#define COMPILE_ERROR(expr, msg)                                                      \
	do {                                                                          \
		char err_[256] = "";                                                  \
		gt_cel_program *p_ = gt_cel_compile(expr, err_, sizeof(err_));        \
		gt_cel_free(p_);                                                      \
		ASSERT_TRUE(p_ == NULL);                                              \
		ASSERT_STR(msg, err_);                                                \
	} while (0)

/* evaluating @expr against @dev is an error with exactly @msg */
#define EVAL_ERROR(expr, dev, msg)                                                    \
	do {                                                                          \
		char err_[256] = "";                                                  \
		ASSERT_EQ(GT_CEL_ERROR, run(expr, dev, err_, sizeof(err_)));          \
		ASSERT_STR(msg, err_);                                                \
	} while (0)

TEST(nvidia_device_classes)
{
	/* NVIDIA's k8s-dra-driver-gpu: DeviceClasses gpu.nvidia.com and mig.nvidia.com */
	const char *gpu = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'";
	const char *migc = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'";
	IS_TRUE(gpu, &a100);
	IS_FALSE(gpu, &mig);
	IS_TRUE(migc, &mig);
	IS_FALSE(migc, &a100);
	IS_FALSE(gpu, &example);	/* the other driver: the first operand decides, no error */
	IS_TRUE("device.driver == \"gpu.nvidia.com\" && device.attributes[\"gpu.nvidia.com\"].type == \"gpu\"", &a100);
	/* compute domains: an int attribute */
	const gt_cel_attribute cd_attrs[] = {
		{ .name = "compute-domain.nvidia.com/type", .kind = GT_CEL_STRING, .s = "channel" },
		{ .name = "compute-domain.nvidia.com/id", .kind = GT_CEL_INT, .i = 0 },
	};
	const gt_cel_device cd = { .driver = "compute-domain.nvidia.com", .attributes = cd_attrs, .n_attributes = 2 };
	IS_TRUE("device.driver == 'compute-domain.nvidia.com' && device.attributes['compute-domain.nvidia.com'].type == 'channel' && device.attributes['compute-domain.nvidia.com'].id == 0", &cd);
}

TEST(nvidia_claim_selectors)
{
	/* the driver's demo claims: by product, memory, MIG profile, driver version */
	IS_TRUE("device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100-SXM4-40GB'", &a100);
	IS_TRUE("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0", &a100);
	IS_FALSE("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0", &mig);
	IS_TRUE("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) == 0", &a100);
	IS_FALSE("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80Gi')) >= 0", &a100);
	IS_TRUE("device.attributes['gpu.nvidia.com'].type == 'mig' && device.attributes['gpu.nvidia.com'].profile == '1g.5gb'", &mig);
	IS_TRUE("device.attributes['gpu.nvidia.com'].profile in ['1g.5gb', '1g.10gb', '2g.10gb']", &mig);
	IS_FALSE("device.attributes['gpu.nvidia.com'].profile in ['3g.20gb', '7g.40gb']", &mig);
	IS_TRUE("device.attributes['gpu.nvidia.com'].driverVersion.compareTo(semver('550.0.0')) >= 0", &a100);
	IS_TRUE("device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('535.161.8'))", &a100);
	IS_FALSE("device.attributes['gpu.nvidia.com'].driverVersion.isLessThan(semver('550.54.15'))", &a100);
	IS_TRUE("device.attributes['gpu.nvidia.com'].cudaComputeCapability.isGreaterThan(semver('7.5.0'))", &a100);
	IS_TRUE("device.attributes['gpu.nvidia.com'].driverVersion.major() == 550 && device.attributes['gpu.nvidia.com'].driverVersion.minor() == 54 && device.attributes['gpu.nvidia.com'].driverVersion.patch() == 15", &a100);
	IS_TRUE("device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA A100') && device.attributes['gpu.nvidia.com'].architecture == 'Ampere'", &a100);
	IS_TRUE("device.attributes['gpu.nvidia.com'].productName.matches('A100|H100')", &a100);
	IS_FALSE("device.attributes['gpu.nvidia.com'].productName.matches('^H[0-9]+')", &a100);
	IS_TRUE("device.attributes['gpu.nvidia.com'].index < 4 && device.attributes['gpu.nvidia.com'].mig == false", &a100);
	IS_TRUE("device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0000:00'", &a100);
}

TEST(kubernetes_examples)
{
	/* the resource.k8s.io/v1 documentation and kubernetes' DRA examples */
	IS_TRUE("device.driver == 'gpu.example.com'", &example);
	IS_TRUE("device.attributes[\"gpu.example.com\"].model == \"LATEST-GPU-MODEL\" && device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"64Gi\")) >= 0", &example);
	IS_TRUE("device.capacity['gpu.example.com'].memory.isGreaterThan(quantity('10Gi'))", &example);
	IS_TRUE("device.attributes['gpu.example.com'].driverVersion.compareTo(semver('1.0.0')) == 0", &example);
	/* the API's own example (CELDeviceSelector): a driver dra.example.com with attributes
	 * "model" (its own domain) and "ext.example.com/family", and a capacity "modules" */
	const gt_cel_attribute doc_attrs[] = {
		{ .name = "dra.example.com/model", .kind = GT_CEL_STRING, .s = "m1" },
		{ .name = "dra.example.com/someBool", .kind = GT_CEL_BOOL, .b = true },
		{ .name = "dra.example.com/anotherBool", .kind = GT_CEL_BOOL, .b = true },
		{ .name = "ext.example.com/family", .kind = GT_CEL_STRING, .s = "f1" },
	};
	const gt_cel_capacity doc_caps[] = { { .name = "dra.example.com/modules", .milli = 4000 } };
	const gt_cel_device doc = { .driver = "dra.example.com", .attributes = doc_attrs, .n_attributes = 4,
				    .capacity = doc_caps, .n_capacity = 1 };
	IS_TRUE("device.driver == 'dra.example.com' && device.attributes[\"dra.example.com\"].model == 'm1' && device.attributes[\"ext.example.com\"].family == 'f1' && device.capacity[\"dra.example.com\"].modules.asInteger() == 4", &doc);
	IS_TRUE("cel.bind(dra, device.attributes[\"dra.example.com\"], dra.someBool && dra.anotherBool)", &doc);
	/* the DRA concept page's claim, written over two lines as in its YAML */
	const gt_cel_attribute drv_attrs[] = { { .name = "driver.example.com/type", .kind = GT_CEL_STRING, .s = "gpu" } };
	const gt_cel_capacity drv_caps[] = { { .name = "driver.example.com/memory", .milli = 64 * GI * 1000 } };
	const gt_cel_device drv = { .driver = "driver.example.com", .attributes = drv_attrs, .n_attributes = 1,
				    .capacity = drv_caps, .n_capacity = 1 };
	IS_TRUE("device.attributes[\"driver.example.com\"].type == \"gpu\" &&\n  device.capacity[\"driver.example.com\"].memory.compareTo(quantity(\"64Gi\")) >= 0\n", &drv);
	/* cel.bind(), which the API documents for many attributes of one domain */
	IS_TRUE("cel.bind(dra, device.attributes['gpu.example.com'], dra.model == 'LATEST-GPU-MODEL' && dra.index == 0)", &example);
	IS_FALSE("cel.bind(g, device.attributes['gpu.nvidia.com'], g.type == 'gpu' && g.index != 3)", &a100);
}

TEST(device_fields_and_logic)
{
	IS_TRUE("device.allowMultipleAllocations", &mig);
	IS_FALSE("device.allowMultipleAllocations", &a100);
	IS_TRUE("!device.allowMultipleAllocations", &a100);
	IS_TRUE("device.driver != 'x' || false", &a100);
	IS_TRUE("(1 < 2) == true && !(2 <= 1) && 3 > 2 && 3 >= 3 && 'a' < 'b' && false < true", &bare);
	IS_TRUE("device.allowMultipleAllocations ? device.driver == 'gpu.nvidia.com' : false", &mig);
	IS_FALSE("device.allowMultipleAllocations ? true : device.driver == 'x'", &a100);
	IS_TRUE("1 + 2 * 3 == 7 && (1 + 2) * 3 == 9 && 7 / 2 == 3 && 7 % 3 == 1 && -7 / 2 == -3", &bare);
	IS_TRUE("1.5 > 1 && 2 == 2.0 && 0.5 + 0.25 == 0.75", &bare);
	IS_TRUE("9223372036854775807 < 9223372036854775808.0 && -9223372036854775808 == -9223372036854775808.0 && 3 > 2.5 && 2.5 < 3", &bare);
	/* NaN is unordered and unequal to itself */
	IS_FALSE("0.0 / 0.0 < 1.0 || 0.0 / 0.0 >= 1.0 || 0.0 / 0.0 == 0.0 / 0.0", &bare);
	IS_TRUE("-9223372036854775808 < 0 && 0x10 == 16", &bare);
	IS_TRUE("'\\x41\\u00e9' == 'A\u00e9' && size('A\u00e9') == 2 && r'\\d' == '\\\\d' && '''a'b''' == \"a'b\"", &bare);
	IS_TRUE("true // a comment\n && true", &bare);
}

TEST(membership_and_has)
{
	IS_TRUE("'productName' in device.attributes['gpu.nvidia.com']", &a100);
	IS_FALSE("'profile' in device.attributes['gpu.nvidia.com']", &a100);
	IS_TRUE("has(device.attributes['gpu.nvidia.com'].profile)", &mig);
	IS_FALSE("has(device.attributes['gpu.nvidia.com'].profile)", &a100);
	IS_TRUE("has(device.attributes['gpu.nvidia.com'].profile) ? device.attributes['gpu.nvidia.com'].profile == '1g.5gb' : false", &mig);
	IS_FALSE("has(device.attributes['gpu.nvidia.com'].profile) && device.attributes['gpu.nvidia.com'].profile == '1g.5gb'", &a100);
	IS_TRUE("'memory' in device.capacity['gpu.nvidia.com'] && has(device.capacity['gpu.nvidia.com'].multiprocessors)", &a100);
	IS_TRUE("'gpu.nvidia.com' in device.attributes && !('dra.example.com' in device.attributes)", &a100);
	/* an unknown domain is an empty map, as in Kubernetes: has() is false, not an error */
	IS_FALSE("has(device.attributes['dra.example.com'].model)", &a100);
	IS_TRUE("size(device.attributes['dra.example.com']) == 0 && size(device.attributes['gpu.nvidia.com']) == 11", &a100);
	IS_TRUE("size(device.attributes) == 2 && device.attributes['gpu.nvidia.com'].size() == 11", &a100);
	IS_TRUE("3 in [1, 2, 3] && !(4 in [1, 2, 3]) && 'a' in ['a'] && !(1 in [])", &bare);
	IS_TRUE("device.attributes['gpu.nvidia.com'].index in [1, 3]", &a100);
	IS_TRUE("device.attributes['gpu.nvidia.com']['type'] == 'gpu'", &a100);
	IS_TRUE("[10, 20, 30][1] == 20 && size([1, 2]) == 2 && size([1, 2,]) == 2", &bare);
	/* an allow-list longer than any fixed buffer */
	char list[2048] = "device.attributes['gpu.nvidia.com'].index in [";
	for (int i = 100; i >= 0; i--)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%d%s", i, i ? ", " : "]");
	IS_TRUE(list, &a100);
	/* a reserved word is a fine attribute name */
	IS_FALSE("has(device.attributes['gpu.nvidia.com'].namespace)", &a100);
	EVAL_ERROR("[1, 1 / 0][0] == 1", &bare, "column 7: division by zero");
	EVAL_ERROR("1 in [2, 1 / 0]", &bare, "column 12: division by zero");
}

TEST(strings)
{
	IS_TRUE("device.driver.startsWith('gpu.') && device.driver.endsWith('.com') && device.driver.contains('nvidia')", &a100);
	IS_FALSE("device.driver.endsWith('.io')", &a100);
	IS_TRUE("device.driver.matches('^gpu\\\\.[a-z]+\\\\.com$') && matches(device.driver, 'nvidia')", &a100);
	IS_TRUE("device.attributes['gpu.nvidia.com'].uuid.size() == 40 && size(device.driver) == 14", &a100);
	IS_TRUE("'abc'.startsWith('') && 'abc'.contains('') && !''.contains('a')", &bare);
	/* seen in a real claim: case-insensitive product match */
	IS_TRUE("device.attributes['gpu.nvidia.com'].productName.lowerAscii().matches('^.*a100-sxm4.*$')", &a100);
	IS_TRUE("'MiXed-1'.upperAscii() == 'MIXED-1' && 'MiXed-1'.lowerAscii() == 'mixed-1'", &bare);
}

TEST(quantities)
{
	IS_TRUE("quantity('1.5').compareTo(quantity('1500m')) == 0 && quantity('1k').isGreaterThan(quantity('999'))", &bare);
	IS_TRUE("quantity('1Gi').asInteger() == 1073741824 && quantity('1500m').isInteger() == false", &bare);
	IS_TRUE("quantity('40Gi') == device.capacity['gpu.nvidia.com'].memory", &a100);
	IS_TRUE("device.capacity['gpu.nvidia.com'].multiprocessors.asInteger() == 108", &a100);
	IS_TRUE("quantity('1').add(quantity('500m')) == quantity('1.5') && quantity('2').sub(1).asInteger() == 1", &bare);
	IS_TRUE("quantity('-1').sign() == -1 && quantity('0').sign() == 0 && isQuantity('1Mi') && !isQuantity('1MB')", &bare);
	IS_TRUE("quantity('1.5').asApproximateFloat() == 1.5", &bare);
	IS_TRUE("quantity('1e3').asInteger() == 1000 && quantity('1M').isLessThan(quantity('1Mi'))", &bare);
	EVAL_ERROR("quantity('1500m').asInteger() == 1", &bare,
		   "column 19: asInteger(): the quantity is not a whole number");
}

TEST(semvers)
{
	IS_TRUE("semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3", &bare);
	IS_TRUE("semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", &bare);
	/* semver.org's precedence example, item 11 */
	IS_TRUE("semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1')) && semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta')) && semver('1.0.0-alpha.beta').isLessThan(semver('1.0.0-beta')) && semver('1.0.0-beta').isLessThan(semver('1.0.0-beta.2')) && semver('1.0.0-beta.2').isLessThan(semver('1.0.0-beta.11')) && semver('1.0.0-beta.11').isLessThan(semver('1.0.0-rc.1')) && semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))", &bare);
	IS_TRUE("semver('1.0.0+build.5').compareTo(semver('1.0.0')) == 0 && semver('1.10.0').isGreaterThan(semver('1.9.9'))", &bare);
	IS_TRUE("isSemver('1.2.3') && !isSemver('1.2') && !isSemver('v1.2.3') && !isSemver('01.2.3')", &bare);
	IS_TRUE("semver('2.0.0') == semver('2.0.0') && semver('2.0.0') != semver('2.0.1')", &bare);
	/* a version attribute the decoder let through malformed is an error where it is read */
	const gt_cel_attribute bad_attrs[] = { { .name = "x.com/v", .kind = GT_CEL_VERSION, .s = "1.2" } };
	const gt_cel_device bad = { .driver = "x.com", .attributes = bad_attrs, .n_attributes = 1 };
	EVAL_ERROR("device.attributes['x.com'].v.major() == 1", &bad,
		   "column 28: attribute 'x.com/v' is not a semantic version: '1.2'");
	IS_TRUE("has(device.attributes['x.com'].v)", &bad);
}

TEST(error_short_circuit)
{
	/* the missing attribute errs; the other operand decides when it can, in either order */
	const char *missing = "device.attributes['gpu.nvidia.com'].profile == '1g.5gb'";
	char buf[512];
	snprintf(buf, sizeof(buf), "false && %s", missing);
	IS_FALSE(buf, &a100);
	snprintf(buf, sizeof(buf), "%s && false", missing);
	IS_FALSE(buf, &a100);
	snprintf(buf, sizeof(buf), "true || %s", missing);
	IS_TRUE(buf, &a100);
	snprintf(buf, sizeof(buf), "%s || true", missing);
	IS_TRUE(buf, &a100);
	snprintf(buf, sizeof(buf), "%s && true", missing);
	EVAL_ERROR(buf, &a100,
		   "column 37: no such key: device.attributes[\"gpu.nvidia.com\"] has no attribute 'profile'");
	snprintf(buf, sizeof(buf), "false || %s", missing);
	EVAL_ERROR(buf, &a100,
		   "column 46: no such key: device.attributes[\"gpu.nvidia.com\"] has no attribute 'profile'");
	EVAL_ERROR("device.capacity['gpu.nvidia.com'].cores.compareTo(quantity('1')) > 0", &a100,
		   "column 35: no such key: device.capacity[\"gpu.nvidia.com\"] has no capacity 'cores'");
	/* the error of the ternary's condition, not a branch's */
	EVAL_ERROR("device.attributes['x.com'].a ? true : false", &a100,
		   "column 28: no such key: device.attributes[\"x.com\"] has no attribute 'a'");
	/* a dynamic attribute of the wrong type */
	EVAL_ERROR("device.attributes['gpu.nvidia.com'].index < 'x'", &a100,
		   "column 43: no matching overload for '<' applied to (int, string)");
	EVAL_ERROR("device.attributes['gpu.nvidia.com'].type && true", &a100,
		   "column 37: no matching overload for '&&' applied to string");
	EVAL_ERROR("device.attributes['gpu.nvidia.com'].index", &a100,
		   "column 37: the expression's value is int, not bool");
	/* heterogeneous equality: a different type is unequal, not an error */
	IS_FALSE("device.attributes['gpu.nvidia.com'].index == 'three'", &a100);
}

TEST(integer_overflow)
{
	EVAL_ERROR("9223372036854775807 + 1 > 0", &bare, "column 21: integer overflow in '+'");
	EVAL_ERROR("-9223372036854775808 - 1 < 0", &bare, "column 22: integer overflow in '-'");
	EVAL_ERROR("4611686018427387904 * 2 > 0", &bare, "column 21: integer overflow in '*'");
	EVAL_ERROR("-9223372036854775808 / -1 > 0", &bare, "column 22: integer overflow in '/'");
	EVAL_ERROR("-(-9223372036854775808) > 0", &bare, "column 1: integer overflow in '-'");
	EVAL_ERROR("1 / 0 == 1", &bare, "column 3: division by zero");
	EVAL_ERROR("1 % 0 == 1", &bare, "column 3: modulus by zero");
	COMPILE_ERROR("quantity('8Ei').sign() == 1", "column 10: invalid quantity '8Ei'");
	EVAL_ERROR("isQuantity(device.driver) || quantity(device.driver).sign() == 1", &bare,
		   "column 30: invalid quantity 'nothing.example.com'");
	EVAL_ERROR("quantity('8Pi').add(quantity('8Pi')).sign() == 1", &bare,
		   "column 17: quantity overflow in add()");
	EVAL_ERROR("quantity('1').add(9223372036854775807).sign() == 1", &bare,
		   "column 15: quantity overflow in add()");
	COMPILE_ERROR("9223372036854775808 > 0", "column 1: integer literal out of range");
	COMPILE_ERROR("99999999999999999999 > 0", "column 1: integer literal out of range");
}

TEST(compile_errors)
{
	COMPILE_ERROR("device.attributes.exists(d, d == 'x')",
		      "column 19: macro 'exists' is not supported by Gantry's CEL subset");
	COMPILE_ERROR("[1, 2].all(x, x > 0)", "column 8: macro 'all' is not supported by Gantry's CEL subset");
	COMPILE_ERROR("foo(1)", "column 1: unknown function 'foo'");
	COMPILE_ERROR("device.driver.replace('a', 'b') == 'x'",
		      "column 15: function 'replace' is not supported by Gantry's CEL subset");
	COMPILE_ERROR("int(device.attributes['gpu.nvidia.com'].index) == 3",
		      "column 1: function 'int' is not supported by Gantry's CEL subset");
	COMPILE_ERROR("gpu.type == 'x'", "column 1: undeclared reference to 'gpu' (the only variable is 'device')");
	COMPILE_ERROR("device.name == 'x'",
		      "column 8: undefined field 'name' of device (it has driver, attributes, capacity and allowMultipleAllocations)");
	COMPILE_ERROR("device.driver == 1", "column 15: no matching overload for '==' applied to (string, int)");
	COMPILE_ERROR("device.driver", "column 8: the expression is of type string; a selector must be bool");
	COMPILE_ERROR("device.driver == 'a' &&", "column 24: expected an expression, found the end of the expression");
	COMPILE_ERROR("device.driver = 'a'", "column 15: unexpected '=' (did you mean '=='?)");
	COMPILE_ERROR("(device.driver == 'a'", "column 22: expected ')', found the end of the expression");
	COMPILE_ERROR("device.driver == 'a", "column 18: unterminated string literal");
	COMPILE_ERROR("quantity('40GB').compareTo(quantity('1')) > 0", "column 10: invalid quantity '40GB'");
	COMPILE_ERROR("semver('v1.2').major() == 1", "column 8: invalid semver 'v1.2'");
	/* the rest of the message is libc's */
	char rerr[256];
	ASSERT_TRUE(gt_cel_compile("device.driver.matches('(')", rerr, sizeof(rerr)) == NULL);
	ASSERT_CONTAINS(rerr, "column 23: invalid regular expression '(': ");
	/* backreferences can make glibc's matching exponential; RE2 has none */
	COMPILE_ERROR("device.driver.matches('(a+)+\\\\1')",
		      "column 23: invalid regular expression '(a+)+\\1': backreferences are not supported (RE2, Kubernetes' regular expressions, has none)");
	IS_TRUE("'a\\\\1'.matches('a\\\\\\\\1')", &bare);	/* an escaped backslash, then 1 */
	/* a pattern read from an attribute is checked when evaluated */
	const gt_cel_attribute pat_attrs[] = { { .name = "x.com/pat", .kind = GT_CEL_STRING, .s = "(a)\\1" },
					       { .name = "x.com/ok", .kind = GT_CEL_STRING, .s = "^x\\.c" } };
	const gt_cel_device pat = { .driver = "x.com", .attributes = pat_attrs, .n_attributes = 2 };
	EVAL_ERROR("device.driver.matches(device.attributes['x.com'].pat)", &pat,
		   "column 15: invalid regular expression '(a)\\1': backreferences are not supported (RE2, Kubernetes' regular expressions, has none)");
	IS_TRUE("device.driver.matches(device.attributes['x.com'].ok)", &pat);
	COMPILE_ERROR("device.capacity['gpu.nvidia.com'].memory > quantity('1Gi')",
		      "column 42: no matching overload for '>' applied to Quantity: compare with compareTo(), isGreaterThan() or isLessThan()");
	COMPILE_ERROR("{'a': 1}.size() > 0", "column 1: map literals are not supported by Gantry's CEL subset");
	COMPILE_ERROR("1u == 1u", "column 1: unsigned integer literals are not supported by Gantry's CEL subset");
	COMPILE_ERROR("b'x' == b'x'", "column 1: bytes literals are not supported by Gantry's CEL subset");
	COMPILE_ERROR("'a' + 'b' == 'ab'", "column 5: string concatenation is not supported by Gantry's CEL subset");
	COMPILE_ERROR("has(device.attributes['x'])",
		      "column 22: invalid argument to has() macro: it takes a field selection such as has(device.attributes[\"domain\"].name)");
	COMPILE_ERROR("device.driver.startsWith(1)", "column 15: no matching overload for 'startsWith' on string");
	COMPILE_ERROR("semver('1.2.3').isGreaterThan()", "column 17: function 'isGreaterThan' does not take 0 arguments as a method");
	COMPILE_ERROR("true true", "column 6: unexpected text after the expression");
	COMPILE_ERROR("", "column 1: expected an expression, found the end of the expression");
	COMPILE_ERROR("true && 1", "column 6: no matching overload for '&&' applied to int");
	COMPILE_ERROR("device.driver == 'a' ? 1 : 'b'", "column 22: the branches of '?:' differ in type (int, string)");
	COMPILE_ERROR("if", "column 1: reserved identifier 'if'");
	COMPILE_ERROR("quantity('1').compareTo(semver('1.0.0')) == 0",
		      "column 15: no matching overload for 'compareTo' applied to (Quantity, Semver)");
	COMPILE_ERROR("cel.index(1)", "column 5: only cel.bind() of the cel namespace is supported by Gantry's CEL subset");
}

TEST(limits)
{
	/* Kubernetes' 10 KiB limit, and nesting the evaluator's stack can take */
	size_t n = 10241;
	char *big = gt_xmalloc(n + 1);
	memset(big, ' ', n);
	memcpy(big, "true", 4);
	big[n] = '\0';
	COMPILE_ERROR(big, "column 10241: the expression is 10241 bytes long, more than Kubernetes' limit of 10240");
	char *deep = gt_xmalloc(512);
	size_t k = 0;
	for (int i = 0; i < 200; i++)
		deep[k++] = '(';
	deep[k] = '\0';
	char err[256];
	ASSERT_TRUE(gt_cel_compile(deep, err, sizeof(err)) == NULL);
	ASSERT_CONTAINS(err, "expression nests deeper than 100 levels");
	/* a long && chain is one node: no depth */
	k = 0;
	for (int i = 0; i < 400; i++)
		k += (size_t)snprintf(big + k, n - k, "%strue", i ? " && " : "");
	IS_TRUE(big, &bare);
	free(big);
	free(deep);
	/* the message is cut to the buffer, never overrun */
	char small[8];
	ASSERT_TRUE(gt_cel_compile("foo()", small, sizeof(small)) == NULL);
	ASSERT_STR("column ", small);
	ASSERT_TRUE(gt_cel_compile("foo()", NULL, 0) == NULL);
	ASSERT_EQ(GT_CEL_ERROR, gt_cel_eval(NULL, &bare, NULL, 0));
}

const struct gt_test gt_tests[] = {
	T(nvidia_device_classes),
	T(nvidia_claim_selectors),
	T(kubernetes_examples),
	T(device_fields_and_logic),
	T(membership_and_has),
	T(strings),
	T(quantities),
	T(semvers),
	T(error_short_circuit),
	T(integer_overflow),
	T(compile_errors),
	T(limits),
	{ NULL, NULL },
};
