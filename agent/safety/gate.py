"""The gate between the model's text and the user: no state-changing command goes out bare.

Every command found in the text (see `extract`) is classified. Read-only commands stay as
written. A command that is mutating or unknown, and not already a structured suggestion,
becomes a `Suggestion` (``source="text"``):

* in a fenced block, its lines are replaced by the rendered suggestion block, in place; the
  fence's other lines stay in a fence (split around the block, each piece in the fence's
  block quote or list item); a comment right above the command becomes the block's
  purpose. A fence of Markdown source (``markdown``, ``md``) is never split: its body is
  guarded as Markdown, in place, and the fence stays whole around it (made longer when a
  block inside needs it). An indented code block is guarded the same way: its lines are
  read as an unlabelled fence's, and when a command in it needs a block, the code block is
  replaced in place by that fence's guarded form (its other lines fenced);
* inline or in prose, the command stays where it is, a short note follows it ("see the
  suggested command below") and its block is added at the end of the text.

The text is processed one segment at a time (a paragraph, or a whole fenced block), so
`guard_text` on the whole text and `StreamGate` fed any pieces of it give the same output:
both run the same segmenter and the same per-segment guard, carrying the same state.

Before anything is found or judged, the text is made `visible` (tools/visible.py): escape
sequences and characters without a glyph (zero-width, bidirectional controls) are taken
out, so the command that is classified is the command the user sees, and the output is
that same text. Each segment is then redacted whole (`redact_output`: the environment's
credentials and every secret pattern) before a command is found in it, so nothing the
gate does afterwards — taking a purpose from the text before a command, clipping it,
adding a note after a command — can cut a secret in half or come between a key word and
its value. A segment is a paragraph or a whole fence, so a secret is never split across
two.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from agent.safety.extract import FoundCommand, segment_commands
from agent.safety.fence import nests_markdown
from agent.safety.inline import _text_commands
from agent.safety.markdown import (
    FenceMark,
    Segment,
    Segmenter,
    fence_closes,
    lines_of,
    segments,
)
from agent.safety.model import Suggestion
from agent.safety.rendered import read
from agent.safety.shell import judge
from agent.safety.suggest import SuggestionContext, build_suggestion, render_suggestion
from tools.command_safety.args import word_set
from tools.redaction import redact_output
from tools.visible import VisibleStream, clip_line, safe_start, visible

_NOTE = {"en": " (see the suggested command below)", "zh": "（见下方建议命令）"}
_PURPOSE_CHARS = 160
_MARKDOWN_DEPTH = 3  # fences of Markdown source guarded inside one another
_LOOK_BACK = 600  # characters of text searched for the sentence before a command
_SENTENCES = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n")
_LEAD_INS = word_set(
    "run execute then and now please use try type enter command commands following below with"
    " maybe also optionally or"
)
# Chinese lead-ins are stripped as suffixes, repeatedly, so their order does not matter.
_LEAD_INS_ZH = tuple(word_set("执行 运行 然后 再 请 输入 以下命令 下面的命令 命令 以下"))
_CJK = re.compile(r"[\u4e00-\u9fff]")
_MARKUP = re.compile(r"[`*>#|]+|^\s*(?:[-+]|\d+[.)])\s+")


def normalize(command: str) -> str:
    """A command with its line continuations and runs of whitespace collapsed."""
    return " ".join(command.replace("\\\n", " ").split())


@dataclass(frozen=True)
class GuardedText:
    """The text as the user may see it, and the suggestions made from it."""

    text: str
    suggestions: list[Suggestion]


def _clip(text: str) -> str:
    # Never inside a placeholder or a secret-shaped token (the text is redacted already).
    return clip_line(text, _PURPOSE_CHARS)


def _redacted(segment: Segment) -> Segment:
    """The segment as it may be shown: redacted whole. A fence keeps its opening line as
    it is (it carries the fence mark the guard reads)."""
    text = segment.text
    if segment.kind == "fence":
        head, newline, body = text.partition("\n")
        text = head + newline + redact_output(body)
    else:
        text = redact_output(text)
    return segment if text == segment.text else replace(segment, text=text)


def _strip_lead_in(sentence: str) -> str:
    """Drop the words that only introduce a command ("To fix it, run:" → "To fix it")."""
    text = _MARKUP.sub(" ", sentence).strip()
    while True:
        before = text
        text = text.rstrip(" \t:;,：，；-")
        for word in _LEAD_INS_ZH:
            text = text.removesuffix(word)
        words = text.split()
        if words and words[-1].lower() in _LEAD_INS:
            text = text[: text.rfind(words[-1])]
        if text == before:
            return text.strip()


def _meaningful(sentence: str) -> bool:
    return len(sentence.split()) >= 3 or len(_CJK.findall(sentence, 0, 40)) >= 4


def purpose_before(text: str) -> str:
    """The sentence that introduces whatever follows ``text``, clipped; "" if none."""
    pieces = [p for p in _SENTENCES.split(text) if p.strip()]
    for piece in reversed(pieces[-2:]):
        sentence = _strip_lead_in(piece)
        if _meaningful(sentence):
            return _clip(sentence)
    return ""


@dataclass(frozen=True)
class Evidence:
    """How a conversation ties a suggestion to what it rests on, for the blocks the gate
    renders as it streams (`agent.safety.evidence.pin`, `agent.verify.age_note`): the same
    evidence and age line as a block made through suggest_command."""

    pin: Callable[[Suggestion], Suggestion]
    age: Callable[[Suggestion], str | None]


class _Guard:
    """Guards segment after segment, remembering what was suggested and what came before."""

    def __init__(
        self,
        context: SuggestionContext,
        already_suggested: Collection[str],
        evidence: Evidence | None = None,
    ) -> None:
        self.context = context
        self.evidence = evidence
        self.suggestions: list[Suggestion] = []
        self._given = {normalize(c) for c in already_suggested}  # shown by a tool already
        self._made: dict[str, Suggestion] = {}  # made here, by normalised command
        self._pending: dict[str, str] = {}  # blocks to add at the end, by normalised command
        self._blocks: dict[str, str] = {}  # rendered blocks, by normalised command
        self._introduction = ""  # purpose taken from the paragraph before a fence
        self._separate = False  # the last segment ended with a block: next needs a blank line
        self._tail = ""  # last characters written
        self._depth = 0  # Markdown fences being guarded inside one another

    # --- deciding -----------------------------------------------------------------------

    def _needs_block(self, command: str) -> bool:
        key = normalize(command)
        if key in self._given:
            return False
        return key in self._made or judge(command).kind != "read_only"

    def _suggest(self, command: str, purpose: str) -> Suggestion:
        key = normalize(command)
        if key not in self._made:
            made = build_suggestion(
                command, purpose=purpose, context=self.context, section=None, source="text"
            )
            if self.evidence is not None:
                made = self.evidence.pin(made)
            self._made[key] = made
            self.suggestions.append(made)
        return self._made[key]

    def _block(self, suggestion: Suggestion) -> str:
        key = normalize(suggestion.command)
        if key not in self._blocks:
            age = self.evidence.age(suggestion) if self.evidence is not None else None
            block = render_suggestion(suggestion, self.context.language, evidence_age=age)
            self._blocks[key] = block.rstrip("\n") + "\n"
        return self._blocks[key]

    # --- segments -----------------------------------------------------------------------

    def segment(self, segment: Segment) -> str:
        if segment.kind == "fence":
            out = self._fence(segment)
            opens = closes = out != segment.text
        else:
            out, opens, closes = self._text(segment)
        # A block replacing code must stand apart from the text around it, or Markdown
        # would run the paragraph before (or after) into its heading.
        if opens and self._tail and not self._tail.endswith("\n\n"):
            out = ("\n" if self._tail.endswith("\n") else "\n\n") + out
        elif self._separate and out and not out.startswith("\n"):
            out = "\n" + out
        self._separate = closes
        if out:
            self._tail = (self._tail + out)[-2:]
        return out

    def _text(self, segment: Segment) -> tuple[str, bool, bool]:
        """The segment with notes after its inline and prose commands, and its code blocks
        guarded as fences, in place; and whether it starts and ends with a replaced block."""
        text = segment.text
        reading = read(text, segment.context)
        incoming = self._introduction
        edits: list[tuple[int, int, str]] = []  # [start, end) of the text, replaced
        blocks = {block.start: block for block in reading.blocks}
        # Inline and prose commands get notes; a code block's are guarded with the block.
        found = _text_commands(text, segment.start, reading)
        events: list[tuple[int, FoundCommand | None]] = [
            *((f.start - segment.start, f) for f in found),
            *((start, None) for start in blocks),
        ]
        for start, item in sorted(events, key=lambda event: event[0]):
            if item is None:
                block = blocks[start]
                before = text[safe_start(text, start - _LOOK_BACK) : start]
                default = "" if before.strip() else incoming
                self._introduction = purpose_before(before) or default
                guarded = self._fence(block.synthetic)
                if guarded != block.synthetic.text:
                    edits.append((block.start, block.end, guarded))
                continue
            # Prose renders its character references (`&amp;` shows as "&"), so the command a
            # reader sees is the decoded one; plain-text output (a pipe, `ask` JSON) shows it
            # as written, where a shell would read "&lt;" as "&", "lt;". The decoded command
            # is judged; the written one too when it plainly changes something
            # ("cat &lt;reboot" runs reboot), not when it is merely unreadable.
            command = item.command
            if item.where == "prose" and "&" in command:
                decoded = html.unescape(command)
                written_changes = judge(command).kind == "mutating"
                command = command if written_changes and not self._needs_block(decoded) else decoded
            if not self._needs_block(command):
                continue
            end = item.end - segment.start
            # The purpose is near the command: a bounded look back keeps long text linear.
            purpose = purpose_before(text[safe_start(text, start - _LOOK_BACK) : start])
            suggestion = self._suggest(command, purpose or incoming)
            key = normalize(command)
            if key not in self._pending:
                self._pending[key] = self._block(suggestion)
            edits.append((end, end, _NOTE[self.context.language]))
        tail = text[safe_start(text, len(text) - _LOOK_BACK) :]
        self._introduction = purpose_before(tail) if text.strip() else incoming
        return _apply(text, edits)

    def _fence(self, segment: Segment) -> str:
        chosen = [f for f in segment_commands(segment) if self._needs_block(f.command)]
        introduction, self._introduction = self._introduction, ""
        if not chosen:
            return segment.text
        mark = segment.mark
        assert mark is not None  # a fence segment always carries its opening fence
        if nests_markdown(segment) and self._depth < _MARKDOWN_DEPTH:
            return self._markdown_fence(segment, mark, introduction)
        lines = lines_of(segment.text)
        closed = len(lines) > 1 and fence_closes(lines[-1], mark)
        opening, body = lines[0], lines[1 : len(lines) - 1 if closed else len(lines)]
        run = mark.char * mark.length
        closing = lines[-1] if closed else mark.container + run + "\n"
        if not closing.endswith("\n"):
            closing += "\n"
        starts = _line_starts(segment.text)
        by_line: dict[int, list[FoundCommand]] = {}
        covered: set[int] = set()
        for found in chosen:
            first = _line_of(starts, found.start - segment.start) - 1
            last = _line_of(starts, max(found.start, found.end - 1) - segment.start) - 1
            by_line.setdefault(first, []).append(found)
            covered.update(range(first, last + 1))
        # In a shell session (`$ ` prompts), unprompted lines are output. A piece left without
        # any prompt is labelled text, so it still reads as output once split off.
        session = any(line[mark.strip(line) :].lstrip().startswith("$ ") for line in body)
        # A later piece reopens the fence in its container (a list item is not restarted).
        again = mark.container + opening[mark.run_at :]
        output = mark.container + run + "text\n" if session else again
        pieces: list[str] = []
        kept: list[str] = []
        openings = [opening, output if session else opening]
        for index, line in enumerate(body):
            for found in by_line.get(index, []):
                purpose = _take_comments(kept, mark.strip) or introduction
                if _flush_fence(pieces, kept, (openings[0], openings[1]), closing, mark.strip):
                    openings = [again, output]
                pieces.append(self._block(self._suggest(found.command, purpose)))
            if index not in covered:
                kept.append(line if line.endswith("\n") else line + "\n")
        _flush_fence(pieces, kept, (openings[0], openings[1]), closing, mark.strip)
        return "\n".join(pieces)

    def _markdown_fence(self, segment: Segment, mark: FenceMark, introduction: str) -> str:
        """A fence of Markdown source, its body guarded as Markdown inside it."""
        lines = lines_of(segment.text)
        closed = len(lines) > 1 and fence_closes(lines[-1], mark)
        opening, body = lines[0], "".join(lines[1 : len(lines) - 1 if closed else len(lines)])
        saved = (self._tail, self._separate)
        self._tail, self._separate, self._introduction = "\n\n", False, introduction
        self._depth += 1
        try:
            inner = "".join(self.segment(piece) for piece in segments(body))
        finally:
            self._depth -= 1
            (self._tail, self._separate), self._introduction = saved, ""
        if inner and not inner.endswith("\n"):
            inner += "\n"
        runs = [len(run) for run in re.findall(re.escape(mark.char) + "+", inner)]
        run = mark.char * max(mark.length, max(runs, default=0) + 1)
        at = mark.run_at
        opening = opening[:at] + run + opening[at + mark.length :]
        closing = lines[-1] if closed else ""
        if closing:
            cut = mark.strip(closing)
            closing = closing[:cut] + closing[cut:].replace(mark.char * mark.length, run, 1)
        else:
            closing = mark.container + run + "\n"
        return opening + inner + (closing if closing.endswith("\n") else closing + "\n")

    def finish(self) -> str:
        """The blocks of inline and prose commands, to add after the last segment."""
        if not self._pending:
            return ""
        blocks = "\n".join(self._pending.values())
        self._pending = {}
        if not self._tail:
            return blocks
        lead = "" if self._tail.endswith("\n\n") else "\n" if self._tail.endswith("\n") else "\n\n"
        return lead + blocks


def _apply(text: str, edits: list[tuple[int, int, str]]) -> tuple[str, bool, bool]:
    """``text`` with its edits made: a note after a command, a code block replaced by its
    guarded form (apart from the text around it by a blank line). Returns the text, and
    whether it starts and ends with a replaced block."""
    pieces: list[str] = []
    previous = 0
    opens = closes = False
    for start, end, new in sorted(set(edits), key=lambda edit: (edit[0], edit[1])):
        if start < previous:
            continue  # one note for a place
        pieces.append(text[previous:start])
        if end > start:  # a code block
            written = "".join(pieces)
            if not written.strip():
                opens = True
            elif not written.endswith("\n\n"):
                pieces.append("\n" if written.endswith("\n") else "\n\n")
            rest = text[end:]
            closes = not rest
            pieces.append(new if not rest or rest.startswith("\n") else new + "\n")
        else:
            pieces.append(new)
        previous = end
    pieces.append(text[previous:])
    return "".join(pieces), opens, closes


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(i + 1 for i, char in enumerate(text) if char == "\n")
    return starts


def _line_of(starts: list[int], offset: int) -> int:
    """Index of the line holding ``offset`` (binary search over line starts)."""
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low


def _take_comments(kept: list[str], prefix: Callable[[str], int]) -> str:
    """Comment lines right above a command become its purpose (and leave the fence).

    ``prefix`` tells how much of a line is its container's (quote markers, indentation)."""
    comments: list[str] = []
    while kept and kept[-1][prefix(kept[-1]) :].lstrip().startswith("#"):
        line = kept.pop()
        comments.insert(0, line[prefix(line) :].strip().lstrip("#").strip())
    return _clip(" ".join(c for c in comments if c))


def _flush_fence(
    pieces: list[str],
    kept: list[str],
    openings: tuple[str, str],
    closing: str,
    prefix: Callable[[str], int],
) -> bool:
    """Close the kept lines into a fence of their own, unless they are all blank; return
    whether a piece was written.

    ``openings``: the fence's own opening line, and the one for a piece without prompts;
    ``prefix`` tells how much of a line is its container's."""

    def blank(line: str) -> bool:
        return not line[prefix(line) :].strip()

    written = not all(blank(line) for line in kept)
    if written:
        while blank(kept[0]):
            kept.pop(0)
        while blank(kept[-1]):
            kept.pop()
        prompted = any(line[prefix(line) :].lstrip().startswith("$ ") for line in kept)
        pieces.append((openings[0] if prompted else openings[1]) + "".join(kept) + closing)
    kept.clear()
    return written


def guard_text(
    text: str, context: SuggestionContext, *, already_suggested: Collection[str] = ()
) -> GuardedText:
    """Guard a whole text: see the module docstring."""
    guard = _Guard(context, already_suggested)
    out = [guard.segment(_redacted(segment)) for segment in segments(visible(text))]
    out.append(guard.finish())
    return GuardedText("".join(out), guard.suggestions)


class StreamGate:
    """`guard_text` for streamed text: releases each segment once it is complete."""

    def __init__(
        self,
        context: SuggestionContext,
        *,
        already_suggested: Collection[str] = (),
        evidence: Evidence | None = None,
    ) -> None:
        self._segmenter = Segmenter()
        self._visible = VisibleStream()
        self._guard = _Guard(context, already_suggested, evidence)

    @property
    def suggestions(self) -> list[Suggestion]:
        return self._guard.suggestions

    def feed(self, delta: str) -> list[str]:
        """The guarded segments that ``delta`` completes (often none)."""
        shown = self._visible.feed(delta)
        found = self._segmenter.feed(shown) if shown else []
        return [self._guard.segment(_redacted(s)) for s in found]

    def flush(self) -> list[str]:
        """The rest at the end of the stream, then the blocks of inline and prose commands."""
        rest = self._visible.flush()
        found = self._segmenter.feed(rest) if rest else []
        out = [self._guard.segment(_redacted(s)) for s in [*found, *self._segmenter.flush()]]
        tail = self._guard.finish()
        return [piece for piece in [*out, tail] if piece]
