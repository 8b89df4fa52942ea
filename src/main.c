/*
 * gantry - a Kubernetes GPU scheduler, API-compatible with KAI
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/admission.h"
#include "binder/command.h"
#include "explain/explain.h"
#include "fairshare/fairshare.h"
#include "pgctl/pgctl.h"
#include "replay/replay.h"
#include "scheduler/command.h"
#include "sim/simulate.h"
#include "status/status.h"
#include "util/version.h"

static void usage(FILE *f)
{
	fputs("usage: gantry <command> [options]\n\n"
	      "commands:\n"
	      "  simulate    run the scheduler on a virtual cluster given as Kubernetes YAML\n"
	      "  scheduler   schedule a real cluster (kubeconfig or in-cluster)\n"
	      "  podgrouper  create PodGroups for the workloads' pods, as KAI's podgrouper does\n"
	      "  admission   serve KAI's admission webhooks (GPU sharing, validation) over HTTPS\n"
	      "  binder      bind the pods of BindRequests, as KAI's binder does\n"
	      "  status-controllers\n"
	      "              write Queue and PodGroup status, as KAI's queue and pod-group controllers\n"
	      "  replay      play a real GPU-cluster job trace through the scheduling core, with a report\n"
	      "  explain     why a pod, PodGroup or queue waits, what would let it start, and when\n"
	      "  fairshare   KAI's fair-share simulators: a /simulate request, the service, or over time\n"
	      "  version     print the version\n\n"

	      "Flags follow kubectl: --flag=value or --flag value, -o json or -ojson, a bare FILE\n"
	      "where kubectl takes one, -R for directories. 'gantry <command> --help' lists them.\n", f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "simulate"))
		return gt_simulate_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "scheduler"))
		return gt_scheduler_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "podgrouper"))
		return gt_podgrouper_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "binder"))
		return gt_binder_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "admission"))
		return gt_admission_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "status-controllers"))
		return gt_status_controllers_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "replay"))
		return gt_replay_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "explain"))
		return gt_explain_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "fairshare"))
		return gt_fairshare_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("gantry %s\n", GANTRY_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "gantry: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
