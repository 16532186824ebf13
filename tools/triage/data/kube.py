"""Kubernetes reads (EKS clusters): nodes, kube-system workloads, pods on the nodes in
scope, sandbox-failure events and aws-node log tails, each read once per triage.

The access itself is memoised, so a missing kubeconfig or exec command is found once and
every Kubernetes check is skipped with the same reason. Before the first read, the
kubeconfig's API server is compared with the HyperPod cluster's EKS endpoint: judging
another cluster's nodes would be worse than judging none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tools.kube import objects as k8s
from tools.sources import KubernetesUnavailable
from tools.triage.data.eks import EksReads
from tools.triage.data.kube_model import (
    APP_LABEL,
    DaemonSet,
    Deployment,
    KubeEvent,
    KubeNode,
    Namespace,
    Pod,
)
from tools.triage.data.node_probes import NodeReads

KUBE_SYSTEM = "kube-system"
# The namespace HyperPod's Helm chart installs its agents into; the name cannot be changed.
HYPERPOD_NAMESPACE = "aws-hyperpod"
if TYPE_CHECKING:
    # Only a type here: the access module loads the Kubernetes client's config helpers,
    # which a triage without Kubernetes never needs.
    from tools.kube.access import KubeAccess

SYSTEM_APPS = frozenset({"aws-node", "kube-proxy", "kube-dns"})
SANDBOX_REASON = "FailedCreatePodSandBox"
# Previous-container logs read for crashing aws-node pods: a few explain the pattern.
MAX_AWS_NODE_LOGS = 3


def _endpoint(url: str) -> tuple[str, int]:
    parts = urlsplit(url.strip())
    default = 80 if parts.scheme == "http" else 443
    return (parts.hostname or "").lower(), parts.port or default


# The two filters below run while paging, on every listed pod's raw (slim) object, before
# any is parsed: parsing a pod costs several times more than reading these few fields, and
# most of a large cluster's pods are healthy and dropped. `_system_pod` and
# `Pod.needs_attention` are the same rules over a parsed pod.


def _system_pod_kept(pod: dict[str, Any]) -> bool:
    # CoreDNS pods are few and judged even when healthy; aws-node / kube-proxy run on
    # every node, so only their troubled pods are kept.
    return k8s.labels(pod).get(APP_LABEL) == "kube-dns" or k8s.pod_needs_attention(pod)


def _cluster_pod_kept(pod: dict[str, Any]) -> bool:
    return k8s.pod_needs_attention(pod) or (
        k8s.namespace(pod) == KUBE_SYSTEM and _system_pod_kept(pod)
    )


def _system_pod(pod: Pod) -> bool:
    return pod.namespace == KUBE_SYSTEM and (pod.app == "kube-dns" or pod.needs_attention)


def _pods(listed: list[dict[str, Any]]) -> tuple[Pod, ...]:
    return tuple(Pod.from_api(pod) for pod in listed)


class KubeReads(NodeReads, EksReads):
    def kube(self) -> KubeAccess:
        """The Kubernetes access of this run (raises KubernetesUnavailable, remembered)."""

        def fetch() -> KubeAccess:
            access: KubeAccess = self.sources.kube()
            self._same_cluster(access)
            return access

        return self._once(("kube",), fetch)

    def _same_cluster(self, access: KubeAccess) -> None:
        if not access.server:
            return  # replayed objects: recorded from the right cluster
        # A denied read cannot be compared; the EKS checks report it.
        eks = self.optional(self.eks_cluster)
        if eks is None or not eks.endpoint or _endpoint(eks.endpoint) == _endpoint(access.server):
            return
        context = f"context {access.context} " if access.context else "the kubeconfig "
        raise access.refuse(
            f"{context}points at {access.server}, not at EKS cluster "
            f"{eks.name} ({eks.endpoint}) that orchestrates this HyperPod "
            "cluster: pick its context with --context"
        )

    def kube_nodes(self) -> tuple[KubeNode, ...]:
        """Every Kubernetes node of the cluster."""
        return self._once(
            ("kube", "nodes"),
            lambda: tuple(KubeNode.from_api(node) for node in self.kube().list_nodes()),
        )

    def kube_node_instances(self) -> dict[str, str | None]:
        """Kubernetes node name -> EC2 instance id (None when it cannot be told)."""
        return {node.name: node.instance_id for node in self.kube_nodes()}

    def kube_node_names_in_scope(self) -> list[str] | None:
        """With --node, the Kubernetes name(s) of that instance (maybe none); else None."""
        if self.target.node is None:
            return None
        return [name for name, iid in self.kube_node_instances().items() if iid == self.target.node]

    def hyperpod_namespaces(self) -> tuple[Namespace, ...]:
        """The aws-hyperpod namespace as a one-item tuple (empty when it does not exist)."""

        def fetch() -> tuple[Namespace, ...]:
            listed = self.kube().list_namespaces(
                field_selector=f"metadata.name={HYPERPOD_NAMESPACE}"
            )
            return tuple(Namespace.from_api(namespace) for namespace in listed)

        return self._once(("kube", "namespaces"), fetch)

    def kube_system_pods(self) -> tuple[Pod, ...]:
        """kube-system's CoreDNS pods and its troubled pods. Without --node they are taken
        from the cluster-wide pod list the pod checks read anyway: one pass over a large
        cluster's pods, not two."""

        def fetch() -> tuple[Pod, ...]:
            if self.target.node is None:
                try:
                    pods = self._cluster_pods()
                except KubernetesUnavailable:
                    pass  # e.g. RBAC that lets us list kube-system only: ask for that
                else:
                    return tuple(p for p in pods if _system_pod(p))
            return _pods(self.kube().list_pods(KUBE_SYSTEM, keep=_system_pod_kept))

        return self._once(("kube", "system-pods"), fetch)

    def _cluster_pods(self) -> tuple[Pod, ...]:
        """Every namespace's pods that need attention, and kube-system's CoreDNS pods."""
        return self._once(
            ("kube", "cluster-pods"),
            lambda: _pods(self.kube().list_pods(keep=_cluster_pod_kept)),
        )

    def kube_system_daemonsets(self) -> tuple[DaemonSet, ...]:
        """kube-system's DaemonSets."""
        return self._once(
            ("kube", "daemonsets"),
            lambda: tuple(DaemonSet.from_api(d) for d in self.kube().list_daemonsets(KUBE_SYSTEM)),
        )

    def kube_system_deployments(self) -> tuple[Deployment, ...]:
        """kube-system's Deployments."""
        return self._once(
            ("kube", "deployments"),
            lambda: tuple(
                Deployment.from_api(d) for d in self.kube().list_deployments(KUBE_SYSTEM)
            ),
        )

    def kube_pods_in_scope(self) -> tuple[Pod, ...]:
        """Pods that may be failing on the nodes in scope (all nodes without --node); the
        healthy ones are dropped page by page."""

        def fetch() -> tuple[Pod, ...]:
            names = self.kube_node_names_in_scope()
            if names is None:
                return tuple(p for p in self._cluster_pods() if p.needs_attention)
            access = self.kube()
            pods: list[dict[str, Any]] = []
            for name in names:
                pods += access.list_pods(
                    field_selector=f"spec.nodeName={name}", keep=k8s.pod_needs_attention
                )
            return _pods(pods)

        return self._once(("kube", "pods-in-scope", self.target.node), fetch)

    def kube_sandbox_events(self) -> tuple[KubeEvent, ...]:
        """FailedCreatePodSandBox events, cluster-wide (the checks scope them by node)."""

        def fetch() -> tuple[KubeEvent, ...]:
            listed = self.kube().list_events(field_selector=f"reason={SANDBOX_REASON}")
            return tuple(KubeEvent.from_api(event) for event in listed)

        return self._once(("kube", "sandbox-events"), fetch)

    def aws_node_logs(self) -> dict[str, str]:
        """Pod name -> previous-container log tail of crashing aws-node pods (a few)."""

        def fetch() -> dict[str, str]:
            logs: dict[str, str] = {}
            crashing = [
                p
                for p in self.kube_system_pods()
                if p.app == "aws-node" and any(c.crashed for c in p.container_statuses)
            ]
            for pod in crashing[:MAX_AWS_NODE_LOGS]:
                logs[pod.name] = self.kube().pod_log(
                    KUBE_SYSTEM, pod.name, "aws-node", previous=True
                )
            return logs

        return self._once(("kube", "aws-node-logs"), fetch)

    def kube_unhealthy_instance_ids(self) -> list[str]:
        """Instance ids of EKS nodes that are NotReady or labelled unhealthy by HyperPod (a
        node held Unschedulable while its deep health checks run is not)."""
        ids: list[str] = []
        for node in self.kube_nodes():
            instance = node.instance_id
            if instance and node.unhealthy and instance not in ids:
                ids.append(instance)
        return ids
