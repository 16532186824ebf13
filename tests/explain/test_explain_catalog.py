"""references/node-issue-catalog.md: shape, section pointers, read-only confirm commands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools.command_safety import classify
from tools.explain import explain
from tools.sections import CATALOG_PATH, SECTIONS

ROOT = Path(__file__).resolve().parents[2]
LABELS = (
    "**Symptom (as customers write it).**",
    "**Signals.**",
    "**Cause.**",
    "**Confirm.**",
    "**Fix.**",
    "**Section.**",
)
_HEADING = re.compile(r"^### (\d+)\. (.+)$", re.MULTILINE)
_SECTION = re.compile(r"§ ([A-O](?:\.\d+(?:\.[a-z])?)?)")
_BASH = re.compile(r"```bash\n(.*?)```", re.DOTALL)
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _entries() -> list[tuple[int, str, str]]:
    text = (ROOT / CATALOG_PATH).read_text(encoding="utf-8")
    heads = list(_HEADING.finditer(text))
    entries = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[head.end() : end].split("\n## ", 1)[0]
        entries.append((int(head.group(1)), head.group(2), body))
    return entries


def _part(body: str, label: str) -> str:
    start = body.index(label) + len(label)
    following = [body.index(other) for other in LABELS if other in body[start:]]
    ends = [i for i in following if i > start]
    return body[start : min(ends) if ends else len(body)]


def _commands(block: str) -> list[str]:
    joined = block.replace("\\\n", " ")
    return [
        line.strip() for line in joined.splitlines() if line.strip() and not line.startswith("#")
    ]


ENTRIES = _entries()


def test_at_least_thirty_numbered_entries() -> None:
    assert len(ENTRIES) >= 30
    assert [number for number, _, _ in ENTRIES] == list(range(1, len(ENTRIES) + 1))


@pytest.mark.parametrize(("number", "title", "body"), ENTRIES, ids=[t for _, t, _ in ENTRIES])
def test_entry_has_every_label_in_order(number: int, title: str, body: str) -> None:
    positions = [body.find(label) for label in LABELS]
    assert -1 not in positions, title
    assert positions == sorted(positions), title


@pytest.mark.parametrize(("number", "title", "body"), ENTRIES, ids=[t for _, t, _ in ENTRIES])
def test_section_pointer_resolves(number: int, title: str, body: str) -> None:
    pointers = _SECTION.findall(_part(body, "**Section.**"))
    assert pointers, title
    assert all(p in SECTIONS for p in pointers), pointers


@pytest.mark.parametrize(("number", "title", "body"), ENTRIES, ids=[t for _, t, _ in ENTRIES])
def test_confirm_commands_are_read_only(number: int, title: str, body: str) -> None:
    blocks = _BASH.findall(_part(body, "**Confirm.**"))
    assert blocks, title
    for block in blocks:
        for command in _commands(block):
            result = classify(re.sub(r"<[A-Z0-9_]+>", "x", command))
            assert result.kind == "read_only", (title, command, result.reason)


def test_symptoms_include_chinese_quotes() -> None:
    chinese = [t for _, t, body in ENTRIES if _CJK.search(_part(body, LABELS[0]))]
    assert len(chinese) >= 12


def _family(section_id: str) -> set[str]:
    top = section_id.split(".", maxsplit=1)[0]
    return {s for s in SECTIONS if s == top or s.startswith(top + ".")}


@pytest.mark.parametrize(("number", "title", "body"), ENTRIES, ids=[t for _, t, _ in ENTRIES])
def test_explain_finds_the_entry_from_its_signals(number: int, title: str, body: str) -> None:
    wanted = _SECTION.findall(_part(body, "**Section.**"))[0]
    ranked = [m.section for m in explain(_part(body, "**Signals.**"), top=3).matches]
    assert _family(wanted) & set(ranked), (title, wanted, ranked)
