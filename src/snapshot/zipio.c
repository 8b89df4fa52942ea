#include "snapshot/zipio.h"

#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "util/mem.h"

bool gt_zip_looks_like(const char *data, size_t len)
{
	return len >= 4 && data[0] == 'P' && data[1] == 'K' &&
	       ((data[2] == 3 && data[3] == 4) || (data[2] == 5 && data[3] == 6));
}

int gt_zip_read(const char *data, size_t len, const char *name, char **out, size_t *out_len,
		struct gt_err *err)
{
	zip_error_t ze;
	zip_error_init(&ze);
	zip_source_t *src = zip_source_buffer_create(data, len, 0, &ze);
	zip_t *za = src ? zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze) : NULL;
	if (!za) {
		int rc = gt_errf(err, GT_EPARSE, "%s: %s", gt_zip_looks_like(data, len) ?
				 "a ZIP archive that cannot be read (truncated?)" : "not a ZIP archive",
				 zip_error_strerror(&ze));
		zip_error_fini(&ze);
		if (src)
			zip_source_free(src);
		return rc;
	}
	zip_error_fini(&ze);
	int rc = 0;
	zip_stat_t st;
	zip_file_t *zf = NULL;
	if (zip_stat(za, name, 0, &st) || !(st.valid & ZIP_STAT_SIZE)) {
		rc = gt_errf(err, GT_ENOTFOUND, "the archive holds no %s", name);
		goto out;
	}
	zf = zip_fopen(za, name, 0);
	if (!zf) {
		rc = gt_errf(err, GT_EPARSE, "cannot open %s in the archive: %s", name, zip_strerror(za));
		goto out;
	}
	char *buf = gt_xmalloc(st.size + 1);
	zip_int64_t got = zip_fread(zf, buf, st.size);
	if (got < 0 || (zip_uint64_t)got != st.size) {
		rc = gt_errf(err, GT_EPARSE, "%s is damaged in the archive (truncated?): %s", name,
			     got < 0 ? zip_file_strerror(zf) : "short read");
		free(buf);
		goto out;
	}
	buf[st.size] = '\0';
	*out = buf;
	*out_len = st.size;
out:
	if (zf)
		zip_fclose(zf);
	zip_discard(za);	/* also frees src */
	return rc;
}

int gt_zip_write(const char *name, const char *data, size_t len, char **out, size_t *out_len,
		 struct gt_err *err)
{
	zip_error_t ze;
	zip_error_init(&ze);
	zip_source_t *dst = zip_source_buffer_create(NULL, 0, 0, &ze);
	zip_t *za = dst ? zip_open_from_source(dst, ZIP_TRUNCATE, &ze) : NULL;
	if (!za) {
		int rc = gt_errf(err, GT_EINTERNAL, "cannot make a ZIP archive: %s", zip_error_strerror(&ze));
		zip_error_fini(&ze);
		if (dst)
			zip_source_free(dst);
		return rc;
	}
	zip_error_fini(&ze);
	zip_source_keep(dst);	/* read it back after zip_close */
	zip_source_t *member = zip_source_buffer(za, data, len, 0);
	bool added = member && zip_file_add(za, name, member, ZIP_FL_ENC_UTF_8) >= 0;
	if (!added || zip_close(za)) {
		int rc = gt_errf(err, GT_EINTERNAL, "cannot write %s into a ZIP archive: %s", name, zip_strerror(za));
		if (member && !added)
			zip_source_free(member);	/* once added, the archive owns it */
		zip_discard(za);
		zip_source_free(dst);
		return rc;
	}
	zip_stat_t st;
	int rc = 0;
	if (zip_source_stat(dst, &st) || zip_source_open(dst)) {
		rc = gt_errf(err, GT_EINTERNAL, "cannot read the ZIP archive back");
		zip_source_free(dst);
		return rc;
	}
	char *buf = gt_xmalloc(st.size + 1);
	zip_int64_t got = zip_source_read(dst, buf, st.size);
	zip_source_close(dst);
	zip_source_free(dst);
	if (got < 0 || (zip_uint64_t)got != st.size) {
		free(buf);
		return gt_errf(err, GT_EINTERNAL, "cannot read the ZIP archive back");
	}
	*out = buf;
	*out_len = st.size;
	return 0;
}
