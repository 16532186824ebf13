"""Shared pieces of the CLI contract tests (test_exit_codes_*.py).

Most runs go through typer's CliRunner on the real app (`run`). Live runs talk to the
in-process moto server via AWS_ENDPOINT_URL, which botocore honours (`live_cluster`);
recorded runs replay a hand-made recorded cluster written to tmp_path (`write_recording`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from agent.cli import app
from tools.recorded.model import RecordedCluster, dump_recorded

REGION = "us-west-2"
ACCOUNT = "111122223333"
CLUSTER_ID = "abcdef123456"
SG = "sg-0123456789abcdef0"


MotoClient = Callable[[str, str], Any]


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def assert_clean_exit(result: Result, code: int) -> None:
    """The exit code we expect, raised on purpose (SystemExit), never a traceback."""
    assert result.exit_code == code, result.output
    if code:
        assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output


# -- a hand-made recorded cluster --------------------------------------------------------


def recording(*, sts_error: dict[str, Any] | None = None) -> RecordedCluster:
    """An EKS cluster whose one SG lacks the outbound self rule (a P0 FAIL). Calls the
    checks make beyond these are 'not recorded' and become skips."""
    sts: dict[str, Any] = {"service": "sts", "operation": "GetCallerIdentity", "params": {}}
    if sts_error:
        sts["error"] = sts_error
    else:
        sts["response"] = {
            "Account": ACCOUNT,
            "Arn": f"arn:aws:iam::{ACCOUNT}:user/x",
            "UserId": "X",
        }
    return RecordedCluster.model_validate(
        {
            "recorded_at": "2026-11-20T12:00:00Z",
            "cluster": "hp",
            "region": REGION,
            "aws": [
                sts,
                {
                    "service": "sagemaker",
                    "operation": "DescribeCluster",
                    "params": {"ClusterName": "hp"},
                    "response": {
                        "ClusterArn": f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/{CLUSTER_ID}",
                        "ClusterName": "hp",
                        "ClusterStatus": "InService",
                        "InstanceGroups": [
                            {
                                "InstanceGroupName": "workers",
                                "InstanceType": "ml.p5.48xlarge",
                                "CurrentCount": 2,
                                "TargetCount": 2,
                                "Status": "InService",
                                "ThreadsPerCore": 2,
                            }
                        ],
                        "VpcConfig": {"SecurityGroupIds": [SG], "Subnets": ["subnet-1"]},
                        "Orchestrator": {
                            "Eks": {"ClusterArn": f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/e"}
                        },
                        "NodeRecovery": "Automatic",
                    },
                },
                {
                    "service": "ec2",
                    "operation": "DescribeSecurityGroups",
                    "params": {"GroupIds": [SG]},
                    "response": {
                        "SecurityGroups": [
                            {
                                "GroupId": SG,
                                "IpPermissions": [
                                    {"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": SG}]}
                                ],
                                "IpPermissionsEgress": [
                                    {"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}
                                ],
                            }
                        ]
                    },
                },
            ],
        }
    )


def write_recording(tmp_path: Path) -> Path:
    """`recording()` written to tmp_path (the tests' `recorded` fixture)."""
    path = tmp_path / "hp.json"
    dump_recorded(recording(), path)
    return path


# -- a live cluster in moto --------------------------------------------------------------


def without_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's AwsAccess without retries: a moto gap (HTTP 500) answers at once."""
    import tools.triage.open_cluster
    from tools.aws.session import AwsAccess

    def access(region: str, **kwargs: Any) -> AwsAccess:
        return AwsAccess(region, max_attempts=0, **kwargs)

    monkeypatch.setattr(tools.triage.open_cluster, "AwsAccess", access)


def live_cluster(moto_server: str, moto_client: MotoClient, monkeypatch: pytest.MonkeyPatch) -> str:
    """A cluster `hp` in moto, reachable through AWS_ENDPOINT_URL and asked without
    retries; returns its SG id (the tests' `live` fixture)."""
    without_retries(monkeypatch)
    ec2 = moto_client("ec2", REGION)
    vpc = ec2.create_vpc(CidrBlock="10.2.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.2.1.0/24")["Subnet"]["SubnetId"]
    sg = ec2.create_security_group(GroupName="hp", Description="hp", VpcId=vpc)["GroupId"]
    rule = [{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": sg}]}]
    ec2.authorize_security_group_ingress(GroupId=sg, IpPermissions=rule)
    ec2.authorize_security_group_egress(GroupId=sg, IpPermissions=rule)
    # The default all-traffic egress to 0.0.0.0/0 is what the HyperPod prerequisites ask to
    # avoid on an EFA group: without it the group is exactly as they describe.
    anywhere = [{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]
    ec2.revoke_security_group_egress(GroupId=sg, IpPermissions=anywhere)
    create_cluster(moto_client, "hp", sg, subnet)
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_server)
    return str(sg)


def create_cluster(moto_client: MotoClient, name: str, sg: str, subnet: str) -> None:
    moto_client("sagemaker", REGION).create_cluster(
        ClusterName=name,
        InstanceGroups=[
            {
                "InstanceGroupName": "workers",
                "InstanceType": "ml.p5.48xlarge",
                "InstanceCount": 2,
                "LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-lc/", "OnCreate": "on.sh"},
                "ExecutionRole": "arn:aws:iam::123456789012:role/exec",
                "ThreadsPerCore": 2,  # moto 5.2.5 fails (500) without it
            }
        ],
        VpcConfig={"SecurityGroupIds": [sg], "Subnets": [subnet]},
    )
