"""Malformed frames over stdio: every request the server can read gets a JSON-RPC error,
as over HTTP, and the server goes on answering. Raw bytes to the real process."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from mcp_support import DEMO, ROOT

from agent.mcp.stdio import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, screen

_INIT = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "frames", "version": "1"},
    },
}
_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _request(ident: int, tail: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,' % ident + tail


# name -> (frame, the id its answer carries, the error code)
FRAMES: dict[str, tuple[bytes, int | None, int]] = {
    "string-params": (_request(1, b'"method":"tools/list","params":"x"}'), 1, INVALID_PARAMS),
    "lone-surrogate": (_request(2, b'"method":"tools/l\\ud800ist"}'), 2, INVALID_REQUEST),
    "5000-digit-integer": (
        _request(3, b'"method":"tools/list","params":{"n":' + b"9" * 5_000 + b"}}"),
        None,
        PARSE_ERROR,
    ),
    "100000-deep": (
        _request(4, b'"method":"tools/list","params":{"n":' + b"[" * 100_000 + b"]" * 100_000)
        + b"}}",
        None,
        PARSE_ERROR,
    ),
    "truncated": (_request(5, b'"method":"tools/li'), None, PARSE_ERROR),
    "nul-byte": (_request(6, b'"method":"tools/list"\x00}'), None, PARSE_ERROR),
    "not-utf8": (_request(7, b'"method":"tools/list"}\xff\xfe'), None, PARSE_ERROR),
    "arguments-200-deep": (
        _request(
            8,
            b'"method":"tools/call","params":{"name":"triage","arguments":{"x":'
            + b"[" * 200
            + b"]" * 200
            + b"}}}",
        ),
        8,
        INVALID_PARAMS,
    ),
    "not-an-object": (b"[1, 2]", None, INVALID_REQUEST),
}


def _exchange(frames: list[bytes], last_id: object = None) -> tuple[list[dict[str, Any]], str]:
    """Send the frames and read the answers. With `last_id`, stdin stays open until that
    request is answered: a server whose input ends may stop before answering what it was
    still working on, as any stdio server may, and a client keeps its pipe open."""
    script = Path(sys.executable).with_name("hyperpod-debug")
    process = subprocess.Popen(
        [str(script), "mcp", "--recorded", str(DEMO)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    watchdog = threading.Timer(120, process.kill)
    watchdog.start()
    try:
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write(b"\n".join(frames) + b"\n")
        process.stdin.flush()
        answers: list[dict[str, Any]] = []
        if last_id is not None:
            for line in process.stdout:
                answers.append(json.loads(line))
                if answers[-1].get("id") == last_id:
                    break
        out, err = process.communicate(timeout=120)
    finally:
        watchdog.cancel()
    assert process.returncode == 0, err
    answers += [json.loads(line) for line in out.decode().splitlines()]
    return answers, err.decode()


def test_every_malformed_frame_is_answered_and_the_server_goes_on() -> None:
    frames = [json.dumps(_INIT).encode(), json.dumps(_INITIALIZED).encode()]
    # A malformed notification (no id) is never answered, as JSON-RPC requires.
    frames.append(b'{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}')
    for frame, _, _ in FRAMES.values():
        frames.append(frame)
    frames.append(b'{"jsonrpc":"2.0","id":99,"method":"tools/list"}')
    answers, stderr = _exchange(frames, last_id=99)
    assert "Traceback" not in stderr
    by_id = {a["id"]: a for a in answers if a.get("id") is not None}
    anonymous = [a for a in answers if a.get("id") is None]
    assert "result" in by_id["init"]
    assert by_id[99]["result"]["tools"], "the server answers after the malformed frames"
    unanswerable = [name for name, (_, ident, _) in FRAMES.items() if ident is None]
    assert len(anonymous) == len(unanswerable), anonymous
    for name, answer in zip(unanswerable, anonymous, strict=True):
        assert answer["error"]["code"] == FRAMES[name][2], (name, answer)
        assert answer["jsonrpc"] == "2.0"
    for name, (_, ident, code) in FRAMES.items():
        if ident is not None:
            assert by_id[ident]["error"]["code"] == code, (name, by_id[ident])
    # Every error is one short sentence: no frame is echoed back.
    assert all(len(a["error"]["message"]) <= 200 for a in answers if "error" in a)
    assert len(answers) == 2 + len(FRAMES)


@pytest.mark.parametrize(
    ("line", "code", "says"),
    [
        ('{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}', INVALID_PARAMS, "object"),
        ('{"jsonrpc":"2.0","id":"a","method":"x\\udfff"}', INVALID_REQUEST, "lone surrogate"),
        (
            '{"jsonrpc":"2.0","id":1,"method":"x","params":{"n":' + "1" * 4_301 + "}}",
            PARSE_ERROR,
            "4,300 digits",
        ),
        ('{"jsonrpc":"2.0","id":true,"method":7}', INVALID_REQUEST, "Invalid request"),
    ],
)
def test_screen_names_what_is_wrong(line: str, code: int, says: str) -> None:
    screened = screen(line)
    assert screened.line is None
    assert screened.error is not None
    assert screened.error.error.code == code
    assert says in screened.error.error.message
    if code == PARSE_ERROR:
        assert screened.error.id is None


def test_screen_passes_what_the_sdk_reads_and_skips_blank_lines() -> None:
    line = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
    assert screen(line + "\n").line == line
    assert screen("  \n") == screen("")
    assert screen("").line is None
    assert screen("").error is None
    # An id that is a bool is no request id: the error goes out with id null.
    bad = screen('{"jsonrpc":"2.0","id":true,"method":"x","params":"s"}')
    assert bad.error is not None
    assert bad.error.id is None
