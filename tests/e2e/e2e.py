"""e2e.py - what the end-to-end tests share: the control plane for the run (Cluster), one test's
namespace, directory and processes (T), a gantry process (Gantry), object builders and checks.

The runner (run-e2e) sets ARGS and CLUSTER before the first test.
"""

import base64  # noqa: F401
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
        self.kubectl("wait", "--for", "condition=established", "--timeout=60s", "crd", "--all")
        self.kubectl("apply", "--validate=strict", "-f", os.path.join(ROOT, "deploy", "rbac.yaml"),
                     "-f", os.path.join(ROOT, "deploy", "defaults.yaml"))
        wait_for("the gantry-scheduler ServiceAccount",
                 lambda: self.c.get_or_none("ServiceAccount", "gantry-scheduler", "kai-scheduler"))
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
        for (group, kind), versions in sorted(want.items()):
            plural = kind.lower() + ("es" if kind.lower().endswith("s") else "s")
            versions = sorted(versions)
            crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                   "metadata": {"name": "%s.%s" % (plural, group)},
                   "spec": {"group": group, "scope": "Namespaced",
                            "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": kind + "List"},
                            "versions": [{"name": v, "served": True, "storage": v == versions[-1],
                                          "subresources": {"status": {}},
                                          "schema": {"openAPIV3Schema": {"type": "object",
                                                                         "x-kubernetes-preserve-unknown-fields": True}}}
                                         for v in versions]}}
            if not self.c.get_or_none("CustomResourceDefinition", crd["metadata"]["name"]):
                self.c.create(crd)
        self.kubectl("wait", "--for", "condition=established", "--timeout=60s", "crd", "--all")

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
           "nvidia.com/gpu.count": str(gpus), "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB",
           "e2e.gantry.test/node": "true"}
    lab.update(labels or {})
    res = {"cpu": cpu, "memory": memory, "pods": "110"}
    if gpus:
        res["nvidia.com/gpu"] = str(gpus)
    status = {"allocatable": res, "capacity": dict(res),
              "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                              "message": "fake-kubelet is posting ready status"}],
              "nodeInfo": {"kubeletVersion": "v1.37.2", "architecture": "amd64", "operatingSystem": "linux",
                           "bootID": "", "containerRuntimeVersion": "", "kernelVersion": "", "kubeProxyVersion": "",
                           "machineID": "", "osImage": "", "systemUUID": ""}}
    spec = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": lab, "annotations": {"e2e.gantry.test/status": json.dumps(status)}},
            "spec": spec, "status": status}


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

    def setup(self):
        CLUSTER.install()
        self.c.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.ns}})
        # pods are refused until the namespace's default ServiceAccount exists
        wait_for("the default ServiceAccount in " + self.ns,
                 lambda: self.c.get_or_none("ServiceAccount", "default", self.ns))

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
        bad = []
        for ev in CLUSTER.audit_since(self.audit_at):
            if ev.get("stage") != "ResponseComplete":
                continue
            if ev.get("user", {}).get("username") == SA_USER and ev.get("responseStatus", {}).get("code") == 403:
                bad.append("%s %s" % (ev.get("verb"), ev.get("requestURI")))
        return bad

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
        for q in c.list("Queue", selector="e2e.gantry.test/queue=true"):
            c.delete("Queue", q["metadata"]["name"])
        for ns in (self.ns, "kai-resource-reservation"):
            for p in c.list("Pod", ns):
                c.delete("Pod", p["metadata"]["name"], ns, grace=0)
        c.delete("Namespace", self.ns)
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


