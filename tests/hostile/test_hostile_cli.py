"""Hostile values in every CLI argument and in every recorded-file field kind.

The contract under attack: exit 0, 1 or 2 (never a traceback), no raw terminal escape
from the input in the output, nothing from the input executed (see conftest.py).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from agent.cli import app

from ._corpus import (
    AGENT_CASE,
    ESCAPES,
    FIELD_KINDS,
    HOSTILE,
    WRONG_TYPES,
    base_recording,
    hostile_params,
    hostile_recording,
    small_recording,
)


def invoke(args: list[str], stdin: str | None = None) -> Result:
    # Stdin as a process gets it: bytes, a lone surrogate as its (invalid) UTF-8 encoding.
    data = None if stdin is None else stdin.encode("utf-8", "surrogatepass")
    return CliRunner().invoke(app, args, input=data)


def output_of(result: Result) -> str:
    stderr = ""
    with contextlib.suppress(ValueError):  # a runner without a separate stderr
        stderr = result.stderr
    return result.stdout + stderr


def assert_contract(result: Result, allowed: tuple[int, ...] = (0, 1, 2)) -> str:
    text = output_of(result)
    assert result.exit_code in allowed, (result.exit_code, text[-2000:], result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in text, text[-3000:]
    for escape in ESCAPES:
        assert escape not in text, f"raw escape {escape!r} reached the output"
    return text


# -- every CLI argument -------------------------------------------------------------------

Slot = Callable[[str, Path, Path], tuple[list[str], str | None]]


def _script() -> str:
    return str(AGENT_CASE / "script.json")


SLOTS: dict[str, Slot] = {
    "triage --cluster": lambda v, r, t: (["triage", "--cluster", v, "--region", "us-west-2"], None),
    "triage --region": lambda v, r, t: (["triage", "--cluster", "hp", "--region", v], None),
    "triage --node": lambda v, r, t: (["triage", "--recorded", str(r), "--node", v], None),
    "triage --recorded": lambda v, r, t: (["triage", "--recorded", v], None),
    "triage --recorded --region": lambda v, r, t: (
        ["triage", "--recorded", str(r), "--region", v],
        None,
    ),
    "triage --recorded --cluster": lambda v, r, t: (
        ["triage", "--recorded", str(r), "--cluster", v],
        None,
    ),
    "triage --kubeconfig --context --profile": lambda v, r, t: (
        ["triage", "--recorded", str(r), "--kubeconfig", v, "--context", v, "--profile", v],
        None,
    ),
    "triage --format": lambda v, r, t: (["triage", "--recorded", str(r), "--format", v], None),
    "explain TEXT": lambda v, r, t: (["explain", v], None),
    "explain - (stdin)": lambda v, r, t: (["explain", "-", "--format", "json"], v),
    "record --cluster": lambda v, r, t: (
        ["record", "-o", str(t / "out.json"), "--cluster", v, "--region", "us-west-2"],
        None,
    ),
    "record --region --node": lambda v, r, t: (
        ["record", "-o", str(t / "out.json"), "--cluster", "hp", "--region", v, "--node", v],
        None,
    ),
    "ask TEXT": lambda v, r, t: (
        ["ask", v, "--provider", "scripted", "--script", _script(), "--recorded", str(r)],
        None,
    ),
    "ask --cluster --model": lambda v, r, t: (
        [
            "ask",
            "hi",
            "--provider",
            "scripted",
            "--script",
            _script(),
            "--cluster",
            v,
            "--region",
            "us-west-2",
            "--model",
            v,
        ],
        None,
    ),
    "ask --script": lambda v, r, t: (["ask", "hi", "--provider", "scripted", "--script", v], None),
    "ask --transcript": lambda v, r, t: (
        [
            "ask",
            "hi",
            "--provider",
            "scripted",
            "--script",
            _script(),
            "--recorded",
            str(r),
            "--transcript",
            v,
            "--format",
            "json",
        ],
        None,
    ),
    "chat stdin": lambda v, r, t: (
        ["chat", "--provider", "scripted", "--script", _script(), "--recorded", str(r)],
        f"{v}\n/explain {v}\n/save {v}\n/{v}\n/quit\n",
    ),
    "eval --clusters": lambda v, r, t: (["eval", "--clusters", v], None),
    "eval agent --cases": lambda v, r, t: (["eval", "agent", "--cases", v], None),
    "eval new": lambda v, r, t: (
        ["eval", "new", "--recorded", v, "--transcript", v, "-o", str(t / "case")],
        None,
    ),
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_recording(tmp_path_factory.mktemp("recorded"))


@pytest.mark.parametrize("slot", list(SLOTS))
@pytest.mark.parametrize(("value_id", "value"), hostile_params(), ids=list(HOSTILE))
def test_hostile_argument(
    *,
    slot: str,
    value_id: str,
    value: str,
    recorded: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # a relative hostile path lands here, never in the repo
    args, stdin = SLOTS[slot](value, recorded, tmp_path)
    text = assert_contract(invoke(args, stdin))
    # An argument echoed in an error is clipped, never repeated in full.
    assert HOSTILE["long-100k"] not in text


def test_record_output_path_problems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`record -o` with paths that cannot be written: one line, exit 2, before any AWS."""
    monkeypatch.chdir(tmp_path)
    blocked = tmp_path / "ro"
    blocked.mkdir()
    blocked.chmod(0o500)
    cases = {
        "too-long-name": str(tmp_path / ("n" * 5_000)),
        "too-long-path": "/".join(["d" * 200] * 30),
        "directory": str(tmp_path),
    }
    if os.geteuid() != 0:  # root writes through any permission bits
        cases["unwritable"] = str(blocked / "x.json")
    for name, path in cases.items():
        result = invoke(["record", "-o", path, "--cluster", "hp", "--region", "us-west-2"])
        text = assert_contract(result, (2,))
        assert "cannot write" in text or "is a directory" in text, (name, text)
        assert len(text) < 1_000, name


# -- every recorded-file field kind -------------------------------------------------------

# The base recording, loaded once per module (the mutation works on a copy).
_BASE: dict[str, Any] = {}


def _base() -> dict[str, Any]:
    if not _BASE:
        _BASE.update(base_recording())
    return _BASE


RECORDED_VALUES = {
    k: HOSTILE[k]
    for k in (
        "prompt-injection",
        "command-substitution",
        "backticks",
        "semicolon",
        "ansi-colour-title",
        "c1-csi",
        "nul-byte",
        "rtl-override",
        "long-100k",
        "lone-surrogate",
        "forged-line",
        "nested-json-text",
    )
}


@pytest.mark.parametrize("kind", list(FIELD_KINDS))
@pytest.mark.parametrize(
    ("value_id", "value"), list(RECORDED_VALUES.items()), ids=list(RECORDED_VALUES)
)
def test_hostile_recorded_field(kind: str, value_id: str, value: str, tmp_path: Path) -> None:
    path = hostile_recording(tmp_path, kind, value, _base())
    fmt = "json" if value_id in ("lone-surrogate", "long-100k") else "text"
    text = assert_contract(invoke(["triage", "--recorded", str(path), "--format", fmt]))
    if fmt == "text":
        # A forged line from the cluster stays inside its quote: never a line of its own.
        assert "\n[FAIL] P0 forged" not in text


@pytest.mark.parametrize("kind", list(FIELD_KINDS))
@pytest.mark.parametrize(("type_id", "value"), list(WRONG_TYPES.items()), ids=list(WRONG_TYPES))
def test_wrongly_typed_recorded_field(kind: str, type_id: str, value: Any, tmp_path: Path) -> None:
    """A value of the wrong JSON type: refused at load (exit 2, naming the field) or a
    one-line skip naming the check; never a traceback."""
    path = hostile_recording(tmp_path, kind, value, _base())
    result = invoke(["triage", "--recorded", str(path)])
    text = assert_contract(result)
    for line in text.splitlines():
        if "internal error" in line:
            assert "internal error in check " in line
            assert len(line) < 1_500
