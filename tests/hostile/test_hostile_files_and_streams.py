"""Hostile recorded files (unbounded, deep, huge numbers) and hostile process conditions
(closed streams, a broken pipe, an over-long KUBECONFIG), run as a user runs the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agent.cli import app
from tools.recorded.model import MAX_NESTING, MAX_RECORDED_ENV

from ._corpus import BASE_RECORDING, small_recording


def _run(*args: Any, **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """subprocess.run without check: the exit code is what the tests look at."""
    return subprocess.run(*args, check=False, **kwargs)


def _cli() -> list[str]:
    return [str(Path(sys.executable).with_name("hyperpod-debug"))]


def _minimal(tmp_path: Path) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(small_recording(tmp_path).read_text(encoding="utf-8"))
    return raw


def _files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name -> (path, what the one-line error must say)."""
    raw = _minimal(tmp_path)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    deep_inside = tmp_path / "deep-inside.json"
    text = json.dumps(raw)
    deep_inside.write_text(
        text[:-1] + ', "description": 1, "x": ' + "[" * 150 + "]" * 150 + "}", encoding="utf-8"
    )
    number = tmp_path / "number.json"
    number.write_text(text[:-1] + ', "description": ' + "9" * 5_000 + "}", encoding="utf-8")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    empty = tmp_path / "empty.json"
    empty.write_text("", encoding="utf-8")
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    return {
        "deep-nesting": (deep, f"nesting deeper than {MAX_NESTING} levels"),
        "deep-inside-object": (deep_inside, f"nesting deeper than {MAX_NESTING} levels"),
        "5000-digit-number": (number, "number is too long"),
        "not-utf8": (binary, "not UTF-8"),
        "empty": (empty, "not valid JSON"),
        "fifo-without-writer": (fifo, "not a regular file"),
        "dev-zero": (Path("/dev/zero"), "not a regular file"),
        "directory": (tmp_path, "is a directory"),
        "missing": (tmp_path / "missing.json", "not found"),
        "name-too-long": (tmp_path / ("n" * 5_000), "File name too long"),
    }


FILE_CASES = [
    "deep-nesting",
    "deep-inside-object",
    "5000-digit-number",
    "not-utf8",
    "empty",
    "fifo-without-writer",
    "dev-zero",
    "directory",
    "missing",
    "name-too-long",
]


@pytest.mark.parametrize("case", FILE_CASES)
def test_hostile_recorded_file(case: str, tmp_path: Path) -> None:
    path, says = _files(tmp_path)[case]
    result = _run(
        [*_cli(), "triage", "--recorded", str(path)],
        capture_output=True,
        text=True,
        timeout=60,  # /dev/zero or a FIFO would block forever
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert says in result.stderr
    assert len(result.stderr) < 1_000
    assert result.stderr.count("\n") == 1


def test_size_limit_is_clear_and_configurable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MAX_RECORDED_ENV, "0.01")  # about 10 KiB
    result = CliRunner().invoke(app, ["triage", "--recorded", str(BASE_RECORDING)])
    assert result.exit_code == 2
    assert MAX_RECORDED_ENV in result.output
    assert "MiB limit" in result.output
    monkeypatch.setenv(MAX_RECORDED_ENV, "64")
    result = CliRunner().invoke(app, ["triage", "--recorded", str(BASE_RECORDING)])
    assert result.exit_code == 0, result.output


# A closed stdout is tests/hostile/test_hostile_outputs.py's (exit 1, one line).
@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["explain", "-"], "error: nothing to explain: the input is empty\n"),
        (
            ["ask", "-", "--provider", "scripted", "--script", "/nonexistent"],
            "error: nothing to ask: give a question or pasted error text\n",
        ),
    ],
    ids=["explain", "ask"],
)
def test_closed_stdin_is_nothing_to_read(args: list[str], says: str) -> None:
    """Reading `-` from a closed stdin is an empty input: a usage error (2), in one line."""
    command = "exec 0<&-; " + " ".join(f"'{a}'" for a in [*_cli(), *args])
    result = _run(["/bin/sh", "-c", command], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stderr, result.stdout) == (2, says, "")


def test_broken_pipe_is_quiet(tmp_path: Path) -> None:
    read, write = os.pipe()
    os.close(read)
    try:
        result = _run(
            [*_cli(), "triage", "--recorded", str(BASE_RECORDING), "--format", "json"],
            stdout=write,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    finally:
        os.close(write)
    assert result.returncode in (0, 1)
    assert result.stderr == b"", result.stderr


def test_invalid_utf8_and_surrogates_on_stdin(tmp_path: Path) -> None:
    data = "Xid 79 \ud800 GPU has fallen off the bus\n".encode("utf-8", "surrogatepass")
    result = _run([*_cli(), "explain", "-"], input=data, capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr


def test_over_long_kubeconfig_is_one_line() -> None:
    from tools.kube.config import kubeconfig_paths
    from tools.sources import KubernetesUnavailable

    long_path = "/tmp/" + "k" * 5_000
    with pytest.raises(KubernetesUnavailable) as caught:
        kubeconfig_paths(Path(long_path))
    assert len(caught.value.reason) < 400
    os.environ["KUBECONFIG"] = long_path
    try:
        with pytest.raises(KubernetesUnavailable) as caught:
            kubeconfig_paths(None)
    finally:
        del os.environ["KUBECONFIG"]
    assert len(caught.value.reason) < 400


def test_internal_error_traceback_only_with_debug(tmp_path: Path) -> None:
    """A wrongly-typed recorded value that passes the loader: the failed check is one line
    naming the check; the traceback appears on stderr only under --debug."""
    raw = json.loads(BASE_RECORDING.read_text(encoding="utf-8"))
    raw.pop("expect", None)
    # The data layer reads most odd values as absent (a status that is not a mapping is
    # "Unknown"); a count that is not a number is a shape it refuses.
    raw["kubernetes"]["daemonsets"][0]["status"]["desiredNumberScheduled"] = [1, 2]
    path = tmp_path / "typed.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    plain = _run(
        [*_cli(), "triage", "--recorded", str(path)], capture_output=True, text=True, timeout=120
    )
    assert plain.returncode == 0, plain.stderr
    assert "Traceback" not in plain.stdout + plain.stderr
    lines = [line for line in plain.stdout.splitlines() if "internal error in check" in line]
    assert lines
    assert all("unexpected shape" in line and " at tools/" in line for line in lines)
    debug = _run(
        [*_cli(), "--debug", "triage", "--recorded", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert debug.returncode == 0
    assert "Traceback" in debug.stderr
