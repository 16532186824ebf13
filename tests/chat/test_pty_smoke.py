"""The chat starts on a terminal, answers the help and ends on /quit."""

from __future__ import annotations

from pathlib import Path

from tests.chat.pty_chat import spawn_chat
from tests.conversation._support import recording_path


def test_chat_starts_lists_commands_and_quits(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text('{"turns": []}', encoding="utf-8")
    args = ["--provider", "scripted", "--script", str(script)]
    args += ["--recorded", str(recording_path("demo-eks"))]
    with spawn_chat(args) as chat:
        shown = chat.expect_prompt()
        assert "/triage" in shown
        assert "/quit" in shown
        chat.send_message("/quit")
        assert chat.wait_exit() == 0
