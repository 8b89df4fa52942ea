#!/bin/sh
# replay_openb.sh - the FGD packing experiment on Alibaba's openb trace
#
# Pods of openb_pod_list_default.csv arrive in trace order on the trace's
# 1,213 GPU nodes and never leave; the trace is repeated until the arrived
# GPU request is F times the trace's own. For each placement and F this
# prints the milli-GPU allocation, the GPUs with anything on them, the idle
# GPUs and the GPUs' worth of free milli-GPU stranded on partly used GPUs.
#
#   bench/replay_openb.sh                  all placements, F = 1.0 1.1 1.2 1.3
#   PLACEMENTS=gpupack INFLATE=1.3 bench/replay_openb.sh
#   POD_LIST=openb_pod_list_gpuspec33.csv bench/replay_openb.sh
#   REPORT_DIR=/tmp/reports bench/replay_openb.sh      also an HTML report per run
#
# Each run takes about a second. The numbers are in docs/replay.md.
set -eu
TRACES=${TRACES:-../shared/data/traces/alibaba-gpu-v2023}
POD_LIST=${POD_LIST:-openb_pod_list_default.csv}
NODE_LIST=${NODE_LIST:-openb_node_list_gpu_node.csv}
PLACEMENTS=${PLACEMENTS:-binpack spread gpupack}
INFLATE=${INFLATE:-1.0 1.1 1.2 1.3}
REPLAY="${GANTRY:-build/gantry} replay"

printf '%-9s %7s %11s %10s %9s %11s %8s\n' placement inflate milli-alloc GPUs-used idle-GPUs fragmented pending
for p in $PLACEMENTS; do
	for f in $INFLATE; do
		report=
		[ -n "${REPORT_DIR:-}" ] && mkdir -p "$REPORT_DIR" && report="--report $REPORT_DIR/openb-$p-$f.html"
		# shellcheck disable=SC2086
		$REPLAY --trace "openb:$TRACES/$POD_LIST" --openb-nodes "$TRACES/$NODE_LIST" \
			--no-departures --inflate "$f" --placement "$p" --quiet -o json $report |
		python3 -c '
import json, sys
d = json.load(sys.stdin); k = d["packing"]
print("%-9s %7s %10.2f%% %10d %9d %11.1f %8d" % (sys.argv[1], sys.argv[2],
      100 * k["milli_gpu_allocation"], k["allocated_gpus"], k["idle_gpus"],
      k["fragmented_gpus"], k["pending_pods"]))' "$p" "$f"
	done
done
