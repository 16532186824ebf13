"""Tags and CloudFormation stack resources, parsed from botocore's answers.

Tags come in two shapes: EC2 and SageMaker give a list of ``{"Key", "Value"}``
(DescribeSecurityGroups / DescribeSubnets / DescribeVpcs ``Tags``, sagemaker ListTags
``Tags``), EKS DescribeCluster a map (``cluster.tags``). Both become a `Tags` tuple of
(key, value) pairs, in the order given.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

Tags = tuple[tuple[str, str], ...]
# Tag keys are at most 128 characters and values 256 (EC2 and SageMaker tag limits); a
# longer one is not a tag AWS would hold, and is cut rather than kept whole.
_KEY_CHARS, _VALUE_CHARS = 128, 256


def tags_from_api(raw: Any) -> Tags:
    """A list of {"Key", "Value"} (EC2, SageMaker) or a {key: value} map (EKS)."""
    pairs: list[tuple[str, str]] = []
    if isinstance(raw, dict):
        pairs = [(str(k), "" if v is None else str(v)) for k, v in raw.items()]
    elif isinstance(raw, list):
        for item in raw:
            if isinstance(item, dict) and item.get("Key") is not None:
                value = item.get("Value")
                pairs.append((str(item["Key"]), "" if value is None else str(value)))
    return tuple((k[:_KEY_CHARS], v[:_VALUE_CHARS]) for k, v in pairs)


def _time(value: Any) -> str | None:
    """botocore gives datetimes; a recording replays them as ISO strings."""
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value) if value else None


@dataclass(frozen=True, slots=True)
class StackResource:
    """One resource of a stack (DescribeStackResource's ``StackResourceDetail``).

    Shape: AWS CloudFormation API Reference, "StackResourceDetail" and
    "StackResourceDriftInformation" (StackResourceDriftStatus, LastCheckTimestamp)."""

    stack_name: str | None
    stack_id: str | None
    logical_id: str
    physical_id: str | None
    resource_type: str | None
    status: str | None
    drift_status: str | None
    drift_checked: str | None

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> StackResource:
        detail = raw.get("StackResourceDetail")
        detail = detail if isinstance(detail, dict) else {}
        drift = detail.get("DriftInformation")
        drift = drift if isinstance(drift, dict) else {}
        status = drift.get("StackResourceDriftStatus")

        def text(key: str) -> str | None:
            value = detail.get(key)
            return str(value) if value else None

        return cls(
            stack_name=text("StackName"),
            stack_id=text("StackId"),
            logical_id=str(detail.get("LogicalResourceId") or ""),
            physical_id=text("PhysicalResourceId"),
            resource_type=text("ResourceType"),
            status=text("ResourceStatus"),
            drift_status=str(status) if status else None,
            drift_checked=_time(drift.get("LastCheckTimestamp")),
        )
