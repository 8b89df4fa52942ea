#include "util/file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/mem.h"
#include "util/pool.h"

/*
 * A regular file this large is read in parts, one per processor, all at
 * once. The kernel clears every fresh page a read copies into, and on a
 * machine of this project's kind (a paravirtualised guest) clearing memory
 * the host has taken back costs more than the copy: one thread read a
 * 71 MB List in 0.15 s, nearly all of it clearing; two clear about 1.5
 * times as fast. Parts of at least half of this.
 */
#define PARALLEL_READ_BYTES ((size_t)16 << 20)
#define MAX_PARTS 4

/* What a read asks for beyond what is known to be there: meeting the end takes a read that comes short. */
#define READ_ROOM ((size_t)65536)

struct part {
	int fd;
	char *to;
	off_t from;
	size_t len, got;
};

static void read_part(void *arg, size_t i)
{
	struct part *p = (struct part *)arg + i;
	while (p->got < p->len) {
		ssize_t r = pread(p->fd, p->to + p->got, p->len - p->got, p->from + (off_t)p->got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;	/* short: the caller reads the file in one piece, and says why if it fails */
		p->got += (size_t)r;
	}
}

/*
 * The first @size bytes of @f (a regular file, at offset @at) into @buf, in
 * parts at once; @f is left past them. false when a part came short (the
 * file shrank, or a read failed): nothing was taken from @f.
 */
static bool read_in_parts(FILE *f, off_t at, char *buf, size_t size)
{
	size_t n = gt_pool_cpus(MAX_PARTS);
	while (n > 1 && size / n < PARALLEL_READ_BYTES / 2)
		n--;
	if (n < 2)
		return false;
	struct part parts[MAX_PARTS];
	for (size_t k = 0; k < n; k++) {
		size_t from = size / n * k, to = k == n - 1 ? size : size / n * (k + 1);
		parts[k] = (struct part){ .fd = fileno(f), .to = buf + from, .from = at + (off_t)from, .len = to - from };
	}
	struct gt_pool *pool = gt_pool_new((int)n, "file read");
	gt_pool_for(pool, n, read_part, parts);
	gt_pool_free(pool, NULL);
	for (size_t k = 0; k < n; k++)
		if (parts[k].got < parts[k].len)
			return false;
	return fseeko(f, at + (off_t)size, SEEK_SET) == 0;
}

int gt_file_slurp(FILE *f, char **out, size_t *len)
{
	char *buf = NULL;
	size_t n = 0, cap = 0;
	/* a regular file says its size: one buffer and one read, not a buffer regrown and copied */
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		/* its size and room for the loop below to meet the end in, not the next power of two:
		 * the heap would grow by the unused tail too, and it is faulted in ahead (util/mem.h) */
		cap = (size_t)st.st_size + READ_ROOM + 1;
		buf = gt_xmalloc(cap);
		off_t at = ftello(f);
		if (at >= 0 && at < st.st_size && (size_t)(st.st_size - at) >= PARALLEL_READ_BYTES &&
		    read_in_parts(f, at, buf, (size_t)(st.st_size - at)))
			n = (size_t)(st.st_size - at);	/* then on, for what the file grew by since */
	}
	for (;;) {
		GT_GROW(buf, n + READ_ROOM + 1, cap);
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
