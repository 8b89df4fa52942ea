#include "kube/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/doc.h"
#include "api/json.h"
#include "util/log.h"
#include "util/mem.h"

#define MAX_FILES 16

/* The kubeconfig files in merge order, each with its directory for relative paths. */
struct files {
	struct gt_doc_list docs[MAX_FILES];
	char *names[MAX_FILES];
	size_t n;
};

static void files_release(struct files *f)
{
	for (size_t i = 0; i < f->n; i++) {
		gt_doc_list_release(&f->docs[i]);
		free(f->names[i]);
	}
	f->n = 0;
}

void gt_kube_config_release(struct gt_kube_config *c)
{
	free(c->server);
	free(c->ca_file);
	free(c->ca_data);
	free(c->cert_file);
	free(c->key_file);
	free(c->cert_data);
	free(c->key_data);
	free(c->token);
	free(c->token_file);
	free(c->namespace);
	free(c->source);
	memset(c, 0, sizeof(*c));
}

/* Read a small file whole (tokens, namespaces): at most 1 MiB. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = gt_xmalloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap) {
			if (cap >= (1 << 20)) {
				free(buf);
				fclose(f);
				return NULL;
			}
			cap *= 2;
			buf = gt_xrealloc(buf, cap);
		}
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static char *trim_dup(const char *s)
{
	while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == '\t'))
		n--;
	return gt_xstrndup(s, n);
}

/* @p resolved against the directory of kubeconfig @file. */
static char *resolve(const char *file, const char *p)
{
	if (p[0] == '/')
		return gt_xstrdup(p);
	const char *slash = strrchr(file, '/');
	if (!slash)
		return gt_xstrdup(p);
	size_t dl = (size_t)(slash - file);
	char *out = gt_xmalloc(dl + strlen(p) + 2);
	memcpy(out, file, dl);
	out[dl] = '/';
	strcpy(out + dl + 1, p);
	return out;
}

static int load_files(const char *paths, struct files *f, struct gt_err *err)
{
	char *copy = gt_xstrdup(paths);
	int rc = 0;
	for (char *save = NULL, *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
		if (!*p || f->n == MAX_FILES)
			continue;
		FILE *fp = fopen(p, "r");
		if (!fp) {
			/* KUBECONFIG may name files that do not exist; kubectl skips them */
			if (errno == ENOENT && strchr(paths, ':'))
				continue;
			rc = gt_errf(err, GT_EIO, "kubeconfig %s: cannot open: %s", p, strerror(errno));
			break;
		}
		struct gt_doc_list docs = { 0 };
		rc = gt_doc_parse_file(fp, p, &docs, err);
		fclose(fp);
		if (rc) {
			gt_doc_list_release(&docs);
			break;
		}
		f->docs[f->n] = docs;
		f->names[f->n++] = gt_xstrdup(p);
	}
	free(copy);
	if (!rc && !f->n)
		rc = gt_errf(err, GT_EIO, "kubeconfig: none of '%s' could be read", paths);
	return rc;
}

/*
 * The entry named @name in the list @section ("clusters", ...) of the first
 * file that has it; its inner map (@inner: "cluster", ...) and the file.
 */
static const struct gt_doc *find_named(const struct files *f, const char *section, const char *inner,
				       const char *name, const char **file)
{
	for (size_t i = 0; i < f->n; i++) {
		const struct gt_doc *root = f->docs[i].n ? f->docs[i].docs[0] : NULL;
		const struct gt_doc *list = gt_doc_get(root, section);
		for (size_t k = 0; list && list->kind == GT_DOC_SEQ && k < list->n; k++) {
			const char *n = gt_doc_str(list->items[k], "name");
			if (n && !strcmp(n, name)) {
				*file = f->names[i];
				return gt_doc_get(list->items[k], inner);
			}
		}
	}
	return NULL;
}

/* A file path or inline base64 data for one credential. */
static int file_or_data(const char *file, const struct gt_doc *m, const char *key_file,
			const char *key_data, char **out_file, unsigned char **out_data, size_t *out_len,
			struct gt_err *err)
{
	const char *data = gt_doc_str(m, key_data);
	const char *path = gt_doc_str(m, key_file);
	if (data) {
		if (gt_base64_decode(data, out_data, out_len))
			return gt_errf(err, GT_EINVAL, "kubeconfig %s: field %s: not valid base64", file, key_data);
	} else if (path) {
		*out_file = resolve(file, path);
	}
	return 0;
}

/* The context's cluster: its server, CA and TLS setting. */
static int read_cluster(struct files *f, const char *cfile, const char *ctx_name, const char *cluster_name,
			struct gt_kube_config *out, struct gt_err *err)
{
	const char *clfile = NULL;
	const struct gt_doc *cl = cluster_name ? find_named(f, "clusters", "cluster", cluster_name, &clfile) : NULL;
	if (!cl)
		return gt_errf(err, GT_EINVAL, "kubeconfig %s: context '%s': cluster '%s' is not defined", cfile,
			       ctx_name, cluster_name ? cluster_name : "");
	const char *server = gt_doc_str(cl, "server");
	if (!server || (strncmp(server, "https://", 8) && strncmp(server, "http://", 7)))
		return gt_errf(err, GT_EINVAL, "kubeconfig %s: cluster '%s': field server: must be an http(s) URL, not '%s'",
			       clfile, cluster_name, server ? server : "");
	size_t sl = strlen(server);
	while (sl && server[sl - 1] == '/')
		sl--;
	out->server = gt_xstrndup(server, sl);
	const char *insecure = gt_doc_str(cl, "insecure-skip-tls-verify");
	out->insecure = insecure && !strcmp(insecure, "true");
	return file_or_data(clfile, cl, "certificate-authority", "certificate-authority-data", &out->ca_file,
			    &out->ca_data, &out->ca_len, err);
}

/* The context's user: a client certificate and key, a token or a token file. */
static int read_user(struct files *f, const char *cfile, const char *ctx_name, const char *user_name,
		     struct gt_kube_config *out, struct gt_err *err)
{
	const char *ufile = NULL;
	const struct gt_doc *u = find_named(f, "users", "user", user_name, &ufile);
	if (!u && !find_named(f, "users", "name", user_name, &ufile))
		return gt_errf(err, GT_EINVAL, "kubeconfig %s: context '%s': user '%s' is not defined", cfile,
			       ctx_name, user_name);
	if (gt_doc_get(u, "exec") || gt_doc_get(u, "auth-provider"))
		return gt_errf(err, GT_EINVAL,
			       "kubeconfig %s: user '%s': exec plugins and auth providers are not supported; "
			       "use a token, a token file or a client certificate", ufile, user_name);
	int rc = file_or_data(ufile, u, "client-certificate", "client-certificate-data", &out->cert_file,
			      &out->cert_data, &out->cert_len, err);
	rc = rc ? rc : file_or_data(ufile, u, "client-key", "client-key-data", &out->key_file, &out->key_data,
				    &out->key_len, err);
	if (rc)
		return rc;
	bool has_cert = out->cert_file || out->cert_data, has_key = out->key_file || out->key_data;
	if (has_cert != has_key)
		return gt_errf(err, GT_EINVAL, "kubeconfig %s: user '%s': a client certificate needs its key and a key its certificate",
			       ufile, user_name);
	const char *tok = gt_doc_str(u, "token");
	const char *tokfile = gt_doc_str(u, "tokenFile");
	if (tok)
		out->token = gt_xstrdup(tok);
	else if (tokfile)
		out->token_file = resolve(ufile, tokfile);
	return 0;
}

/* The context to use: @context, else the first file's current-context. */
static const char *context_name(const struct files *f, const char *context)
{
	for (size_t i = 0; !context && i < f->n; i++) {
		const char *c = gt_doc_str(f->docs[i].n ? f->docs[i].docs[0] : NULL, "current-context");
		if (c && *c)
			context = c;
	}
	return context;
}

int gt_kube_config_from_files(const char *paths, const char *context, struct gt_kube_config *out,
			      struct gt_err *err)
{
	memset(out, 0, sizeof(*out));
	struct files f = { 0 };
	int rc = load_files(paths, &f, err);
	const char *ctx_name = rc ? NULL : context_name(&f, context);
	const char *cfile = NULL;
	const struct gt_doc *ctx = ctx_name ? find_named(&f, "contexts", "context", ctx_name, &cfile) : NULL;
	if (!rc && !ctx_name)
		rc = gt_errf(err, GT_EINVAL, "kubeconfig %s: no current-context and no --context given", paths);
	else if (!rc && !ctx)
		rc = gt_errf(err, GT_EINVAL, "kubeconfig %s: context '%s' is not defined", paths, ctx_name);
	const char *user_name = ctx ? gt_doc_str(ctx, "user") : NULL;
	rc = rc ? rc : read_cluster(&f, cfile, ctx_name, gt_doc_str(ctx, "cluster"), out, err);
	if (!rc && user_name && *user_name)
		rc = read_user(&f, cfile, ctx_name, user_name, out, err);
	if (!rc) {
		const char *ns = gt_doc_str(ctx, "namespace");
		out->namespace = gt_xstrdup(ns ? ns : "default");
		char src[600];
		snprintf(src, sizeof(src), "kubeconfig %s (context %s)", paths, ctx_name);
		out->source = gt_xstrdup(src);
	}
	files_release(&f);
	if (rc)
		gt_kube_config_release(out);
	return rc;
}

int gt_kube_config_in_cluster(const char *sa_dir, struct gt_kube_config *out, struct gt_err *err)
{
	memset(out, 0, sizeof(*out));
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	if (!host || !*host || !port || !*port)
		return gt_errf(err, GT_EINVAL, "in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
	char buf[600];
	bool v6 = strchr(host, ':') != NULL;
	snprintf(buf, sizeof(buf), "https://%s%s%s:%s", v6 ? "[" : "", host, v6 ? "]" : "", port);
	out->server = gt_xstrdup(buf);
	snprintf(buf, sizeof(buf), "%s/token", sa_dir);
	struct stat st;
	if (stat(buf, &st)) {
		gt_kube_config_release(out);
		return gt_errf(err, GT_EIO, "in-cluster: cannot read the service-account token %s: %s", buf,
			       strerror(errno));
	}
	out->token_file = gt_xstrdup(buf);
	snprintf(buf, sizeof(buf), "%s/ca.crt", sa_dir);
	if (!stat(buf, &st))
		out->ca_file = gt_xstrdup(buf);
	snprintf(buf, sizeof(buf), "%s/namespace", sa_dir);
	char *ns = slurp(buf, NULL);
	out->namespace = ns ? trim_dup(ns) : gt_xstrdup("default");
	free(ns);
	out->source = gt_xstrdup("in-cluster service account");
	return 0;
}

int gt_kube_config_load(const char *path, const char *context, struct gt_kube_config *out,
			struct gt_err *err)
{
	if (path && *path)
		return gt_kube_config_from_files(path, context, out, err);
	const char *env = getenv("KUBECONFIG");
	if (env && *env)
		return gt_kube_config_from_files(env, context, out, err);
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	if (host && *host)
		return gt_kube_config_in_cluster(GT_SA_DIR, out, err);
	const char *home = getenv("HOME");
	if (!home || !*home)
		return gt_errf(err, GT_EINVAL, "no kubeconfig: give --kubeconfig, set KUBECONFIG or HOME, or run in a pod");
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s/.kube/config", home);
	return gt_kube_config_from_files(buf, context, out, err);
}

void gt_kube_config_log(const char *component, const struct gt_kube_config *kc)
{
	gt_log(GT_LOG_INFO, component, "connecting to %s from %s%s", kc->server, kc->source,
	       kc->insecure ? " (TLS NOT verified: insecure-skip-tls-verify)" : "");
}
