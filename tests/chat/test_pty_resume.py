"""`chat --resume FILE` on a terminal: the recap, then the conversation goes on."""

from __future__ import annotations

from pathlib import Path

from .pty_chat import spawn_chat
from .resume_support import AFTER_FIX, saved_conversation, script


def test_resume_on_a_terminal_recaps_and_continues(tmp_path: Path) -> None:
    saved = saved_conversation(tmp_path)
    after = script(tmp_path / "after.json", AFTER_FIX)
    args = ["--provider", "scripted", "--script", str(after), "--resume", str(saved)]
    with spawn_chat(args) as chat:
        shown = chat.expect_prompt()
        assert "Resumed handover.jsonl: 1 turn(s) so far" in shown
        assert "pending 1. [config]" in shown
        chat.send_message("/context")
        shown = chat.expect(r"Pending suggestions: 1")
        chat.expect_prompt()
        chat.send_message("/done")
        shown = chat.expect(r"Cleared: 1")
        assert "recording 2 of 2" in shown
        chat.expect_prompt()
        chat.send_message("/quit")
        assert chat.wait_exit() == 0
