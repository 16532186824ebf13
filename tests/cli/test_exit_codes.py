"""The CLI contract end to end: exit codes, messages on stderr, JSON keys, colour policy.

Exit 0 = triage completed (whatever it found), 1 = cluster not found or credentials
unusable, 2 = bad arguments. Most runs go through typer's CliRunner on the real app;
a few go through the installed `hyperpod-debug` script in a subprocess (help, a pty for
the colour policy). Live runs talk to the in-process moto server via AWS_ENDPOINT_URL,
which botocore honours; recorded runs replay a file written to tmp_path.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from agent.cli import app
from tools.findings import Finding, info
from tools.recorded.model import RecordedCluster, dump_recorded, load_recorded
from tools.sections import SECTIONS
from tools.triage.data import ClusterData

REGION = "us-west-2"
ACCOUNT = "111122223333"
CLUSTER_ID = "abcdef123456"
SG = "sg-0123456789abcdef0"
ANSI = re.compile(r"\x1b\[")
SCRIPT = Path(sys.executable).with_name("hyperpod-debug")

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


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "hp.json"
    dump_recorded(recording(), path)
    return path


# -- a live cluster in moto --------------------------------------------------------------


@pytest.fixture
def no_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's AwsAccess without retries: a moto gap (HTTP 500) answers at once."""
    import tools.triage.session
    from tools.aws.session import AwsAccess

    def access(region: str, **kwargs: Any) -> AwsAccess:
        return AwsAccess(region, max_attempts=0, **kwargs)

    monkeypatch.setattr(tools.triage.session, "AwsAccess", access)


@pytest.fixture
def live(
    moto_server: str, moto_client: MotoClient, monkeypatch: pytest.MonkeyPatch, no_retries: None
) -> str:
    """A cluster `hp` in moto, reachable through AWS_ENDPOINT_URL; returns its SG id."""
    ec2 = moto_client("ec2", REGION)
    vpc = ec2.create_vpc(CidrBlock="10.2.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.2.1.0/24")["Subnet"]["SubnetId"]
    sg = ec2.create_security_group(GroupName="hp", Description="hp", VpcId=vpc)["GroupId"]
    rule = [{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": sg}]}]
    ec2.authorize_security_group_ingress(GroupId=sg, IpPermissions=rule)
    ec2.authorize_security_group_egress(GroupId=sg, IpPermissions=rule)
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


# -- exit 0 ------------------------------------------------------------------------------


def test_live_triage_completes_with_exit_0(live: str) -> None:
    result = run("triage", "--cluster", "hp", "--region", REGION, "--format", "json")
    assert_clean_exit(result, 0)
    report = json.loads(result.stdout)
    assert report["cluster"]["name"] == "hp"
    assert report["cluster"]["region"] == REGION
    assert report["recorded"] is False
    efa = [f for f in report["findings"] if f["check"] == "efa-security-groups"]
    assert [(f["status"], f["resources"]) for f in efa] == [("PASS", [live])]


def test_recorded_triage_with_failures_still_exits_0(recorded: Path) -> None:
    result = run("triage", "--recorded", str(recorded))
    assert_clean_exit(result, 0)
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"HyperPod triage: hp ({REGION}, EKS) id={CLUSTER_ID}")
    assert lines[0].endswith("[recorded]")
    fail = next(line for line in lines if line.startswith("[FAIL]"))
    assert fail.startswith(f"[FAIL] P0 Security group {SG} lacks the all-traffic outbound rule")
    assert fail.endswith("→ references/node-diagnostics-detail.md § A")
    assert any(line.startswith("Summary: ") for line in lines)
    assert "not recorded:" in result.stdout  # what could not run is listed, not hidden


def test_json_report_matches_the_contract(recorded: Path) -> None:
    result = run("triage", "--recorded", str(recorded), "--format", "json")
    assert_clean_exit(result, 0)
    report = json.loads(result.stdout)
    assert {"cluster", "findings", "summary", "skipped"} <= set(report)
    assert report["cluster"] == {
        "name": "hp",
        "arn": f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/{CLUSTER_ID}",
        "id": CLUSTER_ID,
        "region": REGION,
        "orchestrator": "eks",
        "account": ACCOUNT,
    }
    assert report["findings"]
    keys = {"check", "status", "priority", "section", "message", "reference", "resources"}
    for finding in report["findings"]:
        assert keys | {"evidence"} <= set(finding)
        assert finding["status"] in {"PASS", "FAIL", "WARN", "INFO"}
        assert finding["section"] in SECTIONS
        anchor = SECTIONS[finding["section"]].anchor
        assert finding["reference"] == f"references/node-diagnostics-detail.md#{anchor}"
        assert isinstance(finding["resources"], list)
        assert isinstance(finding["evidence"], dict)
        if finding["status"] in {"FAIL", "WARN"}:
            assert finding["priority"] in {"P0", "P1", "P2"}
    fail = next(f for f in report["findings"] if f["status"] == "FAIL")
    assert (fail["check"], fail["priority"], fail["section"]) == ("efa-security-groups", "P0", "A")
    assert fail["resources"] == [SG]
    # The evidence names what the rule judged: here, the SG's missing outbound self rule.
    assert fail["evidence"]["missing_self_rules"] == {SG: ["outbound"]}
    counts = report["summary"]["by_status"]
    assert sum(counts.values()) == len(report["findings"])
    assert counts["FAIL"] == len([f for f in report["findings"] if f["status"] == "FAIL"])
    assert report["summary"]["by_priority"]["P0"] >= 1
    for skip in report["skipped"]:
        assert set(skip) == {"check", "reason", "hint"}
        assert skip["reason"]


def test_unknown_node_does_not_crash(recorded: Path) -> None:
    result = run(
        "triage", "--recorded", str(recorded), "--node", "i-0123456789abcdef0", "-f", "json"
    )
    assert_clean_exit(result, 0)
    assert json.loads(result.stdout)["node"] == "i-0123456789abcdef0"


def test_checks_json_lists_the_registry() -> None:
    from tools.registry import all_checks

    result = run("checks", "--json")
    assert_clean_exit(result, 0)
    rows = json.loads(result.stdout)
    assert [row["id"] for row in rows] == [spec.id for spec in all_checks()]
    assert len({row["id"] for row in rows}) == len(rows)
    assert {"cluster-status", "efa-security-groups"} <= {row["id"] for row in rows}
    for row in rows:
        assert set(row) == {"id", "section", "title", "description", "orchestrators"}
        assert row["section"] in SECTIONS
        assert row["title"]
        assert set(row["orchestrators"]) <= {"eks", "slurm"}
        assert row["orchestrators"]


# -- record → replay through the CLI ------------------------------------------------------


def _log_window_probe(data: ClusterData) -> Iterable[Finding]:
    events = data.log_events(
        "SagemakerHealthMonitoringAgent/", "HealthMonitoringAgentDetectionEvent"
    )
    yield info("probe-log-window", "F.3", f"{len(events)} detections in the last week")


def test_record_then_replay_gives_the_same_report(
    live: str, moto_client: MotoClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Includes a time-windowed call (FilterLogEvents startTime/endTime): the recording's
    clock must be the one the triage used, or replay finds the call 'not recorded'."""
    import tools.registry
    from tools.registry import CheckSpec

    tools.registry.all_checks()
    spec = CheckSpec(
        id="probe-log-window",
        section="F.3",
        title="probe",
        description="probe",
        run=_log_window_probe,
    )
    monkeypatch.setitem(tools.registry._REGISTRY, spec.id, spec)
    logs = moto_client("logs", REGION)
    group = "/aws/sagemaker/Clusters/hp/hp"
    logs.create_log_group(logGroupName=group)
    stream = "SagemakerHealthMonitoringAgent/workers/workers-0"
    logs.create_log_stream(logGroupName=group, logStreamName=stream)
    logs.put_log_events(
        logGroupName=group,
        logStreamName=stream,
        logEvents=[
            {
                "timestamp": int(time.time() * 1000) - 60_000,
                "message": "HealthMonitoringAgentDetectionEvent XidHardwareFailure",
            }
        ],
    )
    path = tmp_path / "live.json"
    recorded = run("record", "--cluster", "hp", "--region", REGION, "-o", str(path))
    assert_clean_exit(recorded, 0)
    assert recorded.stdout.startswith("Recorded ")
    assert str(path) in recorded.stdout
    live_report = json.loads(run("triage", "-c", "hp", "-r", REGION, "-f", "json").stdout)

    monkeypatch.delenv("AWS_ENDPOINT_URL")  # replay must not need the server
    replay = run("triage", "--recorded", str(path), "--format", "json")
    assert_clean_exit(replay, 0)
    replay_report = json.loads(replay.stdout)
    assert replay_report["recorded"] is True
    for key in ("cluster", "findings", "skipped", "summary"):
        assert replay_report[key] == live_report[key], key
    probe = [f for f in replay_report["findings"] if f["check"] == "probe-log-window"]
    assert [f["message"] for f in probe] == ["1 detections in the last week"]
    assert load_recorded(path).cluster == "hp"


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


# -- through the installed script ----------------------------------------------------------


def script_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"NO_COLOR", "FORCE_COLOR"}}
    env.update(extra)
    return env


def test_help_through_the_installed_script() -> None:
    done = subprocess.run(
        [str(SCRIPT), "--help"],
        check=False,
        capture_output=True,
        text=True,
        env=script_env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    for command in ("triage", "record", "checks"):
        assert command in done.stdout
    assert done.stderr == ""


def run_in_pty(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run the script with stdout on a pseudo-terminal; return exit code and stdout."""
    main, secondary = pty.openpty()
    process = subprocess.Popen(
        [str(SCRIPT), *args],
        stdin=subprocess.DEVNULL,
        stdout=secondary,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    return process.wait(timeout=60), b"".join(chunks).decode()


def test_colour_only_on_a_terminal_and_never_when_disabled(recorded: Path) -> None:
    args = ["triage", "--recorded", str(recorded)]
    code, tty = run_in_pty(args, script_env())
    assert code == 0
    assert "[FAIL]" in ANSI.sub("", re.sub(r"\x1b\[[0-9;]*m", "", tty))
    assert ANSI.search(tty), "control: a terminal gets colour"

    code, no_color_env = run_in_pty(args, script_env(NO_COLOR="1"))
    assert code == 0
    assert "[FAIL]" in no_color_env
    assert not ANSI.search(no_color_env)

    code, no_color_flag = run_in_pty([*args, "--no-color"], script_env())
    assert code == 0
    assert "[FAIL]" in no_color_flag
    assert not ANSI.search(no_color_flag)

    piped = subprocess.run(
        [str(SCRIPT), *args],
        check=False,
        capture_output=True,
        text=True,
        env=script_env(),
        timeout=60,
    )
    assert piped.returncode == 0
    assert "[FAIL]" in piped.stdout
    assert not ANSI.search(piped.stdout)
    assert not ANSI.search(piped.stderr)
