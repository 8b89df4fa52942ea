#!/bin/sh
# replay_philly.sh - Philly (the Pollux table, 82,247 jobs) through the real core
#
# 58 nodes of 8 GPUs (464 GPUs: offered load 0.81 as recorded), the 11
# virtual clusters of philly_vc_nodes_helios.csv as queues with GPU quotas
# proportional to their node counts (the 4 tiny VCs go to "default"). Arrival
# gaps are scaled to each offered load; each policy runs at each load.
#
#   bench/replay_philly.sh                      loads 0.6 0.8 0.95, policies below
#   LOADS=0.8 POLICIES=fair bench/replay_philly.sh
#   OUT=/tmp/philly bench/replay_philly.sh      keep the JSON and an HTML report per run
#
# Policies (see docs/replay.md):
#   fair     --actions allocate          per-VC fair share, work-conserving, no preemption
#   reclaim  --actions allocate,reclaim  the same, and queues below fair share reclaim
#   fifo     --fifo                      strict FIFO over the whole cluster, no backfill
#   kai      every action (KAI's default): slow on this trace, see docs/replay.md
#
# A run takes from half a minute (fair) to several minutes (reclaim, fifo at
# high load); compare two runs with `replay --compare A.json B.json`.
set -eu
TRACES=${TRACES:-../shared/data/traces/microsoft-philly-2017}
LOADS=${LOADS:-0.6 0.8 0.95}
POLICIES=${POLICIES:-fair reclaim fifo}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
REPLAY="${GANTRY:-build/gantry} replay"

printf '%-8s %5s %9s %9s %9s %9s %9s %9s %7s %6s %8s\n' policy load wait-mean wait-p50 \
	wait-p99 jct-mean jct-p50 jct-p99 '>24h' jain wall-s
for load in $LOADS; do
	for p in $POLICIES; do
		case $p in
		fair) flags="--actions allocate" ;;
		reclaim) flags="--actions allocate,reclaim" ;;
		fifo) flags="--fifo" ;;
		kai) flags="" ;;
		*) echo "unknown policy $p" >&2; exit 2 ;;
		esac
		json="$OUT/philly-$p-$load.json"
		# shellcheck disable=SC2086
		$REPLAY --trace "philly:$TRACES/philly_pollux.csv" --nodes 58x8 \
			--vc-sizes "$TRACES/philly_vc_nodes_helios.csv" --load "$load" $flags \
			--quiet -o json --report "$OUT/philly-$p-$load.html" >"$json"
		python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); w = d["wait_s"]; j = d["jct_s"]; h = 3600
print("%-8s %5s %8.1fh %8.2fh %8.1fh %8.1fh %8.2fh %8.1fh %7d %6.3f %8.1f" % (sys.argv[2], sys.argv[3],
      w["mean"] / h, w["p50"] / h, w["p99"] / h, j["mean"] / h, j["p50"] / h, j["p99"] / h,
      d["waited_over_24h"], d["jain_index"], d["scheduler"]["wall_s"]))' "$json" "$p" "$load"
	done
done
echo "JSON and HTML reports in $OUT"
