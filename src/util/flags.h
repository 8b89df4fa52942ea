/*
 * flags.h - the one command-line parser: a table of flags, kubectl's rules
 *
 * Every subcommand describes its flags as a table of struct gt_flag rows
 * (name, short name, type, where the value goes, bounds, help) and calls
 * gt_flags_parse(). The rules are kubectl's (spf13/pflag's):
 *
 *	--name=value   --name value   -n value   -nvalue   -n=value
 *	--switch       --switch=true|false        (a bool takes no separate value)
 *	--             ends the flags: what follows is positional
 *
 * A flag that is not in the table is reported as unknown, whatever follows
 * it; a flag that needs a value and has none says so. Integers are whole
 * decimal numbers, checked against the row's bounds (no atoi: "10x" and
 * "" are errors); durations are Go durations or plain seconds ("90",
 * "1m30s", "500ms"). --help and -h print the usage, built from the same
 * table in one layout for every command:
 *
 *	usage: gantry simulate [flags] [FILE...]
 *	<what the command does>
 *
 *	Input:
 *	  -f, --filename FILE      Kubernetes objects ...
 *	      --cycles N           scheduling cycles to run (default 1)
 *
 * Groups of flags several commands share (the connection to the API
 * server, leader election, -o) are macros expanding to rows, so a command's
 * table lists them and they read the same everywhere.
 */
#ifndef GT_FLAGS_H
#define GT_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/log.h"

enum gt_flag_type {
	GT_FLAG_SECTION,	/* not a flag: a heading in the help (@help) */
	GT_FLAG_BOOL,		/* bool *dest */
	GT_FLAG_STRING,		/* const char **dest: the argv string itself; min 1: not empty */
	GT_FLAG_STRINGS,	/* struct gt_strings *dest: repeatable, each value appended */
	GT_FLAG_INT,		/* int64_t *dest, within [min, max] */
	GT_FLAG_DOUBLE,		/* double *dest, finite, >= dmin */
	GT_FLAG_DURATION,	/* double *dest, seconds: a Go duration or plain seconds, >= dmin */
	GT_FLAG_SECONDS,	/* int64_t *dest, whole seconds: "90" or a Go duration, within [min, max] */
	GT_FLAG_CHOICE,		/* int *dest: the index of the value in @choices */
	GT_FLAG_FUNC,		/* @parse(value, dest, why, why_len): 0 or -1 with @why */
};

/* Values of a repeatable flag, and positional arguments. */
struct gt_strings {
	const char **v;
	size_t n, cap;
};

struct gt_flag {
	enum gt_flag_type type;
	const char *name;		/* without "--"; NULL for a section or a short-only flag */
	char short_name;		/* 'f' for -f; 0 for none */
	void *dest;
	const char *arg;		/* the value's name in the help: "FILE", "N", "D" */
	const char *help;		/* one line; "\n" starts another */
	int64_t min, max;		/* GT_FLAG_INT: bounds (both 0: any int64) */
	double dmin;			/* GT_FLAG_DOUBLE, GT_FLAG_DURATION: least value */
	bool dmin_open;			/* the value must be > dmin, not >= */
	const char *const *choices;	/* GT_FLAG_CHOICE: NULL-terminated */
	int (*parse)(const char *v, void *dest, char *why, size_t why_len);
	bool *seen;			/* set when the flag was given (may be NULL) */
};

struct gt_command {
	const char *name;		/* "simulate": messages say "gantry simulate: ..." */
	const char *synopsis;		/* after "usage: gantry <name> " */
	const char *about;		/* what the command does, one or more lines */
	const struct gt_flag *flags;
	size_t n_flags;
	struct gt_strings *positional;	/* NULL: the command takes none */
};

#define GT_FLAGS_N(table) (sizeof(table) / sizeof((table)[0]))

/*
 * Parse @argv[1..@argc) (argv[0] is the command's name) by @cmd's table.
 * Returns 0, 1 after --help (printed on stdout: exit 0), or 2 with the
 * reason on stderr ("gantry <name>: unknown flag: --x"; exit 2).
 */
int gt_flags_parse(const struct gt_command *cmd, int argc, char **argv);
/* The usage, as --help prints it. */
void gt_flags_usage(const struct gt_command *cmd, FILE *f);

/* --- rows several commands share ------------------------------------------------ */

/* -o, --output: table, wide, json or yaml (enum gt_output). */
enum gt_output { GT_OUT_TABLE, GT_OUT_WIDE, GT_OUT_JSON, GT_OUT_YAML };
extern const char *const gt_output_names[];

#define GT_OUTPUT_FLAG(out)                                                                     \
	{ .type = GT_FLAG_CHOICE, .name = "output", .short_name = 'o', .dest = (out),            \
	  .arg = "FORMAT", .choices = gt_output_names,                                            \
	  .help = "table (default), wide (the table, every column), json or yaml" }

/* How to reach the API server. */
struct gt_conn_flags {
	const char *kubeconfig, *context;
	double qps;
	int64_t burst;
	double api_timeout_s;
};

#define GT_CONN_DEFAULTS { .qps = 50, .burst = 300, .api_timeout_s = 30 }

#define GT_CONN_FLAGS(c)                                                                         \
	{ .type = GT_FLAG_SECTION, .help = "Connection" },                                       \
	{ .type = GT_FLAG_STRING, .name = "kubeconfig", .dest = &(c)->kubeconfig, .arg = "FILE",  \
	  .help = "kubeconfig (else KUBECONFIG, in-cluster, ~/.kube/config)" },                   \
	{ .type = GT_FLAG_STRING, .name = "context", .dest = &(c)->context, .arg = "NAME",        \
	  .help = "kubeconfig context (default: current-context)" },                              \
	{ .type = GT_FLAG_DOUBLE, .name = "qps", .dest = &(c)->qps, .arg = "N",                   \
	  .help = "API requests per second (default 50; 0: no limit)" },                          \
	{ .type = GT_FLAG_INT, .name = "burst", .dest = &(c)->burst, .arg = "N", .min = 1,        \
	  .max = 100000, .help = "API requests in a burst (default 300)" },                       \
	{ .type = GT_FLAG_DURATION, .name = "api-timeout", .dest = &(c)->api_timeout_s,           \
	  .arg = "D", .dmin_open = true, .help = "per-request timeout (default 30s)" }

/* Leader election on a Lease. */
struct gt_lease_flags {
	bool elect;
	double lease_s, renew_s, retry_s;
	const char *name, *ns;		/* NULL: the command's default */
};

#define GT_LEASE_DEFAULTS { .lease_s = 15, .renew_s = 10, .retry_s = 2 }

#define GT_LEASE_FLAGS(l)                                                                        \
	{ .type = GT_FLAG_SECTION, .help = "Leader election" },                                  \
	{ .type = GT_FLAG_BOOL, .name = "leader-elect", .dest = &(l)->elect,                      \
	  .help = "elect a leader on a Lease (default false)" },                                  \
	{ .type = GT_FLAG_DURATION, .name = "leader-elect-lease-duration", .dest = &(l)->lease_s, \
	  .arg = "D", .dmin_open = true, .help = "how long a lease holds (default 15s)" },        \
	{ .type = GT_FLAG_DURATION, .name = "leader-elect-renew-deadline", .dest = &(l)->renew_s, \
	  .arg = "D", .dmin_open = true, .help = "a leader that cannot renew by then gives up (default 10s)" }, \
	{ .type = GT_FLAG_DURATION, .name = "leader-elect-retry-period", .dest = &(l)->retry_s,   \
	  .arg = "D", .dmin_open = true, .help = "between attempts (default 2s)" },               \
	{ .type = GT_FLAG_STRING, .name = "leader-elect-resource-name", .dest = &(l)->name,       \
	  .arg = "NAME", .help = "the Lease's name" },                                            \
	{ .type = GT_FLAG_STRING, .name = "leader-elect-resource-namespace", .dest = &(l)->ns,    \
	  .arg = "NS", .help = "the Lease's namespace" }

/*
 * What every controller process that watches the cluster takes (binder,
 * status controllers, podgrouper): its own namespace, the metrics address,
 * the log level and how it lists and watches. Its rows open the "Operation"
 * section; a command adds its own rows after them.
 */
struct gt_watch_flags {
	const char *ns, *metrics_addr;
	int log_level;
	int64_t page_size;
	double watch_timeout_s;
};

#define GT_WATCH_DEFAULTS                                                                       \
	{ .ns = "kai-scheduler", .metrics_addr = ":8080", .log_level = GT_LOG_INFO, .page_size = 500, \
	  .watch_timeout_s = 300 }

#define GT_WATCH_FLAGS(w)                                                                        \
	{ .type = GT_FLAG_SECTION, .help = "Operation" },                                        \
	{ .type = GT_FLAG_STRING, .name = "namespace", .dest = &(w)->ns, .arg = "NS",             \
	  .help = "own namespace: the Lease's unless said (default kai-scheduler)" },             \
	{ .type = GT_FLAG_STRING, .name = "metrics-bind-address", .dest = &(w)->metrics_addr,     \
	  .arg = "ADDR", .help = "/metrics (default :8080; \"0\" disables)" },               \
	{ .type = GT_FLAG_FUNC, .name = "log-level", .dest = &(w)->log_level, .arg = "L",         \
	  .parse = gt_flag_log_level, .help = "error, warn, info or debug (default info)" },      \
	{ .type = GT_FLAG_INT, .name = "page-size", .dest = &(w)->page_size, .arg = "N", .min = 1, \
	  .max = 100000, .help = "LIST page size (default 500)" },                                \
	{ .type = GT_FLAG_DURATION, .name = "watch-timeout", .dest = &(w)->watch_timeout_s,       \
	  .arg = "D", .dmin = 1, .help = "watch timeoutSeconds (default 5m)" }

/* --metrics-namespace: the prefix of the process's own metric names (a const char *), as KAI's. */
#define GT_METRICS_NAMESPACE_FLAG(d)                                                             \
	{ .type = GT_FLAG_STRING, .name = "metrics-namespace", .dest = (d), .arg = "P",           \
	  .help = "metric name prefix (default kai)" }

/* The renew deadline must be shorter than the lease: 0, or 2 with the message. */
int gt_lease_flags_check(const char *cmd, const struct gt_lease_flags *l);

/* A log level (util/log.h) for GT_FLAG_FUNC rows: dest is an int. */
int gt_flag_log_level(const char *v, void *dest, char *why, size_t why_len);

#endif /* GT_FLAGS_H */
