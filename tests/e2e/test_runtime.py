"""Maximum run times against the real control plane (docs/reservations.md): a queue that enforces
them (gantry.dev/enforce-max-runtime) has a PodGroup past its gantry.dev/max-runtime evicted, with
the PodGroup condition MaxRunTimeExceeded and a Warning event that say so; a queue that does not
keeps its PodGroup running."""

import time

from e2e import check, condition, no_403, node, pod, podgroup, queue, wait_for


def test_max_runtime_eviction(t):
    """A PodGroup of an enforcing queue is evicted once it has run past its 3 s maximum: its pod is
    gone, the PodGroup has MaxRunTimeExceeded=True and a Warning event names the limit; the same
    PodGroup in a queue that does not enforce runs on."""
    t.setup()
    strict = queue("e2e-rt-strict", gpu_quota=2)
    strict["metadata"]["annotations"] = {"gantry.dev/enforce-max-runtime": "true"}
    t.create(node("n1", gpus=4), strict, queue("e2e-rt-lax", gpu_quota=2))
    for name, q in (("late", "e2e-rt-strict"), ("lax", "e2e-rt-lax")):
        pg = podgroup(name, t.ns, q, 1)
        pg["metadata"]["annotations"] = {"gantry.dev/max-runtime": "3s"}
        t.create(pg, pod(name + "-0", t.ns, gpus=1, pg=name, q=q,
                         annotations={"e2e.gantry.test/terminate-seconds": "0.5"}))
    t.nodes_ready()
    s = t.scheduler("--actions", "allocate")
    wait_for("both bound", lambda: set(t.bound()) == {"late-0", "lax-0"}, timeout=30)
    started = time.time()
    cond = wait_for("late's MaxRunTimeExceeded condition", lambda: (lambda c: c if c and c.get("status") == "True"
                                                                   else None)(
        condition(t.c.get("PodGroup", "late", t.ns), "MaxRunTimeExceeded")), timeout=40)
    check(time.time() - started >= 1, "evicted before its maximum run time: %.1f s" % (time.time() - started))
    check("ran past its maximum run time of 3s" in cond.get("message", ""), "late's condition: %s" % cond)
    wait_for("late-0 gone", lambda: "late-0" not in t.pods(), timeout=30)
    ev = wait_for("the MaxRunTimeExceeded event", lambda: [e for e in t.events() if e["reason"] == "MaxRunTimeExceeded"
                                                           and e["involvedObject"].get("name") == "late"], timeout=20)
    check(ev[0]["type"] == "Warning" and "maximum run time of 3s" in ev[0]["message"], "event: %s" % ev[0])
    evict = [e for e in t.events() if e["reason"] == "Evict" and e["involvedObject"].get("name") == "late"]
    check(evict and "ran past its maximum run time (3s)" in evict[0]["message"],
          "Evict events: %s" % [e["message"] for e in evict])
    time.sleep(1)
    check("lax-0" in t.bound(), "lax-0 evicted though its queue does not enforce: %s" % t.bound())
    check(condition(t.c.get("PodGroup", "lax", t.ns), "MaxRunTimeExceeded") is None,
          "lax has the condition: %s" % t.c.get("PodGroup", "lax", t.ns).get("status"))
    s.stop()
    no_403(t)


TESTS = [test_max_runtime_eviction]
