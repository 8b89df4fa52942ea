/*
 * certs.h - the webhook's certificates: a CA of its own, the serving
 * certificate it signs, and when each is due for renewal
 *
 * KAI's operator makes one self-signed certificate valid for ten years and
 * never renews it. Gantry keeps a small CA instead (ECDSA P-256, SHA-256,
 * default ten years) whose certificate is the webhooks' caBundle, and a
 * serving certificate it signs (default one year) for the Service's DNS
 * names and any extra names or IP addresses. Each is renewed once two
 * thirds of its life have passed, so a certificate in use always has a
 * third of its life left. A renewed CA keeps its predecessor in the bundle
 * until that expires: certificates signed by either verify while the
 * webhook configurations catch up, and no request fails over a rotation.
 *
 * All of it lives in one Secret (type kubernetes.io/tls): tls.crt and
 * tls.key (what the server serves, as cert-manager would write them),
 * ca.crt (the bundle) and ca.key. gt_tls_plan() says what a Secret's
 * content needs; gt_tls_renew() makes it. Both are pure but for the
 * randomness of new keys, and take "now" as an argument.
 */
#ifndef GT_ADMISSION_CERTS_H
#define GT_ADMISSION_CERTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* The four entries of the Secret, PEM text each (NULL when absent). */
struct gt_tls_material {
	char *ca_crt;		/* the CA bundle: the current CA first, then predecessors not yet expired */
	char *ca_key;		/* the current CA's key */
	char *tls_crt;		/* the serving certificate */
	char *tls_key;
};

struct gt_tls_policy {
	const char *const *names;	/* the serving certificate's names: DNS names or IPv4/IPv6 addresses */
	size_t n_names;
	int64_t ca_validity_s;
	int64_t cert_validity_s;
};

enum gt_tls_action {
	GT_TLS_KEEP,		/* everything is good for a while */
	GT_TLS_NEW_SERVING,	/* a new serving certificate from the current CA */
	GT_TLS_NEW_CA,		/* a new CA (the old one stays in the bundle), and a serving certificate from it */
};

/*
 * What @m needs at @now: why in @why (a few words for the log). When it
 * can stay, *@due_at is when it next falls due (the serving certificate's
 * or the CA's two-thirds point, whichever comes first).
 */
enum gt_tls_action gt_tls_plan(const struct gt_tls_material *m, const struct gt_tls_policy *p, int64_t now,
			       int64_t *due_at, char *why, size_t why_len);
/* Do @action to @m (its strings replaced). 0, or a GT_E* code with the reason in @err. */
int gt_tls_renew(struct gt_tls_material *m, enum gt_tls_action action, const struct gt_tls_policy *p, int64_t now,
		 struct gt_err *err);
void gt_tls_material_release(struct gt_tls_material *m);

/* The validity of the first certificate of @pem (unix seconds). 0, or -1 when it does not parse. */
int gt_cert_validity(const char *pem, int64_t *not_before, int64_t *not_after);
/* @cert_pem was signed by the first certificate of @bundle_pem (its signature verifies). */
bool gt_cert_signed_by(const char *cert_pem, const char *bundle_pem);
/* How many certificates @pem holds (0 when it does not parse). */
size_t gt_cert_count(const char *pem);

#endif /* GT_ADMISSION_CERTS_H */
