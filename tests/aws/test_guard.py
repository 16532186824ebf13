"""The read-only guard refuses every mutating operation before a request leaves the process.

The access layer is pointed at a real (in-process) moto server holding a cluster, so a
request that slipped past the guard would change state there; a `before-send` counter
registered on the access layer's own session proves no request was even built for sending.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tools.aws.errors import MutatingOperationRefused
from tools.aws.session import AwsAccess

MotoClient = Callable[[str, str], Any]

REGION = "us-west-2"
ACCOUNT = "123456789012"


@dataclass
class World:
    url: str
    vpc_id: str
    subnet_id: str
    sg_id: str
    cluster: str
    eks: str
    ec2: Any
    sagemaker: Any
    eks_client: Any

    def snapshot(self) -> dict[str, Any]:
        """Everything a mutating call in the parametrised list could have changed."""
        sg = self.ec2.describe_security_groups(GroupIds=[self.sg_id])["SecurityGroups"][0]
        cluster = self.sagemaker.describe_cluster(ClusterName=self.cluster)
        nodes = self.sagemaker.list_cluster_nodes(ClusterName=self.cluster)
        return {
            "ingress": sg["IpPermissions"],
            "egress": sg["IpPermissionsEgress"],
            "dns_support": self.ec2.describe_vpc_attribute(
                VpcId=self.vpc_id, Attribute="enableDnsSupport"
            )["EnableDnsSupport"],
            "endpoints": self.ec2.describe_vpc_endpoints()["VpcEndpoints"],
            "cluster": (cluster["ClusterStatus"], cluster["InstanceGroups"]),
            "nodes": [n["InstanceId"] for n in nodes["ClusterNodeSummaries"]],
            "eks": self.eks_client.describe_cluster(name=self.eks)["cluster"]["resourcesVpcConfig"],
        }


@pytest.fixture
def world(moto_server: str, moto_client: MotoClient) -> World:
    """A small cluster built with unguarded setup clients from a separate session."""
    ec2 = moto_client("ec2", REGION)
    sagemaker = moto_client("sagemaker", REGION)
    eks = moto_client("eks", REGION)
    vpc_id = ec2.create_vpc(CidrBlock="10.1.0.0/16")["Vpc"]["VpcId"]
    subnet_id = ec2.create_subnet(VpcId=vpc_id, CidrBlock="10.1.1.0/24")["Subnet"]["SubnetId"]
    sg_id = ec2.create_security_group(GroupName="hp", Description="hp", VpcId=vpc_id)["GroupId"]
    eks_arn = eks.create_cluster(
        name="hp-eks",
        roleArn=f"arn:aws:iam::{ACCOUNT}:role/eks",
        resourcesVpcConfig={"subnetIds": [subnet_id], "securityGroupIds": [sg_id]},
    )["cluster"]["arn"]
    sagemaker.create_cluster(
        ClusterName="hp",
        InstanceGroups=[
            {
                "InstanceGroupName": "workers",
                "InstanceType": "ml.p5.48xlarge",
                "InstanceCount": 2,
                "LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-lc/", "OnCreate": "on.sh"},
                "ExecutionRole": f"arn:aws:iam::{ACCOUNT}:role/exec",
                "ThreadsPerCore": 2,  # moto 5.2.5 fails (500) without it
            }
        ],
        VpcConfig={"SecurityGroupIds": [sg_id], "Subnets": [subnet_id]},
        Orchestrator={"Eks": {"ClusterArn": eks_arn}},
    )
    return World(
        url=moto_server,
        vpc_id=vpc_id,
        subnet_id=subnet_id,
        sg_id=sg_id,
        cluster="hp",
        eks="hp-eks",
        ec2=ec2,
        sagemaker=sagemaker,
        eks_client=eks,
    )


@dataclass
class Guarded:
    access: AwsAccess
    sent: list[str]


@pytest.fixture
def guarded(world: World) -> Guarded:
    """The access layer on the moto server, with a counter of requests about to be sent."""
    access = AwsAccess(REGION, endpoint_url=world.url, max_attempts=1)
    sent: list[str] = []

    def count(request: Any, **_: Any) -> None:
        sent.append(str(request.url))

    access._session.events.register("before-send", count)
    return Guarded(access=access, sent=sent)


def _mutations(world: World) -> list[tuple[str, str, dict[str, Any]]]:
    sg_rule = [{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]
    node = "workers-0"
    nodes = {"ClusterName": world.cluster, "NodeIds": [node]}
    role = f"arn:aws:iam::{ACCOUNT}:role/x"
    return [
        ("ec2", "AuthorizeSecurityGroupEgress", {"GroupId": world.sg_id, "IpPermissions": sg_rule}),
        (
            "ec2",
            "AuthorizeSecurityGroupIngress",
            {"GroupId": world.sg_id, "IpPermissions": sg_rule},
        ),
        ("ec2", "RevokeSecurityGroupEgress", {"GroupId": world.sg_id, "IpPermissions": sg_rule}),
        (
            "ec2",
            "ModifyVpcAttribute",
            {"VpcId": world.vpc_id, "EnableDnsSupport": {"Value": False}},
        ),
        (
            "ec2",
            "CreateVpcEndpoint",
            {"VpcId": world.vpc_id, "ServiceName": f"com.amazonaws.{REGION}.s3"},
        ),
        ("ec2", "DeleteSecurityGroup", {"GroupId": world.sg_id}),
        ("ec2", "TerminateInstances", {"InstanceIds": ["i-0123456789abcdef0"]}),
        ("sagemaker", "UpdateCluster", {"ClusterName": world.cluster, "InstanceGroups": []}),
        ("sagemaker", "UpdateClusterSoftware", {"ClusterName": world.cluster}),
        ("sagemaker", "BatchReplaceClusterNodes", nodes),
        ("sagemaker", "BatchRebootClusterNodes", nodes),
        ("sagemaker", "BatchDeleteClusterNodes", nodes),
        # Deep health checks take nodes out of service and may reboot or replace them.
        (
            "sagemaker",
            "StartClusterHealthCheck",
            {
                "ClusterName": world.cluster,
                "DeepHealthCheckConfigurations": [
                    {"InstanceGroupName": "gpu", "DeepHealthChecks": ["InstanceStress"]}
                ],
            },
        ),
        ("sagemaker", "DeleteCluster", {"ClusterName": world.cluster}),
        (
            "eks",
            "UpdateClusterConfig",
            {"name": world.eks, "resourcesVpcConfig": {"endpointPublicAccess": False}},
        ),
        ("eks", "DeleteCluster", {"name": world.eks}),
        (
            "ssm",
            "SendCommand",
            {"InstanceIds": ["i-0123456789abcdef0"], "DocumentName": "AWS-RunShellScript"},
        ),
        ("iam", "PutRolePolicy", {"RoleName": "exec", "PolicyName": "p", "PolicyDocument": "{}"}),
        ("logs", "DeleteLogGroup", {"logGroupName": "/aws/sagemaker/Clusters/hp/hp"}),
        ("sts", "AssumeRole", {"RoleArn": role, "RoleSessionName": "x"}),
        (
            "service-quotas",
            "RequestServiceQuotaIncrease",
            {"ServiceCode": "ec2", "QuotaCode": "L-1", "DesiredValue": 1.0},
        ),
    ]


_MUTATION_IDS = [
    "ec2:AuthorizeSecurityGroupEgress",
    "ec2:AuthorizeSecurityGroupIngress",
    "ec2:RevokeSecurityGroupEgress",
    "ec2:ModifyVpcAttribute",
    "ec2:CreateVpcEndpoint",
    "ec2:DeleteSecurityGroup",
    "ec2:TerminateInstances",
    "sagemaker:UpdateCluster",
    "sagemaker:UpdateClusterSoftware",
    "sagemaker:BatchReplaceClusterNodes",
    "sagemaker:BatchRebootClusterNodes",
    "sagemaker:BatchDeleteClusterNodes",
    "sagemaker:StartClusterHealthCheck",
    "sagemaker:DeleteCluster",
    "eks:UpdateClusterConfig",
    "eks:DeleteCluster",
    "ssm:SendCommand",
    "iam:PutRolePolicy",
    "logs:DeleteLogGroup",
    "sts:AssumeRole",
    "service-quotas:RequestServiceQuotaIncrease",
]


@pytest.fixture(scope="module")
def offline() -> Guarded:
    """The access layer aimed at a closed loopback port: anything sent would fail loudly."""
    access = AwsAccess(REGION, endpoint_url="http://127.0.0.1:9", max_attempts=1)
    sent: list[str] = []
    access._session.events.register("before-send", lambda request, **_: sent.append(request.url))
    return Guarded(access=access, sent=sent)


@pytest.mark.parametrize("index", range(len(_MUTATION_IDS)), ids=_MUTATION_IDS)
def test_mutating_operation_is_refused(offline: Guarded, index: int) -> None:
    fake = World("", "vpc-1", "subnet-1", "sg-1", "hp", "hp-eks", None, None, None)
    service, operation, params = _mutations(fake)[index]
    assert f"{service}:{operation}" == _MUTATION_IDS[index]
    offline.sent.clear()
    with pytest.raises(MutatingOperationRefused) as refused:
        offline.access.call(service, operation, **params)
    assert (refused.value.service, refused.value.operation) == (service, operation)
    assert refused.value.reason.startswith("refused ")
    assert "not in the read-only allow-list" in refused.value.reason
    assert offline.sent == []


def test_mutating_operations_never_reach_the_moto_server(world: World, guarded: Guarded) -> None:
    """The same calls with real ids against a live moto cluster: refused, nothing sent,
    and the cluster, SG rules, VPC attributes, endpoints and EKS config are unchanged."""
    before = world.snapshot()
    outcomes: dict[str, str] = {}
    for service, operation, params in _mutations(world):
        try:
            guarded.access.call(service, operation, **params)
        except MutatingOperationRefused:
            outcomes[f"{service}:{operation}"] = "refused"
        except Exception as exc:
            outcomes[f"{service}:{operation}"] = f"{type(exc).__name__}: {exc}"
        else:
            outcomes[f"{service}:{operation}"] = "sent"
    assert outcomes == dict.fromkeys(_MUTATION_IDS, "refused")
    assert guarded.sent == []
    assert world.snapshot() == before


def test_the_same_setup_call_unguarded_does_change_moto(world: World) -> None:
    """Control for the test above: the snapshot does see a rule added outside the guard."""
    before = world.snapshot()
    world.ec2.authorize_security_group_egress(
        GroupId=world.sg_id,
        IpPermissions=[{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": world.sg_id}]}],
    )
    assert world.snapshot() != before


def test_an_allowed_read_is_sent_and_answered(world: World, guarded: Guarded) -> None:
    """Control for the counter: an allow-listed call does reach the server."""
    groups = guarded.access.call("ec2", "DescribeSecurityGroups", GroupIds=[world.sg_id])
    assert [g["GroupId"] for g in groups["SecurityGroups"]] == [world.sg_id]
    assert len(guarded.sent) == 1
    assert guarded.sent[0].startswith(world.url)


def test_client_created_later_from_the_session_is_still_guarded(
    world: World, guarded: Guarded
) -> None:
    # Bypass AwsAccess.client(): a client made straight from the session afterwards.
    raw = guarded.access._session.client("ec2", endpoint_url=world.url)
    before = world.snapshot()
    with pytest.raises(MutatingOperationRefused):
        raw.authorize_security_group_ingress(
            GroupId=world.sg_id,
            IpPermissions=[{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}],
        )
    with pytest.raises(MutatingOperationRefused):
        raw.modify_vpc_attribute(VpcId=world.vpc_id, EnableDnsSupport={"Value": False})
    assert guarded.sent == []
    assert world.snapshot() == before


def test_guard_is_registered_before_the_first_client() -> None:
    """The guard sits on the session's emitter itself, before any client exists."""
    import botocore.session

    access = AwsAccess(REGION, endpoint_url="http://127.0.0.1:9")
    assert access._clients == {}
    model = botocore.session.get_session().get_service_model("ec2")
    with pytest.raises(MutatingOperationRefused):
        access._session.events.emit(
            "before-parameter-build.ec2.RunInstances",
            model=model.operation_model("RunInstances"),
            params={},
            context={},
        )
    context: dict[str, Any] = {}
    access._session.events.emit(
        "before-parameter-build.ec2.DescribeSubnets",
        model=model.operation_model("DescribeSubnets"),
        params={"SubnetIds": ["subnet-1"]},
        context=context,
    )
    assert context  # the guard saw the allowed call and kept its parameters for replay
    assert access._clients == {}
