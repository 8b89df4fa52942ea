"""End-to-end tests of the install and the scheduler against the real control plane."""

import glob
import json
import os
import signal
import subprocess
import time
import urllib.request

import yaml

import e2e
from e2e import ROOT, Fail, Gantry, check, condition, no_403, node, pod, pod_spec, podgroup, queue, wait_for  # noqa: F401


# ---------------------------------------------------------------- tests: install

def test_crds_and_manifests(t):
    """Gantry's CRDs become Established; every manifest in deploy/ and examples/ applies with
    server-side strict field validation (third-party kinds get an open-schema CRD first)."""
    e2e.CLUSTER.install()
    for crd in ("queues.scheduling.run.ai", "podgroups.scheduling.run.ai", "bindrequests.scheduling.run.ai",
                "topologies.kai.scheduler", "schedulingshards.kai.scheduler"):
        obj = t.c.get("CustomResourceDefinition", crd)
        est = [c for c in obj["status"]["conditions"] if c["type"] == "Established"]
        check(est and est[0]["status"] == "True", "%s not Established: %s" % (crd, obj["status"]))
    files = sorted(glob.glob(os.path.join(ROOT, "examples", "*.yaml")) +
                   glob.glob(os.path.join(ROOT, "examples", "workloads", "*.yaml")))
    docs = []
    for f in files:
        with open(f) as fh:
            docs += [(f, d) for d in yaml.safe_load_all(fh) if d]
    e2e.CLUSTER.third_party_crds([d for _, d in docs])
    namespaces = sorted({d["metadata"].get("namespace") for _, d in docs if d["metadata"].get("namespace")})
    for ns in namespaces:
        if not t.c.get_or_none("Namespace", ns):
            t.c.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    for ns in namespaces:
        wait_for("ServiceAccount default in " + ns, lambda: t.c.get_or_none("ServiceAccount", "default", ns))
    refused = []
    for f in files + [os.path.join(ROOT, "deploy", x) for x in ("rbac.yaml", "defaults.yaml", "gantry.yaml")]:
        out = e2e.CLUSTER.kubectl("apply", "--validate=strict", "--dry-run=server", "-f", f, check_rc=False)
        if out.returncode != 0:
            refused.append("%s:\n%s" % (os.path.relpath(f, ROOT), out.stderr[-1500:]))
    check(not refused, "%d manifests do not apply with strict validation:\n%s" % (len(refused), "\n".join(refused)))
    # strict validation is on: a misspelt field is refused, so the passes above mean something
    bad = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "typo"},
           "spec": {"resources": {"gpu": {"quota": 1, "quotta": 2}}}}
    out = e2e.CLUSTER.kubectl("apply", "--validate=strict", "--dry-run=server", "-f", "-", stdin=json.dumps(bad),
                          check_rc=False)
    check(out.returncode != 0 and "quotta" in out.stderr, "a misspelt Queue field was accepted: %s" % out.stderr)


def test_helm_chart(t):
    """helm lint and helm template on deploy/helm/gantry with default, non-default and KAI v0.17
    values; the rendered objects pass the real server's dry run; then a real install, upgrade and
    uninstall with a KAI values file, the scheduler's Deployment as rendered."""
    chart = os.path.join(ROOT, "deploy", "helm", "gantry")
    kai_values = os.path.join(ROOT, "tests", "data", "kai-values-v017.yaml")
    e2e.CLUSTER.install()
    out = e2e.CLUSTER.helm("version", "--short")
    check(out.stdout.strip().startswith("v4."), "helm version: %s" % out.stdout)
    e2e.CLUSTER.helm("lint", chart, "--strict")
    variants = {
        "default": [],
        "custom": ["--set", "replicas=1", "--set", "podgrouper.enabled=false", "--set", "logLevel=debug",
                   "--set", "image.tag=test"],
        "kai-v0.17": ["-f", kai_values],
    }
    for name, extra in variants.items():
        out = e2e.CLUSTER.helm("template", "gantry", chart, "-n", "kai-scheduler", "--kube-version", "1.37.2", *extra,
                               check_rc=False)
        check(out.returncode == 0, "helm template (%s values) failed:\n%s" % (name, out.stderr[-2000:]))
        docs = [d for d in yaml.safe_load_all(out.stdout) if d]
        check(len(docs) >= 5, "helm template (%s) rendered %d objects" % (name, len(docs)))
        dep = [d for d in docs if d["kind"] == "Deployment"]
        check(dep, "no Deployment rendered with %s values" % name)
        args = dep[0]["spec"]["template"]["spec"]["containers"][0]["args"]
        if name == "custom":
            check(dep[0]["spec"]["replicas"] == 1 and "--log-level=debug" in args and
                  "--require-podgroup" in " ".join(args), "custom values not rendered: %s %s"
                  % (dep[0]["spec"]["replicas"], args))
        path = os.path.join(t.tmp, "rendered-%s.yaml" % name)
        with open(path, "w") as f:
            f.write(out.stdout)
        # a dry run cannot create a namespace and then objects in it: the namespaces first
        for d in docs:
            if d["kind"] == "Namespace" and not t.c.get_or_none("Namespace", d["metadata"]["name"]):
                t.c.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": d["metadata"]["name"]}})
        res = e2e.CLUSTER.kubectl("apply", "--validate=strict", "--dry-run=server", "-f", path, check_rc=False)
        check(res.returncode == 0, "the chart rendered with %s values is refused by the server:\n%s"
              % (name, res.stderr[-2000:]))
    # for real: the release installs beside what deploy/ already made, as docs/deploy.md's switch
    # from KAI installs beside KAI's release (the default objects left to their owner), upgrades, goes
    keep = "createPriorityClasses=false,createDefaultQueues=false,createSchedulingShard=false"
    e2e.CLUSTER.helm("install", "gantry-e2e", chart, "-n", "gantry-e2e", "--create-namespace", "-f", kai_values,
                     "--set", "replicas=1", "--set", keep, "--wait=false")
    dep = wait_for("the release's Deployment", lambda: [d for d in t.c.list("Deployment", "gantry-e2e")])
    check(dep[0]["spec"]["template"]["spec"]["serviceAccountName"], "no ServiceAccount on %s" % dep[0]["metadata"]["name"])
    e2e.CLUSTER.helm("upgrade", "gantry-e2e", chart, "-n", "gantry-e2e", "-f", kai_values, "--set", "replicas=2",
                     "--set", keep, "--wait=false")
    wait_for("the upgrade's replicas", lambda: t.c.get("Deployment", dep[0]["metadata"]["name"], "gantry-e2e")
             ["spec"]["replicas"] == 2)
    e2e.CLUSTER.helm("uninstall", "gantry-e2e", "-n", "gantry-e2e", "--wait=false")
    wait_for("the release's Deployment gone", lambda: not t.c.list("Deployment", "gantry-e2e"))
    t.c.delete("Namespace", "gantry-e2e")


# ---------------------------------------------------------------- tests: scheduling

def test_gang_of_8_bound_whole(t):
    """A gang of 8 is bound whole; a gang that cannot fit stays whole Pending, with the PodGroup
    condition and each pod's PodScheduled=False, Unschedulable."""
    t.setup()
    t.create(node("n1"), node("n2"), queue("e2e-gang-q"))
    t.create(podgroup("train", t.ns, "e2e-gang-q", 8), podgroup("huge", t.ns, "e2e-gang-q", 3))
    t.create(*[pod("train-%d" % i, t.ns, gpus=2, pg="train") for i in range(8)])
    t.create(*[pod("huge-%d" % i, t.ns, gpus=8, pg="huge") for i in range(3)])
    s = t.scheduler()
    wait_for("the gang of 8 bound", lambda: len([n for n in t.bound() if n.startswith("train-")]) == 8)
    pg = wait_for("the big gang's condition", lambda: (lambda p: p if (p.get("status") or {}).get(
        "schedulingConditions") else None)(t.c.get("PodGroup", "huge", t.ns)))
    time.sleep(1)
    b = t.bound()
    check(not [n for n in b if n.startswith("huge-")], "part of the big gang was bound: %s" % b)
    check(sorted(b.values()) == ["n1"] * 4 + ["n2"] * 4, "the gang's placement: %s" % b)
    cond = pg["status"]["schedulingConditions"][0]
    check(cond["type"] == "UnschedulableOnNodePool", "PodGroup condition %s" % cond)
    for i in range(3):
        p = t.c.get("Pod", "huge-%d" % i, t.ns)
        pc = condition(p, "PodScheduled")
        check(pc and pc["status"] == "False" and pc["reason"] == "Unschedulable", "huge-%d: %s" % (i, pc))
    running = wait_for("the gang Running", lambda: all(p["status"].get("phase") == "Running"
                                                      for n, p in t.pods().items() if n.startswith("train-")))
    check(running, "not running")
    reasons = {e["reason"] for e in t.events()}
    check({"Scheduled", "Unschedulable"} <= reasons, "events: %s" % reasons)
    s.stop()
    no_403(t)


def test_job_and_deployment(t):
    """A Job and a Deployment created through the API: the controllers create the pods, the
    podgrouper groups them, the scheduler binds them, the kubelet runs them, the Job completes."""
    t.setup()
    t.create(node("n1", gpus=4), queue("e2e-jobs-q"))
    tmpl = {"metadata": {"labels": {"kai.scheduler/queue": "e2e-jobs-q", "app": "work"},
                         "annotations": {"e2e.gantry.test/run-seconds": "1"}},
            "spec": pod_spec(gpus=1)}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train", "namespace": t.ns},
           "spec": {"parallelism": 2, "completions": 2, "backoffLimit": 0, "template": tmpl}}
    dtmpl = json.loads(json.dumps(tmpl))
    dtmpl["metadata"]["annotations"] = {}
    dtmpl["metadata"]["labels"]["app"] = "serve"
    dtmpl["spec"]["restartPolicy"] = "Always"
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "serve", "namespace": t.ns},
           "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "serve"}}, "template": dtmpl}}
    t.create(job, dep)
    s = t.scheduler("--podgrouper")
    done = wait_for("the Job complete", lambda: (lambda j: j if condition(j, "Complete") and
                                                 condition(j, "Complete")["status"] == "True" else None)(
        t.c.get("Job", "train", t.ns)), timeout=60)
    check(done["status"].get("succeeded") == 2, "Job status %s" % done["status"])
    wait_for("the Deployment available", lambda: (t.c.get("Deployment", "serve", t.ns)["status"]
                                                  .get("availableReplicas") == 2), timeout=60)
    pgs = t.c.list("PodGroup", t.ns)
    owners = sorted({(r["kind"], r["name"]) for pg in pgs for r in pg["metadata"].get("ownerReferences", [])})
    # KAI groups a Job as one PodGroup and a Deployment's pods one PodGroup each (owned by the pod)
    check(("Job", "train") in owners, "no PodGroup owned by the Job: %s" % owners)
    serve = sorted(n for n in t.pods() if n.startswith("serve-"))
    check(sorted(n for k, n in owners if k == "Pod") == serve, "Deployment pods' PodGroups: %s" % owners)
    for p in t.pods().values():
        check(p["metadata"].get("annotations", {}).get("pod-group-name"),
              "%s has no pod-group-name" % p["metadata"]["name"])
        check(p["spec"].get("nodeName") == "n1", "%s not bound: %s" % (p["metadata"]["name"], p["spec"].get("nodeName")))
    s.stop()
    no_403(t)


def test_reclaim_through_pdb(t):
    """Reclaim evicts through the Eviction API; the disruption controller's PDB refuses the second
    eviction (429), Gantry retries in later cycles and evicts no more than it needs."""
    t.setup()
    t.create(node("n1", gpus=4), queue("e2e-borrow", gpu_quota=0), queue("e2e-owner", gpu_quota=4))
    t.create(*[pod("a-%d" % i, t.ns, gpus=1, q="e2e-borrow", labels={"app": "a"},
                   annotations={"e2e.gantry.test/terminate-seconds": "0.5"}) for i in range(4)])
    s = t.scheduler("--actions", "allocate")
    wait_for("the borrowers running", lambda: len([p for p in t.pods().values()
                                                   if p["status"].get("phase") == "Running"]) == 4)
    s.stop()
    t.create({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "a", "namespace": t.ns},
              "spec": {"minAvailable": 3, "selector": {"matchLabels": {"app": "a"}}}})
    wait_for("the disruption controller to allow 1", lambda: (t.c.get("PodDisruptionBudget", "a", t.ns).get("status")
                                                             or {}).get("disruptionsAllowed") == 1)
    t.create(pod("b-0", t.ns, gpus=2, q="e2e-owner"))
    s = t.scheduler("--actions", "allocate,reclaim")
    wait_for("one borrower evicted", lambda: len([n for n in t.pods() if n.startswith("a-")]) == 3, timeout=30)
    wait_for("the PDB's refusal logged", lambda: "refused for now" in s.output(), timeout=20)
    time.sleep(1.5)
    left = [n for n in t.pods() if n.startswith("a-")]
    check(len(left) == 3, "the PDB was not honoured: borrowers left %s" % left)
    check("b-0" not in t.bound(), "b-0 bound with only one GPU freed")
    t.c.patch("PodDisruptionBudget", "a", {"spec": {"minAvailable": 2}}, namespace=t.ns)
    wait_for("b-0 bound once the PDB allows", lambda: "b-0" in t.bound(), timeout=30)
    time.sleep(1)
    left = [n for n in t.pods() if n.startswith("a-")]
    check(len(left) == 2, "evicted more than needed: borrowers left %s" % left)
    ev = [e for e in t.events() if e["reason"] == "Evict"]
    check(len(ev) == 2 and "was preempted by workload" in ev[0]["message"] or "reclaim" in ev[0]["message"].lower(),
          "Evict events: %s" % [e["message"] for e in ev])
    s.stop()
    no_403(t)


def test_leader_election(t):
    """Two schedulers with --leader-elect: one Lease holder binds; killed, the other takes over,
    and no pod is bound twice."""
    t.setup()
    t.create(node("n1", gpus=8), queue("e2e-le-q"))
    flags = ["--leader-elect", "--leader-elect-lease-duration", "3s", "--leader-elect-renew-deadline", "2s",
             "--leader-elect-retry-period", "300ms"]
    a = t.scheduler(*flags, name="a")
    b = t.scheduler(*flags, name="b")
    lease_name = "gantry-" + t.ns

    def holder():
        lease = t.c.get_or_none("Lease", lease_name, "kai-scheduler")
        return lease and lease["spec"].get("holderIdentity")
    first = wait_for("a Lease holder", holder, timeout=30)
    t.create(pod("p1", t.ns, gpus=1, q="e2e-le-q"))
    # bound and announced: the event is written after the bind, and a SIGKILL would lose it
    wait_for("p1 bound and announced", lambda: any(e["reason"] == "Scheduled" for e in t.events()))
    leader, standby = (a, b) if first in a.output() else (b, a)
    check("became the leader" in leader.output() and "became the leader" not in standby.output(),
          "leadership logs:\nA: %s\nB: %s" % (a.output()[-800:], b.output()[-800:]))
    leader.stop(signal.SIGKILL, expect=None)
    t.create(pod("p2", t.ns, gpus=1, q="e2e-le-q"))
    t0 = time.time()
    wait_for("p2 bound by the standby", lambda: "p2" in t.bound(), timeout=30)
    check(holder() != first, "the Lease still names the dead leader")
    check("became the leader" in standby.output(), "the standby never led")
    # the events are written after the bind: wait for p2's, then count them all
    scheduled = wait_for("p2's Scheduled event", lambda: (lambda s: s if any(
        e["involvedObject"]["name"] == "p2" for e in s) else None)(
        [e for e in t.events() if e["reason"] == "Scheduled"]), timeout=30)
    per_pod = {}
    for e in scheduled:
        per_pod[e["involvedObject"]["name"]] = per_pod.get(e["involvedObject"]["name"], 0) + 1
    check(per_pod == {"p1": 1, "p2": 1}, "Scheduled events per pod: %s" % per_pod)
    check("already assigned" not in standby.output() + leader.output(), "a pod was bound twice")
    standby.stop()
    check(holder() == "", "the Lease was not released on SIGTERM: %r" % holder())
    check(time.time() - t0 < 20, "failover took %.1f s" % (time.time() - t0))
    no_403(t)


def test_owner_deletion_gc(t):
    """Deleting a Job: the garbage collector removes its pods and the PodGroup Gantry made for it."""
    t.setup()
    t.create(node("n1", gpus=4), queue("e2e-gc-q"))
    tmpl = {"metadata": {"labels": {"kai.scheduler/queue": "e2e-gc-q"}}, "spec": pod_spec(gpus=1)}
    t.create({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "long", "namespace": t.ns},
              "spec": {"parallelism": 2, "completions": 2, "template": tmpl}})
    s = t.scheduler("--podgrouper")
    wait_for("the Job's pods bound", lambda: len(t.bound()) == 2, timeout=30)
    pgs = wait_for("the Job's PodGroup", lambda: t.c.list("PodGroup", t.ns))
    check(all(r["kind"] == "Job" for pg in pgs for r in pg["metadata"].get("ownerReferences", [])),
          "PodGroup owners: %s" % [pg["metadata"].get("ownerReferences") for pg in pgs])
    t.c.delete("Job", "long", t.ns, propagation="Background")
    wait_for("the pods gone", lambda: not t.pods(), timeout=60)
    wait_for("the PodGroups gone", lambda: not t.c.list("PodGroup", t.ns), timeout=60)
    s.stop()
    no_403(t)


def test_bad_object_skipped(t):
    """A pod with a gpu-fraction of 1.5 (the API server accepts any annotation) is logged with
    its name and field; the other pods are scheduled."""
    t.setup()
    t.create(node("n1", gpus=4), queue("e2e-bad-q"))
    t.create(pod("bad", t.ns, q="e2e-bad-q", fraction="1.5"), pod("good-0", t.ns, gpus=1, q="e2e-bad-q"),
             pod("good-1", t.ns, gpus=1, q="e2e-bad-q"))
    s = t.scheduler()
    wait_for("the good pods bound", lambda: len(t.bound()) == 2)
    time.sleep(0.5)
    out = s.output()
    check("bad" not in t.bound(), "the bad pod was bound")
    lines = [ln for ln in out.splitlines() if "%s/bad" % t.ns in ln and "gpu-fraction" in ln]
    check(lines, "no log line names the bad pod and its field:\n" + out[-2000:])
    s.stop()
    no_403(t)


def test_metrics_and_health(t):
    """/healthz, /readyz and /metrics on a real cluster."""
    t.setup()
    t.create(node("n1", gpus=4), queue("e2e-metrics-q", gpu_quota=2))
    t.create(pod("p", t.ns, gpus=1, q="e2e-metrics-q"))
    s = t.scheduler()
    wait_for("p bound", lambda: "p" in t.bound())
    port = wait_for("the metrics port", s.port)
    base = "http://127.0.0.1:%d" % port
    check(urllib.request.urlopen(base + "/healthz", timeout=5).status == 200, "healthz")
    check(urllib.request.urlopen(base + "/readyz", timeout=5).status == 200, "readyz")
    time.sleep(0.5)
    m = urllib.request.urlopen(base + "/metrics", timeout=5).read().decode()
    for want in ('kai_pods_bound_total 1', 'kai_queue_deserved_gpu{queue_name="e2e-metrics-q"} 2',
                 'kai_queue_allocated_gpu{queue_name="e2e-metrics-q"} 1', 'kai_api_requests_total{verb="list",code="2xx"}'):
        check(want in m, "metrics lack %s" % want)
    s.stop()
    no_403(t)


def test_same_as_simulate(t):
    """The scheduler on the real server places a mixed workload exactly as `gantry simulate` places
    the same objects read back from the server (after the podgrouper has grouped the pods, so
    both see the same PodGroups)."""
    t.setup()
    objs = [node("gpu-a", gpus=8, cpu="64"), node("gpu-b", gpus=8, cpu="64"), node("gpu-c", gpus=4, cpu="32"),
            queue("e2e-research", gpu_quota=8), queue("e2e-prod", gpu_quota=8, priority=200),
            podgroup("dist", t.ns, "e2e-research", 4, prio="train"),
            podgroup("serve", t.ns, "e2e-prod", 2, prio="inference")]
    objs += [pod("dist-%d" % i, t.ns, gpus=2, pg="dist") for i in range(4)]
    objs += [pod("serve-%d" % i, t.ns, gpus=1, pg="serve") for i in range(2)]
    objs += [pod("nb-%d" % i, t.ns, q="e2e-research", fraction=f) for i, f in enumerate(["0.5", "0.25", "0.5"])]
    objs += [pod("too-big", t.ns, gpus=16, q="e2e-prod")]
    t.create(*objs)
    kc = t.sa_kubeconfig()
    g = Gantry(t, "podgrouper", kc, "--namespace", "kai-scheduler")
    wait_for("every pod grouped", lambda: all((p["metadata"].get("annotations") or {}).get("pod-group-name")
                                              for p in t.pods().values()))
    g.stop()
    items = e2e.read_back(t.c, [("v1", "Node"), ("scheduling.run.ai/v2", "Queue"),
                                ("scheduling.run.ai/v2alpha2", "PodGroup"), ("v1", "Pod"),
                                ("scheduling.k8s.io/v1", "PriorityClass"), ("kai.scheduler/v1", "SchedulingShard")],
                          [t.ns])
    want = {p["name"]: p["node"] for p in e2e.simulate(t, items)["pods"] if p["status"] == "Binding"}
    check(len(want) >= 8, "simulate bound only %s" % want)
    s = t.scheduler("--cycles", "1", "--gpu-sharing-reservation", "false", kc=kc)
    rc = s.proc.wait(60)
    check(rc == 0, "scheduler exited %d:\n%s" % (rc, s.output()[-2000:]))
    got = t.bound()
    check(got == want, "placements differ:\n scheduler %s\n simulate  %s" % (got, want))
    no_403(t)


def test_tls_untrusted_ca(t):
    """The real server's certificate is verified: a kubeconfig with another CA connects to nothing."""
    t.setup()
    t.create(node("n1", gpus=4), queue("e2e-tls-q"), pod("p", t.ns, gpus=1, q="e2e-tls-q"))
    other = os.path.join(t.tmp, "other-ca.crt")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=other",
                    "-keyout", os.path.join(t.tmp, "other-ca.key"), "-out", other], check=True,
                   capture_output=True)
    s = t.scheduler(kc=e2e.CLUSTER.kubeconfig(os.path.join(t.tmp, "untrusted"), ca=other))
    wait_for("a TLS error", lambda: any(w in s.output().lower() for w in ("certificate", "ssl")), timeout=20)
    check("p" not in t.bound(), "bound through an untrusted server")
    s.stop(expect=None)
    s2 = t.scheduler(kc=e2e.CLUSTER.kubeconfig(os.path.join(t.tmp, "admin"), admin=True))
    wait_for("p bound with the admin client certificate", lambda: "p" in t.bound())
    s2.stop()


TESTS = [test_crds_and_manifests, test_helm_chart, test_gang_of_8_bound_whole, test_job_and_deployment,
         test_reclaim_through_pdb, test_leader_election, test_owner_deletion_gc, test_bad_object_skipped,
         test_metrics_and_health, test_same_as_simulate, test_tls_untrusted_ca]
