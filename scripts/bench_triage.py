"""Benchmark: triage wall time and memory on a recorded cluster, and CLI start-up time.

    .venv/bin/python scripts/bench_triage.py [RECORDED.json] [--runs 5] [--nodes 2000]

Measures, each as the median of --runs runs in this process:
  * a full replayed triage (load the file, open the replaying access layer, run every
    check, render text and JSON) of RECORDED.json, or else of the largest recorded
    cluster under evals/clusters/;
  * the same triage of a synthetic --nodes-node cluster: the same recording with its
    node list grown to that size (a minimal hand-made recording if none exists) and, for
    an EKS recording, one Kubernetes node per HyperPod node with a Running pod of each
    system DaemonSet (aws-node, kube-proxy, eks-pod-identity-agent) on it;
  * a script that only `json.load`s the same file (wall, tracemalloc peak), the floor the
    triage is compared with;
and, for each, the tracemalloc peak of one extra run and the process's peak RSS
(ru_maxrss) so far. Then `hyperpod-debug --help` against `python -c pass`, in
subprocesses (median of 5): the cost of the CLI's start-up over the bare interpreter.
Nothing here touches the network: replay never sends a request.
"""

from __future__ import annotations

import argparse
import copy
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CLUSTERS = REPO / "evals" / "clusters"
CONTROLLER = re.compile(r"controller|head|login", re.IGNORECASE)


def largest_recording() -> Path | None:
    files = sorted(CLUSTERS.glob("*.json"), key=lambda p: (p.stat().st_size, p.name))
    return files[-1] if files else None


def minimal_recording(nodes: int) -> dict[str, Any]:
    """A hand-made Slurm cluster: identity, DescribeCluster, its nodes and its SG."""
    account, region, name, cluster_id = "111122223333", "us-west-2", "bench", "abcdef123456"
    sg = "sg-0123456789abcdef0"
    return {
        "description": "synthetic benchmark cluster",
        "recorded_at": "2026-11-20T12:00:00Z",
        "cluster": name,
        "region": region,
        "aws": [
            {
                "service": "sts",
                "operation": "GetCallerIdentity",
                "response": {"Account": account, "Arn": f"arn:aws:iam::{account}:user/b"},
            },
            {
                "service": "sagemaker",
                "operation": "DescribeCluster",
                "params": {"ClusterName": name},
                "response": {
                    "ClusterArn": f"arn:aws:sagemaker:{region}:{account}:cluster/{cluster_id}",
                    "ClusterName": name,
                    "ClusterStatus": "InService",
                    "InstanceGroups": [
                        {
                            "InstanceGroupName": "workers",
                            "InstanceType": "ml.p5.48xlarge",
                            "CurrentCount": nodes,
                            "TargetCount": nodes,
                            "Status": "InService",
                            "ThreadsPerCore": 2,
                        }
                    ],
                    "VpcConfig": {"SecurityGroupIds": [sg], "Subnets": ["subnet-1"]},
                },
            },
            {
                "service": "sagemaker",
                "operation": "ListClusterNodes",
                "params": {"ClusterName": name},
                "paging": {"result_key": "ClusterNodeSummaries"},
                "response": {
                    "ClusterNodeSummaries": [
                        {
                            "InstanceGroupName": "workers",
                            "InstanceId": "i-00000000000000000",
                            "InstanceType": "ml.p5.48xlarge",
                            "LaunchTime": "2026-11-01T00:00:00Z",
                            "InstanceStatus": {"Status": "Running", "Message": ""},
                        }
                    ]
                },
            },
            {
                "service": "ec2",
                "operation": "DescribeSecurityGroups",
                "params": {"GroupIds": [sg]},
                "response": {
                    "SecurityGroups": [
                        {
                            "GroupId": sg,
                            "IpPermissions": [
                                {"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": sg}]}
                            ],
                            "IpPermissionsEgress": [
                                {"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": sg}]},
                                {"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]},
                            ],
                        }
                    ]
                },
            },
        ],
    }


def grow_nodes(raw: dict[str, Any], nodes: int) -> dict[str, Any]:
    """The recording with every stored ListClusterNodes list grown to `nodes` entries.

    The recorded nodes stay as they are (their DescribeClusterNode calls still replay);
    the added ones are healthy copies with fresh instance ids, and each instance group's
    CurrentCount / TargetCount follows its new node count.
    """
    grown = copy.deepcopy(raw)
    per_group: dict[str, int] = {}
    for call in grown["aws"]:
        if call.get("operation") != "ListClusterNodes" or not call.get("response"):
            continue
        summaries: list[dict[str, Any]] = call["response"].get("ClusterNodeSummaries", [])
        if not summaries:
            continue
        # One healthy template per worker group; the added nodes are spread over them
        # round-robin, as a large cluster's nodes are spread over its groups (the
        # controller group of a Slurm cluster keeps its one node).
        templates: dict[str, dict[str, Any]] = {}
        for node in summaries:
            group = str(node.get("InstanceGroupName", ""))
            running = node.get("InstanceStatus", {}).get("Status") == "Running"
            if running and group not in templates and not CONTROLLER.search(group):
                templates[group] = node
        pool = list(templates.values()) or [summaries[0]]
        for index in range(len(summaries), nodes):
            node = copy.deepcopy(pool[index % len(pool)])
            node["InstanceId"] = f"i-b{index:016x}"
            node["InstanceStatus"] = {"Status": "Running", "Message": ""}
            if "PrivateDnsHostname" in node:
                node["PrivateDnsHostname"] = f"ip-10-9-{index // 250}-{index % 250 + 1}"
            summaries.append(node)
        for node in summaries:
            group = str(node.get("InstanceGroupName", ""))
            per_group[group] = per_group.get(group, 0) + 1
    for call in grown["aws"]:
        if call.get("operation") == "DescribeCluster" and call.get("response"):
            for group in call["response"].get("InstanceGroups", []):
                count = per_group.get(group.get("InstanceGroupName"))
                if count is not None:
                    group["CurrentCount"] = group["TargetCount"] = count
    if isinstance(grown.get("kubernetes"), dict):
        hyperpod: list[dict[str, Any]] = next(
            (
                c["response"].get("ClusterNodeSummaries", [])
                for c in grown["aws"]
                if c.get("operation") == "ListClusterNodes" and c.get("response")
            ),
            [],
        )
        grow_kubernetes(grown["kubernetes"], hyperpod)
    grown["description"] = f"{raw.get('description', '')} (grown to {nodes} nodes)".strip()
    return grown


# The system pods a real EKS cluster runs on every node (DaemonSets), beside the workload.
SYSTEM_DAEMONSETS = ("aws-node", "kube-proxy", "eks-pod-identity-agent")
HEALTH_LABEL = "sagemaker.amazonaws.com/node-health-status"


def grow_kubernetes(kube: dict[str, Any], hyperpod: list[dict[str, Any]]) -> None:
    """One Kubernetes node per HyperPod node (named hyperpod-<instance id>, as HyperPod
    names them) and, on each, a Running pod of every system DaemonSet, as in a real cluster.

    Recorded nodes and pods stay as they are; the added nodes copy a healthy recorded node
    (or a minimal one), and the DaemonSets' counts follow the node count.
    """
    nodes: list[dict[str, Any]] = kube.setdefault("nodes", [])
    pods: list[dict[str, Any]] = kube.setdefault("pods", [])

    def instance_of(node: dict[str, Any]) -> str:
        provider = str((node.get("spec") or {}).get("providerID") or "")
        return provider.rsplit("/", 1)[-1] if provider else ""

    known = {instance_of(n) for n in nodes} | {
        str((n.get("metadata") or {}).get("name", "")).removeprefix("hyperpod-") for n in nodes
    }
    template = next(
        (
            n
            for n in nodes
            if ((n.get("metadata") or {}).get("labels") or {}).get(HEALTH_LABEL) == "Schedulable"
        ),
        nodes[0] if nodes else None,
    )
    added: list[str] = []
    for index, summary in enumerate(hyperpod):
        instance = str(summary.get("InstanceId"))
        if instance in known:
            continue
        name = f"hyperpod-{instance}"
        zone = "us-west-2a"
        if template is not None:
            node = copy.deepcopy(template)
            zone = str(node["metadata"].get("labels", {}).get("topology.kubernetes.io/zone", zone))
        else:
            node = {"metadata": {"labels": {}}, "spec": {}, "status": {}}
            node["status"]["conditions"] = [
                {"type": "Ready", "status": "True", "reason": "KubeletReady"}
            ]
        labels = node["metadata"].setdefault("labels", {})
        labels.update(
            {
                "kubernetes.io/hostname": name,
                "sagemaker.amazonaws.com/instance-group-name": str(
                    summary.get("InstanceGroupName", "")
                ),
                HEALTH_LABEL: "Schedulable",
            }
        )
        node["metadata"]["name"] = name
        node["metadata"].pop("annotations", None)
        node["spec"] = {"providerID": f"aws:///{zone}/{instance}"}
        address = f"10.{9 + index // 62500}.{index // 250 % 250}.{index % 250 + 1}"
        node["status"]["addresses"] = [
            {"type": "InternalIP", "address": address},
            {"type": "Hostname", "address": name},
        ]
        nodes.append(node)
        added.append(name)
    for daemonset in SYSTEM_DAEMONSETS:
        for index, node_name in enumerate(added):
            pods.append(_system_pod(daemonset, f"{daemonset}-{index:05x}", node_name))
    recorded = {(d.get("metadata") or {}).get("name") for d in kube.get("daemonsets") or []}
    for daemonset in kube.get("daemonsets") or []:
        if (daemonset.get("metadata") or {}).get("name") in SYSTEM_DAEMONSETS:
            status = daemonset.setdefault("status", {})
            grow = len(added)
            for key in (
                "desiredNumberScheduled",
                "currentNumberScheduled",
                "numberReady",
                "numberAvailable",
                "updatedNumberScheduled",
            ):
                status[key] = int(status.get(key) or 0) + grow
    for daemonset in SYSTEM_DAEMONSETS:
        if daemonset not in recorded and kube.get("daemonsets") is not None:
            count = len(added)
            kube["daemonsets"].append(
                {
                    "metadata": {
                        "name": daemonset,
                        "namespace": "kube-system",
                        "labels": {"k8s-app": daemonset},
                    },
                    "spec": {"selector": {"matchLabels": {"k8s-app": daemonset}}},
                    "status": {
                        "desiredNumberScheduled": count,
                        "currentNumberScheduled": count,
                        "numberReady": count,
                        "numberAvailable": count,
                        "numberMisscheduled": 0,
                        "updatedNumberScheduled": count,
                    },
                }
            )


def _system_pod(daemonset: str, name: str, node: str) -> dict[str, Any]:
    started = "2026-11-10T12:00:00Z"
    return {
        "metadata": {
            "name": name,
            "namespace": "kube-system",
            "labels": {"k8s-app": daemonset},
            "creationTimestamp": started,
            "ownerReferences": [{"kind": "DaemonSet", "name": daemonset}],
        },
        "spec": {"nodeName": node, "containers": [{"name": daemonset, "resources": {}}]},
        "status": {
            "phase": "Running",
            "conditions": [
                {"type": "Ready", "status": "True", "lastTransitionTime": started},
                {"type": "ContainersReady", "status": "True", "lastTransitionTime": started},
            ],
            "containerStatuses": [
                {
                    "name": daemonset,
                    "ready": True,
                    "started": True,
                    "restartCount": 0,
                    "state": {"running": {"startedAt": started}},
                    "lastState": {},
                }
            ],
        },
    }


def one_triage(path: Path) -> tuple[int, int]:
    """Load, replay, triage and render one recorded cluster; (findings, skipped)."""
    import json

    from tools.recorded.model import load_recorded
    from tools.target import TriageTarget
    from tools.triage.open_cluster import DataSource, open_cluster
    from tools.triage.render import render_text
    from tools.triage.runner import run_triage

    recording = load_recorded(path)
    node = recording.expect.node if recording.expect else None
    target = TriageTarget(cluster=recording.cluster, region=recording.region, node=node)
    report = run_triage(open_cluster(target, source=DataSource(recorded=recording)))
    render_text(report)
    json.dumps(report.to_json())
    return len(report.findings), len(report.skipped)


def timed(function: Callable[[], object], runs: int, cpu: list[float] | None = None) -> list[float]:
    """Wall times of `runs` calls; their CPU times (this process) appended to `cpu`: on a
    busy machine the CPU time is the steadier figure."""
    times = []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        function()
        times.append(time.perf_counter() - start)
        if cpu is not None:
            cpu.append(time.process_time() - start_cpu)
    return times


def traced_peak(function: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def max_rss_mib() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return usage / 1024 if sys.platform != "darwin" else usage / (1024 * 1024)


def bench_triage(label: str, path: Path, runs: int) -> None:
    import json

    raw = json.loads(path.read_text(encoding="utf-8"))
    nodes = max(
        (
            len((c.get("response") or {}).get("ClusterNodeSummaries", []))
            for c in raw.get("aws", [])
            if c.get("operation") == "ListClusterNodes"
        ),
        default=0,
    )
    findings, skipped = one_triage(path)  # warm-up: imports, first botocore model load
    cpu: list[float] = []
    times = timed(lambda: one_triage(path), runs, cpu)
    peak = traced_peak(lambda: one_triage(path))
    kube = raw.get("kubernetes") or {}
    kube_sizes = ", ".join(f"{len(kube.get(k) or [])} {k}" for k in ("nodes", "pods") if k in kube)
    del raw

    def load_only() -> None:
        with path.open(encoding="utf-8") as handle:
            json.load(handle)

    load_cpu: list[float] = []
    load_times = timed(load_only, runs, load_cpu)
    load_peak = traced_peak(load_only)
    wall, load_wall = statistics.median(times), statistics.median(load_times)
    size_kib = path.stat().st_size / 1024
    print(
        f"triage {label}: {path.name} ({size_kib:,.0f} KiB, {nodes} nodes"
        + (f"; Kubernetes {kube_sizes}" if kube_sizes else "")
        + ")"
    )
    print(f"  findings {findings}, skipped {skipped}")
    print(
        f"  wall median {wall * 1000:,.0f} ms over {runs} runs "
        f"(min {min(times) * 1000:,.0f}, max {max(times) * 1000:,.0f})"
    )
    cpu_time, load_cpu_time = statistics.median(cpu), statistics.median(load_cpu)
    print(f"  cpu median {cpu_time * 1000:,.0f} ms")
    print(f"  tracemalloc peak {peak / 2**20:,.1f} MiB; process ru_maxrss {max_rss_mib():,.0f} MiB")
    print(
        f"  json.load of the same file: wall {load_wall * 1000:,.0f} ms, cpu "
        f"{load_cpu_time * 1000:,.0f} ms, tracemalloc peak {load_peak / 2**20:,.1f} MiB"
    )
    print(
        f"  triage / load: wall {wall / load_wall:,.1f}x, cpu "
        f"{cpu_time / max(load_cpu_time, 1e-9):,.1f}x, memory {peak / max(load_peak, 1):,.1f}x"
    )


def subprocess_median(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, timeout=120)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_startup(runs: int) -> None:
    script = Path(sys.executable).with_name("hyperpod-debug")
    bare = subprocess_median([sys.executable, "-c", "pass"], runs)
    help_time = subprocess_median([str(script), "--help"], runs)
    print(f"start-up (median of {runs}):")
    print(f"  python -c pass          {bare * 1000:7,.0f} ms")
    extra = (help_time - bare) * 1000
    print(f"  hyperpod-debug --help   {help_time * 1000:7,.0f} ms  (+{extra:,.0f})")


def main(argv: list[str] | None = None) -> int:
    import json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("recorded", nargs="?", type=Path, help="recorded cluster file")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per measurement")
    parser.add_argument("--nodes", type=int, default=2000, help="size of the synthetic cluster")
    parser.add_argument("--no-startup", action="store_true", help="skip the start-up timing")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.nodes < 1:
        parser.error("--runs and --nodes must be positive")

    source = args.recorded or largest_recording()
    with tempfile.TemporaryDirectory(prefix="hpd-bench-") as tmp:
        if source is not None:
            if not source.is_file():
                parser.error(f"no such recorded cluster: {source}")
            bench_triage("recorded", source, args.runs)
            base = json.loads(source.read_text(encoding="utf-8"))
        else:
            print("no recorded cluster under evals/clusters/: using a hand-made one")
            base = minimal_recording(args.nodes)
        synthetic = Path(tmp) / f"synthetic-{args.nodes}-nodes.json"
        synthetic.write_text(json.dumps(grow_nodes(base, args.nodes)), encoding="utf-8")
        bench_triage("synthetic", synthetic, args.runs)
    if not args.no_startup:
        bench_startup(5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
