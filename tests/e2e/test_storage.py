"""Volume binding against the real control plane and its PV binder (persistentvolume-binder-controller):
the scheduler reads claims, volumes and classes, writes what kube-scheduler's volume binder writes
(a claim's volume.kubernetes.io/selected-node, a static volume's claimRef), waits for the claims to be
bound and binds the pod where its volume is."""

from e2e import check, condition, no_403, node, pod, queue, wait_for

SELECTED = "volume.kubernetes.io/selected-node"


def storage_class(t, name, mode, provisioner):
    obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
           "provisioner": provisioner, "volumeBindingMode": mode, "reclaimPolicy": "Retain"}
    t.cleanup.append(("storage.k8s.io/v1", "StorageClass", name))
    return obj


def claim(t, name, cls, size="1Gi"):
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": t.ns},
            "spec": {"storageClassName": cls, "accessModes": ["ReadWriteOnce"],
                     "resources": {"requests": {"storage": size}}}}


def volume(t, name, cls, host, size="1Gi", claim_ref=None):
    spec = {"storageClassName": cls, "capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Retain", "local": {"path": "/mnt/disks/" + name},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": [host]}]}]}}}
    if claim_ref:
        spec["claimRef"] = claim_ref
    t.cleanup.append(("v1", "PersistentVolume", name))
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec}


def mounting(name, t, q, claim_name):
    p = pod(name, t.ns, q=q)
    p["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}]
    p["spec"]["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    return p


def test_storage_wait_for_first_consumer(t):
    """A WaitForFirstConsumer claim of a provisioner: the scheduler picks a node, annotates the claim
    with it and waits; the test, as the provisioner, makes the volume there; the PV binder binds the
    claim; the scheduler binds the pod to that node."""
    t.setup()
    cls = t.ns + "-wffc"
    t.create(node("n1", gpus=0, cpu="4"), node("n2", gpus=0, cpu="4"), queue("e2e-stor-q"),
             storage_class(t, cls, "WaitForFirstConsumer", "e2e.gantry.test/provisioner"),
             claim(t, "data", cls))
    t.create(mounting("db", t, "e2e-stor-q", "data"))
    t.nodes_ready()
    s = t.scheduler()
    chosen = wait_for("the claim's selected node", lambda: (t.c.get("PersistentVolumeClaim", "data", t.ns)
                                                             ["metadata"].get("annotations") or {}).get(SELECTED),
                      timeout=30)
    check(chosen in ("n1", "n2"), "selected node %r" % chosen)
    check(not t.bound(), "the pod was bound before its claim: %s" % t.bound())
    pvc = t.c.get("PersistentVolumeClaim", "data", t.ns)
    t.create(volume(t, t.ns + "-made", cls, chosen, claim_ref={
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": t.ns, "name": "data",
        "uid": pvc["metadata"]["uid"]}))
    wait_for("the claim bound by the PV binder",
             lambda: t.c.get("PersistentVolumeClaim", "data", t.ns).get("status", {}).get("phase") == "Bound",
             timeout=60)
    wait_for("the pod bound to the selected node", lambda: t.bound().get("db") == chosen, timeout=30)
    s.stop()
    no_403(t)


def test_storage_local_volume_steers(t):
    """A local volume usable on n2 only: the pod goes to n2; the scheduler writes the volume's
    claimRef, the PV binder binds the claim, then the pod is bound."""
    t.setup()
    cls = t.ns + "-local"
    t.create(node("n1", gpus=0, cpu="4"), node("n2", gpus=0, cpu="4"), queue("e2e-stor-q"),
             storage_class(t, cls, "WaitForFirstConsumer", "kubernetes.io/no-provisioner"),
             volume(t, t.ns + "-pv", cls, "n2"), claim(t, "data", cls))
    t.create(mounting("db", t, "e2e-stor-q", "data"))
    t.nodes_ready()
    s = t.scheduler()
    ref = wait_for("the volume's claimRef", lambda: t.c.get("PersistentVolume", t.ns + "-pv")["spec"].get("claimRef"),
                   timeout=30)
    check(ref.get("namespace") == t.ns and ref.get("name") == "data", "claimRef %s" % ref)
    wait_for("the pod bound to n2", lambda: t.bound().get("db") == "n2", timeout=60)
    check(t.c.get("PersistentVolumeClaim", "data", t.ns)["spec"].get("volumeName") == t.ns + "-pv",
          "the claim is not bound to the local volume")
    s.stop()
    no_403(t)


def test_storage_unbound_immediate_waits(t):
    """An Immediate claim nobody provisions: the pod waits, and its PodScheduled condition says why."""
    t.setup()
    cls = t.ns + "-imm"
    t.create(node("n1", gpus=0, cpu="4"), queue("e2e-stor-q"),
             storage_class(t, cls, "Immediate", "e2e.gantry.test/nobody"), claim(t, "data", cls))
    t.create(mounting("web", t, "e2e-stor-q", "data"))
    t.nodes_ready()
    s = t.scheduler()
    pc = wait_for("the pod's PodScheduled=False", lambda: (lambda c: c if c and c["status"] == "False" else None)(
        condition(t.pods()["web"], "PodScheduled")), timeout=30)
    check("pod has unbound immediate PersistentVolumeClaims" in pc.get("message", ""), "PodScheduled: %s" % pc)
    check(not t.bound(), "bound with an unbound Immediate claim: %s" % t.bound())
    s.stop()
    no_403(t)


TESTS = [test_storage_wait_for_first_consumer, test_storage_local_volume_steers,
         test_storage_unbound_immediate_waits]
