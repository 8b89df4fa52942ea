"""End-to-end tests of `gantry explain` on the real control plane: the objects read once, with the
token of Gantry's ServiceAccount, and the same reasons and forecast as from files."""

import calendar
import json
import os
import subprocess
import time

import e2e
from e2e import check, no_403, node, pod, podgroup, queue, wait_for


def explain(t, *args):
    """`gantry explain ARGS -o json` with the ServiceAccount's kubeconfig: (JSON, stderr)."""
    env = dict(os.environ)
    env.pop("KUBECONFIG", None)
    out = subprocess.run([e2e.ARGS.gantry, "explain", *args, "--kubeconfig", t.sa_kubeconfig(), "-o", "json"],
                         capture_output=True, text=True, env=env, timeout=60)
    check(out.returncode == 0, "gantry explain %s exited %d:\n%s" % (" ".join(args), out.returncode, out.stderr))
    return json.loads(out.stdout), out.stderr


def rfc3339(s):
    return calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ"))


def test_explain_on_a_cluster(t):
    """A pod that fits nowhere, a pod of another scheduler and a pod without its PodGroup, read from
    the API server once: the reasons, the node to free, and the start expected when the running
    pod's annotated run time is over. Every resource is LISTed once, and nothing is refused."""
    t.setup()
    t.create(node("n1", gpus=8), queue("e2e-explain-q", gpu_quota=8))
    busy = pod("busy", t.ns, gpus=6, q="e2e-explain-q", annotations={"gantry.dev/expected-runtime": "1h"})
    busy["spec"]["nodeName"] = "n1"
    t.create(busy, podgroup("train", t.ns, "e2e-explain-q", 1),
             pod("train-0", t.ns, gpus=4, pg="train"),
             pod("other", t.ns, gpus=1, scheduler="someone-else"),
             pod("waits-for-pg", t.ns, gpus=1, pg="not-made-yet"))
    p = wait_for("busy running", lambda: (lambda x: x if x["status"].get("phase") == "Running" else None)(
        t.c.get("Pod", "busy", t.ns)))
    started = rfc3339(p["status"]["startTime"])
    at = len(t.requests())

    d, err = explain(t, "pod", "train-0", "-n", t.ns)
    check(d["reason"] == "NoNodeFits" and d["kaiReason"] == "PodSchedulingErrors", d)
    check(d["nodesRejected"] == {"GPU": 1}, d)
    h = d["toStart"][0]
    check((h["action"], h["object"], h["resource"], h["amount"]) == ("FreeResources", "n1", "gpu", 2), h)
    f = d["expectedStart"]
    check(f["estimated"] and rfc3339(f["time"]) == started + 3600 and not f["latest"], f)
    check(f["after"] == {"pod": "%s/busy" % t.ns, "source": "gantry.dev/expected-runtime"}, f)
    # the objects were listed once each (the watches that follow are not reads again)
    lists = {}
    for ev in t.requests()[at:]:
        if ev.get("verb") == "list":
            r = ev["objectRef"]["resource"]
            lists[r] = lists.get(r, 0) + 1
    check(lists.get("pods") == 1 and lists.get("podgroups") == 1 and lists.get("nodes") == 1, lists)
    check(max(lists.values()) == 1, "a resource listed more than once: %s" % lists)

    d, _ = explain(t, "pod/other", "-n", t.ns)
    check(d["reason"] == "NotOurScheduler" and "someone-else" in d["message"], d)
    d, _ = explain(t, "po", "waits-for-pg", "-n", t.ns)
    check(d["reason"] == "NoPodGroup" and "not-made-yet" in d["message"] and "on the cluster" in d["message"], d)
    d, _ = explain(t, "queue", "e2e-explain-q")
    check([(m["name"], m["reason"]) for m in d["waiting"]] == [("train", "NoNodeFits")], d)
    no_403(t)


TESTS = [test_explain_on_a_cluster]
