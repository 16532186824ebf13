"""The prompt read through prompt_toolkit's own test input: what a message becomes, and
when the SDK warm-up is started (once, after the first prompt is drawn)."""

from __future__ import annotations

import io

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from agent.chat.terminal import TerminalReader

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def test_messages_pastes_and_the_warm_up_after_the_first_prompt() -> None:
    shown: list[str] = []
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        reader = TerminalReader(
            colour=False, output=io.StringIO(), on_shown=lambda: shown.append("x")
        )
        keys.send_text("first\r")
        assert reader.read_message() == "first"
        assert shown == ["x"]
        keys.send_text(f"see {PASTE_START}a\rb\rc{PASTE_END} please\r")
        assert reader.read_message() == "see a\nb\nc please"
        keys.send_text("two\\\rlines\r")
        assert reader.read_message() == "two\nlines"
        assert shown == ["x"]  # started once


def test_end_of_input_ends_the_chat() -> None:
    out = io.StringIO()
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        reader = TerminalReader(colour=False, output=out)
        keys.send_text("\x04")
        assert reader.read_message() is None
    assert out.getvalue().endswith("\n")
