"""On a terminal the chat shows what runs: a line per tool call and the SDK's retries."""

from __future__ import annotations

import re
from pathlib import Path

from conversation.conftest import FAKE_KEY
from conversation.fake_messages_api import FakeMessagesAPI, message_reply, overloaded, text

from .pty_chat import ROOT, spawn_chat

RECORDING = str(ROOT / "evals" / "clusters" / "demo-eks.json")


def test_a_tool_call_leaves_one_line_and_the_answer_follows(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        '{"turns": [{"tool_calls": [{"name": "read_reference", "input": {"section": "A"}}]},'
        ' {"text": "Section A is the cluster status."}]}',
        encoding="utf-8",
    )
    args = ["--provider", "scripted", "--script", str(script), "--recorded", RECORDING]
    with spawn_chat(args) as chat:
        chat.expect_prompt()
        chat.send_message("what is section A?")
        shown = chat.expect(r"cluster status\.")
        assert re.search(r"● read_reference § A \d+\.\d s", shown), shown
        assert "{" not in shown.split("what is section A?")[1]  # never the input's JSON
        chat.expect_prompt()
        chat.send_message("/quit")
        assert chat.wait_exit() == 0


def test_an_overloaded_api_is_announced_then_answered() -> None:
    with FakeMessagesAPI() as api:
        api.enqueue(overloaded(retry_after_ms=300), message_reply(text("Recovered answer.")))
        env = {"ANTHROPIC_API_KEY": FAKE_KEY, "ANTHROPIC_BASE_URL": api.url}
        with spawn_chat(["--recorded", RECORDING], env=env) as chat:
            chat.expect_prompt()
            chat.send_message("hello")
            shown = chat.expect(r"Recovered answer\.")
            assert "API overloaded, retrying in 0.3 s (1/3)" in shown
            chat.expect_prompt()
            chat.send_message("/quit")
            assert chat.wait_exit() == 0
        api.assert_loopback_only()
