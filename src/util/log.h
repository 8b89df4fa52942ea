/*
 * log.h - leveled, structured log lines for the long-running commands
 *
 * One line per record in logfmt, which both people and log pipelines read:
 *
 *	time=2026-01-01T00:00:00.123Z level=info component=reflector msg="listed 12 pods"
 *
 * Lines are written whole under a lock, so records from different threads
 * never interleave. The scheduling core never logs; this is for src/kube.
 */
#ifndef GT_LOG_H
#define GT_LOG_H

#include <stdbool.h>

enum gt_log_level { GT_LOG_ERROR, GT_LOG_WARN, GT_LOG_INFO, GT_LOG_DEBUG };

void gt_log_set_level(enum gt_log_level level);
/* "error", "warn", "info" or "debug"; -1 if @s is none of them. */
int gt_log_parse_level(const char *s);
bool gt_log_enabled(enum gt_log_level level);
void gt_log(enum gt_log_level level, const char *component, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* GT_LOG_H */
