"""A segment read as the terminal renders it: markdown-it-py, configured as rich configures it.

rich draws the model's Markdown with ``MarkdownIt().enable("strikethrough").enable("table")``
(rich/markdown.py); reading a segment with the same parser means the gate sees the same code
blocks, code spans and paragraphs the user sees. What `read` gives, in offsets of the
segment's text:

* **code blocks** — indented code blocks, and any fence the streaming `Segmenter` did not cut
  out on its own. Each is handed on as a fenced `Segment` of its own (``synthetic``, its
  lines without the indentation, inside the block quotes it sits in), so its lines are read
  and rewritten exactly as an unlabelled fence's; `CodeBlock.place` maps an offset of that
  fence back into the segment.
* **code spans** — where each inline code span starts and ends, and its content as rendered
  (line endings read as spaces).
* **markup** — the delimiters that render as emphasis or strikethrough, and the brackets
  and targets of links and images: prose is read with them blanked.
* **joins** — where a paragraph's lines are joined on screen (a soft line break, or a
  backslash hard break): a paragraph renders as one line, and is read as one.
* **rendered** — each paragraph (heading, table cell) holding a character reference, a
  backslash or HTML, as the reader sees it, built from the parser's inline tokens rather
  than from the source: character references and backslash escapes resolved
  (``&#x72;eboot`` reads ``reboot``), HTML tags dropped as rich drops them, a soft break a
  space and a hard break a new line, with the code in it (code spans, and
  the text of ``<code>``-like HTML elements) marked. It is a second look at what the
  source reading may read differently (`agent.safety.inline`), placed at the paragraph's
  end, where no offset inside it is known.

A segment that continues a list item (`Segment.context`) is parsed after the item's marker,
so text indented under the item reads as the item's paragraph, as it renders.

markdown-it-py gives block tokens their line range (``Token.map``) but inline tokens no
column. The inline rules are wrapped to note ``state.pos`` before and after each one that
makes tokens (positions in the inline content), and a post-processing rule collects them
before adjacent text is merged; a content line is then located in its source line (its
container's prefix — quote markers, list marker, indentation — removed). Parsing is linear
in the segment, as is everything here.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.helpers import parseLinkLabel
from markdown_it.rules_inline import StateInline

from agent.safety.markdown import FenceMark, Segment, fence_for

_Rule = Callable[[StateInline, bool], bool]
_DELIMITERS = frozenset({"emphasis", "strikethrough"})
_LABELLED = {"link": 1, "image": 2}  # characters before the label: "[" or "!["
_ALIGN_AHEAD = 16  # characters searched for the next one of a line read differently


@dataclass
class _Inline:
    """What one inline parse noted, in offsets of its content."""

    code: list[tuple[int, int, str]] = field(default_factory=list)
    markup: list[tuple[int, int]] = field(default_factory=list)
    breaks: list[tuple[int, bool]] = field(default_factory=list)  # (offset, after a "\\")


def _positioned(name: str, rule: _Rule) -> _Rule:
    def run(state: StateInline, silent: bool) -> bool:
        start, count, pending = state.pos, len(state.tokens), bool(state.pending)
        done = rule(state, silent)
        if not done or silent:
            return done
        # Text waiting when a rule pushes its first token is flushed first: not the rule's.
        new = state.tokens[count + (1 if pending and len(state.tokens) > count else 0) :]
        if name in _DELIMITERS:  # one token a delimiter (or a pair of ~), in order
            at = start
            for token in new:
                token.meta["at"], token.meta["delimiter"] = (at, at + len(token.content)), True
                at += len(token.content)
            return done
        for token in new:
            token.meta.setdefault("at", (start, state.pos))  # nested tokens keep their own
        if name in _LABELLED and new:
            label = parseLinkLabel(state, start + _LABELLED[name] - 1, name == "link")
            new[0].meta["label"] = (start + _LABELLED[name], label)
        return done

    return run


def _collect(state: StateInline) -> None:
    """Note the positions of one inline content (run before adjacent text is merged)."""
    noted = _Inline()
    for token in state.tokens:
        at: tuple[int, int] | None = token.meta.get("at")
        if at is None:
            continue
        if token.type == "code_inline":
            noted.code.append((at[0], at[1], token.content))
        elif token.type == "softbreak":
            noted.breaks.append((at[0], False))
        elif token.type == "hardbreak" and state.src[at[0]] == "\\":
            noted.breaks.append((at[0], True))
        elif token.meta.get("delimiter") and not token.content:  # paired: it renders as style
            noted.markup.append(at)
        elif token.type in ("link_open", "image") and "label" in token.meta:
            label_start, label_end = token.meta["label"]
            noted.markup.append((at[0], label_start))
            if label_end >= 0:
                noted.markup.append((label_end, at[1]))
    # In parse order, with the content parsed: an image's description is parsed (and noted)
    # within its paragraph, before it, and is told apart by its content.
    state.env.setdefault("noted", []).append((state.src, noted))


def _parser() -> MarkdownIt:
    parser = MarkdownIt().enable("strikethrough").enable("table")  # as rich.markdown has it
    # Wrap the rules that rich's parser has enabled, by name, at their place.
    rules = parser.inline.ruler.__rules__
    for rule in rules:
        if rule.name != "text" and rule.enabled:
            parser.inline.ruler.at(rule.name, _positioned(rule.name, rule.fn))
    parser.inline.ruler2.before("fragments_join", "safety_positions", _collect)
    return parser


_PARSER = _parser()


@dataclass(frozen=True)
class CodeSpan:
    """An inline code span: [start, end) with its backticks, and its content as rendered."""

    start: int
    end: int
    content: str


@dataclass(frozen=True)
class CodeBlock:
    """A code block of the segment, as a fence of its own.

    [start, end) are the block's lines in the segment (end past the last line's newline);
    ``synthetic`` is the same code as a fenced segment (its own offsets, from 0); for each
    line of its body, ``begins`` is where its code starts in ``synthetic`` and ``places``
    where it starts in the segment."""

    start: int
    end: int
    synthetic: Segment
    begins: tuple[int, ...]
    places: tuple[int, ...]

    def place(self, offset: int) -> int:
        """An offset in ``synthetic.text`` as an offset in the segment."""
        line = max(bisect.bisect_right(self.begins, offset) - 1, 0)
        return self.places[line] + max(offset - self.begins[line], 0)


@dataclass(frozen=True)
class Rendered:
    """A paragraph as it renders: ``text`` (lines as shown), its ``code`` ([start, end) in
    ``text`` of each code span or HTML code element, in order), and [``start``, ``end``),
    where its content starts and its last line ends in the segment."""

    start: int
    end: int
    text: str
    code: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Reading:
    """A segment as it renders (see the module docstring); offsets into the segment."""

    blocks: list[CodeBlock]
    spans: list[CodeSpan]
    markup: list[tuple[int, int]]
    joins: list[tuple[int, int, bool]]  # [start, end) of a line break read as a space; "\\"?
    rendered: list[Rendered] = field(default_factory=list)


class _Lines:
    """The segment's lines, and where content lines taken from them sit in the segment."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        self.starts.extend(i + 1 for i, char in enumerate(text) if char == "\n")

    def line(self, index: int) -> str:
        if index >= len(self.starts):
            return ""
        end = self.starts[index + 1] - 1 if index + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[index] : end].rstrip("\r")

    def columns(self, content: str, index: int, cursor: int = -1) -> list[int] | int:
        """Where ``content`` (a line of a token's content) sits in line ``index``: its first
        column when it is found as written, else a column for each character.

        A block's content line is the end of its source line (the container's prefix
        removed); a table cell is found from ``cursor`` on; a line that reads differently
        (tabs expanded, an escaped ``|`` in a cell) is aligned character by character."""
        source = self.line(index)
        if cursor < 0:
            for written in (source, source.rstrip()):
                if written.endswith(content):
                    return len(written) - len(content)
        found = source.find(content, max(cursor, 0))
        if found >= 0:
            return found
        columns, at = [], max(cursor, 0)
        for char in content:  # a few characters dropped or changed: look only a little ahead
            hit = source.find(char, at, at + _ALIGN_AHEAD)
            at = hit if hit >= 0 else min(at, len(source))
            columns.append(at)
            at = min(at + 1, len(source))
        columns.append(at)
        return columns


class _Placed:
    """Offsets of a token's content mapped into the segment."""

    def __init__(self, lines: _Lines, content: str, first: int, cursor: int = -1) -> None:
        self.lines = lines
        self.first = first
        self.parts = content.split("\n")
        self.begins: list[int] = []  # offset of each content line in the content
        self.columns: list[list[int] | int] = []
        at = 0
        for index, part in enumerate(self.parts):
            self.begins.append(at)
            self.columns.append(lines.columns(part, first + index, cursor))
            at += len(part) + 1

    def __call__(self, offset: int) -> int:
        index = bisect.bisect_right(self.begins, offset) - 1
        column = offset - self.begins[index]
        start = self.lines.starts[min(self.first + index, len(self.lines.starts) - 1)]
        placed = self.columns[index]
        if isinstance(placed, int):
            return start + placed + column
        return start + placed[min(column, len(placed) - 1)]

    def end_of(self, index: int) -> int:
        """Where content line ``index`` ends in the segment."""
        return self(self.begins[index] + len(self.parts[index]))

    def start_of(self, index: int) -> int:
        return self(self.begins[index])


def _code_block(lines: _Lines, token: Any, quotes: int) -> CodeBlock | None:
    first, last = token.map
    body_first = first + (1 if token.type == "fence" else 0)
    content: str = token.content
    parts = content.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    if not parts:
        return None
    placed = _Placed(lines, "\n".join(parts), body_first)
    container = "> " * quotes
    run = fence_for(content)
    info = token.info.strip() if token.type == "fence" else ""
    words = info.split()
    language = words[0].lower().strip("{}.") if words else ""
    mark = FenceMark("`", len(run), language, quotes, 0, len(container))
    pieces, begins = [container + run + info + "\n"], []
    at = len(pieces[0])
    for part in parts:
        begins.append(at + len(container))
        pieces.append(container + part + "\n")
        at += len(pieces[-1])
    pieces.append(container + run + "\n")
    synthetic = Segment("fence", "".join(pieces), 0, mark)
    places = tuple(placed.start_of(index) for index in range(len(parts)))
    end = lines.starts[last] if last < len(lines.starts) else len(lines.text)
    return CodeBlock(lines.starts[first], end, synthetic, tuple(begins), places)


def read(text: str, context: str = "") -> Reading:
    """The segment as it renders: see the module docstring. ``context`` is the marker of
    the list item the segment continues (`Segment.context`): the segment is parsed after
    it, as it renders inside the item, and nothing of the context is reported."""
    if context:
        prefix = context + "\n\n"
        return _shifted(_read(prefix + text, 2), len(prefix))
    return _read(text, 0)


def _shifted(reading: Reading, by: int) -> Reading:
    blocks = [
        CodeBlock(b.start - by, b.end - by, b.synthetic, b.begins, tuple(p - by for p in b.places))
        for b in reading.blocks
    ]
    return Reading(
        blocks,
        [CodeSpan(s.start - by, s.end - by, s.content) for s in reading.spans],
        [(a - by, b - by) for a, b in reading.markup],
        [(a - by, b - by, backslash) for a, b, backslash in reading.joins],
        [Rendered(r.start - by, r.end - by, r.text, r.code) for r in reading.rendered],
    )


def _read(text: str, skip: int) -> Reading:
    """The reading of ``text``, leaving out its first ``skip`` lines (a context)."""
    lines = _Lines(text)
    env: dict[Any, Any] = {}
    tokens = _PARSER.parse(text, env)
    reading = Reading([], [], [], [])
    noted_all: list[tuple[str, _Inline]] = env.get("noted", [])
    next_noted = 0
    quotes = 0
    cursor = -1  # in a table row: where the next cell is searched from
    for token in tokens:
        if token.type == "blockquote_open":
            quotes += 1
        elif token.type == "blockquote_close":
            quotes -= 1
        elif token.type == "tr_open":
            cursor = 0
        elif token.type == "tr_close":
            cursor = -1
        elif token.type in ("code_block", "fence") and token.map and token.map[0] >= skip:
            block = _code_block(lines, token, quotes)
            if block is not None:
                reading.blocks.append(block)
        elif token.type == "inline":
            while next_noted < len(noted_all) and noted_all[next_noted][0] != token.content:
                next_noted += 1
            if next_noted == len(noted_all) or not token.map:
                continue
            noted = noted_all[next_noted][1]
            next_noted += 1
            if token.map[0] < skip:
                continue
            placed = _Placed(lines, token.content, token.map[0], cursor)
            if cursor >= 0:  # the next cell is after this one
                cursor = placed(len(token.content)) - lines.starts[token.map[0]]
            _add(reading, placed, noted, token.content)
            if _RENDERS_DIFFERENTLY.search(token.content):
                start, end = placed.start_of(0), placed.end_of(len(placed.parts) - 1)
                reading.rendered.append(Rendered(start, end, *_rendered(token.children or [])))
    return reading


# What makes a paragraph render other than the source reading reads it: a character
# reference, a backslash escape, HTML. (Code spans, emphasis, links and line breaks are read
# as rendered by the source reading already.) Other paragraphs get no second look: it
# would find nothing new, and reading every paragraph twice cost about a third more time.
_RENDERS_DIFFERENTLY = re.compile(r"[&\\<]")
# HTML elements that show their content as code (as `agent.safety.inline` reads them).
_HTML_CODE = re.compile(r"<(/?)(?:code|pre|kbd|samp|tt)(?:[ \t\n][^<>]*)?>", re.IGNORECASE)


def _rendered(children: list[Any]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """An inline token's children as they render (see `Rendered`): the text tokens have
    character references and backslash escapes resolved by markdown-it-py."""
    pieces: list[str] = []
    code: list[tuple[int, int]] = []
    at = 0
    depth = 0  # HTML code elements open
    opened = 0
    for child in children:
        kind = child.type
        if kind == "html_inline":
            tag = _HTML_CODE.fullmatch(child.content.strip())
            if tag is None:
                continue  # rich draws no tag: only the text between tags shows
            if not tag.group(1):
                depth += 1
                opened = at if depth == 1 else opened
            elif depth:
                depth -= 1
                if depth == 0:
                    code.append((opened, at))
            continue
        if kind in ("text", "code_inline"):
            piece = child.content
        elif kind == "softbreak":
            piece = " "
        elif kind == "hardbreak":
            piece = "\n"
        else:
            continue  # emphasis, links: their text is in text tokens of their own
        if kind == "code_inline" and not depth:
            code.append((at, at + len(piece)))
        pieces.append(piece)
        at += len(piece)
    # An element never closed is no code here (rich shows text; the source reading pairs
    # an opening tag only with a closing one).
    return "".join(pieces), tuple(code)


def _add(reading: Reading, placed: _Placed, noted: _Inline, content: str) -> None:
    for start, end, code in noted.code:
        reading.spans.append(CodeSpan(placed(start), placed(end - 1) + 1, code))
    for start, end in noted.markup:
        if end > start:
            reading.markup.append((placed(start), placed(end - 1) + 1))
    text = placed.lines.text
    for offset, backslash in noted.breaks:
        index = bisect.bisect_right(placed.begins, offset + (1 if backslash else 0))  # next line
        if index == 0 or index >= len(placed.parts):
            continue
        start = placed(offset) if backslash else placed.end_of(index - 1)
        end = placed.start_of(index)
        while start > 0 and text[start - 1] in " \t" and not backslash:
            start -= 1
        while end < len(text) and text[end] in " \t":
            end += 1
        if end > start:
            reading.joins.append((start, end, backslash))
