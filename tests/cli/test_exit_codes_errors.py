"""The CLI contract end to end, exit 1 and 2: messages on stderr, never a traceback.

Exit 1 = cluster not found or credentials unusable, 2 = bad arguments or a malformed
recorded file. Helpers in _cli_support.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.recorded.model import RecordedCluster, dump_recorded

from ._cli_support import (
    ACCOUNT,
    CLUSTER_ID,
    REGION,
    MotoClient,
    assert_clean_exit,
    create_cluster,
    recording,
    run,
)

# -- exit 1 ------------------------------------------------------------------------------


def test_sts_failure_in_a_recording_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "expired.json"
    error = {"code": "ExpiredToken", "message": "The security token expired", "http_status": 403}
    dump_recorded(recording(sts_error=error), path)
    result = run("triage", "--recorded", str(path))
    assert_clean_exit(result, 1)
    assert result.stdout == ""
    assert "ExpiredToken" in result.stderr
    assert result.stderr.rstrip().endswith("Fix your AWS credentials and re-run.")


@pytest.mark.usefixtures("no_aws_credentials")
def test_no_credentials_at_all_exits_1(live: str) -> None:
    result = run("triage", "--cluster", "hp", "--region", REGION)
    assert_clean_exit(result, 1)
    assert "Unable to locate credentials" in result.stderr
    assert "Fix your AWS credentials and re-run." in result.stderr


def test_unknown_profile_exits_1_without_traceback(live: str) -> None:
    result = run("triage", "--cluster", "hp", "--region", REGION, "--profile", "nope")
    assert_clean_exit(result, 1)
    assert "nope" in result.stderr
    assert "Fix your AWS credentials and re-run." in result.stderr


def test_replay_ignores_a_stale_aws_profile(
    recorded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recorded cluster replays with no AWS configuration at all, whatever AWS_PROFILE says."""
    monkeypatch.setenv("AWS_PROFILE", "does-not-exist")
    result = run("triage", "--recorded", str(recorded), "-f", "json")
    assert_clean_exit(result, 0)
    assert json.loads(result.stdout)["cluster"]["id"] == CLUSTER_ID


def test_cluster_not_found_lists_the_clusters_in_the_region(
    live: str, moto_client: MotoClient
) -> None:
    ec2 = moto_client("ec2", REGION)
    subnet = ec2.describe_subnets()["Subnets"][0]["SubnetId"]
    create_cluster(moto_client, "alpha", live, subnet)
    result = run("triage", "--cluster", "nope", "--region", REGION)
    assert_clean_exit(result, 1)
    assert result.stdout == ""
    assert "'nope' not found in us-west-2" in result.stderr
    assert f"Clusters in {REGION}: alpha, hp" in result.stderr
    assert result.stderr.rstrip().endswith("Confirm the cluster name and region.")


def test_cluster_not_found_in_an_empty_region(live: str) -> None:
    result = run("triage", "--cluster", "hp", "--region", "eu-west-1")
    assert_clean_exit(result, 1)
    assert "No HyperPod clusters are visible in eu-west-1." in result.stderr
    assert "Confirm the cluster name and region." in result.stderr


def test_cluster_not_found_when_listing_is_denied_says_why(tmp_path: Path) -> None:
    from tools.recorded.model import RecordedCall, RecordedError

    wrong = recording()
    wrong.aws = [
        RecordedCall(
            service="sagemaker",
            operation="DescribeCluster",
            params={"ClusterName": "no-such-cluster"},
            error=RecordedError(code="ResourceNotFound", message="Cluster not found"),
        ),
        RecordedCall(
            service="sagemaker",
            operation="ListClusters",
            error=RecordedError(code="AccessDeniedException", http_status=403),
        ),
    ]
    path = tmp_path / "wrong.json"
    dump_recorded(wrong, path)
    result = run("triage", "--recorded", str(path), "--cluster", "no-such-cluster")
    assert_clean_exit(result, 1)
    assert "Missing IAM permission for sagemaker:ListClusters" in result.stderr
    assert "Confirm the cluster name and region." in result.stderr


def test_describe_cluster_denied_exits_1(tmp_path: Path) -> None:
    broken = recording()
    broken.aws[1].response = None
    broken.aws[1].error = (
        RecordedCluster.model_validate(
            {
                "recorded_at": "2026-01-01T00:00:00Z",
                "cluster": "x",
                "region": REGION,
                "aws": [
                    {
                        "service": "sagemaker",
                        "operation": "DescribeCluster",
                        "error": {"code": "AccessDeniedException", "http_status": 403},
                    }
                ],
            }
        )
        .aws[0]
        .error
    )
    path = tmp_path / "denied.json"
    dump_recorded(broken, path)
    result = run("triage", "--recorded", str(path))
    assert_clean_exit(result, 1)
    assert "Missing IAM permission for sagemaker:DescribeCluster" in result.stderr


# -- exit 2 ------------------------------------------------------------------------------

ARN_EAST = f"arn:aws:sagemaker:us-east-1:{ACCOUNT}:cluster/{CLUSTER_ID}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cluster", "bad_name!", "--region", REGION], "is neither a cluster name"),
        (["--cluster", "-" * 70, "--region", REGION], "is neither a cluster name"),
        (["--cluster", "hp", "--region", "uswest2"], "is not an AWS region name"),
        (["--cluster", "hp", "--region", "US-WEST-2"], "is not an AWS region name"),
        (["--cluster", "hp", "--region", REGION, "--node", "i-xyz"], "is not an EC2 instance id"),
        (["--cluster", "hp", "--region", REGION, "--node", "node-1"], "is not an EC2 instance id"),
        (["--cluster", ARN_EAST, "--region", REGION], "ARN is in us-east-1 but --region is"),
        (["--cluster", "hp"], "a region is required"),
        (["--region", REGION], "--cluster is required"),
        (
            ["--cluster", "hp", "--region", REGION, "--format", "xml"],
            "Invalid value for '--format'",
        ),
        (["--cluster", "hp", "--region", REGION, "--colour"], "No such option"),
    ],
    ids=[
        "bad-name",
        "name-too-long",
        "bad-region",
        "upper-case-region",
        "bad-instance-id",
        "node-name-not-id",
        "arn-region-mismatch",
        "missing-region",
        "missing-cluster",
        "unknown-format",
        "unknown-option",
    ],
)
def test_bad_arguments_exit_2(args: list[str], message: str) -> None:
    result = run("triage", *args)
    assert_clean_exit(result, 2)
    assert message in result.stderr
    assert result.stdout == ""


def test_region_from_the_environment_and_the_arn(
    recorded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Control for missing-region: the same arguments work once a region is known."""
    result = run("triage", "--cluster", "hp", "--recorded", str(recorded), "-f", "json")
    assert_clean_exit(result, 0)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    from agent.commands.common import resolve_region

    assert resolve_region(None, "hp") == "eu-west-1"
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    assert resolve_region(None, ARN_EAST) == "us-east-1"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON (line 1, column 2"),
        ("", "is not valid JSON"),
        ('{"format": "something-else", "version": 1}', "is not a valid recorded cluster"),
        ('{"recorded_at": "x", "cluster": "hp", "region": "us-west-2", "aws": [{}]}', "aws.0"),
        ("[1, 2, 3]", "is not a valid recorded cluster"),
        (None, "recorded cluster file not found"),
    ],
    ids=["not-json", "empty", "wrong-format", "bad-call", "not-an-object", "missing-file"],
)
def test_malformed_recorded_file_exits_2(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "broken.json"
    if content is not None:
        path.write_text(content)
    result = run("triage", "--recorded", str(path))
    assert_clean_exit(result, 2)
    assert message in result.stderr
    assert str(path) in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["--cluster", "bad_name!", "--region", REGION],
        ["--cluster", "hp"],
        ["--cluster", "hp", "--region", REGION, "--node", "i-xyz"],
    ],
)
def test_record_bad_arguments_exit_2(tmp_path: Path, args: list[str]) -> None:
    result = run("record", "-o", str(tmp_path / "out.json"), *args)
    assert_clean_exit(result, 2)
    assert not (tmp_path / "out.json").exists()
