"""Kubernetes objects of a HyperPod EKS cluster, complete as `kubectl get -o json` prints
them, with the faults the bundled scenarios need.

`healthy_objects(nodes)` builds a healthy cluster: one Node per HyperPod instance (health
labels Schedulable / Passed, providerID, conditions, nodeInfo), the aws-node and
kube-proxy DaemonSets with a pod on every node, the CoreDNS Deployment with two pods, and
one running workload pod per node. The other functions edit those objects in place (and
return them) to plant one fault each. Objects are complete on purpose: the kubernetes
client validates typed models strictly, and the recorded format promises the API's JSON.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from typing import Any

from evals.clusters.base import RECORDED_AT, REGION, iso
from tools.recorded.model import KubernetesObjects

Json = dict[str, Any]
# (instance id, instance group, instance type, availability zone)
NodeSpec = tuple[str, str, str, str]

KUBELET_VERSION = "v1.31.4-eks-aeac579"
CNI_IMAGE = "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.19.2-eksbuild.1"
PROXY_IMAGE = "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/kube-proxy:v1.31.3-eksbuild.2"
DNS_IMAGE = "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/coredns:v1.11.4-eksbuild.2"
WORKLOAD_IMAGE = "111122223333.dkr.ecr.us-west-2.amazonaws.com/llm-train:2026.11"
WORKLOAD_NAMESPACE = "training"
CREATED = RECORDED_AT - timedelta(days=10)
STARTED = RECORDED_AT - timedelta(days=2)

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


def _uid(*parts: str) -> str:
    digest = hashlib.sha256("/".join(parts).encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def _suffix(*parts: str, length: int = 5) -> str:
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    number = int(hashlib.sha256("/".join(parts).encode()).hexdigest(), 16)
    out = ""
    for _ in range(length):
        number, index = divmod(number, len(alphabet))
        out += alphabet[index]
    return out


def node_name(instance_id: str) -> str:
    return f"hyperpod-{instance_id}"


def _ip(instance_id: str) -> str:
    number = int(instance_id[2:], 16)
    return f"10.1.{(number // 250) % 128}.{10 + number % 240}"


def _gpus(instance_type: str) -> int:
    return 8 if instance_type.startswith(("ml.p4", "ml.p5")) else 0


def _condition(kind: str, state: str, reason: str, message: str) -> Json:
    return {
        "lastHeartbeatTime": iso(RECORDED_AT - timedelta(seconds=40)),
        "lastTransitionTime": iso(CREATED),
        "message": message,
        "reason": reason,
        "status": state,
        "type": kind,
    }


def node(spec: NodeSpec) -> Json:
    instance_id, group, instance_type, zone = spec
    name = node_name(instance_id)
    ip = _ip(instance_id)
    gpus = _gpus(instance_type)
    capacity = {
        "cpu": "192" if gpus else "8",
        "ephemeral-storage": "104845292Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": "2097021512Ki" if gpus else "32386928Ki",
        "pods": "737" if gpus else "58",
    }
    if gpus:
        capacity["nvidia.com/gpu"] = str(gpus)
        capacity["vpc.amazonaws.com/efa"] = "32"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "alpha.kubernetes.io/provided-node-ip": ip,
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": iso(CREATED),
            "labels": {
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/instance-type": instance_type,
                "beta.kubernetes.io/os": "linux",
                "failure-domain.beta.kubernetes.io/region": REGION,
                "failure-domain.beta.kubernetes.io/zone": zone,
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": instance_type,
                "sagemaker.amazonaws.com/compute-type": "hyperpod",
                "sagemaker.amazonaws.com/deep-health-check-status": "Passed",
                "sagemaker.amazonaws.com/instance-group-name": group,
                "sagemaker.amazonaws.com/node-health-status": "Schedulable",
                "topology.kubernetes.io/region": REGION,
                "topology.kubernetes.io/zone": zone,
            },
            "name": name,
            "resourceVersion": str(100_000 + int(instance_id[2:], 16) % 100_000),
            "uid": _uid("node", instance_id),
        },
        "spec": {"providerID": f"aws:///{zone}/{instance_id}"},
        "status": {
            "addresses": [
                {"address": ip, "type": "InternalIP"},
                {"address": name, "type": "Hostname"},
                {
                    "address": f"ip-{ip.replace('.', '-')}.{REGION}.compute.internal",
                    "type": "InternalDNS",
                },
            ],
            "allocatable": dict(capacity),
            "capacity": capacity,
            "conditions": [
                _condition(
                    "MemoryPressure",
                    "False",
                    "KubeletHasSufficientMemory",
                    "kubelet has sufficient memory available",
                ),
                _condition(
                    "DiskPressure",
                    "False",
                    "KubeletHasNoDiskPressure",
                    "kubelet has no disk pressure",
                ),
                _condition(
                    "PIDPressure",
                    "False",
                    "KubeletHasSufficientPID",
                    "kubelet has sufficient PID available",
                ),
                _condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": [],
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": _uid("boot", instance_id),
                "containerRuntimeVersion": "containerd://1.7.27",
                "kernelVersion": "5.15.0-1072-aws",
                "kubeProxyVersion": KUBELET_VERSION,
                "kubeletVersion": KUBELET_VERSION,
                "machineID": _uid("machine", instance_id).replace("-", ""),
                "operatingSystem": "linux",
                "osImage": "Ubuntu 22.04.5 LTS",
                "systemUUID": _uid("system", instance_id),
            },
        },
    }


def _container(name: str, image: str) -> Json:
    return {
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "name": name,
        "resources": {"requests": {"cpu": "25m"}},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    }


def _running_status(name: str, image: str, node_ip: str, pod_ip: str) -> Json:
    repository = image.rsplit(":", 1)[0]
    return {
        "conditions": [
            {
                "lastProbeTime": None,
                "lastTransitionTime": iso(STARTED),
                "status": "True",
                "type": kind,
            }
            for kind in (
                "PodReadyToStartContainers",
                "Initialized",
                "Ready",
                "ContainersReady",
                "PodScheduled",
            )
        ],
        "containerStatuses": [
            {
                "containerID": f"containerd://{hashlib.sha256(name.encode()).hexdigest()}",
                "image": image,
                "imageID": f"{repository}@sha256:{hashlib.sha256(image.encode()).hexdigest()}",
                "lastState": {},
                "name": name,
                "ready": True,
                "restartCount": 0,
                "started": True,
                "state": {"running": {"startedAt": iso(STARTED)}},
            }
        ],
        "hostIP": node_ip,
        "hostIPs": [{"ip": node_ip}],
        "phase": "Running",
        "podIP": pod_ip,
        "podIPs": [{"ip": pod_ip}],
        "qosClass": "Burstable",
        "startTime": iso(STARTED),
    }


def pod(
    name: str,
    namespace: str,
    container: str,
    image: str,
    node: str | None,
    *,
    labels: Json,
    owner: tuple[str, str, str] | None = None,
    host_network: bool = False,
) -> Json:
    """A running, ready pod (owner = (apiVersion, kind, name) of its controller)."""
    instance = node.removeprefix("hyperpod-") if node else ""
    node_ip = _ip(instance) if instance else ""
    pod_ip = node_ip if host_network else f"10.1.200.{int(_suffix(name, length=2), 36) % 250}"
    metadata: Json = {
        "creationTimestamp": iso(STARTED),
        "labels": labels,
        "name": name,
        "namespace": namespace,
        "resourceVersion": str(200_000 + int(_suffix(name, length=3), 36) % 100_000),
        "uid": _uid("pod", namespace, name),
    }
    if owner:
        metadata["generateName"] = name.rsplit("-", 1)[0] + "-"
        metadata["ownerReferences"] = [
            {
                "apiVersion": owner[0],
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": owner[1],
                "name": owner[2],
                "uid": _uid("owner", namespace, owner[2]),
            }
        ]
    spec: Json = {
        "containers": [_container(container, image)],
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": True,
        "hostNetwork": host_network,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
        "tolerations": [],
    }
    if node:
        spec["nodeName"] = node
    status = _running_status(container, image, node_ip, pod_ip)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status}


def _template(app: str, container: str, image: str) -> Json:
    return {
        "metadata": {"creationTimestamp": None, "labels": {"k8s-app": app}},
        "spec": {
            "containers": [_container(container, image)],
            "dnsPolicy": "ClusterFirst",
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "securityContext": {},
            "terminationGracePeriodSeconds": 30,
        },
    }


def daemonset(name: str, container: str, image: str, count: int) -> Json:
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "annotations": {"deprecated.daemonset.template.generation": "1"},
            "creationTimestamp": iso(CREATED),
            "generation": 1,
            "labels": {"k8s-app": name},
            "name": name,
            "namespace": "kube-system",
            "resourceVersion": "4242",
            "uid": _uid("daemonset", name),
        },
        "spec": {
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": {"k8s-app": name}},
            "template": _template(name, container, image),
            "updateStrategy": {
                "rollingUpdate": {"maxSurge": 0, "maxUnavailable": "10%"},
                "type": "RollingUpdate",
            },
        },
        "status": {
            "currentNumberScheduled": count,
            "desiredNumberScheduled": count,
            "numberAvailable": count,
            "numberMisscheduled": 0,
            "numberReady": count,
            "observedGeneration": 1,
            "updatedNumberScheduled": count,
        },
    }


def coredns_deployment(replicas: int = 2) -> Json:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "annotations": {"deployment.kubernetes.io/revision": "1"},
            "creationTimestamp": iso(CREATED),
            "generation": 1,
            "labels": {"eks.amazonaws.com/component": "coredns", "k8s-app": "kube-dns"},
            "name": "coredns",
            "namespace": "kube-system",
            "resourceVersion": "4343",
            "uid": _uid("deployment", "coredns"),
        },
        "spec": {
            "progressDeadlineSeconds": 600,
            "replicas": replicas,
            "revisionHistoryLimit": 10,
            "selector": {
                "matchLabels": {"eks.amazonaws.com/component": "coredns", "k8s-app": "kube-dns"}
            },
            "strategy": {
                "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1},
                "type": "RollingUpdate",
            },
            "template": _template("kube-dns", "coredns", DNS_IMAGE),
        },
        "status": {
            "availableReplicas": replicas,
            "conditions": [
                {
                    "lastTransitionTime": iso(CREATED),
                    "lastUpdateTime": iso(CREATED),
                    "message": "Deployment has minimum availability.",
                    "reason": "MinimumReplicasAvailable",
                    "status": "True",
                    "type": "Available",
                },
                {
                    "lastTransitionTime": iso(CREATED),
                    "lastUpdateTime": iso(CREATED),
                    "message": 'ReplicaSet "coredns-6b9575c64c" has successfully progressed.',
                    "reason": "NewReplicaSetAvailable",
                    "status": "True",
                    "type": "Progressing",
                },
            ],
            "observedGeneration": 1,
            "readyReplicas": replicas,
            "replicas": replicas,
            "updatedReplicas": replicas,
        },
    }


def healthy_objects(nodes: list[NodeSpec]) -> KubernetesObjects:
    """A healthy EKS view of these HyperPod instances (see the module docstring)."""
    node_objects = [node(spec) for spec in nodes]
    pods: list[Json] = []
    for instance_id, *_ in nodes:
        host = node_name(instance_id)
        for app, container, image in (
            ("aws-node", "aws-node", CNI_IMAGE),
            ("kube-proxy", "kube-proxy", PROXY_IMAGE),
        ):
            pods.append(
                pod(
                    f"{app}-{_suffix(app, instance_id)}",
                    "kube-system",
                    container,
                    image,
                    host,
                    labels={"k8s-app": app, "controller-revision-hash": "6d8f7c9b5"},
                    owner=("apps/v1", "DaemonSet", app),
                    host_network=True,
                )
            )
    # CoreDNS runs on the last two nodes (unscheduled when the cluster has none).
    dns_hosts: list[str | None] = [node_name(n[0]) for n in nodes[-2:]]
    for index, dns_host in enumerate(dns_hosts or [None, None]):
        pods.append(
            pod(
                f"coredns-6b9575c64c-{_suffix('coredns', str(index))}",
                "kube-system",
                "coredns",
                DNS_IMAGE,
                dns_host,
                labels={
                    "k8s-app": "kube-dns",
                    "eks.amazonaws.com/component": "coredns",
                    "pod-template-hash": "6b9575c64c",
                },
                owner=("apps/v1", "ReplicaSet", "coredns-6b9575c64c"),
            )
        )
    for index, (instance_id, group, *_rest) in enumerate(nodes):
        pods.append(
            pod(
                f"llm-train-worker-{index}",
                WORKLOAD_NAMESPACE,
                "pytorch",
                WORKLOAD_IMAGE,
                node_name(instance_id),
                labels={"training.kubeflow.org/job-name": "llm-train", "group": group},
                owner=("kubeflow.org/v1", "PyTorchJob", "llm-train"),
            )
        )
    return KubernetesObjects(
        nodes=node_objects,
        pods=pods,
        daemonsets=[
            daemonset("aws-node", "aws-node", CNI_IMAGE, len(nodes)),
            daemonset("kube-proxy", "kube-proxy", PROXY_IMAGE, len(nodes)),
        ],
        deployments=[coredns_deployment()],
        events=[],
    )


# -- lookups ------------------------------------------------------------------------------


def find_node(objects: KubernetesObjects, instance_id: str) -> Json:
    return next(n for n in objects.nodes if n["metadata"]["name"] == node_name(instance_id))


def find_pod(objects: KubernetesObjects, app: str, instance_id: str) -> Json:
    """The pod of DaemonSet `app` (aws-node, kube-proxy) on that instance's node."""
    host = node_name(instance_id)
    return next(
        p
        for p in objects.pods
        if p["metadata"]["labels"].get("k8s-app") == app and p["spec"].get("nodeName") == host
    )


def _daemonset(objects: KubernetesObjects, name: str) -> Json:
    return next(d for d in objects.daemonsets if d["metadata"]["name"] == name)


# -- faults -------------------------------------------------------------------------------


def set_node_health(
    objects: KubernetesObjects,
    instance_id: str,
    health: str,
    *,
    deep: str | None = None,
    fault_type: str | None = None,
    fault_reason: str | None = None,
    fault_details: list[Json] | str | None = None,
    plural: bool = False,
) -> KubernetesObjects:
    """HyperPod's verdict on a node: labels (singular or plural fault keys), the
    fault-details annotation (a list, or raw text to plant garbage), and the taint."""
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
    status = _daemonset(objects, "aws-node")["status"]
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
    name = f"llm-eval-{_suffix('eval', instance_id)}"
    stuck = pod(
        name,
        WORKLOAD_NAMESPACE,
        "eval",
        WORKLOAD_IMAGE,
        host,
        labels={"app": "llm-eval"},
        owner=("batch/v1", "Job", "llm-eval"),
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
                "uid": _uid("event", name),
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


def _workload(objects: KubernetesObjects, instance_id: str) -> Json:
    host = node_name(instance_id)
    return next(
        p
        for p in objects.pods
        if p["metadata"]["namespace"] == WORKLOAD_NAMESPACE and p["spec"].get("nodeName") == host
    )


def image_pull_backoff(
    objects: KubernetesObjects,
    instance_id: str,
    image: str = "111122223333.dkr.ecr.us-west-2.amazonaws.com/llm-train:2026.12-typo",
) -> KubernetesObjects:
    """The workload pod on the node cannot pull its image."""
    target = _workload(objects, instance_id)
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
    objects: KubernetesObjects, instance_id: str, restarts: int = 3
) -> KubernetesObjects:
    """The workload container on the node was OOM-killed and restarted."""
    container = _workload(objects, instance_id)["status"]["containerStatuses"][0]
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
