"""Checked text is shown text (issue 22, class 1): a state-changing command hidden with
invisible characters or terminal escapes is still caught, and the text the gate lets out is
exactly the text it classified, with nothing left for a terminal to hide."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.safety.gate import StreamGate, guard_text
from agent.safety.shell import judge
from agent.safety.suggest import SuggestionContext
from tools.visible import visible

CONTEXT = SuggestionContext(triage_done=True)
DATA = Path(__file__).with_name("data") / "hidden_mutations.txt"
COMMANDS = [
    line for line in DATA.read_text("utf-8").splitlines() if line and not line.startswith("#")
]
HIDERS = (
    "\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d",
    "\u202e", "\u2060", "\u2066", "\u2067", "\u2068", "\u2069", "\ufeff", "\u00ad",
    "\x1b[0m", "\x1b[8m", "\x1b[2K", "\x1b]0;x\x07", "\x00", "\x7f",
)  # fmt: skip
WRAPPERS = (
    "```bash\n{}\n```",
    "```\n{}\n```",
    "Run `{}` on the node.",
    "To fix it: {}",
    "    {}",
)


def test_the_corpus_is_mutating() -> None:
    assert COMMANDS
    assert all(judge(command).kind != "read_only" for command in COMMANDS)


def _hide(command: str, spots: list[int], hiders: list[str]) -> str:
    out = list(command)
    for spot, hider in sorted(zip(spots, hiders, strict=False), reverse=True):
        out.insert(min(spot, len(out)), hider)
    return "".join(out)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(COMMANDS),
    st.sampled_from(WRAPPERS),
    st.lists(st.integers(min_value=0, max_value=120), min_size=1, max_size=4),
    st.lists(st.sampled_from(HIDERS), min_size=1, max_size=4),
)
def test_hidden_characters_never_let_a_command_out_bare(
    command: str, wrapper: str, spots: list[int], hiders: list[str]
) -> None:
    text = wrapper.format(_hide(command, spots, hiders))
    guarded = guard_text(text, CONTEXT)
    assert [s.command for s in guarded.suggestions] == [command]
    assert visible(guarded.text) == guarded.text  # nothing left for a terminal to hide
    assert not any(h in guarded.text for h in HIDERS)


@pytest.mark.parametrize("command", COMMANDS)
def test_streamed_pieces_give_the_same_answer(command: str) -> None:
    text = "Then run:\n\n```bash\n" + _hide(command, [4, 9], ["\x1b[8m", "\u202e"]) + "\n```\n"
    whole = guard_text(text, CONTEXT)
    stream = StreamGate(CONTEXT)
    shown: list[str] = []
    for start in range(0, len(text), 3):  # cuts inside escapes and surrogates too
        shown.extend(stream.feed(text[start : start + 3]))
    shown.extend(stream.flush())
    assert "".join(shown) == whole.text
    assert [s.command for s in stream.suggestions] == [command]


def test_a_read_only_command_is_shown_as_the_reader_sees_it() -> None:
    guarded = guard_text("Check with `nvidia\u200b-smi -q -d ECC`.", CONTEXT)
    assert guarded.suggestions == []
    assert guarded.text == "Check with `nvidia-smi -q -d ECC`."


@pytest.mark.parametrize("command", COMMANDS)
def test_a_suggestion_tool_call_is_judged_as_shown(command: str) -> None:
    from agent.safety.suggest import build_suggestion

    hidden = _hide(command, [3, 7], ["\u200e", "\x1b[0m"])
    suggestion = build_suggestion(hidden, purpose="p", context=CONTEXT)
    clean = build_suggestion(command, purpose="p", context=CONTEXT)
    assert suggestion.command == command
    assert (suggestion.kind, suggestion.flags) == (clean.kind, clean.flags)
