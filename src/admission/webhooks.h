/*
 * webhooks.h - KAI v0.17's admission webhooks, as pure functions
 *
 * The API server POSTs an AdmissionReview (admission.k8s.io/v1) to a path;
 * the answer is another AdmissionReview that allows the request, allows it
 * with a JSON Patch (the mutating webhook) or denies it with KAI's message.
 * This module is that whole decision, with no I/O, no clock and no
 * randomness: bytes in, bytes out (gt_admission_handle). The TLS server
 * (server.h) feeds it; the unit tests and fuzzers call it directly.
 *
 * The paths and what each does, after KAI v0.17 (pkg/admission, the pod
 * group webhook in pkg/apis/scheduling/v2alpha2, the operator's
 * registrations in pkg/operator/operands):
 *
 *	/mutate--v1-pod                               GPU sharing: ConfigMaps,
 *	                                              env, volume, runtimeClass
 *	/validate--v1-pod                             fraction and memory values
 *	/validate-kai-scheduler-v1alpha1-topology     level aliases
 *	/validate-scheduling-run-ai-v2-queue          resources present
 *	/validate-scheduling-run-ai-v2alpha2-podgroup minMember / minSubGroup and
 *	                                              the sub-group tree
 *
 * Pods whose spec.schedulerName is not ours are allowed untouched, as
 * KAI's are. A request that is not a well-formed AdmissionReview, names
 * another kind than the path reviews, or an unknown operation, is answered
 * with status 400 and a message that says which field is wrong; a path
 * that is none of these is a 404; nothing crashes (tests/unit/test_admission
 * feeds it garbage).
 *
 * One deliberate difference: KAI names a pod's shared-GPU ConfigMaps with 7
 * random characters; here they are 7 characters of KAI's alphabet derived
 * from the request's uid (unique per request, as random ones are), so the
 * decision stays a pure function of the request.
 */
#ifndef GT_ADMISSION_WEBHOOKS_H
#define GT_ADMISSION_WEBHOOKS_H

#include <stdbool.h>
#include <stddef.h>

/* What KAI's admission takes as flags (cmd/admission/app/options.go), and the controllers' toggles. */
struct gt_admission_rules {
	const char *scheduler_name;	/* pods of other schedulers pass untouched */
	bool gpu_sharing;		/* false: fractional pods are refused (--gpu-sharing-enabled) */
	bool block_visible_devices;	/* --block-nvidia-visible-devices */
	const char *fraction_runtime_class;	/* set on fractional pods without one; NULL or "": none */
	bool queue_validation;		/* KAI's queueController.webhooks.enableValidation */
	bool podgroup_validation;	/* KAI's podGroupController.webhooks.enableValidation */
};

/* The webhooks, in the order the registrations list them. */
enum gt_webhook {
	GT_WEBHOOK_POD_MUTATE,
	GT_WEBHOOK_POD_VALIDATE,
	GT_WEBHOOK_TOPOLOGY,
	GT_WEBHOOK_QUEUE,
	GT_WEBHOOK_PODGROUP,
	GT_N_WEBHOOKS
};

/* The path the API server calls webhook @w on. */
const char *gt_webhook_path(enum gt_webhook w);

/* An HTTP answer: status, content type and a body to free(). */
struct gt_admission_reply {
	int http_status;
	const char *content_type;
	char *body;
	size_t len;
	/* for the log: the verdict in a few words ("allowed", "denied: <message>", "error 400: ...") */
	char summary[256];
};

/*
 * Answer the HTTP request @method @path with @body (@len bytes, need not be
 * NUL-terminated) and Content-Type @content_type (may be NULL) by
 * @rules. Total: every input gives a reply. Release it with
 * gt_admission_reply_release().
 */
void gt_admission_handle(const struct gt_admission_rules *rules, const char *method, const char *path,
			 const char *content_type, const char *body, size_t len, struct gt_admission_reply *out);
void gt_admission_reply_release(struct gt_admission_reply *r);

/* The largest review body read, as controller-runtime's (7 MiB); more is answered 413. */
#define GT_ADMISSION_MAX_BODY (7u << 20)

#endif /* GT_ADMISSION_WEBHOOKS_H */
