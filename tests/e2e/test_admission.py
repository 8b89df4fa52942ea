"""End-to-end tests of the admission webhooks against the real control plane.

The API server calls `gantry admission` (and `gantry scheduler --admission`) over TLS: the webhook
listens on loopback and registers its configurations with a url clientConfig pointing at it and
the caBundle of the CA it made and keeps in its Secret. Each test confines the pod webhooks to its
own namespace (a namespace label, as global.namespaceLabelSelector does); the Queue, PodGroup and
Topology webhooks are cluster-wide while a test runs, and its teardown removes the configurations
and the Secret whatever happened.
"""

import base64
import json
import socket
import ssl
import threading
import time

import e2e
import kube
from e2e import Gantry, check, no_403, node, pod, podgroup, queue, wait_for

NS = "kai-scheduler"
SECRET = "gantry-admission-tls"
CONFIG = "gantry-admission"
ADMISSION_API = "admissionregistration.k8s.io/v1"
KINDS = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")


def remove_registration(t):
    """The configurations and the Secret go with the test (a configuration left behind with
    failurePolicy Fail and a dead URL would refuse every later test's Queues)."""
    c = t.c
    for kind in KINDS:
        try:
            c.request("DELETE", c.resource_path(ADMISSION_API, kind, CONFIG))
        except kube.ApiError as e:
            if e.code != 404:
                raise
    try:
        c.request("DELETE", c.resource_path("v1", "Secret", SECRET, NS))
    except kube.ApiError as e:
        if e.code != 404:
            raise


def webhook_flags(t, *extra):
    """The webhook on loopback, registered by URL, its pod webhooks confined to the test's namespace."""
    return ["--webhook-bind-address", "127.0.0.1:0", "--webhook-url", "https://127.0.0.1",
            "--tls-san", "127.0.0.1", "--webhook-namespace-label", "kubernetes.io/metadata.name=" + t.ns,
            "--webhook-owner-cluster-role", "gantry-scheduler", *extra]


def registered(t):
    """Nothing of an earlier run left; what this test registers goes at its teardown, pass or fail."""
    remove_registration(t)
    for kind in KINDS:
        t.cleanup.append((ADMISSION_API, kind, CONFIG))


def start_admission(t, *extra, wait=True):
    """`gantry admission` with the ServiceAccount's token (once the API server calls it)."""
    registered(t)
    g = Gantry(t, "admission", t.sa_kubeconfig(), "--namespace", NS, *webhook_flags(t, *extra), "--log-level", "debug")
    if wait:
        wait_until_called(t, g)
    return g


def wait_until_called(t, g):
    """The configurations are there and the API server's webhook informer has them: a dry-run create
    of a fractional pod comes back with its ConfigMap annotation."""
    def mutated():
        if g.proc.poll() is not None:
            raise e2e.Fail("gantry exited %d:\n%s" % (g.proc.returncode, g.output()[-3000:]))
        p = pod("probe", t.ns, fraction="0.5", q="default-queue")
        try:
            made = t.c.request("POST", "/api/v1/namespaces/%s/pods" % t.ns, p, query={"dryRun": "All"})
        except kube.ApiError:
            return None
        return "runai/shared-gpu-configmap" in (made["metadata"].get("annotations") or {})
    wait_for("the API server calling the webhook", mutated, timeout=30, interval=0.2)


def config(t, kind):
    return t.c.get_any(ADMISSION_API, kind, CONFIG)


def refused(fn):
    """The ApiError @fn raises (it must raise one)."""
    try:
        fn()
    except kube.ApiError as e:
        return e
    raise e2e.Fail("the request was admitted")


def env_ref(container, var):
    for e in container.get("env") or []:
        if e["name"] == var:
            return ((e.get("valueFrom") or {}).get("configMapKeyRef") or {}).get("name")
    return None


# ---------------------------------------------------------------- tests

def test_admission_webhooks(t):
    """The configurations as KAI registers them; a fractional pod gets its ConfigMap references,
    env, volume and runtime class; bad pods, Queues, PodGroups and Topologies are refused with
    KAI's messages; pods of other schedulers are left alone."""
    t.setup()
    g = start_admission(t, "--gpu-sharing-enabled")
    mut, val = config(t, KINDS[0]), config(t, KINDS[1])
    owner = mut["metadata"].get("ownerReferences") or [{}]
    role = t.c.get_any("rbac.authorization.k8s.io/v1", "ClusterRole", "gantry-scheduler")
    check(owner[0].get("kind") == "ClusterRole" and owner[0].get("uid") == role["metadata"]["uid"],
          "configuration owner %s" % owner)
    hook = mut["webhooks"][0]
    check(hook["name"] == "admission.kai-scheduler.svc" and hook["failurePolicy"] == "Fail" and
          hook["sideEffects"] == "None" and hook["reinvocationPolicy"] == "IfNeeded", "mutating webhook %s" % hook)
    check(hook["matchConditions"] == [{"name": "scheduler-name-match",
                                      "expression": "object.spec.schedulerName == 'kai-scheduler'"}],
          "matchConditions %s" % hook.get("matchConditions"))
    check({"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system", NS]}
          in hook["namespaceSelector"]["matchExpressions"], "namespaceSelector %s" % hook["namespaceSelector"])
    check(hook["clientConfig"]["url"].startswith("https://127.0.0.1:") and
          hook["clientConfig"]["url"].endswith("/mutate--v1-pod"), "clientConfig %s" % hook["clientConfig"])
    names = [h["name"] for h in val["webhooks"]]
    check(names == ["admission.kai-scheduler.svc", "topology.admission.kai-scheduler.svc",
                    "queue-validation.kai.scheduler", "podgroup-validation.kai.scheduler"], "validating webhooks %s" % names)
    secret = t.c.get_any("v1", "Secret", SECRET, NS)
    check(secret["type"] == "kubernetes.io/tls" and set(secret["data"]) == {"tls.crt", "tls.key", "ca.crt", "ca.key"},
          "Secret %s %s" % (secret["type"], sorted(secret["data"])))
    check(base64.b64decode(hook["clientConfig"]["caBundle"]) == base64.b64decode(secret["data"]["ca.crt"]),
          "the caBundle is not the Secret's ca.crt")

    # a fractional pod, as the API server stores it
    made = t.c.create(pod("frac", t.ns, fraction="0.5", q="default-queue"))
    prefix = made["metadata"]["annotations"].get("runai/shared-gpu-configmap", "")
    check(prefix.startswith("frac-") and prefix.endswith("-shared-gpu"), "annotation %s" % made["metadata"]["annotations"])
    c0 = made["spec"]["containers"][0]
    for var in ("NVIDIA_VISIBLE_DEVICES", "RUNAI_NUM_OF_GPUS", "GPU_PORTION"):
        check(env_ref(c0, var) == prefix + "-0", "%s from %s" % (var, env_ref(c0, var)))
    check(c0.get("envFrom") == [{"configMapRef": {"name": prefix + "-0-evar", "optional": False}}], "envFrom %s" % c0.get("envFrom"))
    vols = {v["name"]: v for v in made["spec"].get("volumes") or []}
    check(vols.get(prefix + "-0-vol", {}).get("configMap", {}).get("name") == prefix + "-0", "volumes %s" % sorted(vols))
    check(made["spec"].get("runtimeClassName") == "nvidia", "runtimeClassName %s" % made["spec"].get("runtimeClassName"))

    # refused with KAI's messages, under KAI's webhook names
    deny = 'admission webhook "%s" denied the request: %s'
    e = refused(lambda: t.c.create(pod("bad", t.ns, fraction="1.5", q="default-queue")))
    want = deny % ("admission.kai-scheduler.svc", "gpu-fraction annotation value must be a positive number smaller than 1.0")
    check(e.code == 403 and e.status.get("message") == want, "fraction 1.5: %d %s" % (e.code, e.status.get("message")))
    e = refused(lambda: t.c.create(pod("both", t.ns, gpus=1, fraction="0.5", q="default-queue")))
    check("cannot have both GPU fraction request and whole GPU resource request/limit" in e.status.get("message", ""),
          "fraction and whole GPU: %s" % e.status.get("message"))
    q = queue("e2e-adm-q")
    del q["spec"]["resources"]
    e = refused(lambda: t.c.create(q))
    check(e.status.get("message") == deny % ("queue-validation.kai.scheduler", "resources must be specified"),
          "Queue: %s" % e.status.get("message"))
    pg = podgroup("pg", t.ns, "default-queue", 2)
    pg["spec"]["minSubGroup"] = 1
    e = refused(lambda: t.c.create(pg))
    check(e.status.get("message") == deny % ("podgroup-validation.kai.scheduler", "minMember and minSubGroup are mutually "
          "exclusive: set minMember (2) to schedule a fixed number of pods, or set minSubGroup to require a minimum "
          "number of child SubGroups, but not both"), "PodGroup: %s" % e.status.get("message"))
    topo = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "e2e-adm-topo"},
            "spec": {"levels": [{"nodeLabel": "zone", "alias": "z"}, {"nodeLabel": "rack", "alias": "z"}]}}
    e = refused(lambda: t.c.create(topo))
    check(e.status.get("message") == deny % ("topology.admission.kai-scheduler.svc", "invalid topology aliases: aliases "
          "must be unique within the topology; duplicated: [z]"), "Topology: %s" % e.status.get("message"))
    # good ones pass
    t.create(queue("e2e-adm-q"), podgroup("pg", t.ns, "default-queue", 2))
    topo["spec"]["levels"][1]["alias"] = "r"
    t.c.create_any(topo)
    t.cleanup.append(("kai.scheduler/v1alpha1", "Topology", "e2e-adm-topo"))

    # another scheduler's pod, and a fractional one in a namespace the selector leaves out: untouched
    other = t.c.create(pod("other", t.ns, fraction="0.5", scheduler="default-scheduler"))
    check("runai/shared-gpu-configmap" not in (other["metadata"].get("annotations") or {}), "another scheduler's pod mutated")
    outside = t.namespace("outside")
    free = t.c.create(pod("free", outside, fraction="7", q="default-queue"))
    check("runai/shared-gpu-configmap" not in (free["metadata"].get("annotations") or {}), "the selector is not applied")
    out = g.output()
    g.stop()
    check("denied 403: gpu-fraction annotation value must be a positive number smaller than 1.0" in out,
          "the denial is not logged")
    no_403(t)
    remove_registration(t)


def test_admission_off_without_gpu_sharing(t):
    """Without --gpu-sharing-enabled (KAI's default) a fractional pod is refused, as KAI refuses it; and
    the webhook answers a review the API server could never send with a clear 400, not a crash."""
    t.setup()
    g = start_admission(t, wait=False)
    e = wait_for("the fractional pod refused", lambda: refused_or_none(
        lambda: t.c.request("POST", "/api/v1/namespaces/%s/pods" % t.ns, pod("p", t.ns, fraction="0.5"),
                            query={"dryRun": "All"})), timeout=30, interval=0.2)
    check(e.status.get("message") == 'admission webhook "admission.kai-scheduler.svc" denied the request: attempting to '
          'create a pod %s/p with gpu sharing request, while GPU sharing is disabled' % t.ns, e.status.get("message"))
    # straight to the webhook: garbage gets a 400 AdmissionReview, an unknown path a 404
    port = int(config(t, KINDS[0])["webhooks"][0]["clientConfig"]["url"].split(":")[2].split("/")[0])
    ctx = ssl.create_default_context(cadata=base64.b64decode(t.c.get_any("v1", "Secret", SECRET, NS)["data"]["ca.crt"]).decode())
    status, body = https(ctx, port, "POST", "/validate--v1-pod", b"{not json")
    review = json.loads(body)
    check(status == 200 and review["response"]["allowed"] is False and review["response"]["status"]["code"] == 400 and
          "not JSON" in review["response"]["status"]["message"], "garbage: %d %s" % (status, body[:300]))
    status, _ = https(ctx, port, "POST", "/nope", b"{}")
    check(status == 404, "unknown path: %d" % status)
    status, body = https(ctx, port, "GET", "/readyz", None)
    check(status == 200, "readyz %d %s" % (status, body))
    check(g.proc.poll() is None, "gantry died:\n" + g.output()[-2000:])
    g.stop()
    no_403(t)
    remove_registration(t)


def refused_or_none(fn):
    try:
        fn()
    except kube.ApiError as e:
        return e
    return None


def https(ctx, port, method, path, body):
    import http.client
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10)
    conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, data.decode(errors="replace")


def test_admission_fraction_bound(t):
    """`gantry scheduler --admission`: the webhook gives a fractional pod its ConfigMap references,
    the scheduler binds it through a reservation pod, and the ConfigMaps the binder writes are the
    ones the pod reads: NVIDIA_VISIBLE_DEVICES the reserved GPU, GPU_PORTION the fraction."""
    t.setup()
    registered(t)
    t.create(node("n1", gpus=2), queue("e2e-adm-share"))
    t.nodes_ready()
    s = t.scheduler("--admission", "--gpu-sharing-enabled", *webhook_flags(t))
    wait_until_called(t, s)
    made = t.c.create(pod("half", t.ns, fraction="0.5", q="e2e-adm-share"))
    prefix = made["metadata"]["annotations"]["runai/shared-gpu-configmap"]
    c0 = made["spec"]["containers"][0]
    caps, evar = env_ref(c0, "NVIDIA_VISIBLE_DEVICES"), c0["envFrom"][0]["configMapRef"]["name"]
    check(caps == prefix + "-0" and evar == prefix + "-0-evar", "pod reads %s and %s" % (caps, evar))
    wait_for("the fractional pod bound", lambda: t.bound().get("half"), timeout=30)
    cms = {c["metadata"]["name"]: c for c in t.c.list("ConfigMap", t.ns)}
    check(caps in cms and evar in cms, "the binder wrote %s; the pod reads %s and %s" % (sorted(cms), caps, evar))
    resv = [p for p in t.c.list("Pod", "kai-resource-reservation")
            if p["metadata"]["labels"].get("runai-gpu-group") == t.pods()["half"]["metadata"]["labels"].get("runai-gpu-group")]
    check(len(resv) == 1, "reservation pods %s" % [p["metadata"]["name"] for p in resv])
    gpu = resv[0]["metadata"]["annotations"]["run.ai/reserve_for_gpu_index"]
    data = cms[caps]["data"]
    check(data.get("NVIDIA_VISIBLE_DEVICES") == gpu and data.get("GPU_PORTION") == "0.50" and
          data.get("RUNAI_NUM_OF_GPUS") == "0.50", "ConfigMap %s: %s (GPU %s)" % (caps, data, gpu))
    out = s.output()
    s.stop()
    check("serving KAI's admission webhooks" in out, "the scheduler did not start the webhooks")
    no_403(t)
    remove_registration(t)


def served_cert(port):
    """The DER certificate the webhook presents now (no verification: it is compared, not trusted)."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        with ctx.wrap_socket(s) as tls:
            return tls.getpeercert(binary_form=True)


def test_admission_certificate_rotation(t):
    """Short-lived certificates (serving 12 s, CA 40 s): while the API server calls the webhook
    without pause, the serving certificate is renewed several times and the CA once, the
    configurations' caBundle carries old and new CA across the switch, and not one request fails."""
    t.setup()
    g = start_admission(t, "--gpu-sharing-enabled", "--tls-cert-validity", "12s", "--tls-ca-validity", "40s")
    port = int(config(t, KINDS[0])["webhooks"][0]["clientConfig"]["url"].split(":")[2].split("/")[0])
    failures, admitted, certs, bundles = [], [0], set(), set()
    stop = threading.Event()

    def call_webhooks():
        n = 0
        while not stop.is_set():
            n += 1
            p = pod("r%d" % n, t.ns, fraction="0.5", q="default-queue")
            try:
                made = t.c.request("POST", "/api/v1/namespaces/%s/pods" % t.ns, p, query={"dryRun": "All"})
                if "runai/shared-gpu-configmap" in (made["metadata"].get("annotations") or {}):
                    admitted[0] += 1
                else:
                    failures.append("not mutated")
            except kube.ApiError as e:
                failures.append(str(e))
    workers = [threading.Thread(target=call_webhooks) for _ in range(2)]
    for w in workers:
        w.start()
    deadline = time.time() + 36
    try:
        while time.time() < deadline:
            certs.add(served_cert(port))
            bundles.add(config(t, KINDS[1])["webhooks"][0]["clientConfig"]["caBundle"])
            time.sleep(0.5)
    finally:
        stop.set()
        for w in workers:
            w.join()
    out = g.output()
    g.stop()
    print("     rotation: %d admitted, %d failed, %d certs, %d bundles" % (admitted[0], len(failures), len(certs), len(bundles)))
    check(not failures, "%d of %d requests failed during rotation: %s" % (len(failures), len(failures) + admitted[0],
                                                                         failures[:5]))
    check(admitted[0] > 50, "only %d requests went through the webhook" % admitted[0])
    check(len(certs) >= 3, "the serving certificate was renewed %d times in 36 s" % (len(certs) - 1))
    two_cas = [b for b in bundles if base64.b64decode(b).count(b"BEGIN CERTIFICATE") == 2]
    check(len(bundles) >= 2 and two_cas, "caBundles seen: %d, with two CAs: %d" % (len(bundles), len(two_cas)))
    check(out.count("making a new CA") >= 1 and out.count("making a new serving certificate") >= 2,
          "renewals logged: %d CA, %d serving" % (out.count("making a new CA"), out.count("making a new serving certificate")))
    no_403(t)
    remove_registration(t)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def verified_cert(port, bundle_b64):
    """The DER certificate the webhook presents, verified as the API server verifies it: against the
    registered caBundle, for the name 127.0.0.1. None when the handshake fails (why in the 2nd value)."""
    ctx = ssl.create_default_context(cadata=base64.b64decode(bundle_b64).decode())
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            with ctx.wrap_socket(s, server_hostname="127.0.0.1") as tls:
                return tls.getpeercert(binary_form=True), None
    except (ssl.SSLError, OSError) as e:
        return None, str(e)


def test_admission_two_replicas(t):
    """Two replicas started at the same instant with short-lived certificates (serving 10 s, CA 30 s):
    they race to create the Secret and then to renew it at the same due times; through the Secret
    they serve only what the Secret holds and come to serve the same certificate, at every moment both present a certificate the registered caBundle
    verifies, while the API server calls one of them without pause and not one request fails."""
    t.setup()
    registered(t)
    ports = [free_port(), free_port()]
    lives = ["--tls-cert-validity", "10s", "--tls-ca-validity", "30s"]
    reps = [Gantry(t, "admission", t.sa_kubeconfig(), "--namespace", NS, "--gpu-sharing-enabled",
                   "--webhook-bind-address", "127.0.0.1:%d" % p, "--webhook-url", "https://127.0.0.1:%d" % ports[0],
                   "--tls-san", "127.0.0.1", "--webhook-namespace-label", "kubernetes.io/metadata.name=" + t.ns,
                   "--webhook-owner-cluster-role", "gantry-scheduler", *lives, name="admission-%d" % i)
            for i, p in enumerate(ports)]
    wait_until_called(t, reps[0])
    wait_for("the second replica serving", lambda: verified_cert(ports[1], config(t, KINDS[1])["webhooks"][0]
                                                                ["clientConfig"]["caBundle"])[0], timeout=30, interval=0.2)
    first = [verified_cert(p, config(t, KINDS[1])["webhooks"][0]["clientConfig"]["caBundle"])[0] for p in ports]
    check(first[0] == first[1], "the two replicas started with different certificates")

    failures, admitted, bad_handshakes = [], [0], []
    seen = [set(), set()]
    cas, secret_certs = set(), set()
    stop = threading.Event()

    def secret_now():
        data = t.c.get_any("v1", "Secret", SECRET, NS)["data"]
        return data["ca.crt"], ssl.PEM_cert_to_DER_cert(base64.b64decode(data["tls.crt"]).decode())

    def call_webhooks():
        n = 0
        while not stop.is_set():
            n += 1
            try:
                made = t.c.request("POST", "/api/v1/namespaces/%s/pods" % t.ns,
                                   pod("r%d" % n, t.ns, fraction="0.5", q="default-queue"), query={"dryRun": "All"})
                if "runai/shared-gpu-configmap" in (made["metadata"].get("annotations") or {}):
                    admitted[0] += 1
                else:
                    failures.append("not mutated")
            except kube.ApiError as e:
                failures.append(str(e))
    worker = threading.Thread(target=call_webhooks)
    worker.start()
    deadline = time.time() + 26
    try:
        while time.time() < deadline:
            bundle = config(t, KINDS[1])["webhooks"][0]["clientConfig"]["caBundle"]
            for i, p in enumerate(ports):
                der, why = verified_cert(p, bundle)
                if der:
                    seen[i].add(der)
                else:
                    bad_handshakes.append("replica %d: %s" % (i, why))
            ca, crt = secret_now()
            cas.add(ca)
            secret_certs.add(crt)
            time.sleep(0.3)
    finally:
        stop.set()
        worker.join()
    # the replicas agree: a moment comes when both serve the certificate the Secret holds
    def agreed():
        bundle = config(t, KINDS[1])["webhooks"][0]["clientConfig"]["caBundle"]
        now = secret_now()[1]
        return all(verified_cert(p, bundle)[0] == now for p in ports)
    wait_for("both replicas serving the Secret's certificate", agreed, timeout=15, interval=0.2)
    outs = [r.output() for r in reps]
    for r in reps:
        r.stop()
    made = [out.count("making a new") for out in outs]
    print("     two replicas: %d admitted, %d failed, %d bad handshakes, certs %d and %d, %d CAs in the Secret, "
          "renewals started %d and %d" % (admitted[0], len(failures), len(bad_handshakes), len(seen[0]), len(seen[1]),
                                         len(cas), made[0], made[1]))
    check(not failures, "%d requests failed: %s" % (len(failures), failures[:5]))
    check(admitted[0] > 20, "only %d requests went through the webhook" % admitted[0])
    check(not bad_handshakes, "%d handshakes not verified by the registered caBundle: %s"
          % (len(bad_handshakes), bad_handshakes[:5]))
    check(len(seen[0]) >= 3 and len(seen[1]) >= 3, "certificates renewed: %d and %d" % (len(seen[0]), len(seen[1])))
    check(not (seen[0] | seen[1]) - secret_certs, "%d certificates served that the Secret never held (a renewal "
          "lost to the other replica's was served)" % len((seen[0] | seen[1]) - secret_certs))
    check(len(seen[0] & seen[1]) >= 3, "the replicas served %d certificates in common" % len(seen[0] & seen[1]))
    check(len(cas) >= 2, "the CA was not renewed in 26 s (%d seen)" % len(cas))
    for i, out in enumerate(outs):
        check("Secret" in out and "serving the certificate" in out, "replica %d's log:\n%s" % (i, out[-2000:]))
    no_403(t)
    remove_registration(t)


TESTS = [test_admission_webhooks, test_admission_off_without_gpu_sharing, test_admission_fraction_bound,
         test_admission_certificate_rotation, test_admission_two_replicas]
