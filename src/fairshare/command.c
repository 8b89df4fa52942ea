/*
 * command.c - `gantry fairshare`: flags and input
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fairshare/fairshare.h"
#include "fairshare/serve.h"
#include "util/file.h"
#include "util/flags.h"
#include "util/mem.h"

struct fs_opts {
	const char *file;	/* -f; "-" or NULL: stdin */
	const char *serve;	/* --serve ADDR */
	const char *over_time;	/* --over-time CONFIG */
	const char *output;	/* --output-file for the CSV; NULL or "-": stdout */
	bool cors;
	struct gt_strings positional;
};

/* The whole of @path ("-" or NULL: stdin) in *@out. 0, or 2 (said). */
static int slurp(const char *path, char **out, size_t *len)
{
	struct gt_err err = { 0 };
	if (!gt_file_read(path ? path : "-", out, len, &err))
		return 0;
	fprintf(stderr, "gantry fairshare: %s\n", err.msg);
	return 2;
}

static int parse_args(int argc, char **argv, struct fs_opts *o)
{
	*o = (struct fs_opts){ 0 };
	const struct gt_flag flags[] = {
		{ .type = GT_FLAG_SECTION, .help = "Input" },
		{ .type = GT_FLAG_STRING, .name = "filename", .short_name = 'f', .dest = &o->file, .arg = "FILE",
		  .help = "KAI's /simulate request JSON (default: standard input)" },
		{ .type = GT_FLAG_STRING, .name = "over-time", .dest = &o->over_time, .arg = "CONFIG", .min = 1,
		  .help = "run KAI's time-based fair-share simulator configuration (YAML;\n"
			  "- for stdin) and write its CSV" },
		{ .type = GT_FLAG_SECTION, .help = "Service" },
		{ .type = GT_FLAG_STRING, .name = "serve", .dest = &o->serve, .arg = "ADDR", .min = 1,
		  .help = "answer POST /simulate on HOST:PORT (:8080: every address), as KAI's\n"
			  "fairshare-simulator does, until SIGTERM" },
		{ .type = GT_FLAG_BOOL, .name = "enable-cors", .dest = &o->cors,
		  .help = "with --serve: answer OPTIONS and add CORS headers, as KAI's -enable-cors" },
		{ .type = GT_FLAG_SECTION, .help = "Output" },
		{ .type = GT_FLAG_STRING, .name = "output-file", .dest = &o->output, .arg = "FILE", .min = 1,
		  .help = "with --over-time: the CSV file (default: standard output)" },
	};
	const struct gt_command cmd = {
		.name = "fairshare", .synopsis = "[-f REQUEST.json] | --serve ADDR | --over-time CONFIG.yaml",
		.about = "KAI's fair-share simulators on Gantry's core: a /simulate request's fair shares,\n"
			 "the /simulate service, or the time-based simulator's CSV (docs/fairshare.md).",
		.flags = flags, .n_flags = GT_FLAGS_N(flags), .positional = &o->positional,
	};
	int rc = gt_flags_parse(&cmd, argc, argv);
	if (rc)
		return rc;
	if (o->positional.n == 1 && !o->file)
		o->file = o->positional.v[0];
	else if (o->positional.n) {
		fprintf(stderr, "gantry fairshare: unexpected argument '%s'\n", o->positional.v[o->positional.n - 1]);
		return 2;
	}
	int modes = !!o->serve + !!o->over_time + !!o->file;
	if (modes > 1) {
		fprintf(stderr, "gantry fairshare: give one of -f, --serve and --over-time\n");
		return 2;
	}
	if ((o->cors && !o->serve) || (o->output && !o->over_time)) {
		fprintf(stderr, "gantry fairshare: %s\n", o->cors ? "--enable-cors goes with --serve"
								  : "--output-file goes with --over-time");
		return 2;
	}
	return 0;
}

static int over_time(const struct fs_opts *o)
{
	char *cfg;
	size_t len;
	if (slurp(o->over_time, &cfg, &len))
		return 2;
	FILE *csv = !o->output || !strcmp(o->output, "-") ? stdout : fopen(o->output, "w");
	if (!csv) {
		fprintf(stderr, "gantry fairshare: cannot write '%s'\n", o->output);
		free(cfg);
		return 2;
	}
	struct gt_err err = { 0 };
	int rc = gt_fairshare_over_time(cfg, len, strcmp(o->over_time, "-") ? o->over_time : "<stdin>", csv,
					stderr, &err);
	if (csv != stdout && fclose(csv) && !rc) {
		fprintf(stderr, "gantry fairshare: cannot write '%s'\n", o->output);
		rc = GT_EIO;
	}
	free(cfg);
	if (rc && err.msg[0])
		fprintf(stderr, "gantry fairshare: %s\n", err.msg);
	return rc ? 2 : 0;
}

static int one_request(const struct fs_opts *o)
{
	char *body, *out = NULL;
	size_t len;
	if (slurp(o->file, &body, &len))
		return 2;
	struct gt_err err = { 0 };
	const char *name = o->file && strcmp(o->file, "-") ? o->file : "<stdin>";
	int rc = gt_fairshare_answer(body, len, &out, stderr, "gantry fairshare", &err);
	if (rc)
		fprintf(stderr, "gantry fairshare: %s: %s\n", name, err.msg);
	else
		fputs(out, stdout);
	free(out);
	free(body);
	return rc ? 2 : 0;
}

int gt_fairshare_main(int argc, char **argv)
{
	struct fs_opts o;
	int rc = parse_args(argc, argv, &o);
	if (!rc) {
		if (o.serve)
			rc = gt_fairshare_serve(o.serve, o.cors, stderr);
		else if (o.over_time)
			rc = over_time(&o);
		else
			rc = one_request(&o);
	} else if (rc == 1) {
		rc = 0;
	}
	free(o.positional.v);
	return rc;
}
