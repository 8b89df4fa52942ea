#include "explain/print.h"

#include <stdlib.h>
#include <string.h>

#include "core/placement.h"
#include "sim/table.h"
#include "util/time.h"

#define LABEL "  %-11s "
#define INDENT "              "

static const char *ordinal_suffix(uint32_t n)
{
	if (n % 100 >= 11 && n % 100 <= 13)
		return "th";
	return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

static void print_rejects(FILE *f, const struct gt_explanation *e)
{
	bool first = true;
	fprintf(f, LABEL, "Nodes:");
	for (int r = 1; r < GT_N_REJECT; r++) {
		if (!e->rejects[r])
			continue;
		fprintf(f, "%s%u %s", first ? "" : "; ", e->rejects[r], gt_reject_text((enum gt_reject)r));
		first = false;
	}
	fputc('\n', f);
}

static void print_forecast(FILE *f, const struct gt_explanation *e, int64_t now)
{
	const struct gt_forecast *fc = &e->forecast;
	fprintf(f, LABEL, "Expected:");
	if (!fc->estimated) {
		fprintf(f, "no estimate: %s\n", fc->why_not);
		return;
	}
	char ts[GT_TIME_LEN], in[32];
	gt_time_format(fc->start, ts, sizeof(ts));
	gt_format_duration((double)(fc->start - now), in, sizeof(in));
	if (fc->start <= now) {
		fprintf(f, "now: it is placed in this cycle\n");
		return;
	}
	fprintf(f, "%s%s (in %s)", fc->upper_bound ? "by " : "", ts, in);
	if (fc->last_pod != GT_NONE)
		fprintf(f, ", once %s ends (%s)", fc->last_pod_name, gt_end_source_name(fc->last_source));
	fprintf(f, ";\n" INDENT "%u pod(s) end before it, if nothing else arrives\n", fc->ended);
}

static void gpus_or_unlimited(FILE *f, double v)
{
	if (v < 0)
		fprintf(f, "unlimited");
	else
		fprintf(f, "%g", v);
}

static void print_members(FILE *f, const struct gt_explanation *e)
{
	if (e->has_standing) {
		fprintf(f, LABEL "quota ", "GPUs:");
		gpus_or_unlimited(f, e->quota_gpus);
		fprintf(f, ", limit ");
		gpus_or_unlimited(f, e->limit_gpus);
		fprintf(f, ", fair share %g, allocated %g; priority %d\n", e->fair_share_gpus, e->allocated_gpus,
			e->priority);
	}
	fprintf(f, LABEL "%u job(s), in the order allocate tries them\n", "Waiting:", e->n_members);
	for (uint32_t i = 0; i < e->n_members; i++) {
		const struct gt_ex_member *m = &e->members[i];
		fprintf(f, "    %u. %s/%s: %s", i + 1, m->ns, m->name, m->reason);
		if (m->message) {
			fputs(": ", f);
			gt_put_one_line(f, m->message);
		}
		fputc('\n', f);
	}
}

void gt_ex_print_text(FILE *f, const struct gt_explanation *e, int64_t now)
{
	if (e->ns)
		fprintf(f, "%s %s/%s", e->kind, e->ns, e->name);
	else
		fprintf(f, "%s %s", e->kind, e->name);
	if (e->queue)
		fprintf(f, " (queue %s)", e->queue);
	fputc('\n', f);
	if (e->n_members || !strcmp(e->reason, "Queue")) {
		print_members(f, e);
		return;
	}
	fprintf(f, LABEL "%s\n", "State:", e->state);
	fprintf(f, LABEL "%s", "Reason:", e->reason);
	if (e->kai_reason)
		fprintf(f, " (KAI: %s)", e->kai_reason);
	fputc('\n', f);
	if (e->message) {
		fprintf(f, LABEL, "Message:");
		gt_put_one_line(f, e->message);
		fputc('\n', f);
	}
	if (e->has_rejects)
		print_rejects(f, e);
	if (!strcmp(e->reason, "GangShort"))
		fprintf(f, LABEL "%u of %u pods placed\n", "Gang:", e->found, e->required);
	if (e->position)
		fprintf(f, LABEL "%u%s of %u waiting job(s) in queue %s\n", "Order:", e->position,
			ordinal_suffix(e->position), e->waiting, e->queue);
	for (uint32_t i = 0; i < e->n_hints; i++)
		fprintf(f, LABEL "%s\n", i ? "" : "To start:", e->hints[i].text);
	for (uint32_t i = 0; i < e->n_waits_for; i++)
		fprintf(f, LABEL "%s\n", i ? "" : "Waits for:", e->waits_for[i]);
	if (e->forecast_run)
		print_forecast(f, e, now);
	else if (e->no_forecast)
		fprintf(f, LABEL "no estimate: %s\n", "Expected:", e->no_forecast);
}

/* ---------------------------------------------------------------- JSON */

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *hints_json(const struct gt_explanation *e)
{
	json_t *a = json_array();
	for (uint32_t i = 0; i < e->n_hints; i++) {
		const struct gt_ex_hint *h = &e->hints[i];
		json_t *o = json_pack("{s:s, s:s}", "action", h->action, "text", h->text);
		if (h->object)
			json_object_set_new(o, "object", json_string(h->object));
		if (h->resource) {
			json_object_set_new(o, "resource", json_string(h->resource));
			json_object_set_new(o, "amount", json_real(h->amount));
		}
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *forecast_json(const struct gt_explanation *e, int64_t now)
{
	const struct gt_forecast *fc = &e->forecast;
	if (!fc->estimated)
		return json_pack("{s:b, s:s}", "estimated", 0, "why", fc->why_not);
	char ts[GT_TIME_LEN];
	gt_time_format(fc->start, ts, sizeof(ts));
	json_t *o = json_pack("{s:b, s:s, s:I, s:b, s:I}", "estimated", 1, "time", ts, "inSeconds",
			      (json_int_t)(fc->start - now), "latest", fc->upper_bound, "podsEnding",
			      (json_int_t)fc->ended);
	if (fc->last_pod != GT_NONE)
		json_object_set_new(o, "after", json_pack("{s:s, s:s}", "pod", fc->last_pod_name, "source",
							  gt_end_source_name(fc->last_source)));
	json_object_set_new(o, "assumes", json_string("nothing else arrives"));
	return o;
}

static json_t *rejects_json(const struct gt_explanation *e)
{
	json_t *o = json_object();
	for (int r = 1; r < GT_N_REJECT; r++)
		if (e->rejects[r])
			json_object_set_new(o, gt_reject_code((enum gt_reject)r), json_integer(e->rejects[r]));
	return o;
}

static json_t *members_json(const struct gt_explanation *e)
{
	json_t *a = json_array();
	for (uint32_t i = 0; i < e->n_members; i++) {
		const struct gt_ex_member *m = &e->members[i];
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:o}", "namespace", m->ns, "name", m->name,
						   "reason", m->reason, "message", str_or_null(m->message)));
	}
	return a;
}

json_t *gt_ex_json(const struct gt_explanation *e, int64_t now)
{
	json_t *o = json_pack("{s:s, s:o, s:s}", "kind", e->kind, "namespace", str_or_null(e->ns), "name", e->name);
	if (!strcmp(e->kind, "Queue")) {
		json_object_set_new(o, "gpus", json_pack("{s:o, s:o, s:f, s:f}",
							 "quota", e->quota_gpus < 0 ? json_null() : json_real(e->quota_gpus),
							 "limit", e->limit_gpus < 0 ? json_null() : json_real(e->limit_gpus),
							 "fairShare", e->fair_share_gpus, "allocated", e->allocated_gpus));
		json_object_set_new(o, "priority", json_integer(e->priority));
		json_object_set_new(o, "waiting", members_json(e));
		return o;
	}
	json_object_set_new(o, "queue", str_or_null(e->queue));
	json_object_set_new(o, "state", json_string(e->state));
	json_object_set_new(o, "reason", json_string(e->reason));
	json_object_set_new(o, "kaiReason", str_or_null(e->kai_reason));
	json_object_set_new(o, "message", str_or_null(e->message));
	if (e->has_rejects)
		json_object_set_new(o, "nodesRejected", rejects_json(e));
	if (e->required)
		json_object_set_new(o, "gang", json_pack("{s:I, s:I}", "have", (json_int_t)e->found, "required",
							 (json_int_t)e->required));
	if (e->position)
		json_object_set_new(o, "queueOrder", json_pack("{s:I, s:I}", "position", (json_int_t)e->position,
							       "waiting", (json_int_t)e->waiting));
	json_object_set_new(o, "toStart", hints_json(e));
	if (e->n_waits_for) {
		json_t *w = json_array();
		for (uint32_t i = 0; i < e->n_waits_for; i++)
			json_array_append_new(w, json_string(e->waits_for[i]));
		json_object_set_new(o, "waitsFor", w);
	}
	if (e->forecast_run)
		json_object_set_new(o, "expectedStart", forecast_json(e, now));
	else if (e->no_forecast)
		json_object_set_new(o, "expectedStart", json_pack("{s:b, s:s}", "estimated", 0, "why", e->no_forecast));
	else
		json_object_set_new(o, "expectedStart", json_null());
	return o;
}
