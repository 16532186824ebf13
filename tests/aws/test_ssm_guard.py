"""ssm:StartSession passes the guard only as a node-probe session, exactly.

Every refusal is checked on an access layer aimed at a closed loopback port with a
`before-send` handler that records (and fails on) any request about to leave: a refused
call must raise MutatingOperationRefused and never get that far. The allowed shapes are
answered by a replay responder, so they run the whole client path through the guard.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tools.aws.errors import AwsAccessError, MutatingOperationRefused
from tools.aws.session import AwsAccess
from tools.aws.ssm_guard import PROBE_DOCUMENT, StartedSessions, refusal
from tools.probes.framing import build_bundle
from tools.recorded.model import RecordedCall, RecordedError

REGION = "us-west-2"
TARGET = "sagemaker-cluster:a1b2c3d4e5f6_gpu-workers-i-0123456789abcdef0"
NONCE = "0123456789abcdef"
BUNDLE = build_bundle(["disk_usage", "meminfo", "gpu_list"], NONCE)


def _start(**overrides: Any) -> dict[str, Any]:
    params: dict[str, Any] = {
        "Target": TARGET,
        "DocumentName": PROBE_DOCUMENT,
        "Parameters": {"command": [BUNDLE]},
    }
    params.update(overrides)
    return {k: v for k, v in params.items() if v is not None}


def _one_char_changed(text: str) -> str:
    # Flip one character inside the first probe's command (inside the framing, not a marker).
    index = text.index("df -P") + 3
    return text[:index] + ("Q" if text[index] != "Q" else "R") + text[index + 1 :]


REFUSED: dict[str, dict[str, Any]] = {
    "free-form command": _start(Parameters={"command": ["cat /etc/shadow"]}),
    "destructive free-form command": _start(Parameters={"command": ["sudo rm -rf /fsx"]}),
    "bundle then rm": _start(Parameters={"command": [BUNDLE + "; rm -rf /"]}),
    "rm then bundle": _start(Parameters={"command": ["rm -rf /; " + BUNDLE]}),
    "bundle with a newline command": _start(Parameters={"command": [BUNDLE + "\nreboot"]}),
    "bundle with one character changed": _start(
        Parameters={"command": [_one_char_changed(BUNDLE)]}
    ),
    "bundle with an unknown probe name": _start(
        Parameters={"command": [BUNDLE.replace("gpu_list", "gpu_lisx")]}
    ),
    "two commands": _start(Parameters={"command": [BUNDLE, "reboot"]}),
    "command not a list": _start(Parameters={"command": BUNDLE}),
    "command not a string": _start(Parameters={"command": [42]}),
    "extra document parameter": _start(Parameters={"command": [BUNDLE], "portNumber": ["22"]}),
    "missing Parameters": _start(Parameters=None),
    "empty Parameters": _start(Parameters={}),
    "missing DocumentName (the interactive shell)": _start(DocumentName=None),
    "interactive command document": _start(DocumentName="AWS-StartInteractiveCommand"),
    "port forwarding document": _start(
        DocumentName="AWS-StartPortForwardingSession",
        Parameters={"portNumber": ["22"], "localPortNumber": ["2222"]},
    ),
    "default shell document": _start(DocumentName="SSM-SessionManagerRunShell"),
    "ssh document": _start(DocumentName="AWS-StartSSHSession"),
    "extra Reason parameter": _start(Reason="debugging"),
    "missing Target": _start(Target=None),
    "plain instance id target": _start(Target="i-0123456789abcdef0"),
    "cluster name instead of id": _start(
        Target="sagemaker-cluster:my-cluster_gpu-i-0123456789abcdef0"
    ),
    "cluster id too short": _start(Target="sagemaker-cluster:a1b2c3_gpu-i-0123456789abcdef0"),
    "uppercase cluster id": _start(Target="sagemaker-cluster:A1B2C3D4E5F6_gpu-i-0123456789abcdef0"),
    "no group": _start(Target="sagemaker-cluster:a1b2c3d4e5f6_i-0123456789abcdef0"),
    "bad instance id": _start(Target="sagemaker-cluster:a1b2c3d4e5f6_gpu-i-xyz"),
    "target with trailing text": _start(Target=TARGET + " --document-name x"),
    "ecs target": _start(Target="ecs:cluster_task_container"),
    "managed instance target": _start(Target="mi-0123456789abcdef0"),
}


SESSION = "hpd-0123456789abcdef0"


class _Sessions:
    """Answers StartSession / TerminateSession the way SSM does (shape only); with
    `start_error`, StartSession fails with that code."""

    def __init__(self, start_error: str | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.start_error = start_error

    def respond(self, service: str, operation: str, params: dict[str, Any]) -> RecordedCall:
        self.calls.append((operation, params))
        if operation == "StartSession" and self.start_error:
            error = RecordedError(code=self.start_error, message="no", http_status=400)
            return RecordedCall(service=service, operation=operation, error=error)
        response: dict[str, Any] = {"SessionId": SESSION}
        if operation == "StartSession":
            response.update(TokenValue="token", StreamUrl="wss://127.0.0.1/stream")
        return RecordedCall(service=service, operation=operation, params=params, response=response)


@pytest.fixture(scope="module")
def offline() -> tuple[AwsAccess, list[str]]:
    access = AwsAccess(REGION, endpoint_url="http://127.0.0.1:9", max_attempts=1)
    sent: list[str] = []

    def never(request: Any, **_: Any) -> None:
        sent.append(str(request.url))
        raise AssertionError(f"a refused call reached the wire: {request.url}")

    access._session.events.register("before-send", never)
    return access, sent


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_start_session_outside_the_probe_shape_is_refused_before_sending(
    offline: tuple[AwsAccess, list[str]], case: str
) -> None:
    access, sent = offline
    with pytest.raises(MutatingOperationRefused) as refused:
        access.call("ssm", "StartSession", **REFUSED[case])
    assert refused.value.reason.startswith("refused ssm:StartSession: ")
    assert "not in the read-only allow-list" not in refused.value.reason
    assert sent == []


def test_refusal_reasons_say_what_is_wrong() -> None:
    assert "AWS-StartInteractiveCommand" in str(
        refusal("ssm", "StartSession", REFUSED["interactive command document"])
    )
    assert "not a bundle of catalogued probes" in str(
        refusal("ssm", "StartSession", REFUSED["bundle then rm"])
    )
    assert "Reason" in str(refusal("ssm", "StartSession", REFUSED["extra Reason parameter"]))
    assert "missing Parameters" in str(
        refusal("ssm", "StartSession", REFUSED["missing Parameters"])
    )
    assert "not a HyperPod node" in str(refusal("ssm", "StartSession", REFUSED["no group"]))


@pytest.mark.parametrize(
    "params",
    [{}, {"SessionId": ""}, {"SessionId": "s-1", "Reason": "x"}, {"SessionId": ["s-1"]}],
    ids=["none", "empty", "extra", "not a string"],
)
def test_terminate_session_takes_a_session_id_only(
    offline: tuple[AwsAccess, list[str]], params: dict[str, Any]
) -> None:
    access, sent = offline
    with pytest.raises(MutatingOperationRefused, match="refused ssm:TerminateSession"):
        access.call("ssm", "TerminateSession", **params)
    assert sent == []


@pytest.mark.parametrize(
    ("operation", "params"),
    [
        (
            "SendCommand",
            {
                "InstanceIds": ["i-0123456789abcdef0"],
                "DocumentName": "AWS-RunShellScript",
                "Parameters": {"commands": [BUNDLE]},
            },
        ),
        ("ResumeSession", {"SessionId": "s-1"}),
        ("StartAutomationExecution", {"DocumentName": "AWS-RestartEC2Instance"}),
    ],
    ids=["SendCommand with a valid bundle", "ResumeSession", "StartAutomationExecution"],
)
def test_other_ssm_execution_operations_stay_refused(
    offline: tuple[AwsAccess, list[str]], operation: str, params: dict[str, Any]
) -> None:
    access, sent = offline
    with pytest.raises(MutatingOperationRefused, match="not in the read-only allow-list"):
        access.call("ssm", operation, **params)
    assert sent == []


def test_a_probe_session_passes_the_guard_and_terminate_follows() -> None:
    """Control: the exact probe shape goes through the whole client path, and the session
    it opened may be terminated."""
    sessions = _Sessions()
    access = AwsAccess(REGION, replay=sessions)
    started = access.call("ssm", "StartSession", **_start())
    assert started["SessionId"] == SESSION
    access.call("ssm", "TerminateSession", SessionId=started["SessionId"])
    assert [operation for operation, _ in sessions.calls] == ["StartSession", "TerminateSession"]
    assert sessions.calls[0][1]["Parameters"] == {"command": [BUNDLE]}
    assert sessions.calls[1][1] == {"SessionId": SESSION}


def test_terminating_a_session_this_run_did_not_start_is_refused() -> None:
    """Another user's session (any id StartSession did not hand back here) stays alone,
    even after this run opened sessions of its own."""
    sessions = _Sessions()
    access = AwsAccess(REGION, replay=sessions)
    access.call("ssm", "StartSession", **_start())
    with pytest.raises(MutatingOperationRefused, match="was not started by this run"):
        access.call("ssm", "TerminateSession", SessionId="someone-else-0fedcba987654321")
    assert [operation for operation, _ in sessions.calls] == ["StartSession"]


def test_terminating_before_any_session_is_refused(offline: tuple[AwsAccess, list[str]]) -> None:
    access, sent = offline
    with pytest.raises(MutatingOperationRefused, match="was not started by this run"):
        access.call("ssm", "TerminateSession", SessionId=SESSION)
    assert sent == []


def test_a_failed_start_session_opens_nothing_to_terminate() -> None:
    sessions = _Sessions(start_error="TargetNotConnected")
    access = AwsAccess(REGION, replay=sessions, max_attempts=1)
    with pytest.raises(AwsAccessError):
        access.call("ssm", "StartSession", **_start())
    # The id SSM would have returned, had the start succeeded.
    with pytest.raises(MutatingOperationRefused, match="was not started by this run"):
        access.call("ssm", "TerminateSession", SessionId=SESSION)
    assert [operation for operation, _ in sessions.calls] == ["StartSession"]


def test_the_pure_guard_terminates_only_listed_sessions() -> None:
    started = StartedSessions()
    assert "not started" in str(refusal("ssm", "TerminateSession", {"SessionId": SESSION}))
    assert "not started" in str(refusal("ssm", "TerminateSession", {"SessionId": SESSION}, started))
    started.add(SESSION)
    assert refusal("ssm", "TerminateSession", {"SessionId": SESSION}, started) is None
    assert refusal("ssm", "TerminateSession", {"SessionId": SESSION + "x"}, started) is not None


def test_started_sessions_are_kept_from_many_threads() -> None:
    started = StartedSessions()
    ids = [f"hpd-{n:016x}" for n in range(400)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(started.add, ids))
    assert all(session_id in started for session_id in ids)
    assert "hpd-other" not in started


@pytest.mark.parametrize(
    "target",
    [
        TARGET,
        "sagemaker-cluster:zz9z8y7x6w5v_controller-machine-i-0abcdef1",
        "sagemaker-cluster:a1b2c3d4e5f6_g-i-0123456789abcdef0",
    ],
)
def test_hyperpod_targets_are_accepted(target: str) -> None:
    assert refusal("ssm", "StartSession", _start(Target=target)) is None


def test_only_the_two_session_operations_have_parameter_guards() -> None:
    assert refusal("ec2", "DescribeSubnets", {"anything": object()}) is None
