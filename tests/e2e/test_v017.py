"""KAI v0.17's scheduling semantics against the real control plane: the fields go through the real
CRDs and API validation, the scheduler acts on them, and what it writes back is read back."""

import time

import e2e
from e2e import check, condition, no_403, node, pod, podgroup, queue, wait_for


def cycles(t, n, *flags):
    """`gantry scheduler --cycles N` run to its end; its log."""
    s = t.scheduler("--cycles", str(n), *flags)
    try:
        rc = s.proc.wait(60)
    except Exception:
        s.proc.kill()
        raise
    check(rc == 0, "the scheduler exited %d:\n%s" % (rc, s.output()[-2000:]))
    return s.output()


def test_min_subgroup(t):
    """A PodGroup with minSubGroup 1 over two sub-groups of two pods: the node has room for one
    sub-group, which is bound whole; the other waits (before v0.17 semantics nothing was bound)."""
    t.setup()
    t.create(node("n1", gpus=2), queue("e2e-msg-q"))
    pg = podgroup("replicas", t.ns, "e2e-msg-q", 0)
    del pg["spec"]["minMember"]
    pg["spec"]["minSubGroup"] = 1
    pg["spec"]["subGroups"] = [{"name": "r0"}, {"name": "r1"},
                               {"name": "r0-pods", "parent": "r0", "minMember": 2},
                               {"name": "r1-pods", "parent": "r1", "minMember": 2}]
    made = t.create(pg)[0]
    check(made["spec"].get("minSubGroup") == 1, "the server pruned minSubGroup: %s" % made["spec"])
    t.create(*[pod("r%d-%d" % (r, i), t.ns, gpus=1, pg="replicas", labels={"kai.scheduler/subgroup-name":
                                                                          "r%d-pods" % r})
               for r in range(2) for i in range(2)])
    t.nodes_ready()
    cycles(t, 3)
    b = t.bound()
    check(len(b) == 2 and len({n[:2] for n in b}) == 1, "one whole sub-group bound: %s" % b)
    no_403(t)


def test_preemption_delay(t):
    """spec.preemptionDelay: the high-priority job waits with KAI's message instead of preempting;
    once the delay is shortened it preempts, and the victim's PodGroup gets
    kai.scheduler/last-eviction-timestamp."""
    t.setup()
    t.create(node("n1", gpus=1), queue("e2e-pd-q", gpu_quota=1))
    t.create(podgroup("low", t.ns, "e2e-pd-q", 1, prio="train"),
             pod("low-0", t.ns, gpus=1, pg="low", annotations={"e2e.gantry.test/terminate-seconds": "0.5"}))
    t.nodes_ready()
    cycles(t, 2, "--actions", "allocate")
    wait_for("low-0 running", lambda: t.pods()["low-0"]["status"].get("phase") == "Running")
    high = podgroup("high", t.ns, "e2e-pd-q", 1, prio="build")
    high["spec"]["preemptionDelay"] = "1h"
    made = t.create(high)[0]
    check(made["spec"].get("preemptionDelay") == "1h", "the server pruned preemptionDelay: %s" % made["spec"])
    t.create(pod("high-0", t.ns, gpus=1, pg="high"))
    cycles(t, 3)
    check("low-0" in t.pods() and not t.pods()["low-0"]["metadata"].get("deletionTimestamp"),
          "low-0 was evicted within the delay")
    conds = (t.c.get("PodGroup", "high", t.ns).get("status") or {}).get("schedulingConditions") or []
    check(conds and "preemption delay window (1h0m0s)" in conds[0].get("message", ""),
          "high's condition: %s" % conds)
    t.c.patch("PodGroup", "high", {"spec": {"preemptionDelay": "1s"}}, t.ns)
    time.sleep(1.2)
    s = t.scheduler()
    wait_for("low-0 evicted", lambda: "low-0" not in t.pods() or
             t.pods()["low-0"]["metadata"].get("deletionTimestamp"), timeout=30)
    ann = wait_for("the victim's last-eviction-timestamp", lambda: (t.c.get("PodGroup", "low", t.ns)["metadata"]
                                                                 .get("annotations") or {})
                   .get("kai.scheduler/last-eviction-timestamp"), timeout=20)
    check(ann.endswith("Z"), "last-eviction-timestamp %r" % ann)
    s.stop()
    no_403(t)


def test_host_ports_and_sidecars(t):
    """Two pods asking for host port 8080 go to different nodes; a pod whose native sidecar makes
    its request larger than any node stays Pending with KAI's CPU message."""
    t.setup()
    t.create(node("n1", gpus=0, cpu="4"), node("n2", gpus=0, cpu="4"), queue("e2e-ports-q"))
    for i in range(2):
        p = pod("web-%d" % i, t.ns, q="e2e-ports-q")
        p["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
        t.create(p)
    side = pod("side", t.ns, q="e2e-ports-q", cpu="2")
    side["spec"]["initContainers"] = [{"name": "proxy", "image": "registry.example/proxy:1", "restartPolicy": "Always",
                                       "resources": {"requests": {"cpu": "3", "memory": "1Gi"},
                                                     "limits": {"cpu": "3", "memory": "1Gi"}}}]
    t.create(side)
    t.nodes_ready()
    cycles(t, 3)
    b = t.bound()
    check(sorted(b.get("web-%d" % i) for i in range(2)) == ["n1", "n2"], "host-port pods' nodes: %s" % b)
    check("side" not in b, "the pod with a 3-CPU sidecar and a 2-CPU container fit a 4-CPU node: %s" % b)
    pc = condition(t.pods()["side"], "PodScheduled")
    check(pc and pc["status"] == "False" and "CPU" in pc.get("message", ""), "side's PodScheduled: %s" % pc)
    no_403(t)


def test_kai_scheduler_flags(t):
    """The scheduler started with the flags KAI's operator writes from a shard's args: it runs,
    acts on those it can (a negative staleness grace period) and says which it cannot."""
    t.setup()
    t.create(node("n1", gpus=1), queue("e2e-flags-q"))
    t.create(pod("p", t.ns, gpus=1, q="e2e-flags-q"))
    t.nodes_ready()
    out = cycles(t, 2, "--v=4", "--max-consolidation-preemptees=4", "--default-staleness-grace-period=-1s",
                 "--stuck-in-releasing-threshold=2m", "--use-scheduling-signatures=true",
                 "--full-hierarchy-fairness=true", "--enable-profiler", "--plugin-server-port=8081")
    check(t.bound() == {"p": "n1"}, "bound: %s" % t.bound())
    for flag in ("--enable-profiler", "--plugin-server-port"):
        check(flag + " is accepted but has no effect" in out, "no warning for %s:\n%s" % (flag, out[-1500:]))
    check("level=debug" in out, "--v=4 did not turn debug logging on")
    no_403(t)


def test_configmap_predicate(t):
    """A pod mounting a ConfigMap that does not exist waits with KAI's message; once the ConfigMap
    is created the pod is bound (the scheduler lists and watches ConfigMaps)."""
    t.setup()
    t.create(node("n1", gpus=1), queue("e2e-cm-q"))
    p = pod("needs-cm", t.ns, q="e2e-cm-q")
    p["spec"]["volumes"] = [{"name": "cfg", "configMap": {"name": "settings"}}]
    p["spec"]["containers"][0]["volumeMounts"] = [{"name": "cfg", "mountPath": "/etc/settings"}]
    t.create(p)
    t.nodes_ready()
    s = t.scheduler()
    pc = wait_for("the pod's PodScheduled=False", lambda: (lambda c: c if c and c["status"] == "False" else None)(
        condition(t.pods()["needs-cm"], "PodScheduled")), timeout=20)
    check("Missing required configmaps: [settings]" in pc.get("message", ""), "PodScheduled: %s" % pc)
    check(not t.bound(), "bound without its ConfigMap: %s" % t.bound())
    t.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": t.ns},
              "data": {"a": "b"}})
    wait_for("bound once the ConfigMap exists", lambda: t.bound().get("needs-cm") == "n1", timeout=20)
    s.stop()
    no_403(t)


TESTS = [test_min_subgroup, test_preemption_delay, test_host_ports_and_sidecars, test_kai_scheduler_flags,
         test_configmap_predicate]
