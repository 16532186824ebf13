"""The typed EKS DescribeCluster answer: what the § B.5 checks and the Kubernetes access use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tools.triage.data.ownership_model import Tags, tags_from_api


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


@dataclass(frozen=True, slots=True)
class EksVpcConfig:
    """The cluster's `resourcesVpcConfig`: its VPC, control-plane SGs and API endpoints."""

    vpc_id: str | None
    security_group_ids: tuple[str, ...]
    cluster_security_group_id: str  # "" when absent
    endpoint_private_access: bool | None
    endpoint_public_access: bool | None
    public_access_cidrs: tuple[str, ...]

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> EksVpcConfig:
        vpc_id = raw.get("vpcId")
        cluster_sg = raw.get("clusterSecurityGroupId")
        return cls(
            vpc_id=str(vpc_id) if vpc_id is not None else None,
            security_group_ids=tuple(str(sg) for sg in raw.get("securityGroupIds") or []),
            cluster_security_group_id=str(cluster_sg) if cluster_sg else "",
            endpoint_private_access=_bool(raw.get("endpointPrivateAccess")),
            endpoint_public_access=_bool(raw.get("endpointPublicAccess")),
            public_access_cidrs=tuple(str(c) for c in raw.get("publicAccessCidrs") or []),
        )

    @property
    def control_plane_security_group_ids(self) -> tuple[str, ...]:
        """The additional SGs, then the cluster SG EKS created (when reported)."""
        extra = (self.cluster_security_group_id,) if self.cluster_security_group_id else ()
        return (*self.security_group_ids, *extra)


@dataclass(frozen=True, slots=True)
class EksCluster:
    """An EKS cluster (DescribeCluster's `cluster`)."""

    name: str  # "?" when absent
    status: str  # "UNKNOWN" when absent
    endpoint: str  # the API server URL; "" when absent
    authentication_mode: str | None  # accessConfig.authenticationMode
    vpc_config: EksVpcConfig
    tags: Tags = ()  # DescribeCluster's `tags` map (who manages it: tools.ownership)

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> EksCluster:
        mode = _dict(raw.get("accessConfig")).get("authenticationMode")
        return cls(
            name=str(raw.get("name", "?")),
            status=str(raw.get("status", "UNKNOWN")),
            endpoint=str(raw.get("endpoint") or ""),
            authentication_mode=str(mode) if mode is not None else None,
            vpc_config=EksVpcConfig.from_api(_dict(raw.get("resourcesVpcConfig"))),
            tags=tags_from_api(raw.get("tags")),
        )
