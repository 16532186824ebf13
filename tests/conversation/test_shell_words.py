"""The gate reads a command word as the shell does and knows no exemption for tools it does
not know (issue 22, classes 3, 5 and 9).

Every case of ``data/shell_words.txt`` goes through the real gate (`guard_text`). A command
marked "all" is placed in prose, inline code, a fence without a language and a bash fence,
and each place must give the same one block with the same warnings: a quoted, escaped or
path-prefixed tool name, a shell prompt before it, an interpreter running inline code, a
pipe into a shell or a PowerShell cmdlet is no way around the gate. Counter-cases (kind
``-``) give no block: read-only commands however spelled, and signals the text reports as
already sent. The commands are strings and are never run."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.safety.gate import guard_text
from agent.safety.model import Suggestion
from agent.safety.suggest import SuggestionContext
from tools.command_safety.words import prompt_length

DATA = Path(__file__).with_name("data") / "shell_words.txt"
ROWS = [
    tuple(part.strip() for part in line.split("|", 4))
    for line in DATA.read_text("utf-8").splitlines()
    if line.strip() and not line.startswith("#")
]
CONTEXT = SuggestionContext(triage_done=True)


def _places(where: str, text: str) -> dict[str, str]:
    if where == "text":
        return {"text": text + "\n"}
    return {
        "prose": f"Then {text}\n",
        "inline": f"Then run `{text}` on the node.\n",
        "unlabelled fence": f"```\n{text}\n```\n",
        "bash fence": f"```bash\n{text}\n```\n",
    }


def _blocks(text: str) -> list[Suggestion]:
    return guard_text(text, CONTEXT, already_suggested=[]).suggestions


@pytest.mark.parametrize(("where", "kind", "flags", "iac", "text"), ROWS)
def test_every_place_gives_the_block_its_command_calls_for(
    where: str, kind: str, flags: str, iac: str, text: str
) -> None:
    for place, markdown in _places(where, text).items():
        blocks = _blocks(markdown)
        if kind == "-":
            assert blocks == [], place
            continue
        assert len(blocks) == 1, (place, [b.command for b in blocks])
        (block,) = blocks
        assert block.mutating, place
        assert block.kind == kind, place
        assert sorted(block.flags) == sorted([] if flags == "-" else flags.split(",")), place
        assert (block.iac_warning is not None) is (iac == "yes"), place
        # The block shows the command, not the prompt it was pasted with.
        assert prompt_length(block.command) == 0, (place, block.command)


def test_the_data_file_covers_each_class_and_counter_cases() -> None:
    kinds = [row[1] for row in ROWS]
    assert kinds.count("-") >= 15
    assert len(kinds) - kinds.count("-") >= 40
