"""§ B.5 rules without their words: the EKS cluster's status and authentication mode, and
whether its control plane admits the instance groups on 443."""

from __future__ import annotations

from typing import Any

import pytest

from tools.checks.eks_alignment import (
    ApiPortSources,
    AuthSupport,
    BlockedUnlessPrefixLists,
    ControlPlaneUnreadable,
    EveryGroupAdmitted,
    GroupNetwork,
    GroupsBlocked,
    PublicEndpointOnly,
    Readiness,
    admits_group,
    api_port_sources,
    authentication_mode,
    cluster_status,
    control_plane_verdict,
)
from tools.triage.data.eks_model import EksCluster
from tools.triage.data.network_model import SecurityGroup

HP_SG, EKS_SG = "sg-hyperpod", "sg-eks"
GPU = GroupNetwork("gpu", (HP_SG,), ("10.1.0.0/24",))
CPU = GroupNetwork("cpu", ("sg-cpu",), ("10.2.0.0/24",))


def eks(status: str = "ACTIVE", mode: str | None = "API", **vpc: Any) -> EksCluster:
    access = {"authenticationMode": mode} if mode is not None else {}
    config = {"clusterSecurityGroupId": EKS_SG, "endpointPrivateAccess": True, **vpc}
    return EksCluster.from_api(
        {"name": "ml", "status": status, "accessConfig": access, "resourcesVpcConfig": config}
    )


def eks_sg(*inbound: dict[str, Any]) -> SecurityGroup:
    return SecurityGroup.from_api({"GroupId": EKS_SG, "IpPermissions": list(inbound)})


def https(**sources: Any) -> dict[str, Any]:
    return {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, **sources}


@pytest.mark.parametrize(
    ("status", "readiness"),
    [
        ("ACTIVE", Readiness.ACTIVE),
        ("UPDATING", Readiness.UPDATING),
        ("CREATING", Readiness.NOT_ACTIVE),
        ("UNKNOWN", Readiness.NOT_ACTIVE),
    ],
)
def test_cluster_status(status: str, readiness: Readiness) -> None:
    assert cluster_status(eks(status)).readiness is readiness


@pytest.mark.parametrize(
    ("mode", "support"),
    [
        (None, AuthSupport.UNREPORTED),
        ("API", AuthSupport.SUPPORTED),
        ("API_AND_CONFIG_MAP", AuthSupport.SUPPORTED),
        ("CONFIG_MAP", AuthSupport.UNSUPPORTED),
    ],
)
def test_authentication_mode(mode: str | None, support: AuthSupport) -> None:
    assert authentication_mode(eks(mode=mode)).support is support


def test_api_port_sources_keep_only_rules_that_admit_443() -> None:
    ssh = {
        "IpProtocol": "tcp",
        "FromPort": 22,
        "ToPort": 22,
        "IpRanges": [{"CidrIp": "10.9.0.0/16"}],
    }
    group = eks_sg(
        https(UserIdGroupPairs=[{"GroupId": HP_SG}], IpRanges=[{"CidrIp": "10.1.0.0/16"}]),
        https(PrefixListIds=[{"PrefixListId": "pl-1"}]),
        ssh,
    )
    assert api_port_sources([group]) == ApiPortSources((HP_SG,), ("10.1.0.0/16",), ("pl-1",))


def test_a_group_is_admitted_by_its_sg_or_by_cidrs_covering_every_subnet() -> None:
    assert admits_group(ApiPortSources((HP_SG,), (), ()), GPU)
    assert admits_group(ApiPortSources((), ("10.0.0.0/8",), ()), CPU)
    two_subnets = GroupNetwork("two", ("sg-x",), ("10.1.0.0/24", "10.3.0.0/24"))
    assert not admits_group(ApiPortSources((), ("10.1.0.0/16",), ()), two_subnets)


def test_public_only_endpoint_is_not_judged_by_security_groups() -> None:
    verdict = control_plane_verdict(eks(endpointPrivateAccess=False), [GPU], [], [])
    assert isinstance(verdict, PublicEndpointOnly)


def test_unread_control_plane_sgs_are_named() -> None:
    verdict = control_plane_verdict(eks(), [GPU], [], ["sg-b", "sg-a"])
    assert isinstance(verdict, ControlPlaneUnreadable)
    assert verdict.missing == ("sg-a", "sg-b")


def test_every_group_admitted() -> None:
    verdict = control_plane_verdict(
        eks(), [GPU], [eks_sg(https(UserIdGroupPairs=[{"GroupId": HP_SG}]))], []
    )
    assert isinstance(verdict, EveryGroupAdmitted)


def test_blocked_groups_are_listed_in_order() -> None:
    verdict = control_plane_verdict(eks(), [CPU, GPU], [eks_sg()], [])
    assert isinstance(verdict, GroupsBlocked)
    assert verdict.blocked == (CPU, GPU)


def test_prefix_lists_leave_blocked_groups_undecided() -> None:
    rule = https(UserIdGroupPairs=[{"GroupId": HP_SG}], PrefixListIds=[{"PrefixListId": "pl-1"}])
    verdict = control_plane_verdict(eks(), [CPU, GPU], [eks_sg(rule)], [])
    assert isinstance(verdict, BlockedUnlessPrefixLists)
    assert verdict.blocked == (CPU,)
