/*
 * test_admission_certs.c - the webhook's CA and serving certificate over
 * their lives (src/admission/certs.h): made when missing, renewed at two
 * thirds of their life, a renewed CA keeping its predecessor in the bundle
 * until it expires, and anything broken replaced. Time is an argument, so
 * years pass in a test.
 */
#include <stdlib.h>
#include <string.h>

#include "admission/certs.h"
#include "harness.h"

const char *gt_suite = "admission_certs";

#define DAY 86400LL
#define T0 1767225600LL	/* 2026-01-01 */

static const char *const NAMES[] = { "gantry-scheduler", "gantry-scheduler.kai-scheduler",
				     "gantry-scheduler.kai-scheduler.svc", "127.0.0.1" };
static const struct gt_tls_policy POLICY = { NAMES, 4, 3650 * DAY, 365 * DAY };

static enum gt_tls_action plan(const struct gt_tls_material *m, int64_t now, int64_t *due_at)
{
	char why[200];
	*due_at = 0;
	return gt_tls_plan(m, &POLICY, now, due_at, why, sizeof(why));
}

static void renew(struct gt_tls_material *m, enum gt_tls_action a, int64_t now)
{
	struct gt_err err = { 0 };
	if (gt_tls_renew(m, a, &POLICY, now, &err))
		fprintf(stderr, "renew: %s\n", err.msg);
}

TEST(made_when_missing_then_kept_until_due)
{
	struct gt_tls_material m = { 0 };
	int64_t due_at;
	ASSERT_EQ(GT_TLS_NEW_CA, plan(&m, T0, &due_at));
	renew(&m, GT_TLS_NEW_CA, T0);
	ASSERT_TRUE(m.ca_crt && m.ca_key && m.tls_crt && m.tls_key);
	ASSERT_CONTAINS(m.tls_key, "-----BEGIN PRIVATE KEY-----");
	ASSERT_EQ(1, gt_cert_count(m.ca_crt));
	ASSERT_TRUE(gt_cert_signed_by(m.tls_crt, m.ca_crt));
	ASSERT_EQ(GT_TLS_KEEP, plan(&m, T0 + 1, &due_at));
	/* the serving certificate falls due at two thirds of its life (plus the few minutes it is backdated) */
	int64_t nb, na;
	ASSERT_EQ(0, gt_cert_validity(m.tls_crt, &nb, &na));
	ASSERT_EQ(T0 + 365 * DAY, na);
	ASSERT_EQ(T0 - 300, nb);
	ASSERT_EQ(na - (na - nb) / 3, due_at);
	ASSERT_EQ(GT_TLS_KEEP, plan(&m, due_at - 1, &due_at));
	ASSERT_EQ(GT_TLS_NEW_SERVING, plan(&m, due_at, &due_at));
	gt_tls_material_release(&m);
}

TEST(serving_certificate_renewed_from_the_same_ca)
{
	struct gt_tls_material m = { 0 };
	int64_t due_at;
	renew(&m, GT_TLS_NEW_CA, T0);
	char *ca = strdup(m.ca_crt), *old = strdup(m.tls_crt);
	int64_t later = T0 + 250 * DAY;
	ASSERT_EQ(GT_TLS_NEW_SERVING, plan(&m, later, &due_at));
	renew(&m, GT_TLS_NEW_SERVING, later);
	ASSERT_STR(ca, m.ca_crt);
	ASSERT_TRUE(strcmp(old, m.tls_crt) != 0);
	ASSERT_TRUE(gt_cert_signed_by(m.tls_crt, m.ca_crt));
	ASSERT_EQ(GT_TLS_KEEP, plan(&m, later + 1, &due_at));
	free(ca);
	free(old);
	gt_tls_material_release(&m);
}

TEST(new_ca_keeps_the_old_one_in_the_bundle_until_it_expires)
{
	struct gt_tls_material m = { 0 };
	int64_t due_at;
	renew(&m, GT_TLS_NEW_CA, T0);
	/* the serving certificate never outlives its CA: near the CA's end it is cut to the CA's */
	int64_t late = T0 + 3400 * DAY, nb, na, ca_nb, ca_na;
	ASSERT_EQ(GT_TLS_NEW_CA, plan(&m, late, &due_at));
	char *old_ca = strdup(m.ca_crt), *old_leaf = strdup(m.tls_crt);
	renew(&m, GT_TLS_NEW_CA, late);
	ASSERT_EQ(2, gt_cert_count(m.ca_crt));
	ASSERT_TRUE(strstr(m.ca_crt, old_ca) != NULL && strncmp(m.ca_crt, old_ca, strlen(old_ca)) != 0);
	ASSERT_TRUE(gt_cert_signed_by(m.tls_crt, m.ca_crt));
	ASSERT_TRUE(!gt_cert_signed_by(old_leaf, m.ca_crt));	/* by the old CA, second in the bundle */
	ASSERT_TRUE(gt_cert_signed_by(old_leaf, old_ca));
	ASSERT_EQ(GT_TLS_KEEP, plan(&m, late + 1, &due_at));
	/* ten years on, the first CA has expired: the next CA renewal drops it */
	int64_t much_later = late + 3000 * DAY;
	ASSERT_EQ(GT_TLS_NEW_CA, plan(&m, much_later, &due_at));
	renew(&m, GT_TLS_NEW_CA, much_later);
	ASSERT_EQ(2, gt_cert_count(m.ca_crt));
	ASSERT_TRUE(strstr(m.ca_crt, old_ca) == NULL);
	ASSERT_EQ(0, gt_cert_validity(m.ca_crt, &ca_nb, &ca_na));
	ASSERT_EQ(0, gt_cert_validity(m.tls_crt, &nb, &na));
	ASSERT_TRUE(na <= ca_na);
	free(old_ca);
	free(old_leaf);
	gt_tls_material_release(&m);
}

TEST(broken_or_foreign_material_replaced)
{
	struct gt_tls_material m = { 0 };
	int64_t due_at;
	renew(&m, GT_TLS_NEW_CA, T0);
	/* other names (the Service renamed, an address added): a new serving certificate */
	static const char *const more[] = { "gantry-scheduler", "10.0.0.7" };
	struct gt_tls_policy p = { more, 2, POLICY.ca_validity_s, POLICY.cert_validity_s };
	char why[200];
	ASSERT_EQ(GT_TLS_NEW_SERVING, gt_tls_plan(&m, &p, T0 + 1, &due_at, why, sizeof(why)));
	ASSERT_STR("tls.crt does not cover 10.0.0.7", why);
	/* a serving key that is not the certificate's */
	struct gt_tls_material other = { 0 };
	renew(&other, GT_TLS_NEW_CA, T0);
	char *key = m.tls_key;
	m.tls_key = other.tls_key;
	ASSERT_EQ(GT_TLS_NEW_SERVING, plan(&m, T0 + 1, &due_at));
	m.tls_key = key;
	/* a serving certificate of another CA (a Secret written by hand) */
	char *crt = m.tls_crt;
	m.tls_crt = other.tls_crt;
	m.tls_key = other.tls_key;
	ASSERT_EQ(GT_TLS_NEW_SERVING, plan(&m, T0 + 1, &due_at));
	m.tls_crt = crt;
	m.tls_key = key;
	/* a CA key that is not the CA's, garbage in ca.crt */
	char *ca_key = m.ca_key;
	m.ca_key = other.ca_key;
	ASSERT_EQ(GT_TLS_NEW_CA, plan(&m, T0 + 1, &due_at));
	m.ca_key = ca_key;
	char *ca = m.ca_crt;
	m.ca_crt = (char *)"-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n";
	ASSERT_EQ(GT_TLS_NEW_CA, plan(&m, T0 + 1, &due_at));
	m.ca_crt = ca;
	/* the serving certificate is not a CA: as ca.crt it is refused */
	m.ca_crt = m.tls_crt;
	m.ca_key = m.tls_key;
	ASSERT_EQ(GT_TLS_NEW_CA, plan(&m, T0 + 1, &due_at));
	m.ca_crt = ca;
	m.ca_key = ca_key;
	ASSERT_EQ(GT_TLS_KEEP, plan(&m, T0 + 1, &due_at));
	gt_tls_material_release(&other);
	gt_tls_material_release(&m);
}

TEST(short_lives_for_the_rotation_test)
{
	static const char *const names[] = { "127.0.0.1" };
	struct gt_tls_policy p = { names, 1, 45, 15 };
	struct gt_tls_material m = { 0 };
	struct gt_err err = { 0 };
	char why[200];
	int64_t due_at, nb, na;
	ASSERT_EQ(0, gt_tls_renew(&m, GT_TLS_NEW_CA, &p, T0, &err));
	ASSERT_EQ(GT_TLS_KEEP, gt_tls_plan(&m, &p, T0, &due_at, why, sizeof(why)));
	ASSERT_EQ(0, gt_cert_validity(m.tls_crt, &nb, &na));
	/* backdated by a tenth of 15 s: renewed 11 s after it was made */
	ASSERT_EQ(T0 - 1, nb);
	ASSERT_EQ(T0 + 15, na);
	ASSERT_EQ(T0 + 15 - 16 / 3, due_at);
	gt_tls_material_release(&m);
}

const struct gt_test gt_tests[] = {
	T(made_when_missing_then_kept_until_due),
	T(serving_certificate_renewed_from_the_same_ca),
	T(new_ca_keeps_the_old_one_in_the_bundle_until_it_expires),
	T(broken_or_foreign_material_replaced),
	T(short_lives_for_the_rotation_test),
	{ 0 }
};
