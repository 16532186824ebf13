"""The Markdown structure the safety layer needs: fences, inline code spans, segments.

Only as much Markdown as finding commands requires. Fences follow CommonMark (up to three
spaces of indentation, three or more backticks or tildes; the closing fence uses the same
character, at least as many, and nothing else). A `Segmenter` cuts text into segments that
are complete for classification: a paragraph ended by a blank line, or one whole fenced
block. It reads whole lines only, so feeding the text in any chunking yields the same
segments, which is what lets streamed output equal the output of the whole text.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")
_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t\r]*\n?")
_BACKTICK_RUN = re.compile(r"`+")


@dataclass(frozen=True)
class FenceMark:
    """An opening fence: its character, its length and the language word of its info."""

    char: str
    length: int
    language: str


def fence_open(line: str) -> FenceMark | None:
    """The fence a line opens, if it is an opening fence line."""
    match = _FENCE_OPEN.fullmatch(line.rstrip("\n"))
    if match is None:
        return None
    run, info = match.group(1), match.group(2).strip()
    if run[0] == "`" and "`" in info:
        return None  # CommonMark: a backtick fence's info string holds no backtick
    words = info.split()
    language = words[0].lower().strip("{}.") if words else ""
    return FenceMark(run[0], len(run), language)


def fence_closes(line: str, mark: FenceMark) -> bool:
    match = _FENCE_CLOSE.fullmatch(line)
    if match is None:
        return False
    run = match.group(1)
    return run[0] == mark.char and len(run) >= mark.length


@dataclass(frozen=True)
class CodeSpan:
    """An inline code span: [start, end) with its backticks, and its content bounds."""

    start: int
    end: int
    content_start: int
    content_end: int


def code_spans(text: str) -> list[CodeSpan]:
    """Inline code spans: a run of N backticks closed by the next run of exactly N.

    Runs are indexed by length so each opening finds its closing by bisection: linear-ish
    even on text full of stray backticks (a regex with a lazy body would be quadratic).
    """
    runs = [(m.start(), m.end()) for m in _BACKTICK_RUN.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    spans: list[CodeSpan] = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        position = bisect.bisect_right(same, index)
        if position == len(same):
            index += 1  # no closing run: the backticks are literal
            continue
        closing = same[position]
        spans.append(CodeSpan(start, runs[closing][1], end, runs[closing][0]))
        index = closing + 1
    return spans


def lines_of(text: str) -> list[str]:
    """The lines of ``text`` with their newlines; only "\\n" ends a line, as in `Segmenter`
    (``str.splitlines`` would also split on form feeds and Unicode separators)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


@dataclass(frozen=True)
class Segment:
    """A piece of text complete for classification; `start` is its offset in the stream."""

    kind: Literal["text", "fence"]
    text: str
    start: int
    mark: FenceMark | None = None


class Segmenter:
    """Cuts streamed text into paragraphs and fenced blocks, reading whole lines only."""

    def __init__(self) -> None:
        self._partial: list[str] = []  # the current incomplete line, as received
        self._lines: list[str] = []  # complete lines of the current segment
        self._mark: FenceMark | None = None  # set while inside a fence
        self._offset = 0  # offset of the current segment's first character

    def feed(self, chunk: str) -> list[Segment]:
        if "\n" not in chunk:
            if chunk:
                self._partial.append(chunk)
            return []
        self._partial.append(chunk)
        data = "".join(self._partial)
        *complete, rest = data.split("\n")
        self._partial = [rest] if rest else []
        out: list[Segment] = []
        for line in complete:
            out.extend(self._line(line + "\n"))
        return out

    def flush(self) -> list[Segment]:
        out: list[Segment] = []
        rest = "".join(self._partial)
        self._partial = []
        if rest:
            out.extend(self._line(rest))
        if self._lines:
            out.append(self._emit())
        return out

    def _line(self, line: str) -> list[Segment]:
        if self._mark is not None:
            self._lines.append(line)
            return [self._emit()] if fence_closes(line, self._mark) else []
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
        segment = Segment(kind, text, self._offset, self._mark)
        self._offset += len(text)
        self._lines = []
        self._mark = None
        return segment


def segments(text: str) -> list[Segment]:
    """The segments of a whole text, exactly as a `Segmenter` fed it in pieces yields them."""
    segmenter = Segmenter()
    return segmenter.feed(text) + segmenter.flush()
