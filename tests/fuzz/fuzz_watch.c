/*
 * fuzz_watch.c - the watch stream: framing into lines, events into the cache
 *
 * The production code is static, so this target includes the two files
 * (src/kube/http.c's on_stream, src/kube/reflector.c's on_event and
 * take_page) rather than widen their interfaces for a test. Byte 0 picks
 * the resource, byte 1 how the stream is cut into the chunks curl would
 * hand over; the rest is the HTTP body of a 200 watch, framed and applied
 * to a cache as the reflector does, and then, as a LIST body, paged.
 */
#include "fuzz.h"
#include "util/log.h"

#include "../../src/kube/http.c"
#include "../../src/kube/reflector.c"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	gt_log_set_level(GT_LOG_ERROR);	/* malformed events are warnings: millions of them */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	struct gt_reflector r = { .res = (enum gt_kres)(data[0] % GT_N_KRES) };
	size_t chunk = 1 + data[1] % 64;
	data += 2;
	size -= 2;
	r.cache = gt_cache_new();
	/* as gt_reflector_start() wires a reflector to the cache */
	r.k = gt_kres[r.res];
	r.sink = (struct gt_reflector_sink){ cache_replace, cache_upsert, cache_remove, cache_state, &r };

	struct stream s = { .fn = on_event, .arg = &r, .status = 200 };
	for (size_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		if (on_stream((char *)data + off, 1, n, &s) != n)
			break;	/* the reflector stopped the stream, or the line cap */
	}
	free(s.line);
	FUZZ_CHECK(s.stopped == (r.failed || r.gone));	/* it stops exactly when an event says so */

	json_t *page = json_loadb((const char *)data, size, 0, NULL);
	struct listing l = { 0 };
	if (take_page(&r, page, "fuzz", &l) == 0)
		gt_cache_replace(r.cache, r.res, l.objs, l.n);
	else
		listing_drop(&l);
	free(l.objs);
	json_decref(page);
	gt_cache_free(r.cache);
	return 0;
}
