/*
 * test_num.c - util/num and util/strtab's name lookup: the one integer
 * parser, the one number parser, the one integer writer and the one
 * enum-name lookup Gantry has (and a label selector's Gt, which reads label
 * values with that parser)
 */
#include <inttypes.h>
#include <stddef.h>

#include "core/cluster.h"
#include "harness.h"
#include "util/num.h"
#include "util/strtab.h"

const char *gt_suite = "num";

TEST(integers_whole_string_only)
{
	int64_t v = 0;
	ASSERT_EQ(0, gt_parse_int("42", &v));
	ASSERT_EQ(42, v);
	ASSERT_EQ(0, gt_parse_int("-7", &v));
	ASSERT_EQ(-7, v);
	ASSERT_EQ(0, gt_parse_int("+3", &v));
	ASSERT_EQ(3, v);
	ASSERT_EQ(0, gt_parse_int("9223372036854775807", &v));
	static const char *const bad[] = { "", " 1", "1 ", "10x", "1.5", "0x10", "-", "+",
					   "9223372036854775808", "1e3" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_TRUE(gt_parse_int(bad[i], &v) != 0);
	ASSERT_TRUE(gt_parse_int(NULL, &v) != 0);
}

TEST(numbers_in_decimal_notation_only)
{
	double v = 0;
	ASSERT_EQ(0, gt_parse_number("2", &v));
	ASSERT_TRUE(v == 2);
	ASSERT_EQ(0, gt_parse_number("-0.5", &v));
	ASSERT_TRUE(v == -0.5);
	ASSERT_EQ(0, gt_parse_number("1e3", &v));
	ASSERT_TRUE(v == 1000);
	ASSERT_EQ(0, gt_parse_number(".25", &v));
	ASSERT_TRUE(v == 0.25);
	static const char *const bad[] = { "", " 1", "1 ", "1e", "0x10", "0x1p3", "inf", "nan",
					   "1e999", "1,5", "--1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_TRUE(gt_parse_number(bad[i], &v) != 0);
	ASSERT_TRUE(gt_parse_number(NULL, &v) != 0);
}

TEST(enum_names)
{
	static const char *const names[] = { "", "allocate", NULL, "reclaim" };
	ASSERT_EQ(1, gt_name_index(names, 4, "allocate"));
	ASSERT_EQ(3, gt_name_index(names, 4, "reclaim"));
	ASSERT_EQ(0, gt_name_index(names, 4, ""));
	ASSERT_EQ(-1, gt_name_index(names, 4, "preempt"));
	ASSERT_EQ(-1, gt_name_index(names, 3, "reclaim"));
	ASSERT_EQ(-1, gt_name_index(names, 4, NULL));
}

/* A Gt requirement reads the label value with the same strict rule (Kubernetes: strconv.ParseInt). */
TEST(selector_gt_reads_label_values_strictly)
{
	struct gt_strtab names;
	gt_strtab_init(&names);
	uint32_t key = gt_strtab_intern(&names, "gpu-count");
	struct gt_sel_expr e = { .key = key, .op = GT_SEL_GT, .num = -1 };
	struct gt_selector sel = { &e, 1 };
	static const struct {
		const char *val;
		bool match;
	} cases[] = { { "8", true }, { "-1", false }, { "", false }, { " 8", false }, { "8x", false } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gt_label lab = { key, gt_strtab_intern(&names, cases[i].val) };
		struct gt_labels l = { &lab, 1 };
		ASSERT_EQ(cases[i].match, gt_selector_matches(&sel, &l, &names));
	}
	gt_strtab_release(&names);
}

TEST(integers_written_as_printf_writes_them)
{
	static const int64_t values[] = { 0, 1, -1, 9, 10, -10, 99, 100, 123456789, -987654321,
					  INT64_MAX, INT64_MIN, INT64_MIN + 1, 1000000000000LL };
	for (size_t i = 0; i < sizeof(values) / sizeof(*values); i++) {
		char want[32], buf[GT_INT_TEXT + 1];
		snprintf(want, sizeof(want), "%" PRId64, values[i]);
		buf[GT_INT_TEXT] = '\0';
		ASSERT_STR(want, gt_int_text(values[i], buf + GT_INT_TEXT));
	}
	char buf[GT_INT_TEXT + 1];
	buf[GT_INT_TEXT] = '\0';
	ASSERT_STR("18446744073709551615", gt_decimal(UINT64_MAX, buf + GT_INT_TEXT));
}

const struct gt_test gt_tests[] = {
	T(integers_written_as_printf_writes_them),
	T(integers_whole_string_only),
	T(numbers_in_decimal_notation_only),
	T(enum_names),
	T(selector_gt_reads_label_values_strictly),
	{ 0 }
};
