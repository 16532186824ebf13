"""Output that cannot be written (stdout closed, a full device) and a cluster that cannot be
read at all (DescribeCluster refused): one line on stderr and an exit code a script can act
on, run as a user runs the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ._corpus import AGENT_CASE, AGENT_RECORDING, BASE_RECORDING, base_recording

CLI = str(Path(sys.executable).with_name("hyperpod-debug"))
SCRIPT = str(AGENT_CASE / "script.json")

# Every command that writes to stdout, with arguments that make it write.
WRITERS: dict[str, list[str]] = {
    "triage": ["triage", "--recorded", str(BASE_RECORDING)],
    "triage-json": ["triage", "--recorded", str(BASE_RECORDING), "--format", "json"],
    "explain": ["explain", "Xid 79 GPU has fallen off the bus"],
    "iam-policy": ["iam-policy"],
    "checks": ["checks"],
    "probes": ["probes"],
    "ask": ["ask", "why", "--provider", "scripted", "--script", SCRIPT],
    "ask-json": ["ask", "why", "--provider", "scripted", "--script", SCRIPT, "--format", "json"],
}


def _shell(command: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _quoted(args: list[str]) -> str:
    return " ".join(f"'{a}'" for a in [CLI, *args])


def _one_line(stderr: str, says: str) -> None:
    assert "Traceback" not in stderr
    assert "Exception ignored" not in stderr
    assert stderr.count("\n") == 1, stderr
    assert says in stderr, stderr


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_a_full_device_is_one_line_and_exit_1(name: str) -> None:
    args = WRITERS[name]
    if name.startswith("ask"):
        args = [*args, "--recorded", str(AGENT_RECORDING)]
    result = _shell(f"{_quoted(args)} > /dev/full")
    assert result.returncode == 1, result.stderr
    _one_line(result.stderr, "cannot write the output: No space left on device")


def test_piped_chat_on_a_full_device() -> None:
    args = ["chat", "--provider", "scripted", "--script", SCRIPT]
    args += ["--recorded", str(AGENT_RECORDING)]
    result = _shell(f"{_quoted(args)} > /dev/full", stdin="why is the node failing\n")
    assert result.returncode == 1, result.stderr
    _one_line(result.stderr, "No space left on device")


@pytest.mark.parametrize("name", ["triage", "triage-json", "explain", "iam-policy"])
def test_closed_stdout_fails_the_run(name: str) -> None:
    result = _shell(f"exec 1>&-; {_quoted(WRITERS[name])}")
    assert result.returncode == 1, result.stderr
    _one_line(result.stderr, "cannot write the output: standard output is closed")


def test_closed_stdout_and_stderr_still_exit_non_zero() -> None:
    # Both closed inside the shell; the exit code comes back on fd 3.
    result = subprocess.run(
        ["/bin/sh", "-c", f"exec 3>&1 1>&- 2>&-; {_quoted(WRITERS['triage'])}; echo $? >&3"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.stdout.strip() == "1"


def test_closed_stdout_keeps_a_usage_error_code(tmp_path: Path) -> None:
    """A run that failed on its own keeps its exit code (2, a bad argument) and its line."""
    missing = tmp_path / "missing.json"
    result = _shell(f"exec 1>&-; {_quoted(['triage', '--recorded', str(missing)])}")
    assert result.returncode == 2, result.stderr
    _one_line(result.stderr, "not found")


def test_a_broken_pipe_stays_quiet() -> None:
    result = _shell(f"{_quoted(WRITERS['iam-policy'])} | head -c 1 >/dev/null; exit 0")
    assert result.returncode == 0
    assert result.stderr == ""


# -- nothing could be read ---------------------------------------------------------------------


@pytest.mark.parametrize("code", ["AccessDenied", "AccessDeniedException"])
@pytest.mark.parametrize("command", ["triage", "ticket"])
def test_describe_cluster_refused_is_nothing_triaged(
    code: str, command: str, tmp_path: Path
) -> None:
    raw = base_recording()
    for call in raw["aws"]:
        if call["operation"] == "DescribeCluster" and call["service"] == "sagemaker":
            call.pop("response", None)
            call["error"] = {"code": code, "message": "not authorized", "http_status": 403}
    recording = tmp_path / "denied.json"
    recording.write_text(json.dumps(raw), encoding="utf-8")
    args = [command, "--recorded", str(recording)]
    if command == "ticket":
        args += ["-o", str(tmp_path / "ticket")]
    result = _shell(_quoted(args))
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    _one_line(result.stderr, "nothing could be read, so nothing was triaged")
    assert "sagemaker:DescribeCluster" in result.stderr
    if command == "ticket":  # no bundle of an empty triage
        assert not any((tmp_path / "ticket").iterdir())
