"""The read-only allow-list: the only AWS operations hyperpod-debug may send.

Keyed by the boto3 client name and the API operation name. Everything here is a read
(Describe/List/Get/Filter) except the two SSM session operations of the node probes. A
session can run any command on a node, so those two pass only with exact parameters
(`tools.aws.ssm_guard`): StartSession with the AWS-StartNonInteractiveCommand document, a
HyperPod node target and a command that is byte for byte a bundle of catalogued read-only
probes; TerminateSession with the id of a session this run started, alone.
ssm:SendCommand stays out (it does not work on HyperPod targets, and it would run
arbitrary documents).
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
        # Scaling and deep-health-check operations (botocore marks both readonly).
        # StartClusterHealthCheck stays out: it starts checks that take nodes out of
        # service and may reboot or replace them; it is only ever suggested as text.
        ("sagemaker", "ListClusterOperations"),
        ("sagemaker", "DescribeClusterOperation"),
        ("sagemaker", "ListClusters"),
        ("eks", "DescribeCluster"),
        ("ec2", "DescribeSecurityGroups"),
        ("ec2", "DescribeSubnets"),
        ("ec2", "DescribeVpcs"),
        ("ec2", "DescribeVpcAttribute"),
        ("ec2", "DescribeVpcEndpoints"),
        # The names of the prefix lists a security-group rule sends to (com.amazonaws.<region>.s3
        # is AWS's own S3 list): read only for lists no gateway-endpoint route names.
        ("ec2", "DescribeManagedPrefixLists"),
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
        # Who manages a resource a suggestion would change (tools/ownership): a HyperPod
        # cluster's tags, and CloudFormation's record of the stack resource its
        # aws:cloudformation:* tags name, with the last drift status. DetectStackDrift stays
        # out: it starts a drift detection in the account; only its last result is read.
        ("sagemaker", "ListTags"),
        ("cloudformation", "DescribeStackResource"),
        # Node probes only, behind the parameter guard in tools/aws/ssm_guard.py.
        ("ssm", "StartSession"),
        ("ssm", "TerminateSession"),
    }
)

# Allowed operations that are not reads: each has a parameter guard in ssm_guard.py.
SESSION_OPERATIONS: frozenset[tuple[str, str]] = frozenset(
    {("ssm", "StartSession"), ("ssm", "TerminateSession")}
)

# The calls botocore's own credential providers make to obtain credentials (a role
# profile's sts:AssumeRole, web identity, IAM Identity Center, the SSO token refresh and
# `aws login`'s token refresh). They are NOT on the read-only allow-list: the guarded
# session refuses them like any other operation. Only the separate credential session of
# tools/aws/credentials.py may send them, and it may send nothing else; no tool, check or
# agent path can reach that session.
CREDENTIAL_OPERATIONS: frozenset[tuple[str, str]] = frozenset(
    {
        ("sts", "AssumeRole"),
        ("sts", "AssumeRoleWithWebIdentity"),
        ("sso", "GetRoleCredentials"),
        ("sso-oidc", "CreateToken"),
        ("signin", "CreateOAuth2Token"),
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
    "cloudformation": "cloudformation",
}


def iam_action(service: str, operation: str) -> str:
    return f"{IAM_PREFIX.get(service, service)}:{operation}"


def is_allowed(service: str, operation: str) -> bool:
    return (service, operation) in READ_ONLY_OPERATIONS


def iam_policy_document() -> dict[str, object]:
    """The least-privilege IAM policy for triage (sts:GetCallerIdentity needs no grant).

    The reads go to every resource; the node-probe session is granted on HyperPod clusters
    and on the one non-interactive session document only, with the session-document check
    on, so these credentials cannot open an interactive shell (see docs/iam-policy.md)."""
    actions = sorted(
        iam_action(service, operation)
        for service, operation in READ_ONLY_OPERATIONS
        if service != "sts" and (service, operation) not in SESSION_OPERATIONS
    )
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "HyperPodDebugReadOnly", "Effect": "Allow", "Action": actions, "Resource": "*"},
            {
                "Sid": "HyperPodDebugNodeProbeSessions",
                "Effect": "Allow",
                "Action": ["ssm:StartSession"],
                "Resource": [
                    "arn:aws:sagemaker:*:*:cluster/*",
                    "arn:aws:ssm:*::document/AWS-StartNonInteractiveCommand",
                ],
                "Condition": {"BoolIfExists": {"ssm:SessionDocumentAccessCheck": "true"}},
            },
            {
                "Sid": "HyperPodDebugEndProbeSessions",
                "Effect": "Allow",
                "Action": ["ssm:TerminateSession"],
                "Resource": "arn:aws:ssm:*:*:session/*",
            },
        ],
    }
