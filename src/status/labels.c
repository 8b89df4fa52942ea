/*
 * labels.c - KAI's queue-label-to-metric-label maps, parsed (controller.h)
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status/controller.h"
#include "util/mem.h"

void gt_queue_label_map_release(struct gt_queue_label_map *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->queue_key[i]);
		free(m->metric_label[i]);
		free(m->fallback[i]);
	}
	free(m->queue_key);
	free(m->metric_label);
	free(m->fallback);
	memset(m, 0, sizeof(*m));
}

static bool prometheus_label(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/*
 * Each "k=v" of @s to @fn (a later pair wins, as in KAI's map). -1 with why
 * for a pair without '='.
 */
static int each_pair(const char *s, const char *flag, int (*fn)(void *arg, const char *k, const char *v, char *why,
								size_t cap),
		     void *arg, char *why, size_t cap)
{
	if (!s || !*s)
		return 0;
	char *copy = gt_xstrdup(s), *save = NULL;
	int rc = 0;
	for (char *pair = strtok_r(copy, ",", &save); pair && !rc; pair = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(pair, '=');
		if (!eq) {
			snprintf(why, cap, "%s: invalid map item: \"%s\" (want key=value)", flag, pair);
			rc = -1;
			break;
		}
		*eq = '\0';
		rc = fn(arg, pair, eq + 1, why, cap);
	}
	free(copy);
	return rc;
}

static int put_label(void *arg, const char *k, const char *v, char *why, size_t cap)
{
	struct gt_queue_label_map *m = arg;
	if (!prometheus_label(v) || !strcmp(v, "queue_name") || !strcmp(v, "queue_metadata_name") ||
	    !strcmp(v, "queue_display_name")) {
		snprintf(why, cap, "--queue-label-to-metric-label: %s=%s: \"%s\" is no metric label of its own", k, v,
			 v);
		return -1;
	}
	size_t i = 0;
	while (i < m->n && strcmp(m->queue_key[i], k) < 0)
		i++;
	if (i < m->n && !strcmp(m->queue_key[i], k)) {
		free(m->metric_label[i]);
		m->metric_label[i] = gt_xstrdup(v);
		return 0;
	}
	m->queue_key = gt_xrealloc(m->queue_key, (m->n + 1) * sizeof(char *));
	m->metric_label = gt_xrealloc(m->metric_label, (m->n + 1) * sizeof(char *));
	m->fallback = gt_xrealloc(m->fallback, (m->n + 1) * sizeof(char *));
	memmove(&m->queue_key[i + 1], &m->queue_key[i], (m->n - i) * sizeof(char *));
	memmove(&m->metric_label[i + 1], &m->metric_label[i], (m->n - i) * sizeof(char *));
	memmove(&m->fallback[i + 1], &m->fallback[i], (m->n - i) * sizeof(char *));
	m->queue_key[i] = gt_xstrdup(k);
	m->metric_label[i] = gt_xstrdup(v);
	m->fallback[i] = NULL;
	m->n++;
	return 0;
}

static int put_default(void *arg, const char *k, const char *v, char *why, size_t cap)
{
	(void)why;
	(void)cap;
	struct gt_queue_label_map *m = arg;
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->queue_key[i], k)) {
			free(m->fallback[i]);
			m->fallback[i] = gt_xstrdup(v);
		}
	return 0;	/* a default for a label not mapped is unused, as in KAI */
}

int gt_queue_label_map_parse(const char *to_metric, const char *defaults, struct gt_queue_label_map *m, char *why,
			     size_t why_cap)
{
	memset(m, 0, sizeof(*m));
	if (each_pair(to_metric, "--queue-label-to-metric-label", put_label, m, why, why_cap) ||
	    each_pair(defaults, "--queue-label-to-default-metric-value", put_default, m, why, why_cap)) {
		gt_queue_label_map_release(m);
		return -1;
	}
	for (size_t i = 0; i < m->n; i++)
		for (size_t k = i + 1; k < m->n; k++)
			if (!strcmp(m->metric_label[i], m->metric_label[k])) {
				snprintf(why, why_cap, "--queue-label-to-metric-label: %s and %s both give label %s",
					 m->queue_key[i], m->queue_key[k], m->metric_label[i]);
				gt_queue_label_map_release(m);
				return -1;
			}
	return 0;
}
