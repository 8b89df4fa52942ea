"""The newcomer's path on a real node, as docs/deploy.md "Try it on a real node" writes it: a bare
one-node cluster of its own (tools/control-plane up --node: the control plane, kube-scheduler,
and a node with containerd, runc, the CNI bridge, the kubelet and kube-proxy; nothing of KAI),
`make image`'s archive loaded into the node's containerd with ctr, Gantry installed with
`helm install` as the docs say, and then a Queue and a pod of schedulerName kai-scheduler that
Gantry's own pod (in-cluster, through the kubernetes Service) binds and the real kubelet runs.

The node has no GPU. The GPU pod below runs on a node whose nvidia.com/gpu capacity the test
writes itself with a status patch, as Kubernetes documents for extended resources: it shows that
Gantry's pod places whole-GPU pods on a real node, not that a GPU works."""

import json
import os
import re
import subprocess
import time

import yaml

import e2e
import kube
from e2e import ROOT, check, wait_for

NODE = "e2e-node"
SA_USER = "system:serviceaccount:kai-scheduler:gantry-scheduler"


class BareCluster:
    """A cluster of the test's own, up with a real node; commands run as a newcomer types them,
    from the repository's root, with the cluster's environment (KUBECONFIG, PATH with kubectl,
    helm and ctr, CONTAINERD_ADDRESS) sourced."""

    def __init__(self, t):
        self.t = t
        self.state = os.path.join(t.tmp, "cluster")
        self.home = os.path.join(t.tmp, "home")
        os.makedirs(self.home, exist_ok=True)
        t0 = time.time()
        out = subprocess.run([e2e.CP, "up", self.state, "--node"], capture_output=True, text=True, timeout=600)
        self.up_seconds = time.time() - t0
        if out.returncode != 0:
            raise e2e.Fail("tools/control-plane up --node failed:\n%s%s%s" % (out.stdout, out.stderr[-3000:],
                                                                           self.logs()))
        env = {}
        for line in out.stdout.splitlines():
            m = re.match(r"export (\w+)=(.*)", line)
            if m:
                env[m.group(1)] = m.group(2)
        self.env = env
        pki = os.path.join(self.state, "pki")
        self.c = kube.Client(env["GANTRY_E2E_SERVER"], env["GANTRY_E2E_CA"], os.path.join(pki, "admin.crt"),
                             os.path.join(pki, "admin.key"))

    def sh(self, cmd, stdin=None, check_rc=True, timeout=300):
        env = dict(os.environ, HOME=self.home, XDG_CACHE_HOME=os.path.join(self.home, ".cache"),
                   XDG_CONFIG_HOME=os.path.join(self.home, ".config"), XDG_DATA_HOME=os.path.join(self.home, ".local"))
        out = subprocess.run(["bash", "-c", ". %s/env && %s" % (self.state, cmd)], cwd=ROOT, capture_output=True,
                             text=True, input=stdin, env=env, timeout=timeout)
        if check_rc and out.returncode != 0:
            raise e2e.Fail("`%s` failed (%d):\n%s%s" % (cmd, out.returncode, out.stdout, out.stderr))
        return out.stdout

    def logs(self, n=25):
        out = ""
        d = os.path.join(self.state, "logs")
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if f.endswith(".log") and f != "audit.log":
                with open(os.path.join(d, f), errors="replace") as fh:
                    out += "\n--- %s\n%s" % (f, "".join(fh.readlines()[-n:]))
        return out

    def audit(self):
        with open(os.path.join(self.state, "logs", "audit.log")) as f:
            return [json.loads(line) for line in f if line.strip()]

    def down(self):
        subprocess.run([e2e.CP, "down", self.state], timeout=120)


def ready(p):
    return p["status"].get("phase") == "Running" and any(
        c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions") or [])


def bound_by_gantry(cl, ns, name):
    """The pod's Binding was created by Gantry's ServiceAccount (the pods/binding audit event)."""
    return [ev for ev in cl.audit() if ev.get("stage") == "ResponseComplete"
            and (ev.get("objectRef") or {}).get("subresource") == "binding"
            and ev["objectRef"].get("namespace") == ns and ev["objectRef"].get("name") == name
            and ev.get("user", {}).get("username") == SA_USER and ev.get("responseStatus", {}).get("code") == 201]


def workload(name, ns, image, queue, resources):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": {"kai.scheduler/queue": queue}},
            "spec": {"schedulerName": "kai-scheduler", "terminationGracePeriodSeconds": 1,
                     "containers": [{"name": "main", "image": image, "imagePullPolicy": "Never",
                                     "resources": {"requests": resources, "limits": resources}}]}}


def test_newcomer_on_a_real_node(t):
    """On a bare cluster with a real node: the image loaded with ctr, `helm install` as the docs
    say; Gantry's pod runs on the node and is Ready; a Queue and a CPU pod of kai-scheduler: Gantry
    (its ServiceAccount, from inside the pod) binds it, the kubelet runs it; the same for a
    whole-GPU pod once the node advertises nvidia.com/gpu."""
    version = subprocess.run([e2e.ARGS.gantry, "version"], capture_output=True, text=True).stdout.split()[-1]
    archive = "build/gantry-%s.oci.tar" % version
    check(os.path.isfile(os.path.join(ROOT, archive)), "no %s: run `make image` first (make test does)" % archive)
    cl = BareCluster(t)
    try:
        print("     bare cluster with node %s up in %.0f s" % (NODE, cl.up_seconds), flush=True)
        node = cl.c.get("Node", NODE)
        info = node["status"]["nodeInfo"]
        check(info["kubeletVersion"] == cl.env["GANTRY_E2E_VERSION"], "kubelet %s" % info["kubeletVersion"])
        with open(os.path.join(ROOT, "tests", "node", "go.mod")) as f:
            containerd = re.search(r"github.com/containerd/containerd/v2 v(\S+)", f.read()).group(1)
        check(info["containerRuntimeVersion"] == "containerd://" + containerd, "runtime %s, not containerd %s"
              % (info["containerRuntimeVersion"], containerd))
        check(not cl.c.list("CustomResourceDefinition"), "the bare cluster already has CRDs")

        # docs/deploy.md, "Try it on a real node"
        out = cl.sh("ctr -n k8s.io images import %s" % archive)
        check("gantry:%s" % version in cl.sh("ctr -n k8s.io images ls -q"), "the image is not in containerd:\n" + out)
        cl.sh("helm install gantry deploy/helm/gantry -n kai-scheduler --create-namespace")

        def scheduler_pods_ready():
            pods = cl.c.list("Pod", "kai-scheduler", selector="app.kubernetes.io/name=gantry")
            return pods if pods and all(ready(p) for p in pods) else None
        try:
            pods = wait_for("Gantry's pods Ready on the node", scheduler_pods_ready, timeout=240, interval=1)
        except AssertionError as e:
            raise e2e.Fail("%s\n%s\n%s" % (e, cl.sh("kubectl -n kai-scheduler get pods -o wide; "
                                                     "kubectl -n kai-scheduler describe pods | tail -40",
                                                     check_rc=False), cl.logs()))
        for p in pods:
            check(p["spec"]["nodeName"] == NODE, "%s runs on %s" % (p["metadata"]["name"], p["spec"]["nodeName"]))
            check(p["spec"]["containers"][0]["image"] == "gantry:%s" % version, "image %s"
                  % p["spec"]["containers"][0]["image"])
        print(cl.sh("kubectl -n kai-scheduler get pods -o wide"), flush=True)

        # a newcomer's first workload: a Queue and a pod naming it
        pause = cl.env["GANTRY_E2E_PAUSE_IMAGE"]
        cl.sh("kubectl create namespace team-a")
        q = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "team-a"},
             "spec": {"parentQueue": "default-parent-queue",
                      "resources": {"gpu": {"quota": 1, "limit": -1, "overQuotaWeight": 1},
                                    "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
                                    "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1}}}}
        cl.sh("kubectl apply -f -", stdin=yaml.safe_dump_all(
            [q, workload("hello", "team-a", pause, "team-a", {"cpu": "100m", "memory": "64Mi"})]))

        def running(name):
            def f():
                p = cl.c.get("Pod", name, "team-a")
                return p if p["spec"].get("nodeName") == NODE and ready(p) else None
            try:
                return wait_for("pod team-a/%s Running on %s" % (name, NODE), f, timeout=120, interval=0.5)
            except AssertionError as e:
                raise e2e.Fail("%s\n%s\n--- gantry's log\n%s" % (
                    e, cl.sh("kubectl -n team-a describe pod %s | tail -30" % name, check_rc=False),
                    cl.sh("kubectl -n kai-scheduler logs deploy/gantry-scheduler --tail 40", check_rc=False)))
        running("hello")
        check(bound_by_gantry(cl, "team-a", "hello"), "team-a/hello was not bound by %s" % SA_USER)
        pgs = cl.c.list("PodGroup", "team-a")
        check(len(pgs) == 1 and pgs[0]["spec"]["queue"] == "team-a", "PodGroups: %s"
              % [(g["metadata"]["name"], g["spec"].get("queue")) for g in pgs])
        # the leader's log (the Lease names it), read through the kubelet
        leader = cl.c.get("Lease", "kai-scheduler", "kai-scheduler")["spec"]["holderIdentity"].split("_")[0]
        log = cl.sh("kubectl -n kai-scheduler logs %s" % leader)
        check("hello" in log, "the log of Gantry's leader %s does not name the pod:\n%s" % (leader, log[-2000:]))

        # the node has no GPU: advertise two with a status patch (the test's, openly), then a
        # whole-GPU pod is placed by Gantry and admitted by the kubelet
        cl.c.request("PATCH", "/api/v1/nodes/%s/status" % NODE,
                     {"status": {"capacity": {"nvidia.com/gpu": "2"}}},
                     content_type="application/merge-patch+json")
        wait_for("nvidia.com/gpu allocatable", lambda: cl.c.get("Node", NODE)["status"].get(
            "allocatable", {}).get("nvidia.com/gpu") == "2")
        gpu = workload("train", "team-a", pause, "team-a", {"cpu": "100m", "nvidia.com/gpu": "1"})
        cl.sh("kubectl apply -f -", stdin=yaml.safe_dump(gpu))
        running("train")
        check(bound_by_gantry(cl, "team-a", "train"), "team-a/train was not bound by %s" % SA_USER)
        refused = [ev for ev in cl.audit() if ev.get("user", {}).get("username") == SA_USER
                   and ev.get("responseStatus", {}).get("code") == 403]
        check(not refused, "Gantry's requests refused with 403: %s" % [
            (ev["verb"], ev.get("requestURI")) for ev in refused[:5]])
    except Exception:
        print(cl.logs(), flush=True)
        raise
    finally:
        cl.down()


TESTS = [test_newcomer_on_a_real_node]
