/*
 * command.c - `gantry admission`, and the admission the scheduler runs in-process
 */
#include "admission/admission.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/keeper.h"
#include "admission/server.h"
#include "kube/config.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/stop.h"

struct gt_admission {
	struct gt_admission_rules rules;
	struct gt_webhook_server *server;
	struct gt_keeper_opts ko;
	struct gt_keeper *keeper;
	const char **names;		/* the serving certificate's */
	char *url;			/* --webhook-url with the bound port */
};

/* A label value for the CEL match condition and selectors: no quote may end the expression early. */
static bool plain_name(const char *s)
{
	return s && *s && !strpbrk(s, "'\"\\ ");
}

int gt_admission_opts_check(const char *cmd, struct gt_admission_opts *a)
{
	if (a->hami_core) {
		fprintf(stderr, "gantry %s: --hami-core-enabled: not implemented: KAI's HAMi-core support needs its "
			"binder plugin to write CUDA_DEVICE_MEMORY_LIMIT, which Gantry's binder does not "
			"(docs/deploy.md)\n", cmd);
		return 2;
	}
	/* KAI: the new name wins; the deprecated one counts only when given alone */
	if (a->runtime_class_deprecated_given && !a->runtime_class_given)
		a->runtime_class = a->runtime_class_deprecated;
	if (a->port) {
		static char bind[16];
		snprintf(bind, sizeof(bind), ":%d", (int)a->port);
		a->bind = bind;
	}
	for (int l = 0; l < 2; l++) {
		const struct gt_strings *s = l ? &a->pod_labels : &a->namespace_labels;
		for (size_t i = 0; i < s->n; i++)
			if (!gt_registration_label_ok(s->v[i])) {
				fprintf(stderr, "gantry %s: --webhook-%s-label: '%s' is not KEY=VALUE\n", cmd,
					l ? "pod" : "namespace", s->v[i]);
				return 2;
			}
	}
	if (a->url && strncmp(a->url, "https://", 8)) {
		fprintf(stderr, "gantry %s: --webhook-url: '%s' is not https://host[:port] (the API server calls "
			"webhooks over TLS only)\n", cmd, a->url);
		return 2;
	}
	if (a->cert_validity_s >= a->ca_validity_s) {
		fprintf(stderr, "gantry %s: --tls-cert-validity must be shorter than --tls-ca-validity\n", cmd);
		return 2;
	}
	if (!a->check_s)
		a->check_s = a->cert_validity_s / 10 < 60 ? a->cert_validity_s / 10 : 60;
	return 0;
}

/* The Service's DNS names, as the API server asks for <service>.<ns>.svc, then --tls-san. */
static const char **serving_names(const struct gt_admission_opts *a, const char *ns, size_t *n)
{
	const char **v = gt_xcalloc(a->names.n + 4, sizeof(*v));
	static const char *const forms[] = { "%s", "%s.%s", "%s.%s.svc", "%s.%s.svc.cluster.local" };
	for (size_t i = 0; i < 4; i++) {
		char buf[512];
		snprintf(buf, sizeof(buf), forms[i], a->service, ns);
		v[i] = gt_xstrdup(buf);
	}
	for (size_t i = 0; i < a->names.n; i++)
		v[4 + i] = gt_xstrdup(a->names.v[i]);
	*n = 4 + a->names.n;
	return v;
}

/* --webhook-url with the port the server got when it names none ("https://127.0.0.1" -> ":<port>"). */
static char *url_with_port(const char *url, int port)
{
	const char *host = url + strlen("https://");
	size_t len = strcspn(host, "/");
	const char *close = host[0] == '[' ? memchr(host, ']', len) : NULL;	/* an IPv6 address */
	const char *after = close ? close + 1 : host;
	bool has_port = memchr(after, ':', len - (size_t)(after - host)) != NULL;
	size_t cap = strlen(url) + 16;
	char *out = gt_xmalloc(cap);
	if (has_port)
		snprintf(out, cap, "%.*s", (int)(host - url + (long)len), url);
	else
		snprintf(out, cap, "%.*s:%d", (int)(host - url + (long)len), url, port);
	return out;
}

static void keeper_options(struct gt_admission *ad, const struct gt_admission_opts *a, const char *ns,
			   const char *scheduler_name, size_t n_names)
{
	ad->ko = (struct gt_keeper_opts){
		.ns = ns, .secret = a->secret, .self_signed = a->self_signed,
		.policy = { ad->names, n_names, (int64_t)a->ca_validity_s, (int64_t)a->cert_validity_s },
		.register_webhooks = a->register_webhooks, .check_s = a->check_s, .server = ad->server,
		.reg = { .ns = ns, .service = a->service, .service_port = (int)a->service_port, .url = ad->url,
			 .mutating_name = a->mutating_name, .validating_name = a->validating_name,
			 .scheduler_name = scheduler_name, .namespace_labels = a->namespace_labels.v,
			 .n_namespace_labels = a->namespace_labels.n, .pod_labels = a->pod_labels.v,
			 .n_pod_labels = a->pod_labels.n, .queue_label_key = a->queue_label_key,
			 .queue_validation = a->queue_validation, .podgroup_validation = a->podgroup_validation,
			 .owner_name = a->owner },
	};
}

struct gt_admission *gt_admission_start(struct gt_kube_client *cl, const char *ns, const char *scheduler_name,
					const struct gt_admission_opts *a, struct gt_err *err)
{
	if (!plain_name(scheduler_name) || !plain_name(ns)) {
		gt_errf(err, GT_EINVAL, "the scheduler name and namespace of the webhooks must be plain names");
		return NULL;
	}
	struct gt_admission *ad = gt_xcalloc(1, sizeof(*ad));
	ad->rules = (struct gt_admission_rules){
		.scheduler_name = scheduler_name, .gpu_sharing = a->gpu_sharing,
		.block_visible_devices = a->block_visible_devices, .fraction_runtime_class = a->runtime_class,
		.queue_validation = a->queue_validation, .podgroup_validation = a->podgroup_validation,
	};
	ad->server = gt_webhook_server_start(a->bind, &ad->rules, err);
	if (!ad->server) {
		free(ad);
		return NULL;
	}
	size_t n_names;
	ad->names = serving_names(a, ns, &n_names);
	if (a->url)
		ad->url = url_with_port(a->url, gt_webhook_server_port(ad->server));
	keeper_options(ad, a, ns, scheduler_name, n_names);
	ad->keeper = gt_keeper_start(cl, &ad->ko);
	gt_log(GT_LOG_INFO, "admission", "serving KAI's admission webhooks for schedulerName %s on port %d (%s)",
	       scheduler_name, gt_webhook_server_port(ad->server),
	       ad->url ? ad->url : a->register_webhooks ? "registered with the Service" : "not registering");
	return ad;
}

bool gt_admission_ready(const struct gt_admission *ad)
{
	return ad && gt_keeper_ready(ad->keeper);
}

int gt_admission_port(const struct gt_admission *ad)
{
	return gt_webhook_server_port(ad->server);
}

void gt_admission_stop(struct gt_admission *ad)
{
	if (!ad)
		return;
	gt_keeper_stop(ad->keeper);
	gt_webhook_server_stop(ad->server);
	for (size_t i = 0; i < ad->ko.policy.n_names; i++)
		free((char *)ad->names[i]);
	free(ad->names);
	free(ad->url);
	free(ad);
}

void gt_admission_opts_release(struct gt_admission_opts *a)
{
	free(a->names.v);
	free(a->namespace_labels.v);
	free(a->pod_labels.v);
	a->names = a->namespace_labels = a->pod_labels = (struct gt_strings){ 0 };
}

/* --- gantry admission ---------------------------------------------------------------------- */

struct opts {
	struct gt_conn_flags conn;
	const char *scheduler_name, *ns;
	int log_level;
	struct gt_admission_opts adm;
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .conn = GT_CONN_DEFAULTS, .scheduler_name = "kai-scheduler", .ns = "kai-scheduler",
			    .log_level = GT_LOG_INFO, .adm = GT_ADMISSION_DEFAULTS };
	const struct gt_flag flags[] = {
		GT_CONN_FLAGS(&o->conn),
		{ .type = GT_FLAG_SECTION, .help = "Scope" },
		{ .type = GT_FLAG_STRING, .name = "scheduler-name", .dest = &o->scheduler_name, .arg = "NAME",
		  .min = 1, .help = "review pods with this schedulerName (default kai-scheduler)" },
		{ .type = GT_FLAG_STRING, .name = "namespace", .dest = &o->ns, .arg = "NS", .min = 1,
		  .help = "own namespace: the Service's and the Secret's (default kai-scheduler)" },
		{ .type = GT_FLAG_FUNC, .name = "log-level", .dest = &o->log_level, .arg = "L",
		  .parse = gt_flag_log_level, .help = "error, warn, info or debug (default info)" },
		GT_ADMISSION_FLAGS(&o->adm),
	};
	const struct gt_command cmd = {
		.name = "admission", .synopsis = "[flags]",
		.about = "Serve KAI v0.17's admission webhooks over HTTPS: GPU sharing for fractional pods,\n"
			 "validation of pods, Topologies, Queues and PodGroups; make, renew and register\n"
			 "their certificates (docs/deploy.md).",
		.flags = flags, .n_flags = GT_FLAGS_N(flags),
	};
	int rc = gt_flags_parse(&cmd, argc, argv);
	return rc ? rc : gt_admission_opts_check("admission", &o->adm);
}

int gt_admission_main(int argc, char **argv)
{
	struct opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc) {
		gt_admission_opts_release(&o.adm);
		return rc == 1 ? 0 : rc;
	}
	gt_log_set_level((enum gt_log_level)o.log_level);
	struct gt_kube_config cfg;
	struct gt_err err = { 0 };
	if (gt_kube_config_load(o.conn.kubeconfig, o.conn.context, &cfg, &err)) {
		fprintf(stderr, "gantry admission: %s\n", err.msg);
		gt_admission_opts_release(&o.adm);
		return 2;
	}
	gt_stop_start();	/* before any thread */
	struct gt_kube_client *cl = gt_kube_client_new(&cfg, o.conn.qps, (int)o.conn.burst,
						       (long)(o.conn.api_timeout_s * 1000));
	struct gt_admission *ad = gt_admission_start(cl, o.ns, o.scheduler_name, &o.adm, &err);
	if (!ad) {
		fprintf(stderr, "gantry admission: %s\n", err.msg);
		rc = 1;
	} else {
		while (!gt_stop_requested())
			gt_stop_sleep_until(gt_mono_ms() + 3600e3);
		gt_log(GT_LOG_INFO, "admission", "shutting down (signal)");
		gt_kube_client_stop(cl);
		gt_admission_stop(ad);
	}
	gt_kube_client_free(cl);
	gt_admission_opts_release(&o.adm);
	gt_stop_end();
	return rc;
}
