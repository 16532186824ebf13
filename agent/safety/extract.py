"""Find the shell commands in the model's Markdown text, with where they are.

This is the public entry: `find_commands` for a whole text, `segment_commands` for one
segment (as the gate reads them, one paragraph or fence at a time), and `FoundCommand`.
Three places hold commands, each read by its own module:

* **fence** — a fenced code block (`agent.safety.fence`). In a shell fence every line is a
  command; comment and output lines and fences in other languages are read like prose. A
  fence of Markdown source (``markdown``, ``md``) is read as Markdown, here, nested up to
  `_MARKDOWN_DEPTH` deep.
* **code block** — an indented code block (or a fence found inside a paragraph segment),
  as markdown-it-py reads it (`agent.safety.rendered`): read as an unlabelled fence of its
  own, its offsets mapped back.
* **inline** — a code span, or an HTML ``<code>``-like element (`agent.safety.inline`).
* **prose** — a command written without backticks (`agent.safety.prose`), also inside
  emphasis, links and HTML tags, whose markup is looked through, and across the soft line
  breaks of a paragraph (`agent.safety.inline`).

Paragraph segments are read with the parser the terminal renders them with
(`agent.safety.rendered`); the streaming `Segmenter` only cuts the text into segments.

The words they rely on — known tools, subcommands, connectives, resource ids, the shape of
a command line of a tool the classifier does not know — are in `agent.safety.vocabulary`;
shell comments and the remembered verdict `judge` in `agent.safety.shell`.

Every pattern is a flat character class or a literal; parsing and scanning are linear.
"""

from __future__ import annotations

from agent.safety.fence import _fence_body, _fence_commands, nests_markdown
from agent.safety.found import FoundCommand
from agent.safety.inline import _text_commands
from agent.safety.markdown import Segment, segments
from agent.safety.rendered import read
from agent.safety.shell import judge

# `judge` is imported from here by callers outside the safety package.
__all__ = ["FoundCommand", "find_commands", "judge", "segment_commands"]

_MARKDOWN_DEPTH = 3


def _markdown_commands(segment: Segment, depth: int) -> list[FoundCommand]:
    first = segment.text.find("\n") + 1
    if first == 0:
        return []
    body = _fence_body(segment)
    end = body[-1].offset + len(body[-1].text) if body else first
    shift = segment.start + first
    return [
        FoundCommand(f.command, f.start + shift, f.end + shift, f.where)
        for f in find_commands(segment.text[first:end], depth + 1)
    ]


def segment_commands(segment: Segment, depth: int = 0) -> list[FoundCommand]:
    """The commands of one segment, with offsets in the whole text."""
    if segment.kind == "fence":
        if depth < _MARKDOWN_DEPTH and nests_markdown(segment):
            return _markdown_commands(segment, depth)
        return _fence_commands(segment)
    reading = read(segment.text, segment.context)
    found = _text_commands(segment.text, segment.start, reading)
    for block in reading.blocks:  # an indented code block reads as an unlabelled fence
        for inner in segment_commands(block.synthetic, depth):
            start = segment.start + block.place(inner.start)
            end = segment.start + block.place(inner.end)
            found.append(FoundCommand(inner.command, start, end, inner.where))
    return sorted(found, key=lambda f: f.start) if reading.blocks else found


def find_commands(text: str, depth: int = 0) -> list[FoundCommand]:
    """Every command in ``text``, in order: fenced, inline and prose."""
    return [f for segment in segments(text) for f in segment_commands(segment, depth)]
