/*
 * test_doc.c - YAML/JSON documents: streams, JSON, v1 List, aliases, errors
 */
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
	{ 0 }
};
