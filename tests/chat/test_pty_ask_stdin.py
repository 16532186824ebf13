"""`ask -` on a terminal says it is reading the question (until Ctrl-D) instead of
waiting in silence; then answers it."""

from __future__ import annotations

import json
from pathlib import Path

from agent.commands.ask import READING_STDIN

from .pty_chat import EXECUTABLE, ROOT, spawn_chat


def test_ask_dash_on_a_terminal_says_where_the_question_comes_from(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"text": "Answered."}]}), encoding="utf-8")
    args = ["-", "--provider", "scripted", "--script", str(script), "--no-color"]
    args += ["--recorded", str(ROOT / "evals" / "clusters" / "demo-eks.json")]
    with spawn_chat(args, command=[str(EXECUTABLE), "ask"]) as ask:
        ask.expect(READING_STDIN)
        ask.send_message("Why is my node failing?")
        ask.end_of_input()
        ask.expect("Answered.")
        assert ask.wait_exit() == 0
