#include "harness.h"



int gt_test_failures;

int main(int argc, char **argv)
{
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
