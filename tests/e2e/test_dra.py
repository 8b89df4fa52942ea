"""Dynamic Resource Allocation against the real control plane: a DeviceClass, a ResourceSlice the
test publishes as a driver would, pods with ResourceClaims. Gantry allocates and reserves a claim,
the API server takes the status write (its validation of resource.k8s.io/v1), the pod is bound, and
a second pod asking for the only device stays pending with a reason."""

import e2e
from e2e import check, condition, no_403, node, pod, podgroup, queue, wait_for

RV1 = "resource.k8s.io/v1"
DRIVER = "gpu.e2e.example.com"


def device_class(t, name):
    t.cleanup.append((RV1, "DeviceClass", name))
    return {"apiVersion": RV1, "kind": "DeviceClass", "metadata": {"name": name}, "spec": {}}


def resource_slice(t, name, node_name, devices):
    t.cleanup.append((RV1, "ResourceSlice", name))
    return {"apiVersion": RV1, "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": DRIVER, "nodeName": node_name,
                     "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": d, "attributes": {"index": {"int": i}},
                                  "capacity": {"memory": {"value": "40Gi"}}} for i, d in enumerate(devices)]}}


def resource_claim(name, ns, cls, q, count=1):
    return {"apiVersion": RV1, "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": ns, "labels": {"kai.scheduler/queue": q}},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                "deviceClassName": cls, "allocationMode": "ExactCount", "count": count}}]}}}


def claim_pod(name, ns, pg, q, claim):
    p = pod(name, ns, pg=pg, q=q)
    p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": claim}]
    p["spec"]["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    return p


def test_dra_claim_allocated_and_reserved(t):
    t.setup()
    c = t.c
    q = "e2e-dra-q"
    t.create(node("dra-n1", gpus=0), queue(q))
    c.create_any(device_class(t, "e2e-dra-gpu"))
    c.create_any(resource_slice(t, "dra-n1-gpus", "dra-n1", ["gpu-0"]))
    c.create_any(resource_claim("claim-a", t.ns, "e2e-dra-gpu", q))
    c.create_any(resource_claim("claim-b", t.ns, "e2e-dra-gpu", q))
    t.create(podgroup("first", t.ns, q, 1), claim_pod("first-0", t.ns, "first", q, "claim-a"))
    t.nodes_ready()
    s = t.scheduler()
    try:
        wait_for("first-0 bound", lambda: t.bound().get("first-0"), timeout=30)
        claim = c.request("GET", c.resource_path(RV1, "ResourceClaim", "claim-a", t.ns))
        results = (((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results") or []
        check([(r["request"], r["driver"], r["pool"], r["device"]) for r in results] ==
              [("gpu", DRIVER, "dra-n1", "gpu-0")], "claim-a's allocation: %s" % claim.get("status"))
        uid = t.pods()["first-0"]["metadata"]["uid"]
        reserved = [(r.get("resource"), r.get("name"), r.get("uid")) for r in claim["status"].get("reservedFor") or []]
        check(reserved == [("pods", "first-0", uid)], "claim-a reserved for %s" % reserved)
        # the only device is taken: a second pod with its own claim waits, saying why
        t.create(podgroup("second", t.ns, q, 1), claim_pod("second-0", t.ns, "second", q, "claim-b"))

        def waiting():
            cond = condition(t.pods()["second-0"], "PodScheduled")
            return cond if cond and cond.get("status") == "False" else None
        cond = wait_for("second-0 unschedulable", waiting, timeout=30)
        check("extended resource" in cond.get("message", "") or "resource claims" in cond.get("message", ""),
              "second-0's reason: %s" % cond)
        check("second-0" not in t.bound(), "second-0 was bound: %s" % t.bound())
        other = c.request("GET", c.resource_path(RV1, "ResourceClaim", "claim-b", t.ns))
        check(not (other.get("status") or {}).get("allocation"), "claim-b allocated: %s" % other.get("status"))
    finally:
        s.stop()
    no_403(t)


def test_dra_template_claim(t):
    """A pod asking for a claim from a ResourceClaimTemplate: Kubernetes' resourceclaim controller
    makes the claim and names it in the pod's status; Gantry allocates it (a DeviceClass with a CEL
    selector on the driver and an attribute), the pod is bound, and the claim reserves it."""
    t.setup()
    c = t.c
    q = "e2e-dra-tq"
    t.create(node("dra-t1", gpus=0), queue(q))
    cls = device_class(t, "e2e-dra-tgpu")
    cls["spec"]["selectors"] = [{"cel": {"expression": 'device.driver == "%s" && '
                                         'device.attributes["%s"].index >= 1' % (DRIVER, DRIVER)}}]
    c.create_any(cls)
    c.create_any(resource_slice(t, "dra-t1-gpus", "dra-t1", ["gpu-0", "gpu-1", "gpu-2"]))
    c.create_any({"apiVersion": RV1, "kind": "ResourceClaimTemplate",
                  "metadata": {"name": "two-gpus", "namespace": t.ns},
                  "spec": {"spec": {"devices": {"requests": [{"name": "gpus", "exactly": {
                      "deviceClassName": "e2e-dra-tgpu", "allocationMode": "ExactCount", "count": 2}}]}}}})
    p = pod("train-0", t.ns, pg="train", q=q)
    p["spec"]["resourceClaims"] = [{"name": "gpus", "resourceClaimTemplateName": "two-gpus"}]
    p["spec"]["containers"][0]["resources"]["claims"] = [{"name": "gpus"}]
    t.create(podgroup("train", t.ns, q, 1), p)
    t.nodes_ready()
    s = t.scheduler()
    try:
        wait_for("train-0 bound", lambda: t.bound().get("train-0"), timeout=45)
        made = t.pods()["train-0"]
        name = [st.get("resourceClaimName") for st in made["status"].get("resourceClaimStatuses") or []
                if st.get("name") == "gpus"]
        check(name and name[0], "the pod's status names no claim: %s" % made["status"])
        claim = c.request("GET", c.resource_path(RV1, "ResourceClaim", name[0], t.ns))
        devices = sorted(r["device"] for r in claim["status"]["allocation"]["devices"]["results"])
        check(devices == ["gpu-1", "gpu-2"], "the selector keeps gpu-1 and gpu-2: %s" % devices)
        check([r.get("uid") for r in claim["status"].get("reservedFor") or []] == [made["metadata"]["uid"]],
              "reservedFor: %s" % claim["status"].get("reservedFor"))
    finally:
        s.stop()
    no_403(t)


TESTS = [test_dra_claim_allocated_and_reserved, test_dra_template_claim]


def typed_slice(t, name, node_name, devices):
    """A slice of devices given as (name, {attribute: (type, value)})."""
    t.cleanup.append((RV1, "ResourceSlice", name))
    return {"apiVersion": RV1, "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": DRIVER, "nodeName": node_name,
                     "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": d, "attributes": {k: {ty: v} for k, (ty, v) in attrs.items()}}
                                 for d, attrs in devices]}}


def claim_of(name, ns, q, devices):
    return {"apiVersion": RV1, "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": ns, "labels": {"kai.scheduler/queue": q}},
            "spec": {"devices": devices}}


def model_is(model):
    return [{"cel": {"expression": 'device.attributes["%s"].model == "%s"' % (DRIVER, model)}}]


def test_dra_structured_allocation(t):
    """allocationMode All, matchAttribute and firstAvailable: Gantry searches the devices (the
    only way for each is the one the test expects) and the real API server accepts the
    allocations it writes, firstAvailable's result named request/subrequest."""
    t.setup()
    c = t.c
    q = "e2e-dra-sq"
    cls = "e2e-dra-sgpu"
    t.create(node("dra-s1", gpus=0), node("dra-s2", gpus=0), queue(q))
    c.create_any(device_class(t, cls))
    c.create_any(typed_slice(t, "dra-s1-gpus", "dra-s1", [
        ("g0", {"numa": ("int", 0), "model": ("string", "a100")}),
        ("g1", {"numa": ("int", 1), "model": ("string", "h100")}),
        ("g2", {"numa": ("int", 1), "model": ("string", "a100")}),
        ("g3", {"numa": ("int", 0), "model": ("string", "a100")})]))
    c.create_any(typed_slice(t, "dra-s2-gpus", "dra-s2", [
        ("l0", {"model": ("string", "l4")}), ("l1", {"model": ("string", "l4")})]))
    # every l4: only dra-s2 has them
    c.create_any(claim_of("all-l4", t.ns, q, {"requests": [{"name": "gpu", "exactly": {
        "deviceClassName": cls, "allocationMode": "All", "selectors": model_is("l4")}}]}))
    # two a100s on one NUMA node: g0 (numa 0) then g2 (numa 1) does not match, g3 does
    c.create_any(claim_of("pair", t.ns, q, {
        "requests": [{"name": "gpus", "exactly": {"deviceClassName": cls, "count": 2, "selectors": model_is("a100")}}],
        "constraints": [{"matchAttribute": DRIVER + "/numa"}]}))
    # eight devices nowhere; one h100 on dra-s1
    c.create_any(claim_of("flex", t.ns, q, {"requests": [{"name": "gpu", "firstAvailable": [
        {"name": "eight", "deviceClassName": cls, "count": 8},
        {"name": "h100", "deviceClassName": cls, "selectors": model_is("h100")}]}]}))
    for claim in ("all-l4", "pair", "flex"):
        t.create(podgroup(claim, t.ns, q, 1), claim_pod(claim + "-0", t.ns, claim, q, claim))
    t.nodes_ready()
    s = t.scheduler()
    try:
        for claim in ("all-l4", "pair", "flex"):
            wait_for(claim + "-0 bound", lambda cl=claim: t.bound().get(cl + "-0"), timeout=45)
        bound = t.bound()
        check(bound["all-l4-0"] == "dra-s2" and bound["pair-0"] == "dra-s1" and bound["flex-0"] == "dra-s1",
              "nodes: %s" % bound)
        want = {"all-l4": [("gpu", "l0"), ("gpu", "l1")], "pair": [("gpus", "g0"), ("gpus", "g3")],
                "flex": [("gpu/h100", "g1")]}
        for claim, devices in want.items():
            got = c.request("GET", c.resource_path(RV1, "ResourceClaim", claim, t.ns))
            alloc = (got.get("status") or {}).get("allocation") or {}
            results = sorted((r["request"], r["device"]) for r in (alloc.get("devices") or {}).get("results") or [])
            check(results == devices, "%s's allocation: %s" % (claim, got.get("status")))
            terms = (alloc.get("nodeSelector") or {}).get("nodeSelectorTerms") or []
            check(terms and terms[0]["matchFields"][0]["values"] == [bound[claim + "-0"]],
                  "%s's node selector: %s" % (claim, alloc.get("nodeSelector")))
    finally:
        s.stop()
    no_403(t)


TESTS.append(test_dra_structured_allocation)


def network_slice(t, name, where, devices):
    """A network-attached pool: @where is {"allNodes": True} or {"nodeSelector": ...}."""
    t.cleanup.append((RV1, "ResourceSlice", name))
    spec = {"driver": DRIVER, "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": d, "attributes": {"model": {"string": m}}} for d, m in devices]}
    spec.update(where)
    return {"apiVersion": RV1, "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def test_dra_network_pool(t):
    """Network-attached pools: a device behind a nodeSelector goes to a pod on a node it selects,
    and the allocation carries the slice's selector term; a device of an allNodes pool gets an
    allocation without a node selector. The API server takes both."""
    t.setup()
    c = t.c
    q = "e2e-dra-nq"
    cls = "e2e-dra-ngpu"
    t.create(node("dra-w1", gpus=0, labels={"e2e.gantry.test/fabric": "west"}), node("dra-w2", gpus=0), queue(q))
    c.create_any(device_class(t, cls))
    term = {"matchExpressions": [{"key": "e2e.gantry.test/fabric", "operator": "In", "values": ["west"]}]}
    c.create_any(network_slice(t, "dra-fabric-west", {"nodeSelector": {"nodeSelectorTerms": [term]}},
                               [("f0", "fabric")]))
    c.create_any(network_slice(t, "dra-everywhere", {"allNodes": True}, [("e0", "everywhere")]))
    for claim, model in (("fabric", "fabric"), ("everywhere", "everywhere")):
        c.create_any(claim_of(claim, t.ns, q, {"requests": [{"name": "dev", "exactly": {
            "deviceClassName": cls, "selectors": model_is(model)}}]}))
        t.create(podgroup(claim, t.ns, q, 1), claim_pod(claim + "-0", t.ns, claim, q, claim))
    t.nodes_ready()
    s = t.scheduler()
    try:
        for claim in ("fabric", "everywhere"):
            wait_for(claim + "-0 bound", lambda cl=claim: t.bound().get(cl + "-0"), timeout=45)
        check(t.bound()["fabric-0"] == "dra-w1", "fabric-0 on %s" % t.bound()["fabric-0"])
        got = c.request("GET", c.resource_path(RV1, "ResourceClaim", "fabric", t.ns))["status"]["allocation"]
        check([(r["pool"], r["device"]) for r in got["devices"]["results"]] == [("dra-fabric-west", "f0")] and
              got.get("nodeSelector") == {"nodeSelectorTerms": [term]}, "fabric's allocation: %s" % got)
        got = c.request("GET", c.resource_path(RV1, "ResourceClaim", "everywhere", t.ns))["status"]["allocation"]
        check([(r["pool"], r["device"]) for r in got["devices"]["results"]] == [("dra-everywhere", "e0")] and
              not got.get("nodeSelector"), "everywhere's allocation: %s" % got)
    finally:
        s.stop()
    no_403(t)


TESTS.append(test_dra_network_pool)
