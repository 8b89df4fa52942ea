/*
 * test_kube_config.c - reaching the API server: kubeconfig files (clusters,
 * users, contexts, inline data and relative files, KUBECONFIG lists),
 * in-cluster service accounts, and the errors that name file and field
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/json.h"
#include "harness.h"
#include "kube/config.h"

const char *gt_suite = "kube_config";

static char tmpdir[256];

/* A fixture that cannot be made (out of memory in the torture build) stops the suite, with why. */
static void fixture_failed(const char *what)
{
	perror(what);
	exit(1);
}

static void mktmp(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/gantry-kcfg-XXXXXX");
	if (!mkdtemp(tmpdir))
		fixture_failed(tmpdir);
}

static void rmtmp(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

static const char *write_file(const char *name, const char *text)
{
	static char path[400];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		fixture_failed(path);
	fputs(text, f);
	fclose(f);
	return path;
}

/* base64 of "-----BEGIN CERTIFICATE-----\nX\n" */
#define CA_B64 "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClgK"

static const char kubeconfig[] =
	"apiVersion: v1\n"
	"kind: Config\n"
	"current-context: prod\n"
	"clusters:\n"
	"- name: prod-cluster\n"
	"  cluster:\n"
	"    server: https://10.0.0.1:6443/\n"
	"    certificate-authority-data: " CA_B64 "\n"
	"- name: dev-cluster\n"
	"  cluster:\n"
	"    server: https://127.0.0.1:8443\n"
	"    certificate-authority: certs/ca.crt\n"
	"    insecure-skip-tls-verify: true\n"
	"users:\n"
	"- name: admin\n"
	"  user:\n"
	"    client-certificate: certs/admin.crt\n"
	"    client-key: /abs/admin.key\n"
	"- name: robot\n"
	"  user:\n"
	"    token: s3cr3t\n"
	"- name: sso\n"
	"  user:\n"
	"    exec: {command: aws, apiVersion: client.authentication.k8s.io/v1}\n"
	"contexts:\n"
	"- name: prod\n"
	"  context: {cluster: prod-cluster, user: robot, namespace: team-a}\n"
	"- name: dev\n"
	"  context: {cluster: dev-cluster, user: admin}\n"
	"- name: sso\n"
	"  context: {cluster: prod-cluster, user: sso}\n"
	"- name: broken\n"
	"  context: {cluster: nowhere, user: robot}\n";

TEST(current_context_token_and_ca_data)
{
	mktmp();
	const char *p = write_file("config", kubeconfig);
	struct gt_kube_config c;
	struct gt_err err = { 0 };
	int rc = gt_kube_config_from_files(p, NULL, &c, &err);
	ASSERT_EQ(0, rc);
	ASSERT_STR("https://10.0.0.1:6443", c.server);	/* trailing slash dropped */
	ASSERT_STR("s3cr3t", c.token);
	ASSERT_STR("team-a", c.namespace);
	ASSERT_TRUE(c.ca_data != NULL);
	ASSERT_EQ(30, c.ca_len);
	ASSERT_TRUE(!memcmp(c.ca_data, "-----BEGIN CERTIFICATE-----\nX\n", 30));
	ASSERT_TRUE(!c.insecure);
	ASSERT_TRUE(c.cert_file == NULL && c.token_file == NULL);
	gt_kube_config_release(&c);
	rmtmp();
}

TEST(context_flag_client_cert_relative_paths)
{
	mktmp();
	const char *p = write_file("config", kubeconfig);
	struct gt_kube_config c;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_kube_config_from_files(p, "dev", &c, &err));
	char want[400];
	snprintf(want, sizeof(want), "%s/certs/admin.crt", tmpdir);
	ASSERT_STR(want, c.cert_file);
	ASSERT_STR("/abs/admin.key", c.key_file);
	snprintf(want, sizeof(want), "%s/certs/ca.crt", tmpdir);
	ASSERT_STR(want, c.ca_file);
	ASSERT_TRUE(c.insecure);
	ASSERT_STR("default", c.namespace);
	gt_kube_config_release(&c);
	rmtmp();
}

TEST(errors_name_file_and_field)
{
	mktmp();
	const char *p = write_file("config", kubeconfig);
	char path[400];
	snprintf(path, sizeof(path), "%s", p);
	struct gt_kube_config c;
	struct gt_err err = { 0 };
	ASSERT_EQ(GT_EINVAL, gt_kube_config_from_files(path, "sso", &c, &err));
	ASSERT_CONTAINS(err.msg, "user 'sso'");
	ASSERT_CONTAINS(err.msg, "exec plugins");
	ASSERT_EQ(GT_EINVAL, gt_kube_config_from_files(path, "broken", &c, &err));
	ASSERT_CONTAINS(err.msg, "cluster 'nowhere' is not defined");
	ASSERT_EQ(GT_EINVAL, gt_kube_config_from_files(path, "nope", &c, &err));
	ASSERT_CONTAINS(err.msg, "context 'nope' is not defined");
	const char *bad = write_file("bad", "clusters: [{name: x, cluster: {server: 'ftp://x'}}]\n"
					    "contexts: [{name: c, context: {cluster: x}}]\ncurrent-context: c\n");
	ASSERT_EQ(GT_EINVAL, gt_kube_config_from_files(bad, NULL, &c, &err));
	ASSERT_CONTAINS(err.msg, "field server");
	const char *b64 = write_file("b64", "clusters: [{name: x, cluster: {server: 'https://a', "
					    "certificate-authority-data: '!!notbase64'}}]\n"
					    "contexts: [{name: c, context: {cluster: x}}]\ncurrent-context: c\n");
	ASSERT_EQ(GT_EINVAL, gt_kube_config_from_files(b64, NULL, &c, &err));
	ASSERT_CONTAINS(err.msg, "certificate-authority-data");
	snprintf(path, sizeof(path), "%s/missing", tmpdir);
	ASSERT_EQ(GT_EIO, gt_kube_config_from_files(path, NULL, &c, &err));
	ASSERT_CONTAINS(err.msg, "cannot open");
	rmtmp();
}

TEST(kubeconfig_list_merges_first_wins)
{
	mktmp();
	char a[400], list[1400];
	snprintf(a, sizeof(a), "%s", write_file("a", "current-context: mine\n"
						 "contexts: [{name: mine, context: {cluster: shared, user: me}}]\n"
						 "users: [{name: me, user: {tokenFile: tok}}]\n"));
	const char *b = write_file("b", "current-context: theirs\n"
					"clusters: [{name: shared, cluster: {server: 'http://127.0.0.1:1'}}]\n"
					"users: [{name: me, user: {token: ignored}}]\n");
	snprintf(list, sizeof(list), "%s:%s/does-not-exist:%s", a, tmpdir, b);
	struct gt_kube_config c;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_kube_config_from_files(list, NULL, &c, &err));
	ASSERT_STR("http://127.0.0.1:1", c.server);
	char want[400];
	snprintf(want, sizeof(want), "%s/tok", tmpdir);
	ASSERT_STR(want, c.token_file);
	ASSERT_TRUE(c.token == NULL);
	gt_kube_config_release(&c);
	/* the loader honours KUBECONFIG when no file is given */
	setenv("KUBECONFIG", list, 1);
	ASSERT_EQ(0, gt_kube_config_load(NULL, NULL, &c, &err));
	ASSERT_STR("http://127.0.0.1:1", c.server);
	gt_kube_config_release(&c);
	unsetenv("KUBECONFIG");
	rmtmp();
}

TEST(in_cluster_service_account)
{
	mktmp();
	write_file("token", "eyJhbGciOi.token\n");
	write_file("ca.crt", "-----BEGIN CERTIFICATE-----\n");
	write_file("namespace", "kai-scheduler\n");
	setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	struct gt_kube_config c;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_kube_config_in_cluster(tmpdir, &c, &err));
	ASSERT_STR("https://10.96.0.1:443", c.server);
	ASSERT_STR("kai-scheduler", c.namespace);
	ASSERT_CONTAINS(c.token_file, "/token");
	ASSERT_CONTAINS(c.ca_file, "/ca.crt");
	gt_kube_config_release(&c);
	setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
	ASSERT_EQ(0, gt_kube_config_in_cluster(tmpdir, &c, &err));
	ASSERT_STR("https://[fd00::1]:443", c.server);
	gt_kube_config_release(&c);
	unlink(write_file("token", ""));
	ASSERT_EQ(GT_EIO, gt_kube_config_in_cluster(tmpdir, &c, &err));
	ASSERT_CONTAINS(err.msg, "service-account token");
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	ASSERT_EQ(GT_EINVAL, gt_kube_config_in_cluster(tmpdir, &c, &err));
	rmtmp();
}

TEST(base64)
{
	unsigned char *out;
	size_t n;
	ASSERT_EQ(0, gt_base64_decode("aGVsbG8gd29ybGQ=", &out, &n));
	ASSERT_EQ(11, n);
	ASSERT_STR("hello world", (char *)out);
	free(out);
	ASSERT_EQ(0, gt_base64_decode("aGVs\nbG8", &out, &n));
	ASSERT_STR("hello", (char *)out);
	free(out);
	ASSERT_EQ(-1, gt_base64_decode("aGV*bG8=", &out, &n));
	ASSERT_EQ(-1, gt_base64_decode("aGVsbG8=x", &out, &n));
}

TEST(json_to_doc_scalars)
{
	json_error_t je;
	json_t *j = json_loads("{\"s\":\"1\",\"i\":42,\"r\":0.1,\"t\":true,\"n\":null,\"a\":[1,\"x\"],"
			       "\"m\":{\"k\":\"v\"}}", 0, &je);
	ASSERT_TRUE(j != NULL);
	struct gt_doc *d = gt_doc_from_json(j);
	json_decref(j);
	ASSERT_STR("1", gt_doc_str(d, "s"));
	ASSERT_TRUE(gt_doc_get(d, "s")->quoted);
	ASSERT_STR("42", gt_doc_str(d, "i"));
	ASSERT_TRUE(!gt_doc_get(d, "i")->quoted);
	ASSERT_STR("0.1", gt_doc_str(d, "r"));
	ASSERT_STR("true", gt_doc_str(d, "t"));
	ASSERT_TRUE(gt_doc_str(d, "n") == NULL && gt_doc_is_null(gt_doc_get(d, "n")));
	ASSERT_EQ(2, gt_doc_get(d, "a")->n);
	ASSERT_STR("v", gt_doc_str(gt_doc_get(d, "m"), "k"));
	ASSERT_EQ(0, gt_doc_get(gt_doc_get(d, "m"), "k")->line);	/* API objects have no source lines */
	const char *path[] = { "metadata", "labels", "runai-gpu-group" };
	gt_doc_set(d, path, 3, "n1-gpu0", true);
	struct gt_doc *copy = gt_doc_copy(d);
	gt_doc_free(d);
	ASSERT_STR("n1-gpu0", gt_doc_str(gt_doc_path(copy, "metadata.labels"), "runai-gpu-group"));
	json_t *back = gt_doc_to_json(copy);
	gt_doc_free(copy);
	ASSERT_EQ(42, json_integer_value(json_object_get(back, "i")));
	ASSERT_STR("1", json_string_value(json_object_get(back, "s")));
	ASSERT_TRUE(json_is_null(json_object_get(back, "n")));
	json_decref(back);
}

const struct gt_test gt_tests[] = {
	T(current_context_token_and_ca_data),
	T(context_flag_client_cert_relative_paths),
	T(errors_name_file_and_field),
	T(kubeconfig_list_merges_first_wins),
	T(in_cluster_service_account),
	T(base64),
	T(json_to_doc_scalars),
	{ NULL, NULL },
};
