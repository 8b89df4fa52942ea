/*
 * test_json_print.c - gt_json_print writes what jansson's json_dumpf writes, byte for byte
 *
 * `gantry simulate -o json` prints through gt_json_print (api/json.h) for
 * speed; its output must not change. Each test prints a tree both ways and
 * compares: hand-picked values where jansson's format has rules (escapes,
 * reals, empty containers), then random trees from a fixed seed. `-o yaml`
 * prints the same values through gt_json_print_yaml (the same emitter,
 * api/emit.h): its layout is checked on a hand-made tree, and random trees
 * must read back (api/doc.h's YAML reader) as the values printed.
 */
#include <jansson.h>

#include "api/doc.h"
#include "api/json.h"
#include "testlib.h"

const char *gt_suite = "json_print";

/* gt_json_print's text, to free(). */
static char *printed(const json_t *j, int indent)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	gt_json_print(f, j, indent);
	fclose(f);
	return buf;
}

/* Both ways at indents 1 and 2; 0 when they agree, else the first indent that differs. */
static int differs(const json_t *j)
{
	for (int indent = 1; indent <= 2; indent++) {
		char *want = json_dumps(j, JSON_INDENT(indent) | JSON_REAL_PRECISION(10));
		char *got = printed(j, indent);
		bool same = want && got && !strcmp(want, got);
		if (!same)
			fprintf(stderr, "indent %d:\n--- jansson\n%s\n--- gt_json_print\n%s\n", indent,
				want ? want : "(null)", got ? got : "(null)");
		free(want);
		free(got);
		if (!same)
			return indent;
	}
	return 0;
}

TEST(scalars_as_jansson_writes_them)
{
	json_t *a = json_array();
	static const char *const strings[] = { "", "plain", "quote \" and backslash \\", "tab\tnew\nline\rret",
					       "\b\f\x01\x1f\x7f", "slash / stays", "utf-8: \xc3\xa9 \xf0\x9f\x9a\x80",
					       "kubernetes.io/hostname" };
	for (size_t i = 0; i < sizeof(strings) / sizeof(*strings); i++)
		json_array_append_new(a, json_string(strings[i]));
	json_array_append_new(a, json_stringn("nul\0inside", 10));
	static const double reals[] = { 0.0, -0.0, 1.0, 0.25, 0.1, 2.5, 1e300, -1e-300, 1e-7, 123456789012.0,
					1234567890.5, 3.14159265358979, 1e21, 1e15, 0.000123,
					/* thousandths, written without snprintf */
					-0.25, 0.001, -0.001, 123.456, 999999.999, -999999.999, 1000000.5, 0.0005,
					1.1, 4.3, 7.007, 2.05, 0.30000000000000004 };
	for (size_t i = 0; i < sizeof(reals) / sizeof(*reals); i++)
		json_array_append_new(a, json_real(reals[i]));
	static const json_int_t ints[] = { 0, -1, 42, INT64_MAX, INT64_MIN };
	for (size_t i = 0; i < sizeof(ints) / sizeof(*ints); i++)
		json_array_append_new(a, json_integer(ints[i]));
	json_array_append_new(a, json_true());
	json_array_append_new(a, json_false());
	json_array_append_new(a, json_null());
	ASSERT_EQ(0, differs(a));
	json_decref(a);
}

TEST(containers_empty_nested_and_odd_keys)
{
	json_t *o = json_object();
	json_object_set_new(o, "empty object", json_object());
	json_object_set_new(o, "empty array", json_array());
	json_object_set_new(o, "key \"with\" escapes\n", json_integer(1));
	json_object_set_new(o, "", json_string("empty key"));
	json_t *deep = json_object(), *cur = deep;
	for (int i = 0; i < 40; i++) {	/* deeper than one run of spaces */
		json_t *next = json_object();
		json_object_set_new(cur, "d", next);
		cur = next;
	}
	json_object_set_new(cur, "leaf", json_array());
	json_object_set_new(o, "deep", deep);
	json_t *list = json_array();
	json_array_append_new(list, json_object());
	json_array_append_new(list, json_array());
	json_array_append_new(list, json_pack("{s:[i,i], s:{s:n}}", "xs", 1, 2, "m", "k"));
	json_object_set_new(o, "list", list);
	ASSERT_EQ(0, differs(o));
	ASSERT_EQ(0, differs(list));
	json_decref(o);
	/* a bare scalar is not printed, as json_dumpf does not print one without JSON_ENCODE_ANY */
	json_t *s = json_string("x");
	char *got = printed(s, 1);
	ASSERT_STR("", got);
	free(got);
	json_decref(s);
}

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static json_t *random_value(int depth)
{
	static const char *const pieces[] = { "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\x01", "\x1b",
					      "\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x9a\x80", "-", "." };
	uint64_t r = next();
	int kind = depth >= 5 ? (int)(r % 6) : (int)(r % 8);
	switch (kind) {
	case 0:
	case 1: {
		char s[64] = "";
		for (uint64_t n = next() % 8; n; n--)
			strcat(s, pieces[next() % (sizeof(pieces) / sizeof(*pieces))]);
		return json_string(s);
	}
	case 2:
		return json_integer((json_int_t)next());
	case 3: {
		double d;
		do {
			uint64_t bits = next();
			memcpy(&d, &bits, sizeof(d));
		} while (d != d || d - d != 0);	/* finite only: jansson refuses NaN and infinities */
		return json_real(next() % 2 ? d : (double)(int64_t)(next() % 100000) / 1000.0);
	}
	case 4:
		return json_boolean(next() % 2);
	case 5:
		return json_null();
	case 6: {
		json_t *o = json_object();
		for (uint64_t n = next() % 5; n; n--) {
			char key[16];
			snprintf(key, sizeof(key), "%s%u", pieces[next() % 4], (unsigned)(next() % 100));
			json_object_set_new(o, key, random_value(depth + 1));
		}
		return o;
	}
	default: {
		json_t *a = json_array();
		for (uint64_t n = next() % 5; n; n--)
			json_array_append_new(a, random_value(depth + 1));
		return a;
	}
	}
}

TEST(random_trees)
{
	for (int i = 0; i < 2000; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "v", random_value(0));
		int d = differs(o);
		json_decref(o);
		ASSERT_EQ(0, d);
	}
}

/* gt_json_print_yaml's text, to free(). */
static char *printed_yaml(const json_t *j)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	gt_json_print_yaml(f, j);
	fclose(f);
	return buf;
}

TEST(yaml_layout)
{
	json_t *o = json_pack("{s:i, s:{}, s:[], s:{s:s, s:[i, {s:b, s:n}, [], [s, s], {}]}, s:s}", "n", 1, "empty", "none",
			      "spec", "name", "x", "items", 2, "a", 1, "b", "y", "z", "key with space", "v");
	char *got = printed_yaml(o);
	ASSERT_STR("n: 1\n"
		   "empty: {}\n"
		   "none: []\n"
		   "spec:\n"
		   "  name: \"x\"\n"
		   "  items:\n"
		   "  - 2\n"
		   "  - a: true\n"
		   "    b: null\n"
		   "  - []\n"
		   "  -\n"
		   "    - \"y\"\n"
		   "    - \"z\"\n"
		   "  - {}\n"
		   "\"key with space\": \"v\"\n", got);
	free(got);
	json_decref(o);
	/* a sequence at the top: its objects' keys under their first, a sequence in it deeper */
	json_t *a = json_pack("[{s:i, s:i}, [i]]", "a", 1, "b", 2, 3);
	got = printed_yaml(a);
	ASSERT_STR("\n- a: 1\n  b: 2\n-\n  - 3\n", got);
	free(got);
	json_decref(a);
	json_t *e = json_object();
	got = printed_yaml(e);
	ASSERT_STR(" {}\n", got);	/* an empty document, as it always printed */
	free(got);
	json_decref(e);
}

TEST(yaml_reads_back_as_the_values)
{
	for (int i = 0; i < 500; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "v", random_value(0));
		char *text = printed_yaml(o);
		if (strchr(text, '\x7f')) {
			/* DEL is written as it is, as JSON has it; YAML 1.1 (libyaml) refuses it raw */
			free(text);
			json_decref(o);
			continue;
		}
		struct gt_doc_list docs = { 0 };
		struct gt_err err = { 0 };
		int rc = gt_doc_parse_string(text, strlen(text), "t.yaml", &docs, &err);
		json_t *back = rc || docs.n != 1 ? NULL : gt_doc_to_json(docs.docs[0]);
		/* reals as printed: ten digits, both ways */
		char *want = json_dumps(o, JSON_REAL_PRECISION(10)), *have = back ? json_dumps(back, JSON_REAL_PRECISION(10)) : NULL;
		bool same = have && !strcmp(want, have);
		if (!same)
			fprintf(stderr, "--- values\n%s\n--- YAML\n%s--- read back\n%s\n%s\n", want, text, have ? have : "(none)",
				err.msg);
		free(want);
		free(have);
		json_decref(back);
		gt_doc_list_release(&docs);
		free(text);
		json_decref(o);
		ASSERT_TRUE(same);
	}
}

const struct gt_test gt_tests[] = {
	T(scalars_as_jansson_writes_them),
	T(containers_empty_nested_and_odd_keys),
	T(random_trees),
	T(yaml_layout),
	T(yaml_reads_back_as_the_values),
	{ 0 }
};
