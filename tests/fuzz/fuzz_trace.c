/*
 * fuzz_trace.c - the replay's CSV loaders: job traces (Philly, openb, ITP,
 * crux), VC sizes and openb node lists
 *
 * The first byte picks the loader; the rest is the file. A failure must
 * name the file; a success must give jobs sorted by submit time.
 */
#include "core/cluster.h"
#include "fuzz.h"
#include "replay/trace.h"
#include "util/strtab.h"

static void expect_message(const struct gt_err *err)
{
	FUZZ_CHECK(strstr(err->msg, "gantry-fuzz-"));	/* errors name the file */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned pick = data[0] % (GT_N_TRACE_FORMATS + 2);
	const char *path = fuzz_file(data + 1, size - 1, ".csv");
	struct gt_err err = { 0 };
	if (pick < GT_N_TRACE_FORMATS) {
		struct gt_trace t;
		struct gt_trace_opts o = { .gang_split = 1 + data[0] % 8 };
		gt_trace_init(&t);
		if (gt_trace_load(&t, (enum gt_trace_format)pick, path, &o, &err) == 0) {
			for (uint32_t i = 1; i < t.n_jobs; i++)
				FUZZ_CHECK(t.jobs[i].submit >= t.jobs[i - 1].submit);	/* sorted */
		} else {
			expect_message(&err);
		}
		gt_trace_release(&t);
	} else if (pick == GT_N_TRACE_FORMATS) {
		struct gt_vc_size *v = NULL;
		uint32_t n = 0;
		if (gt_vc_sizes_load(path, &v, &n, &err) == 0)
			gt_vc_sizes_free(v, n);
		else
			expect_message(&err);
	} else {
		struct gt_strtab names;
		struct gt_cluster c;
		gt_strtab_init(&names);
		gt_cluster_init(&c, &names);
		if (gt_openb_nodes_load(path, &c, &err))
			expect_message(&err);
		gt_cluster_release(&c);
		gt_strtab_release(&names);
	}
	return 0;
}
