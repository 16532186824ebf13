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

from tools.aws.errors import AwsAccessError
from tools.kube import objects as k8s
from tools.sources import KubernetesUnavailable
from tools.triage.data.eks import EksReads
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


def _system_pod_kept(pod: dict[str, Any]) -> bool:
    # CoreDNS pods are few and judged even when healthy; aws-node / kube-proxy run on
    # every node, so only their troubled pods are kept.
    return k8s.labels(pod).get("k8s-app") == "kube-dns" or k8s.pod_needs_attention(pod)


def _cluster_pod_kept(pod: dict[str, Any]) -> bool:
    return k8s.pod_needs_attention(pod) or (
        k8s.namespace(pod) == KUBE_SYSTEM and _system_pod_kept(pod)
    )


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
        try:
            eks = self.eks_cluster()
        except AwsAccessError:
            return  # cannot compare; the EKS checks report the denied read
        endpoint = str((eks or {}).get("endpoint") or "")
        if not endpoint or _endpoint(endpoint) == _endpoint(access.server):
            return
        context = f"context {access.context} " if access.context else "the kubeconfig "
        raise access.refuse(
            f"{context}points at {access.server}, not at EKS cluster "
            f"{(eks or {}).get('name', '?')} ({endpoint}) that orchestrates this HyperPod "
            "cluster: pick its context with --context"
        )

    def kube_nodes(self) -> list[dict[str, Any]]:
        return self._once(("kube", "nodes"), lambda: self.kube().list_nodes())

    def kube_node_instances(self) -> dict[str, str | None]:
        """Kubernetes node name -> EC2 instance id (None when it cannot be told)."""
        return {k8s.name(n): k8s.instance_id_of(n) for n in self.kube_nodes()}

    def kube_node_names_in_scope(self) -> list[str] | None:
        """With --node, the Kubernetes name(s) of that instance (maybe none); else None."""
        if self.target.node is None:
            return None
        return [name for name, iid in self.kube_node_instances().items() if iid == self.target.node]

    def hyperpod_namespaces(self) -> list[dict[str, Any]]:
        """The aws-hyperpod namespace as a one-item list ([] when it does not exist)."""
        return self._once(
            ("kube", "namespaces"),
            lambda: self.kube().list_namespaces(
                field_selector=f"metadata.name={HYPERPOD_NAMESPACE}"
            ),
        )

    def kube_system_pods(self) -> list[dict[str, Any]]:
        """kube-system's CoreDNS pods and its troubled pods. Without --node they are taken
        from the cluster-wide pod list the pod checks read anyway: one pass over a large
        cluster's pods, not two."""

        def fetch() -> list[dict[str, Any]]:
            if self.target.node is None:
                try:
                    pods = self._cluster_pods()
                except KubernetesUnavailable:
                    pass  # e.g. RBAC that lets us list kube-system only: ask for that
                else:
                    return [
                        p for p in pods if k8s.namespace(p) == KUBE_SYSTEM and _system_pod_kept(p)
                    ]
            return self.kube().list_pods(KUBE_SYSTEM, keep=_system_pod_kept)

        return self._once(("kube", "system-pods"), fetch)

    def _cluster_pods(self) -> list[dict[str, Any]]:
        """Every namespace's pods that need attention, and kube-system's CoreDNS pods."""
        return self._once(
            ("kube", "cluster-pods"), lambda: self.kube().list_pods(keep=_cluster_pod_kept)
        )

    def kube_system_daemonsets(self) -> list[dict[str, Any]]:
        return self._once(("kube", "daemonsets"), lambda: self.kube().list_daemonsets(KUBE_SYSTEM))

    def kube_system_deployments(self) -> list[dict[str, Any]]:
        return self._once(
            ("kube", "deployments"), lambda: self.kube().list_deployments(KUBE_SYSTEM)
        )

    def kube_pods_in_scope(self) -> list[dict[str, Any]]:
        """Pods that may be failing on the nodes in scope (all nodes without --node); the
        healthy ones are dropped page by page."""

        def fetch() -> list[dict[str, Any]]:
            names = self.kube_node_names_in_scope()
            if names is None:
                return [p for p in self._cluster_pods() if k8s.pod_needs_attention(p)]
            access = self.kube()
            pods: list[dict[str, Any]] = []
            for name in names:
                pods += access.list_pods(
                    field_selector=f"spec.nodeName={name}", keep=k8s.pod_needs_attention
                )
            return pods

        return self._once(("kube", "pods-in-scope", self.target.node), fetch)

    def kube_sandbox_events(self) -> list[dict[str, Any]]:
        """FailedCreatePodSandBox events, cluster-wide (the checks scope them by node)."""
        return self._once(
            ("kube", "sandbox-events"),
            lambda: self.kube().list_events(field_selector=f"reason={SANDBOX_REASON}"),
        )

    def aws_node_logs(self) -> dict[str, str]:
        """Pod name -> previous-container log tail of crashing aws-node pods (a few)."""

        def fetch() -> dict[str, str]:
            logs: dict[str, str] = {}
            crashing = [
                p
                for p in self.kube_system_pods()
                if k8s.labels(p).get("k8s-app") == "aws-node"
                and any(
                    int(c.get("restartCount") or 0) > 0 or k8s.state(c, "lastState", "terminated")
                    for c in k8s.container_statuses(p)
                )
            ]
            for pod in crashing[:MAX_AWS_NODE_LOGS]:
                logs[k8s.name(pod)] = self.kube().pod_log(
                    KUBE_SYSTEM, k8s.name(pod), "aws-node", previous=True
                )
            return logs

        return self._once(("kube", "aws-node-logs"), fetch)

    def kube_unhealthy_instance_ids(self) -> list[str]:
        """Instance ids of EKS nodes that are NotReady or labelled unhealthy by HyperPod (a
        node held Unschedulable while its deep health checks run is not)."""
        ids: list[str] = []
        for node in self.kube_nodes():
            instance = k8s.instance_id_of(node)
            if instance and k8s.node_unhealthy(node) and instance not in ids:
                ids.append(instance)
        return ids
