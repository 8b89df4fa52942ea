"""KAI's snapshots and time-based fair share against the real control plane: /get-snapshot from a
running `gantry scheduler`, read back by `gantry simulate --snapshot`. (The usage history kept in
ConfigMaps across a restart: test_usage.py.)"""

import datetime
import io
import json
import subprocess
import time
import urllib.error
import urllib.request
import zipfile

import e2e
from e2e import ARGS, Fail, check, no_403, node, pod, podgroup, queue, wait_for  # noqa: F401


def snapshot_port(s):
    for line in s.output().splitlines():
        if "serving GET /get-snapshot on 127.0.0.1:" in line:
            return int(line.rsplit(":", 1)[1].split()[0])
    return None


def get_snapshot(port):
    """The ZIP, or None while the scheduler's caches are not synced (503, as the endpoint says)."""
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/get-snapshot" % port, timeout=30) as r:
            check(r.headers.get("Content-Type") == "application/zip",
                  "Content-Type %s" % r.headers.get("Content-Type"))
            return r.read()
    except urllib.error.HTTPError as e:
        body = e.read().decode()
        check(e.code == 503 and "not synced yet" in body, "/get-snapshot answered %d: %s" % (e.code, body))
        return None


def snapshot_json(data):
    z = zipfile.ZipFile(io.BytesIO(data))
    check(z.namelist() == ["snapshot.json"], "the ZIP holds %s" % z.namelist())
    return json.loads(z.read("snapshot.json"))


def simulate_snapshot(t, path):
    sim = subprocess.run([ARGS.gantry, "simulate", "--snapshot", path, "-o", "json", "-v"], capture_output=True,
                         text=True, timeout=60)
    check(sim.returncode == 0, "simulate --snapshot failed: " + sim.stderr)
    check("decoded in" in sim.stderr and "cycle 1:" in sim.stderr, "-v said no timings: " + sim.stderr)
    return {p["name"]: p["node"] for p in json.loads(sim.stdout)["pods"]
            if p["status"] == "Binding" and p["namespace"] == t.ns}


def hold_lease(t, name):
    """A Lease held by someone else for an hour: a scheduler electing on it never leads."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    t.c.create({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": name, "namespace": "kai-scheduler"},
                "spec": {"holderIdentity": "someone-else", "leaseDurationSeconds": 3600,
                         "acquireTime": now, "renewTime": now}})


def test_snapshot_round_trip(t):
    """A scheduler that does not lead serves /get-snapshot of its cache in KAI's layout;
    `gantry simulate --snapshot` places the pending pods of that ZIP (and of its bare
    snapshot.json) exactly where a leading scheduler then binds them on the real server."""
    t.setup()
    objs = [node("snap-a", gpus=8, cpu="64"), node("snap-b", gpus=4, cpu="32"),
            queue("e2e-snap-q", gpu_quota=8), queue("e2e-snap-p", gpu_quota=4, priority=200),
            podgroup("gang", t.ns, "e2e-snap-q", 3, prio="train"), podgroup("serve", t.ns, "e2e-snap-p", 1)]
    objs += [pod("gang-%d" % i, t.ns, gpus=2, pg="gang") for i in range(3)]
    objs += [pod("serve-0", t.ns, gpus=2, pg="serve"), pod("huge", t.ns, gpus=16, q="e2e-snap-q")]
    t.create(*objs)
    t.nodes_ready()
    hold_lease(t, "gantry-" + t.ns)
    s = t.scheduler("--leader-elect", "--snapshot-endpoint", "--plugin-server-port", "0",
                    "--gpu-sharing-reservation", "false", name="standby")
    port = wait_for("the /get-snapshot port", lambda: snapshot_port(s))
    names = {"gang-0", "gang-1", "gang-2", "serve-0", "huge"}

    def complete():
        data = get_snapshot(port)
        if data is None:
            return None
        snap = snapshot_json(data)
        pods = [p for p in snap["rawObjects"]["pods"] or [] if p["metadata"]["namespace"] == t.ns]
        return (data, snap) if {p["metadata"]["name"] for p in pods} >= names else None
    data, snap = wait_for("every pod in the snapshot", complete, timeout=30)
    snap_nodes = {n["metadata"]["name"] for n in snap["rawObjects"]["nodes"] or []}
    check(snap_nodes >= {"snap-a", "snap-b"}, "nodes in the snapshot: %s" % snap_nodes)
    # KAI's layout: no kind in list items, null for what is not cached, actions as one string
    check(set(snap) == {"config", "schedulerParams", "rawObjects", "discovery"}, "keys %s" % list(snap))
    # the server's version as KAI's discovery gives it: KAI's snapshot-tool reads DRA only when the
    # version is 1.26 or later and resource.k8s.io is listed
    ver = snap["discovery"]["serverVersion"]
    check(ver["major"] == "1" and int(ver["minor"]) >= 26 and ver["gitVersion"].startswith("v1."),
          "discovery.serverVersion %r" % ver)
    groups = [r["groupVersion"] for r in snap["discovery"]["resources"]]
    check(("resource.k8s.io/v1" in groups) == bool(snap["rawObjects"]["resourceClaims"] or
                                                   snap["rawObjects"]["resourceSlices"] or
                                                   snap["rawObjects"]["deviceClasses"]),
          "discovery.resources %r beside the DRA lists" % groups)
    check(all("kind" not in o and "apiVersion" not in o for lst in snap["rawObjects"].values() for o in lst or []),
          "list items carry kind or apiVersion")
    check(snap["rawObjects"]["persistentVolumes"] is None, "persistentVolumes: %r" % snap["rawObjects"]["persistentVolumes"])
    cms = snap["rawObjects"]["configMaps"]  # the scheduler caches ConfigMaps (the ConfigMap predicate)
    check(cms is None or all("data" in c or "metadata" in c for c in cms), "configMaps: %r" % cms)
    check(snap["config"]["actions"] == "allocate, consolidation, reclaim, preempt, stalegangeviction",
          "actions %r" % snap["config"]["actions"])
    check(any(p["name"] == "nodeplacement" for p in snap["config"]["tiers"][0]["plugins"]), "no nodeplacement plugin")
    check(snap["schedulerParams"]["schedulerName"] == "kai-scheduler", "params %s" % snap["schedulerParams"])
    check(not t.bound(), "the standby bound pods: %s" % t.bound())
    zpath, jpath = t.tmp + "/snapshot.zip", t.tmp + "/snapshot.json"
    with open(zpath, "wb") as f:
        f.write(data)
    with open(jpath, "wb") as f:
        f.write(zipfile.ZipFile(io.BytesIO(data)).read("snapshot.json"))
    want = simulate_snapshot(t, zpath)
    check(set(want) == {"gang-0", "gang-1", "gang-2", "serve-0"}, "simulate --snapshot placed %s" % want)
    check(simulate_snapshot(t, jpath) == want, "the bare snapshot.json placed otherwise")
    s.stop()
    t.c.delete("Lease", "gantry-" + t.ns, "kai-scheduler")
    s2 = t.scheduler("--cycles", "1", "--gpu-sharing-reservation", "false", name="leader")
    rc = s2.proc.wait(60)
    check(rc == 0, "scheduler exited %d:\n%s" % (rc, s2.output()[-2000:]))
    got = t.bound()
    check(got == want, "placements differ:\n scheduler         %s\n simulate snapshot %s" % (got, want))
    no_403(t)


TESTS = [test_snapshot_round_trip]
