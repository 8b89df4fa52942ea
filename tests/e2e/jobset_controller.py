"""jobset_controller.py - a minimal JobSet controller for the end-to-end tests.

The control plane has no JobSet controller (it is an add-on: sigs.k8s.io/jobset). This one makes
what the real one makes for a JobSet (jobset.x-k8s.io/v1alpha2) that the podgrouper reads: for
each replicated job and each of its replicas a batch Job named <jobset>-<replicated job>-<index>,
owned by the JobSet (controller reference), with the JobSet's labels and annotations on the Job
and on its pod template (jobset-name, replicatedjob-name, replicatedjob-replicas, job-index,
job-global-index, job-key, restart-attempt, jobset-uid), so that kube-controller-manager's job
controller makes the pods, which carry them. All replicated jobs are created at once, as with
startupPolicyOrder AnyOrder (the default). The rest of the real controller (the headless Service
and pod hostnames, InOrder start-up, success and failure policies, status) is not here: nothing
the podgrouper reads depends on it.

It lists and watches JobSets in the namespaces it is given and creates the Jobs a JobSet lacks
(a Job that exists is left as it is). Every action is logged as one line.
"""

import hashlib
import json
import threading
import time
import urllib.parse
import urllib.request

import kube

GROUP_VERSION = "jobset.x-k8s.io/v1alpha2"
PREFIX = "jobset.sigs.k8s.io/"


def child_jobs(js):
    """The Jobs the JobSet controller makes for @js (a JobSet as the server returned it)."""
    md = js["metadata"]
    out = []
    global_index = 0
    for rj in js["spec"]["replicatedJobs"]:
        replicas = int(rj.get("replicas", 1))
        for i in range(replicas):
            name = "%s-%s-%d" % (md["name"], rj["name"], i)
            marks = {PREFIX + "jobset-name": md["name"], PREFIX + "replicatedjob-name": rj["name"],
                     PREFIX + "replicatedjob-replicas": str(replicas), PREFIX + "job-index": str(i),
                     PREFIX + "job-global-index": str(global_index), PREFIX + "restart-attempt": "0",
                     PREFIX + "jobset-uid": md["uid"],
                     PREFIX + "job-key": hashlib.sha1(("%s/%s" % (md["namespace"], name)).encode()).hexdigest()}
            global_index += 1
            tmpl = json.loads(json.dumps(rj["template"]))
            jmd = tmpl.setdefault("metadata", {})
            for f in ("labels", "annotations"):
                jmd[f] = dict(jmd.get(f) or {}, **marks)
            pod_md = tmpl["spec"]["template"].setdefault("metadata", {})
            for f in ("labels", "annotations"):
                pod_md[f] = dict(pod_md.get(f) or {}, **marks)
            jmd.update(name=name, namespace=md["namespace"],
                       ownerReferences=[{"apiVersion": GROUP_VERSION, "kind": "JobSet", "name": md["name"],
                                         "uid": md["uid"], "controller": True, "blockOwnerDeletion": True}])
            out.append(dict(tmpl, apiVersion="batch/v1", kind="Job"))
    return out


class JobSetController:
    """Runs on a thread of its own from start() to stop()."""

    def __init__(self, client, namespaces, log_path):
        self.c = client
        self.namespaces = list(namespaces)
        self.log = open(log_path, "a")
        self.stopping = threading.Event()
        self.threads = []
        self.made = []              # (namespace, Job name), in the order they were made

    def say(self, *words):
        self.log.write("%.3f %s\n" % (time.time(), " ".join(str(w) for w in words)))
        self.log.flush()

    def start(self):
        for ns in self.namespaces:
            t = threading.Thread(target=self.run, args=(ns,), daemon=True)
            t.start()
            self.threads.append(t)
        return self

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join(10)
        self.log.close()

    def reconcile(self, js):
        if js["metadata"].get("deletionTimestamp"):
            return
        for job in child_jobs(js):
            md = job["metadata"]
            if self.c.get_or_none("Job", md["name"], md["namespace"]):
                continue
            try:
                self.c.create(job)
            except kube.ApiError as e:
                if e.code != 409:
                    raise
                continue
            self.made.append((md["namespace"], md["name"]))
            self.say("created Job", "%s/%s" % (md["namespace"], md["name"]), "for JobSet", js["metadata"]["name"])

    def watch(self, path, rv):
        """(type, object) of a watch of @path from @rv, until it ends (a short timeout, to see a stop)."""
        q = urllib.parse.urlencode({"watch": "true", "resourceVersion": rv, "timeoutSeconds": "5",
                                    "allowWatchBookmarks": "true"})
        req = urllib.request.Request(self.c.server + path + "?" + q,
                                     headers={"Accept": "application/json", "User-Agent": "e2e-jobset-controller"})
        with urllib.request.urlopen(req, timeout=15, context=self.c.ctx) as r:
            for line in r:
                if line.strip():
                    ev = json.loads(line)
                    yield ev["type"], ev["object"]

    def run(self, ns):
        path = self.c.resource_path(GROUP_VERSION, "JobSet", None, ns)
        while not self.stopping.is_set():
            try:
                listed = self.c.request("GET", path)
                for js in listed["items"]:
                    self.reconcile(js)
                rv = listed["metadata"]["resourceVersion"]
                while not self.stopping.is_set():
                    for typ, obj in self.watch(path, rv):
                        if typ == "ERROR":      # 410 Gone: list again
                            raise RuntimeError(obj.get("message"))
                        rv = obj["metadata"].get("resourceVersion", rv)
                        if typ in ("ADDED", "MODIFIED"):
                            self.reconcile(obj)
                        if self.stopping.is_set():
                            break
            except Exception as e:  # a 410, a cut stream: list again
                self.say("relisting after", repr(e)[:200])
                self.stopping.wait(0.2)
