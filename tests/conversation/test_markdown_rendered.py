"""Commands are found in the Markdown as it renders (issue 22, class 4).

Indented code blocks, code spans side by side and paragraphs broken over lines render as
one piece of code or one line; the gate reads them so. The cases are in
data/markdown_as_rendered.txt, each with the one command the gate must turn into a block
(or none, for the read-only counter-cases)."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from rich.markdown import Markdown

from agent.safety.extract import find_commands
from agent.safety.gate import StreamGate, guard_text, normalize
from agent.safety.rendered import _PARSER, read
from agent.safety.shell import judge
from agent.safety.suggest import SuggestionContext, render_suggestion

DATA = Path(__file__).with_name("data") / "markdown_as_rendered.txt"
CONTEXT = SuggestionContext(triage_done=True)
NOTE = " (see the suggested command below)"


def _cases() -> list[tuple[str, str, str]]:
    cases: list[tuple[str, str, str]] = []
    body: list[str] = []
    for line in DATA.read_text("utf-8").splitlines(keepends=True):
        if line.startswith("=== "):
            body = []
            name, expected = line[4:].rstrip("\n").split(" | ")
            cases.append((name, expected, ""))
        elif cases:
            body.append(line)
            cases[-1] = (*cases[-1][:2], "".join(body))
    return cases


CASES = _cases()
HIDDEN = [(text, expected) for name, expected, text in CASES if expected != "-"]
BENIGN = [text for name, expected, text in CASES if expected == "-"]
HIDDEN_IDS = [name for name, expected, _ in CASES if expected != "-"]
BENIGN_IDS = [name for name, expected, _ in CASES if expected == "-"]


def test_the_corpus_has_every_shape_and_its_counter_cases() -> None:
    names = " ".join(name for name, _, _ in CASES)
    for shape in ("indented", "adjacent-spans", "soft-break", "benign-indented", "benign-adj"):
        assert shape in names
    assert all(judge(expected).kind != "read_only" for _, expected in HIDDEN)


def _streamed(text: str, size: int) -> str:
    gate = StreamGate(CONTEXT)
    out: list[str] = []
    for i in range(0, len(text), size):
        out.extend(gate.feed(text[i : i + size]))
    out.extend(gate.flush())
    return "".join(out)


def _bare(text: str, blocks: list[str]) -> list[str]:
    """Commands needing a block in ``text`` outside ``blocks``, not followed by the note
    (one found only as rendered spans its paragraph, the note at the paragraph's end)."""
    for block in blocks:
        text = text.replace(block.rstrip("\n"), "")
    return [
        f.command
        for f in find_commands(text)
        if judge(f.command).kind != "read_only"
        and not text.startswith(NOTE, f.end)
        and not text[f.start : f.end].endswith(NOTE.rstrip())
    ]


def _rendered_code(text: str) -> list[tuple[str, str]]:
    """(kind, content) of every code block and code span as rich's parser reads ``text``."""
    out: list[tuple[str, str]] = []
    for token in Markdown(text).parsed:
        if token.type in ("fence", "code_block"):
            out.append((token.type, token.content))
        for child in token.children or []:
            if child.type == "code_inline":
                out.append((child.type, child.content))
    return out


@pytest.mark.parametrize(("text", "expected"), HIDDEN, ids=HIDDEN_IDS)
def test_a_command_as_rendered_leaves_as_one_block(text: str, expected: str) -> None:
    guarded = guard_text(text, CONTEXT)
    # One block, for the command as the reader reads it (not "aws sagemaker" alone).
    assert [normalize(s.command) for s in guarded.suggestions] == [expected]
    blocks = [render_suggestion(s, "en") for s in guarded.suggestions]
    assert _bare(guarded.text, blocks) == []
    for size in (1, 7, 10_000):
        assert _streamed(text, size) == guarded.text
    # As rendered, the command is in the block's fence, and in no code block of its own.
    code = _rendered_code(guarded.text)
    fenced = [content for kind, content in code if kind == "fence"]
    assert any(normalize(content) == expected for content in fenced)
    assert not any(
        kind == "code_block" and expected in normalize(content) for kind, content in code
    )


@pytest.mark.parametrize("text", BENIGN, ids=BENIGN_IDS)
def test_read_only_text_as_rendered_passes_unchanged(text: str) -> None:
    guarded = guard_text(text, CONTEXT)
    assert guarded.suggestions == []
    assert guarded.text == text


@pytest.mark.parametrize("text", [text for _, _, text in CASES], ids=[n for n, _, _ in CASES])
def test_the_gate_parses_as_rich_renders(text: str) -> None:
    """The gate's parser is rich's (the same rules, the same tokens), only noting positions."""
    rich_tokens = Markdown(text).parsed
    ours = _PARSER.parse(text, {})
    assert [(t.type, t.map, t.content) for t in ours] == [
        (t.type, t.map, t.content) for t in rich_tokens
    ]
    plain = MarkdownIt().enable("strikethrough").enable("table").parse(text)
    assert [[c.type for c in t.children or []] for t in ours] == [
        [c.type for c in t.children or []] for t in plain
    ]


def test_positions_point_into_the_text() -> None:
    text = "> Run `kubectl`\n> `get nodes` and **sudo\n> reboot** [here](http://x).\n"
    reading = read(text)
    assert [(text[s.start : s.end], s.content) for s in reading.spans] == [
        ("`kubectl`", "kubectl"),
        ("`get nodes`", "get nodes"),
    ]
    assert [text[a:b] for a, b in reading.markup] == ["*", "*", "*", "*", "[", "](http://x)"]
    assert [text[a:b] for a, b, _ in reading.joins] == ["\n> ", "\n> "]


def test_an_indented_block_maps_its_commands_back_to_its_lines() -> None:
    text = "Steps:\n\n> intro\n>\n>     kubectl get nodes\n>     sudo reboot\n"
    found = find_commands(text)
    assert [(f.command, f.where, text[f.start : f.end]) for f in found] == [
        ("kubectl get nodes", "fence", "kubectl get nodes"),
        ("sudo reboot", "fence", "sudo reboot"),
    ]


def test_table_cells_are_found_in_their_row_in_order() -> None:
    text = "| `x` | `x` |\n|---|---|\n| a \\| `ls` | `ls` |\n"
    spans = read(text).spans
    assert [text[s.start : s.end] for s in spans] == ["`x`", "`x`", "`ls`", "`ls`"]
    assert len({s.start for s in spans}) == 4  # each in its own cell, not the first found


def test_a_paragraph_indented_under_a_list_item_stays_a_paragraph() -> None:
    """Four spaces after a blank line continue a list item's text (as rich renders it):
    the sentence keeps its place and gets the note; it is not read as a code block."""
    text = (
        "- Step one:\n\n    Restart it with sudo systemctl restart slurmd if it hangs.\n\n"
        "- Step two\n\nNot in the list:\n\n    sudo reboot\n"
    )
    guarded = guard_text(text, CONTEXT)
    assert [s.command for s in guarded.suggestions] == [
        "sudo systemctl restart slurmd",
        "sudo reboot",
    ]
    assert f"sudo systemctl restart slurmd{NOTE} if it hangs." in guarded.text
    assert "    sudo reboot" not in guarded.text  # the code block, replaced in place
    for size in (1, 5, 64):
        assert _streamed(text, size) == guarded.text
