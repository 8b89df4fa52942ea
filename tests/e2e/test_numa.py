"""KAI v0.17's numa plugin against the real control plane: NodeResourceTopologies through their CRD
(topology.node.k8s.io/v1alpha2, as NFD's topology updater installs it), read and watched with
Gantry's ServiceAccount, the NUMA refusal on the pod, and the predicted placement written on a
bound pod."""

import json

from e2e import check, condition, no_403, node, pod, queue, wait_for

NRT_CRD = "noderesourcetopologies.topology.node.k8s.io"


def nrt_crd(t):
    """The NodeResourceTopology CRD (cluster-scoped, an open schema: the exporters' CRD is wider
    than what the scheduler reads), removed at the test's end."""
    if not t.c.get_or_none("CustomResourceDefinition", NRT_CRD):
        t.c.create({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                    # a *.k8s.io group: the API server wants the approval NFD's CRD carries
                    "metadata": {"name": NRT_CRD, "annotations": {
                        "api-approved.kubernetes.io": "https://github.com/kubernetes/enhancements/pull/1870"}},
                    "spec": {"group": "topology.node.k8s.io", "scope": "Cluster",
                             "names": {"kind": "NodeResourceTopology", "plural": "noderesourcetopologies",
                                       "singular": "noderesourcetopology", "shortNames": ["node-res-topo"],
                                       "listKind": "NodeResourceTopologyList"},
                             "versions": [{"name": "v1alpha2", "served": True, "storage": True,
                                           "schema": {"openAPIV3Schema": {
                                               "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}})
    t.cleanup.append(("apiextensions.k8s.io/v1", "CustomResourceDefinition", NRT_CRD))
    wait_for("the NodeResourceTopology CRD established", lambda: (condition(
        t.c.get("CustomResourceDefinition", NRT_CRD), "Established") or {}).get("status") == "True")
    wait_for("NodeResourceTopology in discovery", lambda: "NodeResourceTopology" in {
        r["kind"] for r in t.c.request("GET", "/apis/topology.node.k8s.io/v1alpha2")["resources"]})


def zone(name, cpu, gpus):
    return {"name": name, "type": "Node", "resources": [
        {"name": "cpu", "capacity": cpu, "allocatable": cpu, "available": cpu},
        {"name": "nvidia.com/gpu", "capacity": gpus, "allocatable": gpus, "available": gpus}]}


def topology(name, zones, rv=None):
    md = {"name": name}
    if rv:
        md["resourceVersion"] = rv
    return {"apiVersion": "topology.node.k8s.io/v1alpha2", "kind": "NodeResourceTopology", "metadata": md,
            "topologyPolicies": ["SingleNUMANodePodLevel"],
            "attributes": [{"name": "topologyManagerPolicy", "value": "single-numa-node"},
                           {"name": "topologyManagerScope", "value": "pod"}],
            "zones": zones}


def test_numa_placement(t):
    """A Guaranteed pod that fits a zone is bound with kai.scheduler/numa-placement-predicted; one
    that no zone can hold waits with KAI's NUMA message, though the node has the cores; when the
    exporter republishes the node's zones it is bound (the scheduler watches the topologies)."""
    t.setup()
    nrt_crd(t)
    t.create(node("n1", gpus=2, cpu="16"), queue("e2e-numa-q"))
    t.c.create_any(topology("n1", [zone("node-0", "8", "1"), zone("node-1", "8", "1")]))
    t.cleanup.append(("topology.node.k8s.io/v1alpha2", "NodeResourceTopology", "n1"))
    t.create(pod("fits", t.ns, gpus=1, q="e2e-numa-q", cpu="4"), pod("wide", t.ns, q="e2e-numa-q", cpu="10"))
    made = t.pods()
    check(all(p["status"].get("qosClass") == "Guaranteed" for p in made.values()),
          "the pods are not Guaranteed: %s" % {n: p["status"].get("qosClass") for n, p in made.items()})
    t.nodes_ready()
    s = t.scheduler()
    wait_for("fits bound", lambda: t.bound().get("fits") == "n1", timeout=20)
    pc = wait_for("wide's PodScheduled=False", lambda: (lambda c: c if c and c["status"] == "False" else None)(
        condition(t.pods()["wide"], "PodScheduled")), timeout=20)
    check("cannot NUMA-align the pod's resources under its Topology Manager policy" in pc.get("message", ""),
          "wide's PodScheduled: %s" % pc)
    ann = (t.pods()["fits"]["metadata"].get("annotations") or {}).get("kai.scheduler/numa-placement-predicted")
    check(ann is not None, "no predicted placement on fits: %s" % t.pods()["fits"]["metadata"].get("annotations"))
    check(json.loads(ann) == [{"zone": "node-0", "amount": {"cpu": "4", "nvidia.com/gpu": "1"}}],
          "fits' predicted placement: %s" % ann)
    # the exporter republishes: zone node-1 now holds 12 cores, enough for wide beside fits
    cur = t.c.get_any("topology.node.k8s.io/v1alpha2", "NodeResourceTopology", "n1")
    t.c.request("PUT", t.c.resource_path("topology.node.k8s.io/v1alpha2", "NodeResourceTopology", "n1"),
                topology("n1", [zone("node-0", "4", "1"), zone("node-1", "12", "1")],
                         cur["metadata"]["resourceVersion"]))
    wait_for("wide bound once a zone can hold it", lambda: t.bound().get("wide") == "n1", timeout=20)
    s.stop()
    no_403(t)


TESTS = [test_numa_placement]
