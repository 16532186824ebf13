"""The reference documents keep their contract with the code that points into them."""

from __future__ import annotations

import re

import pytest

from tools.command_safety import classify
from tools.references import (
    PART_LABELS,
    anchors,
    catalog_text,
    command_blocks,
    reference_text,
    section_text,
)
from tools.registry import all_checks
from tools.sections import SECTIONS, TOP_LEVEL_IDS

POINTER = re.compile(r"§\s*([A-O](?:\.\d+(?:\.[a-z])?)?)\b")
ALL_IDS = list(SECTIONS)


@pytest.mark.parametrize("section_id", ALL_IDS)
def test_every_section_has_its_anchor_and_exact_heading(section_id: str) -> None:
    section = SECTIONS[section_id]
    assert anchors().get(section.anchor) == section.heading


@pytest.mark.parametrize("section_id", TOP_LEVEL_IDS)
def test_top_level_sections_have_every_part_in_order(section_id: str) -> None:
    text = section_text(section_id, include_subsections=False)
    positions = [text.find(label) for label in PART_LABELS]
    missing = [label for label, pos in zip(PART_LABELS, positions, strict=True) if pos < 0]
    assert not missing, f"§ {section_id} lacks {missing}"
    assert positions == sorted(positions), f"§ {section_id} parts out of order"


def test_every_pointer_in_the_documents_resolves() -> None:
    for name, text in (("reference", reference_text()), ("catalogue", catalog_text())):
        unknown = sorted({m for m in POINTER.findall(text) if m not in SECTIONS})
        assert not unknown, f"{name} points to unknown sections {unknown}"


def test_every_check_points_to_a_section_with_a_heading() -> None:
    headings = set(anchors().values())
    for spec in all_checks():
        assert SECTIONS[spec.section].heading in headings, spec.id


def _blocks() -> list[tuple[str, int, str, str]]:
    rows: list[tuple[str, int, str, str]] = []
    for section_id in ALL_IDS:
        for block in command_blocks(section_id):
            for command in block.commands:
                rows.append((section_id, block.line, block.kind, command))
    return rows


BLOCKS = _blocks()


def test_the_reference_has_plenty_of_commands() -> None:
    kinds = {kind for _, _, kind, _ in BLOCKS}
    assert {"suggested", "confirm"} <= kinds
    assert len(BLOCKS) > 100


@pytest.mark.parametrize(
    ("section_id", "line", "kind", "command"),
    BLOCKS,
    ids=[f"{s}:{line}:{k}" for s, line, k, _ in BLOCKS],
)
def test_every_command_is_classified_consistently_with_its_block(
    section_id: str, line: int, kind: str, command: str
) -> None:
    verdict = classify(command)
    if kind == "suggested":
        assert verdict.kind == "mutating", (command, verdict)
    elif kind == "confirm":
        assert verdict.kind == "read_only", (command, verdict)
    else:
        assert verdict.kind != "unknown", (command, verdict)


@pytest.mark.parametrize("section_id", ALL_IDS)
def test_configuration_changes_carry_the_iac_note(section_id: str) -> None:
    for block in command_blocks(section_id):
        if block.kind != "suggested":
            continue
        touching = [c for c in block.commands if classify(c).touches_config]
        if touching:
            assert block.followed_by_iac_note, (section_id, block.line, touching)


def test_catalogue_has_at_least_25_patterns_each_with_a_section() -> None:
    entries = re.split(r"^### \d+\. ", catalog_text(), flags=re.MULTILINE)[1:]
    assert len(entries) >= 25
    for entry in entries:
        sections = POINTER.findall(entry.split("**Section.**", 1)[-1])
        assert sections, entry.splitlines()[0]
        assert all(s in SECTIONS for s in sections)
