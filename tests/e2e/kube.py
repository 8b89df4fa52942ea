"""kube.py - a small client for the real API server the end-to-end tests run against.

Only what the tests need: GET/LIST/CREATE/PATCH/DELETE by path, server-side apply, a watch stream,
and the paths of the kinds the tests touch. TLS with the CA and client certificate (or a bearer
token) that tools/control-plane wrote. Standard library only.
"""

import json
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request


class ApiError(Exception):
    def __init__(self, code, body, what):
        self.code = code
        self.body = body
        try:
            self.status = json.loads(body)
        except ValueError:
            self.status = {}
        super().__init__("%s: HTTP %d: %s" % (what, code, self.status.get("message", body[:300])))


# kind -> (API prefix, plural, namespaced)
KINDS = {
    "Namespace": ("/api/v1", "namespaces", False),
    "Node": ("/api/v1", "nodes", False),
    "Pod": ("/api/v1", "pods", True),
    "Event": ("/api/v1", "events", True),
    "ConfigMap": ("/api/v1", "configmaps", True),
    "ServiceAccount": ("/api/v1", "serviceaccounts", True),
    "PersistentVolume": ("/api/v1", "persistentvolumes", False),
    "PersistentVolumeClaim": ("/api/v1", "persistentvolumeclaims", True),
    "Job": ("/apis/batch/v1", "jobs", True),
    "Deployment": ("/apis/apps/v1", "deployments", True),
    "StatefulSet": ("/apis/apps/v1", "statefulsets", True),
    "ReplicaSet": ("/apis/apps/v1", "replicasets", True),
    "PodDisruptionBudget": ("/apis/policy/v1", "poddisruptionbudgets", True),
    "Lease": ("/apis/coordination.k8s.io/v1", "leases", True),
    "PriorityClass": ("/apis/scheduling.k8s.io/v1", "priorityclasses", False),
    "StorageClass": ("/apis/storage.k8s.io/v1", "storageclasses", False),
    "RuntimeClass": ("/apis/node.k8s.io/v1", "runtimeclasses", False),
    "CustomResourceDefinition": ("/apis/apiextensions.k8s.io/v1", "customresourcedefinitions", False),
    "Queue": ("/apis/scheduling.run.ai/v2", "queues", False),
    "PodGroup": ("/apis/scheduling.run.ai/v2alpha2", "podgroups", True),
    "BindRequest": ("/apis/scheduling.run.ai/v1alpha2", "bindrequests", True),
    "Topology": ("/apis/kai.scheduler/v1alpha1", "topologies", False),
    "SchedulingShard": ("/apis/kai.scheduler/v1", "schedulingshards", False),
    "Config": ("/apis/kai.scheduler/v1", "configs", False),
}


def path_of(kind, name=None, namespace=None, sub=None):
    prefix, plural, namespaced = KINDS[kind]
    p = prefix
    if namespaced and namespace:
        p += "/namespaces/" + namespace
    p += "/" + plural
    if name:
        p += "/" + name
    if sub:
        p += "/" + sub
    return p


class Client:
    def __init__(self, server, ca, cert=None, key=None, token=None, user_agent="gantry-e2e"):
        self.server = server.rstrip("/")
        self.ctx = ssl.create_default_context(cafile=ca)
        if cert:
            self.ctx.load_cert_chain(cert, key)
        self.token = token
        self.user_agent = user_agent
        self.discovered = {}      # apiVersion -> {kind: (plural, namespaced)}

    def request(self, method, path, body=None, content_type="application/json", query=None, timeout=30):
        url = self.server + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None
        if body is not None:
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        headers = {"Accept": "application/json", "User-Agent": self.user_agent}
        if data is not None:
            headers["Content-Type"] = content_type
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout, context=self.ctx) as r:
                raw = r.read()
                return json.loads(raw) if raw else None
        except urllib.error.HTTPError as e:
            raise ApiError(e.code, e.read().decode(errors="replace"), "%s %s" % (method, path)) from None

    # ------------------------------------------------------------ any kind, through discovery

    def resource_path(self, api_version, kind, name=None, namespace=None, sub=None):
        """The path of @kind of @api_version (a CRD's too), its plural found by discovery."""
        if api_version not in self.discovered:
            prefix = "/api/" if "/" not in api_version else "/apis/"
            doc = self.request("GET", prefix + api_version)
            self.discovered[api_version] = {r["kind"]: (r["name"], r["namespaced"]) for r in doc["resources"]
                                            if "/" not in r["name"]}
        res = self.discovered[api_version].get(kind)
        if not res:
            self.discovered.pop(api_version)    # a CRD made since: look again next time
            raise ApiError(404, "{}", "%s %s is not served" % (api_version, kind))
        plural, namespaced = res
        p = ("/api/" if "/" not in api_version else "/apis/") + api_version
        if namespaced and namespace:
            p += "/namespaces/" + namespace
        p += "/" + plural
        if name:
            p += "/" + name
        if sub:
            p += "/" + sub
        return p

    def create_any(self, obj):
        md = obj["metadata"]
        return self.request("POST", self.resource_path(obj["apiVersion"], obj["kind"], None, md.get("namespace")), obj)

    def get_any(self, api_version, kind, name, namespace=None):
        return self.request("GET", self.resource_path(api_version, kind, name, namespace))

    def list_any(self, api_version, kind, namespace=None):
        """The objects, each with its kind and apiVersion (a LIST leaves them out)."""
        items = self.request("GET", self.resource_path(api_version, kind, None, namespace))["items"]
        for o in items:
            o["kind"], o["apiVersion"] = kind, api_version
        return items

    def patch_any(self, api_version, kind, name, patch, namespace=None, sub=None):
        return self.request("PATCH", self.resource_path(api_version, kind, name, namespace, sub), patch,
                            content_type="application/merge-patch+json")

    # ------------------------------------------------------------ objects

    def get(self, kind, name, namespace=None, sub=None):
        return self.request("GET", path_of(kind, name, namespace, sub))

    def get_or_none(self, kind, name, namespace=None):
        try:
            return self.get(kind, name, namespace)
        except ApiError as e:
            if e.code == 404:
                return None
            raise

    def list(self, kind, namespace=None, selector=None):
        q = {"labelSelector": selector} if selector else None
        return self.request("GET", path_of(kind, None, namespace), query=q)["items"]

    def create(self, obj, sub=None):
        md = obj["metadata"]
        return self.request("POST", path_of(obj["kind"], None, md.get("namespace")), obj)

    def apply(self, obj, manager="gantry-e2e", force=True):
        """Server-side apply, with strict field validation: an unknown or duplicate field fails."""
        md = obj["metadata"]
        return self.request("PATCH", path_of(obj["kind"], md["name"], md.get("namespace")), obj,
                            content_type="application/apply-patch+yaml",
                            query={"fieldManager": manager, "force": "true" if force else "false",
                                   "fieldValidation": "Strict"})

    def patch(self, kind, name, patch, namespace=None, sub=None, merge=True):
        ct = "application/merge-patch+json" if merge else "application/json-patch+json"
        return self.request("PATCH", path_of(kind, name, namespace, sub), patch, content_type=ct)

    def delete(self, kind, name, namespace=None, grace=None, propagation=None):
        body = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if grace is not None:
            body["gracePeriodSeconds"] = grace
        if propagation:
            body["propagationPolicy"] = propagation
        try:
            return self.request("DELETE", path_of(kind, name, namespace), body)
        except ApiError as e:
            if e.code != 404:
                raise
            return None

    def watch(self, kind, namespace=None, resource_version=None, timeout=300):
        """Yields (type, object) from a watch stream until it ends."""
        q = {"watch": "true", "allowWatchBookmarks": "true", "timeoutSeconds": str(timeout)}
        if resource_version:
            q["resourceVersion"] = resource_version
        url = self.server + path_of(kind, None, namespace) + "?" + urllib.parse.urlencode(q)
        headers = {"Accept": "application/json", "User-Agent": self.user_agent}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        req = urllib.request.Request(url, headers=headers)
        with urllib.request.urlopen(req, timeout=timeout + 10, context=self.ctx) as r:
            for line in r:
                if line.strip():
                    ev = json.loads(line)
                    yield ev["type"], ev["object"]


def wait_for(what, fn, timeout=30.0, interval=0.1):
    """Calls fn until it returns something true; that value is returned. Raises AssertionError."""
    deadline = time.time() + timeout
    last_err = None
    while time.time() < deadline:
        try:
            v = fn()
            if v:
                return v
        except ApiError as e:
            last_err = e
        time.sleep(interval)
    raise AssertionError("timed out after %.0f s waiting for %s%s" % (timeout, what,
                         " (last error: %s)" % last_err if last_err else ""))
