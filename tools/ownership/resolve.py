"""Who manages the resources a suggestion would change, read from the cluster lazily.

`Owners(data).of(resource)` looks the resource up in what the triage has read (the
cluster's security groups and subnets carry their tags in the Describe answers already
read), reads what is missing (a VPC's tags, the HyperPod cluster's ListTags, the EKS
cluster's DescribeCluster) and, for a CloudFormation-tagged one, the stack's record
(DescribeStackResource) — each at most once per run, through the read-only session, so a
recorded cluster answers from the recording or fails loudly ("not recorded"), which
becomes an unknown or unconfirmed owner that says so, never a crash.

`cluster_owners(data)` reads the owner of every infrastructure resource the cluster uses,
so that `record` (and the simulator's build) capture those calls for a replay.
"""

from __future__ import annotations

from collections.abc import Callable

from tools.aws.errors import AccessDenied, AwsAccessError, NotRecorded
from tools.ownership.model import IacOwner
from tools.ownership.rules import cloudformation_claim, confirm, owner_from_tags, unconfirmed
from tools.text import clip
from tools.triage.data import ClusterData
from tools.triage.data.ownership_model import Tags


def _why(error: AwsAccessError) -> str:
    if isinstance(error, NotRecorded):
        return f"{error.action} not recorded"
    if isinstance(error, AccessDenied):
        return f"{error.action} denied (AccessDenied)"
    return clip(error.reason, 160)


class Owners:
    """The owners of one cluster's resources, each resolved once."""

    def __init__(self, data: ClusterData) -> None:
        self.data = data
        self._known: dict[str, IacOwner | None] = {}

    def of(self, resource: str) -> IacOwner | None:
        """The owner of ``resource``, or None when it is not a resource this looks up
        (an instance, a node, a pod: their state is not held in templates)."""
        if resource not in self._known:
            self._known[resource] = self._resolve(resource)
        return self._known[resource]

    def _resolve(self, resource: str) -> IacOwner | None:
        read = self._tags_reader(resource)
        if read is None:
            return None
        try:
            tags, aliases = read()
        except AwsAccessError as error:
            return IacOwner(resource=resource, manager="unknown", note=_why(error))
        owner = owner_from_tags(resource, tags)
        claim = cloudformation_claim(tags)
        if claim is None:
            return owner
        try:
            record = self.data.stack_resource(*claim)
        except AwsAccessError as error:
            return unconfirmed(owner, _why(error))
        return confirm(owner, record, aliases)

    def _tags_reader(self, resource: str) -> Callable[[], tuple[Tags, frozenset[str]]] | None:
        """How to read the tags of ``resource`` (and the names it goes by), or None."""
        data = self.data
        if resource.startswith("sg-"):
            return lambda: (self._group_tags(resource), frozenset({resource}))
        if resource.startswith("subnet-"):
            return lambda: (self._subnet_tags(resource), frozenset({resource}))
        if resource.startswith("vpc-"):
            return lambda: (data.vpc_tags(resource), frozenset({resource}))
        try:
            cluster = data.cluster()
        except AwsAccessError:
            return None
        names = {cluster.name, cluster.arn} - {""}
        if resource in names:
            arn = cluster.arn
            return lambda: (data.sagemaker_tags(arn), frozenset(names))
        eks_arn = cluster.eks_cluster_arn
        if eks_arn and resource in (eks_arn, eks_arn.rsplit("/", 1)[-1]):
            return lambda: self._eks_tags(eks_arn)
        return None

    def _group_tags(self, group_id: str) -> Tags:
        data = self.data
        # The batch triage read, so a replay finds the call it recorded.
        found = data.optional(
            lambda: data.existing_security_groups(data.cluster_security_group_ids())
        )
        for group in found[0] if found else ():
            if group.group_id == group_id:
                return group.tags
        groups, _missing = data.existing_security_groups([group_id])
        return groups[0].tags if groups else ()

    def _subnet_tags(self, subnet_id: str) -> Tags:
        data = self.data
        found = data.optional(lambda: data.existing_subnets(data.cluster_subnet_ids()))
        for subnet in found[0] if found else ():
            if subnet.subnet_id == subnet_id:
                return subnet.tags
        subnets, _missing = data.existing_subnets([subnet_id])
        return subnets[0].tags if subnets else ()

    def _eks_tags(self, arn: str) -> tuple[Tags, frozenset[str]]:
        cluster = self.data.eks_cluster()
        if cluster is None:
            # In another account or Region: not readable with these credentials.
            raise AwsAccessError("eks", "DescribeCluster", "the EKS cluster is not readable here")
        return cluster.tags, frozenset({arn, cluster.name})

    def cluster_resources(self) -> list[str]:
        """The infrastructure the cluster uses: its security groups, subnets and their
        VPCs, the HyperPod cluster, and the EKS cluster."""
        data = self.data
        ids: list[str] = []
        try:
            cluster = data.cluster()
        except AwsAccessError:
            return ids
        ids += data.cluster_security_group_ids() + data.cluster_subnet_ids()
        subnets = data.optional(lambda: data.existing_subnets(data.cluster_subnet_ids()))
        ids += sorted({s.vpc_id for s in (subnets[0] if subnets else ()) if s.vpc_id})
        ids.append(cluster.arn or cluster.name)
        if cluster.eks_cluster_arn:
            ids.append(cluster.eks_cluster_arn)
        return list(dict.fromkeys(i for i in ids if i))


def cluster_owners(data: ClusterData) -> list[IacOwner]:
    """The owner of every infrastructure resource the cluster uses (see
    `Owners.cluster_resources`); each read through the guarded session, so `record`
    captures them."""
    owners = Owners(data)
    return [o for r in owners.cluster_resources() if (o := owners.of(r)) is not None]
