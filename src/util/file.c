#include "util/file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/mem.h"

int gt_file_slurp(FILE *f, char **out, size_t *len)
{
	char *buf = NULL;
	size_t n = 0, cap = 0;
	/* a regular file says its size: one buffer and one read, not a buffer regrown and copied */
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		GT_GROW(buf, (size_t)st.st_size + 2, cap);
	for (;;) {
		GT_GROW(buf, n + 65536 + 1, cap);
		size_t room = cap - n - 1;
		size_t got = fread(buf + n, 1, room, f);
		n += got;
		if (got < room)
			break;
	}
	int bad = ferror(f) ? (errno ? errno : EIO) : 0;
	if (bad) {
		free(buf);
		return bad;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int gt_file_read(const char *path, char **out, size_t *len, struct gt_err *err)
{
	bool in = !strcmp(path, "-");
	FILE *f = in ? stdin : fopen(path, "rb");
	if (!f && errno == ENOMEM)
		gt_out_of_memory(0);	/* fopen's FILE: ours, not the file's problem */
	if (!f)
		return gt_errf(err, GT_EIO, "cannot open '%s': %s", path, strerror(errno));
	int bad = gt_file_slurp(f, out, len);
	if (!in)
		fclose(f);
	if (bad)
		return gt_errf(err, GT_EIO, "cannot read '%s': %s", path, strerror(bad));
	return 0;
}
