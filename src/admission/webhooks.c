/*
 * webhooks.c - an HTTP request in, the webhook's answer out
 *
 * As controller-runtime answers for KAI: a review that cannot be read, or
 * names the wrong kind, is answered 200 with allowed false and status 400
 * and the reason (the API server shows it to the user); a body over 7 MiB
 * 413; a path that is no webhook is a plain 404, another method than POST
 * a 405.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/internal.h"
#include "util/mem.h"

struct webhook {
	const char *path;
	const char *group, *version, *kind;	/* what it reviews */
};

static const struct webhook webhooks[GT_N_WEBHOOKS] = {
	[GT_WEBHOOK_POD_MUTATE] = { "/mutate--v1-pod", "", "v1", "Pod" },
	[GT_WEBHOOK_POD_VALIDATE] = { "/validate--v1-pod", "", "v1", "Pod" },
	[GT_WEBHOOK_TOPOLOGY] = { "/validate-kai-scheduler-v1alpha1-topology", "kai.scheduler", "v1alpha1", "Topology" },
	[GT_WEBHOOK_QUEUE] = { "/validate-scheduling-run-ai-v2-queue", "scheduling.run.ai", "v2", "Queue" },
	[GT_WEBHOOK_PODGROUP] = { "/validate-scheduling-run-ai-v2alpha2-podgroup", "scheduling.run.ai", "v2alpha2",
				  "PodGroup" },
};

const char *gt_webhook_path(enum gt_webhook w)
{
	return w < GT_N_WEBHOOKS ? webhooks[w].path : NULL;
}

static void plain(struct gt_admission_reply *out, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void plain(struct gt_admission_reply *out, int status, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	size_t len = n < 0 ? 0 : (size_t)n < sizeof(buf) - 1 ? (size_t)n : sizeof(buf) - 2;
	buf[len++] = '\n';
	buf[len] = '\0';
	out->http_status = status;
	out->content_type = "text/plain; charset=utf-8";
	out->body = gt_xstrdup(buf);
	out->len = len;
	snprintf(out->summary, sizeof(out->summary), "HTTP %d: %.200s", status, buf);
}

static void answer(struct gt_admission_reply *out, const struct review *r, const struct verdict *v)
{
	out->http_status = 200;
	out->content_type = "application/json";
	out->body = review_encode(r, v, &out->len);
	if (v->allowed)
		snprintf(out->summary, sizeof(out->summary), "allowed%s%s", v->patched ? " (mutated)" : "",
			 v->n_warnings ? ", with warnings" : "");
	else
		snprintf(out->summary, sizeof(out->summary), "%s %d: %.200s", v->code == 403 ? "denied" : "error",
			 v->code, v->message ? v->message : "");
}

static bool webhook_enabled(const struct gt_admission_rules *rules, enum gt_webhook w)
{
	return (w != GT_WEBHOOK_QUEUE || rules->queue_validation) &&
	       (w != GT_WEBHOOK_PODGROUP || rules->podgroup_validation);
}

/* The review is for what webhook @w reviews, with the object its operation needs. */
static bool review_fits(enum gt_webhook w, const struct review *r, struct verdict *v)
{
	const struct webhook *h = &webhooks[w];
	if (strcmp(r->group, h->group) || strcmp(r->version, h->version) || strcmp(r->kind, h->kind)) {
		verdict_error(v, 400, "%s reviews %s%s%s/%s, not %s%s%s/%s", h->path, h->group, *h->group ? "/" : "",
			      h->version, h->kind, r->group, *r->group ? "/" : "", r->version, r->kind);
		return false;
	}
	if ((r->op == OP_CREATE || r->op == OP_UPDATE) && !r->object) {
		verdict_error(v, 400, "request.object is missing for %s", r->op == OP_CREATE ? "CREATE" : "UPDATE");
		return false;
	}
	return true;
}

static void run(const struct gt_admission_rules *rules, enum gt_webhook w, const struct review *r, struct verdict *v)
{
	switch (w) {
	case GT_WEBHOOK_POD_MUTATE:
		pod_mutate(rules, r, v);
		break;
	case GT_WEBHOOK_POD_VALIDATE:
		pod_validate(rules, r, v);
		break;
	case GT_WEBHOOK_TOPOLOGY:
		topology_validate(r, v);
		break;
	case GT_WEBHOOK_QUEUE:
		queue_validate(r, v);
		break;
	case GT_WEBHOOK_PODGROUP:
		podgroup_validate(r, v);
		break;
	case GT_N_WEBHOOKS:
		break;
	}
}

/* controller-runtime takes only application/json (a charset parameter aside). */
static bool is_json(const char *ctype)
{
	size_t n = strlen("application/json");
	return ctype && !strncmp(ctype, "application/json", n) && (!ctype[n] || ctype[n] == ';');
}

void gt_admission_handle(const struct gt_admission_rules *rules, const char *method, const char *path,
			 const char *content_type, const char *body, size_t len, struct gt_admission_reply *out)
{
	*out = (struct gt_admission_reply){ 0 };
	int w = 0;
	while (w < GT_N_WEBHOOKS && strcmp(path, webhooks[w].path))
		w++;
	if (w == GT_N_WEBHOOKS || !webhook_enabled(rules, (enum gt_webhook)w)) {
		plain(out, 404, "no webhook at %.200s", path);
		return;
	}
	if (strcmp(method, "POST")) {
		plain(out, 405, "%.200s takes POST, not %.20s", path, method);
		return;
	}
	struct review r = { 0 };
	struct verdict v = { 0 };
	char why[300];
	if (len > GT_ADMISSION_MAX_BODY)
		verdict_error(&v, 413, "request entity is too large; limit is %u bytes", GT_ADMISSION_MAX_BODY);
	else if (!is_json(content_type))
		verdict_error(&v, 400, "contentType=%.100s, expected application/json", content_type ? content_type : "");
	else if (review_decode(body, len, &r, why, sizeof(why)))
		verdict_error(&v, 400, "%s", why);
	else if (review_fits((enum gt_webhook)w, &r, &v))
		run(rules, (enum gt_webhook)w, &r, &v);
	answer(out, r.root ? &r : NULL, &v);
	verdict_release(&v);
	review_release(&r);
}

void gt_admission_reply_release(struct gt_admission_reply *r)
{
	free(r->body);
	*r = (struct gt_admission_reply){ 0 };
}
