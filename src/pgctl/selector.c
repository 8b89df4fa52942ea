/*
 * selector.c - KAI's label selectors: --pod-label-selector, --namespace-label-selector
 *
 * KAI's podgrouper takes them as "key=value,key=value" (options.go's
 * parseLabelSelector): pairs split at ",", each at its first "=", keys and
 * values trimmed; a pair without "=" is dropped. An object matches when it
 * has every key with that value (labels.Set.AsSelector()). Gantry drops
 * what KAI drops, and says so.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pgctl/pgctl.h"
#include "api/object.h"
#include "util/log.h"
#include "util/mem.h"

/* @s[0..n) without surrounding spaces, as a new string. */
static char *trimmed(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	char *out = gt_xmalloc(n + 1);
	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

void gt_pgctl_selector_parse(const char *flag, const char *text, struct gt_pgctl_selector *sel)
{
	memset(sel, 0, sizeof(*sel));
	for (const char *p = text; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		if (!eq) {
			char *bad = trimmed(p, len);
			if (*bad)
				gt_log(GT_LOG_WARN, "podgrouper", "--%s: '%s' is not key=value; ignored, as KAI "
				       "ignores it", flag, bad);
			free(bad);
		} else {
			struct gt_pgctl_label l = { trimmed(p, (size_t)(eq - p)),
						    trimmed(eq + 1, len - (size_t)(eq + 1 - p)) };
			GT_PUSH(sel->labels, sel->n, sel->cap, l);
		}
		p = end ? end + 1 : NULL;
	}
}

bool gt_pgctl_selector_match(const struct gt_pgctl_selector *sel, const struct gt_doc *obj)
{
	for (size_t i = 0; sel && i < sel->n; i++) {
		const char *v = gt_obj_label(obj, sel->labels[i].key);
		if (!v || strcmp(v, sel->labels[i].value))
			return false;
	}
	return true;
}

void gt_pgctl_selector_release(struct gt_pgctl_selector *sel)
{
	for (size_t i = 0; i < sel->n; i++) {
		free(sel->labels[i].key);
		free(sel->labels[i].value);
	}
	free(sel->labels);
	memset(sel, 0, sizeof(*sel));
}
