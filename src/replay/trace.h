/*
 * trace.h - GPU-cluster job traces in one internal schema
 *
 * Every loader streams its CSV (src/replay/csv.h) row by row into a compact
 * job table: one struct gt_rjob per job, 64 bytes, whatever the format.
 * Tenants (Philly virtual clusters, ...) and GPU-model constraints are
 * interned into small string tables of the trace. The table is sorted by
 * submit time, ties kept in file order, so job index = arrival order.
 *
 * Formats (../shared/data/traces/ READMEs describe the columns):
 *   philly  the Pollux table philly_pollux.csv: timestamp, duration,
 *           num_gpus, gpu_time, cluster (the VC: the tenant). A job of more
 *           than --gang-split GPUs (8, a Philly server) is a gang of
 *           ceil(GPUs/8) pods that start together.
 *   openb   an Alibaba openb_pod_list_*.csv: one pod per row, gpu_milli
 *           fractions, gpu_spec model constraints, qos; files without the
 *           time columns load in row order with unknown durations (for
 *           --no-departures runs only).
 *   itp     a Microsoft ITP cluster file (raw or ElasticFlow columns).
 *   crux    the RFold-format tables (crux_jobs_rfold.csv, philly_rfold.csv):
 *           arrival time (sec), size, duration (sec).
 * Malformed rows are errors naming the file, line and column.
 */
#ifndef GT_REPLAY_TRACE_H
#define GT_REPLAY_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"
#include "util/err.h"
#include "util/strtab.h"

/* Relative traces (seconds from their start) are placed after this epoch. */
#define GT_TRACE_EPOCH INT64_C(1700000000)	/* 2023-11-14T22:13:20Z */

enum gt_trace_format { GT_TRACE_PHILLY, GT_TRACE_OPENB, GT_TRACE_ITP, GT_TRACE_CRUX,
		       GT_N_TRACE_FORMATS };

enum gt_qos { GT_QOS_NONE, GT_QOS_LS, GT_QOS_BE, GT_QOS_BURSTABLE, GT_QOS_GUARANTEED };

struct gt_rjob {
	int64_t submit;		/* arrival on the virtual clock, Unix seconds */
	int64_t duration;	/* run time in seconds; -1 when the trace has none */
	int64_t cpu_milli;	/* per pod */
	int64_t mem_bytes;	/* per pod */
	int32_t gpus;		/* whole GPUs of the job, its pods together */
	int32_t n_pods;		/* gang size: pods that start and stop together */
	int32_t frac_milli;	/* share of one GPU per pod (1..999); 0: whole GPUs */
	int32_t tenant;		/* id in the trace's tenant table, GT_NONE: none */
	int32_t gpu_spec;	/* id in the trace's spec table, GT_NONE: any GPU model */
	uint32_t line;		/* line in the source file */
	uint8_t qos;		/* enum gt_qos */
};

struct gt_trace {
	enum gt_trace_format format;
	char *path;
	struct gt_rjob *jobs;
	uint32_t n_jobs, cap_jobs;
	struct gt_strtab tenants;	/* tenant names, id = gt_rjob.tenant */
	struct gt_strtab specs;		/* "V100M16|V100M32", id = gt_rjob.gpu_spec */
	bool has_times;		/* submit and duration come from the file */
	uint32_t zero_duration;	/* rows with a run time of 0 s (kept: they finish at once) */
	uint32_t duplicates;	/* Philly rows repeating an earlier one exactly: dropped */
};

struct gt_trace_opts {
	int32_t gang_split;	/* GPUs per gang pod (a server's GPUs); default 8 */
};

/* "philly" -> GT_TRACE_PHILLY; GT_N_TRACE_FORMATS when unknown. */
enum gt_trace_format gt_trace_format_from_name(const char *name);
const char *gt_trace_format_name(enum gt_trace_format f);
const char *gt_qos_name(enum gt_qos q);

void gt_trace_init(struct gt_trace *t);
void gt_trace_release(struct gt_trace *t);
/* Load @path in @format into @t (initialised). 0, or an error naming file:line:column. */
int gt_trace_load(struct gt_trace *t, enum gt_trace_format format, const char *path,
		  const struct gt_trace_opts *o, struct gt_err *err);

/* GPUs of pod @k of @j: the job's GPUs split evenly, the first pods take the remainder. */
static inline int32_t gt_rjob_pod_gpus(const struct gt_rjob *j, int32_t k)
{
	return j->gpus / j->n_pods + (k < j->gpus % j->n_pods);
}

/* GPU-seconds the job asks for: whole GPUs, or fractions in milli-GPU / 1000. */
static inline double gt_rjob_gpu_seconds(const struct gt_rjob *j)
{
	double g = j->frac_milli ? (double)j->frac_milli * j->n_pods / 1000.0 : (double)j->gpus;
	return g * (double)(j->duration > 0 ? j->duration : 0);
}

/* One VC of philly_vc_nodes_helios.csv. */
struct gt_vc_size {
	char *name;
	int64_t nodes;
};

/* Load a "vc,node num" table. Free with gt_vc_sizes_free(). */
int gt_vc_sizes_load(const char *path, struct gt_vc_size **out, uint32_t *n, struct gt_err *err);
void gt_vc_sizes_free(struct gt_vc_size *v, uint32_t n);

/*
 * Nodes of an openb_node_list_*.csv appended to @c: name sn, cpu_milli,
 * memory_mib, gpu devices, and the model as label nvidia.com/gpu.product.
 */
int gt_openb_nodes_load(const char *path, struct gt_cluster *c, struct gt_err *err);

/* The node label that carries the GPU model (openb gpu_spec selects on it). */
#define GT_GPU_MODEL_LABEL "nvidia.com/gpu.product"

#endif /* GT_REPLAY_TRACE_H */
