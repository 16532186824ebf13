"""The read-only allow-list: the only AWS operations hyperpod-debug may send.

Keyed by the boto3 client name and the API operation name. Everything here is a read
(Describe/List/Get/Filter) except ssm:StartSession / ssm:TerminateSession, which open and
close the channel the fixed catalogue of read-only node probes travels over.
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
        ("ssm", "StartSession"),
        ("ssm", "TerminateSession"),
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


# An SSM session is only a channel for the fixed catalogue of read-only node probes: the
# non-interactive command document, on a HyperPod node target. An interactive shell or a
# port-forwarding document is refused like any mutating call.
NODE_PROBE_DOCUMENT = "AWS-StartNonInteractiveCommand"
HYPERPOD_TARGET_PREFIX = "sagemaker-cluster:"


def parameter_problem(service: str, operation: str, params: dict[str, object]) -> str | None:
    """Why an allow-listed operation is still refused with these parameters, if it is."""
    if (service, operation) == ("ssm", "StartSession"):
        document = params.get("DocumentName")
        if document != NODE_PROBE_DOCUMENT:
            return f"DocumentName must be {NODE_PROBE_DOCUMENT}, not {document!r}"
        target = str(params.get("Target", ""))
        if not target.startswith(HYPERPOD_TARGET_PREFIX):
            return (
                f"Target must be a {HYPERPOD_TARGET_PREFIX}<cluster-id>_<group>-<instance-id> node"
            )
    return None


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
