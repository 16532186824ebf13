"""EKS reads: the orchestrating EKS cluster, when it is in the run's account and region."""

from __future__ import annotations

from typing import Any

from tools.triage.data.sagemaker import SageMakerReads


class EksReads(SageMakerReads):
    def eks_cluster(self) -> dict[str, Any] | None:
        """The orchestrating EKS cluster, or None on Slurm clusters and when it lives in
        another account or region (see `eks_cluster_elsewhere`)."""
        arn = self.eks_cluster_arn()
        if not arn or self.eks_cluster_elsewhere() is not None:
            return None
        name = str(arn).rsplit("/", 1)[-1]

        def fetch() -> dict[str, Any]:
            described: dict[str, Any] = self.access.call("eks", "DescribeCluster", name=name)
            return dict(described.get("cluster", {}))

        return self._once(("eks", name), fetch)
