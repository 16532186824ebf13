"""Who manages a resource: the fact a suggestion states instead of asking.

`IacOwner` is a contract: it is `iac_owner` on every suggestion in `ask --format json`, in
the MCP `suggest_command` result and in the ticket. Values from the cluster (stack names,
logical ids, tag values) are clipped where they are read (`tools.ownership.rules`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Manager = Literal["cloudformation", "terraform", "pulumi", "other", "unknown"]
Confidence = Literal["confirmed", "tagged", "likely"]


class IacOwner(BaseModel):
    """Who manages one resource, and how sure the tool is of it."""

    model_config = ConfigDict(frozen=True)

    resource: str = Field(description="The resource id, name or ARN a suggestion acts on.")
    manager: Manager = Field(
        description="'cloudformation' (also CDK and eksctl, which deploy through it), "
        "'terraform', 'pulumi', 'other' (a tag names another tool) or 'unknown'."
    )
    confidence: Confidence | None = Field(
        default=None,
        description="'confirmed': CloudFormation's DescribeStackResource names this resource "
        "in the stack its tags name; 'tagged': CloudFormation's own aws:cloudformation:* tags, "
        "not confirmed; 'likely': a tag convention (ManagedBy=terraform, pulumi:*...), which "
        "anyone can set. None when the manager is unknown.",
    )
    stack: str | None = Field(default=None, description="The CloudFormation stack name.")
    logical_id: str | None = Field(default=None, description="The template's logical id.")
    drift_status: str | None = Field(
        default=None,
        description="StackResourceDriftStatus from DescribeStackResource (IN_SYNC, MODIFIED, "
        "DELETED, NOT_CHECKED...): the last drift check CloudFormation ran, never started here.",
    )
    drift_checked: str | None = Field(
        default=None, description="When that drift check ran (LastCheckTimestamp, ISO 8601)."
    )
    tool: str | None = Field(
        default=None, description="For 'other': the tool a tag names, e.g. 'ansible'."
    )
    tag: str | None = Field(
        default=None, description="The tag the manager was read from, as key=value."
    )
    note: str | None = Field(
        default=None,
        description="What could not be read or confirmed (AccessDenied on DescribeStackResource, "
        "a call not recorded, a stack gone), said plainly.",
    )

    @property
    def known(self) -> bool:
        return self.manager != "unknown"
