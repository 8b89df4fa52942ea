/*
 * err.h - the one error channel outside the core
 *
 * Functions that can fail return 0 or a negative GT_E* code and, when given a
 * struct gt_err, leave a message there that names the object and the field.
 * gt_errf() formats the message and returns the code, so a failure is one
 * line: return gt_errf(err, GT_EPARSE, "pod %s: bad quantity '%s'", ...).
 */
#ifndef GT_ERR_H
#define GT_ERR_H

#define GT_ERR_MAP(X)                                              \
	X(OK, 0, "success")                                        \
	X(EPARSE, -1, "malformed input")                           \
	X(EINVAL, -2, "invalid value")                             \
	X(EIO, -3, "input/output error")                           \
	X(ENOTFOUND, -4, "not found")                              \
	X(EINTERNAL, -5, "internal error")

enum gt_errcode {
#define GT_ERR_ENUM(name, code, text) GT_##name = code,
	GT_ERR_MAP(GT_ERR_ENUM)
#undef GT_ERR_ENUM
};

struct gt_err {
	int code;
	char msg[512];
};

int gt_errf(struct gt_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *gt_strerror(int code);

#endif /* GT_ERR_H */
