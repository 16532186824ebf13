"""The chat's prompt on a real pseudo-terminal: a paste is one message, Ctrl-C cancels a
turn (even in the middle of a tool call) and clears a line, Ctrl-D leaves cleanly, arrows
edit and recall instead of reaching the model, and keys typed during an answer do not
break into it."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

from agent.chat.terminal import SETTLE_SECONDS

from .pty_chat import CTRL_C, ROOT, spawn_chat
from .slow_tool_chat import STARTED

DATA = Path(__file__).parent / "data"
DEMO = ROOT / "evals" / "clusters" / "demo-eks.json"
LAUNCHER = Path(__file__).parent / "slow_tool_chat.py"
UP, LEFT = "\x1b[A", "\x1b[D"


def scripted(script: str, *extra: str) -> list[str]:
    return ["--provider", "scripted", "--script", str(DATA / script), "--recorded", str(DEMO)]


def user_messages(transcript: Path) -> list[str]:
    events = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    return [str(e["text"]) for e in events if e.get("type") == "user"]


def test_a_200_line_paste_is_one_message(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    ticket = "\n".join(f"line {i}: NCCL WARN NET/OFI timeout on rank {i}" for i in range(200))
    args = [*scripted("three_answers.json"), "--transcript", str(transcript)]
    with spawn_chat(args) as chat:
        chat.expect_prompt()
        chat.paste(ticket)
        shown = chat.expect("First answer")
        assert "[pasted text #1: 200 lines]" in shown
        chat.expect_prompt()
        # Recalled with ↑, the placeholder still stands for the paste.
        chat.type(UP)
        chat.send_message("")
        chat.reply("Second answer")
        chat.send_message("/quit")
        assert chat.wait_exit() == 0
    assert "Third answer" not in chat.screen  # the paste was one message, each time
    assert user_messages(transcript) == [ticket, ticket]


def test_ctrl_c_in_a_tool_call_then_the_next_message_works(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    launcher = [sys.executable, str(LAUNCHER), "30", "chat"]
    args = [*scripted("triage_twice.json"), "--transcript", str(transcript)]
    with spawn_chat(args, command=launcher) as chat:
        chat.expect_prompt()
        chat.send_message("NCCL hangs on two nodes")
        chat.expect(re.escape(STARTED))
        chat.interrupt()
        chat.expect("Interrupted", timeout=10)
        chat.expect_prompt()
        chat.send_message("please try again")
        # The scripted provider refuses a conversation with a call left unanswered, as the
        # Messages API does: an answer here means the interrupted turn left none.
        shown = chat.expect("The triage is back")
        assert "invalid" not in shown
        chat.expect_prompt()
        chat.send_message("/quit")
        assert chat.wait_exit() == 0
    assert user_messages(transcript) == ["NCCL hangs on two nodes", "please try again"]


def test_ctrl_c_clears_the_line_and_twice_on_an_empty_line_leaves() -> None:
    with spawn_chat(scripted("three_answers.json")) as chat:
        chat.expect_prompt()
        chat.type("half a thought")
        chat.interrupt()
        chat.expect_prompt()
        chat.send_message("a whole question")
        chat.expect("First answer")
        chat.expect_prompt()
        # Presses in the first moment after an answer only clear (they were meant for it).
        time.sleep(SETTLE_SECONDS + 0.2)
        chat.interrupt()
        chat.expect("Ctrl-D or /quit to leave")
        chat.interrupt()
        assert chat.wait_exit() == 0
    # The cleared line never reached the agent: one answer only.
    assert "Second answer" not in chat.screen


def test_ctrl_d_leaves_with_the_shell_prompt_on_its_own_line() -> None:
    with spawn_chat(scripted("three_answers.json")) as chat:
        chat.expect_prompt()
        chat.end_of_input()
        assert chat.wait_exit() == 0
    assert chat.screen.endswith("\n")


def test_arrows_edit_and_recall_and_never_reach_the_model(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    args = [*scripted("three_answers.json"), "--transcript", str(transcript)]
    with spawn_chat(args) as chat:
        chat.expect_prompt()
        chat.type("the nodes ar down")
        chat.type(LEFT * 5 + "e")
        chat.send_message("")
        chat.expect("First answer")
        chat.expect_prompt()
        chat.type(UP)
        chat.send_message(" again")
        chat.expect("Second answer")
        chat.expect_prompt()
        chat.send_message("/quit")
        assert chat.wait_exit() == 0
    assert user_messages(transcript) == ["the nodes are down", "the nodes are down again"]


def test_keys_typed_during_an_answer_wait_for_the_next_prompt(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    launcher = [sys.executable, str(LAUNCHER), "2", "chat"]
    args = [*scripted("triage_twice.json"), "--transcript", str(transcript)]
    with spawn_chat(args, command=launcher) as chat:
        chat.expect_prompt()
        chat.send_message("check the cluster")
        chat.expect(re.escape(STARTED))
        chat.type("typed ahead")
        answer = chat.expect_prompt(timeout=30)
        assert "typed ahead" not in answer
        chat.expect("typed ahead")  # shown at the prompt, where it can be edited
        chat.type(CTRL_C)
        chat.expect_prompt()
        chat.send_message("/quit")
        assert chat.wait_exit() == 0
    assert user_messages(transcript) == ["check the cluster"]


# A real terminal answers prompt_toolkit's cursor-position request at once; pexpect never
# does, and the prompt then waits for it before reading keys, which would shift the timing
# of keys pressed just as an answer ends.
NO_CPR = {"PROMPT_TOOLKIT_NO_CPR": "1"}


def test_ctrl_c_pressed_several_times_to_stop_a_turn_stops_it_and_stays(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    launcher = [sys.executable, str(LAUNCHER), "30", "chat"]
    args = [*scripted("triage_twice.json"), "--transcript", str(transcript)]
    with spawn_chat(args, command=launcher, env=NO_CPR) as chat:
        chat.expect_prompt()
        chat.send_message("NCCL hangs on two nodes")
        chat.expect(re.escape(STARTED))
        for _ in range(3):  # a key at a time, as a person presses it (pexpect waits 50 ms)
            chat.interrupt()
        chat.expect("Interrupted", timeout=10)
        chat.expect_prompt()
        chat.send_message("please try again")
        chat.reply("The triage is back")
        chat.send_message("/quit")
        assert chat.wait_exit() == 0
    assert "to leave" not in chat.screen
    assert user_messages(transcript) == ["NCCL hangs on two nodes", "please try again"]


def test_ctrl_c_at_the_re_triage_question_cancels_the_message(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    recording = ROOT / "evals" / "clusters" / "sg-outbound-self-missing.json"
    script = DATA / "pending_change.json"
    args = ["--provider", "scripted", "--script", str(script), "--recorded", str(recording)]
    with spawn_chat([*args, "--transcript", str(transcript)], env=NO_CPR) as chat:
        chat.expect_prompt()
        chat.send_message("my NCCL job hangs")
        chat.reply("outbound self rule")
        chat.send_message("please check again")
        chat.expect(re.escape("Re-triage now? [y/N]"))
        chat.interrupt()
        chat.expect("Interrupted: that message was cancelled")
        chat.expect_prompt()
        chat.send_message("what next?")
        # The cancelled message reached no model: the script's next answer is this one's.
        chat.reply("Answer to the next message")
        chat.send_message("/quit")
        assert chat.wait_exit() == 0
    assert user_messages(transcript) == ["my NCCL job hangs", "what next?"]
