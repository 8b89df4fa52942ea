/*
 * gantry - a Kubernetes GPU scheduler, API-compatible with KAI
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgctl/pgctl.h"
#include "replay/replay.h"
#include "scheduler/command.h"
#include "sim/simulate.h"
#include "util/mem.h"

#define GANTRY_VERSION "0.1.0"

static void usage(FILE *f)
{
	fputs("usage: gantry <command> [options]\n\n"
	      "commands:\n"
	      "  simulate    run the scheduler on a virtual cluster given as Kubernetes YAML\n"
	      "  scheduler   schedule a real cluster (kubeconfig or in-cluster)\n"
	      "  podgrouper  create PodGroups for the workloads' pods, as KAI's podgrouper does\n"
	      "  replay      play a real GPU-cluster job trace through the scheduling core, with a report\n"
	      "  version     print the version\n\n"
	      "not in this version: binder (gantry scheduler binds; it says so and exits 1)\n\n"
	      "Flags follow kubectl: --flag=value or --flag value, -o json or -ojson, a bare FILE\n"
	      "where kubectl takes one, -R for directories. 'gantry <command> --help' lists them.\n", f);
}

static void *json_alloc(size_t n)
{
	return gt_xmalloc(n);
}

int main(int argc, char **argv)
{
	/* jansson answers a failed allocation with NULL, which its callers (and ours) take for
	 * "no such key": out of memory must end the process as everywhere else (util/mem.h) */
	json_set_alloc_funcs(json_alloc, free);
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
	if (!strcmp(cmd, "replay"))
		return gt_replay_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("gantry %s\n", GANTRY_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "binder")) {
		/* KAI runs a binder beside its scheduler; Gantry binds from the scheduler process */
		fprintf(stderr, "gantry binder: not implemented in this version: `gantry scheduler` binds "
			"pods itself, reservation pods for shared GPUs included (docs/kubernetes.md)\n");
		return 1;
	}
	fprintf(stderr, "gantry: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
