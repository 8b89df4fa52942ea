/*
 * config.h - how to reach the API server: kubeconfig or in-cluster
 *
 * The order kubectl and client-go use: an explicit --kubeconfig file; else
 * the files listed in KUBECONFIG (colon-separated, the first definition of a
 * name wins); else, inside a pod (KUBERNETES_SERVICE_HOST set), the service
 * account's token and CA; else ~/.kube/config. From the chosen context:
 * the cluster's server, CA (file or inline data) and
 * insecure-skip-tls-verify; the user's client certificate and key (file or
 * data), bearer token or token file. Relative paths in a kubeconfig are
 * relative to the file that names them. Exec plugins and auth providers are
 * refused with a message naming the user, not silently ignored.
 */
#ifndef GT_KUBE_CONFIG_H
#define GT_KUBE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

#define GT_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

struct gt_kube_config {
	char *server;		/* scheme://host:port, no trailing slash */
	char *ca_file;
	unsigned char *ca_data;	/* PEM bytes */
	size_t ca_len;
	char *cert_file, *key_file;
	unsigned char *cert_data, *key_data;
	size_t cert_len, key_len;
	char *token;
	char *token_file;	/* re-read now and then: service-account tokens rotate */
	bool insecure;		/* insecure-skip-tls-verify */
	char *namespace;	/* the context's namespace, or the pod's */
	char *source;		/* "kubeconfig /path (context x)" or "in-cluster", for logs */
};

/*
 * Load by the rules above. @path: an explicit kubeconfig or NULL; @context:
 * a context name or NULL for current-context. 0, or GT_EINVAL/GT_EIO with a
 * message naming the file and the field.
 */
int gt_kube_config_load(const char *path, const char *context, struct gt_kube_config *out,
			struct gt_err *err);
/* The log line every process gives when it starts to use @kc: the server, where it came from, TLS. */
void gt_kube_config_log(const char *component, const struct gt_kube_config *kc);
/* One kubeconfig file (or a colon-separated list). */
int gt_kube_config_from_files(const char *paths, const char *context, struct gt_kube_config *out,
			      struct gt_err *err);
/* In-cluster: KUBERNETES_SERVICE_HOST/PORT and @sa_dir's token, ca.crt and namespace. */
int gt_kube_config_in_cluster(const char *sa_dir, struct gt_kube_config *out, struct gt_err *err);
void gt_kube_config_release(struct gt_kube_config *c);

#endif /* GT_KUBE_CONFIG_H */
