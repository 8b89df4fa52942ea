#!/usr/bin/env python3
"""Write Kubernetes objects as a KAI v0.17 scheduler snapshot, for the tests.

usage: kai-snapshot.py MANIFEST.yaml OUT.zip|OUT.json [--partition KEY=VALUE] [--extras]
                       [--yaml-out SAME.yaml]

The layout is KAI's snapshot plugin's (pkg/scheduler/plugins/snapshot), with the quirks real
v0.17.0 snapshots show: objects carry no kind or apiVersion (their list says what they are), an
empty list is null, list order is not the manifest's (reversed here), metadata carries
managedFields, schedulerParams durations are integer nanoseconds and partitionParams uses Go
field names, config.actions is one comma-separated string, plugins sit under tiers[].plugins as
{name, arguments}, scenarioSearchBudgets durations are strings like "5m0s". A SchedulingShard in
the manifest becomes the configuration (placementStrategy -> nodeplacement's arguments,
args -> scheduler parameters), as KAI's operator turns one into the other.

Objects without a creationTimestamp get one a second apart in manifest order; --yaml-out writes
the manifest with those times too, for comparing `simulate --snapshot` with `simulate -f`.

--extras adds what a newer KAI might write (a field Gantry does not know, a plugin with an
argument it does not act on, objects of lists it does not model) so that the warnings show.
"""
import json
import sys
import uuid
import zipfile

import yaml

LISTS = [("pods", "Pod"), ("nodes", "Node"), ("queues", "Queue"), ("podGroups", "PodGroup"),
         ("bindRequests", "BindRequest"), ("priorityClasses", "PriorityClass"),
         ("configMaps", "ConfigMap"), ("persistentVolumes", "PersistentVolume"),
         ("persistentVolumeClaims", "PersistentVolumeClaim"),
         ("csiStorageCapacities", "CSIStorageCapacity"), ("storageClasses", "StorageClass"),
         ("csiDrivers", "CSIDriver"), ("resourceClaims", "ResourceClaim"),
         ("resourceSlices", "ResourceSlice"), ("deviceClasses", "DeviceClass"),
         ("topologies", "Topology"), ("nodeResourceTopologies", "NodeResourceTopology")]

# KAI v0.17's default configuration, in the order its operator writes it
DEFAULT_PLUGINS = ["predicates", "proportion", "priority", "nodeavailability", "resourcetype",
                   "podaffinity", "elastic", "kubeflow", "ray", "subgrouporder", "taskorder",
                   "nominatednode", "dynamicresources", "minruntime", "topology", "snapshot",
                   "sg-nodelocalgreedy", "sg-multinodegang", "gpupack", "nodeplacement",
                   "gpusharingorder"]


def go_ns(duration):
    """'60s', '5m', '1m30s' -> integer nanoseconds."""
    units = {"h": 3600, "m": 60, "s": 1}
    total, num = 0.0, ""
    for ch in duration:
        if ch.isdigit() or ch == ".":
            num += ch
        else:
            total += float(num) * units[ch]
            num = ""
    return int(total * 1e9)


def config_from(shard, extras):
    spec = (shard or {}).get("spec") or {}
    strategy = spec.get("placementStrategy") or {}
    plugins = []
    for name in DEFAULT_PLUGINS:
        if name == "gpupack" and strategy.get("gpu") == "spread":
            name = "gpuspread"
        p = {"name": name}
        if name == "nodeplacement":
            p["arguments"] = {"cpu": strategy.get("cpu", "binpack"),
                              "gpu": strategy.get("gpu", "binpack")}
        if name == "proportion" and "kValue" in spec:
            p["arguments"] = {"kValue": str(spec["kValue"])}
        plugins.append(p)
    if extras:
        plugins.append({"name": "numa", "arguments": {"reconstructAvailable": "true"}})
        plugins[2]["arguments"] = {"someFutureKnob": "7"}
    cfg = {"actions": "allocate, consolidation, reclaim, preempt, stalegangeviction",
           "tiers": [{"plugins": plugins}],
           "scenarioSearchBudgets": {"maxActionSearchDuration": {"default": "5m0s"},
                                     "maxJobSearchDuration": "4m0s",
                                     "minJobSearchDuration": "30s",
                                     "maxGeneratorSearchDuration": {"default": "2m0s"}}}
    if "usageDBConfig" in spec:
        cfg["usageDBConfig"] = spec["usageDBConfig"]
    return cfg


def params_from(shard, partition):
    args = ((shard or {}).get("spec") or {}).get("args") or {}
    p = {"schedulerName": "kai-scheduler", "maxNumberConsolidationPreemptees": 16,
         "allowConsolidatingReclaim": True, "numOfStatusRecordingWorkers": 5,
         "globalDefaultStalenessGracePeriod": go_ns(args.get("default-staleness-grace-period",
                                                             "60s")),
         "schedulePeriod": 1000000000, "stuckInReleasingThreshold": 60000000000,
         "detailedFitErrors": True, "updatePodEvictionCondition": True,
         "useSchedulingSignatures": True, "fullHierarchyFairness": True,
         "queueLabelKey": "kai.scheduler/queue"}
    # KAI always writes partitionParams (an empty value: no partition); its snapshot-tool
    # dereferences it
    key, _, value = (partition or "kai.scheduler/node-pool=").partition("=")
    p["partitionParams"] = {"NodePoolLabelKey": key, "NodePoolLabelValue": value}
    return p


def server_defaults(kind, d):
    """What the API server fills in on create, which KAI's snapshot-tool (a fake clientset) does
    not: a new pod's phase, a claim request's allocationMode and count."""
    if kind == "Pod":
        d.setdefault("status", {}).setdefault("phase", "Pending")
        spec = d.get("spec") or {}
        for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
            res = c.get("resources") or {}
            for name, value in (res.get("limits") or {}).items():
                res.setdefault("requests", {}).setdefault(name, value)
    if kind == "ResourceClaim":
        for req in ((d.get("spec") or {}).get("devices") or {}).get("requests") or []:
            for sel in [req.get("exactly")] + list(req.get("firstAvailable") or []):
                if sel is not None:
                    sel.setdefault("allocationMode", "ExactCount")
                    if sel["allocationMode"] == "ExactCount":
                        sel.setdefault("count", 1)


def discovery_resources(raw):
    """The API groups a server holding these objects serves, as far as KAI reads them: its
    snapshot-tool takes claims only when resource.k8s.io is listed, and NodeResourceTopologies only
    when topology.node.k8s.io is."""
    groups = []
    if raw["resourceClaims"] or raw["resourceSlices"] or raw["deviceClasses"]:
        groups.append({"groupVersion": "resource.k8s.io/v1", "resources": [
            {"name": "resourceclaims", "namespaced": True, "kind": "ResourceClaim"},
            {"name": "resourceslices", "namespaced": False, "kind": "ResourceSlice"},
            {"name": "deviceclasses", "namespaced": False, "kind": "DeviceClass"}]})
    if raw["nodeResourceTopologies"]:
        groups.append({"groupVersion": "topology.node.k8s.io/v1alpha2", "resources": [
            {"name": "noderesourcetopologies", "namespaced": False, "kind": "NodeResourceTopology"}]})
    return groups


def main():
    args = sys.argv[1:]
    extras = "--extras" in args
    partition = yaml_out = None
    if "--partition" in args:
        partition = args[args.index("--partition") + 1]
    if "--yaml-out" in args:
        yaml_out = args[args.index("--yaml-out") + 1]
    src, out = [a for a in args if not a.startswith("--") and a not in (partition, yaml_out)][:2]
    docs = [d for d in yaml.safe_load_all(open(src)) if d]
    for i, d in enumerate(docs):
        d.setdefault("metadata", {}).setdefault(
            "creationTimestamp", "2026-01-01T%02d:%02d:%02dZ" % (8 + i // 3600, i // 60 % 60, i % 60))
    if yaml_out:  # in the order Gantry decodes a snapshot's objects: creation time, then ns/name
        def age(d):
            m = d["metadata"]
            return (str(m["creationTimestamp"]), m.get("namespace") or "default", m.get("name"))
        with open(yaml_out, "w") as f:
            yaml.safe_dump_all(sorted(docs, key=age), f)
    shard = next((d for d in docs if d.get("kind") == "SchedulingShard"), None)
    raw = {key: [] for key, _ in LISTS}
    by_kind = {kind: key for key, kind in LISTS}
    for d in docs:
        kind = d.pop("kind", None)
        d.pop("apiVersion", None)
        if kind not in by_kind:
            continue
        meta = d.setdefault("metadata", {})
        # every object a server returns has a uid, and a node its capacity: KAI's snapshot-tool
        # cannot tell pods apart without the one and warns without the other
        meta.setdefault("uid", str(uuid.uuid5(uuid.NAMESPACE_URL, "%s/%s/%s" % (
            kind, meta.get("namespace", ""), meta.get("name", "")))))
        if kind == "Node" and "allocatable" in (d.get("status") or {}):
            d["status"].setdefault("capacity", dict(d["status"]["allocatable"]))
        server_defaults(kind, d)
        meta["managedFields"] = [{"manager": "kubectl", "operation": "Update",
                                  "apiVersion": "v1", "fieldsType": "FieldsV1"}]
        raw[by_kind[kind]].append(d)
    # the PriorityClasses KAI's chart installs, where the objects use them and do not define them
    defined = {pc["metadata"]["name"] for pc in raw["priorityClasses"]}
    used = {((d.get("spec") or {}).get("priorityClassName")) for key in ("pods", "podGroups") for d in raw[key]}
    for name, value in (("train", 50), ("build-preemptible", 75), ("build", 100), ("inference", 125)):
        if name in used and name not in defined:
            raw["priorityClasses"].append({"metadata": {"name": name, "uid": str(uuid.uuid5(
                uuid.NAMESPACE_URL, "PriorityClass//" + name))}, "value": value})
    if extras:
        raw["configMaps"].append({"metadata": {"name": "kube-root-ca.crt", "namespace": "default"},
                                  "data": {"ca.crt": "x"}})
        raw["persistentVolumes"].append({"metadata": {"name": "pv-1"},
                                         "spec": {"capacity": {"storage": "1Gi"}}})
    snap = {"config": config_from(shard, extras), "schedulerParams": params_from(shard, partition),
            "rawObjects": {k: (list(reversed(v)) or None) for k, v in raw.items()},
            "discovery": {"serverVersion": {"major": "1", "minor": "33", "gitVersion": "v1.33.4"},
                          "resources": discovery_resources(raw)}}
    if extras:
        snap["rawObjects"]["futureThings"] = None
        snap["config"]["futureSetting"] = {"on": True}
    text = json.dumps(snap)
    if out.endswith(".zip"):
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("snapshot.json", text)
    else:
        with open(out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
