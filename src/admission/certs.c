/*
 * certs.c - certificates with GnuTLS (the TLS library libmicrohttpd uses on
 * Debian, so the server and the certificates speak the same one)
 */
#include "admission/certs.h"

#include <arpa/inet.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define CA_NAME "gantry-admission-ca"
#define SERVING_NAME "gantry-admission"

/* --- parsing ----------------------------------------------------------------------------- */

struct crts {
	gnutls_x509_crt_t *v;
	unsigned n;
};

static gnutls_datum_t datum(const char *pem)
{
	return (gnutls_datum_t){ .data = (unsigned char *)pem, .size = pem ? (unsigned)strlen(pem) : 0 };
}

/* Every certificate of @pem; n is 0 when none parses. */
static struct crts load_crts(const char *pem)
{
	struct crts c = { 0 };
	gnutls_datum_t d = datum(pem);
	if (!pem || gnutls_x509_crt_list_import2(&c.v, &c.n, &d, GNUTLS_X509_FMT_PEM, 0) < 0)
		c = (struct crts){ 0 };
	return c;
}

static void free_crts(struct crts *c)
{
	for (unsigned i = 0; i < c->n; i++)
		gnutls_x509_crt_deinit(c->v[i]);
	gnutls_free(c->v);
	*c = (struct crts){ 0 };
}

static gnutls_x509_privkey_t load_key(const char *pem)
{
	gnutls_x509_privkey_t k;
	gnutls_datum_t d = datum(pem);
	if (!pem || gnutls_x509_privkey_init(&k) < 0)
		return NULL;
	if (gnutls_x509_privkey_import2(k, &d, GNUTLS_X509_FMT_PEM, NULL, 0) < 0) {
		gnutls_x509_privkey_deinit(k);
		return NULL;
	}
	return k;
}

static bool key_matches(gnutls_x509_crt_t crt, gnutls_x509_privkey_t key)
{
	unsigned char a[64], b[64];
	size_t na = sizeof(a), nb = sizeof(b);
	return gnutls_x509_crt_get_key_id(crt, 0, a, &na) >= 0 && gnutls_x509_privkey_get_key_id(key, 0, b, &nb) >= 0 &&
	       na == nb && !memcmp(a, b, na);
}

static bool is_ca(gnutls_x509_crt_t crt)
{
	unsigned critical;
	return gnutls_x509_crt_get_basic_constraints(crt, &critical, NULL, NULL) > 0;
}

static bool covers(gnutls_x509_crt_t crt, const char *name)
{
	unsigned char ip[16];
	if (inet_pton(AF_INET, name, ip) == 1)
		return gnutls_x509_crt_check_ip(crt, ip, 4, 0);
	if (inet_pton(AF_INET6, name, ip) == 1)
		return gnutls_x509_crt_check_ip(crt, ip, 16, 0);
	return gnutls_x509_crt_check_hostname2(crt, name, 0);
}

/* Signed by @ca; times are checked by the caller against its "now", not here against the clock. */
static bool signed_by(gnutls_x509_crt_t crt, gnutls_x509_crt_t ca)
{
	unsigned status = 1;
	return gnutls_x509_crt_verify(crt, &ca, 1, GNUTLS_VERIFY_DISABLE_TIME_CHECKS |
				      GNUTLS_VERIFY_DISABLE_TRUSTED_TIME_CHECKS, &status) >= 0 && status == 0;
}

/* Two thirds through the certificate's life: when it is renewed. */
static int64_t due(gnutls_x509_crt_t crt)
{
	int64_t nb = (int64_t)gnutls_x509_crt_get_activation_time(crt);
	int64_t na = (int64_t)gnutls_x509_crt_get_expiration_time(crt);
	return na - (na - nb) / 3;
}

int gt_cert_validity(const char *pem, int64_t *not_before, int64_t *not_after)
{
	struct crts c = load_crts(pem);
	if (!c.n)
		return -1;
	*not_before = (int64_t)gnutls_x509_crt_get_activation_time(c.v[0]);
	*not_after = (int64_t)gnutls_x509_crt_get_expiration_time(c.v[0]);
	free_crts(&c);
	return 0;
}

bool gt_cert_signed_by(const char *cert_pem, const char *bundle_pem)
{
	struct crts c = load_crts(cert_pem), ca = load_crts(bundle_pem);
	bool ok = c.n && ca.n && signed_by(c.v[0], ca.v[0]);
	free_crts(&c);
	free_crts(&ca);
	return ok;
}

size_t gt_cert_count(const char *pem)
{
	struct crts c = load_crts(pem);
	size_t n = c.n;
	free_crts(&c);
	return n;
}

/* --- making ------------------------------------------------------------------------------ */

static char *export_crt(gnutls_x509_crt_t crt)
{
	gnutls_datum_t d;
	if (gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &d) < 0)
		return NULL;
	char *s = gt_xstrndup((const char *)d.data, d.size);
	gnutls_free(d.data);
	return s;
}

static char *export_key(gnutls_x509_privkey_t key)
{
	gnutls_datum_t d;
	if (gnutls_x509_privkey_export2_pkcs8(key, GNUTLS_X509_FMT_PEM, NULL, GNUTLS_PKCS_PLAIN, &d) < 0)
		return NULL;
	char *s = gt_xstrndup((const char *)d.data, d.size);
	gnutls_free(d.data);
	return s;
}

/*
 * A certificate for @key valid from a little before @now (clocks differ
 * between machines: a tenth of the validity, at most five minutes) to
 * @not_after, with a random serial and its subject key id.
 */
static int new_crt(gnutls_x509_crt_t *out, gnutls_x509_privkey_t key, const char *cn, int64_t now, int64_t not_after)
{
	int64_t back = (not_after - now) / 10 < 300 ? (not_after - now) / 10 : 300;
	unsigned char serial[16], id[64];
	size_t id_len = sizeof(id);
	gnutls_x509_crt_t c;
	if (gnutls_x509_crt_init(&c) < 0)
		return -1;
	if (gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial)) < 0)
		goto fail;
	serial[0] = (serial[0] & 0x7f) | 0x01;	/* positive, and no leading zero byte */
	if (gnutls_x509_crt_set_version(c, 3) < 0 || gnutls_x509_crt_set_serial(c, serial, sizeof(serial)) < 0 ||
	    gnutls_x509_crt_set_activation_time(c, (time_t)(now - back)) < 0 ||
	    gnutls_x509_crt_set_expiration_time(c, (time_t)not_after) < 0 ||
	    gnutls_x509_crt_set_dn_by_oid(c, GNUTLS_OID_X520_COMMON_NAME, 0, cn, (unsigned)strlen(cn)) < 0 ||
	    gnutls_x509_crt_set_key(c, key) < 0 || gnutls_x509_crt_get_key_id(c, 0, id, &id_len) < 0 ||
	    gnutls_x509_crt_set_subject_key_id(c, id, id_len) < 0)
		goto fail;
	*out = c;
	return 0;
fail:
	gnutls_x509_crt_deinit(c);
	return -1;
}

static gnutls_x509_privkey_t new_key(void)
{
	gnutls_x509_privkey_t k;
	if (gnutls_x509_privkey_init(&k) < 0)
		return NULL;
	if (gnutls_x509_privkey_generate(k, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0) < 0) {
		gnutls_x509_privkey_deinit(k);
		return NULL;
	}
	return k;
}

/* Exports a signed certificate and its key as PEM when @signed_ok, then frees both: 0 or -1. */
static int export_and_free(gnutls_x509_crt_t c, gnutls_x509_privkey_t key, bool signed_ok, char **crt_pem,
			   char **key_pem)
{
	int rc = -1;
	if (signed_ok) {
		*crt_pem = export_crt(c);
		*key_pem = export_key(key);
		rc = *crt_pem && *key_pem ? 0 : -1;
	}
	if (c)
		gnutls_x509_crt_deinit(c);
	if (key)
		gnutls_x509_privkey_deinit(key);
	return rc;
}

/* A self-signed CA valid for @validity_s: its certificate and key as PEM. */
static int make_ca(int64_t now, int64_t validity_s, char **crt_pem, char **key_pem)
{
	gnutls_x509_privkey_t key = new_key();
	gnutls_x509_crt_t c = NULL;
	bool ok = key && !new_crt(&c, key, CA_NAME, now, now + validity_s) &&
		  gnutls_x509_crt_set_basic_constraints(c, 1, 0) >= 0 &&
		  gnutls_x509_crt_set_key_usage(c, GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN |
						GNUTLS_KEY_DIGITAL_SIGNATURE) >= 0 &&
		  gnutls_x509_crt_sign2(c, c, key, GNUTLS_DIG_SHA256, 0) >= 0;
	return export_and_free(c, key, ok, crt_pem, key_pem);
}

static int add_name(gnutls_x509_crt_t c, const char *name)
{
	unsigned char ip[16];
	if (inet_pton(AF_INET, name, ip) == 1)
		return gnutls_x509_crt_set_subject_alt_name(c, GNUTLS_SAN_IPADDRESS, ip, 4, GNUTLS_FSAN_APPEND);
	if (inet_pton(AF_INET6, name, ip) == 1)
		return gnutls_x509_crt_set_subject_alt_name(c, GNUTLS_SAN_IPADDRESS, ip, 16, GNUTLS_FSAN_APPEND);
	return gnutls_x509_crt_set_subject_alt_name(c, GNUTLS_SAN_DNSNAME, name, (unsigned)strlen(name),
						    GNUTLS_FSAN_APPEND);
}

/* A serving certificate for @p's names, signed by @ca with @ca_key, expiring with the CA at the latest. */
static int make_serving(gnutls_x509_crt_t ca, gnutls_x509_privkey_t ca_key, const struct gt_tls_policy *p,
			int64_t now, char **crt_pem, char **key_pem)
{
	int64_t ca_end = (int64_t)gnutls_x509_crt_get_expiration_time(ca);
	int64_t end = now + p->cert_validity_s < ca_end ? now + p->cert_validity_s : ca_end;
	gnutls_x509_privkey_t key = new_key();
	gnutls_x509_crt_t c = NULL;
	unsigned char id[64];
	size_t id_len = sizeof(id);
	unsigned critical;
	bool ok = key && end > now && !new_crt(&c, key, SERVING_NAME, now, end);
	for (size_t i = 0; ok && i < p->n_names; i++)
		ok = add_name(c, p->names[i]) >= 0;
	ok = ok && gnutls_x509_crt_set_basic_constraints(c, 0, -1) >= 0 &&
	     gnutls_x509_crt_set_key_usage(c, GNUTLS_KEY_DIGITAL_SIGNATURE) >= 0 &&
	     gnutls_x509_crt_set_key_purpose_oid(c, GNUTLS_KP_TLS_WWW_SERVER, 0) >= 0 &&
	     gnutls_x509_crt_get_subject_key_id(ca, id, &id_len, &critical) >= 0 &&
	     gnutls_x509_crt_set_authority_key_id(c, id, id_len) >= 0 &&
	     gnutls_x509_crt_sign2(c, ca, ca_key, GNUTLS_DIG_SHA256, 0) >= 0;
	return export_and_free(c, key, ok, crt_pem, key_pem);
}

/* --- the policy -------------------------------------------------------------------------- */

static void say(char *why, size_t len, const char *what, const char *arg)
{
	snprintf(why, len, "%s%s", what, arg ? arg : "");
}

/* The CA part of the plan: NEW_CA, or KEEP with its due time. */
static enum gt_tls_action plan_ca(const struct gt_tls_material *m, struct crts *ca, gnutls_x509_privkey_t ca_key,
				  int64_t now, int64_t *ca_due, char *why, size_t len)
{
	if (!m->ca_crt || !m->ca_key)
		say(why, len, "no CA yet", NULL);
	else if (!ca->n || !ca_key)
		say(why, len, "the CA (ca.crt, ca.key) does not parse", NULL);
	else if (!is_ca(ca->v[0]) || !key_matches(ca->v[0], ca_key))
		say(why, len, "ca.crt is not a CA whose key is ca.key", NULL);
	else if (now >= (*ca_due = due(ca->v[0])))
		say(why, len, "the CA is two thirds through its life", NULL);
	else
		return GT_TLS_KEEP;
	return GT_TLS_NEW_CA;
}

static const char *uncovered(gnutls_x509_crt_t crt, const struct gt_tls_policy *p)
{
	for (size_t i = 0; i < p->n_names; i++)
		if (!covers(crt, p->names[i]))
			return p->names[i];
	return NULL;
}

enum gt_tls_action gt_tls_plan(const struct gt_tls_material *m, const struct gt_tls_policy *p, int64_t now,
			       int64_t *due_at, char *why, size_t why_len)
{
	struct crts ca = load_crts(m->ca_crt), leaf = load_crts(m->tls_crt);
	gnutls_x509_privkey_t ca_key = load_key(m->ca_key), key = load_key(m->tls_key);
	int64_t ca_due = 0, leaf_due;
	const char *name = NULL;
	enum gt_tls_action a = plan_ca(m, &ca, ca_key, now, &ca_due, why, why_len);
	if (a != GT_TLS_KEEP)
		goto out;
	a = GT_TLS_NEW_SERVING;
	if (!leaf.n || !key)
		say(why, why_len, "no serving certificate (tls.crt, tls.key) that parses", NULL);
	else if (!key_matches(leaf.v[0], key))
		say(why, why_len, "tls.key is not the key of tls.crt", NULL);
	else if (!signed_by(leaf.v[0], ca.v[0]))
		say(why, why_len, "tls.crt is not signed by the current CA", NULL);
	else if ((name = uncovered(leaf.v[0], p)))
		say(why, why_len, "tls.crt does not cover ", name);
	else if (now >= (leaf_due = due(leaf.v[0])))
		say(why, why_len, "the serving certificate is two thirds through its life", NULL);
	else {
		a = GT_TLS_KEEP;
		*due_at = leaf_due < ca_due ? leaf_due : ca_due;
		say(why, why_len, "good", NULL);
	}
out:
	free_crts(&ca);
	free_crts(&leaf);
	if (ca_key)
		gnutls_x509_privkey_deinit(ca_key);
	if (key)
		gnutls_x509_privkey_deinit(key);
	return a;
}

static void replace(char **slot, char *value)
{
	free(*slot);
	*slot = value;
}

/* ca.crt after a new CA @ca_pem: it first, then the old bundle's CAs that have not expired at @now. */
static char *new_bundle(const char *ca_pem, const char *old, int64_t now)
{
	struct crts c = load_crts(old);
	size_t len = strlen(ca_pem);
	char **kept = gt_xcalloc(c.n + 1, sizeof(*kept));
	for (unsigned i = 0; i < c.n; i++)
		if (is_ca(c.v[i]) && (int64_t)gnutls_x509_crt_get_expiration_time(c.v[i]) > now &&
		    (kept[i] = export_crt(c.v[i])))
			len += strlen(kept[i]);
	char *out = gt_xmalloc(len + 1);
	strcpy(out, ca_pem);
	for (unsigned i = 0; i < c.n; i++) {
		if (kept[i])
			strcat(out, kept[i]);
		free(kept[i]);
	}
	free(kept);
	free_crts(&c);
	return out;
}

int gt_tls_renew(struct gt_tls_material *m, enum gt_tls_action action, const struct gt_tls_policy *p, int64_t now,
		 struct gt_err *err)
{
	char *crt = NULL, *key = NULL;
	if (action == GT_TLS_KEEP)
		return 0;
	if (action == GT_TLS_NEW_CA) {
		if (make_ca(now, p->ca_validity_s, &crt, &key)) {
			free(crt);
			free(key);
			return gt_errf(err, GT_EINTERNAL, "cannot make a CA certificate (GnuTLS)");
		}
		replace(&m->ca_crt, new_bundle(crt, m->ca_crt, now));
		replace(&m->ca_key, key);
		free(crt);
		crt = key = NULL;
	}
	struct crts ca = load_crts(m->ca_crt);
	gnutls_x509_privkey_t ca_key = load_key(m->ca_key);
	bool have_ca = ca.n && ca_key;
	int rc = have_ca ? make_serving(ca.v[0], ca_key, p, now, &crt, &key) : -1;
	free_crts(&ca);
	if (ca_key)
		gnutls_x509_privkey_deinit(ca_key);
	if (rc) {
		free(crt);
		free(key);
		return gt_errf(err, GT_EINTERNAL, "cannot make the serving certificate (GnuTLS; %s)",
			       have_ca ? "names or validity" : "the CA does not parse");
	}
	replace(&m->tls_crt, crt);
	replace(&m->tls_key, key);
	return 0;
}

void gt_tls_material_release(struct gt_tls_material *m)
{
	free(m->ca_crt);
	free(m->ca_key);
	free(m->tls_crt);
	free(m->tls_key);
	*m = (struct gt_tls_material){ 0 };
}
