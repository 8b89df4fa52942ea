#include "harness.h"

#include <jansson.h>

#include "util/mem.h"

int gt_test_failures;

static void *json_alloc(size_t n)
{
	return gt_xmalloc(n);
}

int main(int argc, char **argv)
{
	/* as src/main.c: out of memory in jansson ends the process (the torture build relies on it) */
	json_set_alloc_funcs(json_alloc, free);
	int passed = 0, failed = 0;
	for (const struct gt_test *t = gt_tests; t->name; t++) {
		if (argc > 1 && strcmp(argv[1], t->name))
			continue;
		gt_test_failures = 0;
		t->fn();
		if (gt_test_failures) {
			fprintf(stderr, "FAIL %s.%s\n", gt_suite, t->name);
			failed++;
		} else {
			passed++;
		}
	}
	printf("%s: %d passed, %d failed\n", gt_suite, passed, failed);
	return failed ? 1 : 0;
}
