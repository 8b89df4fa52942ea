/*
 * regress_main.c - replay files through a fuzz target without libFuzzer
 *
 * `make fuzz-regress` links each tests/fuzz/fuzz_<name>.c with this file
 * under gcc's AddressSanitizer and UBSan (no clang needed) and runs it over
 * the target's corpus: every seed and every input that once crashed. Each
 * argument is a file or a directory of files. A sanitizer report stops the
 * run with its non-zero exit; LeakSanitizer checks the whole run at exit.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static size_t runs;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	size_t cap = 4096, n = 0, got;
	uint8_t *buf = gt_xmalloc(cap);
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = gt_xrealloc(buf, cap *= 2);
	}
	fclose(f);
	/* an exact-size copy, so ASan sees a read one byte past the input */
	uint8_t *exact = gt_xmalloc(n ? n : 1);
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	runs++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st)) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	DIR *d = opendir(path);
	if (!d) {
		perror(path);
		return 1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			GT_PUSH(names, n, cap, gt_xstrdup(e->d_name));
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);	/* the same order everywhere */
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(path) + strlen(names[i]) + 2;
		char *p = gt_xmalloc(len);
		snprintf(p, len, "%s/%s", path, names[i]);
		rc |= run_path(p);
		free(p);
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	int rc = 0;
	for (int i = 1; i < argc; i++)
		rc |= run_path(argv[i]);
	const char *slash = strrchr(argv[0], '/');
	printf("%s: %zu inputs, no crash\n", slash ? slash + 1 : argv[0], runs);
	return rc;
}
