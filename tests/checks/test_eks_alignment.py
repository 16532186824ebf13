"""§ B.5 rules of tools/checks/eks_alignment.py over literal EKS DescribeCluster dicts,
parsed into the models the rules take."""

from __future__ import annotations

from typing import Any

import pytest

from tools.checks.eks_alignment import (
    CHECK_CLUSTER,
    CHECK_NETWORK,
    CLUSTER_FINDINGS,
    NETWORK_FINDINGS,
    GroupNetwork,
    judge_control_plane_access,
    judge_eks_cluster,
    judge_eks_vpc,
)
from tools.findings import Finding, Priority, Status
from tools.triage.data.eks_model import EksCluster
from tools.triage.data.network_model import SecurityGroup
from tools.triage.data.sagemaker_model import EksElsewhere

VPC = "vpc-aaa"
HP_SG, EKS_SG, EKS_EXTRA_SG = "sg-hyperpod", "sg-eks-cluster", "sg-eks-extra"
GPU = GroupNetwork("gpu-workers", (HP_SG,), ("10.1.0.0/17",))


def eks_api(**overrides: Any) -> dict[str, Any]:
    """A DescribeCluster `cluster`, to edit before parsing."""
    cluster: dict[str, Any] = {
        "name": "ml-eks",
        "status": "ACTIVE",
        "resourcesVpcConfig": {
            "vpcId": VPC,
            "securityGroupIds": [EKS_EXTRA_SG],
            "clusterSecurityGroupId": EKS_SG,
            "endpointPrivateAccess": True,
            "endpointPublicAccess": True,
        },
        "accessConfig": {"authenticationMode": "API"},
    }
    cluster.update(overrides)
    return cluster


def eks(**overrides: Any) -> EksCluster:
    return EksCluster.from_api(eks_api(**overrides))


def sg(group_id: str, *inbound: dict[str, Any]) -> SecurityGroup:
    return SecurityGroup.from_api(
        {"GroupId": group_id, "VpcId": VPC, "IpPermissions": list(inbound)}
    )


def from_group(source: str, protocol: str = "-1", **ports: int) -> dict[str, Any]:
    return {"IpProtocol": protocol, "UserIdGroupPairs": [{"GroupId": source}], **ports}


def from_cidr(cidr: str, protocol: str = "tcp", low: int = 443, high: int = 443) -> dict[str, Any]:
    return {"IpProtocol": protocol, "FromPort": low, "ToPort": high, "IpRanges": [{"CidrIp": cidr}]}


def statuses(findings: list[Finding]) -> list[tuple[Status, Priority | None]]:
    return [(f.status, f.priority) for f in findings]


# -- status and authentication mode -----------------------------------------------------


@pytest.mark.parametrize("mode", ["API", "API_AND_CONFIG_MAP"])
def test_active_with_supported_auth_passes(mode: str) -> None:
    findings = judge_eks_cluster(eks(accessConfig={"authenticationMode": mode}))
    assert [(f.check, f.status, f.section) for f in findings] == [
        (CHECK_CLUSTER, Status.PASS, "B.5"),
        (CHECK_CLUSTER, Status.PASS, "B.5"),
    ]
    assert findings[1].evidence["authentication_mode"] == mode


def test_config_map_auth_fails_p0() -> None:
    findings = judge_eks_cluster(eks(accessConfig={"authenticationMode": "CONFIG_MAP"}))
    fails = [f for f in findings if f.status == Status.FAIL]
    assert statuses(fails) == [(Status.FAIL, Priority.P0)]
    assert "CONFIG_MAP" in fails[0].message
    assert fails[0].evidence["authentication_mode"] == "CONFIG_MAP"
    assert not fails[0].message.endswith(".")


def test_missing_access_config_is_info() -> None:
    cluster = eks_api()
    del cluster["accessConfig"]
    assert [f.status for f in judge_eks_cluster(EksCluster.from_api(cluster))] == [
        Status.PASS,
        Status.INFO,
    ]


@pytest.mark.parametrize("status", ["FAILED", "DELETING", "CREATING", "PENDING"])
def test_status_not_active_fails(status: str) -> None:
    findings = judge_eks_cluster(eks(status=status))
    assert statuses(findings)[0] == (Status.FAIL, Priority.P0)
    assert status in findings[0].message
    assert findings[0].evidence["status"] == status


def test_updating_is_a_p2_warning() -> None:
    assert statuses(judge_eks_cluster(eks(status="UPDATING")))[0] == (Status.WARN, Priority.P2)


def test_missing_status_fails() -> None:
    cluster = eks_api()
    del cluster["status"]
    assert judge_eks_cluster(EksCluster.from_api(cluster))[0].status == Status.FAIL


# -- VPC --------------------------------------------------------------------------------


def test_same_vpc_passes() -> None:
    findings = judge_eks_vpc(eks(), [VPC])
    assert [(f.check, f.status) for f in findings] == [(CHECK_NETWORK, Status.PASS)]


def test_other_vpc_fails_p0() -> None:
    findings = judge_eks_vpc(eks(), ["vpc-other"])
    assert statuses(findings) == [(Status.FAIL, Priority.P0)]
    assert VPC in findings[0].message
    assert "vpc-other" in findings[0].message
    assert findings[0].evidence == {"eks_vpc": VPC, "hyperpod_vpcs": ["vpc-other"]}


def test_unknown_vpc_is_info() -> None:
    assert [f.status for f in judge_eks_vpc(eks(resourcesVpcConfig={}), [VPC])] == [Status.INFO]
    assert [f.status for f in judge_eks_vpc(eks(), [])] == [Status.INFO]


# -- control plane reachability ---------------------------------------------------------


def test_hyperpod_sg_among_eks_sgs_with_self_rule_passes() -> None:
    cluster = eks_api()
    cluster["resourcesVpcConfig"]["securityGroupIds"] = [HP_SG]
    groups = [sg(HP_SG, from_group(HP_SG)), sg(EKS_SG, from_group(EKS_SG))]
    findings = judge_control_plane_access(EksCluster.from_api(cluster), [GPU], groups, [])
    assert statuses(findings) == [(Status.PASS, None)]


def test_rule_from_hyperpod_sg_on_443_passes() -> None:
    groups = [
        sg(EKS_SG, from_group(EKS_SG)),
        sg(EKS_EXTRA_SG, from_group(HP_SG, "tcp", FromPort=443, ToPort=443)),
    ]
    assert statuses(judge_control_plane_access(eks(), [GPU], groups, [])) == [(Status.PASS, None)]


def test_cidr_covering_the_subnets_passes() -> None:
    groups = [sg(EKS_SG, from_cidr("10.1.0.0/16")), sg(EKS_EXTRA_SG)]
    assert statuses(judge_control_plane_access(eks(), [GPU], groups, [])) == [(Status.PASS, None)]


def test_no_rule_fails_naming_the_group_and_sgs() -> None:
    groups = [sg(EKS_SG, from_group(EKS_SG)), sg(EKS_EXTRA_SG)]
    findings = judge_control_plane_access(eks(), [GPU], groups, [])
    assert statuses(findings) == [(Status.FAIL, Priority.P0)]
    finding = findings[0]
    assert finding.section == "B.5"
    assert "gpu-workers" in finding.message
    assert HP_SG in finding.resources
    assert EKS_SG in finding.resources
    assert finding.evidence["blocked_groups"] == {"gpu-workers": [HP_SG]}
    assert not finding.message.endswith(".")


@pytest.mark.parametrize(
    "rule",
    [
        from_group(HP_SG, "tcp", FromPort=22, ToPort=22),
        from_group(HP_SG, "udp", FromPort=0, ToPort=65535),
        from_cidr("10.1.0.0/24"),  # narrower than the subnet
        from_cidr("10.1.0.0/16", low=80, high=80),
        from_cidr("not-a-cidr"),
    ],
)
def test_rules_that_do_not_admit_443_from_the_nodes(rule: dict[str, Any]) -> None:
    findings = judge_control_plane_access(eks(), [GPU], [sg(EKS_SG, rule)], [])
    assert findings[0].status == Status.FAIL


def test_port_range_including_443_counts() -> None:
    rule = from_group(HP_SG, "tcp", FromPort=0, ToPort=65535)
    assert judge_control_plane_access(eks(), [GPU], [sg(EKS_SG, rule)], [])[0].status == (
        Status.PASS
    )


def test_every_subnet_of_a_group_must_be_covered_by_cidr() -> None:
    group = GroupNetwork("gpu", ("sg-other",), ("10.1.0.0/24", "10.2.0.0/24"))
    half = [sg(EKS_SG, from_cidr("10.1.0.0/16"))]
    assert judge_control_plane_access(eks(), [group], half, [])[0].status == Status.FAIL
    both = [sg(EKS_SG, from_cidr("10.1.0.0/16"), from_cidr("10.2.0.0/16"))]
    assert judge_control_plane_access(eks(), [group], both, [])[0].status == Status.PASS


def test_override_group_with_its_own_sg_is_judged_alone() -> None:
    override = GroupNetwork("override", ("sg-override",), ("10.9.0.0/24",))
    groups = [sg(EKS_SG, from_group(HP_SG))]
    findings = judge_control_plane_access(eks(), [GPU, override], groups, [])
    assert findings[0].status == Status.FAIL
    assert findings[0].evidence["blocked_groups"] == {"override": ["sg-override"]}


def test_prefix_list_sources_are_info_not_fail() -> None:
    rule = {
        "IpProtocol": "tcp",
        "FromPort": 443,
        "ToPort": 443,
        "PrefixListIds": [{"PrefixListId": "pl-1"}],
    }
    findings = judge_control_plane_access(eks(), [GPU], [sg(EKS_SG, rule)], [])
    assert [f.status for f in findings] == [Status.INFO]
    assert "pl-1" in findings[0].message


def test_unreadable_eks_sg_is_info() -> None:
    findings = judge_control_plane_access(eks(), [GPU], [sg(EKS_SG)], [EKS_EXTRA_SG])
    assert [f.status for f in findings] == [Status.INFO]
    assert EKS_EXTRA_SG in findings[0].message


def test_no_eks_sgs_listed_is_info() -> None:
    cluster = eks(resourcesVpcConfig={"vpcId": VPC, "endpointPrivateAccess": True})
    assert [f.status for f in judge_control_plane_access(cluster, [GPU], [], [])] == [Status.INFO]


def test_public_only_endpoint_is_info() -> None:
    cluster = eks_api()
    cluster["resourcesVpcConfig"]["endpointPrivateAccess"] = False
    cluster["resourcesVpcConfig"]["publicAccessCidrs"] = ["0.0.0.0/0"]
    findings = judge_control_plane_access(EksCluster.from_api(cluster), [GPU], [], [])
    assert [f.status for f in findings] == [Status.INFO]
    assert findings[0].evidence["public_access_cidrs"] == ["0.0.0.0/0"]


# -- the registered checks, against the healthy base world ------------------------------


def _data(world: Any) -> Any:
    from cluster_simulator import base
    from tools.aws.session import AwsAccess
    from tools.target import TriageTarget
    from tools.triage.data import ClusterData

    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    return ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)


def test_registered_checks_pass_on_the_healthy_world() -> None:
    from cluster_simulator import base
    from tools.checks.eks_alignment import eks_cluster, eks_network

    data = _data(base.healthy_eks())
    found = [*eks_cluster(data), *eks_network(data)]
    assert {f.status for f in found} == {Status.PASS}


def test_deleted_eks_cluster_fails_instead_of_skipping() -> None:
    from cluster_simulator import base
    from tools.checks.eks_alignment import eks_cluster, eks_network

    world = base.healthy_eks()
    world.eks_clusters.clear()
    data = _data(world)
    findings = list(eks_cluster(data))
    assert statuses(findings) == [(Status.FAIL, Priority.P0)]
    assert findings[0].message.endswith("does not exist")
    assert list(eks_network(data)) == []


# -- an EKS cluster in another account or region ----------------------------------------

ELSEWHERE = {
    "arn": "arn:aws:eks:us-east-1:444455556666:cluster/ml-eks",
    "eks_account": "444455556666",
    "eks_region": "us-east-1",
    "hyperpod_account": "111122223333",
    "hyperpod_region": "us-west-2",
    "run_region": "us-west-2",
}


def test_eks_cluster_elsewhere_is_info_naming_account_and_region() -> None:
    from tools.checks.eks_alignment import judge_eks_elsewhere

    finding = judge_eks_elsewhere(CLUSTER_FINDINGS, EksElsewhere(**ELSEWHERE))
    assert (finding.status, finding.section) == (Status.INFO, "B.5")
    assert "account 444455556666 / region us-east-1" in finding.message
    assert "not described (B.5 checks need access there)" in finding.message
    assert finding.resources == [ELSEWHERE["arn"]]
    only_region = {**ELSEWHERE, "eks_account": "111122223333"}
    message = judge_eks_elsewhere(NETWORK_FINDINGS, EksElsewhere(**only_region)).message
    assert "is in region us-east-1 (" in message


@pytest.mark.parametrize(
    "arn",
    [
        "arn:aws:eks:us-west-2:444455556666:cluster/ml-eks",  # another account
        "arn:aws:eks:us-east-1:111122223333:cluster/ml-eks",  # another region
    ],
)
def test_registered_checks_do_not_describe_an_eks_cluster_elsewhere(arn: str) -> None:
    from cluster_simulator import base
    from tools.checks.eks_alignment import eks_cluster, eks_network

    world = base.healthy_eks()
    world.cluster["Orchestrator"]["Eks"]["ClusterArn"] = arn
    world.eks_clusters["ml-eks"]["status"] = "FAILED"  # what a wrong DescribeCluster would see
    data = _data(world)
    assert data.eks_cluster() is None
    found = [*eks_cluster(data), *eks_network(data)]
    assert [(f.check, f.status) for f in found] == [
        (CHECK_CLUSTER, Status.INFO),
        (CHECK_NETWORK, Status.INFO),
    ]
    assert all(arn in f.message for f in found)


def test_same_account_and_region_is_described_as_before() -> None:
    from cluster_simulator import base

    data = _data(base.healthy_eks())
    assert data.eks_cluster_elsewhere() is None
    eks = data.eks_cluster()
    assert eks is not None
    assert eks.name == "ml-eks"
