/*
 * review.c - AdmissionReview in, AdmissionReview out; verdicts
 *
 * The answer has controller-runtime's shape, which is what the API server
 * reads from KAI's webhooks: the request's uid, allowed, status {code,
 * reason, message}, warnings, and for a change patchType JSONPatch with the
 * patch in base64.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/internal.h"
#include "api/json.h"
#include "util/mem.h"

json_t *obj_get_object(const json_t *o, const char *key)
{
	json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
	return json_is_object(v) ? v : NULL;
}

json_t *obj_get_array(const json_t *o, const char *key)
{
	json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
	return json_is_array(v) ? v : NULL;
}

const char *obj_get_string(const json_t *o, const char *key)
{
	json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* --- verdicts --------------------------------------------------------------------------- */

void verdict_allow(struct verdict *v)
{
	v->allowed = true;
	v->code = 200;
}

/* A refusal: @code and the formatted message replace what the verdict said before. */
static void refuse(struct verdict *v, int code, const char *fmt, va_list ap)
{
	free(v->message);
	v->message = gt_xvasprintf(fmt, ap);
	v->allowed = false;
	v->code = code;
}

void verdict_deny(struct verdict *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	refuse(v, 403, fmt, ap);
	va_end(ap);
}

void verdict_error(struct verdict *v, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	refuse(v, code, fmt, ap);
	va_end(ap);
}

void verdict_warn(struct verdict *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	GT_PUSH(v->warnings, v->n_warnings, v->cap_warnings, gt_xvasprintf(fmt, ap));
	va_end(ap);
}

void verdict_release(struct verdict *v)
{
	free(v->message);
	for (size_t i = 0; i < v->n_warnings; i++)
		free(v->warnings[i]);
	free(v->warnings);
	json_decref(v->patched);
	*v = (struct verdict){ 0 };
}

/* --- the request ------------------------------------------------------------------------- */

static const char *const op_names[] = { "CREATE", "UPDATE", "DELETE", "CONNECT" };

/* request.kind: {group, version, kind}, strings (group "" for the core API). */
static int decode_kind(json_t *req, struct review *r, char *why, size_t why_len)
{
	json_t *k = obj_get_object(req, "kind");
	r->group = obj_get_string(k, "group");
	r->version = obj_get_string(k, "version");
	r->kind = obj_get_string(k, "kind");
	if (!r->group)
		r->group = "";
	if (!k || !r->version || !r->kind) {
		snprintf(why, why_len, "request.kind must be an object with the strings group, version and kind");
		return -1;
	}
	return 0;
}

static int decode_operation(json_t *req, struct review *r, char *why, size_t why_len)
{
	const char *op = obj_get_string(req, "operation");
	for (size_t i = 0; op && i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (!strcmp(op, op_names[i])) {
			r->op = (enum review_op)i;
			return 0;
		}
	snprintf(why, why_len, "unknown operation \"%.64s\" (request.operation must be CREATE, UPDATE, DELETE "
		 "or CONNECT)", op ? op : "");
	return -1;
}

/* request.object / request.oldObject: an object, or absent / null. */
static int decode_object(json_t *req, const char *key, json_t **out, char *why, size_t why_len)
{
	json_t *o = json_object_get(req, key);
	*out = json_is_object(o) ? o : NULL;
	if (o && !json_is_object(o) && !json_is_null(o)) {
		snprintf(why, why_len, "request.%s must be an object", key);
		return -1;
	}
	return 0;
}

static int decode_request(json_t *req, struct review *r, char *why, size_t why_len)
{
	r->uid = obj_get_string(req, "uid");
	if (!r->uid || !*r->uid) {
		r->uid = NULL;
		snprintf(why, why_len, "request.uid is missing");
		return -1;
	}
	if (decode_kind(req, r, why, why_len) || decode_operation(req, r, why, why_len) ||
	    decode_object(req, "object", &r->object, why, why_len) ||
	    decode_object(req, "oldObject", &r->old_object, why, why_len))
		return -1;
	r->ns = obj_get_string(req, "namespace");
	r->name = obj_get_string(req, "name");
	if (!r->ns)
		r->ns = "";
	if (!r->name)
		r->name = "";
	return 0;
}

int review_decode(const char *body, size_t len, struct review *r, char *why, size_t why_len)
{
	*r = (struct review){ .api_version = "admission.k8s.io/v1" };
	json_error_t jerr;
	r->root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!r->root) {
		snprintf(why, why_len, "the body is not JSON: %s (line %d, column %d)", jerr.text, jerr.line,
			 jerr.column);
		return -1;
	}
	const char *av = obj_get_string(r->root, "apiVersion"), *kind = obj_get_string(r->root, "kind");
	if (!av || (strcmp(av, "admission.k8s.io/v1") && strcmp(av, "admission.k8s.io/v1beta1")) || !kind ||
	    strcmp(kind, "AdmissionReview")) {
		snprintf(why, why_len, "expected an AdmissionReview of admission.k8s.io/v1, got kind \"%.64s\" "
			 "apiVersion \"%.64s\"", kind ? kind : "", av ? av : "");
		return -1;
	}
	r->api_version = av;
	json_t *req = obj_get_object(r->root, "request");
	if (!req) {
		snprintf(why, why_len, "the AdmissionReview has no request");
		return -1;
	}
	return decode_request(req, r, why, why_len);
}

void review_release(struct review *r)
{
	json_decref(r->root);
	*r = (struct review){ 0 };
}

/* --- the answer -------------------------------------------------------------------------- */

static json_t *status_of(const struct verdict *v)
{
	json_t *st = json_pack("{s:{}, s:i}", "metadata", "code", v->code);
	if (!v->allowed && v->code == 403)
		json_object_set_new(st, "reason", json_string("Forbidden"));
	if (v->message && *v->message)
		json_object_set_new(st, "message", json_string(v->message));
	return st;
}

/* The JSON Patch from the reviewed object to the verdict's, in base64; NULL when nothing changed. */
static char *patch_of(const struct review *r, const struct verdict *v)
{
	if (!v->allowed || !v->patched || !r || !r->object)
		return NULL;
	json_t *ops = json_patch_diff(r->object, v->patched);
	char *b64 = NULL;
	if (json_array_size(ops)) {
		char *text = gt_json_dump(ops);
		b64 = gt_base64_encode((const unsigned char *)text, strlen(text));
		free(text);
	}
	json_decref(ops);
	return b64;
}

char *review_encode(const struct review *r, const struct verdict *v, size_t *len)
{
	json_t *resp = json_pack("{s:b, s:o}", "allowed", v->allowed, "status", status_of(v));
	if (r && r->uid)
		json_object_set_new(resp, "uid", json_string(r->uid));
	if (v->n_warnings) {
		json_t *w = json_array();
		for (size_t i = 0; i < v->n_warnings; i++)
			json_array_append_new(w, json_string(v->warnings[i]));
		json_object_set_new(resp, "warnings", w);
	}
	char *patch = patch_of(r, v);
	if (patch) {
		json_object_set_new(resp, "patchType", json_string("JSONPatch"));
		json_object_set_new(resp, "patch", json_string(patch));
		free(patch);
	}
	const char *av = r && r->api_version ? r->api_version : "admission.k8s.io/v1";
	char *out = gt_json_dump_take(json_pack("{s:s, s:s, s:o}", "apiVersion", av, "kind", "AdmissionReview",
						"response", resp));
	*len = strlen(out);
	return out;
}
