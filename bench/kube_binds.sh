#!/usr/bin/env bash
# kube_binds.sh - how fast `gantry scheduler` binds: PODS one-GPU pods on NODES 16-GPU nodes
#
# Starts tests/kube/fastdouble (a C API-server double on loopback, built here if needed), runs
# `gantry scheduler --cycles N` against it and prints binds per second (first to last bind, as the
# double saw them), the time to list and sync, the scheduler's CPU time (getrusage of the child,
# through bash's `time`) and the first cycle's phases from the scheduler's log.
#
# usage: bench/kube_binds.sh [--gantry build/gantry] [--pods 10000] [--nodes 1000]
#                            [--workers 32] [--cycles 2] [-- extra scheduler flags]
set -euo pipefail

GANTRY=build/gantry PODS=10000 NODES=1000 WORKERS=32 CYCLES=2
EXTRA=()
while [ $# -gt 0 ]; do
	case "$1" in
	--gantry) GANTRY=$2; shift 2 ;;
	--pods) PODS=$2; shift 2 ;;
	--nodes) NODES=$2; shift 2 ;;
	--workers) WORKERS=$2; shift 2 ;;
	--cycles) CYCLES=$2; shift 2 ;;
	--) shift; EXTRA=("$@"); break ;;
	*) echo "usage: $0 [--gantry G] [--pods N] [--nodes N] [--workers N] [--cycles N] [-- flags]" >&2; exit 2 ;;
	esac
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(dirname "$GANTRY")
FD="$BUILD/bench/fastdouble"
if [ ! -x "$FD" ] || [ "$ROOT/tests/kube/fastdouble.c" -nt "$FD" ]; then
	mkdir -p "$BUILD/bench"
	${CC:-cc} -O2 -g -std=c11 -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wvla \
		"$ROOT/tests/kube/fastdouble.c" -ljansson -o "$FD"
fi

TMP=$(mktemp -d /tmp/gantry-kube-binds.XXXXXX)
DOUBLE_PID=
cleanup() {
	[ -n "$DOUBLE_PID" ] && kill "$DOUBLE_PID" 2>/dev/null && wait "$DOUBLE_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

"$FD" --nodes "$NODES" --pods "$PODS" --port-file "$TMP/port" 2>"$TMP/double.log" &
DOUBLE_PID=$!
for _ in $(seq 200); do [ -s "$TMP/port" ] && break; sleep 0.05; done
[ -s "$TMP/port" ] || { echo "the fast double did not start:"; cat "$TMP/double.log"; exit 1; }
PORT=$(cat "$TMP/port")
cat >"$TMP/kubeconfig" <<EOF
{"apiVersion": "v1", "kind": "Config", "current-context": "bench",
 "clusters": [{"name": "fast", "cluster": {"server": "http://127.0.0.1:$PORT"}}],
 "users": [{"name": "sched", "user": {"token": "bench"}}],
 "contexts": [{"name": "bench", "context": {"cluster": "fast", "user": "sched"}}]}
EOF

TIMEFORMAT="%R %U %S"
{ time KUBECONFIG='' "$GANTRY" scheduler --kubeconfig "$TMP/kubeconfig" --metrics-bind-address 0 --qps 0 \
	--write-workers "$WORKERS" --cycles "$CYCLES" --schedule-period 100ms --log-level info "${EXTRA[@]}" \
	2>"$TMP/scheduler.log"; } 2>"$TMP/time" || { echo "the scheduler failed:"; tail -20 "$TMP/scheduler.log"; exit 1; }
read -r REAL USER SYS <"$TMP/time"
STATS=$(curl -s "http://127.0.0.1:$PORT/_stats")
# the double's own CPU time, from /proc: which side was busy
DOUBLE_CPU=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$DOUBLE_PID/stat")

python3 - "$STATS" "$PODS" "$NODES" "$REAL" "$USER" "$SYS" "$TMP/scheduler.log" "$DOUBLE_CPU" <<'EOF'
import json, re, sys
st = json.loads(sys.argv[1])
double_cpu = float(sys.argv[8])
pods, nodes = int(sys.argv[2]), int(sys.argv[3])
real, user, sys_ = (float(x) for x in sys.argv[4:7])
log = open(sys.argv[7]).read()
binds, span = st["binds"], st["last_bind"] - st["first_bind"]
rate = binds / span if span > 0 else float("nan")
cycle = re.search(r'msg="cycle: .*?(\d+) binds.*?decode ([\d.]+) ms, actions ([\d.]+) ms, writes ([\d.]+) ms', log)
ts = re.findall(r'time=\S*T(\d+):(\d+):([\d.]+)Z .*?msg="(connecting|caches synced)', log)
secs = {m[3]: int(m[0]) * 3600 + int(m[1]) * 60 + float(m[2]) for m in ts}
sync = secs.get("caches synced", 0) - secs.get("connecting", 0)
print("kube_binds: %d pods on %d nodes: %d bound (%d conflicts, %d events) in %.2f s: %.0f binds/s"
      % (pods, nodes, binds, st["conflicts"], st["events"], span, rate))
print("kube_binds: scheduler %.2f s wall (%.2f s to list and sync), CPU %.2f s user + %.2f s system = %.2f s"
      % (real, sync, user, sys_, user + sys_))
print("kube_binds: the fast double used %.2f s CPU (one thread) for %d requests on %d connections"
      % (double_cpu, st["requests"], st["connections"]))
if cycle:
    print("kube_binds: first cycle: decode %s ms, actions %s ms, writes %s ms for %s binds"
          % (cycle.group(2), cycle.group(3), cycle.group(4), cycle.group(1)))
if binds < pods:
    sys.exit("kube_binds: only %d of %d pods were bound" % (binds, pods))
EOF
