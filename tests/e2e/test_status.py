"""End-to-end tests of the status controllers and of KAI's metrics against the real control plane.

Queue and PodGroup status as KAI v0.17's queuecontroller and podgroupcontroller write them (here
run inside `gantry scheduler`, and as `gantry status-controllers`), and a scrape of /metrics that
must carry every metric of ../shared/docs/kai-v017/metrics.tsv with KAI's type and labels.
"""

import json
import os
import re
import urllib.request
from fractions import Fraction

import e2e
from e2e import ROOT, Gantry, check, no_403, node, pod, queue, wait_for

METRICS_TSV = os.path.join(ROOT, "..", "shared", "docs", "kai-v017", "metrics.tsv")

# KAI v0.17's metric types (pkg/scheduler/metrics/metrics.go, pkg/queuecontroller/metrics/metrics.go):
# metrics.tsv gives names and labels, not types.
KAI_TYPES = {
    "e2e_scheduling_latency_milliseconds": "gauge", "open_session_latency_milliseconds": "gauge",
    "close_session_latency_milliseconds": "gauge", "plugin_scheduling_latency_milliseconds": "gauge",
    "action_scheduling_latency_milliseconds": "gauge", "task_scheduling_latency_milliseconds": "histogram",
    "task_bind_latency_milliseconds": "histogram", "podgroups_scheduled_by_action": "counter",
    "podgroups_acted_on_by_action": "counter", "scenarios_simulation_by_action": "counter",
    "scenarios_filtered_by_action": "counter", "total_preemption_attempts": "counter",
    "queue_fair_share_cpu_cores": "gauge", "queue_fair_share_memory_gb": "gauge", "queue_fair_share_gpu": "gauge",
    "queue_cpu_usage": "gauge", "queue_memory_usage": "gauge", "queue_gpu_usage": "gauge",
    "usage_query_latency_milliseconds": "histogram", "pod_group_evicted_pods_total": "counter",
    "scenario_search_jobs_total": "counter", "scenario_search_action_budget_configured_seconds": "gauge",
    "scenario_search_job_budget_configured_seconds": "gauge",
    "scenario_search_generator_budget_configured_seconds": "gauge",
    "scenario_search_action_budget_exhausted_total": "counter", "scenario_search_duration_seconds": "histogram",
    "scenario_search_scenarios_total": "counter",
    "queue_info": "gauge", "queue_deserved_gpus": "gauge", "queue_quota_cpu_cores": "gauge",
    "queue_quota_memory_bytes": "gauge", "queue_allocated_gpus": "gauge", "queue_allocated_cpu_cores": "gauge",
    "queue_allocated_memory_bytes": "gauge",
}

# KAI metrics Gantry does not serve yet, and why (docs/metrics.md says the same). Each must be
# absent: once Gantry serves one, it leaves this list and the checks below apply to it. Empty:
# Gantry serves all 34, and the scrape below checks each.
NOT_YET = {}

SUFFIX = {"": 1, "m": Fraction(1, 1000), "k": 10 ** 3, "M": 10 ** 6, "G": 10 ** 9, "T": 10 ** 12,
          "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40}


def qty(s):
    m = re.fullmatch(r"([0-9.]+)([a-zA-Z]*)", str(s))
    if not m or m.group(2) not in SUFFIX:
        raise AssertionError("not a quantity: %r" % s)
    return Fraction(m.group(1)) * SUFFIX[m.group(2)]


def rlist(d):
    """A resource list as {name: exact value}, zero entries left out."""
    return {k: qty(v) for k, v in (d or {}).items() if qty(v) != 0}


def add(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return {k: v for k, v in out.items() if v != 0}


def requests(p):
    out = {}
    for c in p["spec"]["containers"]:
        out = add(out, rlist(c.get("resources", {}).get("requests")))
    return out


def podgroup(name, ns, q, min_member, preemptibility):
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": ns},
            "spec": {"queue": q, "minMember": min_member, "preemptibility": preemptibility}}


def sized_pod(name, ns, pg, gpus, cpu, memory):
    p = pod(name, ns, gpus=gpus, pg=pg, cpu=cpu)
    for c in p["spec"]["containers"]:
        for part in ("requests", "limits"):
            c["resources"][part]["memory"] = memory
    return p


def queue_status(t, name):
    return t.c.get("Queue", name).get("status") or {}


# ---------------------------------------------------------------- tests

def test_status_of_queues_after_a_cycle(t):
    """After the scheduler's cycles, each Queue's status.allocated equals what was bound in it
    (and allocatedNonPreemptible the non-preemptible part), requested adds the pods still
    pending, a parent sums its children and lists them; PodGroups carry resourcesStatus. A pod
    deleted leaves the sums, down to null."""
    t.setup()
    t.create(node("n1", gpus=8), queue("e2e-st-parent"), queue("e2e-st-a", parent="e2e-st-parent"),
             queue("e2e-st-b", parent="e2e-st-parent"))
    t.create(podgroup("a", t.ns, "e2e-st-a", 2, "preemptible"), podgroup("b", t.ns, "e2e-st-b", 1, "non-preemptible"),
             podgroup("big", t.ns, "e2e-st-b", 1, "preemptible"))
    t.create(sized_pod("a-0", t.ns, "a", 2, "2", "4Gi"), sized_pod("a-1", t.ns, "a", 2, "2", "4Gi"),
             sized_pod("b-0", t.ns, "b", 1, "500m", "512Mi"), sized_pod("big-0", t.ns, "big", 16, "1", "1Gi"))
    s = t.scheduler()
    wait_for("a-0, a-1, b-0 running", lambda: sorted(n for n, p in t.pods().items()
                                                     if p["status"].get("phase") == "Running") == ["a-0", "a-1", "b-0"])
    pods = t.pods()
    bound = {q: {} for q in ("e2e-st-a", "e2e-st-b")}
    asked = {q: {} for q in ("e2e-st-a", "e2e-st-b")}
    for n, p in pods.items():
        q = "e2e-st-a" if n.startswith("a-") else "e2e-st-b"
        asked[q] = add(asked[q], requests(p))
        if p["spec"].get("nodeName"):
            bound[q] = add(bound[q], requests(p))
    check(bound["e2e-st-a"] == {"cpu": 4, "memory": 8 * 2 ** 30, "nvidia.com/gpu": 4}, "bound in a: %s" % bound)

    def settled():
        got = {q: queue_status(t, q) for q in ("e2e-st-a", "e2e-st-b", "e2e-st-parent")}
        for q in ("e2e-st-a", "e2e-st-b"):
            if rlist(got[q].get("allocated")) != bound[q] or rlist(got[q].get("requested")) != asked[q]:
                return None
        par = got["e2e-st-parent"]
        if rlist(par.get("allocated")) != add(bound["e2e-st-a"], bound["e2e-st-b"]):
            return None
        return got
    got = wait_for("the Queues' status equal to what was bound", settled, timeout=30)
    check(rlist(got["e2e-st-b"].get("allocatedNonPreemptible")) == bound["e2e-st-b"],
          "b's non-preemptible allocation: %s" % got["e2e-st-b"])
    check(not rlist(got["e2e-st-a"].get("allocatedNonPreemptible")), "a is preemptible: %s" % got["e2e-st-a"])
    check(rlist(got["e2e-st-parent"].get("requested")) == add(asked["e2e-st-a"], asked["e2e-st-b"]),
          "parent's requested: %s" % got["e2e-st-parent"])
    check(rlist(got["e2e-st-parent"].get("allocatedNonPreemptible")) == bound["e2e-st-b"],
          "parent's non-preemptible: %s" % got["e2e-st-parent"])
    check(got["e2e-st-parent"].get("childQueues") == ["e2e-st-a", "e2e-st-b"], "childQueues: %s" % got["e2e-st-parent"])
    # the PodGroups' own status, which the Queues sum
    rs = t.c.get("PodGroup", "big", t.ns)["status"]["resourcesStatus"]
    check(rlist(rs.get("requested")) == {"cpu": 1, "memory": 2 ** 30, "nvidia.com/gpu": 16} and
          not rlist(rs.get("allocated")), "the unschedulable PodGroup's resourcesStatus: %s" % rs)
    rs = t.c.get("PodGroup", "a", t.ns)["status"]["resourcesStatus"]
    check(rs.get("allocated") == {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": "4"},
          "a's resourcesStatus in Kubernetes' canonical text: %s" % rs)
    # a pod gone: its share leaves the PodGroup, its queue and the parent
    t.c.delete("Pod", "b-0", t.ns, grace=0)
    wait_for("b's allocation gone", lambda: not rlist(queue_status(t, "e2e-st-b").get("allocated")) and
             rlist(queue_status(t, "e2e-st-parent").get("allocated")) == bound["e2e-st-a"], timeout=30)
    st = queue_status(t, "e2e-st-b")
    check("allocated" not in st and "allocatedNonPreemptible" not in st, "emptied lists are removed: %s" % st)
    s.stop()
    no_403(t)


def test_status_controllers_command(t):
    """`gantry status-controllers` alone writes the same status and serves the queue
    controller's metrics, with KAI's extra labels from Queue labels; `gantry scheduler
    --queue-controller=false --podgroup-controller=false` writes none."""
    t.setup()
    q = queue("e2e-stc-q", gpu_quota=3)
    q["metadata"]["labels"]["team"] = "ml"
    t.create(node("n1", gpus=4), q)
    t.create(podgroup("j", t.ns, "e2e-stc-q", 1, "preemptible"), sized_pod("j-0", t.ns, "j", 1, "1", "1Gi"))
    s = t.scheduler("--queue-controller=false", "--podgroup-controller=false")
    wait_for("j-0 bound", lambda: "j-0" in t.bound())
    port = wait_for("the scheduler's metrics port", s.port)
    m = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5).read().decode()
    check("kai_queue_info" not in m, "the queue controller's metrics served with --queue-controller=false")
    check(not queue_status(t, "e2e-stc-q").get("allocated") and
          not (t.c.get("PodGroup", "j", t.ns).get("status") or {}).get("resourcesStatus"),
          "status written with the controllers off")
    c = Gantry(t, "status-controllers", t.sa_kubeconfig(), "--metrics-bind-address", "127.0.0.1:0",
               "--leader-elect", "--namespace", "kai-scheduler", "--leader-elect-resource-name", "gantry-st-" + t.ns,
               "--queue-label-to-metric-label", "team=queue_team,tier=queue_tier",
               "--queue-label-to-default-metric-value", "tier=standard")
    wait_for("the queue's allocation", lambda: rlist(queue_status(t, "e2e-stc-q").get("allocated")) ==
             {"cpu": 1, "memory": 2 ** 30, "nvidia.com/gpu": 1}, timeout=30)
    cport = wait_for("the controllers' metrics port", c.port)

    def scraped():
        text = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % cport, timeout=5).read().decode()
        return text if 'kai_queue_allocated_gpus{queue_name="e2e-stc-q"' in text else None
    text = wait_for("the queue metrics", scraped)
    # KAI's extra labels from Queue labels (the queue's own, else the default)
    labels = 'queue_name="e2e-stc-q",queue_metadata_name="e2e-stc-q",queue_display_name="",' \
             'queue_team="ml",queue_tier="standard"'
    for want in ('kai_queue_deserved_gpus{%s} 3' % labels, 'kai_queue_allocated_gpus{%s} 1' % labels,
                 'kai_queue_allocated_memory_bytes{%s} 1073741824' % labels):
        check(want in text, "the controllers' metrics lack %s" % want)
    check("kai_e2e_scheduling_latency_milliseconds" not in text, "scheduler metrics from the status controllers")
    c.stop()
    s.stop()
    no_403(t)


def parse_exposition(text):
    """{family: type} and [(sample name, {label: value})] of a Prometheus text exposition."""
    types, samples = {}, []
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(None, 3)
            check(name not in types, "metric family %s declared twice" % name)
            types[name] = typ
        elif line and not line.startswith("#"):
            m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$', line)
            check(m, "not a sample line: %r" % line)
            labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
            float(m.group(3))
            samples.append((m.group(1), labels))
    return types, samples


def test_status_and_kai_metrics_scraped(t):
    """A scrape of the scheduler's /metrics (status controllers in-process) after cycles that
    bound and reclaimed: every metric of metrics.tsv with KAI's type, and samples with exactly
    KAI's labels; queue_name is the display name in the scheduler's metrics and the queue's name in
    the queue controller's, as KAI's are."""
    t.setup()
    borrow, owner = queue("e2e-mt-borrow", gpu_quota=0), queue("e2e-mt-owner", gpu_quota=4)
    owner["spec"]["displayName"] = "Owner Team"
    t.create(node("n1", gpus=4), borrow, owner)
    t.create(podgroup("lend", t.ns, "e2e-mt-borrow", 1, "preemptible"), sized_pod("lend-0", t.ns, "lend", 4, "1", "1Gi"))
    s = t.scheduler()
    wait_for("lend-0 running", lambda: (t.pods().get("lend-0") or {}).get("status", {}).get("phase") == "Running")
    t.create(podgroup("own", t.ns, "e2e-mt-owner", 1, "preemptible"), sized_pod("own-0", t.ns, "own", 2, "1", "1Gi"))
    wait_for("own-0 bound after the reclaim", lambda: "own-0" in t.bound(), timeout=60)
    port = wait_for("the metrics port", s.port)
    lend_uid = None

    def scrape():
        text = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5).read().decode()
        ok = ('kai_queue_allocated_gpus{queue_name="e2e-mt-owner"' in text and
              "kai_pod_group_evicted_pods_total{" in text)
        return text if ok else None
    text = wait_for("a scrape with the queue controller's and the eviction's series", scrape, timeout=30)
    types, samples = parse_exposition(text)
    rows = []
    with open(METRICS_TSV) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, component, labels = (line.rstrip("\n").split("\t") + [""])[:3]
                rows.append((name, component, [x for x in labels.split(",") if x]))
    check(len(rows) == 34 and not NOT_YET, "metrics.tsv read %d rows; not yet served: %s" % (len(rows), NOT_YET))
    problems = []
    for name, _component, labels in rows:
        short = name[len("kai_"):]
        if short in NOT_YET:
            if name in types:
                problems.append("%s is served now: take it out of NOT_YET" % name)
            continue
        want = KAI_TYPES.get(short)
        if want is None:
            problems.append("%s: no KAI type known to this test" % name)
            continue
        if types.get(name) != want:
            problems.append("%s: type %s, KAI's is %s" % (name, types.get(name), want))
            continue
        names = {name} if want != "histogram" else {name + "_bucket", name + "_sum", name + "_count"}
        mine = [lab for n, lab in samples if n in names]
        if not mine:
            problems.append("%s: no sample" % name)
        for lab in mine:
            keys = set(lab) - {"le"}
            if keys != set(labels):
                problems.append("%s: labels %s, KAI's are %s" % (name, sorted(keys), sorted(labels)))
                break
    check(not problems, "%d problems with KAI's metrics:\n  %s" % (len(problems), "\n  ".join(problems)))

    def labels_of(metric, **match):
        return [lab for n, lab in samples if n == metric and all(lab.get(k) == v for k, v in match.items())]
    # the scheduler's queue_name is the display name; the queue controller's is metadata.name
    fs = labels_of("kai_queue_fair_share_gpu", queue_metadata_name="e2e-mt-owner")
    check(fs and fs[0]["queue_name"] == "Owner Team" and fs[0]["queue_display_name"] == "Owner Team",
          "fair share labels: %s" % fs)
    qc = labels_of("kai_queue_info", queue_metadata_name="e2e-mt-owner")
    check(qc and qc[0]["queue_name"] == "e2e-mt-owner" and qc[0]["queue_display_name"] == "Owner Team",
          "queue_info labels: %s" % qc)
    lend_uid = t.c.get("PodGroup", "lend", t.ns)["metadata"]["uid"]
    ev = labels_of("kai_pod_group_evicted_pods_total", podgroup="lend", namespace=t.ns)
    check(ev and ev[0]["uid"] == lend_uid and ev[0]["action"] == "reclaim" and ev[0]["nodepool"] == "default",
          "eviction series: %s" % ev)
    check(re.search(r'^kai_podgroups_scheduled_by_action\{action="reclaim"\} [1-9]', text, re.M),
          "no podgroup scheduled by reclaim counted")
    check(re.search(r'^kai_task_bind_latency_milliseconds_count [1-9]', text, re.M), "no bind latency observed")
    # the reclaim's victim search, counted as KAI counts it
    check(re.search(r'^kai_podgroups_acted_on_by_action\{action="reclaim"\} [1-9]', text, re.M) and
          re.search(r'^kai_scenarios_simulation_by_action\{action="reclaim"\} [1-9]', text, re.M) and
          re.search(r'^kai_scenario_search_jobs_total\{action="reclaim",result="solved",reduced_budget="false"\} [1-9]',
                    text, re.M) and
          re.search(r'^kai_scenario_search_scenarios_total\{action="reclaim",generator="[A-Za-z]+",state="simulated"\} [1-9]',
                    text, re.M) and
          re.search(r'^kai_scenario_search_duration_seconds_count\{action="reclaim",generator="[A-Za-z]+",result="solved"\} [1-9]',
                    text, re.M),
          "the reclaim's search is not counted:\n" + "\n".join(l for l in text.splitlines() if "scenario" in l or "acted_on" in l))
    check(re.search(r'^kai_scenario_search_action_budget_configured_seconds\{action="reclaim"\} 300$', text, re.M) and
          re.search(r'^kai_scenario_search_job_budget_configured_seconds 240$', text, re.M),
          "KAI's default budgets (5 min, 4 min) not reported")
    # the dashboard in deploy/ finds what it queries (but what NOT_YET lists)
    with open(os.path.join(ROOT, "deploy", "grafana", "kai-scheduler-dashboard.json")) as f:
        dash = json.load(f)
    served = {n for n, _ in samples}
    blind = []
    for p in dash["panels"]:
        for tg in p.get("targets") or []:
            for m in set(re.findall(r"\b(kai_[a-z0-9_]+)\b", tg.get("expr", ""))):
                base = re.sub(r"_(bucket|sum|count)$", "", m) if m not in types else m
                if m not in served and base[len("kai_"):] not in NOT_YET:
                    blind.append("%s: %s" % (p.get("title"), m))
    check(not blind, "dashboard queries with nothing to show: %s" % blind)
    s.stop()
    no_403(t)


TESTS = [test_status_of_queues_after_a_cycle, test_status_controllers_command, test_status_and_kai_metrics_scraped]
