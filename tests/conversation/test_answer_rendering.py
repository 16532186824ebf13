"""How an answer is drawn on a terminal (issue 24, item 4): a command is never hard-wrapped
or padded, whatever the width; suggestion blocks carry stable numbers for /copy; plain
(piped) output is unchanged; and what /copy sends to the clipboard is the redacted, visible
command. Rendered with rich on an in-memory console 80 columns wide; the commands come from
data files as strings and are never run."""

from __future__ import annotations

import base64
import json
import re
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from agent.chat.copy import clipboard_text, osc52
from agent.commands.conversation_output import (
    AnswerPrinter,
    SuggestionNumbers,
    print_markdown,
    suggestion_blocks,
)
from agent.safety.gate import guard_text
from agent.safety.suggest import SuggestionContext, build_suggestion, render_suggestion

DATA = Path(__file__).with_name("data")
SCRIPT = json.loads((DATA / "long_egress_suggestion.json").read_text("utf-8"))
MODEL_TEXT: str = SCRIPT["turns"][0]["text"]
LONG = next(line for line in MODEL_TEXT.splitlines() if line.startswith("aws ec2 "))
CORDON = next(line for line in MODEL_TEXT.splitlines() if line.startswith("kubectl cordon"))
COPIES = [
    tuple(part.strip() for part in line.split(" | ", 1))
    for line in (DATA / "copy_commands.txt").read_text("utf-8").splitlines()
    if line.strip() and not line.startswith("#")
]
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
CONTEXT = SuggestionContext(triage_done=True)


def drawn(markdown: str, numbers: SuggestionNumbers | None = None, width: int = 80) -> str:
    out = StringIO()
    print_markdown(Console(file=out, width=width, force_terminal=True), markdown, numbers)
    return _ESCAPES.sub("", out.getvalue())


def test_a_long_suggested_command_is_one_line_at_80_columns() -> None:
    assert len(LONG) > 80
    block = render_suggestion(build_suggestion(LONG, purpose="p", context=CONTEXT), "en")
    lines = drawn(block).split("\n")
    # The whole command, exactly: no newline inside it, no padding around it.
    assert LONG in lines
    assert not [line for line in lines if line != LONG and line.strip() and line in LONG]


@pytest.mark.parametrize(
    "layout",
    [
        "```bash\n{c}\n```\n",
        "Text before.\n\n```\n{c}\n```\n\nText after.\n",
        "1. First step:\n\n   ```bash\n   {c}\n   ```\n\n   More on it.\n2. Second step.\n",
        "> Quoted:\n>\n> ```\n> {c}\n> ```\n",
        "Indented:\n\n    {c}\n",
    ],
)
def test_a_model_code_block_is_never_wrapped(layout: str) -> None:
    lines = drawn(layout.format(c=LONG)).split("\n")
    assert [line.strip() for line in lines if LONG in line] == [LONG]
    # The text around it is still there, in order.
    text = "\n".join(lines)
    for word in ("Text before", "Text after", "More on it", "Second step", "Quoted"):
        if word in layout:
            assert word in text


def test_the_list_goes_on_with_its_numbering_after_a_code_block() -> None:
    text = drawn("1. First:\n\n   ```\n   nvidia-smi\n   ```\n2. Second.\n3. Third.\n")
    assert text.index("First") < text.index("nvidia-smi") < text.index("2 Second")
    assert "3 Third" in text


def test_blocks_are_numbered_and_keep_their_numbers() -> None:
    guarded = guard_text(MODEL_TEXT, CONTEXT)
    assert [s.command for s in guarded.suggestions] == [LONG, CORDON]
    numbers = SuggestionNumbers()
    first = drawn(guarded.text, numbers)
    assert "[1] Suggested command (run yourself) · /copy 1" in first
    assert "[2] Suggested command (run yourself) · /copy 2" in first
    assert numbers.commands == [LONG, CORDON]
    # Shown again (/suggestions), the cordon keeps its number.
    again = drawn(render_suggestion(guarded.suggestions[1], "en"), numbers)
    assert "[2] Suggested command" in again
    assert len(numbers) == 2
    assert numbers.get(1) == LONG
    assert numbers.get(3) is None


def test_a_chinese_block_is_found_and_numbered() -> None:
    zh = SuggestionContext(triage_done=True, language="zh")
    block = render_suggestion(build_suggestion(LONG, purpose="p", context=zh), "zh")
    assert [b.command for b in suggestion_blocks(block)] == [LONG]
    assert "[1] 建议命令（请您自行执行） · /copy 1" in drawn(block, SuggestionNumbers())


def test_plain_output_is_unchanged_and_still_numbered() -> None:
    guarded = guard_text(MODEL_TEXT, CONTEXT)
    out = StringIO()
    printer = AnswerPrinter(no_color=True, stream=out, numbered=True)
    printer(guarded.text)
    assert out.getvalue() == guarded.text.rstrip("\n") + "\n\n"
    assert "[1]" not in out.getvalue()
    assert printer.numbers.commands == [LONG, CORDON]


@pytest.mark.parametrize(("expected", "written"), COPIES)
def test_the_clipboard_gets_the_redacted_visible_command(expected: str, written: str) -> None:
    command = written.replace("\\e", "\x1b").replace("\\r", "\r")
    text = clipboard_text(command)
    assert text == expected
    sequence = osc52(text)
    assert sequence is not None
    assert sequence.startswith("\x1b]52;c;")
    assert sequence.endswith("\x07")
    assert base64.b64decode(sequence[7:-1]).decode("utf-8") == expected


def test_an_overlong_payload_is_not_sent() -> None:
    assert osc52("x" * 100_000) is None
