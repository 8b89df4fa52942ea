/*
 * metrics.h - what a replay measures, and the small statistics behind it
 *
 * A distribution is summarised by its mean and nearest-rank percentiles
 * (p-th percentile of n sorted values = value at rank ceil(p/100 * n)).
 * Signals over time (GPUs allocated, per-queue allocation and fair share,
 * fragmentation) are piecewise constant; a timeline integrates them into a
 * fixed number of buckets whose width doubles whenever the run outgrows
 * them, so a 100-day trace and a 10-minute one both end up as at most
 * GT_TIMELINE_BUCKETS averages, in O(1) memory per signal.
 */
#ifndef GT_REPLAY_METRICS_H
#define GT_REPLAY_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_TIMELINE_BUCKETS 512

#define GT_N_SIZE_BUCKETS 4

struct gt_dist {
	uint32_t n;
	double mean, p50, p90, p99, max;
};

/* Summarise @n values; sorts @v in place. All zero when @n is 0. */
void gt_dist_of(double *v, size_t n, struct gt_dist *out);
/* Nearest-rank percentile @p (0 < p <= 100) of sorted @v. */
double gt_percentile_sorted(const double *v, size_t n, double p);
/* Jain's fairness index (sum x)^2 / (n sum x^2) of @n values; 1 when n is 0. */
double gt_jain(const double *x, size_t n);

struct gt_timeline {
	int64_t t0;		/* start of bucket 0 */
	int64_t width;		/* seconds per bucket */
	uint32_t n_signals;
	uint32_t n_used;	/* buckets touched so far */
	int64_t t_last;		/* integrated up to here */
	double *cur;		/* current value per signal */
	double *sum;		/* [bucket][signal]: value x seconds */
};

void gt_timeline_init(struct gt_timeline *tl, uint32_t n_signals, int64_t t0, int64_t width);
void gt_timeline_release(struct gt_timeline *tl);
/* Integrate the current values from t_last up to @t (>= t_last). */
void gt_timeline_advance(struct gt_timeline *tl, int64_t t);
/* Average of signal @k over bucket @b (over the part of it that was integrated). */
double gt_timeline_avg(const struct gt_timeline *tl, uint32_t b, uint32_t k);

/* Per queue: quota, what it got, what it was due. */
struct gt_queue_stats {
	char *name;
	double quota_gpus;	/* deserved GPUs; -1: unlimited */
	double quota_share;	/* quota over the sum of quotas (0 with no quotas) */
	double gpu_hours;	/* GPU time its pods held */
	double gpu_time_share;	/* its GPU time over everybody's */
	double fair_share_gpus;	/* time-average fair share, in GPUs */
	double fair_time_share;	/* its fair-share GPU time over everybody's */
	double allocated_vs_fair;	/* GPU time / fair-share GPU time; -1: never due any */
	uint32_t jobs, finished;
	double wait_mean_s, jct_mean_s;
	uint32_t timeline_index;	/* its signals: GT_SIG_QALLOC(i), GT_SIG_QFAIR(i) */
};

/* Signals of the timeline, then two per queue (allocated GPUs, fair-share GPUs). */
enum gt_signal { GT_SIG_ALLOC, GT_SIG_PENDING, GT_SIG_RUNNING, GT_SIG_FRAG, GT_SIG_IDLE,
		 GT_SIG_PARTIAL, GT_N_SIGNALS };
#define GT_SIG_QALLOC(q) (GT_N_SIGNALS + 2 * (q))
#define GT_SIG_QFAIR(q) (GT_N_SIGNALS + 2 * (q) + 1)

struct gt_packing {
	double milli_gpu_allocation;	/* allocated milli-GPU / total */
	double gpu_allocation_ratio;	/* GPUs with something on them / total */
	int64_t allocated_gpus;		/* GPUs with something on them */
	int64_t idle_gpus;		/* GPUs with nothing on them */
	double fragmented_gpus;		/* free milli-GPU on partly used GPUs, in GPUs */
	int64_t partial_nodes;		/* nodes with some but not all GPUs free */
	double arrived_gpus;		/* GPUs the arrived pods asked for */
	double placed_gpus;		/* of those, placed */
	uint32_t pending_pods;		/* pods that never found room */
};

struct gt_replay_stats {
	/* the setup */
	char *trace;		/* "philly:path" */
	char *policy;		/* "actions=allocate,reclaim placement=binpack ..." */
	uint32_t jobs, pods;
	uint32_t nodes;
	int64_t cluster_gpus;
	double offered_load;	/* GPU time asked / (GPUs x arrival span); packing: request / capacity */
	double arrival_scale;	/* factor applied to the gaps between arrivals */
	int64_t first_submit, last_submit, end;
	bool packing_run;	/* a --no-departures run: only the packing figures mean something */
	bool interrupted;	/* stopped before the end (Ctrl-C): the results cover what was gathered */
	/* jobs */
	uint32_t started, finished, never_started;
	struct gt_dist wait_s, jct_s;
	int64_t makespan_s;
	double gpu_allocation;	/* time-average allocated GPUs / cluster GPUs */
	double gpu_utilization;	/* GPU time of finished work / (cluster GPUs x makespan) */
	int64_t starvation_s;
	uint32_t waited_over;	/* jobs that waited longer than starvation_s */
	uint32_t waited_over_24h;	/* ... longer than a day (REPLAY.md's fixed key) */
	uint64_t job_evictions, pod_evictions;
	uint64_t restarted_jobs;	/* distinct jobs evicted at least once (recreated Pending) */
	double lost_gpu_hours;
	/* the scheduler */
	uint64_t cycles, cycles_skipped;
	struct gt_dist cycle_ms;
	double wall_s;
	/* fairness */
	struct gt_queue_stats *queues;
	uint32_t n_queues;
	double jain;		/* over queues' allocated_vs_fair */
	/* fragmentation: time averages, and the state at the end */
	double frag_gpus_mean, idle_gpus_mean, partial_nodes_mean;
	struct gt_packing packing;
	/* for the report */
	struct gt_timeline timeline;
	double *waits_sorted;	/* every started job's wait, ascending */
	uint32_t n_waits;
	double *jcts_sorted;	/* every finished job's JCT, ascending */
	uint32_t n_jcts;
	/* waits of started jobs by GPUs asked: 1, 2-8, 9-32, 33+ */
	struct gt_dist wait_by_size[GT_N_SIZE_BUCKETS];
	/* reservations (docs/reservations.md): made, and GPU-hours held from other jobs */
	uint64_t reservations;
	double reserved_gpu_hours;
	double backfilled_gpu_hours;	/* of jobs backfilling reservations (core/reserve.h) */
	uint64_t max_runtime_evictions;	/* jobs the core evicted past their maximum run time: they end */
};

/* "1", "2-8", "9-32", "33+": the bucket of a job of @gpus GPUs (fractions count as 1). */
uint32_t gt_size_bucket(double gpus);
extern const char *const gt_size_bucket_names[GT_N_SIZE_BUCKETS];

void gt_replay_stats_release(struct gt_replay_stats *st);

#endif /* GT_REPLAY_METRICS_H */
