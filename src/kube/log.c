#include "kube/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static atomic_int log_level = GT_LOG_INFO;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static const char *const level_names[] = { "error", "warn", "info", "debug" };

void gt_log_set_level(enum gt_log_level level)
{
	atomic_store(&log_level, (int)level);
}

int gt_log_parse_level(const char *s)
{
	for (int i = 0; i <= GT_LOG_DEBUG; i++)
		if (!strcmp(s, level_names[i]))
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
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(line, 64, "time=%Y-%m-%dT%H:%M:%S", &tm);
	n += (size_t)snprintf(line + n, sizeof(line) - n, ".%03ldZ level=%s component=%s msg=\"",
			      ts.tv_nsec / 1000000, level_names[level], component);
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
