"""Driving the real `hyperpod-debug chat` through a pseudo-terminal (pexpect).

The chat runs as a user runs it: its own process, a terminal of a given size, keys sent
as a terminal sends them (bracketed paste, Ctrl-C, Ctrl-D, arrows). Output is read back
with the terminal's escape sequences removed, so assertions are about what is on screen.
No test here reaches the network: providers are the scripted one or a loopback fake.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[2]
EXECUTABLE = Path(sys.executable).with_name("hyperpod-debug")
PROMPT = "you>"
TIMEOUT = 30
# CSI and OSC sequences, and the two-character escapes, as a terminal would consume them.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
CTRL_C, CTRL_D = "\x03", "\x04"


def plain(text: str) -> str:
    """`text` without escape sequences or carriage returns."""
    return _ESCAPES.sub("", text).replace("\r", "")


class ChatTerminal:
    """One chat process on a pseudo-terminal."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child
        self.seen = ""

    def expect(self, pattern: str | re.Pattern[str], timeout: float = TIMEOUT) -> str:
        """Wait for `pattern` (a regular expression) in the output; returns the output
        read up to and including it, escapes removed."""
        self.child.expect(pattern, timeout=timeout)
        before = str(self.child.before or "") + str(self.child.after or "")
        self.seen += before
        return plain(before)

    def expect_prompt(self, timeout: float = TIMEOUT) -> str:
        return self.expect(re.escape(PROMPT), timeout)

    def reply(self, until: str, timeout: float = TIMEOUT) -> str:
        """The output up to the prompt that follows `until` (a regular expression): the
        prompt redraws the line just sent, so a bare `expect_prompt` after sending would
        stop at that redraw rather than after the answer."""
        shown = self.expect(until, timeout)
        return shown + self.expect_prompt(timeout)

    def type(self, text: str) -> None:
        """Keys typed, without Enter."""
        self.child.send(text)

    def send_message(self, text: str) -> None:
        self.child.send(text + "\r")

    def paste(self, text: str, *, enter: bool = True) -> None:
        """`text` pasted as a terminal with bracketed paste sends it."""
        self.child.send(PASTE_START + text.replace("\n", "\r") + PASTE_END)
        if enter:
            self.child.send("\r")

    def interrupt(self) -> None:
        self.child.send(CTRL_C)

    def end_of_input(self) -> None:
        self.child.send(CTRL_D)

    def wait_exit(self, timeout: float = TIMEOUT) -> int:
        """The exit status once the process ends (output read to the end)."""
        self.child.expect(pexpect.EOF, timeout=timeout)
        self.seen += str(self.child.before or "")
        self.child.close()
        status = self.child.exitstatus
        return -1 if status is None else int(status)

    @property
    def screen(self) -> str:
        """Everything read so far, escapes removed."""
        return plain(self.seen)


def chat_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ANTHROPIC_", "AWS_")) and key != "NO_COLOR"
    }
    env.update(
        {
            "TERM": "xterm-256color",
            "HOME": env.get("HOME", str(ROOT)),
            "PYTHONIOENCODING": "utf-8",
            "LANG": "C.UTF-8",
            "AWS_EC2_METADATA_DISABLED": "true",
            # A terminal answers prompt_toolkit's cursor-position request at once; pexpect
            # never does, and prompt_toolkit would wait for the answer about a second at
            # each prompt. Without the request it draws the same prompt.
            "PROMPT_TOOLKIT_NO_CPR": "1",
        }
    )
    env.update(extra or {})
    return env


@contextmanager
def spawn_chat(
    args: Sequence[str],
    *,
    columns: int = 80,
    rows: int = 40,
    env: dict[str, str] | None = None,
    command: Sequence[str] | None = None,
) -> Iterator[ChatTerminal]:
    """`hyperpod-debug chat ARGS` on a terminal `columns` wide; `command` replaces the
    program (e.g. a Python launcher that wraps it), ARGS still follow it."""
    program, *first = list(command) if command else [str(EXECUTABLE), "chat"]
    child = pexpect.spawn(
        program,
        [*first, *args],
        cwd=str(ROOT),
        env=chat_env(env),
        dimensions=(rows, columns),
        encoding="utf-8",
        codec_errors="replace",
        timeout=TIMEOUT,
    )
    try:
        yield ChatTerminal(child)
    finally:
        if child.isalive():
            child.terminate(force=True)
