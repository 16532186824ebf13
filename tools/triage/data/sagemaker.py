"""SageMaker HyperPod reads: the cluster, its nodes and events, and what its
DescribeCluster answer says about the orchestrator (the EKS cluster ARN)."""

from __future__ import annotations

import re
from typing import Any

from tools.aws.errors import AwsAccessError, ResourceNotFound
from tools.aws.session import PagedResult, StoppedBy
from tools.target import CLUSTER_ARN
from tools.triage.data._memo import Memo

EKS_CLUSTER_ARN = re.compile(
    r"^arn:aws[a-z-]*:eks:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):cluster/(?P<name>[^/]+)$"
)
EVENT_PAGE, EVENT_CAP = 100, 500
NODE_PAGE, NODE_CAP = 100, 20_000
GROUP_LISTINGS = 3  # instance groups whose nodes are listed at the same time


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


def _count(value: object) -> int:
    return value if isinstance(value, int) and value > 0 else 0


def _joined(groups: list[str], listings: list[PagedResult]) -> PagedResult:
    """One listing from the per-group ones, in group order. The API's filter is a
    substring match ("workers" also finds "workers-2"), so each listing keeps only its
    own group's nodes; a node seen twice is kept once."""
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    truncated = False
    for group, listing in zip(groups, listings, strict=True):
        truncated = truncated or listing.truncated
        for node in listing.items:
            if node.get("InstanceGroupName") != group:
                continue
            instance = str(node.get("InstanceId") or "")
            if instance and instance in seen:
                continue
            seen.add(instance)
            items.append(node)
    if len(items) > NODE_CAP:
        items, truncated = items[:NODE_CAP], True
    stopped_by: StoppedBy = "cap" if truncated else "end"
    return PagedResult(items=items, truncated=truncated, stopped_by=stopped_by)


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
        """Every node (ListClusterNodes), capped at NODE_CAP. A cluster with more than a page
        of nodes in several instance groups is listed one group at a time, the groups side
        by side: the listing is the longest chain of dependent calls in a triage (each page
        needs the previous page's token), and this cuts it to its largest group's pages."""

        def fetch() -> PagedResult:
            groups = self._listing_groups()
            if len(groups) < 2:
                return self._list_nodes()
            return _joined(groups, self._list_nodes_by_group(groups))

        return self._once(("nodes",), fetch)

    def _list_nodes(self, group: str | None = None) -> PagedResult:
        only: dict[str, Any] = {"InstanceGroupNameContains": group} if group else {}
        return self.access.paginate(
            "sagemaker",
            "ListClusterNodes",
            "ClusterNodeSummaries",
            page_size=NODE_PAGE,
            cap=NODE_CAP,
            ClusterName=self.cluster_name,
            **only,
        )

    def _listing_groups(self) -> list[str]:
        """The group names to list one by one, or [] to list the cluster in one go: when
        DescribeCluster counts at most one page of nodes (one call either way), or names
        fewer than two groups."""
        cluster = self.cluster()
        groups = [
            group
            for key in ("InstanceGroups", "RestrictedInstanceGroups")
            for group in cluster.get(key) or []
            if isinstance(group, dict)
        ]
        names = [str(g.get("InstanceGroupName") or "") for g in groups]
        counted = sum(_count(g.get("CurrentCount")) for g in groups)
        if counted <= NODE_PAGE or len(names) < 2 or not all(names):
            return []
        return list(dict.fromkeys(names))  # in DescribeCluster's order, each once

    def _list_nodes_by_group(self, groups: list[str]) -> list[PagedResult]:
        from concurrent.futures import ThreadPoolExecutor

        # A few groups at a time: each stream of pages is one request after another, so
        # three streams stay within ListClusterNodes' request rate (botocore's retry
        # absorbs an occasional throttle).
        with ThreadPoolExecutor(max_workers=GROUP_LISTINGS, thread_name_prefix="nodes") as pool:
            return list(pool.map(self._list_nodes, groups))

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
