"""Cutting streamed Markdown into segments: fences and paragraphs, from whole lines.

Only as much Markdown as cutting requires; what is inside a paragraph segment (code spans,
indented code blocks, emphasis, soft line breaks) is read by the renderer's own parser
(`agent.safety.rendered`). Fences follow CommonMark (three or more
backticks or tildes; the closing fence uses the same character, at least as many, and
nothing else). A fence may sit in a container: a block quote (``> ```bash``), a list item
(``1. ```bash``) or indented under one; its body lines are read with the container's quote
markers and indentation removed, and a quote that ends (a line without its ``>``) ends the
fence too. A line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r``, which the segmenter turns
into ``\\n`` (the same length: offsets hold). A `Segmenter` cuts text into segments that
are complete for classification: a paragraph ended by a blank line, or one whole fenced
block. It reads whole lines only, so feeding the text in any chunking yields the same
segments, which is what lets streamed output equal the output of the whole text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

# After the container's quote markers: indentation, an optional list marker, the run.
_FENCE_OPEN = re.compile(r"([ \t]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)?)(`{3,}|~{3,})([^\n]*)")
_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t\r]*\n?")
_BACKTICK_RUN = re.compile(r"`+")
_LONE_CR = re.compile(r"\r(?!\n)")
# A list item's marker, with the indentation before it and the blanks after it.
_LIST_ITEM = re.compile(r" {0,40}(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|(?=\r?\n|$))")


@dataclass(frozen=True)
class FenceMark:
    """An opening fence: its character, its length and the language word of its info.

    ``quotes`` and ``indent`` describe its container: how many ``>`` markers and how many
    columns of indentation (a list marker counts as its width) come before the fence, and
    so before every line of its body. ``run_at`` is where the fence run starts in the
    opening line."""

    char: str
    length: int
    language: str
    quotes: int = 0
    indent: int = 0
    run_at: int = 0

    @property
    def container(self) -> str:
        """The prefix that puts a new line in the same container as the fence's body."""
        return "> " * self.quotes + " " * self.indent

    def holds(self, line: str) -> bool:
        """Is ``line`` still inside the fence's container (a quote ends without its >)?"""
        return self.quotes == 0 or _quote_markers(line, self.quotes)[0] == self.quotes

    def strip(self, line: str) -> int:
        """How many leading characters of a body line are the container's prefix."""
        quotes, at = _quote_markers(line, self.quotes)
        if quotes and at < len(line) and line[at] == " ":
            at += 1  # the optional space after the last >
        spaces = 0
        while spaces < self.indent and at + spaces < len(line) and line[at + spaces] == " ":
            spaces += 1
        return at + spaces


def _quote_markers(line: str, most: int) -> tuple[int, int]:
    """(how many ``>`` markers, up to ``most``, start the line; where they end)."""
    quotes, at = 0, 0
    while quotes < most:
        i = at
        while i < len(line) and line[i] in " \t":
            i += 1
        if i >= len(line) or line[i] != ">":
            break
        quotes, at = quotes + 1, i + 1
    return quotes, at


def fence_open(line: str) -> FenceMark | None:
    """The fence a line opens, if it is an opening fence line (in a container or not)."""
    text = line.rstrip("\n")
    quotes, at = _quote_markers(text, len(text))
    if quotes and at < len(text) and text[at] == " ":
        at += 1
    match = _FENCE_OPEN.fullmatch(text, at)
    if match is None:
        return None
    lead, run, info = match.group(1), match.group(2), match.group(3).strip()
    if run[0] == "`" and "`" in info:
        return None  # CommonMark: a backtick fence's info string holds no backtick
    words = info.split()
    language = words[0].lower().strip("{}.") if words else ""
    return FenceMark(run[0], len(run), language, quotes, len(lead), match.start(2))


def fence_closes(line: str, mark: FenceMark) -> bool:
    match = _FENCE_CLOSE.fullmatch(line, mark.strip(line))
    if match is None:
        return False
    run = match.group(1)
    return run[0] == mark.char and len(run) >= mark.length


def fence_for(text: str, least: int = 3) -> str:
    """A backtick fence longer than any backtick run in ``text`` (at least ``least``)."""
    longest = max((len(run) for run in _BACKTICK_RUN.findall(text)), default=0)
    return "`" * max(least, longest + 1)


def lines_of(text: str) -> list[str]:
    """The lines of ``text`` with their newlines; only "\\n" ends a line, as in a segment
    (the `Segmenter` has turned lone "\\r" into "\\n"; ``str.splitlines`` would also split
    on form feeds and Unicode separators)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, line without its newline) for every line of ``text``."""
    offset = 0
    for line in lines_of(text):
        yield offset, line.rstrip("\r\n")
        offset += len(line)


@dataclass(frozen=True)
class Segment:
    """A piece of text complete for classification; `start` is its offset in the stream."""

    kind: Literal["text", "fence"]
    text: str
    start: int
    mark: FenceMark | None = None
    # The list item a text segment continues, as its marker alone ("  - x"): a paragraph
    # indented under an item after a blank line is the item's, not a code block.
    context: str = ""


class Segmenter:
    """Cuts streamed text into paragraphs and fenced blocks, reading whole lines only."""

    def __init__(self) -> None:
        self._partial: list[str] = []  # the current incomplete line, as received
        self._lines: list[str] = []  # complete lines of the current segment
        self._mark: FenceMark | None = None  # set while inside a fence
        self._offset = 0  # offset of the current segment's first character
        self._item = ""  # the marker of the list item open at this line ("" if none)
        self._item_indent = 0  # the column its content starts at
        self._blank = False  # the last line was blank
        self._context = ""  # the item open when the current segment started

    def feed(self, chunk: str) -> list[Segment]:
        if "\n" not in chunk and "\r" not in chunk:
            if chunk:
                self._partial.append(chunk)
            return []
        self._partial.append(chunk)
        data = "".join(self._partial)
        # A lone \r is a line break; one at the very end may be the first half of \r\n.
        held = "\r" if data.endswith("\r") else ""
        data = _LONE_CR.sub("\n", data[: len(data) - len(held)])
        *complete, rest = data.split("\n")
        rest += held
        self._partial = [rest] if rest else []
        out: list[Segment] = []
        for line in complete:
            out.extend(self._line(line + "\n"))
        return out

    def flush(self) -> list[Segment]:
        out: list[Segment] = []
        rest = _LONE_CR.sub("\n", "".join(self._partial))
        self._partial = []
        for line in lines_of(rest):
            out.extend(self._line(line))
        if self._lines:
            out.append(self._emit())
        return out

    def _track_item(self, line: str) -> None:
        """Follow the list item a line belongs to (outside fences): an item starts at its
        marker and ends at a line after a blank that is indented less than its content."""
        if not self._lines:
            self._context = self._item
        if not line.strip():
            self._blank = True
            return
        item = _LIST_ITEM.match(line)
        if item is not None:
            self._item = item.group().rstrip(" \t") + " x"
            self._item_indent = len(item.group().expandtabs(4))
            if not self._lines:
                self._context = ""  # the item is in the segment itself
        elif self._blank and len(line) - len(line.lstrip(" ")) < self._item_indent:
            self._item = ""
            if not self._lines:
                self._context = ""
        self._blank = False

    def _line(self, line: str) -> list[Segment]:
        if self._mark is not None:
            if not self._mark.holds(line):  # its block quote ended, and the fence with it
                return [self._emit(), *self._line(line)]
            self._lines.append(line)
            return [self._emit()] if fence_closes(line, self._mark) else []
        self._track_item(line)
        mark = fence_open(line)
        if mark is not None:
            out = [self._emit()] if self._lines else []
            self._mark = mark
            self._lines.append(line)
            return out
        self._lines.append(line)
        return [self._emit()] if not line.strip() else []

    def _emit(self) -> Segment:
        text = "".join(self._lines)
        kind: Literal["text", "fence"] = "fence" if self._mark is not None else "text"
        context = self._context if kind == "text" else ""
        segment = Segment(kind, text, self._offset, self._mark, context)
        self._offset += len(text)
        self._lines = []
        self._mark = None
        return segment


def segments(text: str) -> list[Segment]:
    """The segments of a whole text, exactly as a `Segmenter` fed it in pieces yields them."""
    segmenter = Segmenter()
    return segmenter.feed(text) + segmenter.flush()
