"""End-to-end tests of what a KAI install hands the scheduler besides its objects: KAI's
SchedulerConfiguration file (--scheduler-conf) and its kai-config Config."""

import os

from e2e import check, no_403, node, pod, queue


def run_cycles(t, n, *flags):
    """`gantry scheduler --cycles N` run to its end; its log."""
    s = t.scheduler("--cycles", str(n), *flags)
    try:
        rc = s.proc.wait(30)
    except Exception:
        s.proc.kill()
        raise
    check(rc == 0, "the scheduler exited %d:\n%s" % (rc, s.output()[-2000:]))
    return s.output()


CONF = """actions: "allocate"
tiers:
- plugins:
  - name: predicates
  - name: proportion
  - name: priority
  - name: nodeplacement
    arguments: {gpu: spread, cpu: binpack}
  - name: wishful
queueDepthPerAction: {allocate: 5}
"""


def test_scheduler_conf(t):
    """KAI's SchedulerConfiguration file replaces the shard's plugins: without it (binpack) a second
    one-GPU pod joins the first on its node; with its nodeplacement gpu=spread the third goes to the
    empty node. What Gantry does not act on is warned about by name."""
    t.setup()
    t.create(node("n1", gpus=4), node("n2", gpus=4), queue("e2e-conf-q"))
    t.nodes_ready()
    t.create(pod("a", t.ns, gpus=1, q="e2e-conf-q"))
    run_cycles(t, 2)
    t.create(pod("b", t.ns, gpus=1, q="e2e-conf-q"))
    run_cycles(t, 2)
    b = t.bound()
    check(b.get("a") and b.get("b") == b["a"], "binpack did not put b beside a: %s" % b)
    path = os.path.join(t.tmp, "scheduler.yaml")
    with open(path, "w") as f:
        f.write(CONF)
    t.create(pod("c", t.ns, gpus=1, q="e2e-conf-q"))
    out = run_cycles(t, 2, "--scheduler-conf", path)
    b = t.bound()
    check(b.get("c") and b["c"] != b["a"], "spread did not put c on the empty node: %s" % b)
    check("plugin wishful is not one Gantry knows" in out, "not warned about plugin wishful\n" + out[-2000:])
    check("queueDepthPerAction" not in out, "queueDepthPerAction (acted on) was warned about\n" + out[-2000:])
    no_403(t)


def test_kai_config(t):
    """KAI's kai-config Config, when present, gives the scheduler its settings where no flag does:
    its global.schedulerName makes Gantry schedule that scheduler's pods (and not kai-scheduler's);
    --scheduler-name wins over it; a key Gantry does not act on is warned about by its path."""
    t.setup()
    t.create(node("n1", gpus=4), queue("e2e-kc-q"))
    cfg = {"apiVersion": "kai.scheduler/v1", "kind": "Config", "metadata": {"name": "kai-config"},
           "spec": {"global": {"schedulerName": "e2e-kc-sched"}, "scheduler": {"replicas": 3}}}
    t.c.create(cfg)
    t.cleanup.append(("kai.scheduler/v1", "Config", "kai-config"))
    t.create(pod("theirs", t.ns, gpus=1, q="e2e-kc-q", scheduler="e2e-kc-sched"),
             pod("ours", t.ns, gpus=1, q="e2e-kc-q"))
    t.nodes_ready()
    out = run_cycles(t, 2)
    b = t.bound()
    check(b.get("theirs") == "n1" and "ours" not in b, "with kai-config's schedulerName: %s" % b)
    check("kai-config: spec.scheduler.replicas is not acted on by Gantry" in out, "not warned:\n" + out[-2000:])
    check("spec.global.schedulerName is not acted on" not in out, "an acted-on key warned:\n" + out[-2000:])
    run_cycles(t, 2, "--scheduler-name", "kai-scheduler")
    check(t.bound().get("ours") == "n1", "the flag did not win over kai-config: %s" % t.bound())
    no_403(t)


TESTS = [test_scheduler_conf, test_kai_config]
