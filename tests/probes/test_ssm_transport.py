"""The SSM transport against a fake session-manager-plugin on PATH.

StartSession and TerminateSession go through the real AwsAccess (guard included), answered
by a replay responder; the plugin is a real program (tests/probes/fake_plugin.py) run on
the transport's pseudo-terminal, so the argv, the terminal, the timeout and the framing
are all exercised as they are live.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tools.aws.session import AwsAccess
from tools.probes.framing import build_bundle
from tools.probes.runner import ProbePlan, ProbeRunner
from tools.probes.ssm import TARGET_NOT_CONNECTED, SsmSessionTransport, find_plugin
from tools.probes.transport import NodeUnreachable, ProbeTarget, run_bundle
from tools.recorded.model import RecordedCall, RecordedError

REGION = "us-west-2"
TARGET = ProbeTarget("a1b2c3d4e5f6", "gpu-workers", "i-0123456789abcdef0", "ml.p5.48xlarge")
PROBES = ("disk_usage", "meminfo", "gpu_list")
SESSION = "hpd-user-0a1b2c3d4e5f67890"
TOKEN = "session-token-that-must-stay-out-of-argv"


class Ssm:
    """Answers StartSession / TerminateSession; an error code makes StartSession fail."""

    def __init__(self, error: str | None = None, status: int = 400) -> None:
        self.error = error
        self.status = status
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def respond(self, service: str, operation: str, params: dict[str, Any]) -> RecordedCall:
        self.calls.append((operation, params))
        if operation == "StartSession" and self.error:
            return RecordedCall(
                service=service,
                operation=operation,
                error=RecordedError(code=self.error, message="nope", http_status=self.status),
            )
        response: dict[str, Any] = {"SessionId": SESSION}
        if operation == "StartSession":
            response.update(TokenValue=TOKEN, StreamUrl="wss://ssmmessages.example/stream")
        return RecordedCall(service=service, operation=operation, response=response)

    def operations(self) -> list[str]:
        return [operation for operation, _ in self.calls]


def _transport(ssm: Ssm, *, profile: str | None = "dev") -> SsmSessionTransport:
    access = AwsAccess(REGION, replay=ssm, max_attempts=1)
    path = find_plugin()
    assert path is not None
    return SsmSessionTransport(
        access, path, profile=profile, endpoint_url="https://ssm.us-west-2.amazonaws.com"
    )


def _logged(plugin: Path) -> dict[str, Any]:
    logged: dict[str, Any] = json.loads((plugin.parent.parent / "argv.json").read_text())
    return logged


def test_find_plugin_uses_path(plugin: Path) -> None:
    assert find_plugin() == str(plugin)


def test_probes_come_back_framed_and_the_session_is_terminated(plugin: Path) -> None:
    ssm = Ssm()
    outputs = run_bundle(_transport(ssm), TARGET, PROBES, 20)
    assert set(outputs) == set(PROBES)
    for name in PROBES:
        assert outputs[name].ok
        assert outputs[name].stdout == f"{name} line 1\n{name} line 2"
    assert ssm.operations() == ["StartSession", "TerminateSession"]
    start = ssm.calls[0][1]
    assert start["Target"] == "sagemaker-cluster:a1b2c3d4e5f6_gpu-workers-i-0123456789abcdef0"
    assert start["DocumentName"] == "AWS-StartNonInteractiveCommand"
    assert ssm.calls[1][1] == {"SessionId": SESSION}


def test_the_plugin_is_started_like_the_aws_cli_starts_it(plugin: Path) -> None:
    ssm = Ssm()
    run_bundle(_transport(ssm), TARGET, PROBES, 20)
    logged = _logged(plugin)
    first, region, operation, profile, request, endpoint = logged["argv"]
    # A recent plugin reads the response from the variable named in argv: no token in ps.
    assert first == "AWS_SSM_START_SESSION_RESPONSE"
    assert TOKEN not in " ".join(logged["argv"])
    assert json.loads(logged["env"]) == {
        "SessionId": SESSION,
        "TokenValue": TOKEN,
        "StreamUrl": "wss://ssmmessages.example/stream",
    }
    assert (region, operation, profile) == (REGION, "StartSession", "dev")
    assert json.loads(request) == ssm.calls[0][1]
    assert endpoint == "https://ssm.us-west-2.amazonaws.com"


def test_an_old_plugin_gets_the_response_in_argv(
    plugin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_PLUGIN_VERSION", "1.2.497.0")
    run_bundle(_transport(Ssm(), profile=None), TARGET, PROBES, 20)
    logged = _logged(plugin)
    assert json.loads(logged["argv"][0])["TokenValue"] == TOKEN
    assert logged["argv"][3] == ""  # no profile: an empty string, as the AWS CLI passes
    assert logged["env"] is None


def test_a_plugin_that_needs_a_terminal_still_prints(
    plugin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_PLUGIN_MODE", "tty-only")
    outputs = run_bundle(_transport(Ssm()), TARGET, PROBES, 20)
    assert [name for name in PROBES if outputs[name].ok] == list(PROBES)


def test_without_a_terminal_that_plugin_prints_nothing(
    plugin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Control for the test above: with plain pipes the same program stays silent."""
    monkeypatch.setenv("FAKE_PLUGIN_MODE", "tty-only")
    monkeypatch.setenv("FAKE_PLUGIN_VERSION", "1.0.0.0")
    request = json.dumps(
        {
            "Target": TARGET.ssm_target,
            "DocumentName": "AWS-StartNonInteractiveCommand",
            "Parameters": {"command": [build_bundle(list(PROBES), "0123456789abcdef")]},
        }
    )
    response = json.dumps({"SessionId": SESSION, "TokenValue": TOKEN, "StreamUrl": "wss://x"})
    done = subprocess.run(
        [str(plugin), response, REGION, "StartSession", "", request, "https://ssm"],
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""


def test_a_hanging_session_returns_partial_output_at_the_timeout(
    plugin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_PLUGIN_MODE", "hang")
    ssm = Ssm()
    outputs = run_bundle(_transport(ssm), TARGET, PROBES, 2.0)
    assert set(outputs) == {"disk_usage"}
    assert outputs["disk_usage"].truncated
    assert outputs["disk_usage"].exit_code is None
    assert outputs["disk_usage"].stdout == "disk_usage line 1"
    assert ssm.operations() == ["StartSession", "TerminateSession"]


def test_a_session_that_ends_early_keeps_what_arrived(
    plugin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_PLUGIN_MODE", "early-exit")
    outputs = run_bundle(_transport(Ssm()), TARGET, PROBES, 20)
    assert outputs["disk_usage"].ok
    assert outputs["meminfo"].truncated
    assert outputs["meminfo"].stdout == "meminfo line 1"
    assert "gpu_list" not in outputs


def test_a_plugin_that_exits_before_any_probe_makes_the_node_unreachable(
    plugin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_PLUGIN_MODE", "banner-only")
    ssm = Ssm()
    with pytest.raises(NodeUnreachable) as unreachable:
        run_bundle(_transport(ssm), TARGET, PROBES, 20)
    assert "before any probe started" in unreachable.value.reason
    assert "websocket: connection refused" in unreachable.value.reason
    assert not unreachable.value.transient
    assert ssm.operations() == ["StartSession", "TerminateSession"]


@pytest.mark.parametrize(
    ("code", "status", "transient", "reason"),
    [
        ("TargetNotConnected", 400, True, "wrong account, region or cluster id"),
        ("ThrottlingException", 400, True, "throttled"),
        ("AccessDeniedException", 403, False, "Missing IAM permission for ssm:StartSession"),
        ("InvalidDocument", 400, False, "ssm:StartSession failed: InvalidDocument"),
    ],
)
def test_start_session_errors(
    plugin: Path, code: str, status: int, transient: bool, reason: str
) -> None:
    ssm = Ssm(error=code, status=status)
    with pytest.raises(NodeUnreachable) as unreachable:
        run_bundle(_transport(ssm), TARGET, PROBES, 20)
    assert unreachable.value.transient is transient
    assert reason in unreachable.value.reason
    assert ssm.operations() == ["StartSession"]  # no session, nothing to terminate
    assert not (plugin.parent.parent / "argv.json").exists()  # the plugin never ran


def test_the_runner_retries_target_not_connected_then_reports_the_node(plugin: Path) -> None:
    ssm = Ssm(error="TargetNotConnected")
    slept: list[float] = []
    runner = ProbeRunner(_transport(ssm), sleep=slept.append)
    result = runner.probe_node(ProbePlan(TARGET, PROBES))
    assert result.unreachable == TARGET_NOT_CONNECTED
    assert slept == [2.0, 5.0]
    assert ssm.operations() == ["StartSession"] * 3


def test_without_an_endpoint_override_the_plugin_gets_the_ssm_clients_endpoint(
    plugin: Path,
) -> None:
    access = AwsAccess(REGION, replay=Ssm(), max_attempts=1)
    transport = SsmSessionTransport(access, str(plugin), profile=None, endpoint_url=None)
    run_bundle(transport, TARGET, PROBES, 20)
    assert _logged(plugin)["argv"][5] == access.client("ssm").meta.endpoint_url
    assert _logged(plugin)["argv"][5].startswith("https://ssm.us-west-2.")
