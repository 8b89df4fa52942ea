"""e2e.py - what the end-to-end tests share: the control plane for the run (Cluster), one test's
namespace, directory and processes (T), a gantry process (Gantry), object builders and checks.

The runner (run-e2e) sets ARGS and CLUSTER before the first test.
"""

import base64  # noqa: F401
import concurrent.futures
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request  # noqa: F401

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import kube  # noqa: E402
from kube import wait_for  # noqa: E402,F401

CP = os.path.join(ROOT, "tools", "control-plane")
SA_USER = "system:serviceaccount:kai-scheduler:gantry-scheduler"
ARGS = None
CLUSTER = None


class Fail(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


# ---------------------------------------------------------------- the control plane

# third-party kinds of the examples that are cluster-scoped (NFD's NodeResourceTopology)
CLUSTER_SCOPED_KINDS = {"NodeResourceTopology"}


class Cluster:
    """The control plane for the whole run, plus the fake kubelet and the admin client."""

    def __init__(self, state):
        self.state = state
        out = subprocess.run([CP, "up", state], capture_output=True, text=True, timeout=300)
        if out.returncode != 0:
            raise RuntimeError("tools/control-plane up failed:\n" + out.stdout + out.stderr +
                               self.tail_logs())
        self.env = {}
        for line in out.stdout.splitlines():
            m = re.match(r"export (\w+)=(.*)", line)
            if m:
                self.env[m.group(1)] = m.group(2)
        self.server = self.env["GANTRY_E2E_SERVER"]
        self.ca = self.env["GANTRY_E2E_CA"]
        self.bin = self.env["GANTRY_E2E_BIN"]
        pki = os.path.join(state, "pki")
        self.cert, self.key = os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key")
        self.admin_kubeconfig = self.env["KUBECONFIG"]
        self.c = kube.Client(self.server, self.ca, self.cert, self.key)
        self.audit = os.path.join(state, "logs", "audit.log")
        self.home = os.path.join(state, "home")
        os.makedirs(self.home, exist_ok=True)
        self.kubelet_log = os.path.join(state, "logs", "fake-kubelet.log")
        self.kubelet = subprocess.Popen([sys.executable, os.path.join(HERE, "fake-kubelet"), "--server", self.server,
                                         "--ca", self.ca, "--cert", self.cert, "--key", self.key,
                                         "--log", self.kubelet_log], stdout=subprocess.DEVNULL,
                                        stderr=open(self.kubelet_log + ".err", "w"))
        self.installed = False

    def tail_logs(self, n=30):
        out = ""
        for f in sorted(glob.glob(os.path.join(self.state, "logs", "*.log"))):
            if f.endswith("audit.log"):
                continue
            with open(f, errors="replace") as fh:
                out += "\n--- %s\n%s" % (os.path.basename(f), "".join(fh.readlines()[-n:]))
        return out

    def down(self):
        if self.kubelet.poll() is None:
            self.kubelet.terminate()
            self.kubelet.wait(5)
        subprocess.run([CP, "down", self.state], timeout=60)

    def kubectl(self, *args, check_rc=True, stdin=None, timeout=120):
        env = dict(os.environ, KUBECONFIG=self.admin_kubeconfig, HOME=self.home)
        out = subprocess.run([os.path.join(self.bin, "kubectl"), *args], capture_output=True, text=True,
                             env=env, input=stdin, timeout=timeout)
        if check_rc and out.returncode != 0:
            raise Fail("kubectl %s failed (%d):\n%s%s" % (" ".join(args), out.returncode, out.stdout, out.stderr))
        return out

    def helm(self, *args, check_rc=True, timeout=120):
        env = dict(os.environ, KUBECONFIG=self.admin_kubeconfig, HOME=self.home,
                   XDG_CACHE_HOME=os.path.join(self.home, ".cache"), XDG_CONFIG_HOME=os.path.join(self.home, ".config"),
                   XDG_DATA_HOME=os.path.join(self.home, ".local"))
        out = subprocess.run([os.path.join(self.bin, "helm"), *args], capture_output=True, text=True, env=env,
                             timeout=timeout)
        if check_rc and out.returncode != 0:
            raise Fail("helm %s failed (%d):\n%s%s" % (" ".join(args), out.returncode, out.stdout, out.stderr))
        return out

    def install(self):
        """Gantry's CRDs, RBAC and defaults, as the README installs them (once per run)."""
        if self.installed:
            return
        self.kubectl("apply", "--validate=strict", "-f", os.path.join(ROOT, "deploy", "crds"))
        # as the README says (kubectl wait), but for a CRD so new that it has no conditions at all,
        # which `kubectl wait` takes for an error rather than "not yet"
        wait_for("every CRD with conditions", lambda: all((c.get("status") or {}).get("conditions")
                                                          for c in self.c.list("CustomResourceDefinition")))
        self.kubectl("wait", "--for", "condition=established", "--timeout=60s", "crd", "--all")
        self.kubectl("apply", "--validate=strict", "-f", os.path.join(ROOT, "deploy", "rbac.yaml"),
                     "-f", os.path.join(ROOT, "deploy", "defaults.yaml"))
        wait_for("the gantry-scheduler ServiceAccount",
                 lambda: self.c.get_or_none("ServiceAccount", "gantry-scheduler", "kai-scheduler"))
        # the RuntimeClass the GPU-sharing reservation pods run with, which NVIDIA's GPU operator
        # makes on a GPU cluster: without it the RuntimeClass admission plugin refuses them
        if not self.c.get_or_none("RuntimeClass", "nvidia"):
            self.c.create({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "nvidia"},
                           "handler": "nvidia"})
        self.installed = True

    def third_party_crds(self, docs):
        """An open-schema CRD for each kind the server does not serve (PyTorchJob, RayCluster, ...), so
        the examples of those kinds can be applied as their operators' CRDs would let them."""
        served = set()
        for grp in self.c.request("GET", "/apis")["groups"]:
            for v in grp["versions"]:
                for r in self.c.request("GET", "/apis/" + v["groupVersion"])["resources"]:
                    served.add((v["groupVersion"], r["kind"]))
        for r in self.c.request("GET", "/api/v1")["resources"]:
            served.add(("v1", r["kind"]))
        want = {}
        for d in docs:
            if (d["apiVersion"], d["kind"]) in served or "/" not in d["apiVersion"]:
                continue
            group, version = d["apiVersion"].split("/")
            want.setdefault((group, d["kind"]), set()).add(version)
        made = []
        for (group, kind), versions in sorted(want.items()):
            low = kind.lower()
            plural = low + "es" if low.endswith("s") else low[:-1] + "ies" if low.endswith("y") else low + "s"
            versions = sorted(versions)
            md = {"name": "%s.%s" % (plural, group)}
            if group.endswith(".k8s.io") or group.endswith(".kubernetes.io"):
                # a protected group: the API server wants the approval its real CRD carries
                md["annotations"] = {"api-approved.kubernetes.io": "https://github.com/kubernetes/enhancements/pull/1870"}
            crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                   "metadata": md,
                   "spec": {"group": group, "scope": "Cluster" if kind in CLUSTER_SCOPED_KINDS else "Namespaced",
                            "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": kind + "List"},
                            "versions": [{"name": v, "served": True, "storage": v == versions[-1],
                                          "subresources": {"status": {}},
                                          "schema": {"openAPIV3Schema": {"type": "object",
                                                                         "x-kubernetes-preserve-unknown-fields": True}}}
                                         for v in versions]}}
            if not self.c.get_or_none("CustomResourceDefinition", crd["metadata"]["name"]):
                self.c.create(crd)
            made.append(("%s/%s" % (group, versions[-1]), kind, crd["metadata"]["name"]))
        # Established and in discovery (where clients, Gantry's owner reads included, look kinds up)
        for api_version, kind, name in made:
            wait_for("CRD %s established" % name, lambda: (condition(self.c.get("CustomResourceDefinition", name),
                                                                     "Established") or {}).get("status") == "True")
            wait_for("%s %s in discovery" % (api_version, kind), lambda: kind in {
                r["kind"] for r in self.c.request("GET", "/apis/" + api_version)["resources"]})

        # The first create of a new resource waits about 2 s in the API server (its storage and
        # admission getting ready); a dry-run create pays that, for all of them at once.
        def warm(api_version, kind, name):
            obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "warm-up", "namespace": "default"}}
            where = "namespaces/default/"
            if kind in CLUSTER_SCOPED_KINDS:
                del obj["metadata"]["namespace"]
                where = ""
            wait_for("a dry-run create of %s %s" % (api_version, kind), lambda: self.c.request(
                "POST", "/apis/%s/%s%s" % (api_version, where, name.split(".")[0]), obj,
                query={"dryRun": "All"}))
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            for f in [pool.submit(warm, *m) for m in made]:
                f.result()

    def token(self, sa="gantry-scheduler", ns="kai-scheduler"):
        """A bound token of the ServiceAccount (the TokenRequest API, as a projected volume gets it)."""
        r = self.c.request("POST", "/api/v1/namespaces/%s/serviceaccounts/%s/token" % (ns, sa),
                           {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                            "spec": {"expirationSeconds": 7200}})
        return r["status"]["token"]

    def kubeconfig(self, path, token=None, admin=False, ca=None):
        user = {"client-certificate": self.cert, "client-key": self.key} if admin else {"token": token or self.token()}
        cfg = {"apiVersion": "v1", "kind": "Config", "current-context": "e2e",
               "clusters": [{"name": "e2e", "cluster": {"server": self.server,
                                                        "certificate-authority": ca or self.ca}}],
               "users": [{"name": "u", "user": user}],
               "contexts": [{"name": "e2e", "context": {"cluster": "e2e", "user": "u"}}]}
        with open(path, "w") as f:
            yaml.safe_dump(cfg, f)
        return path

    def audit_offset(self):
        try:
            return os.path.getsize(self.audit)
        except OSError:
            return 0

    def audit_since(self, offset):
        out = []
        with open(self.audit, errors="replace") as f:
            f.seek(offset)
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
        return out


# ---------------------------------------------------------------- objects

def node(name, gpus=8, cpu="64", memory="256Gi", labels=None, taints=None, unschedulable=False, gpu_memory="40960"):
    lab = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "nvidia.com/gpu.memory": gpu_memory,
           "nvidia.com/gpu.count": str(gpus), "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"}
    lab.update(labels or {})
    res = {"cpu": cpu, "memory": memory, "pods": "110"}
    if gpus:
        res["nvidia.com/gpu"] = str(gpus)
    spec = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return ready_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": lab}, "spec": spec,
                       "status": {"allocatable": res}})


def ready_node(obj):
    """@obj, a Node with labels and status.allocatable (as examples write them), as the tests make
    nodes: the label teardown finds them by, and the status (Ready) the fake kubelet keeps on them."""
    obj = json.loads(json.dumps(obj))
    md = obj["metadata"]
    md.setdefault("labels", {})["e2e.gantry.test/node"] = "true"
    res = dict(obj.get("status", {}).get("allocatable") or {})
    status = {"allocatable": res, "capacity": dict(res),
              "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                              "message": "fake-kubelet is posting ready status"}],
              "nodeInfo": {"kubeletVersion": "v1.37.2", "architecture": "amd64", "operatingSystem": "linux",
                           "bootID": "", "containerRuntimeVersion": "", "kernelVersion": "", "kubeProxyVersion": "",
                           "machineID": "", "osImage": "", "systemUUID": ""}}
    md.setdefault("annotations", {})["e2e.gantry.test/status"] = json.dumps(status)
    obj.setdefault("spec", {})
    obj["status"] = status
    return obj


def queue(name, gpu_quota=-1, gpu_limit=-1, parent=None, priority=None, weight=1):
    spec = {"resources": {"gpu": {"quota": gpu_quota, "limit": gpu_limit, "overQuotaWeight": weight},
                          "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
                          "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1}}}
    if parent:
        spec["parentQueue"] = parent
    if priority is not None:
        spec["priority"] = priority
    return {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": name,
            "labels": {"e2e.gantry.test/queue": "true"}}, "spec": spec}


def podgroup(name, ns, q, min_member, prio=None):
    spec = {"queue": q, "minMember": min_member}
    if prio:
        spec["priorityClassName"] = prio
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


def container(gpus=None, cpu="1", memory="1Gi"):
    req = {"cpu": cpu, "memory": memory}
    if gpus:
        req["nvidia.com/gpu"] = str(gpus)
    return {"name": "main", "image": "registry.example/train:1", "resources": {"requests": req, "limits": dict(req)}}


def pod_spec(gpus=None, cpu="1", memory="1Gi", restart="Never"):
    return {"schedulerName": "kai-scheduler", "restartPolicy": restart, "terminationGracePeriodSeconds": 5,
            "containers": [container(gpus, cpu, memory)]}


def pod(name, ns, gpus=None, pg=None, q=None, fraction=None, labels=None, annotations=None, cpu="1",
        scheduler="kai-scheduler"):
    md = {"name": name, "namespace": ns, "labels": dict(labels or {}), "annotations": dict(annotations or {})}
    if pg:
        md["annotations"]["pod-group-name"] = pg
    if q:
        md["labels"]["kai.scheduler/queue"] = q
    if fraction:
        md["annotations"]["gpu-fraction"] = fraction
    spec = pod_spec(gpus, cpu)
    spec["schedulerName"] = scheduler
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec}


# ---------------------------------------------------------------- gantry processes

class Gantry:
    seq = 0

    def __init__(self, t, sub, kc, *flags, name=None):
        Gantry.seq += 1
        self.errpath = os.path.join(t.tmp, "%s-%d.log" % (name or sub, Gantry.seq))
        self.err = open(self.errpath, "w")
        cmd = [ARGS.gantry, sub, "--kubeconfig", kc, *flags]
        if ARGS.valgrind:
            cmd = ["valgrind", "-q", "--error-exitcode=9", "--leak-check=full"] + cmd
        env = dict(os.environ)
        env.pop("KUBECONFIG", None)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.err, env=env)
        t.procs.append(self)

    def output(self):
        self.err.flush()
        with open(self.errpath, errors="replace") as f:
            return f.read()

    def port(self):
        for line in self.output().splitlines():
            if "serving /metrics" in line:
                return int(line.rsplit("port ", 1)[1].strip('"'))
        return None

    def stop(self, sig=signal.SIGTERM, expect=0):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise Fail("gantry did not stop on %s:\n%s" % (sig, self.output()[-3000:]))
        if expect is not None and rc != expect:
            raise Fail("gantry exited %d, expected %d:\n%s" % (rc, expect, self.output()[-3000:]))
        return rc


class T:
    """What one test has: a namespace of its own, a temporary directory, its processes."""

    def __init__(self, name):
        self.name = name
        self.ns = "e2e-" + name.replace("_", "-")[:50]
        self.tmp = tempfile.mkdtemp(prefix="gantry-e2e-%s-" % name)
        self.procs = []
        self.c = CLUSTER.c
        self.audit_at = CLUSTER.audit_offset()
        self.namespaces = []      # made by the test, deleted at teardown
        self.cleanup = []         # (apiVersion, kind, name) of cluster-scoped objects, deleted at teardown

    def setup(self):
        CLUSTER.install()
        self.namespace()

    def namespace(self, suffix=None):
        """A namespace of the test's (its own, or "<its own>-<suffix>"), once its default
        ServiceAccount exists: pods are refused until then."""
        name = self.ns + ("-" + suffix if suffix else "")
        self.c.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        self.namespaces.append(name)
        wait_for("the default ServiceAccount in " + name, lambda: self.c.get_or_none("ServiceAccount", "default", name))
        return name

    def nodes_ready(self):
        """Waits until every node of the test is Ready without the not-ready taint, as the fake
        kubelet leaves them (a test that compares with `gantry simulate` must not read them before)."""
        def ready():
            for n in self.c.list("Node", selector="e2e.gantry.test/node=true"):
                if any(t.get("key") == "node.kubernetes.io/not-ready" for t in n["spec"].get("taints") or []):
                    return False
                if (condition(n, "Ready") or {}).get("status") != "True" or not n["status"].get("allocatable"):
                    return False
            return True
        wait_for("the nodes ready", ready)

    def requests(self, user=SA_USER):
        """The requests of @user (Gantry's ServiceAccount by default) that completed since the test
        began, in the order the audit log has them. A request of the test's own is made and awaited
        in the log first, so that everything before it has been written."""
        mark = "e2e-audit-mark-%d" % time.time_ns()
        try:
            self.c.get("ConfigMap", mark, self.ns)
        except kube.ApiError:
            pass

        def events():
            evs = [ev for ev in CLUSTER.audit_since(self.audit_at) if ev.get("stage") == "ResponseComplete"]
            return evs if any((ev.get("objectRef") or {}).get("name") == mark for ev in evs) else None
        return [ev for ev in wait_for("the audit log written", events, timeout=10)
                if ev.get("user", {}).get("username") == user]

    def sa_kubeconfig(self):
        """The kubeconfig with the token of Gantry's ServiceAccount, written once: a process
        starting while it is rewritten would read half a file."""
        path = os.path.join(self.tmp, "sa.kubeconfig")
        if not os.path.exists(path):
            CLUSTER.kubeconfig(path + ".tmp")
            os.rename(path + ".tmp", path)
        return path

    def scheduler(self, *flags, kc=None, name="scheduler"):
        kc = kc or self.sa_kubeconfig()
        base = ["--schedule-period", "200ms", "--metrics-bind-address", "127.0.0.1:0", "--namespace", "kai-scheduler",
                "--leader-elect-resource-name", "gantry-" + self.ns]
        return Gantry(self, "scheduler", kc, *base, *flags, name=name)

    def create(self, *objs):
        out = []
        for o in objs:
            o = json.loads(json.dumps(o))
            if o["kind"] in ("Node",):
                st = o.pop("status", None)
                made = self.c.create(o)
                if st:
                    self.c.patch("Node", o["metadata"]["name"], {"status": st}, sub="status")
                out.append(made)
            else:
                out.append(self.c.create(o))
        return out

    def pods(self, ns=None):
        return {p["metadata"]["name"]: p for p in self.c.list("Pod", ns or self.ns)}

    def bound(self, ns=None):
        return {n: p["spec"]["nodeName"] for n, p in self.pods(ns).items() if p["spec"].get("nodeName")}

    def events(self, ns=None):
        return self.c.list("Event", ns or self.ns)

    def forbidden(self):
        """Requests by Gantry's ServiceAccount that the API server refused with 403 since the test began."""
        return ["%s %s" % (ev.get("verb"), ev.get("requestURI")) for ev in self.requests()
                if ev.get("responseStatus", {}).get("code") == 403]

    def teardown(self, ok):
        for p in self.procs:
            if p.proc.poll() is None:
                p.proc.kill()
                p.proc.wait()
            p.err.close()
        c = self.c
        # cluster-scoped objects the test made, then the namespace (its controller removes the rest)
        for n in c.list("Node", selector="e2e.gantry.test/node=true"):
            c.delete("Node", n["metadata"]["name"])
        # (no Queue kind before the first install: test_node's cluster is its own)
        for q in c.list("Queue", selector="e2e.gantry.test/queue=true") if CLUSTER.installed else []:
            c.delete("Queue", q["metadata"]["name"])
        for api_version, kind, name in self.cleanup:
            try:
                c.request("DELETE", c.resource_path(api_version, kind, name))
            except kube.ApiError as e:
                if e.code != 404:
                    raise
        # the controllers' objects first, or they would make the pods again while the namespace
        # goes, and a later test's scheduler would bind them
        for ns in self.namespaces:
            for kind in ("Deployment", "ReplicaSet", "StatefulSet", "Job"):
                for o in c.list(kind, ns):
                    c.delete(kind, o["metadata"]["name"], ns, propagation="Background")
        for ns in self.namespaces + ["kai-resource-reservation"]:
            for p in c.list("Pod", ns):
                c.delete("Pod", p["metadata"]["name"], ns, grace=0)
        for ns in self.namespaces:
            c.delete("Namespace", ns)
        wait_for("the test's pods gone", lambda: not any(c.list("Pod", ns) for ns in self.namespaces), timeout=30)
        for lease in c.list("Lease", "kai-scheduler"):
            c.delete("Lease", lease["metadata"]["name"], "kai-scheduler")
        if ok:
            shutil.rmtree(self.tmp, ignore_errors=True)


def no_403(t):
    bad = t.forbidden()
    check(not bad, "the API server refused Gantry's ServiceAccount (403): %s" % bad[:10])


def condition(obj, typ):
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c["type"] == typ:
            return c
    return None




# ---------------------------------------------------------------- workloads, as their operators leave them

EXAMPLES = os.path.join(ROOT, "examples", "workloads")

# The pods of these kinds (and a Deployment's ReplicaSets) are kube-controller-manager's to make.
CONTROLLED = {"ReplicaSet", "StatefulSet", "Job"}
# what those controllers write on a pod themselves: left out of the templates made from example pods
CONTROLLER_LABELS = {"pod-template-hash", "controller-revision-hash", "statefulset.kubernetes.io/pod-name",
                     "apps.kubernetes.io/pod-index", "job-name", "controller-uid", "batch.kubernetes.io/job-name",
                     "batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-completion-index"}
CONTROLLER_ANNOTATIONS = {"batch.kubernetes.io/job-completion-index"}


def example(*names):
    """The objects of examples/workloads/<name>.yaml, in file order (dates as strings)."""
    out = []
    for name in names:
        with open(os.path.join(EXAMPLES, name + ".yaml")) as f:
            out += [json.loads(json.dumps(d, default=str)) for d in yaml.safe_load_all(f) if d]
    return out


def key(o):
    return "%s/%s" % (o["metadata"].get("namespace", ""), o["metadata"]["name"])


def labels(o):
    return o["metadata"].get("labels") or {}


def annotations(o):
    return o["metadata"].get("annotations") or {}


def controller_of(o):
    """(kind, name) of the ownerReference with controller: true, or None."""
    for r in o["metadata"].get("ownerReferences") or []:
        if r.get("controller"):
            return r["kind"], r["name"]
    return None


def example_cluster(t, nodes=None):
    """examples/workloads/00-cluster.yaml on the server: its Nodes (the first @nodes of them, made
    ready), the Queues that are not there yet (deploy/defaults.yaml makes the default ones) and its
    Topology; teardown removes them."""
    objs = example("00-cluster")
    made = [o for o in objs if o["kind"] == "Node"][:nodes]
    t.create(*[ready_node(n) for n in made])
    for q in [o for o in objs if o["kind"] == "Queue"]:
        if not t.c.get_or_none("Queue", q["metadata"]["name"]):
            q["metadata"].setdefault("labels", {})["e2e.gantry.test/queue"] = "true"
            t.create(q)
    for o in objs:
        if o["kind"] not in ("Node", "Queue"):
            t.c.create_any(o)
            t.cleanup.append((o["apiVersion"], o["kind"], o["metadata"]["name"]))
    t.nodes_ready()
    return made


class Workloads:
    """Makes workloads as their operators leave them in the API server, owners first.

    An example's uids are made up: each object gets the uid the server gave its owner in its
    ownerReferences (a dangling uid would have the garbage collector delete it), and any other
    field that quotes a made-up uid (a selector on the revision's uid, say) quotes the real one.
    Namespaces are renamed by @ns_map, in metadata and in any reference. A status is written through the status subresource.

    Objects of the kinds kube-controller-manager runs (Deployment, ReplicaSet, StatefulSet, Job)
    are left to their controllers: made valid (a selector, the template of the first example pod
    they own, a container where the example abbreviates it), they make the pods (and a
    Deployment its ReplicaSet) themselves; the example's own are not created. A StatefulSet's pods
    have the names of the example's, and get the labels and annotations the example gives each
    (a LeaderWorkerSet's group index, which its webhook writes); other controllers' pods are found
    by their owner. settle() waits for them all."""

    def __init__(self, t, ns_map=None):
        self.t, self.c = t, t.c
        self.ns_map = dict(ns_map or {})
        self.uids = {}            # made-up uid -> the server's
        self.expected = {}        # namespace -> pods the workloads made so far will have

    def ns(self, ns):
        return self.ns_map.get(ns, ns)

    def create(self, *objs):
        """Creates @objs in order; the objects as the server returned them (controller-made ones left out)."""
        objs = [json.loads(json.dumps(o)) for o in objs]
        unserved = [o for o in objs if not self._served(o)]
        if unserved:
            CLUSTER.third_party_crds(unserved)
        by_key = {(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]): o for o in objs}

        def controlled_by(o):
            """The object of @objs that a controller of kube-controller-manager makes @o for, else None."""
            c = controller_of(o)
            owner = c and by_key.get((c[0], o["metadata"].get("namespace"), c[1]))
            if not owner:
                return None
            if o["kind"] == "Pod" and owner["kind"] in CONTROLLED:
                return controlled_by(owner) or owner
            if o["kind"] == "ReplicaSet" and owner["kind"] == "Deployment":
                return owner
            return None
        made_for = {id(o): controlled_by(o) for o in objs}
        pods_of = {}
        for o in objs:
            if o["kind"] == "Pod" and made_for[id(o)] is not None:
                pods_of.setdefault(id(made_for[id(o)]), []).append(o)
        out = []
        for o in objs:
            ns = o["metadata"].get("namespace")
            if o["kind"] == "Pod":
                self.expected[self.ns(ns)] = self.expected.get(self.ns(ns), 0) + 1
            if made_for[id(o)] is not None:
                if o["kind"] == "Pod" and made_for[id(o)]["kind"] == "StatefulSet":
                    self._dress_stateful_pod(o)
                continue
            if o["kind"] in ("Deployment", "ReplicaSet", "StatefulSet", "Job") and id(o) in pods_of:
                self._make_valid(o, pods_of[id(o)])
            out.append(self._create(o))
        return out

    def _served(self, o):
        try:
            self.c.resource_path(o["apiVersion"], o["kind"])
            return True
        except kube.ApiError as e:
            if e.code != 404:
                raise
            return False

    def _real(self, o):
        """@o with the server's uids and the mapped namespace, ready to create."""
        md = o["metadata"]
        fake = md.pop("uid", None)
        for f in ("resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink"):
            md.pop(f, None)
        if md.get("namespace"):
            md["namespace"] = self.ns(md["namespace"])
        for r in md.get("ownerReferences") or []:
            if r["uid"] not in self.uids:
                self.uids[r["uid"]] = self._uid_of(r["apiVersion"], r["kind"], r["name"], md.get("namespace"))
        o = self._replace_uids(o)
        return o, fake

    def _replace_uids(self, v):
        """@v with the server's uids for made-up ones, and mapped namespaces in every "namespace"
        field (a PodGang names its pods with theirs)."""
        if isinstance(v, dict):
            return {k: (self.ns(x) if k == "namespace" and isinstance(x, str) else self._replace_uids(x))
                    for k, x in v.items()}
        if isinstance(v, list):
            return [self._replace_uids(x) for x in v]
        return self.uids.get(v, v) if isinstance(v, str) else v

    def _uid_of(self, api_version, kind, name, ns):
        """The uid of an owner this helper did not create (a pod a controller made, say)."""
        obj = wait_for("%s %s/%s on the server" % (kind, ns, name),
                       lambda: self.c.get_any(api_version, kind, name, ns), timeout=20)
        return obj["metadata"]["uid"]

    def _create(self, o):
        o, fake = self._real(o)
        status = o.pop("status", None)
        made = self.c.create_any(o)
        if not o["metadata"].get("namespace"):
            self.t.cleanup.append((o["apiVersion"], o["kind"], o["metadata"]["name"]))
        if status and o["kind"] != "Pod":
            made = self.c.patch_any(o["apiVersion"], o["kind"], o["metadata"]["name"], {"status": status},
                                    o["metadata"].get("namespace"), sub="status")
        if fake:
            self.uids[fake] = made["metadata"]["uid"]
        return made

    def _make_valid(self, o, pods):
        """@o (a Deployment, ReplicaSet, StatefulSet or Job) with the template its first pod shows."""
        first = pods[0]
        tmpl = {"metadata": {"labels": {k: v for k, v in labels(first).items() if k not in CONTROLLER_LABELS},
                             "annotations": {k: v for k, v in annotations(first).items()
                                             if k not in CONTROLLER_ANNOTATIONS}},
                "spec": json.loads(json.dumps(first["spec"]))}
        pspec = tmpl["spec"]
        pspec.pop("nodeName", None)
        if not pspec.get("containers"):
            pspec["containers"] = [{"name": "main", "image": "registry.example/workload:1"}]
        spec = o.setdefault("spec", {})
        if o["kind"] == "Job":
            if pspec.get("restartPolicy") not in ("Never", "OnFailure"):
                pspec["restartPolicy"] = "OnFailure"
        else:
            pspec.pop("restartPolicy", None)     # Always, the only one these take
            sel = (spec.get("selector") or {}).get("matchLabels")
            if not sel or any(tmpl["metadata"]["labels"].get(k) != v for k, v in sel.items()):
                sel = {"e2e.gantry.test/workload": o["metadata"]["name"]}
                tmpl["metadata"]["labels"].update(sel)
            spec["selector"] = {"matchLabels": sel}
        if o["kind"] == "StatefulSet":
            prefix = o["metadata"]["name"] + "-"
            ordinals = [int(p["metadata"]["name"][len(prefix):]) for p in pods
                        if p["metadata"]["name"][len(prefix):].isdigit()]
            if ordinals and min(ordinals):
                spec["ordinals"] = {"start": min(ordinals)}
        spec["template"] = tmpl

    def _dress_stateful_pod(self, o):
        """The StatefulSet's pod of @o's name, once its controller made it, with @o's labels and annotations."""
        ns, name = self.ns(o["metadata"]["namespace"]), o["metadata"]["name"]
        made = wait_for("pod %s/%s made by its StatefulSet" % (ns, name),
                        lambda: self.c.get_or_none("Pod", name, ns), timeout=20)
        want = {"labels": {k: v for k, v in labels(o).items() if k not in CONTROLLER_LABELS},
                "annotations": dict(annotations(o))}
        want = self._replace_uids(want)
        self.c.patch("Pod", name, {"metadata": want}, namespace=ns)
        if o["metadata"].get("uid"):
            self.uids[o["metadata"]["uid"]] = made["metadata"]["uid"]

    def settle(self):
        """Waits until every workload's pods exist (the ones controllers make included)."""
        for ns, n in self.expected.items():
            wait_for("%d pods in %s" % (n, ns), lambda: len(self.c.list("Pod", ns)) >= n, timeout=30)
        for ns, n in self.expected.items():
            have = len(self.c.list("Pod", ns))
            check(have == n, "%s has %d pods, its workloads %d" % (ns, have, n))


def read_back(c, kinds, namespaces=()):
    """The objects of @kinds [(apiVersion, kind)] on the server, each with its kind and apiVersion;
    namespaced kinds from @namespaces only."""
    items = []
    for api_version, kind in kinds:
        c.resource_path(api_version, kind)      # discovery, for the scope
        namespaced = c.discovered[api_version][kind][1]
        items += [o for o in c.list_any(api_version, kind)
                  if not namespaced or o["metadata"]["namespace"] in namespaces]
    return items


def simulate(t, items, *flags):
    """`gantry simulate -o json` of @items."""
    fx = os.path.join(t.tmp, "simulate-input.json")
    with open(fx, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items}, f)
    sim = subprocess.run([ARGS.gantry, "simulate", "-f", fx, "-o", "json", *flags], capture_output=True, text=True,
                         timeout=60)
    check(sim.returncode == 0, "simulate failed: " + sim.stderr)
    return json.loads(sim.stdout)
