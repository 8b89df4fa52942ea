/*
 * fuzz.h - what the fuzz targets share
 *
 * Each tests/fuzz/fuzz_<name>.c defines LLVMFuzzerTestOneInput() over one
 * public entry point. Built with clang -fsanitize=fuzzer it is a libFuzzer
 * binary (`make fuzz`); linked with regress_main.c under gcc's ASan/UBSan it
 * replays the corpus files (`make fuzz-regress`). A target must not keep
 * state between inputs, print on stdout, or leak: the same input must do the
 * same thing every time.
 */
#ifndef GT_FUZZ_H
#define GT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property of the code under test that failed: say which, then stop as a crash does. */
#define FUZZ_CHECK(cond)                                                                   \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                           \
		}                                                                          \
	} while (0)

/* @data as a NUL-terminated string (cut at its first NUL, as C text is). Free it. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	return gt_xstrndup((const char *)data, size);
}

/*
 * Write @data to a file of this process (the loaders under test take
 * paths) and return its path, valid until the next call. /dev/shm when
 * there is one: the fuzzers write it millions of times.
 */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
	static char path[256];
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(path, sizeof(path), "%s/gantry-fuzz-%ld%s", dir, (long)getpid(), suffix);
	FILE *f = fopen(path, "wb");
	if (!f) {
		perror(path);
		abort();
	}
	if (size && fwrite(data, 1, size, f) != size) {
		perror(path);
		abort();
	}
	fclose(f);
	return path;
}

#endif /* GT_FUZZ_H */
