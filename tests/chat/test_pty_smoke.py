"""The chat starts on a terminal, answers the help and ends on /quit."""

from __future__ import annotations

from pathlib import Path

from .pty_chat import ROOT, spawn_chat


def test_chat_starts_lists_commands_and_quits(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text('{"turns": []}', encoding="utf-8")
    args = ["--provider", "scripted", "--script", str(script)]
    args += ["--recorded", str(ROOT / "evals" / "clusters" / "demo-eks.json")]
    with spawn_chat(args) as chat:
        shown = chat.expect_prompt()
        assert "/triage" in shown
        assert "/quit" in shown
        chat.send_message("/quit")
        assert chat.wait_exit() == 0
