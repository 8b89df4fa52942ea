"""End-to-end tests of `gantry podgrouper` against the real control plane: tests/kube/run-podgrouper-tests
again where the scenario needs no injected fault (a 500 on an owner read, a watch cut, stay with
the double), and what only a real server shows: Jobs and JobSets whose pods the real controllers
make (JobSet's through a minimal controller of ours, jobset_controller.py), PodGroups edited by
hand and then updated, a Deployment scaled, Kartas, RBAC (owner watches, and reads by name where
the ServiceAccount may not list).

Workloads are made as their operators leave them (e2e.Workloads: owners first, each object with
the uid the server gave its owner); the built-in kinds are made by the real controllers.
"""

import json
import os
import re
import time
import urllib.request

import e2e
from e2e import (Fail, Gantry, Workloads, annotations, check, example, example_cluster, key, labels, no_403,
                 read_back, simulate, wait_for)
from jobset_controller import JobSetController


# ---------------------------------------------------------------- helpers

def split(objs):
    """(the non-pods, the pods)"""
    return [o for o in objs if o["kind"] != "Pod"], [o for o in objs if o["kind"] == "Pod"]


def podgrouper(t, *flags):
    return Gantry(t, "podgrouper", t.sa_kubeconfig(), "--qps", "0", "--metrics-bind-address", "127.0.0.1:0",
                  "--health-probe-bind-address", "127.0.0.1:0", *flags)


def metric(proc, name):
    """The value of series @name (labels as written) on @proc's /metrics, or None."""
    port = wait_for("the metrics port", proc.port)
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[-1])
    return None


def podgroups(t, *namespaces):
    return {"%s/%s" % (ns, p["metadata"]["name"]): p for ns in namespaces or [t.ns] for p in t.c.list("PodGroup", ns)}


def group_of(pod):
    return annotations(pod).get("pod-group-name")


def all_grouped(t, ns, names):
    """Wait-for predicate: the pods of @ns, once every one of @names carries pod-group-name."""
    def f():
        ps = t.pods(ns)
        return ps if all(n in ps and group_of(ps[n]) for n in names) else None
    return f


def warnings(t, ns):
    return [e for e in t.events(ns) if e["reason"] == "PodGrouperWarning"]


def subgroups(pg):
    return {s["name"]: s["minMember"] for s in pg["spec"].get("subGroups") or []}


def owner_of(obj):
    refs = obj["metadata"].get("ownerReferences") or []
    return (refs[0]["kind"], refs[0]["name"], refs[0].get("uid")) if refs else None


def run_cycles(t, proc, timeout=30):
    """The exit of a `--cycles N` run; its log."""
    try:
        rc = proc.proc.wait(timeout)
    except Exception:
        proc.proc.kill()
        proc.proc.wait()
        raise Fail("%s did not finish its cycles:\n%s" % (os.path.basename(proc.errpath), proc.output()[-3000:]))
    out = proc.output()
    check(rc == 0, "%s exited %d:\n%s" % (os.path.basename(proc.errpath), rc, out[-3000:]))
    return out


def gets(t, resource, name=None, ns=None):
    """GETs of one object (or of every object of @resource) by Gantry's ServiceAccount since the test began."""
    return [ev for ev in t.requests() if ev["verb"] == "get" and (ev.get("objectRef") or {}).get("resource") == resource
            and (name is None or ev["objectRef"].get("name") == name)
            and (ns is None or ev["objectRef"].get("namespace") == ns)]


def writes(evs):
    """Requests that change something (an access review asks: it changes nothing)."""
    return [ev for ev in evs if ev["verb"] in ("create", "update", "patch", "delete", "deletecollection")
            and (ev.get("objectRef") or {}).get("resource") != "selfsubjectaccessreviews"]


def lists(t, resource):
    """LISTs of @resource by Gantry's ServiceAccount since the test began."""
    return [ev for ev in t.requests() if ev["verb"] == "list" and (ev.get("objectRef") or {}).get("resource") == resource]


def one_job():
    """11-pytorchjob: the job and its four pods."""
    job, job_pods = split(example("11-pytorchjob"))
    return job[0], job_pods


# ---------------------------------------------------------------- tests

def test_pytorchjob_gang(t):
    """A PyTorchJob of 1 master + 3 workers (8 GPUs each), its pods created one by one as the
    operator does, each owned by the job's real uid: one PodGroup, minMember 4, sub-groups
    master/worker, owned by the job; no pod is bound while the gang is incomplete, and then
    `gantry scheduler` binds all four in one cycle."""
    t.setup()
    example_cluster(t, nodes=4)
    ns = t.namespace("team-a")
    wl = Workloads(t, {"team-a": ns})
    job, job_pods = one_job()
    made = wl.create(job)[0]
    pg = podgrouper(t)
    for p in job_pods[:3]:
        wl.create(p)
    ps = wait_for("three pods grouped", all_grouped(t, ns, [p["metadata"]["name"] for p in job_pods[:3]]))
    pgs = podgroups(t, ns)
    check(len(pgs) == 1, "PodGroups %s" % sorted(pgs))
    group = list(pgs.values())[0]
    check(group["spec"]["minMember"] == 4, "minMember %s" % group["spec"])
    check(subgroups(group) == {"master": 1, "worker": 3}, "sub-groups %s" % group["spec"])
    check(group["spec"]["queue"] == "research", "queue %s" % group["spec"])
    check(owner_of(group) == ("PyTorchJob", "llm-pretrain", made["metadata"]["uid"]),
          "owner %s, the job's uid %s" % (group["metadata"].get("ownerReferences"), made["metadata"]["uid"]))
    check(labels(ps["llm-pretrain-master-0"]).get("kai.scheduler/subgroup-name") == "master",
          "the master's sub-group label: %s" % labels(ps["llm-pretrain-master-0"]))
    check(labels(ps["llm-pretrain-worker-0"]).get("kai.scheduler/subgroup-name") == "worker",
          "a worker's sub-group label: %s" % labels(ps["llm-pretrain-worker-0"]))
    # three of four: the gang waits
    run_cycles(t, t.scheduler("--cycles", "3"))
    check(not t.bound(ns), "part of the gang was bound: %s" % t.bound(ns))
    wl.create(job_pods[3])
    ps = wait_for("the fourth pod grouped", all_grouped(t, ns, [p["metadata"]["name"] for p in job_pods]))
    check(len(podgroups(t, ns)) == 1 and group_of(ps["llm-pretrain-worker-2"]) == group["metadata"]["name"],
          "the fourth pod went to %s" % group_of(ps["llm-pretrain-worker-2"]))
    out = run_cycles(t, t.scheduler("--cycles", "2"))
    b = t.bound(ns)
    check(len(b) == 4 and len(set(b.values())) == 4, "bound %s" % b)
    check("; 4 binds" in out, "the four were not bound in one cycle:\n" + out[-2000:])
    scheduled = [e["involvedObject"]["name"] for e in t.events(ns) if e["reason"] == "Scheduled"]
    check(sorted(scheduled) == sorted(b), "Scheduled events %s" % scheduled)
    check(not warnings(t, ns), "warnings %s" % [e["message"] for e in warnings(t, ns)])
    pg.stop()
    no_403(t)


def pod_owned_by(pods, kind, name):
    """The names of the pods whose controller is @kind @name (the ones a controller made have names of its own)."""
    return sorted(n for n, p in pods.items() if e2e.controller_of(p) == (kind, name))


def check_kinds(t, ns_map, pods, pgs):
    """The kinds issue 5 names, as KAI groups them (docs/podgrouper.md)."""
    def pod(example_ns, name):
        return pods["%s/%s" % (ns_map[example_ns], name)]

    def pg_of(p):
        return pgs["%s/%s" % (p["metadata"]["namespace"], group_of(p))]

    def sg_of(p):
        return labels(p).get("kai.scheduler/subgroup-name")

    def by_owner(example_ns, kind, name):
        ns = ns_map[example_ns]
        names = pod_owned_by({n.split("/")[1]: p for n, p in pods.items() if n.startswith(ns + "/")}, kind, name)
        check(names, "no pod of %s %s/%s" % (kind, ns, name))
        return [pod(example_ns, n) for n in names]
    ray = pg_of(pod("team-a", "tune-cluster-head-8xk2q"))
    check(ray["spec"]["minMember"] == 4 and subgroups(ray) == {"headgroup": 1, "cpu-workers": 2, "gpu-workers": 1},
          "RayCluster %s" % ray["spec"])
    check(sg_of(pod("team-a", "tune-cluster-gpu-workers-worker-k5v8d")) == "gpu-workers", "Ray worker's sub-group")
    # the MPIJob's launcher is a batch Job's pod, made by the job controller
    launcher = by_owner("team-a", "Job", "allreduce-bench-launcher")
    mpi = pg_of(launcher[0])
    check(mpi["spec"]["minMember"] == 3 and pg_of(pod("team-a", "allreduce-bench-worker-1")) is mpi,
          "MPIJob with its launcher: %s" % mpi["spec"])
    coord = pg_of(by_owner("team-a", "Job", "maxtext-run-coordinator-0")[0])
    workers = pg_of(by_owner("team-a", "Job", "maxtext-run-workers-1")[0])
    # KAI v0.16+: one PodGroup for the JobSet, a sub-group per replicated job, a leaf per replica;
    # InOrder needs only its first replicated job (minSubGroup 1)
    check(coord is workers and coord["spec"].get("minSubGroup") == 1 and "minMember" not in coord["spec"]
          and {s["name"] for s in coord["spec"]["subGroups"]} >= {"coordinator", "workers", "workers-replica-1"},
          "JobSet (one PodGroup, InOrder: minSubGroup 1): %s / %s" % (coord["spec"], workers["spec"]))
    steps = ["eval-suite-b7k2n-download-1843762509", "eval-suite-b7k2n-eval-2957318846",
             "eval-suite-b7k2n-report-3106247715"]
    argo = [pg_of(pod("data", s)) for s in steps]
    check(len({id(a) for a in argo}) == 3 and all(a["spec"]["minMember"] == 1 and owner_of(a)[0] == "Pod" for a in argo),
          "Argo steps %s" % [(a["metadata"]["name"], owner_of(a)) for a in argo])
    # a TrainJob's JobSet's Job: its two pods are one leaf of the JobSet's PodGroup
    sft = {id(pg_of(p)): pg_of(p) for p in by_owner("team-a", "Job", "llama-sft-node-0")}
    leaves = [sg for g in sft.values() for sg in g["spec"].get("subGroups") or [] if sg.get("minMember")]
    check(len(sft) == 1 and [sg["minMember"] for sg in leaves] == [2],
          "TrainJob (its JobSet's PodGroup, a leaf of 2): %s" % [g["spec"] for g in sft.values()])


# the examples whose workload kinds have a controller in kube-controller-manager: the real
# controllers stand for them (test_scheduler's job_and_deployment, owner_reads_bounded,
# scheduler_runs_podgrouper)
BUILTIN_EXAMPLES = ("03-deployment", "04-deployment-gang", "05-replicaset", "06-statefulset-gang", "07-job",
                    "08-cronjob",
                    # a LeaderWorkerSet's pods get their group-index label from LWS's own admission
                    # webhook, which is not here: the real StatefulSet controller would make every
                    # leader pod with the template's labels. Checked on the double and by simulate.
                    "24-leaderworkerset")
CLUSTER_KINDS = [("v1", "Node"), ("scheduling.run.ai/v2", "Queue"), ("scheduling.k8s.io/v1", "PriorityClass"),
                 ("kai.scheduler/v1alpha1", "Topology"), ("kai.scheduler/v1", "SchedulingShard")]


def test_examples_as_kai_groups_them(t):
    """Every third-party workload of examples/workloads made on the server (open-schema CRDs; the
    Deployments, StatefulSets and Jobs inside them made by the real controllers): a RayCluster with
    two worker groups, an MPIJob with its launcher Job, a JobSet, an LWS of 2 replica groups, an
    Argo workflow of three steps, a TrainJob, and all the others, grouped exactly as `gantry
    simulate` groups the same objects read back from the server; then `gantry scheduler` binds as
    many as simulate does."""
    names = sorted(os.path.basename(p)[:-5] for p in os.listdir(e2e.EXAMPLES) if p.endswith(".yaml"))
    names = [n for n in names if n != "00-cluster" and n not in BUILTIN_EXAMPLES]
    objs = example(*names)
    t.setup()
    ns_map = {ns: t.namespace(ns) for ns in sorted({o["metadata"].get("namespace") for o in objs} - {None})}
    example_cluster(t)
    wl = Workloads(t, ns_map)
    wl.create(*objs)
    wl.settle()
    namespaces = list(ns_map.values())
    kinds = sorted({(o["apiVersion"], o["kind"]) for o in objs} | {("v1", "Pod"), ("apps/v1", "ReplicaSet")})
    items = read_back(t.c, kinds + CLUSTER_KINDS, namespaces)
    sim = simulate(t, items)
    want = {"%s/%s" % (p["namespace"], p["name"]): p["podGroup"] for p in sim["pods"]}
    want_queue = {"%s/%s" % (g["namespace"], g["name"]): g["queue"] for g in sim["podGroups"]}
    want_bound = sum(p["status"] == "Binding" for p in sim["pods"])
    ours = ["%s/%s" % (o["metadata"]["namespace"], o["metadata"]["name"]) for o in items
            if o["kind"] == "Pod" and o["spec"].get("schedulerName") == "kai-scheduler"]
    check(len(ours) >= 50, "only %d pods of kai-scheduler" % len(ours))
    pg = podgrouper(t)

    def grouped():
        ps = {key(p): p for ns in namespaces for p in t.c.list("Pod", ns)}
        return ps if all(k in ps and group_of(ps[k]) for k in ours) else None
    pods = wait_for("every pod grouped", grouped, timeout=20)
    got = {k: group_of(pods[k]) for k in ours}
    diff = {k: (want.get(k), got[k]) for k in ours if want.get(k) != got[k]}
    check(not diff, "grouped unlike simulate (simulate, podgrouper): %s" % diff)
    pgs = podgroups(t, *namespaces)
    queues = {k: p["spec"].get("queue") for k, p in pgs.items()}
    check(queues == want_queue, "queues differ from simulate: %s" %
          {k: (want_queue.get(k), queues.get(k)) for k in set(queues) | set(want_queue)
           if queues.get(k) != want_queue.get(k)})
    check_kinds(t, ns_map, pods, pgs)
    warn = [e["message"] for ns in namespaces for e in warnings(t, ns)]
    check(not warn, "warnings %s" % warn)
    pg.stop()
    run_cycles(t, t.scheduler("--cycles", "2"))
    n = sum(len(t.bound(ns)) for ns in namespaces)
    check(n == want_bound, "the scheduler bound %d pods, simulate %d" % (n, want_bound))
    no_403(t)


def test_zero_replicas_warning(t):
    """A pod whose PyTorchJob has a Worker spec of 0 replicas gets one PodGrouperWarning naming the
    job and the field, and no PodGroup; the job fixed (a patch of the real object), the pod is
    grouped at a retry."""
    t.setup()
    ns = t.namespace("team-a")
    wl = Workloads(t, {"team-a": ns})
    job, job_pods = one_job()
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = 0
    wl.create(job, job_pods[0])
    pg = podgrouper(t, "--log-level", "debug")
    ev = wait_for("a PodGrouperWarning", lambda: warnings(t, ns))[0]
    check(ev["type"] == "Warning" and ev["involvedObject"]["name"] == "llm-pretrain-master-0", "event %s" % ev)
    check("PyTorchJob %s/llm-pretrain" % ns in ev["message"] and "0 replicas" in ev["message"] and
          "spec.pytorchReplicaSpecs.Worker.replicas" in ev["message"], "message: %s" % ev["message"])
    # retried (the backoff starts at 1 s) without a second warning
    wait_for("a retry", lambda: pg.output().count("spec.pytorchReplicaSpecs.Worker.replicas") >= 2, timeout=5)
    evs = warnings(t, ns)
    check(len(evs) == 1 and evs[0].get("count", 1) == 1,
          "the warning was repeated: %s" % [(e["metadata"]["name"], e.get("count")) for e in evs])
    check(not podgroups(t, ns) and not group_of(t.pods(ns)["llm-pretrain-master-0"]), "grouped despite the error")
    t.c.patch_any("kubeflow.org/v1", "PyTorchJob", "llm-pretrain",
                  {"spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 3}}}}, ns)     # the user fixes the job
    wait_for("the pod grouped after the fix", all_grouped(t, ns, ["llm-pretrain-master-0"]), timeout=12)
    group = list(podgroups(t, ns).values())[0]
    check(group["spec"]["minMember"] == 4, "minMember %s" % group["spec"])
    out = pg.output()
    pg.stop()
    warned = [ln for ln in out.splitlines() if "0 replicas" in ln and "level=warn" in ln]
    check(len(warned) == 1, "the warning was logged %d times:\n%s" % (len(warned), "\n".join(warned)))
    no_403(t)


def test_owner_reads_bounded(t):
    """A real Job of 80 pods (the job controller makes them) and a gang Deployment of 40 (Pod ->
    ReplicaSet -> Deployment, the real controllers) cost one LIST of each owner kind by Gantry's
    ServiceAccount (the API server's audit log; then a watch) and no read of any owner by name, not
    one per pod, with eight workers at it; 20 pods more (the Job's parallelism raised) cost none. A
    PodGroup deleted under its pods is made again."""
    t.setup()
    tmpl = {"metadata": {"labels": {"app": "sweep"}},
            "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
                     "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "100m"}}}]}}
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "sweep", "namespace": t.ns, "labels": {"kai.scheduler/queue": "data"}},
           "spec": {"parallelism": 80, "template": tmpl}}
    dep = [o for o in example("04-deployment-gang") if o["kind"] == "Deployment"][0]
    dep["metadata"].update(name="shards", namespace=t.ns)
    dep["metadata"].pop("uid")
    dep["spec"]["replicas"] = 40
    t.c.create(job)
    t.c.create(dep)
    wait_for("the controllers' 120 pods", lambda: len(t.pods()) == 120, timeout=30)
    pg = podgrouper(t, "--max-concurrent-reconciles", "8")
    wait_for("120 pods grouped", lambda: all(group_of(p) for p in t.pods().values()), timeout=20)
    t.c.patch("Job", "sweep", {"spec": {"parallelism": 100}}, namespace=t.ns)
    wait_for("140 pods, all grouped", lambda: (lambda ps: len(ps) == 140 and all(group_of(p) for p in ps.values()))(
        t.pods()), timeout=20)
    rs = [r["metadata"]["name"] for r in t.c.list("ReplicaSet", t.ns)]
    check(len(rs) == 1, "ReplicaSets %s" % rs)
    listed = {r: len(lists(t, r)) for r in ("jobs", "replicasets", "deployments")}
    check(all(n == 1 for n in listed.values()), "owner LISTs %s" % listed)
    # a watch is complete only when it ends: its start is in the audit log
    started = [ev for ev in e2e.CLUSTER.audit_since(t.audit_at) if ev.get("stage") == "ResponseStarted"
               and ev.get("user", {}).get("username") == e2e.SA_USER and ev["verb"] == "watch"]
    watched = {r: len([ev for ev in started if ev["objectRef"].get("resource") == r]) for r in listed}
    check(all(n >= 1 for n in watched.values()), "owner watches %s" % watched)
    owner_gets = [ev for ev in t.requests() if ev["verb"] == "get" and (ev.get("objectRef") or {}).get("namespace") == t.ns
                  and ev["objectRef"].get("resource") != "podgroups"]
    check(not owner_gets, "owners read by name for 140 pods: %s" % [ev["requestURI"] for ev in owner_gets])
    # pods of one gang arriving together wait for the one worker creating its PodGroup: one create
    # each; a create more (a 409, then a read) only should the watch lag past the 5 s the created
    # copy is kept
    pg_gets = gets(t, "podgroups", ns=t.ns)
    creates = [ev for ev in t.requests() if ev["verb"] == "create"
               and (ev.get("objectRef") or {}).get("resource") == "podgroups"]
    check(len(pg_gets) <= 2 and len(creates) - len(pg_gets) == 2, "PodGroups created %d times, read %s"
          % (len(creates), [ev["requestURI"] for ev in pg_gets]))
    pgs = podgroups(t)
    check(len(pgs) == 2, "%d PodGroups, expected one for the Job (KAI v0.17) and one for the Deployment" % len(pgs))
    gang = pgs["%s/%s" % (t.ns, group_of([p for n, p in t.pods().items() if n.startswith("shards-")][0]))]
    check(gang["spec"]["minMember"] == 40, "the Deployment's gang %s" % gang["spec"])
    # deleted under its pods: made again
    victim = group_of([p for n, p in t.pods().items() if n.startswith("sweep-")][7])
    check(victim, "sweep's pods are not grouped")
    t.c.delete("PodGroup", victim, t.ns)
    wait_for("the PodGroup made again", lambda: t.c.get_or_none("PodGroup", victim, t.ns), timeout=10)
    pg.stop()
    no_403(t)


def test_restart_keeps_user_edits(t):
    """Run twice, the second run writes nothing (the audit log). A queue, markUnschedulable,
    schedulingBackoff and node-pool label set by hand on the PodGroup survive a change of the job
    (more workers)."""
    t.setup()
    ns = t.namespace("team-a")
    wl = Workloads(t, {"team-a": ns})
    objs = example("11-pytorchjob")
    wl.create(*objs)
    run_cycles(t, podgrouper(t, "--cycles", "2"))
    before = writes(t.requests())
    pods = t.pods(ns)
    check(len(podgroups(t, ns)) == 1 and all(group_of(p) for p in pods.values()), "not grouped")
    check(before, "the first run wrote nothing")
    run_cycles(t, podgrouper(t, "--cycles", "2"))
    after = writes(t.requests())
    check(len(after) == len(before), "a second run wrote: %s" %
          ["%s %s" % (ev["verb"], ev["requestURI"]) for ev in after[len(before):]])
    name = list(podgroups(t, ns).values())[0]["metadata"]["name"]
    t.c.patch("PodGroup", name, {"metadata": {"labels": {"kai.scheduler/node-pool": "pool-b"}},
                                 "spec": {"queue": "serving", "markUnschedulable": False, "schedulingBackoff": 3}},
              namespace=ns)
    t.c.patch_any("kubeflow.org/v1", "PyTorchJob", "llm-pretrain",
                  {"spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 5}}}}, ns)
    worker = json.loads(json.dumps([o for o in objs if o["metadata"]["name"] == "llm-pretrain-worker-2"][0]))
    worker["metadata"].pop("uid")
    worker["metadata"]["name"] = "llm-pretrain-worker-3"
    worker["metadata"]["labels"]["training.kubeflow.org/replica-index"] = "3"
    wl.create(worker)
    run_cycles(t, podgrouper(t, "--cycles", "2"))
    after = t.c.get("PodGroup", name, ns)
    check(after["spec"]["minMember"] == 6 and subgroups(after) == {"master": 1, "worker": 5},
          "not updated: %s" % after["spec"])
    kept = (after["spec"].get("queue"), after["spec"].get("markUnschedulable"),
            after["spec"].get("schedulingBackoff"), labels(after).get("kai.scheduler/node-pool"))
    check(kept == ("serving", False, 3, "pool-b"), "hand edits lost: %s" % (kept,))
    check(group_of(t.pods(ns)["llm-pretrain-worker-3"]) == name, "the new worker")
    no_403(t)


def test_scheduler_runs_podgrouper(t):
    """`gantry scheduler --podgrouper`, started before any workload: one process groups a PyTorchJob
    (its pods made one by one) and a gang Deployment (kai.scheduler/gang-replicas; the real
    controllers make its pods) and binds each gang whole: a pod the podgrouper has not reached
    yet waits (--require-podgroup, implied) instead of being placed alone. It stops cleanly."""
    t.setup()
    example_cluster(t, nodes=6)
    ns_a, ns_b = t.namespace("team-a"), t.namespace("team-b")
    s = t.scheduler("--podgrouper")
    wait_for("the scheduler up", lambda: "caches synced" in s.output())
    wl = Workloads(t, {"team-a": ns_a, "team-b": ns_b})
    wl.create(*example("04-deployment-gang"))
    wl.create(*example("11-pytorchjob"))
    wl.settle()
    wait_for("every pod bound", lambda: len(t.bound(ns_a)) == 4 and len(t.bound(ns_b)) == 3, timeout=30)
    s.stop()
    out = s.output()
    pgs = podgroups(t, ns_a, ns_b)
    mins = sorted(p["spec"]["minMember"] for p in pgs.values())
    check(mins == [3, 4], "PodGroups %s" % {k: p["spec"] for k, p in pgs.items()})
    sizes = sorted(int(n) for n in re.findall(r"; (\d+) binds", out) if int(n))
    check(sizes in ([7], [3, 4]), "binds per cycle %s: a gang was split\n%s" % (sizes, out[-2000:]))
    check("grouping pods with schedulerName kai-scheduler" in out, "no podgrouper in the log:\n" + out[-2000:])
    scheduled = [e["involvedObject"]["name"] for ns in (ns_a, ns_b) for e in t.events(ns) if e["reason"] == "Scheduled"]
    check(len(scheduled) == 7 and len(set(scheduled)) == 7, "Scheduled events %s" % scheduled)
    no_403(t)


CUSTOM = """customResources:
- apiVersion: example.com/v1
  kind: TrainingRun
  replicas: spec.roles
  roleLabel: example.com/role
"""


def training_run(ns):
    uid = "5e1f0000-0000-4000-8000-00000000abcd"
    run = {"apiVersion": "example.com/v1", "kind": "TrainingRun",
           "metadata": {"name": "run", "namespace": ns, "uid": uid, "labels": {"kai.scheduler/queue": "research"}},
           "spec": {"roles": {"leader": {"replicas": 1}, "worker": {"replicas": 2}}}}
    ps = []
    for name, role in (("run-leader-0", "leader"), ("run-worker-0", "worker"), ("run-worker-1", "worker")):
        ps.append({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": name, "namespace": ns, "labels": {"example.com/role": role},
                                "ownerReferences": [{"apiVersion": "example.com/v1", "kind": "TrainingRun",
                                                     "name": "run", "uid": uid, "controller": True}]},
                   "spec": {"schedulerName": "kai-scheduler", "containers": [{"name": "c", "image": "busybox"}]}})
    return [run], ps


def test_custom_resource_rule(t):
    """A custom resource (an open-schema CRD) grouped by a rule from --config, its kind found
    through API discovery (one read of /apis/example.com/v1). The ServiceAccount may get the kind
    but not list or watch it: an access review says so (no request refused), and the run is read
    once by name instead of watched."""
    t.setup()
    cfg = os.path.join(t.tmp, "podgrouper.yaml")
    with open(cfg, "w") as f:
        f.write(CUSTOM)
    run, ps = training_run(t.ns)
    # a kind of one's own needs a grant of one's own: deploy/rbac.yaml names the kinds KAI knows
    rbac = "rbac.authorization.k8s.io/v1"
    t.c.create_any({"apiVersion": rbac, "kind": "ClusterRole", "metadata": {"name": "e2e-trainingruns"},
                    "rules": [{"apiGroups": ["example.com"], "resources": ["trainingruns"], "verbs": ["get"]}]})
    t.cleanup.append((rbac, "ClusterRole", "e2e-trainingruns"))
    t.c.create_any({"apiVersion": rbac, "kind": "ClusterRoleBinding", "metadata": {"name": "e2e-trainingruns"},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                "name": "e2e-trainingruns"},
                    "subjects": [{"kind": "ServiceAccount", "name": "gantry-scheduler", "namespace": "kai-scheduler"}]})
    t.cleanup.append((rbac, "ClusterRoleBinding", "e2e-trainingruns"))
    Workloads(t).create(*run, *ps)
    pg = podgrouper(t, "--config", cfg)
    pods = wait_for("the TrainingRun's pods grouped", all_grouped(t, t.ns, [p["metadata"]["name"] for p in ps]),
                    timeout=12)
    pg.stop()
    group = list(podgroups(t).values())[0]
    check(group["spec"]["minMember"] == 3 and subgroups(group) == {"leader": 1, "worker": 2},
          "TrainingRun %s" % group["spec"])
    check(labels(pods["run-worker-1"]).get("kai.scheduler/subgroup-name") == "worker", "role label")
    disc = [ev for ev in t.requests() if ev["requestURI"] == "/apis/example.com/v1"]
    check(len(disc) == 1, "discovery of example.com/v1: %d reads" % len(disc))
    check(len(gets(t, "trainingruns", "run")) == 1, "reads of the run: %d" % len(gets(t, "trainingruns", "run")))
    check(not lists(t, "trainingruns"), "listed without the grant")
    reviews = [ev for ev in t.requests() if (ev.get("objectRef") or {}).get("resource") == "selfsubjectaccessreviews"]
    check(reviews, "no access review asked")
    check(not warnings(t, t.ns), "warnings %s" % [e["message"] for e in warnings(t, t.ns)])
    no_403(t)

# ---------------------------------------------------------------- the controller, live (issue 14)

def job(t, name, parallelism, annotations=None, queue="data", gpus=None):
    """A batch Job of @parallelism pods for kai-scheduler, its pods made by the job controller."""
    res = {"cpu": "100m"}
    if gpus:
        res["nvidia.com/gpu"] = str(gpus)
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": t.ns, "labels": {"kai.scheduler/queue": queue},
                         "annotations": dict(annotations or {})},
            "spec": {"parallelism": parallelism, "completions": parallelism,
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
                                           "containers": [{"name": "c", "image": "busybox",
                                                           "resources": {"requests": res, "limits": res}}]}}}}


def pods_of(t, prefix):
    return {n: p for n, p in t.pods().items() if n.startswith(prefix + "-")}


def test_job_one_podgroup(t):
    """KAI v0.17's Job rule on a real Job: the job controller makes 3 pods, and the podgrouper puts
    them in one PodGroup pg-<job>-<uid>, owned by the Job, of minMember 2 (the Job's
    kai.scheduler/batch-min-member), rather than one PodGroup per pod."""
    t.setup()
    made = t.c.create(job(t, "sweep", 3, {"kai.scheduler/batch-min-member": "2"}))
    pg = podgrouper(t)
    ps = wait_for("the Job's 3 pods grouped", lambda: (lambda x: x if len(x) == 3 and all(group_of(p) for p in x.values())
                                                       else None)(pods_of(t, "sweep")), timeout=20)
    pgs = podgroups(t)
    want = "pg-sweep-%s" % made["metadata"]["uid"]
    check(list(pgs) == ["%s/%s" % (t.ns, want)], "PodGroups %s, expected %s" % (sorted(pgs), want))
    group = pgs["%s/%s" % (t.ns, want)]
    check(group["spec"]["minMember"] == 2 and group["spec"]["queue"] == "data", "the Job's PodGroup %s" % group["spec"])
    check(owner_of(group) == ("Job", "sweep", made["metadata"]["uid"]), "owner %s" % (owner_of(group),))
    check({group_of(p) for p in ps.values()} == {want}, "pods in %s" % {group_of(p) for p in ps.values()})
    check(not warnings(t, t.ns), "warnings %s" % [e["message"] for e in warnings(t, t.ns)])
    pg.stop()
    no_403(t)


def jobset(t, name):
    """An AnyOrder JobSet: a driver (1 replica of 1 pod) and workers (2 replicas of 2 pods)."""
    def rjob(rname, replicas, parallelism, gpus):
        res = {"cpu": "1"}
        if gpus:
            res["nvidia.com/gpu"] = str(gpus)
        return {"name": rname, "replicas": replicas,
                "template": {"spec": {"parallelism": parallelism, "completions": parallelism, "backoffLimit": 0,
                                      "template": {"spec": {"schedulerName": "kai-scheduler", "restartPolicy": "Never",
                                                            "containers": [{"name": "main", "image": "busybox",
                                                                            "resources": {"requests": res,
                                                                                          "limits": res}}]}}}}}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "namespace": t.ns, "labels": {"kai.scheduler/queue": "research"}},
            "spec": {"replicatedJobs": [rjob("driver", 1, 1, None), rjob("workers", 2, 2, 1)]}}


def test_jobset_grouped_live(t):
    """A JobSet as KAI v0.17 groups it, on a real server: its CRD (open schema), our JobSet
    controller making the child Jobs with the JobSet's labels, the job controller making 5 pods.
    One PodGroup pg-<jobset>-<uid>, minSubGroup 2 (AnyOrder: both replicated jobs), a parent per
    replicated job needing all its replicas and a leaf per replica of parallelism pods; each pod
    labelled with its leaf. Then `gantry scheduler` binds the whole JobSet."""
    t.setup()
    example_cluster(t, nodes=3)
    js = jobset(t, "sim")
    e2e.CLUSTER.third_party_crds([js])
    ctl = JobSetController(t.c, [t.ns], os.path.join(t.tmp, "jobset-controller.log")).start()
    try:
        pg = podgrouper(t)
        made = t.c.create_any(js)
        ps = wait_for("the JobSet's 5 pods grouped", lambda: (lambda x: x if len(x) == 5 and
                                                              all(group_of(p) for p in x.values()) else None)(
            pods_of(t, "sim")), timeout=30)
    finally:
        ctl.stop()
    check(sorted(ctl.made) == sorted((t.ns, n) for n in ("sim-driver-0", "sim-workers-0", "sim-workers-1")),
          "Jobs made %s" % ctl.made)
    want = "pg-sim-%s" % made["metadata"]["uid"]
    pgs = podgroups(t)
    check(list(pgs) == ["%s/%s" % (t.ns, want)], "PodGroups %s, expected %s" % (sorted(pgs), want))
    spec = pgs["%s/%s" % (t.ns, want)]["spec"]
    check(spec.get("minSubGroup") == 2 and "minMember" not in spec and spec["queue"] == "research",
          "the JobSet's PodGroup %s" % spec)
    sgs = {g["name"]: g for g in spec["subGroups"]}
    check(sgs["driver"].get("minSubGroup") == 1 and sgs["workers"].get("minSubGroup") == 2,
          "parents %s" % spec["subGroups"])
    leaves = {n: (g.get("parent"), g.get("minMember")) for n, g in sgs.items() if "minMember" in g}
    check(leaves == {"driver-replica-0": ("driver", 1), "workers-replica-0": ("workers", 2),
                     "workers-replica-1": ("workers", 2)}, "leaves %s" % leaves)
    by_leaf = {}
    for n, p in ps.items():
        by_leaf.setdefault(labels(p).get("kai.scheduler/subgroup-name"), []).append(n)
    check(sorted((k, len(v)) for k, v in by_leaf.items()) ==
          [("driver-replica-0", 1), ("workers-replica-0", 2), ("workers-replica-1", 2)],
          "pods by leaf %s" % by_leaf)
    check(all(labels(p).get("jobset.sigs.k8s.io/jobset-name") == "sim" for p in ps.values()),
          "the JobSet's labels did not reach the pods")
    pg.stop()
    run_cycles(t, t.scheduler("--cycles", "3"))
    check(len(t.bound()) == 5, "bound %s" % t.bound())
    no_403(t)


def test_podgroup_edited_by_hand(t):
    """A PodGroup edited by hand, then updated by the running podgrouper when its Job changes
    (kai.scheduler/batch-min-member 2 -> 3, seen through the Job's watch): the podgrouper's fields
    change (minMember), the ones people own stay as KAI v0.17's handler.go keeps them (queue,
    markUnschedulable, schedulingBackoff, a topology constraint when the workload names none, the
    node-pool label, labels and annotations of their own), and a preemptionDelay set on the
    PodGroup alone is removed, as KAI replaces it with the workload's (none)."""
    t.setup()
    made = t.c.create(job(t, "train", 2, {"kai.scheduler/batch-min-member": "2"}))
    pg = podgrouper(t, "--owner-cache-ttl", "1h")
    wait_for("the Job's pods grouped", lambda: (lambda x: x if len(x) == 2 and all(group_of(p) for p in x.values())
                                                else None)(pods_of(t, "train")), timeout=20)
    name = "pg-train-%s" % made["metadata"]["uid"]
    edited = t.c.patch("PodGroup", name, {
        "metadata": {"labels": {"kai.scheduler/node-pool": "pool-b", "team": "vision"},
                     "annotations": {"example.com/ticket": "OPS-7"}},
        "spec": {"queue": "serving", "markUnschedulable": True, "schedulingBackoff": 5,
                 "preemptionDelay": "10m0s",
                 "topologyConstraint": {"topology": "dc-topology", "requiredTopologyLevel": "example.com/rack"}}},
        namespace=t.ns)
    t.c.patch("Job", "train", {"metadata": {"annotations": {"kai.scheduler/batch-min-member": "3"}}}, namespace=t.ns)
    after = wait_for("minMember 3", lambda: (lambda g: g if g["spec"]["minMember"] == 3 else None)(
        t.c.get("PodGroup", name, t.ns)), timeout=10)
    sp, md = after["spec"], after["metadata"]
    kept = {"queue": sp.get("queue"), "markUnschedulable": sp.get("markUnschedulable"),
            "schedulingBackoff": sp.get("schedulingBackoff"), "topologyConstraint": sp.get("topologyConstraint"),
            "node-pool": labels(after).get("kai.scheduler/node-pool"), "team": labels(after).get("team"),
            "ticket": annotations(after).get("example.com/ticket")}
    check(kept == {"queue": "serving", "markUnschedulable": True, "schedulingBackoff": 5,
                   "topologyConstraint": {"topology": "dc-topology", "requiredTopologyLevel": "example.com/rack"},
                   "node-pool": "pool-b", "team": "vision", "ticket": "OPS-7"}, "hand edits lost: %s" % kept)
    check("preemptionDelay" not in sp, "a preemptionDelay the workload does not ask for stayed: %s" % sp)
    check(md["resourceVersion"] != edited["metadata"]["resourceVersion"], "not updated")
    check(owner_of(after) == ("Job", "train", made["metadata"]["uid"]), "owner %s" % (owner_of(after),))
    pg.stop()
    no_403(t)


def test_deployment_scale_up(t):
    """A Deployment with kai.scheduler/gang-replicas (the real deployment and replicaset controllers
    make its pods) scaled 2 -> 4: the PodGroup's minMember is 4 within seconds, through the
    Deployment's watch (owners read by name are trusted an hour here, so no read could bring it);
    scaled down to 1, where no pod is made that could bring it, minMember follows too."""
    t.setup()
    dep = [o for o in example("04-deployment-gang") if o["kind"] == "Deployment"][0]
    dep["metadata"].update(name="embed", namespace=t.ns)
    dep["metadata"].pop("uid")
    dep["spec"]["replicas"] = 2
    made = t.c.create(dep)
    pg = podgrouper(t, "--owner-cache-ttl", "1h")
    wait_for("2 pods grouped", lambda: (lambda x: x if len(x) == 2 and all(group_of(p) for p in x.values())
                                        else None)(pods_of(t, "embed")), timeout=20)
    name = "pg-embed-%s" % made["metadata"]["uid"]

    def min_member(n):
        return lambda: (t.c.get_or_none("PodGroup", name, t.ns) or {}).get("spec", {}).get("minMember") == n
    check(min_member(2)(), "minMember %s" % t.c.get("PodGroup", name, t.ns)["spec"])
    t0 = time.time()
    t.c.patch("Deployment", "embed", {"spec": {"replicas": 4}}, namespace=t.ns)
    wait_for("minMember 4", min_member(4), timeout=10)
    took = time.time() - t0
    check(took < 5, "the scale-up reached the PodGroup after %.1f s" % took)
    t.c.patch("Deployment", "embed", {"spec": {"replicas": 1}}, namespace=t.ns)
    wait_for("minMember 1 after the scale-down", min_member(1), timeout=10)
    check(metric(pg, "gantry_podgrouper_owner_changes_total") >= 2, "owner changes %s" %
          metric(pg, "gantry_podgrouper_owner_changes_total"))
    check(not gets(t, "deployments", "embed"), "the Deployment was read by name")
    pg.stop()
    print("     scale-up to the PodGroup: %.2f s" % took)
    no_403(t)


KARTA_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "kartas.run.ai"},
    "spec": {"group": "run.ai", "scope": "Cluster",
             "names": {"kind": "Karta", "plural": "kartas", "singular": "karta", "listKind": "KartaList"},
             "versions": [{"name": "v1alpha1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object",
                                                          "x-kubernetes-preserve-unknown-fields": True}}}]}}


def install_karta_crd(t):
    """The Karta CRD (cluster-scoped, open schema), left installed for the rest of the run."""
    c = t.c
    if not c.get_or_none("CustomResourceDefinition", KARTA_CRD["metadata"]["name"]):
        c.create(KARTA_CRD)
    wait_for("the Karta CRD established", lambda: (e2e.condition(c.get("CustomResourceDefinition", "kartas.run.ai"),
                                                                  "Established") or {}).get("status") == "True")
    wait_for("Kartas in discovery", lambda: "Karta" in {r["kind"] for r in c.request("GET", "/apis/run.ai/v1alpha1")["resources"]})


def customjob_karta():
    roles = ("coordinator", "worker")
    return {"apiVersion": "run.ai/v1alpha1", "kind": "Karta",
            "metadata": {"name": "e2e-example-com-v1-customjob",
                         "labels": {"run.ai/karta-group": "e2e.example.com", "run.ai/karta-version": "v1",
                                    "run.ai/karta-kind": "CustomJob"}},
            "spec": {"structureDefinition": {
                "rootComponent": {"name": "customjob",
                                  "kind": {"group": "e2e.example.com", "version": "v1", "kind": "CustomJob"},
                                  "statusDefinition": {"statusMappings": {}}},
                "childComponents": [
                    {"name": r, "ownerRef": "customjob", "specDefinition": {"podTemplateSpecPath": ".spec.%s.template" % r},
                     "scaleDefinition": {"replicasPath": ".spec.%s.replicas" % r},
                     "podSelector": {"componentTypeSelector": {"keyPath": '.metadata.labels["e2e.example.com/role"]',
                                                               "value": r}}} for r in roles]},
                "optimizationInstructions": {"gangScheduling": {"podGroup": {
                    "name": "customjob", "subGroups": [{"componentName": r} for r in roles]}}}}}


def test_karta_grouped_live(t):
    """KAI's Karta fallback on a real server, KAI's own e2e example: the Karta CRD installed and a
    Karta made while the podgrouper runs (its watch of kartas.run.ai), the ServiceAccount granted
    get, list and watch on CustomJobs as KAI's e2e grants its podgrouper, then a CustomJob of a
    coordinator and 2 workers and its pods: one PodGroup pg-<uid>-customjob, a sub-group per
    component, minSubGroup 2."""
    t.setup()
    install_karta_crd(t)
    rbac = "rbac.authorization.k8s.io/v1"
    t.c.create_any({"apiVersion": rbac, "kind": "ClusterRole", "metadata": {"name": "e2e-customjobs"},
                    "rules": [{"apiGroups": ["e2e.example.com"], "resources": ["customjobs"],
                               "verbs": ["get", "list", "watch"]}]})
    t.cleanup.append((rbac, "ClusterRole", "e2e-customjobs"))
    t.c.create_any({"apiVersion": rbac, "kind": "ClusterRoleBinding", "metadata": {"name": "e2e-customjobs"},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "e2e-customjobs"},
                    "subjects": [{"kind": "ServiceAccount", "name": "gantry-scheduler", "namespace": "kai-scheduler"}]})
    t.cleanup.append((rbac, "ClusterRoleBinding", "e2e-customjobs"))
    pg = podgrouper(t)
    wait_for("Kartas listed", lambda: lists(t, "kartas"))
    k = customjob_karta()
    t.c.create_any(k)
    t.cleanup.append(("run.ai/v1alpha1", "Karta", k["metadata"]["name"]))
    wait_for("the Karta seen", lambda: (metric(pg, "gantry_podgrouper_owner_watch_events_total") or 0) >= 1)
    cj = {"apiVersion": "e2e.example.com/v1", "kind": "CustomJob",
          "metadata": {"name": "cj", "namespace": t.ns, "uid": "c0570000-0000-4000-8000-00000000e2e0",
                       "labels": {"kai.scheduler/queue": "research"}},
          "spec": {"coordinator": {"replicas": 1}, "worker": {"replicas": 2}}}
    ps = [e2e.pod(n, t.ns, labels={"e2e.example.com/role": r}) for n, r in
          (("cj-coordinator-0", "coordinator"), ("cj-worker-0", "worker"), ("cj-worker-1", "worker"))]
    for p in ps:
        p["metadata"]["ownerReferences"] = [{"apiVersion": "e2e.example.com/v1", "kind": "CustomJob", "name": "cj",
                                             "uid": cj["metadata"]["uid"], "controller": True}]
    wl = Workloads(t)
    made = wl.create(cj)[0]
    wl.create(*ps)
    got = wait_for("the CustomJob's pods grouped", all_grouped(t, t.ns, [p["metadata"]["name"] for p in ps]), timeout=20)
    want = "pg-%s-customjob" % made["metadata"]["uid"]
    pgs = podgroups(t)
    check(list(pgs) == ["%s/%s" % (t.ns, want)], "PodGroups %s, expected %s" % (sorted(pgs), want))
    spec = pgs["%s/%s" % (t.ns, want)]["spec"]
    check(spec.get("minSubGroup") == 2 and subgroups(pgs["%s/%s" % (t.ns, want)]) == {"coordinator": 1, "worker": 2},
          "the Karta's PodGroup %s" % spec)
    check(labels(got["cj-worker-1"]).get("kai.scheduler/subgroup-name") == "worker", "sub-group label")
    check(lists(t, "customjobs") and not gets(t, "customjobs", "cj"),
          "CustomJobs listed %d times, the CustomJob read by name %d times (want a watch, no read)"
          % (len(lists(t, "customjobs")), len(gets(t, "customjobs", "cj"))))
    check(not warnings(t, t.ns), "warnings %s" % [e["message"] for e in warnings(t, t.ns)])
    pg.stop()
    no_403(t)


def test_skip_podgrouper_owned(t):
    """kai.scheduler/skip-podgrouper on an owner, as KAI's reconciler reads it: the pods the job
    controller makes for a Job annotated "true" are left alone (no PodGroup, no annotation), each
    said once in the log with the Job that has the annotation and counted by reason, as is a bare
    pod that names its own PodGroup; the annotation removed from the Job (a change its watch
    brings), they are grouped."""
    t.setup()
    t.c.create(job(t, "etl", 2, {"kai.scheduler/skip-podgrouper": "true"}))
    t.c.create(e2e.pod("mine", t.ns, pg="my-own-group"))
    wait_for("the Job's pods", lambda: len(pods_of(t, "etl")) == 2, timeout=20)
    pg = podgrouper(t)
    by_owner = 'gantry_podgrouper_pods_skipped_total{reason="owner-skip-podgrouper"}'
    own = 'gantry_podgrouper_pods_skipped_total{reason="own-podgroup"}'
    wait_for("three pods looked at and left alone", lambda: metric(pg, by_owner) == 2 and metric(pg, own) == 1)
    check(not podgroups(t) and not any(group_of(p) for p in pods_of(t, "etl").values()),
          "grouped despite skip-podgrouper: %s" % sorted(podgroups(t)))
    said = [line for line in pg.output().splitlines() if "is left without a PodGroup" in line]
    for name in pods_of(t, "etl"):
        want = "pod %s/%s is left without a PodGroup: its owner Job %s/etl has kai.scheduler/skip-podgrouper" % (
            t.ns, name, t.ns)
        check(sum(want in line for line in said) == 1, "%r not said once:\n%s" % (want, "\n".join(said)))
    want = "pod %s/mine is left without a PodGroup: it has no owner and names its own PodGroup" % t.ns
    check(sum(want in line for line in said) == 1, "%r not said once:\n%s" % (want, "\n".join(said)))
    t.c.patch("Job", "etl", {"metadata": {"annotations": {"kai.scheduler/skip-podgrouper": None}}}, namespace=t.ns)
    wait_for("grouped once the annotation is gone", lambda: all(group_of(p) for p in pods_of(t, "etl").values()),
             timeout=10)
    check(len(podgroups(t)) == 1, "PodGroups %s" % sorted(podgroups(t)))
    pg.stop()
    no_403(t)


TESTS = [test_pytorchjob_gang, test_examples_as_kai_groups_them, test_zero_replicas_warning,
         test_owner_reads_bounded, test_restart_keeps_user_edits, test_scheduler_runs_podgrouper,
         test_custom_resource_rule, test_job_one_podgroup, test_jobset_grouped_live, test_podgroup_edited_by_hand,
         test_deployment_scale_up, test_karta_grouped_live, test_skip_podgrouper_owned]
