/*
 * admission.h - `gantry admission`: KAI v0.17's admission webhooks
 *
 * What KAI installs as three components (its admission Deployment, and the
 * webhooks of its queue and pod-group controllers), as one: the pod
 * webhooks for GPU sharing and validation, and the validation of
 * Topologies, Queues and PodGroups (webhooks.h), served over HTTPS
 * (server.h) with certificates Gantry makes, renews and publishes in the
 * webhook configurations it registers (keeper.h, certs.h,
 * registration.h).
 *
 * It runs alone (`gantry admission`) or inside the scheduler (`gantry
 * scheduler --admission`, as --podgrouper runs the podgrouper there): the
 * flags are the same group, GT_ADMISSION_FLAGS. Every replica serves; no
 * leader is needed (the replicas agree on the certificates through their
 * Secret).
 */
#ifndef GT_ADMISSION_H
#define GT_ADMISSION_H

#include <stdbool.h>
#include <stdint.h>

#include "admission/webhooks.h"
#include "kube/http.h"
#include "util/err.h"
#include "util/flags.h"

struct gt_admission_opts {
	const char *bind;		/* --webhook-bind-address */
	int64_t port;			/* KAI's --webhook-addr (a port); 0: not given */
	const char *url;		/* --webhook-url: register a URL instead of the Service */
	const char *service;		/* --webhook-service */
	int64_t service_port;
	const char *secret;		/* --tls-secret */
	bool self_signed;		/* --tls-self-signed */
	double ca_validity_s, cert_validity_s, check_s;
	struct gt_strings names;	/* --tls-san */
	bool register_webhooks;
	const char *mutating_name, *validating_name;
	const char *owner;		/* --webhook-owner-cluster-role */
	struct gt_strings namespace_labels, pod_labels;
	const char *queue_label_key;	/* --webhook-queue-label-key: namespaces need it (KAI's queueLabelSelector) */
	bool gpu_sharing, block_visible_devices, hami_core;
	const char *runtime_class, *runtime_class_deprecated;
	bool runtime_class_given, runtime_class_deprecated_given;
	bool queue_validation, podgroup_validation;
	bool given;			/* any of these flags was given (the scheduler warns without --admission) */
};

#define GT_ADMISSION_DEFAULTS                                                                        \
	{ .bind = ":9443", .service = "gantry-admission", .service_port = 443,                        \
	  .secret = "gantry-admission-tls", .self_signed = true, .ca_validity_s = 10 * 365 * 86400.0,  \
	  .cert_validity_s = 365 * 86400.0, .register_webhooks = true, .mutating_name = "gantry-admission", \
	  .validating_name = "gantry-admission", .runtime_class = "nvidia", .queue_validation = true, \
	  .podgroup_validation = true }

#define GT_ADMISSION_FLAGS(a)                                                                        \
	{ .type = GT_FLAG_SECTION, .help = "Admission webhooks (KAI's admission flags where KAI has one)" }, \
	{ .type = GT_FLAG_BOOL, .name = "gpu-sharing-enabled", .seen = &(a)->given, .dest = &(a)->gpu_sharing,            \
	  .help = "admit pods with gpu-fraction or gpu-memory (default false, as KAI)" },           \
	{ .type = GT_FLAG_BOOL, .name = "block-nvidia-visible-devices",                              \
	  .seen = &(a)->given, .dest = &(a)->block_visible_devices,                                                       \
	  .help = "NVIDIA_VISIBLE_DEVICES only void or none, set void where no GPU is asked" },      \
	{ .type = GT_FLAG_STRING, .name = "gpu-fraction-runtime-class-name", .dest = &(a)->runtime_class, \
	  .seen = &(a)->runtime_class_given, .arg = "RC",                                            \
	  .help = "runtimeClassName for fractional pods without one (default nvidia; \"\": none)" }, \
	{ .type = GT_FLAG_STRING, .name = "gpu-pod-runtime-class-name",                              \
	  .dest = &(a)->runtime_class_deprecated, .seen = &(a)->runtime_class_deprecated_given,      \
	  .arg = "RC", .help = "the same, KAI's deprecated name" },                                  \
	{ .type = GT_FLAG_BOOL, .name = "hami-core-enabled", .seen = &(a)->given, .dest = &(a)->hami_core,                \
	  .help = "KAI's HAMi-core CUDA_DEVICE_MEMORY_LIMIT: refused, Gantry's binder\n"             \
		  "does not write it" },                                                             \
	{ .type = GT_FLAG_BOOL, .name = "enable-queue-validation", .seen = &(a)->given, .dest = &(a)->queue_validation,    \
	  .help = "the Queue webhook (default true)" },                                              \
	{ .type = GT_FLAG_BOOL, .name = "enable-podgroup-validation",                                \
	  .seen = &(a)->given, .dest = &(a)->podgroup_validation, .help = "the PodGroup webhook (default true)" },        \
	{ .type = GT_FLAG_STRING, .name = "webhook-bind-address", .seen = &(a)->given, .dest = &(a)->bind, .arg = "ADDR",  \
	  .help = "HTTPS for the webhooks, /healthz, /readyz (default :9443)" },                    \
	{ .type = GT_FLAG_INT, .name = "webhook-addr", .seen = &(a)->given, .dest = &(a)->port, .arg = "PORT", .min = 1,   \
	  .max = 65535, .help = "the port alone, as KAI's admission takes it" },                     \
	{ .type = GT_FLAG_STRING, .name = "webhook-service", .seen = &(a)->given, .dest = &(a)->service, .arg = "NAME",    \
	  .min = 1, .help = "the Service the API server calls (default gantry-admission)" },         \
	{ .type = GT_FLAG_INT, .name = "webhook-service-port", .seen = &(a)->given, .dest = &(a)->service_port,           \
	  .arg = "PORT", .min = 1, .max = 65535, .help = "its port (default 443)" },                 \
	{ .type = GT_FLAG_STRING, .name = "webhook-url", .seen = &(a)->given, .dest = &(a)->url, .arg = "URL",            \
	  .help = "register https://host[:port] instead of the Service (no port: the\n"            \
		  "bound one); for a webhook outside the cluster" },                                \
	{ .type = GT_FLAG_BOOL, .name = "register-webhooks", .seen = &(a)->given, .dest = &(a)->register_webhooks,        \
	  .help = "write the webhook configurations (default true)" },                              \
	{ .type = GT_FLAG_STRING, .name = "mutating-webhook-configuration-name",                     \
	  .seen = &(a)->given, .dest = &(a)->mutating_name, .arg = "NAME", .min = 1, .help = "(default gantry-admission)" }, \
	{ .type = GT_FLAG_STRING, .name = "validating-webhook-configuration-name",                   \
	  .seen = &(a)->given, .dest = &(a)->validating_name, .arg = "NAME", .min = 1, .help = "(default gantry-admission)" }, \
	{ .type = GT_FLAG_STRING, .name = "webhook-owner-cluster-role", .seen = &(a)->given, .dest = &(a)->owner,         \
	  .arg = "NAME", .help = "the ClusterRole that owns the configurations (its deletion\n"     \
		  "removes them)" },                                                                 \
	{ .type = GT_FLAG_STRINGS, .name = "webhook-namespace-label", .seen = &(a)->given, .dest = &(a)->namespace_labels, \
	  .arg = "K=V", .help = "pod webhooks only in namespaces labelled so (repeatable)" },        \
	{ .type = GT_FLAG_STRINGS, .name = "webhook-pod-label", .seen = &(a)->given, .dest = &(a)->pod_labels,            \
	  .arg = "K=V", .help = "pod webhooks only for pods labelled so (repeatable)" },             \
	{ .type = GT_FLAG_STRING, .name = "webhook-queue-label-key", .seen = &(a)->given, .dest = &(a)->queue_label_key,  \
	  .arg = "KEY", .help = "pod webhooks only in namespaces with this label" },                 \
	{ .type = GT_FLAG_STRING, .name = "tls-secret", .seen = &(a)->given, .dest = &(a)->secret, .arg = "NAME", .min = 1, \
	  .help = "the Secret of the certificates (default gantry-admission-tls)" },                \
	{ .type = GT_FLAG_BOOL, .name = "tls-self-signed", .seen = &(a)->given, .dest = &(a)->self_signed,                \
	  .help = "make and renew the CA and certificate in it (default true;\n"                     \
		  "false: cert-manager's, read only)" },                                             \
	{ .type = GT_FLAG_STRINGS, .name = "tls-san", .seen = &(a)->given, .dest = &(a)->names, .arg = "NAME",            \
	  .help = "another DNS name or IP of the serving certificate (repeatable)" },              \
	{ .type = GT_FLAG_DURATION, .name = "tls-ca-validity", .seen = &(a)->given, .dest = &(a)->ca_validity_s, .arg = "D", \
	  .dmin = 30, .help = "the CA's life (default 87600h); renewed at 2/3" },                  \
	{ .type = GT_FLAG_DURATION, .name = "tls-cert-validity", .seen = &(a)->given, .dest = &(a)->cert_validity_s,      \
	  .arg = "D", .dmin = 10, .help = "the serving certificate's (default 8760h); renewed at 2/3" }, \
	{ .type = GT_FLAG_DURATION, .name = "tls-check-interval", .seen = &(a)->given, .dest = &(a)->check_s, .arg = "D",  \
	  .dmin_open = true, .help = "look at the Secret at least this often\n"                     \
		  "(default: a tenth of the certificate's life, at most 1m)" }

/*
 * Check @a's flags together (@cmd names the command in messages) and
 * resolve KAI's aliases: 0, or 2 with the message on stderr.
 */
int gt_admission_opts_check(const char *cmd, struct gt_admission_opts *a);

struct gt_admission;

/*
 * Serve the webhooks for pods of @scheduler_name, Gantry running in @ns
 * (where its Service and Secret are), and keep their certificates and
 * registrations. NULL with the reason in @err (the port cannot be had).
 * @a is borrowed and outlives the admission.
 */
struct gt_admission *gt_admission_start(struct gt_kube_client *cl, const char *ns, const char *scheduler_name,
					const struct gt_admission_opts *a, struct gt_err *err);
/* A certificate is served (and, registering, the configurations carry its CA). */
bool gt_admission_ready(const struct gt_admission *ad);
/* The HTTPS port. */
int gt_admission_port(const struct gt_admission *ad);
/* Stop and free: after gt_kube_client_stop(). */
void gt_admission_stop(struct gt_admission *ad);
void gt_admission_opts_release(struct gt_admission_opts *a);

/* Run `gantry admission ARGS` (argv[0] = "admission"); the process exit status. */
int gt_admission_main(int argc, char **argv);

#endif /* GT_ADMISSION_H */
