#!/usr/bin/env bash
# Command-line tests of `gantry simulate` and `gantry replay`: what users and scripts see (exit
# codes, messages, the demo's story). usage: tests/cli/run.sh build/gantry
set -u
gantry=${1:?usage: run.sh GANTRY}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

check() {	# check NAME COMMAND... : the command must succeed
	local name=$1
	shift
	if "$@"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL cli.$name"
	fi
}

# expect_exit CODE PATTERN ARGS...: gantry exits CODE and its stderr matches PATTERN
expect_exit() {
	local code=$1 pattern=$2
	shift 2
	"$gantry" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" -ne "$code" ] || ! grep -qE -- "$pattern" "$tmp/err"; then
		echo "  exit $rc (want $code); stderr: $(head -c 300 "$tmp/err")"
		return 1
	fi
}

demo="$dir/../../examples/demo-cluster.yaml"
check demo_reclaims "$gantry" simulate -f "$demo" --cycles 3 --now 2026-01-01T09:00:00Z \
	--show-cycles -o table >"$tmp/demo" 2>/dev/null
check demo_evicts_for_team_a grep -q "was preempted by workload team-a/pg-llm-pretrain" "$tmp/demo"
check demo_binds_the_gang_later grep -qE "cycle 2: 2 bound" "$tmp/demo"

"$gantry" simulate -f "$demo" --now 2026-01-01T09:00:00Z -o json >"$tmp/json" 2>/dev/null
check json_has_contract_keys python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) >= {"cycles", "operations", "pods", "nodes", "podGroups", "queues"}, d.keys()
assert set(d["operations"]) == {"binds", "evictions", "pipelines"}
p = d["pods"][0]
assert set(p) >= {"namespace", "name", "podGroup", "status", "node", "gpuGroups", "gpus",
                  "gpusAccepted", "cpuMillis", "memoryBytes"}
assert set(d["nodes"][0]) >= {"name", "idleGPUs", "releasingGPUs", "usedGPUs"}
assert set(d["podGroups"][0]) >= {"namespace", "name", "queue", "scheduled", "lastStartTimestamp", "message"}
assert set(d["queues"][0]["fairShare"]) == {"gpu", "cpuMillis", "memoryBytes"}
' "$tmp/json"

# every workload kind, grouped from its owners the way the podgrouper groups it, all placed
"$gantry" simulate -f "$dir/../../examples/workloads/" -o json >"$tmp/workloads" 2>/dev/null
check workloads_grouped_and_placed python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
pods = d["pods"]
assert len(pods) >= 80, len(pods)
assert all(p["status"] == "Binding" for p in pods), [p["name"] for p in pods if p["status"] != "Binding"]
assert all(p["podGroup"] for p in pods)
groups = {p["podGroup"] for p in pods if p["name"].startswith("llm-pretrain-")}
assert len(groups) == 1, groups
' "$tmp/workloads"

cat >"$tmp/frac.yaml" <<'Y'
apiVersion: v1
kind: Pod
metadata: {name: nb, namespace: team-a, annotations: {gpu-fraction: "1.5"}}
spec: {schedulerName: kai-scheduler, containers: [{name: c, image: x}]}
Y
check bad_fraction_names_pod_and_field expect_exit 2 "Pod team-a/nb .*gpu-fraction.*1\.5" simulate -f "$tmp/frac.yaml"
cat >"$tmp/two-bad.yaml" <<'Y'
apiVersion: v1
kind: Pod
metadata: {name: one, namespace: team-a, annotations: {gpu-fraction: "1.5"}}
spec: {schedulerName: kai-scheduler, containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: two, namespace: team-b}
spec: {schedulerName: kai-scheduler, containers: [{name: c, image: x, resources: {requests: {cpu: lots}}}]}
Y
check every_bad_object_named_at_once expect_exit 2 "Pod team-b/two .*requests.cpu.*lots" simulate -f "$tmp/two-bad.yaml"
check every_bad_object_named_at_once_first grep -qE "Pod team-a/one \(line 1\): field metadata.annotations.gpu-fraction" "$tmp/err"
printf 'kind: Node\nmetadata: {name: [oops\n' >"$tmp/broken.yaml"
check malformed_yaml_names_line expect_exit 2 "broken.yaml: line" simulate -f "$tmp/broken.yaml"
check unknown_action expect_exit 2 "unknown action 'defrag'" simulate -f "$demo" --actions defrag
check missing_file expect_exit 2 "cannot open" simulate -f "$tmp/nope.yaml"
# gantry replay: the keys outside tools read (../shared/docs/REPLAY.md), a bad row named, repeats said
data="$dir/../data/replay"
"$gantry" replay --trace "philly:$data/philly_small.csv" --nodes 4x8 --vc-sizes "$data/vc_small.csv" \
	--quiet -o json >"$tmp/replay.json" 2>/dev/null
check replay_json_has_contract_keys python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) >= {"jobs", "offered_load", "cluster_gpus", "wait_s", "jct_s", "makespan_s",
                  "gpu_utilization", "waited_over_24h", "queues", "packing"}, d.keys()
assert d["jobs"] == 6 and d["cluster_gpus"] == 32, (d["jobs"], d["cluster_gpus"])
for k in ("wait_s", "jct_s"):
    assert set(d[k]) >= {"mean", "p50", "p90", "p99"}, d[k]
assert set(d["queues"][0]) >= {"name", "quota_gpus", "gpu_time_share"}
assert set(d["packing"]) >= {"milli_gpu_allocation", "idle_gpus", "fragmented_gpus"}
assert 0 <= d["gpu_utilization"] <= 1
' "$tmp/replay.json"
check replay_bad_row_names_file_line_column expect_exit 2 "philly_bad_duration.csv:[0-9]+: column .duration." \
	replay --trace "philly:$data/philly_bad_duration.csv" --nodes 4x8
check replay_repeated_rows_said expect_exit 0 "rows repeating an earlier row exactly: 1 " \
	replay --trace "philly:$data/philly_duplicates.csv" --nodes 4x8 --quiet
check not_yet_commands expect_exit 1 "not implemented" binder
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
