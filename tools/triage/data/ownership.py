"""The reads that tell who manages a resource: tags the cluster reads do not already
carry (a VPC's, the HyperPod cluster's) and CloudFormation's record of one stack resource.

Security groups and subnets carry their tags in the Describe answers triage reads anyway
(`network_model`), and the EKS cluster in DescribeCluster (`eks_model`). Every read here is
made once per run (the memo), and only when a suggestion needs the owner or a recording is
made (`tools.ownership.resolve`)."""

from __future__ import annotations

from tools.triage.data.ownership_model import StackResource, Tags, tags_from_api
from tools.triage.data.sagemaker import SageMakerReads

# ListTags pages (MaxResults at least 50, API Reference "ListTags"); a SageMaker resource
# holds at most 50 user tags, plus the aws:* ones, so a few pages are the most there is.
_TAG_PAGES = 5


class OwnershipReads(SageMakerReads):
    def vpc_tags(self, vpc_id: str) -> Tags:
        """ec2:DescribeVpcs ``Vpcs[].Tags`` of one VPC."""

        def fetch() -> Tags:
            answer = self.access.call("ec2", "DescribeVpcs", VpcIds=[vpc_id])
            vpcs = [v for v in answer.get("Vpcs", []) if isinstance(v, dict)]
            return tags_from_api(vpcs[0].get("Tags")) if vpcs else ()

        return self._once(("vpc-tags", vpc_id), fetch)

    def sagemaker_tags(self, arn: str) -> Tags:
        """sagemaker:ListTags(ResourceArn) — request {ResourceArn, NextToken, MaxResults},
        answer {Tags: [{Key, Value}], NextToken} (SageMaker API Reference, "ListTags")."""

        def fetch() -> Tags:
            tags: list[tuple[str, str]] = []
            token: str | None = None
            for _ in range(_TAG_PAGES):
                params: dict[str, str] = {"ResourceArn": arn}
                if token:
                    params["NextToken"] = token
                answer = self.access.call("sagemaker", "ListTags", **params)
                tags.extend(tags_from_api(answer.get("Tags")))
                token = answer.get("NextToken") or None
                if token is None:
                    break
            return tuple(tags)

        return self._once(("sagemaker-tags", arn), fetch)

    def stack_resource(self, stack: str, logical_id: str) -> StackResource:
        """cloudformation:DescribeStackResource(StackName, LogicalResourceId): the stack's
        record of one resource, with the drift status of the last drift check. StackName
        takes a stack name or id; the id also finds a deleted stack (API Reference,
        "DescribeStackResource"). A read: drift detection itself (DetectStackDrift) starts
        work in the account and is never called."""

        def fetch() -> StackResource:
            answer = self.access.call(
                "cloudformation",
                "DescribeStackResource",
                StackName=stack,
                LogicalResourceId=logical_id,
            )
            return StackResource.from_api(answer)

        return self._once(("stack-resource", stack, logical_id), fetch)
