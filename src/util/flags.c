#include "util/flags.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/num.h"
#include "util/time.h"

const char *const gt_output_names[] = { "table", "wide", "json", "yaml", NULL };

/* ---------------------------------------------------------------- values */

static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "1")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "false") || !strcmp(v, "0")) {
		*out = false;
		return 0;
	}
	return -1;
}

/* Plain seconds ("90", "0.5") or a Go duration ("1m30s", "500ms"). */
static int parse_duration(const char *v, double *out)
{
	return gt_parse_number(v, out) && gt_duration_parse(v, out) ? -1 : 0;
}

static int bad(const struct gt_command *cmd, const char *flag, const char *v, const char *what)
{
	fprintf(stderr, "gantry %s: %s: %s, not '%s'\n", cmd->name, flag, what, v);
	return 2;
}

static int set_number(const struct gt_command *cmd, const struct gt_flag *f, const char *shown, const char *v)
{
	char what[160];
	if (f->type == GT_FLAG_SECONDS) {
		int64_t n;
		if ((gt_parse_int(v, &n) && gt_duration_parse_whole(v, &n)) || n < f->min || (f->max && n > f->max)) {
			snprintf(what, sizeof(what), "needs seconds or a duration such as 90s or 1h (%" PRId64
				 " s or more)", f->min);
			return bad(cmd, shown, v, what);
		}
		*(int64_t *)f->dest = n;
		return 0;
	}
	if (f->type == GT_FLAG_INT) {
		int64_t n;
		bool any = !f->min && !f->max;
		if (gt_parse_int(v, &n) || (!any && (n < f->min || n > f->max))) {
			if (any)
				snprintf(what, sizeof(what), "must be a whole number");
			else
				snprintf(what, sizeof(what), "must be a whole number from %" PRId64 " to %" PRId64,
					 f->min, f->max);
			return bad(cmd, shown, v, what);
		}
		*(int64_t *)f->dest = n;
		return 0;
	}
	double d;
	bool dur = f->type == GT_FLAG_DURATION;
	int rc = dur ? parse_duration(v, &d) : gt_parse_number(v, &d);
	if (rc || d < f->dmin || (f->dmin_open && d == f->dmin)) {
		snprintf(what, sizeof(what), "must be %s %s %g%s", dur ? "a duration (90s, 1m30s, 500ms)" : "a number",
			 f->dmin_open ? "above" : "of at least", f->dmin, dur ? " s" : "");
		return bad(cmd, shown, v, what);
	}
	*(double *)f->dest = d;
	return 0;
}

static int set_choice(const struct gt_command *cmd, const struct gt_flag *f, const char *shown, const char *v)
{
	char what[200] = "must be";
	size_t off = strlen(what);
	for (int i = 0; f->choices[i]; i++) {
		if (!strcmp(v, f->choices[i])) {
			*(int *)f->dest = i;
			return 0;
		}
		off += (size_t)snprintf(what + off, sizeof(what) - off, "%s%s", i ? (f->choices[i + 1] ? ", " : " or ")
										   : " ", f->choices[i]);
	}
	return bad(cmd, shown, v, what);
}

/* Give @f the value @v (@shown: the flag as written, for messages). 0 or 2. */
static int set_value(const struct gt_command *cmd, const struct gt_flag *f, const char *shown, const char *v)
{
	char why[200] = "";
	switch (f->type) {
	case GT_FLAG_BOOL:
		if (parse_bool(v, f->dest))
			return bad(cmd, shown, v, "takes true or false");
		break;
	case GT_FLAG_STRING:
		if (f->min && !*v)
			return bad(cmd, shown, v, "must not be empty");
		*(const char **)f->dest = v;
		break;
	case GT_FLAG_STRINGS: {
		struct gt_strings *s = f->dest;
		GT_PUSH(s->v, s->n, s->cap, v);
		break;
	}
	case GT_FLAG_INT:
	case GT_FLAG_DOUBLE:
	case GT_FLAG_DURATION:
	case GT_FLAG_SECONDS:
		if (set_number(cmd, f, shown, v))
			return 2;
		break;
	case GT_FLAG_CHOICE:
		if (set_choice(cmd, f, shown, v))
			return 2;
		break;
	case GT_FLAG_FUNC:
		if (f->parse(v, f->dest, why, sizeof(why)))
			return bad(cmd, shown, v, why);
		break;
	case GT_FLAG_SECTION:
		break;
	}
	if (f->seen)
		*f->seen = true;
	return 0;
}

/* ---------------------------------------------------------------- the parser */

static const struct gt_flag *find_long(const struct gt_command *cmd, const char *name, size_t len)
{
	for (size_t i = 0; i < cmd->n_flags; i++) {
		const struct gt_flag *f = &cmd->flags[i];
		if (f->type != GT_FLAG_SECTION && f->name && strlen(f->name) == len && !strncmp(f->name, name, len))
			return f;
	}
	return NULL;
}

static const struct gt_flag *find_short(const struct gt_command *cmd, char c)
{
	for (size_t i = 0; i < cmd->n_flags; i++)
		if (cmd->flags[i].type != GT_FLAG_SECTION && cmd->flags[i].short_name == c)
			return &cmd->flags[i];
	return NULL;
}

/* One flag at argv[*i]: 0 (and *i past its value), 1 for help, 2 on error. */
static int one_flag(const struct gt_command *cmd, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	bool is_long = a[1] == '-';
	const char *name = a + (is_long ? 2 : 1);
	const char *eq = is_long ? strchr(name, '=') : NULL;
	size_t len = eq ? (size_t)(eq - name) : is_long ? strlen(name) : 1;
	const char *inline_v = is_long ? (eq ? eq + 1 : NULL) : (name[1] ? name + 1 + (name[1] == '=') : NULL);
	if ((is_long && len == 4 && !strncmp(name, "help", 4)) || (!is_long && *name == 'h' && !name[1]))
		return 1;
	const struct gt_flag *f = is_long ? find_long(cmd, name, len) : find_short(cmd, *name);
	char shown[128];
	snprintf(shown, sizeof(shown), "%s%.*s", is_long ? "--" : "-", (int)len, name);
	if (!f) {
		if (is_long)
			fprintf(stderr, "gantry %s: unknown flag: %s\n", cmd->name, shown);
		else
			fprintf(stderr, "gantry %s: unknown shorthand flag: '%c' in %s\n", cmd->name, *name, a);
		fprintf(stderr, "run 'gantry %s --help' for the flags it takes\n", cmd->name);
		return 2;
	}
	if (f->type == GT_FLAG_BOOL && !inline_v)
		return set_value(cmd, f, shown, "true");
	if (!inline_v) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "gantry %s: flag needs an argument: %s\n", cmd->name, shown);
			return 2;
		}
		inline_v = argv[++*i];
	}
	return set_value(cmd, f, shown, inline_v);
}

int gt_flags_parse(const struct gt_command *cmd, int argc, char **argv)
{
	bool flags_done = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!flags_done && !strcmp(a, "--")) {
			flags_done = true;
			continue;
		}
		if (flags_done || a[0] != '-' || !a[1]) {	/* "-" alone is a file: stdin */
			if (!cmd->positional) {
				fprintf(stderr, "gantry %s: unexpected argument '%s'\n", cmd->name, a);
				fprintf(stderr, "run 'gantry %s --help' for the flags it takes\n", cmd->name);
				return 2;
			}
			GT_PUSH(cmd->positional->v, cmd->positional->n, cmd->positional->cap, a);
			continue;
		}
		int rc = one_flag(cmd, argc, argv, &i);
		if (rc == 1) {
			gt_flags_usage(cmd, stdout);
			return 1;
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* ---------------------------------------------------------------- help */

void gt_flags_usage(const struct gt_command *cmd, FILE *f)
{
	fprintf(f, "usage: gantry %s %s\n%s\n", cmd->name, cmd->synopsis, cmd->about);
	for (size_t i = 0; i < cmd->n_flags; i++) {
		const struct gt_flag *fl = &cmd->flags[i];
		if (fl->type == GT_FLAG_SECTION) {
			fprintf(f, "\n%s:\n", fl->help);
			continue;
		}
		char left[96];
		int n = snprintf(left, sizeof(left), "  %c%c%s%s%s%s%s", fl->short_name ? '-' : ' ',
				 fl->short_name ? fl->short_name : ' ', fl->short_name && fl->name ? ", " : "  ",
				 fl->name ? "--" : "", fl->name ? fl->name : "", fl->arg ? " " : "",
				 fl->arg ? fl->arg : "");
		const char *help = fl->help ? fl->help : "";
		for (bool first = true; first || *help; first = false) {
			size_t len = strcspn(help, "\n");
			if (first && n < 34)
				fprintf(f, "%-34s%.*s\n", left, (int)len, help);
			else if (first)
				fprintf(f, "%s\n%-34s%.*s\n", left, "", (int)len, help);
			else
				fprintf(f, "%-34s%.*s\n", "", (int)len, help);
			help += len + (help[len] == '\n');
		}
	}
	fprintf(f, "\n  -h, --help                      this help\n");
}

/* ---------------------------------------------------------------- shared checks */

int gt_lease_flags_check(const char *cmd, const struct gt_lease_flags *l)
{
	if (l->elect && l->renew_s >= l->lease_s) {
		fprintf(stderr, "gantry %s: --leader-elect-renew-deadline must be shorter than the lease duration\n",
			cmd);
		return 2;
	}
	return 0;
}

int gt_flag_log_level(const char *v, void *dest, char *why, size_t why_len)
{
	int lvl = gt_log_parse_level(v);
	if (lvl < 0) {
		snprintf(why, why_len, "must be error, warn, info or debug");
		return -1;
	}
	*(int *)dest = lvl;
	return 0;
}
