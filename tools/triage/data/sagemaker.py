"""SageMaker HyperPod reads: the cluster, its nodes and events, and what its
DescribeCluster answer says about the orchestrator (the EKS cluster ARN)."""

from __future__ import annotations

import re
from typing import Any

from tools.aws.errors import AwsAccessError, ResourceNotFound
from tools.aws.session import PagedResult
from tools.target import CLUSTER_ARN
from tools.triage.data._memo import Memo

EKS_CLUSTER_ARN = re.compile(
    r"^arn:aws[a-z-]*:eks:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):cluster/(?P<name>[^/]+)$"
)
EVENT_PAGE, EVENT_CAP = 100, 500
NODE_PAGE, NODE_CAP = 100, 20_000


class ClusterNotFound(Exception):
    """DescribeCluster failed: the name, ARN or region is wrong (or not visible to us)."""

    def __init__(
        self,
        cluster: str,
        region: str,
        detail: str,
        available: list[str],
        listing_error: str = "",
    ) -> None:
        self.cluster = cluster
        self.region = region
        self.detail = detail
        self.available = available
        self.listing_error = listing_error  # why the region's clusters could not be listed
        super().__init__(f"cluster {cluster!r} not found in {region}: {detail}")


def cluster_id_from_arn(arn: str) -> str:
    """The cluster id is the last path segment of the cluster ARN."""
    return arn.rsplit("/", 1)[-1]


class SageMakerReads(Memo):
    def cluster(self) -> dict[str, Any]:
        def fetch() -> dict[str, Any]:
            try:
                return self.access.call(
                    "sagemaker", "DescribeCluster", ClusterName=self.target.cluster
                )
            except ResourceNotFound as exc:
                names, listing_error = self.cluster_names()
                raise ClusterNotFound(
                    self.target.cluster, self.target.region, exc.detail, names, listing_error
                ) from None

        return self._once(("cluster",), fetch)

    def cluster_names(self) -> tuple[list[str], str]:
        """The region's cluster names, or ([], why they could not be listed)."""
        try:
            result = self.access.paginate(
                "sagemaker", "ListClusters", "ClusterSummaries", page_size=100, cap=1000
            )
        except AwsAccessError as exc:
            return [], exc.reason
        return sorted(str(c.get("ClusterName", "")) for c in result.items), ""

    @property
    def cluster_name(self) -> str:
        return str(self.cluster().get("ClusterName", self.target.cluster))

    @property
    def cluster_arn(self) -> str:
        return str(self.cluster().get("ClusterArn", ""))

    @property
    def cluster_id(self) -> str:
        arn = self.cluster_arn or self.target.cluster
        match = CLUSTER_ARN.match(arn)
        return match.group("id") if match else cluster_id_from_arn(arn)

    @property
    def orchestrator(self) -> str:
        """eks or slurm; clusters created before the field existed are Slurm."""
        orchestrator = self.cluster().get("Orchestrator") or {}
        return "eks" if "Eks" in orchestrator else "slurm"

    def instance_groups(self) -> list[dict[str, Any]]:
        groups: list[dict[str, Any]] = self.cluster().get("InstanceGroups", [])
        return groups

    def nodes(self) -> PagedResult:
        return self._once(
            ("nodes",),
            lambda: self.access.paginate(
                "sagemaker",
                "ListClusterNodes",
                "ClusterNodeSummaries",
                page_size=NODE_PAGE,
                cap=NODE_CAP,
                ClusterName=self.cluster_name,
            ),
        )

    def node_detail(self, node_id: str) -> dict[str, Any]:
        return self._once(
            ("node", node_id),
            lambda: self.access.call(
                "sagemaker", "DescribeClusterNode", ClusterName=self.cluster_name, NodeId=node_id
            ).get("NodeDetails", {}),
        )

    def events_available(self) -> bool:
        return self.cluster().get("NodeProvisioningMode") == "Continuous"

    def events(self, node_id: str | None = None) -> PagedResult:
        """ListClusterEvents, newest first (the API's default order), capped at EVENT_CAP;
        with `node_id`, only that instance's events (the API's NodeId filter)."""
        node: dict[str, Any] = {"NodeId": node_id} if node_id else {}
        return self._once(
            ("events", node_id),
            lambda: self.access.paginate(
                "sagemaker",
                "ListClusterEvents",
                "Events",
                page_size=EVENT_PAGE,
                cap=EVENT_CAP,
                ClusterName=self.cluster_name,
                **node,
            ),
        )

    def event_detail(self, event_id: str) -> dict[str, Any]:
        """DescribeClusterEvent: the event with its EventMetadata (FailureMessage, ...)."""
        return self._once(
            ("event", event_id),
            lambda: self.access.call(
                "sagemaker", "DescribeClusterEvent", ClusterName=self.cluster_name, EventId=event_id
            ).get("EventDetails", {}),
        )

    # -- The orchestrator's EKS cluster, as DescribeCluster names it -----------------------

    def eks_cluster_arn(self) -> str:
        """Orchestrator.Eks.ClusterArn, or "" on Slurm clusters."""
        eks = (self.cluster().get("Orchestrator") or {}).get("Eks") or {}
        return str(eks.get("ClusterArn") or "")

    def eks_cluster_elsewhere(self) -> dict[str, str] | None:
        """Account and region of the EKS cluster when they are not those of the HyperPod
        cluster (its ARN) and of this run, else None: eks:DescribeCluster takes a bare name
        and would ask the caller's account in the run's region, i.e. the wrong cluster."""
        match = EKS_CLUSTER_ARN.match(self.eks_cluster_arn())
        if match is None:
            return None
        eks_account, eks_region = match.group("account"), match.group("region")
        hyperpod = CLUSTER_ARN.match(self.cluster_arn)
        hyperpod_account = hyperpod.group("account") if hyperpod else eks_account
        hyperpod_region = hyperpod.group("region") if hyperpod else self.target.region
        if eks_account == hyperpod_account and eks_region == hyperpod_region == self.target.region:
            return None
        return {
            "arn": match.group(0),
            "eks_account": eks_account,
            "eks_region": eks_region,
            "hyperpod_account": hyperpod_account,
            "hyperpod_region": hyperpod_region,
            "run_region": self.target.region,
        }
