/*
 * test_doc.c - YAML/JSON documents: streams, JSON, v1 List, aliases, errors
 */
#include <jansson.h>

#include "api/doc_int.h"
#include "testlib.h"

const char *gt_suite = "doc";

static int parse(const char *text, struct gt_doc_list *out, struct gt_err *err)
{
	return gt_doc_parse_string(text, strlen(text), "in.yaml", out, err);
}

TEST(multi_document_stream)
{
	/* empty documents (only a comment, or nothing between markers) are dropped */
	const char *text = "a: 1\n"
			   "---\n"
			   "b: two\n"
			   "---\n"
			   "# nothing here\n"
			   "---\n"
			   "---\n"
			   "c: [1, 2, 3]\n";
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(0, parse(text, &l, &err));
	ASSERT_EQ(3, l.n);
	ASSERT_STR("1", gt_doc_str(l.docs[0], "a"));
	ASSERT_STR("two", gt_doc_str(l.docs[1], "b"));
	const struct gt_doc *c = gt_doc_get(l.docs[2], "c");
	ASSERT_TRUE(c && c->kind == GT_DOC_SEQ);
	ASSERT_EQ(3, c->n);
	ASSERT_STR("3", c->items[2]->scalar);
	/* lines are 1-based and point at the value's own line */
	ASSERT_EQ(8, c->line);
	gt_doc_list_release(&l);
}

TEST(json_input)
{
	const char *text = "{\"apiVersion\": \"v1\", \"kind\": \"Node\",\n"
			   " \"metadata\": {\"name\": \"n1\", \"labels\": {\"nvidia.com/gpu.memory\": \"40000\"}},\n"
			   " \"status\": {\"allocatable\": {\"cpu\": \"8\", \"memory\": \"32Gi\", \"nvidia.com/gpu\": \"2\"},\n"
			   "   \"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}]}}\n";
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "%s", text);
	TL_BUILD(&w);
	ASSERT_EQ(1, w.docs.n);
	ASSERT_STR("n1", gt_doc_str(gt_doc_path(w.docs.docs[0], "metadata"), "name"));
	/* a JSON string is a quoted scalar: "2" stays a string */
	ASSERT_TRUE(gt_doc_get(gt_doc_path(w.docs.docs[0], "status.allocatable"), "nvidia.com/gpu")->quoted);
	ASSERT_EQ(1, w.c.n_nodes);
	ASSERT_EQ(2, w.c.nodes[0].gpus);
	ASSERT_EQ(8000, w.c.nodes[0].cpu_milli);
	ASSERT_EQ(32LL << 30, w.c.nodes[0].mem_bytes);
	ASSERT_EQ(40000, w.c.nodes[0].gpu_mem_mib);
	ASSERT_TRUE(w.c.nodes[0].ready);
	tl_free(&w);
}

TEST(json_stream_of_objects)
{
	/* what a tool writing one JSON object per document produces */
	const char *text = "{\"kind\": \"Node\", \"apiVersion\": \"v1\", \"metadata\": {\"name\": \"a\"}}\n"
			   "---\n"
			   "{\"kind\": \"Node\", \"apiVersion\": \"v1\", \"metadata\": {\"name\": \"b\"}}\n";
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(0, parse(text, &l, &err));
	ASSERT_EQ(2, l.n);
	ASSERT_STR("b", gt_doc_str(gt_doc_get(l.docs[1], "metadata"), "name"));
	gt_doc_list_release(&l);
}

TEST(v1_list_is_unpacked)
{
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "apiVersion: v1\n"
		    "kind: List\n"
		    "items:\n"
		    "- apiVersion: v1\n"
		    "  kind: Node\n"
		    "  metadata: {name: n1}\n"
		    "  status: {allocatable: {cpu: '4', memory: 8Gi, nvidia.com/gpu: '1'}}\n"
		    "- apiVersion: scheduling.run.ai/v2\n"
		    "  kind: Queue\n"
		    "  metadata: {name: q}\n"
		    "  spec: {resources: {gpu: {quota: 1, limit: -1, overQuotaWeight: 1}}}\n"
		    "- apiVersion: v1\n"
		    "  kind: List\n"
		    "  items:\n"
		    "  - apiVersion: v1\n"
		    "    kind: Node\n"
		    "    metadata: {name: n2}\n"
		    "---\n"
		    "apiVersion: v1\n"
		    "kind: Node\n"
		    "metadata: {name: n3}\n");
	TL_BUILD(&w);
	/* the List itself is not an object: its items are, nested Lists too */
	ASSERT_EQ(4, w.dec.n_objs);
	ASSERT_EQ(3, w.c.n_nodes);
	ASSERT_EQ(1, w.c.n_queues);
	ASSERT_EQ(1000, w.c.queues[0].deserved[GT_QGPU]);
	ASSERT_TRUE(tl_node_idx(&w, "n2") >= 0);
	/* no "ignoring List" warning: a List is a known container */
	for (size_t i = 0; i < w.dec.n_warnings; i++)
		ASSERT_TRUE(!strstr(w.dec.warnings[i], "List"));
	tl_free(&w);
}

TEST(anchors_and_aliases)
{
	const char *text = "defaults: &res {cpu: '2', memory: 1Gi}\n"
			   "name: &n shared\n"
			   "a: *res\n"
			   "b: *n\n"
			   "list: &l [x, y]\n"
			   "again: *l\n";
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(0, parse(text, &l, &err));
	ASSERT_EQ(1, l.n);
	const struct gt_doc *d = l.docs[0];
	ASSERT_STR("2", gt_doc_str(gt_doc_get(d, "a"), "cpu"));
	ASSERT_STR("1Gi", gt_doc_str(gt_doc_get(d, "a"), "memory"));
	ASSERT_STR("shared", gt_doc_str(d, "b"));
	ASSERT_EQ(2, gt_doc_get(d, "again")->n);
	ASSERT_STR("y", gt_doc_get(d, "again")->items[1]->scalar);
	/* an alias is a copy, not a shared node: both can be freed (ASan checks) */
	ASSERT_TRUE(gt_doc_get(d, "a") != gt_doc_get(d, "defaults"));
	gt_doc_list_release(&l);
}

TEST(aliases_in_a_manifest)
{
	/* the common use: one resources block shared by two containers */
	struct tl_world w;
	tl_init(&w);
	tl_yaml(&w, "apiVersion: v1\n"
		    "kind: Pod\n"
		    "metadata: {name: p, namespace: ns}\n"
		    "spec:\n"
		    "  schedulerName: kai-scheduler\n"
		    "  containers:\n"
		    "  - name: a\n"
		    "    resources: &r\n"
		    "      requests: {cpu: 1500m, memory: 1Gi, nvidia.com/gpu: '1'}\n"
		    "  - name: b\n"
		    "    resources: *r\n");
	TL_BUILD(&w);
	ASSERT_EQ(1, w.c.n_pods);
	ASSERT_EQ(3000, w.c.pods[0].cpu_milli);
	ASSERT_EQ(2LL << 30, w.c.pods[0].mem_bytes);
	ASSERT_EQ(2, w.c.pods[0].gpus);
	tl_free(&w);
}

TEST(anchors_do_not_cross_documents)
{
	/* YAML anchors are scoped to their document */
	const char *text = "a: &x 1\n---\nb: *x\n";
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EPARSE, parse(text, &l, &err));
	ASSERT_CONTAINS(err.msg, "unknown alias 'x'");
	ASSERT_CONTAINS(err.msg, "in.yaml:3:4:");
	gt_doc_list_release(&l);
}

TEST(malformed_yaml_names_the_line)
{
	static const struct {
		const char *text;
		const char *line;
	} cases[] = {
		{ "a: 1\nb: 2\n  c: 3\n", "in.yaml:3:" },			/* bad indentation */
		{ "kind: Pod\nmetadata:\n  name: [p\n  x: 1\n", "in.yaml:4:" },	/* unclosed flow seq */
		{ "a: 1\n---\nb: 2\n---\nc: \"open\n", "in.yaml:6:" },		/* unclosed quote */
		{ "{\"a\": 1,,}\n", "in.yaml:1:" },					/* bad JSON */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gt_doc_list l = { 0 };
		struct gt_err err = { 0 };
		int rc = parse(cases[i].text, &l, &err);
		gt_doc_list_release(&l);
		if (rc != GT_EPARSE || !strstr(err.msg, cases[i].line)) {
			fprintf(stderr, "case %zu: rc %d, message \"%s\", wanted \"%s\"\n", i, rc,
				err.msg, cases[i].line);
			ASSERT_TRUE(false);
		}
	}
}

TEST(documents_before_an_error_are_kept)
{
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EPARSE, parse("a: 1\n---\nb: 2\n---\nc: [\n", &l, &err));
	ASSERT_EQ(2, l.n);
	ASSERT_STR("2", gt_doc_str(l.docs[1], "b"));
	gt_doc_list_release(&l);
}

TEST(quoted_and_null_scalars)
{
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(0, parse("a: '1'\nb: 1\nc: null\nd: ~\ne:\nf: 'null'\n", &l, &err));
	const struct gt_doc *d = l.docs[0];
	ASSERT_TRUE(gt_doc_get(d, "a")->quoted);
	ASSERT_TRUE(!gt_doc_get(d, "b")->quoted);
	/* null, ~ and an empty value read as missing; a quoted 'null' is a string */
	ASSERT_TRUE(gt_doc_str(d, "c") == NULL);
	ASSERT_TRUE(gt_doc_str(d, "d") == NULL);
	ASSERT_TRUE(gt_doc_str(d, "e") == NULL);
	ASSERT_STR("null", gt_doc_str(d, "f"));
	ASSERT_TRUE(gt_doc_path(d, "a.b") == NULL);
	gt_doc_list_release(&l);
}

/* ---------------------------------------------------------------- JSON through jansson */

static int parse_json(const char *text, struct gt_doc_list *out, struct gt_err *err)
{
	return gt_doc_parse_string(text, strlen(text), "in.json", out, err);
}

/* The first problem (warning or error) that contains @s, or NULL. */
static const char *problem(const struct gt_doc_list *l, const char *s)
{
	for (size_t i = 0; i < l->n_problems; i++)
		if (strstr(l->problems[i].text, s))
			return l->problems[i].text;
	return NULL;
}

TEST(json_surrogate_pair_is_one_character)
{
	/* what Python's json.dumps writes for an emoji: valid JSON, one character */
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(0, parse_json("{\"kind\": \"Pod\", \"metadata\": {\"name\": \"p\", "
				"\"annotations\": {\"note\": \"\\ud83d\\ude80 go\"}}}", &l, &err));
	ASSERT_EQ(1, l.n);
	ASSERT_STR("\xF0\x9F\x9A\x80 go", gt_doc_str(gt_doc_path(l.docs[0], "metadata.annotations"), "note"));
	gt_doc_list_release(&l);
}

TEST(json_numbers_read_as_written)
{
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(0, parse_json("{\"a\": 0.1, \"b\": 1.0, \"c\": -7, \"d\": 1e308, \"e\": 2.5e-3, \"f\": true, "
				"\"g\": null, \"h\": \"1\"}", &l, &err));
	const struct gt_doc *d = l.docs[0];
	ASSERT_STR("0.1", gt_doc_str(d, "a"));
	ASSERT_STR("1.0", gt_doc_str(d, "b"));
	ASSERT_STR("-7", gt_doc_str(d, "c"));
	ASSERT_STR("1e+308", gt_doc_str(d, "d"));
	ASSERT_STR("0.0025", gt_doc_str(d, "e"));
	ASSERT_STR("true", gt_doc_str(d, "f"));
	ASSERT_TRUE(gt_doc_is_null(gt_doc_get(d, "g")));
	ASSERT_TRUE(gt_doc_get(d, "h")->quoted && !gt_doc_get(d, "a")->quoted);
	gt_doc_list_release(&l);
}

#define ITEM(name, extra) "  {\"kind\": \"Pod\", \"metadata\": {\"name\": \"" name "\"}" extra "},\n"

TEST(json_bad_item_of_a_list_is_left_out_named)
{
	/* every value jansson refuses inside one item: that item is left out, named, the rest read */
	const char *text = "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n"
			   ITEM("a", "")
			   ITEM("big", ", \"spec\": {\"n\": 1e999}")
			   ITEM("lone", ", \"spec\": {\"s\": \"\\udc00\"}")
			   ITEM("nul", ", \"spec\": {\"s\": \"x\\u0000y\"}")
			   ITEM("utf8", ", \"spec\": {\"s\": \"\xC3\x28\"}")
			   ITEM("int", ", \"spec\": {\"n\": 123456789012345678901234567890}")
			   "  {\"kind\": \"Pod\", \"metadata\": {\"name\": \"z\"}}\n]}\n";
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EPARSE, parse_json(text, &l, &err));
	ASSERT_EQ(1, l.n);
	const struct gt_doc *items = gt_doc_get(l.docs[0], "items");
	ASSERT_EQ(2, items->n);
	ASSERT_STR("a", gt_doc_str(gt_doc_get(items->items[0], "metadata"), "name"));
	ASSERT_STR("z", gt_doc_str(gt_doc_get(items->items[1], "metadata"), "name"));
	ASSERT_EQ(5, l.n_errors);
	ASSERT_TRUE(problem(&l, "in.json:3:") && problem(&l, "Pod big: field spec.n: not valid JSON: "));
	ASSERT_TRUE(problem(&l, "in.json:4:") && problem(&l, "Pod lone: field spec.s: not valid JSON: "));
	ASSERT_TRUE(problem(&l, "Pod nul: field spec.s: not valid JSON: "));
	ASSERT_TRUE(problem(&l, "Pod utf8: field spec.s: not valid JSON: "));
	ASSERT_TRUE(problem(&l, "Pod int: field spec.n: not valid JSON: "));
	ASSERT_CONTAINS(problem(&l, "Pod big"), "the object is left out");
	gt_doc_list_release(&l);
}

TEST(json_duplicate_keys_warned_in_every_item)
{
	const char *text = "{\"kind\": \"List\", \"items\": [\n"
			   ITEM("a", ", \"spec\": {\"x\": 1, \"x\": 2}")
			   ITEM("b", "")
			   "  {\"kind\": \"Pod\", \"metadata\": {\"name\": \"c\", \"name\": \"d\"}}\n]}\n";
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(0, parse_json(text, &l, &err));
	const struct gt_doc *items = gt_doc_get(l.docs[0], "items");
	ASSERT_EQ(3, items->n);
	/* the later value is used, as jansson and Go's encoding/json do */
	ASSERT_STR("2", gt_doc_str(gt_doc_get(items->items[0], "spec"), "x"));
	ASSERT_STR("d", gt_doc_str(gt_doc_get(items->items[2], "metadata"), "name"));
	ASSERT_EQ(2, l.n_problems);
	ASSERT_CONTAINS(problem(&l, "spec.x"), "in.json:2:");
	ASSERT_CONTAINS(problem(&l, "spec.x"), "Pod a: field spec.x: given twice (first at line 2)");
	ASSERT_CONTAINS(problem(&l, "metadata.name"), "in.json:4:");
	ASSERT_TRUE(l.problems[0].warning && l.problems[1].warning);
	gt_doc_list_release(&l);
}

TEST(json_broken_punctuation_keeps_the_items_before)
{
	const char *text = "{\"kind\": \"List\", \"items\": [\n"
			   ITEM("a", "")
			   "  {\"kind\": \"Pod\", \"metadata\": {\"name\": \"b\"} \"spec\": {}},\n"
			   ITEM("c", "")
			   "]}\n";
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EPARSE, parse_json(text, &l, &err));
	ASSERT_EQ(1, l.n);
	ASSERT_EQ(1, gt_doc_get(l.docs[0], "items")->n);
	/* at the place, with the object and the field read so far */
	ASSERT_CONTAINS(err.msg, "in.json:3:45: Pod b: ");
	ASSERT_CONTAINS(err.msg, "not valid JSON: expected ',' or '}' after a member");
	ASSERT_CONTAINS(err.msg, "nothing after it is read");
	gt_doc_list_release(&l);
}

TEST(json_deep_nesting_leaves_the_object_out)
{
	char *text = malloc(20000);
	size_t n = (size_t)sprintf(text, "{\"kind\": \"List\", \"items\": [{\"kind\": \"Pod\", \"spec\": ");
	for (int i = 0; i < 3000; i++)
		text[n++] = '[';
	for (int i = 0; i < 3000; i++)
		text[n++] = ']';
	n += (size_t)sprintf(text + n, "}, {\"kind\": \"Pod\", \"metadata\": {\"name\": \"ok\"}}]}");
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EPARSE, gt_doc_parse_string(text, n, "in.json", &l, &err));
	ASSERT_EQ(1, gt_doc_get(l.docs[0], "items")->n);
	ASSERT_CONTAINS(err.msg, "nested deeper than 256 levels");
	free(text);
	gt_doc_list_release(&l);
}

TEST(json_stream_with_markers_and_yaml_flow_fallback)
{
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	/* jq writes values one after the other; "---" between them is read too */
	ASSERT_EQ(0, parse("{\"a\": 1}\n---\n{\"a\": 2} {\"a\": 3}\n[1, 2]\n", &l, &err));
	ASSERT_EQ(4, l.n);
	ASSERT_STR("3", gt_doc_str(l.docs[2], "a"));
	gt_doc_list_release(&l);
	/* YAML's flow style starts the same way: not a JSON file, so it is YAML */
	ASSERT_EQ(0, parse("{kind: Pod, metadata: {name: p}}\n", &l, &err));
	ASSERT_EQ(1, l.n);
	ASSERT_STR("p", gt_doc_str(gt_doc_get(l.docs[0], "metadata"), "name"));
	gt_doc_list_release(&l);
}

TEST(json_binary_noise_is_an_error_not_a_crash)
{
	static const unsigned char noise[] = { '{', 0xff, 0x00, '"', 0x80, '[', '{', '}', 0x1b, '\n', 0xfe };
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EPARSE, gt_doc_parse_string((const char *)noise, sizeof(noise), "in.json", &l, &err));
	ASSERT_EQ(0, l.n);
	ASSERT_CONTAINS(err.msg, "in.json:1:");
	ASSERT_CONTAINS(err.msg, "not valid JSON");
	gt_doc_list_release(&l);
}

/* A List of 30,000 pods over 4 MB, item i on lines 4 + 5i to 8 + 5i; @extra(i) in its metadata. */
static char *large_list(size_t *len, const char *(*extra_of)(int))
{
	size_t cap = 8u << 20, n = 0;
	char *text = malloc(cap);
	n += (size_t)sprintf(text + n, "{\n  \"kind\": \"List\",\n  \"items\": [\n");
	for (int i = 0; i < 30000; i++) {
		const char *extra = extra_of(i);
		n += (size_t)sprintf(text + n,
				     "    {\n      \"kind\": \"Pod\",\n      \"metadata\": {\"name\": \"p-%d\", "
				     "\"namespace\": \"ns\"%s},\n      \"spec\": {\"containers\": [{\"name\": \"c\", "
				     "\"image\": \"registry.example.com/some/long/image/name:1.2.3\"}]}\n    }%s\n",
				     i, extra, i < 29999 ? "," : "");
	}
	n += (size_t)sprintf(text + n, "  ]\n}\n");
	*len = n;
	return text;
}

static const char *bad_and_twice(int i)
{
	return i == 7000 ? ", \"bad\": \"\\udc00\"" : i == 15000 ? ", \"x\": 1, \"x\": 2" : "";
}

static const char *missing_comma(int i)
{
	return i == 20000 ? " \"x\": 1" : "";
}

TEST(json_large_list_read_in_parallel_says_the_same)
{
	/* past 4 MB a List's items are read by several threads: the same items, places and messages */
	size_t n;
	char *text = large_list(&n, bad_and_twice);
	ASSERT_TRUE(n > 4u << 20);
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EPARSE, gt_doc_parse_string(text, n, "in.json", &l, &err));
	const struct gt_doc *items = gt_doc_get(l.docs[0], "items");
	ASSERT_EQ(29999, items->n);
	ASSERT_STR("p-6999", gt_doc_str(gt_doc_get(items->items[6999], "metadata"), "name"));
	ASSERT_STR("p-7001", gt_doc_str(gt_doc_get(items->items[7000], "metadata"), "name"));
	ASSERT_STR("p-29999", gt_doc_str(gt_doc_get(items->items[29998], "metadata"), "name"));
	ASSERT_EQ(2, l.n_problems);
	/* item i starts on line 4 + 5i; its metadata is on the next line past two */
	ASSERT_CONTAINS(l.problems[0].text, "in.json:35006:");
	ASSERT_CONTAINS(l.problems[0].text, "Pod ns/p-7000: field metadata.bad: not valid JSON: ");
	ASSERT_CONTAINS(l.problems[1].text, "in.json:75006:");
	ASSERT_CONTAINS(l.problems[1].text, "Pod ns/p-15000: field metadata.x: given twice");
	/* a field of an item read whole: its line is the item's, with no column */
	ASSERT_EQ(4 + 5 * 123, gt_doc_path(items->items[123], "spec.containers")->line);
	ASSERT_EQ(0, gt_doc_path(items->items[123], "spec.containers")->col);
	free(text);
	gt_doc_list_release(&l);
}

/* Item @i's value: brackets, quotes, backslashes and UTF-8 at offsets that move with @i (as JSON, and as read). */
static void tricky_value(int i, char *json, char *read)
{
	static const char *const parts[][2] = {
		{ "{", "{" }, { "}", "}" }, { "[", "[" }, { "]", "]" }, { "\\\"", "\"" }, { "\\\\", "\\" },
		{ "\xe2\x82\xac", "\xe2\x82\xac" }, { "x", "x" }, { "\\\\\\\"", "\\\"" }, { ",", "," },
	};
	*json = *read = '\0';
	for (int k = 0; k < 3 + i % 11; k++) {
		const char *const *part = parts[(i * 7 + k * 3) % 10];
		strcat(json, part[0]);
		strcat(read, part[1]);
	}
}

TEST(json_large_list_split_finds_every_item_whatever_its_strings_hold)
{
	/* the split of a large List scans eight bytes at a time: structural bytes inside strings, at every offset */
	size_t cap = 16u << 20, n = 0;
	char *text = malloc(cap);
	n += (size_t)sprintf(text + n, "{\"kind\": \"List\", \"items\": [");
	char json[256], read[256];
	int items = 0;
	while (n < (5u << 20)) {
		tricky_value(items, json, read);
		n += (size_t)sprintf(text + n, "%s{\"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"c%d\"}, "
				     "\"data\": {\"v\": \"%s\", \"nested\": \"[{%.*s\"}, \"list\": [[], {}, [1, [2]]]}",
				     items ? ",\n" : "", items, json, items % 8, "        ");
		items++;
	}
	n += (size_t)sprintf(text + n, "]}\n");
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_doc_parse_string(text, n, "in.json", &l, &err));
	/* read by the threads (each an input of its own), not one by one after a split gone wrong */
	size_t threads = gt_doc_parse_threads(n, (size_t)items);
	ASSERT_EQ(threads > 1 ? threads + 1 : 1, l.n_inputs);
	const struct gt_doc *list = gt_doc_get(l.docs[0], "items");
	ASSERT_EQ(items, list->n);
	for (int i = 0; i < items; i++) {
		tricky_value(i, json, read);
		ASSERT_STR(read, gt_doc_path(list->items[i], "data.v")->scalar);
		ASSERT_EQ(3, gt_doc_get(list->items[i], "list")->n);
	}
	free(text);
	gt_doc_list_release(&l);
}

TEST(json_large_list_broken_punctuation_stops_where_it_is)
{
	/* a thread meets a missing comma: the List is read again one item at a time, to stop there */
	size_t n;
	char *text = large_list(&n, missing_comma);
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EPARSE, gt_doc_parse_string(text, n, "in.json", &l, &err));
	ASSERT_EQ(20000, gt_doc_get(l.docs[0], "items")->n);
	ASSERT_EQ(1, l.n_problems);
	ASSERT_CONTAINS(err.msg, "in.json:100006:");
	ASSERT_CONTAINS(err.msg, "Pod ns/p-20000: field metadata: not valid JSON: expected ',' or '}' after a member");
	free(text);
	gt_doc_list_release(&l);
}

/* The framing finds where strings end (escaped quotes, runs of backslashes, brackets inside) before jansson reads them. */
TEST(json_strings_with_escapes_and_brackets)
{
	static const char *const values[] = { "a\\\"b", "ends with a backslash \\\\", "\\\\\\\"}", "{[\\\"]}", "" };
	for (size_t i = 0; i < sizeof(values) / sizeof(*values); i++) {
		char text[512];
		snprintf(text, sizeof(text),
			 "{\n    \"kind\": \"List\",\n    \"items\": [\n        {\n            \"kind\": \"ConfigMap\",\n"
			 "            \"metadata\": {\"name\": \"x\"},\n            \"data\": {\"k\": \"%s\", \"after\": \"y\"}\n"
			 "        }\n    ]\n}\n", values[i]);
		struct gt_doc_list docs = { 0 };
		struct gt_err err = { 0 };
		ASSERT_EQ(0, gt_doc_parse_string(text, strlen(text), "t.json", &docs, &err));
		ASSERT_EQ(1, (int)docs.n);
		const struct gt_doc *items = gt_doc_get(docs.docs[0], "items");
		const struct gt_doc *data = gt_doc_get(items->items[0], "data");
		json_error_t e;
		char quoted[64];
		snprintf(quoted, sizeof(quoted), "\"%s\"", values[i]);
		json_t *want = json_loads(quoted, JSON_DECODE_ANY, &e);
		ASSERT_STR(json_string_value(want), gt_doc_str(data, "k"));
		ASSERT_STR("y", gt_doc_str(data, "after"));
		json_decref(want);
		gt_doc_list_release(&docs);
	}
}

TEST(documents_made_in_a_list_input)
{
	struct gt_doc_list l = { 0 };
	struct gt_doc_input *in = gt_doc_list_input(&l);
	struct gt_doc *pg = gt_doc_new_in(in, GT_DOC_MAP);
	struct gt_doc *md = gt_doc_put(pg, "metadata", gt_doc_new_in(in, GT_DOC_MAP));
	for (int i = 0; i < 20; i++) {	/* past the first arrays: they grow in the arena */
		char key[16], value[16];
		snprintf(key, sizeof(key), "k%d", i);
		snprintf(value, sizeof(value), "v%d", i);
		gt_doc_put(md, key, gt_doc_new_scalar_in(in, value, i % 2));
	}
	gt_doc_put(md, "k3", gt_doc_new_scalar_in(in, "again", true));	/* replaced in place */
	struct gt_doc *seq = gt_doc_put(pg, "items", gt_doc_new_in(in, GT_DOC_SEQ));
	gt_doc_append(seq, gt_doc_new_scalar("from the heap", true));	/* copied in */
	ASSERT_EQ(20, (int)md->n);
	ASSERT_STR("v19", gt_doc_str(gt_doc_get(pg, "metadata"), "k19"));
	ASSERT_STR("again", gt_doc_path(pg, "metadata.k3")->scalar);
	ASSERT_TRUE(gt_doc_path(pg, "metadata.k3")->quoted);
	ASSERT_TRUE(!gt_doc_path(pg, "metadata.k4")->quoted);
	ASSERT_STR("from the heap", seq->items[0]->scalar);
	ASSERT_TRUE(seq->items[0]->input == in);
	ASSERT_TRUE(gt_doc_source(pg) == NULL);	/* made, not read: no file to name */
	gt_doc_free(pg);	/* a no-op: the list owns it */
	ASSERT_STR("", gt_doc_new_in(in, GT_DOC_SCALAR)->scalar);
	ASSERT_EQ(0, (int)l.n);
	gt_doc_list_release(&l);	/* all of it (ASan's leak check) */
}

/* Children added to @m (parsed or made) and taken away, against what it should then hold. */
static void grow_and_shrink(struct gt_doc *m, int had)
{
	char key[16], want[16];
	for (int i = 0; i < 40; i++) {	/* past the exact parsed arrays, then 4, 8, 16, 32, 64 */
		snprintf(key, sizeof(key), "k%d", i);
		gt_doc_put(m, key, gt_doc_new_scalar(key, true));
		ASSERT_EQ((uint32_t)(had + i + 1), m->n);
	}
	for (int i = 0; i < 40; i += 2) {	/* fewer than the arrays hold: the room left is not over-counted */
		snprintf(key, sizeof(key), "k%d", i);
		gt_doc_del(m, key);
	}
	for (int i = 40; i < 70; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		gt_doc_put(m, key, gt_doc_new_scalar(key, true));
	}
	ASSERT_EQ((uint32_t)(had + 20 + 30), m->n);
	for (int i = 0; i < 70; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		snprintf(want, sizeof(want), "k%d", i);
		if (i < 40 && i % 2 == 0)
			ASSERT_TRUE(!gt_doc_get(m, key));
		else
			ASSERT_STR(want, gt_doc_str(m, key));
	}
}

TEST(maps_grow_and_shrink_whether_parsed_or_made)
{
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(0, parse("a: 1\nb: 2\nc: 3\nitems: [x, y, z]\n", &l, &err));
	struct gt_doc *parsed = l.docs[0];
	grow_and_shrink(parsed, 3 + 1);
	ASSERT_STR("2", gt_doc_str(parsed, "b"));
	/* a parsed sequence: exactly three, then room for more */
	struct gt_doc *seq = (struct gt_doc *)gt_doc_get(parsed, "items");
	for (int i = 0; i < 10; i++)
		gt_doc_append(seq, gt_doc_new_scalar("w", false));
	ASSERT_EQ(13, seq->n);
	ASSERT_STR("z", seq->items[2]->scalar);
	ASSERT_STR("w", seq->items[12]->scalar);
	gt_doc_list_release(&l);
	struct gt_doc *made = gt_doc_new(GT_DOC_MAP);
	grow_and_shrink(made, 0);
	gt_doc_free(made);
}

TEST(shared_scalars_are_one_node_per_text_and_quoting)
{
	struct gt_doc_list l = { 0 };
	struct gt_doc_input *in = gt_doc_list_input(&l);
	struct gt_doc *a = gt_doc_shared_scalar_in(in, "team-a", true);
	ASSERT_TRUE(a == gt_doc_shared_scalar_in(in, "team-a", true));
	ASSERT_TRUE(a != gt_doc_shared_scalar_in(in, "team-a", false));	/* "1" quoted is a string */
	ASSERT_TRUE(a != gt_doc_shared_scalar_in(in, "team-b", true));
	ASSERT_TRUE(a->quoted && a->input == in && a->kind == GT_DOC_SCALAR);
	ASSERT_STR("team-a", a->scalar);
	/* a key of the same text is the same interned string, and stays a key */
	struct gt_doc *m = gt_doc_new_in(in, GT_DOC_MAP);
	gt_doc_put(m, "team-a", gt_doc_shared_scalar_in(in, "team-a", true));
	gt_doc_put(m, "other", gt_doc_shared_scalar_in(in, "team-a", true));
	ASSERT_TRUE(gt_doc_get(m, "team-a") == a && gt_doc_get(m, "other") == a);
	/* without an input: a new heap node each time */
	struct gt_doc *h1 = gt_doc_shared_scalar_in(NULL, "x", false), *h2 = gt_doc_shared_scalar_in(NULL, "x", false);
	ASSERT_TRUE(h1 != h2 && !h1->input);
	gt_doc_free(h1);
	gt_doc_free(h2);
	gt_doc_list_release(&l);
}

/*
 * Lookups by a key written in the code compare integers the compiler
 * packed (the first sixteen bytes), by a key made at run time integers
 * packed then; both must find exactly what the text says: keys alike up
 * to their last byte, of every length around eight and sixteen, on a
 * parsed map and on one made on the heap; dotted paths past four keys.
 */
TEST(lookups_by_literal_and_run_time_keys_agree)
{
	const char *text = "a: 1\nab: 2\nabcdefg: 3\nabcdefgh: 4\nabcdefgi: 5\nabcdefghi: 6\n"
			   "abcdefghijklmnop: 7\nabcdefghijklmnoq: 8\nabcdefghijklmnopq: 9\n"
			   "abcdefghijklmnopqrstuvwxyz0123: 10\nabcdefghijklmnopqrstuvwxyz0124: 11\n"
			   "\"\": 12\np:\n  q:\n    r:\n      s:\n        t:\n          u: deep\n";
	struct gt_doc_list l = { 0 };
	struct gt_err err = { 0 };
	ASSERT_EQ(0, parse(text, &l, &err));
	const struct gt_doc *d = l.docs[0];
	ASSERT_TRUE(d->input != NULL);	/* a parsed map: the packed paths */
	ASSERT_STR("1", gt_doc_str(d, "a"));
	ASSERT_STR("2", gt_doc_str(d, "ab"));
	ASSERT_STR("3", gt_doc_str(d, "abcdefg"));
	ASSERT_STR("4", gt_doc_str(d, "abcdefgh"));
	ASSERT_STR("5", gt_doc_str(d, "abcdefgi"));
	ASSERT_STR("6", gt_doc_str(d, "abcdefghi"));
	ASSERT_STR("7", gt_doc_str(d, "abcdefghijklmnop"));
	ASSERT_STR("8", gt_doc_str(d, "abcdefghijklmnoq"));
	ASSERT_STR("9", gt_doc_str(d, "abcdefghijklmnopq"));
	ASSERT_STR("10", gt_doc_str(d, "abcdefghijklmnopqrstuvwxyz0123"));
	ASSERT_STR("11", gt_doc_str(d, "abcdefghijklmnopqrstuvwxyz0124"));
	ASSERT_STR("12", gt_doc_str(d, ""));
	ASSERT_TRUE(gt_doc_get(d, "abcdefghijklmnopqrstuvwxyz012") == NULL);
	ASSERT_TRUE(gt_doc_get(d, "abcdefghijklmnopqrstuvwxyz01234") == NULL);
	ASSERT_TRUE(gt_doc_get(d, "abcdefghijklmno") == NULL);
	ASSERT_TRUE(gt_doc_get(d, "b") == NULL);
	ASSERT_STR("deep", gt_doc_str(gt_doc_path(d, "p.q.r.s.t"), "u"));
	ASSERT_STR("deep", gt_doc_path(d, "p.q.r.s.t.u")->scalar);
	ASSERT_TRUE(gt_doc_path(d, "p.q.x.s") == NULL);

	/* the same keys asked through a buffer (run time), and through a copy made on the heap */
	struct gt_doc *heap = gt_doc_new(GT_DOC_MAP);
	char key[64];
	for (size_t i = 0; i < d->n; i++) {
		snprintf(key, sizeof(key), "%s", d->keys[i]);
		ASSERT_TRUE(gt_doc_getn(d, key, strlen(key)) == d->items[i]);
		if (d->items[i]->kind == GT_DOC_SCALAR)
			gt_doc_put(heap, key, gt_doc_new_scalar(d->items[i]->scalar, false));
		key[strlen(key) + 1] = '\0';
		key[strlen(key)] = 'x';	/* one byte longer: no such key */
		ASSERT_TRUE(gt_doc_getn(d, key, strlen(key)) == NULL);
	}
	ASSERT_TRUE(heap->input == NULL);
	ASSERT_STR("9", gt_doc_str(heap, "abcdefghijklmnopq"));
	ASSERT_STR("11", gt_doc_str(heap, "abcdefghijklmnopqrstuvwxyz0124"));
	ASSERT_STR("4", gt_doc_str(heap, "abcdefgh"));
	ASSERT_TRUE(gt_doc_get(heap, "abcdefghijklmno") == NULL);
	gt_doc_free(heap);
	gt_doc_list_release(&l);
}

const struct gt_test gt_tests[] = {
	T(multi_document_stream),
	T(json_input),
	T(json_stream_of_objects),
	T(v1_list_is_unpacked),
	T(anchors_and_aliases),
	T(aliases_in_a_manifest),
	T(anchors_do_not_cross_documents),
	T(malformed_yaml_names_the_line),
	T(documents_before_an_error_are_kept),
	T(quoted_and_null_scalars),
	T(json_surrogate_pair_is_one_character),
	T(json_numbers_read_as_written),
	T(json_bad_item_of_a_list_is_left_out_named),
	T(json_duplicate_keys_warned_in_every_item),
	T(json_broken_punctuation_keeps_the_items_before),
	T(json_deep_nesting_leaves_the_object_out),
	T(json_stream_with_markers_and_yaml_flow_fallback),
	T(json_binary_noise_is_an_error_not_a_crash),
	T(json_large_list_read_in_parallel_says_the_same),
	T(json_large_list_split_finds_every_item_whatever_its_strings_hold),
	T(maps_grow_and_shrink_whether_parsed_or_made),
	T(json_large_list_broken_punctuation_stops_where_it_is),
	T(json_strings_with_escapes_and_brackets),
	T(documents_made_in_a_list_input),
	T(shared_scalars_are_one_node_per_text_and_quoting),
	T(lookups_by_literal_and_run_time_keys_agree),
	{ 0 }
};
