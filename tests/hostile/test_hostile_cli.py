"""Hostile values in every CLI argument and in every recorded-file field kind.

The contract under attack: exit 0, 1 or 2 (never a traceback), no raw terminal escape
from the input in the output, nothing from the input executed (see conftest.py).

Every hostile value meets the functions that make a value safe to show (property tests on
`argument`, `printable`, `one_line`, `clip`, `quoted` and `die`, over the whole corpus and
generated text). The CLI itself runs each argument slot and each recorded-field kind with
values made of the corpus's pieces: one run proves the slot's value goes through those
functions, so the cross product of every value with every slot would prove nothing more.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from agent.cli import app
from agent.commands.common import Stopped, die, shown
from tools.display import ARGUMENT_LIMIT, argument, one_line, printable
from tools.text import CLIP, clip, quoted

from ._corpus import (
    AGENT_CASE,
    ESCAPES,
    FIELD_KINDS,
    HOSTILE,
    WRONG_TYPES,
    base_recording,
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


# -- the functions that make a value safe to show ---------------------------------------

# Text as a hostile user or cluster writes it: corpus values, generated text of any code
# point (lone surrogates, controls and format characters included), and mixtures of both.
_ANY_CHARACTER = st.characters(exclude_categories=())
HOSTILE_TEXT = st.one_of(
    st.sampled_from(list(HOSTILE.values())),
    st.text(_ANY_CHARACTER),
    st.lists(
        st.one_of(st.sampled_from(list(HOSTILE.values())), st.text(_ANY_CHARACTER)),
        max_size=4,
    ).map("".join),
)


def _no_escape(text: str) -> None:
    for escape in ESCAPES:
        assert escape not in text, f"raw escape {escape!r}"


def _encodes(text: str) -> None:
    text.encode("utf-8")  # a lone surrogate left in would crash the print


@settings(max_examples=200, deadline=None)
@given(HOSTILE_TEXT)
def test_an_argument_is_shown_on_one_clipped_line(value: str) -> None:
    for text in (argument(value), shown(value)):
        _no_escape(text)
        _encodes(text)
        assert "\n" not in text
        assert "\r" not in text
        # Clipped with its length said: "…  (100,000 characters)" is the longest tail.
        assert len(text) <= ARGUMENT_LIMIT + len(f"… ({len(value):,} characters)")
    if len(value) > 2 * ARGUMENT_LIMIT:
        assert value not in argument(value)


@settings(max_examples=200, deadline=None)
@given(HOSTILE_TEXT)
def test_a_whole_output_is_printable(value: str) -> None:
    for text in (printable(value), one_line(value)):
        _no_escape(text)
        _encodes(text)
    assert "\n" not in one_line(value)


@settings(max_examples=200, deadline=None)
@given(HOSTILE_TEXT)
def test_cluster_text_is_quoted_on_one_clipped_line(value: str) -> None:
    for text in (clip(value), quoted(value)[1:-1]):
        _no_escape(text)
        _encodes(printable(text))  # the output is made printable as it is written
        assert "\n" not in text
        assert "\r" not in text
        assert len(text) <= CLIP


@settings(max_examples=100, deadline=None)
@given(HOSTILE_TEXT)
def test_an_error_is_one_line(value: str) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(Stopped) as stopped:
        die(f"no such cluster: {shown(value)}", 2)
    text = err.getvalue()
    assert stopped.value.exit_code == 2
    assert text.startswith("error: no such cluster: "), text[:300]
    assert text.count("\n") == 1, text[:300]
    _no_escape(text)


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


# Two values for every slot, made of the corpus's pieces. HARSH holds what a value can hold
# that most commands refuse early (a NUL byte, a lone surrogate, 100,000 characters,
# 5,000-deep brackets), with the escapes first so they sit inside any clip. QUIET is short
# and passes the first checks, so it goes on into the command's work. Every single value
# of the corpus meets the functions these runs go through in the property tests above.
HARSH = "".join(
    HOSTILE[k]
    for k in (
        "ansi-colour-title",
        "c1-csi",
        "rtl-override",
        "forged-line",
        "nul-byte",
        "lone-surrogate",
        "command-substitution",
        "backticks",
        "and-chain",
        "pipe",
        "format-string",
        "unicode-mix",
        "nested-json-text",
        "huge-number-text",
        "long-100k",
    )
)
QUIET = "".join(
    HOSTILE[k]
    for k in (
        "ansi-colour-title",
        "c1-csi",
        "rtl-override",
        "semicolon",
        "command-substitution",
        "format-string",
        "path-traversal",
    )
)
ARGUMENT_VALUES = {"harsh": HARSH, "quiet": QUIET}


@pytest.mark.parametrize("slot", list(SLOTS))
@pytest.mark.parametrize("value_id", list(ARGUMENT_VALUES))
def test_hostile_argument(
    *,
    slot: str,
    value_id: str,
    recorded: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # a relative hostile path lands here, never in the repo
    value = ARGUMENT_VALUES[value_id]
    args, stdin = SLOTS[slot](value, recorded, tmp_path)
    text = assert_contract(invoke(args, stdin))
    # An argument echoed in an error is clipped, never repeated in full.
    assert HOSTILE["long-100k"] not in text
    assert HOSTILE["nested-json-text"] not in text


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


# Per field kind: SHORT (the escapes and the forged line inside the first 200 characters,
# where the report's clip keeps them) in a text report, and LONG (a lone surrogate, 5,000
# brackets, 100,000 characters) in a JSON report. Each value of the corpus on its own meets
# `clip` and `quoted`, which every field goes through, in the property tests above.
SHORT_FIELD = "".join(
    HOSTILE[k]
    for k in (
        "ansi-colour-title",
        "c1-csi",
        "nul-byte",
        "rtl-override",
        "forged-line",
        "command-substitution",
        "backticks",
        "semicolon",
        "prompt-injection",
    )
)
LONG_FIELD = "".join(HOSTILE[k] for k in ("lone-surrogate", "nested-json-text", "long-100k"))
RECORDED_VALUES = {"short-text": (SHORT_FIELD, "text"), "long-json": (LONG_FIELD, "json")}


@pytest.mark.parametrize("kind", list(FIELD_KINDS))
@pytest.mark.parametrize("value_id", list(RECORDED_VALUES))
def test_hostile_recorded_field(kind: str, value_id: str, tmp_path: Path) -> None:
    value, fmt = RECORDED_VALUES[value_id]
    path = hostile_recording(tmp_path, kind, value, _base())
    text = assert_contract(invoke(["triage", "--recorded", str(path), "--format", fmt]))
    if fmt == "text":
        # A forged line from the cluster stays inside its quote: never a line of its own.
        assert "\n[FAIL] P0 forged" not in text


# Each kind meets one wrong type, the types taken in turn, so every type meets at least
# three kinds: a wrong type is refused where the recording is read (pydantic) or trips the
# triage's per-check guard, neither of which depends on which field it sits in.
_TYPE_IDS = list(WRONG_TYPES)
TYPED_CASES = [(kind, _TYPE_IDS[i % len(_TYPE_IDS)]) for i, kind in enumerate(FIELD_KINDS)]


@pytest.mark.parametrize(("kind", "type_id"), TYPED_CASES, ids=[f"{t}-{k}" for k, t in TYPED_CASES])
def test_wrongly_typed_recorded_field(kind: str, type_id: str, tmp_path: Path) -> None:
    """A value of the wrong JSON type: refused at load (exit 2, naming the field) or a
    one-line skip naming the check; never a traceback."""
    path = hostile_recording(tmp_path, kind, WRONG_TYPES[type_id], _base())
    result = invoke(["triage", "--recorded", str(path)])
    text = assert_contract(result)
    for line in text.splitlines():
        if "internal error" in line:
            assert "internal error in check " in line
            assert len(line) < 1_500
