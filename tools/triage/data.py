"""Fetching: every AWS read a check needs, made once per run and shared between checks.

Checks never call AWS themselves; they ask this object, which memoises each answer (or
each error, so a denied API is asked once and reported once per check that needs it).
Parameters are deterministic so a recorded cluster replays them exactly.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import unquote

from tools.aws.errors import AwsAccessError, ResourceNotFound
from tools.aws.session import AwsAccess, PagedResult
from tools.triage.target import CLUSTER_ARN, TriageTarget

T = TypeVar("T")

EKS_CLUSTER_ARN = re.compile(
    r"^arn:aws[a-z-]*:eks:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):cluster/(?P<name>[^/]+)$"
)
EVENT_PAGE, EVENT_CAP = 100, 500
NODE_PAGE, NODE_CAP = 100, 20_000
LOG_WINDOW = timedelta(days=7)
# FilterLogEvents answers oldest first, so a capped read over the whole week would keep its
# oldest lines: the week is read newest window first (see `recent_log_events`).
LOG_WINDOWS = (timedelta(hours=1), timedelta(days=1), LOG_WINDOW)
LOG_PAGE_BUDGET = 5  # FilterLogEvents pages per window (pages may be sparse, even empty)


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


class ClusterData:
    def __init__(
        self, access: AwsAccess, target: TriageTarget, now: datetime | None = None
    ) -> None:
        self.access = access
        self.target = target
        self.now = now or datetime.now(UTC)
        self._memo: dict[tuple[Any, ...], Any] = {}
        self._lock = threading.RLock()

    def _once(self, key: tuple[Any, ...], fetch: Callable[[], T]) -> T:
        with self._lock:
            if key in self._memo:
                value = self._memo[key]
                if isinstance(value, AwsAccessError):
                    raise value
                result: T = value
                return result
        try:
            value = fetch()
        except AwsAccessError as exc:
            with self._lock:
                self._memo[key] = exc
            raise
        with self._lock:
            self._memo[key] = value
        return value

    # -- SageMaker HyperPod --------------------------------------------------------------

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

    # -- EC2 / VPC -------------------------------------------------------------------------

    def cluster_security_group_ids(self) -> list[str]:
        """Cluster SGs plus every instance group's OverrideVpcConfig SGs."""
        ids = list(self.cluster().get("VpcConfig", {}).get("SecurityGroupIds", []))
        for group in self.instance_groups():
            ids.extend(group.get("OverrideVpcConfig", {}).get("SecurityGroupIds", []))
        return sorted(set(ids))

    def cluster_subnet_ids(self) -> list[str]:
        ids = list(self.cluster().get("VpcConfig", {}).get("Subnets", []))
        for group in self.instance_groups():
            ids.extend(group.get("OverrideVpcConfig", {}).get("Subnets", []))
        return sorted(set(ids))

    def security_groups(self, group_ids: list[str]) -> list[dict[str, Any]]:
        ids = sorted(set(group_ids))
        if not ids:
            return []
        return self._once(
            ("sgs", *ids),
            lambda: self.access.call("ec2", "DescribeSecurityGroups", GroupIds=ids).get(
                "SecurityGroups", []
            ),
        )

    def subnets(self, subnet_ids: list[str]) -> list[dict[str, Any]]:
        ids = sorted(set(subnet_ids))
        if not ids:
            return []
        return self._once(
            ("subnets", *ids),
            lambda: self.access.call("ec2", "DescribeSubnets", SubnetIds=ids).get("Subnets", []),
        )

    def existing_subnets(self, subnet_ids: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
        """(subnets found, ids that do not exist): one bad id fails the whole batch call,
        so on NotFound each id is asked alone to tell the missing ones apart."""
        return _split_missing(self.subnets, subnet_ids, "SubnetId")

    def existing_security_groups(
        self, group_ids: list[str]
    ) -> tuple[list[dict[str, Any]], list[str]]:
        """(security groups found, ids that do not exist), like `existing_subnets`."""
        return _split_missing(self.security_groups, group_ids, "GroupId")

    def vpc_attribute(self, vpc_id: str, attribute: str) -> bool:
        """enableDnsSupport / enableDnsHostnames as a bool."""
        key = attribute[0].upper() + attribute[1:]

        def fetch() -> bool:
            response = self.access.call(
                "ec2", "DescribeVpcAttribute", VpcId=vpc_id, Attribute=attribute
            )
            return bool(response.get(key, {}).get("Value", False))

        return self._once(("vpc-attr", vpc_id, attribute), fetch)

    def route_tables(self, vpc_id: str) -> list[dict[str, Any]]:
        return self._once(
            ("route-tables", vpc_id),
            lambda: self.access.call(
                "ec2", "DescribeRouteTables", Filters=[{"Name": "vpc-id", "Values": [vpc_id]}]
            ).get("RouteTables", []),
        )

    def vpc_endpoints(self, vpc_id: str) -> list[dict[str, Any]]:
        return self._once(
            ("endpoints", vpc_id),
            lambda: self.access.call(
                "ec2", "DescribeVpcEndpoints", Filters=[{"Name": "vpc-id", "Values": [vpc_id]}]
            ).get("VpcEndpoints", []),
        )

    def instance_type_offerings(self, ec2_types: list[str]) -> list[dict[str, Any]]:
        types = sorted(set(ec2_types))
        if not types:
            return []
        return self._once(
            ("offerings", *types),
            lambda: self.access.call(
                "ec2",
                "DescribeInstanceTypeOfferings",
                LocationType="availability-zone",
                Filters=[{"Name": "instance-type", "Values": types}],
            ).get("InstanceTypeOfferings", []),
        )

    def instance_types(self, ec2_types: list[str]) -> list[dict[str, Any]]:
        types = sorted(set(ec2_types))
        if not types:
            return []
        return self._once(
            ("instance-types", *types),
            lambda: self.access.call("ec2", "DescribeInstanceTypes", InstanceTypes=types).get(
                "InstanceTypes", []
            ),
        )

    # -- EKS -------------------------------------------------------------------------------

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

    # -- IAM -------------------------------------------------------------------------------

    def role_policy_documents(self, role_arn: str) -> list[dict[str, Any]]:
        """Inline and attached policy documents of an execution role."""
        role_name = role_arn.rsplit("/", 1)[-1]

        def fetch() -> list[dict[str, Any]]:
            documents: list[dict[str, Any]] = []
            inline = self.access.call("iam", "ListRolePolicies", RoleName=role_name)
            for policy_name in sorted(inline.get("PolicyNames", [])):
                doc = self.access.call(
                    "iam", "GetRolePolicy", RoleName=role_name, PolicyName=policy_name
                ).get("PolicyDocument", {})
                documents.append(_decode_policy(doc))
            attached = self.access.call("iam", "ListAttachedRolePolicies", RoleName=role_name)
            for policy in attached.get("AttachedPolicies", []):
                arn = policy.get("PolicyArn", "")
                meta = self.access.call("iam", "GetPolicy", PolicyArn=arn).get("Policy", {})
                version = self.access.call(
                    "iam", "GetPolicyVersion", PolicyArn=arn, VersionId=meta.get("DefaultVersionId")
                ).get("PolicyVersion", {})
                documents.append(_decode_policy(version.get("Document", {})))
            return documents

        return self._once(("role-policies", role_name), fetch)

    # -- CloudWatch Logs -------------------------------------------------------------------

    @property
    def log_group_name(self) -> str:
        return f"/aws/sagemaker/Clusters/{self.cluster_name}/{self.cluster_id}"

    def log_group_exists(self) -> bool:
        def fetch() -> bool:
            groups = self.access.call(
                "logs", "DescribeLogGroups", logGroupNamePrefix=self.log_group_name
            ).get("logGroups", [])
            return any(g.get("logGroupName") == self.log_group_name for g in groups)

        return self._once(("log-group",), fetch)

    def log_streams(self, prefix: str) -> list[dict[str, Any]]:
        def fetch() -> list[dict[str, Any]]:
            with self._lock:  # a complete `log_stream_count` listing is the same answer
                for key, value in self._memo.items():
                    listed = isinstance(value, PagedResult) and not value.truncated
                    if listed and key[:2] == ("log-stream-count", prefix):
                        return list(value.items)
            return self.access.paginate(
                "logs",
                "DescribeLogStreams",
                "logStreams",
                page_size=50,
                cap=1000,
                token_key="nextToken",
                size_key="limit",
                logGroupName=self.log_group_name,
                logStreamNamePrefix=prefix,
            ).items

        return self._once(("log-streams", prefix), fetch)

    def log_stream_count(self, prefix: str, max_pages: int = 2) -> PagedResult:
        """The first log streams under `prefix`, at most `max_pages` pages of 50: enough to
        say how many there are, or "at least N" when `truncated`."""
        return self._once(
            ("log-stream-count", prefix, max_pages),
            lambda: self.access.paginate(
                "logs",
                "DescribeLogStreams",
                "logStreams",
                page_size=50,
                cap=50 * max_pages,
                token_key="nextToken",
                size_key="limit",
                max_pages=max_pages,
                logGroupName=self.log_group_name,
                logStreamNamePrefix=prefix,
            ),
        )

    def recent_log_events(
        self,
        stream_prefix: str,
        filter_pattern: str,
        cap: int = 200,
        max_pages: int = LOG_PAGE_BUDGET,
    ) -> PagedResult:
        """Matching events of the last week, newest window first.

        FilterLogEvents returns the oldest events of its time range first, so the week is
        read as the last hour, then the rest of the last day, then the rest of the week,
        each with the budget the newer windows left. `truncated` when a window was cut
        short or an older window was left unread.
        """

        def fetch() -> PagedResult:
            items: list[dict[str, Any]] = []
            truncated = False
            end = int(self.now.timestamp() * 1000)
            for span in LOG_WINDOWS:
                budget = cap - len(items)
                if budget <= 0:
                    truncated = True
                    break
                start = int((self.now - span).timestamp() * 1000)
                if start > end:
                    continue
                result = self.access.paginate(
                    "logs",
                    "FilterLogEvents",
                    "events",
                    page_size=min(budget, 100),
                    cap=budget,
                    token_key="nextToken",
                    size_key="limit",
                    max_pages=max_pages,
                    logGroupName=self.log_group_name,
                    logStreamNamePrefix=stream_prefix,
                    filterPattern=filter_pattern,
                    startTime=start,
                    endTime=end,
                )
                items.extend(result.items)
                truncated = truncated or result.truncated
                end = start - 1  # endTime is inclusive: no event is read twice
            return PagedResult(items=items, truncated=truncated)

        return self._once(("recent-log-events", stream_prefix, filter_pattern, cap), fetch)

    def log_events(
        self, stream_prefix: str, filter_pattern: str, cap: int = 200
    ) -> list[dict[str, Any]]:
        """Matching events of the last week; the window ends at `now` (the recording time)."""
        start = int((self.now - LOG_WINDOW).timestamp() * 1000)
        end = int(self.now.timestamp() * 1000)
        return self._once(
            ("log-events", stream_prefix, filter_pattern),
            lambda: (
                self.access.paginate(
                    "logs",
                    "FilterLogEvents",
                    "events",
                    page_size=min(cap, 100),
                    cap=cap,
                    token_key="nextToken",
                    size_key="limit",
                    logGroupName=self.log_group_name,
                    logStreamNamePrefix=stream_prefix,
                    filterPattern=filter_pattern,
                    startTime=start,
                    endTime=end,
                ).items
            ),
        )


def _split_missing(
    describe: Callable[[list[str]], list[dict[str, Any]]], ids: list[str], id_key: str
) -> tuple[list[dict[str, Any]], list[str]]:
    wanted = sorted(set(ids))
    try:
        found = describe(wanted)
    except ResourceNotFound:
        found = []
        for one in wanted:
            try:
                found.extend(describe([one]))
            except ResourceNotFound:
                continue
    seen = {str(item.get(id_key)) for item in found}
    return found, [one for one in wanted if one not in seen]


def _decode_policy(document: Any) -> dict[str, Any]:
    """IAM returns policy documents URL-encoded; boto3 usually decodes them already."""
    if isinstance(document, dict):
        return document
    try:
        decoded: dict[str, Any] = json.loads(unquote(str(document)))
    except ValueError:
        return {}
    return decoded


def ec2_type(hyperpod_type: str) -> str:
    """HyperPod instance types carry an ml. prefix; EC2 offerings use the bare type."""
    return hyperpod_type.removeprefix("ml.")
