/*
 * fuzz_json.c - the document parser on JSON (kubectl -o json, the API
 * server's bodies), and its conversions to and from jansson values; and
 * gt_json_print (-o json), which must write what jansson's dump writes
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api/json.h"
#include "fuzz_doc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)fuzz_doc_parse(data, size, "fuzz.json");
	/* what the API client does with a body: jansson, then the document tree and back */
	json_t *j = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
	if (j) {
		struct gt_doc *d = gt_doc_from_json(j);
		if (d) {
			json_t *back = gt_doc_to_json(d);
			free(gt_json_dump(back));	/* any value: JSON_ENCODE_ANY */
			static FILE *null;
			if (!null)
				null = fopen("/dev/null", "w");
			gt_json_print_yaml(null, back);	/* -o yaml */
			json_decref(back);
			gt_doc_free(d);
		}
		if (json_is_object(j) || json_is_array(j)) {
			char *want = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(10)), *got = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&got, &len);
			gt_json_print(f, j, 1);
			fclose(f);
			if (!want || strcmp(want, got))
				abort();	/* -o json would differ from what jansson wrote */
			free(want);
			free(got);
		}
		json_decref(j);
	}
	return 0;
}
