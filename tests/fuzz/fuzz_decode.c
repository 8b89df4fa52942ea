/*
 * fuzz_decode.c - objects to a cluster, as `gantry simulate` reads them
 *
 * The input is a manifest stream: parsed, grouped by the podgrouper (pods
 * without a PodGroup get KAI's), decoded into a cluster with its
 * rejections formatted, and, when something decoded, one scheduling cycle
 * and its plan: what the decoder lets through must not trip the core.
 */
#include "api/decode.h"
#include "core/actions.h"
#include "core/plan.h"
#include "core/session.h"
#include "fuzz.h"
#include "podgrouper/podgrouper.h"
#include "util/strtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gt_doc_list docs = { 0 };
	struct gt_err err = { 0 };
	(void)gt_doc_parse_string((const char *)data, size, "fuzz.yaml", &docs, &err);

	struct gt_pg_config cfg;
	struct gt_pg_batch pg = { 0 };
	gt_pg_config_init(&cfg);
	if (gt_pg_group_all(&cfg, docs.docs, docs.n, &pg, &err) == 0)
		gt_pg_batch_apply(&pg);

	struct gt_strtab names;
	struct gt_cluster c;
	struct gt_decoder dec;
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	gt_decoder_init(&dec);
	for (size_t i = 0; i < pg.n_podgroups; i++)
		gt_decoder_add(&dec, pg.podgroups[i]);
	for (size_t i = 0; i < docs.n; i++)
		gt_decoder_add(&dec, docs.docs[i]);
	(void)gt_decoder_build(&dec, &c, &err);
	for (size_t i = 0; i < dec.n_rejections; i++) {
		char buf[1024];
		gt_rejection_format(&dec.rejections[i], buf, sizeof(buf));
	}
	gt_decoder_release(&dec);

	if (c.n_pods && c.n_nodes) {
		struct gt_session s;
		struct gt_plan plan;
		gt_cycle_run(&s, &c, 1767225600 /* 2026-01-01 */, GT_ACTIONS_ALL);
		gt_plan_build(&plan, &s, NULL);
		gt_plan_release(&plan);
		gt_session_release(&s);
	}
	gt_cluster_release(&c);
	gt_strtab_release(&names);
	gt_pg_batch_release(&pg);
	gt_pg_config_release(&cfg);
	gt_doc_list_release(&docs);
	return 0;
}
