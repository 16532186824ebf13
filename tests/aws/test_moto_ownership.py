"""Who manages a resource, read on moto through the guarded session: a security group a
CloudFormation stack created carries the stack's aws:cloudformation:* tags and is
confirmed by DescribeStackResource; an untagged one is unknown; a Terraform tag is likely;
AccessDenied on DescribeStackResource leaves it tagged and says so. Nothing else is sent
than the allow-listed reads (and DetectStackDrift never)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tools.aws.allowlist import READ_ONLY_OPERATIONS
from tools.ownership.resolve import Owners, cluster_owners
from tools.triage.data import ClusterData
from tools.triage.node_sources import NodeOptions
from tools.triage.open_cluster import DataSource, open_cluster

from ._moto_cluster import REGION, MotoClient, MotoCluster


def _stack_group(moto_client: MotoClient, vpc_id: str) -> str:
    """A security group created by CloudFormation stack hp-network (moto tags it as
    CloudFormation does)."""
    template = {
        "Resources": {
            "EfaSecurityGroup": {
                "Type": "AWS::EC2::SecurityGroup",
                "Properties": {"GroupDescription": "efa", "VpcId": vpc_id},
            }
        }
    }
    cfn = moto_client("cloudformation", REGION)
    cfn.create_stack(StackName="hp-network", TemplateBody=json.dumps(template))
    detail = cfn.describe_stack_resource(
        StackName="hp-network", LogicalResourceId="EfaSecurityGroup"
    )
    return str(detail["StackResourceDetail"]["PhysicalResourceId"])


def _data(cluster: MotoCluster, options: NodeOptions) -> ClusterData:
    return open_cluster(
        cluster.target, source=DataSource(endpoint_url=cluster.url), options=options
    )


def _sent(data: ClusterData) -> list[tuple[str, str]]:
    sent: list[tuple[str, str]] = []

    def watch(model: Any, **_: Any) -> None:
        sent.append((model.service_model.service_name, model.name))

    data.access._session.events.register("before-parameter-build", watch)
    return sent


def _drift_after_a_check(parsed: dict[str, Any], **_: Any) -> None:
    """moto 5 leaves DriftInformation out; AWS answers it once a drift check ran (API
    Reference, StackResourceDetail): add what that answer holds."""
    detail = parsed.get("StackResourceDetail")
    if isinstance(detail, dict):
        detail["DriftInformation"] = {
            "StackResourceDriftStatus": "IN_SYNC",
            "LastCheckTimestamp": "2026-11-30T08:00:00Z",
        }


def test_a_stack_made_group_is_confirmed_with_its_drift_status(
    cluster: MotoCluster, moto_client: MotoClient, aws_only: NodeOptions
) -> None:
    group = _stack_group(moto_client, cluster.vpc_id)
    data = _data(cluster, aws_only)
    data.access._session.events.register(
        "after-call.cloudformation.DescribeStackResource",
        lambda parsed, **kw: _drift_after_a_check(parsed),
    )
    sent = _sent(data)
    owners = Owners(data)
    owner = owners.of(group)
    assert owner is not None
    assert (owner.manager, owner.confidence) == ("cloudformation", "confirmed")
    assert (owner.stack, owner.logical_id) == ("hp-network", "EfaSecurityGroup")
    assert owner.drift_status == "IN_SYNC"
    assert owner.drift_checked is not None
    assert owner.drift_checked.startswith("2026-11-30")
    assert owners.of(group) is owner  # once per resource
    assert sent.count(("cloudformation", "DescribeStackResource")) == 1
    assert all(call in READ_ONLY_OPERATIONS for call in sent)


def test_without_drift_information_it_is_confirmed_and_never_checked(
    cluster: MotoCluster, moto_client: MotoClient, aws_only: NodeOptions
) -> None:
    group = _stack_group(moto_client, cluster.vpc_id)
    owner = Owners(_data(cluster, aws_only)).of(group)
    assert owner is not None
    assert owner.confidence == "confirmed"
    assert owner.drift_status is None


def test_an_untagged_group_is_unknown(cluster: MotoCluster, aws_only: NodeOptions) -> None:
    owner = Owners(_data(cluster, aws_only)).of(cluster.sg_id)
    assert owner is not None
    assert (owner.manager, owner.confidence, owner.note) == ("unknown", None, None)


def test_a_terraform_tag_is_likely(
    cluster: MotoCluster, moto_client: MotoClient, aws_only: NodeOptions
) -> None:
    moto_client("ec2", REGION).create_tags(
        Resources=[cluster.sg_id, cluster.private_subnets[0]],
        Tags=[{"Key": "ManagedBy", "Value": "terraform"}],
    )
    owners = Owners(_data(cluster, aws_only))
    for resource in (cluster.sg_id, cluster.private_subnets[0]):
        owner = owners.of(resource)
        assert owner is not None
        assert (owner.manager, owner.confidence, owner.tag) == (
            "terraform",
            "likely",
            "ManagedBy=terraform",
        )


def _access_denied() -> Any:
    from botocore.awsrequest import AWSResponse

    body = (
        b"<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>"
        b"<Message>not authorized to perform cloudformation:DescribeStackResource</Message>"
        b"</Error><RequestId>1</RequestId></ErrorResponse>"
    )

    class Raw:
        def stream(self, **_: Any) -> Iterator[bytes]:
            yield body

    return AWSResponse("http://127.0.0.1/", 403, {"Content-Type": "text/xml"}, Raw())


def test_access_denied_on_the_stack_record_leaves_it_tagged_and_says_so(
    cluster: MotoCluster, moto_client: MotoClient, aws_only: NodeOptions
) -> None:
    group = _stack_group(moto_client, cluster.vpc_id)
    data = _data(cluster, aws_only)
    data.access._session.events.register(
        "before-send.cloudformation", lambda request, **_: _access_denied()
    )
    owner = Owners(data).of(group)
    assert owner is not None
    assert (owner.manager, owner.confidence, owner.stack) == (
        "cloudformation",
        "tagged",
        "hp-network",
    )
    assert owner.note == "cloudformation:DescribeStackResource denied (AccessDenied)"


def test_cluster_owners_reads_every_network_resource_of_the_cluster(
    cluster: MotoCluster, aws_only: NodeOptions
) -> None:
    data = _data(cluster, aws_only)
    sent = _sent(data)
    owners = {o.resource: o for o in cluster_owners(data)}
    assert cluster.sg_id in owners
    assert set(cluster.private_subnets) <= set(owners)
    assert cluster.vpc_id in owners
    assert ("ec2", "DescribeVpcs") in sent
    assert all(call in READ_ONLY_OPERATIONS for call in sent)
    assert ("cloudformation", "DetectStackDrift") not in sent


@pytest.fixture(autouse=True)
def _quick(fast_retries: None) -> None:
    """moto answers some SageMaker calls (ListTags on a cluster) with a 500: no back-off."""
