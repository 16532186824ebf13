"""Read the reference documents: one section's text, and the command blocks in it.

The agent reads a section before proposing anything, and the integrity tests use the same
parser to hold the document to its contract (anchors, parts, classified commands).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from tools.sections import CATALOG_PATH, REFERENCE_PATH, SECTIONS, section

ROOT = Path(__file__).resolve().parents[1]
_ANCHOR = re.compile(r'^<a id="(?P<anchor>[a-z0-9-]+)"></a>\s*$')
_HEADING = re.compile(r"^(?P<hashes>#{2,6}) (?P<id>[A-O](?:\.\d+(?:\.[a-z])?)?) (?P<title>.+?)\s*$")
_FENCE = re.compile(r"^```(?P<lang>[a-z]*)\s*$")
SUGGESTED_LABEL = "**Suggested command (run yourself)**"
CONFIRM_LABEL = "**Confirm (read-only).**"
IAC_LABEL = "> **IaC note.**"
PART_LABELS = (
    "**What it means.**",
    CONFIRM_LABEL,
    "**Root causes (most likely first).**",
    "**Fix.**",
    "**Hand off or escalate.**",
)

BlockKind = Literal["suggested", "confirm", "other"]


@dataclass(frozen=True)
class CommandBlock:
    section: str
    kind: BlockKind
    commands: tuple[str, ...]
    line: int
    followed_by_iac_note: bool


@cache
def reference_text() -> str:
    return (ROOT / REFERENCE_PATH).read_text(encoding="utf-8")


@cache
def catalog_text() -> str:
    return (ROOT / CATALOG_PATH).read_text(encoding="utf-8")


@dataclass(frozen=True)
class _Span:
    id: str
    start: int  # index of the heading line
    end: int  # index one past the last line of the section (including subsections)
    own_end: int  # index one past the last line before the first subsection


@cache
def _spans() -> dict[str, _Span]:
    lines = reference_text().splitlines()
    headings: list[tuple[int, str, int]] = []  # (line index, id, level)
    for index, line in enumerate(lines):
        match = _HEADING.match(line)
        if match and match.group("id") in SECTIONS:
            headings.append((index, match.group("id"), len(match.group("hashes"))))
    spans: dict[str, _Span] = {}
    for position, (start, section_id, level) in enumerate(headings):
        end = len(lines)
        own_end = None
        for later_start, _, later_level in headings[position + 1 :]:
            if own_end is None:
                own_end = later_start
            if later_level <= level:
                end = later_start
                break
        spans[section_id] = _Span(section_id, start, end, own_end if own_end is not None else end)
    return spans


def anchors() -> dict[str, str]:
    """Anchor -> heading text of the line that follows it."""
    lines = reference_text().splitlines()
    found: dict[str, str] = {}
    for index, line in enumerate(lines[:-1]):
        match = _ANCHOR.match(line)
        if match:
            found[match.group("anchor")] = lines[index + 1]
    return found


def section_text(section_id: str, *, include_subsections: bool = True) -> str:
    """The Markdown of one section, heading included."""
    section(section_id)
    span = _spans().get(section_id)
    if span is None:
        raise KeyError(f"section {section_id} has no heading in {REFERENCE_PATH}")
    lines = reference_text().splitlines()
    end = span.end if include_subsections else span.own_end
    return "\n".join(lines[span.start : end]).strip() + "\n"


def _commands(block_lines: list[str]) -> tuple[str, ...]:
    commands: list[str] = []
    pending = ""
    for raw in block_lines:
        line = raw.rstrip()
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        commands.append((pending + line.strip()).strip())
        pending = ""
    if pending.strip():
        commands.append(pending.strip())
    return tuple(commands)


def command_blocks(section_id: str) -> list[CommandBlock]:
    """Every ```bash block in a section's own text (not its subsections), with its role."""
    text = section_text(section_id, include_subsections=False)
    lines = text.splitlines()
    blocks: list[CommandBlock] = []
    current_part = ""
    last_paragraph = ""
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("**"):
            current_part = line
        fence = _FENCE.match(line)
        if fence and fence.group("lang") in ("bash", "sh", "shell"):
            body: list[str] = []
            index += 1
            while index < len(lines) and not lines[index].startswith("```"):
                body.append(lines[index])
                index += 1
            following = next((ln for ln in lines[index + 1 :] if ln.strip()), "")
            if last_paragraph.startswith(SUGGESTED_LABEL):
                kind: BlockKind = "suggested"
            elif current_part.startswith(CONFIRM_LABEL):
                kind = "confirm"
            else:
                kind = "other"
            blocks.append(
                CommandBlock(
                    section=section_id,
                    kind=kind,
                    commands=_commands(body),
                    line=index,
                    followed_by_iac_note=following.startswith(IAC_LABEL),
                )
            )
        elif fence:
            index += 1
            while index < len(lines) and not lines[index].startswith("```"):
                index += 1
        elif line.strip():
            last_paragraph = line
        index += 1
    return blocks
