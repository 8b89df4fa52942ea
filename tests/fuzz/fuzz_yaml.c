/*
 * fuzz_yaml.c - the document parser on YAML streams (manifests, kubectl -o yaml)
 */
#include "fuzz_doc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)fuzz_doc_parse(data, size, "fuzz.yaml");
	return 0;
}
