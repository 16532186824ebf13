"""The read-only allow-list: the only AWS operations hyperpod-debug may send.

Keyed by the boto3 client name and the API operation name. Everything here is a read
(Describe/List/Get/Filter). ssm:StartSession is deliberately absent: a session can run any
command on a node, so it may only come with the node-level probes, behind a guard that
checks the command against their fixed catalogue.
"""

from __future__ import annotations

READ_ONLY_OPERATIONS: frozenset[tuple[str, str]] = frozenset(
    {
        ("sts", "GetCallerIdentity"),
        ("sagemaker", "DescribeCluster"),
        ("sagemaker", "DescribeClusterNode"),
        ("sagemaker", "ListClusterNodes"),
        ("sagemaker", "ListClusterEvents"),
        ("sagemaker", "DescribeClusterEvent"),
        ("sagemaker", "ListClusters"),
        ("eks", "DescribeCluster"),
        ("ec2", "DescribeSecurityGroups"),
        ("ec2", "DescribeSubnets"),
        ("ec2", "DescribeVpcs"),
        ("ec2", "DescribeVpcAttribute"),
        ("ec2", "DescribeVpcEndpoints"),
        ("ec2", "DescribeRouteTables"),
        ("ec2", "DescribeNetworkInterfaces"),
        ("ec2", "DescribeInstances"),
        ("ec2", "DescribeInstanceTypeOfferings"),
        ("ec2", "DescribeInstanceTypes"),
        ("logs", "DescribeLogGroups"),
        ("logs", "DescribeLogStreams"),
        ("logs", "FilterLogEvents"),
        ("iam", "ListAttachedRolePolicies"),
        ("iam", "ListRolePolicies"),
        ("iam", "GetRolePolicy"),
        ("iam", "GetPolicy"),
        ("iam", "GetPolicyVersion"),
        ("service-quotas", "GetServiceQuota"),
    }
)

# boto3 client name -> IAM action prefix, for messages and the generated IAM policy.
IAM_PREFIX: dict[str, str] = {
    "sts": "sts",
    "sagemaker": "sagemaker",
    "eks": "eks",
    "ec2": "ec2",
    "logs": "logs",
    "iam": "iam",
    "ssm": "ssm",
    "service-quotas": "servicequotas",
}


def iam_action(service: str, operation: str) -> str:
    return f"{IAM_PREFIX.get(service, service)}:{operation}"


def is_allowed(service: str, operation: str) -> bool:
    return (service, operation) in READ_ONLY_OPERATIONS


def iam_policy_document() -> dict[str, object]:
    """The least-privilege IAM policy for triage (sts:GetCallerIdentity needs no grant)."""
    actions = sorted(
        iam_action(service, operation)
        for service, operation in READ_ONLY_OPERATIONS
        if service != "sts"
    )
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "HyperPodDebugReadOnly", "Effect": "Allow", "Action": actions, "Resource": "*"}
        ],
    }
