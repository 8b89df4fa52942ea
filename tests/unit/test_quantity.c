#include "api/quantity.h"
#include "harness.h"

const char *gt_suite = "quantity";

TEST(milli_values)
{
	static const struct {
		const char *in;
		int64_t milli;
	} cases[] = {
		{ "500m", 500 },     { "1", 1000 },	 { "0.5", 500 },     { "2e3", 2000000 },
		{ "20000", 20000000 }, { "1.5m", 2 },	 { "1k", 1000000 }, { "+3", 3000 },
		{ ".5", 500 },	     { "1e-3", 1 },	 { "0", 0 },	     { "100u", 1 },
		{ "1Ki", 1024000 },  { "2.5E2", 250000 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t v = -1;
		ASSERT_EQ(0, gt_quantity_parse_milli(cases[i].in, &v));
		ASSERT_EQ(cases[i].milli, v);
	}
}

TEST(whole_values_round_up)
{
	static const struct {
		const char *in;
		int64_t v;
	} cases[] = {
		{ "1Gi", 1073741824LL }, { "1G", 1000000000LL }, { "1.5Ki", 1536 }, { "128Mi", 134217728LL },
		{ "1m", 1 },	       { "20000000000", 20000000000LL }, { "1Ei", 1152921504606846976LL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t v = -1;
		ASSERT_EQ(0, gt_quantity_parse(cases[i].in, &v));
		ASSERT_EQ(cases[i].v, v);
	}
}

TEST(rejects_malformed)
{
	static const char *const bad[] = { "", "abc", "1.5.2", "12Kb", "1 Gi", " 1", "1e", "--1",
					   "1i", "K", ".", "9Ei0", "99999999999999999999", "1e1001" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t v;
		if (gt_quantity_parse_milli(bad[i], &v) == 0) {
			fprintf(stderr, "accepted '%s'\n", bad[i]);
			ASSERT_TRUE(false);
		}
	}
}

TEST(rejects_overflow)
{
	int64_t v;
	ASSERT_TRUE(gt_quantity_parse("16Ei", &v) != 0);
	ASSERT_TRUE(gt_quantity_parse_milli("10E", &v) != 0);
}

const struct gt_test gt_tests[] = {
	T(milli_values), T(whole_values_round_up), T(rejects_malformed), T(rejects_overflow), { 0 }
};
