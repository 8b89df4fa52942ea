#include "util/file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

int gt_file_read(const char *path, char **out, size_t *len, struct gt_err *err)
{
	bool in = !strcmp(path, "-");
	FILE *f = in ? stdin : fopen(path, "rb");
	if (!f && errno == ENOMEM)
		gt_out_of_memory(0);	/* fopen's FILE: ours, not the file's problem */
	if (!f)
		return gt_errf(err, GT_EIO, "cannot open '%s': %s", path, strerror(errno));
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		GT_GROW(buf, n + 65536 + 1, cap);
		size_t got = fread(buf + n, 1, 65536, f);
		n += got;
		if (got < 65536)
			break;
	}
	int bad = ferror(f) ? errno : 0;
	if (!in)
		fclose(f);
	if (bad) {
		free(buf);
		return gt_errf(err, GT_EIO, "cannot read '%s': %s", path, strerror(bad));
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}
