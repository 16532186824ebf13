"""Fault editors of the sample Kubernetes objects: each changes a healthy cluster's objects
(k8s_objects.healthy_objects) in place, returns them, and plants one fault the bundled
scenarios and tests need: HyperPod's health verdict on a Node, a NotReady or pressured
Node, aws-node crash-looping, a pod sandbox that cannot be created, CoreDNS Pending, an
image that cannot be pulled, an OOM-killed container.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from cluster_simulator.base import RECORDED_AT, iso
from cluster_simulator.node_samples.k8s_node import (
    Json,
    find_node,
    name_suffix,
    node_name,
    object_uid,
)
from cluster_simulator.node_samples.k8s_objects import (
    WORKLOAD_IMAGE,
    WORKLOAD_NAMESPACE,
    PodTemplate,
    find_daemonset,
    find_pod,
    find_workload,
    pod,
)
from tools.recorded.model import KubernetesObjects

# What aws-node prints when ipamd never comes up (the CNI plugin then cannot reach it).
IPAMD_REFUSED_LOG = "\n".join(
    [
        '{"level":"info","ts":"2026-11-20T11:51:02.114Z","caller":"entrypoint.sh",'
        '"msg":"Validating env variables ..."}',
        '{"level":"info","ts":"2026-11-20T11:51:02.120Z","caller":"entrypoint.sh",'
        '"msg":"Install CNI binaries.."}',
        '{"level":"info","ts":"2026-11-20T11:51:02.162Z","caller":"entrypoint.sh",'
        '"msg":"Starting IPAM daemon in the background ... "}',
        '{"level":"info","ts":"2026-11-20T11:51:02.171Z","caller":"entrypoint.sh",'
        '"msg":"Checking for IPAM connectivity ... "}',
        '{"level":"error","ts":"2026-11-20T11:51:32.210Z","caller":"ipamd/ipamd.go:463",'
        '"msg":"Failed to call ec2:DescribeNetworkInterfaces: RequestError: send request '
        'failed caused by: dial tcp 10.1.0.12:443: i/o timeout"}',
        'timeout: failed to connect service ":50051" within 5s',
        '{"level":"error","ts":"2026-11-20T11:52:02.233Z","caller":"aws-k8s-agent",'
        '"msg":"Failed to wait for IPAM daemon to complete: rpc error: code = Unavailable '
        'desc = connection error: desc = \\"transport: Error while dialing: dial tcp '
        '127.0.0.1:50051: connect: connection refused\\""}',
    ]
)
SANDBOX_50051_MESSAGE = (
    "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network "
    'for sandbox "3f1c9a": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: '
    "Error received from AddNetwork gRPC call: rpc error: code = Unavailable desc = "
    'connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:50051: '
    'connect: connection refused"'
)


@dataclass(frozen=True)
class NodeFault:
    """The fault HyperPod names on a node: its type and reason labels (the plural keys
    with `plural`) and the fault-details annotation (a list, or raw text to plant
    garbage)."""

    type: str | None = None
    reason: str | None = None
    details: list[Json] | str | None = None
    plural: bool = False


def set_node_health(
    objects: KubernetesObjects,
    instance_id: str,
    health: str,
    *,
    deep: str | None = None,
    fault: NodeFault | None = None,
) -> KubernetesObjects:
    """HyperPod's verdict on a node: labels (singular or plural fault keys), the
    fault-details annotation, and the taint."""
    fault = fault or NodeFault()
    fault_type, fault_reason, fault_details = fault.type, fault.reason, fault.details
    plural = fault.plural
    target = find_node(objects, instance_id)
    labels = target["metadata"]["labels"]
    labels["sagemaker.amazonaws.com/node-health-status"] = health
    if deep is not None:
        labels["sagemaker.amazonaws.com/deep-health-check-status"] = deep
    suffix = "s" if plural else ""
    if fault_type is not None:
        labels[f"sagemaker.amazonaws.com/fault-type{suffix}"] = fault_type
    if fault_reason is not None:
        labels[f"sagemaker.amazonaws.com/fault-reason{suffix}"] = fault_reason
    if fault_details is not None:
        text = fault_details if isinstance(fault_details, str) else json.dumps(fault_details)
        target["metadata"]["annotations"]["sagemaker.amazonaws.com/fault-details"] = text
    if health != "Schedulable":
        target["spec"]["taints"] = [
            {
                "effect": "NoSchedule",
                "key": "sagemaker.amazonaws.com/node-health-status",
                "value": "Unschedulable",
            }
        ]
        target["spec"]["unschedulable"] = True
    return objects


def xid_fault_details(moment: datetime = RECORDED_AT - timedelta(minutes=12)) -> list[Json]:
    """A fault-details annotation value for a GPU that fell off the bus (Xid 79)."""
    return [
        {
            "timestamp": iso(moment),
            "type": "NvidiaGpuError",
            "reason": "XidHardwareFailure",
            "message": "NVRM: Xid (PCI:0000:a8:00): 79, pid=0, GPU has fallen off the bus.",
        }
    ]


def set_node_not_ready(
    objects: KubernetesObjects,
    instance_id: str,
    state: str = "Unknown",
    reason: str = "NodeStatusUnknown",
    message: str = "Kubelet stopped posting node status.",
) -> KubernetesObjects:
    target = find_node(objects, instance_id)
    for entry in target["status"]["conditions"]:
        if entry["type"] == "Ready":
            entry.update(
                status=state,
                reason=reason,
                message=message,
                lastTransitionTime=iso(RECORDED_AT - timedelta(minutes=25)),
            )
        elif state == "Unknown":
            entry.update(
                status="Unknown",
                reason="NodeStatusUnknown",
                message="Kubelet stopped posting node status.",
            )
    target["spec"]["taints"] = [
        {
            "effect": "NoSchedule",
            "key": "node.kubernetes.io/unreachable"
            if state == "Unknown"
            else "node.kubernetes.io/not-ready",
        }
    ]
    return objects


def set_node_pressure(
    objects: KubernetesObjects, instance_id: str, kind: str = "DiskPressure"
) -> KubernetesObjects:
    reasons = {
        "DiskPressure": ("KubeletHasDiskPressure", "kubelet has disk pressure"),
        "MemoryPressure": (
            "KubeletHasInsufficientMemory",
            "kubelet has insufficient memory available",
        ),
        "PIDPressure": ("KubeletHasInsufficientPID", "kubelet has insufficient PID available"),
    }
    reason, message = reasons[kind]
    for entry in find_node(objects, instance_id)["status"]["conditions"]:
        if entry["type"] == kind:
            entry.update(status="True", reason=reason, message=message)
    return objects


def _crashing(target: Json, reason: str, restarts: int, exit_code: int = 1) -> None:
    status = target["status"]
    container = status["containerStatuses"][0]
    container.update(
        ready=False,
        started=False,
        restartCount=restarts,
        state={
            "waiting": {
                "reason": reason,
                "message": f"back-off 5m0s restarting failed container={container['name']} "
                f"pod={target['metadata']['name']}_{target['metadata']['namespace']}",
            }
        },
        lastState={
            "terminated": {
                "containerID": container["containerID"],
                "exitCode": exit_code,
                "finishedAt": iso(RECORDED_AT - timedelta(minutes=3)),
                "reason": "Error",
                "startedAt": iso(RECORDED_AT - timedelta(minutes=4)),
            }
        },
    )
    for entry in status["conditions"]:
        if entry["type"] in ("Ready", "ContainersReady"):
            entry.update(
                status="False",
                reason="ContainersNotReady",
                message=f"containers with unready status: [{container['name']}]",
            )


def aws_node_crashloop(
    objects: KubernetesObjects, instance_id: str, log: str = IPAMD_REFUSED_LOG
) -> KubernetesObjects:
    """aws-node crash-looping on one node (ipamd never up), with its previous log."""
    target = find_pod(objects, "aws-node", instance_id)
    _crashing(target, "CrashLoopBackOff", restarts=14)
    status = find_daemonset(objects, "aws-node")["status"]
    status["numberReady"] -= 1
    status["numberAvailable"] -= 1
    status["numberUnavailable"] = status.get("numberUnavailable", 0) + 1
    key = f"kube-system/{target['metadata']['name']}/aws-node#previous"
    objects.logs[key] = log
    return objects


def sandbox_failure(
    objects: KubernetesObjects,
    instance_id: str,
    message: str = SANDBOX_50051_MESSAGE,
    count: int = 23,
) -> KubernetesObjects:
    """A new workload pod stuck in ContainerCreating on the node, and the kubelet's
    FailedCreatePodSandBox events about it."""
    host = node_name(instance_id)
    name = f"llm-eval-{name_suffix('eval', instance_id)}"
    stuck = pod(
        name,
        WORKLOAD_NAMESPACE,
        host,
        PodTemplate(
            "eval",
            WORKLOAD_IMAGE,
            labels={"app": "llm-eval"},
            owner=("batch/v1", "Job", "llm-eval"),
        ),
    )
    container = stuck["status"]["containerStatuses"][0]
    container.update(
        ready=False,
        started=False,
        containerID=None,
        imageID="",
        state={"waiting": {"reason": "ContainerCreating"}},
    )
    container.pop("containerID")
    stuck["status"].update(phase="Pending", podIP=None, podIPs=None)
    for key in ("podIP", "podIPs"):
        stuck["status"].pop(key)
    for entry in stuck["status"]["conditions"]:
        if entry["type"] in ("Ready", "ContainersReady", "PodReadyToStartContainers"):
            entry.update(status="False")
    objects.pods.append(stuck)
    objects.events.append(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "count": count,
            "eventTime": None,
            "firstTimestamp": iso(RECORDED_AT - timedelta(minutes=20)),
            "involvedObject": {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": name,
                "namespace": WORKLOAD_NAMESPACE,
                "resourceVersion": stuck["metadata"]["resourceVersion"],
                "uid": stuck["metadata"]["uid"],
            },
            "lastTimestamp": iso(RECORDED_AT - timedelta(minutes=1)),
            "message": message,
            "metadata": {
                "creationTimestamp": iso(RECORDED_AT - timedelta(minutes=20)),
                "name": f"{name}.18a2b3c4d5e6f7a8",
                "namespace": WORKLOAD_NAMESPACE,
                "resourceVersion": "987654",
                "uid": object_uid("event", name),
            },
            "reason": "FailedCreatePodSandBox",
            "reportingComponent": "kubelet",
            "reportingInstance": host,
            "source": {"component": "kubelet", "host": host},
            "type": "Warning",
        }
    )
    return objects


def coredns_pending(
    objects: KubernetesObjects,
    message: str = "0/6 nodes are available: 6 node(s) had untolerated taint "
    "{sagemaker.amazonaws.com/node-health-status: Unschedulable}. preemption: 0/6 nodes are "
    "available: 6 Preemption is not helpful for scheduling.",
) -> KubernetesObjects:
    """Every CoreDNS pod Pending (unschedulable), the Deployment unavailable."""
    for target in objects.pods:
        if target["metadata"]["labels"].get("k8s-app") != "kube-dns":
            continue
        target["spec"].pop("nodeName", None)
        target["status"] = {
            "conditions": [
                {
                    "lastProbeTime": None,
                    "lastTransitionTime": iso(RECORDED_AT - timedelta(minutes=30)),
                    "message": message,
                    "reason": "Unschedulable",
                    "status": "False",
                    "type": "PodScheduled",
                }
            ],
            "phase": "Pending",
            "qosClass": "Burstable",
        }
    deployment = next(d for d in objects.deployments if d["metadata"]["name"] == "coredns")
    replicas = deployment["spec"]["replicas"]
    # The API omits zero counts: ready and available disappear, unavailable appears.
    deployment["status"].pop("readyReplicas", None)
    deployment["status"].pop("availableReplicas", None)
    deployment["status"]["unavailableReplicas"] = replicas
    deployment["status"]["conditions"][0].update(
        status="False",
        reason="MinimumReplicasUnavailable",
        message="Deployment does not have minimum availability.",
    )
    return objects


def image_pull_backoff(
    objects: KubernetesObjects,
    instance_id: str,
    image: str = "111122223333.dkr.ecr.us-west-2.amazonaws.com/llm-train:2026.12-typo",
) -> KubernetesObjects:
    """The workload pod on the node cannot pull its image."""
    target = find_workload(objects, instance_id)
    target["spec"]["containers"][0]["image"] = image
    container = target["status"]["containerStatuses"][0]
    container.update(
        image=image,
        imageID="",
        ready=False,
        started=False,
        restartCount=0,
        lastState={},
        state={
            "waiting": {
                "reason": "ImagePullBackOff",
                "message": f'Back-off pulling image "{image}"',
            }
        },
    )
    container.pop("containerID", None)
    target["status"]["phase"] = "Pending"
    for entry in target["status"]["conditions"]:
        if entry["type"] in ("Ready", "ContainersReady"):
            entry.update(
                status="False",
                reason="ContainersNotReady",
                message="containers with unready status: [pytorch]",
            )
    return objects


def oom_killed(
    objects: KubernetesObjects,
    instance_id: str,
    restarts: int = 3,
    memory_limit: str | None = None,
) -> KubernetesObjects:
    """The workload container on the node was OOM-killed and restarted; with
    `memory_limit` (e.g. "64Gi") the container sets that limit, so the kill was at it."""
    pod = find_workload(objects, instance_id)
    if memory_limit is not None:
        resources = pod["spec"]["containers"][0]["resources"]
        resources["limits"] = {"memory": memory_limit}
        resources["requests"] = {**resources.get("requests", {}), "memory": memory_limit}
    container = pod["status"]["containerStatuses"][0]
    container.update(
        restartCount=restarts,
        state={"running": {"startedAt": iso(RECORDED_AT - timedelta(minutes=6))}},
        lastState={
            "terminated": {
                "containerID": container["containerID"],
                "exitCode": 137,
                "finishedAt": iso(RECORDED_AT - timedelta(minutes=6)),
                "reason": "OOMKilled",
                "startedAt": iso(RECORDED_AT - timedelta(hours=3)),
            }
        },
    )
    return objects
