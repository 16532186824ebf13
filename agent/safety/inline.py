"""Commands of a paragraph outside fences: inline code, HTML code elements, and its prose
read through its markup (`_text_commands`).

* **inline** — a code span whose first word is a known tool (``sudo`` and ``$ `` allowed),
  or whose text holds a prose command or is shaped like a command line
  (`command_candidate`). A span of one bare word (`` `reboot` ``) is a command only after a
  run verb ("run", "execute", 执行...): otherwise it names a thing.
* **wrappers** — emphasis (``**``, ``_``, ``~~``), links (``[text](url)``) and HTML tags
  are looked inside: their markup is blanked for the prose scan (`agent.safety.prose`), and
  ``<code>``, ``<pre>``, ``<kbd>``, ``<samp>``, ``<tt>`` elements are read like inline code
  (tags stripped, entities decoded). A table row's cell separators end a command; a prose
  line ending in ``\\`` continues on the next.
"""

from __future__ import annotations

import bisect
import html
import re
from dataclasses import dataclass

from agent.safety.found import FoundCommand
from agent.safety.markdown import CodeSpan, _lines, code_spans, lines_of
from agent.safety.prose import (
    _LOOK_BACK,
    _MASK,
    _WRAPPED,
    _after_run_verb,
    hidden_command,
    narrative_signal,
    prose_commands,
)
from agent.safety.shell import judge
from agent.safety.vocabulary import _first_tool, command_candidate, is_tool
from tools.command_safety.args import word_set
from tools.command_safety.words import prompt_length

_REPORT_MARK = re.compile(r"\[(?:FAIL|WARN|PASS|INFO)\] ")


def _inline_command(text: str, span_start: int, content: str, *, block: bool = False) -> str | None:
    command = content.strip()
    if _REPORT_MARK.match(command):
        # A triage report line quoted as the workflow asks: prose, read for what it holds
        # (cluster text in it may carry a command), never exempt and never a command whole.
        held = [f.command for f in prose_commands(command)]
        changing = [c for c in held if judge(c).kind != "read_only"]
        return next(iter(changing or held), None)
    prompt = prompt_length(command, root=False)  # $ , user@host:~$ , PS C:\> ...
    if prompt:
        command = command[prompt:].strip()
    elif command.startswith("#"):
        rest = command.lstrip("#").strip()
        if not is_tool(_first_tool(rest)):  # a comment: only what is written in it counts
            found = prose_commands(rest)
            return found[0].command if found else None
        if len(rest.split()) == 1:
            return rest  # `# reboot` is a root prompt, like a "# reboot" line in a fence
        command = rest
    if not command:
        return None
    words = command.split()
    if len(words) == 1:
        run = _after_run_verb(text[max(0, span_start - _LOOK_BACK) : span_start])
        return command if is_tool(command) and run else None
    known = is_tool(_first_tool(command)) or is_tool(words[0])
    if known or prose_commands(command) or command_candidate(command, block=block):
        if narrative_signal(text, span_start, command):
            return None  # "the OOM killer sent `kill -9`": reported, not advised
        hidden = hidden_command(command)
        return command if hidden is None else command[hidden[0] : hidden[1]]
    return None


# An HTML tag; `_CODE_ELEMENTS` show their content as code, the others are markup.
_HTML_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]{0,20})(?:[ \t\n][^<>]{0,300})?/?>")
_CODE_ELEMENTS = word_set("code pre kbd samp tt")
_BLOCK_ELEMENTS = word_set("pre")
_LINK = re.compile(r"!?\[[^\[\]\n]{1,300}\](?:\([^()\s]{0,500}\)|\[[^\[\]\n]{0,100}\])")
_DELIMITERS = re.compile(r"\*+|_+|~+")
_TABLE_ROW = re.compile(r"[ \t]*(?:>[ \t]*)*\|")
_OPENS_AFTER = frozenset(" \t\n([{\"'“‘«\x00")


@dataclass(frozen=True)
class _Element:
    span: CodeSpan
    block: bool


def _html_elements(text: str) -> tuple[list[_Element], list[tuple[int, int]]]:
    """The code-like HTML elements of ``text`` (``<code>…</code>``...), and the other tags.

    Each opening tag takes the next closing tag of its name, found by bisection."""
    tags = list(_HTML_TAG.finditer(text))
    closings: dict[str, list[int]] = {}
    for index, tag in enumerate(tags):
        if tag.group(1):
            closings.setdefault(tag.group(2).lower(), []).append(index)
    elements: list[_Element] = []
    others: list[tuple[int, int]] = []
    index = 0
    while index < len(tags):
        tag = tags[index]
        name = tag.group(2).lower()
        if not tag.group(1) and name in _CODE_ELEMENTS:
            ends = closings.get(name, [])
            position = bisect.bisect_right(ends, index)
            if position < len(ends):
                close = tags[ends[position]]
                span = CodeSpan(tag.start(), close.end(), tag.end(), close.start())
                elements.append(_Element(span, name in _BLOCK_ELEMENTS))
                index = ends[position] + 1
                continue
        others.append((tag.start(), tag.end()))
        index += 1
    return elements, others


def _element_text(text: str, span: CodeSpan) -> str:
    """The content of an HTML element as shown: inner tags dropped, entities decoded."""
    return html.unescape(_HTML_TAG.sub("", text[span.content_start : span.content_end]))


def _emphasis(text: str) -> list[tuple[int, int]]:
    """The emphasis and strikethrough delimiters of ``text`` (``*``, ``_``, ``~`` runs) that
    pair up as Markdown would show them: an opener (after a blank or punctuation, before a
    word) with the next closer of the same run (after a word, before a blank or
    punctuation). Runs inside words (``FI_EFA``, ``~/.ssh``, ``[*]``) pair with nothing."""
    pairs: list[tuple[int, int]] = []
    open_runs: dict[str, list[tuple[int, int]]] = {}
    for match in _DELIMITERS.finditer(text):
        run, start, end = match.group(), match.start(), match.end()
        before = text[start - 1] if start > 0 else " "
        after = text[end] if end < len(text) else " "
        key = run[0] + str(len(run))
        stack = open_runs.setdefault(key, [])
        closes = not before.isspace() and not after.isalnum() and after not in "]}"
        if closes and stack:
            pairs.append(stack.pop())
            pairs.append((start, end))
        elif not after.isspace() and before in _OPENS_AFTER:
            stack.append((start, end))
    return pairs


def _prose_view(text: str, masked: list[str]) -> tuple[str, str]:
    """(what the prose scan reads, what commands are taken from) for a paragraph.

    The scan reads ``masked`` (inline code masked) with the markup blanked: HTML tags,
    link brackets and targets, paired emphasis; a ``\\`` ending a line joins it to the
    next; a table row's cell separators end commands. The source is ``text`` with the
    markup marked `_WRAPPED`. Both keep every offset."""
    view = masked
    source = list(text)
    plain = "".join(masked)

    def blank(start: int, end: int) -> None:
        for i in range(start, end):
            if view[i] != "\n":
                view[i], source[i] = " ", _WRAPPED

    for start, end in _html_elements(plain)[1]:
        blank(start, end)
    for link in _LINK.finditer(plain):
        label_end = plain.index("]", link.start())
        blank(link.start(), plain.index("[", link.start()) + 1)
        blank(label_end, link.end())
    for start, end in _emphasis(plain):
        blank(start, end)
    for match in re.finditer(r"\\\r?\n", plain):  # a prose line continued on the next
        for i in range(match.start(), match.end()):
            view[i] = " "
    offset = 0
    for line in lines_of(plain):
        row = _TABLE_ROW.match(line)
        if row is not None:
            for i in range(row.end() - 1, len(line)):
                if line[i] == "|" and (i == 0 or line[i - 1] != "\\"):
                    view[offset + i] = _MASK
        offset += len(line)
    return "".join(view), "".join(source)


def _text_commands(text: str, base: int) -> list[FoundCommand]:
    """Inline and prose commands of a paragraph (a segment outside any fence)."""
    found: list[FoundCommand] = []
    masked = list(text)

    def mask(span: CodeSpan) -> None:
        for i in range(span.start, span.end):
            if masked[i] != "\n":
                masked[i] = _MASK

    for span in code_spans(text):
        content = text[span.content_start : span.content_end]
        command = _inline_command(text, span.start, content)
        if command is not None:
            found.append(FoundCommand(command, base + span.start, base + span.end, "inline"))
        mask(span)
    for element in _html_elements("".join(masked))[0]:
        span = element.span
        for line in _element_text(text, span).split("\n"):
            command = _inline_command(text, span.start, line, block=element.block)
            if command is not None:
                found.append(FoundCommand(command, base + span.start, base + span.end, "inline"))
        mask(span)
    view, source = _prose_view(text, masked)
    for offset, line in _lines(view):
        written = source[offset : offset + len(line)]
        found.extend(prose_commands(line, base + offset, source=written))
    return sorted(found, key=lambda f: f.start)
