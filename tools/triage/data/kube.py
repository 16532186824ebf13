"""Kubernetes reads (being written: issue 3)."""

from __future__ import annotations

from tools.triage.data.nodes import NodeReads


class KubeReads(NodeReads):
    def kube_unhealthy_instance_ids(self) -> list[str]:
        """Instance ids of EKS nodes that are NotReady or labelled unhealthy by HyperPod."""
        return []
