"""SageMaker HyperPod reads: the cluster, its nodes and events, and what its
DescribeCluster answer says about the orchestrator (the EKS cluster ARN)."""

from __future__ import annotations

import re
from typing import Any

from tools.aws.errors import AwsAccessError, ResourceNotFound
from tools.aws.session import PagedResult, PageRead, StoppedBy
from tools.target import CLUSTER_ARN
from tools.triage.data._memo import Memo
from tools.triage.data.sagemaker_model import (
    Cluster,
    ClusterEvent,
    ClusterNode,
    ClusterOperation,
    EksElsewhere,
    EventListing,
    InstanceGroup,
    NodeListing,
    OperationListing,
    parse_events,
    parse_nodes,
    parse_operations,
)

EKS_CLUSTER_ARN = re.compile(
    r"^arn:aws[a-z-]*:eks:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):cluster/(?P<name>[^/]+)$"
)
EVENT_PAGE, EVENT_CAP = 100, 500
NODE_PAGE, NODE_CAP = 100, 20_000
# ListClusterOperations pages hold at most 100 (ClusterOperationMaxResults); the newest
# page is what explains a cluster's present.
OPERATION_PAGE, OPERATION_CAP = 100, 100
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


def _parsed_nodes(listing: PagedResult) -> NodeListing:
    return NodeListing(
        items=parse_nodes(listing.items),
        truncated=listing.truncated,
        stopped_by=listing.stopped_by,
    )


def _joined(groups: list[str], listings: list[NodeListing]) -> NodeListing:
    """One listing from the per-group ones, in group order. The API's filter is a
    substring match ("workers" also finds "workers-2"), so each listing keeps only its
    own group's nodes; a node seen twice is kept once."""
    items: list[ClusterNode] = []
    seen: set[str] = set()
    truncated = False
    for group, listing in zip(groups, listings, strict=True):
        truncated = truncated or listing.truncated
        for node in listing.items:
            if node.instance_group != group:
                continue
            if node.instance_id and node.instance_id in seen:
                continue
            seen.add(node.instance_id)
            items.append(node)
    if len(items) > NODE_CAP:
        items, truncated = items[:NODE_CAP], True
    stopped_by: StoppedBy = "cap" if truncated else "end"
    return NodeListing(items=tuple(items), truncated=truncated, stopped_by=stopped_by)


def _parsed_events(listing: PagedResult) -> EventListing:
    return EventListing(
        items=parse_events(listing.items),
        truncated=listing.truncated,
        stopped_by=listing.stopped_by,
    )


def _parsed_operations(listing: PagedResult) -> OperationListing:
    return OperationListing(
        items=parse_operations(listing.items),
        truncated=listing.truncated,
        stopped_by=listing.stopped_by,
    )


def cluster_id_from_arn(arn: str) -> str:
    """The cluster id is the last path segment of the cluster ARN."""
    return arn.rsplit("/", 1)[-1]


class SageMakerReads(Memo):
    def cluster(self) -> Cluster:
        """DescribeCluster, parsed; ClusterNotFound (with the region's cluster names) when
        the cluster does not exist."""

        def fetch() -> Cluster:
            try:
                raw = self.access.call(
                    "sagemaker", "DescribeCluster", ClusterName=self.target.cluster
                )
            except ResourceNotFound as exc:
                names, listing_error = self.cluster_names()
                raise ClusterNotFound(
                    self.target.cluster, self.target.region, exc.detail, names, listing_error
                ) from None
            return Cluster.from_api(raw)

        return self._once(("cluster",), fetch)

    def cluster_names(self) -> tuple[list[str], str]:
        """The region's cluster names, or ([], why they could not be listed)."""
        try:
            result = self.access.paginate(
                "sagemaker", "ListClusters", PageRead("ClusterSummaries", page_size=100, cap=1000)
            )
        except AwsAccessError as exc:
            return [], exc.reason
        return sorted(str(c.get("ClusterName", "")) for c in result.items), ""

    @property
    def cluster_name(self) -> str:
        return self.cluster().name or self.target.cluster

    @property
    def cluster_arn(self) -> str:
        return self.cluster().arn

    @property
    def cluster_id(self) -> str:
        arn = self.cluster_arn or self.target.cluster
        match = CLUSTER_ARN.match(arn)
        return match.group("id") if match else cluster_id_from_arn(arn)

    @property
    def orchestrator(self) -> str:
        """eks or slurm; clusters created before the field existed are Slurm."""
        return self.cluster().orchestrator

    def instance_groups(self) -> tuple[InstanceGroup, ...]:
        """DescribeCluster's InstanceGroups, in its order."""
        return self.cluster().instance_groups

    def nodes(self) -> NodeListing:
        """Every node (ListClusterNodes), capped at NODE_CAP. A cluster with more than a page
        of nodes in several instance groups is listed one group at a time, the groups side
        by side: the listing is the longest chain of dependent calls in a triage (each page
        needs the previous page's token), and this cuts it to its largest group's pages."""

        def fetch() -> NodeListing:
            groups = self._listing_groups()
            if len(groups) < 2:
                return self._list_nodes()
            return _joined(groups, self._list_nodes_by_group(groups))

        return self._once(("nodes",), fetch)

    def _list_nodes(self, group: str | None = None) -> NodeListing:
        only: dict[str, Any] = {"InstanceGroupNameContains": group} if group else {}
        listing = self.access.paginate(
            "sagemaker",
            "ListClusterNodes",
            PageRead("ClusterNodeSummaries", page_size=NODE_PAGE, cap=NODE_CAP),
            ClusterName=self.cluster_name,
            **only,
        )
        return _parsed_nodes(listing)

    def _listing_groups(self) -> list[str]:
        """The group names to list one by one, or [] to list the cluster in one go: when
        DescribeCluster counts at most one page of nodes (one call either way), or names
        fewer than two groups."""
        cluster = self.cluster()
        groups = cluster.instance_groups + cluster.restricted_instance_groups
        names = [g.name for g in groups]
        counted = sum(max(g.current_count or 0, 0) for g in groups)
        if counted <= NODE_PAGE or len(names) < 2 or not all(names):
            return []
        return list(dict.fromkeys(names))  # in DescribeCluster's order, each once

    def _list_nodes_by_group(self, groups: list[str]) -> list[NodeListing]:
        from concurrent.futures import ThreadPoolExecutor

        # A few groups at a time: each stream of pages is one request after another, so
        # three streams stay within ListClusterNodes' request rate (botocore's retry
        # absorbs an occasional throttle).
        with ThreadPoolExecutor(max_workers=GROUP_LISTINGS, thread_name_prefix="nodes") as pool:
            return list(pool.map(self._list_nodes, groups))

    def current_node_statuses(self) -> dict[str, str] | None:
        """Instance id -> status of every node the cluster has now, for checks that judge
        history (events, logs) against the present; None when the node list is capped or
        cannot be read, since absence from it then proves nothing. The cluster-nodes check
        reports a denied or capped list itself, so the error is not raised a second time."""
        listed = self.optional(self.nodes)
        return listed.statuses() if listed is not None else None

    def node_groups(self) -> dict[str, str] | None:
        """Instance id -> instance group from ListClusterNodes; None when it cannot be read
        (the cluster-nodes check reports that itself)."""
        listed = self.optional(self.nodes)
        return listed.groups() if listed is not None else None

    def instance_group_of(self, node_id: str) -> str | None:
        """The instance group of a node (DescribeClusterNode, else the node list); None when
        the cluster does not know the node or neither can be read."""
        detail = self.optional(lambda: self.node_detail(node_id))
        if detail is not None and detail.instance_group:
            return detail.instance_group
        listed = self.optional(self.nodes)
        node = listed.find(node_id) if listed is not None else None
        if node is None or not node.instance_group:
            return None
        return node.instance_group

    def node_detail(self, node_id: str) -> ClusterNode:
        """DescribeClusterNode: the node with its placement, IP and ThreadsPerCore."""
        return self._once(
            ("node", node_id),
            lambda: ClusterNode.from_api(
                self.access.call(
                    "sagemaker",
                    "DescribeClusterNode",
                    ClusterName=self.cluster_name,
                    NodeId=node_id,
                ).get("NodeDetails")
                or {}
            ),
        )

    def events_available(self) -> bool:
        return self.cluster().node_provisioning_mode == "Continuous"

    def events(self, node_id: str | None = None) -> EventListing:
        """ListClusterEvents, newest first (the API's default order), capped at EVENT_CAP;
        with `node_id`, only that instance's events (the API's NodeId filter)."""
        node: dict[str, Any] = {"NodeId": node_id} if node_id else {}
        return self._once(
            ("events", node_id),
            lambda: _parsed_events(
                self.access.paginate(
                    "sagemaker",
                    "ListClusterEvents",
                    PageRead("Events", page_size=EVENT_PAGE, cap=EVENT_CAP),
                    ClusterName=self.cluster_name,
                    **node,
                )
            ),
        )

    def event_detail(self, event_id: str) -> ClusterEvent:
        """DescribeClusterEvent: the event with its EventMetadata's FailureMessage (and
        lifecycle-script state) as `failure_text`."""
        return self._once(
            ("event", event_id),
            lambda: ClusterEvent.from_api(
                self.access.call(
                    "sagemaker",
                    "DescribeClusterEvent",
                    ClusterName=self.cluster_name,
                    EventId=event_id,
                ).get("EventDetails")
                or {}
            ),
        )

    def operations(self) -> OperationListing:
        """ListClusterOperations (scaling operations and deep health checks), newest first
        by CreationTime, capped at OPERATION_CAP. Paged by NextToken / MaxResults as
        botocore's paginator for it is (result key ClusterOperationSummaries)."""
        return self._once(
            ("operations",),
            lambda: _parsed_operations(
                self.access.paginate(
                    "sagemaker",
                    "ListClusterOperations",
                    PageRead(
                        "ClusterOperationSummaries", page_size=OPERATION_PAGE, cap=OPERATION_CAP
                    ),
                    ClusterName=self.cluster_name,
                    SortBy="CreationTime",
                    SortOrder="Descending",
                )
            ),
        )

    def operation_detail(self, operation_id: str) -> ClusterOperation:
        """DescribeClusterOperation: the operation with its per-group ScalingDetails or
        DeepHealthCheckDetails."""
        return self._once(
            ("operation", operation_id),
            lambda: ClusterOperation.from_api(
                self.access.call(
                    "sagemaker",
                    "DescribeClusterOperation",
                    ClusterName=self.cluster_name,
                    OperationId=operation_id,
                )
            ),
        )

    # -- The orchestrator's EKS cluster, as DescribeCluster names it -----------------------

    def eks_cluster_arn(self) -> str:
        """Orchestrator.Eks.ClusterArn, or "" on Slurm clusters."""
        return self.cluster().eks_cluster_arn

    def eks_cluster_elsewhere(self) -> EksElsewhere | None:
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
        return EksElsewhere(
            arn=match.group(0),
            eks_account=eks_account,
            eks_region=eks_region,
            hyperpod_account=hyperpod_account,
            hyperpod_region=hyperpod_region,
            run_region=self.target.region,
        )
