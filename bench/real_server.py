#!/usr/bin/env python3
"""real_server.py - `gantry scheduler` against the real kube-apiserver, beside the fast double

The same cluster goes to both: NODES nodes of 8 GPUs, 20 queues of equal quota, and PODS pending
pods made of gangs (PodGroups of 8 one-GPU pods), one-GPU pods and quarter-GPU fractions, spread
over the queues, asking for 70% of the GPUs. On the real server (tools/control-plane, with tests/e2e/fake-kubelet running the
pods) every object is created through the API; the fast double (tests/kube/fastdouble) is given
them as a fixture. Then, for each:

  start -> first cycle   from the scheduler's start to the end of its first cycle (its log)
  backlog binds/s        the backlog's binds, first to last, over that span
  all bound              from the scheduler's start until every backlog pod is bound
  latency p50 / p99      LATE pods created one by one (RATE a second) while the scheduler runs:
                         from the create request to the bind, as the server's watch (real) or
                         the double's clock (double) saw it

The scheduler runs as deployed (1 s cycle period, fractions without reservation pods on both
sides so that the two do the same work), unthrottled by default (--qps 0) so that the figures are
the scheduler's and the server's; `--qps 50`, the deployed default and KAI's, caps the API
requests (about two a bind: the binding and its event). usage:

  bench/real_server.py [--gantry build/gantry] [--nodes 1000] [--pods 10000] [--late 500] [--rate 50]
                       [--only real|double] [--qps N]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import e2e  # noqa: E402
import kube  # noqa: E402

NS = "bench"
QUEUES = 20


def workload(nodes, pods):
    """(cluster objects, pod objects) of the benchmark: the same for both servers."""
    objs = [e2e.node("node-%04d" % i, gpus=8, cpu="128", memory="1Ti") for i in range(nodes)]
    quota = nodes * 8 // QUEUES
    objs += [e2e.queue("bench-q%02d" % q, gpu_quota=quota) for q in range(QUEUES)]
    out = []
    # a fifth in gangs of 8, two fifths whole GPUs, the rest quarter GPUs: 70% of the GPUs, so
    # that the late pods find room
    n_gang_pods = pods // 5
    n_frac = pods - n_gang_pods - 2 * pods // 5
    i = 0
    for g in range(n_gang_pods // 8):
        q = "bench-q%02d" % (g % QUEUES)
        objs.append(e2e.podgroup("gang-%04d" % g, NS, q, 8))
        for k in range(8):
            out.append(e2e.pod("gang-%04d-%d" % (g, k), NS, gpus=1, pg="gang-%04d" % g, cpu="100m"))
    while len(out) < pods - n_frac:
        out.append(e2e.pod("one-%05d" % i, NS, gpus=1, q="bench-q%02d" % (i % QUEUES), cpu="100m"))
        i += 1
    while len(out) < pods:
        out.append(e2e.pod("frac-%05d" % i, NS, q="bench-q%02d" % (i % QUEUES), fraction="0.25", cpu="100m"))
        i += 1
    for p in out:
        p["spec"]["containers"][0]["resources"]["requests"]["memory"] = "128Mi"
        p["spec"]["containers"][0]["resources"]["limits"]["memory"] = "128Mi"
    return objs, out


def late_pods(n):
    return [e2e.pod("late-%05d" % i, NS, gpus=1, q="bench-q%02d" % (i % QUEUES), cpu="100m") for i in range(n)]


def first_cycle_seconds(log):
    """From the scheduler's first log line to the first cycle's decisions: the caches synced, then
    that cycle's decode and actions (its writes, the binds themselves, are counted by binds/s)."""
    lines = [ln for ln in log.splitlines() if ln.startswith("time=")]

    def at(line):
        h, m, sec = re.match(r"time=\S*T(\d+):(\d+):([\d.]+)Z", line).groups()
        return int(h) * 3600 + int(m) * 60 + float(sec)
    synced = [ln for ln in lines if "caches synced" in ln]
    cycle = [ln for ln in lines if 'msg="cycle:' in ln]
    if not lines or not synced or not cycle:
        return None
    m = re.search(r"decode ([\d.]+) ms, actions ([\d.]+) ms", cycle[0])
    return at(synced[0]) - at(lines[0]) + (float(m.group(1)) + float(m.group(2))) / 1000.0


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))] if xs else float("nan")


def scheduler(gantry, kubeconfig, log, qps):
    env = dict(os.environ)
    env.pop("KUBECONFIG", None)
    return subprocess.Popen([gantry, "scheduler", "--kubeconfig", kubeconfig, "--metrics-bind-address", "0",
                             "--gpu-sharing-reservation", "false", "--namespace", "kai-scheduler",
                             "--qps", str(qps), "--log-level", "info"], stdout=subprocess.DEVNULL, stderr=log, env=env)


def report(name, start, first_cycle, backlog, late):
    """backlog: bind times (monotonic) of the backlog; late: (created, bound) pairs."""
    span = max(backlog) - min(backlog) if len(backlog) > 1 else float("nan")
    lat = [b - c for c, b in late]
    return {"server": name, "first_cycle_s": first_cycle, "backlog_bound": len(backlog),
            "binds_per_s": len(backlog) / span if span > 0 else float("nan"),
            "all_bound_s": max(backlog) - start if backlog else float("nan"),
            "latency_p50_s": percentile(lat, 50), "latency_p99_s": percentile(lat, 99), "late": len(lat)}


# ---------------------------------------------------------------- the real server

def run_real(args, objs, pods, late):
    state = tempfile.mkdtemp(prefix="gantry-bench-cp-")
    args_ns = argparse.Namespace(gantry=args.gantry, valgrind=False)
    e2e.ARGS = args_ns
    cl = e2e.CLUSTER = e2e.Cluster(state)
    try:
        cl.install()
        c = cl.c
        c.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
        kube.wait_for("the bench namespace's ServiceAccount", lambda: c.get_or_none("ServiceAccount", "default", NS))
        t0 = time.time()
        with ThreadPoolExecutor(8) as ex:
            def make(o):
                o = json.loads(json.dumps(o))
                st = o.pop("status", None) if o["kind"] == "Node" else None
                c.create(o)
                if st:
                    c.patch("Node", o["metadata"]["name"], {"status": st}, sub="status")
            list(ex.map(make, objs))
            list(ex.map(make, pods))
        print("real: %d objects created through the API in %.1f s" % (len(objs) + len(pods), time.time() - t0),
              flush=True)
        kube.wait_for("every node Ready and untainted", lambda: all(
            not (n.get("spec") or {}).get("taints") for n in c.list("Node")), timeout=120)
        bound = {}
        lst = c.request("GET", kube.path_of("Pod", None, NS))
        rv = lst["metadata"]["resourceVersion"]

        def watch():
            for typ, o in c.watch("Pod", NS, resource_version=rv, timeout=600):
                if o["spec"].get("nodeName") and o["metadata"]["name"] not in bound:
                    bound[o["metadata"]["name"]] = time.monotonic()
        threading.Thread(target=watch, daemon=True).start()
        kc = cl.kubeconfig(os.path.join(state, "sa.kubeconfig"))
        log_path = os.path.join(state, "scheduler.log")
        with open(log_path, "w") as log:
            start = time.monotonic()
            s = scheduler(args.gantry, kc, log, args.qps)
            names = {p["metadata"]["name"] for p in pods}
            kube.wait_for("the backlog bound", lambda: names <= set(bound), timeout=900, interval=0.5)
            created = {}
            for p in late:
                created[p["metadata"]["name"]] = time.monotonic()
                c.create(p)
                time.sleep(1.0 / args.rate)
            kube.wait_for("the late pods bound", lambda: set(created) <= set(bound), timeout=300, interval=0.2)
            s.terminate()
            s.wait(30)
        with open(log_path) as f:
            fc = first_cycle_seconds(f.read())
        return report("real kube-apiserver", start, fc, [bound[n] for n in names],
                      [(created[n], bound[n]) for n in created])
    finally:
        cl.down()


# ---------------------------------------------------------------- the fast double

def run_double(args, objs, pods, late):
    tmp = tempfile.mkdtemp(prefix="gantry-bench-double-")
    fd = os.path.join(os.path.dirname(args.gantry), "bench", "fastdouble")
    subprocess.run(["make", "-s", os.path.relpath(fd, ROOT)], cwd=ROOT, check=True)
    fixture = os.path.join(tmp, "fixture.json")
    items = []
    for o in objs + pods:
        o = json.loads(json.dumps(o))
        o["metadata"].setdefault("namespace", None) if o["kind"] in ("Pod", "PodGroup") else None
        if o["kind"] == "Node":
            o["metadata"]["uid"] = o["metadata"]["name"]
        items.append(o)
    for i, o in enumerate(items):
        if o["kind"] == "Pod":
            o["metadata"]["uid"] = "b0000000-0000-4000-8000-%012d" % i
            o["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z"
            o["status"] = {"phase": "Pending"}
    with open(fixture, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items}, f)
    pf = os.path.join(tmp, "port")
    dbl = subprocess.Popen([fd, "--fixture", fixture, "--port-file", pf], stderr=open(os.path.join(tmp, "double.log"), "w"))
    try:
        kube.wait_for("the double", lambda: os.path.exists(pf), timeout=60)
        port = int(open(pf).read())
        base = "http://127.0.0.1:%d" % port
        kc = os.path.join(tmp, "kubeconfig")
        with open(kc, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "Config", "current-context": "b",
                       "clusters": [{"name": "d", "cluster": {"server": base}}],
                       "users": [{"name": "u", "user": {"token": "x"}}],
                       "contexts": [{"name": "b", "context": {"cluster": "d", "user": "u"}}]}, f)

        def binds():
            with urllib.request.urlopen(base + "/_binds", timeout=30) as r:
                return json.loads(r.read())
        log_path = os.path.join(tmp, "scheduler.log")
        names = {p["metadata"]["name"] for p in pods}
        with open(log_path, "w") as log:
            # the double's clock is CLOCK_MONOTONIC too: same machine, same clock
            start = time.monotonic()
            s = scheduler(args.gantry, kc, log, args.qps)
            kube.wait_for("the backlog bound", lambda: sum(1 for b in binds() if b["bound"] and b["name"] in names)
                          == len(names), timeout=600, interval=0.5)
            for p in late:
                req = urllib.request.Request(base + "/api/v1/namespaces/%s/pods" % NS, data=json.dumps(p).encode(),
                                             method="POST", headers={"Content-Type": "application/json"})
                urllib.request.urlopen(req, timeout=10).read()
                time.sleep(1.0 / args.rate)
            late_names = {p["metadata"]["name"] for p in late}
            kube.wait_for("the late pods bound", lambda: sum(1 for b in binds() if b["bound"] and b["name"] in late_names)
                          == len(late_names), timeout=300, interval=0.2)
            s.terminate()
            s.wait(30)
        with open(log_path) as f:
            fc = first_cycle_seconds(f.read())
        bs = binds()
        return report("fast double", start, fc, [b["bound"] for b in bs if b["name"] in names],
                      [(b["created"], b["bound"]) for b in bs if b["name"] in late_names])
    finally:
        dbl.terminate()
        dbl.wait(10)


def main():
    p = argparse.ArgumentParser(prog="real_server.py")
    p.add_argument("--gantry", default="build/gantry")
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--pods", type=int, default=10000)
    p.add_argument("--late", type=int, default=500)
    p.add_argument("--rate", type=float, default=50)
    p.add_argument("--only", choices=("real", "double"))
    p.add_argument("--qps", type=int, default=0, help="the scheduler's API rate limit (0: none; deployed: 50)")
    args = p.parse_args()
    args.gantry = os.path.abspath(args.gantry)
    objs, pods = workload(args.nodes, args.pods)
    late = late_pods(args.late)
    rows = []
    if args.only != "double":
        rows.append(run_real(args, objs, pods, late))
    if args.only != "real":
        rows.append(run_double(args, objs, pods, late))
    print("\n%d nodes x 8 GPUs, %d pending pods (gangs of 8, 1-GPU, 0.25-GPU) in %d queues; %d more at %g/s; "
          "--qps %d" % (args.nodes, args.pods, QUEUES, args.late, args.rate, args.qps))
    print("%-20s %14s %14s %12s %12s %12s" % ("server", "start->cycle 1", "backlog binds/s", "all bound",
                                             "latency p50", "latency p99"))
    for r in rows:
        print("%-20s %13.2fs %14.0f %11.1fs %11.2fs %11.2fs" % (r["server"], r["first_cycle_s"] or float("nan"),
                                                              r["binds_per_s"], r["all_bound_s"],
                                                              r["latency_p50_s"], r["latency_p99_s"]))
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
