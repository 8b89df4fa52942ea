"""End-to-end tests of GPU sharing, BindRequests and node pools of `gantry scheduler` against the
real control plane: tests/kube/run-binder-tests again where the scenario needs no injected fault
(a failed bind, and a shutdown while a bind waits, stay with the double).

The fake kubelet plays the reservation pods' program: a reservation pod that runs reports a GPU
UUID in run.ai/reserve_for_gpu_index, unless its node is told to stay silent.
"""

import hashlib
import re
import time
import urllib.request

import kube
from e2e import Gantry, check, condition, node, no_403, pod, podgroup, queue, wait_for

RESV_NS = "kai-resource-reservation"
GPU_ANN = "run.ai/reserve_for_gpu_index"
SILENT_ANN = "e2e.gantry.test/silent-reservations"
POOL = "kai.scheduler/node-pool"


# ---------------------------------------------------------------- objects


def resv_name(node_name, group):
    """KAI v0.17's reservation pod name: one per node and GPU group."""
    return "gpu-reservation-" + hashlib.sha256(("%s/%s" % (node_name, group)).encode()).hexdigest()[:16]

def shared_pod(name, ns, fraction=None, memory=None, devices=None, cm=None, q="e2e-share-q", **kw):
    """A fractional / GPU-memory pod as the admission webhook leaves it: env from its ConfigMaps."""
    ann = dict(kw.pop("annotations", {}))
    if memory:
        ann["gpu-memory"] = str(memory)
    if devices:
        ann["gpu-fraction-num-devices"] = str(devices)
    if cm:
        ann["runai/shared-gpu-configmap"] = cm
    p = pod(name, ns, fraction=fraction, q=q, annotations=ann, **kw)
    if cm:
        c = p["spec"]["containers"][0]
        c["env"] = [{"name": v, "valueFrom": {"configMapKeyRef": {"name": cm + "-0", "key": v}}}
                    for v in ("NVIDIA_VISIBLE_DEVICES", "RUNAI_NUM_OF_GPUS", "GPU_PORTION")]
        c["envFrom"] = [{"configMapRef": {"name": cm + "-0-evar", "optional": False}}]
    p["spec"]["runtimeClassName"] = "nvidia"
    return p


TOLERATION = {"key": "e2e.gantry.test/gpu", "operator": "Exists", "effect": "NoSchedule"}


def tolerating(p):
    """@p with TOLERATION: its GPU's reservation pod must get it too."""
    p["spec"]["tolerations"] = [TOLERATION]
    return p


def side_container(p):
    """A second container, named by gpu-fraction-container-name: the ConfigMaps are "<prefix>-1"."""
    p["spec"]["containers"].append({"name": "side", "image": "busybox"})
    return p


def labelled(obj, **labels):
    obj["metadata"].setdefault("labels", {}).update(labels)
    return obj


def on_node(p, node_name):
    """@p as a pod some other scheduler already bound to @node_name."""
    p["spec"]["nodeName"] = node_name
    return p


def bindrequest(name, ns, node_name, pod_uid=None, groups=None, backoff=None, resource_type="Regular"):
    md = {"name": name, "namespace": ns, "labels": {"selected-node": node_name}}
    if pod_uid:
        md["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": name, "uid": pod_uid}]
    spec = {"podName": name, "selectedNode": node_name, "receivedResourceType": resource_type}
    if groups:
        spec["selectedGPUGroups"] = groups
        spec["receivedGPU"] = {"count": len(groups), "portion": "0.50"}
    if backoff is not None:
        spec["backoffLimit"] = backoff
    return {"apiVersion": "scheduling.run.ai/v1alpha2", "kind": "BindRequest", "metadata": md, "spec": spec}


def group_labels(p):
    return {k: v for k, v in (p["metadata"].get("labels") or {}).items() if k.startswith("runai-gpu-group")}


def reservation_pods(t):
    return {p["metadata"]["name"]: p for p in t.c.list("Pod", RESV_NS)}


def configmaps(t):
    """The test namespace's ConfigMaps, but the CA bundle every namespace gets."""
    return {c["metadata"]["name"]: c for c in t.c.list("ConfigMap", t.ns) if c["metadata"]["name"] != "kube-root-ca.crt"}


def by_uri(evs, verb, uri_end):
    """Indexes in @evs (audit events, in order) of @verb requests whose URI path ends with @uri_end."""
    return [i for i, ev in enumerate(evs) if ev["verb"] == verb and ev["requestURI"].split("?")[0].endswith(uri_end)]


def cycles(t, n, *flags):
    """`gantry scheduler --cycles N` run to its end; its log."""
    s = t.scheduler("--cycles", str(n), *flags)
    try:
        rc = s.proc.wait(30)
    except Exception:
        s.proc.kill()
        raise
    check(rc == 0, "the scheduler exited %d:\n%s" % (rc, s.output()[-2000:]))
    return s.output()


# ---------------------------------------------------------------- tests

def test_shared_gpu_reservation(t):
    """Shared pods get a reservation pod per GPU group (the fake kubelet reports its GPU), learn
    the GPU through their ConfigMaps, made before the bind, and are labelled before the bind (the
    audit log's order); the reservation pod goes when its last pod does."""
    t.setup()
    t.create(node("n1", gpus=4), queue("e2e-share-q"))
    t.create(shared_pod("half-a", t.ns, fraction="0.5", cm="half-a-x7k2p9q-shared-gpu"),
             shared_pod("half-b", t.ns, fraction="0.5", cm="half-b-m3n8v2w-shared-gpu"),
             side_container(shared_pod("mem-c", t.ns, memory=10240, cm="mem-c-p0o9i8u-shared-gpu",
                                       annotations={"gpu-fraction-container-name": "side"})),
             tolerating(shared_pod("two-d", t.ns, fraction="0.25", devices=2, cm="two-d-q9w8e7r-shared-gpu")))
    s = t.scheduler("--log-level", "debug")
    wait_for("the shared pods bound", lambda: len(t.bound()) == 4, timeout=20)
    resv = {p["metadata"]["labels"]["runai-gpu-group"]: p for p in reservation_pods(t).values()}
    uuid_of = {g: p["metadata"]["annotations"][GPU_ANN] for g, p in resv.items()}
    for g, p in resv.items():
        md, spec = p["metadata"], p["spec"]
        check(md["name"] == resv_name("n1", g),
              "reservation pod name %s, want %s" % (md["name"], resv_name("n1", g)))
        check(md["labels"].get("app") == "kai-resource-reservation", "labels %s" % md["labels"])
        check(md["annotations"].get("karpenter.sh/do-not-disrupt") == "true", "annotations %s" % md["annotations"])
        check(spec.get("nodeName") == "n1" and "runtimeClassName" not in spec, "spec %s" % spec)
        check(spec.get("serviceAccountName") == "kai-resource-reservation", "service account %s" % spec)
        res = spec["containers"][0]["resources"]
        check(res["limits"]["nvidia.com/gpu"] == "1" and res["requests"]["nvidia.com/gpu"] == "1", "resources %s" % res)
        check(uuid_of[g] == "GPU-" + md["uid"], "%s reported %s" % (md["name"], uuid_of[g]))
    pods = t.pods()
    cms = configmaps(t)
    evs = t.requests()
    groups_used = set()
    for name in ("half-a", "half-b", "mem-c", "two-d"):
        p = pods[name]
        gl = group_labels(p)
        check(p["spec"].get("nodeName") == "n1", "%s not on n1" % name)
        check(p["metadata"]["annotations"].get("received-resource-type") == "Fraction",
              "%s: received-resource-type %s" % (name, p["metadata"]["annotations"]))
        check(all(v in resv for v in gl.values()), "%s: group %s has no reservation pod" % (name, gl))
        groups_used.update(gl.values())
        # the labels are patched on before the bind: the audit log has them in that order
        bind = by_uri(evs, "create", "/pods/%s/binding" % name)
        patches = by_uri(evs, "patch", "/namespaces/%s/pods/%s" % (t.ns, name))
        check(len(bind) == 1 and patches and patches[0] < bind[0],
              "%s: patches at %s, bind at %s in the audit log" % (name, patches, bind))
    check(set(resv) == groups_used, "reservation pods %s, groups in use %s" % (sorted(resv), sorted(groups_used)))
    check(list(group_labels(pods["half-a"])) == ["runai-gpu-group"], "single-device label %s" % group_labels(pods["half-a"]))
    two = group_labels(pods["two-d"])
    check(len(two) == 2 and all(k == "runai-gpu-group/" + v for k, v in two.items()), "multi-device labels %s" % two)
    # the ConfigMaps the webhook named: the GPU of the group, the portion; made before the bind
    for name, cm in (("half-a", "half-a-x7k2p9q-shared-gpu"), ("two-d", "two-d-q9w8e7r-shared-gpu")):
        caps, evar = cms.get(cm + "-0"), cms.get(cm + "-0-evar")
        check(caps and evar, "%s: ConfigMaps %s missing: %s" % (name, cm, sorted(cms)))
        want = sorted(uuid_of[g] for g in group_labels(pods[name]).values())
        got = caps["data"].get("NVIDIA_VISIBLE_DEVICES", "")
        check(sorted(got.split(",")) == want, "%s: NVIDIA_VISIBLE_DEVICES %r, want %s" % (name, got, want))
        portion = "0.50" if name == "half-a" else "0.25"
        check(caps["data"].get("GPU_PORTION") == portion and caps["data"].get("RUNAI_NUM_OF_GPUS") == portion,
              "%s: %s" % (name, caps["data"]))
        owner = caps["metadata"]["ownerReferences"][0]
        check(owner["kind"] == "Pod" and owner["uid"] == pods[name]["metadata"]["uid"], "owner %s" % owner)
        made = by_uri(evs, "create", "/namespaces/%s/configmaps" % t.ns)
        made = [i for i in made if evs[i]["objectRef"].get("name") == cm + "-0"]
        bind = by_uri(evs, "create", "/pods/%s/binding" % name)
        check(made and made[0] < bind[0], "%s: ConfigMap made at %s, the bind at %s" % (name, made, bind))
    # the container named by gpu-fraction-container-name reads no NVIDIA_VISIBLE_DEVICES from its
    # capabilities ConfigMap: KAI writes it into the -evar one, which the container takes whole
    caps, evar = cms.get("mem-c-p0o9i8u-shared-gpu-1"), cms.get("mem-c-p0o9i8u-shared-gpu-1-evar")
    check(caps and evar, "mem-c: ConfigMaps of container 1 missing: %s" % sorted(cms))
    # 10240 MiB of a GPU KAI counts as 40900 MiB (floored to 100): ceil(25.04)% of it
    check(caps["data"].get("GPU_PORTION") == "0.26" and "NVIDIA_VISIBLE_DEVICES" not in caps["data"],
          "mem-c capabilities %s" % caps["data"])
    mem_gpu = uuid_of[group_labels(pods["mem-c"])["runai-gpu-group"]]
    check(evar["data"] == {"NVIDIA_VISIBLE_DEVICES": mem_gpu}, "mem-c evar %s" % evar["data"])
    # a reservation pod carries the tolerations of the pod whose bind made it (KAI v0.17): two-d's
    # toleration is on the pods of the groups only two-d uses, and on none of the groups it does
    # not use (a group it shares may have been made by another pod's bind; the API server may add
    # its default NoExecute tolerations to every pod)
    users = {}
    for name in ("half-a", "half-b", "mem-c", "two-d"):
        for g in group_labels(pods[name]).values():
            users.setdefault(g, set()).add(name)
    for g, p in resv.items():
        has = TOLERATION in (p["spec"].get("tolerations") or [])
        if users.get(g) in ({"two-d"}, None) or "two-d" not in users.get(g, ()):
            want = users.get(g) == {"two-d"}
            check(has == want, "reservation pod of %s (used by %s): tolerations %s, toleration %s expected: %s"
                  % (g, sorted(users.get(g, ())), p["spec"].get("tolerations"), TOLERATION, want))
    half = group_labels(pods["half-a"]).get("runai-gpu-group")
    check(half == group_labels(pods["half-b"]).get("runai-gpu-group"),
          "half-a and half-b do not share a GPU: %s" % {n: group_labels(p) for n, p in pods.items()})
    # the last pods of a group go (deleted as a user would; the kubelet confirms): so does its reservation pod
    for name in ("half-a", "half-b"):
        t.c.delete("Pod", name, t.ns)
    wait_for("the reservation pod of half-a's group deleted",
             lambda: half not in {p["metadata"]["labels"]["runai-gpu-group"] for p in reservation_pods(t).values()},
             timeout=10)
    check(len(reservation_pods(t)) == len(resv) - 1, "reservation pods left: %s" % sorted(reservation_pods(t)))
    out = s.output()
    s.stop()
    check("created reservation pod" in out, "no reservation pod creation logged")
    no_403(t)


def test_reservation_timeout(t):
    """A reservation pod that never reports (its node stays silent): after the timeout it is
    deleted, the shared pod is left as it was (no labels, no annotation, no ConfigMaps, not bound)
    and placed again; once the GPU reports, the pod is bound with the reporting reservation pod."""
    t.setup()
    n1 = node("n1", gpus=2)
    n1["metadata"]["annotations"][SILENT_ANN] = "100"
    t.create(n1, queue("e2e-share-q"))
    t.create(shared_pod("frac", t.ns, fraction="0.5", cm="frac-a1b2c3d-shared-gpu"),
             pod("whole", t.ns, gpus=1, q="e2e-share-q"))
    s = t.scheduler("--resource-reservation-allocation-timeout", "1s")
    first = wait_for("a reservation pod", lambda: sorted(p["metadata"]["uid"] for p in reservation_pods(t).values()))[0]
    wait_for("whole bound meanwhile", lambda: "whole" in t.bound(), timeout=5)
    # (names are one per node and GPU group: a retry may make a pod of the same name)
    wait_for("the first reservation pod deleted on timeout",
             lambda: first not in [p["metadata"]["uid"] for p in reservation_pods(t).values()], timeout=6)
    # every retry waits for a silent pod, and nothing is written before the reservation reports
    frac = t.pods()["frac"]
    check(not frac["spec"].get("nodeName"), "frac was bound")
    check(not group_labels(frac), "labels left behind: %s" % group_labels(frac))
    check("received-resource-type" not in frac["metadata"].get("annotations", {}), "annotation left behind")
    check(not configmaps(t), "ConfigMaps left behind: %s" % sorted(configmaps(t)))
    t.c.patch("Node", "n1", {"metadata": {"annotations": {SILENT_ANN: "0"}}})     # the GPU reports from now on
    wait_for("frac bound on a retry", lambda: "frac" in t.bound(), timeout=10)
    out = s.output()
    s.stop()
    frac = t.pods()["frac"]
    left = reservation_pods(t)
    check(len(left) == 1, "reservation pods left: %s" % sorted(left))
    (resv,) = left.values()
    check(GPU_ANN in resv["metadata"]["annotations"] and
          resv["metadata"]["labels"]["runai-gpu-group"] == group_labels(frac)["runai-gpu-group"],
          "frac (%s) was not bound with the reservation pod that reported: %s" % (group_labels(frac), resv["metadata"]))
    check("did not report its GPU" in out, "the timeout was not logged:\n" + out[-2000:])
    evs = t.requests()
    made = by_uri(evs, "create", "/namespaces/%s/pods" % RESV_NS)
    gone = by_uri(evs, "delete", "")
    gone = [i for i in gone if evs[i]["objectRef"].get("namespace") == RESV_NS]
    check(len(made) >= 2 and len(made) - len(gone) == 1,
          "reservation pods: %d created, %d deleted by Gantry" % (len(made), len(gone)))
    no_403(t)


def test_reservation_gc(t):
    """Reservation pods whose group no active pod uses are deleted; one in use stays."""
    t.setup()

    def resv(name, group):
        p = pod(name, RESV_NS, gpus=1, labels={"app": "kai-resource-reservation", "runai-gpu-group": group},
                annotations={GPU_ANN: "GPU-" + group}, scheduler="default-scheduler")
        p["spec"]["serviceAccountName"] = "kai-resource-reservation"
        return on_node(p, "n1")
    user = on_node(pod("user", t.ns, fraction="0.5", q="e2e-gc-q", labels={"runai-gpu-group": "keep-g"}), "n1")
    done = on_node(pod("done", t.ns, fraction="0.5", q="e2e-gc-q", labels={"runai-gpu-group": "old-g"},
                       annotations={"e2e.gantry.test/run-seconds": "0"}), "n1")
    t.create(node("n1", gpus=4), queue("e2e-gc-q"))
    t.create(resv("gpu-reservation-n1-keep1", "keep-g"), resv("gpu-reservation-n1-old01", "old-g"), user, done)
    wait_for("done Succeeded, the others Running",
             lambda: (lambda ps: ps["done"]["status"].get("phase") == "Succeeded" and
                      ps["user"]["status"].get("phase") == "Running")(t.pods()))
    s = t.scheduler("--log-level", "debug")
    wait_for("the unused reservation pod deleted", lambda: "gpu-reservation-n1-old01" not in reservation_pods(t),
             timeout=5)
    n = s.output().count("cycle:")
    wait_for("two cycles more", lambda: s.output().count("cycle:") >= n + 2)
    s.stop()
    check("gpu-reservation-n1-keep1" in reservation_pods(t), "the reservation pod in use was deleted")
    deleted = [ev["objectRef"].get("name") for ev in t.requests() if ev["verb"] == "delete"]
    check(deleted == ["gpu-reservation-n1-old01"], "Gantry deleted %s" % deleted)
    no_403(t)


def test_bindrequests(t):
    """BindRequests through the real CRD (deploy/crds; status through its status subresource):
    pods with a live one count as Binding on its node with its GPU groups; failed-for-good,
    orphaned and stale ones are deleted (by Gantry: the orphan has no ownerReference for the garbage
    collector to act on), and their pods scheduled afresh."""
    t.setup()
    t.create(node("n1", gpus=4), node("n2", gpus=8), node("n3", gpus=1), queue("e2e-br-q"))
    q = "e2e-br-q"
    made = {p["metadata"]["name"]: p for p in t.create(
        pod("live-a", t.ns, gpus=2, q=q), pod("retry-c", t.ns, gpus=1, q=q), pod("big", t.ns, gpus=8, q=q),
        pod("frac-br", t.ns, fraction="0.5", q=q), pod("dead", t.ns, gpus=1, q=q),
        on_node(pod("moved", t.ns, gpus=1, q=q), "n3"), pod("frac-new", t.ns, fraction="0.5", q=q))}

    def uid(n):
        return made[n]["metadata"]["uid"]
    brs = [(bindrequest("live-a", t.ns, "n1", uid("live-a")), None),
           (bindrequest("retry-c", t.ns, "n1", uid("retry-c"), backoff=3), {"phase": "Failed", "failedAttempts": 1}),
           (bindrequest("frac-br", t.ns, "n1", uid("frac-br"), groups=["grp-x"], resource_type="Fraction"), None),
           (bindrequest("dead", t.ns, "n1", uid("dead")), {"phase": "Failed", "failedAttempts": 1}),
           (bindrequest("moved", t.ns, "n1", uid("moved")), None),
           (bindrequest("ghost", t.ns, "n1"), None)]
    for br, status in brs:
        t.c.apply(br)           # server-side apply, strict field validation: the CRD's schema holds
        if status:
            t.c.patch("BindRequest", br["metadata"]["name"], {"status": status}, namespace=t.ns, sub="status")
    # what the real server's validation says: a field the schema lacks, a portion given as a number
    bad = bindrequest("bad", t.ns, "n1")
    bad["spec"]["selectedNodes"] = ["n1"]
    try:
        t.c.request("POST", kube.path_of("BindRequest", None, t.ns), bad, query={"fieldValidation": "Strict"})
        check(False, "a BindRequest with an unknown field was accepted")
    except kube.ApiError as e:
        check(e.code == 400 and 'unknown field "spec.selectedNodes"' in str(e), "unknown field: %s" % e)
    bad = bindrequest("bad", t.ns, "n1", groups=["g"])
    bad["spec"]["receivedGPU"]["portion"] = 0.5
    try:
        t.c.create(bad)
        check(False, "a BindRequest with a numeric portion was accepted")
    except kube.ApiError as e:
        check(e.code == 422 and "portion" in str(e), "numeric portion: %s" % e)
    t.nodes_ready()
    wait_for("moved running", lambda: t.pods()["moved"]["status"].get("phase") == "Running")
    cycles(t, 3)
    b = t.bound()
    for name in ("live-a", "retry-c", "frac-br"):
        check(name not in b, "%s was bound although its BindRequest is live" % name)
    check(b.get("big") == "n2", "big: %s" % b.get("big"))
    fn = t.pods()["frac-new"]
    check(b.get("frac-new") == "n1" and group_labels(fn).get("runai-gpu-group") == "grp-x",
          "frac-new did not join the BindRequest's GPU group: %s %s" % (b.get("frac-new"), group_labels(fn)))
    check("dead" not in b, "dead fit somewhere: the live BindRequests were not counted")
    left = sorted(br["metadata"]["name"] for br in t.c.list("BindRequest", t.ns))
    check(left == ["frac-br", "live-a", "retry-c"], "BindRequests left: %s" % left)
    deleted = sorted(ev["objectRef"]["name"] for ev in t.requests()
                     if ev["verb"] == "delete" and ev["objectRef"].get("resource") == "bindrequests")
    check(deleted == ["dead", "ghost", "moved"], "BindRequests Gantry deleted: %s" % deleted)
    no_403(t)


def pool_shard(t, name, value):
    shard = {"apiVersion": "kai.scheduler/v1", "kind": "SchedulingShard", "metadata": {"name": name},
             "spec": {"partitionLabelValue": value}}
    t.c.create(shard)
    t.cleanup.append(("kai.scheduler/v1", "SchedulingShard", name))


def test_node_pools(t):
    """The SchedulingShard's partitionLabelValue limits nodes, queues and PodGroups to the pool;
    pods of other pools are neither placed nor counted."""
    t.setup()
    shard = "e2e-pool-a"
    pool_shard(t, shard, "pool-a")
    t.create(labelled(node("na", gpus=4), **{POOL: "pool-a"}), labelled(node("nb", gpus=4), **{POOL: "pool-b"}),
             node("nu", gpus=4),
             labelled(queue("e2e-qa"), **{POOL: "pool-a"}), labelled(queue("e2e-qb"), **{POOL: "pool-b"}),
             queue("e2e-qu"))
    t.create(labelled(podgroup("pg-a", t.ns, "e2e-qa", 1), **{POOL: "pool-a"}),
             labelled(podgroup("pg-huge", t.ns, "e2e-qa", 1), **{POOL: "pool-a"}),
             labelled(podgroup("pg-b", t.ns, "e2e-qb", 1), **{POOL: "pool-b"}))
    t.create(pod("a-0", t.ns, gpus=2, pg="pg-a"), pod("huge-0", t.ns, gpus=8, pg="pg-huge"),
             pod("b-0", t.ns, gpus=2, pg="pg-b"),
             pod("bare-a", t.ns, gpus=1, q="e2e-qa", labels={POOL: "pool-a"}),
             pod("bare-u", t.ns, gpus=1, q="e2e-qu"),
             on_node(pod("other-b", t.ns, gpus=4, q="e2e-qb", labels={POOL: "pool-b"}), "nb"))
    t.nodes_ready()
    cycles(t, 2, "--shard", shard)
    b = t.bound()
    b.pop("other-b")
    check(b == {"a-0": "na", "bare-a": "na"}, "pool-a binds %s" % b)
    pgs = {p["metadata"]["name"]: p for p in t.c.list("PodGroup", t.ns)}
    conds = pgs["pg-huge"].get("status", {}).get("schedulingConditions", [])
    check(conds and conds[0]["nodePool"] == "pool-a", "pg-huge conditions %s" % conds)
    check(not pgs["pg-b"].get("status", {}).get("schedulingConditions"), "pg-b was judged by pool-a's scheduler")
    ev = [e["message"] for e in t.events() if e["reason"] == "Scheduled"]
    check(ev and all(m.endswith("at node-pool pool-a") for m in ev), "Scheduled events %s" % ev)
    no_403(t)


def test_node_pool_flag(t):
    """--node-pool overrides the shard; the empty value serves the objects without the label."""
    t.setup()
    shard = "e2e-pool-flag"
    pool_shard(t, shard, "pool-a")
    t.create(labelled(node("na", gpus=4), **{POOL: "pool-a"}), node("nu", gpus=4),
             labelled(queue("e2e-qa"), **{POOL: "pool-a"}), queue("e2e-qu"))
    t.create(pod("bare-a", t.ns, gpus=1, q="e2e-qa", labels={POOL: "pool-a"}),
             pod("bare-u", t.ns, gpus=1, q="e2e-qu"),
             pod("bare-x", t.ns, gpus=1, q="e2e-qa"))
    t.nodes_ready()
    cycles(t, 2, "--shard", shard, "--node-pool=")
    b = t.bound()
    check(b == {"bare-u": "nu"}, "unlabelled pool binds %s" % b)
    ev = [e["message"] for e in t.events() if e["reason"] == "Scheduled"]
    check(ev and ev[0].endswith("at node-pool default"), "Scheduled events %s" % ev)
    no_403(t)


# ---------------------------------------------------------------- BindRequest mode

def binder(t, *flags):
    """`gantry binder` on Gantry's ServiceAccount, its endpoints on free ports."""
    return Gantry(t, "binder", t.sa_kubeconfig(), "--metrics-bind-address", "127.0.0.1:0",
                  "--health-probe-bind-address", "127.0.0.1:0", "--namespace", "kai-scheduler", *flags)


def scrape(g):
    port = wait_for("the binder's /metrics port", g.port)
    return urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5).read().decode()


def sample(text, series):
    m = re.search("^" + re.escape(series) + r" (\S+)$", text, re.M)
    return float(m.group(1)) if m else None


def test_bindrequest_mode(t):
    """`gantry scheduler --bind-requests` binds nothing itself: it writes KAI's BindRequests
    (named after the pod, owned by it, labelled selected-node), which `gantry binder` carries out:
    a whole-GPU pod through pods/binding, a fractional one through its reservation pod; each
    BindRequest ends Succeeded (and stays, for the garbage collector to take with its pod), each pod
    gets PodBound=True and a Bound event."""
    t.setup()
    t.create(node("n1", gpus=4), queue("e2e-share-q"))
    t.create(pod("whole", t.ns, gpus=1, q="e2e-share-q"),
             tolerating(shared_pod("frac", t.ns, fraction="0.5", cm="frac-k2j3h4g-shared-gpu")))
    s = t.scheduler("--bind-requests")
    b = binder(t)
    wait_for("both pods bound", lambda: len(t.bound()) == 2, timeout=30)
    brs = wait_for("both BindRequests Succeeded", lambda: (lambda x: x if len(x) == 2 and all(
        (br.get("status") or {}).get("phase") == "Succeeded" for br in x.values()) else None)(
        {br["metadata"]["name"]: br for br in t.c.list("BindRequest", t.ns)}), timeout=10)
    # the pod's condition and event are written after the BindRequest's status
    wait_for("the Bound events", lambda: {("whole", "Bound"), ("frac", "Bound")} <=
             {(e["involvedObject"]["name"], e["reason"]) for e in t.events()}, timeout=10)
    pods = t.pods()
    for name in ("whole", "frac"):
        br, p = brs[name], pods[name]
        owner = br["metadata"]["ownerReferences"][0]
        check(owner["kind"] == "Pod" and owner["name"] == name and owner["uid"] == p["metadata"]["uid"],
              "%s: owner %s" % (name, owner))
        check(br["metadata"]["labels"].get("selected-node") == "n1", "%s: labels %s" % (name, br["metadata"]))
        check(br["spec"]["podName"] == name and br["spec"]["selectedNode"] == "n1", "%s: spec %s" % (name, br["spec"]))
        # (the fake kubelet, unlike the real one, may replace the conditions it does not own when
        # the pod starts: the condition's patch is checked in the audit log below)
        cond = condition(p, "PodBound")
        check(cond is None or (cond.get("status") == "True" and cond.get("reason") == "Bound" and
              cond.get("message") == "Pod bound successfully to node n1"), "%s: PodBound %s" % (name, cond))
    check(brs["whole"]["spec"]["receivedResourceType"] == "Regular" and not brs["whole"]["spec"].get("selectedGPUGroups"),
          "whole: %s" % brs["whole"]["spec"])
    fs = brs["frac"]["spec"]
    check(fs["receivedResourceType"] == "Fraction" and fs["receivedGPU"] == {"count": 1, "portion": "0.50"} and
          fs["selectedGPUGroups"] == [group_labels(pods["frac"]).get("runai-gpu-group")],
          "frac: spec %s, labels %s" % (fs, group_labels(pods["frac"])))
    # the fractional pod's GPU came from its reservation pod, which has its tolerations
    resv = reservation_pods(t).get(resv_name("n1", fs["selectedGPUGroups"][0]))
    check(resv and TOLERATION in (resv["spec"].get("tolerations") or []), "reservation pod %s" % resv)
    caps = configmaps(t).get("frac-k2j3h4g-shared-gpu-0")
    check(caps and caps["data"].get("NVIDIA_VISIBLE_DEVICES") == resv["metadata"]["annotations"][GPU_ANN],
          "frac's ConfigMap %s" % caps)
    # every Binding was made after its BindRequest was written, the pod's PodBound status after it
    evs = t.requests()
    for name in ("whole", "frac"):
        made = [i for i in by_uri(evs, "create", "/namespaces/%s/bindrequests" % t.ns)
                if evs[i]["objectRef"].get("name") == name]
        bound = by_uri(evs, "create", "/pods/%s/binding" % name)
        check(len(made) == 1 and len(bound) == 1 and made[0] < bound[0],
              "%s: BindRequest written at %s, Binding at %s" % (name, made, bound))
        st = by_uri(evs, "patch", "/pods/%s/status" % name)
        check(st and st[-1] > bound[0], "%s: no status patch after the Binding (%s, %s)" % (name, st, bound))
    wait_for("the binder's count of binds", lambda: sample(scrape(b), 'kai_bind_requests_total{result="succeeded"}') == 2,
             timeout=10)
    port = wait_for("the probe port", lambda: (lambda x: int(x[-1]) if x else None)(
        re.findall(r"serving /healthz and /readyz on port (\d+)", b.output())))
    ready = urllib.request.urlopen("http://127.0.0.1:%d/readyz" % port, timeout=5).read().decode()
    check(ready.strip() == "ok", "readyz %r" % ready)
    # a later cycle neither binds them again nor deletes their BindRequests
    s.stop()
    b.stop()
    check(sorted(br["metadata"]["name"] for br in t.c.list("BindRequest", t.ns)) == ["frac", "whole"],
          "BindRequests left: %s" % [br["metadata"]["name"] for br in t.c.list("BindRequest", t.ns)])
    no_403(t)


def test_bindrequest_retries(t):
    """A bind that fails is tried again while spec.backoffLimit > status.failedAttempts, 1 s then 2 s
    later, and its status says so: failedAttempts, phase Failed, the reason; the pod gets
    PodBound=False with KAI's message. Without backoffLimit: one attempt."""
    t.setup()
    t.create(node("n1", gpus=4))
    # pods no scheduler of the test takes: only the BindRequests bind them
    made = {p["metadata"]["name"]: p for p in t.create(pod("stuck", t.ns, gpus=1, scheduler="e2e-nobody"),
                                                        pod("once", t.ns, gpus=1, scheduler="e2e-nobody"))}
    t.c.create(bindrequest("stuck", t.ns, "ghost-node", made["stuck"]["metadata"]["uid"], backoff=2))
    t.c.create(bindrequest("once", t.ns, "ghost-node", made["once"]["metadata"]["uid"]))
    b = binder(t)

    def status(name):
        return t.c.get("BindRequest", name, t.ns).get("status") or {}
    st = wait_for("stuck failed twice", lambda: (lambda x: x if x.get("failedAttempts") == 2 else None)(status("stuck")),
                  timeout=15)
    check(st.get("phase") == "Failed" and st.get("reason") == 'nodes "ghost-node" not found', "stuck: %s" % st)
    once = status("once")
    check(once.get("phase") == "Failed" and not once.get("failedAttempts") and
          once.get("reason") == 'nodes "ghost-node" not found', "once: %s" % once)
    # the third attempt comes 2 s after the second; after it, none
    wait_for("the third attempt", lambda: sample(scrape(b), 'kai_bind_requests_total{result="failed"}') == 4,
             timeout=10)
    time.sleep(4.5)
    m = scrape(b)
    check(sample(m, 'kai_bind_requests_total{result="failed"}') == 4 and
          sample(m, "kai_bind_request_retries_total") == 2, "attempts after the limit:\n" + m[:1500])
    cond = condition(t.pods()["stuck"], "PodBound") or {}
    check(cond.get("status") == "False" and cond.get("reason") == "BindingError" and
          cond.get("message") == 'Failed to bind pod %s/stuck to node ghost-node: nodes "ghost-node" not found' % t.ns,
          "stuck: PodBound %s" % cond)
    check(not t.bound(), "bound: %s" % t.bound())
    b.stop()
    no_403(t)


def test_binder_reservation_cleanup(t):
    """`gantry binder` behind a scheduler in BindRequest mode (the test writes the BindRequests, as KAI's
    scheduler does) frees a shared GPU as KAI v0.17's binder does: the first BindRequest for a GPU
    group makes its reservation pod; it stays while a fractional pod of the group is left, and the
    binder deletes it (grace period 0) once the last one is gone."""
    t.setup()
    group = "e2e-cleanup-" + t.ns[-6:]
    resv = resv_name("n1", group)
    t.create(node("n1", gpus=4))
    made = {p["metadata"]["name"]: p for p in t.create(
        shared_pod("frac-a", t.ns, fraction="0.5", scheduler="e2e-nobody"),
        shared_pod("frac-b", t.ns, fraction="0.5", scheduler="e2e-nobody"),
        pod("whole", t.ns, scheduler="e2e-nobody"))}

    def request(name, groups=None):
        t.c.create(bindrequest(name, t.ns, "n1", made[name]["metadata"]["uid"], groups=groups,
                               resource_type="Fraction" if groups else "Regular"))

    def bound(name):
        return t.pods()[name]["spec"].get("nodeName") == "n1"
    request("frac-a", [group])
    b = binder(t)
    wait_for("frac-a bound", lambda: bound("frac-a"), timeout=30)
    check(resv in reservation_pods(t), "no reservation pod %s: %s" % (resv, sorted(reservation_pods(t))))
    request("frac-b", [group])
    wait_for("frac-b bound", lambda: bound("frac-b"), timeout=30)
    pods = t.pods()
    for name in ("frac-a", "frac-b"):
        check(group_labels(pods[name]) == {"runai-gpu-group": group}, "%s: %s" % (name, pods[name]["metadata"]))
    uid = reservation_pods(t)[resv]["metadata"]["uid"]
    # frac-a goes; a later pod's bind shows the binder has seen that, then a sync after it keeps the GPU
    t.c.delete("Pod", "frac-a", t.ns, grace=0)
    wait_for("frac-a gone", lambda: "frac-a" not in t.pods())
    request("whole")
    wait_for("whole bound", lambda: bound("whole"), timeout=30)
    syncs = sample(scrape(b), "kai_reservation_syncs_total")
    wait_for("a sync after it", lambda: sample(scrape(b), "kai_reservation_syncs_total") > syncs, timeout=10)
    left = reservation_pods(t).get(resv)
    check(left and left["metadata"]["uid"] == uid and not left["metadata"].get("deletionTimestamp"),
          "the reservation pod went while frac-b still shares the GPU: %s" % left)
    # the last fractional pod of the group goes: so does the reservation pod
    t.c.delete("Pod", "frac-b", t.ns, grace=0)
    wait_for("the reservation pod deleted by the binder", lambda: resv not in reservation_pods(t), timeout=15)
    evs = t.requests()
    gone = [i for i in by_uri(evs, "delete", "/namespaces/%s/pods/%s" % (RESV_NS, resv))]
    check(len(gone) == 1, "deletes of %s by Gantry: %s" % (resv, gone))
    check(sample(scrape(b), "kai_reservation_pods_deleted_total") >= 1, "not counted")
    out = b.output()
    check("GPU group %s has no fractional pod left: deleting its reservation pod %s/%s" % (group, RESV_NS, resv)
          in out, out[-2000:])
    b.stop()
    no_403(t)


def test_bindrequest_mode_in_process_cleanup(t):
    """`gantry scheduler --bind-requests --binder`: Gantry's scheduler writes the fractional pod's
    BindRequest, the binder in its process makes the reservation pod and binds; when the pod goes,
    that binder deletes the reservation pod, once (the plan leaves it alone in BindRequest mode)."""
    t.setup()
    t.create(node("n1", gpus=4), queue("e2e-share-q"))
    t.create(shared_pod("frac", t.ns, fraction="0.5", cm="frac-q1w2e3r-shared-gpu"))
    s = t.scheduler("--bind-requests", "--binder")
    wait_for("frac bound", lambda: t.bound().get("frac") == "n1", timeout=30)
    group = group_labels(t.pods()["frac"]).get("runai-gpu-group")
    resv = resv_name("n1", group)
    check(resv in reservation_pods(t), "no reservation pod %s: %s" % (resv, sorted(reservation_pods(t))))
    br = t.c.get("BindRequest", "frac", t.ns)
    check(br["spec"].get("selectedGPUGroups") == [group], "BindRequest %s" % br["spec"])
    t.c.delete("Pod", "frac", t.ns, grace=0)
    wait_for("the reservation pod deleted", lambda: resv not in reservation_pods(t), timeout=15)
    out = s.output()
    s.stop()
    check("component=binder msg=\"GPU group %s has no fractional pod left" % group in out, out[-2000:])
    evs = t.requests()
    gone = by_uri(evs, "delete", "/namespaces/%s/pods/%s" % (RESV_NS, resv))
    check(len(gone) == 1, "deletes of %s: %s" % (resv, gone))
    no_403(t)


TESTS = [test_shared_gpu_reservation, test_reservation_timeout, test_reservation_gc, test_bindrequests,
         test_node_pools, test_node_pool_flag, test_bindrequest_mode, test_bindrequest_retries,
         test_binder_reservation_cleanup, test_bindrequest_mode_in_process_cleanup]
