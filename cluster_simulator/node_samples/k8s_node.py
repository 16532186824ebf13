"""A HyperPod instance's Kubernetes Node object, complete as `kubectl get node -o json`
prints it, and the names and uids every sample object derives from an instance id.

A healthy Node carries HyperPod's health labels (Schedulable / Passed), its providerID,
conditions and nodeInfo. Objects are complete on purpose: the kubernetes client validates
typed models strictly, and the recorded format promises the API's JSON.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from cluster_simulator.base import RECORDED_AT, REGION, iso
from tools.recorded.model import KubernetesObjects

Json = dict[str, Any]
# (instance id, instance group, instance type, availability zone)
NodeSpec = tuple[str, str, str, str]

KUBELET_VERSION = "v1.31.4-eks-aeac579"
CREATED = RECORDED_AT - timedelta(days=10)


def object_uid(*parts: str) -> str:
    digest = hashlib.sha256("/".join(parts).encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def name_suffix(*parts: str, length: int = 5) -> str:
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    number = int(hashlib.sha256("/".join(parts).encode()).hexdigest(), 16)
    out = ""
    for _ in range(length):
        number, index = divmod(number, len(alphabet))
        out += alphabet[index]
    return out


def node_name(instance_id: str) -> str:
    return f"hyperpod-{instance_id}"


def instance_ip(instance_id: str) -> str:
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


def neuron_health_condition(error: str | None = None) -> Json:
    """The condition AWS's Neuron node problem detector keeps on a Neuron node: False with
    NeuronHasNoError while healthy, True with NeuronHasError_<error> after a driver report."""
    if error is None:
        return _condition("NeuronHealth", "False", "NeuronHasNoError", "Neuron has no error")
    return _condition(
        "NeuronHealth",
        "True",
        f"NeuronHasError_{error}",
        f"kernel: NEURON_HW_ERR={error} nd-id=3 nc-id=1 action=TERMINATE_INSTANCE",
    )


def node(spec: NodeSpec) -> Json:
    instance_id, group, instance_type, zone = spec
    name = node_name(instance_id)
    ip = instance_ip(instance_id)
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
            "uid": object_uid("node", instance_id),
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
                "bootID": object_uid("boot", instance_id),
                "containerRuntimeVersion": "containerd://1.7.27",
                "kernelVersion": "5.15.0-1072-aws",
                "kubeProxyVersion": KUBELET_VERSION,
                "kubeletVersion": KUBELET_VERSION,
                "machineID": object_uid("machine", instance_id).replace("-", ""),
                "operatingSystem": "linux",
                "osImage": "Ubuntu 22.04.5 LTS",
                "systemUUID": object_uid("system", instance_id),
            },
        },
    }


def find_node(objects: KubernetesObjects, instance_id: str) -> Json:
    return next(n for n in objects.nodes if n["metadata"]["name"] == node_name(instance_id))
