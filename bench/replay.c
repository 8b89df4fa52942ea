/*
 * replay.c - the openb packing experiment (FGD's) as `make bench` runs it
 *
 * `gantry replay` at 1.3x the trace's request on its 1,213 GPU nodes, with
 * KAI's binpack and with gpupack, when the traces are there. Every other
 * experiment: bench/replay_*.sh and docs/replay.md.
 */
#include <stdio.h>
#include <unistd.h>

#include "replay/replay.h"

#define OPENB "../shared/data/traces/alibaba-gpu-v2023/"

int main(void)
{
	if (access(OPENB "openb_pod_list_default.csv", R_OK)) {
		puts("replay: ../shared/data/traces not found; nothing to measure");
		return 0;
	}
	static const char *const placements[] = { "binpack", "gpupack" };
	int rc = 0;
	for (size_t i = 0; !rc && i < sizeof(placements) / sizeof(placements[0]); i++) {
		printf("replay: openb at 1.3x, --placement %s\n", placements[i]);
		fflush(stdout);
		char *args[] = { "replay", "--trace", "openb:" OPENB "openb_pod_list_default.csv",
				 "--openb-nodes", OPENB "openb_node_list_gpu_node.csv", "--no-departures",
				 "--inflate", "1.3", "--placement", (char *)placements[i], "--quiet", NULL };
		rc = gt_replay_main((int)(sizeof(args) / sizeof(args[0])) - 1, args);
	}
	return rc;
}
