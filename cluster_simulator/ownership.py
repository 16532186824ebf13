"""Who manages a world's resources: CloudFormation stacks and tag conventions.

CloudFormation tags what it creates with aws:cloudformation:stack-name, -stack-id and
-logical-id (CloudFormation Template Reference, "Resource tag") and keeps a record of each
resource (DescribeStackResource), with the drift status of the last drift check. The
functions here give a world's resources those tags and records, or a Terraform-style tag.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from cluster_simulator import base
from cluster_simulator.world import Json, World

_RESOURCE_TYPES = {
    "sg-": "AWS::EC2::SecurityGroup",
    "subnet-": "AWS::EC2::Subnet",
    "vpc-": "AWS::EC2::VPC",
}


def stack_id(world: World, stack: str) -> str:
    """A stable stack id (the uuid derived from the name, so builds do not differ)."""
    stable = uuid.uuid5(uuid.NAMESPACE_URL, f"{world.account}/{stack}")
    return f"arn:aws:cloudformation:{world.region}:{world.account}:stack/{stack}/{stable}"


def _add_tags(world: World, resource: str, tags: list[Json]) -> None:
    """EKS keeps its tags as a map (DescribeCluster `tags`); EC2 and SageMaker as lists."""
    if resource.startswith("arn:aws:eks:"):
        cluster = world.eks_clusters[resource.rsplit("/", 1)[-1]]
        cluster.setdefault("tags", {}).update({t["Key"]: t["Value"] for t in tags})
        return
    _tags_of(world, resource).extend(tags)


def _tags_of(world: World, resource: str) -> list[Json]:
    for group in world.security_groups:
        if group["GroupId"] == resource:
            return group.setdefault("Tags", [])  # type: ignore[no-any-return]
    for subnet in world.subnets:
        if subnet["SubnetId"] == resource:
            return subnet.setdefault("Tags", [])  # type: ignore[no-any-return]
    if resource.startswith("vpc-"):
        return world.vpc_tags.setdefault(resource, [])
    return world.sagemaker_tags.setdefault(resource, [])


def cloudformation_stack(
    world: World,
    stack: str,
    resources: dict[str, str],
    *,
    drift: str = "NOT_CHECKED",
    checked: datetime | None = None,
) -> None:
    """Put ``resources`` (resource id or ARN -> logical id) in CloudFormation stack
    ``stack``: its three aws:cloudformation:* tags on each, and its record of each with
    the given last drift status (``checked``: when that drift check ran)."""
    sid = stack_id(world, stack)
    for resource, logical in resources.items():
        _add_tags(
            world,
            resource,
            [
                {"Key": "aws:cloudformation:stack-name", "Value": stack},
                {"Key": "aws:cloudformation:stack-id", "Value": sid},
                {"Key": "aws:cloudformation:logical-id", "Value": logical},
            ],
        )
        kind = next(
            (t for prefix, t in _RESOURCE_TYPES.items() if resource.startswith(prefix)),
            "AWS::EKS::Cluster"
            if resource.startswith("arn:aws:eks:")
            else "AWS::SageMaker::Cluster",
        )
        information: Json = {"StackResourceDriftStatus": drift}
        if checked is not None:
            information["LastCheckTimestamp"] = base.iso(checked)
        world.stack_resources[(stack, logical)] = {
            "StackName": stack,
            "StackId": sid,
            "LogicalResourceId": logical,
            "PhysicalResourceId": _physical_id(resource),
            "ResourceType": kind,
            "LastUpdatedTimestamp": base.iso(base.RECORDED_AT - timedelta(days=10)),
            "ResourceStatus": "CREATE_COMPLETE",
            "DriftInformation": information,
        }


def _physical_id(resource: str) -> str:
    """What the stack records as the resource: the id for EC2, the ARN for a HyperPod
    cluster, the name for an EKS cluster (the value each resource type's Ref returns, per
    the CloudFormation template reference; the HyperPod one is not verified here, and the
    owner lookup accepts the cluster's name or ARN either way)."""
    if resource.startswith("arn:aws:eks:"):
        return resource.rsplit("/", 1)[-1]
    return resource


def tag(world: World, resource: str, key: str, value: str) -> None:
    """One user tag on a resource (a Terraform or Pulumi convention, say)."""
    _add_tags(world, resource, [{"Key": key, "Value": value}])
