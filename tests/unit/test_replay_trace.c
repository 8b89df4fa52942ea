/*
 * test_replay_trace.c - the trace loaders and the replay's cluster setup on
 * small hand-made slices (tests/data/replay/): columns, gangs, fractions,
 * model constraints, sorting, and errors that name file, line and column.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "replay/csv.h"
#include "replay/setup.h"
#include "replay/trace.h"

const char *gt_suite = "replay_trace";

#define DATA "tests/data/replay/"

static int load(struct gt_trace *t, enum gt_trace_format f, const char *file, struct gt_err *err)
{
	gt_trace_init(t);
	return gt_trace_load(t, f, file, NULL, err);
}

TEST(philly_rows_sorted_with_gangs_and_tenants)
{
	struct gt_trace t;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, load(&t, GT_TRACE_PHILLY, DATA "philly_small.csv", &err));
	ASSERT_EQ(6, t.n_jobs);
	/* sorted by submit; the two rows at 06:13:03 keep file order (lines 3, 4) */
	ASSERT_EQ(3, t.jobs[0].line);
	ASSERT_EQ(4, t.jobs[1].line);
	ASSERT_EQ(2, t.jobs[2].line);
	ASSERT_EQ(1507529583LL, t.jobs[0].submit);
	ASSERT_EQ(1507532515LL, t.jobs[2].submit);
	ASSERT_EQ(2951, t.jobs[0].duration);
	/* 16 GPUs: two pods of 8; 600.5 s rounds up */
	ASSERT_EQ(16, t.jobs[1].gpus);
	ASSERT_EQ(2, t.jobs[1].n_pods);
	ASSERT_EQ(8, gt_rjob_pod_gpus(&t.jobs[1], 0));
	ASSERT_EQ(601, t.jobs[1].duration);
	/* 12 GPUs: two pods of 6 */
	ASSERT_EQ(2, t.jobs[3].n_pods);
	ASSERT_EQ(6, gt_rjob_pod_gpus(&t.jobs[3], 1));
	ASSERT_EQ(1, t.jobs[5].n_pods);
	ASSERT_EQ(1, t.zero_duration);
	ASSERT_EQ(4, t.tenants.n_strs);
	ASSERT_STR("ee9e8c", gt_strtab_str(&t.tenants, (uint32_t)t.jobs[1].tenant));
	gt_trace_release(&t);
}

/* A row repeated exactly (Philly's table has 65) is one job; same fields at another time or VC are not. */
TEST(philly_exact_repeats_replayed_once)
{
	struct gt_trace t;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, load(&t, GT_TRACE_PHILLY, DATA "philly_duplicates.csv", &err));
	ASSERT_EQ(1, t.duplicates);
	ASSERT_EQ(4, t.n_jobs);
	/* the first of the repeated rows stays, in file order among its submit time */
	ASSERT_EQ(2, t.jobs[0].line);
	ASSERT_EQ(3, t.jobs[1].line);
	ASSERT_EQ(6, t.jobs[2].line);
	ASSERT_EQ(5, t.jobs[3].line);
	gt_trace_release(&t);
}

TEST(philly_bad_rows_name_file_line_and_column)
{
	struct gt_trace t;
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EPARSE, load(&t, GT_TRACE_PHILLY, DATA "philly_bad_duration.csv", &err));
	ASSERT_STR(DATA "philly_bad_duration.csv:3: column 'duration': not a number: 'abc'", err.msg);
	gt_trace_release(&t);
	ASSERT_EQ(GT_EPARSE, load(&t, GT_TRACE_PHILLY, DATA "philly_bad_time.csv", &err));
	ASSERT_CONTAINS(err.msg, "philly_bad_time.csv:3: column 'timestamp': not a time");
	gt_trace_release(&t);
	ASSERT_EQ(GT_EPARSE, load(&t, GT_TRACE_PHILLY, DATA "philly_short_row.csv", &err));
	ASSERT_CONTAINS(err.msg, "philly_short_row.csv:2: 4 fields, the header has 5");
	gt_trace_release(&t);
	ASSERT_EQ(GT_EIO, load(&t, GT_TRACE_PHILLY, DATA "no-such-file.csv", &err));
	ASSERT_CONTAINS(err.msg, "no-such-file.csv: cannot open");
	gt_trace_release(&t);
	/* a file of another format: the missing column is named */
	ASSERT_EQ(GT_EPARSE, load(&t, GT_TRACE_PHILLY, DATA "crux_small.csv", &err));
	ASSERT_CONTAINS(err.msg, "crux_small.csv:1: no column 'timestamp' in the header");
	gt_trace_release(&t);
}

TEST(csv_takes_crlf_and_blank_lines)
{
	struct gt_trace t;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, load(&t, GT_TRACE_PHILLY, DATA "philly_crlf.csv", &err));
	ASSERT_EQ(2, t.n_jobs);
	ASSERT_EQ(4, t.jobs[1].line);
	ASSERT_STR("11cb48", gt_strtab_str(&t.tenants, (uint32_t)t.jobs[1].tenant));
	gt_trace_release(&t);
}

/* A file that opens but cannot be read (a directory) is a read error, not an empty trace. */
TEST(csv_read_error_is_not_an_empty_file)
{
	struct gt_trace t;
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EIO, load(&t, GT_TRACE_PHILLY, DATA, &err));
	ASSERT_CONTAINS(err.msg, "cannot read");
	gt_trace_release(&t);
}

TEST(openb_fractions_models_qos_and_times)
{
	struct gt_trace t;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, load(&t, GT_TRACE_OPENB, DATA "openb_pods_small.csv", &err));
	ASSERT_EQ(5, t.n_jobs);
	ASSERT_TRUE(t.has_times);
	const struct gt_rjob *j = t.jobs;
	ASSERT_EQ(1, j[0].gpus);
	ASSERT_EQ(0, j[0].frac_milli);
	ASSERT_EQ(12000, j[0].cpu_milli);
	ASSERT_EQ(16384LL << 20, j[0].mem_bytes);
	ASSERT_EQ(GT_QOS_LS, j[0].qos);
	ASSERT_EQ(GT_TRACE_EPOCH, j[0].submit);
	ASSERT_EQ(1000, j[0].duration);
	/* a fraction; run time from its scheduling, not its creation */
	ASSERT_EQ(0, j[1].gpus);
	ASSERT_EQ(460, j[1].frac_milli);
	ASSERT_EQ(498, j[1].duration);
	/* CPU only */
	ASSERT_EQ(0, j[2].gpus);
	ASSERT_EQ(0, j[2].frac_milli);
	ASSERT_EQ(GT_NONE, j[2].gpu_spec);
	ASSERT_EQ(GT_QOS_BURSTABLE, j[2].qos);
	/* two whole GPUs of two accepted models */
	ASSERT_EQ(2, j[3].gpus);
	ASSERT_EQ(1, j[3].n_pods);
	ASSERT_STR("V100M16|V100M32", gt_strtab_str(&t.specs, (uint32_t)j[3].gpu_spec));
	/* never scheduled in the trace: it waited until deleted */
	ASSERT_EQ(60, j[4].duration);
	ASSERT_STR("T4", gt_strtab_str(&t.specs, (uint32_t)j[4].gpu_spec));
	gt_trace_release(&t);
}

TEST(openb_without_times_keeps_row_order)
{
	struct gt_trace t;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, load(&t, GT_TRACE_OPENB, DATA "openb_pods_notime.csv", &err));
	ASSERT_TRUE(!t.has_times);
	ASSERT_EQ(3, t.n_jobs);
	ASSERT_EQ(-1, t.jobs[0].duration);
	ASSERT_EQ(GT_TRACE_EPOCH + 2, t.jobs[2].submit);
	ASSERT_EQ(8, t.jobs[2].gpus);
	ASSERT_EQ(1, t.jobs[2].n_pods);	/* openb pods are not gangs */
	gt_trace_release(&t);
}

TEST(openb_fraction_of_several_gpus_is_an_error)
{
	struct gt_trace t;
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EPARSE, load(&t, GT_TRACE_OPENB, DATA "openb_pods_bad_milli.csv", &err));
	ASSERT_CONTAINS(err.msg, "openb_pods_bad_milli.csv:2: column 'gpu_milli': must be 1000");
	gt_trace_release(&t);
}

TEST(itp_raw_and_elasticflow_columns)
{
	struct gt_trace t;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, load(&t, GT_TRACE_ITP, DATA "itp_raw_small.csv", &err));
	ASSERT_EQ(2, t.n_jobs);
	ASSERT_EQ(GT_TRACE_EPOCH + 1932025, t.jobs[0].submit);
	ASSERT_EQ(64, t.jobs[0].gpus);
	ASSERT_EQ(8, t.jobs[0].n_pods);
	ASSERT_EQ(2429, t.jobs[0].duration);
	gt_trace_release(&t);
	ASSERT_EQ(0, load(&t, GT_TRACE_ITP, DATA "itp_elasticflow_small.csv", &err));
	ASSERT_EQ(2, t.n_jobs);
	ASSERT_EQ(8, t.jobs[1].gpus);
	ASSERT_EQ(3604, t.jobs[1].duration);
	gt_trace_release(&t);
}

TEST(crux_large_gangs)
{
	struct gt_trace t;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, load(&t, GT_TRACE_CRUX, DATA "crux_small.csv", &err));
	ASSERT_EQ(3, t.n_jobs);
	ASSERT_EQ(48, t.jobs[0].gpus);
	ASSERT_EQ(6, t.jobs[0].n_pods);
	ASSERT_EQ(720, t.jobs[0].duration);
	/* 20 GPUs: 3 pods of 7, 7 and 6; the arrival is floored to the second */
	ASSERT_EQ(3, t.jobs[2].n_pods);
	ASSERT_EQ(7, gt_rjob_pod_gpus(&t.jobs[2], 0));
	ASSERT_EQ(6, gt_rjob_pod_gpus(&t.jobs[2], 2));
	ASSERT_EQ(GT_TRACE_EPOCH + 5340, t.jobs[2].submit);
	gt_trace_release(&t);
}

TEST(gang_split_option)
{
	struct gt_trace t;
	struct gt_err err = { 0 };
	struct gt_trace_opts o = { .gang_split = 4 };
	gt_trace_init(&t);
	ASSERT_EQ(0, gt_trace_load(&t, GT_TRACE_CRUX, DATA "crux_small.csv", &o, &err));
	ASSERT_EQ(12, t.jobs[0].n_pods);
	gt_trace_release(&t);
}

TEST(format_names)
{
	ASSERT_EQ(GT_TRACE_PHILLY, gt_trace_format_from_name("philly"));
	ASSERT_EQ(GT_TRACE_CRUX, gt_trace_format_from_name("crux"));
	ASSERT_EQ(GT_N_TRACE_FORMATS, gt_trace_format_from_name("slurm"));
	ASSERT_STR("openb", gt_trace_format_name(GT_TRACE_OPENB));
}

TEST(vc_sizes_and_quotas)
{
	struct gt_trace t;
	struct gt_err err = { 0 };
	struct gt_vc_size *v;
	uint32_t nv;
	ASSERT_EQ(0, gt_vc_sizes_load(DATA "vc_small.csv", &v, &nv, &err));
	ASSERT_EQ(3, nv);
	ASSERT_STR("ee9e8c", v[1].name);
	ASSERT_EQ(32, v[1].nodes);
	ASSERT_EQ(0, load(&t, GT_TRACE_PHILLY, DATA "philly_small.csv", &err));
	struct gt_strtab names;
	struct gt_cluster c;
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	gt_replay_gen_nodes(&c, 4, 8);
	int32_t tq[4], dq;
	struct gt_queue_setup qs = { .vcs = v, .n_vcs = nv };
	ASSERT_EQ(0, gt_replay_make_queues(&c, &t, &qs, tq, &dq, &err));
	/* 32 GPUs over 128 VC nodes: 64 nodes -> 16 GPUs, 32 -> 8 */
	ASSERT_STR("6214e9", gt_strtab_str(&names, c.queues[tq[1]].name));
	ASSERT_EQ(16000, c.queues[tq[1]].deserved[GT_QGPU]);
	ASSERT_EQ(8000, c.queues[tq[2]].deserved[GT_QGPU]);
	ASSERT_EQ(8000, c.queues[tq[0]].deserved[GT_QGPU]);
	/* 23dbec is not in the table: the default queue, which lives on leftovers */
	ASSERT_EQ(dq, tq[3]);
	ASSERT_STR("default", gt_strtab_str(&names, c.queues[dq].name));
	ASSERT_EQ(0, c.queues[dq].deserved[GT_QGPU]);
	ASSERT_EQ(4, c.n_queues);
	gt_cluster_release(&c);
	gt_strtab_release(&names);
	gt_vc_sizes_free(v, nv);
	gt_trace_release(&t);
}

TEST(one_queue_for_everything)
{
	struct gt_trace t;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, load(&t, GT_TRACE_PHILLY, DATA "philly_small.csv", &err));
	struct gt_strtab names;
	struct gt_cluster c;
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	gt_replay_gen_nodes(&c, 2, 8);
	int32_t tq[4], dq;
	struct gt_queue_setup qs = { .single = true };
	ASSERT_EQ(0, gt_replay_make_queues(&c, &t, &qs, tq, &dq, &err));
	ASSERT_EQ(1, c.n_queues);
	ASSERT_EQ(dq, tq[0]);
	ASSERT_EQ(dq, tq[3]);
	/* alone, the default queue deserves the whole cluster */
	ASSERT_EQ(16000, c.queues[dq].deserved[GT_QGPU]);
	gt_cluster_release(&c);
	gt_strtab_release(&names);
	gt_trace_release(&t);
}

TEST(openb_nodes_carry_their_model)
{
	struct gt_strtab names;
	struct gt_cluster c;
	struct gt_err err = { 0 };
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	ASSERT_EQ(0, gt_openb_nodes_load(DATA "openb_nodes_small.csv", &c, &err));
	ASSERT_EQ(3, c.n_nodes);
	ASSERT_EQ(8, c.nodes[1].gpus);
	ASSERT_EQ(96000, c.nodes[1].cpu_milli);
	ASSERT_EQ(786432LL << 20, c.nodes[1].mem_bytes);
	int64_t key = gt_strtab_find(&names, GT_GPU_MODEL_LABEL);
	ASSERT_TRUE(key >= 0);
	ASSERT_STR("V100M32", gt_strtab_str(&names, (uint32_t)gt_labels_get(&c.nodes[1].labels,
									  (uint32_t)key)));
	ASSERT_EQ(0, c.nodes[2].labels.n);	/* a CPU node has no model */
	/* the same list again: the names clash */
	ASSERT_EQ(GT_EPARSE, gt_openb_nodes_load(DATA "openb_nodes_small.csv", &c, &err));
	ASSERT_CONTAINS(err.msg, "openb_nodes_small.csv:2: column 'sn': a node of that name already exists");
	gt_cluster_release(&c);
	gt_strtab_release(&names);
}

TEST(cluster_from_kubernetes_objects)
{
	struct gt_strtab names;
	struct gt_cluster c;
	struct gt_err err = { 0 };
	const char *files[] = { DATA "cluster_small.yaml" };
	uint32_t skipped = 0;
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	ASSERT_EQ(0, gt_replay_load_cluster(&c, files, 1, false, NULL, &skipped, NULL, &err));
	ASSERT_EQ(1, skipped);	/* the Pod */
	ASSERT_EQ(2, c.n_nodes);
	ASSERT_EQ(2, c.n_queues);
	ASSERT_TRUE(c.config.gpu_spread);
	/* Philly's VCs: 6214e9 has a queue of that name; the others go to default */
	struct gt_trace t;
	ASSERT_EQ(0, load(&t, GT_TRACE_PHILLY, DATA "philly_small.csv", &err));
	int32_t tq[4], dq;
	struct gt_queue_setup qs = { 0 };
	ASSERT_EQ(0, gt_replay_make_queues(&c, &t, &qs, tq, &dq, &err));
	ASSERT_STR("6214e9", gt_strtab_str(&names, c.queues[tq[1]].name));
	ASSERT_EQ(12000, c.queues[tq[1]].deserved[GT_QGPU]);
	/* without a VC table, unknown tenants get queues of their own */
	ASSERT_EQ(5, c.n_queues);
	gt_trace_release(&t);
	gt_cluster_release(&c);
	gt_strtab_release(&names);
}

const struct gt_test gt_tests[] = {
	T(philly_rows_sorted_with_gangs_and_tenants),
	T(philly_exact_repeats_replayed_once),
	T(philly_bad_rows_name_file_line_and_column),
	T(csv_takes_crlf_and_blank_lines),
	T(csv_read_error_is_not_an_empty_file),
	T(openb_fractions_models_qos_and_times),
	T(openb_without_times_keeps_row_order),
	T(openb_fraction_of_several_gpus_is_an_error),
	T(itp_raw_and_elasticflow_columns),
	T(crux_large_gangs),
	T(gang_split_option),
	T(format_names),
	T(vc_sizes_and_quotas),
	T(one_queue_for_everything),
	T(openb_nodes_carry_their_model),
	T(cluster_from_kubernetes_objects),
	{ 0 }
};
