"""Inputs that used to end in a traceback or a silently wrong report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from agent.cli import app
from agent.commands.common import resolve_region
from tools.recorded.model import load_recorded
from tools.recorded.recorder import Recorder

CLUSTERS = Path(__file__).resolve().parents[2] / "evals" / "clusters"
ARN = "arn:aws:sagemaker:us-west-2:111122223333:cluster/a1b2c3d4e5f6"


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def test_the_arn_region_beats_an_environment_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    assert resolve_region(None, ARN) == "us-west-2"
    assert resolve_region(None, "plain-name") == "us-east-1"
    assert resolve_region("eu-west-1", "plain-name") == "eu-west-1"


def test_replay_refuses_a_region_the_recording_was_not_made_in() -> None:
    result = run(
        "triage", "--recorded", str(CLUSTERS / "healthy-eks.json"), "--region", "us-east-1"
    )
    assert result.exit_code == 2
    assert "was recorded in us-west-2" in result.stderr


def test_replay_ignores_the_environment_region(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-central-1")
    result = run("triage", "--recorded", str(CLUSTERS / "healthy-eks.json"), "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["cluster"]["region"] == "us-west-2"


@pytest.mark.parametrize("stamp", ["yesterday", "2026-11-20T12:00:00", "2026-13-40T00:00:00Z"])
def test_a_bad_recording_time_is_a_usage_error(tmp_path: Path, stamp: str) -> None:
    data = json.loads((CLUSTERS / "healthy-eks.json").read_text())
    data["recorded_at"] = stamp
    path = tmp_path / "bad-time.json"
    path.write_text(json.dumps(data))
    result = run("triage", "--recorded", str(path))
    assert result.exit_code == 2
    assert "recorded_at" in result.stderr
    assert "Traceback" not in result.output


def test_a_failing_credential_process_is_a_credentials_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    config.write_text("[profile broken]\ncredential_process = /bin/false\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    result = run("triage", "--cluster", "c", "--region", "us-west-2", "--profile", "broken")
    assert result.exit_code == 1, result.output
    assert "Fix your AWS credentials and re-run." in result.stderr
    assert "Traceback" not in result.output


def test_a_malformed_aws_config_is_a_credentials_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    config.write_text("[profile broken\nregion = us-west-2\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    result = run("triage", "--cluster", "c", "--region", "us-west-2", "--profile", "broken")
    assert result.exit_code == 1, result.output
    assert "Fix your AWS credentials and re-run." in result.stderr


def test_recordings_drop_the_caller_identity_and_list_denied_apis() -> None:
    recorder = Recorder()
    recorder.record_response(
        "sts",
        "GetCallerIdentity",
        {},
        {"Account": "111122223333", "UserId": "AROA1:jane@example.com", "Arn": "arn:x:jane"},
    )
    recorder.record_error(
        "ec2",
        "DescribeSubnets",
        {"SubnetIds": ["subnet-1"]},
        code="UnauthorizedOperation",
        message="no",
        status=403,
    )
    recording = recorder.build(cluster="c", region="us-west-2")
    text = recording.model_dump_json()
    assert "jane" not in text
    assert [(u.kind, u.what) for u in recording.unavailable] == [("api", "ec2:DescribeSubnets")]


def test_bundled_recordings_still_load() -> None:
    for path in CLUSTERS.glob("*.json"):
        assert load_recorded(path).recorded_at.endswith("Z")


def test_record_refuses_an_unwritable_output_before_triage(tmp_path: Path) -> None:
    result = run("record", "--cluster", "c", "--region", "us-west-2", "-o", str(tmp_path))
    assert result.exit_code == 2
    assert "is a directory" in result.stderr


def test_credentials_that_expire_mid_run_exit_1(tmp_path: Path) -> None:
    from tools.recorded.model import RecordedCall, RecordedError

    recording = load_recorded(CLUSTERS / "healthy-eks.json")
    expired = [
        c
        if c.operation != "DescribeSecurityGroups"
        else RecordedCall(
            service=c.service,
            operation=c.operation,
            params=c.params,
            error=RecordedError(code="ExpiredToken", message="token expired", http_status=400),
        )
        for c in recording.aws
    ]
    path = tmp_path / "expired.json"
    path.write_text(recording.model_copy(update={"aws": expired}).model_dump_json())
    result = run("triage", "--recorded", str(path))
    assert result.exit_code == 1, result.output
    assert "Fix your AWS credentials and re-run." in result.stderr


@pytest.mark.parametrize(
    ("value", "message"),
    [("5x", "is not a duration"), ("fast", "is not a duration"), ("11s", "at most 10s")],
)
def test_simulated_latency_must_be_a_sensible_duration(value: str, message: str) -> None:
    result = run(
        "triage", "--recorded", str(CLUSTERS / "healthy-eks.json"), "--simulate-latency", value
    )
    assert result.exit_code == 2
    assert message in result.stderr


def test_simulated_latency_applies_to_replays_only() -> None:
    result = run("triage", "--cluster", "c", "--region", "us-west-2", "--simulate-latency", "5ms")
    assert result.exit_code == 2
    assert "--recorded" in result.stderr


def test_simulated_latency_changes_nothing_in_the_report() -> None:
    plain = run("triage", "--recorded", str(CLUSTERS / "healthy-eks.json"), "-f", "json")
    slowed = run(
        "triage",
        "--recorded",
        str(CLUSTERS / "healthy-eks.json"),
        "-f",
        "json",
        "--simulate-latency",
        "1ms",
    )
    assert plain.exit_code == slowed.exit_code == 0
    assert json.loads(plain.stdout) == json.loads(slowed.stdout)
