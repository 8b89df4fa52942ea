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
check no_input expect_exit 2 "no input: give a FILE or -f FILE" simulate --cycles 1
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
for sub in simulate replay scheduler podgrouper status-controllers admission; do
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
check pg_bad_staleness_named expect_exit 2 "PodGroup team-a/pg .*spec.stalenessGracePeriod.*soon" \
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
check scheduler_conf_refused expect_exit 2 "--scheduler-conf /x: KAI's actions-and-tiers file is not read" \
	scheduler --scheduler-conf /x
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
check preemption_delay_then_preempts_evicts grep -qE "research/pretrain-0 +pretrain +Releasing" "$tmp/out"
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
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
