#!/usr/bin/env python3
"""Writes examples/demo-cluster.yaml: the cluster `make demo` simulates.

Three 8-GPU nodes and a CPU node shared by a research department (team-a, team-b) and a
production inference service. team-b has borrowed idle GPUs well beyond its quota; team-a
submits a 2 x 4-GPU training gang that no longer fits, plus notebooks on half GPUs. Over a
few cycles Gantry reclaims team-b's borrowed GPUs, pipelines the gang onto them and binds it
once they are free.
"""
import os
import yaml

T_OLD, T_NEW, START = "2026-01-01T08:00:00Z", "2026-01-01T09:00:00Z", "2026-01-01T08:05:00Z"
objs = [{"apiVersion": "kai.scheduler/v1", "kind": "SchedulingShard", "metadata": {"name": "default"},
         "spec": {"placementStrategy": {"gpu": "binpack", "cpu": "binpack"},
                  "args": {"default-staleness-grace-period": "60s"}}}]
for i in range(3):
    objs.append({"apiVersion": "v1", "kind": "Node",
                 "metadata": {"name": f"gpu-node-{i}", "labels": {
                     "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.memory": "81559",
                     "nvidia.com/gpu.count": "8", "kubernetes.io/hostname": f"gpu-node-{i}"}},
                 "status": {"allocatable": {"cpu": "96", "memory": "1536Gi", "nvidia.com/gpu": "8", "pods": "110"},
                            "conditions": [{"type": "Ready", "status": "True"}]}})
objs.append({"apiVersion": "v1", "kind": "Node",
             "metadata": {"name": "cpu-node-0", "labels": {"kubernetes.io/hostname": "cpu-node-0"}},
             "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"},
                        "conditions": [{"type": "Ready", "status": "True"}]}})


def queue(name, parent, gpu, weight=1, limit=-1, priority=None):
    spec = {"resources": {"gpu": {"quota": gpu, "limit": limit, "overQuotaWeight": weight},
                          "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
                          "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1}}}
    if parent:
        spec["parentQueue"] = parent
    if priority:
        spec["priority"] = priority
    return {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": name}, "spec": spec}


objs += [queue("research", None, 16), queue("team-a", "research", 8), queue("team-b", "research", 8),
         queue("production", None, 8, priority=200), queue("inference", "production", 8, limit=8)]
for name, value in (("train", 50), ("build", 100), ("inference", 125)):
    objs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                 "metadata": {"name": name}, "value": value})


def podgroup(name, ns, queue_name, prio, min_member, running=False, created=T_OLD):
    meta = {"name": name, "namespace": ns, "creationTimestamp": created}
    if running:
        meta["annotations"] = {"kai.scheduler/last-start-timestamp": START}
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": meta,
            "spec": {"minMember": min_member, "queue": queue_name, "priorityClassName": prio}}


def pod(name, ns, group, queue_name, prio, gpus=None, fraction=None, cpu="8", mem="64Gi",
        node=None, labels=None, created=T_OLD):
    annotations = {"pod-group-name": group}
    requests = {"cpu": cpu, "memory": mem}
    if gpus:
        requests["nvidia.com/gpu"] = str(gpus)
    if fraction:
        annotations["gpu-fraction"] = fraction
    all_labels = {"kai.scheduler/queue": queue_name}
    all_labels.update(labels or {})
    resources = {"requests": requests}
    if gpus:
        # an extended resource must have a limit equal to its request, or the API server refuses the pod
        resources["limits"] = {"nvidia.com/gpu": str(gpus)}
    spec = {"schedulerName": "kai-scheduler", "priorityClassName": prio,
            "containers": [{"name": "main", "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                            "resources": resources}]}
    status = {"phase": "Pending"}
    if node:
        spec["nodeName"] = node
        status["phase"] = "Running"
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": all_labels,
                         "annotations": annotations, "creationTimestamp": created},
            "spec": spec, "status": status}


# production: an inference service, one PodGroup per replica as KAI's grouper makes for Deployments
for i in range(3):
    objs.append(podgroup(f"pg-llm-serve-{i}", "serving", "inference", "inference", 1, running=True))
    objs.append(pod(f"llm-serve-{i}", "serving", f"pg-llm-serve-{i}", "inference", "inference",
                    gpus=1, cpu="16", mem="128Gi", node="gpu-node-0"))
# team-b, borrowing: a 2 x 4-GPU fine-tune on gpu-node-1, a 4-GPU sweep and two probes
objs.append(podgroup("pg-finetune", "team-b", "team-b", "train", 2, running=True))
for i in range(2):
    objs.append(pod(f"finetune-{i}", "team-b", "pg-finetune", "team-b", "train", gpus=4, cpu="32",
                    mem="256Gi", node="gpu-node-1"))
for i in range(4):
    objs.append(podgroup(f"pg-sweep-{i}", "team-b", "team-b", "train", 1, running=True))
    objs.append(pod(f"sweep-{i}", "team-b", f"pg-sweep-{i}", "team-b", "train", gpus=1, cpu="8",
                    mem="32Gi", node="gpu-node-2"))
for i in range(2):
    objs.append(podgroup(f"pg-probe-{i}", "team-b", "team-b", "train", 1, running=True))
    objs.append(pod(f"probe-{i}", "team-b", f"pg-probe-{i}", "team-b", "train", gpus=1, cpu="4",
                    mem="16Gi", node="gpu-node-0"))
# team-a, within its quota: a 2 x 4-GPU pre-training gang, notebooks on half GPUs, a CPU job
objs.append(podgroup("pg-llm-pretrain", "team-a", "team-a", "train", 2, created=T_NEW))
for i, role in enumerate(["master", "worker"]):
    objs.append(pod(f"llm-pretrain-{role}-{i}", "team-a", "pg-llm-pretrain", "team-a", "train", gpus=4,
                    cpu="32", mem="256Gi", labels={"training.kubeflow.org/job-role": role}, created=T_NEW))
for i in range(2):
    objs.append(podgroup(f"pg-notebook-{i}", "team-a", "team-a", "build", 1, created=T_NEW))
    objs.append(pod(f"notebook-{i}", "team-a", f"pg-notebook-{i}", "team-a", "build", fraction="0.5",
                    cpu="4", mem="32Gi", created=T_NEW))
objs.append(podgroup("pg-tokenize", "team-a", "team-a", "train", 1, created=T_NEW))
objs.append(pod("tokenize-0", "team-a", "pg-tokenize", "team-a", "train", cpu="16", mem="64Gi",
                created=T_NEW))

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo-cluster.yaml")
with open(out, "w") as f:
    f.write("# Generated by examples/make-demo.py: a shared GPU cluster where team-a needs back the\n"
            "# GPUs team-b borrowed. Run it: build/gantry simulate -f examples/demo-cluster.yaml \\\n"
            "#   --cycles 3 --now 2026-01-01T09:00:00Z --show-cycles\n")
    yaml.safe_dump_all(objs, f, sort_keys=False)
