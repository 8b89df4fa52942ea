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

# runs_ok ARGS...: gantry exits 0 (stdout in $tmp/out, stderr in $tmp/err)
runs_ok() {
	"$gantry" "$@" >"$tmp/out" 2>"$tmp/err" || { echo "  exit $?; stderr: $(head -c 300 "$tmp/err")"; return 1; }
}

demo="$dir/../../examples/demo-cluster.yaml"
check demo_reclaims "$gantry" simulate -f "$demo" --cycles 3 --now 2026-01-01T09:00:00Z \
	--show-cycles -o table >"$tmp/demo" 2>/dev/null
check demo_evicts_for_team_a grep -q "was preempted by workload team-a/pg-llm-pretrain" "$tmp/demo"
# as KAI v0.17's snapshot-tool does on the same cluster: the gang's reclaim moves two sweeps to
# gpu-node-0 and evicts two; cycle 2 binds the moved sweeps and the gang
check demo_binds_the_gang_later grep -qE "cycle 2: 4 bound" "$tmp/demo"

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
check bad_fraction_names_pod_and_field expect_exit 2 \
	"frac.yaml:3:69: Pod team-a/nb: field metadata.annotations.gpu-fraction: .*'1\.5'" simulate -f "$tmp/frac.yaml"
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
check every_bad_object_named_at_once expect_exit 2 \
	"two-bad.yaml:9:99: Pod team-b/two: field spec.containers\[0\].resources.requests.cpu: .*'lots'" simulate -f "$tmp/two-bad.yaml"
check every_bad_object_named_at_once_first grep -qE "two-bad.yaml:3:70: Pod team-a/one: field metadata.annotations.gpu-fraction" "$tmp/err"
printf 'kind: Node\nmetadata: {name: [oops\n' >"$tmp/broken.yaml"
check malformed_yaml_names_line expect_exit 2 "broken.yaml:3:1: Node \(no name\): .*not valid YAML: " simulate -f "$tmp/broken.yaml"
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
check binder_help_has_kai_flags sh -c '"$0" binder --help | grep -q -- --resource-reservation-allocation-timeout' "$gantry"
check binder_bad_flag_said expect_exit 2 "max-concurrent-reconciles" binder --max-concurrent-reconciles 0

# ---- kubectl's conventions, for every subcommand (util/flags.c)
now="--now=2026-01-01T09:00:00Z"
# --flag=value, --flag value, -ovalue, -o=value, -o value, --output=value: the same JSON
"$gantry" simulate -f "$demo" --cycles 2 -o json "$now" >"$tmp/ref.json" 2>/dev/null
for form in "--cycles=2 -ojson" "--cycles=2 -o=json" "--cycles 2 --output=json" "--cycles=2 --output json"; do
	# shellcheck disable=SC2086
	"$gantry" simulate -f "$demo" $form "$now" >"$tmp/form.json" 2>/dev/null
	check "flag_form_${form// /_}" cmp -s "$tmp/ref.json" "$tmp/form.json"
done
# a positional FILE is -f FILE, as with kubectl
"$gantry" simulate "$demo" --cycles 2 -o json "$now" >"$tmp/pos.json" 2>/dev/null
check positional_file_is_dash_f cmp -s "$tmp/ref.json" "$tmp/pos.json"
# -o yaml: the same document
"$gantry" simulate -f "$demo" --cycles 2 -o yaml "$now" >"$tmp/out.yaml" 2>/dev/null
check yaml_output_is_the_json python3 -c '
import json, sys, yaml
assert yaml.safe_load(open(sys.argv[1])) == json.load(open(sys.argv[2]))
' "$tmp/out.yaml" "$tmp/ref.json"
check wide_output_is_a_table runs_ok simulate -f "$demo" -o wide "$now"
check wide_output_is_a_table_2 grep -q "^POD " "$tmp/out"
check bad_output_format expect_exit 2 "-o: must be table, wide, json or yaml, not 'xml'" simulate "$demo" -o xml
# unknown flags are unknown, wherever they stand; missing values are missing
check unknown_last_flag expect_exit 2 "unknown flag: --bogus" simulate -f "$demo" --bogus
check unknown_flag_with_value expect_exit 2 "unknown flag: --bogus" simulate --bogus=1 -f "$demo"
check unknown_short_flag expect_exit 2 "unknown shorthand flag: 'x' in -x" simulate -f "$demo" -x
check missing_value expect_exit 2 "flag needs an argument: --cycles" simulate -f "$demo" --cycles
check no_input expect_exit 2 "no input: give a FILE, -f FILE or --snapshot FILE" simulate --cycles 1
# strict integers: no atoi
check strict_integer expect_exit 2 "--cycles: must be a whole number from 1 to 100000, not '10x'" \
	simulate -f "$demo" --cycles 10x
check strict_integer_empty expect_exit 2 "--cycles: must be a whole number" simulate -f "$demo" --cycles=
check strict_integer_space expect_exit 2 "--cycles: must be a whole number" simulate -f "$demo" --cycles " 2"
check empty_action_list expect_exit 2 "--actions: needs at least one of allocate" simulate -f "$demo" --actions ""
check bool_flag_value expect_exit 2 "--show-cycles: takes true or false, not 'maybe'" simulate -f "$demo" \
	--show-cycles=maybe
# -R reads directories recursively; without it a subdirectory is skipped, with a warning
mkdir -p "$tmp/tree/sub"
cp "$demo" "$tmp/tree/sub/cluster.yaml"
check subdirectory_skipped_said expect_exit 0 "skipping the directory '.*tree/sub' \(-R reads" \
	simulate -f "$tmp/tree" -o json "$now"
check recursive_reads_subdirectories runs_ok simulate -R -f "$tmp/tree" -o json "$now"
check recursive_found_the_pods python3 -c '
import json, sys
assert len(json.load(open(sys.argv[1]))["pods"]) > 0' "$tmp/out"
# --help on every subcommand, one layout, on stdout
for sub in simulate replay scheduler podgrouper status-controllers explain admission; do
	"$gantry" "$sub" --help >"$tmp/help" 2>&1
	check "help_${sub}" grep -q "^usage: gantry $sub " "$tmp/help"
	check "help_${sub}_layout" grep -qE "^  -h, --help +this help$" "$tmp/help"
	"$gantry" "$sub" -h >"$tmp/help2" 2>&1
	check "help_${sub}_short" cmp -s "$tmp/help" "$tmp/help2"
	check "unknown_flag_${sub}" expect_exit 2 "gantry $sub: unknown flag: --no-such-flag" "$sub" --no-such-flag
done
# replay: the same rules
check replay_strict_limit expect_exit 2 "--limit: must be a whole number from 1 to" \
	replay --trace "philly:$data/philly_small.csv" --nodes=4x8 --limit=3x
check replay_bad_nodes expect_exit 2 "--nodes: needs N or NxG" replay --trace "philly:$data/philly_small.csv" --nodes 4y8
"$gantry" replay --trace="philly:$data/philly_small.csv" --nodes=4x8 --vc-sizes="$data/vc_small.csv" --quiet \
	-ojson >"$tmp/r1.json" 2>/dev/null
check replay_equals_form_same_result python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):
    d.pop("scheduler", None)
assert a == b' "$tmp/replay.json" "$tmp/r1.json"
check replay_compare_positional runs_ok replay --compare "$tmp/replay.json" "$tmp/r1.json"
check replay_compare_needs_two expect_exit 2 "--compare needs two result files" replay --compare "$tmp/r1.json"
# KAI's scheduler snapshots (docs/snapshots.md): the demo as a KAI v0.17 /get-snapshot ZIP gives
# the same JSON as its YAML; the bare snapshot.json too; a newer KAI's fields are warnings
snapshot_tool="$dir/kai-snapshot.py"
python3 "$snapshot_tool" "$demo" "$tmp/snap.zip" --yaml-out "$tmp/snap.yaml" >/dev/null
python3 "$snapshot_tool" "$demo" "$tmp/snap.json" >/dev/null
"$gantry" simulate -f "$tmp/snap.yaml" --now 2026-01-01T09:00:00Z -o json >"$tmp/snap-yaml.out" 2>/dev/null
check snapshot_zip_as_yaml runs_ok simulate --snapshot "$tmp/snap.zip" --now 2026-01-01T09:00:00Z -o json
check snapshot_zip_same_json cmp -s "$tmp/out" "$tmp/snap-yaml.out"
check snapshot_json_as_yaml runs_ok simulate --snapshot "$tmp/snap.json" --now 2026-01-01T09:00:00Z -o json
check snapshot_json_same_json cmp -s "$tmp/out" "$tmp/snap-yaml.out"
check snapshot_evicts_for_team_a python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["operations"]["evictions"], d["operations"]
' "$tmp/out"
python3 "$snapshot_tool" "$demo" "$tmp/extras.zip" --extras >/dev/null
check snapshot_newer_kai_loads runs_ok simulate --snapshot "$tmp/extras.zip" -v -o table
check snapshot_warns_unknown_field grep -q "config.futureSetting: a field Gantry does not know" "$tmp/err"
check snapshot_warns_unknown_argument grep -q "plugin priority: argument someFutureKnob is not acted on" "$tmp/err"
# the storage lists are read now (volume binding): the extra PersistentVolume draws no warning
check snapshot_reads_storage_lists bash -c '! grep -q "rawObjects.persistentVolumes" "$1"' _ "$tmp/err"
check snapshot_verbose_timing grep -qE "read in [0-9.]+ ms, decoded in [0-9.]+ ms: [0-9]+ objects; 4 nodes" "$tmp/err"
check snapshot_verbose_cycle grep -qE "cycle 1: [0-9.]+ ms \\([0-9]+ binds" "$tmp/err"
# bad snapshots: exit 2, naming the part
echo "not a snapshot" >"$tmp/text.zip"
check snapshot_not_zip expect_exit 2 "neither a ZIP archive .* nor a snapshot.json" simulate --snapshot "$tmp/text.zip"
python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], "w"); z.writestr("other.txt", "x"); z.close()' "$tmp/other.zip"
check snapshot_no_json expect_exit 2 "the archive holds no snapshot.json" simulate --snapshot "$tmp/other.zip"
head -c 300 "$tmp/snap.zip" >"$tmp/short.zip"
check snapshot_truncated_zip expect_exit 2 "a ZIP archive that cannot be read \\(truncated\\?\\)" simulate --snapshot "$tmp/short.zip"
head -c 5000 "$tmp/snap.json" >"$tmp/short.json"
check snapshot_truncated_json expect_exit 2 "snapshot.json: not JSON at line 1, .*\\(a truncated file\\?\\)" \
	simulate --snapshot "$tmp/short.json"
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
s["rawObjects"]["nodes"].append(s["rawObjects"]["pods"][0])
json.dump(s, open(sys.argv[2], "w"))
' "$tmp/snap.json" "$tmp/wrongkind.json"
check snapshot_wrong_kind expect_exit 2 "rawObjects.nodes\\[4\\]: a Pod \\(spec.containers\\) in the list of Node objects" \
	simulate --snapshot "$tmp/wrongkind.json"
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
s["rawObjects"]["pods"] = {"not": "a list"}
json.dump(s, open(sys.argv[2], "w"))
' "$tmp/snap.json" "$tmp/notlist.json"
check snapshot_not_a_list expect_exit 2 "rawObjects.pods: must be a list of Pod objects or null" \
	simulate --snapshot "$tmp/notlist.json"
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
s["rawObjects"]["pods"][0]["metadata"]["creationTimestamp"] = "yesterday"
json.dump(s, open(sys.argv[2], "w"))
' "$tmp/snap.json" "$tmp/badobject.json"
check snapshot_bad_object expect_exit 2 "badobject.json: Pod [a-z-]+/[a-z0-9-]+: field metadata.creationTimestamp: not an RFC 3339 time 'yesterday'" \
	simulate --snapshot "$tmp/badobject.json"
# a snapshot served by KAI v0.17's own scheduler (tests/data/kai-v017-live-snapshot.md): Gantry does
# what KAI's snapshot-tool does on it, and no more
live="$dir/../data/kai-v017-live-snapshot.zip"
check snapshot_live_kai_loads runs_ok simulate --snapshot "$live" -o json
check snapshot_live_kai_as_snapshot_tool python3 -c '
import collections, json, sys
d = json.load(open(sys.argv[1]))
pods = {p["name"]: p for p in d["pods"]}
gang = collections.Counter(pods["a-gang-%d" % i]["node"] for i in range(4) if pods["a-gang-%d" % i]["status"] == "Binding")
assert gang == {"kai-n3": 2, "kai-n4": 2}, gang
assert (pods["c-nb"]["status"], pods["c-nb"]["node"]) == ("Pipelined", "kai-n3"), pods["c-nb"]
assert (pods["b-run-4"]["status"], pods["b-run-4"]["node"]) == ("Releasing", "kai-n3"), pods["b-run-4"]
assert pods["a-one"]["status"] == "Pending" and pods["b-more"]["status"] == "Pending", (pods["a-one"], pods["b-more"])
assert all(pods["b-run-%d" % i]["status"] == "Running" for i in range(4))
assert d["operations"] == {"binds": 4, "evictions": 1, "pipelines": 1}, d["operations"]
' "$tmp/out"
# a snapshot's configMaps are every ConfigMap KAI cached: KAI's ConfigMap predicate applies
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
for p in s["rawObjects"]["pods"]:
    if p["metadata"]["name"] == "tokenize-0":
        p["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "tokenizer-config"}}]
s["rawObjects"]["configMaps"] = [{"metadata": {"name": "other", "namespace": "team-a"}}]
json.dump(s, open(sys.argv[2], "w"))
s["rawObjects"]["configMaps"].append({"metadata": {"name": "tokenizer-config", "namespace": "team-a"}})
json.dump(s, open(sys.argv[3], "w"))
' "$tmp/snap.json" "$tmp/cm-missing.json" "$tmp/cm-there.json"
tokenize_state='import json, sys
d = json.load(open(sys.argv[1]))
print([p["status"] for p in d["pods"] if p["name"] == "tokenize-0"][0],
      [g["message"] for g in d["podGroups"] if g["name"] == "pg-tokenize"][0])'
check snapshot_configmap_missing runs_ok simulate --snapshot "$tmp/cm-missing.json" -o json
check snapshot_configmap_missing_waits test "$(python3 -c "$tokenize_state" "$tmp/out")" = \
	"Pending Missing required configmaps: [tokenizer-config]"
check snapshot_configmap_there runs_ok simulate --snapshot "$tmp/cm-there.json" -o json
check snapshot_configmap_there_binds test "$(python3 -c "$tokenize_state" "$tmp/out")" = "Binding "

# gantry fairshare (docs/fairshare.md): KAI's fairshare-simulator README request, stdin and -f
cat >"$tmp/fs.json" <<'JSON'
{"totalResource": {"GPU": 100, "CPU": 16000, "Memory": 32000000},
 "queues": [
  {"uid": "queue1", "name": "test-queue", "priority": 0,
   "resourceShare": {"gpu": {"deserved": 10, "request": 100, "overQuotaWeight": 3}}},
  {"uid": "queue2", "name": "test-queue2", "priority": 0,
   "resourceShare": {"gpu": {"deserved": 10, "request": 100, "overQuotaWeight": 1}}}]}
JSON
fs_expect='{"queue1":{"gpu":70,"cpu":16000,"memory":100000},"queue2":{"gpu":30,"cpu":16000,"memory":100000}}'
check fairshare_stdin test "$("$gantry" fairshare <"$tmp/fs.json")" = "$fs_expect"
check fairshare_file test "$("$gantry" fairshare -f "$tmp/fs.json")" = "$fs_expect"
check fairshare_bad_request bash -c 'echo "{\"queues\": 3}" | "$1" fairshare 2>&1 >/dev/null | grep -q "<stdin>: queues: must be a list"; [ "${PIPESTATUS[1]}" -eq 2 ]' _ "$gantry"
check fairshare_bad_serve expect_exit 2 "--serve: 'nowhere' is not HOST:PORT" fairshare --serve nowhere
# --serve: POST /simulate answers as the command does; SIGTERM ends it with status 0
check fairshare_serve python3 - "$gantry" "$tmp/fs.json" "$fs_expect" <<'PY'
import json, re, signal, subprocess, sys, time, urllib.error, urllib.request
gantry, req, want = sys.argv[1:]
p = subprocess.Popen([gantry, "fairshare", "--serve", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
try:
    line = p.stderr.readline()
    port = int(re.search(r"on 127\.0\.0\.1:(\d+)", line).group(1))
    url = "http://127.0.0.1:%d/simulate" % port
    got = urllib.request.urlopen(urllib.request.Request(url, data=open(req, "rb").read()), timeout=10).read()
    assert json.loads(got) == json.loads(want), got
    try:
        urllib.request.urlopen(urllib.request.Request(url, data=b"nope"), timeout=10)
        raise AssertionError("bad JSON accepted")
    except urllib.error.HTTPError as e:
        assert e.code == 400 and b"not JSON" in e.read(), e
finally:
    p.send_signal(signal.SIGTERM)
    rc = p.wait(10)
assert rc == 0, rc
PY
# --over-time: KAI's examples/example_config.yaml (8 GPUs, two teams of 4-GPU jobs): each team
# holds 4 from cycle 1 on, and the department 8
cat >"$tmp/overtime.yaml" <<'YAML'
Cycles: 100
WindowSize: 10
HalfLifePeriod: 5
KValue: 1.0
Nodes:
  - GPUs: 8
    Count: 1
Queues:
  - {Name: default, Parent: "", Priority: 100, DeservedGPUs: 0.0, Weight: 1.0}
  - {Name: team-a, Parent: default, Priority: 100, DeservedGPUs: 0.0, Weight: 1.0}
  - {Name: team-b, Parent: default, Priority: 100, DeservedGPUs: 0.0, Weight: 1.0}
Jobs:
  team-a: {GPUs: 4, NumPods: 1, NumJobs: 50}
  team-b: {GPUs: 4, NumPods: 1, NumJobs: 50}
YAML
check fairshare_over_time runs_ok fairshare --over-time "$tmp/overtime.yaml" --output-file "$tmp/overtime.csv"
check fairshare_over_time_csv python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert list(rows[0]) == ["Time", "QueueID", "Allocation", "FairShare"], list(rows[0])
assert len(rows) == 300, len(rows)
for r in rows:
    if int(r["Time"]) >= 1:
        want = 8.0 if r["QueueID"] == "default" else 4.0
        assert float(r["Allocation"]) == want and float(r["FairShare"]) == want, r
' "$tmp/overtime.csv"
check fairshare_over_time_stdin bash -c '"$1" fairshare --over-time - <"$2" | cmp -s - "$3"' _ "$gantry" "$tmp/overtime.yaml" "$tmp/overtime.csv"
check fairshare_over_time_bad expect_exit 2 "<stdin>: Queues: must list at least one queue" \
	fairshare --over-time - <<<$'Cycles: 3\nNodes: [{GPUs: 8, Count: 1}]\nQueues: 7'


# replay: time-based fair share on the virtual clock. Queue a held the only 8-GPU node for 10 h
# when a and b queue 8-GPU jobs (a 10 s earlier). Without usage a goes first; with a 10 h window
# a's usage is the whole window, its weight max(0, 1/2 + (1/2 - 1)) = 0, so b's fair share is the
# node: b reclaims a's job at once and its three jobs wait 0, 1 h and 2 h (mean 3600 s)
"$gantry" replay --trace "philly:$data/philly_usage_history.csv" --nodes 1x8 -o json >"$tmp/nousage.json" 2>/dev/null
check replay_usage runs_ok replay --trace "philly:$data/philly_usage_history.csv" --nodes 1x8 \
	--time-based-fairshare --usage-window 10h -o json
check replay_usage_favours_the_idle_queue python3 -c '
import json, sys
q = lambda d: {x["name"]: x for x in d["queues"]}
off, on = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert q(off)["a"]["wait_mean_s"] < q(off)["b"]["wait_mean_s"], q(off)
assert off["evictions"]["jobs"] == 0, off["evictions"]
assert q(on)["b"]["wait_mean_s"] == 3600, q(on)["b"]
assert on["evictions"]["jobs"] == 1 and q(on)["a"]["wait_mean_s"] > 3600, (on["evictions"], q(on)["a"])
assert on["policy"].endswith(" usage=sliding window=36000s half-life=0s k=1"), on["policy"]
assert "usage=" not in off["policy"], off["policy"]
' "$tmp/nousage.json" "$tmp/out"
# replay: time-based fair share flags
check replay_usage_flags_need_it expect_exit 2 "--usage-window and --usage-half-life go with --time-based-fairshare" \
	replay --trace "philly:$data/philly_usage_history.csv" --nodes 1x8 --usage-half-life 1h
# scheduler and podgrouper: shared connection and leader-election groups, strict values
check scheduler_kubeconfig_equals expect_exit 2 "nonexistent" scheduler --kubeconfig="$tmp/nonexistent"
check podgrouper_kubeconfig_equals expect_exit 2 "nonexistent" podgrouper --kubeconfig "$tmp/nonexistent"
check scheduler_strict_burst expect_exit 2 "--burst: must be a whole number from 1 to 100000, not '10x'" \
	scheduler --burst=10x
check podgrouper_workers_range expect_exit 2 "--max-concurrent-reconciles: must be a whole number from 1 to 256" \
	podgrouper --max-concurrent-reconciles 0
check scheduler_lease_check expect_exit 2 "renew-deadline must be shorter than the lease duration" \
	scheduler --leader-elect --leader-elect-renew-deadline=20s
check podgrouper_lease_group expect_exit 2 "--leader-elect-lease-duration: must be a duration" \
	podgrouper --leader-elect-lease-duration soon
check scheduler_bad_duration expect_exit 2 "--schedule-period: must be a duration" scheduler --schedule-period=-1s
check scheduler_positional_refused expect_exit 2 "unexpected argument 'extra'" scheduler extra
# admission: KAI's flags, what Gantry cannot do refused, flags that would do nothing warned about
check admission_hami_refused expect_exit 2 "--hami-core-enabled: not implemented" admission --hami-core-enabled
check scheduler_admission_hami_refused expect_exit 2 "--hami-core-enabled: not implemented" \
	scheduler --admission --hami-core-enabled
check admission_bad_label expect_exit 2 "--webhook-namespace-label: 'team' is not KEY=VALUE" \
	admission --webhook-namespace-label team
check admission_http_url expect_exit 2 "--webhook-url: 'http://x' is not https://" admission --webhook-url http://x
check admission_validities expect_exit 2 "--tls-cert-validity must be shorter than --tls-ca-validity" \
	admission --tls-cert-validity 2h --tls-ca-validity 1h
check admission_kai_port_flag expect_exit 2 "--webhook-addr: must be a whole number from 1 to 65535" \
	admission --webhook-addr 70000
check scheduler_admission_flags_need_admission expect_exit 2 "admission flags without --admission have no effect" \
	scheduler --gpu-sharing-enabled --kubeconfig "$tmp/nonexistent"
# PodGroup v2alpha2 durations: a bad one named at its field
cat >"$tmp/pg-dur.yaml" <<'Y'
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: pg, namespace: team-a}
spec: {queue: q, minMember: 1, stalenessGracePeriod: soon}
Y
check pg_bad_staleness_named expect_exit 2 "PodGroup team-a/pg.*spec.stalenessGracePeriod.*soon" \
	simulate -f "$tmp/pg-dur.yaml"
# a Queue without a cpu limit: 0 as in KAI, said, and its CPU pods wait over the limit
cat >"$tmp/q-nocpu.yaml" <<'Y'
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: 0, limit: -1}, memory: {quota: -1, limit: -1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, labels: {kai.scheduler/queue: q}}
spec: {schedulerName: kai-scheduler, containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}
Y
check queue_missing_limit_warned expect_exit 0 "queue q: no spec.resources limit for cpu: 0 as in KAI" \
	simulate -f "$tmp/q-nocpu.yaml"
check queue_missing_limit_blocks grep -q "default/p .*Pending" "$tmp/out"
# KAI's scheduler flags: taken under their names; what Gantry cannot act on is said
# --scheduler-conf: KAI's SchedulerConfiguration, read by the snapshot loader's parser
check scheduler_conf_missing_file expect_exit 2 "--scheduler-conf $tmp/none.yaml: .*none.yaml" \
	scheduler --scheduler-conf "$tmp/none.yaml"
printf 'actions: allocate\ntiers: {plugins: []}\n' >"$tmp/conf-bad.yaml"
check scheduler_conf_bad_field_named expect_exit 2 "conf-bad.yaml: config.tiers: must be a list" \
	scheduler --scheduler-conf "$tmp/conf-bad.yaml"
cat >"$tmp/conf.yaml" <<'Y'
actions: "allocate, reclaim, frobnicate"
tiers:
- plugins:
  - name: predicates
  - name: proportion
    arguments: {kValue: 1.5, relcaimerSaturationMultiplier: 2}
  - name: nodeplacement
    arguments: {gpu: spread, cpu: binpack, foo: bar}
  - name: magic
queueDepthPerAction: {allocate: 10}
Y
check scheduler_conf_warns_what_it_does_not_act_on expect_exit 2 \
	"conf.yaml: config.actions: 'frobnicate' is not an action Gantry runs" \
	scheduler --scheduler-conf "$tmp/conf.yaml" --kubeconfig "$tmp/nonexistent"
for w in "plugin nodeplacement: argument foo is not acted on" "plugin magic is not one Gantry knows" \
	"plugin priority is not in the configuration, but Gantry cannot turn it off"; do
	check "scheduler_conf_warns: $w" grep -q "$w" "$tmp/err"
done
# queueDepthPerAction is acted on (the shard's field of the same name): no warning
check scheduler_conf_takes_queue_depth test "$(grep -c queueDepthPerAction "$tmp/err")" -eq 0
check scheduler_conf_kvalue_not_warned sh -c '! grep -q "kValue\|relcaimerSaturationMultiplier" "$1"' _ "$tmp/err"
check scheduler_kai_flags_inert_warned expect_exit 2 "--enable-profiler is accepted but has no effect" \
	scheduler --enable-profiler --v=4 --max-consolidation-preemptees=4 --kubeconfig "$tmp/nonexistent"
check scheduler_kai_grace_negative_ok expect_exit 2 "nonexistent" \
	scheduler --default-staleness-grace-period=-1s --stuck-in-releasing-threshold=5m --kubeconfig "$tmp/nonexistent"
check scheduler_kai_bad_bool expect_exit 2 "--allow-consolidating-reclaim" scheduler --allow-consolidating-reclaim=maybe
cat >"$tmp/shard-args.yaml" <<'Y'
apiVersion: kai.scheduler/v1
kind: SchedulingShard
metadata: {name: default}
spec: {args: {detailed-fit-errors: "true"}, actions: {consolidation: {priority: 3}}}
Y
check shard_args_not_taken_warned expect_exit 0 "spec.args.detailed-fit-errors is not taken from the shard" \
	simulate -f "$tmp/shard-args.yaml"
check shard_action_priority_warned grep -q "spec.actions.consolidation.priority is not applied" "$tmp/err"
# the README's preemption-delay example: waits at 09:02 with KAI's message, preempts at 09:06
pd="$dir/../../examples/preemption-delay.yaml"
check preemption_delay_waits runs_ok simulate -f "$pd" --now 2026-01-01T09:02:00Z
check preemption_delay_waits_message grep -q "Workload is within its preemption delay window (5m0s) and may not trigger evictions before 2026-01-01T09:05:00Z" "$tmp/out"
check preemption_delay_then_preempts runs_ok simulate -f "$pd" --now 2026-01-01T09:06:00Z
check preemption_delay_then_preempts_evicts grep -qE "research/pretrain-0 +pretrain +ml +Releasing" "$tmp/out"
# the NUMA example: a Guaranteed pod no zone can align waits with the NUMA reason; the others get
# zones (the running pod's from its observed annotation) and the zones' books are printed
nx="$dir/../../examples/numa.yaml"
check numa_example_runs runs_ok simulate -f "$nx" --now 2026-01-01T09:00:00Z
check numa_refused_with_reason grep -q "2 node(s) cannot NUMA-align the pod's resources under its Topology Manager policy" "$tmp/out"
check numa_example_json runs_ok simulate -f "$nx" --now 2026-01-01T09:00:00Z -o json
check numa_zones_in_json python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
pods = {p["name"]: p for p in d["pods"]}
assert (pods["train-wide"]["status"], pods["train-wide"]["numaZones"]) == ("Pending", []), pods["train-wide"]
assert (pods["serve-small"]["node"], pods["serve-small"]["numaZones"]) == ("numa-a", [0]), pods["serve-small"]
assert pods["inference-0"]["numaZones"] == [0] and pods["burst"]["numaZones"] == [], pods
a = next(n for n in d["nodes"] if n["name"] == "numa-a")["numaZonesAvailable"]
assert a == [{"cpu": "16", "nvidia.com/gpu": "0"}, {"cpu": "32", "nvidia.com/gpu": "2"}], a' "$tmp/out"
# a NodeResourceTopology with a bad quantity is refused at its field
sed 's/available: "24"/available: "lots"/' "$nx" >"$tmp/numa-bad.yaml"
check numa_bad_quantity_named expect_exit 2 'NodeResourceTopology numa-a.*zones\[0\]\.resources\[0\]\.available' \
	simulate -f "$tmp/numa-bad.yaml"
# DRA (examples/dra-cluster.yaml): a template claim made and allocated 4 devices of one node, a
# shared claim allocated once with both its pods on its node, an 8-device claim waiting with the reason
dra="$dir/../../examples/dra-cluster.yaml"
check dra_example_runs runs_ok simulate -f "$dra" --now 2026-01-01T09:00:00Z
check dra_example_template grep -qE "ml/train-0-gpus-[a-z0-9]{5}: allocated this cycle on dgx-0: dgx-0/gpu-0 dgx-0/gpu-1 dgx-0/gpu-2 dgx-0/gpu-3; reserved for 1 pod" "$tmp/out"
check dra_example_shared grep -q "ml/shared-a100: allocated this cycle on dgx-1: dgx-1/gpu-0; reserved for 2 pod(s)" "$tmp/out"
check dra_example_waits grep -q "ml/big-0 due to: no nodes with enough resources were found: 2 node(s) didn't have enough free devices for the pod's resource claims" "$tmp/out"
check dra_example_quota grep -qE "^research +- +100 +8 +unlimited +8 +5$" "$tmp/out"
"$gantry" simulate -f "$dra" --now 2026-01-01T09:00:00Z -o json >"$tmp/dra.json" 2>/dev/null
check dra_example_json python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c={k["name"]: k for k in d["resourceClaims"]}; s=c["shared-a100"]; assert s["node"] == "dgx-1" and s["devices"] == [{"request": "gpu", "driver": "gpu.nvidia.com", "pool": "dgx-1", "device": "gpu-0"}] and sorted(s["reservedFor"]) == ["notebook-0", "notebook-helper-0"], s; assert c["eight-gpus"]["node"] is None' "$tmp/dra.json"
# a KAI snapshot's resourceClaims, resourceSlices and deviceClasses are read (no templates there:
# the template's pod waits for the controller's claim, as it would in its cluster)
python3 "$dir/kai-snapshot.py" "$dra" "$tmp/dra-snap.zip" >/dev/null
check dra_snapshot_runs runs_ok simulate --snapshot "$tmp/dra-snap.zip" --now 2026-01-01T09:00:00Z
check dra_snapshot_shared grep -q "ml/shared-a100: allocated this cycle on dgx-0: dgx-0/gpu-0; reserved for 2 pod(s)" "$tmp/out"
check dra_snapshot_template_waits grep -q "the claim of gpus from ResourceClaimTemplate four-gpus is not made yet" "$tmp/out"
# the claim goes with whichever consumer task order places first: here the helper (by name)
sed 's/notebook-helper-0/a-helper-0/' "$dra" >"$tmp/dra-swap.yaml"
check dra_shared_first_in_task_order runs_ok simulate -f "$tmp/dra-swap.yaml" --now 2026-01-01T09:00:00Z
check dra_shared_first_in_task_order_bound grep -q "ml/shared-a100: allocated this cycle on dgx-[01]: dgx-[01]/gpu-0; reserved for 2 pod(s)" "$tmp/out"
# the next cycles keep the allocations: nothing moves, the big claim still waits
check dra_example_cycles runs_ok simulate -f "$dra" --now 2026-01-01T09:00:00Z --cycles 3
check dra_example_cycles_stable grep -q "^3 cycles: 3 bound, 0 pipelined, 0 evicted" "$tmp/out"
# structured requests (examples/dra-structured.yaml): allocationMode All takes every L4 of a node,
# matchAttribute goes back from gpu-0 (NUMA 0) past gpu-1 and gpu-2 (NUMA 1) to gpu-3, firstAvailable
# takes its second subrequest and names it; nothing is warned about
drs="$dir/../../examples/dra-structured.yaml"
check dra_structured_runs runs_ok simulate -f "$drs" --now 2026-01-01T09:00:00Z
check dra_structured_no_warning test ! -s "$tmp/err"
check dra_structured_all grep -q "ml/every-l4: allocated this cycle on l4-0: l4-0/gpu-0 l4-0/gpu-1; reserved for 1 pod" "$tmp/out"
check dra_structured_match grep -q "ml/a100-pair: allocated this cycle on dgx-0: dgx-0/gpu-0 dgx-0/gpu-3; reserved" "$tmp/out"
check dra_structured_first grep -q "ml/eight-or-two: allocated this cycle on dgx-0: dgx-0/gpu-1 dgx-0/gpu-2; reserved" "$tmp/out"
check dra_structured_quota grep -qE "^research +- +100 +8 +unlimited +3 +3$" "$tmp/out"	# KAI: All 1, firstAvailable 0
"$gantry" simulate -f "$drs" --now 2026-01-01T09:00:00Z -o json >"$tmp/drs.json" 2>/dev/null
check dra_structured_json python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c={k["name"]: k for k in d["resourceClaims"]}; assert [(r["request"], r["device"]) for r in c["eight-or-two"]["devices"]] == [("gpus/two", "gpu-1"), ("gpus/two", "gpu-2")], c' "$tmp/drs.json"
# three A100s on one NUMA node are nowhere: the pod waits, saying the claims are not satisfied
awk '/name: a100-pair/{f=1} f && /count: 2/{sub(/count: 2/,"count: 3"); f=0} {print}' "$drs" >"$tmp/drs3.yaml"
check dra_structured_waits runs_ok simulate -f "$tmp/drs3.yaml" --now 2026-01-01T09:00:00Z
check dra_structured_waits_why grep -q "ml/pair-0 due to: no nodes with enough resources were found: 2 node(s) didn't satisfy the pod's resource claims" "$tmp/out"
# a network-attached pool (a slice with a nodeSelector, no nodeName): its device goes to a pod on a
# node the selector keeps (rack r2), and a second claim for it waits whatever node it tries
{
	for r in 1 2; do
		cat <<Y
apiVersion: v1
kind: Node
metadata: {name: rack$r-0, labels: {rack: r$r}}
status: {allocatable: {cpu: "32", memory: 256Gi, pods: "110"}, conditions: [{type: Ready, status: "True"}]}
---
Y
	done
	cat <<'Y'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: nic.example.com}
spec: {selectors: [{cel: {expression: "device.driver == 'nic.example.com'"}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: r2-fabric}
spec:
  driver: nic.example.com
  pool: {name: r2-fabric, generation: 1, resourceSliceCount: 1}
  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [r2]}]}]}
  devices: [{name: port-0}]
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: research}
spec: {resources: {gpu: {quota: -1, limit: -1, overQuotaWeight: 1}, cpu: {quota: -1, limit: -1, overQuotaWeight: 1}, memory: {quota: -1, limit: -1, overQuotaWeight: 1}}}
Y
	for i in 0 1; do
		cat <<Y
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: port-$i, namespace: ml}
spec: {devices: {requests: [{name: port, exactly: {deviceClassName: nic.example.com}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: net-$i, namespace: ml, creationTimestamp: "2026-01-01T08:0$i:00Z", labels: {kai.scheduler/queue: research}}
spec:
  schedulerName: kai-scheduler
  resourceClaims: [{name: port, resourceClaimName: port-$i}]
  containers: [{name: main, image: x:1, resources: {requests: {cpu: "1"}, claims: [{name: port}]}}]
Y
	done
} >"$tmp/drn.yaml"
check dra_network_runs runs_ok simulate -f "$tmp/drn.yaml" --now 2026-01-01T09:00:00Z
check dra_network_no_warning test ! -s "$tmp/err"
check dra_network_placed grep -q "ml/port-0: allocated this cycle on rack2-0: r2-fabric/port-0; reserved for 1 pod" "$tmp/out"
check dra_network_taken grep -q "ml/net-1 due to: no nodes with enough resources were found: 2 node(s) didn't" "$tmp/out"
# gantry replay on a DRA cluster: the nodes publish their GPUs as ResourceSlices, and a DeviceClass
# lends them to nvidia.com/gpu (KEP-5004), which the trace's jobs ask for: the same replay as on
# device-plugin nodes (only the scheduler's timings differ); without extendedResourceName no GPU
python3 - "$tmp/dra-replay.yaml" <<'P'
import sys
docs = ["apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.nvidia.com}\nspec:\n"
        "  extendedResourceName: nvidia.com/gpu\n  selectors: [{cel: {expression: \"device.driver == 'gpu.nvidia.com'\"}}]"]
for i in range(4):
    n = "node-%04d" % i
    docs.append("apiVersion: v1\nkind: Node\nmetadata: {name: %s}\nstatus: {allocatable: {cpu: \"128\", memory: 1Ti, "
                "pods: \"110\"}, conditions: [{type: Ready, status: \"True\"}]}" % n)
    docs.append("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: %s-gpus}\nspec: {driver: "
                "gpu.nvidia.com, nodeName: %s, pool: {name: %s, generation: 1, resourceSliceCount: 1}, devices: [%s]}"
                % (n, n, n, ", ".join("{name: gpu-%d}" % g for g in range(8))))
open(sys.argv[1], "w").write("\n---\n".join(docs) + "\n")
P
"$gantry" replay --trace "philly:$data/philly_small.csv" -f "$tmp/dra-replay.yaml" --vc-sizes "$data/vc_small.csv" \
	--quiet -o json >"$tmp/replay-dra.json" 2>"$tmp/replay-dra.err"
check replay_dra_no_warning test ! -s "$tmp/replay-dra.err"
check replay_dra_same_as_device_plugin python3 -c '
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert b["cluster_gpus"] == 32 and b["jobs"] == 6, (b["cluster_gpus"], b["jobs"])
diff = [k for k in a if k != "scheduler" and a[k] != b.get(k)]
assert not diff, diff' "$tmp/replay.json" "$tmp/replay-dra.json"
sed '/extendedResourceName/d' "$tmp/dra-replay.yaml" >"$tmp/dra-replay-no-ext.yaml"
"$gantry" replay --trace "philly:$data/philly_small.csv" -f "$tmp/dra-replay-no-ext.yaml" --vc-sizes "$data/vc_small.csv" \
	--quiet -o json >"$tmp/replay-dra-no-ext.json" 2>/dev/null
check replay_dra_needs_the_resource_name python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["cluster_gpus"] == 0' "$tmp/replay-dra-no-ext.json"
# KAI's ConfigMap predicate applies only when the input holds ConfigMaps: said when it does not
cat >"$tmp/cm.yaml" <<'Y'
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec: {schedulerName: kai-scheduler, volumes: [{name: v, configMap: {name: cfg}}], containers: [{name: c, image: x, volumeMounts: [{name: v, mountPath: /v}]}]}
Y
check configmaps_unknown_warned expect_exit 0 "pod p needs ConfigMaps and the input has none" simulate -f "$tmp/cm.yaml"
# the status controllers: KAI's label maps checked at start, the pair named
check status_label_map_pair expect_exit 2 'invalid map item: "team" \(want key=value\)' \
	status-controllers --queue-label-to-metric-label team
check status_label_map_reserved expect_exit 2 '"queue_name" is no metric label of its own' \
	scheduler --queue-label-to-metric-label team=queue_name
check status_nothing_to_do expect_exit 2 "leave nothing to do" \
	status-controllers --queue-controller=false --podgroup-controller=false
check status_kubeconfig expect_exit 2 "nonexistent" status-controllers --kubeconfig "$tmp/nonexistent"
# ---- bad input (issue 17 item 4, issue 16 item 3): said at the object and field, the rest scheduled
bad="$tmp/bad"
mkdir -p "$bad"
cat >"$bad/cluster.yaml" <<'Y'
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: '64', memory: 512Gi, nvidia.com/gpu: '8'}, conditions: [{type: Ready, status: 'True'}]}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: root}
spec: {resources: {gpu: {quota: 8, limit: -1, overQuotaWeight: 1}}}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: leaf}
spec: {parentQueue: root, resources: {gpu: {quota: 8, limit: -1, overQuotaWeight: 1}}}
Y
# pod NAME QUEUE [EXTRA-METADATA [RESOURCES]]: a pending pod of ours (1 GPU unless RESOURCES say)
pod() {
	printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: ns, labels: {kai.scheduler/queue: %s}%s}\n' \
		"$1" "$2" "${3:-}"
	printf 'spec: {schedulerName: kai-scheduler, containers: [{name: c, image: x, resources: %s}]}\n' \
		"${4:-{limits: {nvidia.com/gpu: \"1\"\}\}}"
}
# placed NAME...: each pod is bound in $tmp/out (simulate -o json)
placed() {
	python3 - "$tmp/out" "$@" <<'P'
import json, sys
pods = {p["name"]: p for p in json.load(open(sys.argv[1]))["pods"]}
for n in sys.argv[2:]:
    assert pods.get(n, {}).get("status") == "Binding", (n, pods.get(n))
P
}
# waiting NAME: the pod is in $tmp/out and not bound
waiting() {
	python3 - "$tmp/out" "$1" <<'P'
import json, sys
pods = {p["name"]: p for p in json.load(open(sys.argv[1]))["pods"]}
assert sys.argv[2] in pods and pods[sys.argv[2]]["status"] != "Binding", pods.get(sys.argv[2])
P
}

# a queue cycle of two, of three and a queue its own parent: refused, named; their pods are not placed
{
	for q in "qa qb" "qb qa" "qc qd" "qd qe" "qe qc" "qs qs"; do
		set -- $q
		printf -- '---\napiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: %s}\nspec: {parentQueue: %s}\n' "$1" "$2"
	done
	pod in-qa qa; pod in-qd qd; pod in-qs qs; pod fine leaf
} >"$bad/cycles.yaml"
"$gantry" simulate -f "$bad/cluster.yaml" -f "$bad/cycles.yaml" -o json --now 2026-01-01T09:00:00Z >"$tmp/out" 2>"$tmp/err"
check queue_cycle_named grep -qE "cycles.yaml:[0-9]+:[0-9]+: Queue qa: field spec.parentQueue: .*cycle.*qa.*qb" "$tmp/err"
check queue_cycle_of_three_named grep -qE "Queue qc: field spec.parentQueue: .*cycle" "$tmp/err"
check queue_self_parent_named grep -qE "Queue qs: field spec.parentQueue: names the queue itself" "$tmp/err"
check queue_cycle_pods_not_placed waiting in-qa
check queue_cycle_of_three_pods_not_placed waiting in-qd
check queue_self_parent_pods_not_placed waiting in-qs
check queue_cycle_rest_placed placed fine

# JSON through a JSON parser: a surrogate pair (Python's json.dumps of an emoji) is one character
python3 - "$bad/emoji.json" <<'P'
import json, sys
pod = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "rocket", "namespace": "ns", "labels": {"kai.scheduler/queue": "leaf"},
                    "annotations": {"note": "\U0001F680 launch"}},
       "spec": {"schedulerName": "kai-scheduler",
                "containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}
open(sys.argv[1], "w").write(json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod]}, indent=4))
P
check json_surrogate_pair_read grep -q '\\ud83d\\ude80' "$bad/emoji.json"
check json_surrogate_pair_accepted runs_ok simulate -f "$bad/cluster.yaml" -f "$bad/emoji.json" -o json \
	--now 2026-01-01T09:00:00Z
check json_surrogate_pair_pod_placed placed rocket

# a JSON List with one pod jansson refuses (a lone surrogate) and one with a key twice: that pod left out,
# named at its field; the other warned about; the rest placed
python3 - "$bad/list.json" <<'P'
import json, sys
def pod(name, note):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ns", "labels": {"kai.scheduler/queue": "leaf"},
                         "annotations": {"note": note}},
            "spec": {"schedulerName": "kai-scheduler",
                     "containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}
text = json.dumps({"apiVersion": "v1", "kind": "List",
                   "items": [pod("j-1", "a"), pod("j-lone", "LONE"), pod("j-twice", "TWICE"), pod("j-2", "b")]},
                  indent=4)
text = text.replace('"LONE"', '"\\udc00"').replace('"note": "TWICE"', '"note": "x", "note": "y"')
open(sys.argv[1], "w").write(text)
P
"$gantry" simulate -f "$bad/cluster.yaml" -f "$bad/list.json" -o json --now 2026-01-01T09:00:00Z >"$tmp/out" 2>"$tmp/err"
check json_bad_item_named grep -qE "list.json:[0-9]+:[0-9]+: Pod ns/j-lone: field metadata.annotations.note: not valid JSON: " "$tmp/err"
check json_duplicate_key_warned grep -qE "warning: .*list.json:[0-9]+:[0-9]+: Pod ns/j-twice: field metadata.annotations.note: given twice" "$tmp/err"
check json_bad_item_rest_placed placed j-1 j-twice j-2

# absurd numbers, names over Kubernetes' limits, a second object of the same name: each named, the rest placed
long=$(printf 'x%.0s' $(seq 260))
{
	pod ok-1 leaf
	pod nan-gpu leaf ', annotations: {gpu-fraction: .nan}'
	pod huge-cpu leaf '' '{requests: {cpu: "1e308"}}'
	pod "$long" leaf
	pod ok-1 leaf
	printf -- '---\napiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: neg}\n'
	printf 'spec: {parentQueue: root, resources: {gpu: {quota: 1, limit: -1, overQuotaWeight: -5}}}\n'
	pod ok-2 leaf
} >"$bad/absurd.yaml"
"$gantry" simulate -f "$bad/cluster.yaml" -f "$bad/absurd.yaml" -o json --now 2026-01-01T09:00:00Z >"$tmp/out" 2>"$tmp/err"
check absurd_nan_named grep -qE "absurd.yaml:[0-9]+:[0-9]+: Pod ns/nan-gpu: field metadata.annotations.gpu-fraction: " "$tmp/err"
check absurd_huge_cpu_named grep -qE "absurd.yaml:[0-9]+:[0-9]+: Pod ns/huge-cpu: field spec.containers\[0\].resources.requests.cpu: " "$tmp/err"
check name_over_limit_named grep -qE "Pod ns/x{260}: field metadata.name: .*253" "$tmp/err"
check duplicate_object_named grep -qE "Pod ns/ok-1: .*(second|twice|again|duplicate).*absurd.yaml:[0-9]+" "$tmp/err"
check negative_weight_named grep -qE "Queue neg: field spec.resources.gpu.overQuotaWeight: " "$tmp/err"
check absurd_rest_placed placed ok-2

# deep nesting and binary noise: the object or input named, not a crash; the other files read
python3 -c 'import sys; sys.stdout.write("apiVersion: v1\nkind: Pod\nmetadata: {name: deep, namespace: ns}\nspec: {x: " + "["*400 + "]"*400 + "}\n")' \
	>"$bad/deep.yaml"
head -c 4096 /dev/urandom >"$bad/noise.json"
printf '\x00\xff\xfe{"kind": \x01' >>"$bad/noise.json"
{ pod after-noise leaf; } >"$bad/after.yaml"
"$gantry" simulate -f "$bad/cluster.yaml" -f "$bad/deep.yaml" -f "$bad/noise.json" -f "$bad/after.yaml" -o json \
	--now 2026-01-01T09:00:00Z >"$tmp/out" 2>"$tmp/err"
check deep_nesting_named grep -qE "deep.yaml:[0-9]+:[0-9]+: Pod ns/deep: field spec.x.*nested deeper than 256" "$tmp/err"
check binary_noise_named grep -qE "noise.json:[0-9]+:[0-9]+: .*not valid JSON" "$tmp/err"
check noise_rest_placed placed after-noise

# ---- errors at the field (issue 16 item 3): file of several -f, line and column, container index, limits
{
	printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: lim, namespace: ns, labels: {kai.scheduler/queue: leaf}}\n'
	printf 'spec:\n  schedulerName: kai-scheduler\n  containers:\n  - name: a\n    image: x\n'
	printf '  - name: b\n    image: x\n    resources:\n      limits:\n        cpu: lots\n'
} >"$bad/limits.yaml"
check field_error_file_line_column_index_limits expect_exit 2 \
	"limits.yaml:14:14: Pod ns/lim: field spec.containers\[1\].resources.limits.cpu: .*'lots'" \
	simulate -f "$bad/cluster.yaml" -f "$bad/limits.yaml"
# in JSON: the file, the object's line, the field's path (docs/decoding.md)
python3 - "$bad/limits.json" <<'P'
import json, sys
pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "lim", "namespace": "ns"},
       "spec": {"schedulerName": "kai-scheduler", "containers": [{"name": "a", "image": "x"},
                {"name": "b", "image": "x", "resources": {"limits": {"cpu": "lots"}}}]}}
open(sys.argv[1], "w").write(json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod]}, indent=4))
P
check json_field_error_file_line_path expect_exit 2 \
	"limits.json:5: Pod ns/lim: field spec.containers\[1\].resources.limits.cpu: .*'lots'" \
	simulate -f "$bad/cluster.yaml" -f "$bad/limits.json"

# ---- silent cases said (issue 16 item 3)
# two objects concatenated without '---': their keys are given twice
{
	printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: first, namespace: ns, labels: {kai.scheduler/queue: leaf}}\n'
	printf 'spec: {schedulerName: kai-scheduler, containers: [{name: c, image: x}]}\n'
	printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: second, namespace: ns, labels: {kai.scheduler/queue: leaf}}\n'
	printf 'spec: {schedulerName: kai-scheduler, containers: [{name: c, image: x}]}\n'
} >"$bad/concat.yaml"
check duplicate_keys_warned expect_exit 0 "concat.yaml:5:1: .*field apiVersion: given twice .*without '---'" \
	simulate -f "$bad/cluster.yaml" -f "$bad/concat.yaml" -o json --now 2026-01-01T09:00:00Z
: >"$bad/empty.yaml"
mkdir -p "$bad/emptydir"
check empty_file_warned expect_exit 0 "warning: .*empty.yaml holds no objects" simulate -f "$bad/cluster.yaml" -f "$bad/empty.yaml" -o json
check empty_dir_warned expect_exit 0 "warning: directory .*emptydir holds no .yaml, .yml or .json files" simulate -f "$bad/cluster.yaml" -f "$bad/emptydir" -o json
check dev_null_warned expect_exit 0 "warning: /dev/null holds no objects" simulate -f "$bad/cluster.yaml" -f /dev/null -o json
# a pending pod of another scheduler (or of none): said, not silently Pending
{
	printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: theirs, namespace: ns}\n'
	printf 'spec: {schedulerName: default-scheduler, containers: [{name: c, image: x}]}\n'
	printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: nobodys, namespace: ns}\n'
	printf 'spec: {containers: [{name: c, image: x}]}\n'
} >"$bad/others.yaml"
check other_scheduler_warned expect_exit 0 "warning: .*(another scheduler|schedulerName).*" \
	simulate -f "$bad/cluster.yaml" -f "$bad/others.yaml" -o json --now 2026-01-01T09:00:00Z
# a pod whose owner is missing or has another uid: no PodGroup (as KAI's podgrouper), said, not a gang of one
{
	pod orphan leaf ', uid: u-1, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: gone, uid: j-1, controller: true}]'
	printf -- '---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: other, namespace: ns, uid: j-2}\nspec: {}\n'
	pod wrong-uid leaf ', uid: u-2, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: other, uid: j-9, controller: true}]'
} >"$bad/owners.yaml"
"$gantry" simulate -f "$bad/cluster.yaml" -f "$bad/owners.yaml" -o json --now 2026-01-01T09:00:00Z >"$tmp/out" 2>"$tmp/err"
check owner_missing_warned grep -qE "Pod ns/orphan: .*owner" "$tmp/err"
check owner_wrong_uid_warned grep -qE "Pod ns/wrong-uid: .*owner" "$tmp/err"
check owner_missing_not_placed waiting orphan
check owner_wrong_uid_not_placed waiting wrong-uid
# ---- gantry replay (issue 16): packing summaries, percentage points, paths checked first,
# Ctrl-C keeps what was gathered, an ETA
"$gantry" replay --trace "openb:$data/openb_pods_small.csv" --openb-nodes "$data/openb_nodes_small.csv" \
	--no-departures --inflate 1.2 >"$tmp/packing.txt" 2>/dev/null
check replay_packing_summary grep -q "^  allocation: .*% of milli-GPUs; .* GPUs in use" "$tmp/packing.txt"
check replay_packing_summary_only sh -c "! grep -qE 'JCT|makespan|utilization|waited over 24 h' '$tmp/packing.txt'"
# a change of a percentage is said in percentage points (86.7% -> 93.0% is +6.3 pp, not +7.3%)
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a, b = dict(d), dict(d)
a["gpu_allocation"], b["gpu_allocation"] = 0.867, 0.930
a["jobs"], b["jobs"] = 100, 110
json.dump(a, open(sys.argv[2], "w")); json.dump(b, open(sys.argv[3], "w"))
' "$tmp/replay.json" "$tmp/cmp-a.json" "$tmp/cmp-b.json"
"$gantry" replay --compare "$tmp/cmp-a.json" "$tmp/cmp-b.json" >"$tmp/cmp.txt" 2>&1
check replay_compare_points grep -qE "^  GPU allocation +86.7% +93.0% +\+6.3 pp$" "$tmp/cmp.txt"
check replay_compare_counts_relative grep -qE "^  jobs +100 +110 +\+10.0%$" "$tmp/cmp.txt"
# an output path that cannot be written stops the replay before it runs
check replay_report_path_first expect_exit 2 "--report .*/nonexistent/x.html: cannot write" \
	replay --trace "philly:$data/philly_small.csv" --nodes 4x8 --report "$tmp/nonexistent/x.html"
check replay_report_path_first_no_results test ! -s "$tmp/out"
# a long replay on a terminal: the progress line has an ETA, a slow run says why; Ctrl-C ends it
# with what was gathered
python3 -c '
import random, sys
random.seed(7)
with open(sys.argv[1], "w") as f:
    f.write("timestamp,duration,num_gpus,gpu_time,cluster\n")
    for i in range(200000):
        h, m, s = divmod(i * 20, 3600)[0] % 24, (i * 20 // 60) % 60, (i * 20) % 60
        d = 10 + i * 20 // 86400
        g = random.choice([1, 2, 4, 8, 16])
        f.write("2017-10-%02d %02d:%02d:%02d,7200.0,%d,%d.0,vc%d\n" % (d % 28 + 1, h, m, s, g, g * 7200, i % 5))
' "$tmp/long.csv"
check replay_ctrl_c_eta python3 - "$gantry" "$tmp" <<'PY'
import json, os, pty, select, signal, subprocess, sys, time
gantry, tmp = sys.argv[1:3]
master, slave = pty.openpty()
p = subprocess.Popen([gantry, "replay", "--trace", "philly:" + tmp + "/long.csv", "--nodes", "4x8",
                      "--report", tmp + "/long.html", "-o", "json"],
                     stdout=open(tmp + "/long.json", "w"), stderr=slave)
os.close(slave)
# a failed assertion must not leave the replay running
import atexit
atexit.register(lambda: p.poll() is None and p.kill())
seen, deadline = b"", time.time() + 120
while b"ETA" not in seen and time.time() < deadline and p.poll() is None:
    if select.select([master], [], [], 1)[0]:
        try:
            seen += os.read(master, 4096)
        except OSError:
            break
assert b"ETA" in seen, seen[-500:]
assert b"% arrived" in seen and b"ms/cycle" in seen, seen[-500:]
# five actions evict on this trace: after 20 s the run says once why it is slow, and what helps
deadline = time.time() + 120
while b"note: slow" not in seen and time.time() < deadline and p.poll() is None:
    if select.select([master], [], [], 1)[0]:
        try:
            seen += os.read(master, 4096)
        except OSError:
            break
assert b"note: slow" in seen and b"--actions allocate" in seen, seen[-500:]
p.send_signal(signal.SIGINT)
rc = p.wait(60)
assert rc == 130, rc
d = json.load(open(tmp + "/long.json"))
assert d["interrupted"] is True and 0 < d["started"] < 200000, (d["interrupted"], d["started"])
html = open(tmp + "/long.html").read()
assert "Interrupted at day" in html and "</html>" in html
PY

# ---- the simulate table (issue 16): long names, GPU-memory shares, one line per message, the
# missing columns, a headline over every cycle
tables="$dir/../data/tables.yaml"
"$gantry" simulate -f "$tables" --now 2026-01-01T09:00:00Z --cycles 2 >"$tmp/table.txt" 2>/dev/null
long=pg-pytorch-llama-70b-finetune-a1b2c3d4-e5f6-7890-abcd-ef0123456789
check table_long_name_cut_with_marker grep -q "pg-pytorch-llama-70b-finetune-a…   research" "$tmp/table.txt"
check table_long_name_not_whole sh -c "! grep -q '$long' '$tmp/table.txt'"
# the columns stay in line: every pod row has its STATUS where the header has it
check table_columns_aligned python3 -c '
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
head = next(i for i, l in enumerate(lines) if l.startswith("POD "))
col = lines[head].index("STATUS")
rows = lines[head + 1:lines.index("", head)]
assert len(rows) == 3 and all(r[col:col + 7] in ("Running", "Pending") for r in rows), rows' "$tmp/table.txt"
"$gantry" simulate -f "$tables" --now 2026-01-01T09:00:00Z -o wide >"$tmp/wide.txt" 2>/dev/null
check table_wide_shows_whole_names grep -q "$long   research" "$tmp/wide.txt"
check table_wide_more_columns grep -qE "^POD .* CPU +MEMORY$" "$tmp/wide.txt"
check table_pods_have_queue grep -qE "^POD +PODGROUP +QUEUE +STATUS" "$tmp/table.txt"
check table_gpu_memory_share grep -qE "^research/notebook +pg-notebook +research +Running +gpu-ready +0.49 " "$tmp/table.txt"
check table_queue_counts_the_same_share grep -qE "^research +- +150 +2 +unlimited +2.49 +1.49$" "$tmp/table.txt"
check table_queue_limit_priority grep -qE "^QUEUE +PARENT +PRIORITY +DESERVED +LIMIT +FAIR-SHARE +ALLOCATED$" "$tmp/table.txt"
check table_node_cordoned grep -qE "^gpu-cordoned +Ready,SchedulingDisabled " "$tmp/table.txt"
check table_node_not_ready grep -qE "^gpu-down +NotReady " "$tmp/table.txt"
check table_node_taints grep -qE "^gpu-tainted +Ready .*dedicated=inference:NoSchedule$" "$tmp/table.txt"
check table_headline_all_cycles grep -qx "2 cycles: 2 bound, 0 pipelined, 0 evicted (the last cycle: 0 bound, 0 pipelined, 0 evicted)" "$tmp/table.txt"
# KAI's message for two reasons has a newline: the table keeps it on one line, with its code
check table_message_one_line grep -qE "^  research/pg-nowhere \(queue research\) NoNodeFits: .*affinity/selector\. 2 node\(s\) were not ready" "$tmp/table.txt"
"$gantry" simulate -f "$tables" --now 2026-01-01T09:00:00Z --cycles 2 -o json >"$tmp/table.json" 2>/dev/null
check table_json_contract_kept python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
nb = [p for p in d["pods"] if p["name"] == "notebook"][0]
assert nb["gpus"] == 0 and nb["gpusAccepted"] == 0.49, nb       # SIMULATE.md: GPU memory requests 0
assert d["operations"] == {"binds": 0, "evictions": 0, "pipelines": 0}, d["operations"]
assert d["operationsAllCycles"] == {"binds": 2, "evictions": 0, "pipelines": 0}, d["operationsAllCycles"]
pg = [g for g in d["podGroups"] if g["name"] == "pg-nowhere"][0]
assert pg["reason"] == "NoNodeFits" and "\n" in pg["message"], pg    # the message as KAI writes it
' "$tmp/table.json"
# the evictions of the cycle log: one line each
"$gantry" simulate -f "$demo" --now 2026-01-01T09:00:00Z --show-cycles >"$tmp/log.txt" 2>/dev/null
check cycle_log_one_line_per_eviction test "$(grep -c '^  evict ' "$tmp/log.txt")" -eq 4

# KAI's schedulingBackoff: a PodGroup with one attempt per node pool, whose last scheduling
# condition is this pool's, is not tried again (and is said); without it the same PodGroup is placed
cat >"$tmp/backoff.yaml" <<'YAML'
{apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "8", memory: 32Gi, pods: "10", nvidia.com/gpu: "4"}}}
---
{apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: q}, spec: {resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}}
---
{apiVersion: scheduling.run.ai/v2alpha2, kind: PodGroup, metadata: {name: once, namespace: d}, spec: {queue: q, minMember: 1, schedulingBackoff: 1}, status: {schedulingConditions: [{type: UnschedulableOnNodePool, nodePool: default, transitionID: "0", status: "True", reason: Unschedulable, message: earlier}]}}
---
{apiVersion: v1, kind: Pod, metadata: {name: once-0, namespace: d, annotations: {pod-group-name: once}}, spec: {schedulerName: kai-scheduler, containers: [{name: m, image: x, resources: {limits: {nvidia.com/gpu: "1"}}}]}}
YAML
check scheduling_backoff_spent runs_ok simulate -f "$tmp/backoff.yaml"
check scheduling_backoff_spent_pending grep -qE "^d/once-0 +once +q +Pending " "$tmp/out"
check scheduling_backoff_spent_said grep -q "spec.schedulingBackoff.*one scheduling attempt per node pool, and node pool 'default' has had it" "$tmp/err"
sed 's/, schedulingBackoff: 1//' "$tmp/backoff.yaml" >"$tmp/backoff-off.yaml"
check scheduling_backoff_default_retries runs_ok simulate -f "$tmp/backoff-off.yaml"
check scheduling_backoff_default_placed grep -qE "^d/once-0 +once +q +Binding +n1 " "$tmp/out"
sed 's/nodePool: default/nodePool: other/' "$tmp/backoff.yaml" >"$tmp/backoff-other.yaml"
check scheduling_backoff_other_pool_tries runs_ok simulate -f "$tmp/backoff-other.yaml"
check scheduling_backoff_other_pool_placed grep -qE "^d/once-0 +once +q +Binding +n1 " "$tmp/out"

# KAI's configuration file in simulate and replay, as in the scheduler: its actions and plugin
# arguments take the place of the shard's, what Gantry does not act on is warned about
cat >"$tmp/simconf.yaml" <<'Y'
actions: allocate
tiers:
- plugins:
  - name: predicates
  - name: proportion
  - name: nodeplacement
    arguments: {gpu: spread, cpu: binpack}
  - name: wishful
Y
check simulate_scheduler_conf runs_ok simulate -f "$demo" --now 2026-01-01T09:00:00Z --scheduler-conf "$tmp/simconf.yaml" --show-cycles
check simulate_scheduler_conf_allocate_only grep -q "^--- cycle 1: 3 bound, 0 pipelined, 0 evicted" "$tmp/out"
check simulate_scheduler_conf_spread grep -q "bind      team-a/notebook-0 -> gpu-node-2" "$tmp/out"
check simulate_scheduler_conf_warns grep -q "warning: --scheduler-conf .*plugin wishful is not one Gantry knows" "$tmp/err"
check simulate_scheduler_conf_not_with_snapshot expect_exit 2 "--snapshot carries KAI's configuration" \
	simulate --snapshot "$tmp/snap.zip" --scheduler-conf "$tmp/simconf.yaml"
check simulate_scheduler_conf_missing expect_exit 2 "--scheduler-conf $tmp/nope.yaml: " \
	simulate -f "$demo" --scheduler-conf "$tmp/nope.yaml"
check replay_scheduler_conf runs_ok replay --trace "philly:$data/philly_small.csv" --nodes 4x8 --quiet -o json \
	--scheduler-conf "$tmp/simconf.yaml"
check replay_scheduler_conf_policy python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["policy"]
assert p.startswith("actions=allocate placement=spread "), p' "$tmp/out"

# ---- gantry explain (docs/explain.md)
# the example in docs/explain.md and the README, exactly
"$gantry" explain podgroup llm-pretrain -n team-a -f "$dir/../../examples/explain-cluster.yaml" \
	--now 2026-01-01T09:00:00Z >"$tmp/explain.txt" 2>"$tmp/err"
check explain_example_output diff -u "$dir/explain-example.txt" "$tmp/explain.txt"
check explain_example_quiet test ! -s "$tmp/err"
cases="$dir/../data/explain-cases.yaml"
# every reason for JSON scripts: the code, KAI's reason, the facts and the hints
explain_json() {	# explain_json TARGET... : JSON of explain on the cases, in $tmp/ex.json
	"$gantry" explain "$@" -f "$cases" --now 2026-01-01T09:00:00Z -o json >"$tmp/ex.json" 2>"$tmp/err"
}
explain_json pod other
check explain_not_our_scheduler python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["reason"] == "NotOurScheduler" and d["kaiReason"] is None, d
assert d["toStart"][0]["action"] == "SetSchedulerName", d
assert d["expectedStart"]["estimated"] is False, d' "$tmp/ex.json"
explain_json pod orphan
check explain_no_podgroup python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["reason"] == "NoPodGroup" and "nosuch" in d["message"], d
assert d["toStart"][0]["action"] == "CreatePodGroup", d' "$tmp/ex.json"
explain_json pod lost
check explain_queue_missing python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["reason"], d["kaiReason"]) == ("QueueDoesNotExist", "QueueDoesNotExist"), d
assert d["toStart"][0] == {"action": "CreateQueue", "object": "missingq", "text": d["toStart"][0]["text"]}, d
' "$tmp/ex.json"
explain_json pod big
check explain_over_limit python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["reason"], d["kaiReason"]) == ("OverLimit", "OverLimit"), d
h = d["toStart"][0]
assert (h["action"], h["object"], h["resource"], h["amount"]) == ("RaiseLimit", "capped", "gpu", 2), h
assert d["expectedStart"]["estimated"] is False and "limit" in d["expectedStart"]["why"], d
assert d["queueOrder"] == {"position": 1, "waiting": 1}, d' "$tmp/ex.json"
explain_json pod inner
check explain_queue_not_leaf python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["reason"], d["kaiReason"]) == ("QueueNotLeaf", "PodSchedulingErrors"), d
assert d["toStart"][0]["action"] == "UseLeafQueue" and "child" in d["toStart"][0]["text"], d' "$tmp/ex.json"
explain_json pod picky
check explain_predicates_counted python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["reason"] == "NoNodeFits", d
assert d["nodesRejected"] == {"NodeAffinity": 1, "Taint": 1}, d
assert d["toStart"][0]["action"] == "RelaxConstraints", d
assert d["expectedStart"]["estimated"] is False, d' "$tmp/ex.json"
explain_json pod gated
check explain_gated python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["reason"] == "SchedulingGated", d' "$tmp/ex.json"
explain_json pod fine
check explain_scheduled python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["state"], d["reason"]) == ("Starting", "Scheduled"), d' "$tmp/ex.json"
# the forecast: fine (30 minutes from now, annotation) and nightly (its Job's deadline) make room
explain_json pod after-nightly
check explain_forecast_by_deadline python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["expectedStart"]
assert f["estimated"] and f["time"] == "2026-01-01T10:00:00Z" and f["latest"], f
assert f["after"] == {"pod": "default/nightly-x1", "source": "its Job'"'"'s activeDeadlineSeconds"}, f
assert d["toStart"][0]["object"] == "n1" and d["toStart"][0]["amount"] == 3, d' "$tmp/ex.json"
check explain_bad_runtime_said grep -q "Pod default/vague: metadata.annotations.gantry.dev/expected-runtime: must be a positive duration" "$tmp/err"
check explain_bad_runtime_said_once test "$(grep -c "expected-runtime: must be" "$tmp/err")" -eq 1
explain_json queue capped
check explain_queue python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "Queue" and d["gpus"]["limit"] == 2 and d["gpus"]["quota"] == 1, d
assert [m["reason"] for m in d["waiting"]] == ["OverLimit"], d' "$tmp/ex.json"
# without a target: every job that waits, in one document
explain_json
check explain_all_waiting python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
reasons = sorted(i["reason"] for i in d["items"])
assert "OverLimit" in reasons and "QueueDoesNotExist" in reasons and "Scheduled" not in reasons, reasons
# a pod of ours the core never saw (its PodGroup missing) is listed too; another scheduler'"'"'s is not
names = [(i["kind"], i["name"], i["reason"]) for i in d["items"]]
assert ("Pod", "orphan", "NoPodGroup") in names and not [n for n in names if n[1] == "other"], names' "$tmp/ex.json"
"$gantry" explain pod/big -f "$cases" --now 2026-01-01T09:00:00Z -o yaml >"$tmp/ex.yaml" 2>/dev/null
explain_json pod big
check explain_yaml_is_the_json python3 -c '
import json, sys, yaml
assert yaml.safe_load(open(sys.argv[1])) == json.load(open(sys.argv[2]))' "$tmp/ex.yaml" "$tmp/ex.json"
# placed where a pod is leaving, a gang short of pods, non-preemptible over quota, gates in the list
more="$dir/../data/explain-more.yaml"
explain_more() {	# explain_more TARGET... : JSON of explain on the second cases, in $tmp/ex.json
	"$gantry" explain "$@" -f "$more" --now 2026-01-01T09:00:00Z -o json >"$tmp/ex.json" 2>"$tmp/err"
}
explain_more pod next
check explain_waiting_for_releasing python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["state"], d["reason"]) == ("Waiting", "WaitingForReleasingPods"), d
assert d["waitsFor"] == ["default/leaving"] and d["toStart"][0]["action"] == "Wait", d
f = d["expectedStart"]
assert f["estimated"] and f["time"] == "2026-01-01T09:00:20Z", f
assert f["after"] == {"pod": "default/leaving", "source": "its termination grace period"}, f' "$tmp/ex.json"
explain_more pod leaving
check explain_terminating python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["state"], d["reason"]) == ("Releasing", "Terminating"), d' "$tmp/ex.json"
explain_more pg trio
check explain_not_enough_pods python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["reason"], d["kaiReason"]) == ("NotEnoughPods", "PodSchedulingErrors"), d
assert d["gang"] == {"have": 1, "required": 3}, d
h = d["toStart"][0]
assert (h["action"], h["amount"]) == ("CreatePods", 2), h
assert d["expectedStart"]["estimated"] is False, d' "$tmp/ex.json"
explain_more pod serve
check explain_non_preemptible_over_quota python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["reason"], d["kaiReason"]) == ("NonPreemptibleOverQuota", "NonPreemptibleOverQuota"), d
h = d["toStart"]
assert (h[0]["action"], h[0]["object"], h[0]["resource"], h[0]["amount"]) == ("RaiseQuota", "small", "gpu", 1), h
assert h[1]["action"] == "MakePreemptible", h' "$tmp/ex.json"
explain_more
check explain_list_reasons python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = {(i["kind"], i["name"]): i["reason"] for i in d["items"]}
assert r == {("PodGroup", "pg-next"): "WaitingForReleasingPods", ("PodGroup", "pg-serve"): "NonPreemptibleOverQuota",
             ("PodGroup", "pg-gated"): "SchedulingGated", ("PodGroup", "trio"): "NotEnoughPods",
             ("PodGroup", "pg-bad"): "NotEnoughPods", ("Pod", "bad"): "ObjectRejected"}, r' "$tmp/ex.json"
explain_more pod bad
check explain_object_rejected python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["reason"] == "ObjectRejected" and "metadata.annotations.gpu-fraction" in d["message"], d
assert d["toStart"][0]["action"] == "FixObject", d' "$tmp/ex.json"
# KAI's preemption delay (the README's example at 09:02): the reason KAI writes, and the start once
# the delay is over (09:05) and the victim's grace period has passed
"$gantry" explain pg serve -n prod -f "$dir/../../examples/preemption-delay.yaml" --now 2026-01-01T09:02:00Z \
	-o json >"$tmp/ex.json" 2>/dev/null
check explain_preemption_delay python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["reason"], d["kaiReason"]) == ("PreemptionDelayNotElapsed", "PreemptionDelayNotElapsed"), d
assert "2026-01-01T09:05:00Z" in d["message"], d
f = d["expectedStart"]
assert f["estimated"] and f["time"] == "2026-01-01T09:05:30Z", f' "$tmp/ex.json"
# KAI's ConfigMap predicate: a pod that mounts a ConfigMap the input does not have
cat >"$tmp/cm-missing.yaml" <<'Y'
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: default-queue}
spec: {resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other, namespace: default}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec: {schedulerName: kai-scheduler, volumes: [{name: v, configMap: {name: cfg}}], containers: [{name: c, image: x, volumeMounts: [{name: v, mountPath: /v}]}]}
Y
"$gantry" explain pod p -f "$tmp/cm-missing.yaml" --now 2026-01-01T09:00:00Z -o json >"$tmp/ex.json" 2>/dev/null
check explain_missing_configmaps python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["reason"], d["kaiReason"]) == ("MissingConfigMaps", "PodSchedulingErrors"), d
assert "cfg" in d["message"] and d["toStart"][0]["action"] == "CreateConfigMaps", d' "$tmp/ex.json"
# kubectl's target forms and mistakes
check explain_unknown_type expect_exit 2 "unknown type 'deployment': pod \(po\), podgroup \(pg\) or queue \(q\)" \
	explain deployment x -f "$cases"
check explain_needs_a_name expect_exit 2 "give one target: TYPE NAME or TYPE/NAME" explain pod -f "$cases"
check explain_not_found expect_exit 2 "pod default/nope not found in the input" explain po nope -f "$cases"
check explain_bad_kubeconfig expect_exit 2 "nonexistent" explain pod x --kubeconfig="$tmp/nonexistent"
# ---- docs/deploy.md true to the code (issue 16): the Deployment's arguments as deploy/gantry.yaml
# passes them, every flag one `gantry scheduler --help` lists, what `gantry binder` does, and the
# README sections the docs name exist
"$gantry" scheduler --help >"$tmp/sched-help" 2>&1
"$gantry" binder --help >"$tmp/binder.out" 2>&1
check deploy_doc_true_to_code python3 - "$dir/../.." "$tmp/sched-help" "$tmp/binder.out" <<'PY'
import re, sys, yaml
root, helptext, binder = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
doc = open(root + "/docs/deploy.md").read()
m = re.search(r"- Arguments: `(scheduler [^`]*)`", doc)
assert m, "docs/deploy.md: no Arguments line"
said = m.group(1).split()
dep = [d for d in yaml.safe_load_all(open(root + "/deploy/gantry.yaml")) if d and d["kind"] == "Deployment"][0]
args = dep["spec"]["template"]["spec"]["containers"][0]["args"]
assert said == args, "docs/deploy.md Arguments %s != deploy/gantry.yaml %s" % (said, args)
for a in args[1:]:
    flag = a.split("=")[0]
    assert re.search(r"^\s+(-\w, )?" + re.escape(flag) + r"\b", helptext, re.M), flag + " not in scheduler --help"
# every flag the page's binder table names is one `gantry binder --help` lists
m = re.search(r"^## The binder\n(.*?)(?=^## )", doc, re.M | re.S)
assert m, "docs/deploy.md: no section '## The binder'"
flags = re.findall(r"^\| `(--[a-z-]+)", m.group(1), re.M)
assert len(flags) >= 10, "docs/deploy.md's binder table names %d flags" % len(flags)
for flag in flags:
    assert re.search(r"^\s+" + re.escape(flag) + r"\b", binder, re.M), flag + " not in binder --help"
# a README section named in docs/ ("the README's ... table ("X")") is a README heading
readme = open(root + "/README.md").read()
heads = set(re.findall(r"^#+ (.*)$", readme, re.M))
names = re.findall(r"README's [^(]{0,80}\(\"([^\"]+)\"\)", doc)
assert names, "docs/deploy.md names no README section (the check would check nothing)"
for name in names:
    assert name in heads, "docs/deploy.md names README section %r, which does not exist" % name
PY
# volume binding (examples/storage.yaml): a static local volume steers its pod, CSI capacity is
# booked across pods (the shard's schedule-csi-storage), an unbound Immediate claim waits
storage="$dir/../../examples/storage.yaml"
check storage_example runs_ok simulate -f "$storage" -o wide
check storage_local_volume_steers grep -qE "^apps/db-0 +pg-db-0 +apps +Binding +node-b " "$tmp/out"
check storage_capacity_zone grep -qE "^apps/cache-0 +pg-cache-0 +apps +Binding +node-a " "$tmp/out"
check storage_capacity_booked grep -qE "^apps/cache-1 +pg-cache-1 +apps +Pending " "$tmp/out"
check storage_capacity_reason grep -q "pg-cache-1 (queue apps) NoNodeFits: .*3 node(s) did not have enough free storage" "$tmp/out"
check storage_immediate_reason grep -q "pg-web-0 (queue apps) UnboundImmediateClaim: .*pod has unbound immediate PersistentVolumeClaims" "$tmp/out"
# without the shard's schedule-csi-storage each pod is checked alone (kube-scheduler): both fit zone-a
grep -v "schedule-csi-storage" "$storage" | sed 's/^spec: {args: .*$/spec: {}/' >"$tmp/storage-nocsi.yaml"
check storage_unbooked runs_ok simulate -f "$tmp/storage-nocsi.yaml" -o wide
check storage_unbooked_both grep -qE "^apps/cache-1 +pg-cache-1 +apps +Binding +node-a " "$tmp/out"
# claims without any StorageClass or PersistentVolume in the input: not judged, and said
cat >"$tmp/claims-only.yaml" <<'YAML'
{apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
---
{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: c, namespace: d}, spec: {storageClassName: fast, resources: {requests: {storage: 1Gi}}}}
---
{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: d}, spec: {schedulerName: kai-scheduler, containers: [{name: m, image: x}], volumes: [{name: v, persistentVolumeClaim: {claimName: c}}]}}
YAML
check storage_unjudged_said expect_exit 0 "volume binding is not checked" simulate -f "$tmp/claims-only.yaml"

# pod affinity namespaceSelector with labels: judged on the input's Namespaces, said without them
cat >"$tmp/nsel.yaml" <<'YAML'
{apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
---
{apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
---
{apiVersion: scheduling.run.ai/v2, kind: Queue, metadata: {name: default-queue}, spec: {resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}}
---
{apiVersion: v1, kind: Pod, metadata: {name: db, namespace: ml, labels: {app: db}}, spec: {schedulerName: kai-scheduler, nodeName: n2, containers: [{name: m, image: x}]}, status: {phase: Running}}
---
{apiVersion: v1, kind: Pod, metadata: {name: app, namespace: web, labels: {kai.scheduler/queue: default-queue}}, spec: {schedulerName: kai-scheduler, containers: [{name: m, image: x}], affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: db}}, topologyKey: kubernetes.io/hostname, namespaceSelector: {matchLabels: {team: ml}}}]}}}}
YAML
check nsel_unjudged_said expect_exit 0 "namespaceSelector with labels needs the Namespace objects" simulate -f "$tmp/nsel.yaml"
printf -- '---\n{apiVersion: v1, kind: Namespace, metadata: {name: ml, labels: {team: ml}}}\n' >>"$tmp/nsel.yaml"
check nsel_judged runs_ok simulate -f "$tmp/nsel.yaml" -o wide
check nsel_judged_near grep -qE "^web/app .* Binding +n2 " "$tmp/out"

# Reservations and backfill (docs/reservations.md), set on by the shard's annotations
rsv="$dir/../data/reserve.yaml"
"$gantry" simulate -f "$rsv" --now 2026-01-01T09:00:00Z --cycles 3 --actions allocate -o json \
	>"$tmp/rsv.json" 2>"$tmp/rsv.err"
check reserve_gang_holds_backfill_goes python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
pods = {p["name"]: p for p in d["pods"]}
pgs = {g["name"]: g for g in d["podGroups"]}
big = pgs["big"]["reservation"]
assert big["gpus"] == 8 and big["nodes"] == 2, big
assert big["expectedStart"] == "2026-01-01T09:30:00Z", big
assert big["since"] == "2026-01-01T09:00:00Z", big    # held across the three cycles
assert "reserved 8 GPUs on 2 nodes, expected start 09:30 UTC" in pgs["big"]["message"], pgs["big"]
assert pods["short"]["status"] == "Running" and pods["short"]["node"] == "n2", pods["short"]   # backfill
assert pods["long"]["status"] == "Pending", pods["long"]   # would run past the start
' "$tmp/rsv.json"
sed 's/gantry.dev\/reservations: "true"/gantry.dev\/reservations: "false"/' "$rsv" >"$tmp/rsv-off.yaml"
"$gantry" simulate -f "$tmp/rsv-off.yaml" --now 2026-01-01T09:00:00Z --actions allocate -o json \
	>"$tmp/rsv-off.json" 2>/dev/null
check reserve_off_is_kai python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
pods = {p["name"]: p for p in d["pods"]}
assert all(pods[n]["status"] == "Binding" for n in ("short", "long")), pods
assert not any("reservation" in g for g in d["podGroups"])
' "$tmp/rsv-off.json"
sed 's/gantry.dev\/reserve-share: "1"/gantry.dev\/reserve-share: "2"/' "$rsv" >"$tmp/rsv-bad.yaml"
check reserve_bad_share_said_not_used expect_exit 0 "SchedulingShard default: field metadata.annotations.gantry.dev/reserve-share: not a fraction in \(0, 1\]: '2' \(not used\)" \
	simulate -f "$tmp/rsv-bad.yaml"

# Maximum run times enforced where the queue asks (docs/reservations.md)
mrt="$dir/../data/max-runtime.yaml"
"$gantry" simulate -f "$mrt" --now 2026-01-01T10:00:00Z --show-cycles -o json >"$tmp/mrt.json" 2>/dev/null
check max_runtime_evicts_past_it python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
pods = {p["name"]: p for p in d["pods"]}
pgs = {g["name"]: g for g in d["podGroups"]}
assert [pods[n]["status"] for n in ("late-0", "late-1")] == ["Releasing"] * 2, pods
assert pgs["late"].get("maxRunTimeExceeded") is True, pgs["late"]
assert pods["ontime-0"]["status"] == "Running" and "maxRunTimeExceeded" not in pgs["ontime"], pgs["ontime"]
assert pods["lax-late-0"]["status"] == "Running", pods["lax-late-0"]   # its queue does not enforce
' "$tmp/mrt.json"
check max_runtime_says_why runs_ok simulate -f "$mrt" --now 2026-01-01T10:00:00Z --show-cycles -o table
check max_runtime_says_why_text grep -q "evict     default/late-0 on n1: Pod default/late-0 was evicted: its workload ran past its maximum run time (1h0m0s)" "$tmp/out"
# the owner Job's activeDeadlineSeconds (7200) is ontime's maximum: past it at 11:30
check max_runtime_job_deadline runs_ok simulate -f "$mrt" --now 2026-01-01T11:30:00Z --show-cycles -o table
check max_runtime_job_deadline_text grep -q "Pod default/ontime-0 was evicted: its workload ran past its maximum run time (2h0m0s)" "$tmp/out"
sed 's/gantry.dev\/enforce-max-runtime: "true"/gantry.dev\/enforce-max-runtime: "yes"/' "$mrt" >"$tmp/mrt-bad.yaml"
check max_runtime_bad_enforce_said expect_exit 0 "Queue strict: field metadata.annotations.gantry.dev/enforce-max-runtime: must be true or false: .yes. \(not used\)" \
	simulate -f "$tmp/mrt-bad.yaml" --now 2026-01-01T10:00:00Z

# the replay: told half the trace's durations as maximum run times, enforced: every job with a
# duration is evicted at half of it and ends there (not recreated); told the exact ones, none is
rdata="$dir/../data/replay"
for est in x0.5 exact; do
	"$gantry" replay --trace "philly:$rdata/philly_small.csv" --nodes 4x8 --vc-sizes "$rdata/vc_small.csv" \
		--quiet -o json --runtime-estimate $est --enforce-max-runtime >"$tmp/mrt-$est.json" 2>/dev/null
done
check max_runtime_replay_ends_jobs python3 -c '
import json, sys
half, exact = (json.load(open(f)) for f in sys.argv[1:3])
assert half["max_runtime_evictions"] == 5, half["max_runtime_evictions"]
assert exact["max_runtime_evictions"] == 0, exact["max_runtime_evictions"]
assert half["jct_s"]["mean"] < exact["jct_s"]["mean"], (half["jct_s"], exact["jct_s"])
assert half["evictions"]["restarted_jobs"] == 0, half["evictions"]
assert "gpu_hours_backfilled" in exact["reservations"], exact["reservations"]
' "$tmp/mrt-x0.5.json" "$tmp/mrt-exact.json"
check replay_bad_backfill_mode expect_exit 2 "reserve-backfill.*must be run-time or preemptible" \
	replay --trace "philly:$rdata/philly_small.csv" --nodes 4x8 --reserve-backfill sometimes

# the expected start from a job's maximum run time (gantry.dev/max-runtime), and plainly none
mx="$dir/../data/explain-maxrt.yaml"
"$gantry" explain pod next -f "$mx" --now 2026-01-01T09:00:00Z >"$tmp/explain-maxrt.txt" 2>"$tmp/err"
check explain_max_runtime_output diff -u "$dir/explain-maxrt.txt" "$tmp/explain-maxrt.txt"
"$gantry" explain pod next -f "$mx" --now 2026-01-01T09:00:00Z -o json >"$tmp/ex.json" 2>/dev/null
check explain_max_runtime_json python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["expectedStart"]
assert f["estimated"] and f["time"] == "2026-01-01T10:00:00Z" and f["latest"] and f["inSeconds"] == 3600, f
assert f["after"] == {"pod": "default/trainer-0", "source": "gantry.dev/max-runtime"}, f' "$tmp/ex.json"
check explain_no_estimate_said runs_ok explain pod after-sweep -f "$mx" --now 2026-01-01T09:00:00Z
check explain_no_estimate_said_text grep -qx "  Expected:   no estimate: it still waits once every pod with a known end has left, and 2 pod(s) hold room with no known end" "$tmp/out"
"$gantry" explain pod after-sweep -f "$mx" --now 2026-01-01T09:00:00Z -o json >"$tmp/ex.json" 2>/dev/null
check explain_no_estimate_json python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["expectedStart"]
assert f["estimated"] is False and "no known end" in f["why"], f' "$tmp/ex.json"

# --jobs-csv: one row per job, its wait from submit to first start
"$gantry" replay --trace "philly:$rdata/philly_small.csv" --nodes 4x8 --vc-sizes "$rdata/vc_small.csv" --quiet \
	-o json --jobs-csv "$tmp/jobs.csv" >/dev/null 2>&1
check replay_jobs_csv python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 6 and list(rows[0]) == ["job", "submit", "gpus", "queue", "start", "end", "wait"], rows[:1]
r = rows[1]
assert (r["gpus"], r["queue"], r["wait"]) == ("16", "ee9e8c", "0") and int(r["end"]) - int(r["start"]) == 601, r
' "$tmp/jobs.csv"

# preemptible backfill (gantry.dev/reserve-backfill: preemptible): "long" (preemptible, priority
# below 100) may now use the held GPUs; the reservation stays
sed 's/gantry.dev\/reserve-share: "1"}/gantry.dev\/reserve-share: "1", gantry.dev\/reserve-backfill: preemptible}/' "$rsv" \
	>"$tmp/rsv-pre.yaml"
"$gantry" simulate -f "$tmp/rsv-pre.yaml" --now 2026-01-01T09:00:00Z --cycles 3 --actions allocate -o json \
	>"$tmp/rsv-pre.json" 2>/dev/null
check reserve_preemptible_backfill python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
pods = {p["name"]: p for p in d["pods"]}
pgs = {g["name"]: g for g in d["podGroups"]}
assert pods["long"]["status"] == "Running" and pods["long"]["node"] == "n2", pods["long"]
assert pgs["big"]["reservation"]["expectedStart"] == "2026-01-01T09:30:00Z", pgs["big"]
' "$tmp/rsv-pre.json"
sed 's/gantry.dev\/reserve-share: "1"}/gantry.dev\/reserve-share: "1", gantry.dev\/reserve-backfill: sometimes}/' "$rsv" \
	>"$tmp/rsv-pre-bad.yaml"
check reserve_bad_backfill_said expect_exit 0 "gantry.dev/reserve-backfill: must be run-time or preemptible: .sometimes. \(not used\)" \
	simulate -f "$tmp/rsv-pre-bad.yaml"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
