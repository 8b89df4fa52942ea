/*
 * keeper.h - the certificates' keeper: the Secret, the served certificate
 * and the webhook configurations kept in step
 *
 * One thread, in every replica (they agree through the Secret):
 *
 *  1. read the Secret; if the policy (certs.h) says the CA or the serving
 *     certificate needs making, make it and write the Secret back - an
 *     update carries the resourceVersion read, so two replicas renewing at
 *     once cannot both win: the loser reads the winner's and uses it;
 *  2. apply the webhook configurations (registration.h) with the Secret's
 *     ca.crt as caBundle, by server-side apply: when the bundle changed,
 *     at start, and every ten minutes (a configuration edited or deleted by
 *     hand is put back);
 *  3. serve the Secret's serving certificate; when its CA is new, only a
 *     few seconds after the configurations carry the new bundle (the old
 *     certificate stays valid meanwhile: its CA is still in the bundle);
 *  4. sleep until the next look: --tls-check-interval, or sooner when a
 *     certificate falls due.
 *
 * With --tls-self-signed=false the Secret is another's (cert-manager's): it
 * is read, never written; ca.crt (or, without it, tls.crt) is the bundle.
 * With --register-webhooks=false the configurations are another's too.
 *
 * API errors are logged and retried on the next look, a few seconds later;
 * the certificate in use is kept meanwhile.
 */
#ifndef GT_ADMISSION_KEEPER_H
#define GT_ADMISSION_KEEPER_H

#include <stdbool.h>

#include "admission/certs.h"
#include "admission/registration.h"
#include "admission/server.h"
#include "kube/http.h"

struct gt_keeper_opts {
	const char *ns, *secret;	/* the Secret */
	bool self_signed;		/* false: the Secret is read only */
	struct gt_tls_policy policy;
	bool register_webhooks;
	struct gt_registration reg;	/* owner_uid is looked up from owner_name */
	double check_s;			/* the longest wait between looks */
	struct gt_webhook_server *server;
};

struct gt_keeper;

/* Start keeping; @o and what it points to are borrowed and outlive the keeper. */
struct gt_keeper *gt_keeper_start(struct gt_kube_client *cl, const struct gt_keeper_opts *o);
/* A certificate is served and the configurations were applied once. */
bool gt_keeper_ready(const struct gt_keeper *k);
/* Stop and free: after gt_kube_client_stop(), which ends its waits and requests. */
void gt_keeper_stop(struct gt_keeper *k);

#endif /* GT_ADMISSION_KEEPER_H */
