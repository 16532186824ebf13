"""Typed views of the SageMaker HyperPod answers: the cluster, its instance groups, nodes
and events.

Each model is parsed once, inside the memoised read that fetched it, and `from_api` is the
one place that reads botocore's shape defensively (a missing key, a None, a value of an
unexpected type): the checks judge the fields and never look at the raw answer. A field
the API leaves out is "" (or None where a check tells "absent" from "empty"), as the
checks treated it before they took models.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from tools.aws.session import StoppedBy

UNKNOWN_STATUS = "Unknown"  # a node whose InstanceStatus says nothing


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: object) -> str:
    """A string field, "" when absent or empty; other scalars as the checks printed them."""
    if value is None or value == "":
        return ""
    return value if isinstance(value, str) else str(value)


def _optional_text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    # bool is an int to Python, never a count or a thread number to the API.
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _texts(value: object) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        return ()
    return tuple(str(item) for item in value if item)


@dataclass(frozen=True, slots=True)
class VpcConfig:
    """The subnets and security groups of the cluster or of one instance group."""

    subnets: tuple[str, ...] = ()
    security_group_ids: tuple[str, ...] = ()

    @classmethod
    def from_api(cls, raw: object) -> VpcConfig:
        config = _mapping(raw)
        return cls(
            subnets=_texts(config.get("Subnets")),
            security_group_ids=_texts(config.get("SecurityGroupIds")),
        )

    def __bool__(self) -> bool:
        # An empty VpcConfig says as little as a missing one (`override or cluster`).
        return bool(self.subnets or self.security_group_ids)


@dataclass(frozen=True, slots=True)
class InstanceTypeDetail:
    """One type of a flexible instance group (InstanceTypeDetails)."""

    instance_type: str
    threads_per_core: int | None


@dataclass(frozen=True, slots=True)
class InstanceGroup:
    """One entry of DescribeCluster's InstanceGroups (or RestrictedInstanceGroups)."""

    name: str
    status: str | None
    current_count: int | None
    target_count: int | None
    instance_type: str
    threads_per_core: int | None
    execution_role: str
    # LifeCycleConfig.SourceS3Uri and OnCreate ("" when absent).
    lifecycle_source: str
    lifecycle_on_create: str
    override_vpc: VpcConfig | None
    # A flexible group has no InstanceType: its types are in InstanceRequirements and
    # InstanceTypeDetails.
    desired_instance_types: tuple[str, ...] = ()
    current_instance_types: tuple[str, ...] = ()
    type_details: tuple[InstanceTypeDetail, ...] = ()

    @classmethod
    def from_api(cls, raw: Mapping[str, Any]) -> InstanceGroup:
        threads = _int(raw.get("ThreadsPerCore"))
        requirements = _mapping(raw.get("InstanceRequirements"))
        lifecycle_config = _mapping(raw.get("LifeCycleConfig"))
        override = VpcConfig.from_api(raw.get("OverrideVpcConfig"))
        details = tuple(
            InstanceTypeDetail(
                instance_type=str(detail["InstanceType"]),
                # A type without its own ThreadsPerCore runs with the group's.
                threads_per_core=_int(detail.get("ThreadsPerCore", threads)),
            )
            for detail in raw.get("InstanceTypeDetails") or []
            if isinstance(detail, dict) and detail.get("InstanceType")
        )
        return cls(
            name=_text(raw.get("InstanceGroupName")),
            status=_optional_text(raw.get("Status")),
            current_count=_int(raw.get("CurrentCount")),
            target_count=_int(raw.get("TargetCount")),
            instance_type=_text(raw.get("InstanceType")),
            threads_per_core=threads,
            execution_role=_text(raw.get("ExecutionRole")),
            lifecycle_source=_text(lifecycle_config.get("SourceS3Uri")),
            lifecycle_on_create=_text(lifecycle_config.get("OnCreate")),
            override_vpc=override or None,
            desired_instance_types=_texts(requirements.get("DesiredInstanceTypes")),
            current_instance_types=_texts(requirements.get("CurrentInstanceTypes")),
            type_details=details,
        )

    @property
    def instance_types(self) -> tuple[str, ...]:
        """The HyperPod (ml.) types the group runs or may run, in priority order, each once."""
        found = [self.instance_type] if self.instance_type else []
        found.extend(self.desired_instance_types)
        found.extend(self.current_instance_types)
        found.extend(detail.instance_type for detail in self.type_details)
        return tuple(dict.fromkeys(found))

    @property
    def type_threads(self) -> tuple[tuple[str, int | None], ...]:
        """(HyperPod type, ThreadsPerCore) for each type the group runs: a flexible group
        reports ThreadsPerCore per type; a type it lists only in InstanceRequirements
        takes the group's."""
        per_type = {detail.instance_type: detail.threads_per_core for detail in self.type_details}
        return tuple((t, per_type.get(t, self.threads_per_core)) for t in self.instance_types)

    @property
    def recovered(self) -> bool:
        """InService with at least its target count of nodes."""
        current, target = self.current_count, self.target_count
        return (
            self.status == "InService"
            and current is not None
            and target is not None
            and current >= target
        )


def parse_instance_groups(value: object) -> tuple[InstanceGroup, ...]:
    """DescribeCluster's InstanceGroups; an entry that is no object is left out."""
    if not isinstance(value, list | tuple):
        return ()
    return tuple(InstanceGroup.from_api(g) for g in value if isinstance(g, dict))


@dataclass(frozen=True, slots=True)
class Cluster:
    """DescribeCluster: what the checks judge of the cluster itself."""

    name: str
    arn: str
    status: str
    failure_message: str
    # "eks" or "slurm": clusters created before the Orchestrator field existed are Slurm.
    orchestrator: str
    eks_cluster_arn: str  # Orchestrator.Eks.ClusterArn, "" on Slurm clusters
    vpc_config: VpcConfig
    node_recovery: str | None
    node_provisioning_mode: str
    instance_groups: tuple[InstanceGroup, ...] = ()
    restricted_instance_groups: tuple[InstanceGroup, ...] = ()

    @classmethod
    def from_api(cls, raw: Mapping[str, Any]) -> Cluster:
        orchestrator = raw.get("Orchestrator") or {}
        eks = _mapping(_mapping(orchestrator).get("Eks"))
        return cls(
            name=_text(raw.get("ClusterName")),
            arn=_text(raw.get("ClusterArn")),
            status=_text(raw.get("ClusterStatus")),
            failure_message=_text(raw.get("FailureMessage")),
            orchestrator="eks" if "Eks" in orchestrator else "slurm",
            eks_cluster_arn=_text(eks.get("ClusterArn")),
            vpc_config=VpcConfig.from_api(raw.get("VpcConfig")),
            node_recovery=_optional_text(raw.get("NodeRecovery")),
            node_provisioning_mode=_text(raw.get("NodeProvisioningMode")),
            instance_groups=parse_instance_groups(raw.get("InstanceGroups")),
            restricted_instance_groups=parse_instance_groups(raw.get("RestrictedInstanceGroups")),
        )

    @property
    def uses_managed_vpc(self) -> bool:
        """No subnets on the cluster or any instance group: a Slurm cluster in the
        SageMaker-managed VPC, with no customer subnets or security groups to judge."""
        if self.vpc_config.subnets:
            return False
        return not any(g.override_vpc and g.override_vpc.subnets for g in self.instance_groups)

    def group(self, name: str) -> InstanceGroup | None:
        """The instance group called `name`, or None."""
        for group in self.instance_groups:
            if group.name == name:
                return group
        return None


@dataclass(frozen=True, slots=True)
class ClusterNode:
    """A node of ListClusterNodes; DescribeClusterNode fills the detail fields too
    (None in a listing: its summaries have no placement, IP or threads)."""

    instance_id: str
    instance_group: str
    instance_type: str
    status: str  # InstanceStatus.Status, UNKNOWN_STATUS when absent
    status_message: str
    private_dns_hostname: str
    private_ip: str | None = None
    availability_zone: str | None = None
    threads_per_core: int | None = None

    @classmethod
    def from_api(cls, raw: Mapping[str, Any]) -> ClusterNode:
        status = raw.get("InstanceStatus")
        state = _mapping(status)
        placement = _mapping(raw.get("Placement"))
        return cls(
            instance_id=_text(raw.get("InstanceId")),
            instance_group=_text(raw.get("InstanceGroupName")),
            instance_type=_text(raw.get("InstanceType")),
            status=_text(state.get("Status")) or UNKNOWN_STATUS,
            status_message=_text(state.get("Message")),
            private_dns_hostname=_text(raw.get("PrivateDnsHostname")),
            private_ip=_optional_text(raw.get("PrivatePrimaryIp")),
            availability_zone=_optional_text(placement.get("AvailabilityZone")),
            threads_per_core=_int(raw.get("ThreadsPerCore")),
        )


def parse_nodes(items: Iterable[object]) -> tuple[ClusterNode, ...]:
    """ListClusterNodes summaries; an item that is no object is left out."""
    return tuple(ClusterNode.from_api(n) for n in items if isinstance(n, dict))


@dataclass(frozen=True, slots=True)
class NodeListing:
    """ListClusterNodes, whole or cut short (`truncated`; `stopped_by` says why)."""

    items: tuple[ClusterNode, ...]
    truncated: bool
    stopped_by: StoppedBy = "end"

    def statuses(self) -> dict[str, str] | None:
        """Instance id -> status of every node; None when the list is cut short, since
        absence from it then proves nothing."""
        if self.truncated:
            return None
        return {n.instance_id: n.status for n in self.items if n.instance_id}

    def groups(self) -> dict[str, str]:
        """Instance id -> instance group ("" when the summary names none)."""
        return {n.instance_id: n.instance_group for n in self.items if n.instance_id}

    def find(self, instance_id: str) -> ClusterNode | None:
        """The listed node with that instance id, or None."""
        for node in self.items:
            if node.instance_id == instance_id:
                return node
        return None


def _event_moment(value: object) -> datetime | None:
    try:
        if isinstance(value, int | float) and not isinstance(value, bool):
            # Epoch seconds, or milliseconds when the number is that large.
            return datetime.fromtimestamp(value / 1000 if value > 1e11 else value, tz=UTC)
        if isinstance(value, str) and value:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
            return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def _failure_text(raw: Mapping[str, Any]) -> str:
    """FailureMessage (and LCS state) of DescribeClusterEvent's EventMetadata, joined."""
    metadata = _mapping(raw.get("EventDetails")).get("EventMetadata") or {}
    parts: list[str] = []
    if isinstance(metadata, dict):
        for scope in sorted(metadata):
            values = metadata[scope]
            if not isinstance(values, dict):
                continue
            message = values.get("FailureMessage")
            if message:
                parts.append(str(message))
            state = values.get("LcsExecutionState")
            if state:
                parts.append(f"lifecycle scripts {state}")
    return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    """An event of ListClusterEvents, or DescribeClusterEvent's (with `failure_text`)."""

    event_id: str
    level: str
    description: str
    instance_id: str
    instance_group: str
    cluster_name: str
    cluster_arn: str
    # EventTime as the API wrote it (None when absent) and as a moment (None when unreadable).
    time: str | int | float | None
    moment: datetime | None
    failure_text: str = ""
    # The cluster operation (scaling, deep health check) the event belongs to; "" for none.
    operation_id: str = ""

    @classmethod
    def from_api(cls, raw: Mapping[str, Any]) -> ClusterEvent:
        time = raw.get("EventTime")
        return cls(
            event_id=_text(raw.get("EventId")),
            level=_text(raw.get("EventLevel")),
            description=_text(raw.get("Description")),
            instance_id=_text(raw.get("InstanceId")),
            instance_group=_text(raw.get("InstanceGroupName")),
            cluster_name=_text(raw.get("ClusterName")),
            cluster_arn=_text(raw.get("ClusterArn")),
            time=time
            if isinstance(time, str | int | float) and not isinstance(time, bool)
            else None,
            moment=_event_moment(time),
            failure_text=_failure_text(raw),
            operation_id=_text(raw.get("OperationId")),
        )

    @property
    def sort_time(self) -> str:
        """EventTime as text, "" when absent: the order "latest" means in the findings."""
        return "" if self.time is None or self.time == "" else str(self.time)

    @property
    def names(self) -> tuple[str, ...]:
        """The event's own names, which say nothing about what went wrong."""
        return tuple(
            name
            for name in (self.cluster_name, self.instance_group, self.instance_id, self.cluster_arn)
            if name
        )


def parse_events(items: Iterable[object]) -> tuple[ClusterEvent, ...]:
    """ListClusterEvents items; an item that is no object is left out."""
    return tuple(ClusterEvent.from_api(e) for e in items if isinstance(e, dict))


@dataclass(frozen=True, slots=True)
class EventListing:
    """ListClusterEvents, newest first, whole or capped (`truncated`)."""

    items: tuple[ClusterEvent, ...]
    truncated: bool
    stopped_by: StoppedBy = "end"


@dataclass(frozen=True, slots=True)
class ScalingCounts:
    """One side of a scaling operation's per-group change (ClusterOperationScalingConfiguration:
    CurrentCount, TargetCount, MinCount; None when the API left a count out)."""

    current: int | None
    target: int | None
    minimum: int | None

    @classmethod
    def from_api(cls, raw: object) -> ScalingCounts:
        counts = _mapping(raw)
        return cls(
            current=_int(counts.get("CurrentCount")),
            target=_int(counts.get("TargetCount")),
            minimum=_int(counts.get("MinCount")),
        )


@dataclass(frozen=True, slots=True)
class GroupScaling:
    """DescribeClusterOperation's ScalingDetails entry: one instance group's part of a
    scaling operation, with its own status."""

    instance_group: str
    status: str
    original: ScalingCounts
    desired: ScalingCounts

    @classmethod
    def from_api(cls, raw: Mapping[str, Any]) -> GroupScaling:
        return cls(
            instance_group=_text(raw.get("InstanceGroupName")),
            status=_text(raw.get("Status")),
            original=ScalingCounts.from_api(raw.get("Original")),
            desired=ScalingCounts.from_api(raw.get("Desired")),
        )


@dataclass(frozen=True, slots=True)
class GroupHealthCheck:
    """DescribeClusterOperation's DeepHealthCheckDetails entry (InstanceGroupHealthCheck-
    Configuration): the checks asked for on a group, on some of its instances or (no
    instance ids) on all of them."""

    instance_group: str
    instance_ids: tuple[str, ...]
    checks: tuple[str, ...]  # InstanceStress | InstanceConnectivity | MultiNodeTrainingValidation

    @classmethod
    def from_api(cls, raw: Mapping[str, Any]) -> GroupHealthCheck:
        return cls(
            instance_group=_text(raw.get("InstanceGroupName")),
            instance_ids=_texts(raw.get("InstanceIds")),
            checks=_texts(raw.get("DeepHealthChecks")),
        )


def _entries(value: object) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


@dataclass(frozen=True, slots=True)
class ClusterOperation:
    """A cluster operation: a ListClusterOperations summary, or DescribeClusterOperation's
    answer (which adds the per-group `scaling` or `health_checks`).

    Type is Scaling | DeepHealthCheck and Status InProgress | Superseded | Done in botocore's
    model (ClusterOperationType, ClusterOperationStatus); the API has no failed status and
    no failure message: a failure shows in the events that carry the operation's id."""

    operation_id: str
    type: str
    status: str
    # CreationTime as the API wrote it ("" when absent) and as a moment (None: unreadable).
    created: str
    created_at: datetime | None
    scaling: tuple[GroupScaling, ...] = ()
    health_checks: tuple[GroupHealthCheck, ...] = ()

    @classmethod
    def from_api(cls, raw: Mapping[str, Any]) -> ClusterOperation:
        created = raw.get("CreationTime")
        return cls(
            operation_id=_text(raw.get("OperationId")),
            type=_text(raw.get("Type")),
            status=_text(raw.get("Status")),
            created=_text(created) if isinstance(created, str | int | float) else "",
            created_at=_event_moment(created),
            scaling=tuple(GroupScaling.from_api(g) for g in _entries(raw.get("ScalingDetails"))),
            health_checks=tuple(
                GroupHealthCheck.from_api(g) for g in _entries(raw.get("DeepHealthCheckDetails"))
            ),
        )

    @property
    def in_progress(self) -> bool:
        return self.status == "InProgress"

    @property
    def groups(self) -> tuple[str, ...]:
        """The instance groups the operation touches, each once."""
        names = [g.instance_group for g in self.scaling]
        names.extend(g.instance_group for g in self.health_checks)
        return tuple(dict.fromkeys(n for n in names if n))


def parse_operations(items: Iterable[object]) -> tuple[ClusterOperation, ...]:
    """ListClusterOperations summaries; an item that is no object is left out."""
    return tuple(ClusterOperation.from_api(o) for o in items if isinstance(o, dict))


@dataclass(frozen=True, slots=True)
class OperationListing:
    """ListClusterOperations, newest first, whole or capped (`truncated`)."""

    items: tuple[ClusterOperation, ...]
    truncated: bool
    stopped_by: StoppedBy = "end"


@dataclass(frozen=True, slots=True)
class EksElsewhere:
    """Where the orchestrating EKS cluster is, when not in the HyperPod cluster's account
    and region and this run's region."""

    arn: str
    eks_account: str
    eks_region: str
    hyperpod_account: str
    hyperpod_region: str
    run_region: str

    def as_evidence(self) -> dict[str, str]:
        """The fields by name, in the order a finding's evidence lists them."""
        return {
            "arn": self.arn,
            "eks_account": self.eks_account,
            "eks_region": self.eks_region,
            "hyperpod_account": self.hyperpod_account,
            "hyperpod_region": self.hyperpod_region,
            "run_region": self.run_region,
        }
