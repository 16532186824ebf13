"""What a triage looks at: validated cluster, region and optional node."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

CLUSTER_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")
# A masked ticket archive (`ticket --mask`, tools/masking.py) replays under the placeholders
# its recording holds: the cluster name `<CLUSTER_1>`, the account `<ACCOUNT_1>` in an ARN.
# Live, AWS answers such a name as a cluster it does not know.
MASKED_CLUSTER_NAME = re.compile(r"^<CLUSTER_\d{1,6}>$")
CLUSTER_ARN = re.compile(
    r"^arn:aws[a-z-]*:sagemaker:(?P<region>[a-z]{2}(-[a-z]+)+-\d):"
    r"(?P<account>\d{12}|<ACCOUNT_\d{1,6}>):cluster/(?P<id>[a-z0-9]{12})$"
)
REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d$")
INSTANCE_ID = re.compile(r"^i-[0-9a-f]{8}([0-9a-f]{9})?$")


def _quoted(value: str) -> str:
    """A rejected value as the error shows it: quoted, clipped, control characters escaped."""
    from tools.display import argument

    return f"'{argument(value)}'"


class TriageTarget(BaseModel):
    """The cluster (name or ARN), its region, and optionally one node to focus on."""

    model_config = ConfigDict(frozen=True)

    cluster: str = Field(description="HyperPod cluster name or ARN.")
    region: str = Field(description="AWS region, e.g. us-west-2.")
    node: str | None = Field(default=None, description="Instance id to focus on, e.g. i-0abc...")

    @field_validator("cluster")
    @classmethod
    def _cluster(cls, value: str) -> str:
        value = value.strip()
        if (
            CLUSTER_NAME.match(value)
            or MASKED_CLUSTER_NAME.match(value)
            or CLUSTER_ARN.match(value)
        ):
            return value
        raise ValueError(
            f"{_quoted(value)} is neither a cluster name (letters, digits and hyphens, at most 63) "
            "nor a HyperPod cluster ARN (arn:aws:sagemaker:<region>:<account>:cluster/<id>)"
        )

    @field_validator("region")
    @classmethod
    def _region(cls, value: str) -> str:
        value = value.strip()
        if not REGION.match(value):
            raise ValueError(f"{_quoted(value)} is not an AWS region name such as us-west-2")
        return value

    @field_validator("node")
    @classmethod
    def _node(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        if not INSTANCE_ID.match(value):
            raise ValueError(
                f"{_quoted(value)} is not an EC2 instance id such as i-0123456789abcdef0"
            )
        return value
