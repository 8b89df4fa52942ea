#include "util/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/strtab.h"
#include "util/time.h"

static atomic_int log_level = GT_LOG_INFO;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static const char *const level_names[] = { "error", "warn", "info", "debug" };

void gt_log_set_level(enum gt_log_level level)
{
	atomic_store(&log_level, (int)level);
}

int gt_log_parse_level(const char *s)
{
	int i = gt_name_index(level_names, GT_LOG_DEBUG + 1, s);
	if (i >= 0)
		return i;
	if (!strcmp(s, "warning"))
		return GT_LOG_WARN;
	return -1;
}

bool gt_log_enabled(enum gt_log_level level)
{
	return (int)level <= atomic_load(&log_level);
}

void gt_log(enum gt_log_level level, const char *component, const char *fmt, ...)
{
	if (!gt_log_enabled(level))
		return;
	char msg[2048], line[4200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char now[GT_TIME_LEN];
	gt_time_now_rfc3339(now, sizeof(now), 3);
	size_t n = (size_t)snprintf(line, sizeof(line), "time=%s level=%s component=%s msg=\"", now,
				    level_names[level], component);
	/* quote the message: a record stays one line whatever an object's name holds */
	for (const char *p = msg; *p && n + 4 < sizeof(line); p++) {
		if (*p == '"' || *p == '\\') {
			line[n++] = '\\';
			line[n++] = *p;
		} else if (*p == '\n') {
			line[n++] = '\\';
			line[n++] = 'n';
		} else if ((unsigned char)*p < 0x20) {
			line[n++] = ' ';
		} else {
			line[n++] = *p;
		}
	}
	line[n++] = '"';
	line[n++] = '\n';
	pthread_mutex_lock(&log_mu);
	fwrite(line, 1, n, stderr);
	fflush(stderr);
	pthread_mutex_unlock(&log_mu);
}
