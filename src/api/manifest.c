#include "api/manifest.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/doc_int.h"
#include "util/mem.h"

struct walk {
	bool recursive;
	struct gt_doc_list *docs;
	FILE *diag;
	const char *prefix;
	struct gt_err *err;
};

static void say_problems(const struct walk *w, size_t from)
{
	for (size_t i = from; w->diag && i < w->docs->n_problems; i++)
		fprintf(w->diag, "%s: %s%s\n", w->prefix, w->docs->problems[i].warning ? "warning: " : "",
			w->docs->problems[i].text);
}

static int load_file(const struct walk *w, const char *path)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "r");
	if (!f && errno == ENOMEM)
		gt_out_of_memory(0);	/* fopen's FILE: ours, not the file's problem */
	if (!f)
		return gt_errf(w->err, GT_EIO, "cannot open '%s': %s", path, strerror(errno));
	const char *name = is_stdin ? "<stdin>" : path;
	size_t docs = w->docs->n, problems = w->docs->n_problems, errors = w->docs->n_errors;
	struct gt_err perr = { 0 };
	int rc = gt_doc_parse_file(f, name, w->docs, &perr);
	if (!is_stdin)
		fclose(f);
	if (rc == GT_EIO)
		return gt_errf(w->err, GT_EIO, "%s", perr.msg);
	if (w->docs->n == docs && w->docs->n_errors == errors)
		gt_doc_problem_add(w->docs, true, "%s holds no objects", name);
	say_problems(w, problems);
	return 0;
}

static bool manifest_name(const char *n)
{
	size_t len = strlen(n);
	return n[0] != '.' && ((len > 5 && !strcmp(n + len - 5, ".yaml")) ||
			       (len > 4 && !strcmp(n + len - 4, ".yml")) ||
			       (len > 5 && !strcmp(n + len - 5, ".json")));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return strcmp(path, "-") && !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int load_path(const struct walk *w, const char *path);

/* The entries of @dir worth reading, sorted: manifests, and directories. */
static char **dir_entries(const char *dir, size_t *n, struct gt_err *err)
{
	DIR *d = opendir(dir);
	if (!d && errno == ENOMEM)
		gt_out_of_memory(0);
	if (!d) {
		gt_errf(err, GT_EIO, "cannot open '%s': %s", dir, strerror(errno));
		return NULL;
	}
	char **names = NULL;
	size_t cap = 0;
	*n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (manifest_name(e->d_name) || is_dir(path))
			GT_PUSH(names, *n, cap, gt_xstrdup(e->d_name));
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), cmp_str);
	return names ? names : gt_xcalloc(1, sizeof(*names));
}

static int load_dir(const struct walk *w, const char *dir)
{
	size_t n, docs = w->docs->n, problems = w->docs->n_problems;
	char **names = dir_entries(dir, &n, w->err);
	if (!names)
		return GT_EIO;
	int rc = 0;
	bool skipped = false;
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!rc && is_dir(path) && !w->recursive) {
			if (w->diag)
				fprintf(w->diag, "%s: warning: skipping the directory '%s' (-R reads directories "
					"recursively)\n", w->prefix, path);
			skipped = true;
		} else if (!rc) {
			rc = load_path(w, path);
		}
		free(names[i]);
	}
	free(names);
	if (!rc && w->docs->n == docs && w->docs->n_problems == problems && !skipped) {
		gt_doc_problem_add(w->docs, true, "directory %s holds no .yaml, .yml or .json files%s", dir,
				   w->recursive ? " (nor do its subdirectories)" : "");
		say_problems(w, problems);
	}
	return rc;
}

static int load_path(const struct walk *w, const char *path)
{
	return is_dir(path) ? load_dir(w, path) : load_file(w, path);
}

int gt_manifests_load(const char *const *paths, size_t n, bool recursive, struct gt_doc_list *docs,
		      FILE *diag, const char *prefix, struct gt_err *err)
{
	struct walk w = { .recursive = recursive, .docs = docs, .diag = diag, .prefix = prefix, .err = err };
	size_t errors = docs->n_errors;
	for (size_t i = 0; i < n; i++) {
		int rc = load_path(&w, paths[i]);
		if (rc)
			return rc;
	}
	if (docs->n_errors > errors)
		return gt_errf(err, GT_EPARSE, "%zu document%s or object%s could not be read (listed above)",
			       docs->n_errors - errors, docs->n_errors - errors == 1 ? "" : "s",
			       docs->n_errors - errors == 1 ? "" : "s");
	return 0;
}
