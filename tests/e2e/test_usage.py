"""Time-based fair share's usage history against the real control plane: kept by `gantry scheduler`
in ConfigMaps of its namespace (a manifest, gantry-usage-default, and its parts
gantry-usage-default-{a,b}-N), with the ServiceAccount's least-privilege Role, across restarts;
a history over 1 MiB split into parts and restored whole; a write cut short loading the old
generation; a bad part warned about by name."""

import json
import re
import time
import urllib.request

import kube
from e2e import Fail, check, no_403, node, pod, queue, wait_for  # noqa: F401

NS = "kai-scheduler"
BASE = "gantry-usage-default"


def usage_maps(t):
    """{name: ConfigMap} of the usage history's ConfigMaps in the scheduler's namespace."""
    return {cm["metadata"]["name"]: cm for cm in t.c.list("ConfigMap", NS)
            if cm["metadata"]["name"] == BASE or cm["metadata"]["name"].startswith(BASE + "-")}


def history(t):
    """The history the manifest names, read as Gantry reads it: {"manifest": ..., "queues": {...},
    "sizes": {part name: bytes}}, or None while there is no manifest or a part it names is missing
    or unreadable."""
    maps = usage_maps(t)
    if BASE not in maps:
        return None
    m = json.loads(maps[BASE]["data"]["usage.json"])
    if m.get("version") == 1:
        return {"manifest": m, "queues": m["queues"], "sizes": {}}
    queues, sizes = {}, {}
    for i, p in enumerate(m["parts"]):
        name = "%s-%s-%d" % (BASE, p["slot"], i)
        if name not in maps:
            return None
        text = maps[name]["data"]["usage.json"]
        try:
            part = json.loads(text)
        except ValueError:
            return None     # the bad part a test wrote, until the scheduler writes again
        if part["generation"] != p["generation"]:
            return None
        sizes[name] = len(text)
        queues.update(part["queues"])
    return {"manifest": m, "queues": queues, "sizes": sizes}


def put_configmap(t, name, text):
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": NS},
           "data": {"usage.json": text}}
    if t.c.get_or_none("ConfigMap", name, NS):
        t.c.request("PUT", kube.path_of("ConfigMap", name, NS), obj)
    else:
        t.c.create(obj)


def clean(t):
    for name in usage_maps(t):
        t.c.delete("ConfigMap", name, NS)


def use_usage(t, window="1h"):
    """The default shard with a usageDBConfig (fetchInterval 1s); the old spec, to restore."""
    shard = t.c.get_any("kai.scheduler/v1", "SchedulingShard", "default")
    before = shard["spec"].get("usageDBConfig")
    t.c.patch_any("kai.scheduler/v1", "SchedulingShard", "default",
                  {"spec": {"usageDBConfig": {"clientType": "prometheus",
                                              "usageParams": {"windowSize": window, "fetchInterval": "1s"}}}})
    return before


def restore(t, before):
    t.c.patch_any("kai.scheduler/v1", "SchedulingShard", "default", {"spec": {"usageDBConfig": before}})
    clean(t)


def test_usage_history_survives_restart(t):
    """With the shard's usageDBConfig, the scheduler keeps the queues' usage in its ConfigMaps,
    writes them every fetchInterval and on SIGTERM, and a restarted scheduler carries on."""
    t.setup()
    clean(t)
    before = use_usage(t)
    try:
        t.create(node("use-a", gpus=8), queue("e2e-use-q"))
        t.nodes_ready()
        t.create(*[pod("u-%d" % i, t.ns, gpus=2, q="e2e-use-q") for i in range(2)])
        s = t.scheduler("--gpu-sharing-reservation", "false", name="first")
        wait_for("both pods bound", lambda: len(t.bound()) == 2, timeout=30)

        def used():
            h = history(t)
            q = h and h["queues"].get("e2e-use-q")
            return h if q and q["rate"][0] == 4000 and q["buckets"] else None
        h1 = wait_for("the queue's usage in the ConfigMaps", used, timeout=30)
        check(h1["manifest"]["capacity"]["rate"][0] >= 8000, "capacity %s" % h1["manifest"]["capacity"])
        s.stop()
        check("usage history" in s.output(), "no word of the usage history:\n" + s.output()[-1500:])
        saved = history(t)
        check(saved["manifest"]["until"] >= h1["manifest"]["until"], "the history on SIGTERM is older than before")
        time.sleep(1.1)
        s2 = t.scheduler("--gpu-sharing-reservation", "false", name="second")
        wait_for("the history read back", lambda: "the usage history in ConfigMap" in s2.output(), timeout=30)
        h3 = wait_for("the history carried on", lambda: (lambda h: h if h and h["manifest"]["until"] >
                                                          saved["manifest"]["until"] else None)(history(t)),
                      timeout=30)
        old = {b[0] for b in saved["queues"]["e2e-use-q"]["buckets"]}
        new = {b[0] for b in h3["queues"]["e2e-use-q"]["buckets"]}
        check(old <= new, "buckets from before the restart were lost: %s not in %s" % (old - new, new))
        s2.stop()
        no_403(t)
    finally:
        restore(t, before)


FAIR = re.compile(r'^kai_queue_fair_share_gpu\{queue_name="([^"]*)"[^}]*\} (\S+)$', re.M)
USAGE = re.compile(r'^kai_queue_gpu_usage\{queue_name="([^"]*)"[^}]*\} (\S+)$', re.M)


def fair_shares(s, queues, metric=FAIR):
    """{queue: GPU fair share} (or another per-queue gauge) from @s's /metrics, once every one of
    @queues has one."""
    port = s.port()
    if not port:
        return None
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5) as r:
        got = {q: float(v) for q, v in metric.findall(r.read().decode())}
    return got if all(q in got for q in queues) else None


def loaded(s):
    """(generation, parts, queues) from the scheduler's line on the history it read, or None."""
    m = re.search(r"the usage history in ConfigMap \S+ \(generation (\d+), (\d+) parts, (\d+) queues\)", s.output())
    return tuple(int(x) for x in m.groups()) if m else None


def close(a, b, tol=0.2):
    return all(abs(a[q] - b[q]) <= tol for q in a)


def test_usage_history_over_a_mebibyte(t):
    """A history of 122 queues busy the whole window (about 1.9 MB, nearly twice what one
    ConfigMap holds) is written by the scheduler in parts each well under 1 MiB, and a restarted scheduler
    reads it back whole: the queues' fair shares after the restart are those before, and not the
    ones without a history. Then a write cut short - parts of a new generation in the slots the
    manifest does not name, the manifest not written - loads the old generation, and a part the
    manifest names that is not JSON is warned about by ConfigMap and field, the rest loaded."""
    t.setup()
    clean(t)
    before = use_usage(t)
    heavy, light = "e2e-use-heavy", "e2e-use-light"
    try:
        t.create(node("use-big", gpus=8), queue(heavy, gpu_quota=0), queue(light, gpu_quota=0))
        t.nodes_ready()
        # a first run writes the manifest: the bucket width and ring the scheduler chose for 1h
        s0 = t.scheduler("--gpu-sharing-reservation", "false", name="empty")
        m0 = wait_for("an empty history written", lambda: (history(t) or {}).get("manifest"), timeout=30)
        s0.stop()
        m0 = history(t)["manifest"]
        w, slots, newest, gen0 = m0["bucketSeconds"], m0["slots"], m0["newest"], m0["generation"]
        # seed a history the scheduler has not written: the cluster (8 GPUs) full all window, the
        # heavy queue at 60% of it, 120 other queues busy all window; in 4 parts of ~480 kB
        ring = range(newest - slots + 1, newest + 1)
        cap = {"rate": [8000, 64000, 274877906944], "buckets": [[b, 8000 * w, 64000 * w, 274877906944 * w] for b in ring]}
        queues = {heavy: {"rate": [0, 0, 0], "buckets": [[b, 4800 * w, 4000 * w, 4294967296 * w] for b in ring]}}
        for i in range(120):
            queues["e2e-use-gone-%03d" % i] = {"rate": [1000 + i, 2000, 4294967296],
                                               "buckets": [[b, (1000 + i) * w, 2000 * w, (4294967296 + i) * w]
                                                           for b in ring]}
        names = sorted(queues)
        gen = gen0 + 1
        parts = []
        for i in range(4):
            part = {"version": 2, "generation": gen, "part": i, "parts": 4,
                    "queues": {q: queues[q] for q in names[i::4]}}
            text = json.dumps(part, separators=(",", ":"))
            check(len(text) < 1000000, "a seeded part is %d bytes" % len(text))
            put_configmap(t, "%s-b-%d" % (BASE, i), text)
            parts.append({"slot": "b", "generation": gen})
        # and the parts of an earlier, larger split that a crash left behind (highWater says so)
        for slot in "ab":
            put_configmap(t, "%s-%s-20" % (BASE, slot), '{"version": 2, "generation": 1, "queues": {}}')
        manifest = dict(m0, generation=gen, parts=parts, capacity=cap, highWater=21)
        put_configmap(t, BASE, json.dumps(manifest, separators=(",", ":")))
        seeded = history(t)
        total = sum(seeded["sizes"].values())
        check(total > 1.5 * 1024 * 1024, "the seeded history is only %d bytes" % total)

        # both queues want all 8 GPUs; the usage gives the light one the larger share
        t.create(*[pod("h-%d" % i, t.ns, gpus=1, q=heavy) for i in range(8)])
        t.create(*[pod("l-%d" % i, t.ns, gpus=1, q=light) for i in range(8)])
        s1 = t.scheduler("--gpu-sharing-reservation", "false", name="seeded")
        check(wait_for("the seeded history read", lambda: loaded(s1), timeout=30) == (gen, 4, 121),
              "read %s, expected generation %d, 4 parts, 121 queues:\n%s" % (loaded(s1), gen, s1.output()[-2000:]))

        def rewritten():
            h = history(t)
            return h if h and h["manifest"]["generation"] > gen else None
        h1 = wait_for("the history rewritten by the scheduler in its own parts", rewritten, timeout=60)
        sizes = h1["sizes"]
        check(sum(sizes.values()) > 1.5 * 1024 * 1024 and len(sizes) >= 4,
              "the written history is %d bytes in %d parts" % (sum(sizes.values()), len(sizes)))
        check(max(sizes.values()) < 600 * 1024, "a part is %d bytes" % max(sizes.values()))
        check(set(names) <= set(h1["queues"]), "queues lost: %s" % (set(names) - set(h1["queues"])))
        wait_for("the stale parts deleted", lambda: len(usage_maps(t)) <= 1 + 2 * len(h1["manifest"]["parts"]))
        f1 = wait_for("fair shares", lambda: fair_shares(s1, [heavy, light]), timeout=30)
        check(f1[light] > f1[heavy] + 2, "the usage did not move the fair shares: %s" % f1)
        # the usage the division weighed is served as KAI serves it (kai_queue_gpu_usage)
        u1 = fair_shares(s1, [heavy, light], USAGE)
        check(u1 and u1[heavy] > u1[light] >= 0 and u1[heavy] <= 1, "kai_queue_gpu_usage: %s" % u1)
        s1.stop()
        check("namespace kai-scheduler:" not in s1.output(), "warnings:\n" + s1.output()[-2000:])
        print("usage: %d bytes of history in %d parts, the largest %d bytes; fair shares %s"
              % (sum(sizes.values()), len(sizes), max(sizes.values()), f1), flush=True)

        h2 = history(t)
        s2 = t.scheduler("--gpu-sharing-reservation", "false", name="restarted")
        g2 = h2["manifest"]["generation"]
        got = wait_for("the history read back", lambda: loaded(s2), timeout=30)
        check(got == (g2, len(h2["manifest"]["parts"]), len(h2["queues"])), "read %s of %s" % (got, h2["manifest"]))
        f2 = wait_for("fair shares", lambda: fair_shares(s2, [heavy, light]), timeout=30)
        check(close(f1, f2), "fair shares before the restart %s, after %s" % (f1, f2))
        print("usage: after the restart %s" % f2, flush=True)
        s2.stop()

        # a write cut short: parts of a new generation, with no usage for the heavy queue, in the
        # slots the manifest does not name (all but the last), and no new manifest
        h3 = history(t)
        m3 = h3["manifest"]
        n3 = len(m3["parts"])
        for i, p in enumerate(m3["parts"][:-1]):
            other = "a" if p["slot"] == "b" else "b"
            torn = {"version": 2, "generation": m3["generation"] + 1, "part": i, "parts": n3,
                    "queues": {heavy: {"rate": [0, 0, 0], "buckets": []}}}
            put_configmap(t, "%s-%s-%d" % (BASE, other, i), json.dumps(torn))
        # and a part the manifest names that holds neither queue of the test is not JSON
        bad_i = next(i for i, p in enumerate(m3["parts"])
                     if heavy not in json.loads(usage_maps(t)["%s-%s-%d" % (BASE, p["slot"], i)]["data"]["usage.json"])["queues"]
                     and light not in json.loads(usage_maps(t)["%s-%s-%d" % (BASE, p["slot"], i)]["data"]["usage.json"])["queues"])
        bad = "%s-%s-%d" % (BASE, m3["parts"][bad_i]["slot"], bad_i)
        put_configmap(t, bad, '{"version": 2, "generation": ')
        s3 = t.scheduler("--gpu-sharing-reservation", "false", name="torn")
        got = wait_for("the history read back", lambda: loaded(s3), timeout=30)
        check(got[0] == m3["generation"] and got[1] == n3, "read %s, expected generation %d of %d parts"
              % (got, m3["generation"], n3))
        check(got[2] < len(h3["queues"]) and got[2] >= len(h3["queues"]) - 40,
              "read %d queues of %d, one part less" % (got[2], len(h3["queues"])))
        out = s3.output()
        check(re.search(r"level=warn component=usage msg=\"namespace kai-scheduler: ConfigMap %s: data.usage.json: "
                        r"not JSON \([^)]*\): its queues start with no usage" % re.escape(bad), out),
              "no warning naming %s:\n%s" % (bad, out[-2000:]))
        f3 = wait_for("fair shares", lambda: fair_shares(s3, [heavy, light]), timeout=30)
        check(close(f2, f3), "fair shares before the torn write %s, after %s" % (f2, f3))
        # the next write puts every part in the other slot again, heavy's usage in it
        h4 = wait_for("the history written again", lambda: (lambda h: h if h and h["manifest"]["generation"] >
                                                             m3["generation"] else None)(history(t)), timeout=30)
        check(len(h4["queues"][heavy]["buckets"]) > slots // 2, "the heavy queue's usage was lost")
        s3.stop()
        no_403(t)
    finally:
        restore(t, before)


TESTS = [test_usage_history_survives_restart, test_usage_history_over_a_mebibyte]
