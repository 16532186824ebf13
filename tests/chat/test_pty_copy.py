"""An 80-column chat shows a long suggested command whole on one line, numbered, and
`/copy 1` prints it alone (and sends it to the clipboard with OSC 52). The command comes
from the scripted model's data file and is never run."""

from __future__ import annotations

import base64
import json
import re

from .pty_chat import ROOT, spawn_chat

SCRIPT = ROOT / "tests" / "conversation" / "data" / "long_egress_suggestion.json"
TEXT = json.loads(SCRIPT.read_text("utf-8"))["turns"][0]["text"]
COMMAND = next(line for line in TEXT.splitlines() if line.startswith("aws ec2 "))
CORDON = next(line for line in TEXT.splitlines() if line.startswith("kubectl cordon"))


def test_a_long_command_is_one_line_and_copies_whole() -> None:
    assert len(COMMAND) > 80  # longer than the terminal: rich used to wrap it
    args = ["--provider", "scripted", "--script", str(SCRIPT)]
    args += ["--recorded", str(ROOT / "evals" / "clusters" / "sg-outbound-self-missing.json")]
    with spawn_chat(args, columns=80) as chat:
        chat.expect_prompt()
        chat.send_message("my NCCL job hangs")
        # The group belongs to a CloudFormation stack in this recording: the IaC paragraph
        # states it (issue 25) rather than asking.
        answer = chat.reply("belongs to CloudFormation stack")
        lines = [line.rstrip() for line in answer.splitlines()]
        # The terminal soft-wraps it: the program wrote it as one line, with no padding.
        assert COMMAND in lines
        assert CORDON in lines
        assert any(line.startswith("[1] Suggested command") for line in lines)
        assert any(line.startswith("[2] Suggested command") for line in lines)
        # One IaC paragraph, after both blocks (the cordon brings none of its own).
        assert answer.count("belongs to CloudFormation stack") == 1
        assert answer.rindex("Blast radius") < answer.index("belongs to CloudFormation stack")
        start = len(chat.seen)
        chat.send_message("/copy 1")
        copied = chat.reply(re.escape(COMMAND))
        assert COMMAND in [line.rstrip() for line in copied.splitlines()]
        payload = base64.b64encode(COMMAND.encode()).decode()
        assert f"\x1b]52;c;{payload}\x07" in chat.seen[start:]
        chat.send_message("/copy 7")
        assert "use /copy 1 to /copy 2" in chat.reply("no suggested command 7")
        chat.send_message("/quit")
        assert chat.wait_exit() == 0
