"""End-to-end tests of what a KAI install hands the scheduler besides its objects: KAI's
SchedulerConfiguration file (--scheduler-conf)."""

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
    for w in ("plugin wishful is not one Gantry knows", "queueDepthPerAction is not acted on"):
        check(w in out, "not warned: %s\n%s" % (w, out[-2000:]))
    no_403(t)


TESTS = [test_scheduler_conf]
