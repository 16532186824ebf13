"""The Pods, DaemonSets and CoreDNS Deployment of a healthy HyperPod EKS cluster, complete
as `kubectl get -o json` prints them.

`healthy_objects(nodes)` builds a healthy cluster: one Node per HyperPod instance
(k8s_node.py), the aws-node and kube-proxy DaemonSets with a pod on every node, the CoreDNS
Deployment with two pods, and one running workload pod per node. The fault editors
(k8s_faults.py) then change those objects in place to plant one fault each.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta

from cluster_simulator.base import RECORDED_AT, iso
from cluster_simulator.node_samples.k8s_node import (
    CREATED,
    Json,
    NodeSpec,
    instance_ip,
    name_suffix,
    node,
    node_name,
    object_uid,
)
from tools.recorded.model import KubernetesObjects

CNI_IMAGE = "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.19.2-eksbuild.1"
PROXY_IMAGE = "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/kube-proxy:v1.31.3-eksbuild.2"
DNS_IMAGE = "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/coredns:v1.11.4-eksbuild.2"
WORKLOAD_IMAGE = "111122223333.dkr.ecr.us-west-2.amazonaws.com/llm-train:2026.11"
WORKLOAD_NAMESPACE = "training"
STARTED = RECORDED_AT - timedelta(days=2)


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


@dataclass(frozen=True)
class PodTemplate:
    """What a controller stamps on each of its pods: the one container and its image, the
    labels, the owner ((apiVersion, kind, name) of the controller) and host networking."""

    container: str
    image: str
    labels: Json
    owner: tuple[str, str, str] | None = None
    host_network: bool = False


def pod(name: str, namespace: str, node: str | None, template: PodTemplate) -> Json:
    """A running, ready pod of `template` on `node` (None: not scheduled)."""
    container, image, labels = template.container, template.image, template.labels
    owner, host_network = template.owner, template.host_network
    instance = node.removeprefix("hyperpod-") if node else ""
    node_ip = instance_ip(instance) if instance else ""
    pod_ip = node_ip if host_network else f"10.1.200.{int(name_suffix(name, length=2), 36) % 250}"
    metadata: Json = {
        "creationTimestamp": iso(STARTED),
        "labels": labels,
        "name": name,
        "namespace": namespace,
        "resourceVersion": str(200_000 + int(name_suffix(name, length=3), 36) % 100_000),
        "uid": object_uid("pod", namespace, name),
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
                "uid": object_uid("owner", namespace, owner[2]),
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
            "uid": object_uid("daemonset", name),
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


def hyperpod_namespace(phase: str = "Active") -> Json:
    """The namespace HyperPod's Helm chart installs its agents into."""
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": "aws-hyperpod",
            "uid": "5d1c7c2e-0c5a-4f0e-9a51-aws-hyperpod",
            "resourceVersion": "1042",
            "creationTimestamp": iso(CREATED),
            "labels": {"kubernetes.io/metadata.name": "aws-hyperpod"},
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": phase},
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
            "uid": object_uid("deployment", "coredns"),
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
                    f"{app}-{name_suffix(app, instance_id)}",
                    "kube-system",
                    host,
                    PodTemplate(
                        container,
                        image,
                        labels={"k8s-app": app, "controller-revision-hash": "6d8f7c9b5"},
                        owner=("apps/v1", "DaemonSet", app),
                        host_network=True,
                    ),
                )
            )
    # CoreDNS runs on the last two nodes (unscheduled when the cluster has none).
    dns_hosts: list[str | None] = [node_name(n[0]) for n in nodes[-2:]]
    for index, dns_host in enumerate(dns_hosts or [None, None]):
        pods.append(
            pod(
                f"coredns-6b9575c64c-{name_suffix('coredns', str(index))}",
                "kube-system",
                dns_host,
                PodTemplate(
                    "coredns",
                    DNS_IMAGE,
                    labels={
                        "k8s-app": "kube-dns",
                        "eks.amazonaws.com/component": "coredns",
                        "pod-template-hash": "6b9575c64c",
                    },
                    owner=("apps/v1", "ReplicaSet", "coredns-6b9575c64c"),
                ),
            )
        )
    for index, (instance_id, group, *_rest) in enumerate(nodes):
        pods.append(
            pod(
                f"llm-train-worker-{index}",
                WORKLOAD_NAMESPACE,
                node_name(instance_id),
                PodTemplate(
                    "pytorch",
                    WORKLOAD_IMAGE,
                    labels={"training.kubeflow.org/job-name": "llm-train", "group": group},
                    owner=("kubeflow.org/v1", "PyTorchJob", "llm-train"),
                ),
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
        namespaces=[hyperpod_namespace()],
    )


# -- lookups ------------------------------------------------------------------------------


def find_pod(objects: KubernetesObjects, app: str, instance_id: str) -> Json:
    """The pod of DaemonSet `app` (aws-node, kube-proxy) on that instance's node."""
    host = node_name(instance_id)
    return next(
        p
        for p in objects.pods
        if p["metadata"]["labels"].get("k8s-app") == app and p["spec"].get("nodeName") == host
    )


def find_daemonset(objects: KubernetesObjects, name: str) -> Json:
    return next(d for d in objects.daemonsets if d["metadata"]["name"] == name)


def find_workload(objects: KubernetesObjects, instance_id: str) -> Json:
    host = node_name(instance_id)
    return next(
        p
        for p in objects.pods
        if p["metadata"]["namespace"] == WORKLOAD_NAMESPACE and p["spec"].get("nodeName") == host
    )
