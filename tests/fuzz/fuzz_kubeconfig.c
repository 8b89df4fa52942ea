/*
 * fuzz_kubeconfig.c - kubeconfig files: clusters, users, contexts, inline
 * base64 data
 *
 * The input is written to a file and loaded with its current-context, then
 * with the context named "fuzz"; a success must have a server, a failure a
 * message. Inline data goes through gt_base64_decode, fuzzed on its own too.
 */
#include "api/json.h"
#include "fuzz.h"
#include "kube/config.h"

static void load(const char *path, const char *context)
{
	struct gt_kube_config c = { 0 };
	struct gt_err err = { 0 };
	if (gt_kube_config_from_files(path, context, &c, &err) == 0)
		FUZZ_CHECK(c.server && c.source);	/* success means somewhere to connect */
	else
		FUZZ_CHECK(err.msg[0]);	/* a failure says why */
	gt_kube_config_release(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, ".kubeconfig");
	load(path, NULL);
	load(path, "fuzz");

	char *s = fuzz_string(data, size);
	unsigned char *out = NULL;
	size_t len = 0;
	if (gt_base64_decode(s, &out, &len) == 0)
		free(out);
	free(s);
	return 0;
}
