"""EKS reads: the orchestrating EKS cluster, when it is in the run's account and region."""

from __future__ import annotations

from typing import Any

from tools.triage.data.eks_model import EksCluster
from tools.triage.data.sagemaker import SageMakerReads


class EksReads(SageMakerReads):
    def eks_cluster(self) -> EksCluster | None:
        """The orchestrating EKS cluster, or None on Slurm clusters and when it lives in
        another account or region (see `eks_cluster_elsewhere`)."""
        arn = self.eks_cluster_arn()
        if not arn or self.eks_cluster_elsewhere() is not None:
            return None
        name = str(arn).rsplit("/", 1)[-1]

        def fetch() -> EksCluster:
            described: dict[str, Any] = self.access.call("eks", "DescribeCluster", name=name)
            cluster = described.get("cluster")
            return EksCluster.from_api(cluster if isinstance(cluster, dict) else {})

        return self._once(("eks", name), fetch)
